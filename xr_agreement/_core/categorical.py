"""Single-label ratings (dims item x annotator; numbers, category codes or strings) as
integer codes, the shared input step of the nominal/ordinal coefficients."""

from __future__ import annotations

import warnings

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
    blank = [code for code, u in enumerate(uniques.tolist())
             if isinstance(u, str) and not u.strip()]
    if blank:
        # netCDF and zarr write a missing text rating (NaN, None) as "" and read it back so:
        # counted as a category it would make every such cell an agreement
        position = np.flatnonzero(~missing)[int(np.argmax(np.isin(factor, blank)))]
        value = flat[position]
        value = value.item() if isinstance(value, np.generic) else value
        raise ValueError(f"rating {value!r} at {_named(da, values.shape, position)} "
                         "is blank text, not a category; a store (netCDF, zarr) writes a "
                         "missing text rating as '': mark missing ratings as NaN, e.g. "
                         "da.astype(object).where(da.str.strip() != '')")
    unknown = present_codes == MISSING_CODE
    if unknown.any():
        position = np.flatnonzero(~missing)[int(np.argmax(unknown))]
        value = flat[position]
        value = value.item() if isinstance(value, np.generic) else value
        named = _named(da, values.shape, position)
        raise ValueError(f"rating {value!r} at {named} is not one of the declared "
                         f"categories {cats.tolist()}")
    codes[~missing] = present_codes
    return codes.reshape(values.shape), cats


def _named(da: xr.DataArray, shape, position: int) -> str:
    """The coordinates of a flat position, ``item='s1', annotator='ann'``."""
    where = np.unravel_index(position, shape)
    return ", ".join(f"{d}={_coord(da, d, p)!r}" for d, p in zip(da.dims, where))


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


class Ratings:
    """Ratings as the kernels take them: ``values`` (G, N, n) and ``low``, so that a rating's
    code is ``value - low`` (-1 or NaN missing), and the value of each code."""

    def __init__(self, values, low, categories, sampled=False):
        self.values = values
        self.low = float(low)
        self.categories = categories
        self.sampled = sampled  # categories from a sample of items: may miss some ratings


# Integral ratings are read as float codes (the kernels compare them with low + c) only below
# this magnitude, where consecutive integers are distinct floats: 2^53 + 1 is 2^53.
EXACT_INTEGERS = 2.0**52


# The range of integral ratings is first read from every (N // RANGE_SAMPLE_ITEMS)-th item:
# reading all of them (nanmin and nanmax, two passes at memory speed) took a fifth of a
# default alpha at 10^6 x 20. The counting pass reports ratings outside the sampled range
# (``unmatched`` of the counting kernel); then the whole range is read and the
# ratings counted again. When none is outside, the sampled lowest and highest ratings are
# the lowest and highest of all, so the result is the same either way.
RANGE_SAMPLE_ITEMS = 4096


def integral_ratings(values: np.ndarray, span_limit: int, sampled: bool = True) -> Ratings | None:
    """Numeric ratings that may be integral within ``span_limit`` consecutive values: the
    kernels read them directly (code = value - lowest), with no coding pass. Whether they
    really are integral, and, if the range was read from a sample of items (``sampled``,
    see :data:`RANGE_SAMPLE_ITEMS`), whether it holds them all, is checked by the counting
    pass (``unmatched`` of alpha's ``rating_counts``, of the kappa family's
    ``code_ratings``). A sample with a rating that is not integral gives None (the ratings
    are coded).

    Shared by alpha and the kappa family: single-label ratings are read this way once."""
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        return None
    values = np.ascontiguousarray(values, dtype=np.float64).reshape((-1,) + values.shape[-2:])
    step = values.shape[1] // RANGE_SAMPLE_ITEMS if sampled else 1
    sample = values[:, ::step] if step > 1 else values
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN input
        low, high = np.nanmin(sample), np.nanmax(sample)
        if step > 1 and np.any(np.abs(np.modf(sample)[0]) > 0):  # (NaN > 0 is False)
            return None  # a sampled rating is not integral: code them
    if not (np.isfinite(low) and np.isfinite(high)) or high - low >= span_limit:
        return integral_ratings(values, span_limit, sampled=False) if step > 1 else None
    if max(abs(low), abs(high)) >= EXACT_INTEGERS:
        return None
    span = int(high - low) + 1
    return Ratings(values, low, low + np.arange(span, dtype=np.float64), sampled=step > 1)
