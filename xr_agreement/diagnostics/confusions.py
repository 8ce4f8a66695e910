"""Which labels are swapped for each other: :func:`confusions`, label x other_label sums of
per-item products of counts (:func:`.kernels.confusion_counts`)."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import divide
from .._core.validate import check_annotators, check_binary_dtype, check_dataarray, check_dims
from .counts import block_sums, finish_lazily
from .variables import CONFUSION_VARIABLES, attach_attrs

OTHER = "other_label"


def _finish(sums):
    """The four tables from the summed counts (numpy arrays)."""
    diagonal = np.eye(sums["substitution"].shape[-1], dtype=bool)
    # 0 on the diagonal exactly (the kernel's terms cancel there); the sums stay untouched
    substitution = np.where(diagonal, 0.0, sums["substitution"])
    rate = np.where(diagonal, np.nan, divide(substitution, sums["n_disagreeing_pairs"]))
    return {"co_selection": sums["co_selection"], "substitution": substitution,
            "n_disagreeing_pairs": sums["n_disagreeing_pairs"], "substitution_rate": rate}


def confusions(
    da: xr.DataArray, *, item: str = "item", annotator: str = "annotator", label: str = "label",
) -> xr.Dataset:
    """Label x label tables of how annotators' selections meet: co-selection, substitution
    (label a chosen where another annotator chose b) and its rate.

    Over items ``i`` and ordered pairs ``(r, s)`` of different annotators who both decided
    labels ``a`` and ``b`` on ``i``.

    Parameters
    ----------
    da : xarray.DataArray
        Decisions with dims ``item``, ``annotator`` and ``label``; values 0/1 (bool, integer
        or float), NaN where a decision was not made. Extra dims are carried.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    xarray.Dataset
        Over ``label`` x ``other_label`` (``other_label`` carries the label coordinate, and
        ``other_<name>`` each other coordinate of ``label``, e.g. ``other_label_name``):
        ``co_selection`` (r selected a, s selected b), ``substitution`` (r selected a and not
        b, s selected b and not a; 0 on the diagonal), ``n_disagreeing_pairs`` (r selected a,
        s did not), ``substitution_rate`` = substitution / n_disagreeing_pairs (NaN on the
        diagonal and where no pair disagrees). Counts are floats.

    Raises
    ------
    ValueError
        A dim is missing or empty, fewer than 2 annotators, a value other than 0/1/NaN (the
        message names it and its coordinates).
    TypeError
        A non-numeric dtype.

    Notes
    -----
    Per item, with ``x`` the 1s and ``d`` the decided mask, ``P[a, b] = sum_r x_ra d_rb``,
    ``C[a, b] = sum_r x_ra x_rb`` and ``E[a, b] = sum_r d_ra d_rb``; summed over items,
    ``co_selection = P * P.T - C``, ``substitution = U * U.T`` with ``U = P - C``,
    ``n_disagreeing_pairs = P * (E - P)`` (``sum_{r != s} f(r) g(s) = (sum f)(sum g) -
    sum f g``). The kernel builds ``P``, ``C``, ``E`` from the 1s and the missing decisions
    only; no pair of annotators or of raw vectors is ever formed. Dask input is counted item
    block by item block, lazily: the result holds dask arrays and nothing is computed until
    it is.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> table = xr_agreement.confusions(ex)
    >>> int(table.substitution.sel(label=22, other_label=29))
    2
    >>> rates = table.substitution_rate.to_series().dropna()
    >>> top = rates.sort_values(ascending=False, kind="stable")  # ties in label order
    >>> top.index[:2].tolist(), top.iloc[:2].tolist()
    ([(3, 2), (21, 29)], [1.0, 1.0])
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    if OTHER in da.dims or OTHER in da.coords:
        raise ValueError(f"the output dim {OTHER!r} is already a dim or coordinate of the "
                         "input; rename it first")
    sums, extra = block_sums(da, "confusions", item, annotator, label)
    dims = (*extra, label, OTHER)
    k = da.sizes[label]
    shape = (*(da.sizes[d] for d in extra), k, k)
    specs = {name: (shape, np.float64) for name in CONFUSION_VARIABLES}
    values = finish_lazily(_finish, sums, specs)
    coords = {name: coord.variable for name, coord in da.coords.items()
              if set(coord.dims) <= set(extra) | {label}}
    for name, coord in da.coords.items():
        if coord.dims == (label,):
            other = OTHER if name == label else f"other_{name}"
            coords[other] = xr.Variable(OTHER, coord.values, coord.attrs)
    result = xr.Dataset(
        {name: (dims, values[name]) for name in CONFUSION_VARIABLES}, coords=coords,
    )
    attach_attrs(result, CONFUSION_VARIABLES)
    result.attrs = {
        "n_items": da.sizes[item],
        "n_annotators": da.sizes[annotator],
        "n_labels": k,
        "missing_data": "NaN decisions excluded: a pair (r, s) counts on an item for labels "
        "(a, b) only where both decided both labels",
    }
    return result
