"""The span family against independent oracles (tests/span_oracle.py) written from the
definitions, not from the implementation: positions and position-level MLA by loops over
positions and annotator pairs, span F1 by loops over pairs and spans (overlap matches by
exhaustive search over matchings), Krippendorff's unitizing alpha from his formulas in exact
fractions and from his published worked examples, and the disputed regions from the
positions where the annotators differ.

Random corpora: string ids on every dim, 2-5 annotators, 1-4 labels and one declared label
nobody used, documents of lengths 0..60 (an empty one, one read by all and marked by none,
one nobody annotated, annotators who skipped one), nested, overlapping, touching and
same-position spans of different labels.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from span_oracle import (
    Corpus,
    f1_counts,
    maximum_matching_size,
    mla_oracle,
    position_decisions,
    random_corpus,
    span_f1_oracle,
    unitizing_oracle,
)

SEEDS = range(8)


def assert_close(actual, expected, what, rtol=1e-12, atol=1e-12):
    actual = float(actual)
    expected = float(expected)
    if math.isnan(expected):
        assert math.isnan(actual), f"{what}: expected NaN, got {actual!r}"
        return
    assert math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol), \
        f"{what}: got {actual!r}, the definition gives {expected!r}"


def ids_along(obj, dim):
    """The ids of a dim: its coordinate ``dim``, or ``dim + '_id'`` (the table's naming)."""
    for name in (dim, f"{dim}_id"):
        if name in obj.coords and obj[name].dims == (dim,):
            return [v.item() if hasattr(v, "item") else v for v in obj[name].values]
    raise AssertionError(f"no coordinate gives the ids of dim {dim!r}; coords: "
                         f"{list(obj.coords)}")


def label_value(variable, label):
    index = ids_along(variable, "label").index(label)
    return variable.isel(label=index)


def pair_value(variable, a, b):
    first = ids_along(variable, "annotator_1").index(a)
    second = ids_along(variable, "annotator_2").index(b)
    return variable.isel(annotator_1=first, annotator_2=second)


# --------------------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------------------

def test_random_corpora_hold_the_cases_that_matter():
    seen = set()
    for seed in SEEDS:
        corpus = random_corpus(np.random.default_rng(seed))
        table = corpus.table()
        assert "UNUSED" in list(table.label_id.values)
        assert "UNUSED" not in {s[4] for s in corpus.spans}
        lengths = corpus.lengths
        assert 0 in lengths.values()
        marked = {s[0] for s in corpus.spans}
        if any(len(corpus.deciders(d)) == len(corpus.annotators) and d not in marked
               and lengths[d] > 0 for d in corpus.documents):
            seen.add("read by all, marked by none")
        if any(not corpus.deciders(d) for d in corpus.documents):
            seen.add("nobody annotated")
        if any(0 < len(corpus.deciders(d)) < len(corpus.annotators)
               for d in corpus.documents):
            seen.add("an annotator skipped it")
        by_owner = {}
        for d, a, s, e, label in corpus.spans:
            by_owner.setdefault((d, a), []).append((s, e, label))
        for own in by_owner.values():
            for (s1, e1, l1), (s2, e2, l2) in itertools.combinations(own, 2):
                if (s1, e1) == (s2, e2):
                    seen.add("same position")
                elif l1 != l2 and (s1 <= s2 and e2 <= e1 or s2 <= s1 and e1 <= e2):
                    seen.add("nested")
                elif s1 < e2 and s2 < e1:
                    seen.add("overlapping")
                elif e1 == s2 or e2 == s1:
                    seen.add("touching")
    assert seen == {"read by all, marked by none", "nobody annotated",
                    "an annotator skipped it", "same position", "nested", "overlapping",
                    "touching"}


# --------------------------------------------------------------------------------------
# positions
# --------------------------------------------------------------------------------------

def position_keys(positions: xr.DataArray):
    """(document, offset) of every position of the returned array."""
    assert "document" in positions.coords, list(positions.coords)
    offset_names = [name for name in ("offset", "position_offset", "start")
                    if name in positions.coords]
    assert offset_names, f"no offset coordinate over position: {list(positions.coords)}"
    documents = positions["document"].values
    offsets = positions[offset_names[0]].values
    return [(d.item() if hasattr(d, "item") else d, int(p)) for d, p in
            zip(documents, offsets)]


@pytest.mark.parametrize("seed", SEEDS)
def test_positions_cell_by_cell(seed):
    corpus = random_corpus(np.random.default_rng(seed))
    table = corpus.table()
    before = table.copy(deep=True)
    positions = table.agreement.positions()
    xr.testing.assert_identical(table, before)  # the input is not modified
    assert set(positions.dims) == {"position", "annotator", "label"}
    expected = position_decisions(corpus)
    keys = position_keys(positions)
    assert len(set(keys)) == len(keys), "a position is listed twice"
    every = {(d, p) for d in corpus.documents for p in range(corpus.lengths[d])}
    # every position of a document somebody annotated; a document nobody annotated may be
    # left out (the issue does not say), but if listed its decisions are all missing
    needed = {(d, p) for d, p in every if corpus.deciders(d)}
    assert needed <= set(keys) <= every, (sorted(needed - set(keys))[:5],
                                          sorted(set(keys) - every)[:5])
    annotators = ids_along(positions, "annotator")
    labels = ids_along(positions, "label")
    assert sorted(annotators) == sorted(corpus.annotators)
    assert labels == corpus.labels
    values = positions.transpose("position", "annotator", "label").values.astype(float)
    for row, (d, p) in enumerate(keys):
        for col, a in enumerate(annotators):
            for k, label in enumerate(labels):
                got, want = values[row, col, k], expected[(d, p, a, label)]
                assert (math.isnan(got) and math.isnan(want)) or got == want, \
                    f"document {d!r} offset {p} annotator {a!r} label {label!r}: got " \
                    f"{got}, the spans give {want}"


# --------------------------------------------------------------------------------------
# position-level MLA
# --------------------------------------------------------------------------------------

CORPUS_VARIABLES = ("agreement", "observed", "expected", "raw_prevalence", "alpha_hamming")
LABEL_VARIABLES = ("label_observed", "label_expected", "label_agreement", "label_weight",
                   "label_prevalence", "label_n_pairable_values")


def check_mla(result, oracle, corpus, where):
    for name in CORPUS_VARIABLES:
        assert name in result, f"{where}: no {name!r} in {list(result.data_vars)}"
        assert_close(result[name], oracle[name], f"{where} {name}")
    for name in LABEL_VARIABLES:
        for label in corpus.labels:
            want = oracle["label"][label].get(name, NAN_IF_UNDEFINED[name])
            assert_close(label_value(result[name], label), want,
                         f"{where} {name} of label {label!r}")


NAN_IF_UNDEFINED = {name: float("nan") for name in LABEL_VARIABLES}
NAN_IF_UNDEFINED["label_n_pairable_values"] = 0


@pytest.mark.parametrize("baseline", ["F", "AC1", "PB"])
@pytest.mark.parametrize("seed", SEEDS)
def test_mla_from_spans_matches_the_definition(seed, baseline):
    corpus = random_corpus(np.random.default_rng(seed))
    table = corpus.table()
    oracle = mla_oracle(corpus, baseline)
    result = table.agreement.mla(baseline=baseline)
    check_mla(result, oracle, corpus, f"seed {seed} baseline {baseline} span mla")


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_mla_of_the_positions_matches_the_definition(seed):
    # the classification mla on the materialised positions: a second path to the same values
    corpus = random_corpus(np.random.default_rng(seed))
    positions = corpus.table().agreement.positions()
    result = xr_agreement.mla(positions, "F", item="position")
    check_mla(result, mla_oracle(corpus, "F"), corpus, f"seed {seed} mla(positions())")


def test_mla_label_nobody_used_and_prevalence_paradox():
    # most positions are "outside": observed agreement is high, the F coefficient is not
    corpus = Corpus(["d1", "d2"], ["ann", "bob"], ["PER", "LOC", "UNUSED"],
                    {"d1": 50, "d2": 30}, {("d1", "ann"), ("d1", "bob"), ("d2", "ann")},
                    [("d1", "ann", 0, 5, "PER"), ("d1", "bob", 2, 7, "PER"),
                     ("d1", "ann", 10, 20, "LOC"), ("d1", "bob", 30, 40, "LOC"),
                     ("d2", "ann", 0, 30, "PER")])
    result = corpus.table().agreement.mla(baseline="F")
    oracle = mla_oracle(corpus, "F")
    check_mla(result, oracle, corpus, "hand-made corpus")
    assert oracle["observed"] > 0.8 and oracle["agreement"] < 0.3
    # d2 has one decider: none of its positions counts
    assert oracle["label"]["PER"]["label_n_pairable_values"] == 100
    assert math.isnan(float(label_value(result["label_agreement"], "UNUSED")))
    assert float(label_value(result["label_weight"], "UNUSED")) == 0


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_alpha_from_spans_matches_the_krippendorff_package(seed):
    # alpha with the Hamming distance over label vectors: the corpus value is the oracle's
    # alpha_H (docs/missing_data.md: equal when whole vectors are missing, as they are for a
    # document an annotator did not annotate); each label's alpha is the nominal alpha of
    # its 0/1 decisions, computed by the krippendorff package over the positions
    import krippendorff

    corpus = random_corpus(np.random.default_rng(seed))
    result = corpus.table().agreement.alpha("hamming")
    assert_close(result["alpha"], mla_oracle(corpus, "F")["alpha_hamming"],
                 f"seed {seed} alpha")
    decisions = position_decisions(corpus)
    keys = [(d, p) for d in corpus.documents for p in range(corpus.lengths[d])]
    for label in corpus.labels:
        data = np.array([[decisions[(d, p, a, label)] for d, p in keys]
                         for a in corpus.annotators])
        pairable = (~np.isnan(data)).sum(axis=0) >= 2
        values = set(data[:, pairable][~np.isnan(data[:, pairable])].tolist())
        got = float(label_value(result["label_alpha"], label))
        if len(values) < 2:
            assert math.isnan(got), f"seed {seed} label {label!r}: one value, alpha undefined"
            continue
        want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert_close(got, want, f"seed {seed} label_alpha of {label!r}", rtol=1e-10)


# --------------------------------------------------------------------------------------
# span F1
# --------------------------------------------------------------------------------------

def check_f1(result, oracle, corpus, where):
    for name in ("pair_f1", "pair_macro_f1"):
        assert name in result, f"{where}: no {name!r} in {list(result.data_vars)}"
        for a, b in itertools.permutations(corpus.annotators, 2):
            assert_close(pair_value(result[name], a, b), oracle[name][(a, b)],
                         f"{where} {name} of ({a!r}, {b!r})")
        for a in corpus.annotators:
            assert math.isnan(float(pair_value(result[name], a, a))), \
                f"{where} {name}: the diagonal ({a!r}) must be NaN"
    for label in corpus.labels:
        variable = label_value(result["label_pair_f1"], label)
        for a, b in itertools.permutations(corpus.annotators, 2):
            assert_close(pair_value(variable, a, b), oracle["label_pair_f1"][label][(a, b)],
                         f"{where} label_pair_f1 of {label!r} ({a!r}, {b!r})")


@pytest.mark.parametrize("match", ["exact", "overlap"])
@pytest.mark.parametrize("seed", SEEDS)
def test_span_f1_matches_pair_loops(seed, match):
    corpus = random_corpus(np.random.default_rng(seed))
    result = corpus.table().agreement.span_f1(match)
    check_f1(result, span_f1_oracle(corpus, match), corpus, f"seed {seed} {match}")


@pytest.mark.parametrize("match", ["exact", "overlap"])
def test_span_f1_corpus_values_pooled_and_mean_over_pairs(match):
    # Hripcsak & Rothschild (2005): with more than two annotators, the mean pairwise F
    # (mean_pair_f1); f1 pools the matches and spans of every pair and label (micro)
    corpus = random_corpus(np.random.default_rng(11), n_annotators=4)
    pair = span_f1_oracle(corpus, match)["pair_f1"]
    values = [float(pair[(a, b)]) for a, b in itertools.combinations(corpus.annotators, 2)]
    values = [v for v in values if not math.isnan(v)]
    result = corpus.table().agreement.span_f1(match)
    assert_close(result["mean_pair_f1"], sum(values) / len(values), f"{match} mean_pair_f1")
    matched = spans = 0
    for a, b in itertools.combinations(corpus.annotators, 2):
        for label in corpus.labels:
            tp, size_a, size_b = f1_counts(corpus, a, b, label, match)
            matched, spans = matched + tp, spans + size_a + size_b
    assert_close(result["f1"], 2 * matched / spans, f"{match} f1 pooled")


def test_overlap_matching_is_maximum_one_to_one_not_greedy():
    # ann's first span overlaps both of bob's; matching it to bob's first (the earliest, the
    # longest overlap) leaves ann's second span alone: 1 match; the maximum is 2.
    # Touching spans ([20, 25) and [25, 30)) do not overlap.
    spans = [("d", "ann", 0, 10, "X"), ("d", "ann", 9, 12, "X"), ("d", "ann", 20, 25, "X"),
             ("d", "bob", 2, 11, "X"), ("d", "bob", 0, 3, "X"), ("d", "bob", 25, 30, "X")]
    corpus = Corpus(["d"], ["ann", "bob"], ["X"], {"d": 30}, {("d", "ann"), ("d", "bob")},
                    spans)
    assert maximum_matching_size([(0, 10), (9, 12), (20, 25)],
                                 [(2, 11), (0, 3), (25, 30)]) == 2
    result = corpus.table().agreement.span_f1("overlap")
    check_f1(result, span_f1_oracle(corpus, "overlap"), corpus, "greedy trap")
    assert_close(pair_value(result["pair_f1"], "ann", "bob"), 4 / 6, "greedy trap pair_f1")
    exact = corpus.table().agreement.span_f1("exact")
    assert_close(pair_value(exact["pair_f1"], "ann", "bob"), 0.0, "no exact match")


def test_span_f1_counts_only_documents_both_annotated():
    # bob never saw d2: ann's d2 spans are neither misses nor matches for the pair
    spans = [("d1", "ann", 0, 4, "X"), ("d1", "bob", 0, 4, "X"), ("d2", "ann", 1, 3, "X"),
             ("d2", "ann", 5, 8, "X"), ("d2", "cy", 5, 8, "X")]
    corpus = Corpus(["d1", "d2"], ["ann", "bob", "cy"], ["X"], {"d1": 10, "d2": 10},
                    {("d1", "ann"), ("d1", "bob"), ("d2", "ann"), ("d2", "cy")}, spans)
    result = corpus.table().agreement.span_f1("exact")
    check_f1(result, span_f1_oracle(corpus, "exact"), corpus, "missing document")
    assert_close(pair_value(result["pair_f1"], "ann", "bob"), 1.0, "ann-bob on d1 only")
    assert_close(pair_value(result["pair_f1"], "ann", "cy"), 2 / 3, "ann-cy on d2 only")
    assert math.isnan(float(pair_value(result["pair_f1"], "bob", "cy"))), \
        "bob and cy share no document: F1 undefined"


# --------------------------------------------------------------------------------------
# Krippendorff's unitizing alpha
# --------------------------------------------------------------------------------------

def unitizing_table(units: dict, length: int, labels=None):
    """One document of the given length, every coder annotated it; ``units`` maps label ->
    coder -> [(begin, end)]."""
    coders = sorted({c for by_coder in units.values() for c in by_coder})
    records = [("text", coder, b, e, label) for label, by_coder in units.items()
               for coder, spans in by_coder.items() for b, e in spans]
    return xr_agreement.from_spans(records, lengths={"text": length},
                                   annotated=[("text", c) for c in coders],
                                   labels=labels or list(units))


def check_unitizing(result, units, length, coders, where, rtol=1e-10):
    sum_observed = sum_expected = 0
    for label, by_coder in units.items():
        complete = {c: by_coder.get(c, []) for c in coders}
        observed, expected = unitizing_oracle(complete, length)
        sum_observed += observed
        sum_expected += expected
        assert_close(label_value(result["label_observed_disagreement"], label), observed,
                     f"{where} D_o of {label!r}", rtol=rtol)
        assert_close(label_value(result["label_expected_disagreement"], label), expected,
                     f"{where} D_e of {label!r}", rtol=rtol)
        want = 1 - observed / expected if expected else float("nan")
        assert_close(label_value(result["label_alpha"], label), want,
                     f"{where} alpha of {label!r}", rtol=rtol, atol=1e-10)
    assert_close(result["alpha"], 1 - sum_observed / sum_expected, f"{where} alpha",
                 rtol=rtol, atol=1e-10)


# Krippendorff (2004), p. 254, as DKPro Statistics' Krippendorff2004Test builds it: a
# continuum [150, 450), two observers; shifted here to [0, 300) (alpha depends on distances
# and lengths only).
EXAMPLE_2004 = {
    "c": {"i": [(75, 145), (220, 250)], "j": [(70, 150), (205, 225), (250, 270)]},
    "k": {"i": [(30, 90), (150, 200)], "j": [(30, 90), (150, 200)]},
}


def test_unitizing_alpha_krippendorff_2004_worked_example():
    result = unitizing_table(EXAMPLE_2004, 300).agreement.unitizing_alpha()
    # the published values (DKPro's test, 4 decimals)
    assert abs(float(label_value(result["label_observed_disagreement"], "c")) - 0.0144) < 1e-4
    assert abs(float(label_value(result["label_expected_disagreement"], "c")) - 0.0532) < 1e-4
    assert abs(float(label_value(result["label_alpha"], "c")) - 0.7286) < 1e-4
    assert float(label_value(result["label_observed_disagreement"], "k")) == 0
    assert abs(float(label_value(result["label_expected_disagreement"], "k")) - 0.0490) < 1e-4
    assert abs(float(label_value(result["label_alpha"], "k")) - 1.0) < 1e-12
    assert abs(float(result["alpha"]) - 0.8591) < 5e-4
    check_unitizing(result, EXAMPLE_2004, 300, ["i", "j"], "2004 example")


def example_1995(stretch: int):
    """Krippendorff (1995), p. 57: four categories, two coders each (Bertha/Bill,
    John/Jill, Gerret/Gill, Heather/Hill) on a continuum of 24, as (begin, length); B and D
    hold touching units of one coder, which stay separate units."""
    units = {"A": {0: [(2, 8), (14, 6)], 1: [(4, 4), (15, 2)]},
             "B": {0: [(0, 18)], 1: [(0, 2), (2, 1), (3, 1), (4, 1), (5, 1), (6, 3), (9, 1)]},
             "C": {0: [(2, 6), (10, 2), (14, 4), (20, 2)],
                   1: [(0, 2), (4, 4), (10, 4), (16, 2), (20, 2)]},
             "D": {0: [(0, 2), (2, 8), (10, 4), (14, 6), (20, 4)],
                   1: [(0, 4), (4, 4), (8, 7), (15, 2), (17, 7)]}}
    names = {0: "coder-1", 1: "coder-2"}
    return {label: {names[c]: [(b * stretch, (b + n) * stretch) for b, n in spans]
                    for c, spans in by_coder.items()} for label, by_coder in units.items()}


def test_unitizing_alpha_krippendorff_1995_worked_example():
    coders = ["coder-1", "coder-2"]
    units = example_1995(1)
    result = unitizing_table(units, 24).agreement.unitizing_alpha()
    published_observed = {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}
    for label, value in published_observed.items():
        got = float(label_value(result["label_observed_disagreement"], label))
        assert abs(got - value) < 1e-5, (label, got, value)
    check_unitizing(result, units, 24, coders, "1995 example")

    # stretched to 1.2 million positions, as DKPro's test does to approach the continuous
    # case; its published expected disagreements and alphas within DKPro's tolerances
    stretch = 50_000
    units = example_1995(stretch)
    result = unitizing_table(units, 24 * stretch).agreement.unitizing_alpha()
    published_expected = {"A": 0.06990, "B": 1.17731, "C": 0.08642, "D": 0.41445}
    published_alpha = {"A": 0.553, "B": -0.926, "C": 0.679, "D": 0.066}
    for label in published_expected:
        expected = float(label_value(result["label_expected_disagreement"], label))
        assert abs(expected - published_expected[label]) < 0.005, (label, expected)
        alpha = float(label_value(result["label_alpha"], label))
        assert abs(alpha - published_alpha[label]) < 0.02, (label, alpha)
    check_unitizing(result, units, 24 * stretch, coders, "1995 example stretched")


@pytest.mark.parametrize("seed", SEEDS)
def test_unitizing_alpha_matches_the_formulas_on_random_continua(seed):
    rng = np.random.default_rng(100 + seed)
    corpus = random_corpus(rng, unitizing=True, n_documents=1, all_annotated=True)
    (document,) = corpus.documents
    length = corpus.lengths[document]
    units = {label: {a: corpus.spans_of(document, a, label) for a in corpus.annotators}
             for label in corpus.labels}
    result = corpus.table().agreement.unitizing_alpha("krippendorff2004")
    used = [label for label in corpus.labels if any(units[label].values())]
    check_unitizing(result, {label: units[label] for label in used}, length,
                    corpus.annotators, f"seed {seed}")
    # a label nobody used: no disagreement either way, alpha undefined
    assert float(label_value(result["label_expected_disagreement"], "UNUSED")) == 0
    assert math.isnan(float(label_value(result["label_alpha"], "UNUSED")))


def test_unitizing_alpha_counts_a_coder_who_marked_nothing():
    # three coders read the text; the third marked nothing: m = 3, its whole continuum a gap
    units = {"X": {"ann": [(2, 6), (6, 9), (15, 20)], "bob": [(2, 9), (14, 20)], "cy": []}}
    table = xr_agreement.from_spans(
        [("t", c, b, e, "X") for c, spans in units["X"].items() for b, e in spans],
        lengths={"t": 25}, annotated=[("t", "ann"), ("t", "bob"), ("t", "cy")])
    result = table.agreement.unitizing_alpha()
    check_unitizing(result, units, 25, ["ann", "bob", "cy"], "silent coder")


# --------------------------------------------------------------------------------------
# disputed regions
# --------------------------------------------------------------------------------------

def as_frame(result) -> pd.DataFrame:
    if isinstance(result, pd.DataFrame):
        return result.reset_index(drop=True)
    if isinstance(result, xr.Dataset):
        return result.to_dataframe().reset_index()
    raise AssertionError(f"disagreements returned {type(result).__name__}")


def disputed_positions(corpus: Corpus) -> set:
    """(document, offset) where the annotators who annotated the document do not all give
    the same decisions (on some label)."""
    decisions = position_decisions(corpus)
    out = set()
    for d in corpus.documents:
        deciders = corpus.deciders(d)
        for p in range(corpus.lengths[d]):
            vectors = {tuple(decisions[(d, p, a, label)] for label in corpus.labels)
                       for a in deciders}
            if len(vectors) > 1:
                out.add((d, p))
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_disagreements_cover_every_disputed_position_once(seed):
    corpus = random_corpus(np.random.default_rng(seed))
    regions = as_frame(corpus.table().agreement.disagreements())
    for column in ("document", "start", "end"):
        assert column in regions.columns, list(regions.columns)
    disputed = disputed_positions(corpus)
    covered = {}
    for row in regions.itertuples(index=False):
        d, start, end = row.document, int(row.start), int(row.end)
        assert d in corpus.lengths, f"region of an unknown document {d!r}"
        assert 0 <= start < end <= corpus.lengths[d], (d, start, end)
        inside = {(d, p) for p in range(start, end)}
        assert inside & disputed, f"region {d!r} [{start}, {end}) where all agree"
        for key in inside:
            assert key not in covered, f"regions overlap at {key}: {covered.get(key)} and " \
                                       f"{(d, start, end)}"
            covered[key] = (d, start, end)
    missing = disputed - set(covered)
    assert not missing, f"disputed positions in no region: {sorted(missing)[:10]}"


# --------------------------------------------------------------------------------------
# the oracles themselves, against other computations (these pass without the span family)
# --------------------------------------------------------------------------------------

def oracle_positions_array(corpus: Corpus) -> xr.DataArray:
    """The oracle's decisions as a (position, annotator, label) array, built here, not by
    the span family."""
    decisions = position_decisions(corpus)
    keys = [(d, p) for d in corpus.documents for p in range(corpus.lengths[d])]
    values = np.array([[[decisions[(d, p, a, label)] for label in corpus.labels]
                        for a in corpus.annotators] for d, p in keys], dtype=float)
    return xr.DataArray(values, dims=("position", "annotator", "label"),
                        coords={"annotator": corpus.annotators, "label": corpus.labels})


@pytest.mark.parametrize("baseline", ["F", "AC1", "PB"])
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_mla_oracle_agrees_with_the_classification_mla(seed, baseline):
    # the project's mla (tested against its own oracle and the paper's worked example) on
    # positions built by the oracle: checks this file's reading of the missing-data rule
    corpus = random_corpus(np.random.default_rng(seed))
    result = xr_agreement.mla(oracle_positions_array(corpus), baseline, item="position")
    check_mla(result, mla_oracle(corpus, baseline), corpus, f"seed {seed} oracle vs mla")


def test_matching_oracle_agrees_with_scipy_maximum_bipartite_matching():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    rng = np.random.default_rng(7)
    for _ in range(300):
        spans = []
        for _side in range(2):
            side = []
            for _k in range(int(rng.integers(0, 6))):
                start = int(rng.integers(0, 20))
                side.append((start, start + int(rng.integers(1, 8))))
            spans.append(side)
        a, b = spans
        graph = np.array([[x[0] < y[1] and y[0] < x[1] for y in b] for x in a], dtype=int)
        if not a or not b:
            want = 0
        else:
            matched = maximum_bipartite_matching(csr_matrix(graph), perm_type="column")
            want = int((matched >= 0).sum())
        assert maximum_matching_size(a, b) == want, (a, b)


def test_unitizing_oracle_reproduces_the_published_values():
    # Krippendorff (2004) p. 254 and (1995) p. 57 as DKPro Statistics' tests state them
    c = unitizing_oracle(EXAMPLE_2004["c"], 300)
    k = unitizing_oracle(EXAMPLE_2004["k"], 300)
    assert abs(float(c[0]) - 0.0144) < 1e-4 and abs(float(c[1]) - 0.0532) < 1e-4
    assert abs(float(1 - c[0] / c[1]) - 0.7286) < 1e-4
    assert k[0] == 0 and abs(float(k[1]) - 0.0490) < 1e-4
    assert abs(float(1 - (c[0] + k[0]) / (c[1] + k[1])) - 0.8591) < 5e-4
    for label, value in {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}.items():
        observed, _ = unitizing_oracle(example_1995(1)[label], 24)
        assert abs(float(observed) - value) < 1e-5, label
    published = {"A": (0.06990, 0.553), "B": (1.17731, -0.926), "C": (0.08642, 0.679),
                 "D": (0.41445, 0.066)}
    for label, (expected_value, alpha_value) in published.items():
        observed, expected = unitizing_oracle(example_1995(50_000)[label], 24 * 50_000)
        assert abs(float(expected) - expected_value) < 0.005, label
        assert abs(float(1 - observed / expected) - alpha_value) < 0.02, label
    # DKPro's exact check of D_e on the example at half size (Krippendorff1995Test)
    half = {c: [(b // 2, b // 2 + (e - b) // 2) for b, e in spans]
            for c, spans in example_1995(1)["C"].items()}
    observed, expected = unitizing_oracle(half, 12)
    assert abs(float(expected) - 0.05494) < 1e-5
    assert abs(float(1 - observed / expected) - 0.494) < 0.02


def test_disagreements_top_is_the_head_of_the_list_and_agreement_gives_none():
    corpus = random_corpus(np.random.default_rng(3))
    table = corpus.table()
    regions = as_frame(table.agreement.disagreements())
    assert len(regions) >= 3
    head = as_frame(table.agreement.disagreements(top=2))
    pd.testing.assert_frame_equal(head[["document", "start", "end"]].reset_index(drop=True),
                                  regions[["document", "start", "end"]].head(2)
                                  .reset_index(drop=True))
    # nested and same-position spans that every annotator marked alike, and a document only
    # one annotator read: nothing to adjudicate
    spans = [(d, a, s, e, label) for a in ("ann", "bob")
             for d, s, e, label in [("d1", 0, 9, "ORG"), ("d1", 2, 5, "PER"),
                                    ("d1", 2, 5, "LOC"), ("d1", 9, 12, "ORG")]]
    spans.append(("d2", "ann", 0, 4, "PER"))
    agreed = Corpus(["d1", "d2"], ["ann", "bob"], ["ORG", "PER", "LOC"],
                    {"d1": 20, "d2": 6}, {("d1", "ann"), ("d1", "bob"), ("d2", "ann")}, spans)
    assert disputed_positions(agreed) == set()
    assert len(as_frame(agreed.table().agreement.disagreements())) == 0
