"""Small array helpers shared across the package."""

from __future__ import annotations

import numpy as np


def _plain(value):
    """numpy scalars as plain Python values, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _is_dask(data) -> bool:
    return type(data).__module__.startswith("dask")


def _quotient_dtype(numerator, denominator):
    """The dtype true division gives (integers and bools -> float64), or None when unknown
    (a Dataset, an object dtype)."""
    left = getattr(numerator, "dtype", numerator)
    right = getattr(denominator, "dtype", denominator)
    try:
        dtype = np.result_type(left, right)  # Python scalars stay weak, as in true division
    except TypeError:
        return None
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    return dtype if dtype.kind in "fc" else None


def divide(numerator, denominator, *, tolerance=0.0):
    """``numerator / denominator``, NaN where ``|denominator| <= tolerance`` (by default
    where it is exactly 0: x/0 and 0/0), without divide-by-zero warnings.

    Works on numpy arrays and scalars, dask arrays (lazily) and xarray objects (dims and
    coords as in ``numerator / denominator``). The dtype is the one true division gives:
    float32 stays float32, integers give float64. NaN in the denominator gives NaN.

    >>> divide(np.array([1, 0, 3]), np.array([2, 0, 0]))
    array([0.5, nan, nan])
    >>> divide(np.float32(1), np.array([4, 1e-13], np.float32), tolerance=1e-12)
    array([0.25,  nan], dtype=float32)
    >>> import xarray as xr
    >>> counts = xr.DataArray([1.0, 2.0], dims="x", coords={"x": [10, 20]})
    >>> divide(counts, xr.DataArray([0, 4], dims="x"))
    <xarray.DataArray (x: 2)> Size: 16B
    array([nan, 0.5])
    Coordinates:
      * x        (x) int64 16B 10 20
    """
    if isinstance(numerator, np.ndarray) and isinstance(denominator, np.ndarray):
        # the fast path (MLA finishing is hot): divide only where defined, into NaNs
        dtype = np.promote_types(numerator.dtype, denominator.dtype)
        if dtype.kind in "biu":
            dtype = np.dtype(np.float64)
        shape = numerator.shape
        if shape != denominator.shape:
            shape = np.broadcast_shapes(shape, denominator.shape)
        defined = denominator != 0 if tolerance == 0 else np.abs(denominator) > tolerance
        return np.divide(numerator, denominator, out=np.full(shape, np.nan, dtype), where=defined)
    if isinstance(denominator, np.generic) and isinstance(numerator, (np.generic, int, float)):
        # numpy scalars (MLA's corpus totals): a plain division when defined
        if abs(denominator) > tolerance:
            return numerator / denominator
        return numerator / _quotient_dtype(numerator, denominator).type(np.nan)
    return numerator / _undefined_as_nan(denominator, tolerance,
                                         _quotient_dtype(numerator, denominator))


def _undefined_as_nan(denominator, tolerance, dtype):
    """The denominator (cast to ``dtype``) with NaN where ``|denominator| <= tolerance``."""
    if isinstance(denominator, (int, float, complex)) and not isinstance(denominator, np.generic):
        # Python scalars stay weak, as in true division
        return denominator if abs(denominator) > tolerance else float("nan")
    defined = denominator != 0 if tolerance == 0 else abs(denominator) > tolerance
    if dtype is not None and denominator.dtype != dtype:
        denominator = denominator.astype(dtype)
    if hasattr(denominator, "where") and hasattr(denominator, "dims"):  # xarray
        return denominator.where(defined)
    nan = np.nan if dtype is None else np.array(np.nan, dtype)
    return np.where(defined, denominator, nan)


def kernel_input(values) -> np.ndarray:
    """``values`` as the numba kernels take them, copied only where they must be: bool is
    viewed as uint8, float16 becomes float32 (numba has no float16) and a non-native byte
    order (netCDF3 files are big-endian) the native one."""
    values = np.asarray(values)
    if values.dtype == np.bool_:
        return values.view(np.uint8)
    if values.dtype.kind == "f" and values.dtype.itemsize < 4:
        return values.astype(np.float32)
    if not values.dtype.isnative:
        return values.astype(values.dtype.newbyteorder("="))
    return values


def object_variable(dims, values: np.ndarray):
    """A Variable of a numpy array taken as it is: ratings a reader built (object text and
    NaN) or a block of the input's values. xarray scans an object array for dates by
    converting it through pandas: 9.7-13.6 s at 10^8 cells (20,000 tasks x 5,000 crowd
    workers), for values that are never dates here."""
    import xarray as xr

    return xr.Variable(dims, values, fastpath=True)
