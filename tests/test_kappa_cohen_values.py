"""Cohen's kappa's finishing kernel (``kappa/pair_values.py``) against plain loops over the
annotator pairs that compute every value from the ratings themselves (the pair's common
items, its table, the textbook formulas), compiled and interpreted; the bootstrap's path
(values from column sums) against the counting path; a zero variance comes out as 0."""

import importlib
import math

import numpy as np
import pytest
import xarray as xr
from statistics import NormalDist

import xr_agreement
from xr_agreement.kappa.encode import REASONS, _one_hot, _prepare

cohen_module = importlib.import_module("xr_agreement.kappa.cohen")

TOLERANCE = 1e-10


def kappa_of_table(table, w):
    """(n, P_o, P_e, kappa, variance) of one contingency table, written out as in Fleiss,
    Cohen & Everitt (1969): var = (sum_kl p_kl [w_kl - (wbar_k. + wbar_.l)(1 - kappa)]^2 -
    [kappa - P_e (1 - kappa)]^2) / (n (1 - P_e)^2)."""
    q = len(w)
    n = table.sum()
    if n == 0:
        return 0, math.nan, math.nan, math.nan, math.nan
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    observed = sum(w[k][m] * p[k, m] for k in range(q) for m in range(q))
    expected = sum(w[k][m] * rows[k] * cols[m] for k in range(q) for m in range(q))
    if abs(1 - expected) <= 1e-12:
        return n, observed, expected, math.nan, math.nan
    kappa = (observed - expected) / (1 - expected)
    w_row = [sum(w[k][m] * cols[m] for m in range(q)) for k in range(q)]
    w_col = [sum(w[k][m] * rows[k] for k in range(q)) for m in range(q)]
    spread = sum(p[k, m] * (w[k][m] - (w_row[k] + w_col[m]) * (1 - kappa)) ** 2
                 for k in range(q) for m in range(q))
    variance = (spread - (kappa - expected * (1 - kappa)) ** 2) / (n * (1 - expected) ** 2)
    return n, observed, expected, kappa, variance


def pair_table(x, y, q):
    """The q x q table of two raters' codes (NaN: not rated) on their common items."""
    table = np.zeros((q, q))
    for r, c in zip(x, y):
        if not (np.isnan(r) or np.isnan(c)):
            table[int(r), int(c)] += 1
    return table


def light(coefficients):
    """Light's kappa: the mean of the defined coefficients of the pairs a < b, their number."""
    n = len(coefficients)
    defined = [coefficients[a][b] for a in range(n) for b in range(a + 1, n)
               if not math.isnan(coefficients[a][b])]
    return (sum(defined) / len(defined) if defined else math.nan), len(defined)


def single_label_loops(codes, w, z, population):
    """Every value of single-label cohen by loops over the pairs (a, b), a == b included."""
    N, n = codes.shape
    q = len(w)
    out = {name: np.full((n, n), np.nan) for name in (
        "pair_coefficient", "pair_observed", "pair_expected", "pair_coefficient_se",
        "pair_coefficient_lower", "pair_coefficient_upper", "pair_n_pairable_items",
        "pair_pabak", "pair_bias_adjusted_kappa")}
    for name in ("coefficient", "coefficient_se", "prevalence_index", "bias_index"):
        out[f"pair_category_{name}"] = np.full((n, n, q), np.nan)
    reasons = np.full((n, n), "", dtype=object)
    uniform = sum(map(sum, w)) / q**2
    for a in range(n):
        for b in range(n):
            table = pair_table(codes[:, a], codes[:, b], q)
            items, observed, expected, kappa, variance = kappa_of_table(table, w)
            factor = 1.0 if population is None else 1 - items / population
            se = math.sqrt(max(variance * factor, 0)) if not math.isnan(variance) else math.nan
            pi = (table.sum(axis=1) + table.sum(axis=0)) / (2 * items) if items else None
            scott = (sum(w[k][m] * pi[k] * pi[m] for k in range(q) for m in range(q))
                     if items else math.nan)
            values = {
                "pair_coefficient": kappa, "pair_observed": observed,
                "pair_expected": expected, "pair_coefficient_se": se,
                "pair_coefficient_lower": kappa - z * se,
                "pair_coefficient_upper": min(kappa + z * se, 1.0) if se == se else math.nan,
                "pair_n_pairable_items": items,
                "pair_pabak": (observed - uniform) / (1 - uniform),
                "pair_bias_adjusted_kappa": (observed - scott) / (1 - scott)
                if items and abs(1 - scott) > 1e-12 else math.nan,
            }
            for name, value in values.items():
                out[name][a, b] = value
            reasons[a, b] = (REASONS["no_common"] if items == 0
                             else REASONS["gap"] if math.isnan(kappa) else "")
            for k in range(q):  # category k against the rest, identity weights
                binary = pair_table(np.where(np.isnan(codes[:, a]), np.nan, codes[:, a] != k),
                                    np.where(np.isnan(codes[:, b]), np.nan, codes[:, b] != k),
                                    2)
                items_k, _, _, kappa_k, variance_k = kappa_of_table(binary, np.eye(2))
                se_k = (math.sqrt(max(variance_k * factor, 0))
                        if not math.isnan(variance_k) else math.nan)
                known = items_k if items_k else math.nan
                out["pair_category_coefficient"][a, b, k] = kappa_k
                out["pair_category_coefficient_se"][a, b, k] = se_k
                out["pair_category_prevalence_index"][a, b, k] = (
                    (binary[0, 0] - binary[1, 1]) / known)
                out["pair_category_bias_index"][a, b, k] = (binary[0, 1] - binary[1, 0]) / known
    out["pair_undefined_reason"] = reasons
    out["coefficient"], out["n_pairs"] = light(out["pair_coefficient"])
    return out


def multi_label_loops(values, w):
    """Per label each pair's kappa, its se and Byrt's indices on the items both decided the
    label, and the pair's kappa pooled over the labels with a common item, by loops."""
    N, n, L = values.shape
    out = {name: np.full((L, n, n), np.nan) for name in (
        "pair_label_coefficient", "pair_label_coefficient_se",
        "pair_label_prevalence_index", "pair_label_bias_index")}
    pooled = {name: np.full((n, n), np.nan) for name in (
        "pair_coefficient", "pair_observed", "pair_expected", "pair_bias_adjusted_kappa")}
    for a in range(n):
        for b in range(n):
            observed, expected, scott = [], [], []
            for j in range(L):
                table = pair_table(values[:, a, j], values[:, b, j], 2)
                items, observed_j, expected_j, kappa, variance = kappa_of_table(table, w)
                out["pair_label_coefficient"][j, a, b] = kappa
                out["pair_label_coefficient_se"][j, a, b] = (
                    math.sqrt(max(variance, 0)) if not math.isnan(variance) else math.nan)
                if items:
                    out["pair_label_prevalence_index"][j, a, b] = (
                        (table[1, 1] - table[0, 0]) / items)
                    out["pair_label_bias_index"][j, a, b] = (table[1, 0] - table[0, 1]) / items
                    observed.append(observed_j)
                    expected.append(expected_j)
                    pi = (table.sum(axis=1) + table.sum(axis=0)) / (2 * items)
                    scott.append(sum(w[k][m] * pi[k] * pi[m] for k in range(2)
                                     for m in range(2)))
            if observed:
                p_o, p_e, p_s = np.mean(observed), np.mean(expected), np.mean(scott)
                pooled["pair_observed"][a, b] = p_o
                pooled["pair_expected"][a, b] = p_e
                pooled["pair_coefficient"][a, b] = (p_o - p_e) / (1 - p_e)
                pooled["pair_bias_adjusted_kappa"][a, b] = (p_o - p_s) / (1 - p_s)
    out = {name: np.moveaxis(value, 0, -1) for name, value in out.items()}  # as returned
    out.update(pooled)
    out["coefficient"], out["n_pairs"] = light(pooled["pair_coefficient"])
    return out


def assert_values(result, expected):
    for name, value in expected.items():
        got = result[name].values
        if name.endswith("reason"):
            assert got.tolist() == np.asarray(value).tolist(), name
        elif name == "n_pairs":
            assert got.dtype == np.int64 and int(got) == value, name
        else:
            np.testing.assert_allclose(got, value, rtol=TOLERANCE, atol=TOLERANCE, err_msg=name)


def random_codes(rng, shape, q, missing):
    codes = rng.integers(0, q, shape).astype(float)
    codes[rng.random(shape) < missing] = np.nan
    return codes


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("population", [None, 400])
def test_single_label_values_are_the_pair_loops(jit_mode, weights, population):
    rng = np.random.default_rng(21)
    codes = random_codes(rng, (60, 4, ), 4, 0.15)
    codes[:, 3] = np.where(np.isnan(codes[:, 3]), np.nan, codes[:, 1])  # a pair near 1
    codes[:30, 2] = np.nan  # pairs on fewer items
    da = xr.DataArray(codes, dims=("item", "annotator"))
    w = _prepare(da, weights, None, "item", "annotator", "label")["weights"]
    result = xr_agreement.cohen(da, weights, ci=0.9, population_size=population)
    expected = single_label_loops(codes, w.tolist(), NormalDist().inv_cdf(0.95), population)
    assert_values(result, expected)


def test_single_label_undefined_pairs_are_the_pair_loops(jit_mode):
    codes = np.array([[0, 0, np.nan], [0, 0, np.nan], [0, 0, np.nan], [np.nan, 1, 1]])
    da = xr.DataArray(codes, dims=("item", "annotator"))
    result = xr_agreement.cohen(da, categories=[0.0, 1.0])
    expected = single_label_loops(codes, np.eye(2).tolist(), NormalDist().inv_cdf(0.975), None)
    assert_values(result, expected)
    # (0, 1) only ever said 0, (1, 2) 1: P_e = 1; (0, 2) share no item; so no pair a < b
    # is defined
    assert result.pair_undefined_reason.values[0, 1] == REASONS["gap"]
    assert result.pair_undefined_reason.values[0, 2] == REASONS["no_common"]
    assert str(result.undefined_reason.values) == REASONS["no_defined_pair"]


@pytest.mark.parametrize("missing", [0.0, 0.2])
@pytest.mark.parametrize("weights", [None, [[1.0, 0.3], [0.3, 1.0]]])
def test_multi_label_values_are_the_pair_loops(jit_mode, missing, weights):
    rng = np.random.default_rng(22)
    values = (rng.random((50, 3, 4)) < [0.1, 0.4, 0.5, 0.02]).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    values[:, :, 3] = np.where(rng.random((50, 3)) < 0.9, np.nan, values[:, :, 3])
    da = xr.DataArray(values, dims=("item", "annotator", "label"))
    w = np.eye(2) if weights is None else np.asarray(weights)
    result = xr_agreement.cohen(da, weights=None if weights is None else w)
    assert_values(result, multi_label_loops(values, w.tolist()))


def test_a_zero_variance_gives_a_zero_standard_error(jit_mode):
    rng = np.random.default_rng(6)  # E[x^2] - E[x]^2 left a standard error of 1e-8 here
    codes = rng.integers(0, 12, (113, 3)).astype(float)
    codes[:, 1] = codes[:, 0]
    result = xr_agreement.cohen(xr.DataArray(codes, dims=("item", "annotator")),
                                "quadratic")
    se = result.pair_coefficient_se.values
    assert se[0, 1] < 1e-15 and se[1, 0] < 1e-15 and np.diag(se).max() < 1e-15
    np.testing.assert_allclose(np.diag(result.pair_coefficient.values), 1, atol=1e-15)


@pytest.mark.parametrize("kind", ["single", "multi"])
def test_the_values_from_column_sums_are_the_counted_ones(kind):
    """The bootstrap's point values (_cohen_point on the sums of the per-item columns) equal
    the counting pass's, but for the pooled standard error (no per-item terms: NaN)."""
    rng = np.random.default_rng(24)
    if kind == "single":
        da = xr.DataArray(random_codes(rng, (2, 40, 4), 3, 0.1),
                          dims=("round", "item", "annotator"))
    else:
        values = (rng.random((40, 4, 3)) < 0.3).astype(float)
        values[rng.random(values.shape) < 0.1] = np.nan
        da = xr.DataArray(values, dims=("item", "annotator", "label"))
    data = _prepare(da, None, None, "item", "annotator", "label")
    counted = {name: xr.Variable(*value)
               for name, value in cohen_module._cohen_values(data, 0.95)[0].items()}
    data = _one_hot(data)
    columns = cohen_module._cohen_columns(data)
    sums = {}
    for name, column in columns.items():
        if isinstance(column, tuple):
            column = column[0] * column[1]
        sums[name] = column.astype(float).sum("item")
    point = cohen_module._cohen_point(data, sums)
    for name, value in counted.items():
        got = point[name].transpose(*value.dims)
        if kind == "multi" and name in ("pair_coefficient_se", "pair_coefficient_lower",
                                         "pair_coefficient_upper"):
            assert np.isnan(got.values).all()
        elif value.dtype.kind == "U":
            assert got.values.tolist() == value.values.tolist()
        else:
            np.testing.assert_allclose(got.values, value.values, rtol=1e-12, atol=1e-12,
                                       err_msg=name)

