"""span_f1 against an oracle written from the definition: explicit loops over annotator
pairs, labels, documents and spans; for ``overlap`` the maximum one-to-one matching found
by trying every matching (small inputs) and by scipy's maximum bipartite matching (larger
ones). Random corpora with string ids, nested / overlapping / touching spans, empty
documents, documents an annotator did not annotate, a label nobody used."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import xr_agreement
from xr_agreement.spans import span_f1


# ---------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------

def overlaps(x, y):
    return x[0] < y[1] and y[0] < x[1]


def brute_force_matching(first, second, match):
    """The largest number of pairs in any one-to-one matching, every matching tried."""
    def agree(x, y):
        return x == y if match == "exact" else overlaps(x, y)

    def best(i, used):
        if i == len(first):
            return 0
        value = best(i + 1, used)  # first[i] left unmatched
        for j, y in enumerate(second):
            if j not in used and agree(first[i], y):
                value = max(value, 1 + best(i + 1, used | {j}))
        return value

    return best(0, frozenset())


def oracle(corpus, match):
    """Every value from loops over pairs, labels and documents."""
    docs, anns, labels, annotated, spans, _ = corpus

    def spans_of(d, a, label):
        return [(s, e) for (dd, aa, s, e, ll) in spans if (dd, aa, ll) == (d, a, label)]

    matched, sizes = {}, {}  # (label, a, b, d) -> count, for ordered pairs a != b
    for a, b in itertools.permutations(anns, 2):
        for label in labels:
            for d in docs:
                if (d, a) in annotated and (d, b) in annotated:
                    x, y = spans_of(d, a, label), spans_of(d, b, label)
                    matched[label, a, b, d] = brute_force_matching(x, y, match)
                    sizes[label, a, b, d] = len(x) + len(y)

    def f1(keys):
        m = sum(matched[k] for k in keys)
        n = sum(sizes[k] for k in keys)
        return 2 * m / n if n else math.nan

    out = {"label_pair_f1": {}, "pair_f1": {}, "pair_macro_f1": {}, "label_f1": {},
           "document_f1": {}}
    for a, b in itertools.permutations(anns, 2):
        defined = []
        for label in labels:
            value = f1([k for k in matched if k[:3] == (label, a, b)])
            out["label_pair_f1"][label, a, b] = value
            if not math.isnan(value):
                defined.append(value)
        out["pair_f1"][a, b] = f1([k for k in matched if k[1:3] == (a, b)])
        out["pair_macro_f1"][a, b] = sum(defined) / len(defined) if defined else math.nan
    unordered = set(itertools.combinations(anns, 2))
    once = [k for k in matched if (k[1], k[2]) in unordered]
    for label in labels:
        out["label_f1"][label] = f1([k for k in once if k[0] == label])
    for d in docs:
        out["document_f1"][d] = f1([k for k in once if k[3] == d])
    out["f1"] = f1(once)
    defined = [out["pair_f1"][pair] for pair in unordered
               if not math.isnan(out["pair_f1"][pair])]
    out["mean_pair_f1"] = sum(defined) / len(defined) if defined else math.nan
    defined = [v for v in out["label_f1"].values() if not math.isnan(v)]
    out["macro_f1"] = sum(defined) / len(defined) if defined else math.nan
    out["n_matched"] = sum(matched[k] for k in once)
    out["n_spans"] = sum(sizes[k] for k in once)
    return out


def random_corpus(rng, n_annotators=None, real=False):
    anns = [f"ann-{i}" for i in range(n_annotators or int(rng.integers(2, 5)))]
    labels = ["PER", "LOC", "ORG"][: int(rng.integers(1, 4))] + ["UNUSED"]
    docs = [f"doc {i}" for i in range(int(rng.integers(2, 6)))]
    lengths = {d: int(rng.integers(0, 40)) for d in docs}
    lengths[docs[0]] = 0  # an empty document
    annotated = {(d, a) for d in docs for a in anns if rng.random() < 0.8}
    spans = []
    for d, a in sorted(annotated):
        if lengths[d] == 0:
            continue
        for label in labels[:-1]:
            for _ in range(int(rng.integers(0, 5))):
                here = [(s, e) for (dd, _, s, e, _) in spans if dd == d]
                if rng.random() < 0.4 and here:  # another's span again: exact agreements
                    s, e = here[int(rng.integers(0, len(here)))]
                    if real:
                        s, e = s * 2, e * 2  # undone below
                else:
                    s = int(rng.integers(0, lengths[d]))
                    e = int(rng.integers(s + 1, min(lengths[d], s + 12) + 1))
                if real:
                    s, e = s * 0.5, e * 0.5
                if (d, a, s, e, label) not in spans:
                    spans.append((d, a, s, e, label))
    if real:
        lengths = {d: n * 0.5 for d, n in lengths.items()}
    return docs, anns, labels, annotated, spans, lengths


def table_of(corpus):
    docs, anns, labels, annotated, spans, lengths = corpus
    return xr_agreement.from_spans(spans, lengths, sorted(annotated), labels=labels)


def close(got, want, what):
    got = float(got)
    if math.isnan(want):
        assert math.isnan(got), f"{what}: expected NaN, got {got}"
    else:
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), \
            f"{what}: got {got}, the definition gives {want}"


def check(result, want, corpus, where):
    docs, anns, labels, _, _, _ = corpus
    for a, b in itertools.product(anns, anns):
        cell = dict(annotator_1=a, annotator_2=b)
        if a == b:
            assert math.isnan(float(result.pair_f1.sel(cell)))
            assert result.pair_undefined_reason.sel(cell).item() != ""
            continue
        for name in ("pair_f1", "pair_macro_f1"):
            close(result[name].sel(cell), want[name][a, b], f"{where} {name} {a} {b}")
        assert (result.pair_undefined_reason.sel(cell).item() == "") == \
            (not math.isnan(want["pair_f1"][a, b]))
        for label in labels:
            close(result.label_pair_f1.sel(cell).sel(label=label), want["label_pair_f1"][label, a, b],
                  f"{where} label_pair_f1 {label} {a} {b}")
    for label in labels:
        close(result.label_f1.sel(label=label), want["label_f1"][label], f"{where} {label}")
        assert (result.label_undefined_reason.sel(label=label).item() == "") == \
            (not math.isnan(want["label_f1"][label]))
    for d in docs:
        close(result.document_f1.sel(document=d), want["document_f1"][d], f"{where} {d}")
        assert (result.document_undefined_reason.sel(document=d).item() == "") == \
            (not math.isnan(want["document_f1"][d]))
    for name in ("f1", "macro_f1", "mean_pair_f1", "n_matched", "n_spans"):
        close(result[name], want[name], f"{where} {name}")
    assert (result.undefined_reason.item() == "") == (not math.isnan(want["f1"]))


# ---------------------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("real", [False, True])
@pytest.mark.parametrize("match", ["exact", "overlap"])
@pytest.mark.parametrize("seed", range(10))
def test_span_f1_against_pair_loops(seed, match, real):
    rng = np.random.default_rng(seed)
    corpus = random_corpus(rng, real=real)
    table = table_of(corpus)
    before = table.copy(deep=True)
    result = span_f1(table, match)
    check(result, oracle(corpus, match), corpus, f"seed {seed} {match}")
    assert table.identical(before), "the table was modified"
    # the accessor gives the same
    assert result.identical(table.agreement.span_f1(match))
    # symmetric, counts consistent with the F1 values
    for name in ("pair_f1", "label_pair_n_matched", "label_pair_n_spans", "pair_n_documents"):
        np.testing.assert_array_equal(result[name].values,
                                      result[name].transpose(..., "annotator_2",
                                                             "annotator_1").values)
    assert result.attrs["match"] == match and "2005" in result.attrs["reference"]
    for name, variable in result.data_vars.items():
        assert variable.attrs.get("long_name") and variable.attrs.get("description"), name


def test_overlap_matching_is_maximum_not_greedy():
    # ann [0,10) overlaps both of bob's first two; the greedy choice (longest overlap, bob
    # [2,11)) leaves ann [9,12) alone. The maximum is 2. Touching [20,25) / [25,30): no match
    spans = [("d", "ann", 0, 10, "X"), ("d", "ann", 9, 12, "X"), ("d", "ann", 20, 25, "X"),
             ("d", "bob", 2, 11, "X"), ("d", "bob", 0, 3, "X"), ("d", "bob", 25, 30, "X")]
    table = xr_agreement.from_spans(spans)
    result = span_f1(table, "overlap")
    assert int(result.n_matched) == 2 and int(result.n_spans) == 6
    assert float(result.f1) == 2 * 2 / 6
    assert float(span_f1(table, "exact").f1) == 0.0


def test_overlap_matching_against_scipy_on_large_clusters():
    # many overlapping spans of one label: clusters too large to try every matching; the
    # size of the maximum matching from scipy's Hopcroft-Karp on the overlap graph
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    rng = np.random.default_rng(5)
    for trial in range(20):
        sides = []
        for _ in range(2):
            starts = rng.integers(0, 200, size=int(rng.integers(1, 40)))
            spans = sorted({(int(s), int(s + rng.integers(1, 15))) for s in starts})
            sides.append(spans)
        records = [("d", who, s, e, "X") for who, side in zip(("a", "b"), sides)
                   for s, e in side]
        result = span_f1(xr_agreement.from_spans(records), "overlap")
        graph = np.array([[overlaps(x, y) for y in sides[1]] for x in sides[0]], dtype=int)
        want = int((maximum_bipartite_matching(csr_matrix(graph), perm_type="column")
                    >= 0).sum())
        assert int(result.n_matched) == want, trial
        assert int(result.n_spans) == len(sides[0]) + len(sides[1])


def test_document_one_annotator_did_not_annotate_counts_for_no_pair():
    # cy never saw d1: ann's and bob's d1 spans are neither matches nor misses for cy
    spans = [("d1", "ann", 0, 4, "PER"), ("d1", "bob", 0, 4, "PER"), ("d1", "ann", 6, 9, "LOC"),
             ("d2", "ann", 1, 3, "PER"), ("d2", "cy", 1, 3, "PER"), ("d2", "bob", 5, 8, "LOC")]
    annotated = [("d1", "ann"), ("d1", "bob"), ("d2", "ann"), ("d2", "bob"), ("d2", "cy"),
                 ("d3", "ann"), ("d3", "bob")]
    table = xr_agreement.from_spans(spans, {"d1": 10, "d2": 10, "d3": 5}, annotated,
                                    labels=["PER", "LOC", "MISC"])
    result = span_f1(table, "exact")
    pair = result.pair_f1.sel
    assert float(pair(annotator_1="ann", annotator_2="cy")) == 1.0  # d2 only: PER agreed
    assert float(pair(annotator_1="bob", annotator_2="cy")) == 0.0  # d2: bob's LOC alone
    assert float(pair(annotator_1="ann", annotator_2="bob")) == 2 * 1 / 5  # d1 2+1, d2 1+1
    assert int(result.pair_n_documents.sel(annotator_1="ann", annotator_2="cy")) == 1
    # d3: read by two, marked by none: 0/0, not 1.0
    assert math.isnan(float(result.document_f1.sel(document="d3")))
    assert "0/0" in result.document_undefined_reason.sel(document="d3").item()
    # MISC: nobody used it
    assert math.isnan(float(result.label_f1.sel(label="MISC")))
    assert math.isnan(float(result.label_pair_f1.sel(label="MISC", annotator_1="ann",
                                                      annotator_2="bob")))
    # macro over the labels where defined: PER and LOC
    per = float(result.label_f1.sel(label="PER"))
    loc = float(result.label_f1.sel(label="LOC"))
    assert float(result.macro_f1) == pytest.approx((per + loc) / 2, abs=1e-15)


def test_no_pair_and_no_span_give_nan_with_reasons():
    # two annotators who never share a document; then a shared one with no spans
    apart = xr_agreement.from_spans([("d1", "ann", 0, 2, "X"), ("d2", "bob", 0, 2, "X")])
    result = span_f1(apart, "overlap")
    assert math.isnan(float(result.f1)) and math.isnan(float(result.macro_f1))
    assert "no two annotators" in result.undefined_reason.item()
    assert "no document in common" in result.pair_undefined_reason.sel(
        annotator_1="ann", annotator_2="bob").item()
    silent = xr_agreement.from_spans([], {"d": 5}, [("d", "ann"), ("d", "bob")],
                                     labels=["X"])
    result = span_f1(silent)
    assert math.isnan(float(result.f1)) and "0/0" in result.undefined_reason.item()
    assert int(result.n_spans) == 0


def test_refuses_an_unknown_match():
    table = xr_agreement.from_spans([("d", "a", 0, 2, "X"), ("d", "b", 0, 2, "X")])
    with pytest.raises(ValueError, match="'partial'"):
        span_f1(table, "partial")
    with pytest.raises(TypeError, match="span table"):
        span_f1(table.drop_vars("annotated"))


def test_coordinates_are_the_tables_ids():
    spans = [(7, 1, 0, 4, 10), (7, 2, 0, 4, 10), (8, 1, 5, 6, 11), (8, 2, 5, 7, 11)]
    table = xr_agreement.from_spans(spans, {7: 9, 8: 9})
    result = span_f1(table, "exact")
    assert result.annotator_1.values.tolist() == [1, 2]
    assert result.annotator_2.values.tolist() == [1, 2]
    assert result.label.values.tolist() == [10, 11]
    assert result.document.values.tolist() == [7, 8]
    assert result.document_f1.values.tolist() == [1.0, 0.0]
    assert float(result.macro_f1) == 0.5 and float(result.f1) == 0.5
    assert result.attrs["n_documents"] == 2 and result.attrs["n_labels"] == 2
