"""Numba kernels on plain numpy arrays. No xarray in this module.

Every kernel here works on counts: for item ``i`` and label ``j``, ``m`` is the number of
annotators who decided and ``x`` the number who said 1. Agreeing annotator pairs are
``C(x, 2) + C(m - x, 2)`` out of ``C(m, 2)``, so no kernel ever loops over annotator pairs.

Layouts
-------
``values``       (G, N, n, k): G = product of the extra dims, N items, n annotators, k labels.
``label_counts`` (G, k, n + 1, 3) int64: for each label and each number of deciders ``m``,
                 the number of cells, the sum of ``x`` and the sum of ``x**2`` (additive).
``item_counts``  (G, N, 2) int64: agreeing (pair, label) comparisons and all comparisons.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# Items per task of the parallel kernel: large enough to amortize the per-task label
# accumulators, small enough to balance two or more threads.
ITEMS_PER_TASK = 2048


@njit(cache=True, nogil=True)
def _count_items_exact(values, g, i0, i1, label_counts, item_counts):
    """Integer input (no missing decisions possible). Returns a bitwise OR of all values, so
    anything outside {0, 1} shows up as a set bit above bit 0 (or a sign bit)."""
    n = values.shape[2]
    k = values.shape[3]
    x = np.zeros(k, np.int32)
    seen = np.zeros_like(values[g, i0, 0])
    sum_x = np.zeros(k, np.int64)
    sum_x2 = np.zeros(k, np.int64)
    # per item: agreeing pairs = sum_j [C(x,2) + C(n-x,2)] = sum x^2 - n sum x + k C(n,2)
    all_pairs = k * (n * (n - 1) // 2)
    for i in range(i0, i1):
        x[:] = 0
        for a in range(n):
            row = values[g, i, a]
            for j in range(k):
                v = row[j]
                x[j] += v
                seen[j] |= v
        s1 = 0
        s2 = 0
        for j in range(k):
            xj = np.int64(x[j])
            s1 += xj
            s2 += xj * xj
            sum_x[j] += xj
            sum_x2[j] += xj * xj
        item_counts[g, i, 0] = s2 - n * s1 + all_pairs
        item_counts[g, i, 1] = all_pairs
    for j in range(k):
        label_counts[g, j, n, 0] += i1 - i0
        label_counts[g, j, n, 1] += sum_x[j]
        label_counts[g, j, n, 2] += sum_x2[j]
    combined = 0
    for j in range(k):
        combined |= np.int64(seen[j])
    return combined


@njit(cache=True, nogil=True)
def _count_items_missing(values, g, i0, i1, label_counts, item_counts):
    """Float input: NaN marks a decision that was not made. Returns the number of values
    that are neither 0, 1 nor NaN."""
    n = values.shape[2]
    k = values.shape[3]
    x = np.zeros(k, np.int64)
    m = np.zeros(k, np.int64)
    bad = 0
    for i in range(i0, i1):
        x[:] = 0
        m[:] = 0
        for a in range(n):
            for j in range(k):
                v = values[g, i, a, j]
                if v == 1.0:
                    x[j] += 1
                    m[j] += 1
                elif v == 0.0:
                    m[j] += 1
                elif v == v:
                    bad += 1
        agree = 0
        pairs = 0
        for j in range(k):
            xj = x[j]
            mj = m[j]
            agree += (xj * (xj - 1) + (mj - xj) * (mj - xj - 1)) // 2
            pairs += mj * (mj - 1) // 2
            label_counts[g, j, mj, 0] += 1
            label_counts[g, j, mj, 1] += xj
            label_counts[g, j, mj, 2] += xj * xj
        item_counts[g, i, 0] = agree
        item_counts[g, i, 1] = pairs
    return bad


@njit(cache=True, nogil=True)
def count_exact(values, label_counts, item_counts):
    """One pass over integer ``values`` on the calling thread (used inside dask tasks).
    Returns the bitwise OR of all values: anything but 0/1 sets a higher bit."""
    flag = 0
    for g in range(values.shape[0]):
        flag |= _count_items_exact(values, g, 0, values.shape[1], label_counts, item_counts)
    return flag


@njit(cache=True, nogil=True)
def count_missing(values, label_counts, item_counts):
    """One pass over float ``values`` (NaN = missing) on the calling thread. Returns the
    number of values that are neither 0, 1 nor NaN."""
    bad = 0
    for g in range(values.shape[0]):
        bad += _count_items_missing(values, g, 0, values.shape[1], label_counts, item_counts)
    return bad


# The parallel kernels split items into tasks; each task owns its label accumulators, summed
# at the end, so the int64 totals do not depend on the number of threads.


@njit(cache=True, parallel=True)
def count_exact_parallel(values, label_counts, item_counts):
    """:func:`count_exact` on numba's threads."""
    G, N, n, k = values.shape
    n_tasks = max(1, (N + ITEMS_PER_TASK - 1) // ITEMS_PER_TASK)
    partial = np.zeros((n_tasks, G, k, n + 1, 3), np.int64)
    flags = np.zeros(n_tasks, np.int64)
    for t in prange(n_tasks):
        i0 = t * ITEMS_PER_TASK
        i1 = min(N, i0 + ITEMS_PER_TASK)
        for g in range(G):
            flags[t] |= _count_items_exact(values, g, i0, i1, partial[t], item_counts)
    flag = 0
    for t in range(n_tasks):
        label_counts += partial[t]
        flag |= flags[t]
    return flag


@njit(cache=True, parallel=True)
def count_missing_parallel(values, label_counts, item_counts):
    """:func:`count_missing` on numba's threads."""
    G, N, n, k = values.shape
    n_tasks = max(1, (N + ITEMS_PER_TASK - 1) // ITEMS_PER_TASK)
    partial = np.zeros((n_tasks, G, k, n + 1, 3), np.int64)
    flags = np.zeros(n_tasks, np.int64)
    for t in prange(n_tasks):
        i0 = t * ITEMS_PER_TASK
        i1 = min(N, i0 + ITEMS_PER_TASK)
        for g in range(G):
            flags[t] += _count_items_missing(values, g, i0, i1, partial[t], item_counts)
    bad = 0
    for t in range(n_tasks):
        label_counts += partial[t]
        bad += flags[t]
    return bad


@njit(cache=True, nogil=True)
def max_disagreement(cells, positives):
    """Largest possible sum over cells of ``x (m - x) / (m - 1)`` for each row, keeping the
    number of cells with each ``m`` (``cells[r, m]``) and the total of ``x``
    (``positives[r]``) fixed, with ``0 <= x <= m`` per cell.

    The objective is separable and concave in each cell's ``x``, so taking the ``T`` largest
    marginal gains ``(m - 1 - 2x) / (m - 1)`` over all cells is exact (the paper's
    convex-exchange argument, eq. 7, generalized to unequal ``m``). Cells with ``m < 2`` are
    not pairable and ignored.
    """
    R, M1 = cells.shape
    out = np.zeros(R, np.float64)
    # candidate gains: one per (m, x) with multiplicity cells[r, m]
    n_cand = 0
    for m in range(2, M1):
        n_cand += m
    gain = np.empty(n_cand, np.float64)
    num = np.empty(n_cand, np.int64)
    den = np.empty(n_cand, np.int64)
    mult_m = np.empty(n_cand, np.int64)
    c = 0
    for m in range(2, M1):
        for x in range(m):
            num[c] = m - 1 - 2 * x
            den[c] = m - 1
            gain[c] = num[c] / den[c]
            mult_m[c] = m
            c += 1
    order = np.argsort(-gain, kind="mergesort")
    for r in range(R):
        remaining = positives[r]
        # exact: accumulate integer numerators per denominator m - 1
        numerators = np.zeros(M1, np.int64)
        for idx in order:
            if remaining <= 0:
                break
            mult = cells[r, mult_m[idx]]
            if mult == 0:
                continue
            take = min(mult, remaining)
            numerators[den[idx]] += take * num[idx]
            remaining -= take
        total = 0.0
        for d in range(1, M1):
            if numerators[d] != 0:
                total += numerators[d] / d
        out[r] = total
    return out


# --- Krippendorff's alpha (alpha.py) ---
# Ratings arrive as codes (G, N, n) int32: G groups (the extra dims), N items, n annotators;
# code -1 marks a missing rating, codes 0..V-1 index the distinct values (categories, or
# distinct label sets). Work is split into ``n_tasks`` runs of items, each with its own
# accumulators (summed at the end), so memory stays O(n_tasks * G * V) whatever N is.

# Distances computed inside the kernels (``metric_id``); alpha.py holds the same table.
DELTA_MATRIX = 0  # delta[c, k] given as a (V, V) matrix (callables)
DELTA_RATIO = 1  # ((v_c - v_k) / (v_c + v_k))**2, 0 where v_c + v_k = 0
DELTA_JACCARD = 2  # 1 - |s & t| / |s | t| on bit-packed label sets; 0 for two empty sets
DELTA_MASI = 3  # 1 - J * (1, 2/3, 1/3, 0) for identical / subset / overlap / disjoint
DELTA_MASI_ROUNDED = 4  # the same with 0.67 / 0.33 (nltk before PR #3695)

FLAT_CHUNK = 1 << 16


@njit(cache=True, parallel=True)
def integral_range(flat):
    """(lowest, highest, number of present non-integral or infinite values) of a float array,
    NaN skipped; used to choose the fast integer coding of numeric ratings."""
    size = flat.size
    n_tasks = max(1, (size + FLAT_CHUNK - 1) // FLAT_CHUNK)
    lows = np.full(n_tasks, np.inf)
    highs = np.full(n_tasks, -np.inf)
    bad = np.zeros(n_tasks, np.int64)
    for t in prange(n_tasks):
        low = np.inf
        high = -np.inf
        count = 0
        for p in range(t * FLAT_CHUNK, min(size, (t + 1) * FLAT_CHUNK)):
            v = flat[p]
            if v != v:
                continue
            if v - v != 0.0 or v != np.floor(v):
                count += 1
                continue
            low = min(low, v)
            high = max(high, v)
        lows[t] = low
        highs[t] = high
        bad[t] = count
    return lows.min(), highs.max(), bad.sum()


@njit(cache=True, parallel=True)
def mark_integers(flat, low, used):
    """used[v - low] = 1 for every present (non-NaN) integral value v."""
    size = flat.size
    n_tasks = max(1, (size + FLAT_CHUNK - 1) // FLAT_CHUNK)
    for t in prange(n_tasks):
        for p in range(t * FLAT_CHUNK, min(size, (t + 1) * FLAT_CHUNK)):
            v = flat[p]
            if v == v:
                used[np.int64(v - low)] = 1


@njit(cache=True, parallel=True)
def integer_codes(flat, low, table, codes):
    """codes[p] = table[flat[p] - low], -1 where flat[p] is NaN."""
    size = flat.size
    n_tasks = max(1, (size + FLAT_CHUNK - 1) // FLAT_CHUNK)
    for t in prange(n_tasks):
        for p in range(t * FLAT_CHUNK, min(size, (t + 1) * FLAT_CHUNK)):
            v = flat[p]
            codes[p] = table[np.int64(v - low)] if v == v else -1


@njit(cache=True, parallel=True)
def rating_counts(codes, n_values, n_tasks, with_coincidence):
    """One pass over coded ratings.

    Returns, per group, only over pairable items (at least 2 ratings):
    ``value_counts`` (G, V) int64, the pairable values n_c; ``items_by_m`` (G, n + 1) int64,
    items with m ratings; ``agreeing_by_m`` (G, n + 1) int64, sum over those items of
    sum_c n_ic (n_ic - 1) (ordered agreeing pairs); ``coincidence`` (G, V, V) float64,
    o_ck = sum_i (n_ic n_ik - [c = k] n_ic) / (m_i - 1) if ``with_coincidence`` else empty.
    """
    G, N, n = codes.shape
    side = n_values if with_coincidence else 0
    counts = np.zeros((n_tasks, G, n_values), np.int64)
    items = np.zeros((n_tasks, G, n + 1), np.int64)
    agreeing = np.zeros((n_tasks, G, n + 1), np.int64)
    coincidence = np.zeros((n_tasks, G, side, side), np.float64)
    for t in prange(n_tasks):
        scratch = np.zeros(n_values, np.int64)
        touched = np.empty(n, np.int64)
        i0 = t * N // n_tasks
        i1 = (t + 1) * N // n_tasks
        for g in range(G):
            for i in range(i0, i1):
                m = 0
                n_touched = 0
                for a in range(n):
                    c = codes[g, i, a]
                    if c >= 0:
                        if scratch[c] == 0:
                            touched[n_touched] = c
                            n_touched += 1
                        scratch[c] += 1
                        m += 1
                if m >= 2:
                    agree = 0
                    for u in range(n_touched):
                        c = touched[u]
                        nc = scratch[c]
                        agree += nc * (nc - 1)
                        counts[t, g, c] += nc
                    items[t, g, m] += 1
                    agreeing[t, g, m] += agree
                    if with_coincidence:
                        scale = 1.0 / (m - 1)
                        for u in range(n_touched):
                            c = touched[u]
                            for w in range(n_touched):
                                k = touched[w]
                                pairs = scratch[c] * scratch[k] - (scratch[c] if c == k else 0)
                                coincidence[t, g, c, k] += pairs * scale
                for u in range(n_touched):
                    scratch[touched[u]] = 0
    return counts.sum(axis=0), items.sum(axis=0), agreeing.sum(axis=0), coincidence.sum(axis=0)


@njit(cache=True, parallel=True)
def squared_spread(codes, weights, n_tasks):
    """Per group, sum over pairable items of sum_{a != b} (w_a - w_b)**2 / (m - 1), where
    w = weights[g, code] (the interval distance on values, or on mid-ranks for ordinal).
    Uses sum_{a != b} (w_a - w_b)**2 = 2 m sum_a (w_a - mean)**2, centred for accuracy."""
    G, N, n = codes.shape
    partial = np.zeros((n_tasks, G), np.float64)
    for t in prange(n_tasks):
        present = np.empty(n, np.float64)
        i0 = t * N // n_tasks
        i1 = (t + 1) * N // n_tasks
        for g in range(G):
            total = 0.0
            for i in range(i0, i1):
                m = 0
                for a in range(n):
                    c = codes[g, i, a]
                    if c >= 0:
                        present[m] = weights[g, c]
                        m += 1
                if m < 2:
                    continue
                mean = 0.0
                for a in range(m):
                    mean += present[a]
                mean /= m
                spread = 0.0
                for a in range(m):
                    spread += (present[a] - mean) ** 2
                total += 2.0 * m * spread / (m - 1)
            partial[t, g] = total
    return partial.sum(axis=0)


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _distance(metric_id, c, k, delta, values, packed, sizes):
    """delta(c, k) between two codes (see the DELTA_* constants)."""
    if metric_id == DELTA_MATRIX:
        return delta[c, k]
    if c == k:
        return 0.0
    if metric_id == DELTA_RATIO:
        total = values[c] + values[k]
        if total == 0.0:
            return 0.0
        return ((values[c] - values[k]) / total) ** 2
    common = 0
    for w in range(packed.shape[1]):
        common += _popcount(packed[c, w] & packed[k, w])
    size_c = sizes[c]
    size_k = sizes[k]
    union = size_c + size_k - common
    if union == 0:
        return 0.0
    similarity = common / union
    if metric_id == DELTA_JACCARD:
        return 1.0 - similarity
    rounded = metric_id == DELTA_MASI_ROUNDED
    if size_c == size_k and common == size_c:
        monotonicity = 1.0
    elif common == min(size_c, size_k):
        monotonicity = 0.67 if rounded else 2.0 / 3.0
    elif common > 0:
        monotonicity = 0.33 if rounded else 1.0 / 3.0
    else:
        monotonicity = 0.0
    return 1.0 - similarity * monotonicity


@njit(cache=True, parallel=True)
def pair_observed(codes, metric_id, delta, values, packed, sizes, n_tasks):
    """Per group, sum over pairable items of sum_{a != b} delta(c_a, c_b) / (m - 1): the
    numerator of D_o for a non-additive distance."""
    G, N, n = codes.shape
    partial = np.zeros((n_tasks, G), np.float64)
    for t in prange(n_tasks):
        present = np.empty(n, np.int64)
        i0 = t * N // n_tasks
        i1 = (t + 1) * N // n_tasks
        for g in range(G):
            total = 0.0
            for i in range(i0, i1):
                m = 0
                for a in range(n):
                    c = codes[g, i, a]
                    if c >= 0:
                        present[m] = c
                        m += 1
                if m < 2:
                    continue
                pairs = 0.0
                for a in range(m):
                    for b in range(a + 1, m):
                        pairs += _distance(metric_id, present[a], present[b], delta, values,
                                           packed, sizes)
                        pairs += _distance(metric_id, present[b], present[a], delta, values,
                                           packed, sizes)
                total += pairs / (m - 1)
            partial[t, g] = total
    return partial.sum(axis=0)


@njit(cache=True, inline="always")
def _expected_row(counts, g, used, s, metric_id, delta, values, packed, sizes):
    """n_c sum_{k != c} n_k delta(c, k) for c = used[s]."""
    c = used[s]
    row = 0.0
    for q in range(used.size):
        if q != s:
            k = used[q]
            row += counts[g, k] * _distance(metric_id, c, k, delta, values, packed, sizes)
    return counts[g, c] * row


@njit(cache=True, parallel=True)
def pair_expected(counts, metric_id, delta, values, packed, sizes):
    """Per group, sum over ordered pairs of distinct values of n_c n_k delta(c, k): the
    numerator of D_e, over the distinct values actually used (O(U**2) time, O(U) memory)."""
    G, V = counts.shape
    out = np.zeros(G, np.float64)
    for g in range(G):
        used = np.flatnonzero(counts[g] > 0)
        U = used.size
        half = (U + 1) // 2
        row_sums = np.zeros(half, np.float64)
        # rows r and U - 1 - r in one task, so that every task has the same work
        for r in prange(half):
            total = _expected_row(counts, g, used, r, metric_id, delta, values, packed, sizes)
            if U - 1 - r != r:
                total += _expected_row(counts, g, used, U - 1 - r, metric_id, delta, values,
                                       packed, sizes)
            row_sums[r] = total
        out[g] = row_sums.sum()
    return out


@njit(cache=True, parallel=True)
def pack_label_sets(values, packed):
    """Bit-pack each (group, item, annotator) label vector of 0/1 ``values`` (G, N, n, k)
    into ``packed`` (G, N, n, W) uint64. Returns status (G, N, n) int8: 0 a decided vector,
    1 all labels missing (NaN), 2 some labels missing, 3 a value other than 0, 1 or NaN."""
    G, N, n, k = values.shape
    status = np.zeros((G, N, n), np.int8)
    for i in prange(N):
        for g in range(G):
            for a in range(n):
                missing = 0
                invalid = 0
                for j in range(k):
                    v = values[g, i, a, j]
                    if v == 1:
                        packed[g, i, a, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
                    elif v != 0:
                        if v != v:
                            missing += 1
                        else:
                            invalid += 1
                if invalid:
                    status[g, i, a] = 3
                elif missing == k:
                    status[g, i, a] = 1
                elif missing:
                    status[g, i, a] = 2
    return status
