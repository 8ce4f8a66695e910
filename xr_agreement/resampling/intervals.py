"""Intervals from replicates: percentile and BCa bounds, jackknife moments, and the
variables and attrs they add to a result."""

from __future__ import annotations

import numpy as np
import xarray as xr

from . import kernels as _kernels


RESAMPLE_DIM = "resample"


# Jackknife values whose spread is below this (relative to the estimate, at least 1 in
# scale) differ by rounding only: BCa takes no acceleration from them.
NOISE = 1e-12


# --------------------------------------------------------------------------- intervals


def _quantiles(values: np.ndarray, *levels) -> list[np.ndarray]:
    """Quantile of each level (broadcast against ``values.shape[:-1]``) of the non-NaN values
    along the last axis, linear interpolation as :func:`numpy.quantile`; NaN where none is
    valid. The values are sorted once for all levels."""
    ordered = np.sort(values, axis=-1)  # NaN sorts last
    n_valid = np.sum(~np.isnan(values), axis=-1)
    last = np.maximum(n_valid - 1, 0)
    out = []
    for q in levels:
        q = np.broadcast_to(np.asarray(q, float), n_valid.shape)
        position = q * last
        position = np.where(np.isfinite(position), position, 0)
        below = np.clip(np.floor(position).astype(np.int64), 0, last)
        above = np.minimum(below + 1, last)
        a = np.take_along_axis(ordered, below[..., None], -1)[..., 0]
        b = np.take_along_axis(ordered, above[..., None], -1)[..., 0]
        t = position - below
        # numpy's _lerp: exact at both ends
        value = np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t)
        out.append(np.where((n_valid > 0) & ~np.isnan(q), value, np.nan))
    return out


class JackknifeMoments:
    """Streaming sums for the BCa acceleration of one resampled unit.

    Leave-one-out values are added in batches (units on the last axis, each with a
    multiplicity); only the shifted power sums of ``d = value - estimate`` are kept, so the
    jackknife over many items never has to be held in memory. NaN values are left out.
    """

    def __init__(self, estimate: np.ndarray):
        self.estimate = np.asarray(estimate, float)
        self.sums = [np.zeros(self.estimate.shape) for _ in range(4)]

    def add(self, values: np.ndarray, multiplicity=None) -> None:
        values = np.asarray(values, float)
        units = values.shape[-1]
        weight = np.ones(units) if multiplicity is None else np.asarray(multiplicity, float)
        sums = np.zeros((4, self.estimate.size))
        _kernels.jackknife_power_sums(np.ascontiguousarray(values.reshape(-1, units)),
                                      np.ascontiguousarray(self.estimate.reshape(-1)),
                                      np.ascontiguousarray(weight), sums)
        for power in range(4):
            self.sums[power] += sums[power].reshape(self.estimate.shape)

    def terms(self) -> tuple[np.ndarray, np.ndarray]:
        """scipy's per-sample numerator and denominator: sum U**3 / n**3 and sum U**2 /
        n**2 with U = (n - 1) (mean - value)."""
        n, s1, s2, s3 = self.sums
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / n
            central2 = np.maximum(s2 - n * mean**2, 0.0)
            central3 = s3 - 3 * mean * s2 + 2 * n * mean**3
            # values equal up to rounding: their "skewness" would be noise of order 1
            # (and differ with the order of the sums); no acceleration then
            constant = central2 <= n * (NOISE * np.maximum(1.0, np.abs(self.estimate))) ** 2
            numerator = np.where(constant, 0.0, -((n - 1) ** 3) * central3 / n**3)
            return numerator, np.where(constant, 0.0, (n - 1) ** 2 * central2 / n**2)


def acceleration(moments: list[JackknifeMoments]) -> np.ndarray:
    """BCa acceleration over one or more resampled units (scipy's multi-sample form);
    0 where the jackknife values do not vary."""
    numerator = sum(m.terms()[0] for m in moments)
    denominator = sum(m.terms()[1] for m in moments)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = numerator / 6 / denominator**1.5
    return np.where(np.asarray(denominator) > 0, a, 0.0)


def interval_bounds(
    estimate: np.ndarray,
    replicates: np.ndarray,
    ci: float,
    ci_method: str = "percentile",
    jackknives: list[np.ndarray] | None = None,
    accel: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper confidence bounds, elementwise.

    Parameters
    ----------
    estimate : numpy.ndarray
        The estimate on the full data, shape S.
    replicates : numpy.ndarray
        Bootstrap replicates, shape S + (R,).
    ci : float
        Confidence level.
    ci_method : {"percentile", "bca"}
    jackknives : list of numpy.ndarray
        For "bca": leave-one-out values, shape S + (n_units,), one array per resampled unit.
    accel : numpy.ndarray
        For "bca", instead of ``jackknives``: the acceleration (see :func:`acceleration`).

    Examples
    --------
    >>> interval_bounds(np.array(2.0), np.arange(101.0), 0.9)
    (array(5.), array(95.))
    """
    estimate = np.asarray(estimate, float)
    replicates = np.asarray(replicates, float)
    alpha = (1 - ci) / 2
    if ci_method == "percentile":
        levels = (np.full(estimate.shape, alpha), np.full(estimate.shape, 1 - alpha))
    else:
        valid = ~np.isnan(replicates)
        # replicates within rounding of the estimate count as ties (half below): sums taken
        # in another order (dask blocks) must not move the bias correction
        tolerance = NOISE * np.maximum(1.0, np.abs(estimate))[..., None]
        below = np.sum(replicates < estimate[..., None] - tolerance, axis=-1)
        at_most = np.sum(replicates <= estimate[..., None] + tolerance, axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (below + at_most) / (2 * np.sum(valid, axis=-1))
        from scipy.special import ndtr as _ndtr, ndtri as _ndtri  # BCa only: scipy loads on use

        z0 = _ndtri(share)
        if accel is None:
            moments = []
            for values in jackknives or []:
                moments.append(JackknifeMoments(estimate))
                moments[-1].add(values)
            accel = acceleration(moments) if moments else np.zeros(estimate.shape)
        a = accel
        levels = []
        for z_alpha in (_ndtri(alpha), -_ndtri(alpha)):
            shifted = z0 + z_alpha
            with np.errstate(invalid="ignore", divide="ignore"):
                levels.append(_ndtr(z0 + shifted / (1 - a * shifted)))
    lower, upper = _quantiles(replicates, *levels)
    undefined = np.isnan(estimate)
    return np.where(undefined, np.nan, lower), np.where(undefined, np.nan, upper)


def interval_variables(result: xr.Dataset, item: str) -> list[str]:
    """Variables that get intervals by default: floating-point values without the item dim
    (coefficients and their components at corpus and label level; counts and item-level
    diagnostics get none)."""
    return [
        name
        for name, var in result.data_vars.items()
        if item not in var.dims and var.dtype.kind == "f"
    ]


def add_intervals(
    result: xr.Dataset,
    estimate: xr.Dataset,
    replicates: xr.Dataset,
    *,
    variables: list[str],
    ci: float,
    ci_method: str,
    resample: str,
    accelerations: dict[str, np.ndarray] | None = None,
    return_replicates: bool = False,
) -> xr.Dataset:
    """``result`` with ``V_lower``, ``V_upper`` (and ``V_replicates``) for each V in
    ``variables`` and the bootstrap recorded in its attrs.

    ``estimate`` holds the statistic on the full data as the replicates compute it (the BCa
    bias correction compares replicates with it); ``replicates`` has a ``resample`` dim;
    ``accelerations`` gives, for "bca", each variable's acceleration (dims of ``result``,
    see :func:`jackknife_accelerations`).
    """
    level = f"{100 * ci:g}%"
    new = {}
    for name in variables:
        template = result[name]
        point = estimate[name].transpose(*template.dims)
        reps = replicates[name].transpose(*template.dims, RESAMPLE_DIM)
        accel = None
        if ci_method == "bca":
            accel = np.asarray(accelerations[name]).reshape(template.shape)
        lower, upper = interval_bounds(point.values, reps.values, ci, ci_method, accel=accel)
        n_resamples = replicates.sizes[RESAMPLE_DIM]
        for side, bound in (("lower", lower), ("upper", upper)):
            attrs = _bound_attrs(template, name, side, level, ci_method, resample, n_resamples)
            data = np.asarray(bound, float).reshape(template.shape)
            new[f"{name}_{side}"] = xr.Variable(template.dims, data, attrs)
        if return_replicates:
            values = reps.transpose(RESAMPLE_DIM, *template.dims)
            new[f"{name}_replicates"] = xr.Variable(values.dims, values.values,
                                                    _replicate_attrs(template, name, resample))
    # one merge for all new variables (adding them one by one realigns every time)
    out = result.assign(new)
    if return_replicates:
        out = out.assign_coords({RESAMPLE_DIM: np.arange(replicates.sizes[RESAMPLE_DIM])})
    out.attrs.update(_interval_attrs(ci, ci_method, int(replicates.sizes[RESAMPLE_DIM]),
                                     resample))
    return out


def _bound_attrs(template, name, side, level, ci_method, resample, n_resamples) -> dict:
    return {
        "long_name": f"{side} bound of the {level} confidence interval of "
        f"{template.attrs.get('long_name', name)}",
        "symbol": f"{template.attrs.get('symbol', name)},{side}",
        "description": f"{ci_method} bootstrap interval, {resample} resampling "
        f"({n_resamples} resamples); replicates where the value is undefined (NaN) are "
        "left out",
    }


def _replicate_attrs(template, name, resample) -> dict:
    return {
        "long_name": f"bootstrap replicates of {template.attrs.get('long_name', name)}",
        "symbol": f"{template.attrs.get('symbol', name)}*",
        "description": f"{name} recomputed on each {resample} resample",
    }


def _interval_attrs(ci, ci_method, n_resamples, resample) -> dict:
    return {
        "ci_level": ci,
        "ci_method": ci_method,
        "ci_n_resamples": int(n_resamples),
        "ci_resampling_unit": resample,
        "ci_note": "baseline recomputed in every replicate; label universe fixed; "
        + (
            "a resampled annotator drawn twice counts as two distinct raters"
            if resample != "item"
            else "items drawn jointly across extra dims"
        ),
    }
