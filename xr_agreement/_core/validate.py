"""Input checks shared by every public function. They run before any counting and never
modify their input; each message names what is wrong and where."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .arrays import _plain


def check_dataarray(da, what: str = "decisions") -> None:
    if not isinstance(da, xr.DataArray):
        raise TypeError(
            f"{what} must be an xarray.DataArray, got {type(da).__name__}; "
            "see xr_agreement.from_sets / from_long to build one"
        )


def check_dims(da: xr.DataArray, **roles: str) -> None:
    """Each role (item=..., annotator=..., label=...) must name a distinct dim of ``da``."""
    names = list(roles.values())
    if len(set(names)) != len(names):
        raise ValueError(f"dims must be distinct, got {roles}")
    # read once: each of da.dims, da.shape goes through the DataArray's Variable (0.3 us),
    # da.sizes builds a mapping
    dims, shape = da.dims, da.shape
    for role, dim in roles.items():
        if dim not in dims:
            raise ValueError(
                f"{role} dim {dim!r} not found; the array has dims {list(dims)} "
                f"(pass {role}='<name>' to use another dim)"
            )
    for dim, size in zip(dims, shape):
        if size == 0:
            raise ValueError(f"dim {dim!r} is empty (size 0)")


def check_annotators(da: xr.DataArray, annotator: str) -> None:
    size = da.shape[da.dims.index(annotator)]
    if size < 2:
        raise ValueError(
            f"agreement needs at least 2 annotators; dim {annotator!r} has {size}"
        )


def check_binary_dtype(da: xr.DataArray) -> None:
    kind = da.dtype.kind
    if kind not in "biuf":
        raise TypeError(
            f"decisions must be bool, integer or float (0/1, NaN for missing); got dtype "
            f"{da.dtype}. Convert labels to 0/1 first (e.g. xr_agreement.from_sets)."
        )


class CoordinateValues:
    """The (dim, coordinate values) pairs of ``da`` along ``dims``, made on first use.

    They only ever name an offending value in an error message, and turning a string index
    into a numpy array is expensive (97 ms at 10^6 items): a clean call never pays for it.
    Iterates like the list ``[(dim, values), ...]`` (a dim without a coordinate gets
    ``0..n-1``).
    """

    def __init__(self, da: xr.DataArray, dims):
        self._da, self._dims, self._pairs = da, tuple(dims), None

    def _materialize(self) -> list:
        if self._pairs is None:
            self._pairs = [(d, self._da[d].values) for d in self._dims]
        return self._pairs

    def __iter__(self):
        return iter(self._materialize())

    def __len__(self):
        return len(self._dims)

    def __getitem__(self, index):
        return self._materialize()[index]


def describe_position(block: np.ndarray, coords) -> str:
    """Message naming the first value of ``block`` that is not 0, 1 (or NaN for floats).

    ``coords`` holds (dim, coordinate values) for each axis of ``block``.
    """
    values = np.asarray(block)
    bad = (values != 0) & (values != 1)
    if values.dtype.kind == "f":
        bad &= ~np.isnan(values)
    position = np.unravel_index(int(np.argmax(bad)), values.shape)
    where = ", ".join(f"{dim}={_plain(vals[p])!r}" for (dim, vals), p in zip(coords, position))
    allowed = "0, 1 or NaN (missing)" if values.dtype.kind == "f" else "0 or 1"
    return (
        f"decisions must be {allowed}; found {_plain(values[position])!r} at {where} "
        f"({int(bad.sum())} such value(s) in this block)"
    )


# --- options shared by the families (ci= and population_size=)


def _check_confidence(confidence, name="ci"):
    """The one check of a confidence level (``ci=``) in every family."""
    if isinstance(confidence, bool) or not (
            isinstance(confidence, (int, float, np.floating)) and 0 < confidence < 1):
        raise ValueError(f"{name} must be a number in (0, 1), got {confidence!r} (the "
                         "confidence level, e.g. 0.95)")


def _check_population(population_size, n_items):
    if population_size is not None and not (
        isinstance(population_size, (int, float, np.integer, np.floating))
        and population_size >= n_items
    ):
        raise ValueError(
            f"population_size must be a number of items at least the sample's {n_items}, "
            f"got {population_size!r}"
        )
