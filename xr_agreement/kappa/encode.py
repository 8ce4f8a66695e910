"""The kappa family's input: validation, the ratings as the counting passes read them
(single-label codes, multi-label decisions), the weights, and the one-hot indicator that only
the bootstrap's per-item tables use."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import xarray as xr

from .._core.arrays import _is_dask
from .._core.categorical import (declared_categories, encode_ratings, integral_ratings,
                                 MISSING_CODE, observed_categories)
from .._core.validate import check_annotators, check_dataarray, check_dims, describe_position
from .formulas import ZERO_GAP


# internal dim names; user dims cannot collide with them (checked)
_CAT = "_category"


_ROW = "_row"


_COL = "_col"

# |1 - P_e| at most this is treated as 0 (defined with the formulas)
_ZERO_GAP = ZERO_GAP


REASONS = {
    "no_pairs": "no item has ratings from two annotators: observed agreement is 0/0",
    "gap": "chance agreement P_e is 1 (a single category in use): the coefficient is 0/0",
    "q": "fewer than 2 categories: Gwet's chance agreement T_w / (q (q - 1)) is undefined",
    "se": "standard error undefined: fewer than 2 rated items",
    "no_common": "no item rated by both annotators",
    "no_defined_pair": "no pair of distinct annotators has a defined kappa to average",
}


def _prepare(da, weights, categories, item, annotator, label):
    """The ratings as the counting passes read them, with the weight matrix.

    Single-label: ``codes`` (G, N, n) int32, -1 missing, else the index of the rating in
    ``categories``; multi-label: ``decisions`` (G, N, n, L), the input's 0/1/NaN values
    (checked). G is the product of the extra dims' sizes (``extra``, ``extra_shape``): the
    result's lead dims are ``lead`` (the extra dims, and the label on multi-label input).
    On dask input the arrays are dask arrays chunked along the items only. ``weights``:
    the (q, q) float64 matrix."""
    check_dataarray(da, "ratings")
    reserved = {_CAT, _ROW, _COL, "annotator_1", "annotator_2"}
    clash = reserved & set(da.dims)
    if clash:
        raise ValueError(f"dims {sorted(clash)} are reserved for outputs; rename them")
    multi_label = label in da.dims
    if multi_label:
        check_dims(da, item=item, annotator=annotator, label=label)
    else:
        check_dims(da, item=item, annotator=annotator)
    check_annotators(da, annotator)
    if "category" in da.dims:
        raise ValueError("dim 'category' is reserved for outputs; rename it")
    extra = tuple(d for d in da.dims if d not in (item, annotator, label))
    extra_shape = tuple(da.sizes[d] for d in extra)
    data = {"extra": extra, "extra_shape": extra_shape, "multi_label": multi_label,
            "item": item, "annotator": annotator, "label": label, "da": da}
    if multi_label:
        if categories is not None:
            raise ValueError(
                "categories= applies to single-label ratings; multi-label input "
                f"(dim {label!r}) has the categories 0 and 1"
            )
        if da.dtype.kind not in "biuf":
            raise TypeError(
                f"multi-label decisions must be 0/1 (bool, int or float, NaN "
                f"missing); got dtype {da.dtype}"
            )
        data["decisions"], data["refuse"] = _checked_decisions(
            da, (*extra, item, annotator, label))
        cats = np.array([0, 1])
        data["lead"] = (*extra, label)
    else:
        data["codes"], cats = _single_label_codes(da, (*extra, item, annotator), categories)
        if len(cats) == 0:
            raise ValueError("every rating is missing: there is nothing to compare")
        data["lead"] = extra
    data["lead_shape"] = tuple(da.sizes[d] for d in data["lead"])
    w, weights_name = _weight_matrix(weights, cats)
    data.update(weights=np.ascontiguousarray(w, np.float64), weights_name=weights_name,
                categories=cats)
    return data


# The coding pass's runs are those of this many ratings per item (``_runs``' rule is for the
# counting passes, some 20-50 ns an item; coding takes about 1 ns a rating).
RATINGS_PER_ITEM = 16

# Integral ratings spanning at most this many integers are coded by a kernel (code = value -
# lowest); others go through encode_ratings (pandas: about 10x slower).
CODE_SPAN_LIMIT = 256


def _single_label_codes(da, order, categories):
    """(codes (G, N, n) int32, categories) of single-label ratings ``da`` with its dims in
    ``order`` (*extra, item, annotator). Integral numbers in a short range are coded by a
    kernel, after alpha's reading (``integral_ratings``: the range from a sample of items,
    checked by the coding pass); the rest, and declared categories, by ``encode_ratings``."""
    N, n = da.sizes[order[-2]], da.sizes[order[-1]]
    if _is_dask(da.data):
        ordered = da.transpose(*order)
        codes, cats = _encoded(ordered, categories)
        codes = codes.astype(np.int32).rechunk({axis: -1 for axis in range(ordered.ndim)
                                                if axis != ordered.ndim - 2})
        return codes.reshape(-1, N, n), cats
    values = np.transpose(np.asarray(da.data), [da.dims.index(d) for d in order])
    if categories is None and values.dtype.kind in "biuf" and values.size:
        coded = _coded_integers(values)
        if coded is not None:
            return coded
    codes, cats = encode_ratings(da.transpose(*order), categories)
    return np.ascontiguousarray(codes.reshape(-1, N, n), dtype=np.int32), cats


def _coded_integers(values):
    """(codes, categories) of numeric ratings that are integers in a short range (the
    categories: the distinct ratings, in the ratings' dtype, bool as int64), else None."""
    from .counts import _pass, _runs
    from .kernels import code_ratings

    ratings = integral_ratings(values, CODE_SPAN_LIMIT)
    while ratings is not None:
        grid = ratings.values
        G, N, n = grid.shape
        codes = np.empty((G, N, n), np.int32)
        span = len(ratings.categories)
        flat, flat_codes = grid.reshape(-1), codes.reshape(-1)  # every rating on its own
        # runs of ratings, not items: a rating is a few ns of this pass, a run of 4,096
        # of them not worth a thread (a small call waited on the pool)
        totals, unmatched = _pass(code_ratings, flat.size, flat, ratings.low, span, flat_codes,
                                  runs=_runs(flat.size // RATINGS_PER_ITEM))
        if not unmatched:
            used = totals > 0
            dtype = values.dtype if values.dtype.kind != "b" else np.dtype(np.int64)
            cats = ratings.categories[used].astype(dtype)
            if not used.all():  # integers in the range no one chose: not categories
                index = np.full(span + 1, -1, np.int32)  # the last entry maps -1 to -1
                index[np.flatnonzero(used)] = np.arange(used.sum(), dtype=np.int32)
                codes = index[codes]
            return codes, cats
        # outside the range read from a sample: read it from all; not integral: code them
        ratings = (integral_ratings(values, CODE_SPAN_LIMIT, sampled=False)
                   if ratings.sampled else None)
    return None


def _checked_decisions(da, order):
    """(decisions, refuse): multi-label decisions ``da`` with its dims in ``order`` (*extra,
    item, annotator, label) as (G, N, n, L), C-contiguous, checked to be 0/1/NaN (on dask
    block by block when computed), and None; but uint8 decisions of fewer than 256
    annotators are checked by the counting passes that read them
    (``kernels.complete_binary_states``, ``pair_kernels.label_pair_complete``), which call
    ``refuse`` (it raises the error naming the first bad value) if they read one."""
    N, n, L = (da.sizes[d] for d in order[-3:])

    def coords():
        return _decision_coords(da, order)

    if _is_dask(da.data):
        # checked block by block when computed (the graph is built without computing)
        decisions = da.transpose(*order).data.map_blocks(_check_decisions, coords=coords(),
                                                         dtype=da.dtype)
        decisions = decisions.rechunk({axis: -1 for axis in range(da.ndim)
                                       if axis != da.ndim - 3})
        return decisions.reshape(-1, N, n, L), None
    ordered = np.transpose(np.asarray(da.data), [da.dims.index(d) for d in order])
    values = np.ascontiguousarray(ordered).reshape(-1, N, n, L)
    kind = values.dtype.kind
    if values.dtype == np.uint8 and n < 256:  # the passes' bytes (see the docstring)
        return values, functools.partial(_refuse_decisions, da, order)
    if kind == "f":
        from .kernels import count_not_binary

        bad = values.size and count_not_binary(values.reshape(-1))
    elif kind in "iu":  # numpy's min and max: one SIMD pass each (0.2 ms at 12.5 MB)
        bad = values.size and (values.max() > 1 or (kind == "i" and values.min() < 0))
    else:
        bad = False  # bool
    if bad:
        _check_decisions(ordered, coords())  # names the first one
    return values, None


def _decision_coords(da, order) -> list:
    """(dim, coordinate values) of ``da`` along ``order``, for an error message only (a
    string index costs ms to read)."""
    return [(d, da[d].values if d in da.coords else np.arange(da.sizes[d])) for d in order]


def _refuse_decisions(da, order):
    """Raise the error naming the first decision of ``da`` (dims ``order``) other than 0/1
    (a counting pass read one)."""
    ordered = np.transpose(np.asarray(da.data), [da.dims.index(d) for d in order])
    _check_decisions(ordered, _decision_coords(da, order))
    raise AssertionError("a counting pass saw a decision other than 0/1, the check none")


def _one_hot(data) -> dict:
    """``data`` with the one-hot ``indicator`` (dims *extra, [label], item, annotator,
    _category; float) and ``rated`` (bool) arrays that the bootstrap's per-item tables are
    built from."""
    item, annotator, label = data["item"], data["annotator"], data["label"]
    extra = data["extra"]
    if data["multi_label"]:
        decisions = data["decisions"]  # (G, N, n, L)
        rated = (~np.isnan(decisions) if decisions.dtype.kind == "f"
                 else np.ones_like(decisions, dtype=bool))
        ind = np.stack([decisions == 0, decisions == 1], axis=-1).astype(np.float64)
        dims = (*extra, item, annotator, label)
    else:
        codes = data["codes"]
        rated = codes != MISSING_CODE
        ind = (codes[..., None] == np.arange(len(data["categories"]))).astype(np.float64)
        dims = (*extra, item, annotator)
    shape = tuple(data["da"].sizes[d] for d in dims)
    ind = xr.DataArray(ind.reshape(*shape, ind.shape[-1]), dims=(*dims, _CAT))
    rated = xr.DataArray(rated.reshape(shape), dims=dims)
    lead = [d for d in dims if d not in (item, annotator)]
    return dict(data, indicator=ind.transpose(*lead, item, annotator, _CAT),
                rated=rated.transpose(*lead, item, annotator))


def _check_decisions(block, coords, block_info=None):
    """``block`` of multi-label decisions unchanged, or an error naming the first value other
    than 0/1/NaN by its coordinates (``coords``: (dim, values) of the whole array; dask's
    ``block_info`` locates a block in it)."""
    values = np.asarray(block)
    bad = (values != 0) & (values != 1)
    if values.dtype.kind == "f":
        bad &= ~np.isnan(values)
    if bad.any():
        if block_info and 0 in block_info:
            location = block_info[0]["array-location"]
            coords = [(d, v[a:b]) for (d, v), (a, b) in zip(coords, location)]
        raise ValueError(describe_position(values, coords))
    return block


def _encode(da, categories):
    """Category codes of single-label ratings as a DataArray like ``da`` (``MISSING_CODE``
    where missing) and the categories (see :func:`_encoded`)."""
    codes, cats = _encoded(da, categories)
    return xr.DataArray(codes, dims=da.dims, coords=da.coords), cats


def _encoded(da, categories):
    """Category codes of single-label ratings (numpy or dask, ``MISSING_CODE`` where
    missing) and the categories. Dask input stays lazy when ``categories`` is declared;
    otherwise the distinct ratings are computed first (one pass over the ratings), the
    codes then lazily, block by block."""
    if not _is_dask(da.data):
        return encode_ratings(da, categories)
    import dask

    if da.dtype.kind == "c":
        raise TypeError(f"ratings must be numbers, codes or strings, got dtype {da.dtype}")
    if categories is None:
        blocks = da.data.to_delayed().ravel()
        parts = dask.compute(*[dask.delayed(_distinct_ratings)(b) for b in blocks])
        cats = observed_categories(set().union(*parts), da.dtype)
    else:
        cats = declared_categories(categories)
    coords = {d: da[d].values for d in da.dims if d in da.coords}
    codes = da.data.map_blocks(
        _encode_block, categories=cats, dims=da.dims, coords=coords, dtype=np.int64
    )
    return codes, cats


def _distinct_ratings(block) -> set:
    flat = np.asarray(block).ravel()
    return set(flat[~pd.isna(flat)].tolist())


def _encode_block(block, categories, dims, coords, block_info=None):
    """Codes of one block; a rating outside ``categories`` is named by its coordinates in the
    whole array (``coords``, located with dask's ``block_info``)."""
    if block_info and 0 in block_info:
        location = block_info[0]["array-location"]
        coords = {d: coords[d][a:b] for d, (a, b) in zip(dims, location) if d in coords}
    located = xr.DataArray(block, dims=dims, coords=coords)
    return encode_ratings(located, categories)[0]


def _weight_matrix(weights, cats):
    """Agreement weights (q, q) for the categories: identity, linear, quadratic or given."""
    q = len(cats)
    if weights is None or (isinstance(weights, str) and weights == "identity"):
        return np.eye(q), "identity"
    if isinstance(weights, str):
        if weights not in ("linear", "quadratic"):
            raise ValueError(
                f"unknown weights {weights!r}; use None, 'identity', 'linear', "
                "'quadratic' or a (q, q) matrix"
            )
        if q < 2:
            return np.eye(q), weights
        numeric = np.asarray(cats).dtype.kind in "biuf"
        scores = np.asarray(cats, np.float64) if numeric else np.arange(1.0, q + 1)
        distance = np.abs(scores[:, None] - scores[None, :]) / (scores.max() - scores.min())
        return (1 - distance if weights == "linear" else 1 - distance**2), weights
    matrix = np.asarray(weights, dtype=np.float64)
    if matrix.shape != (q, q):
        raise ValueError(
            f"weights matrix must be ({q}, {q}) for the categories "
            f"{list(cats)}; got shape {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)) or matrix.min() < 0 or matrix.max() > 1:
        raise ValueError("weights must be finite numbers in [0, 1]")
    if not np.all(np.diag(matrix) == 1):
        raise ValueError(
            f"weights must be 1 on the diagonal (full agreement); got {np.diag(matrix).tolist()}"
        )
    return matrix, "custom"
