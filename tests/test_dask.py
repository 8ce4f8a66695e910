"""Dask-backed input: same numbers as numpy, lazily, on any chunking, threads, a cluster, zarr.

The numpy path (itself checked against the brute-force oracle in test_oracle_*.py) is the
reference here; two tests also compare dask results directly with the oracle.
"""

import itertools
import os
import pickle
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import dask
import dask.array
import dask.threaded
import numpy as np
import pytest
import xarray as xr
from dask.core import get_dependencies
from dask.utils import key_split
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import xr_agreement  # noqa: E402
from oracle import oracle_mla, oracle_mla_missing  # noqa: E402
from laziness import raise_if_dask_computes  # noqa: E402
from xr_agreement.mla import counts as mla_counts  # noqa: E402
from xr_agreement.mla import kernels as mla_kernels  # noqa: E402

TOL = dict(rtol=1e-12, atol=1e-12, equal_nan=True)
DIMS = ("item", "annotator", "label")


def decisions(values, extra=None, order=None):
    """DataArray with labelled coords; ``extra`` = size of a leading ``round`` dim."""
    if extra is not None:
        dims = ("round", *DIMS)
    else:
        dims = DIMS
    N, n, k = values.shape[-3:]
    coords = {
        "item": [f"s{i}" for i in range(N)],
        "annotator": [f"ann{c}" for c in range(n)],
        "label": [100 + j for j in range(k)],
        "label_name": ("label", [f"L{j}" for j in range(k)]),
    }
    if extra is not None:
        coords["round"] = [f"r{g}" for g in range(extra)]
    da = xr.DataArray(values, dims=dims, coords=coords, name="decisions")
    return da.transpose(*order) if order is not None else da


def random_values(rng, shape, prevalence=0.3, missing=0.0, dtype=np.float64):
    values = (rng.random(shape) < prevalence).astype(dtype)
    if missing:
        values[rng.random(shape) < missing] = np.nan
    return values


def assert_same_result(lazy: xr.Dataset, eager: xr.Dataset, exact=False):
    """Every variable, coordinate and attribute of ``lazy`` (computed) equals ``eager``."""
    computed = lazy.compute()
    assert list(computed.data_vars) == list(eager.data_vars)
    assert computed.attrs == eager.attrs
    xr.testing.assert_identical(computed.coords.to_dataset(), eager.coords.to_dataset())
    for name, expected in eager.data_vars.items():
        actual = computed[name]
        assert actual.dims == expected.dims, name
        assert actual.attrs == expected.attrs, name
        if expected.dtype.kind in "OU":  # texts (undefined_reason): a computed 0-d one is str
            assert actual.dtype.kind in "OU", name
            np.testing.assert_array_equal(actual.values.astype(str), expected.values.astype(str))
            continue
        assert actual.dtype == expected.dtype, name
        if exact:
            np.testing.assert_array_equal(actual.values, expected.values, err_msg=name)
        else:
            np.testing.assert_allclose(actual.values, expected.values, err_msg=name, **TOL)


def split(size, cuts):
    """Chunk sizes of ``range(size)`` cut at ``cuts``."""
    edges = [0, *sorted(cuts), size]
    return tuple(b - a for a, b in itertools.pairwise(edges))


@st.composite
def chunks_of(draw, size):
    cuts = draw(st.sets(st.integers(1, size - 1), max_size=min(size - 1, 5))) if size > 1 else []
    return split(size, cuts)


@st.composite
def chunked_cases(draw):
    N = draw(st.integers(1, 30))
    n = draw(st.integers(2, 5))
    k = draw(st.integers(1, 4))
    extra = draw(st.sampled_from([None, 1, 2, 3]))
    missing = draw(st.sampled_from([0.0, 0.0, 0.2, 0.6]))
    dtypes = [np.float64, np.bool_, np.uint8, np.int64]
    dtype = np.float64 if missing else draw(st.sampled_from(dtypes))
    prevalence = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    shape = (N, n, k) if extra is None else (extra, N, n, k)
    values = random_values(np.random.default_rng(seed), shape, prevalence, missing, dtype)
    da = decisions(values, extra)
    order = draw(st.permutations(list(da.dims)))
    chunks = {dim: draw(chunks_of(size)) for dim, size in da.sizes.items()}
    baseline = draw(st.sampled_from(["F", "all", ["PB", "AC1"]]))
    return da.transpose(*order), chunks, baseline


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunked_cases())
def test_dask_equals_numpy_on_any_chunking(case):
    da, chunks, baseline = case
    eager = xr_agreement.mla(da, baseline)
    chunked = da.chunk(chunks)
    with raise_if_dask_computes():
        lazy = xr_agreement.mla(chunked, baseline)
    for name, variable in lazy.data_vars.items():
        assert isinstance(variable.data, dask.array.Array), f"{name} is not lazy"
    # item-level outputs keep the input's item chunks (no gathering, no rechunk on item)
    assert lazy.item_observed.chunksizes["item"] == chunked.chunksizes["item"]
    if "round" in da.dims:
        assert lazy.agreement.chunksizes["round"] == chunked.chunksizes["round"]
    assert_same_result(lazy, eager)


def test_dask_matches_oracle_complete_and_missing():
    rng = np.random.default_rng(7)
    complete = random_values(rng, (23, 4, 5), prevalence=0.35)
    result = xr_agreement.mla(decisions(complete).chunk(item=(5, 1, 11, 6)), "AC1").compute()
    expected = oracle_mla(complete, "AC1")
    for name, value in expected.items():
        np.testing.assert_allclose(result[name].values, value, err_msg=name, **TOL)

    gappy = random_values(rng, (19, 5, 3), prevalence=0.4, missing=0.3)
    result = xr_agreement.mla(decisions(gappy).chunk(item=(9, 3, 7), annotator=2), "F").compute()
    expected = oracle_mla_missing(gappy, "F")
    for name in ("agreement", "observed", "expected", "alpha_hamming", "item_observed",
                 "label_agreement", "label_weight", "label_prevalence", "observed_minimum"):
        np.testing.assert_allclose(result[name].values, expected[name], err_msg=name, **TOL)


def test_accessor_and_zero_size_chunks():
    rng = np.random.default_rng(3)
    values = random_values(rng, (12, 3, 4), missing=0.1)
    eager = xr_agreement.mla(decisions(values))
    # dask allows empty chunks (e.g. after slicing); they contribute nothing
    data = dask.array.from_array(values, chunks=((0, 5, 0, 7), (3,), (4,)))
    with raise_if_dask_computes():
        lazy = decisions(data).agreement.mla()
    assert_same_result(lazy, eager)


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype, bad, shown", [(np.float64, 0.5, "0.5"), (np.int64, 2, "2"), (np.int8, -1, "-1")]
)
def test_invalid_value_reported_with_coordinates_at_compute_time(dtype, bad, shown):
    values = np.zeros((2, 20, 3, 4), dtype)
    values[1, 13, 2, 1] = bad  # round r1, item s13, annotator ann2, label 101
    da = decisions(values, extra=2).chunk(item=(6, 6, 8), round=1)
    with raise_if_dask_computes():
        lazy = xr_agreement.mla(da)
    expected = f"found {shown} at round='r1', item='s13', annotator='ann2', label=101"
    with pytest.raises(ValueError, match=expected):
        lazy.compute()


# --- graph: names, one task per block, no compute -------------------------------------


def test_graph_has_one_named_counting_task_per_block():
    values = random_values(np.random.default_rng(0), (3, 40, 4, 5), missing=0.1)
    da = decisions(values, extra=3).chunk(round=(2, 1), item=(10, 25, 5), annotator=(1, 3))
    with raise_if_dask_computes():
        lazy = xr_agreement.mla(da)
    graph = dict(lazy.__dask_graph__())
    prefixes = {key_split(key) for key in graph}
    named = {"hamming-counts", "label-counts", "item-counts", "label-counts-sum-aggregate"}
    assert named <= prefixes
    counting = [key for key in graph if key_split(key) == "hamming-counts"]
    assert len(counting) == 2 * 3  # round blocks x item blocks
    for key in counting:
        # each counting task reads exactly one block (annotators merged), never the whole array
        (source,) = get_dependencies(graph, key)
        assert source[-2:] == (0, 0) and source[1:-2] == key[1:]


def test_computing_a_dataset_counts_each_block_once():
    values = random_values(np.random.default_rng(1), (30, 3, 4))
    lazy = xr_agreement.mla(decisions(values).chunk(item=7), "all")
    calls = []
    original = mla_kernels.count_missing

    def counting(*args):
        calls.append(1)
        return original(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mla_kernels, "count_missing", counting)
        lazy.compute(scheduler="threads")
    assert len(calls) == 5  # one per item block, shared by every output variable


def test_two_results_computed_together_keep_their_own_numbers():
    """Keys are unique per input: results of two arrays of the same shape and chunks, and of
    one array under two baselines, computed in one graph, are each right."""
    rng = np.random.default_rng(9)
    first = decisions(random_values(rng, (2, 40, 3, 4), prevalence=0.2, missing=0.1), extra=2)
    second = decisions(random_values(rng, (2, 40, 3, 4), prevalence=0.6, missing=0.1), extra=2)
    chunks = {"item": (15, 25), "round": 1}
    lazy = [
        xr_agreement.mla(first.chunk(chunks)),
        xr_agreement.mla(second.chunk(chunks)),
        xr_agreement.mla(second.chunk(chunks), "PB"),
    ]
    # optimize_graph=False: dask 2026.8 + xarray 2026.9 lose an intermediate when
    # dask.compute optimizes a Dataset one of whose variables feeds another (any Dataset, see
    # docs/dask.md; akin to pydata/xarray#11329); Dataset.compute() is not affected
    computed = dask.compute(*lazy, optimize_graph=False)
    for result, (da, baseline) in zip(computed, [(first, "F"), (second, "F"), (second, "PB")]):
        assert_same_result(result, xr_agreement.mla(da, baseline))


# --- threads, chunks, numba ------------------------------------------------------------


def test_results_do_not_depend_on_threads_or_chunks():
    rng = np.random.default_rng(11)
    values = random_values(rng, (2, 1500, 5, 7), prevalence=0.2, missing=0.15)
    da = decisions(values, extra=2)
    eager = xr_agreement.mla(da, "all")
    reference = None
    for chunks in ({}, {"item": 37}, {"item": (1, 499, 1000), "round": 1}):
        lazy = xr_agreement.mla(da.chunk(chunks), "all")
        for scheduler, workers in (("sync", 1), ("threads", 1), ("threads", 2), ("threads", 8)):
            computed = lazy.compute(scheduler=scheduler, num_workers=workers)
            if reference is None:
                reference = computed
                assert_same_result(computed, eager)
            else:
                # int64 counts: bit-for-bit the same, whatever the split
                assert_same_result(computed, reference, exact=True)


def test_threads_inside_and_outside_dask():
    """Inside dask tasks the kernel runs once per block on the task's own thread (dask
    provides the parallelism: no nested thread pool, no oversubscription). The numpy path
    splits large arrays over a thread pool, also when called from several threads at once.
    Every route gives the same int64 counts, hence identical numbers."""
    rng = np.random.default_rng(5)
    # above mla_counts.PARALLEL_THRESHOLD decisions, so the numpy path uses its thread pool
    values = random_values(rng, (20000, 4, 60), missing=0.1, dtype=np.float32)
    assert values.size >= mla_counts.PARALLEL_THRESHOLD
    da = decisions(values)
    kernel_threads, pool_calls = [], []
    kernel, split = mla_kernels.count_missing, mla_counts._count_threads

    def spy_kernel(*args):
        kernel_threads.append(threading.current_thread().name)
        return kernel(*args)

    def spy_split(*args):
        pool_calls.append(threading.current_thread().name)
        return split(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mla_kernels, "count_missing", spy_kernel)
        patch.setattr(mla_counts, "_count_threads", spy_split)
        # the first block alone is above the threshold: still no pool inside a task
        assert 18000 * 4 * 60 >= mla_counts.PARALLEL_THRESHOLD
        chunks = (18000, *[250] * 8)
        computed = xr_agreement.mla(da.chunk(item=chunks)).compute(
            scheduler="threads", num_workers=4
        )
        assert pool_calls == []
        assert len(kernel_threads) == 9  # one per block
        assert not any(name.startswith("xr-agreement") for name in kernel_threads)
        assert threading.main_thread().name not in kernel_threads

        eager = xr_agreement.mla(da)
        assert len(pool_calls) == (1 if (os.cpu_count() or 1) > 1 else 0)
        with ThreadPoolExecutor(4) as pool:
            from_threads = list(pool.map(lambda _: xr_agreement.mla(da), range(4)))
        by_thread_count = []
        for n_threads in (1, 3, 8):
            patch.setattr(os, "cpu_count", lambda n_threads=n_threads: n_threads)
            by_thread_count.append(xr_agreement.mla(da))
    assert_same_result(computed, eager, exact=True)
    for result in from_threads + by_thread_count:
        assert_same_result(result, eager, exact=True)


# --- a dask.distributed cluster, zarr --------------------------------------------------


def test_local_cluster_same_numbers_and_errors():
    import distributed
    rng = np.random.default_rng(2)
    values = random_values(rng, (2, 500, 4, 6), prevalence=0.3, missing=0.1)
    da = decisions(values, extra=2)
    eager = xr_agreement.mla(da, "all")
    bad = values.copy()
    bad[0, 321, 1, 4] = 3.0
    # in-process workers keep the test fast; test_graph_survives_pickling covers what
    # separate worker processes add (the tasks must be serializable)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        lazy = xr_agreement.mla(da.chunk(item=(90, 160, 250)), "all")
        with distributed.get_task_stream(client) as stream:
            assert_same_result(lazy, eager)
        ran = [t for t in stream.data if key_split(t["key"]) == "hamming-counts"]
        assert len(ran) == 3  # one per item block (round is one chunk)
        assert len({t["worker"] for t in stream.data}) == 2
        failing = xr_agreement.mla(decisions(bad, extra=2).chunk(item=100))
        with pytest.raises(ValueError, match="3.0 at round='r0', item='s321', annotator='ann1'"):
            failing.compute()


def test_bootstrap_intervals_on_a_local_cluster_and_pickled():
    """mla(ci=...) on dask: block tasks run on both workers of a LocalCluster, and the graph
    round-trips through cloudpickle, with numpy's intervals (int seed: the same draws)."""
    import cloudpickle
    import distributed
    values = random_values(np.random.default_rng(4), (2, 300, 4, 5), missing=0.1)
    da = decisions(values, extra=2)
    kwargs = dict(baseline="all", ci=0.9, n_resamples=40, seed=7, ci_method="bca")
    eager = xr_agreement.mla(da, **kwargs)
    lazy = xr_agreement.mla(da.chunk(item=(70, 130, 100)), **kwargs)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as stream:
            computed = lazy.compute()
        ran = [t for t in stream.data if key_split(t["key"]) == "bootstrap-counts"]
        assert len(ran) == 3  # one per item block
        assert len({t["worker"] for t in stream.data}) == 2
    bounds = [name for name in eager.data_vars if name.endswith(("_lower", "_upper"))]
    for name in bounds:
        np.testing.assert_allclose(computed[name].values, eager[name].values, **TOL)
    graph = pickle.loads(cloudpickle.dumps(dict(lazy.__dask_graph__())))
    rebuilt = lazy.__dask_postcompute__()[0](dask.threaded.get(graph, lazy.__dask_keys__()),
                                             *lazy.__dask_postcompute__()[1])
    for name in bounds:
        np.testing.assert_allclose(rebuilt[name].values, eager[name].values, **TOL)


@pytest.mark.parametrize("function", ["fleiss", "cohen", "versus", "alpha"])
def test_other_intervals_are_lazy_with_numpy_numbers(function):
    """ci= of the classic coefficients, alpha and versus on dask input builds a graph only;
    its numbers are numpy's."""
    rng = np.random.default_rng(9)
    if function == "versus":
        da = decisions(random_values(rng, (40, 4, 3), missing=0.1))
        call = partial(xr_agreement.versus, judge="ann3")
        chunked = da.chunk(item=(15, 25))
    else:
        ratings = rng.integers(0, 3, (40, 3)).astype(float)
        ratings[rng.random(ratings.shape) < 0.1] = np.nan
        da = xr.DataArray(ratings, dims=("item", "annotator"))
        call = partial(getattr(xr_agreement, function), categories=[0.0, 1.0, 2.0])
        if function == "alpha":
            call = partial(xr_agreement.alpha, metric="ordinal")
        chunked = da.chunk(item=(15, 25))
    kwargs = dict(ci=0.9, n_resamples=30, seed=2, ci_method="bca", return_replicates=True)
    with raise_if_dask_computes():
        lazy = call(chunked, **kwargs)
    eager = call(da, **kwargs)
    computed = lazy.compute()
    for name in eager.data_vars:
        if name.endswith(("_lower", "_upper", "_replicates")):
            np.testing.assert_allclose(computed[name].transpose(*eager[name].dims).values,
                                       eager[name].values, **TOL, err_msg=name)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_versus_intervals_block_by_block(method):
    """versus(ci=...) on dask (int seed): one bootstrap-counts task per item block, nothing
    gathers the input, numbers equal numpy's (extra dim, missing human decisions, every
    abstention mode)."""
    rng = np.random.default_rng(12)
    values = random_values(rng, (2, 45, 4, 3), missing=0.15)
    values[..., 3, :][rng.random((2, 45, 3)) < 0.1] = 2.0  # the judge abstains sometimes
    da = decisions(values, extra=2)
    kwargs = dict(judge="ann3", abstain="all", ci=0.9, n_resamples=25, seed=4, ci_method=method,
                  return_replicates=True)
    with raise_if_dask_computes():
        lazy = xr_agreement.versus(da.chunk(item=(10, 20, 15)), abstain_value=2.0, **kwargs)
    names = [key_split(key) for key in dict(lazy.__dask_graph__())]
    assert names.count("bootstrap-counts") == 3
    assert "bootstrap" not in names  # the one-task (gathering) route
    eager = xr_agreement.versus(da, abstain_value=2.0, **kwargs)
    computed = lazy.compute()
    for name in eager.data_vars:
        if name.endswith(("_lower", "_upper", "_replicates")):
            np.testing.assert_allclose(computed[name].transpose(*eager[name].dims).values,
                                       eager[name].values, **TOL, err_msg=name)


@pytest.mark.parametrize("metric, method", [("nominal", "bca"), ("ordinal", "percentile"),
                                            ("ratio", "bca")])
def test_alpha_intervals_block_by_block(metric, method):
    """alpha(ci=..., categories=...) on dask (int seed): one bootstrap-counts task per item
    block, nothing gathers the input, numbers equal numpy's (extra dim, missing ratings, a
    declared category nobody used)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (2, 40, 3)).astype(float)
    x[rng.random(x.shape) < 0.15] = np.nan
    da = xr.DataArray(x, dims=("round", "item", "annotator"), coords={"round": ["a", "b"]})
    kwargs = dict(ci=0.9, n_resamples=40, seed=3, ci_method=method, return_replicates=True,
                  categories=[0.0, 1.0, 2.0, 3.0, 7.0])
    with raise_if_dask_computes():
        lazy = xr_agreement.alpha(da.chunk(item=(13, 27)), metric, **kwargs)
    names = [key_split(key) for key in dict(lazy.__dask_graph__())]
    assert names.count("bootstrap-counts") == 2
    assert "bootstrap" not in names  # the one-task (gathering) route
    eager = xr_agreement.alpha(da, metric, **kwargs)
    computed = lazy.compute()
    for name in eager.data_vars:
        if name.endswith(("_lower", "_upper", "_replicates")):
            np.testing.assert_allclose(computed[name].transpose(*eager[name].dims).values,
                                       eager[name].values, **TOL, err_msg=name)


def test_intervals_computed_together_keep_their_own_numbers():
    """Bootstraps built on different data or options never share a key: computed in one
    call each keeps the numbers it has alone (same seed everywhere)."""
    rng = np.random.default_rng(21)
    first = xr.DataArray(rng.integers(0, 3, (60, 3)).astype(float), dims=("item", "annotator"))
    second = first.copy(data=rng.integers(0, 3, (60, 3)).astype(float))
    options = dict(ci=0.9, ci_method="percentile", n_resamples=30, seed=1,
                   categories=[0.0, 1.0, 2.0])
    cases = [
        xr_agreement.alpha(first.chunk(item=20), "nominal", **options),
        xr_agreement.alpha(second.chunk(item=20), "nominal", **options),
        xr_agreement.alpha(first.chunk(item=20), "interval", **options),
    ]
    values = random_values(rng, (40, 4, 3), missing=0.1)
    da = decisions(values)
    cases += [
        xr_agreement.mla(da.chunk(item=15), "F", ci=0.9, n_resamples=30, seed=1),
        xr_agreement.mla(da.chunk(item=15), ["F"], ci=0.9, n_resamples=30, seed=1),
        xr_agreement.versus(da.chunk(item=15), "ann3", ci=0.9, n_resamples=30, seed=1),
        xr_agreement.versus(da.chunk(item=15), "ann2", ci=0.9, n_resamples=30, seed=1),
    ]
    together = dask.compute(*cases, optimize_graph=False)
    for alone, joint in zip(cases, together):
        alone = alone.compute()
        for name in alone.data_vars:
            if name.endswith(("_lower", "_upper")):
                np.testing.assert_array_equal(joint[name].values, alone[name].values, name)


def test_graph_survives_pickling():
    """Worker processes receive the tasks pickled (with cloudpickle, as distributed does):
    the graph must round-trip and still give the same numbers."""
    import cloudpickle
    values = random_values(np.random.default_rng(8), (2, 60, 3, 5), missing=0.2)
    da = decisions(values, extra=2)
    lazy = xr_agreement.mla(da.chunk(item=(25, 35), round=1), "all")
    graph = pickle.loads(cloudpickle.dumps(dict(lazy.__dask_graph__())))
    keys = lazy.__dask_keys__()
    variables = list(lazy.data_vars)
    computed = dask.threaded.get(graph, keys)
    rebuilt = lazy.__dask_postcompute__()[0](computed, *lazy.__dask_postcompute__()[1])
    assert list(rebuilt.data_vars) == variables
    assert_same_result(rebuilt, xr_agreement.mla(da, "all"))


@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_open_zarr_same_numbers(tmp_path, missing):
    import zarr  # noqa: F401  (the zarr engine)
    rng = np.random.default_rng(4)
    values = random_values(rng, (2, 53, 4, 6), missing=missing)
    if not missing:
        values = values.astype(bool)
    da = decisions(values, extra=2)
    store = tmp_path / "decisions.zarr"
    # stored in chunks of 10 items (the last one short) x 2 annotators x 4 labels
    da.to_dataset().to_zarr(
        store, encoding={"decisions": {"chunks": (1, 10, 2, 4)}}, consolidated=False
    )
    opened = xr.open_zarr(store, consolidated=False)["decisions"]
    assert opened.dtype == da.dtype
    assert opened.chunks[1] == (10, 10, 10, 10, 10, 3)
    with raise_if_dask_computes():
        lazy = xr_agreement.mla(opened, "all")
    assert_same_result(lazy, xr_agreement.mla(da, "all"))
