"""The shared helpers of ``xr_agreement._core``: the one zero-safe division and the one-step
Dataset builder."""

import datetime
import math
import warnings

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement._core.arrays import divide
from xr_agreement._core.dataset import (dataset, dimension_coordinates, input_coordinates,
                                        Layout, renamed_coordinates, variable)

NUMERATORS = [3.0, 0.0, -2.0, 1.0, 5.0, 0.0]
DENOMINATORS = [4.0, 0.0, 0.0, 1e-13, -8.0, 2.0]


def _expected(numerators, denominators, tolerance=0.0):
    """Plain Python division, NaN where |denominator| <= tolerance."""
    return [n / d if abs(d) > tolerance else math.nan for n, d in zip(numerators, denominators)]


def _check(result, expected, dtype):
    assert result.dtype == dtype
    np.testing.assert_array_equal(np.asarray(result), np.asarray(expected, dtype))


@pytest.fixture(autouse=True)
def _no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("tolerance", [0.0, 1e-12])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_numpy_dask_xarray_match_python_division(dtype, tolerance):
    if np.dtype(dtype).kind == "f":
        num, den = np.array(NUMERATORS, dtype), np.array(DENOMINATORS, dtype)
    else:  # 0/0, x/0 and exact quotients in unsigned integers
        num, den = np.array([3, 0, 2, 1, 5, 0], dtype), np.array([4, 0, 0, 1, 8, 2], dtype)
    expected = _expected(num.tolist(), den.tolist(), tolerance)
    quotient = (np.ones(1, dtype) / np.ones(1, dtype)).dtype  # what true division gives
    _check(divide(num, den, tolerance=tolerance), expected, quotient)
    lazy = divide(da.from_array(num, chunks=2), da.from_array(den, chunks=3), tolerance=tolerance)
    assert isinstance(lazy, da.Array)
    _check(lazy.compute(), expected, quotient)
    coords = {"x": list("abcdef")}
    result = divide(xr.DataArray(num, dims="x", coords=coords), xr.DataArray(den, dims="x"),
                    tolerance=tolerance)
    assert result.dims == ("x",) and list(result.x.values) == coords["x"]
    _check(result, expected, quotient)
    chunked = divide(xr.DataArray(num, dims="x").chunk(2), xr.DataArray(den, dims="x"),
                     tolerance=tolerance)
    assert chunked.chunks is not None
    _check(chunked.compute(), expected, quotient)


def test_float_edge_cases():
    num, den = np.array(NUMERATORS), np.array(DENOMINATORS)
    _check(divide(num, den), _expected(NUMERATORS, DENOMINATORS), np.float64)
    _check(divide(num, den, tolerance=1e-12), _expected(NUMERATORS, DENOMINATORS, 1e-12),
           np.float64)
    # 0/0 and x/0 are NaN, a NaN denominator gives NaN
    assert np.isnan(divide(np.array([0.0, 1.0, 1.0]), np.array([0.0, 0.0, np.nan]))).all()
    # float32 stays float32 (also against a Python scalar); integers give float64
    f32 = np.array([1, 2], np.float32)
    assert divide(f32, f32).dtype == np.float32
    assert divide(f32, 2.0).dtype == np.float32 and divide(f32, 0).dtype == np.float32
    assert divide(np.array([1, 2], np.int8), np.array([0, 4], np.int8)).dtype == np.float64


def test_broadcasting_and_scalars():
    num, den = np.arange(6.0).reshape(2, 3), np.array([0.0, 2.0, 4.0])
    _check(divide(num, den), [[math.nan, 0.5, 0.5], [math.nan, 2.0, 1.25]], np.float64)
    for a, b in [(3.0, 4.0), (3.0, 0.0), (0.0, 0.0), (-1.0, 1e-13)]:
        for tolerance in (0.0, 1e-12):
            (expected,) = _expected([a], [b], tolerance)
            for x, y in [(np.float64(a), np.float64(b)), (a, np.float64(b)),
                         (np.float64(a), b), (np.array(a), np.array(b))]:
                result = divide(x, y, tolerance=tolerance)
                assert np.asarray(result).dtype == np.float64
                assert np.array_equal(result, expected, equal_nan=True)
    assert divide(np.float32(1), np.float32(0)).dtype == np.float32
    assert divide(np.int64(1), np.int64(0)).dtype == np.float64


def test_xarray_with_numpy_denominator_and_dataset():
    num = xr.DataArray([1.0, 2.0, 3.0], dims="x", coords={"x": [1, 2, 3]}, name="n")
    result = divide(num, np.array([0.0, 4.0, 1.0]))
    assert result.name == "n" and result.x.values.tolist() == [1, 2, 3]
    _check(result, [math.nan, 0.5, 3.0], np.float64)
    ds = xr.Dataset({"a": ("x", [1.0, 0.0]), "b": ("x", [2.0, 6.0])})
    out = divide(ds, xr.Dataset({"a": ("x", [0.0, 0.0]), "b": ("x", [4.0, 3.0])}))
    _check(out.a, [math.nan, math.nan], np.float64)
    _check(out.b, [0.5, 2.0], np.float64)


# --- _core.dataset: the one-step builder must give what xarray's public constructor gives


def _annotations():
    """Decisions with string, non-index, multi-index and extra-dim coordinates."""
    import pandas as pd

    items = pd.MultiIndex.from_product([["news", "blog"], ["d1", "d2", "d3"]],
                                       names=["source", "doc"])
    coords = xr.Coordinates.from_pandas_multiindex(items, "item")
    da_ = xr.DataArray(np.zeros((2, 6, 3, 4)), dims=("round", "item", "annotator", "label"),
                       coords=coords)
    return da_.assign_coords(round=["r1", "r2"], annotator=["ann-a", "ann-b", "ann-c"],
                             label=["pol", "eco", "spo", "cul"],
                             label_name=("label", ["Politics", "Economy", "Sport", "Culture"]),
                             annotator_email=("annotator", ["a@x", "b@x", "c@x"]))


def test_input_coordinates_keep_indexes_and_drop_other_dims():
    da_ = _annotations()
    coords = input_coordinates(da_, ("round", "item", "label"))
    assert set(coords.variables) == {"round", "item", "source", "doc", "label", "label_name"}
    assert coords.xindexes["item"] is da_.xindexes["item"]  # not rebuilt
    assert coords.variables["item"] is da_.coords.variables["item"]  # not copied


@pytest.mark.parametrize("new_coords", [None, {"baseline": ["F", "AC1", "PB"]}])
def test_dataset_equals_the_public_constructor(new_coords):
    da_ = _annotations()
    coords = input_coordinates(da_, ("round", "item", "label"))
    lead = () if new_coords is None else ("baseline",)
    size = () if new_coords is None else (3,)
    variables = {
        "agreement": xr.Variable((*lead, "round"), np.ones((*size, 2)), {"long_name": "a"}),
        "item_observed": xr.Variable(("round", "item"), np.arange(12.0).reshape(2, 6)),
        "label_prevalence": xr.Variable(("round", "label"), np.zeros((2, 4))),
        "reason": xr.Variable((), np.array("text")),
        "label_undefined_reason": xr.Variable(("round", "label"), np.full((2, 4), "why")),
    }
    attrs = {"n_items": 6, "reference": "a citation"}
    built = dataset(variables, coords, attrs, new_coords=new_coords)
    public = xr.Dataset(variables, attrs=attrs,
                        coords=xr.Coordinates(coords.variables, indexes=coords.xindexes))
    if new_coords is not None:
        public = public.assign_coords(new_coords)
    public = public.set_coords("label_undefined_reason")  # reasons are coordinates
    xr.testing.assert_identical(built, public)
    assert list(built.data_vars) == [name for name in variables
                                     if name != "label_undefined_reason"]
    assert built.sel(label="eco", round="r2").item_observed.sel(source="blog").values.tolist() == [9.0, 10.0, 11.0]


@pytest.mark.parametrize("dims, data, attrs", [
    (("item", "label"), np.arange(6.0).reshape(2, 3), {"long_name": "x", "symbol": "A_o"}),
    ("label", np.array(["", "no spread", ""]), None),
    ((), np.array(0.5), {}),
])
def test_variable_equals_the_public_constructor(dims, data, attrs):
    built = variable(dims, data, attrs)
    public = xr.Variable(dims, data, attrs)
    xr.testing.assert_identical(built, public)
    assert built.encoding == public.encoding == {}
    if attrs:  # a copy: editing one variable's attrs must not reach the declared ones
        built.attrs["note"] = "edited"
        assert "note" not in attrs
    with pytest.raises(ValueError, match="do not match"):
        variable(("item",), data.reshape(1, -1), attrs)


def test_dataset_variables_first_orders_dims_as_assign_coords():
    da_ = _annotations()
    coords = input_coordinates(da_, ("round", "label"))
    variables = {"label_value": xr.Variable(("label", "round"), np.zeros((4, 2))),
                 "pair": xr.Variable(("annotator_1",), np.ones(3))}
    built = dataset(variables, coords, variables_first=True)
    public = xr.Dataset(variables).assign_coords(
        xr.Coordinates(coords.variables, indexes=coords.xindexes))
    xr.testing.assert_identical(built, public)
    assert list(built.dims) == list(public.dims) == ["label", "round", "annotator_1"]
    # and it stays so when a variable is added (assign rebuilds the dims)
    extra = {"more": (("round",), np.ones(2))}
    assert list(built.assign(extra).dims) == list(public.assign(extra).dims)
    assert list(dataset(variables, coords).dims)[:2] == ["round", "label"]  # coordinates first


def test_renamed_coordinates_equal_a_new_coordinate_of_the_same_values():
    """The input's annotator index under the pair dims: the same Dataset as one built from
    the values; kept for the next call on that index, with variables of its own (attrs set
    on one result do not reach the next); nothing for a multi-index or no index."""
    da_ = _annotations()
    variables = {"pair": xr.Variable(("annotator_1", "annotator_2"), np.ones((3, 3)))}
    names = ("annotator_1", "annotator_2")
    first = dataset(variables, renamed_coordinates(da_, "annotator", names))
    values = da_.annotator.values
    public = xr.Dataset(variables).assign_coords(annotator_1=values, annotator_2=values)
    xr.testing.assert_identical(first, public)
    for dim in names:
        assert first.xindexes[dim].equals(public.xindexes[dim])
        assert first.xindexes[dim].index.name == dim
    assert first.pair.sel(annotator_1="ann-b", annotator_2="ann-c").item() == 1
    first.annotator_1.attrs["note"] = "edited"
    again = dataset(variables, renamed_coordinates(da_, "annotator", names))
    assert again.annotator_1.attrs == {}
    assert again.xindexes["annotator_1"] is first.xindexes["annotator_1"]  # kept
    assert renamed_coordinates(da_, "item", names).variables == {}  # a multi-index
    assert renamed_coordinates(da_.drop_vars("annotator"), "annotator", names).variables == {}


def test_renamed_coordinates_survive_another_thread_evicting_the_oldest(monkeypatch):
    """The kept renamed indexes are shared by every thread: an eviction that finds the
    oldest entry gone (here the dict empties itself as it is read, as another thread's
    eviction did before the lock) still succeeds (cohen raised KeyError from threads)."""
    from xr_agreement._core import dataset as dataset_module

    class EvictedMeanwhile(dict):
        def __iter__(self):  # the oldest key, already popped by "another thread"
            keys = list(dict.__iter__(self))
            self.clear()
            return iter(keys)

    kept = EvictedMeanwhile({("other", "annotator", str(i)): None
                             for i in range(dataset_module.RENAMED_KEPT)})
    monkeypatch.setattr(dataset_module, "_RENAMED", kept)
    names = ("annotator_1", "annotator_2")
    made = renamed_coordinates(_annotations(), "annotator", names)
    assert list(made.variables) == list(names)


@pytest.mark.parametrize("values", [
    np.arange(5.0), np.arange(3, dtype=np.float32), np.arange(3, dtype=np.int8),
    np.arange(4, dtype=np.uint8), np.array([False, True]), np.array(list("abc")),
    np.array(["x", "yy"], dtype=object), np.array([1.5, np.nan]), np.array([], dtype=float),
    np.array([frozenset({"a"}), frozenset({"a", "b"}), frozenset()], dtype=object),
    np.array(["2020-01-01", "2021-06-01"], dtype="datetime64[ns]"),
    # objects xarray converts: Timestamps, datetimes, timedeltas
    np.array([pd.Timestamp("2020-01-01"), pd.Timestamp("2021-01-01")], dtype=object),
    np.array([datetime.datetime(2020, 1, 1), datetime.datetime(2020, 1, 2)], dtype=object),
    np.array([datetime.timedelta(days=1), datetime.timedelta(hours=3)], dtype=object),
], ids=lambda values: f"{values.dtype}-{type(values[0]).__name__ if len(values) else ''}")
def test_dimension_coordinates_after_the_variables_equal_assign_coords(values):
    """Coordinates made from a family's own values and put after the variables: the same
    Dataset (values, dtypes, indexes, order of dims and variables) as assigning them to the
    result with xarray's assign_coords, after input coordinates on an extra dim."""
    da_ = _annotations()
    coords = input_coordinates(da_, ("round",))
    n = len(values)
    variables = {"value": xr.Variable(("round",), np.zeros(2)),
                 "table": xr.Variable(("category", "paired_category"), np.ones((n, n))),
                 "unnamed": xr.Variable(("part", "category"), np.ones((2, n)))}
    built = dataset(variables, coords,
                    coords_after=dimension_coordinates({"category": values,
                                                        "paired_category": values}))
    # the Dataset without them is checked against the public constructor above
    public = dataset(variables, coords).assign_coords(category=values, paired_category=values)
    xr.testing.assert_identical(built, public)
    assert list(built.sizes) == list(public.sizes)
    assert list(built.variables) == list(public.variables)
    for dim in ("category", "paired_category"):
        ours, theirs = built.xindexes[dim], public.xindexes[dim]
        assert type(ours) is type(theirs) and ours.equals(theirs)
        assert ours.index.dtype == theirs.index.dtype and ours.index.name == theirs.index.name
        assert built[dim].dtype == public[dim].dtype
        assert type(built.variables[dim]) is type(public.variables[dim])  # IndexVariable
    # one index per dim, each selectable on its own (the second is made from the first's)
    if n:
        picked = built.table.isel(category=0, paired_category=n - 1)
        assert built.table.sel(category=built.category.values[0],
                               paired_category=built.paired_category.values[-1]).equals(picked)
    with pytest.raises(ValueError, match="1-D"):
        dimension_coordinates({"category": values.reshape(1, -1)})
    with pytest.raises(ValueError, match="rename or drop"):
        dataset(variables, coords, coords_after=dimension_coordinates({"value": values}))


@pytest.mark.parametrize("call", [
    lambda da: xr_agreement.mla(da.assign_coords(agreement=1.0)),
    lambda da: xr_agreement.mla(da.assign_coords(baseline="mine"), baseline="all"),
    lambda da: xr_agreement.alpha(da.isel(label=0, drop=True).assign_coords(alpha=1.0),
                                  "nominal"),
    lambda da: xr_agreement.fleiss(da.isel(label=0, drop=True).assign_coords(coefficient=1.0)),
    lambda da: xr_agreement.fleiss(da.isel(label=0, drop=True).assign_coords(category="c")),
    lambda da: xr_agreement.cohen(da.assign_coords(pair_observed=0.5)),
    # alpha's coincidence dims, on numpy and dask input
    lambda da: xr_agreement.alpha(da.isel(label=0, drop=True).assign_coords(category="c"),
                                  "nominal"),
    lambda da: xr_agreement.alpha(da.isel(label=0, drop=True).chunk()  # coincidence: on dask
                                  .assign_coords(paired_category="c"), "nominal",  # with the
                                  categories=[0.0, 1.0]),  # categories declared
])
def test_a_coordinate_named_like_a_result_is_refused(call):
    # it replaced the computed value (fleiss' coefficient became the coordinate's 1.0) or
    # turned the result variable into a coordinate (mla's agreement), without a word
    rng = np.random.default_rng(3)
    da_ = xr.DataArray((rng.random((8, 3, 2)) < 0.5).astype(float),
                       dims=("item", "annotator", "label"))
    with pytest.raises(ValueError, match="coordinate.*name of a result"):
        call(da_)


def test_dataset_refuses_sizes_that_disagree():
    coords = input_coordinates(_annotations(), ("label",))
    with pytest.raises(ValueError, match="label"):
        dataset({"v": xr.Variable(("label",), np.zeros(5))}, coords)


def test_new_coordinates_are_not_shared_between_results():
    """The coordinate ``new_coords`` adds is made once per (dim, values); each result must
    still get its own Variable, or editing one result's attrs would change the next."""
    first = dataset({"v": xr.Variable(("baseline",), np.zeros(2))},
                    new_coords={"baseline": ["F", "PB"]})
    first.baseline.attrs["note"] = "edited"
    second = dataset({"v": xr.Variable(("baseline",), np.ones(2))},
                     new_coords={"baseline": ["F", "PB"]})
    assert second.baseline.attrs == {}
    assert second.baseline.values.tolist() == ["F", "PB"]


def _layout_result(seed):
    """A result of :func:`dataset` on the input's coordinates and two new ones, with
    per-variable attrs: what a family builds."""
    rng = np.random.default_rng(seed)
    da_ = _annotations()
    categories = dimension_coordinates({"category": np.array(["a", "b", "c"]),
                                        "paired_category": np.array(["a", "b", "c"])})
    variables = {
        "alpha": variable((), np.array(rng.random()), {"long_name": "alpha", "symbol": "a"}),
        "item_value": variable(("round", "item"), rng.random((2, 6)), {"long_name": "v"}),
        "table": variable(("category", "paired_category"), rng.random((3, 3)), None),
        "undefined_reason": variable((), np.array(f"reason {seed}"), {"description": "why"}),
    }
    data = {name: var.data for name, var in variables.items()}
    return dataset(variables, input_coordinates(da_, ("round", "item")), {"n": seed},
                   coords_after=categories), data


def test_a_layout_builds_what_dataset_builds():
    """A Layout made from one result gives, for other data, the Dataset that dataset()
    builds from those data: variables, order, dims, attrs, coordinates, indexes."""
    template, _ = _layout_result(0)
    expected, data = _layout_result(1)
    built = Layout(template).dataset(data, {"n": 1})
    xr.testing.assert_identical(built, expected)
    assert list(built.variables) == list(expected.variables)
    assert list(built.sizes) == list(expected.sizes)
    for name, var in built.variables.items():
        assert var.attrs == expected.variables[name].attrs, name
        assert var.dtype == expected.variables[name].dtype, name
    assert built.sel(category="b", round="r2").item_value.values.tolist() == data[
        "item_value"][1].tolist()
    # a reason is a coordinate of the result, yet the layout takes it as data: this
    # result's text, not the template's
    assert "undefined_reason" in built.coords and "undefined_reason" not in built.data_vars
    assert built.undefined_reason.item() == "reason 1" != template.undefined_reason.item()


def test_the_results_of_a_layout_do_not_share_attrs():
    template, data = _layout_result(0)
    layout = Layout(template)
    attrs = {"n": 0}
    first = layout.dataset(data, attrs)
    first.alpha.attrs["edited"] = True
    first.category.attrs["edited"] = True
    first.attrs["edited"] = True
    second = layout.dataset(data, attrs)
    assert "edited" not in second.alpha.attrs
    assert "edited" not in second.category.attrs
    assert "edited" not in second.attrs and attrs == {"n": 0}
    assert "edited" not in template.alpha.attrs and "edited" not in template.category.attrs


def test_a_layout_refuses_data_of_another_structure():
    template, data = _layout_result(0)
    layout = Layout(template)
    with pytest.raises(ValueError, match="'table'.*shape"):
        layout.dataset({**data, "table": np.zeros((3, 4))})
    with pytest.raises(ValueError, match="the layout has the variables"):
        layout.dataset({name: value for name, value in data.items()
                        if name != "undefined_reason"})
    with pytest.raises(ValueError, match="the layout has the variables"):
        layout.dataset({**data, "extra": np.zeros(())})
