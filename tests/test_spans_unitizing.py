"""unitizing_alpha against Krippendorff's published worked examples (as DKPro Statistics'
tests reproduce them), against oracles written out from the formulas by brute force over
positions (plain Python: every segment compared with every other, every placement of a unit
in a gap counted one by one), and against the krippendorff-unitized-alpha package."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import xr_agreement
from xr_agreement._core import jit
from xr_agreement.spans.unitizing import unitizing_alpha

# --------------------------------------------------------------------------------------------
# Published examples. The data and values are those of DKPro Statistics' tests
# (dkpro-statistics-agreement/src/test/java/org/dkpro/statistics/agreement/unitizing/):
# Krippendorff2004Test (Krippendorff 2004, Content Analysis 2nd ed., p. 254: alpha 0.8591,
# label c D_o 0.0144, D_e 0.0532, alpha 0.7286; label k D_o 0, D_e 0.0490, alpha 1),
# Krippendorff1995Test (Krippendorff 1995, Sociological Methodology 25, p. 57: four pairs of
# observers A-D on a continuum of 24, stretched up to 1.2 million positions) and
# UnitizingAgreementTest (a small example of DKPro's own).
# --------------------------------------------------------------------------------------------

KRIPPENDORFF_2004 = [  # (observer, begin, length, label) on the continuum 150 .. 450
    ("i", 225, 70, "c"), ("i", 370, 30, "c"), ("j", 220, 80, "c"), ("j", 355, 20, "c"),
    ("j", 400, 20, "c"), ("i", 180, 60, "k"), ("i", 300, 50, "k"), ("j", 180, 60, "k"),
    ("j", 300, 50, "k"),
]

KRIPPENDORFF_1995 = [  # (begin, length, observer, label) on the continuum 0 .. 24
    (2, 8, 0, "A"), (14, 6, 0, "A"), (4, 4, 1, "A"), (15, 2, 1, "A"),
    (0, 18, 0, "B"), (0, 2, 1, "B"), (2, 1, 1, "B"), (3, 1, 1, "B"), (4, 1, 1, "B"),
    (5, 1, 1, "B"), (6, 3, 1, "B"), (9, 1, 1, "B"),
    (2, 6, 0, "C"), (10, 2, 0, "C"), (14, 4, 0, "C"), (20, 2, 0, "C"), (0, 2, 1, "C"),
    (4, 4, 1, "C"), (10, 4, 1, "C"), (16, 2, 1, "C"), (20, 2, 1, "C"),
    (0, 2, 0, "D"), (2, 8, 0, "D"), (10, 4, 0, "D"), (14, 6, 0, "D"), (20, 4, 0, "D"),
    (0, 4, 1, "D"), (4, 4, 1, "D"), (8, 7, 1, "D"), (15, 2, 1, "D"), (17, 7, 1, "D"),
]


def krippendorff_1995(stretch: float, labels="ABCD"):
    """The example on a continuum of ``24 * stretch``, offsets truncated as DKPro's
    ``createExample(stretch)`` truncates them (at 0.5 some units of B and D have length 0,
    which the span table refuses: those tests read label C alone)."""
    records = [("example", ("first", "second")[r], int(b * stretch),
                int(b * stretch) + int(n * stretch), label)
               for b, n, r, label in KRIPPENDORFF_1995 if label in labels]
    return xr_agreement.from_spans(records, lengths={"example": int(24 * stretch)})


def test_krippendorff_2004_page_254():
    table = xr_agreement.from_spans(
        [("text", who, begin - 150, begin + n - 150, label)
         for who, begin, n, label in KRIPPENDORFF_2004], lengths={"text": 300})
    result = unitizing_alpha(table)
    assert float(result.alpha) == pytest.approx(0.8591, abs=0.0005)
    c, k = result.sel(label="c"), result.sel(label="k")
    assert float(c.label_observed_disagreement) == pytest.approx(0.0144, abs=0.0001)
    assert float(c.label_expected_disagreement) == pytest.approx(0.0532, abs=0.0001)
    assert float(c.label_alpha) == pytest.approx(0.7286, abs=0.0001)
    assert float(k.label_observed_disagreement) == pytest.approx(0.0, abs=0.0001)
    assert float(k.label_expected_disagreement) == pytest.approx(0.0490, abs=0.0001)
    assert float(k.label_alpha) == pytest.approx(1.0, abs=0.0001)
    # DKPro's corpus value: the ratio of the labels' mean disagreements
    assert float(result.alpha) == pytest.approx(
        1 - float(result.label_observed_disagreement.sum())
        / float(result.label_expected_disagreement.sum()), rel=1e-12)


def test_krippendorff_1995_page_57():
    result = unitizing_alpha(krippendorff_1995(1))
    observed = result.label_observed_disagreement
    for label, value in {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}.items():
        assert float(observed.sel(label=label)) == pytest.approx(value, abs=0.00001)
    # stretched to 1.2 million positions, as DKPro's test: the published D_e and alpha, with
    # DKPro's tolerances. A and D agree to 5 digits; B (1.17578) and C (0.0905) differ from
    # the paper in the third decimal, as DKPro's own computation does: its test notes "a
    # small error in the computation of D_E in the original reference"
    stretched = unitizing_alpha(krippendorff_1995(50_000))
    expected = {"A": 0.06990, "B": 1.17731, "C": 0.08642, "D": 0.41445}
    alphas = {"A": 0.553, "B": -0.926, "C": 0.679, "D": 0.066}
    for label in "ABCD":
        assert float(stretched.label_observed_disagreement.sel(label=label)) == \
            pytest.approx(float(observed.sel(label=label)), rel=1e-9)
        assert float(stretched.label_expected_disagreement.sel(label=label)) == \
            pytest.approx(expected[label], abs=0.005)
        assert float(stretched.label_alpha.sel(label=label)) == pytest.approx(
            alphas[label], abs=0.02)
    assert int(stretched.continuum_length) == 1_200_000
    # DKPro's testVaryingLengths: label C's D_e as the continuum grows
    for stretch, value, tolerance, alpha in [
            (0.5, 0.05494, 0.00001, 0.494), (5, 0.08234, 0.005, 0.663),
            (50, 0.08600, 0.005, 0.677), (500, 0.08638, 0.005, 0.678),
            (5000, 0.08642, 0.005, 0.679)]:
        got = unitizing_alpha(krippendorff_1995(stretch, "C")).sel(label="C")
        assert float(got.label_observed_disagreement) == pytest.approx(0.02777, abs=0.00001)
        assert float(got.label_expected_disagreement) == pytest.approx(value, abs=tolerance)
        assert float(got.label_alpha) == pytest.approx(alpha, abs=0.02)


def test_dkpro_small_example():
    # r0: -11111111-   r1: --1-1-1---
    table = xr_agreement.from_spans(
        [("x", "r0", 1, 9, "A"), ("x", "r1", 2, 3, "A"), ("x", "r1", 4, 5, "A"),
         ("x", "r1", 6, 7, "A")], lengths={"x": 10})
    result = unitizing_alpha(table)
    assert float(result.label_observed_disagreement.sel(label="A")) == pytest.approx(
        0.9100, abs=0.0001)
    assert float(result.label_expected_disagreement.sel(label="A")) == pytest.approx(
        0.5351, abs=0.0001)
    assert float(result.label_alpha.sel(label="A")) == pytest.approx(-0.7003, abs=0.0001)


# --------------------------------------------------------------------------------------------
# Oracles: the formulas written out over positions, in plain Python.
# --------------------------------------------------------------------------------------------

def _runs(owner):
    """Maximal runs of equal values: (first, stop, value)."""
    runs, first = [], 0
    for p in range(1, len(owner) + 1):
        if p == len(owner) or owner[p] != owner[first]:
            runs.append((first, p, owner[first]))
            first = p
    return runs


def oracle_2004(records, documents, annotators, labels):
    """Krippendorff's (2004) per-label u-alpha. ``documents``: (id, length) of the documents
    in the continuum, in order; ``records``: (document, annotator, start, end, label).
    Returns {label: (D_o, D_e)} and the corpus alpha."""
    m = len(annotators)
    L = sum(n for _, n in documents)
    where = {}
    shift = 0
    for doc, n in documents:
        where[doc] = (shift, n)
        shift += n
    out = {}
    for label in labels:
        segments = {}  # annotator -> [(first, stop, is_unit)] in continuum positions
        for annotator in annotators:
            found = []
            for doc, n in documents:
                owner = [None] * n
                for number, (d, a, s, e, lab) in enumerate(records):
                    if d == doc and a == annotator and lab == label:
                        for p in range(s, e):
                            owner[p] = number
                base = where[doc][0]
                found += [(base + f, base + t, v is not None) for f, t, v in _runs(owner)
                          if t > f]
            segments[annotator] = found
        total = 0
        for i1 in range(m):
            for i2 in range(i1 + 1, m):
                for s1 in segments[annotators[i1]]:
                    for s2 in segments[annotators[i2]]:
                        p1, p2 = set(range(s1[0], s1[1])), set(range(s2[0], s2[1]))
                        if not p1 & p2:
                            continue
                        if s1[2] and s2[2]:
                            total += (s1[0] - s2[0]) ** 2 + (s1[1] - s2[1]) ** 2
                        elif s1[2] and p1 <= p2:
                            total += len(p1) ** 2
                        elif s2[2] and p2 <= p1:
                            total += len(p2) ** 2
        D_o = 2 * total / (m * (m - 1) * L * L)
        units = [s for a in annotators for s in segments[a] if s[2]]
        gaps = [s for a in annotators for s in segments[a] if not s[2]]
        N = len(units)
        E = 0
        for first, stop, _ in units:
            l = stop - first
            E += (N - 1) * sum(2 * k * k for k in range(1, l))
            placements = sum(1 for g0, g1, _ in gaps for p in range(g0, g1) if p + l <= g1)
            E += l * l * placements
        squared = sum((t - f) * (t - f - 1) for f, t, _ in units)
        D_e = E * 2 / L / (m * L * (m * L - 1) - squared)
        out[label] = (D_o, D_e)
    sum_o = sum(v[0] for v in out.values())
    sum_e = sum(v[1] for v in out.values())
    return out, (1 - sum_o / sum_e if sum_e > 0 else math.nan)


def oracle_2016(records, documents, annotators, resolution=1):
    """Krippendorff et al. (2016) _u alpha from coincidences counted position by position;
    offsets are multiplied by ``resolution`` to land on whole positions. Returns alpha and
    the observed coincidences {(c, k): value}, c and k labels or "(gap)"."""
    m = len(annotators)
    tags = {}  # annotator -> tag at every position; unit ids -> runs
    ids = {}
    for annotator in annotators:
        tag, unit = [], []
        for doc, n in documents:
            here, owner = ["(gap)"] * int(n * resolution), [None] * int(n * resolution)
            for number, (d, a, s, e, lab) in enumerate(records):
                if d == doc and a == annotator:
                    for p in range(int(s * resolution), int(e * resolution)):
                        here[p], owner[p] = lab, number
            tag += here
            unit += owner
        tags[annotator], ids[annotator] = tag, unit
    positions = len(next(iter(tags.values())))
    observed = {}
    for a in annotators:
        for b in annotators:
            if a != b:
                for p in range(positions):
                    key = (tags[a][p], tags[b][p])
                    observed[key] = observed.get(key, 0) + 1 / resolution / (m - 1)
    own = {}
    for a in annotators:
        for first, stop, number in _runs(ids[a]):
            tag = tags[a][first]
            n = (stop - first) / resolution
            own[tag] = own.get(tag, 0) + (n if number is None else n * n)
    values = {c for c, _ in observed} | {k for _, k in observed}
    total = sum(observed.values())
    margin = {c: sum(observed.get((c, k), 0) for k in values) for c in values}
    denominator = total * total - sum(own.values())
    expected_diagonal = sum(total * (margin[c] * margin[c] - own.get(c, 0)) / denominator
                            for c in values)
    observed_diagonal = sum(observed.get((c, c), 0) for c in values)
    return 1 - (total - observed_diagonal) / (total - expected_diagonal), observed


# --------------------------------------------------------------------------------------------
# Random continua
# --------------------------------------------------------------------------------------------

ANNOTATORS = ["ann", "bob", "cy"]
LABELS = ["PER", "ORG", "LOC", "MISC"]  # MISC: bob never uses it; "DATE" below: nobody


def random_spans(rng, documents, annotators, labels, overlapping=True, step=1):
    """Per annotator and document, units of each label that do not overlap within the label
    (touching ones included); with ``overlapping`` units of different labels nest and cross,
    else each annotator's units form one segmentation. Offsets are multiples of ``step``."""
    records = []
    for doc, n in documents:
        for annotator in annotators:
            if overlapping:
                for label in labels:
                    if label == "MISC" and annotator == "bob":
                        continue
                    position = int(rng.integers(0, 6))
                    while True:
                        size = int(rng.integers(1, 9))
                        if position + size > n:
                            break
                        records.append((doc, annotator, position * step,
                                        (position + size) * step, label))
                        position += size + int(rng.choice([0, 0, 1, 3, 7]))  # 0: touching
            else:
                position = int(rng.integers(0, 4))
                while True:
                    size = int(rng.integers(1, 9))
                    if position + size > n:
                        break
                    label = labels[int(rng.integers(0, len(labels)))]
                    if not (label == "MISC" and annotator == "bob"):
                        records.append((doc, annotator, position * step,
                                        (position + size) * step, label))
                    position += size + int(rng.choice([0, 0, 1, 2, 5]))
    # one annotator's units moved a little, so annotators agree only partly
    return records


def corpus(seed, overlapping=True, step=1, n_documents=4, annotators=ANNOTATORS):
    rng = np.random.default_rng(seed)
    documents = [(f"doc-{d}", int(rng.integers(12, 40))) for d in range(n_documents)]
    documents.append(("empty-doc", 9))  # annotated by all, nobody marked anything
    records = random_spans(rng, documents, annotators, LABELS, overlapping, step)
    # a document the last annotator did not annotate: the others' records exist, it is
    # left out
    skipped = ("skipped-doc", 20)
    skipped_records = random_spans(rng, [skipped], annotators[:-1], LABELS, overlapping,
                                   step)
    annotated = [(doc, a) for doc, _ in documents for a in annotators]
    annotated += [(skipped[0], a) for a in annotators[:-1]]
    lengths = {doc: n * step for doc, n in documents + [skipped]}
    table = xr_agreement.from_spans(records + skipped_records, lengths=lengths,
                                    annotated=annotated, labels=LABELS + ["DATE"])
    return table, records, documents


@pytest.mark.parametrize("seed", range(6))
def test_2004_against_oracle_on_random_continua(seed):
    table, records, documents = corpus(seed)
    before = table.copy(deep=True)
    result = unitizing_alpha(table)
    assert table.identical(before)  # the input is not modified
    per_label, alpha = oracle_2004(records, documents, ANNOTATORS, LABELS + ["DATE"])
    for label in LABELS:
        D_o, D_e = per_label[label]
        got = result.sel(label=label)
        assert float(got.label_observed_disagreement) == pytest.approx(D_o, rel=1e-12)
        assert float(got.label_expected_disagreement) == pytest.approx(D_e, rel=1e-12)
        assert float(got.label_alpha) == pytest.approx(1 - D_o / D_e, rel=1e-10, abs=1e-12)
        assert got.label_undefined_reason.item() == ""
    assert float(result.alpha) == pytest.approx(alpha, rel=1e-10, abs=1e-12)
    # the label nobody used: NaN, said why, and no weight in the corpus value
    date = result.sel(label="DATE")
    assert np.isnan(float(date.label_alpha))
    assert "no annotator marked a unit" in date.label_undefined_reason.item()
    assert int(result.n_documents) == len(documents)
    assert int(result.n_documents_left_out) == 1
    assert int(result.continuum_length) == sum(n for _, n in documents)
    assert int(result.label_n_units.sel(label="MISC")) == sum(
        1 for r in records if r[4] == "MISC")


@pytest.mark.parametrize("seed", range(4))
def test_2016_against_oracle_on_random_continua(seed):
    table, records, documents = corpus(100 + seed, overlapping=False)
    result = unitizing_alpha(table, "krippendorff2016")
    alpha, observed = oracle_2016(records, documents, ANNOTATORS)
    assert float(result.alpha) == pytest.approx(alpha, rel=1e-10, abs=1e-12)
    for (c, k), value in observed.items():
        got = float(result.coincidence.sel(category=c, paired_category=k))
        assert got == pytest.approx(value, rel=1e-10)
    assert float(result.coincidence.sum()) == pytest.approx(
        len(ANNOTATORS) * sum(n for _, n in documents), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_2016_float_offsets_against_oracle(seed):
    # seconds in quarters: the oracle counts positions of a quarter second
    table, records, documents = corpus(200 + seed, overlapping=False, step=0.25)
    assert table.start.dtype.kind == "f"
    result = unitizing_alpha(table, "krippendorff2016")
    alpha, _ = oracle_2016(records, [(d, n * 0.25) for d, n in documents], ANNOTATORS,
                           resolution=4)
    assert float(result.alpha) == pytest.approx(alpha, rel=1e-10)


def test_2016_against_the_package():
    # installed by the README's test command (pip install --no-deps): never skipped
    from krippendorff_unitized_alpha import krippendorffs_unitized_alpha as kua

    for seed in range(5):
        for step in (1, 0.5):
            table, records, documents = corpus(300 + seed, overlapping=False, step=step)
            # the package's input: each coder's units and the gaps between them, exactly
            # (half-open), on the documents laid end to end
            shift, base = 0, {}
            for doc, n in documents:
                base[doc] = shift
                shift += n * step
            data = {}
            for annotator in ANNOTATORS:
                units = sorted((base[d] + s, base[d] + e, lab) for d, a, s, e, lab in records
                               if a == annotator)
                segments, position = [], 0
                for s, e, lab in units:
                    if s > position:
                        segments.append(kua.Segment(kua.EMPTY_TAG, position, s))
                    segments.append(kua.Segment(lab, s, e))
                    position = e
                if shift > position:
                    segments.append(kua.Segment(kua.EMPTY_TAG, position, shift))
                data[annotator] = segments
            peer = kua.KrippendorffUnitizedAlpha(data)
            result = unitizing_alpha(table, "krippendorff2016")
            assert float(result.alpha) == pytest.approx(peer.result, rel=1e-10)
            order = sorted(peer.tag_set, key=lambda t: (t == kua.EMPTY_TAG, t))
            ours = [t if t != kua.EMPTY_TAG else "(gap)" for t in order]
            index = [peer.tag_2_pos[t] for t in order]
            np.testing.assert_allclose(
                result.coincidence.sel(category=ours, paired_category=ours).values,
                peer.observed_coincidence_matrix_[np.ix_(index, index)], rtol=1e-12)
            np.testing.assert_allclose(
                result.expected_coincidence.sel(category=ours, paired_category=ours).values,
                peer.expected_coincidence_matrix_[np.ix_(index, index)], rtol=1e-10)


@pytest.mark.parametrize("annotators", [["ann", "bob"], ["ann", "bob", "cy", "dee"]])
def test_other_numbers_of_annotators_against_oracles(annotators):
    table, records, documents = corpus(400 + len(annotators), annotators=annotators)
    result = unitizing_alpha(table)
    per_label, alpha = oracle_2004(records, documents, annotators, LABELS + ["DATE"])
    for label in LABELS:
        D_o, D_e = per_label[label]
        assert float(result.label_observed_disagreement.sel(label=label)) == \
            pytest.approx(D_o, rel=1e-12)
        assert float(result.label_expected_disagreement.sel(label=label)) == \
            pytest.approx(D_e, rel=1e-12)
    assert float(result.alpha) == pytest.approx(alpha, rel=1e-10, abs=1e-12)
    table, records, documents = corpus(500 + len(annotators), overlapping=False,
                                       annotators=annotators)
    alpha, _ = oracle_2016(records, documents, annotators)
    assert float(unitizing_alpha(table, "krippendorff2016").alpha) == pytest.approx(
        alpha, rel=1e-10, abs=1e-12)


def test_compiled_and_interpreted_agree():
    table, _, _ = corpus(7)
    table16, _, _ = corpus(8, overlapping=False)
    previous = jit.mode()
    try:
        jit.set_mode("never")
        slow = unitizing_alpha(table), unitizing_alpha(table16, "krippendorff2016")
        jit.set_mode("always")
        fast = unitizing_alpha(table), unitizing_alpha(table16, "krippendorff2016")
    finally:
        jit.set_mode(previous)
    for a, b in zip(slow, fast):
        for name in ("alpha", "observed_disagreement", "expected_disagreement"):
            assert float(a[name]) == pytest.approx(float(b[name]), rel=1e-13)


# --------------------------------------------------------------------------------------------
# Documents, missing annotators, undefined values, refusals
# --------------------------------------------------------------------------------------------

def test_documents_left_out_and_order():
    table, records, documents = corpus(11)
    result = unitizing_alpha(table)
    # the table without the document cy did not annotate gives the same numbers
    only = xr_agreement.from_spans(records, lengths=dict(documents),
                                   annotated=[(d, a) for d, _ in documents for a in ANNOTATORS],
                                   labels=LABELS + ["DATE"])
    again = unitizing_alpha(only)
    assert float(again.alpha) == pytest.approx(float(result.alpha), rel=1e-13)
    assert int(again.n_documents_left_out) == 0
    # gaps end at documents' boundaries: the order of documents does not matter
    reordered = xr_agreement.from_spans(records[::-1], lengths=dict(documents[::-1]),
                                        labels=LABELS + ["DATE"],
                                        annotated=[(d, a) for d, _ in documents[::-1]
                                                   for a in ANNOTATORS])
    np.testing.assert_allclose(unitizing_alpha(reordered).label_alpha.values,
                               result.label_alpha.values, rtol=1e-12)
    # "never saw it" is not "marked nothing": cy marking nothing on that document counts
    annotated = [(d, a) for d, _ in documents + [("skipped-doc", 20)] for a in ANNOTATORS]
    extra = [r for r in _records(table) if r[0] == "skipped-doc"]
    nothing = xr_agreement.from_spans(records + extra, lengths={**dict(documents),
                                                                "skipped-doc": 20},
                                      annotated=annotated, labels=LABELS + ["DATE"])
    counted = unitizing_alpha(nothing)
    assert int(counted.n_documents) == len(documents) + 1
    assert float(counted.alpha) != pytest.approx(float(result.alpha), rel=1e-6)


def test_2016_documents_order_and_left_out():
    table, records, documents = corpus(12, overlapping=False)
    result = unitizing_alpha(table, "krippendorff2016")
    assert int(result.n_documents_left_out) == 1
    reordered = xr_agreement.from_spans(records[::-1], lengths=dict(documents[::-1]),
                                        labels=LABELS + ["DATE"],
                                        annotated=[(d, a) for d, _ in documents[::-1]
                                                   for a in ANNOTATORS])
    again = unitizing_alpha(reordered, "krippendorff2016")
    assert float(again.alpha) == pytest.approx(float(result.alpha), rel=1e-12)
    np.testing.assert_allclose(again.coincidence.values, result.coincidence.values,
                               rtol=1e-12)


def _records(table):
    return list(zip(table.document.values.tolist(), table.annotator.values.tolist(),
                    table.start.values.tolist(), table.end.values.tolist(),
                    table.label.values.tolist()))


def test_undefined_values_say_why():
    one = xr_agreement.from_spans([("d", "ann", 0, 3, "X")], lengths={"d": 10})
    for method in ("krippendorff2004", "krippendorff2016"):
        result = unitizing_alpha(one, method)
        assert np.isnan(float(result.alpha))
        assert result.undefined_reason.item() == "fewer than 2 annotators"
    # two annotators on different documents: no document annotated by both
    apart = xr_agreement.from_spans([("d1", "ann", 0, 3, "X"), ("d2", "bob", 0, 3, "X")])
    result = unitizing_alpha(apart)
    assert np.isnan(float(result.alpha))
    assert "no document was annotated by every annotator" in result.undefined_reason.item()
    assert int(result.n_documents_left_out) == 2
    # both read the document and marked nothing
    blank = xr_agreement.from_spans([], lengths={"d": 10}, annotated=[("d", "a"), ("d", "b")],
                                    labels=["X"])
    for method in ("krippendorff2004", "krippendorff2016"):
        result = unitizing_alpha(blank, method)
        assert np.isnan(float(result.alpha)) and result.undefined_reason.item() != ""


def test_overlapping_units_of_one_label_refused():
    table = xr_agreement.from_spans(
        [("doc-7", "ann", 0, 10, "PER"), ("doc-7", "ann", 3, 5, "ORG"),
         ("doc-7", "ann", 4, 12, "PER"), ("doc-7", "bob", 0, 10, "PER")], lengths={"doc-7": 20})
    with pytest.raises(ValueError, match=r"document 'doc-7', annotator 'ann': the units "
                                         r"\[0, 10\) labelled 'PER' and \[4, 12\) labelled "
                                         r"'PER' overlap"):
        unitizing_alpha(table)


def test_2016_refuses_overlapping_labels_and_2004_takes_them():
    table = xr_agreement.from_spans(
        [("doc-1", "ann", 0, 10, "ORG"), ("doc-1", "ann", 3, 5, "PER"),
         ("doc-1", "bob", 0, 10, "ORG")], lengths={"doc-1": 20})
    assert float(unitizing_alpha(table).label_alpha.sel(label="ORG")) == 1.0
    with pytest.raises(ValueError, match=r"annotator 'ann': the units \[0, 10\) labelled "
                                         r"'ORG' and \[3, 5\) labelled 'PER' overlap"):
        unitizing_alpha(table, "krippendorff2016")


def test_other_refusals():
    table = xr_agreement.from_spans([("d", "a", 0.5, 2.0, "X"), ("d", "b", 0.5, 2.5, "X")])
    with pytest.raises(ValueError, match="real numbers.*krippendorff2016"):
        unitizing_alpha(table)
    with pytest.raises(ValueError, match="method must be one of"):
        unitizing_alpha(table, "krippendorff1995")
    gap = xr_agreement.from_spans([("d", "a", 0, 2, "(gap)"), ("d", "b", 0, 2, "(gap)")])
    with pytest.raises(ValueError, match=r"named '\(gap\)'"):
        unitizing_alpha(gap, "krippendorff2016")
    with pytest.raises(TypeError, match="span table"):
        unitizing_alpha(xr_agreement.from_spans([("d", "a", 0, 2, "X")]).drop_vars("length"))


def test_attrs_and_accessor():
    table, _, _ = corpus(3)
    result = table.agreement.unitizing_alpha()
    assert result.attrs["method"] == "krippendorff2004"
    assert "Krippendorff" in result.attrs["reference"]
    assert "left out" in result.attrs["missing_data"]
    for name, var in result.data_vars.items():
        assert var.attrs["long_name"] and var.attrs["description"], name
    assert result.label_alpha.attrs["symbol"] == "alpha_U,c"
    assert list(result.label.values) == LABELS + ["DATE"]
    table16, _, _ = corpus(4, overlapping=False)
    coincidences = table16.agreement.unitizing_alpha("krippendorff2016")
    assert list(coincidences.category.values) == LABELS + ["DATE", "(gap)"]
    # docs/vocabulary.md: levels are prefixes, counts are n_<things>, reasons are text
    for ds in (result, coincidences):
        for name, var in ds.data_vars.items():
            assert var.attrs["long_name"] and var.attrs["description"], name
            if "label" in var.dims:
                assert name.startswith("label_"), name
            elif "category" in var.dims:
                assert name in ("coincidence", "expected_coincidence"), name
            else:
                assert not name.startswith("label_"), name
            if var.dtype.kind in "iu":
                assert re.sub("^label_", "", name).startswith("n_"), name
            if name.endswith("undefined_reason"):
                assert var.dtype.kind == "O", name


def test_overlap_refusal_names_float_ids_without_crashing():
    # ids that are neither text nor whole numbers live in an object array: the message
    # called .item() on a Python float and raised AttributeError instead
    table = xr_agreement.from_spans([(1.5, 0.5, 0, 3, "X"), (1.5, 0.5, 1, 4, "X"),
                                     (1.5, "b", 1, 3, "X")], lengths={1.5: 4})
    for method in ("krippendorff2004", "krippendorff2016"):
        with pytest.raises(ValueError, match=r"document 1\.5, annotator '0\.5'.*\[0, 3\)"):
            unitizing_alpha(table, method)
