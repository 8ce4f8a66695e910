"""Weighted statistics: a coefficient evaluated on resamples given as unit counts
(:class:`WeightedStatistic`, :class:`RecomputedStatistic`, :class:`TableStatistic`), and
their jackknife."""

from __future__ import annotations

import copy

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .draws import BATCH_BYTES, batch_rows
from .fast import _add_all
from .intervals import acceleration, JackknifeMoments, RESAMPLE_DIM


# --------------------------------------------------------------------------- statistics


class WeightedStatistic:
    """A statistic evaluated on resamples given as unit counts.

    Subclasses implement :meth:`replicates` (a batch of replicates, in any form they like)
    and :meth:`finish` (batches -> Dataset with a ``resample`` dim); :meth:`leave_one_out`
    has a generic implementation through the same two methods.
    """

    n_items: int
    n_annotators: int

    def replicates(self, item_counts, annotator_counts):
        """Replicates with item ``i`` counted ``item_counts[r, i]`` times and annotator ``a``
        counted ``annotator_counts[r, a]`` times; None means every count is 1. The count
        arrays are reused after the call: keep results, not references to them."""
        raise NotImplementedError

    def finish(self, batches: list) -> xr.Dataset:
        raise NotImplementedError

    def leave_one_out(self, unit: str, batch: int = 256):
        """Yield ``(values, multiplicity)``: the statistic without each ``unit`` ("item" or
        "annotator") in turn, in batches (a Dataset with a ``resample`` dim);
        ``multiplicity[r]`` counts the units whose removal gives these values."""
        size = self.n_items if unit == "item" else self.n_annotators
        for start in range(0, size, batch):
            rows = min(batch, size - start)
            counts = np.ones((rows, size), np.float32)
            counts[np.arange(rows), start + np.arange(rows)] = 0
            if unit == "item":
                values = self.finish([self.replicates(counts, None)])
            else:
                values = self.finish([self.replicates(None, counts.astype(np.int64))])
            yield values, np.ones(rows, np.int64)


class RecomputedStatistic(WeightedStatistic):
    """Any ``function(DataArray) -> Dataset``, recomputed on each resampled array.

    The generic (slow) route: the resampled array repeats item ``i`` ``W[r, i]`` times and
    annotator ``a`` ``c[r, a]`` times (given fresh coordinates ``0 .. n - 1`` so duplicates
    stay distinct raters).
    """

    def __init__(self, function, da: xr.DataArray, *, item: str, annotator: str):
        self.function = function
        self.da = da
        self.item = item
        self.annotator = annotator
        self.n_items = da.sizes[item]
        self.n_annotators = da.sizes[annotator]

    def _select(self, dim, counts):
        size = self.da.sizes[dim]
        return np.repeat(np.arange(size), np.asarray(counts, np.int64))

    def replicates(self, item_counts, annotator_counts):
        if item_counts is None and annotator_counts is None:
            return [self.function(self.da)]
        rows = len(item_counts) if item_counts is not None else len(annotator_counts)
        out = []
        for r in range(rows):
            selection = {}
            if item_counts is not None:
                selection[self.item] = self._select(self.item, item_counts[r])
            if annotator_counts is not None:
                selection[self.annotator] = self._select(self.annotator, annotator_counts[r])
            resampled = self.da.isel(selection)
            for dim in selection:
                resampled = resampled.assign_coords({dim: np.arange(resampled.sizes[dim])})
            out.append(self.function(resampled))
        return out

    def finish(self, batches):
        results = [r for batch in batches for r in batch]
        return xr.concat(results, dim=RESAMPLE_DIM, coords="minimal", compat="override")


class TableStatistic(WeightedStatistic):
    """The bootstrap protocol of every family: item resamples are ``finish_sums(W @ T)``,
    per-item tables ``T`` (N x F each) summed with the resampling counts ``W``.

    A family gives :meth:`item_tables` and :meth:`finish_sums` (and :meth:`drop_tables`;
    it may override :meth:`replicates` for annotator resampling). Everything else has a
    generic form here: item replicates (one matrix product per table), the item jackknife
    (the totals minus one item's rows), the streamed products of
    :func:`.fast.stream_item_blocks` (:meth:`block_sums`, :meth:`from_sums`, and a
    :meth:`pairing` for two replicates per row), and on dask input (tables chunked along
    items) the block-by-block run of :func:`.driver.lazy_intervals` (:meth:`lazy_totals`,
    :meth:`lazy_item_jackknife`): nothing is gathered.
    """

    def item_tables(self) -> dict:
        """{name: (N, F) array}, numpy or dask (chunked along items only)."""
        raise NotImplementedError

    def finish_sums(self, sums: dict) -> xr.Dataset:
        """The statistic from {name: (R, F) float64 weighted column sums}, with a
        ``resample`` dim of length R."""
        raise NotImplementedError

    def drop_tables(self) -> None:
        """Forget the tables (see :meth:`finisher`)."""
        raise NotImplementedError

    @property
    def is_lazy(self) -> bool:
        return any(_is_dask(table) for table in self.item_tables().values())

    def lazy_units(self, resample: str) -> bool:
        """items only"""
        return resample == "item"

    def finisher(self) -> TableStatistic:
        """A copy without its tables (small, for the finishing task)."""
        light = copy.copy(self)
        light.drop_tables()
        return light

    def replicates(self, item_counts, annotator_counts):
        if annotator_counts is not None:
            raise ValueError(f"{type(self).__name__} resamples items only")
        tables = self.item_tables()
        if item_counts is None:
            return {name: np.asarray(t, np.float64).sum(axis=0)[None] for name, t in
                    tables.items()}
        weights = np.asarray(item_counts, np.float64)
        return {name: weights @ np.asarray(t, np.float64) for name, t in tables.items()}

    def finish(self, batches) -> xr.Dataset:
        return self.finish_sums({name: np.concatenate([b[name] for b in batches])
                                 for name in batches[0]})

    def leave_one_out(self, unit: str, batch: int = 4096):
        if unit != "item":
            yield from super().leave_one_out(unit, batch)
            return
        tables = {name: np.asarray(t, np.float64) for name, t in self.item_tables().items()}
        yield from _table_leave_one_out(self, tables,
                                        {n: t.sum(axis=0) for n, t in tables.items()}, batch)

    def prepare(self) -> None:
        """Make the tables that :meth:`block_sums` reads (before threads call it)."""
        self.item_tables()

    def block_sums(self, item_counts, i0: int, i1: int, draws: int) -> dict:
        """{name: (R, F)} column sums of the tables' rows ``i0:i1`` weighted by
        ``item_counts``; their sums over all blocks go to :meth:`from_sums`."""
        weights = np.asarray(item_counts, np.float64)
        return {name: weights @ np.asarray(t[i0:i1], np.float64)
                for name, t in self.item_tables().items()}

    def pairing(self):
        """How to multiply two replicates per row (:func:`.fast.replicate_pairing`), or None:
        a statistic that returns a pairing gives :meth:`pair_sums` too."""
        return None

    def from_sums(self, sums: dict) -> dict:
        """A batch for :meth:`finish` from the summed :meth:`block_sums`."""
        return sums

    def total_rows(self, totals: dict, start, stop) -> dict:
        return {name: np.asarray(t)[start:stop] for name, t in totals.items()}

    def lazy_totals(self, resampler, annotator_counts, loo_annotators, token: str):
        """Delayed {name: (R + 1, F)}: every replicate's column sums, then the estimate's,
        summed over item blocks (keys named with ``token``)."""
        import dask

        tables = self._aligned_tables()
        names = list(tables)
        shared = dask.delayed(resampler, pure=True, name=f"bootstrap-resampler-{token}")
        parts = []
        for number, (item_range, blocks) in enumerate(self._table_blocks(tables)):
            parts.append(dask.delayed(_block_table_sums, pure=True)(
                names, blocks, item_range, shared,
                dask_key_name=f"bootstrap-counts-{token}-{number}"))
        return _tree_sum(parts, f"bootstrap-counts-sum-{token}")

    def lazy_item_jackknife(self, totals, estimate_row: int, templates: dict, token: str):
        """Delayed {name: (4, *shape)} item-jackknife moment sums, block by block."""
        import dask

        tables = self._aligned_tables()
        names = list(tables)
        finisher = dask.delayed(self.finisher(), pure=True,
                                name=f"bootstrap-statistic-{token}")
        parts = []
        for number, (_, blocks) in enumerate(self._table_blocks(tables)):
            parts.append(dask.delayed(_block_table_jackknife, pure=True)(
                finisher, names, blocks, totals, estimate_row, templates,
                dask_key_name=f"bootstrap-jackknife-{token}-{number}"))
        return _tree_sum(parts, f"bootstrap-jackknife-sum-{token}")

    def _aligned_tables(self) -> dict:
        """The tables as dask arrays with the first table's item chunks, one chunk across."""
        import dask.array

        tables = {name: dask.array.asarray(t) for name, t in self.item_tables().items()}
        chunks = next(iter(tables.values())).chunks[0]
        return {name: t.rechunk({0: chunks, 1: -1}) for name, t in tables.items()}

    @staticmethod
    def _table_blocks(tables: dict):
        """(item range, [delayed block of each table]) per item block."""
        first = next(iter(tables.values()))
        offsets = np.concatenate([[0], np.cumsum(first.chunks[0])]).astype(np.int64)
        delayed = [t.to_delayed()[:, 0] for t in tables.values()]
        for b in range(len(first.chunks[0])):
            yield (int(offsets[b]), int(offsets[b + 1])), [d[b] for d in delayed]


def _table_leave_one_out(statistic, tables: dict, totals: dict, batch: int):
    """Yield ``(values, multiplicity)`` of the statistic without each item of ``tables``
    (numpy), the others' sums being ``totals - row``; batches hold at most ``batch`` rows
    and :data:`BATCH_BYTES` of sums (wide tables make the finishing's temporaries large)."""
    n_items = len(next(iter(tables.values())))
    width = sum(t.shape[1] for t in tables.values())
    batch = max(1, min(batch, BATCH_BYTES // (8 * max(1, width))))
    for start in range(0, n_items, batch):
        rows = slice(start, min(n_items, start + batch))
        sums = {n: totals[n][None] - np.asarray(t[rows], np.float64) for n, t in tables.items()}
        yield statistic.finish_sums(sums), np.ones(rows.stop - rows.start, np.int64)


def _block_table_sums(names, blocks, item_range, resampler) -> dict:
    """One item block's part of :meth:`TableStatistic.lazy_totals`."""
    i0, i1 = item_range
    tables = [np.asarray(b, np.float64) for b in blocks]
    n_resamples = resampler.n_resamples
    out = {n: np.zeros((n_resamples + 1, t.shape[1])) for n, t in zip(names, tables)}
    step = batch_rows(max(1, i1 - i0), n_resamples)
    # wide fixed-layout tables are mostly zero columns: multiply the others only
    used = [np.flatnonzero(t.any(axis=0)) for t in tables]
    compact = [t[:, columns] for t, columns in zip(tables, used)]
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        counts = resampler.counts(start, rows, i0, i1, threads=False).astype(np.float64)
        for n, t, columns in zip(names, compact, used):
            out[n][start : start + rows, columns] = counts @ t
    for n, t in zip(names, tables):
        out[n][n_resamples] = t.sum(axis=0)
    return out


def _block_table_jackknife(statistic, names, blocks, totals, estimate_row, templates) -> dict:
    """One item block's part of :meth:`TableStatistic.lazy_item_jackknife`."""
    tables = {n: np.asarray(b, np.float64) for n, b in zip(names, blocks)}
    estimate = statistic.finish_sums({n: np.asarray(totals[n])[estimate_row : estimate_row + 1]
                                      for n in names}).isel({RESAMPLE_DIM: 0})
    moments = {name: JackknifeMoments(estimate[name].transpose(*dims).values)
               for name, (dims, _) in templates.items()}
    own = {n: np.asarray(totals[n])[estimate_row] for n in names}
    for values, multiplicity in _table_leave_one_out(statistic, tables, own, 4096):
        for name, (dims, _) in templates.items():
            moments[name].add(values[name].transpose(*dims, RESAMPLE_DIM).values, multiplicity)
    return {name: np.stack(moments[name].sums).reshape((4, *shape))
            for name, (_, shape) in templates.items()}


def _tree_sum(parts: list, name: str):
    """Delayed sum of ``parts`` (arrays or dicts of arrays), 8 at a time."""
    import dask

    depth = 0
    while len(parts) > 1:
        parts = [dask.delayed(_add_all, pure=True)(*parts[i : i + 8],
                                                   dask_key_name=f"{name}-{depth}-{i}")
                 for i in range(0, len(parts), 8)]
        depth += 1
    return parts[0]


def jackknife_accelerations(
    statistic: WeightedStatistic,
    units: list[str],
    estimate: xr.Dataset,
    variables: list[str],
    result: xr.Dataset,
) -> dict[str, np.ndarray]:
    """BCa acceleration of each variable (shaped like ``result[name]``) from the
    leave-one-out jackknife over ``units``, streamed batch by batch."""
    moments = {
        name: [
            JackknifeMoments(estimate[name].transpose(*result[name].dims).values)
            for _ in units
        ]
        for name in variables
    }
    for u, unit in enumerate(units):
        for values, multiplicity in statistic.leave_one_out(unit):
            for name in variables:
                dims = (*result[name].dims, RESAMPLE_DIM)
                moments[name][u].add(values[name].transpose(*dims).values, multiplicity)
    return {name: acceleration(moments[name]) for name in variables}
