"""Bootstrap intervals (ci=) of the classic coefficients on dask input (issues 5 and 6).

Item resampling from an int seed runs block by block on dask input. The numbers must be
numpy's (to 1e-12) whatever the item chunks, the replicates must be the coefficient
recomputed on the resampled array (counts from the documented seeded resampler), building
the graph must compute nothing, and the graph must hold one counting task per item block
and no task that receives every block of an array.
"""


import dask
import dask.local
import numpy as np
import pytest
import xarray as xr
from dask.callbacks import Callback
from dask.core import flatten, get_dependencies
from dask.utils import key_split

import xr_agreement
from xr_agreement.resampling import BlockedResampler
from laziness import raise_if_dask_computes

COEFFICIENTS = ["fleiss", "conger", "gwet", "brennan_prediger", "percent", "cohen"]
TOL = dict(rtol=1e-12, atol=1e-12, equal_nan=True)
CHUNKS = (9, 20, 4, 17)  # uneven item chunks of the 50 items
N_ITEMS = sum(CHUNKS)


def ratings(multi_label: bool, seed: int = 0, extra: bool = True) -> tuple:
    """(DataArray, categories): 50 items, 20% missing, a leading ``round`` dim of 2."""
    rng = np.random.default_rng(seed)
    shape = (2, N_ITEMS, 4, 3) if multi_label else (2, N_ITEMS, 4)
    if multi_label:
        values = (rng.random(shape) < 0.4).astype(float)
        dims, categories = ("round", "item", "annotator", "label"), None
    else:
        values = rng.integers(0, 3, shape).astype(float)
        dims, categories = ("round", "item", "annotator"), [0.0, 1.0, 2.0]
    values[rng.random(shape) < 0.2] = np.nan
    da = xr.DataArray(values, dims=dims, coords={"round": ["r0", "r1"],
                                                  "item": [f"i{i}" for i in range(N_ITEMS)]})
    return (da if extra else da.isel(round=0, drop=True)), categories


def bound_names(result):
    return [name for name in result.data_vars
            if name.endswith(("_lower", "_upper", "_replicates"))]


@pytest.mark.parametrize("multi_label", [False, True], ids=["single-label", "multi-label"])
@pytest.mark.parametrize("name", COEFFICIENTS)
def test_dask_intervals_equal_numpy_and_replicates_are_resampled_coefficients(name,
                                                                            multi_label):
    da, categories = ratings(multi_label, seed=len(name))
    function = getattr(xr_agreement, name)
    n_resamples = 30
    for method in ("percentile", "bca"):
        kwargs = dict(categories=categories, ci=0.9, n_resamples=n_resamples, seed=11,
                      ci_method=method, return_replicates=True)
        eager = function(da, **kwargs)
        with raise_if_dask_computes():
            lazy = function(da.chunk(item=CHUNKS, round=1), **kwargs)
        computed = lazy.compute()
        names = bound_names(eager)
        assert len(names) >= 3 * 6
        assert set(names) == set(bound_names(computed))
        for var in names:
            np.testing.assert_allclose(computed[var].transpose(*eager[var].dims).values,
                                       eager[var].values, **TOL, err_msg=f"{method} {var}")
    # the first replicates: the coefficient on the array resampled with the seeded counts
    counts = BlockedResampler(11, N_ITEMS, n_resamples).counts(0, 3, 0, N_ITEMS)
    for r, row in enumerate(counts.astype(np.int64)):
        resampled = da.isel(item=np.repeat(np.arange(N_ITEMS), row))
        resampled = resampled.assign_coords(item=np.arange(N_ITEMS))
        expected = function(resampled, categories=categories)
        level = "label" if multi_label else "category"
        checked = ("coefficient", "observed", "expected", f"{level}_coefficient")
        if name == "cohen":
            checked = ("pair_coefficient", "pair_observed", "pair_expected",
                       f"pair_{level}_coefficient", "coefficient")
        for var in checked:
            got = computed[f"{var}_replicates"].isel(resample=r)
            np.testing.assert_allclose(got.transpose(*expected[var].dims).values,
                                       expected[var].values, **TOL,
                                       err_msg=f"replicate {r} {var}")


def gathering_tasks(lazy) -> set:
    """Key prefixes of the tasks that receive every block of an item-level array.

    The graph is run once, recording the shape of each array block; an array is item-level
    when its blocks' lengths along some axis are the item chunks (the partial sums of a
    reduction are not)."""
    graph = dict(lazy.__dask_graph__())
    shapes = {}

    class RecordShapes(Callback):
        def _posttask(self, key, result, dsk, state, worker_id):
            if isinstance(key, tuple) and hasattr(result, "shape"):
                shapes.setdefault(key[0], {})[key[1:]] = np.shape(result)

    with RecordShapes():
        dask.local.get_sync(graph, list(flatten(lazy.__dask_keys__())))
    item_level = {
        name for name, blocks in shapes.items()
        if len(blocks) == len(CHUNKS) and any(
            sorted(shape[axis] if axis < len(shape) else -1 for shape in blocks.values())
            == sorted(CHUNKS)
            for axis in range(max(len(shape) for shape in blocks.values()))
        )
    }
    assert item_level  # the input, the indicator, the tables
    gathering = set()
    for key in graph:
        received = {}
        for dependency in get_dependencies(graph, key):
            if isinstance(dependency, tuple) and dependency[0] in item_level:
                received.setdefault(dependency[0], set()).add(dependency[1:])
        if any(len(blocks) == len(CHUNKS) for blocks in received.values()):
            gathering.add(key_split(key))
    return gathering


@pytest.mark.parametrize("multi_label", [False, True], ids=["single-label", "multi-label"])
@pytest.mark.parametrize("name", ["fleiss", "cohen"])
def test_graph_counts_each_item_block_in_its_own_task(name, multi_label):
    da, categories = ratings(multi_label, extra=False)
    with raise_if_dask_computes():
        lazy = getattr(xr_agreement, name)(da.chunk(item=CHUNKS), categories=categories,
                                           ci=0.9, n_resamples=20, seed=3, ci_method="bca")
    graph = dict(lazy.__dask_graph__())
    for prefix in ("bootstrap-counts", "bootstrap-jackknife"):
        assert sum(key_split(key) == prefix for key in graph) == len(CHUNKS), prefix
    assert gathering_tasks(lazy) == set()


@pytest.mark.parametrize("generator, resample", [(True, "item"), (False, "both")])
def test_gathered_route_still_agrees_with_numpy(generator, resample):
    """A Generator seed and annotator resampling keep the gathering route: numpy's numbers
    too, and a lazy graph."""
    da, categories = ratings(False, seed=5, extra=False)

    def options():
        seed = np.random.default_rng(4) if generator else 4
        return dict(categories=categories, ci=0.9, n_resamples=15, ci_method="bca", seed=seed,
                    resample=resample)

    eager = xr_agreement.conger(da, **options())
    with raise_if_dask_computes():
        lazy = xr_agreement.conger(da.chunk(item=CHUNKS), **options())
    assert not any(key_split(key) == "bootstrap-counts" for key in lazy.__dask_graph__())
    computed = lazy.compute()
    for var in bound_names(eager):
        np.testing.assert_allclose(computed[var].values, eager[var].values, **TOL, err_msg=var)
    # one task receives every block (the check can fail; run after: it advances a Generator)
    assert gathering_tasks(lazy)
