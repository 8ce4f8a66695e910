"""DataArray -> small Dataset of additive counts, on numpy and dask alike.

The one pass over the decisions happens here (through :mod:`xr_agreement.mla.kernels`). What it
returns is all any Hamming-type statistic needs: per label, for each number ``m`` of
annotators who decided, the number of (item, label) cells, the sum of positives ``x`` and the
sum of ``x**2``; per item, the agreeing and the total (annotator pair, label) comparisons.
All counts are int64, so they add up exactly and results do not depend on chunking.

On dask input each block (all annotators and labels, a run of items, a run of extra-dim
values) is counted in its own task; label counts are then summed with dask's tree reduction
and item counts stay chunked like the input.
"""

from __future__ import annotations

import math
import operator
import os
from functools import partial

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, kernel_input
from .._core.dataset import input_coordinates
from .._core.threads import _thread_pool
from .._core.validate import CoordinateValues, describe_position
from . import kernels as _kernels


COUNT_STATS = ["cells", "positives", "positives_squared"]

# Below this many decisions one thread is faster than starting several.
PARALLEL_THRESHOLD = 1 << 22


# count_bytes keeps an item's sum of squares over labels, at most k n^2, in uint16 or uint32
# (_count_bytes picks): larger items (k n^2 >= 2^32, e.g. 66,052 labels of 255 annotators)
# go to count_exact.
BYTE_ITEM_TOTAL_LIMIT = 2**32


def _count_threads(values, label_counts, item_counts, kernel) -> list:
    """Run ``kernel`` (a nogil numba function) on parts of ``values`` in Python threads.

    Plain threads rather than numba's parallel target: they are safe to start from any
    thread (dask workers included) and do not spin-wait when the machine is busy. With at
    least as many groups (the extra dims) as threads, each thread counts a run of whole
    groups, writing only their rows; otherwise a range of items each, with its own label
    accumulators (int64), summed afterwards, so totals do not depend on the number of
    threads. Either way a part of C-contiguous values is C-contiguous, which
    :func:`_count_bytes` reads faster.
    """
    G, N = values.shape[:2]
    cpus = os.cpu_count() or 1
    if G >= cpus and values.flags.c_contiguous:
        bounds = np.linspace(0, G, cpus + 1).astype(int)

        def run_groups(t):
            g0, g1 = bounds[t], bounds[t + 1]
            return [kernel(values[g0:g1], label_counts[g0:g1], item_counts[g0:g1])]

        return [flag for flags in _thread_pool().map(run_groups, range(cpus))
                for flag in flags]
    n_threads = min(cpus, max(1, N // 1024))
    bounds = np.linspace(0, N, n_threads + 1).astype(int)
    partial_counts = [np.zeros_like(label_counts) for _ in range(n_threads)]

    def run(t):
        i0, i1 = bounds[t], bounds[t + 1]
        part = values[:, i0:i1]
        if part.flags.c_contiguous or not values.flags.c_contiguous:
            return [kernel(part, partial_counts[t], item_counts[:, i0:i1])]
        # fewer groups than threads: one group at a time (a range of items of one group
        # is C-contiguous, of several it is not); at most cpus - 1 calls per thread
        return [kernel(values[g:g + 1, i0:i1], partial_counts[t][g:g + 1],
                       item_counts[g:g + 1, i0:i1]) for g in range(G)]

    flags = [flag for flags in _thread_pool().map(run, range(n_threads)) for flag in flags]
    label_counts += sum(partial_counts)
    return flags


def _count_bytes(values, label_counts, item_counts):
    """:func:`.kernels.count_bytes` with the narrowest type that holds an item's totals, and
    its flat view of C-contiguous ``values`` (a range of items of one group is) where the
    call runs compiled: interpreted, reading rows in whole lanes would only multiply the
    Python steps (32 lanes for one label)."""
    N, n, k = values.shape[1:]
    item_total = np.uint16 if k * n * n < 2**16 else np.uint32
    no_flat = np.empty(0, np.uint8)
    args = [values, no_flat, label_counts, item_counts, item_total]
    if values.flags.c_contiguous and not _kernels.count_bytes.runs_interpreted(*args):
        args[1] = values.reshape(-1)
    return _kernels.count_bytes(*args)


def _count_block(block, coords, *, parallel):
    """Count one block of shape (*extra, item, annotator, label).

    ``coords`` holds this block's (dim, coordinate values) pairs (a list or a
    :class:`CoordinateValues`), used only to name the first invalid value. Returns (label_counts (*extra, 1, k,
    n + 1, 3), item_counts (*extra, item, 2)).
    """
    extra_shape = block.shape[:-3]
    N, n, k = block.shape[-3:]
    # explicit G: with an empty chunk (dask allows them) -1 would be ambiguous
    G = math.prod(extra_shape)
    values = kernel_input(block).reshape((G, N, n, k))
    label_counts = np.zeros((G, k, n + 1, 3), np.int64)
    item_counts = np.zeros((G, N, 2), np.int64)
    missing = values.dtype.kind == "f"
    if values.size:
        if missing:
            kernel = _kernels.count_missing
        elif values.dtype == np.uint8 and n < 256 and k * n * n < BYTE_ITEM_TOTAL_LIMIT:
            kernel = _count_bytes
        else:
            kernel = _kernels.count_exact
        if parallel and values.size >= PARALLEL_THRESHOLD and (os.cpu_count() or 1) > 1:
            flags = _count_threads(values, label_counts, item_counts, kernel)
            flag = sum(flags) if missing else int(np.bitwise_or.reduce(flags))
        else:
            flag = kernel(values, label_counts, item_counts)
        invalid = flag != 0 if missing else (flag & ~1) != 0
        if invalid:
            raise ValueError(describe_position(np.asarray(block), coords))
    return (
        label_counts.reshape(extra_shape + (1, k, n + 1, 3)),
        item_counts.reshape(extra_shape + (N, 2)),
    )


def _dask_counts(data, coords):
    """:func:`_count_block` on every block of a dask array, as a lazy graph.

    Annotator and label axes are merged into single chunks (a count needs every decision of
    an item); item and extra axes keep the input's chunks. Task names: ``hamming-counts``
    (one per block, the only tasks that read decisions), ``label-counts`` and
    ``item-counts`` (their two outputs), ``label-counts-sum`` (the tree reduction over item
    blocks). Returns (label_counts (*extra, k, n + 1, 3), item_counts (*extra, item, 2)).
    """
    import dask.array
    from dask.array import Array
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    nd = data.ndim
    data = data.rechunk({nd - 2: -1, nd - 1: -1})
    n, k = data.shape[-2:]
    # coords only change the error message, but a key must name one task everywhere
    token = tokenize(data, [(dim, values) for dim, values in coords], "hamming-counts")
    block_name = "hamming-counts-" + token
    label_name = "label-counts-" + token
    item_name = "item-counts-" + token
    # start of every chunk along every axis, so naming a block's coords is O(1)
    offsets = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in data.chunks]
    blocks, label_layer, item_layer = {}, {}, {}
    for index in np.ndindex(*data.numblocks[:-2]):
        block_coords = [
            (dim, values[offsets[axis][i] : offsets[axis][i + 1]])
            for axis, ((dim, values), i) in enumerate(zip(coords, index + (0, 0)))
        ]
        blocks[(block_name, *index)] = (
            partial(_count_block, coords=block_coords, parallel=False),
            (data.name, *index, 0, 0),
        )
        label_layer[(label_name, *index, 0, 0, 0)] = (operator.getitem, (block_name, *index), 0)
        item_layer[(item_name, *index, 0)] = (operator.getitem, (block_name, *index), 1)
    graph = HighLevelGraph.from_collections(block_name, blocks, dependencies=[data])
    layers = dict(graph.layers)
    dependencies = dict(graph.dependencies)
    layers[label_name] = label_layer
    layers[item_name] = item_layer
    dependencies[label_name] = {block_name}
    dependencies[item_name] = {block_name}
    graph = HighLevelGraph(layers, dependencies)
    extra_chunks = data.chunks[:-3]
    item_chunks = data.chunks[-3]
    label_counts = Array(
        graph,
        label_name,
        chunks=extra_chunks + ((1,) * len(item_chunks), (k,), (n + 1,), (3,)),
        dtype=np.int64,
    )
    item_counts = Array(graph, item_name, chunks=extra_chunks + (item_chunks, (2,)), dtype=np.int64)
    # int64 sums are exact, so the tree's shape (split_every) cannot change the result
    label_totals = dask.array.reduction(
        label_counts,
        chunk=np.sum,
        aggregate=np.sum,
        axis=nd - 3,
        dtype=np.int64,
        split_every=8,
        name="label-counts-sum",
    )
    return label_totals, item_counts


def count_arrays(da: xr.DataArray, item: str, annotator: str, label: str):
    """The one pass: (label_counts (*extra, k, n + 1, 3), item_counts (*extra, N, 2), extra
    dims), numpy or dask arrays of int64."""
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    order = (*extra, item, annotator, label)
    # a transposed view of the data: DataArray.transpose would rebuild every coordinate
    data = da.data.transpose([da.dims.index(d) for d in order])
    if _is_dask(data):
        coords = [(d, da[d].values) for d in order]
        label_counts, item_counts = _dask_counts(data, coords)
    else:
        coords = CoordinateValues(da, order)  # fetched only to name an offending value
        label_counts, item_counts = _count_block(np.asarray(data), coords, parallel=True)
        label_counts = label_counts[..., 0, :, :, :]
    return label_counts, item_counts, extra


def kept_coords(da: xr.DataArray, dims) -> xr.Coordinates:
    """Coordinates of ``da`` that live on ``dims`` only (index and non-index alike), with
    their indexes as they are."""
    kept = input_coordinates(da, dims)
    return xr.Coordinates(kept.variables, indexes=kept.xindexes)


def hamming_counts(da: xr.DataArray, item: str, annotator: str, label: str) -> xr.Dataset:
    """Additive counts of a validated decision array (see the module docstring).

    Returns a Dataset with ``label_counts`` (*extra, label, deciders, stat),
    ``item_agreeing_pairs`` and ``item_pairs`` (*extra, item), coordinates kept.
    """
    label_counts, item_counts, extra = count_arrays(da, item, annotator, label)
    n = da.sizes[annotator]
    coords = kept_coords(da, (*extra, item, label)).assign(
        {"deciders": np.arange(n + 1), "stat": COUNT_STATS})
    return xr.Dataset(
        {
            "label_counts": ((*extra, label, "deciders", "stat"), label_counts),
            "item_agreeing_pairs": ((*extra, item), item_counts[..., 0]),
            "item_pairs": ((*extra, item), item_counts[..., 1]),
        },
        coords=coords,
    )
