"""Ratings to one-hot indicators for the kappa family: validation, encoding, weights."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .._core.arrays import _is_dask
from .._core.categorical import (declared_categories, encode_ratings, MISSING_CODE,
                                 observed_categories)
from .._core.validate import check_annotators, check_dataarray, check_dims, describe_position


# internal dim names; user dims cannot collide with them (checked)
_CAT = "_category"


_CAT2 = "_category_other"


_ROW = "_row"


_COL = "_col"

# |1 - P_e| below this is treated as 0: P_e = 1 arises from sums of products of proportions that
# are 0 or 1, so a genuine 1 - P_e is at least of the order 1 / (number of ratings)**2.
_ZERO_GAP = 1e-12


REASONS = {
    "no_pairs": "no item has ratings from two annotators: observed agreement is 0/0",
    "gap": "chance agreement P_e is 1 (a single category in use): the coefficient is 0/0",
    "q": "fewer than 2 categories: Gwet's chance agreement T_w / (q (q - 1)) is undefined",
    "se": "standard error undefined: fewer than 2 rated items",
    "no_common": "no item rated by both annotators",
    "no_defined_pair": "no pair of distinct annotators has a defined kappa to average",
}


def _prepare(da, weights, categories, item, annotator, label):
    """Validated indicator array (dims *extra, [label], item, annotator, _category), the rated
    mask and the weight matrix (dims _category, _category_other)."""
    check_dataarray(da, "ratings")
    reserved = {_CAT, _CAT2, _ROW, _COL, "annotator_1", "annotator_2"}
    clash = reserved & set(da.dims)
    if clash:
        raise ValueError(f"dims {sorted(clash)} are reserved for outputs; rename them")
    multi_label = label in da.dims
    if multi_label:
        check_dims(da, item=item, annotator=annotator, label=label)
        check_annotators(da, annotator)
        if "category" in da.dims:
            raise ValueError("dim 'category' is reserved for outputs; rename it")
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
        coords = [
            (d, da[d].values if d in da.coords else np.arange(da.sizes[d])) for d in da.dims
        ]
        if _is_dask(da.data):
            # checked block by block when computed (the graph is built without computing)
            decisions = da.data.map_blocks(_check_decisions, coords=coords, dtype=da.dtype)
        else:
            decisions = _check_decisions(np.asarray(da.values), coords)
        cats = np.array([0, 1])
        rated = (~np.isnan(decisions) if decisions.dtype.kind == "f"
                 else np.ones_like(decisions, dtype=bool))
        ind = np.stack([decisions == 0, decisions == 1], axis=-1).astype(np.float64)
    else:
        check_dims(da, item=item, annotator=annotator)
        check_annotators(da, annotator)
        if "category" in da.dims:
            raise ValueError("dim 'category' is reserved for outputs; rename it")
        codes, cats = _encoded(da, categories)
        if len(cats) == 0:
            raise ValueError("every rating is missing: there is nothing to compare")
        rated = codes != MISSING_CODE
        ind = (codes[..., None] == np.arange(len(cats))).astype(np.float64)
    w, weights_name = _weight_matrix(weights, cats)
    # plain arrays with dims, no coordinates: the results take theirs from ``da``
    extra = [d for d in da.dims if d not in (item, annotator)]
    ind = xr.DataArray(ind, dims=(*da.dims, _CAT)).transpose(*extra, item, annotator, _CAT)
    return {
        "indicator": ind,
        "rated": xr.DataArray(rated, dims=da.dims).transpose(*extra, item, annotator),
        "weights": xr.DataArray(w, dims=(_CAT, _CAT2)),
        "weights_name": weights_name,
        "categories": cats,
        "multi_label": multi_label,
        "item": item,
        "annotator": annotator,
        "label": label,
        "da": da,
    }


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
