"""Results take arithmetic and reductions: reasons are coordinates (issue 31).

A result's data variables are numbers only, so ``result * 1.0``, ``result.mean()`` and
``result.sum("label")`` work as on any numeric Dataset; the text saying why a value is NaN
(``undefined_reason``, ``label_undefined_reason``, ...) is a coordinate on the dims of the
value it describes, so that value carries it along (``result.label_agreement``). Checked on
the output of every public function (``tests/test_vocabulary.py``'s cases).
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from test_vocabulary import CASES, Computed


@pytest.fixture(scope="module")
def results():
    return Computed(CASES)


def _numeric(ds: xr.Dataset) -> list[str]:
    return [name for name, variable in ds.data_vars.items() if variable.dtype.kind in "biufc"]


def _reasons(ds: xr.Dataset) -> list[str]:
    return [name for name in ds.variables if name.endswith("_reason")]


@pytest.mark.parametrize("case", sorted(CASES))
def test_data_variables_are_numbers(results, case):
    ds = results[case]
    text = sorted(set(ds.data_vars) - set(_numeric(ds)))
    assert not text, f"{case}: data variables that are not numbers: {text}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_arithmetic_and_reductions(results, case):
    ds = results[case]
    # the numeric variables with every coordinate (also those of a dim that only
    # coordinates use, as gamma's spans of its alignment)
    numeric = ds.drop_vars(sorted(set(ds.data_vars) - set(_numeric(ds))))
    xr.testing.assert_identical(ds * 1.0, numeric * 1.0)
    xr.testing.assert_identical(ds.mean(), numeric.mean())
    for dim in ("label", "annotator_1", "baseline"):
        if dim in ds.dims:
            xr.testing.assert_identical(ds.sum(dim), numeric.sum(dim))


@pytest.mark.parametrize("case", sorted(CASES))
def test_reasons_are_coordinates_of_their_values(results, case):
    ds = results[case]
    for name in _reasons(ds):
        reason = ds.coords[name]  # a coordinate, not a data variable
        assert reason.dtype.kind in "OU", f"{case}: {name!r} should be text"
        assert name not in ds.xindexes, f"{case}: {name!r} should have no index"
        prefix = name[: -len("undefined_reason")]
        described = [value for value, variable in ds.data_vars.items()
                     if value.startswith(prefix) and variable.dims == reason.dims]
        assert described, f"{case}: no value over {reason.dims} for {name!r} to describe"
        for value in described:
            assert name in ds[value].coords, f"{case}: {value!r} does not carry {name!r}"


@pytest.mark.parametrize("case", ["mla", "span alpha", "alpha hamming", "span f1 exact"])
def test_label_value_carries_its_reason(results, case):
    ds = results[case]
    value = ds["label_agreement" if "label_agreement" in ds else "label_alpha"
               if "label_alpha" in ds else "label_f1"]
    assert "label_undefined_reason" in value.coords, case
    assert "undefined_reason" in value.coords, case  # the scalar one, as every scalar coord
    np.testing.assert_array_equal(value["label_undefined_reason"].values,
                                  ds["label_undefined_reason"].values)


def test_undefined_values_keep_their_reasons():
    """A label nobody marked: the reason reads as before, through the value and the result."""
    da = xr.DataArray(np.zeros((4, 3, 2)), dims=("item", "annotator", "label"),
                      coords={"label": ["a", "b"]})
    da[:, :, 0] = [[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 1, 0]]
    ds = da.agreement.mla()
    assert np.isnan(ds.label_agreement.sel(label="b"))
    assert ds.label_agreement.sel(label="b").label_undefined_reason.item() != ""
    assert ds.label_undefined_reason.sel(label="a").item() == ""
    assert (ds * 2).label_undefined_reason.sel(label="b").item() \
        == ds.label_undefined_reason.sel(label="b").item()


@pytest.mark.parametrize("family", ["alpha", "mla", "fleiss", "cohen"])
def test_lazy_results_keep_reasons_lazy(family):
    dask_array = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    da = xr.DataArray((rng.random((40, 4, 3)) < 0.4).astype(float),
                      dims=("item", "annotator", "label"))
    options = {"metric": "hamming"} if family == "alpha" else {}
    ds = getattr(da.chunk({"item": 20}).agreement, family)(**options)
    eager = getattr(da.agreement, family)(**options)
    assert _reasons(ds) and set(_reasons(ds)) == set(_reasons(eager))
    for name in _reasons(ds):
        assert name in ds.coords and name not in ds.data_vars, (family, name)
        assert isinstance(ds[name].data, dask_array.Array), (family, name)
        np.testing.assert_array_equal(ds[name].values, eager[name].values)
    xr.testing.assert_allclose((ds * 1.0).compute(), eager * 1.0)


def test_is_reason():
    from xr_agreement._core.dataset import is_reason

    assert is_reason("undefined_reason") and is_reason("label_pair_undefined_reason")
    assert not is_reason("label_agreement") and not is_reason("reasoned")


def test_reasons_as_coordinates():
    from xr_agreement._core.dataset import reasons_as_coordinates

    ds = xr.Dataset({"value": ("label", [1.0, np.nan]),
                     "label_undefined_reason": ("label", ["", "no pairs"]),
                     "undefined_reason": ((), "")})
    out = reasons_as_coordinates(ds)
    assert list(out.data_vars) == ["value"]
    assert set(out.coords) == {"label_undefined_reason", "undefined_reason"}
    assert reasons_as_coordinates(out) is out  # nothing to move: the same object


def test_small_alpha_reasons_are_each_calls_own():
    """alpha's small path builds its results from a kept layout (_core.dataset.Layout): the
    reason is a coordinate there too, with the text of each call, not of the first."""
    varied = xr.DataArray(np.array([[1.0, 2.0], [2.0, 2.0], [1.0, 1.0], [3.0, 1.0]]),
                          dims=("item", "annotator"))
    equal = xr.DataArray(np.full((4, 2), 2.0), dims=("item", "annotator"))
    first = varied.agreement.alpha(metric="nominal", label=None)
    second = equal.agreement.alpha(metric="nominal", label=None)
    again = varied.agreement.alpha(metric="nominal", label=None)
    assert "undefined_reason" in first.coords and "undefined_reason" not in first.data_vars
    assert first.undefined_reason.item() == again.undefined_reason.item() == ""
    assert np.isnan(second.alpha) and second.undefined_reason.item() != ""
    assert "undefined_reason" in second.alpha.coords
    xr.testing.assert_identical(second * 1.0, second[list(second.data_vars)] * 1.0)
