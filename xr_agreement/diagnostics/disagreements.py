"""The list to adjudicate: :func:`disagreements`, one row per disputed (item, label)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .._core.arrays import _is_dask
from .._core.dataset import without_reasons
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


def _patterns(selected_by_annotator):
    """Per cell, the set of annotators as a bit code (sum of 2**r), from one 0/1 array per
    annotator; None when there are too many annotators for an int64 code."""
    if len(selected_by_annotator) > 62:
        return None
    codes = np.zeros(selected_by_annotator[0].shape, np.int64)
    for r, selected in enumerate(selected_by_annotator):
        codes |= selected.astype(np.int64) << r
    return codes


def _annotator_tuples(codes, ids):
    """The tuple of annotator ids of each code; cells with the same set share one tuple
    (the sets are few, the rows many)."""
    n = len(ids)
    if n <= 20:  # a table over every possible code: no sort
        present = np.zeros(1 << n, bool)
        present[codes] = True
        unique = np.flatnonzero(present)
        position = np.cumsum(present) - 1
        inverse = position[codes]
    else:
        unique, inverse = np.unique(codes, return_inverse=True)
    out = np.empty(len(unique), object)
    out[:] = [tuple(ids[j] for j in range(n) if code >> j & 1) for code in unique.tolist()]
    return out[inverse.reshape(-1)]


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
    # without the corpus reason every value carries: on dask, computing it would add the
    # corpus pass to the items'
    item_observed = without_reasons(
        mla(da, item=item, annotator=annotator, label=label).item_observed)
    if _is_dask(da.data):
        da = da.compute()
        item_observed = item_observed.compute()
    ordered = da.transpose(*extra, item, annotator, label)
    values = ordered.values
    n = da.sizes[annotator]
    axis = len(extra) + 1  # the annotator axis
    by_annotator = [np.take(values, r, axis=axis) for r in range(n)]  # (*extra, item, label)
    n_positive = sum((v == 1).astype(np.int64) for v in by_annotator)
    n_negative = sum((v == 0).astype(np.int64) for v in by_annotator)
    disputed = (n_positive > 0) & (n_negative > 0)
    observed = np.broadcast_to(item_observed.transpose(*extra, item).values[..., None],
                               disputed.shape)
    flat = np.flatnonzero(disputed)  # C order: extra..., item, label
    # stable sort: ties keep item, then label, then extra-dim order
    shape = disputed.shape
    index = np.unravel_index(flat, shape)
    position = index[len(extra)] * shape[-1] + index[-1]
    order = np.lexsort((flat, position, observed.reshape(-1)[flat]))
    flat = flat[order]
    index = tuple(i[order] for i in index)
    ids = da[annotator].values.tolist() if annotator in da.coords else list(range(n))
    columns = {}
    for a, dim in enumerate(extra):
        columns[dim] = ordered[dim].values[index[a]] if dim in da.coords else index[a]
    item_index, label_index = index[len(extra)], index[len(extra) + 1]
    columns["item"] = da[item].values[item_index] if item in da.coords else item_index
    columns["label"] = da[label].values[label_index] if label in da.coords else label_index
    name = _label_name(da, label)
    if name is not None:
        columns["label_name"] = da[name].values[label_index]
    columns["n_positive"] = n_positive.reshape(-1)[flat]
    columns["n_negative"] = n_negative.reshape(-1)[flat]
    columns["n_undecided"] = n - columns["n_positive"] - columns["n_negative"]
    for column, value in (("positive_annotators", 1), ("negative_annotators", 0)):
        codes = _patterns([(v.reshape(-1)[flat] == value) for v in by_annotator])
        if codes is None:
            cells = np.stack([v.reshape(-1)[flat] == value for v in by_annotator], -1)
            columns[column] = [tuple(ids[j] for j in np.flatnonzero(row)) for row in cells]
        else:
            columns[column] = _annotator_tuples(codes, ids)
    columns["item_observed"] = observed.reshape(-1)[flat]
    return pd.DataFrame(columns)
