"""Gwet's (2014) analytic standard error of single-label alpha."""

from __future__ import annotations

import numpy as np

from .._core.arrays import _plain
from . import kernels as _kernels
from .counts import _EMPTY_DELTA, _EMPTY_NUMBERS, _Ratings
from .distances import _callable_delta


# --- analytic standard errors (Gwet 2014) ----------------------------------------------


def _distance_rows(ratings: _Ratings, counts, name, metric, numbers, scores,
                   delta=None):
    """The kernel's distance id and arrays, and ``rows[g, c] = sum_k n_k delta(c, k)``
    over the pairable values of group ``g`` (``delta``: a callable's distances, if known)."""
    known_delta = delta
    value_counts = counts.value_counts.astype(np.float64)
    G, V = value_counts.shape
    delta, no_numbers = _EMPTY_DELTA, _EMPTY_NUMBERS
    no_scores = np.zeros((1, 1))
    total = value_counts.sum(axis=1, keepdims=True)
    if name == "nominal":
        return _kernels.DELTA_NOMINAL, delta, no_numbers, no_scores, total - value_counts
    if name in ("interval", "ordinal"):
        if name == "ordinal":  # mid-ranks of the pairable frequencies
            scores = np.cumsum(value_counts, axis=1) - value_counts / 2.0
        scores = np.ascontiguousarray(np.broadcast_to(scores, (G, V)), dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (value_counts * scores).sum(axis=1, keepdims=True) / total
        mean = np.nan_to_num(mean)
        spread = (value_counts * (scores - mean) ** 2).sum(axis=1, keepdims=True)
        rows = total * (scores - mean) ** 2 + spread
        return _kernels.DELTA_SQUARED_SCORES, delta, no_numbers, scores, rows
    if name == "ratio":
        rows = np.zeros((G, V))
        for start in range(0, V, 256):  # (256, V) distances at a time
            left = numbers[start:start + 256, None]
            sums = left + numbers[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                block = np.where(sums > 0, ((left - numbers[None, :]) / sums) ** 2, 0.0)
            rows[:, start:start + 256] = value_counts @ block.T
        return _kernels.DELTA_RATIO, delta, np.ascontiguousarray(numbers, np.float64), \
            no_scores, rows
    delta = known_delta
    if delta is None:
        delta = _callable_delta(metric, [_plain(v) for v in ratings.categories])
    return _kernels.DELTA_MATRIX, delta, no_numbers, no_scores, value_counts @ delta.T


def _gwet_constants(n_items, n_values, observed_sum, expected):
    """The corpus-level quantities of Gwet's (2014, ch. 6) variance of alpha for one group
    (n.., m̄, D_o, T', T, alpha'), or None where the variance is undefined.

    The per-item terms (summed by :func:`_kernels.gwet_squares`) are m_i,
    P_i = sum_{a != b} delta and e_i = sum_a rows[c_a].
    Gwet writes alpha with agreement weights w = 1 - s delta; his linearized per-item terms
    are free of the scale s, so they are written here with distances only:
    k_i = 1 + ((m_i - m̄)(1 - 1/n..) D_o - P_i / (m_i - 1)) / (m̄ T'),
    alpha' = 1 - D_o / T', e'_i = (m_i - e_i n.. / T) / m̄ and
    kx_i = k_i - 2 (1 - alpha') e'_i, with T = sum_c n_c rows_c, T' = T / n..**2 and
    D_o = sum_i P_i / (m_i - 1) / n..; var = (1 - f) sum_i (kx_i - alpha')**2 / (n (n - 1))
    over the n pairable items, f = rated items / population size."""
    if n_items < 2 or not expected > 0:
        return None
    mean_m = n_values / n_items
    scaled_expected = expected / n_values**2
    observed = observed_sum / n_values
    return n_values, mean_m, observed, scaled_expected, expected, 1 - observed / scaled_expected


def _gwet_variance(squares, n_items, rated_items, population_size):
    finite = 1.0 if population_size is None else 1 - rated_items / population_size
    return finite * squares / (n_items * (n_items - 1))


def _standard_error_limits(value, variance, dof, confidence):
    """alpha_se, alpha_lower, alpha_upper (arrays like ``value``) from Gwet's variance and
    dof."""
    from scipy import stats  # here, so that ``import xr_agreement`` stays light

    with np.errstate(invalid="ignore"):
        se = np.where(variance >= 0, np.sqrt(np.maximum(variance, 0)), np.nan)
    se = np.where(np.isnan(value), np.nan, se)
    t = np.full(np.shape(dof), np.nan)
    usable = np.asarray(dof) >= 1
    t[usable] = stats.t.ppf(0.5 + confidence / 2, np.asarray(dof)[usable])
    return se, value - t * se, np.minimum(value + t * se, 1.0)
