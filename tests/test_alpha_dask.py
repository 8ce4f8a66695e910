"""Krippendorff's alpha on dask-backed input: lazily, block by block, the numpy numbers.

The numpy path (checked against brute-force oracles, krippendorff, nltk and irrCAC in
test_alpha.py) is the reference; one test also compares the dask result with the
krippendorff package directly.
"""

import itertools

import dask
import numpy as np
import pytest
import xarray as xr
from dask.core import get_dependencies
from dask.utils import key_split
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xr_agreement

TOL = {"rtol": 1e-12, "atol": 1e-12, "equal_nan": True}
SINGLE_LABEL = ["nominal", "ordinal", "interval", "ratio", "callable"]
SET_METRICS = ["jaccard", "masi", "masi_rounded", "nominal", "callable"]
DATA_SIZED = {"coincidence", "category_n_pairable_values"}


def _raising_scheduler(*args, **kwargs):
    raise AssertionError("dask computed while the graph was being built")


def power_distance(a, b):
    return abs(a - b) ** 1.5


def symmetric_difference(s, t):
    return len(s ^ t) / 3.0


def item_chunks(draw, n_items):
    """Uneven item chunks summing to n_items."""
    cuts = sorted(draw(st.sets(st.integers(1, n_items - 1), max_size=5)))
    bounds = [0, *cuts, n_items]
    return tuple(b - a for a, b in itertools.pairwise(bounds))


@st.composite
def ratings_case(draw):
    n_items = draw(st.integers(4, 30))
    n_annotators = draw(st.integers(2, 5))
    extra = draw(st.booleans())
    missing = draw(st.sampled_from([0.0, 0.3]))
    values = draw(st.sampled_from([[1, 2, 3, 4], [0, 1], [0.5, 2.0, 7.25, 11.0]]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    shape = ((2,) if extra else ()) + (n_items, n_annotators)
    x = rng.choice(values, shape).astype(np.float64)
    x[rng.random(shape) < missing] = np.nan
    dims = (("round",) if extra else ()) + ("item", "annotator")
    coords = {"item": [f"s{i}" for i in range(n_items)]}
    if extra:
        coords["round"] = ["r0", "r1"]
    da = xr.DataArray(x, dims=dims, coords=coords)
    chunks = {"item": item_chunks(draw, n_items)}
    if extra:
        chunks["round"] = 1
    declared = draw(st.booleans())
    return da, chunks, (values if declared else None)


def assert_same(lazy: xr.Dataset, eager: xr.Dataset, declared: bool):
    computed = lazy.compute()
    expected_vars = [v for v in eager.data_vars if declared or v not in DATA_SIZED]
    assert sorted(computed.data_vars) == sorted(expected_vars)
    reasons = [name for name in eager.coords if name.endswith("_reason")]  # coordinates
    assert sorted(name for name in computed.coords if name.endswith("_reason")) == sorted(reasons)
    for var in expected_vars + reasons:
        assert computed[var].dims == eager[var].dims, var
        assert computed[var].dtype == eager[var].dtype, var
        assert computed[var].attrs == eager[var].attrs, var
        if eager[var].dtype.kind in "OU":  # undefined_reason: text
            np.testing.assert_array_equal(computed[var].values, eager[var].values, err_msg=var)
        else:
            np.testing.assert_allclose(computed[var].values, eager[var].values, err_msg=var,
                                       **TOL)
    for name, coord in computed.drop_vars(reasons).coords.items():
        assert list(coord.values) == list(eager[name].values), name
    assert computed.attrs == eager.attrs


@pytest.mark.parametrize("metric", SINGLE_LABEL)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=ratings_case())
def test_single_label_dask_equals_numpy(metric, case):
    da, chunks, categories = case
    function = power_distance if metric == "callable" else metric
    eager = xr_agreement.alpha(da, function, categories=categories)
    with dask.config.set(scheduler=_raising_scheduler):
        lazy = xr_agreement.alpha(da.chunk(chunks), function, categories=categories)
    assert_same(lazy, eager, declared=categories is not None and metric not in
                ("interval", "ratio"))


@st.composite
def label_sets_case(draw):
    n_items = draw(st.integers(4, 25))
    n_annotators = draw(st.integers(2, 4))
    n_labels = draw(st.integers(1, 5))
    extra = draw(st.booleans())
    missing = draw(st.sampled_from([0.0, 0.3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = ((2,) if extra else ()) + (n_items, n_annotators, n_labels)
    x = (rng.random(shape) < 0.4).astype(np.float64)
    x[rng.random(shape[:-1]) < missing] = np.nan  # whole label vectors missing
    dims = (("round",) if extra else ()) + ("item", "annotator", "label")
    coords = {"label": [f"L{j}" for j in range(n_labels)]}
    da = xr.DataArray(x, dims=dims, coords=coords)
    chunks = {"item": item_chunks(draw, n_items)}
    if extra:
        chunks["round"] = 1
    return da, chunks


@pytest.mark.parametrize("metric", SET_METRICS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=label_sets_case())
def test_label_sets_dask_equals_numpy(metric, case):
    da, chunks = case
    function = symmetric_difference if metric == "callable" else metric
    eager = xr_agreement.alpha(da, function)
    with dask.config.set(scheduler=_raising_scheduler):
        lazy = xr_agreement.alpha(da.chunk(chunks), function)
    assert_same(lazy, eager, declared=False)


@pytest.mark.parametrize("metric", ["jaccard", "masi"])
def test_more_than_64_labels(metric):
    """Label sets packed in two words take the pair-by-pair route."""
    rng = np.random.default_rng(3)
    x = (rng.random((19, 3, 70)) < 0.05).astype(np.uint8)
    da = xr.DataArray(x, dims=("item", "annotator", "label"))
    eager = xr_agreement.alpha(da, metric)
    lazy = xr_agreement.alpha(da.chunk({"item": (4, 9, 6)}), metric)
    assert_same(lazy, eager, declared=False)


def test_strings_objects_and_declared_order():
    rng = np.random.default_rng(5)
    names = np.array(["lo", "mid", "hi"], dtype=object)
    strings = xr.DataArray(names[rng.integers(0, 3, (17, 3))], dims=("item", "annotator"))
    strings[2, 1] = None
    for metric, categories in [("nominal", None), ("nominal", ["lo", "mid", "hi"]),
                               ("ordinal", ["lo", "mid", "hi"])]:
        eager = xr_agreement.alpha(strings, metric, categories=categories)
        lazy = xr_agreement.alpha(strings.chunk({"item": (5, 5, 7)}), metric,
                                  categories=categories)
        assert_same(lazy, eager, declared=categories is not None)
    numbers = strings.copy(data=np.where(strings.values == "lo", 1, np.where(
        strings.values == "mid", 2.5, 4)).astype(object))
    numbers[2, 1] = None
    for metric in ["ordinal", "interval", "ratio"]:
        eager = xr_agreement.alpha(numbers, metric)
        lazy = xr_agreement.alpha(numbers.chunk({"item": 6}), metric)
        assert_same(lazy, eager, declared=False)


def test_equals_krippendorff_package():
    """An independent implementation, on the dask result directly."""
    import krippendorff

    rng = np.random.default_rng(8)
    x = rng.integers(1, 6, (40, 4)).astype(float)
    x[rng.random(x.shape) < 0.25] = np.nan
    da = xr.DataArray(x, dims=("item", "annotator")).chunk({"item": (3, 20, 17)})
    for metric in ["nominal", "ordinal", "interval", "ratio"]:
        expected = krippendorff.alpha(reliability_data=x.T, level_of_measurement=metric)
        assert float(xr_agreement.alpha(da, metric).alpha) == pytest.approx(expected,
                                                                            abs=1e-12)


def input_keys(graph, name):
    return {key for key in graph if isinstance(key, tuple) and key[0] == name}


@pytest.mark.parametrize("metric, multi_label", [("ordinal", False), ("callable", False),
                                                 ("masi", True), ("nominal", True)])
def test_graph_reads_each_block_in_its_own_task(metric, multi_label):
    """Only per-block tasks read the input, each exactly one block; nothing gathers it."""
    rng = np.random.default_rng(1)
    chunks = (4, 7, 1, 9, 5, 3, 6, 2, 8, 4)  # 10 item blocks: two levels of merging
    if multi_label:
        x = (rng.random((2, sum(chunks), 3, 4)) < 0.3).astype(np.float64)
        dims = ("round", "item", "annotator", "label")
        function = symmetric_difference if metric == "callable" else metric
    else:
        x = rng.integers(0, 4, (2, sum(chunks), 3)).astype(np.float64)
        dims = ("round", "item", "annotator")
        function = power_distance if metric == "callable" else metric
    chunked = xr.DataArray(x, dims=dims).chunk({"item": chunks, "round": 1})
    if multi_label:
        chunked = chunked.chunk({"label": 2})  # merged into one chunk internally
    with dask.config.set(scheduler=_raising_scheduler):
        lazy = xr_agreement.alpha(chunked, function)
    graph = dict(lazy.alpha.data.__dask_graph__())
    for var in lazy.data_vars:
        graph.update(dict(lazy[var].data.__dask_graph__()))
    source = chunked.data.rechunk({a: -1 for a in range(2, chunked.ndim)}).name
    blocks = input_keys(graph, source)
    assert len(blocks) == 2 * len(chunks)
    readers = {}
    for key in graph:
        read = get_dependencies(graph, key) & blocks
        if read:
            assert len(read) == 1, key
            readers.setdefault(key_split(key), []).append(key)
    passes = {"alpha-counts"}
    if metric == "ordinal":
        passes.add("alpha-ranked")
    if not multi_label:
        passes.add("alpha-se-terms")
    assert set(readers) == passes
    for keys in readers.values():
        assert len(keys) == len(blocks)
    assert not any(key_split(key).startswith(f"alpha-{metric}") for key in graph)
    names = {key_split(key) for key in graph}
    assert {"alpha-counts-partial", "alpha-counts-sum", "alpha-finish"} <= names
    outputs = {key_split(lazy[var].data.name) for var in lazy.data_vars}
    assert len(outputs) == len(lazy.data_vars) and "alpha" not in outputs  # named apart
    # the result stays chunked along the extra dim
    assert lazy.alpha.data.chunks == ((1, 1),)


def test_invalid_values_raise_at_compute_naming_the_rating():
    x = np.ones((12, 3))
    x[9, 2] = -2.0
    da = xr.DataArray(x, dims=("item", "annotator"),
                      coords={"item": [f"s{i}" for i in range(12)]}).chunk({"item": 5})
    with dask.config.set(scheduler=_raising_scheduler):
        lazy = xr_agreement.alpha(da, "ratio")
    with pytest.raises(ValueError, match=r"-2.0.*item='s9'.*negative"):
        lazy.compute()
    sets = np.zeros((8, 3, 4))
    sets[6, 1, 2] = np.nan
    lazy = xr_agreement.alpha(xr.DataArray(sets, dims=("item", "annotator", "label"))
                              .chunk({"item": 3}), "jaccard")
    with pytest.raises(ValueError, match=r"item=6, annotator=1 is only partly missing"):
        lazy.compute()
    with pytest.raises(TypeError, match="needs numeric ratings"):
        xr_agreement.alpha(xr.DataArray(np.array([["a", "b"]] * 3), dims=("item", "annotator"))
                           .chunk({"item": 2}), "interval")


def test_ci_population_and_degenerate_groups():
    """se options, and groups where alpha or se is undefined or exactly known."""
    rng = np.random.default_rng(11)
    x = rng.integers(1, 4, (4, 15, 3)).astype(float)
    x[1] = x[1, :, :1]  # perfect agreement: alpha 1
    x[2] = 2.0  # no variation: alpha NaN
    x[3, 1:, 1:] = np.nan  # one pairable item: se NaN
    da = xr.DataArray(x, dims=("round", "item", "annotator"))
    chunked = da.chunk({"item": (2, 6, 7), "round": (3, 1)})
    for options in [{"ci": 0.8, "population_size": 40}, {"ci": None}]:
        for metric in ["nominal", "ordinal", "interval"]:
            eager = xr_agreement.alpha(da, metric, **options)
            assert_same(xr_agreement.alpha(chunked, metric, **options), eager, declared=False)
    assert float(eager.alpha[1]) == 1.0 and np.isnan(float(eager.alpha[2]))


def test_category_coordinates_keep_their_type_on_numpy_and_dask():
    """The categories become the coordinate xarray makes of them, the same on both paths:
    Timestamps declared for datetime ratings give a datetime64 coordinate (a DatetimeIndex:
    partial-date selection works), integer ratings keep their dtype."""
    import pandas as pd

    days = pd.to_datetime(["2020-01-01", "2021-01-01", "2022-01-01"])
    values = np.asarray(days)[[[0, 0, 1], [1, 1, 1], [0, 1, 2], [2, 2, 0]]]
    da = xr.DataArray(values, dims=("item", "annotator"))
    eager = xr_agreement.alpha(da, "nominal", ci=None, categories=list(days))
    lazy = xr_agreement.alpha(da.chunk(), "nominal", ci=None, categories=list(days)).compute()
    xr.testing.assert_identical(eager, lazy)
    assert eager.category.dtype.kind == eager.paired_category.dtype.kind == "M"
    assert isinstance(eager.indexes["category"], pd.DatetimeIndex)
    assert eager.coincidence.sel(category="2020").shape == (1, 3)
    codes = xr.DataArray(np.array([[1, 1, 2], [2, 2, 2], [1, 2, 7]], np.int8),
                         dims=("item", "annotator"))
    assert xr_agreement.alpha(codes, "nominal").category.dtype == np.int8
    assert xr_agreement.alpha(codes, "nominal").category.values.tolist() == [1, 2, 7]
