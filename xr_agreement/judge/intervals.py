"""Bootstrap intervals of :func:`xr_agreement.versus` (:class:`VersusStatistic`)."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from ..mla import MLAStatistic
from ..resampling.intervals import RESAMPLE_DIM
from ..resampling.statistics import TableStatistic
from .measures import _assemble, _coverage, _table_measures, HUMAN_BASELINES, MEASURES


def _flat(data, n_items: int, dtype):
    """(N, ...) array -> (N, F), numpy or dask (all but the item axis in one chunk)."""
    if _is_dask(data):
        data = data.rechunk({i: -1 for i in range(1, data.ndim)})
    return data.reshape(n_items, -1).astype(dtype)


def _in_memory(template: xr.DataArray) -> xr.DataArray:
    """A numpy DataArray with the dims, shape and in-memory coords of ``template`` (its
    values are never read: the finishing task must not carry the input's graph; dask
    coords, such as a chunked ``label_name``, are left out)."""
    coords = {name: coord.variable for name, coord in template.coords.items()
              if not _is_dask(coord.data)}
    return xr.DataArray(np.zeros(template.shape), dims=template.dims, coords=coords)


class VersusStatistic(TableStatistic):
    """:func:`versus` on item resamples, from per-item tables.

    Every table of :func:`versus` is a sum over items of the 0/1 cell counts, so the label
    tables of a batch of replicates are one matrix product: the resampling counts ``W``
    (R x N) times the per-item counts (N x labels x 6). The exemplar average is the
    ``W``-weighted mean of the per-item measures (undefined items left out), and the human
    agreement comes from the per-item table of :class:`xr_agreement.mla.MLAStatistic`
    on the same ``W``. On dask input the tables stay lazy, chunked like the items, and the
    bootstrap runs block by block (:class:`xr_agreement.resampling.TableStatistic`).
    """

    def __init__(self, counts: xr.DataArray, modes: list[str], humans: xr.DataArray, *,
                 item: str, annotator: str, label: str):
        self.item, self.label, self.modes = item, label, modes
        extra = [d for d in counts.dims if d not in (item, label, "count")]
        counts = counts.transpose(item, *extra, label, "count")
        if _is_dask(counts.data):
            counts = counts.chunk({d: -1 for d in counts.dims if d != item})
        self.n_items = counts.sizes[item]
        self.n_annotators = humans.sizes[annotator]
        # (extra..., label, count) without item: the shape of one replicate's label tables
        self.template = _in_memory(counts.isel({item: 0}, drop=True))
        self.tables = {"cells": _flat(counts.data, self.n_items, np.float64)}
        by_item = counts.sum(label)
        for m, mode in enumerate(modes):
            values = _table_measures(by_item, mode).sel(measure=list(MEASURES))
            self.measure_template = _in_memory(values.isel({item: 0}, drop=True))
            # (N, G) measures with NaN as 0, and defined 0/1
            self.tables[f"values {m}"] = _flat(values.fillna(0.0).data, self.n_items,
                                               np.float64)
            self.tables[f"defined {m}"] = _flat(values.notnull().data, self.n_items,
                                                np.float64)
        self.human = None
        if humans.sizes[annotator] >= 2:
            self.human = MLAStatistic(
                humans, HUMAN_BASELINES, False, item=item, annotator=annotator, label=label,
            )
            self.tables["human"], self.human_entry = self.human.item_table()
            self.human = self.human.finisher()

    def item_tables(self) -> dict:
        return self.tables

    def drop_tables(self) -> None:
        self.tables = {name: None for name in self.tables}

    def finish_sums(self, sums: dict) -> xr.Dataset:
        # counts are exact: integers far below 2**53
        exemplar = []
        for m in range(len(self.modes)):
            total = sums[f"defined {m}"]
            with np.errstate(divide="ignore", invalid="ignore"):
                exemplar.append(np.where(total > 0, sums[f"values {m}"] / total, np.nan))
        human = None
        if self.human is not None:
            human = self.human._label_counts(self.human_entry,
                                             np.rint(sums["human"]).astype(np.int64))
        return self._finish_parts([(np.rint(sums["cells"]), exemplar, human)])

    def _finish_parts(self, batches) -> xr.Dataset:
        """The Dataset from batches of (label tables, exemplar values per mode, human label
        counts)."""
        tables = np.concatenate([b[0] for b in batches])
        R = len(tables)
        dims = (RESAMPLE_DIM, *self.template.dims)
        by_label = xr.DataArray(
            tables.reshape((R,) + self.template.shape), dims=dims,
            coords=self.template.coords,
        )
        pooled = by_label.sum(self.label)
        per_mode = []
        for m, mode in enumerate(self.modes):
            exemplar = np.concatenate([b[1][m] for b in batches])
            exemplar = xr.DataArray(
                exemplar.reshape((R,) + self.measure_template.shape),
                dims=(RESAMPLE_DIM, *self.measure_template.dims),
                coords=self.measure_template.coords,
            )
            per_mode.append(_assemble(by_label, pooled, exemplar, mode, self.label))
        if len(self.modes) == 1:
            label_measures, averaged = per_mode[0]
        else:
            label_measures, averaged = (
                xr.concat([p[k] for p in per_mode], dim="abstain", coords="minimal")
                .assign_coords(abstain=self.modes)
                for k in range(2)
            )
        data = {"label_coverage": _coverage(by_label), "coverage": _coverage(pooled)}
        for name in MEASURES:
            data["label_" + name] = label_measures.sel(measure=name, drop=True)
            data[name] = averaged.sel(measure=name, drop=True)
        if self.human is not None:
            human = self.human.finish([b[2] for b in batches])
            data["human_agreement"] = human.agreement
            data["label_human_agreement"] = human.label_agreement
        return xr.Dataset(data).assign_coords({RESAMPLE_DIM: np.arange(R)})
