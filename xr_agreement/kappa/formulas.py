"""Gwet's (2014) formulas of the family, compiled: the one place where they are written.

From the sums over items of a problem's per-item terms (a problem: the ratings with q
categories, a label, a category against the rest) to chance agreement, the coefficient and
what the standard error's per-item terms need; and the per-item terms of items in a given
state (category counts). Every path takes them from here: the counting passes' tables
(:mod:`.finish`, on numpy and dask input) and the bootstrap's weighted sums (:mod:`.values`);
the standard error's passes over the ratings (:mod:`.kernels`) take :func:`agreeing_pairs`
but write the linearized per-item term of :func:`state_term` again in their loops, with its
2 x 2 special cases spelled out: calling these functions there made Conger's pass at 10^5 x 5
take 5.2 ms instead of 3.3 (its category-vs-rest loop no longer vectorized).

Why compiled: written as numpy operations they were some 80 small array operations a call,
most of a small call's time (a call on 50 items took 0.5-1 ms); here each problem is a few
loops. The batched kernels take the problems flattened to one axis P (a group of the extra
dims, a label, a resample); their arguments are float64 arrays, except counts of items
(``patterns``, ``counts``, a state's ``m``: int64). No xarray in this module.

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
def agreeing_pairs(r, w):
    """The weighted agreeing ordered pairs of ratings of an item with category counts ``r``
    (q,): sum_k r_k (sum_l w_kl r_l - 1), the numerator of its observed agreement. Every
    category, none skipped: which are absent varies from item to item, and a branch on it
    cost the standard error's pass more than the products."""
    q = r.shape[0]
    agreeing = 0.0
    for k in range(q):
        weighted = 0.0
        for l in range(q):
            weighted += w[k, l] * r[l]
        agreeing += r[k] * (weighted - 1)
    return agreeing


@njit(cache=True, nogil=True)
def item_terms(r, w, share):
    """Gwet's per-item terms of an item with category counts ``r`` (q,): returns (its
    raters m, its observed agreement sum_k r_k (sum_l w_kl r_l - 1) / (m (m - 1)), 0 where
    m < 2) and fills ``share`` (q,) with r_k / m (0 where m = 0)."""
    q = r.shape[0]
    m = 0.0
    for k in range(q):
        m += r[k]
    agreeing = agreeing_pairs(r, w)
    divisor = max(m, 1.0)
    for k in range(q):
        share[k] = r[k] / divisor
    return m, (agreeing / (m * (m - 1)) if m >= 2 else 0.0)


@njit(cache=True, nogil=True)
def item_columns(counts, w, m, observed, share):
    """:func:`item_terms` of R items' category counts ``counts`` (R, q) into ``m`` (R,),
    ``observed`` (R,) and ``share`` (R, q)."""
    for i in range(counts.shape[0]):
        m[i], observed[i] = item_terms(counts[i], w, share[i])


@njit(cache=True, nogil=True)
def _problem(n, n_pairable, item_observed, share, w, method, n_g, indicator, values, chance,
             table):
    """One problem of :func:`problem_values` (``values`` its row of 7)."""
    observed = item_observed / (n_pairable if n_pairable > 0 else np.nan)
    constant = scale = np.nan
    if method == CONGER:
        chance[:] = 0.0
        expected, constant, scale = _conger_chance(n, n_g, indicator, w, table)
    else:
        expected = _chance(share, n, w, method, chance)
    gap, coefficient = point(observed, expected)
    values[0] = observed
    values[1] = expected
    values[2] = gap
    values[3] = coefficient
    values[4] = constant
    values[5] = scale
    values[6] = n / (n_pairable if n_pairable > 0 else np.nan)


@njit(cache=True, nogil=True)
def problem_values(n, n_pairable, item_observed, share, w, method, n_g, indicator, out,
                   chance, table):
    """Point values of P problems from their sums over items: ``n`` rated and
    ``n_pairable`` pairable items (P,), the summed per-item observed agreement (P,) and
    shares (P, q); for Conger the ratings ``n_g`` (P, A) and ``indicator`` (P, A, q) of each
    annotator (else A = 0). Fills ``out`` (P, 7): P_o, P_e, 1 - P_e (NaN where 0), the
    coefficient, Conger's constant and scale (else NaN) and n / n'' (the scale of the
    observed part of the per-item terms); ``chance`` (P, q) the c_k of the per-item chance
    term (Fleiss, Gwet; NaN where no item is rated; else 0) and ``table`` (P, A, q)
    Conger's per-annotator chance table."""
    for p in range(n.shape[0]):
        _problem(n[p], n_pairable[p], item_observed[p], share[p], w, method, n_g[p],
                 indicator[p], out[p], chance[p], table[p])


@njit(cache=True, nogil=True)
def composition_values(patterns, side, w, method, with_error, n_g, annotators, counts,
                       overall, overall_spread, table, category, category_spread,
                       category_table):
    """Every value of a single-label coefficient and of its category-vs-rest problems from
    the items per composition ``patterns`` (G, side**q): composition ``b`` has r_k = digit
    k of b in base ``side`` (:func:`.kernels.pattern_histogram`). Each sum over items is a
    sum over the compositions seen, the standard error's squares included (not Conger's:
    his per-item chance term depends on who rated what, :func:`.kernels.single_label_spread`
    sums it). For Conger ``n_g`` (G, A) and ``annotators`` (G, A, q): each annotator's
    ratings (else A = 0).

    Fills ``counts`` (G, 2) int64: items rated and pairable (the same for every problem);
    ``overall`` (G, 7) and ``category`` (G, q, 7) as :func:`problem_values`' rows;
    ``overall_spread`` (G,) and ``category_spread`` (G, q) the standard error's sums (0
    unless ``with_error``, and for Conger); Conger's tables ``table`` (G, A, q) and
    ``category_table`` (G, q, A, 2)."""
    G, B = patterns.shape
    q = w.shape[0]
    A = n_g.shape[1]
    identity = np.eye(2)
    # the compositions any group has, with their per-item terms, overall and per category
    seen = np.zeros(B, np.bool_)
    for g in range(G):
        for b in range(B):
            if patterns[g, b] > 0:
                seen[b] = True
    ids = np.flatnonzero(seen)
    C = ids.shape[0]
    m = np.zeros(C)
    observed = np.zeros(C)
    share = np.zeros((C, q))
    binary_observed = np.zeros((C, q))
    binary_share = np.zeros((C, q, 2))
    r = np.zeros(q)
    pair = np.zeros(2)
    for c in range(C):
        rest = ids[c]
        for k in range(q):
            r[k] = rest % side
            rest //= side
        m[c], observed[c] = item_terms(r, w, share[c])
        for k in range(q):
            pair[0] = r[k]
            pair[1] = m[c] - r[k]
            _, binary_observed[c, k] = item_terms(pair, identity, binary_share[c, k])
    share_sum = np.zeros(q)
    binary_sum = np.zeros((q, 2))
    binary_observed_sum = np.zeros(q)
    chance = np.zeros(q)
    binary_chance = np.zeros((q, 2))
    indicator = np.zeros((A, 2))
    for g in range(G):
        rated = pairable = 0
        observed_sum = 0.0
        share_sum[:] = 0.0
        binary_sum[:] = 0.0
        binary_observed_sum[:] = 0.0
        for c in range(C):
            h = patterns[g, ids[c]]
            if h == 0:
                continue
            rated += h * (m[c] >= 1)
            pairable += h * (m[c] >= 2)
            observed_sum += h * observed[c]
            for k in range(q):
                share_sum[k] += h * share[c, k]
                binary_observed_sum[k] += h * binary_observed[c, k]
                binary_sum[k, 0] += h * binary_share[c, k, 0]
                binary_sum[k, 1] += h * binary_share[c, k, 1]
        counts[g, 0] = rated
        counts[g, 1] = pairable
        _problem(rated, pairable, observed_sum, share_sum, w, method, n_g[g], annotators[g],
                 overall[g], chance, table[g])
        for k in range(q):
            for a in range(A):  # category k against the rest, per annotator
                indicator[a, 0] = annotators[g, a, k]
                indicator[a, 1] = n_g[g, a] - annotators[g, a, k]
            _problem(rated, pairable, binary_observed_sum[k], binary_sum[k], identity,
                     method, n_g[g], indicator, category[g, k], binary_chance[k],
                     category_table[g, k])
        overall_spread[g] = 0.0
        category_spread[g, :] = 0.0
        if not with_error or method == CONGER:
            continue
        varies = method == FLEISS or method == GWET
        for c in range(C):
            h = patterns[g, ids[c]]
            if h == 0 or m[c] < 1:
                continue
            overall_spread[g] += _square(h, m[c], observed[c], share[c], chance, overall[g],
                                         varies)
            for k in range(q):
                category_spread[g, k] += _square(h, m[c], binary_observed[c, k],
                                                 binary_share[c, k], binary_chance[k],
                                                 category[g, k], varies)


@njit(cache=True, nogil=True)
def _square(h, m, item_observed, item_share, chance, values, varies):
    """``h`` items' share of the standard error's sum: h (t / (1 - P_e) - kappa)**2 with
    t their :func:`state_term` (0 if NaN, as numpy's nansum leaves it out)."""
    expected, gap, kappa = values[1], values[2], values[3]
    term = state_term(m, item_observed, item_share, chance, expected, kappa, values[6], 1.0,
                      varies)
    deviation = term / gap - kappa
    square = h * deviation * deviation
    return square if square == square else 0.0


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
        total = 0.0
        for s in range(S):
            if m[s] < 1 or histogram[p, s] == 0:
                continue
            total += _square(histogram[p, s], m[s], item_observed[row, s], item_share[row, s],
                             chance[p], values[p], varies)
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
