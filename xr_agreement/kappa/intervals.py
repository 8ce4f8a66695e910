"""Bootstrap intervals of the kappa family (:class:`KappaStatistic` and its glue)."""

from __future__ import annotations

import operator
from functools import reduce

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from ..resampling.driver import bootstrap, check_options
from ..resampling.intervals import RESAMPLE_DIM
from ..resampling.statistics import TableStatistic


# --------------------------------------------------------------------------- bootstrap


def _item_sum(values, item, item_weights):
    """Sum over items, item ``i`` counted ``item_weights[..., i]`` times when given (dims
    resample, item): the sum over an item-resampled array, without building it."""
    if item_weights is None:
        return values.sum(item, skipna=False)
    return xr.dot(values.astype(np.float64), item_weights, dim=item)


def _column_sums(columns: dict, item, item_weights=None) -> dict:
    """:func:`_item_sum` of each per-item column; a column given as a tuple of factors (its
    per-item term is their product) is summed without forming that product."""
    sums = {}
    for name, column in columns.items():
        if not isinstance(column, tuple):
            sums[name] = _item_sum(column, item, item_weights)
        else:
            weights = () if item_weights is None else (item_weights,)
            sums[name] = xr.dot(*column, *weights, dim=item)
    return sums


_BOOTSTRAP_KEYS = ("ci", "n_resamples", "resample", "ci_method", "seed", "return_replicates",
                   "progress")


def _bootstrap_options(arguments: dict) -> dict:
    """The bootstrap keywords among a public function's ``locals()``."""
    return {key: arguments[key] for key in _BOOTSTRAP_KEYS}


def _check_bootstrap(options: dict):
    """Validated keywords for :func:`xr_agreement.resampling.bootstrap`, None without ``ci``."""
    if options["ci"] is None:
        return None
    ci, n_resamples, resample, ci_method = check_options(
        options["ci"],
        options["n_resamples"],
        options["resample"],
        options["ci_method"],
        options["seed"],
        options["progress"],
    )
    return {
        "ci": ci,
        "n_resamples": n_resamples,
        "resample": resample,
        "ci_method": ci_method,
        "seed": options["seed"],
        "return_replicates": bool(options["return_replicates"]),
        "progress": options["progress"],
    }


def _kappa_intervals(statistic: KappaStatistic, result, options) -> xr.Dataset:
    """``result`` with bootstrap intervals (see :func:`xr_agreement.resampling.bootstrap`
    for the eager, block-by-block and deferred runs on dask input). Gathered, the task
    gets the indicator arrays in memory; the input array only lends dims and coords."""
    data = statistic.data
    light = dict(data, da=data["da"].isel({data["item"]: slice(0, 0)}))

    def make_statistic(arrays):
        return KappaStatistic(dict(light, **arrays), statistic.columns, statistic.values,
                              statistic.variables)

    arrays = {key: data[key] for key in ("indicator", "rated")}
    return bootstrap(statistic, result, variables=statistic.variables, item=data["item"],
                     rebuild=(make_statistic, arrays), **options)


class KappaStatistic(TableStatistic):
    """A coefficient of this module on resamples, for :func:`xr_agreement.resampling.bootstrap`.

    ``columns(data)`` gives the per-item terms whose sums over items the coefficient's point
    values use (:func:`_gwet_columns`, :func:`_cohen_columns`), ``values(data, sums)`` the
    variables from those sums (weighted sums, with a ``resample`` dim, give the values on
    item-resampled data). Item resampling is therefore ``values(W @ T)`` with each column
    flattened into a per-item table ``T`` (numpy, or dask chunked along items: then block by
    block). Annotator counts select the annotators (a copy is one more rater with the same
    ratings) and each such replicate is evaluated on its own from its columns.
    """

    def __init__(self, data: dict, columns, values, variables: list[str]):
        annotator = data["annotator"]
        data = dict(data)
        for key in ("indicator", "rated"):
            array = data[key]
            # copies of an annotator must not meet as duplicate coordinate labels
            on_annotator = [name for name, c in array.coords.items() if annotator in c.dims]
            data[key] = array.drop_vars(on_annotator)
        self.data = data
        self.columns = columns
        self.values = values
        self.variables = variables
        self.n_items = data["indicator"].sizes[data["item"]]
        self.n_annotators = data["indicator"].sizes[annotator]
        self._tables = None
        self.layout = None  # {column: (dims, shape) beyond the item dim}, set with the tables

    @property
    def is_lazy(self) -> bool:
        return _is_dask(self.data["indicator"].data)

    def item_tables(self) -> dict:
        if self._tables is None:
            item = self.data["item"]
            self._tables, self.layout = {}, {}
            for name, column in self.columns(self.data).items():
                if isinstance(column, tuple):
                    column = reduce(operator.mul, column)
                column = column.astype(np.float64).transpose(item, ...)
                dims, shape = column.dims[1:], column.shape[1:]
                self.layout[name] = (dims, shape)
                table = column.data
                if _is_dask(table):  # items keep their chunks
                    table = table.rechunk({axis: -1 for axis in range(1, table.ndim)})
                self._tables[name] = table.reshape(self.n_items, int(np.prod(shape)))
        return self._tables

    def drop_tables(self) -> None:
        self.item_tables()  # the layout is needed to finish
        self._tables = None
        self.data = {k: v for k, v in self.data.items() if k not in ("indicator", "rated", "da")}

    def finish_sums(self, sums: dict) -> xr.Dataset:
        rows = len(next(iter(sums.values())))
        arrays = {}
        for name, (dims, shape) in self.layout.items():
            arrays[name] = xr.DataArray(np.asarray(sums[name]).reshape(rows, *shape),
                                        dims=(RESAMPLE_DIM, *dims))
        return self._dataset(self.values(self.data, arrays), rows)

    def _dataset(self, values: dict, rows: int) -> xr.Dataset:
        return xr.Dataset({
            name: values[name]
            if RESAMPLE_DIM in values[name].dims
            else values[name].expand_dims({RESAMPLE_DIM: rows})
            for name in self.variables
        })

    def _evaluate(self, data: dict, item_counts) -> xr.Dataset:
        item = data["item"]
        weights = None
        if item_counts is not None:
            weights = xr.DataArray(np.asarray(item_counts, np.float64),
                                   dims=(RESAMPLE_DIM, item))
        sums = _column_sums(self.columns(data), item, weights)
        return self._dataset(self.values(data, sums), 1 if weights is None else len(weights))

    def replicates(self, item_counts, annotator_counts):
        if annotator_counts is None:
            if item_counts is None:  # the estimate, as the coefficient computes it
                return [self._evaluate(self.data, None)]
            return super().replicates(item_counts, None)
        annotator = self.data["annotator"]
        out = []
        for r, counts in enumerate(np.asarray(annotator_counts, np.int64)):
            chosen = {annotator: np.repeat(np.arange(self.n_annotators), counts)}
            data = dict(
                self.data,
                indicator=self.data["indicator"].isel(chosen),
                rated=self.data["rated"].isel(chosen),
            )
            rows = None if item_counts is None else item_counts[r : r + 1]
            out.append(self._evaluate(data, rows))
        return out

    def finish(self, batches) -> xr.Dataset:
        if isinstance(batches[0], dict):  # column sums of item replicates
            return super().finish(batches)
        results = [dataset for batch in batches for dataset in batch]
        return xr.concat(results, dim=RESAMPLE_DIM, coords="minimal",
                         compat="override")
