"""Bootstrap of :func:`xr_agreement.mla` from per-item sufficient statistics
(:class:`MLAStatistic`, its speed tricks are in :mod:`xr_agreement.resampling.fast`)."""

from __future__ import annotations

import math
import os
import threading

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, kernel_input
from .._core.threads import _in_threads, _pool_map
from .._core.validate import describe_position
from ..resampling.draws import batch_rows
from ..resampling.driver import bootstrap
from ..resampling.fast import paired_sums, replicate_pairing
from ..resampling.intervals import interval_variables, JackknifeMoments, RESAMPLE_DIM
from ..resampling.statistics import _tree_sum, TableStatistic
from . import kernels as _kernels
from .finish import finish_counts
from .variables import assemble


# --------------------------------------------------------------------------- MLA


class MLAStatistic(TableStatistic):
    """:func:`xr_agreement.mla` on resamples, from per-item sufficient statistics: the
    bootstrap protocol's per-item table (:meth:`item_tables`) and its finish
    (:meth:`finish_sums`), with exact float32 products (:meth:`block_sums`, the pairing of
    :mod:`xr_agreement.resampling.fast`) and its own block-by-block route on dask input,
    which recounts each block so that annotators can be resampled too.

    For annotator weights ``c`` (all 1 for item resampling) one pass gives, per (extra,
    item, label), the weighted positives ``x`` and deciders ``m``; they become an (N x F)
    table with, for each (extra, label, m) that occurs, the columns cell count, ``x`` and
    ``x (m - x)``. Item resampling counts ``W`` (R x N) times this table is the replicates'
    label count table, computed exactly: float32 (or float64) matrix products of integers
    whose sums stay below the format's exact-integer range.
    """

    def __init__(self, da, baselines, single, *, item, annotator, label):
        self.extra = [d for d in da.dims if d not in (item, annotator, label)]
        self.ordered = da.transpose(*self.extra, item, annotator, label)
        self.ordered_dims = self.ordered.dims
        self.baselines = baselines
        self.single = single
        self.item, self.annotator, self.label = item, annotator, label
        self.n_items = da.sizes[item]
        self.n_annotators = da.sizes[annotator]
        self.n_labels = da.sizes[label]
        self.extra_shape = tuple(da.sizes[d] for d in self.extra)
        self.coords = {d: da[d] for d in (*self.extra, label) if d in da.coords}
        for name, coord in da.coords.items():
            if name not in self.coords and set(coord.dims) <= {*self.extra, label}:
                self.coords[name] = coord
        self._coords = [
            (d, np.asarray(self.ordered[d].values)) for d in self.ordered.dims
        ]
        self._tables = {}
        # the most items a replicate draws (None: the corpus size); a dask block's share
        self.draws_bound = None

    # per-item counts -------------------------------------------------------------------

    def _item_counts(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x, m), each (G, N, k) int32, annotator ``a`` counted ``weights[a]`` times."""
        data = self.ordered.data
        N, k = self.n_items, self.n_labels
        if _is_dask(data):
            import dask.array

            nd = data.ndim
            data = data.rechunk({nd - 2: -1, nd - 1: -1})
            stacked = dask.array.map_blocks(
                _count_block,
                data,
                weights=weights,
                coords=self._coords,
                dtype=np.int32,
                drop_axis=nd - 2,
                new_axis=nd - 1,
                chunks=data.chunks[:-2] + ((k,), (2,)),
            )
            stacked = stacked.compute().reshape(-1, N, k, 2)
            return stacked[..., 0], stacked[..., 1]
        positives, deciders = _count_arrays(np.asarray(data), weights, self._coords,
                                            parallel=True)
        return positives.reshape(-1, N, k), deciders.reshape(-1, N, k)

    def _table(self, weights: np.ndarray):
        """Per-item table for annotator weights (cached for the all-ones weights)."""
        key = weights.tobytes()
        if key in self._tables:
            return self._tables[key]
        entry = self._complete_table() if np.all(weights == 1) else None
        if entry is not None:
            self._tables[key] = entry
            return entry
        positives, deciders = self._item_counts(weights)
        G, N, k = positives.shape
        M = int(weights.sum()) + 1
        # which (extra, label, m) occur; each gets three slots (cell count, x, x (m - x))
        occurs = np.zeros((G, k, M), np.bool_)
        _kernels.label_cell_occurrences(deciders, occurs)
        column_of = np.where(occurs[..., None], 0, -1).astype(np.int64).repeat(3, -1)
        slots = np.flatnonzero(column_of.ravel() >= 0)
        n_columns = slots.size
        column_of.ravel()[slots] = np.arange(n_columns)
        # values are at most max(m, m**2 / 4) (x and x (m - x) for x <= m); float32 holds
        # every integer below 2**24 exactly (see _weighted_sums for the products)
        m_max = int(np.flatnonzero(occurs.any(axis=(0, 1)))[-1]) if occurs.any() else 0
        largest = max(1, m_max, m_max**2 // 4)
        dtype = np.float32 if largest < 2**24 else np.float64
        table = np.empty((N, n_columns), dtype)  # (N, F), item-major as BLAS wants it
        parts = 2 * (os.cpu_count() or 1) if N >= 4096 else 1
        totals = np.zeros((parts, n_columns), np.int64)  # one row per part: no races
        bounds = np.linspace(0, N, parts + 1).astype(np.int64)
        _pool_map(
            lambda t: _kernels.fill_item_table(positives, deciders, column_of, table,
                                               totals[t], bounds[t], bounds[t + 1]),
            range(parts),
        )
        entry = {
            "table": table,
            "totals": totals.sum(axis=0),
            "source": np.arange(n_columns),
            "slots": slots,
            "shape": (G, k, M),
            "largest": largest,
            # a column of ones (the cell count of a label whose cells all have one m), for
            # replicate_pairing
            "ones": _ones_column(occurs, column_of),
        }
        if np.all(weights == 1):
            self._tables[key] = entry
        return entry

    def _complete_table(self):
        """The all-ones table of integer or boolean decisions (nobody missing, so every
        cell has ``m = n``) in one pass over the data: columns 1, then ``x`` and
        ``x (n - x)`` per (extra, label), the layout :meth:`_table` gives such data. None
        for other input, or when a value is not 0 or 1 (the general path names it)."""
        data = self.ordered.data
        if _is_dask(data) or data.dtype.kind not in "biu" or self.n_items == 0:
            return None
        values = kernel_input(data)
        G = math.prod(self.extra_shape)
        N, n, k = self.n_items, self.n_annotators, self.n_labels
        values = values.reshape(G, N, n, k)
        largest = max(1, n, n**2 // 4)
        table = np.empty((N, 1 + 2 * G * k), np.float32 if largest < 2**24 else np.float64)
        parts = 2 * (os.cpu_count() or 1) if N >= 4096 else 1
        totals = np.zeros((parts, table.shape[1]), np.int64)  # one row per part: no races
        item_spread = np.empty((G, N), np.int64)
        bounds = np.linspace(0, N, parts + 1).astype(np.int64)
        bad = _pool_map(
            lambda t: _kernels.complete_item_table(values, table, totals[t], item_spread,
                                                   bounds[t], bounds[t + 1]),
            range(parts),
        )
        if any(bad):
            return None
        # the slots of _label_counts: (g, j, m = n, stat) for every (g, j); all cell-count
        # slots read the ones column
        cells = np.arange(G * k)
        slots = ((cells[:, None] * (n + 1) + n) * 3 + np.arange(3)).ravel()
        source = np.stack([np.zeros_like(cells), 1 + 2 * cells, 2 + 2 * cells], -1).ravel()
        return {"table": table, "totals": totals.sum(axis=0), "source": source,
                "slots": slots, "shape": (G, k, n + 1), "largest": largest, "ones": 0,
                "item_spread": item_spread}

    def point_counts(self):
        """``(label_counts, item_counts, extra)`` as :func:`.counts.count_arrays` gives them,
        from the pass that makes the per-item table of complete integer or boolean
        decisions (so :func:`xr_agreement.mla` with ``ci`` reads the data once); None for
        other input (then count them as usual)."""
        data = self.ordered.data
        if _is_dask(data) or data.dtype.kind not in "biu":
            return None
        entry = self._table(np.ones(self.n_annotators, np.int64))
        if "item_spread" not in entry:
            return None
        G, k, M = entry["shape"]
        n = self.n_annotators
        label_counts = self._label_counts(entry, entry["totals"][None, :])[0]
        # agreeing (annotator, label) pairs of an item: k C(n, 2) minus its x (n - x) sum
        all_pairs = k * (n * (n - 1) // 2)
        item_counts = np.empty((G, self.n_items, 2), np.int64)
        item_counts[..., 0] = all_pairs - entry["item_spread"]
        item_counts[..., 1] = all_pairs
        return (label_counts.reshape(self.extra_shape + label_counts.shape[1:]),
                item_counts.reshape(self.extra_shape + (self.n_items, 2)), self.extra)

    def item_table(self):
        """``(table, entry)``: the per-item table (N x F) with the entry that maps its
        column sums to label counts (:meth:`_label_counts`). On numpy the compact table
        of :meth:`_table`; on dask a lazy table chunked like the items, in the fixed layout
        of every (extra, label, m, stat) column (no data-dependent column choice)."""
        if not self.is_lazy:
            entry = self._table(np.ones(self.n_annotators, np.int64))
            return entry["table"], entry
        import dask.array
        import dask.base

        data = self.ordered.data
        nd = data.ndim
        G = math.prod(self.extra_shape)
        k, n = self.n_labels, self.n_annotators
        width = G * k * (n + 1) * 3
        # the item axis first, everything else in one chunk
        data = dask.array.moveaxis(data, nd - 3, 0).rechunk({i: -1 for i in range(1, nd)})
        table = data.map_blocks(
            _fixed_item_table, n, k, dtype=np.float64, drop_axis=list(range(2, nd)),
            chunks=(data.chunks[0], (width,)),
            name="bootstrap-item-table-" + dask.base.tokenize(data, n, k),
        )
        entry = {"slots": np.arange(width), "source": np.arange(width), "shape": (G, k, n + 1)}
        return table, entry

    def _label_counts(self, entry, sums: np.ndarray) -> np.ndarray:
        """(R, G, k, n + 1, 3) label_counts (cells, positives, positives_squared) from the
        replicate sums of the table's columns (R, F)."""
        G, k, M = entry["shape"]
        R = sums.shape[0]
        n = self.n_annotators
        out = np.zeros((R, G, k, max(M, n + 1), 3), np.int64)
        if M == out.shape[3]:
            out.reshape(R, -1)[:, entry["slots"]] = sums[:, entry["source"]]
        else:
            flat = np.zeros((R, G * k * M * 3), np.int64)
            flat[:, entry["slots"]] = sums[:, entry["source"]]
            out[..., :M, :] = flat.reshape(R, G, k, M, 3)
        m = np.arange(out.shape[3])
        # x**2 = m x - x (m - x)
        out[..., 2] = m * out[..., 1] - out[..., 2]
        return out

    def _weighted_sums(self, entry, item_counts, rows=slice(None), draws=None) -> np.ndarray:
        """(R, F) int64 exact column sums of the table's ``rows`` weighted by
        ``item_counts``. A float32 product is exact while every sum stays below 2**24:
        ``draws`` (the most items any replicate draws among these rows; by default the
        corpus size, what a replicate draws in all) times the largest table value."""
        table = entry["table"][rows]
        draws = self.n_items if draws is None else draws
        if table.dtype == np.float32 and draws * entry["largest"] >= 2**24:
            table = table.astype(np.float64)
        product = item_counts.astype(table.dtype, copy=False) @ table
        return np.rint(product).astype(np.int64)

    def prepare(self) -> None:
        """Make the table that :meth:`block_sums` reads (before threads call it)."""
        self._table(np.ones(self.n_annotators, np.int64))

    def block_sums(self, item_counts, i0: int, i1: int, draws: int) -> np.ndarray:
        """(R, F) int64 column sums of the per-item table's rows ``i0:i1`` weighted by
        ``item_counts`` (R, i1 - i0), in which no replicate draws more than ``draws``
        items; sums over all blocks go to :meth:`from_sums`."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        return self._weighted_sums(entry, item_counts, slice(i0, i1), draws)

    def pairing(self):
        """``(shift, most, items)`` of :func:`replicate_pairing` for the item table, or None
        (no ones column, values too large, or a float64 table)."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        if "pairing" not in entry:
            entry["pairing"] = (replicate_pairing(entry["largest"])
                                if entry.get("ones") is not None
                                and entry["table"].dtype == np.float32 else None)
        return entry["pairing"]

    def pair_sums(self, paired_counts, i0: int, i1: int, rows: int, draws) -> tuple:
        """:meth:`block_sums` of ``rows`` replicates from their paired counts
        (``ceil(rows / 2)`` rows, see :meth:`BlockedResampler.counts` and
        :meth:`pairing`), given each replicate's number of draws among items ``i0:i1``.
        Returns the (rows, F) sums and the pairs whose split is not certain to be exact
        (their two rows are then to be replaced: :func:`.fast.stream_item_blocks` multiplies
        them unpaired)."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        return paired_sums(entry["table"], entry["ones"], self.pairing(), paired_counts, i0,
                           i1, rows, draws)

    def from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Label counts (see :meth:`replicates`) from the summed :meth:`block_sums`."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        return self._label_counts(entry, sums)

    def replicates(self, item_counts, annotator_counts):
        n = self.n_annotators
        if annotator_counts is None:
            entry = self._table(np.ones(n, np.int64))
            if item_counts is None:
                return self._label_counts(entry, entry["totals"][None, :])
            sums = self._weighted_sums(entry, item_counts, draws=self.draws_bound)
            return self._label_counts(entry, sums)
        annotator_counts = np.asarray(annotator_counts, np.int64)
        R = len(annotator_counts)
        unique, inverse = np.unique(annotator_counts, axis=0, return_inverse=True)
        out = None
        for u, weights in enumerate(unique):
            rows = np.flatnonzero(inverse.ravel() == u)
            entry = self._table(weights)
            if item_counts is None:
                sums = np.broadcast_to(entry["totals"], (rows.size, entry["totals"].size))
            else:
                sums = self._weighted_sums(entry, item_counts[rows], draws=self.draws_bound)
            counts = self._label_counts(entry, sums)
            if out is None:
                out = np.zeros((R,) + counts.shape[1:], np.int64)
            out[rows] = counts
        return out

    # dask: block by block ----------------------------------------------------------------

    @property
    def is_lazy(self) -> bool:
        return self.ordered is not None and _is_dask(self.ordered.data)

    def item_tables(self) -> dict:
        return {"table": self._table(np.ones(self.n_annotators, np.int64))["table"]}

    def finish_sums(self, sums: dict) -> xr.Dataset:
        entry = self._table(np.ones(self.n_annotators, np.int64))
        return self.finish([self._label_counts(entry, np.rint(sums["table"]).astype(np.int64))])

    def drop_tables(self) -> None:
        """Forget the data (the finishing task needs none of it)."""
        self.ordered = None
        self._coords = None  # every coordinate of the input (N item labels): not needed
        self._tables = {}

    def _blocks(self) -> list:
        """(delayed block, its coords, extra block index, extra ranges, item range) per
        block of the data, annotator and label merged into single chunks."""
        data = self.ordered.data
        nd = data.ndim
        data = data.rechunk({nd - 2: -1, nd - 1: -1})
        offsets = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in data.chunks]
        delayed = data.to_delayed()
        blocks = []
        for index in np.ndindex(*data.numblocks[:-2]):
            ranges = [(int(offsets[axis][i]), int(offsets[axis][i + 1]))
                      for axis, i in enumerate(index)]
            coords = {dim: values[start:stop]
                      for (dim, values), (start, stop) in zip(self._coords, ranges)}
            coords.update(self._coords[-2:])  # annotator and label: whole
            blocks.append((delayed[index + (0, 0)], coords, index[:-1], ranges[:-1],
                           ranges[-1]))
        return blocks

    def _block_statistic(self, block, coords) -> MLAStatistic:
        da = xr.DataArray(block, dims=self.ordered_dims, coords=coords)
        sub = MLAStatistic(da, self.baselines, self.single, item=self.item,
                           annotator=self.annotator, label=self.label)
        return sub

    def lazy_units(self, resample: str) -> bool:
        """items, annotators or both"""
        return True

    def total_rows(self, totals, start, stop) -> np.ndarray:
        """Rows ``start:stop`` of :meth:`lazy_totals`'s result, as :meth:`finish` takes
        them."""
        rows = np.moveaxis(np.asarray(totals), len(self.extra_shape), 0)[start:stop]
        return rows.reshape((rows.shape[0], -1) + rows.shape[-3:])

    def lazy_totals(self, resampler, annotator_counts, loo_annotators, token: str):
        """Delayed (*extra, rows, k, n + 1, 3) int64 label counts: the replicates, then the
        estimate, then the leave-one-annotator-out values (if asked), summed over blocks
        (keys named with ``token``)."""
        import dask

        shared = dask.delayed(resampler, pure=True, name=f"bootstrap-resampler-{token}")
        finisher = dask.delayed(self.finisher(), pure=True,
                                name=f"bootstrap-statistic-{token}")
        parts, places = {}, {}
        for number, (block, coords, extra_index, extra_ranges, item_range) in enumerate(
            self._blocks()
        ):
            part = dask.delayed(_block_label_counts, pure=True)(
                finisher, block, coords, item_range, shared, annotator_counts,
                loo_annotators, dask_key_name=f"bootstrap-counts-{token}-{number}")
            parts.setdefault(extra_index, []).append(part)
            places[extra_index] = extra_ranges
        summed = self._tree_sums(parts, f"bootstrap-counts-sum-{token}")
        return dask.delayed(_place_extra_blocks, pure=True)(
            summed, places, self.extra_shape, dask_key_name=f"bootstrap-counts-total-{token}")

    def lazy_item_jackknife(self, totals, estimate_row: int, templates: dict, token: str):
        """Delayed {name: (4, *shape)} sums of the item jackknife's moments (see
        :class:`JackknifeMoments`) for the variables of ``templates`` ({name: (dims,
        shape)} of the result), given the delayed totals of :meth:`lazy_totals`
        whose row ``estimate_row`` holds the estimate's label counts."""
        import dask

        finisher = dask.delayed(self.finisher(), pure=True,
                                name=f"bootstrap-statistic-{token}")
        parts = []
        for number, (block, coords, _, extra_ranges, _) in enumerate(self._blocks()):
            parts.append(dask.delayed(_block_item_jackknife, pure=True)(
                finisher, block, coords, extra_ranges, totals, estimate_row, templates,
                dask_key_name=f"bootstrap-jackknife-{token}-{number}"))
        return self._tree_sums({(): parts}, f"bootstrap-jackknife-sum-{token}")[()]

    @staticmethod
    def _tree_sums(parts: dict, name: str) -> dict:
        """The parts of each extra block summed, 8 at a time."""
        return {extra_index: _tree_sum(level, f"{name}-{'-'.join(map(str, extra_index))}")
                for extra_index, level in parts.items()}

    def finish(self, batches) -> xr.Dataset:

        label_counts = np.concatenate(batches, axis=0)
        R = label_counts.shape[0]
        label_counts = label_counts.reshape((R,) + self.extra_shape + label_counts.shape[2:])
        # the resample dim leads as an extra dim; one dummy item (item-level values are not
        # bootstrapped and are dropped)
        dummy = np.zeros((R,) + self.extra_shape + (1,), np.int64)
        values = finish_counts(label_counts, dummy, dummy, self.baselines)
        result = assemble(values, self.baselines, self.single, extra=[RESAMPLE_DIM, *self.extra],
                          item=self.item, label=self.label,
                          coords=xr.Coordinates({**self.coords, RESAMPLE_DIM: np.arange(R)}),
                          n_annotators=self.n_annotators)
        return result.drop_vars([name for name, var in result.data_vars.items()
                                 if self.item in var.dims or name.startswith("n_")])


def _ones_column(occurs, column_of):
    """The table column of the cell count of the first (extra, label) whose cells all have
    the same number of deciders (a column of ones), or None."""
    single = np.flatnonzero(occurs.sum(axis=-1).ravel() == 1)
    if not single.size:
        return None
    g, j = np.unravel_index(single[0], occurs.shape[:2])
    return int(column_of[g, j, np.flatnonzero(occurs[g, j])[0], 0])


def _count_block(block, weights, coords=None, parallel=False, block_info=None):
    """(..., N, n, k) decisions -> (..., N, k, 2) int32 weighted positives and deciders.

    ``coords`` holds (dim, coordinate values) of the whole array, used to name an invalid
    value (``block_info`` locates a dask block in it).
    """
    positives, deciders = _count_arrays(block, weights, coords, parallel, block_info)
    return np.stack([positives, deciders], axis=-1)


def _count_arrays(block, weights, coords=None, parallel=False, block_info=None):
    """(..., N, n, k) decisions -> weighted positives and deciders, each (..., N, k) int32
    (see :func:`_count_block`)."""
    values = kernel_input(block)
    lead = values.shape[:-2]
    n, k = values.shape[-2:]
    flat = values.reshape(-1, n, k)
    positives = np.zeros((flat.shape[0], k), np.int32)
    deciders = np.zeros((flat.shape[0], k), np.int32)
    weights = np.asarray(weights, np.int64)
    if flat.size:
        rows = flat.shape[0]
        if parallel and threading.current_thread() is threading.main_thread() and (
            rows >= 4096
        ):
            # item ranges in Python threads (numba's parallel layer spin-waits when busy)
            bad = sum(_in_threads(
                lambda i0, i1: _kernels._weighted_item_range(
                    flat, weights, i0, i1, positives, deciders
                ),
                rows,
                2 * (os.cpu_count() or 1),
            ))
        else:
            bad = _kernels.weighted_item_counts(flat, weights, positives, deciders)
        if bad:
            if coords is None:
                coords = [(f"axis {i}", np.arange(s)) for i, s in enumerate(values.shape)]
            if block_info and 0 in block_info:
                location = block_info[0]["array-location"]
                coords = [(d, v[a:b]) for (d, v), (a, b) in zip(coords, location)]
            raise ValueError(describe_position(values, coords))
    return positives.reshape(lead + (k,)), deciders.reshape(lead + (k,))


def _block_label_counts(statistic, block, coords, item_range, resampler, annotator_counts,
                        loo_annotators) -> np.ndarray:
    """One block's part of :meth:`MLAStatistic.lazy_totals`: (*extra block, rows, k,
    n + 1, 3) int64."""
    sub = statistic._block_statistic(np.asarray(block), coords)
    i0, i1 = item_range
    parts = []
    if resampler is not None:
        sub.draws_bound = resampler.max_draws(i0, i1)
        n_resamples = resampler.n_resamples
        step = batch_rows(max(1, i1 - i0), n_resamples)
        for start in range(0, n_resamples, step):
            rows = min(step, n_resamples - start)
            counts = resampler.counts(start, rows, i0, i1, threads=False)
            chosen = None if annotator_counts is None else annotator_counts[start : start + rows]
            parts.append(sub.replicates(counts, chosen))
    else:
        parts.append(sub.replicates(None, annotator_counts))
    parts.append(sub.replicates(None, None))
    if loo_annotators is not None:
        parts.append(sub.replicates(None, loo_annotators))
    rows = np.concatenate(parts)
    rows = rows.reshape((len(rows),) + sub.extra_shape + rows.shape[2:])
    return np.moveaxis(rows, 0, len(sub.extra_shape))


def _block_item_jackknife(statistic, block, coords, extra_ranges, totals, estimate_row,
                          templates, batch: int = 4096) -> dict:
    """One block's part of :meth:`MLAStatistic.lazy_item_jackknife`: the moment sums of
    its items' leave-one-out values, placed in the result's shapes (zero elsewhere)."""
    sub = statistic._block_statistic(np.asarray(block), coords)
    region = tuple(slice(start, stop) for start, stop in extra_ranges)
    own = totals[region][..., estimate_row, :, :, :]
    own = own.reshape((1, -1) + own.shape[-3:])  # (1, G block, k, n + 1, 3)
    estimate = sub.finish([own]).isel({RESAMPLE_DIM: 0})
    moments = {name: JackknifeMoments(estimate[name].transpose(*dims).values)
               for name, (dims, _) in templates.items()}
    entry = sub._table(np.ones(sub.n_annotators, np.int64))
    for start in range(0, sub.n_items, batch):
        rows = entry["table"][start : start + batch].astype(np.int64)
        values = sub.finish([own - sub._label_counts(entry, rows)])
        for name, (dims, _) in templates.items():
            moments[name].add(values[name].transpose(*dims, RESAMPLE_DIM).values)
    out = {}
    for name, (dims, shape) in templates.items():
        placed = np.zeros((4, *shape))
        where = tuple(region[statistic.extra.index(d)] if d in statistic.extra else slice(None)
                      for d in dims)
        placed[(slice(None), *where)] = np.stack(moments[name].sums)
        out[name] = placed
    return out


def _fixed_item_table(block, n_annotators, n_labels) -> np.ndarray:
    """(N, G k (n + 1) 3) float64 per-item table of a block (item axis first, then the extra
    axes, annotator, label) with a column for every (extra, label, m, stat)."""
    values = np.moveaxis(np.asarray(block), 0, -3)  # (*extra, N, n, k)
    positives, deciders = _count_arrays(values, np.ones(n_annotators, np.int64))
    N = values.shape[-3]
    positives = positives.reshape(-1, N, n_labels)
    deciders = deciders.reshape(-1, N, n_labels)
    G = positives.shape[0]
    column_of = np.arange(G * n_labels * (n_annotators + 1) * 3, dtype=np.int64).reshape(
        G, n_labels, n_annotators + 1, 3)
    table = np.empty((N, column_of.size))
    totals = np.zeros(column_of.size, np.int64)
    _kernels.fill_item_table(positives, deciders, column_of, table, totals, 0, N)
    return table


def _place_extra_blocks(summed: dict, places: dict, extra_shape) -> np.ndarray:
    """The per-extra-block sums put together into one array (extra dims first)."""
    first = next(iter(summed.values()))
    out = np.zeros(tuple(extra_shape) + first.shape[len(extra_shape):], first.dtype)
    for index, part in summed.items():
        out[tuple(slice(start, stop) for start, stop in places[index])] = part
    return out


def mla_intervals(da: xr.DataArray, result: xr.Dataset, baselines: list[str], single: bool, *,
                  item: str, annotator: str, label: str, statistic: MLAStatistic | None = None,
                  **options) -> xr.Dataset:
    """The :func:`xr_agreement.mla` result with bootstrap intervals (``options``: the
    keywords of :func:`xr_agreement.resampling.bootstrap`); ``statistic`` is the
    :class:`MLAStatistic` of ``da`` if made already."""

    def make_statistic(inputs):
        return MLAStatistic(inputs["da"], baselines, single, item=item, annotator=annotator,
                            label=label)

    if statistic is None:
        statistic = make_statistic({"da": da})
    return bootstrap(statistic, result, variables=interval_variables(result, item), item=item,
                     rebuild=(make_statistic, {"da": da}), **options)
