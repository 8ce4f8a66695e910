"""Gwet's (2014) formulas of the family, compiled: the one place where they are written.

From the sums over items of a problem's per-item terms (a problem: the ratings with q
categories, a label, a category against the rest) to chance agreement, the coefficient and
what the standard error's per-item terms need; and the per-item terms of items in a given
state (category counts). Every path takes them from here: the counting passes' tables
(:mod:`.finish`, on numpy and dask input) and the bootstrap's weighted sums (:mod:`.values`).

Why compiled: written as numpy operations they were some 80 small array operations a call,
most of a small call's time (a call on 50 items took 0.5-1 ms); here each problem is a few
loops. The batched kernels take the problems flattened to one axis P (a group of the extra
dims, a label, a resample); their arguments are float64 arrays. No xarray in this module.

Methods (``method``): :data:`FLEISS`, :data:`GWET`, :data:`BRENNAN_PREDIGER`, :data:`PERCENT`,
:data:`CONGER`.
"""

from __future__ import annotations

import numpy as np

from .._core.jit import njit

FLEISS, GWET, BRENNAN_PREDIGER, PERCENT, CONGER = range(5)
METHODS = {"fleiss": FLEISS, "gwet": GWET, "brennan_prediger": BRENNAN_PREDIGER,
           "percent": PERCENT, "conger": CONGER}

# |1 - P_e| at most this is treated as 0: P_e = 1 arises from sums of products of
# proportions that are 0 or 1, so a genuine 1 - P_e is at least of the order
# 1 / (number of ratings)**2.
ZERO_GAP = 1e-12


@njit(cache=True, nogil=True)
def point(observed, expected):
    """(1 - P_e, NaN where it is 0, and the coefficient (P_o - P_e) / (1 - P_e))."""
    gap = 1.0 - expected
    if not abs(gap) > ZERO_GAP:  # NaN stays NaN
        gap = np.nan
    return gap, (observed - expected) / gap


@njit(cache=True, nogil=True)
def _chance(share, n, w, method, chance):
    """P_e of a non-Conger problem from the summed shares (q,) over ``n`` rated items, and
    into ``chance`` (q,) the c_k of its per-item chance term sum_k (r_ik / r_i) c_k."""
    q = share.shape[0]
    total_weight = 0.0
    for k in range(q):
        for l in range(q):
            total_weight += w[k, l]
    chance[:] = np.nan if n <= 0 else 0.0
    pi = share / (n if n > 0 else np.nan)
    if method == FLEISS:
        expected = 0.0
        for k in range(q):
            for l in range(q):
                expected += w[k, l] * pi[k] * pi[l]
        # asymmetric weights enter through (w + w') / 2, as in Gwet's variance
        for k in range(q):
            row = 0.0
            column = 0.0
            for l in range(q):
                row += w[k, l] * pi[l]
                column += w[l, k] * pi[l]
            chance[k] = (row + column) / 2
        return expected
    if method == GWET:
        scale = total_weight / (q * (q - 1)) if q >= 2 else np.nan
        expected = 0.0
        for k in range(q):
            expected += pi[k] * (1 - pi[k])
            chance[k] = scale * (1 - pi[k])
        return scale * expected
    if method == BRENNAN_PREDIGER:
        return total_weight / q ** 2
    return 0.0  # percent


@njit(cache=True, nogil=True)
def _conger_chance(n, n_g, indicator, w, table):
    """Conger's chance agreement of one problem and what Gwet's per-item chance terms need:
    returns (P_e, constant D, scale) and fills ``table`` (annotator, q), with lambda_i /
    (r (r - 1)) = (sum over the item's raters g of table[g, code(i, g)] + D) * scale.

    Gwet's ``lambda_ig = (n / n_g) sum_kl (r pbar_k - p_gk) w_kl (delta_igl - (eps_ig - n_g /
    n) p_gl)`` summed over annotators is ``sum_g B_g,code(i,g) - sum_g eps_ig C_g + sum_g D_g``
    with small (annotator x category) factors: table = B - C, D = sum_g D_g. ``n_g`` (A,):
    the ratings of each annotator, ``indicator`` (A, q) by category; annotators without a
    rating are left out (r: the others)."""
    A, q = indicator.shape
    r = 0
    for g in range(A):
        r += n_g[g] > 0
    p_mean = np.zeros(q)
    for g in range(A):
        if n_g[g] > 0:
            for k in range(q):
                p_mean[k] += indicator[g, k] / n_g[g]
    if r == 0:  # no annotator: NaN, as numpy's nansum / 0 (no division here: compiled
        p_mean[:] = np.nan  # code raises on a float division by zero)
    else:
        p_mean /= r
    expected = 0.0
    for k in range(q):
        for l in range(q):
            cross = 0.0
            for g in range(A):
                if n_g[g] > 0:
                    cross += (indicator[g, k] / n_g[g]) * (indicator[g, l] / n_g[g])
            mean_outer = p_mean[k] * p_mean[l]
            s2 = (cross - r * mean_outer) / (r - 1) if r > 1 else np.nan
            expected += w[k, l] * (mean_outer - s2 / r) if r > 0 else np.nan
    constant = 0.0
    for g in range(A):
        if n_g[g] <= 0:
            table[g, :] = 0.0
            continue
        ratio = n / n_g[g]
        c_g = 0.0
        for l in range(q):
            b = 0.0
            for k in range(q):
                b += (r * p_mean[k] - indicator[g, k] / n_g[g]) * w[k, l]
            table[g, l] = ratio * b
            c_g += table[g, l] * (indicator[g, l] / n_g[g])
        for l in range(q):
            table[g, l] -= c_g
        d_g = (n_g[g] / n) * c_g if n > 0 else np.nan
        if d_g == d_g:  # NaN left out, as numpy's nansum
            constant += d_g
    scale = 1.0 / (r * (r - 1)) if r > 1 else np.nan
    return expected, constant, scale


@njit(cache=True, nogil=True)
def problem_values(n, n_pairable, item_observed, share, w, method, n_g, indicator, out,
                   chance, table):
    """Point values of P problems from their sums over items: ``n`` rated and
    ``n_pairable`` pairable items (P,), the summed per-item observed agreement (P,) and
    shares (P, q); for Conger the ratings ``n_g`` (P, A) and ``indicator`` (P, A, q) of each
    annotator (else A = 0). Fills ``out`` (P, 7): P_o, P_e, 1 - P_e (NaN where 0), the
    coefficient, and Conger's constant and scale (else NaN); ``chance`` (P, q) the c_k of
    the per-item chance term (Fleiss, Gwet; NaN where no item is rated; else 0) and
    ``table`` (P, A, q) Conger's per-annotator chance table."""
    P = n.shape[0]
    for p in range(P):
        observed = item_observed[p] / (n_pairable[p] if n_pairable[p] > 0 else np.nan)
        constant = scale = np.nan
        if method == CONGER:
            chance[p, :] = 0.0
            expected, constant, scale = _conger_chance(n[p], n_g[p], indicator[p], w,
                                                       table[p])
        else:
            expected = _chance(share[p], n[p], w, method, chance[p])
        gap, coefficient = point(observed, expected)
        out[p, 0] = observed
        out[p, 1] = expected
        out[p, 2] = gap
        out[p, 3] = coefficient
        out[p, 4] = constant
        out[p, 5] = scale
        out[p, 6] = n[p] / (n_pairable[p] if n_pairable[p] > 0 else np.nan)


@njit(cache=True, nogil=True)
def points(observed, expected, gap, coefficient):
    """:func:`point` of P problems (the pooled multi-label coefficient's)."""
    for p in range(observed.shape[0]):
        gap[p], coefficient[p] = point(observed[p], expected[p])


@njit(cache=True, nogil=True)
def state_term(m, item_observed, item_share, chance, expected, kappa, scale_observed,
               scale_expected, varies):
    """Gwet's linearized per-item term of an item with ``m`` ratings, observed agreement
    ``item_observed`` and shares ``item_share`` (q,), before the division by 1 - P_e and
    without Conger's chance part: ``scale_observed`` (P_o,i - P_e) (m >= 2) - 2 (1 - kappa)
    ``scale_expected`` (P_e,i - P_e) (m >= 1), P_e,i = sum_k share_k c_k (``varies``: the
    chance agreement varies with the sample, Fleiss and Gwet; else no chance part)."""
    term = scale_observed * (item_observed - expected) if m >= 2 else 0.0
    if varies and m >= 1:
        item_chance = 0.0
        for k in range(item_share.shape[0]):
            item_chance += item_share[k] * chance[k]
        term -= 2 * (1 - kappa) * scale_expected * (item_chance - expected)
    return term


@njit(cache=True, nogil=True)
def state_spread(histogram, m, item_observed, item_share, chance, values, varies, out):
    """Per problem p (P,) the sum over its items of (t_i / (1 - P_e) - kappa)**2, from the
    items per state ``histogram`` (P, S): the standard error's sum with no pass over the
    ratings. A state's ``m`` (S,), observed agreement (K, S) and shares (K, S, q) are the
    columns of row p % K (K = 1: every problem's states alike; K = q: the category-vs-rest
    problems of a group, problem-major). ``values`` (P, 7) are :func:`problem_values`'s."""
    P, S = histogram.shape
    K = item_observed.shape[0]
    for p in range(P):
        row = p % K
        expected, gap, kappa = values[p, 1], values[p, 2], values[p, 3]
        total = 0.0
        for s in range(S):
            if m[s] < 1 or histogram[p, s] == 0:
                continue
            term = state_term(m[s], item_observed[row, s], item_share[row, s], chance[p],
                              expected, kappa, values[p, 6], 1.0, varies)
            deviation = term / gap - kappa
            square = histogram[p, s] * deviation * deviation
            if square == square:  # NaN left out, as numpy's nansum
                total += square
        out[p] = total


@njit(cache=True, nogil=True)
def state_terms(m, item_observed, item_share, chance, expected, kappa, scale_observed,
                scale_expected, varies, out):
    """:func:`state_term` of every state (S,) of P problems into ``out`` (P, S), columns as
    for :func:`state_spread` (the pooled multi-label coefficient's table of terms)."""
    P, S = out.shape
    K = item_observed.shape[0]
    for p in range(P):
        row = p % K
        for s in range(S):
            out[p, s] = state_term(m[s], item_observed[row, s], item_share[row, s],
                                   chance[p], expected[p], kappa[p], scale_observed[p],
                                   scale_expected[p], varies)


@njit(cache=True, nogil=True)
def standard_errors(coefficient, n, spread, population_size, out):
    """Gwet's standard error (P,) from ``spread``, the sum over the ``n`` rated items of the
    squared deviations of the per-item terms: sqrt(f spread / (n (n - 1))) with the finite
    population correction f = 1 - n / N (``population_size`` N; 0: none); NaN where the
    coefficient is, or n < 2."""
    for p in range(coefficient.shape[0]):
        finite = 1.0 if population_size == 0 else 1 - n[p] / population_size
        if coefficient[p] != coefficient[p] or not n[p] > 1:
            out[p] = np.nan
        else:
            out[p] = np.sqrt(finite * spread[p] / (n[p] * (n[p] - 1)))
