"""The classic coefficients against established packages, to 1e-9 on random data:
irrCAC (Gwet's generalized formulas, standard errors and intervals, with missing data),
statsmodels (fleiss_kappa, cohens_kappa with ASE, linear/quadratic weights) and
scikit-learn (cohen_kappa_score)."""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

import xr_agreement

IRR_METHODS = {"fleiss": "fleiss", "conger": "conger", "gwet": "gwet", "brennan_prediger": "bp"}
TOL = 1e-9


def irr(values, method, **kwargs):
    """irrCAC's estimate dict at full precision (it rounds to 5 digits by default)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(CAC(pd.DataFrame(values), digits=17, **kwargs), method)()["est"]


def random_ratings(rng, missing=0.25, n_items=(6, 40), n_annotators=(2, 6), n_cats=(2, 5)):
    N = int(rng.integers(*n_items))
    n = int(rng.integers(*n_annotators))
    q = int(rng.integers(*n_cats))
    values = rng.integers(1, q + 1, size=(N, n)).astype(float)
    values[rng.random((N, n)) < missing] = np.nan
    # irrCAC divides by zero for an annotator without ratings: keep one per annotator
    for g in range(n):
        if np.isnan(values[:, g]).all():
            values[0, g] = 1.0
    return values


def assert_matches_irr(result, reference, confidence_checked=True):
    assert float(result.coefficient) == pytest.approx(reference["coefficient_value"], abs=TOL)
    assert float(result.observed) == pytest.approx(reference["pa"], abs=TOL)
    assert float(result.expected) == pytest.approx(reference["pe"], abs=TOL)
    assert float(result.coefficient_se) == pytest.approx(reference["se"], abs=TOL)
    if confidence_checked:
        lower, upper = reference["confidence_interval"]
        assert float(result.coefficient_lower) == pytest.approx(lower, abs=TOL)
        assert float(result.coefficient_upper) == pytest.approx(upper, abs=TOL)


@pytest.mark.parametrize("weights", ["identity", "linear", "quadratic"])
def test_gwet_family_equals_irrcac_with_missing_data(weights):
    rng = np.random.default_rng({"identity": 1, "linear": 2, "quadratic": 3}[weights])
    for trial in range(6):
        values = random_ratings(rng, missing=0.3 if trial % 2 else 0.0)
        cats = sorted(set(values[~np.isnan(values)].tolist()))
        da = xr.DataArray(values, dims=("item", "annotator"))
        for name, method in IRR_METHODS.items():
            result = getattr(xr_agreement, name)(da, weights=weights)
            assert_matches_irr(result, irr(values, method, weights=weights, categories=cats))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    confidence=st.floats(0.9, 0.99),
    population=st.sampled_from([None, 60, 500]),
)
def test_gwet_family_equals_irrcac_property(seed, confidence, population):
    rng = np.random.default_rng(seed)
    values = random_ratings(rng, missing=float(rng.random() * 0.4))
    cats = sorted(set(values[~np.isnan(values)].tolist()))
    if len(cats) < 2 or (population is not None and population < values.shape[0]):
        return
    da = xr.DataArray(values, dims=("item", "annotator"))
    extra = {} if population is None else {"N": population}
    for name, method in IRR_METHODS.items():
        result = getattr(xr_agreement, name)(da, ci=confidence, population_size=population)
        reference = irr(values, method, categories=cats, confidence_level=confidence, **extra)
        if not np.isfinite(float(result.coefficient_se)) or float(result.coefficient_se) == 0:
            continue  # irrCAC replaces a zero standard error by 1e-15
        assert_matches_irr(result, reference)


def test_custom_weights_and_declared_categories_equal_irrcac():
    rng = np.random.default_rng(17)
    values = random_ratings(rng, n_cats=(3, 4))
    cats = [1.0, 2.0, 3.0, 4.0]  # declared, possibly unused
    matrix = np.array([[1, 0.8, 0.3, 0], [0.8, 1, 0.6, 0.2], [0.3, 0.6, 1, 0.7], [0, 0.2, 0.7, 1]])
    da = xr.DataArray(values, dims=("item", "annotator"))
    for name, method in IRR_METHODS.items():
        result = getattr(xr_agreement, name)(da, weights=matrix, categories=cats)
        assert_matches_irr(result, irr(values, method, weights=matrix, categories=cats))


def test_string_ratings_with_linear_weights_equal_irrcac():
    rng = np.random.default_rng(23)
    codes = random_ratings(rng, n_cats=(3, 4))
    names = np.array(["a", "b", "c"], dtype=object)
    values = np.where(np.isnan(codes), None, names[np.nan_to_num(codes).astype(int) - 1])
    cats = sorted({v for v in values.ravel() if v is not None})
    da = xr.DataArray(values, dims=("item", "annotator"))
    frame = pd.DataFrame(values).fillna(np.nan)
    for name, method in IRR_METHODS.items():
        for weights in ("identity", "linear"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reference = getattr(
                    CAC(frame, weights=weights, categories=cats, digits=17), method
                )()["est"]
            assert_matches_irr(getattr(xr_agreement, name)(da, weights=weights), reference)


def test_irrcac_published_example():
    """irrCAC's documented example (raw_4raters, with missing ratings), printed to 5 digits."""
    from irrCAC.datasets import raw_4raters

    da = xr.DataArray(raw_4raters().to_numpy(), dims=("item", "annotator"))
    ac1 = xr_agreement.gwet(da)
    assert round(float(ac1.coefficient), 5) == 0.77544
    assert round(float(ac1.coefficient_se), 5) == 0.14295
    assert round(float(ac1.coefficient_lower), 5) == 0.46081
    fleiss = xr_agreement.fleiss(da)
    assert round(float(fleiss.coefficient), 5) == 0.76117
    assert round(float(fleiss.coefficient_se), 5) == 0.15302


def test_multi_label_labels_equal_irrcac_per_label():
    rng = np.random.default_rng(31)
    values = (rng.random((30, 4, 3)) < np.array([0.2, 0.5, 0.8])).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    da = xr.DataArray(
        values, dims=("item", "annotator", "label"), coords={"label": ["x", "y", "z"]}
    )
    for name, method in IRR_METHODS.items():
        result = getattr(xr_agreement, name)(da)
        for j, lab in enumerate(["x", "y", "z"]):
            reference = irr(values[:, :, j], method, categories=[0.0, 1.0])
            assert float(result.label_coefficient.sel(label=lab)) == pytest.approx(
                reference["coefficient_value"], abs=TOL
            )
            assert float(result.label_coefficient_se.sel(label=lab)) == pytest.approx(
                reference["se"], abs=TOL
            )


def test_percent_se_is_brennan_prediger_se_rescaled():
    """Percent agreement is Brennan-Prediger with P_e = 0, so se_pa = se_BP * (1 - P_e,BP)."""
    rng = np.random.default_rng(37)
    values = random_ratings(rng, missing=0.2)
    cats = sorted(set(values[~np.isnan(values)].tolist()))
    reference = irr(values, "bp", categories=cats)
    result = xr_agreement.percent(xr.DataArray(values, dims=("item", "annotator")))
    assert float(result.coefficient) == pytest.approx(reference["pa"], abs=TOL)
    assert float(result.coefficient_se) == pytest.approx(reference["se"] * (1 - reference["pe"]),
                                                         abs=TOL)


def test_category_vs_rest_equals_irrcac_on_binary_recode():
    rng = np.random.default_rng(41)
    values = random_ratings(rng, missing=0.2, n_cats=(3, 5))
    cats = sorted(set(values[~np.isnan(values)].tolist()))
    da = xr.DataArray(values, dims=("item", "annotator"))
    for name, method in IRR_METHODS.items():
        result = getattr(xr_agreement, name)(da)
        for cat in cats:
            binary = np.where(np.isnan(values), np.nan, (values == cat).astype(float))
            reference = irr(binary, method, categories=[0.0, 1.0])
            assert float(result.category_coefficient.sel(category=cat)) == pytest.approx(
                reference["coefficient_value"], abs=TOL
            )
            assert float(result.category_coefficient_se.sel(category=cat)) == pytest.approx(
                reference["se"], abs=TOL
            )


# --------------------------------------------------------------------------- statsmodels


def test_fleiss_equals_statsmodels_on_complete_data():
    rng = np.random.default_rng(43)
    for _ in range(10):
        values = random_ratings(rng, missing=0.0)
        table, _ = aggregate_raters(values)
        result = xr_agreement.fleiss(xr.DataArray(values, dims=("item", "annotator")))
        assert float(result.coefficient) == pytest.approx(fleiss_kappa(table), abs=TOL)
        bp = xr_agreement.brennan_prediger(xr.DataArray(values, dims=("item", "annotator")))
        assert float(bp.coefficient) == pytest.approx(
            fleiss_kappa(table, method="randolph"), abs=TOL
        )


def test_nan_is_not_a_category_unlike_statsmodels():
    rng = np.random.default_rng(47)
    values = random_ratings(rng, missing=0.0, n_items=(20, 21), n_annotators=(3, 4))
    values[rng.random(values.shape) < 0.2] = np.nan
    cats = sorted(set(values[~np.isnan(values)].tolist()))
    result = xr_agreement.fleiss(xr.DataArray(values, dims=("item", "annotator")))
    assert not np.isnan(result.category.values.astype(float)).any()
    assert list(result.category.values) == cats
    assert_matches_irr(result, irr(values, "fleiss", categories=cats))
    # statsmodels counts NaN as one more category (every NaN is its own unique value there)
    table, categories = aggregate_raters(values)
    assert np.isnan(categories).any()
    assert float(result.coefficient) != pytest.approx(fleiss_kappa(table), abs=1e-3)


def pair_table(a, b, q):
    both = ~np.isnan(a) & ~np.isnan(b)
    table = np.zeros((q, q))
    for x, y in zip(a[both].astype(int), b[both].astype(int)):
        table[x, y] += 1
    return table, both


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_equals_statsmodels_and_sklearn_pairwise_complete(weights):
    rng = np.random.default_rng({None: 51, "linear": 52, "quadratic": 53}[weights])
    for _ in range(6):
        N, n, q = int(rng.integers(15, 40)), int(rng.integers(2, 5)), int(rng.integers(2, 5))
        values = rng.integers(0, q, size=(N, n)).astype(float)
        values[rng.random(values.shape) < 0.2] = np.nan
        result = xr_agreement.cohen(
            xr.DataArray(values, dims=("item", "annotator")),
            weights=weights,
            categories=[float(c) for c in range(q)],
            ci=0.9,
        )
        for a in range(n):
            for b in range(n):
                if a == b:
                    continue
                table, both = pair_table(values[:, a], values[:, b], q)
                if weights is None:
                    reference = cohens_kappa(table)
                else:
                    reference = cohens_kappa(table, weights=np.arange(q), wt=weights)
                got = result.isel(annotator_1=a, annotator_2=b)
                assert float(got.pair_coefficient) == pytest.approx(reference.kappa, abs=TOL)
                assert float(got.pair_coefficient_se) ** 2 == pytest.approx(reference.var_kappa,
                                                                            abs=1e-12)
                assert float(got.pair_n_pairable_items) == both.sum()
                sklearn = cohen_kappa_score(
                    values[both, a],
                    values[both, b],
                    weights=weights,
                    labels=np.arange(q).astype(float),
                )
                assert float(got.pair_coefficient) == pytest.approx(sklearn, abs=TOL)
                # normal limits of the ASE (statsmodels uses 95 %); ours at 90 % here
                z = 1.6448536269514722
                assert float(got.pair_coefficient_lower) == pytest.approx(
                    reference.kappa - z * reference.std_kappa, abs=1e-7
                )


def test_cohen_confidence_limits_equal_statsmodels():
    rng = np.random.default_rng(59)
    values = rng.integers(0, 3, size=(40, 2)).astype(float)
    result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator")))
    table, _ = pair_table(values[:, 0], values[:, 1], 3)
    reference = cohens_kappa(table)
    assert float(result.pair_coefficient_lower[0, 1]) == pytest.approx(reference.kappa_low,
                                                                       abs=TOL)
    assert float(result.pair_coefficient_upper[0, 1]) == pytest.approx(
        min(1, reference.kappa_upp), abs=TOL)


def test_cohen_category_se_equals_statsmodels_on_2x2():
    rng = np.random.default_rng(61)
    values = rng.integers(0, 3, size=(35, 2)).astype(float)
    values[rng.random(values.shape) < 0.1] = np.nan
    result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator")))
    for cat in range(3):
        recoded = np.where(np.isnan(values), np.nan, (values != cat).astype(float))
        table, _ = pair_table(recoded[:, 0], recoded[:, 1], 2)
        reference = cohens_kappa(table)
        got = result.isel(annotator_1=0, annotator_2=1).sel(category=float(cat))
        assert float(got.pair_category_coefficient) == pytest.approx(reference.kappa, abs=TOL)
        assert float(got.pair_category_coefficient_se) ** 2 == pytest.approx(reference.var_kappa,
                                                                             abs=1e-12)


def test_pabak_and_bias_adjusted_kappa_equal_irrcac_on_the_pair():
    rng = np.random.default_rng(67)
    values = random_ratings(rng, missing=0.2, n_annotators=(3, 4))
    result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator")))
    cats = sorted(set(values[~np.isnan(values)].tolist()))
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        both = ~np.isnan(values[:, a]) & ~np.isnan(values[:, b])
        pair = values[both][:, [a, b]]
        got = result.isel(annotator_1=a, annotator_2=b)
        assert float(got.pair_pabak) == pytest.approx(
            irr(pair, "bp", categories=cats)["coefficient_value"], abs=TOL
        )
        assert float(got.pair_bias_adjusted_kappa) == pytest.approx(
            irr(pair, "fleiss", categories=cats)["coefficient_value"], abs=TOL
        )
        assert float(got.pair_coefficient) == pytest.approx(
            irr(pair, "conger", categories=cats)["coefficient_value"], abs=TOL
        )
