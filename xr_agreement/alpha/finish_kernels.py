"""Numba kernels that finish alpha from its totals: alpha, D_o, D_e, the undefined reasons
and Gwet's standard error. No xarray in this module.

Each formula is written once, here: the numpy and dask paths call these kernels one by one
on the merged totals of a block (:func:`.blocks._finish_totals`, :func:`.blocks._finish_se`),
the bootstrap on its replicates (:func:`alpha_terms`), and the small-call path
(:func:`small_nominal`) calls the same kernels inside one compiled call, after the same
counting kernel. Float sums run in numpy's order (:func:`pairwise_sum`), so that moving
them here from numpy changed no result.

:func:`small_nominal` calls kernels of :mod:`.kernels` (another file), so it is cached per
content of that file too (``_core.jit._callees_digest``: numba alone would key it to this
file and keep running an edited callee's old code). Compiling it takes as long as its
callees again (some 30 s cold on a busy machine), once per cache and per version of
``kernels.py``.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.jit import njit
from . import kernels as _kernels


# Why alpha is undefined (codes of :func:`reason_codes`; their text in ``counts``).
DEFINED = 0
NOTHING_DISAGREES = 1  # E = 0: every pairable value is equal
NO_PAIRABLE_VALUES = 2


@njit(cache=True, nogil=True)
def _block_sum(a, start, n):
    """numpy's pairwise summation of ``a[start:start + n]``, n <= 128: fewer than 8 added in
    order from -0.0, else eight running sums combined pairwise, then the rest in order."""
    if n < 8:
        total = -0.0
        for i in range(start, start + n):
            total += a[i]
        return total
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - n % 8:
        j = start + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += a[start + i]
        i += 1
    return total


@njit(cache=True, nogil=True)
def pairwise_sum(a):
    """``a.sum()`` of a 1-D float64 array as numpy computes it, bit for bit: numpy splits a
    run of more than 128 values in two halves (the first a multiple of 8 long) and adds
    their sums. Here without recursion: the leaves (runs of at most 128) and the tree of
    additions over them from an explicit stack."""
    n = a.shape[0]
    if n <= 128:
        return _block_sum(a, 0, n)
    # stack of pending runs (start, length, state): state 0 = to split or sum, 1 = left
    # half summed (its sum on the value stack), combine after the right half
    starts = np.empty(128, np.int64)
    lengths = np.empty(128, np.int64)
    states = np.empty(128, np.int64)
    sums = np.empty(128)
    top = 0
    n_sums = 0
    starts[0], lengths[0], states[0] = 0, n, 0
    top = 1
    while top > 0:
        top -= 1
        start, length, state = starts[top], lengths[top], states[top]
        if state == 1:  # both halves summed: add them
            right = sums[n_sums - 1]
            left = sums[n_sums - 2]
            n_sums -= 2
            sums[n_sums] = left + right
            n_sums += 1
            continue
        if length <= 128:
            sums[n_sums] = _block_sum(a, start, length)
            n_sums += 1
            continue
        half = length // 2
        half -= half % 8
        starts[top], lengths[top], states[top] = start, length, 1  # combine, after:
        starts[top + 1], lengths[top + 1], states[top + 1] = start + half, length - half, 0
        starts[top + 2], lengths[top + 2], states[top + 2] = start, half, 0  # left first
        top += 3
    return sums[0]


@njit(cache=True, nogil=True)
def count_totals(items_by_m, value_counts, seen, pairable, pairable_items, rated_items):
    """Per group: the pairable values n.. = sum_m m items_m, the pairable items (m >= 2)
    and the rated items (m >= 1: the pairable ones and one per unpaired rating, ``seen``
    minus ``value_counts``), into the int64 outputs (G,)."""
    G, M = items_by_m.shape
    for g in range(G):
        values = 0
        items = 0
        for m in range(M):
            values += m * items_by_m[g, m]
            if m >= 2:
                items += items_by_m[g, m]
        unpaired = 0
        for c in range(value_counts.shape[1]):
            unpaired += seen[g, c] - value_counts[g, c]
        pairable[g] = values
        pairable_items[g] = items
        rated_items[g] = items + unpaired


@njit(cache=True, nogil=True)
def nominal_sums(items_by_m, agreeing_by_m, value_counts, pairable, observed_sum,
                 expected_sum):
    """The numerators of the nominal metric from integer counts, per group:
    O = sum_m (m items_m - a_m / (m - 1)) over m >= 2 (a_m: the agreeing ordered pairs of
    the items with m ratings) and E = n..**2 - sum_c n_c**2 (exact in int64)."""
    G, M = items_by_m.shape
    per_m = np.zeros(M)
    for g in range(G):
        for m in range(2, M):
            per_m[m] = m * items_by_m[g, m] - agreeing_by_m[g, m] / (m - 1)
        observed_sum[g] = pairwise_sum(per_m)
        squares = 0
        for c in range(value_counts.shape[1]):
            squares += value_counts[g, c] * value_counts[g, c]
        expected_sum[g] = float(pairable[g] * pairable[g] - squares)


@njit(cache=True, nogil=True)
def alpha_terms(observed_sum, expected_sum, pairable, value, observed, expected):
    """alpha = 1 - (n.. - 1) O / E, D_o = O / n.. and D_e = E / (n.. (n.. - 1)) (1-D
    float64 arrays): NaN with fewer than two pairable values, alpha NaN too when nothing
    could disagree (E = 0)."""
    for j in range(observed_sum.shape[0]):
        n = pairable[j]
        if n >= 2:
            observed[j] = observed_sum[j] / n
            expected[j] = expected_sum[j] / (n * (n - 1))
            if expected_sum[j] > 0:
                value[j] = 1.0 - (n - 1) * observed_sum[j] / expected_sum[j]
            else:
                value[j] = np.nan
        else:
            observed[j] = np.nan
            expected[j] = np.nan
            value[j] = np.nan


@njit(cache=True, nogil=True)
def reason_codes(pairable, expected_sum, codes):
    """Why alpha is undefined (1-D float64 inputs): NO_PAIRABLE_VALUES below two pairable
    values, NOTHING_DISAGREES where E is not positive, else DEFINED."""
    for j in range(pairable.shape[0]):
        if pairable[j] < 2:
            codes[j] = NO_PAIRABLE_VALUES
        elif pairable[j] >= 2 and not expected_sum[j] > 0:
            codes[j] = NOTHING_DISAGREES
        else:
            codes[j] = DEFINED


@njit(cache=True, nogil=True)
def nominal_rows(value_counts, rows):
    """Gwet's ``rows[g, c] = sum_k n_k delta(c, k)`` of the nominal distance: n.. - n_c."""
    G, V = value_counts.shape
    for g in range(G):
        total = 0.0
        for c in range(V):
            total += value_counts[g, c]
        for c in range(V):
            rows[g, c] = total - value_counts[g, c]


@njit(cache=True, nogil=True)
def gwet_constants(pairable_items, pairable, observed_sum, value_counts, rows, constants):
    """The corpus-level quantities of Gwet's (2014, ch. 6) variance of alpha per group,
    ``constants`` (G, 6) = (n.., m̄, D_o, T', T, alpha'), a NaN row where the variance is
    undefined (fewer than 2 pairable items, or T = 0).

    The per-item terms (summed by ``kernels.gwet_squares``) are m_i,
    P_i = sum_{a != b} delta and e_i = sum_a rows[c_a].
    Gwet writes alpha with agreement weights w = 1 - s delta; his linearized per-item terms
    are free of the scale s, so they are written here with distances only:
    k_i = 1 + ((m_i - m̄)(1 - 1/n..) D_o - P_i / (m_i - 1)) / (m̄ T'),
    alpha' = 1 - D_o / T', e'_i = (m_i - e_i n.. / T) / m̄ and
    kx_i = k_i - 2 (1 - alpha') e'_i, with T = sum_c n_c rows_c, T' = T / n..**2 and
    D_o = sum_i P_i / (m_i - 1) / n..; var = (1 - f) sum_i (kx_i - alpha')**2 / (n (n - 1))
    over the n pairable items, f = rated items / population size (:func:`gwet_variance`)."""
    G, V = value_counts.shape
    products = np.empty(V)
    for g in range(G):
        for c in range(V):
            products[c] = value_counts[g, c] * rows[g, c]
        expected = pairwise_sum(products)
        n_items = pairable_items[g]
        if n_items < 2 or not expected > 0:
            constants[g, :] = np.nan
            continue
        n_values = float(pairable[g])
        mean_m = n_values / n_items
        scaled_expected = expected / (n_values * n_values)  # n.. is an integer: exact
        observed = observed_sum[g] / n_values
        constants[g, 0] = n_values
        constants[g, 1] = mean_m
        constants[g, 2] = observed
        constants[g, 3] = scaled_expected
        constants[g, 4] = expected
        constants[g, 5] = 1 - observed / scaled_expected


@njit(cache=True, nogil=True)
def gwet_variance(squares, pairable_items, rated_items, population_size, constants,
                  variance):
    """Gwet's variance (1 - f) sum_i (kx_i - alpha')**2 / (n (n - 1)) per group from the
    summed ``squares``, f = rated items / ``population_size`` (0 if that is NaN: none
    given); NaN where ``constants`` is."""
    for g in range(squares.shape[0]):
        if np.isnan(constants[g, 0]):
            variance[g] = np.nan
            continue
        finite = 1.0
        if not np.isnan(population_size):
            finite = 1 - rated_items[g] / population_size
        n = pairable_items[g]
        variance[g] = finite * squares[g] / (n * (n - 1))


@njit(cache=True, nogil=True)
def standard_error_limits(value, variance, dof, t):
    """(alpha_se, alpha_lower, alpha_upper) (3, n) from 1-D float64 arrays: alpha_se =
    sqrt(variance) (NaN with alpha or a negative variance) and the limits alpha -+ t se with
    ``t`` the t quantile of ``dof`` degrees of freedom (NaN below 1), the upper one capped
    at 1."""
    out = np.empty((3, value.shape[0]))
    for j in range(value.shape[0]):
        s = math.sqrt(variance[j]) if variance[j] >= 0 else np.nan
        if np.isnan(value[j]):
            s = np.nan
        quantile = t[j] if dof[j] >= 1 else np.nan
        out[0, j] = s
        out[1, j] = value[j] - quantile * s
        high = value[j] + quantile * s
        out[2, j] = 1.0 if high > 1.0 else high
    return out


@njit(cache=True, nogil=True, inline="always")
def symmetric_coincidence(upper):
    """The coincidence matrices (G, V, V) from their upper triangles (c <= k), as the
    counting kernel fills them: the lower triangle mirrored, in place."""
    for g in range(upper.shape[0]):
        for c in range(upper.shape[1]):
            for k in range(c + 1, upper.shape[2]):
                upper[g, k, c] = upper[g, c, k]
    return upper


_NO_RESULT_2D = np.zeros((0, 0), np.int64)


@njit(cache=True, nogil=True,  # work: rating_counts' (few values) and gwet_squares'
      work=lambda values, *_: values.shape[0] * (
          values.shape[1] * values.shape[2] * (12 + values.shape[2])
          + (values.shape[2] + 1) * 64))
def small_nominal(values, with_se, population_size, span_limit, exact_limit, t_dof, t):
    """Nominal alpha of numeric ratings (G, N, n) float64 (NaN missing) in one call: the
    counting pass (``kernels.rating_counts``, items 0..N in one run), then the finishing
    kernels above on its totals, and Gwet's standard error (``kernels.gwet_squares``) if
    ``with_se``: what ``blocks`` does on one block of ratings read as integral codes, the
    same kernels in the same order, without the Python between them. ``t`` is the t
    quantile of ``t_dof`` degrees of freedom: the limits of the interval are computed here
    (:func:`standard_error_limits`) if every group has ``t_dof`` + 1 pairable items.

    The ratings are read as ``blocks`` reads them (``_core.categorical.integral_ratings``
    on every item): from the lowest to the highest, if they span fewer than ``span_limit``
    values below ``exact_limit`` in magnitude and all are integral. Otherwise ``ok`` is
    False and nothing else is meaningful (the caller takes the general path).

    Returns (ok, V', limited, value_counts (G, V), seen (G, V), coincidence (G, V, V),
    integers (4, G) = (n.., pairable items, rated items, reason code), floats (8, G) =
    (alpha, D_o, D_e, E, variance, alpha_se, alpha_lower, alpha_upper; the last four NaN
    without ``with_se``, the last three unless ``limited``), the values low, low + 1, .. of
    the V codes (V,)); V' is the number of codes some rating has (in ``seen``)."""
    G, N, n = values.shape
    low = np.inf
    high = -np.inf
    for g in range(G):
        for i in range(N):
            for a in range(n):
                v = values[g, i, a]
                if v < low:  # (False for NaN)
                    low = v
                if v > high:
                    high = v
    ok = low <= high and high - low < span_limit and max(abs(low), abs(high)) < exact_limit
    if not ok:
        return (False, 0, False, _NO_RESULT_2D.copy(), _NO_RESULT_2D.copy(),
                np.zeros((0, 0, 0)), _NO_RESULT_2D.copy(), np.zeros((0, 0)), np.zeros(0))
    V = np.int64(high - low) + 1
    counts, unpaired, items, agreeing, upper, _, _, unmatched = _kernels.rating_counts(
        values, low, np.nan, V, 0, N, True, False)
    if unmatched:  # not integral: coded by the general path
        return (False, 0, False, _NO_RESULT_2D.copy(), _NO_RESULT_2D.copy(),
                np.zeros((0, 0, 0)), _NO_RESULT_2D.copy(), np.zeros((0, 0)), np.zeros(0))
    coincidence = symmetric_coincidence(upper)
    seen = counts + unpaired
    integers = np.empty((4, G), np.int64)
    floats = np.full((8, G), np.nan)
    count_totals(items, counts, seen, integers[0], integers[1], integers[2])
    observed_sum = np.empty(G)
    nominal_sums(items, agreeing, counts, integers[0], observed_sum, floats[3])
    pairable = integers[0].astype(np.float64)
    alpha_terms(observed_sum, floats[3], pairable, floats[0], floats[1], floats[2])
    reason_codes(pairable, floats[3], integers[3])
    if with_se:
        rows = np.empty((G, V))
        nominal_rows(counts, rows)
        constants = np.empty((G, 6))
        gwet_constants(integers[1], integers[0], observed_sum, counts, rows, constants)
        squares = _kernels.gwet_squares(values, low, _kernels.DELTA_NOMINAL, np.zeros((1, 1)),
                                        np.zeros(1), np.zeros((1, 1)), rows, constants, 0, N)
        gwet_variance(squares, integers[1], integers[2], population_size, constants, floats[4])
        dof = np.empty(G)
        limited = True
        for g in range(G):
            dof[g] = integers[1, g] - 1
            limited = limited and dof[g] == t_dof
        if limited:
            floats[5:] = standard_error_limits(floats[0], floats[4], dof, np.full(G, t))
    else:
        limited = False
    category = np.empty(V)
    n_seen = 0
    for c in range(V):
        category[c] = low + c
        rated = 0
        for g in range(G):
            rated += seen[g, c]
        n_seen += rated > 0
    return True, n_seen, limited, counts, seen, coincidence, integers, floats, category
