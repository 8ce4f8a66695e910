"""The comparison measures of the MLA paper (section 3.7): brute-force oracles written from
the original definitions, a peer package (nltk's MASI distance) and the paper's printed
worked-example values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import xarray as xr
from nltk.metrics.distance import masi_distance

import xr_agreement
from xr_agreement import compare
from xr_agreement.datasets import bias_example


def random_decisions(seed, n_items=7, n_annotators=4, n_labels=5, prevalence=0.35, extra=None):
    rng = np.random.default_rng(seed)
    shape = (n_items, n_annotators, n_labels)
    dims = ("item", "annotator", "label")
    if extra:
        shape = (extra,) + shape
        dims = ("round",) + dims
    values = (rng.random(shape) < prevalence).astype(np.uint8)
    return xr.DataArray(values, dims=dims)


def upper(matrix):
    """The unordered pairs a < b of an annotator_1 x annotator_2 matrix, in
    itertools.combinations order."""
    first, second = np.triu_indices(matrix.shape[-1], k=1)
    return matrix[..., first, second]


def label_sets(values):
    """(item, annotator) -> set of selected label indices."""
    N, n, _ = values.shape
    return [[set(np.flatnonzero(values[i, a])) for a in range(n)] for i in range(N)]


# --- brute-force oracles from the original papers ---------------------------------------


def oracle_augmented_kappa(values):
    """Rosenberg & Binkowski: a set of s labels spreads one unit of weight, 1/s per label;
    Cohen's kappa per annotator pair on the weights, averaged over pairs."""
    sets = label_sets(values)
    N, n, k = values.shape

    def weight(s, j):
        return 1.0 / len(s) if j in s else 0.0

    kappas = []
    for a, b in itertools.combinations(range(n), 2):
        observed = (
            sum(weight(sets[i][a], j) * weight(sets[i][b], j) for i in range(N) for j in range(k))
            / N
        )
        marg_a = [sum(weight(sets[i][a], j) for i in range(N)) / N for j in range(k)]
        marg_b = [sum(weight(sets[i][b], j) for i in range(N)) / N for j in range(k)]
        expected = sum(x * y for x, y in zip(marg_a, marg_b))
        kappas.append((observed - expected) / (1 - expected))
    return float(np.mean(kappas))


def oracle_masi(values):
    """Mean over items and annotator pairs of 1 - nltk's MASI distance (two empty sets are
    identical: similarity 1, where nltk would divide by zero)."""
    sets = label_sets(values)
    N, n, _ = values.shape
    sims = []
    for i in range(N):
        for a, b in itertools.combinations(range(n), 2):
            A, B = sets[i][a], sets[i][b]
            sims.append(1.0 if not A and not B else 1 - masi_distance(A, B))
    return float(np.mean(sims))


def oracle_am(values):
    """Bhowmick et al.: each unordered label pair is a nominal variable with values (0,0),
    (1,1) or mixed; per (annotator pair, label pair) P_o = share of items with equal values
    and P_e = sum_v P_a(v) P_b(v); A_m = (sum P_o - sum P_e) / sum (1 - P_e)."""
    N, n, k = values.shape

    def value(i, a, j, l):
        x, y = values[i, a, j], values[i, a, l]
        return "11" if x and y else ("00" if not x and not y else "mixed")

    sum_o = sum_e = count = 0.0
    for j, l in itertools.combinations(range(k), 2):
        for a, b in itertools.combinations(range(n), 2):
            va = [value(i, a, j, l) for i in range(N)]
            vb = [value(i, b, j, l) for i in range(N)]
            sum_o += sum(x == y for x, y in zip(va, vb)) / N
            sum_e += sum(va.count(v) / N * vb.count(v) / N for v in ("00", "11", "mixed"))
            count += 1
    return (sum_o - sum_e) / (count - sum_e)


def oracle_f1_observed(values):
    """Per pair: mean over items of 2|A & B| / (|A| + |B|), 1 for two empty sets."""
    sets = label_sets(values)
    N, n, _ = values.shape
    out = []
    for a, b in itertools.combinations(range(n), 2):
        scores = []
        for i in range(N):
            A, B = sets[i][a], sets[i][b]
            scores.append(1.0 if not A and not B else 2 * len(A & B) / (len(A) + len(B)))
        out.append(np.mean(scores))
    return np.array(out)


def enumerated_f1_chance(p_a, p_b):
    """E[F1] of one item when label j is selected independently with probability p_a[j] and
    p_b[j]: enumerate every pair of label sets."""
    k = len(p_a)
    total = 0.0
    for bits_a in itertools.product((0, 1), repeat=k):
        prob_a = np.prod([p if x else 1 - p for p, x in zip(p_a, bits_a)])
        for bits_b in itertools.product((0, 1), repeat=k):
            prob_b = np.prod([p if x else 1 - p for p, x in zip(p_b, bits_b)])
            inter = sum(x and y for x, y in zip(bits_a, bits_b))
            size = sum(bits_a) + sum(bits_b)
            total += prob_a * prob_b * (1.0 if size == 0 else 2 * inter / size)
    return total


# --- the paper's worked example (section 3.7) -------------------------------------------


def test_worked_example_augmented_kappa_matches_paper():
    result = bias_example().agreement.augmented_kappa()
    assert abs(float(result.coefficient) - 0.253) <= 0.0005


def test_worked_example_am_matches_paper():
    assert abs(float(bias_example().agreement.am().coefficient) - 0.281) <= 0.0005


def test_worked_example_boot_f1_matches_paper_within_bootstrap_error():
    """The paper's 0.366 (B = 1000) is one bootstrap draw; ours with B = 1000 vary with the
    seed. Their spread over seeds gives the Monte Carlo error."""
    ex = bias_example()
    draws = np.array(
        [float(ex.agreement.boot_f1(n_chance_runs=1000, seed=s).coefficient) for s in range(30)]
    )
    spread = draws.std(ddof=1)
    assert 0.0005 < spread < 0.005
    assert abs(draws.mean() - 0.366) <= 3 * spread + 0.0005


def test_worked_example_masi_average_over_items_and_pairs():
    """The brief's value for MASI averaged over annotator pairs and items (the paper prints
    0.509, which no aggregation we tried reproduces: docs/comparison_measures.md)."""
    result = bias_example().agreement.masi()
    assert abs(float(result.coefficient) - 0.331) <= 0.0005
    # sentence 1: all three annotators chose {14}
    assert float(result.item_masi.sel(item=1)) == 1.0


# --- oracles on random data -------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_augmented_kappa_matches_oracle(seed):
    da = random_decisions(seed, prevalence=0.3)  # includes empty label sets
    expected = oracle_augmented_kappa(da.values)
    assert float(compare.augmented_kappa(da).coefficient) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_masi_matches_nltk(seed):
    da = random_decisions(seed, prevalence=0.4)
    assert float(compare.masi(da).coefficient) == pytest.approx(oracle_masi(da.values), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_am_matches_oracle(seed):
    da = random_decisions(seed, n_items=6, n_annotators=3, n_labels=5)
    assert float(compare.am(da).coefficient) == pytest.approx(oracle_am(da.values), abs=1e-12)


def test_am_matches_oracle_on_worked_example():
    ex = bias_example()
    assert float(compare.am(ex).coefficient) == pytest.approx(oracle_am(ex.values), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_boot_f1_observed_matches_oracle(seed):
    da = random_decisions(seed, prevalence=0.3)
    result = compare.boot_f1(da, n_chance_runs=None)
    np.testing.assert_allclose(upper(result.pair_observed.values),
                               oracle_f1_observed(da.values))


def test_exact_chance_matches_enumeration():
    da = random_decisions(9, n_items=8, n_annotators=3, n_labels=4, prevalence=0.4)
    result = compare.boot_f1(da, n_chance_runs=None)
    share = da.values.mean(0)  # (annotator, label)
    expected = [
        enumerated_f1_chance(share[a], share[b]) for a, b in itertools.combinations(range(3), 2)
    ]
    np.testing.assert_allclose(upper(result.pair_chance.values), expected, rtol=1e-12)


def test_bootstrap_chance_converges_to_exact():
    da = random_decisions(2, n_items=10, n_annotators=3, n_labels=4)
    exact = compare.boot_f1(da, n_chance_runs=None).pair_chance.values
    boot = compare.boot_f1(da, n_chance_runs=20000, seed=1).pair_chance.values
    # each bootstrap run averages 10 items' F1 (sd < 0.5): SE < 0.5 / sqrt(20000)
    np.testing.assert_allclose(boot, exact, atol=4 * 0.5 / np.sqrt(20000))


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "boot_f1"])
def test_pairs_are_a_matrix_and_the_corpus_value_counts_each_pair_once(measure):
    da = random_decisions(3, extra=2).assign_coords(annotator=["w", "x", "y", "z"])
    kwargs = {"n_chance_runs": None} if measure == "boot_f1" else {}
    result = getattr(compare, measure)(da, **kwargs)
    pair = "pair_masi" if measure == "masi" else "pair_coefficient"
    values = result[pair]
    assert values.dims == ("round", "annotator_1", "annotator_2")
    assert list(values.annotator_1.values) == ["w", "x", "y", "z"]
    assert list(values.annotator_2.values) == ["w", "x", "y", "z"]
    assert np.isnan(np.diagonal(values.values, axis1=-2, axis2=-1)).all()
    np.testing.assert_array_equal(values.values, np.swapaxes(values.values, -1, -2))
    assert float(values.isel(round=0).sel(annotator_1="x", annotator_2="z")) == float(
        values.isel(round=0).sel(annotator_1="z", annotator_2="x"))
    np.testing.assert_allclose(result.coefficient.values, upper(values.values).mean(-1),
                               rtol=0, atol=1e-12)


def test_bootstrap_is_reproducible_with_seed():
    ex = bias_example()
    a = ex.agreement.boot_f1(n_chance_runs=200, seed=3).coefficient
    b = ex.agreement.boot_f1(n_chance_runs=200, seed=3).coefficient
    assert float(a) == float(b)


# --- properties -------------------------------------------------------------------------


def test_perfect_agreement_gives_exactly_one():
    rng = np.random.default_rng(0)
    latent = rng.random((30, 1, 6)) < 0.3
    da = xr.DataArray(
        np.repeat(latent, 4, axis=1).astype(np.uint8), dims=("item", "annotator", "label")
    )
    assert float(compare.masi(da).coefficient) == 1.0
    assert float(compare.am(da).coefficient) == 1.0
    assert float(compare.boot_f1(da, n_chance_runs=None).coefficient) == 1.0
    # augmented kappa is below 1: one label drawn from each of two identical sets of size s
    # coincides with probability 1/s only (the paper's Table 4, perfect rows)
    assert float(compare.augmented_kappa(da).coefficient) < 1.0


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "am", "boot_f1"])
def test_extra_dims_carried_through(measure):
    da = random_decisions(4, extra=3).assign_coords(round=["a", "b", "c"])
    kwargs = {"n_chance_runs": None} if measure == "boot_f1" else {}
    together = getattr(compare, measure)(da, **kwargs).coefficient
    assert together.dims == ("round",)
    assert list(together["round"].values) == ["a", "b", "c"]
    for r in ["a", "b", "c"]:
        alone = getattr(compare, measure)(da.sel(round=r), **kwargs).coefficient
        assert float(together.sel(round=r)) == pytest.approx(float(alone), abs=1e-12)


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "am", "boot_f1"])
def test_annotator_order_does_not_matter(measure):
    da = random_decisions(6)
    kwargs = {"n_chance_runs": None} if measure == "boot_f1" else {}
    base = float(getattr(compare, measure)(da, **kwargs).coefficient)
    shuffled = da.isel(annotator=[2, 0, 3, 1])
    assert float(getattr(compare, measure)(shuffled, **kwargs).coefficient) == pytest.approx(
        base, abs=1e-12
    )


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "am", "boot_f1"])
def test_accessor_and_attrs(measure):
    ex = bias_example()
    result = getattr(ex.agreement, measure)()
    assert isinstance(result, xr.Dataset)
    for name in result.data_vars:
        assert {"long_name", "description", "symbol"} <= set(result[name].attrs)
    assert "reference" in result.attrs
    top = getattr(xr_agreement, measure)(ex)
    assert float(top.coefficient) == pytest.approx(float(result.coefficient), abs=0.02)


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "am", "boot_f1"])
def test_input_not_modified(measure):
    da = random_decisions(1).astype(float)
    before = da.copy(deep=True)
    getattr(compare, measure)(da)
    xr.testing.assert_identical(da, before)


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "am", "boot_f1"])
def test_missing_decision_is_named(measure):
    da = random_decisions(0).astype(float).assign_coords(item=list("abcdefg"))
    da[2, 1, 3] = np.nan
    with pytest.raises(ValueError, match=r"missing \(NaN\).*item='c'.*annotator=1.*label=3"):
        getattr(compare, measure)(da)


@pytest.mark.parametrize("measure", ["augmented_kappa", "masi", "am", "boot_f1"])
def test_invalid_value_is_named(measure):
    da = random_decisions(0)
    da[4, 2, 1] = 2
    with pytest.raises(ValueError, match=r"found 2 at item=4, annotator=2, label=1"):
        getattr(compare, measure)(da)


def test_missing_dim_and_single_annotator():
    da = random_decisions(0)
    with pytest.raises(ValueError, match="label dim 'category' not found"):
        compare.masi(da, label="category")
    with pytest.raises(ValueError, match="at least 2 annotators"):
        compare.am(da.isel(annotator=[0]))


def test_am_needs_two_labels_and_boot_needs_positive_runs():
    da = random_decisions(0)
    with pytest.raises(ValueError, match="at least 2 labels"):
        compare.am(da.isel(label=[0]))
    with pytest.raises(ValueError, match="n_chance_runs"):
        compare.boot_f1(da, n_chance_runs=0)
