"""Krippendorff's alpha (xr_agreement.alpha) against an all-pairs oracle written from the
definitions, the krippendorff package, nltk, the textbook example (seed 002) and the MLA
paper's Hamming-alpha formula."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import krippendorff
import numpy as np
import pytest
import xarray as xr
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

import xr_agreement
from xr_agreement._core.categorical import encode_ratings
from resampling import numpy_resamples, replicate_selections, resampled

# --- the oracle: all ordered pairs, straight from the definitions ----------------------


def oracle(units, delta):
    """(alpha, D_o, D_e, n..) from lists of the present values of each item.

    D_o: ordered pairs of values within each item with at least 2 values, each item weighted
    1 / (m - 1), over n..; D_e: all ordered pairs of distinct positions among the pooled
    pairable values, over n.. (n.. - 1)."""
    pairable = [u for u in units if len(u) >= 2]
    pooled = [v for u in pairable for v in u]
    n = len(pooled)
    if n < 2:
        return math.nan, math.nan, math.nan, n
    if callable(delta) and getattr(delta, "needs_frequencies", False):
        delta = delta(pooled)
    observed = 0.0
    for u in pairable:
        for a, b in itertools.permutations(range(len(u)), 2):
            observed += delta(u[a], u[b]) / (len(u) - 1)
    expected = 0.0
    for a, b in itertools.permutations(range(n), 2):
        expected += delta(pooled[a], pooled[b])
    d_o = observed / n
    d_e = expected / (n * (n - 1))
    return (1 - d_o / d_e if d_e > 0 else math.nan), d_o, d_e, n


def nominal(a, b):
    return float(a != b)


def interval(a, b):
    return (a - b) ** 2


def ratio(a, b):
    return 0.0 if a + b == 0 else ((a - b) / (a + b)) ** 2


def ordinal_given(order=None):
    """Krippendorff's ordinal distance from the pooled pairable values: the frequencies of
    the values from c to k, minus half of those of c and k, squared."""

    def make(pooled):
        frequency = Counter(pooled)
        ranked = list(order) if order is not None else sorted(frequency)
        position = {v: i for i, v in enumerate(ranked)}

        def delta(c, k):
            lo, hi = sorted((position[c], position[k]))
            between = sum(frequency[ranked[g]] for g in range(lo, hi + 1))
            return (between - (frequency[c] + frequency[k]) / 2) ** 2

        return delta

    make.needs_frequencies = True
    return make


def jaccard(s, t):
    union = s | t
    return 0.0 if not union else 1 - len(s & t) / len(union)


def masi_with(subset_weight, overlap_weight):
    def delta(s, t):
        union = s | t
        if not union:
            return 0.0
        if s == t:
            weight = 1.0
        elif s <= t or t <= s:
            weight = subset_weight
        elif s & t:
            weight = overlap_weight
        else:
            weight = 0.0
        return 1 - len(s & t) / len(union) * weight

    return delta


masi = masi_with(2 / 3, 1 / 3)
masi_rounded = masi_with(0.67, 0.33)


def normalized_hamming(u, v):
    return float(np.mean(np.asarray(u) != np.asarray(v)))


def units_of(values):
    """Present values per item of an (item, annotator) array, NaN/None missing."""
    out = []
    for row in values:
        out.append([v for v in row if not (v is None or (isinstance(v, float) and np.isnan(v)))])
    return out


def set_units(values, labels):
    """Label sets (frozensets of label names) per item of an (item, annotator, label) array;
    an annotation with all labels NaN is missing."""
    out = []
    for row in values:
        sets = []
        for vector in row:
            if np.isnan(vector).all():
                continue
            sets.append(frozenset(labels[j] for j in np.flatnonzero(vector == 1)))
        out.append(sets)
    return out


# --- data ------------------------------------------------------------------------------


def random_ratings(seed, values, n_items=12, n_annotators=4, missing=0.3):
    rng = np.random.default_rng(seed)
    x = rng.choice(np.asarray(values, dtype=float), size=(n_items, n_annotators))
    x[rng.random(x.shape) < missing] = np.nan
    return x


def random_sets(seed, n_items=9, n_annotators=4, n_labels=5, missing=0.25, allow_empty=True):
    rng = np.random.default_rng(seed)
    truth = rng.random((n_items, 1, n_labels)) < 0.35
    flip = rng.random((n_items, n_annotators, n_labels)) < 0.2
    x = (truth ^ flip).astype(float)
    if not allow_empty:
        empty = x.sum(axis=2) == 0
        x[empty, rng.integers(0, n_labels)] = 1  # one label on empty annotations
        x[..., 0] = np.where(x.sum(axis=2) == 0, 1, x[..., 0])
    x[rng.random((n_items, n_annotators)) < missing] = np.nan
    return x


def as_ratings(x):
    return xr.DataArray(x, dims=("item", "annotator"),
                        coords={"item": np.arange(x.shape[0]) + 100,
                                "annotator": [f"r{a}" for a in range(x.shape[1])]})


def as_decisions(x, labels=None):
    labels = labels if labels is not None else [f"L{j}" for j in range(x.shape[2])]
    return xr.DataArray(x, dims=("item", "annotator", "label"),
                        coords={"item": np.arange(x.shape[0]),
                                "annotator": np.arange(x.shape[1]), "label": labels})


TEXTBOOK = ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP", "GPG"]


# --- textbook example (seed 002) ---------------------------------------------------------


def test_textbook_example():
    ratings = xr.DataArray([list(r) for r in TEXTBOOK], dims=("item", "annotator"),
                           coords={"annotator": list("ABC")})
    result = ratings.agreement.alpha("nominal")
    assert round(float(result.alpha), 6) == 0.578182
    # the chapter's coincidence counts are unweighted ordered pairs: twice ours at m = 3
    chapter = {("P", "P"): 22, ("N", "N"): 14, ("G", "G"): 8, ("P", "N"): 6, ("P", "G"): 2,
               ("N", "G"): 0}
    for (c, k), count in chapter.items():
        assert 2 * float(result.coincidence.sel(category=c, paired_category=k)) == count
        assert 2 * float(result.coincidence.sel(category=k, paired_category=c)) == count
    assert result.category_n_pairable_values.sel(category=["P", "N", "G"]).values.tolist() == [
        15, 10, 5]
    # the chapter's 0.563 is Fleiss' kappa: alpha without the M / (M - 1) factor
    M = int(result.n_pairable_values)
    kappa = 1 - float(result.observed_disagreement) / (
        float(result.expected_disagreement) * (M - 1) / M)
    assert abs(kappa - 0.563) < 1e-3  # 0.56364, printed truncated in the chapter


# --- peers -------------------------------------------------------------------------------

VALUE_SETS = {
    "unequal": [0.0, 1.0, 2.5, 7.0, 10.0],
    "integers": [1, 2, 3, 5, 9],
    "wide": [0.5, 3.0, 100.0, 101.0, 1e3, 1e3 + 0.25],
}


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("values", list(VALUE_SETS))
@pytest.mark.parametrize("seed", range(4))
def test_matches_krippendorff(metric, values, seed):
    x = random_ratings(seed, VALUE_SETS[values], n_items=40, n_annotators=5, missing=0.35)
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=metric)
    got = float(as_ratings(x).agreement.alpha(metric).alpha)
    assert abs(got - expected) < 1e-12


@pytest.mark.parametrize("base", [2.0**53, -(2.0**53) - 8, 2.0**52])
def test_integral_ratings_too_large_to_count_as_codes(base):
    """Ratings at or above 2^52 in magnitude, where low + c no longer names one float per c:
    they are coded like any others (as codes, 2^53 + 2 matched two of them)."""
    from xr_agreement._core import jit

    rng = np.random.default_rng(24)
    x = rng.choice([base, base + 2, base + 4], size=(50, 6))
    x[rng.random(x.shape) < 0.1] = np.nan
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="nominal")
    before = jit.mode()
    try:
        for mode in ("always", "never"):
            jit.set_mode(mode)
            result = as_ratings(x).agreement.alpha("nominal")
            assert abs(float(result.alpha) - expected) < 1e-12, mode
            assert sorted(result.category.values.tolist()) == [base, base + 2, base + 4]
    finally:
        jit.set_mode(before)


@pytest.mark.parametrize("offset", [0.0, 1e12, 2.0**52 - 8])
def test_interval_alpha_is_exact_under_a_common_offset(offset):
    """Interval alpha (and its se) depends on differences of values only: a common offset as
    large as 2^52 changes nothing against krippendorff, which works on differences."""
    x = random_ratings(25, [0, 1, 2, 3, 4], n_items=80, n_annotators=4, missing=0.2)
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval")
    result = as_ratings(x + offset).agreement.alpha("interval")
    assert abs(float(result.alpha) - expected) < 1e-12
    base = as_ratings(x).agreement.alpha("interval")
    assert float(result.alpha_se) == pytest.approx(float(base.alpha_se), abs=1e-12)


def test_large_integer_ratings_on_dask():
    """int64 ratings from 2^53 on, in dask blocks: the later passes (ordinal ranks, the
    nominal standard error) read the merged values exactly too (as float codes, 2^53 + 1
    became 2^53)."""
    base = 2**53
    x = np.array([[0, 1, 1], [1, 1, 2], [2, 2, 2], [0, 0, 1], [2, 1, 0], [0, 0, 0]],
                 dtype=np.int64) + base
    codes = (x - base).astype(float)  # the same ratings relabelled: alpha keeps their order
    da = xr.DataArray(x, dims=("item", "annotator"))
    for metric in ("ordinal", "nominal"):
        expected = krippendorff.alpha(reliability_data=codes.T, level_of_measurement=metric)
        lazy = xr_agreement.alpha(da.chunk({"item": 3}), metric).compute()
        assert abs(float(lazy.alpha) - expected) < 1e-12, metric
    peer = irrcac_krippendorff(codes, "identity")
    assert float(lazy.alpha_se) == pytest.approx(peer["se"], abs=1e-9)


@pytest.mark.parametrize("n_values", [8, 9, 30])  # counted by comparison up to 8
def test_more_values_than_annotators(n_values):
    """Two annotators, up to 30 values: the counting kernel's per-item buffers hold every
    value, not one per annotator."""
    from xr_agreement._core import jit

    x = random_ratings(23, list(range(n_values)), n_items=60, n_annotators=2, missing=0.1)
    before = jit.mode()
    try:
        for mode in ("always", "never"):  # compiled (no bounds checks) and interpreted
            jit.set_mode(mode)
            for metric in ("nominal", "interval"):
                expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=metric)
                got = float(as_ratings(x).agreement.alpha(metric).alpha)
                assert abs(got - expected) < 1e-12, (mode, metric)
    finally:
        jit.set_mode(before)


@pytest.mark.parametrize("n_values", [3, 8, 9])  # counted in batches of items up to 8
@pytest.mark.parametrize("kind", ["float", "strings"])
def test_counts_over_several_batches(monkeypatch, n_values, kind):
    """Items over several of the counting kernel's batches (there grouped by their number of
    ratings m, every m from 0 to n present): the coincidence matrix equals a count of the
    ordered pairs of ratings item by item, alpha equals krippendorff's and the standard
    error from the counting pass's moments (forced) irrCAC's."""
    from xr_agreement.alpha import blocks, kernels

    monkeypatch.setattr(blocks, "RATINGS_PER_FRACTION_STEP", 0)
    n_items = 2 * kernels.COUNT_BATCH + 37
    rng = np.random.default_rng(31)
    x = rng.integers(0, n_values, (n_items, 6)).astype(float)
    # every number of ratings m = 0..6, in no order
    m = rng.integers(0, 7, n_items)
    batch = kernels.COUNT_BATCH
    m[[0, batch - 1, batch, 2 * batch - 1, 2 * batch, -1]] = 6  # pairable at the batch edges
    x[np.arange(6)[None, :] >= m[:, None]] = np.nan
    x = rng.permuted(x, axis=1)
    values = sorted(set(x[~np.isnan(x)].tolist()))
    pairs = np.zeros((len(values), len(values)))
    for row in x:
        present = [values.index(v) for v in row[~np.isnan(row)]]
        for a, b in itertools.permutations(range(len(present)), 2):
            pairs[present[a], present[b]] += 1 / (len(present) - 1)
    da = as_ratings(x)
    if kind == "strings":
        names = np.array([f"v{c}" for c in range(n_values)], dtype=object)
        da = as_ratings(np.where(np.isnan(x), None, names[np.nan_to_num(x).astype(int)]))
    result = da.agreement.alpha("nominal")
    np.testing.assert_allclose(result.coincidence.values, pairs, rtol=1e-12, atol=1e-9)
    assert int(result.n_pairable_items) == int((m >= 2).sum())
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement="nominal")
    assert float(result.alpha) == pytest.approx(expected, abs=1e-12)
    assert float(result.alpha_se) == pytest.approx(
        irrcac_krippendorff(x, "identity")["se"], abs=1e-9)


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("rare", [-3.0, 9.0, 4.5], ids=["below", "above", "between"])
def test_a_rating_outside_the_sampled_range(monkeypatch, metric, rare):
    """The range of integral ratings is read from every few items first: a rating lower or
    higher than any sampled one (or a non-integral one) on an item the sample skips must
    still be counted, its category reported."""
    from xr_agreement._core import categorical

    monkeypatch.setattr(categorical, "RANGE_SAMPLE_ITEMS", 8)  # every 5th of 40 items
    x = random_ratings(21, [1, 2, 3, 4], n_items=40, n_annotators=5, missing=0.2)
    x[0, 0] = 1.0
    x[33, 1:3] = rare if metric != "ratio" else abs(rare)  # item 33: not sampled
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=metric)
    result = as_ratings(x).agreement.alpha(metric, ci=None)
    assert abs(float(result.alpha) - expected) < 1e-12
    if metric in ("nominal", "ordinal"):  # the coincidence matrix is over the categories
        assert rare in result.category.values


@pytest.mark.parametrize("metric", ["interval", "ratio", "ordinal"])
def test_matches_krippendorff_continuous(metric):
    """Many distinct values (continuous ratings), with missing ones."""
    rng = np.random.default_rng(7)
    x = rng.gamma(2.0, 3.0, size=(60, 3))
    x[rng.random(x.shape) < 0.2] = np.nan
    expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=metric)
    assert abs(float(as_ratings(x).agreement.alpha(metric).alpha) - expected) < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_matches_nltk_jaccard_masi(seed):
    x = random_sets(seed, n_items=15, n_annotators=4, n_labels=6, allow_empty=False)
    labels = [f"L{j}" for j in range(6)]
    triples = []
    for i, sets in enumerate(x):
        for a, vector in enumerate(sets):
            if not np.isnan(vector).all():
                triples.append((a, i, frozenset(labels[j] for j in np.flatnonzero(vector == 1))))
    da = as_decisions(x, labels)
    for name, distance in [("jaccard", jaccard_distance), ("masi", masi_distance),
                           ("masi_rounded", legacy_nltk_masi_distance)]:
        expected = AnnotationTask(triples, distance=distance).alpha()
        assert abs(float(da.agreement.alpha(name).alpha) - expected) < 1e-12, name


def legacy_nltk_masi_distance(label1, label2):
    """nltk's masi_distance before nltk PR #3695: weights 0.67 and 0.33."""
    len_intersection = len(label1.intersection(label2))
    len_union = len(label1.union(label2))
    if len(label1) == len(label2) and len(label1) == len_intersection:
        m = 1
    elif len_intersection == min(len(label1), len(label2)):
        m = 0.67
    elif len_intersection > 0:
        m = 0.33
    else:
        m = 0
    return 1 - len_intersection / len_union * m


def test_installed_nltk_masi_uses_exact_thirds():
    """Our "masi" is the exact definition; the installed nltk agrees (the rounded weights
    are "masi_rounded")."""
    assert masi_distance({1, 2}, {1, 2, 3, 4}) == pytest.approx(1 - 0.5 * 2 / 3, abs=1e-15)


# --- the oracle on random small cases, every metric --------------------------------------


def shifted_absolute(a, b):
    return abs(a - b) + 0.5  # delta(c, c) != 0: equal values still count


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "metric, delta",
    [("nominal", nominal), ("ordinal", ordinal_given()), ("interval", interval),
     ("ratio", ratio), (shifted_absolute, shifted_absolute)],
)
def test_single_label_oracle(seed, metric, delta):
    x = random_ratings(seed, [0.0, 1.0, 2.5, 4.0, 7.0], n_items=8, n_annotators=4, missing=0.4)
    result = as_ratings(x).agreement.alpha(metric)
    expected = oracle(units_of(x.tolist()), delta)
    got = (float(result.alpha), float(result.observed_disagreement),
           float(result.expected_disagreement), int(result.n_pairable_values))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ordinal_strings_with_declared_order(seed):
    rng = np.random.default_rng(seed)
    order = ["low", "mid", "high", "top"]
    x = rng.choice(np.array(order, dtype=object), size=(10, 3))
    x[rng.random(x.shape) < 0.3] = None
    result = as_ratings(x).agreement.alpha("ordinal", categories=order)
    expected = oracle(units_of(x.tolist()), ordinal_given(order))
    assert abs(float(result.alpha) - expected[0]) < 1e-12
    with pytest.raises(ValueError, match="categories="):
        as_ratings(x).agreement.alpha("ordinal")


def symmetric_difference_size(s, t):
    return float(len(s ^ t))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "metric, delta",
    [("jaccard", jaccard), ("masi", masi), ("masi_rounded", masi_rounded),
     ("nominal", nominal), (symmetric_difference_size, symmetric_difference_size),
     ("hamming", None)],
)
def test_label_set_oracle(seed, metric, delta):
    """Whole annotations missing; empty sets allowed."""
    x = random_sets(seed)
    labels = [f"L{j}" for j in range(x.shape[2])]
    result = as_decisions(x, labels).agreement.alpha(metric)
    if metric == "hamming":
        vectors = [[tuple(v) for v in row if not np.isnan(v).all()] for row in x]
        expected = oracle(vectors, normalized_hamming)
    else:
        expected = oracle(set_units(x, labels), delta)
    got = (float(result.alpha), float(result.observed_disagreement),
           float(result.expected_disagreement), float(result.n_pairable_values))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_hamming_with_missing_cells(seed):
    """Per-cell missing decisions: each label is a binary alpha over its pairable decisions,
    combined with weights n_j (the brief of the MLA missing-data extension)."""
    rng = np.random.default_rng(seed)
    x = random_sets(seed, n_items=10, n_annotators=4, n_labels=4, missing=0.1)
    x[rng.random(x.shape) < 0.2] = np.nan
    result = as_decisions(x).agreement.alpha("hamming")
    observed_total = expected_total = values_total = 0.0
    for j in range(x.shape[2]):
        label_alpha, d_o, d_e, n_j = oracle(units_of(x[:, :, j].tolist()), nominal)
        got = result.label_alpha.isel(label=j).item()
        assert (math.isnan(got) and math.isnan(label_alpha)) or abs(got - label_alpha) < 1e-12
        assert int(result.label_n_pairable_values.isel(label=j)) == n_j
        if n_j >= 2:
            observed_total += n_j * d_o
            expected_total += n_j * d_e
            values_total += n_j
    assert abs(float(result.alpha) - (1 - observed_total / expected_total)) < 1e-12
    assert abs(float(result.observed_disagreement) - observed_total / values_total) < 1e-12
    # eq. 6 for alpha: the weighted mean of label alphas
    weights = result.label_alpha_weight.where(result.label_alpha_weight > 0)
    combined = float((weights * result.label_alpha).sum() / weights.sum())
    assert abs(combined - float(result.alpha)) < 1e-12
    assert abs(float(result.alpha) - float(as_decisions(x).agreement.mla().alpha_hamming)) < 1e-12


def test_missing_annotation_is_not_an_empty_set():
    """A missing annotation leaves its item out of the pairs; an empty set is a value."""
    x = random_sets(3, n_items=8, missing=0.3)
    labels = [f"L{j}" for j in range(x.shape[2])]
    filled = np.nan_to_num(x, nan=0.0)
    missing_alpha = float(as_decisions(x, labels).agreement.alpha("jaccard").alpha)
    filled_alpha = float(as_decisions(filled, labels).agreement.alpha("jaccard").alpha)
    assert abs(missing_alpha - oracle(set_units(x, labels), jaccard)[0]) < 1e-12
    assert abs(filled_alpha - oracle(set_units(filled, labels), jaccard)[0]) < 1e-12
    assert abs(missing_alpha - filled_alpha) > 1e-3


# --- MLA paper's Hamming alpha on complete data ----------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_hamming_complete_data_formula(seed):
    """alpha_H = 1 - (1 - A_o) / (M / (M - 1) (1 - A_e(F))), M = n N (paper section 3.4)."""
    rng = np.random.default_rng(seed)
    N, n, k = 7, 3, 5
    x = (rng.random((N, n, k)) < 0.4).astype(np.uint8)
    agree = [np.mean([np.mean(x[i, a] == x[i, b]) for a, b in itertools.combinations(range(n), 2)])
             for i in range(N)]
    a_o = np.mean(agree)
    p = x.mean(axis=(0, 1))
    a_e = np.mean(p**2 + (1 - p) ** 2)
    M = n * N
    expected = 1 - (1 - a_o) / (M / (M - 1) * (1 - a_e))
    result = as_decisions(x).agreement.alpha("hamming")
    assert abs(float(result.alpha) - expected) < 1e-12
    ratio_of_weights = result.label_alpha_weight / xr.DataArray(2 * p * (1 - p), dims="label")
    np.testing.assert_allclose(ratio_of_weights.values[p * (1 - p) > 0], M / (M - 1))


# --- degenerate cases --------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval", "ratio", interval])
def test_all_values_identical(metric):
    x = np.full((5, 3), 2.0)
    x[0, 1] = np.nan
    result = as_ratings(x).agreement.alpha(metric)
    assert float(result.expected_disagreement) == 0
    assert float(result.observed_disagreement) == 0
    assert np.isnan(float(result.alpha))
    assert "D_e = 0" in result.alpha.attrs["description"]


@pytest.mark.parametrize("metric", ["hamming", "jaccard", "masi", "nominal"])
def test_all_label_sets_identical(metric):
    x = np.zeros((4, 3, 3))
    x[:, :, 1] = 1
    x[2, 0] = np.nan
    result = as_decisions(x).agreement.alpha(metric)
    assert float(result.expected_disagreement) == 0
    assert np.isnan(float(result.alpha))


def test_single_pairable_item():
    x = np.array([[1.0, 3.0, np.nan], [2.0, np.nan, np.nan], [np.nan, np.nan, 5.0]])
    for metric, delta in [("nominal", nominal), ("interval", interval), ("ratio", ratio),
                          ("ordinal", ordinal_given())]:
        result = as_ratings(x).agreement.alpha(metric)
        assert int(result.n_pairable_items) == 1
        assert int(result.n_pairable_values) == 2
        # two values on one item: D_o = D_e = delta(1, 3), alpha = 0
        expected = oracle(units_of(x.tolist()), delta)
        assert abs(float(result.alpha) - expected[0]) < 1e-12
        assert abs(float(result.alpha)) < 1e-12


def test_no_pairable_items():
    x = np.array([[1.0, np.nan], [np.nan, 2.0]])
    result = as_ratings(x).agreement.alpha("nominal")
    assert int(result.n_pairable_values) == 0
    assert np.isnan(float(result.alpha)) and np.isnan(float(result.expected_disagreement))


def test_label_never_used():
    x = random_sets(5, n_items=8, n_labels=4)
    with_unused = np.concatenate([x, np.where(np.isnan(x[..., :1]), np.nan, 0.0)], axis=2)
    labels = ["L0", "L1", "L2", "L3", "never"]
    hamming = as_decisions(with_unused, labels).agreement.alpha("hamming")
    assert np.isnan(hamming.label_alpha.sel(label="never").item())
    assert hamming.label_alpha_weight.sel(label="never").item() == 0
    assert hamming.label_expected_disagreement.sel(label="never").item() == 0
    # the unused label adds agreeing decisions: vector alpha = the oracle's on 5 labels
    vectors = [[tuple(v) for v in row if not np.isnan(v).all()] for row in with_unused]
    assert abs(float(hamming.alpha) - oracle(vectors, normalized_hamming)[0]) < 1e-12
    # set metrics do not see an unused label at all
    for metric in ["jaccard", "masi", "nominal"]:
        a = float(as_decisions(x).agreement.alpha(metric).alpha)
        b = float(as_decisions(with_unused, labels).agreement.alpha(metric).alpha)
        assert a == b


def test_declared_unused_category():
    x = random_ratings(2, [1.0, 2.0, 3.0], n_items=10, n_annotators=3)
    plain = as_ratings(x).agreement.alpha("nominal")
    declared = as_ratings(x).agreement.alpha("nominal", categories=[1.0, 2.0, 3.0, 4.0])
    assert float(declared.alpha) == pytest.approx(float(plain.alpha), abs=1e-15)
    assert float(declared.coincidence.sel(category=4.0).sum()) == 0


# --- structure ---------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["nominal", "interval", "masi", "hamming"])
def test_extra_dims_carried(metric):
    rng = np.random.default_rng(0)
    if metric in ("masi", "hamming"):
        x = np.stack([random_sets(s) for s in range(3)])
        da = xr.DataArray(x, dims=("round", "item", "annotator", "label"),
                          coords={"round": ["a", "b", "c"]}).transpose("item", "round", ...)
    else:
        x = rng.integers(0, 4, size=(3, 9, 4)).astype(float)
        x[rng.random(x.shape) < 0.2] = np.nan
        da = xr.DataArray(x, dims=("round", "item", "annotator"),
                          coords={"round": ["a", "b", "c"]})
    result = da.agreement.alpha(metric)
    assert result.alpha.dims == ("round",)
    assert list(result["round"].values) == ["a", "b", "c"]
    for r in ["a", "b", "c"]:
        alone = float(da.sel(round=r).agreement.alpha(metric).alpha)
        assert float(result.alpha.sel(round=r)) == pytest.approx(alone, abs=1e-13)
    for name, var in result.data_vars.items():
        assert {"long_name", "description"} <= set(var.attrs)
        if not name.endswith("undefined_reason"):  # text, not a value of the paper
            assert "symbol" in var.attrs


def test_accessor_and_function_agree_and_input_untouched():
    x = random_ratings(1, [1, 2, 3], n_items=10, n_annotators=3)
    da = as_ratings(x)
    before = da.copy(deep=True)
    a = xr_agreement.alpha(da, "ordinal")
    b = da.agreement.alpha("ordinal")
    xr.testing.assert_identical(a, b)
    xr.testing.assert_identical(da, before)


@pytest.mark.parametrize("seed", range(3))
def test_numeric_paths_match_encode_ratings(seed):
    """Numbers skip encode_ratings (integers are read directly, other numbers coded with
    numpy.unique); declared categories go through it. Both must give the same result."""
    import importlib

    alpha_module = importlib.import_module("xr_agreement.alpha.counts")
    rng = np.random.default_rng(seed)
    cases = [rng.integers(-3, 4, size=(8, 4)),
             np.where(rng.random((8, 4)) < 0.3, np.nan, rng.integers(0, 9, (8, 4)) * 2.0),
             np.where(rng.random((8, 4)) < 0.3, np.nan, rng.normal(size=(8, 4)).round(1))]
    for values in cases:
        da = as_ratings(values)
        reference_codes, reference_cats = encode_ratings(da)
        coded = alpha_module._coded(da, None)
        np.testing.assert_array_equal(coded.values[0], reference_codes)
        np.testing.assert_array_equal(coded.categories, np.asarray(reference_cats, float))
        for metric in ["nominal", "ordinal"]:
            fast = da.agreement.alpha(metric)
            declared = da.agreement.alpha(metric, categories=list(reference_cats))
            for name in ["alpha", "coincidence", "category_n_pairable_values"]:
                np.testing.assert_allclose(fast[name].values, declared[name].values,
                                           rtol=1e-14, atol=1e-14)
            np.testing.assert_array_equal(fast.category.values.astype(float),
                                          np.asarray(reference_cats, float))


def test_continuous_interval_all_pairs():
    """2 raters x 4000 continuous values (krippendorff would need N V**2 = 2.6e11 floats):
    D_o and D_e against all pairs, computed in blocks."""
    rng = np.random.default_rng(4)
    truth = rng.normal(size=4000)
    x = np.stack([truth + rng.normal(scale=0.5, size=4000) for _ in range(2)], axis=1)
    x[rng.random(x.shape) < 0.05] = np.nan
    da = as_ratings(x)
    result = da.agreement.alpha("interval")
    pairable = ~np.isnan(x).any(axis=1)
    pooled = x[pairable].ravel()
    n = pooled.size
    expected = sum(((block[:, None] - pooled[None, :]) ** 2).sum()
                   for block in np.array_split(pooled, 20)) / (n * (n - 1))
    observed = 2 * ((x[pairable, 0] - x[pairable, 1]) ** 2).sum() / n
    assert float(result.expected_disagreement) == pytest.approx(expected, rel=1e-12)
    assert float(result.alpha) == pytest.approx(1 - observed / expected, rel=1e-12)


# --- errors ------------------------------------------------------------------------------


def test_errors_name_what_and_where():
    ratings = as_ratings(random_ratings(0, [1, 2, 3]))
    with pytest.raises(ValueError, match="unknown metric 'jacard'"):
        ratings.agreement.alpha("jacard")
    with pytest.raises(ValueError, match="needs a label dim"):
        ratings.agreement.alpha("masi")
    with pytest.raises(ValueError, match="annotator dim 'coder' not found"):
        ratings.agreement.alpha(annotator="coder")
    strings = as_ratings(np.array([["a", "b"], ["b", None]], dtype=object))
    with pytest.raises(TypeError, match="numeric"):
        strings.agreement.alpha("interval")
    negative = as_ratings(np.array([[1.0, -2.0], [3.0, 4.0]]))
    with pytest.raises(ValueError, match=r"-2.0 at item=100, annotator='r1' is negative"):
        negative.agreement.alpha("ratio")
    infinite = as_ratings(np.array([[1.5, np.inf], [3.0, 4.0]]))
    with pytest.raises(ValueError, match="inf at item=100, annotator='r1' is not finite"):
        infinite.agreement.alpha("interval")
    x = random_sets(0, missing=0.0)
    x[2, 1, 3] = 2
    with pytest.raises(ValueError, match=r"found 2.0 at item=2, annotator=1, label='L3'"):
        as_decisions(x).agreement.alpha("masi")
    x = random_sets(0, missing=0.0)
    x[4, 2, 0] = np.nan
    with pytest.raises(ValueError, match="item=4, annotator=2 is only partly missing"):
        as_decisions(x).agreement.alpha("jaccard")
    with pytest.raises(ValueError, match="interval"):
        as_decisions(x).agreement.alpha("interval")
    with pytest.raises(ValueError, match="categories="):
        as_decisions(x).agreement.alpha("nominal", categories=[0, 1])
    with pytest.raises(ValueError, match="at least 2 annotators"):
        as_ratings(np.ones((3, 1))).agreement.alpha()


@pytest.mark.parametrize("subsets_per_pair, list_pairs_per_pair",
                         [(0, math.inf), (math.inf, math.inf), (math.inf, 0)],
                         ids=["histogram", "all pairs", "label lists"])
@pytest.mark.parametrize("metric", ["jaccard", "masi", "masi_rounded"])
def test_set_expected_every_way(monkeypatch, metric, subsets_per_pair, list_pairs_per_pair):
    """D_e of Jaccard/MASI from the intersection-size histogram, from all pairs of
    distinct sets and from the pairs within each label's list of sets all equal the
    oracle."""
    import importlib

    counts = importlib.import_module("xr_agreement.alpha.counts")
    monkeypatch.setattr(counts, "SUBSETS_PER_PAIR", subsets_per_pair)
    monkeypatch.setattr(counts, "LIST_PAIRS_PER_PAIR", list_pairs_per_pair)
    for seed in range(3):
        x = random_sets(seed, n_items=12, n_annotators=4, n_labels=7)
        labels = [f"L{j}" for j in range(7)]
        result = as_decisions(x, labels).agreement.alpha(metric)
        delta = {"jaccard": jaccard, "masi": masi, "masi_rounded": masi_rounded}[metric]
        expected = oracle(set_units(x, labels), delta)
        assert abs(float(result.expected_disagreement) - expected[2]) < 1e-12
        assert abs(float(result.alpha) - expected[0]) < 1e-12


@pytest.mark.parametrize("pairs_per_part, list_pairs_per_pair",
                         [(64, math.inf), (1 << 30, math.inf), (1 << 30, 0)])
@pytest.mark.parametrize("metric", ["jaccard", "masi"])
def test_set_pairs_of_many_distinct_sets(monkeypatch, metric, pairs_per_part,
                                         list_pairs_per_pair):
    """D_e of Jaccard/MASI over pairs of a few hundred distinct label sets of every size (the
    kernel takes eight sets at a time, in order of size), in one part and in many parts on
    the thread pool, and within the labels' lists of sets, equals the oracle's sum over all
    pairs of pooled values."""
    import importlib

    counts = importlib.import_module("xr_agreement.alpha.counts")
    monkeypatch.setattr(counts, "SUBSETS_PER_PAIR", math.inf)
    monkeypatch.setattr(counts, "PAIRS_PER_THREAD", pairs_per_part)
    monkeypatch.setattr(counts, "LIST_PAIRS_PER_PAIR", list_pairs_per_pair)
    rng = np.random.default_rng(41)
    prevalence = rng.uniform(0.05, 0.6, (90, 1, 1))  # small and large sets
    x = (rng.random((90, 4, 12)) < prevalence).astype(float)
    x[rng.random((90, 4)) < 0.1] = np.nan
    labels = [f"L{j}" for j in range(12)]
    units = set_units(x, labels)
    assert len({s for unit in units for s in unit}) > 150
    result = as_decisions(x, labels).agreement.alpha(metric)
    expected = oracle(units, {"jaccard": jaccard, "masi": masi}[metric])
    assert float(result.expected_disagreement) == pytest.approx(expected[2], rel=1e-12)
    assert float(result.alpha) == pytest.approx(expected[0], abs=1e-12)


@pytest.mark.parametrize("list_pairs_per_pair", [0, math.inf], ids=["label lists", "all pairs"])
def test_set_expected_when_one_set_holds_most_values(monkeypatch, list_pairs_per_pair):
    """One label set holds almost all of 300,000 pooled values: D_e is then tiny against
    the number of pairs, and the label-list way must not get it as a difference of sums of
    that size (it did, relative error 1e-11 here). Oracle: the sum over pairs of distinct
    sets, each counted with its frequency."""
    import importlib
    from collections import Counter

    counts = importlib.import_module("xr_agreement.alpha.counts")
    monkeypatch.setattr(counts, "SUBSETS_PER_PAIR", math.inf)
    monkeypatch.setattr(counts, "LIST_PAIRS_PER_PAIR", list_pairs_per_pair)
    x = np.zeros((100_000, 3, 4))
    x[..., :2] = 1  # {L0, L1} everywhere ...
    x[0, 0] = [1, 0, 1, 0]  # ... but for one {L0, L2} and one {L3}
    x[1, 2] = [0, 0, 0, 1]
    labels = [f"L{j}" for j in range(4)]
    frequency = Counter(s for unit in set_units(x, labels) for s in unit)
    n = sum(frequency.values())
    pairs = sum(frequency[s] * frequency[t] * masi(s, t)
                for s in frequency for t in frequency if s != t)
    result = as_decisions(x, labels).agreement.alpha("masi")
    assert float(result.expected_disagreement) == pytest.approx(pairs / (n * (n - 1)),
                                                                rel=1e-14, abs=0)


def test_dask_input():
    """Hamming and the other metrics stay lazy on dask (additive counts per chunk, see
    test_alpha_dask.py) and give the numpy result."""
    import dask.array

    x = random_sets(6, n_items=30, n_annotators=4, n_labels=5, missing=0.1)
    x[np.random.default_rng(6).random(x.shape) < 0.1] = np.nan
    da = as_decisions(x)
    lazy = da.chunk({"item": 7}).agreement.alpha("hamming")
    assert isinstance(lazy.alpha.data, dask.array.Array)
    assert float(lazy.alpha) == pytest.approx(float(da.agreement.alpha("hamming").alpha),
                                              abs=1e-14)
    ratings = as_ratings(random_ratings(6, [1, 2, 3, 4], n_items=30))
    for metric in ["nominal", "ordinal", "interval"]:
        chunked = float(ratings.chunk({"item": 7}).agreement.alpha(metric).alpha)
        assert chunked == pytest.approx(float(ratings.agreement.alpha(metric).alpha), abs=1e-14)


def test_many_distinct_values_bounded_memory():
    """400,000 continuous ratings (2 raters): the peak memory of the whole process grows by
    little more than the data (krippendorff would need O(N V**2), here ~10**16 bytes)."""
    import subprocess
    import sys

    script = """
import resource, numpy as np, xarray as xr, xr_agreement
rng = np.random.default_rng(8)
x = rng.normal(size=(200_000, 2)) * 1000
x[rng.random(x.shape) < 0.05] = np.nan
da = xr.DataArray(x, dims=("item", "annotator"))
for metric in ["interval", "ordinal", "ratio"]:
    abs(da[:50]).agreement.alpha(metric)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = da.agreement.alpha("interval")
ordinal = da.agreement.alpha("ordinal")
ratio = abs(da[:5_000]).agreement.alpha("ratio")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
pairable = ~np.isnan(x).any(axis=1)
d_o = ((x[pairable, 0] - x[pairable, 1]) ** 2).sum() / pairable.sum()
print((after - before) * 1024, float(result.observed_disagreement) / d_o - 1)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    growth, relative_error = float(out[0]), float(out[1])
    assert growth < 80e6  # the data itself is 6.4 MB; V = ~380,000 distinct values
    assert abs(relative_error) < 1e-12


@pytest.mark.parametrize("metric, delta", [("jaccard", jaccard), ("masi", masi),
                                           ("nominal", nominal)])
def test_more_than_64_labels(metric, delta):
    """Label sets spanning two 64-bit words."""
    x = random_sets(9, n_items=10, n_annotators=3, n_labels=70)
    x[:, :, 66] = np.where(np.isnan(x[:, :, 66]), np.nan, x[:, :, 0])  # use the second word
    labels = list(range(70))
    result = as_decisions(x, labels).agreement.alpha(metric)
    expected = oracle(set_units(x, labels), delta)
    assert abs(float(result.alpha) - expected[0]) < 1e-12
    assert abs(float(result.expected_disagreement) - expected[2]) < 1e-12


def test_numbers_in_object_array():
    x = random_ratings(11, [1, 2, 4, 7], n_items=15, n_annotators=3)
    objects = np.where(np.isnan(x), None, x).astype(object)
    for metric in ["ordinal", "interval", "ratio", "nominal"]:
        expected = float(as_ratings(x).agreement.alpha(metric).alpha)
        assert float(as_ratings(objects).agreement.alpha(metric).alpha) == pytest.approx(
            expected, abs=1e-14)


# --- analytic standard errors against irrCAC (Gwet 2014) ---------------------------------


def irrcac_krippendorff(x, weights, categories=None, **options):
    import pandas as pd
    from irrCAC.raw import CAC

    used = sorted(set(x[~np.isnan(x)].tolist())) if categories is None else categories
    # categories passed explicitly: irrCAC otherwise counts NaN as a category
    return CAC(pd.DataFrame(x), weights=weights, categories=used, digits=15,
               **options).krippendorff()["est"]


def krippendorff_ordinal_weights(x):
    """Agreement weights 1 - delta / max delta of Krippendorff's rank metric, from the
    pairable value frequencies, by its sum-over-ranks definition."""
    pairable = (~np.isnan(x)).sum(axis=1) >= 2
    pooled = x[pairable][~np.isnan(x[pairable])]
    ranked = sorted(set(x[~np.isnan(x)].tolist()))
    frequency = [float((pooled == v).sum()) for v in ranked]
    q = len(ranked)
    delta = np.zeros((q, q))
    for c in range(q):
        for k in range(q):
            lo, hi = min(c, k), max(c, k)
            delta[c, k] = (sum(frequency[lo:hi + 1]) - (frequency[c] + frequency[k]) / 2) ** 2
    return 1 - delta / delta.max()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("metric, weights", [("nominal", "identity"),
                                             ("interval", "quadratic"),
                                             ("ratio", "ratio"), ("ordinal", None)])
def test_standard_error_matches_irrcac(seed, metric, weights):
    """Gwet's variance of alpha: irrCAC's quadratic weights are the interval metric, its
    ratio weights the ratio metric (both up to a scale alpha does not see). irrCAC's own
    "ordinal" weights are not Krippendorff's rank metric, so the ordinal case passes
    Krippendorff's weights to irrCAC as a matrix."""
    x = random_ratings(seed, [1, 2, 3, 5, 8], n_items=25, n_annotators=4, missing=0.3)
    if weights is None:
        weights = krippendorff_ordinal_weights(x)
    peer = irrcac_krippendorff(x, weights, confidence_level=0.9)
    result = as_ratings(x).agreement.alpha(metric, ci=0.9)
    assert float(result.alpha) == pytest.approx(peer["coefficient_value"], abs=1e-9)
    assert float(result.alpha_se) == pytest.approx(peer["se"], abs=1e-9)
    lower, upper = peer["confidence_interval"]
    assert float(result.alpha_lower) == pytest.approx(lower, abs=1e-9)
    assert float(result.alpha_upper) == pytest.approx(upper, abs=1e-9)
    for var in ("alpha_se", "alpha_lower", "alpha_upper"):
        assert {"long_name", "description", "symbol"} <= set(result[var].attrs)


def test_standard_error_population_size_strings_and_extra_dims():
    """The finite-population factor (irrCAC's N), string categories, items with a single
    rating (rated, not pairable: irrCAC's sampling fraction counts them) and one value per
    round of an extra dim."""
    x = random_ratings(4, [1, 2, 3], n_items=30, n_annotators=3, missing=0.35)
    y = random_ratings(5, [1, 2, 3], n_items=30, n_annotators=3, missing=0.2)
    names = np.array(["low", "mid", "high"], dtype=object)
    as_strings = np.where(np.isnan(x), None, names[np.nan_to_num(x).astype(int) - 1])
    strings = as_ratings(as_strings)
    result = strings.agreement.alpha("nominal", population_size=80)
    peer = irrcac_krippendorff(x, "identity", N=80)
    assert float(result.alpha_se) == pytest.approx(peer["se"], abs=1e-9)
    both = xr.concat([as_ratings(x), as_ratings(y)], dim="round")
    per_round = both.agreement.alpha("interval")
    for r, data in enumerate([x, y]):
        assert float(per_round.alpha_se[r]) == pytest.approx(
            irrcac_krippendorff(data, "quadratic")["se"], abs=1e-9)


@pytest.mark.parametrize("from_moments", [True, False])
def test_nominal_standard_error_from_the_counting_pass(monkeypatch, from_moments):
    """Nominal alpha's standard error comes from moments summed in the counting pass (up to
    MOMENTS_LIMIT distinct values, on corpora long enough for that to pay: forced here),
    else from a second pass: both equal irrCAC, per round of an extra dim too, with
    integer, float and string ratings and items with one or no rating."""
    from xr_agreement.alpha import blocks, variance
    from xr_agreement.alpha.blocks import MOMENTS_LIMIT

    finished = []
    monkeypatch.setattr(blocks, "_nominal_squares",
                        lambda *a: finished.append(1) or variance._nominal_squares(*a))
    if from_moments:
        monkeypatch.setattr(blocks, "RATINGS_PER_FRACTION_STEP", 0)
    few = random_ratings(11, [1, 2, 3, 4, 5], n_items=300, n_annotators=6, missing=0.4)
    many = random_ratings(12, list(range(MOMENTS_LIMIT + 4)), n_items=200, n_annotators=5,
                          missing=0.2)
    for x in (few, many):
        peer = irrcac_krippendorff(x, "identity")
        assert float(as_ratings(x).agreement.alpha("nominal").alpha_se) == pytest.approx(
            peer["se"], abs=1e-9)
    rounds = [random_ratings(13 + r, [0, 1, 2], n_items=40, n_annotators=4, missing=0.3)
              for r in range(3)]
    both = xr.concat([as_ratings(x) for x in rounds], dim="round")
    per_round = both.agreement.alpha("nominal")
    names = np.array(["no", "maybe", "yes"], dtype=object)
    strings = xr.concat([as_ratings(np.where(np.isnan(x), None, names[np.nan_to_num(x)
                                                                      .astype(int)]))
                         for x in rounds], dim="round").agreement.alpha("nominal")
    for r, x in enumerate(rounds):
        peer = irrcac_krippendorff(x, "identity")["se"]
        assert float(per_round.alpha_se[r]) == pytest.approx(peer, abs=1e-9)
        assert float(strings.alpha_se[r]) == pytest.approx(peer, abs=1e-9)
    # the moments path ran for the few-valued inputs only when forced (1 + 3 + 3 groups)
    assert len(finished) == (7 if from_moments else 0)


def test_standard_error_undefined_and_bad_options():
    one_item = as_ratings(np.array([[1.0, 2.0, np.nan], [np.nan, 3.0, np.nan]]))
    result = one_item.agreement.alpha("interval")
    assert np.isfinite(float(result.alpha)) and np.isnan(float(result.alpha_se))
    constant = as_ratings(np.ones((5, 3)))
    result = constant.agreement.alpha("nominal")
    assert np.isnan(float(result.alpha_se)) and np.isnan(float(result.alpha_upper))
    with pytest.raises(ValueError, match="ci must be"):
        constant.agreement.alpha("nominal", ci=95)
    with pytest.raises(ValueError, match="population_size"):
        constant.agreement.alpha("nominal", population_size=2)
    with pytest.raises(ValueError, match=r"ci must be a number in \(0, 1\), got 1.5"):
        constant.agreement.alpha("nominal", ci=1.5, ci_method="percentile")
    with pytest.raises(ValueError, match="ci_method must be one of"):
        constant.agreement.alpha("nominal", ci_method="wald")


# --- bootstrap intervals -------------------------------------------------------------------


def resampled_alphas(da, metric, seed, n_resamples, unit, **keywords):
    """alpha recomputed on arrays resampled explicitly with NumPy's draws (annotators first
    for the two-way bootstrap, as documented in xr_agreement.resampling)."""
    items, annotators = numpy_resamples(seed, da.sizes["item"], da.sizes["annotator"],
                                        n_resamples, unit)
    return np.array([float(xr_agreement.alpha(resampled(da, selection), metric,
                                              **keywords).alpha)
                     for selection in replicate_selections(items, annotators)])


@pytest.mark.parametrize("metric, unit", [("nominal", "item"), ("ordinal", "item"),
                                          ("interval", "annotator"), ("ratio", "both"),
                                          ("ordinal", "both")])
def test_bootstrap_replicates_are_alpha_of_resampled_arrays(metric, unit):
    da = as_ratings(random_ratings(7, [1, 2, 3, 4, 6], n_items=30, n_annotators=4,
                                   missing=0.2))
    result = da.agreement.alpha(metric, ci=0.9, ci_method="percentile", n_resamples=25,
                                resample=unit,
                                seed=np.random.default_rng(11),
                                return_replicates=True)
    expected = resampled_alphas(da, metric, 11, 25, unit)
    np.testing.assert_allclose(result.alpha_replicates.values, expected, rtol=0, atol=1e-12)
    assert result.attrs["ci_resampling_unit"] == unit


def test_bootstrap_recomputed_route_for_label_sets():
    x = random_sets(3, n_items=15, n_annotators=3, n_labels=4, missing=0.1)
    da = as_decisions(x)
    result = da.agreement.alpha("jaccard", ci=0.9, ci_method="percentile", n_resamples=12,
                                seed=np.random.default_rng(2),
                                return_replicates=True)
    expected = resampled_alphas(da, "jaccard", 2, 12, "item")
    np.testing.assert_allclose(result.alpha_replicates.values, expected, rtol=0, atol=1e-12)
    hamming = da.agreement.alpha("hamming", ci=0.9, ci_method="percentile", n_resamples=12,
                                 seed=2)
    assert hamming.label_alpha_lower.dims == ("label",)


def test_bootstrap_reproducible_and_covers_estimate():
    rng = np.random.default_rng(12)
    truth = rng.integers(1, 5, (80, 1))
    x = np.where(rng.random((80, 4)) < 0.8, truth, rng.integers(1, 5, (80, 4))).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    da = as_ratings(x)
    for method in ("percentile", "bca"):
        first = da.agreement.alpha("ordinal", ci=0.95, n_resamples=200, seed=5,
                                   ci_method=method)
        second = da.agreement.alpha("ordinal", ci=0.95, n_resamples=200, seed=5,
                                    ci_method=method)
        for var in ("alpha", "observed_disagreement", "expected_disagreement"):
            assert float(first[f"{var}_lower"]) == float(second[f"{var}_lower"])
            assert float(first[f"{var}_lower"]) < float(first[var])
            assert float(first[var]) < float(first[f"{var}_upper"])
        assert first.attrs["ci_method"] == method
    assert "coincidence_lower" not in first and "alpha_se_lower" not in first
    assert "alpha_se" not in first  # a bootstrap interval, no analytic one


# --- dask: lazy results ------------------------------------------------------------------


def _raising_scheduler(*args, **kwargs):
    raise RuntimeError("the graph was computed while it was being built")


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval", "ratio", "jaccard",
                                    "masi", "hamming"])
def test_dask_lazy_and_equal_to_numpy(metric):
    """Building the result computes nothing (a scheduler that raises); computed, it equals
    the numpy result, on uneven item chunks with missing data and an extra dim."""
    import dask
    import dask.array

    if metric in ("jaccard", "masi", "hamming"):
        x = np.stack([random_sets(s, n_items=23, n_annotators=3, n_labels=4, missing=0.15)
                      for s in (1, 2)])
        da = xr.DataArray(x, dims=("round", "item", "annotator", "label"),
                          coords={"round": ["a", "b"], "label": list("wxyz")})
    else:
        x = np.stack([random_ratings(s, [1, 2, 3, 5], n_items=23, n_annotators=4)
                      for s in (1, 2)])
        da = xr.DataArray(x, dims=("round", "item", "annotator"),
                          coords={"round": ["a", "b"]})
    chunked = da.chunk({"item": (5, 11, 7)})
    with dask.config.set(scheduler=_raising_scheduler):
        lazy = chunked.agreement.alpha(metric)
    assert isinstance(lazy.alpha.data, dask.array.Array)
    computed = lazy.compute()
    expected = da.agreement.alpha(metric)
    for var in computed.data_vars:
        if expected[var].dtype.kind in "OU":  # undefined_reason: text
            np.testing.assert_array_equal(computed[var].values, expected[var].values)
            continue
        np.testing.assert_allclose(computed[var].values, expected[var].values, rtol=0,
                                   atol=1e-12, err_msg=var)
    assert computed.alpha.dims == ("round",)
    assert list(computed["round"].values) == ["a", "b"]


def test_dask_strings_with_declared_order():
    import dask

    names = np.array(["lo", "mid", "hi"])
    codes = np.random.default_rng(3).integers(0, 3, (17, 3))
    da = as_ratings(names[codes])
    with dask.config.set(scheduler=_raising_scheduler):
        lazy = da.chunk({"item": 5}).agreement.alpha("ordinal", categories=["lo", "mid", "hi"])
    expected = da.agreement.alpha("ordinal", categories=["lo", "mid", "hi"])
    for var in ("alpha", "alpha_se"):
        assert float(lazy[var].compute()) == pytest.approx(float(expected[var]), abs=1e-12)


def test_dask_bootstrap_same_intervals_as_numpy():
    da = as_ratings(random_ratings(9, [1, 2, 3], n_items=25, n_annotators=3, missing=0.1))
    options = {"ci": 0.9, "ci_method": "percentile", "n_resamples": 30, "seed": 4}
    on_numpy = da.agreement.alpha("nominal", **options)
    on_dask = da.chunk({"item": 6}).agreement.alpha("nominal", **options).compute()
    for var in ("alpha_lower", "alpha_upper"):
        assert float(on_dask[var]) == pytest.approx(float(on_numpy[var]), abs=1e-12)
    analytic = da.agreement.alpha("nominal", ci=0.9)
    lazy = da.chunk({"item": 6}).agreement.alpha("nominal", ci=0.9).compute()
    assert float(lazy.alpha_se) == pytest.approx(float(analytic.alpha_se), abs=1e-12)


def test_bootstrap_bca_equals_scipy():
    """BCa with the item jackknife from coincidence contributions equals
    scipy.stats.bootstrap on the same resamples, alpha recomputed from scratch."""
    from scipy import stats

    da = as_ratings(random_ratings(13, [1, 2, 3, 4], n_items=20, n_annotators=3,
                                   missing=0.15))

    def statistic(indices):
        indices = np.asarray(indices, dtype=np.int64)
        return float(xr_agreement.alpha(resampled(da, {"item": indices}), "ordinal").alpha)

    peer = stats.bootstrap((np.arange(20),), statistic, n_resamples=60, method="BCa",
                           confidence_level=0.9, vectorized=False,
                           random_state=np.random.default_rng(8))
    ours = da.agreement.alpha("ordinal", ci=0.9, n_resamples=60, ci_method="bca",
                              seed=np.random.default_rng(8))
    assert float(ours.alpha_lower) == pytest.approx(peer.confidence_interval.low, abs=1e-9)
    assert float(ours.alpha_upper) == pytest.approx(peer.confidence_interval.high, abs=1e-9)


def test_bootstrap_extra_dim_items_drawn_jointly():
    rng = np.random.default_rng(0)
    x = rng.integers(1, 5, (2, 20, 3)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    da = xr.DataArray(x, dims=("round", "item", "annotator"), coords={"round": ["a", "b"]})
    result = da.agreement.alpha("ordinal", ci=0.9, ci_method="percentile", n_resamples=10,
                                seed=np.random.default_rng(1), return_replicates=True)
    indices = np.random.default_rng(1).integers(0, 20, (10, 20))
    for r, chosen in enumerate(indices):
        sample = resampled(da, {"item": chosen})
        for g, name in enumerate(["a", "b"]):
            expected = ordinal_oracle_alpha(sample.sel(round=name).values)
            got = float(result.alpha_replicates.sel(resample=r, round=name))
            assert got == pytest.approx(expected, abs=1e-12)


def ordinal_oracle_alpha(values):
    return oracle(units_of(values), ordinal_given())[0]


def test_ci_none_skips_standard_errors_only():
    rng = np.random.default_rng(41)
    values = rng.integers(0, 4, (60, 5)).astype(float)
    values[rng.random(values.shape) < 0.1] = np.nan
    da = xr.DataArray(values, dims=("item", "annotator"))
    for metric in ("nominal", "ordinal", "interval", "ratio"):
        plain = xr_agreement.alpha(da, metric, ci=None)
        assert not {"alpha_se", "alpha_lower", "alpha_upper"} & set(plain.data_vars)
        peer = krippendorff.alpha(reliability_data=values.T, level_of_measurement=metric)
        assert float(plain.alpha) == pytest.approx(peer, abs=1e-12)
        assert float(xr_agreement.alpha(da, metric).alpha) == float(plain.alpha)


def test_undefined_reason_on_numpy_and_dask():
    """Why alpha is NaN, per group of an extra dim, the same on numpy and dask input."""
    nan = np.nan
    x = np.array([[[1, 2, 1], [2, 2, 1], [1, 1, 2]],  # defined
                  [[2, 2, 2], [2, 2, nan], [2, 2, 2]],  # every pairable value equal
                  [[1, nan, nan], [nan, 2, nan], [nan, nan, nan]]])  # nothing pairable
    da = xr.DataArray(x, dims=("round", "item", "annotator"))
    reasons = ["", "expected disagreement is 0: all pairable values are equal",
               "no pairable values"]
    for data in (da, da.chunk({"item": 2})):
        for metric in ("nominal", "ordinal", "interval", "ratio"):
            result = data.agreement.alpha(metric).compute()
            assert result.undefined_reason.dims == ("round",)
            assert list(result.undefined_reason.values) == reasons, metric
            assert np.isfinite(float(result.alpha[0]))
            assert np.isnan(result.alpha.values[1:]).all()
    sets = np.zeros((2, 4, 3, 2))
    sets[0, :, 0, 0] = 1  # round 0: one annotator picks label 0 (label 1: nobody)
    sets = xr.DataArray(sets, dims=("round", "item", "annotator", "label"))
    for data in (sets, sets.chunk({"item": 3})):
        hamming = data.agreement.alpha("hamming").compute()
        assert list(hamming.undefined_reason.values) == reasons[:2]
        assert list(hamming.label_undefined_reason.sel(round=0).values) == reasons[:2]
        masi = data.agreement.alpha("masi").compute()
        assert list(masi.undefined_reason.values) == reasons[:2]


def test_label_sets_have_no_analytic_interval():
    da = as_decisions(random_sets(3, n_items=15, n_annotators=3, n_labels=4, missing=0.1))
    result = da.agreement.alpha("masi")
    assert "alpha_se" not in result and "ci_level" not in result.attrs
    assert "ci_method='percentile'" in result.attrs["ci_note"]
    assert "ci_note" not in da.agreement.alpha("masi", ci=None).attrs
    explicit = da.agreement.alpha("jaccard", ci_method="analytic")
    assert "alpha_lower" not in explicit and "ci_method='percentile'" in explicit.attrs["ci_note"]
    single = as_ratings(random_ratings(2, [1, 2, 3], n_items=12, n_annotators=3))
    analytic = single.agreement.alpha("nominal", ci=0.8)
    assert (analytic.attrs["ci_level"], analytic.attrs["ci_method"]) == (0.8, "analytic")
    assert "confidence" not in analytic.attrs and "ci_note" not in analytic.attrs
