"""The list to adjudicate: :func:`disagreements`, one row per disputed (item, label)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .._core.arrays import _is_dask
from .._core.validate import check_annotators, check_binary_dtype, check_dataarray, check_dims
from ..mla import mla

COLUMNS = ("n_positive", "n_negative", "n_undecided", "positive_annotators",
           "negative_annotators", "item_observed")


def _label_name(da, label):
    """The coordinate naming the labels, if any: ``<label>_name`` or ``label_name``."""
    for name in (f"{label}_name", "label_name"):
        if name in da.coords and da[name].dims == (label,):
            return name
    return None


def _annotator_sets(selected, ids):
    """Tuples of the annotator ids where ``selected`` (rows, n) is True, one per row; rows
    with the same pattern share one tuple (the patterns are few, the rows many)."""
    n = selected.shape[1]
    if n <= 62:
        codes = selected.astype(np.int64) @ (np.int64(1) << np.arange(n, dtype=np.int64))
        unique, inverse = np.unique(codes, return_inverse=True)
        tuples = [tuple(ids[j] for j in range(n) if code >> j & 1) for code in unique.tolist()]
        out = np.empty(len(unique), object)
        out[:] = tuples
        return list(out[inverse.reshape(-1)])
    return [tuple(ids[j] for j in np.flatnonzero(row)) for row in selected]


def disagreements(
    da: xr.DataArray, *, item: str = "item", annotator: str = "annotator", label: str = "label",
) -> pd.DataFrame:
    """The (item, label) cells in dispute, most disputed items first: a table to adjudicate.

    Parameters
    ----------
    da : xarray.DataArray
        Decisions with dims ``item``, ``annotator`` and ``label``; values 0/1 (bool, integer
        or float), NaN where a decision was not made. Extra dims become leading columns.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    pandas.DataFrame
        One row per (item, label) cell (per extra-dim coordinate) where at least one
        annotator said 1 and at least one said 0. Columns, in order: the extra dims (their
        own names), then always these fixed names whatever the dims are called: ``item``,
        ``label``, ``label_name`` (when ``da`` has a ``label_name`` or ``<label>_name``
        coordinate on the label dim), ``n_positive``, ``n_negative``, ``n_undecided``,
        ``positive_annotators`` and ``negative_annotators`` (tuples of annotator ids, in
        annotator order), ``item_observed`` (the item's observed agreement, as
        :func:`~xr_agreement.mla` gives it). Sorted by ``item_observed`` ascending, then item
        order, then label order (then extra-dim order); index ``0 .. n - 1``.

    Raises
    ------
    ValueError
        A dim is missing or empty, fewer than 2 annotators, a value other than 0/1/NaN (the
        message names it and its coordinates), a dim named like a fixed column.
    TypeError
        A non-numeric dtype.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> table = xr_agreement.disagreements(ex)
    >>> len(table), list(table.columns[:4])
    (16, ['item', 'label', 'label_name', 'n_positive'])
    >>> row = table.iloc[0]
    >>> int(row["item"]), row["positive_annotators"], row["negative_annotators"]
    (4, (2, 3), (1,))
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    fixed = {"item", "label", "label_name", *COLUMNS}
    clash = [d for d in extra if d in fixed]
    if clash:
        raise ValueError(f"extra dim {clash[0]!r} has the name of a fixed column of the "
                         "table; rename it first")
    item_observed = mla(da, item=item, annotator=annotator, label=label).item_observed
    if _is_dask(da.data):
        da = da.compute()
        item_observed = item_observed.compute()
    ordered = da.transpose(*extra, item, label, annotator)
    values = ordered.values
    positive = values == 1
    negative = values == 0
    n_positive = positive.sum(-1)
    n_negative = negative.sum(-1)
    disputed = (n_positive > 0) & (n_negative > 0)
    where = np.nonzero(disputed)  # C order: extra..., item, label
    n = da.sizes[annotator]
    ids = (da[annotator].values.tolist() if annotator in da.coords else list(range(n)))
    columns = {}
    for axis, dim in enumerate(extra):
        columns[dim] = ordered[dim].values[where[axis]] if dim in da.coords else where[axis]
    item_index, label_index = where[len(extra)], where[len(extra) + 1]
    columns["item"] = (da[item].values[item_index] if item in da.coords else item_index)
    columns["label"] = (da[label].values[label_index] if label in da.coords else label_index)
    name = _label_name(da, label)
    if name is not None:
        columns["label_name"] = da[name].values[label_index]
    columns["n_positive"] = n_positive[where]
    columns["n_negative"] = n_negative[where]
    columns["n_undecided"] = n - n_positive[where] - n_negative[where]
    columns["positive_annotators"] = _annotator_sets(positive[where], ids)
    columns["negative_annotators"] = _annotator_sets(negative[where], ids)
    observed = item_observed.transpose(*extra, item).values
    columns["item_observed"] = observed[where[: len(extra) + 1]]
    table = pd.DataFrame(columns)
    # stable sort: ties keep item, then label, then extra-dim order
    order = np.lexsort((np.ravel_multi_index(where[:len(extra)], disputed.shape[:len(extra)])
                        if extra else np.zeros(len(table), np.int64),
                        label_index, item_index, columns["item_observed"]))
    return table.iloc[order].reset_index(drop=True)
