"""Single-label ratings (dims item x annotator; numbers, category codes or strings) as
integer codes, the shared input step of the nominal/ordinal coefficients."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr


MISSING_CODE = -1


def encode_ratings(da: xr.DataArray, categories=None) -> tuple[np.ndarray, np.ndarray]:
    """Codes of every rating (``MISSING_CODE`` where missing) and the category values.

    Missing ratings are NaN, None or pandas NA. Categories are the sorted distinct ratings
    unless ``categories`` declares them (then a rating outside them is an error naming its
    position). The input is not modified.

    Returns
    -------
    codes : numpy.ndarray of int64, same shape as ``da``
    categories : numpy.ndarray, the category value of each code

    Examples
    --------
    >>> import xarray as xr
    >>> da = xr.DataArray([["a", "b"], [None, "b"]], dims=("item", "annotator"))
    >>> codes, cats = encode_ratings(da)
    >>> codes
    array([[ 0,  1],
           [-1,  1]])
    >>> cats
    array(['a', 'b'], dtype=object)
    """
    values = np.asarray(da.values)
    if values.dtype.kind == "c":
        raise TypeError(f"ratings must be numbers, codes or strings, got dtype {values.dtype}")
    flat = values.ravel()
    missing = pd.isna(flat)
    present = flat[~missing]
    if categories is None:
        # distinct values first (hashing in pandas): a set of every rating costs 10x more
        cats = observed_categories(set(pd.unique(present).tolist()), values.dtype)
    else:
        cats = declared_categories(categories)
    # vectorized lookup: factorize the present ratings, then map factor codes to categories
    codes = np.full(flat.shape, MISSING_CODE, np.int64)
    factor, uniques = pd.factorize(pd.Series(present, dtype=object if present.dtype == object
                                             else present.dtype))
    lookup = {value: code for code, value in enumerate(cats.tolist())}
    unique_codes = np.array(
        [lookup.get(u.item() if isinstance(u, np.generic) else u, MISSING_CODE)
         for u in uniques.tolist()],
        dtype=np.int64,
    )
    present_codes = unique_codes[factor] if len(uniques) else np.zeros(0, np.int64)
    unknown = present_codes == MISSING_CODE
    if unknown.any():
        position = np.flatnonzero(~missing)[int(np.argmax(unknown))]
        value = flat[position]
        value = value.item() if isinstance(value, np.generic) else value
        where = np.unravel_index(position, values.shape)
        named = ", ".join(f"{d}={_coord(da, d, p)!r}" for d, p in zip(da.dims, where))
        raise ValueError(f"rating {value!r} at {named} is not one of the declared "
                         f"categories {cats.tolist()}")
    codes[~missing] = present_codes
    return codes.reshape(values.shape), cats


def observed_categories(distinct: set, dtype: np.dtype) -> np.ndarray:
    """The distinct ratings, sorted, as categories (numeric ones in the ratings' dtype,
    booleans as int64)."""
    try:
        cats = np.asarray(sorted(distinct), dtype=object)
    except TypeError as error:
        raise TypeError(f"ratings of mixed types cannot be ordered: {error}") from None
    if dtype.kind in "biuf" and cats.size:
        cats = cats.astype(dtype if dtype.kind != "b" else np.int64)
    return cats


def declared_categories(categories) -> np.ndarray:
    """Declared categories, in their order; duplicates are an error."""
    cats = np.asarray(list(categories), dtype=object)
    if len(set(cats.tolist())) != len(cats):
        raise ValueError("declared categories have duplicates")
    return cats


def _coord(da: xr.DataArray, dim: str, position: int):
    if dim in da.coords:
        value = da[dim].values[position]
        return value.item() if isinstance(value, np.generic) else value
    return int(position)
