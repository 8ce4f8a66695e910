"""Gwet's (2014) analytic standard error of single-label alpha."""

from __future__ import annotations

import math

import numpy as np

from .._core.arrays import _plain
from .._core.categorical import Ratings
from .._core.student_t import t_quantile
from . import finish_kernels as _finish
from . import kernels as _kernels
from .counts import _EMPTY_DELTA, _EMPTY_NUMBERS, _flat
from .distances import _callable_delta


# --- analytic standard errors (Gwet 2014) ----------------------------------------------


def _distance_rows(ratings: Ratings, counts, name, metric, numbers, scores,
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
        rows = np.empty((G, V))
        _finish.nominal_rows(counts.value_counts, rows)
        return _kernels.DELTA_NOMINAL, delta, no_numbers, no_scores, rows
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


def _nominal_squares(items_by_m, agreeing_by_m, value_counts, moments, outer) -> float:
    """Gwet's sum over pairable items of (kx_i - alpha')**2 for the nominal distance of one
    group, exactly, from the moments of the counting pass (no second pass over the ratings;
    NaN where :func:`.finish_kernels.gwet_constants` is).

    With a_i = sum_c n_ic (n_ic - 1), P_i = m_i (m_i - 1) - a_i and e_i = m_i n.. - s_i,
    s_i = sum_c n_ic n_c, the deviation of an item with m ratings is linear in its counts:
    kx_i - alpha' = u_m + v_m a_i + w s_i (u, v, w from the corpus totals below). Its square
    summed over the items with m ratings needs the items, sum a_i, sum a_i^2, sum n_ic and
    sum a_i n_ic by m, and sum_i n_ic n_ik (``moments``, ``outer``: see
    :func:`_kernels.rating_counts`). All of them are integers and every constant is a ratio
    of integers, so the sum is evaluated in fractions and rounded once: no cancellation
    between the large terms of the expanded square."""
    from fractions import Fraction

    items_by_m = [int(x) for x in items_by_m]
    n = len(items_by_m) - 1
    n_c = [int(x) for x in value_counts]
    V = len(n_c)
    total = sum(m * items_by_m[m] for m in range(2, n + 1))  # n..
    n_items = sum(items_by_m[2:])
    expected = total * total - sum(c * c for c in n_c)  # T = sum_c n_c (n.. - n_c)
    if n_items < 2 or expected <= 0:
        return math.nan
    observed_sum = sum(m * items_by_m[m] - Fraction(int(agreeing_by_m[m]), m - 1)
                       for m in range(2, n + 1))
    mean_m = Fraction(total, n_items)
    observed = observed_sum / total  # D_o
    scaled_expected = Fraction(expected, total * total)  # T'
    alpha_prime = 1 - observed / scaled_expected
    w = -2 * (1 - alpha_prime) * total / (expected * mean_m)
    pairs = sum(n_c[c] * n_c[k] * int(outer[c, k]) for c in range(V) for k in range(V)
                if n_c[c] and n_c[k])
    squares = w * w * pairs
    for m in range(2, n + 1):
        count = items_by_m[m]
        if not count:
            continue
        row = moments[m]
        agree, agree_squares = int(agreeing_by_m[m]), int(row[0])
        spread = sum(n_c[c] * int(row[1 + c]) for c in range(V))  # sum_i s_i
        agree_spread = sum(n_c[c] * int(row[1 + V + c]) for c in range(V))  # sum_i a_i s_i
        v = 1 / ((m - 1) * mean_m * scaled_expected)
        u = (1 + ((m - mean_m) * (1 - Fraction(1, total)) * observed - m)
             / (mean_m * scaled_expected)
             - 2 * (1 - alpha_prime) * (m - Fraction(m * total * total, expected)) / mean_m
             - alpha_prime)
        squares += (u * u * count + 2 * u * v * agree + v * v * agree_squares
                    + 2 * u * w * spread + 2 * v * w * agree_spread)
    return float(squares)


def _standard_error_limits(value, variance, dof, confidence):
    """alpha_se, alpha_lower, alpha_upper (arrays like ``value``; ``variance`` and ``dof``
    of its shape) from Gwet's variance and dof (:func:`.finish_kernels.standard_error_limits`,
    with :func:`~xr_agreement._core.student_t.t_quantile`)."""
    shape = np.shape(value)
    dof = np.ascontiguousarray(dof, dtype=np.float64).reshape(-1)
    t = t_quantile(dof, confidence)  # used where dof >= 1
    limits = _finish.standard_error_limits(_flat(value), _flat(variance), dof, t)
    return limits[0].reshape(shape), limits[1].reshape(shape), limits[2].reshape(shape)


