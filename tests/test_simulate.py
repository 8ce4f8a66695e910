"""The controlled generators, analytic expectations and Table 4 of the MLA paper (section 4).

Oracles: the generators' definitions checked on their draws (counts, rates with binomial
tolerances), exact expectations by enumerating latent values and flips, the known
finite-sample bias of the pooled-marginal coefficient under independence, and the numbers
printed in the paper's Table 4 (seed 001).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.simulate import (
    analytic_flip,
    analytic_independent,
    paper_table4,
    prevalence_sensitivity,
    simulate,
    table4,
)


def binomial_tolerance(p, count, sigmas=5):
    return sigmas * math.sqrt(max(p * (1 - p), 1e-12) / count)


def enumerated_flip(p, eps):
    """Two annotators copy a latent Bernoulli(p) label and flip with probability eps:
    enumerate (latent, flip_1, flip_2) for P(agree) and P(say 1); eq. 5 with the
    baselines of section 3.2 at that rate."""
    agree = positive = 0.0
    for latent, f1, f2 in itertools.product((0, 1), repeat=3):
        prob = (p if latent else 1 - p) * (eps if f1 else 1 - eps) * (eps if f2 else 1 - eps)
        a, b = latent ^ f1, latent ^ f2
        agree += prob * (a == b)
        positive += prob * (a + b) / 2
    baselines = {
        "F": positive**2 + (1 - positive) ** 2,
        "AC1": 2 * positive * (1 - positive),
        "PB": 0.5,
    }
    return agree, positive, {m: (agree - e) / (1 - e) for m, e in baselines.items()}


# --- generators -------------------------------------------------------------------------


def test_perfect_copies_one_latent_vector():
    da = simulate("perfect", 400, 4, 6, 0.3, seed=0)
    assert da.dims == ("item", "annotator", "label") and da.dtype == np.uint8
    assert (da == da.isel(annotator=0)).all()
    rate = float(da.isel(annotator=0).mean())
    assert abs(rate - 0.3) < binomial_tolerance(0.3, 400 * 6)


def test_flip_rates():
    eps, p, N, n, k = 0.1, 0.8, 3000, 3, 10
    da = simulate("flip", N, n, k, p, error=eps, seed=1)
    agree, positive, _ = enumerated_flip(p, eps)
    rate = float(da.mean())
    assert abs(rate - positive) < binomial_tolerance(positive, N * n * k)
    same = float((da.isel(annotator=0) == da.isel(annotator=1)).mean())
    assert abs(same - agree) < binomial_tolerance(agree, N * k)


def test_flip_without_error_is_perfect():
    a = simulate("flip", 50, 3, 4, 0.4, error=0.0, seed=7)
    assert (a == a.isel(annotator=0)).all()


def test_independent_decisions():
    N, n, k, p = 2000, 3, 8, 0.2
    da = simulate("independent", N, n, k, p, seed=2).astype(float)
    assert abs(float(da.mean()) - p) < binomial_tolerance(p, N * n * k)
    both = float((da.isel(annotator=0) * da.isel(annotator=1)).mean())
    assert abs(both - p * p) < binomial_tolerance(p * p, N * k)


@pytest.mark.parametrize("n", [2, 3, 5, 10])
@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.8, 0.97])
def test_minimum_positive_count(n, p):
    da = simulate("minimum", 30, n, 4, p, seed=3)
    target = max(1, min(n - 1, math.floor(p * n + 0.5)))
    assert (da.sum("annotator") == target).all()


def test_minimum_picks_annotators_at_random():
    N, n = 3000, 5
    da = simulate("minimum", N, n, 2, 0.4, seed=4)
    per_annotator = da.mean(["item", "label"]).values
    assert np.all(np.abs(per_annotator - 2 / 5) < binomial_tolerance(0.4, 2 * N))


def test_prevalence_per_label():
    p = [0.1, 0.5, 0.9]
    da = simulate("independent", 4000, 2, 3, p, seed=5)
    rates = da.mean(["item", "annotator"]).values
    for rate, target in zip(rates, p):
        assert abs(rate - target) < binomial_tolerance(target, 8000)


def test_n_replicates_and_seed():
    a = simulate("flip", 20, 3, 5, 0.5, seed=11, n_replicates=7)
    assert a.dims == ("replicate", "item", "annotator", "label")
    assert a.sizes["replicate"] == 7
    b = simulate("flip", 20, 3, 5, 0.5, seed=11, n_replicates=7)
    xr.testing.assert_identical(a, b)
    assert not (a.isel(replicate=0) == a.isel(replicate=1)).all()
    result = a.agreement.mla()
    assert result.agreement.dims == ("replicate",)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"generator": "noisy"}, "unknown generator 'noisy'"),
        ({"n_annotators": 1}, "at least 2"),
        ({"n_items": 0}, "n_items must be a positive integer"),
        ({"prevalence": 1.5}, r"prevalence must lie in \[0, 1\]; got 1.5 for label=0"),
        ({"prevalence": [0.1, 0.2]}, "one value per label"),
        ({"error": -0.1}, "error must lie"),
        ({"n_replicates": 0}, "n_replicates must be a positive integer"),
    ],
)
def test_bad_arguments(kwargs, message):
    args = {"generator": "flip", "n_items": 5, "n_annotators": 3, "n_labels": 4, "prevalence": 0.5}
    args.update(kwargs)
    generator = args.pop("generator")
    with pytest.raises(ValueError, match=message):
        simulate(
            generator,
            args.pop("n_items"),
            args.pop("n_annotators"),
            args.pop("n_labels"),
            args.pop("prevalence"),
            **args,
        )


# --- analytic values --------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.8, 0.99])
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3])
def test_analytic_flip_matches_enumeration(p, eps):
    agree, positive, coefficients = enumerated_flip(p, eps)
    result = analytic_flip(p, error=eps)
    assert float(result.observed) == pytest.approx(agree, abs=1e-12)
    assert float(result.positive_rate) == pytest.approx(positive, abs=1e-12)
    for m, value in coefficients.items():
        assert float(result.agreement.sel(baseline=m)) == pytest.approx(value, abs=1e-12)


def test_analytic_values_printed_in_the_paper():
    # section 4: PABAK is constant, 2 ((1 - eps)^2 + eps^2) - 1 = 0.64 at eps = 0.1
    curves = prevalence_sensitivity(np.linspace(0.01, 0.99, 9))
    assert np.allclose(curves.agreement.sel(generator="flip", baseline="PB"), 0.64)
    # F is calibrated to the independent generator: exactly zero there
    assert np.allclose(curves.agreement.sel(generator="independent", baseline="F"), 0.0)
    # "pooled-marginal agreement is smaller at extreme prevalence, AC1 is larger"
    flip = curves.agreement.sel(generator="flip")
    assert flip.sel(baseline="F", prevalence=0.5) > flip.sel(baseline="F", prevalence=0.99)
    assert flip.sel(baseline="AC1", prevalence=0.5) < flip.sel(baseline="AC1", prevalence=0.99)


def test_analytic_independent_matches_enumeration():
    for p in (0.1, 0.5, 0.9):
        agree = p * p + (1 - p) * (1 - p)  # two independent draws agree
        ac1 = (agree - 2 * p * (1 - p)) / (1 - 2 * p * (1 - p))
        result = analytic_independent(p)
        assert float(result.agreement.sel(baseline="AC1")) == pytest.approx(ac1, abs=1e-12)
        assert float(result.agreement.sel(baseline="PB")) == pytest.approx(2 * agree - 1)


def test_analytic_flip_label_dim_averages_as_eq5():
    p = xr.DataArray([0.2, 0.8, 0.5], dims="label")
    result = analytic_flip(p)
    agree, _, _ = enumerated_flip(0.2, 0.1)
    rates = [enumerated_flip(x, 0.1)[1] for x in (0.2, 0.8, 0.5)]
    expected_f = np.mean([r * r + (1 - r) ** 2 for r in rates])
    f = (agree - expected_f) / (1 - expected_f)
    assert float(result.agreement.sel(baseline="F")) == pytest.approx(f, abs=1e-12)
    assert "label" in result.positive_rate.dims and "label" not in result.agreement.dims


# --- simulation against analytic values ---------------------------------------------------


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_independent_f_is_centred_at_zero(p):
    """E[A_o] = p^2 + (1-p)^2 exactly, while E[A_e] exceeds it by 2 Var(p_hat) =
    2 p (1-p) / (nN): F is centred at -1/(nN) to first order, Hamming alpha (which draws
    without replacement) at 0. Tolerance: 4 standard errors of the replicate mean."""
    N, n, k, R = 200, 5, 6, 200
    result = simulate("independent", N, n, k, p, seed=21, n_replicates=R).agreement.mla()
    f = result.agreement.values
    se = f.std(ddof=1) / math.sqrt(R)
    assert abs(f.mean() + 1 / (n * N)) < 4 * se
    alpha = result.alpha_hamming.values
    assert abs(alpha.mean()) < 4 * alpha.std(ddof=1) / math.sqrt(R)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_flip_means_converge_to_analytic(p):
    N, n, k, R = 4000, 3, 5, 20
    result = simulate("flip", N, n, k, p, seed=22, n_replicates=R).agreement.mla(baseline="all")
    _, _, coefficients = enumerated_flip(p, 0.1)
    for m, value in coefficients.items():
        values = result.agreement.sel(baseline=m).values
        se = values.std(ddof=1) / math.sqrt(R)
        # finite-sample bias of the plug-in baselines is O(1 / (nN)) ~ 1e-4 here
        assert abs(values.mean() - value) < 4 * se + 2 / (n * N), m
    # and the error shrinks with N: a small corpus is further off on average than a large one
    small = simulate("flip", 20, n, k, p, seed=23, n_replicates=400).agreement.mla()
    large = simulate("flip", 2000, n, k, p, seed=24, n_replicates=40).agreement.mla()
    target = coefficients["F"]
    assert abs(float(large.agreement.mean()) - target) < abs(float(small.agreement.mean()) - target)


def test_perfect_gives_one():
    corpora = simulate("perfect", 30, 4, 6, 0.2, seed=8, n_replicates=50)
    result = corpora.agreement.mla(baseline="all")
    assert (result.observed == 1.0).all()
    assert (result.agreement.sel(baseline="PB") == 1.0).all()
    # F and AC1: 1 up to rounding in mla's (A_o - A_e) / (1 - A_e)
    np.testing.assert_allclose(result.agreement, 1.0, rtol=0, atol=1e-12)


# --- Table 4 ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def grid():
    return table4(
        ["perfect", "flip"],
        measures=["F", "AC1", "PB", "augmented_kappa", "A_m", "MASI", "boot_f1"],
        n_chance_runs=None,
        seed=2026,
    )


def test_table4_layout(grid):
    assert grid["mean"].dims == ("generator", "prevalence", "measure")
    assert int(grid.n_values.min()) == 540  # 3 x 3 x 3 designs x 20 replicates, all defined
    assert grid.by_design.sizes == {
        "generator": 2,
        "prevalence": 3,
        "n_annotators": 3,
        "n_items": 3,
        "n_labels": 3,
        "measure": 7,
    }
    for name in grid.data_vars:
        assert {"long_name", "description", "symbol"} <= set(grid[name].attrs)


@pytest.mark.slow
@pytest.mark.parametrize("measure", ["F", "AC1", "PB", "augmented_kappa", "A_m"])
def test_table4_matches_paper_within_monte_carlo_error(grid, measure):
    """The paper's entries are means of 540 simulated values, so they carry the same Monte
    Carlo error as ours: the difference has standard error sqrt(2) SE; allow 3.5 of those
    plus 0.0005 for the paper's rounding to three decimals."""
    paper = paper_table4()["mean"].sel(measure=measure)
    ours = grid["mean"].sel(measure=measure, generator=paper.generator)
    se = grid["mean_se"].sel(measure=measure, generator=paper.generator)
    tolerance = 3.5 * math.sqrt(2) * se + 0.0005
    assert (abs(ours - paper) <= tolerance).all(), (ours.values, paper.values, tolerance.values)


@pytest.mark.slow
def test_table4_perfect_rows_are_one_where_the_paper_says_so(grid):
    perfect = grid["mean"].sel(generator="perfect")
    printed = paper_table4()["mean"].sel(generator="perfect")
    for level in ("high", "moderate", "low"):
        for measure in grid.measure.values:
            if float(printed.sel(prevalence=level, measure=measure)) == 1.0:
                got = float(perfect.sel(prevalence=level, measure=measure))
                assert abs(got - 1.0) <= 1e-12, (level, measure, got)
    # exactly 1.0 for the measures computed without a subtraction of nearly equal terms
    for measure in ("PB", "A_m", "MASI", "boot_f1"):
        assert (grid.by_design.sel(generator="perfect", measure=measure) == 1.0).all()


def test_table4_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown measure"):
        table4(measures=["kappa"])
    with pytest.raises(ValueError, match="unknown generator"):
        table4(["noisy"])
    with pytest.raises(ValueError, match="n_replicates must be a positive integer"):
        table4(n_replicates=0)


def test_public_names():
    for name in ("simulate", "table4", "analytic_flip", "prevalence_sensitivity"):
        assert hasattr(xr_agreement, name)
