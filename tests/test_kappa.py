"""Classic chance-corrected coefficients (xr_agreement.kappa): the textbook example of seed 002,
degenerate cases, input errors, the multi-label (label-by-label) mode, one_hot, Byrt's
indices and the pooled standard errors.

Expected values come from the seed (numbers printed there, or the exact fractions of its
worked computation), from brute-force loops written in this file from the textbook
definitions, or from numerical differentiation; peers (irrCAC, statsmodels, scikit-learn)
are in test_kappa_peers.py.
"""

import itertools

import dask
import dask.array
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import xr_agreement
from xr_agreement import kappa
from laziness import raise_if_dask_computes
from resampling import numpy_resamples, replicate_selections, resampled

GWET_FAMILY = ["fleiss", "conger", "gwet", "brennan_prediger", "percent"]

# Seed 002, worked example: 10 sentences, raters A, B, C; Positive, Neutral, neGative.
SEED_ROWS = ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP", "GPG"]


def seed_ratings():
    return xr.DataArray(
        [list(row) for row in SEED_ROWS],
        dims=("item", "annotator"),
        coords={"item": np.arange(1, 11), "annotator": ["A", "B", "C"]},
    )


# --------------------------------------------------------------------------- brute force


def brute_cohen(a, b, weights=None):
    """Cohen's kappa of two rating lists (None = missing) from the definition: contingency
    table on the items both rated, P_o = sum w p_kl, P_e = sum w p_k+ p_+l."""
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    cats = sorted({x for x, _ in pairs} | {y for _, y in pairs})
    n = len(pairs)
    w = (lambda k, l: 1.0 if k == l else 0.0) if weights is None else weights
    po = sum(w(x, y) for x, y in pairs) / n
    row = {c: sum(1 for x, _ in pairs if x == c) / n for c in cats}
    col = {c: sum(1 for _, y in pairs if y == c) / n for c in cats}
    pe = sum(w(k, l) * row[k] * col[l] for k in cats for l in cats)
    return (po - pe) / (1 - pe)


def brute_fleiss(rows):
    """Fleiss' kappa (complete data) from the textbook: mean item agreement over pairs and
    pooled category proportions."""
    n = len(rows[0])
    cats = sorted({x for row in rows for x in row})
    p_items = []
    for row in rows:
        agree = sum(1 for c, d in itertools.combinations(row, 2) if c == d)
        p_items.append(agree / (n * (n - 1) / 2))
    po = sum(p_items) / len(rows)
    pj = [sum(row.count(c) for row in rows) / (n * len(rows)) for c in cats]
    pe = sum(p * p for p in pj)
    return (po - pe) / (1 - pe)


# --------------------------------------------------------------------------- seed example


def test_seed_example_matches_printed_values():
    ratings = seed_ratings()
    cohen = xr_agreement.cohen(ratings)
    ab = float(cohen.pair_coefficient.sel(annotator_1="A", annotator_2="B"))
    assert ab == pytest.approx(0.29 / 0.59, abs=1e-12)  # the seed's P_o, P_e: 0.7, 0.41
    assert round(ab, 6) == 0.491525
    assert float(cohen.pair_observed.sel(annotator_1="A", annotator_2="B")) == pytest.approx(0.7)
    assert float(cohen.pair_expected.sel(annotator_1="A", annotator_2="B")) == pytest.approx(0.41)
    printed = {"fleiss": 0.563636, "conger": 0.567568, "gwet": 0.616, "brennan_prediger": 0.6}
    for name, value in printed.items():
        assert float(getattr(xr_agreement, name)(ratings).coefficient) == pytest.approx(
            value, abs=5e-7
        ), name
    # the seed's Fleiss computation: P_o = 11/15, P_e = 0.5**2 + (1/3)**2 + (1/6)**2
    fleiss = xr_agreement.fleiss(ratings)
    assert float(fleiss.observed) == pytest.approx(11 / 15, abs=1e-12)
    assert float(fleiss.expected) == pytest.approx(0.25 + 1 / 9 + 1 / 36, abs=1e-12)


def test_seed_example_against_brute_force():
    rows = [list(r) for r in SEED_ROWS]
    ratings = seed_ratings()
    assert float(xr_agreement.fleiss(ratings).coefficient) == pytest.approx(
        brute_fleiss(rows), abs=1e-12
    )
    cohen = xr_agreement.cohen(ratings)
    for a, b in itertools.permutations(range(3), 2):
        expected = brute_cohen([r[a] for r in rows], [r[b] for r in rows])
        assert float(cohen.pair_coefficient[a, b]) == pytest.approx(expected, abs=1e-12)
    upper = [
        brute_cohen([r[a] for r in rows], [r[b] for r in rows])
        for a, b in itertools.combinations(range(3), 2)
    ]
    assert float(cohen.coefficient) == pytest.approx(np.mean(upper), abs=1e-12)
    assert int(cohen.n_pairs) == 3


def test_category_vs_rest_is_the_binary_coefficient():
    ratings = seed_ratings()
    rows = [list(r) for r in SEED_ROWS]
    fleiss = xr_agreement.fleiss(ratings)
    cohen = xr_agreement.cohen(ratings)
    for category in "GNP":
        binary = [[c == category for c in row] for row in rows]
        assert float(fleiss.category_coefficient.sel(category=category)) == pytest.approx(
            brute_fleiss(binary), abs=1e-12
        )
        for a, b in itertools.permutations(range(3), 2):
            expected = brute_cohen([r[a] for r in binary], [r[b] for r in binary])
            got = cohen.pair_category_coefficient.isel(annotator_1=a, annotator_2=b)
            assert float(got.sel(category=category)) == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------- Byrt indices


def test_byrt_indices_and_the_kappa_identity():
    rng = np.random.default_rng(5)
    for _ in range(10):
        values = rng.integers(0, 2, size=(30, 2)).astype(float)
        values[rng.random((30, 2)) < 0.1] = np.nan
        result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator")))
        both = ~np.isnan(values).any(axis=1)
        x, y = values[both, 0], values[both, 1]
        n = both.sum()
        # category 1 vs rest: a = both 1, d = both 0, b = first 1 second 0, c = the reverse
        a, d = np.sum((x == 1) & (y == 1)), np.sum((x == 0) & (y == 0))
        b, c = np.sum((x == 1) & (y == 0)), np.sum((x == 0) & (y == 1))
        pi = result.pair_category_prevalence_index.isel(annotator_1=0, annotator_2=1).sel(
            category=1)
        bi = result.pair_category_bias_index.isel(annotator_1=0, annotator_2=1).sel(category=1)
        assert float(pi) == pytest.approx((a - d) / n, abs=1e-12)
        assert float(bi) == pytest.approx((b - c) / n, abs=1e-12)
        pabak = float(result.pair_pabak[0, 1])
        assert pabak == pytest.approx(2 * (a + d) / n - 1, abs=1e-12)
        # Byrt, Bishop & Carlin (1993): kappa = (PABAK - PI^2 + BI^2) / (1 - PI^2 + BI^2)
        identity = (pabak - float(pi) ** 2 + float(bi) ** 2) / (1 - float(pi) ** 2 + float(bi) ** 2)
        assert float(result.pair_coefficient[0, 1]) == pytest.approx(identity, abs=1e-12)
        # bias-adjusted kappa: kappa with pooled marginals (Scott's pi)
        p1 = (np.sum(x == 1) + np.sum(y == 1)) / (2 * n)
        pe = p1**2 + (1 - p1) ** 2
        assert float(result.pair_bias_adjusted_kappa[0, 1]) == pytest.approx(
            ((a + d) / n - pe) / (1 - pe), abs=1e-12
        )


# --------------------------------------------------------------------------- degenerate cases


def test_all_ratings_identical_give_nan_with_reason_never_one():
    same = xr.DataArray([["a"] * 3] * 4, dims=("item", "annotator"))
    for name in ["fleiss", "conger", "gwet", "brennan_prediger"]:
        result = getattr(xr_agreement, name)(same)
        assert np.isnan(float(result.coefficient)), name
        assert np.isnan(float(result.coefficient_se)), name
        assert str(result.undefined_reason.values) != "", name
    # raw agreement really is 1
    assert float(xr_agreement.percent(same).coefficient) == 1.0
    cohen = xr_agreement.cohen(same)
    assert np.isnan(cohen.pair_coefficient.values).all()
    assert (cohen.pair_undefined_reason.values != "").all()
    assert np.isnan(float(cohen.coefficient)) and int(cohen.n_pairs) == 0
    assert str(cohen.undefined_reason.values) != ""


def test_declared_second_category_gives_the_defined_values():
    """With two declared categories and every rating 'a', Fleiss is still 0/0 (P_e = 1), while
    AC1 (P_e = 2 * 1 * 0 = 0) and Brennan-Prediger (P_e = 1/2) are 1 by their definitions."""
    same = xr.DataArray([["a"] * 3] * 4, dims=("item", "annotator"))
    assert np.isnan(float(xr_agreement.fleiss(same, categories=["a", "b"]).coefficient))
    assert float(xr_agreement.gwet(same, categories=["a", "b"]).coefficient) == 1.0
    assert float(xr_agreement.brennan_prediger(same, categories=["a", "b"]).expected) == 0.5


def test_single_pairable_item():
    # Only item 0 is rated twice (a, b): P_o = 0; pi = (1/2, 1/2) from all three items.
    ratings = xr.DataArray(
        [["a", "b", None], [None, "a", None], ["b", None, None]], dims=("item", "annotator")
    )
    result = xr_agreement.fleiss(ratings)
    assert float(result.observed) == 0.0
    assert float(result.expected) == pytest.approx(0.5)
    assert float(result.coefficient) == pytest.approx(-1.0)
    assert int(result.n_pairable_items) == 1 and int(result.n_rated_items) == 3
    # a pair of annotators sharing one item: kappa from the 1-item table; annotator 2 rated
    # nothing, so its pairs are undefined with a reason
    cohen = xr_agreement.cohen(ratings)
    assert float(cohen.pair_coefficient[0, 1]) == pytest.approx(brute_cohen(["a"], ["b"]))
    assert np.isnan(float(cohen.pair_coefficient[0, 2]))
    assert "no item rated by both" in str(cohen.pair_undefined_reason.values[0, 2])


def test_one_item_only_has_undefined_standard_error():
    ratings = xr.DataArray([["a", "b", "a"]], dims=("item", "annotator"))
    result = xr_agreement.fleiss(ratings)
    # P_o = 1/3, pi = (2/3, 1/3), P_e = 5/9
    assert float(result.coefficient) == pytest.approx((1 / 3 - 5 / 9) / (4 / 9))
    assert np.isnan(float(result.coefficient_se))
    assert "standard error" in str(result.undefined_reason.values)
    # without a standard error (ci=None) the coefficient is defined and has no reason
    assert str(xr_agreement.fleiss(ratings, ci=None).undefined_reason.values) == ""


def test_no_pairable_item():
    ratings = xr.DataArray([["a", None], [None, "b"]], dims=("item", "annotator"))
    for name in GWET_FAMILY:
        result = getattr(xr_agreement, name)(ratings)
        assert np.isnan(float(result.coefficient)) and np.isnan(float(result.coefficient_se))
        assert "two annotators" in str(result.undefined_reason.values)


def test_single_category_multi_label_label_is_nan():
    decisions = xr.DataArray(np.zeros((5, 3, 2)), dims=("item", "annotator", "label"))
    decisions[:, :, 1] = [[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0]]
    result = xr_agreement.fleiss(decisions)
    assert np.isnan(float(result.label_coefficient[0]))  # label 0 never chosen: 0/0
    assert np.isfinite(float(result.label_coefficient[1]))
    # the constant label adds P_o - P_e = 0 and 1 - P_e = 0 to the pooled sums
    assert float(result.coefficient) == pytest.approx(float(result.label_coefficient[1]))


# --------------------------------------------------------------------------- missing data


def test_nan_none_and_strings_are_missing_not_a_category():
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 3, size=(25, 4)).astype(float)
    codes[rng.random(codes.shape) < 0.25] = np.nan
    names = np.array(["low", "mid", "high"], dtype=object)
    as_strings = np.where(np.isnan(codes), None, names[np.nan_to_num(codes).astype(int)])
    numeric = xr.DataArray(codes, dims=("item", "annotator"))
    strings = xr.DataArray(as_strings, dims=("item", "annotator"))
    for name in GWET_FAMILY:
        a = getattr(xr_agreement, name)(numeric)
        b = getattr(xr_agreement, name)(strings, categories=["low", "mid", "high"])
        assert list(a.category.values) == [0.0, 1.0, 2.0]
        for var in ("coefficient", "coefficient_se", "observed", "expected"):
            assert float(a[var]) == pytest.approx(float(b[var]), abs=1e-12), (name, var)


def test_items_without_ratings_are_dropped():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 3, size=(20, 3)).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    padded = np.vstack([values, np.full((5, 3), np.nan)])
    for name in GWET_FAMILY:
        a = getattr(xr_agreement, name)(xr.DataArray(values, dims=("item", "annotator")))
        b = getattr(xr_agreement, name)(xr.DataArray(padded, dims=("item", "annotator")))
        for var in ("coefficient", "coefficient_se"):
            assert float(a[var]) == pytest.approx(float(b[var]), abs=1e-12)


# --------------------------------------------------------------------------- multi-label


def test_multi_label_pooled_equals_mla_on_complete_data():
    decisions = xr_agreement.datasets.bias_example()
    mla = decisions.agreement.mla(baseline="all")
    for name, baseline in [("fleiss", "F"), ("gwet", "AC1"), ("brennan_prediger", "PB")]:
        result = getattr(decisions.agreement, name)()
        assert float(result.coefficient) == pytest.approx(
            float(mla.agreement.sel(baseline=baseline)), abs=1e-12
        )
        np.testing.assert_allclose(
            result.label_coefficient.values,
            mla.label_agreement.sel(baseline=baseline).values,
            atol=1e-12,
        )
        assert "label_name" in result.coords and "category" not in result.dims


def test_one_hot_keeps_missing_and_reproduces_fleiss():
    rng = np.random.default_rng(8)
    values = rng.integers(0, 4, size=(30, 4)).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    ratings = xr.DataArray(values, dims=("item", "annotator"), coords={"annotator": list("wxyz")})
    decisions = xr_agreement.one_hot(ratings)
    assert decisions.dims == ("item", "annotator", "label")
    missing = np.isnan(values)
    assert np.isnan(decisions.values[missing]).all()
    assert (decisions.values[~missing].sum(-1) == 1).all()
    assert list(decisions.label.values) == [0.0, 1.0, 2.0, 3.0]
    single = xr_agreement.fleiss(ratings)
    multi = xr_agreement.fleiss(decisions)
    # Fleiss (1971): the overall kappa is the pooled category-vs-rest kappa
    assert float(multi.coefficient) == pytest.approx(float(single.coefficient), abs=1e-12)
    for name in GWET_FAMILY:
        a = getattr(xr_agreement, name)(ratings)
        b = getattr(xr_agreement, name)(decisions)
        np.testing.assert_allclose(
            a.category_coefficient.values, b.label_coefficient.values, atol=1e-12
        )
        np.testing.assert_allclose(a.category_coefficient_se.values,
                                   b.label_coefficient_se.values, atol=1e-12)
    a = xr_agreement.cohen(ratings).pair_category_coefficient
    b = xr_agreement.cohen(decisions).pair_label_coefficient
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)


def test_duplicated_label_pools_to_itself():
    """Pooling two identical binary problems must return that problem's value and standard
    error (the pooled linearization averages identical per-item terms)."""
    rng = np.random.default_rng(4)
    values = rng.integers(0, 2, size=(25, 3)).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    one = xr.DataArray(values[..., None], dims=("item", "annotator", "label"))
    two = xr.concat([one, one], dim="label")
    for name in GWET_FAMILY:
        a = getattr(xr_agreement, name)(one)
        b = getattr(xr_agreement, name)(two)
        for var in ("coefficient", "coefficient_se", "coefficient_lower", "coefficient_upper"):
            assert float(a[var]) == pytest.approx(float(b[var]), abs=1e-12), (name, var)
    a, b = xr_agreement.cohen(one), xr_agreement.cohen(two)
    np.testing.assert_allclose(a.pair_coefficient_se.values, b.pair_coefficient_se.values,
                               atol=1e-12)
    np.testing.assert_allclose(a.pair_coefficient_se.values,
                               a.pair_label_coefficient_se.isel(label=0).values, atol=1e-12)


def _weighted_pooled_cohen(values, item_weights, a, b):
    """Pooled Cohen's kappa of annotators a, b with item weights, written from the
    definition with loops (labels with a shared item only)."""
    po, pe = [], []
    for j in range(values.shape[2]):
        total = 0.0
        agree = 0.0
        first = {0: 0.0, 1: 0.0}
        second = {0: 0.0, 1: 0.0}
        for i in range(values.shape[0]):
            x, y = values[i, a, j], values[i, b, j]
            if np.isnan(x) or np.isnan(y):
                continue
            w = item_weights[i]
            total += w
            agree += w * (x == y)
            first[int(x)] += w
            second[int(y)] += w
        if total == 0:
            continue
        po.append(agree / total)
        pe.append(sum(first[c] * second[c] for c in (0, 1)) / total**2)
    po, pe = np.mean(po), np.mean(pe)
    return (po - pe) / (1 - pe)


def test_pooled_cohen_se_is_the_delta_method():
    """The ASE is sqrt(sum_i (d kappa / d w_i)**2) over item weights w_i (at w = 1): checked by
    numerical differentiation of the brute-force weighted kappa, with missing decisions."""
    rng = np.random.default_rng(21)
    values = (rng.random((18, 3, 4)) < rng.random(4)).astype(float)
    values[rng.random(values.shape) < 0.15] = np.nan
    result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator", "label")))
    step = 1e-6
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        gradient = []
        for i in range(values.shape[0]):
            up, down = np.ones(values.shape[0]), np.ones(values.shape[0])
            up[i] += step
            down[i] -= step
            gradient.append(
                (
                    _weighted_pooled_cohen(values, up, a, b)
                    - _weighted_pooled_cohen(values, down, a, b)
                )
                / (2 * step)
            )
        assert float(result.pair_coefficient[a, b]) == pytest.approx(
            _weighted_pooled_cohen(values, np.ones(values.shape[0]), a, b), abs=1e-12
        )
        assert float(result.pair_coefficient_se[a, b]) == pytest.approx(
            np.sqrt(np.sum(np.square(gradient))), rel=1e-6
        )


def _weighted_pooled_fleiss(values, item_weights):
    """Pooled Fleiss' kappa over binary labels with item weights, complete data, from the
    definition: per label, mean pairwise agreement and pooled prevalence."""
    po, pe = [], []
    n = values.shape[1]
    w = item_weights / item_weights.sum()
    for j in range(values.shape[2]):
        agree = sum(
            w[i]
            * sum(
                values[i, c, j] == values[i, d, j] for c, d in itertools.combinations(range(n), 2)
            )
            / (n * (n - 1) / 2)
            for i in range(values.shape[0])
        )
        p = sum(w[i] * values[i, :, j].mean() for i in range(values.shape[0]))
        po.append(agree)
        pe.append(p**2 + (1 - p) ** 2)
    po, pe = np.mean(po), np.mean(pe)
    return (po - pe) / (1 - pe)


def test_pooled_fleiss_se_is_gwet_linearization():
    """On complete data Gwet's variance is the delta-method one with n - 1:
    sum_i (n d kappa / d w_i)**2 / (n (n - 1))."""
    rng = np.random.default_rng(13)
    values = (rng.random((15, 3, 3)) < rng.random(3)).astype(float)
    result = xr_agreement.fleiss(xr.DataArray(values, dims=("item", "annotator", "label")))
    N = values.shape[0]
    step = 1e-6
    gradient = []
    for i in range(N):
        up, down = np.ones(N), np.ones(N)
        up[i] += step
        down[i] -= step
        gradient.append(
            (_weighted_pooled_fleiss(values, up) - _weighted_pooled_fleiss(values, down))
            / (2 * step)
        )
    influence = N * np.asarray(gradient)
    expected_se = np.sqrt(np.sum(influence**2) / (N * (N - 1)))
    assert float(result.coefficient) == pytest.approx(
        _weighted_pooled_fleiss(values, np.ones(N)), abs=1e-12
    )
    assert float(result.coefficient_se) == pytest.approx(expected_se, rel=1e-6)


# --------------------------------------------------------------------------- weights, dims


def test_weights_use_category_values_and_custom_matrix():
    ratings = xr.DataArray([[1, 2], [2, 4], [4, 4], [1, 1], [2, 1]], dims=("item", "annotator"))
    rows = ratings.values.tolist()

    def linear(k, l):
        return 1 - abs(k - l) / 3  # values 1..4: range 3

    def quadratic(k, l):
        return 1 - ((k - l) / 3) ** 2

    for weights, w in [("linear", linear), ("quadratic", quadratic)]:
        result = xr_agreement.cohen(ratings, weights=weights)
        expected = brute_cohen([r[0] for r in rows], [r[1] for r in rows], weights=w)
        assert float(result.pair_coefficient[0, 1]) == pytest.approx(expected, abs=1e-12)
    matrix = np.array([[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]])
    cats = [1, 2, 4]
    custom = xr_agreement.cohen(ratings, weights=matrix)
    expected = brute_cohen(
        [r[0] for r in rows],
        [r[1] for r in rows],
        weights=lambda k, l: matrix[cats.index(k), cats.index(l)],
    )
    assert float(custom.pair_coefficient[0, 1]) == pytest.approx(expected, abs=1e-12)
    assert custom.attrs["weights"] == "custom"


def test_extra_dims_are_carried_through():
    rng = np.random.default_rng(6)
    values = rng.integers(0, 3, size=(2, 20, 3)).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    da = xr.DataArray(
        values, dims=("round", "item", "annotator"), coords={"round": ["first", "second"]}
    )
    for name in GWET_FAMILY + ["cohen"]:
        result = getattr(xr_agreement, name)(da, categories=[0.0, 1.0, 2.0])
        assert "round" in result.coefficient.dims
        for r in ["first", "second"]:
            alone = getattr(xr_agreement, name)(da.sel(round=r), categories=[0.0, 1.0, 2.0])
            names = ("coefficient", "coefficient_se", "category_coefficient")
            if name == "cohen":
                names = ("pair_coefficient", "pair_coefficient_se", "pair_category_coefficient",
                         "coefficient")
            for var in names:
                np.testing.assert_allclose(
                    result[var].sel(round=r).values, alone[var].values, atol=1e-12
                )
    assert xr_agreement.cohen(da).pair_category_coefficient.dims == (
        "round",
        "annotator_1",
        "annotator_2",
        "category",
    )


def test_input_coordinates_reach_the_result():
    """Index, non-index and scalar coordinates of the dims a result keeps, on single- and
    multi-label input, and a dim order that reads naturally (the values are computed on plain
    arrays, so the coordinates are the input's own, put back)."""
    rng = np.random.default_rng(16)
    single = xr.DataArray(
        rng.integers(0, 3, size=(2, 12, 3)).astype(float), dims=("round", "item", "annotator"),
        coords={"round": ["first", "second"], "round_note": ("round", ["a", "b"]),
                "batch": "b1", "item": [f"doc-{i}" for i in range(12)],
                "annotator": ["ann-x", "ann-y", "ann-z"]})
    multi = xr.DataArray(
        (rng.random((12, 2, 3, 4)) < 0.4).astype(float),
        dims=("item", "round", "annotator", "label"),
        coords={"round": ["first", "second"], "label": ["L0", "L1", "L2", "L3"],
                "label_group": ("label", ["g", "g", "h", "h"])})
    for name in GWET_FAMILY + ["cohen"]:
        function = getattr(xr_agreement, name)
        result = function(single)
        assert {"round", "round_note", "batch", "category"} <= set(result.coords), name
        assert "item" not in result.coords and "annotator" not in result.coords, name
        assert result.round_note.sel(round="second").item() == "b" and result.batch == "b1"
        assert list(result.category.values) == [0.0, 1.0, 2.0], name
        first_dims = ["round", "annotator_1", "annotator_2", "category"] if name == "cohen" \
            else ["round", "category"]
        assert list(result.dims) == first_dims, (name, list(result.dims))
        if name == "cohen":
            assert list(result.annotator_1.values) == ["ann-x", "ann-y", "ann-z"]
        labeled = function(multi)
        assert {"round", "label", "label_group"} <= set(labeled.coords), name
        assert labeled.label_group.sel(label="L2").item() == "h", name
        level = "pair_label_coefficient" if name == "cohen" else "label_coefficient"
        assert labeled[level].dims[0] == "round" and labeled[level].dims[-1] == "label"
        assert labeled[level].sel(round="first", label="L1").notnull().all(), name


def test_confidence_level_and_population_size():
    ratings = seed_ratings()
    a = xr_agreement.gwet(ratings, ci=0.5)
    b = xr_agreement.gwet(ratings, ci=0.99)
    assert float(b.coefficient_lower) < float(a.coefficient_lower) < float(a.coefficient)
    assert a.attrs["ci_level"] == 0.5 and a.attrs["ci_method"] == "analytic"
    finite = xr_agreement.gwet(ratings, population_size=40)
    assert float(finite.coefficient_se) == pytest.approx(
        float(a.coefficient_se) * np.sqrt(1 - 10 / 40), abs=1e-12)
    # no interval: no standard error, no bounds, no interval attrs
    plain = xr_agreement.gwet(ratings, ci=None)
    assert not {"coefficient_se", "coefficient_lower", "category_coefficient_se"} & set(plain)
    assert "ci_level" not in plain.attrs and float(plain.coefficient) == float(a.coefficient)


def _fleiss_cohen_everitt_variance(table):
    """Var(kappa) of a q x q table of counts, written from Fleiss, Cohen & Everitt (1969)
    (Fleiss, Levin & Paik 2003, eq. 18.13), with loops."""
    n = table.sum()
    p = table / n
    row, col = p.sum(1), p.sum(0)
    q = len(p)
    po = sum(p[i, i] for i in range(q))
    pe = sum(row[i] * col[i] for i in range(q))
    kappa = (po - pe) / (1 - pe)
    total = sum(p[i, i] * (1 - (row[i] + col[i]) * (1 - kappa)) ** 2 for i in range(q))
    total += (1 - kappa) ** 2 * sum(
        p[i, j] * (col[i] + row[j]) ** 2 for i in range(q) for j in range(q) if i != j)
    total -= (kappa - pe * (1 - kappa)) ** 2
    return total / (n * (1 - pe) ** 2), n


def test_cohen_population_size_is_gwet_finite_correction():
    """Gwet (2014): with a sample of n of N items the variance is multiplied by 1 - n / N (n:
    the items the pair's kappa uses, here the pairwise-complete ones)."""
    rng = np.random.default_rng(44)
    values = rng.integers(0, 3, size=(30, 3)).astype(float)
    values[rng.random(values.shape) < 0.15] = np.nan
    da = xr.DataArray(values, dims=("item", "annotator"))
    N = 75
    result = xr_agreement.cohen(da, population_size=N)
    for a, b in itertools.combinations(range(3), 2):
        both = ~np.isnan(values[:, a]) & ~np.isnan(values[:, b])
        table = np.zeros((3, 3))
        for x, y in zip(values[both, a].astype(int), values[both, b].astype(int)):
            table[x, y] += 1
        variance, n = _fleiss_cohen_everitt_variance(table)
        assert n == both.sum() < 30
        assert float(result.pair_coefficient_se[a, b]) == pytest.approx(
            np.sqrt(variance * (1 - n / N)), abs=1e-12)
        for k in range(3):  # category k against the rest: the 2x2 table
            binary = np.array([[table[k, k], table[k].sum() - table[k, k]],
                               [table[:, k].sum() - table[k, k], 0.0]])
            binary[1, 1] = n - binary.sum()
            variance, _ = _fleiss_cohen_everitt_variance(binary)
            got = result.pair_category_coefficient_se.isel(annotator_1=a, annotator_2=b,
                                                            category=k)
            assert float(got) == pytest.approx(np.sqrt(variance * (1 - n / N)), abs=1e-12)
    with pytest.raises(ValueError, match="population_size"):
        xr_agreement.cohen(da, population_size=20)


def test_conger_two_annotators_is_cohen():
    rng = np.random.default_rng(9)
    values = rng.integers(0, 3, size=(30, 2))
    da = xr.DataArray(values, dims=("item", "annotator"))
    expected = brute_cohen(values[:, 0].tolist(), values[:, 1].tolist())
    assert float(xr_agreement.conger(da).coefficient) == pytest.approx(expected, abs=1e-12)


def test_percent_is_mean_pairwise_agreement():
    rng = np.random.default_rng(12)
    values = rng.integers(0, 3, size=(15, 4)).astype(float)
    values[rng.random(values.shape) < 0.3] = np.nan
    shares = []
    for row in values:
        present = row[~np.isnan(row)]
        pairs = list(itertools.combinations(present, 2))
        if pairs:
            shares.append(np.mean([x == y for x, y in pairs]))
    result = xr_agreement.percent(xr.DataArray(values, dims=("item", "annotator")))
    assert float(result.coefficient) == pytest.approx(np.mean(shares), abs=1e-12)
    assert float(result.expected) == 0.0


# --------------------------------------------------------------------------- output, errors


def test_every_variable_is_described_and_input_untouched():
    ratings = seed_ratings()
    before = ratings.copy(deep=True)
    for name in GWET_FAMILY + ["cohen"]:
        result = getattr(ratings.agreement, name)()
        for var in result.data_vars:
            assert {"long_name", "description", "symbol"} <= set(result[var].attrs), (name, var)
    xr.testing.assert_identical(ratings, before)
    assert float(ratings.agreement.fleiss().coefficient) == float(kappa.fleiss(ratings).coefficient)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"weights": "cubic"}, ValueError, "unknown weights"),
        ({"weights": np.eye(2)}, ValueError, r"\(3, 3\)"),
        ({"weights": np.full((3, 3), 0.5)}, ValueError, "diagonal"),
        ({"weights": 2 * np.eye(3)}, ValueError, r"\[0, 1\]"),
        ({"ci": 1.0}, ValueError, "ci must be a number in"),
        ({"ci": 95}, ValueError, "ci must be a number in"),
        ({"ci_method": "basic"}, ValueError, r"ci_method must be one of \['analytic'"),
        ({"categories": ["P", "N"]}, ValueError, "'G' at item=6, annotator='A'"),
        ({"annotator": "rater"}, ValueError, "annotator dim 'rater' not found"),
        ({"population_size": 5}, ValueError, "population_size"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        xr_agreement.fleiss(seed_ratings(), **kwargs)


def test_bad_multi_label_value_names_its_position():
    decisions = xr.DataArray(
        np.zeros((2, 2, 2)), dims=("item", "annotator", "label"), coords={"label": ["x", "y"]}
    )
    decisions[1, 0, 1] = 2
    with pytest.raises(ValueError, match="found 2.0 at item=1, annotator=0, label='y'"):
        xr_agreement.gwet(decisions)
    with pytest.raises(ValueError, match="at least 2 annotators"):
        xr_agreement.fleiss(xr.zeros_like(decisions).isel(annotator=[0]))
    with pytest.raises(TypeError, match="DataArray"):
        xr_agreement.cohen(np.zeros((3, 2)))


@pytest.mark.parametrize("function", ["fleiss", "conger", "gwet", "brennan_prediger",
                                      "percent", "cohen"])
@pytest.mark.parametrize("dtype, n_annotators", [(np.uint8, 3), (np.uint8, 300), (np.int64, 3),
                                                 (bool, 3)])
def test_a_decision_other_than_0_1_is_refused_in_every_dtype(function, dtype, n_annotators,
                                                            jit_mode):
    """uint8 decisions are checked by the counting passes that read them (other dtypes
    before): every coefficient refuses a bad value wherever it is, naming it; a valid
    array of the same shape is accepted."""
    rng = np.random.default_rng(n_annotators)
    shape = (40, n_annotators, 9)
    valid = xr.DataArray((rng.random(shape) < 0.3).astype(dtype),
                         dims=("item", "annotator", "label"),
                         coords={"item": [f"doc{i}" for i in range(40)]})
    if function == "cohen" and n_annotators > 50:
        valid = valid.isel(annotator=slice(0, 40))  # (pairs grow as n^2)
    result = getattr(xr_agreement, function)(valid)
    assert np.isfinite(float(result.coefficient))
    if dtype is bool:
        return  # nothing else to write
    for item, annotator, label in [(0, 0, 0), (39, -1, 8), (17, 1, 4)]:
        bad = valid.copy()
        bad[item, annotator, label] = 7
        annotator_index = annotator % bad.sizes["annotator"]
        with pytest.raises(ValueError, match=(f"found 7 at item='doc{item}', "
                                              f"annotator={annotator_index}, label={label}")):
            getattr(xr_agreement, function)(bad)


def test_dask_input_gives_the_numpy_result():
    rng = np.random.default_rng(71)
    values = (rng.random((20, 3, 4)) < 0.4).astype(float)
    values[rng.random(values.shape) < 0.1] = np.nan
    decisions = xr.DataArray(values, dims=("item", "annotator", "label"))
    ratings = xr.DataArray(rng.integers(0, 3, (20, 3)).astype(float), dims=("item", "annotator"))
    for da in (decisions, ratings):
        for name in ["fleiss", "conger", "cohen"]:
            eager = getattr(xr_agreement, name)(da)
            chunked = getattr(xr_agreement, name)(da.chunk({"item": 7}))
            xr.testing.assert_allclose(eager, chunked)


# --------------------------------------------------------------------------- bootstrap (issue 5)


def missing_ratings(rng, n_items=25, n_annotators=4, n_cats=3, missing=0.2):
    values = rng.integers(0, n_cats, size=(n_items, n_annotators)).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return xr.DataArray(
        values,
        dims=("item", "annotator"),
        coords={
            "item": [f"i{i}" for i in range(n_items)],
            "annotator": list("ABCDEFG"[:n_annotators]),
        },
    )


def missing_decisions(rng, n_items=25, n_annotators=3, n_labels=3, missing=0.15):
    values = (rng.random((n_items, n_annotators, n_labels)) < 0.4).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return xr.DataArray(values, dims=("item", "annotator", "label"),
                        coords={"label": ["x", "y", "z"]})


@pytest.mark.parametrize("name", GWET_FAMILY + ["cohen"])
@pytest.mark.parametrize("unit", ["item", "annotator", "both"])
def test_bootstrap_replicates_are_the_coefficient_on_resampled_arrays(name, unit):
    rng = np.random.default_rng(len(name) + 7 * len(unit))
    function = getattr(xr_agreement, name)
    for da, categories in (
        (missing_ratings(rng, n_items=15), [0.0, 1.0, 2.0]),
        (missing_decisions(rng, n_items=15), None),
    ):
        R = 4
        out = function(da, categories=categories, ci=0.9, ci_method="percentile",
                       n_resamples=R, seed=np.random.default_rng(11), resample=unit,
                       return_replicates=True)
        items, annotators = numpy_resamples(11, da.sizes["item"], da.sizes["annotator"], R, unit)
        level = "label" if "label" in da.dims else "category"
        checked = ["coefficient", "observed", "expected", f"{level}_coefficient"]
        if name == "cohen":
            checked = ["pair_coefficient", "pair_observed", "pair_expected",
                       f"pair_{level}_coefficient"]
        if name == "cohen" and unit != "item":
            checked = ["coefficient"]
        for r, selection in enumerate(replicate_selections(items, annotators)):
            expected = function(resampled(da, selection), categories=categories)
            for var in checked:
                got = out[f"{var}_replicates"].isel(resample=r)
                np.testing.assert_allclose(
                    got.values, expected[var].values, rtol=1e-12, atol=1e-12,
                    err_msg=f"{name} {unit} replicate {r} {var}",
                )


def test_one_interval_method_per_call():
    ratings = seed_ratings()
    out = xr_agreement.gwet(ratings, ci=0.9, ci_method="bca", n_resamples=40, seed=1)
    analytic = xr_agreement.gwet(ratings, ci=0.9)
    # the same values; the bounds are the bootstrap's, with no analytic values beside them
    for var in ("coefficient", "observed", "expected"):
        assert float(out[var]) == float(analytic[var])
    for var in ("coefficient", "observed", "expected", "category_coefficient"):
        assert out[f"{var}_lower"].dims == out[var].dims
        assert {"long_name", "symbol", "description"} <= set(out[f"{var}_lower"].attrs)
    assert not {"coefficient_se", "category_coefficient_se", "coefficient_se_lower",
                "coefficient_lower_lower", "coefficient_upper_upper"} & set(out)
    assert float(out.coefficient_lower) != float(analytic.coefficient_lower)
    assert out.attrs["ci_level"] == 0.9 and "confidence" not in out.attrs
    assert out.attrs["ci_method"] == "bca" and out.attrs["ci_resampling_unit"] == "item"
    assert analytic.attrs["ci_method"] == "analytic" and "ci_n_resamples" not in analytic.attrs
    with pytest.raises(ValueError, match=r"ci must be a number in \(0, 1\)"):
        xr_agreement.fleiss(ratings, ci=95, ci_method="percentile")
    with pytest.raises(ValueError, match="resample must be one of"):
        xr_agreement.cohen(ratings, ci=0.9, ci_method="percentile", resample="rater")
    with pytest.raises(ValueError, match="ci_method must be one of"):
        xr_agreement.cohen(ratings, ci_method="normal")


@pytest.mark.parametrize(
    "name, unit, method",
    [
        ("fleiss", "both", "bca"),
        ("conger", "annotator", "percentile"),
        ("cohen", "item", "percentile"),
    ],
)
def test_same_seed_same_intervals_on_numpy_and_dask(name, unit, method):
    rng = np.random.default_rng(3)
    da = missing_ratings(rng, n_items=20)
    function = getattr(xr_agreement, name)
    kwargs = {"ci": 0.9, "n_resamples": 10, "resample": unit, "ci_method": method}
    first = function(da, seed=5, **kwargs)
    again = function(da, seed=5, **kwargs)
    chunked = function(da.chunk({"item": 7}), seed=5, **kwargs).compute()
    # a Generator seed: NumPy's own draws, on numpy and dask input alike
    numpy_stream = function(da, seed=np.random.default_rng(5), **kwargs)
    numpy_stream_chunked = function(da.chunk({"item": 7}), seed=np.random.default_rng(5),
                                    **kwargs).compute()
    other = function(da, seed=6, **kwargs)
    bounds = [v for v in first.data_vars if v.endswith(("_lower", "_upper")) and "ci_" not in v]
    assert bounds
    for var in bounds:
        np.testing.assert_array_equal(first[var].values, again[var].values)
        np.testing.assert_array_equal(first[var].values, chunked[var].values)
        np.testing.assert_array_equal(numpy_stream[var].values,
                                      numpy_stream_chunked[var].values)
    assert any(
        not np.array_equal(first[v].values, other[v].values, equal_nan=True) for v in bounds
    )


def test_bootstrap_se_is_close_to_the_analytic_se():
    """The spread of 400 item replicates against Gwet's linearized standard error (and
    Cohen's ASE) on 400 items (4 annotators, 3 categories, 10% missing). The ratio's Monte
    Carlo error is about 1 / sqrt(2 * 400) = 3.5%; the tolerance is 15%."""
    rng = np.random.default_rng(0)
    N, n, q = 400, 4, 3
    latent = rng.integers(0, q, N)
    values = np.where(rng.random((N, n)) < 0.6, latent[:, None], rng.integers(0, q, (N, n)))
    values = values.astype(float)
    values[rng.random((N, n)) < 0.1] = np.nan
    da = xr.DataArray(values, dims=("item", "annotator"))
    for name in GWET_FAMILY:
        out = getattr(xr_agreement, name)(da, ci=0.95, ci_method="percentile", n_resamples=400,
                                          seed=1, return_replicates=True)
        se = getattr(xr_agreement, name)(da).coefficient_se
        spread = float(out.coefficient_replicates.std("resample", ddof=1))
        ratio = spread / float(se)
        assert abs(ratio - 1) < 0.15, f"{name}: bootstrap sd / analytic se = {ratio:.3f}"
    # Cohen's kappa of each distinct pair against the Fleiss-Cohen-Everitt ASE
    out = xr_agreement.cohen(da, ci=0.95, ci_method="percentile", n_resamples=400, seed=1,
                             return_replicates=True)
    se = xr_agreement.cohen(da).pair_coefficient_se
    spread = out.pair_coefficient_replicates.std("resample", ddof=1)
    for a, b in itertools.combinations(range(n), 2):
        ratio = float(spread[a, b]) / float(se[a, b])
        assert abs(ratio - 1) < 0.15, f"cohen pair {a, b}: bootstrap sd / ASE = {ratio:.3f}"


# --------------------------------------------------------------------------- dask (issue 6)


@st.composite
def chunked_case(draw):
    n_items = draw(st.integers(3, 24))
    cuts = sorted(draw(st.sets(st.integers(1, n_items - 1), max_size=4))) if n_items > 1 else []
    chunks = tuple(np.diff([0, *cuts, n_items]).tolist())
    seed = draw(st.integers(0, 2**16))
    multi_label = draw(st.booleans())
    extra = draw(st.booleans())
    missing = draw(st.sampled_from([0.0, 0.25]))
    name = draw(st.sampled_from(GWET_FAMILY + ["cohen"]))
    return n_items, chunks, seed, multi_label, extra, missing, name


@settings(max_examples=12, deadline=None)
@given(chunked_case())
def test_lazy_and_dask_equals_numpy_on_uneven_chunks(case):
    n_items, chunks, seed, multi_label, extra, missing, name = case
    rng = np.random.default_rng(seed)
    if multi_label:
        da = missing_decisions(rng, n_items=n_items, missing=missing)
        categories = None
    else:
        da = missing_ratings(rng, n_items=n_items, missing=missing)
        categories = [0.0, 1.0, 2.0]
    if extra:
        reversed_items = da.isel(item=slice(None, None, -1))
        reversed_items = reversed_items.assign_coords(item=da["item"].values)
        da = xr.concat([da, reversed_items], dim="round").assign_coords(round=["a", "b"])
    lazy_input = da.chunk({"item": chunks, **({"round": 1} if extra else {})})
    function = getattr(xr_agreement, name)
    with raise_if_dask_computes():
        lazy = function(lazy_input, categories=categories)
    for var, value in lazy.data_vars.items():
        assert isinstance(value.data, dask.array.Array), f"{name}: {var} is not lazy"
    eager = function(da, categories=categories)
    computed = lazy.compute()
    xr.testing.assert_allclose(eager, computed, rtol=1e-12, atol=1e-12)
    for var in eager.data_vars:
        assert eager[var].attrs == computed[var].attrs
    assert eager.attrs == computed.attrs


def test_dask_without_declared_categories_and_errors_at_compute_time():
    rng = np.random.default_rng(8)
    codes = missing_ratings(rng, n_items=20)
    words = np.array(["no", "maybe", "yes"], object)[codes.fillna(0).values.astype(int)]
    ratings = codes.copy(data=np.where(codes.isnull(), None, words))
    # the category set is computed (documented), the rest stays lazy
    lazy = xr_agreement.fleiss(ratings.chunk({"item": (3, 9, 8)}))
    assert isinstance(lazy.coefficient.data, dask.array.Array)
    xr.testing.assert_allclose(xr_agreement.fleiss(ratings), lazy.compute(), rtol=1e-12, atol=1e-12)
    # a rating outside declared categories, and a multi-label value other than 0/1/NaN,
    # are named by their coordinates in the whole array when computed
    single = ratings.where(ratings != "maybe", "no")
    single[13, 2] = "maybe"
    with raise_if_dask_computes():
        bad = xr_agreement.gwet(single.chunk({"item": 6}), categories=["no", "yes"])
    with pytest.raises(ValueError, match="'maybe' at item='i13', annotator='C'"):
        bad.compute()
    decisions = missing_decisions(rng, n_items=12)
    decisions[9, 1, 2] = 3
    with raise_if_dask_computes():
        bad = xr_agreement.fleiss(decisions.chunk({"item": 5}))
    with pytest.raises(ValueError, match="found 3.0 at item=9, annotator=1, label='z'"):
        bad.compute()


@pytest.mark.parametrize("multi_label", [False, True])
def test_bca_bounds_equal_the_recomputing_bootstrap(multi_label):
    """BCa from the per-item tables (replicates W @ T, jackknife by subtracting a row) equals
    BCa of the coefficient recomputed on every resampled array and every leave-one-out
    array, on the same draws, for every interval variable."""
    from xr_agreement import resampling as bs

    rng = np.random.default_rng(2)
    if multi_label:
        values = (rng.random((30, 4, 3)) < 0.4).astype(float)
        dims, categories = ("item", "annotator", "label"), None
    else:
        values = rng.integers(0, 3, (30, 4)).astype(float)
        dims, categories = ("item", "annotator"), [0.0, 1.0, 2.0]
    values[rng.random(values.shape) < 0.2] = np.nan
    da = xr.DataArray(values, dims=dims)
    for name in ["fleiss", "conger", "gwet", "cohen"]:
        function = getattr(xr_agreement, name)
        fast = function(da, categories=categories, ci=0.9, ci_method="bca", n_resamples=20,
                        seed=3)
        variables = [v[: -len("_lower")] for v in fast.data_vars if v.endswith("_lower")]
        statistic = bs.RecomputedStatistic(lambda d: function(d, categories=categories, ci=None),
                                           da, item="item", annotator="annotator")
        slow = bs.bootstrap(statistic, function(da, categories=categories, ci=None), ci=0.9,
                            n_resamples=20, seed=3, ci_method="bca", variables=variables)
        for variable in variables:
            for side in ("_lower", "_upper"):
                np.testing.assert_allclose(fast[variable + side].values,
                                           slow[variable + side].values, rtol=1e-12,
                                           atol=1e-12, equal_nan=True,
                                           err_msg=f"{name} {variable}{side}")


@pytest.mark.parametrize("function", ["fleiss", "conger", "gwet", "brennan_prediger"])
def test_each_label_and_category_says_why_its_coefficient_is_undefined(function):
    """A label nobody chose (and a declared category nobody used) is one category in use:
    its coefficient is 0/0, and its own reason says so beside it, as a coordinate of its
    value (the corpus reason, also carried, is about the corpus coefficient)."""
    rng = np.random.default_rng(3)
    values = (rng.random((30, 4, 4)) < 0.4).astype(float)
    values[:, :, 2] = 0  # label "c": never chosen
    values[rng.random(values.shape) < 0.05] = np.nan
    da = xr.DataArray(values, dims=("item", "annotator", "label"),
                      coords={"item": [f"i{k}" for k in range(30)], "annotator": list("wxyz"),
                              "label": list("abcd")})
    result = getattr(xr_agreement, function)(da)
    reasons = result.label_coefficient.label_undefined_reason
    undefined = np.isnan(result.label_coefficient.values)
    if function in ("fleiss", "conger"):  # AC1's P_e is 0 there, Brennan-Prediger's 1/2
        assert undefined.tolist() == [False, False, True, False]
    assert all(("P_e is 1" in text) == flag for text, flag in zip(reasons.values, undefined))
    assert result.undefined_reason.item() == ""
    ratings = xr.DataArray(rng.integers(0, 3, (25, 3)), dims=("item", "annotator"))
    single = getattr(xr_agreement, function)(ratings, categories=[0, 1, 2, 3])
    category_reasons = single.category_coefficient.category_undefined_reason.values
    assert [bool(text) for text in category_reasons] == np.isnan(
        single.category_coefficient.values).tolist()
    if function in ("fleiss", "conger"):
        assert "P_e is 1" in category_reasons[3]
