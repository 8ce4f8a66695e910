"""Numba kernels of Cohen's kappa from the pairs' contingency tables: every pair-, category-
(or label-) and corpus-level value in one pass over the (small) tables, and the pooled
multi-label terms the standard error's lookups start from. No xarray in this module.

One implementation of each formula, shared by every path (numpy, dask's final task, the
bootstrap's replicates; see ``cohen._pair_values``):

- :func:`_table_kappa`: Cohen's kappa of one table with agreement weights, its P_o, P_e and
  the Fleiss, Cohen & Everitt (1969) variance;
- :func:`_vs_rest`: a category's 2x2 table against the rest;
- :func:`_pooled_kappa`: the multi-label coefficient pooled over the labels a pair shares an
  item on, from the labels' P_o and P_e;
- :func:`_pair_finish`: a pair's limits, PABAK, Byrt's bias-adjusted kappa and the reason of
  an undefined value; :func:`_corpus_finish`: Light's mean over the distinct pairs.

Tables are float64 counts (weighted sums on the bootstrap's replicates); ``population`` is
NaN without a finite-population correction. Values that are 0/0 (no common item, P_e = 1)
are NaN: every division is guarded (numba raises on a division by zero).

Layouts (G: the product of the lead dims, n annotators, q categories, L labels):

- single-label ``table`` (G, n, n, q, q): ``pair_out`` (:data:`PAIR_ROWS`, G, n, n),
  ``category_out`` (:data:`CATEGORY_ROWS`, G, n, n, q) per category vs the rest;
- multi-label ``table`` (G, L, n, n, 2, 2), ``common`` and ``squares`` (G, n, n):
  ``pair_out`` as above, ``category_out`` (:data:`CATEGORY_ROWS`, G, L, n, n) per label;
- ``pair_reasons`` (G, n, n) int64: the code of the reason a pair's coefficient is
  undefined; ``corpus_out`` (G,): Light's kappa; ``corpus_counts`` (2, G) int64: the
  defined pairs and the code of the reason Light's kappa is undefined.
"""

from __future__ import annotations

import numpy as np

from .._core.jit import njit

# rows of pair_out and category_out
PAIR_ROWS = ("pair_coefficient", "pair_observed", "pair_expected", "pair_coefficient_se",
             "pair_coefficient_lower", "pair_coefficient_upper", "pair_n_pairable_items",
             "pair_pabak", "pair_bias_adjusted_kappa")
CATEGORY_ROWS = ("category_coefficient", "category_coefficient_se",
                 "category_prevalence_index", "category_bias_index")

# The kernels' work= estimates (for the rule of _core.jit) count the steps of a pair's
# table: some 8 a cell of the q x q table, 24 a category's 2x2 table against the rest, 10
# a cell of a label's 2x2 table.

# codes of pair_undefined_reason and undefined_reason
DEFINED, NO_COMMON, UNIT_EXPECTED = 0, 1, 2
NO_DEFINED_PAIR = 1


@njit(cache=True, nogil=True)
def pair_tables(cells, out):
    """out[g, a, b, r, c] (float) = the items rated r by a and c by b from the single-label
    counting pass's ``cells`` (G, (n q)^2) (``pair_kernels.code_pair_tables``: written for
    b >= a only), a pair's table for b < a its mirror's transpose. One pass, where the
    numpy steps (reshape, transpose, mirror, zeroed diagonal, sum) took 12 of the 50 us of
    the values at 50 items x 5 annotators x 3 categories."""
    G, n, _, q = out.shape[:4]
    nq = n * q
    for g in range(G):
        for a in range(n):
            for b in range(a, n):
                for r in range(q):
                    for c in range(q):
                        count = np.float64(cells[g, (a * q + r) * nq + b * q + c])
                        out[g, a, b, r, c] = count
                        out[g, b, a, c, r] = count


@njit(cache=True, nogil=True, inline="always")
def _table_kappa(t, w, marginals, tolerance):
    """(n, P_o, P_e, kappa, variance) of the table ``t`` (q, q) with weights ``w``: Cohen's
    kappa and the Fleiss-Cohen-Everitt variance (before any finite-population factor),
    with p = t / n,
    ``(sum_kl p_kl (w_kl - (wbar_k. + wbar_.l)(1 - kappa))^2 - (kappa - P_e (1 - kappa))^2)
    / ((1 - P_e)^2 n)``; NaN where n = 0 or |1 - P_e| <= tolerance. Leaves in
    ``marginals`` (4 + q, q) the row and column proportions, wbar_k. = sum_l w_kl p_+l,
    wbar_.l = sum_k w_kl p_k+ and p."""
    q = w.shape[0]
    # marginals[0]: p_k+, [1]: p_+l, [2]: wbar_k., [3]: wbar_.l, [4 + k, l]: p_kl (indexed,
    # not sliced: a slice is an array to build; p divided once)
    n = 0.0
    for k in range(q):
        marginals[0, k] = 0.0
        marginals[1, k] = 0.0
        for m in range(q):
            n += t[k, m]
    known = n if n > 0 else np.nan  # no common item: every value NaN, as 0/0
    observed = 0.0
    for k in range(q):
        for m in range(q):
            p = t[k, m] / known
            marginals[4 + k, m] = p
            marginals[0, k] += p
            marginals[1, m] += p
            observed += w[k, m] * p
    expected = 0.0
    for k in range(q):
        w_row = 0.0
        w_col = 0.0
        for m in range(q):
            w_row += w[k, m] * marginals[1, m]
            w_col += w[m, k] * marginals[0, m]
        marginals[2, k] = w_row
        marginals[3, k] = w_col
        expected += marginals[0, k] * w_row
    gap = 1 - expected if abs(1 - expected) > tolerance else np.nan
    kappa = (observed - expected) / gap
    # the variance of x_kl = w_kl - (wbar_k. + wbar_.l)(1 - kappa) under p, whose mean is
    # kappa - P_e (1 - kappa): summed centred (two passes), not as E[x^2] - E[x]^2, whose
    # cancellation left a standard error of 1e-9 (the root of 1e-18) where it is 0
    mean = 0.0
    for k in range(q):
        for m in range(q):
            mean += marginals[4 + k, m] * (w[k, m] - (marginals[2, k] + marginals[3, m])
                                       * (1 - kappa))
    spread = 0.0
    for k in range(q):
        for m in range(q):
            deviation = (w[k, m] - (marginals[2, k] + marginals[3, m]) * (1 - kappa)
                         - mean)
            spread += marginals[4 + k, m] * (deviation * deviation)
    variance = spread / (gap * gap * known)
    return n, observed, expected, kappa, variance


@njit(cache=True, nogil=True, inline="always")
def _corrected_se(variance, n, population):
    """The standard error of ``variance`` times Gwet's finite-population factor ``1 - n /
    population`` (none where ``population`` is NaN); a tiny negative variance (rounding,
    where it is 0) counts as 0, NaN stays NaN."""
    if population == population:
        variance = variance * (1 - n / population)
    if variance < 0:
        variance = 0.0
    return np.sqrt(variance)


@njit(cache=True, nogil=True, inline="always")
def _vs_rest(t, n, k, binary):
    """Writes into ``binary`` (2, 2) category ``k``'s table against the rest from the q x q
    table ``t`` of ``n`` items: [[both k, first k only], [second k only, neither]]."""
    q = t.shape[0]
    both = t[k, k]
    first = 0.0
    second = 0.0
    for m in range(q):
        first += t[k, m]
        second += t[m, k]
    binary[0, 0] = both
    binary[0, 1] = first - both
    binary[1, 0] = second - both
    binary[1, 1] = n - first - second + both


@njit(cache=True, nogil=True, inline="always")
def _scott_expected(w, marginals):
    """Scott's chance agreement sum_kl w_kl pi_k pi_l, pi the mean of the row and column
    proportions :func:`_table_kappa` left in ``marginals``."""
    q = w.shape[0]
    total = 0.0
    for m in range(q):
        pi_m = (marginals[0, m] + marginals[1, m]) / 2
        weighted = 0.0
        for k in range(q):
            weighted += (marginals[0, k] + marginals[1, k]) / 2 * w[k, m]
        total += weighted * pi_m
    return total


@njit(cache=True, nogil=True, inline="always")
def _ratio(numerator, denominator, tolerance):
    """numerator / denominator, NaN where |denominator| <= tolerance (or NaN)."""
    if abs(denominator) > tolerance:
        return numerator / denominator
    return np.nan


@njit(cache=True, nogil=True, inline="always")
def _pooled_kappa(observed_total, expected_total, used, tolerance):
    """(P_o, P_e, 1 - P_e or NaN, kappa) of the coefficient pooled over ``used`` labels,
    ``(mean P_o,j - mean P_e,j) / (1 - mean P_e,j)`` from the sums of the labels' P_o,j and
    P_e,j; NaN without a used label."""
    if used == 0:
        return np.nan, np.nan, np.nan, np.nan
    observed = observed_total / used
    expected = expected_total / used
    gap = 1 - expected if abs(1 - expected) > tolerance else np.nan
    return observed, expected, gap, (observed - expected) / gap


@njit(cache=True, nogil=True, inline="always")
def _pair_finish(pair_out, pair_reasons, g, a, b, kappa, observed, expected, se, n, chance,
                 scott, z, tolerance):
    """A pair's row of ``pair_out``: kappa, P_o, P_e, the standard error and its limits at
    ``z`` (the upper one at most 1), the items, PABAK (against the uniform chance agreement
    ``chance`` = sum w / q^2), Byrt's bias-adjusted kappa (against Scott's ``scott``) and
    the reason code (in ``pair_reasons``)."""
    upper = kappa + z * se
    pair_out[0, g, a, b] = kappa
    pair_out[1, g, a, b] = observed
    pair_out[2, g, a, b] = expected
    pair_out[3, g, a, b] = se
    pair_out[4, g, a, b] = kappa - z * se
    pair_out[5, g, a, b] = 1.0 if upper > 1.0 else upper
    pair_out[6, g, a, b] = n
    pair_out[7, g, a, b] = _ratio(observed - chance, 1 - chance, tolerance)
    pair_out[8, g, a, b] = _ratio(observed - scott, 1 - scott, tolerance)
    if n == 0:
        pair_reasons[g, a, b] = NO_COMMON
    elif kappa != kappa:
        pair_reasons[g, a, b] = UNIT_EXPECTED
    else:
        pair_reasons[g, a, b] = DEFINED


@njit(cache=True, nogil=True, inline="always")
def _corpus_finish(pair_out, corpus_out, corpus_counts, g):
    """Light's kappa of lead entry ``g``: the mean of the defined coefficients of the pairs
    a < b, their number and the reason code."""
    n = pair_out.shape[2]
    total = 0.0
    count = 0
    for a in range(n):
        for b in range(a + 1, n):
            kappa = pair_out[0, g, a, b]
            if kappa == kappa:
                total += kappa
                count += 1
    corpus_out[g] = total / count if count > 0 else np.nan
    corpus_counts[0, g] = count
    corpus_counts[1, g] = DEFINED if count > 0 else NO_DEFINED_PAIR


@njit(cache=True, nogil=True, inline="always")
def _uniform_chance(w):
    """sum w / q^2: the chance agreement of uniform marginals (PABAK's)."""
    q = w.shape[0]
    total = 0.0
    for k in range(q):
        for m in range(q):
            total += w[k, m]
    return total / (q * q)


@njit(cache=True, nogil=True, work=lambda table, w, z, population, tolerance, pair_out,
      category_out, pair_reasons, corpus_out, corpus_counts:
      8 * table.size + 24 * (table.size // max(table.shape[-1], 1)))
def single_label_values(table, w, z, population, tolerance, pair_out, category_out,
                        pair_reasons, corpus_out, corpus_counts):
    """Every value of single-label Cohen's kappa from the pairs' q x q tables (see the
    module's docstring): a pair's kappa with weights ``w``, and each category's kappa
    against the rest with identity weights (a binary split has no order), Byrt's prevalence
    and bias indices of that 2x2 table."""
    G, n = table.shape[:2]
    q = w.shape[0]
    marginals = np.empty((4 + q, q))
    binary_marginals = np.empty((6, 2))
    binary = np.empty((2, 2))
    identity = np.eye(2)
    chance = _uniform_chance(w)
    for g in range(G):
        for a in range(n):
            for b in range(n):
                t = table[g, a, b]
                n_ab, observed, expected, kappa, variance = _table_kappa(t, w, marginals,
                                                                         tolerance)
                se = _corrected_se(variance, n_ab, population)
                _pair_finish(pair_out, pair_reasons, g, a, b, kappa, observed, expected, se,
                             n_ab, chance, _scott_expected(w, marginals), z, tolerance)
                for k in range(q):
                    _vs_rest(t, n_ab, k, binary)
                    n_k, _, _, kappa_k, variance_k = _table_kappa(binary, identity,
                                                                  binary_marginals, tolerance)
                    known = n_k if n_k > 0 else np.nan
                    category_out[0, g, a, b, k] = kappa_k
                    category_out[1, g, a, b, k] = _corrected_se(variance_k, n_k, population)
                    category_out[2, g, a, b, k] = (binary[0, 0] - binary[1, 1]) / known
                    category_out[3, g, a, b, k] = (binary[0, 1] - binary[1, 0]) / known
        _corpus_finish(pair_out, corpus_out, corpus_counts, g)


@njit(cache=True, nogil=True, work=lambda table, common, squares, w, z, population, tolerance,
      pair_out, category_out, pair_reasons, corpus_out, corpus_counts: 10 * table.size)
def multi_label_values(table, common, squares, w, z, population, tolerance, pair_out,
                       category_out, pair_reasons, corpus_out, corpus_counts):
    """Every value of multi-label Cohen's kappa from the pairs' 2x2 tables of each label
    (the row and column 1 the label said): per label the label's own kappa with weights
    ``w`` and Byrt's indices; per pair the coefficient pooled over the labels the pair
    shares an item on (:func:`_pooled_kappa`), its standard error from ``squares`` (the
    sums over items of its squared influence terms; NaN gives NaN) over ``common`` (the
    items both decided a label on) squared, and Scott's P_e pooled alike."""
    G, L, n = table.shape[:3]
    marginals = np.empty((6, 2))
    chance = _uniform_chance(w)
    for g in range(G):
        for a in range(n):
            for b in range(n):
                observed_total = 0.0
                expected_total = 0.0
                scott_total = 0.0
                used = 0
                for j in range(L):
                    t = table[g, j, a, b]
                    n_j, observed_j, expected_j, kappa_j, variance_j = _table_kappa(
                        t, w, marginals, tolerance)
                    known = n_j if n_j > 0 else np.nan
                    category_out[0, g, j, a, b] = kappa_j
                    category_out[1, g, j, a, b] = _corrected_se(variance_j, n_j, population)
                    category_out[2, g, j, a, b] = (t[1, 1] - t[0, 0]) / known
                    category_out[3, g, j, a, b] = (t[1, 0] - t[0, 1]) / known
                    if n_j > 0:
                        used += 1
                        observed_total += observed_j
                        expected_total += expected_j
                        scott_total += _scott_expected(w, marginals)
                observed, expected, gap, kappa = _pooled_kappa(observed_total, expected_total,
                                                               used, tolerance)
                scott = scott_total / used if used > 0 else np.nan
                n_ab = common[g, a, b]
                se = np.nan
                if kappa == kappa:
                    variance = squares[g, a, b] / (n_ab * n_ab) if n_ab > 0 else np.nan
                    se = _corrected_se(variance, n_ab, population)
                _pair_finish(pair_out, pair_reasons, g, a, b, kappa, observed, expected, se,
                             n_ab, chance, scott, z, tolerance)
        _corpus_finish(pair_out, corpus_out, corpus_counts, g)


# rows of pooled_terms' outputs
LABEL_TERM_ROWS = ("known", "row_proportion_0", "row_proportion_1", "column_proportion_0",
                   "column_proportion_1", "observed_j", "expected_j")
POOLED_TERM_ROWS = ("observed", "expected", "gap", "coefficient")


@njit(cache=True, nogil=True, work=lambda table, w, tolerance, label_out, pooled_out:
      10 * table.size)
def pooled_terms(table, w, tolerance, label_out, pooled_out):
    """The terms of the pooled coefficient the standard error's lookups start from, by
    :func:`_table_kappa` and :func:`_pooled_kappa` as :func:`multi_label_values` has them:
    label_out (7, G, L, n, n) the label's items n_j (NaN where 0), its row and column
    proportions (two each), P_o,j and P_e,j; pooled_out (4, G, n, n) P_o, P_e, 1 - P_e
    (NaN where undefined) and kappa."""
    G, L, n = table.shape[:3]
    marginals = np.empty((6, 2))
    for g in range(G):
        for a in range(n):
            for b in range(n):
                observed_total = 0.0
                expected_total = 0.0
                used = 0
                for j in range(L):
                    n_j, observed_j, expected_j, _, _ = _table_kappa(table[g, j, a, b], w,
                                                                     marginals, tolerance)
                    label_out[0, g, j, a, b] = n_j if n_j > 0 else np.nan
                    label_out[1, g, j, a, b] = marginals[0, 0]
                    label_out[2, g, j, a, b] = marginals[0, 1]
                    label_out[3, g, j, a, b] = marginals[1, 0]
                    label_out[4, g, j, a, b] = marginals[1, 1]
                    label_out[5, g, j, a, b] = observed_j
                    label_out[6, g, j, a, b] = expected_j
                    if n_j > 0:
                        used += 1
                        observed_total += observed_j
                        expected_total += expected_j
                observed, expected, gap, kappa = _pooled_kappa(observed_total, expected_total,
                                                               used, tolerance)
                pooled_out[0, g, a, b] = observed
                pooled_out[1, g, a, b] = expected
                pooled_out[2, g, a, b] = gap
                pooled_out[3, g, a, b] = kappa
