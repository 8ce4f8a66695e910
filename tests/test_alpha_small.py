"""Alpha's small-call path (``api._small_alpha``: nominal alpha of a small numpy array of
integral numbers in one compiled call) against the general path, where it runs and at the
boundaries where it stops; and the finishing kernels both paths share."""

from __future__ import annotations

import re

import numpy as np
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.alpha import api, blocks, finish_kernels
from xr_agreement.alpha.counts import COINCIDENCE_LIMIT
from xr_agreement._core.threads import item_runs


def ratings(seed, n_items=40, n_annotators=5, n_values=3, missing=0.1, step=1.0, low=0.0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_values, n_items)
    x = np.where(rng.random((n_items, n_annotators)) < 0.6, truth[:, None],
                 rng.integers(0, n_values, (n_items, n_annotators))).astype(float)
    x = low + step * x
    x[rng.random(x.shape) < missing] = np.nan
    return x


def as_ratings(x, dims=("item", "annotator")):
    coords = {d: [f"{d}-{i}" for i in range(size)] for d, size in zip(dims, x.shape)}
    return xr.DataArray(x, dims=dims, coords=coords)


def general(da, **keywords):
    """alpha through the general path (the small one refused by its size limit)."""
    saved = api.SMALL_RATINGS
    api.SMALL_RATINGS = -1
    try:
        return xr_agreement.alpha(da, **keywords)
    finally:
        api.SMALL_RATINGS = saved


def assert_same(small, reference):
    xr.testing.assert_identical(small, reference)
    assert list(small.variables) == list(reference.variables)
    assert list(small.sizes) == list(reference.sizes)
    for name, variable in small.variables.items():
        assert variable.dtype == reference.variables[name].dtype, name
        assert variable.attrs == reference.variables[name].attrs, name
    assert small.attrs == reference.attrs


def takes_small_path(da, ci=0.95, population_size=None) -> bool:
    return api._small_alpha(da, "item", "annotator", ci, population_size) is not None


def rounds(x3):
    return xr.DataArray(x3, dims=("round", "item", "annotator"),
                        coords={"round": ["a", "b", "c"][:len(x3)]})


CASES = {
    "float, 5% missing": lambda: as_ratings(ratings(0, missing=0.05)),
    "every item pairable": lambda: as_ratings(ratings(1, missing=0.0)),
    "items with one or no rating": lambda: as_ratings(ratings(2, n_annotators=3, missing=0.5)),
    "a value nobody used in between": lambda: as_ratings(ratings(3, step=2.0)),
    "negative, offset": lambda: as_ratings(ratings(4, low=-1e6)),
    "integers": lambda: as_ratings(np.nan_to_num(ratings(5), nan=1).astype(np.int32)),
    "booleans": lambda: as_ratings(np.nan_to_num(ratings(6, n_values=2), nan=0) > 0),
    "float32": lambda: as_ratings(ratings(7).astype(np.float32)),
    "one value": lambda: as_ratings(np.ones((6, 3))),
    "one item": lambda: as_ratings(np.array([[1.0, 2.0, np.nan]])),
    "many annotators": lambda: as_ratings(ratings(8, n_items=30, n_annotators=19,
                                                  n_values=9)),
    "transposed": lambda: as_ratings(ratings(9)).T,
    "a scalar coordinate": lambda: as_ratings(ratings(11)).assign_coords(round="r1"),
    "extra dim": lambda: rounds(np.stack([ratings(10 + r, missing=0.2 * r)
                                          for r in range(3)])),
    "extra dim last": lambda: rounds(np.stack([ratings(20 + r) for r in range(2)])
                                     ).transpose("item", "annotator", "round"),
    "a round without ratings": lambda: rounds(np.stack([ratings(23), np.full((40, 5), np.nan),
                                                        ratings(24, missing=0.0)])),
}


@pytest.mark.parametrize("keywords", [{}, {"ci": None}, {"ci": 0.9},
                                      {"population_size": 400}],
                         ids=["default", "no ci", "ci 0.9", "population"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_small_path_gives_the_general_result(case, keywords):
    da = CASES[case]()
    assert takes_small_path(da, keywords.get("ci", 0.95), keywords.get("population_size"))
    assert_same(xr_agreement.alpha(da, **keywords), general(da, **keywords))


@pytest.mark.parametrize("x", [
    np.full((4, 3), np.nan),  # nothing rated
    np.array([[0.5, 1.0], [1.0, 1.0]]),  # not integral
    np.array([[np.inf, 1.0], [1.0, 1.0]]),  # not finite: an error, from the general path
    np.array([[0.0, 1.0], [COINCIDENCE_LIMIT, 1.0]]),  # a span of more than 256 values
    np.array([[2.0**53, 1.0], [1.0, 1.0]]),  # beyond exact float integers
], ids=["all missing", "not integral", "infinite", "wide span", "huge"])
def test_where_the_small_path_hands_over(x):
    da = as_ratings(x)
    assert not takes_small_path(da)
    try:
        reference = general(da)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error))):
            xr_agreement.alpha(da)
        return
    assert_same(xr_agreement.alpha(da), reference)


def test_the_boundaries_of_the_small_path():
    """Up to SMALL_RATINGS ratings (all groups together) and a span of COINCIDENCE_LIMIT
    values; strings, declared categories, other metrics and dask take the general path."""
    n = 4
    at_limit = as_ratings(ratings(30, n_items=api.SMALL_RATINGS // n, n_annotators=n))
    over = as_ratings(ratings(30, n_items=api.SMALL_RATINGS // n + 1, n_annotators=n))
    assert takes_small_path(at_limit) and not takes_small_path(over)
    for da in (at_limit, over):
        assert_same(xr_agreement.alpha(da), general(da))
    widest = np.array([[0.0, 0.0], [COINCIDENCE_LIMIT - 1.0, 1.0]])
    assert takes_small_path(as_ratings(widest))
    assert_same(xr_agreement.alpha(as_ratings(widest)), general(as_ratings(widest)))
    names = np.array(["a", "b", "c"], dtype=object)[np.nan_to_num(ratings(31)).astype(int)]
    assert not takes_small_path(as_ratings(names))
    assert not takes_small_path(as_ratings(ratings(32)).chunk({"item": 10}))


def test_below_the_limit_the_general_path_counts_as_the_small_one():
    """The small path runs the counting pass in one run of items and Gwet's squares in a
    second pass: so does the general path on every input the small path takes (its
    moments need more ratings, its item runs more items)."""
    plan = blocks._Plan("nominal", "nominal", False, ci=0.95, parallel=True)
    for n in range(2, 40):
        N = api.SMALL_RATINGS // n
        assert item_runs(N, 1) == 1
        assert not blocks._with_moments(plan, 1, N, n)


def test_interpreted_and_compiled_small_calls_agree(set_mode):
    results = {}
    for mode in ("never", "always"):
        set_mode(mode)
        results[mode] = [xr_agreement.alpha(CASES[case]()) for case in CASES]
    for interpreted, compiled in zip(results["never"], results["always"]):
        assert_same(interpreted, compiled)


@pytest.mark.parametrize("mode", ["never", "always"])
def test_pairwise_sum_is_numpys_sum(set_mode, mode):
    set_mode(mode)
    rng = np.random.default_rng(3)
    for n in [*range(0, 300), 1000, 1023, 1025, 4099]:
        a = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)
        assert finish_kernels.pairwise_sum(a) == a.sum()


@pytest.mark.parametrize("metric", ["nominal", "ordinal"])  # small path, general path
def test_results_share_no_attrs(metric):
    """Attrs are made once and copied into each result: editing one result's leaves the
    next one's as they were."""
    da = CASES["float, 5% missing"]()
    first = xr_agreement.alpha(da, metric)
    first.attrs["metric"] = "edited"
    first.attrs["ci_level"] = 0.5
    first.alpha.attrs["long_name"] = "edited"
    first.category.attrs["edited"] = True
    second = xr_agreement.alpha(da, metric)
    assert second.attrs["metric"] == metric and second.attrs["ci_level"] == 0.95
    assert second.alpha.attrs["long_name"] == "Krippendorff's alpha"
    assert "edited" not in second.category.attrs


def test_small_results_are_independent_of_each_other():
    """Results of one structure are built from one kept layout (``api._small_layout``):
    editing a result's attrs, its variables' or its coordinates' must not reach the next,
    and results of other categories get their own."""
    da = CASES["float, 5% missing"]()
    first = xr_agreement.alpha(da)
    first.attrs["edited"] = True
    first.alpha.attrs["edited"] = True
    first.coincidence.attrs["edited"] = True
    first.category.attrs["edited"] = True
    assert_same(xr_agreement.alpha(da), general(da))
    shifted = da + 2  # other category values, same shapes
    assert takes_small_path(shifted)
    assert_same(xr_agreement.alpha(shifted), general(shifted))
    assert_same(xr_agreement.alpha(da, ci=None), general(da, ci=None))
