"""Decisions -> the additive count arrays of the diagnostics, on numpy and dask alike.

Every count is a sum over items, so a block of items is counted on its own and blocks add
up: numpy input is split over the process's threads (:func:`_core.threads._thread_pool`,
each range with its own accumulators), dask input is counted one item block per task and
the partial sums are added by a tree reduction; only the small sums reach memory.
"""

from __future__ import annotations

import math
import os

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, kernel_input
from .._core.threads import _thread_pool
from .._core.validate import CoordinateValues, describe_position
from . import kernels as _kernels

# Below this many decisions one thread is faster than starting several.
PARALLEL_THRESHOLD = 1 << 20


def _annotator_block(values):
    G, N, n, k = values.shape
    if values.dtype.kind != "f":
        # no missing decisions: the products of 1s are all there is to count
        upper = np.zeros((G, n, n, k), np.int64)
        if values.dtype == np.uint8 and k >= 4:  # below, padding to 32 labels costs more
            invalid = _kernels.complete_pair_bytes(values, upper) & ~1
        else:
            invalid = _kernels.complete_pair_products(values, upper)
        pos_pos = upper + np.swapaxes(upper, 1, 2)
        diagonal = np.arange(n)
        pos_pos[:, diagonal, diagonal] = upper[:, diagonal, diagonal]
        return {"pos_pos": np.moveaxis(pos_pos, 3, 1)}, invalid
    out = {
        "pos_pos": np.zeros((G, k, n, n), np.int64),
        "pos_miss": np.zeros((G, k, n, n), np.int64),
        "miss_miss": np.zeros((G, k, n, n), np.int64),
        # leave-one-out label counts: (count, sum x, sum x^2) by deciders, O(n^2 k)
        "without_base": np.zeros((G, k, n, 3), np.int64),
        "without": np.zeros((G, n, k, n, 3), np.int64),
        "items_annotated": np.zeros((G, n), np.int64),
    }
    complements = (np.zeros((G, k), np.int64), np.zeros((G, k, n), np.int64),
                   np.zeros((G, k, n), np.int64))
    invalid = _kernels.annotator_counts(values, *out.values(), *complements)
    _kernels.add_complements(out["pos_miss"], out["miss_miss"], *complements)
    return out, invalid


def _confusion_block(values):
    G, N, n, k = values.shape
    if values.dtype.kind != "f" and n <= 255:
        # no missing decisions: P[a, b] = N_a and E = n (complete_confusion_counts)
        co_selection = np.zeros((G, k, k), np.int64)
        substitution = np.zeros((G, k, k), np.int64)
        disagreeing = np.zeros((G, k), np.int64)
        invalid = _kernels.complete_confusion_counts(values, co_selection, substitution,
                                                     disagreeing)
        out = {"co_selection": co_selection.astype(np.float64),
               "substitution": substitution.astype(np.float64),
               "n_disagreeing_pairs": np.repeat(disagreeing[:, :, None], k, 2).astype(float)}
        return out, invalid
    out = {name: np.zeros((G, k, k)) for name in
           ("co_selection", "substitution", "n_disagreeing_pairs")}
    invalid = _kernels.confusion_counts(values, *out.values(), np.zeros((3, k, k)))
    return out, invalid


KERNELS = {"annotators": _annotator_block, "confusions": _confusion_block}


def _count(block, coords, kind, parallel):
    """Sums of one block (*extra, item, annotator, label) as {name: array (G, ...)}."""
    block = kernel_input(block)
    N, n, k = block.shape[-3:]
    G = math.prod(block.shape[:-3])
    values = block.reshape((G, N, n, k))
    count = KERNELS[kind]
    threads = min(os.cpu_count() or 1, max(1, N // 256))
    if parallel and values.size >= PARALLEL_THRESHOLD and threads > 1:
        bounds = np.linspace(0, N, threads + 1).astype(int)
        parts = list(_thread_pool().map(
            lambda t: count(values[:, bounds[t]:bounds[t + 1]]), range(threads)))
        sums = {name: sum(part[0][name] for part in parts) for name in parts[0][0]}
        invalid = sum(part[1] for part in parts)
    else:
        sums, invalid = count(values)
    if invalid:
        raise ValueError(describe_position(np.asarray(block), coords))
    return sums


def _add(left, right):
    return {name: left[name] + right[name] for name in left}


def block_sums(da: xr.DataArray, kind: str, item: str, annotator: str, label: str):
    """(sums, extra dims) for ``kind`` ("annotators" or "confusions") on a validated
    DataArray: sums is {name: numpy array (*extra, ...)}, or on dask input one
    ``dask.delayed`` dict of them: each item block (annotator, label and extra dims in one
    chunk) is counted in its own task and the partial sums are added by a tree of
    additions. Nothing is computed here."""
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    ordered = da.transpose(*extra, item, annotator, label)
    extra_shape = tuple(ordered.shape[:-3])

    def shaped(sums):
        return {name: value.reshape(extra_shape + value.shape[1:]) for name, value in sums.items()}

    if not _is_dask(ordered.data):
        coords = CoordinateValues(ordered, ordered.dims)  # fetched only to name a bad value
        return shaped(_count(ordered.values, coords, kind, parallel=True)), extra
    import dask

    coords = [(d, ordered[d].values) for d in ordered.dims]
    axis = len(extra)
    data = ordered.data.rechunk({a: -1 for a in range(ordered.ndim) if a != axis})
    offsets = np.concatenate([[0], np.cumsum(data.chunks[axis])])
    parts = []
    for b, block in enumerate(data.to_delayed().ravel()):
        block_coords = list(coords)
        block_coords[axis] = (item, coords[axis][1][offsets[b]:offsets[b + 1]])
        parts.append(dask.delayed(_count, pure=True)(block, block_coords, kind, False))
    while len(parts) > 1:  # a tree of additions: no task holds more than two partial sums
        parts = [dask.delayed(_add, pure=True)(*parts[j:j + 2]) if j + 1 < len(parts)
                 else parts[j] for j in range(0, len(parts), 2)]
    return dask.delayed(shaped, pure=True)(parts[0]), extra


def finish_lazily(finish, sums, specs: dict) -> dict:
    """``finish(sums)`` (a dict of numpy arrays) as dask arrays when ``sums`` is delayed;
    ``specs`` gives each output's (shape, dtype)."""
    if isinstance(sums, dict):
        return finish(sums)
    import dask
    import dask.array

    finished = dask.delayed(finish, pure=True)(sums)
    return {name: dask.array.from_delayed(finished[name], shape, dtype)
            for name, (shape, dtype) in specs.items()}


def sparse_pairs_cheaper(n_pair_visits: int, n_groups: int, n_annotators: int) -> bool:
    """The rule that chooses the sparse pair counts of :func:`sparse_sums`: when the pairs
    visited item by item (sum over items of d (d - 1) / 2 for d annotators deciding
    something on the item) are fewer than the annotator pairs of the dense matrices, the
    sparse counts hold fewer entries and take fewer steps than the dense ones, whose
    counting and finishing cost n^2 k per group whatever the design."""
    return n_pair_visits < n_groups * n_annotators * (n_annotators - 1) // 2


def sparse_sums(da: xr.DataArray, item: str, annotator: str, label: str,
                force: bool = False):
    """The annotator counts of a validated numpy-backed DataArray with the pair terms kept
    only for the pairs who decided an item together (:func:`.kernels.sparse_annotator_counts`),
    as (sums, extra dims); None where the dense counts of :func:`block_sums` are cheaper
    (:func:`sparse_pairs_cheaper`, or input without missing decisions, where every pair
    shares every item) unless ``force``. sums: "pair_keys" (P,) sorted, each
    ``(g n + r) n + s`` for r < s in group g of the flattened extra dims, "pair_counts" (P,
    k, 4), "without_base" (G, k, M, 3), "without" (G, n, k, M, 3), "items_annotated" (G,
    n), "decided" and "positives" (G, n, k). Memory: O(P k + n k M) for P such pairs and
    M - 1 the most deciders of any item, beside the decisions themselves."""
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    ordered = da.transpose(*extra, item, annotator, label)
    values = kernel_input(ordered.values)
    N, n, k = values.shape[-3:]
    G = math.prod(values.shape[:-3])
    if values.dtype.kind != "f" and not force:
        return None
    values = values.reshape((G, N, n, k)).astype(np.float64, copy=False)
    n_deciders = np.zeros((G, N), np.int64)
    _kernels.item_deciders(values, n_deciders)
    n_visits = int((n_deciders * (n_deciders - 1) // 2).sum())
    if not force and not sparse_pairs_cheaper(n_visits, G, n):
        return None
    keys = np.empty(n_visits, np.int64)
    _kernels.item_pair_keys(values, keys)
    pair_keys, pair_of = np.unique(keys, return_inverse=True)
    del keys
    # no (item, label) cell has more deciders than its item
    M = int(n_deciders.max(initial=0)) + 1
    sums = {
        "pair_keys": pair_keys,
        "pair_counts": np.zeros((len(pair_keys), k, 4), np.int64),
        "without_base": np.zeros((G, k, M, 3), np.int64),
        "without": np.zeros((G, n, k, M, 3), np.int64),
        "items_annotated": np.zeros((G, n), np.int64),
        "decided": np.zeros((G, n, k), np.int64),
        "positives": np.zeros((G, n, k), np.int64),
    }
    invalid = _kernels.sparse_annotator_counts(values, pair_of.reshape(-1),
                                               *list(sums.values())[1:])
    if invalid:
        coords = CoordinateValues(ordered, ordered.dims)
        raise ValueError(describe_position(np.asarray(ordered.values), coords))
    return sums, extra
