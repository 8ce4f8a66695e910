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
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

# Items per task of the parallel kernels: large enough to amortize per-task accumulators,
# small enough to balance two or more threads.
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


@njit(cache=True, nogil=True)
def count_bytes(values, label_counts, item_counts):
    """:func:`count_exact` for uint8 input (bool is viewed as uint8) with at most
    255 annotators, about 1.5x faster: per-item sums stay in uint8, squares in uint16, and
    label sums in uint16 blocks flushed to int64 before they could overflow."""
    G, N, n, k = values.shape
    x = np.zeros(k, np.uint8)
    seen = np.zeros(k, np.uint8)
    block_x = np.zeros(k, np.uint16)
    block_x2 = np.zeros(k, np.uint16)
    all_pairs = k * (n * (n - 1) // 2)
    block = max(1, 65535 // (n * n))  # block_x2 <= block * n^2 < 2^16
    for g in range(G):
        sum_x = np.zeros(k, np.int64)
        sum_x2 = np.zeros(k, np.int64)
        for b0 in range(0, N, block):
            b1 = min(b0 + block, N)
            block_x[:] = 0
            block_x2[:] = 0
            for i in range(b0, b1):
                row = values[g, i, 0]
                for j in range(k):
                    x[j] = row[j]
                    seen[j] |= row[j]
                for a in range(1, n):
                    row = values[g, i, a]
                    for j in range(k):
                        x[j] = x[j] + row[j]
                        seen[j] |= row[j]
                s1 = np.uint32(0)
                s2 = np.uint32(0)
                for j in range(k):
                    xj = np.uint16(x[j])
                    square = np.uint16(xj * xj)
                    block_x[j] = block_x[j] + xj
                    block_x2[j] = block_x2[j] + square
                    s1 += xj
                    s2 += square
                item_counts[g, i, 0] = np.int64(s2) - n * np.int64(s1) + all_pairs
                item_counts[g, i, 1] = all_pairs
            for j in range(k):
                sum_x[j] += block_x[j]
                sum_x2[j] += block_x2[j]
        for j in range(k):
            label_counts[g, j, n, 0] += N
            label_counts[g, j, n, 1] += sum_x[j]
            label_counts[g, j, n, 2] += sum_x2[j]
    combined = 0
    for j in range(k):
        combined |= np.int64(seen[j])
    return combined


@njit(cache=True, nogil=True)
def item_values(agreeing, pairs, gaps, observed, agreement):
    """Item-level observed agreement and coefficients in one pass (numpy path of
    ``mla.finish_counts``; the same float operations as its array arithmetic).

    agreeing, pairs: (G, N) int64; gaps: (B, G) = 1 - A_e per baseline; writes observed
    (G, N) and agreement (B, G, N); NaN where an item has no pair or a gap is 0.
    """
    B = gaps.shape[0]
    G, N = pairs.shape
    for g in range(G):
        for i in range(N):
            if pairs[g, i] == 0:
                observed[g, i] = np.nan
            else:
                observed[g, i] = agreeing[g, i] / pairs[g, i]
        for b in range(B):
            gap = gaps[b, g]
            for i in range(N):
                if gap == 0.0:
                    agreement[b, g, i] = np.nan
                else:
                    agreement[b, g, i] = 1 - (1 - observed[g, i]) / gap


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
    numerators = np.empty(M1, np.int64)
    for r in range(R):
        remaining = positives[r]
        # exact: accumulate integer numerators per denominator m - 1
        numerators[:] = 0
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
# Ratings arrive as ``values`` (G, N, n): G groups (the extra dims), N items, n annotators.
# Either int32 codes 0..V-1 with -1 for a missing rating (``low`` = 0), or integral float
# ratings with NaN missing, whose code is ``value - low`` (no coding pass needed). Work is
# split into ``n_tasks`` runs of items, each with its own accumulators (summed at the end),
# so memory stays O(n_tasks * G * V) whatever N is. Only the two kernels that carry the
# benchmarks' weight (rating_counts, pair_expected) are parallel: parallel kernels take
# several times longer to compile.

# Distances computed inside the kernels (``metric_id``).
DELTA_MATRIX = 0  # delta[c, k] given as a (V, V) matrix (callables)
DELTA_RATIO = 1  # ((v_c - v_k) / (v_c + v_k))**2, 0 where v_c + v_k = 0
DELTA_JACCARD = 2  # 1 - |s & t| / |s | t| on bit-packed label sets; 0 for two empty sets
DELTA_MASI = 3  # 1 - J * (1, 2/3, 1/3, 0) for identical / subset / overlap / disjoint
DELTA_MASI_ROUNDED = 4  # the same with 0.67 / 0.33 (nltk before PR #3695)
DELTA_SET_TABLE = 5  # sets of at most 64 labels: delta[|s| * (k + 1) + |t|, |s & t|]


@njit(cache=True, inline="always")
def _rating_code(v, low):
    """Code of a rating: v - low, or -1 if missing (NaN, or a negative code). Branch-free,
    so that scattered missing ratings cost no mispredictions."""
    w = v if v == v else low - 1.0
    return np.int64(w - low)


@njit(cache=True, nogil=True, inline="always")
def _present_codes(values, g, i, low, present):
    """Codes of item ``i``'s ratings into ``present``; returns how many there are."""
    m = 0
    for a in range(values.shape[2]):
        c = _rating_code(values[g, i, a], low)
        if c >= 0:
            present[m] = c
            m += 1
    return m


@njit(cache=True, nogil=True)
def _pair_distances(present, m, metric_id, delta, numbers, packed, sizes):
    """sum over ordered pairs a != b of delta(present[a], present[b])."""
    pairs = 0.0
    for a in range(m):
        for b in range(a + 1, m):
            pairs += _distance(metric_id, present[a], present[b], delta, numbers, packed, sizes)
            pairs += _distance(metric_id, present[b], present[a], delta, numbers, packed, sizes)
    return pairs


@njit(cache=True, nogil=True)
def _rating_counts_range(values, low, n_values, i0, i1, with_coincidence, counts, unpaired,
                         items, agreeing, coincidence):
    """:func:`rating_counts` of items i0..i1, added to the given accumulators at the end
    (the counting itself uses local arrays: no cache lines shared between threads).
    Returns the number of present ratings that are not integral."""
    G, N, n = values.shape
    V = n_values
    side = coincidence.shape[-1]
    # few values: count each by comparison (vectorizes); many: a list of touched codes
    dense = V <= 8
    local_counts = np.zeros((G, V), np.int64)
    local_unpaired = np.zeros((G, V), np.int64)
    local_items = np.zeros((G, n + 1), np.int64)
    local_agreeing = np.zeros((G, n + 1), np.int64)
    local_coincidence = np.zeros((G, side, side), np.float64)  # upper triangle
    codes = np.empty(n, np.int64)
    scratch = np.zeros(V, np.int64)
    touched = np.empty(n, np.int64)
    bad = 0
    for g in range(G):
        for i in range(i0, i1):
            m = 0
            for a in range(n):
                v = values[g, i, a]
                c = _rating_code(v, low)
                bad += (c >= 0) & ((c + low) != v)
                codes[a] = c
                m += c >= 0
            n_codes = V
            if dense:
                for c in range(V):
                    nc = 0
                    for a in range(n):
                        nc += codes[a] == c
                    scratch[c] = nc
            else:
                n_codes = 0
                for a in range(n):
                    c = codes[a]
                    if c >= 0:
                        if scratch[c] == 0:
                            touched[n_codes] = c
                            n_codes += 1
                        scratch[c] += 1
            if m < 2:
                for u in range(n_codes):
                    c = u if dense else touched[u]
                    local_unpaired[g, c] += scratch[c]
                    scratch[c] = 0
                continue
            scale = 1.0 / (m - 1)
            agree = 0
            for u in range(n_codes):
                c = u if dense else touched[u]
                nc = scratch[c]
                if nc == 0:
                    continue
                local_counts[g, c] += nc
                agree += nc * (nc - 1)
                if with_coincidence:
                    local_coincidence[g, c, c] += nc * (nc - 1) * scale
                    for w in range(u + 1, n_codes):
                        k = w if dense else touched[w]
                        if scratch[k]:
                            local_coincidence[g, min(c, k), max(c, k)] += nc * scratch[k] * scale
            local_items[g, m] += 1
            local_agreeing[g, m] += agree
            for u in range(n_codes):
                scratch[u if dense else touched[u]] = 0
    counts += local_counts
    unpaired += local_unpaired
    items += local_items
    agreeing += local_agreeing
    coincidence += local_coincidence
    return bad


@njit(cache=True, parallel=True)
def rating_counts(values, low, n_values, n_tasks, with_coincidence):
    """One pass over ratings.

    Returns per group: ``value_counts`` (G, V) int64, the pairable values n_c (items with
    at least 2 ratings only); ``seen`` (G, V) int64, all ratings of each code; ``items_by_m``
    (G, n + 1) int64, items with m ratings; ``agreeing_by_m`` (G, n + 1) int64, the sum over
    those items of sum_c n_ic (n_ic - 1); ``coincidence`` (G, V, V) float64,
    o_ck = sum_i (n_ic n_ik - [c = k] n_ic) / (m_i - 1), if ``with_coincidence`` else empty;
    and the number of present ratings that are not integral (float input must have none).
    """
    G, N, n = values.shape
    V = n_values
    side = V if with_coincidence else 0
    counts = np.zeros((n_tasks, G, V), np.int64)
    unpaired = np.zeros((n_tasks, G, V), np.int64)
    items = np.zeros((n_tasks, G, n + 1), np.int64)
    agreeing = np.zeros((n_tasks, G, n + 1), np.int64)
    coincidence = np.zeros((n_tasks, G, side, side), np.float64)
    irregular = np.zeros(n_tasks, np.int64)
    for t in prange(n_tasks):
        irregular[t] = _rating_counts_range(
            values, low, V, t * N // n_tasks, (t + 1) * N // n_tasks, with_coincidence,
            counts[t], unpaired[t], items[t], agreeing[t], coincidence[t])
    total_counts = counts.sum(axis=0)
    upper = coincidence.sum(axis=0)
    for g in range(G):
        for c in range(side):
            for k in range(c + 1, side):
                upper[g, k, c] = upper[g, c, k]
    return (total_counts, total_counts + unpaired.sum(axis=0), items.sum(axis=0),
            agreeing.sum(axis=0), upper, irregular.sum())


@njit(cache=True, nogil=True)
def squared_spread(values, low, weights, n_tasks):
    """Per group, sum over pairable items of sum_{a != b} (w_a - w_b)**2 / (m - 1), where
    w = weights[g, code] (the interval distance on values, or on mid-ranks for ordinal).
    Uses sum_{a != b} (w_a - w_b)**2 = 2 m sum_a (w_a - mean)**2, centred for accuracy."""
    G, N, n = values.shape
    partial = np.zeros((n_tasks, G), np.float64)
    for t in range(n_tasks):
        present = np.empty(n, np.float64)
        i0 = t * N // n_tasks
        i1 = (t + 1) * N // n_tasks
        for g in range(G):
            total = 0.0
            for i in range(i0, i1):
                m = 0
                for a in range(n):
                    c = _rating_code(values[g, i, a], low)
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
def _distance(metric_id, c, k, delta, numbers, packed, sizes):
    """delta(c, k) between two codes (see the DELTA_* constants)."""
    if metric_id == DELTA_MATRIX:
        return delta[c, k]
    if c == k:
        return 0.0
    if metric_id == DELTA_SET_TABLE:
        common = _popcount(packed[c, 0] & packed[k, 0])
        return delta[sizes[c] * delta.shape[1] + sizes[k], common]
    if metric_id == DELTA_RATIO:
        total = numbers[c] + numbers[k]
        if total == 0.0:
            return 0.0
        return ((numbers[c] - numbers[k]) / total) ** 2
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


@njit(cache=True, nogil=True)
def pair_observed(values, low, metric_id, delta, numbers, packed, sizes, n_tasks):
    """Per group, sum over pairable items of sum_{a != b} delta(c_a, c_b) / (m - 1): the
    numerator of D_o for a non-additive distance."""
    G, N, n = values.shape
    partial = np.zeros((n_tasks, G), np.float64)
    for t in range(n_tasks):
        present = np.empty(n, np.int64)
        i0 = t * N // n_tasks
        i1 = (t + 1) * N // n_tasks
        for g in range(G):
            total = 0.0
            for i in range(i0, i1):
                m = _present_codes(values, g, i, low, present)
                if m < 2:
                    continue
                pairs = _pair_distances(present, m, metric_id, delta, numbers, packed, sizes)
                total += pairs / (m - 1)
            partial[t, g] = total
    return partial.sum(axis=0)


@njit(cache=True, inline="always")
def _expected_row(counts, g, used, s, metric_id, delta, numbers, packed, sizes):
    """n_c sum_{k != c} n_k delta(c, k) for c = used[s]."""
    c = used[s]
    row = 0.0
    for q in range(used.size):
        if q != s:
            k = used[q]
            row += counts[g, k] * _distance(metric_id, c, k, delta, numbers, packed, sizes)
    return counts[g, c] * row


@njit(cache=True, parallel=True)
def pair_expected(counts, metric_id, delta, numbers, packed, sizes):
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
            total = _expected_row(counts, g, used, r, metric_id, delta, numbers, packed, sizes)
            if U - 1 - r != r:
                total += _expected_row(counts, g, used, U - 1 - r, metric_id, delta, numbers,
                                       packed, sizes)
            row_sums[r] = total
        out[g] = row_sums.sum()
    return out


@njit(cache=True, nogil=True)
def intersection_histogram(packed, sizes, counts, n_labels):
    """H[a, b, c]: the number of ordered pairs of pairable label sets (s, t), s and t drawn
    with their frequencies ``counts``, with |s| = a, |t| = b and |s & t| = c; ``packed``
    holds each distinct set (at most 64 labels) as one uint64.

    Without comparing pairs of sets: every set adds its frequency to each of its subsets
    U, F_a(U) = sum_{|s| = a, s >= U} n_s, and M[a, b, r] = sum_{|U| = r} F_a(U) F_b(U)
    counts each pair once per common r-subset, i.e. M[a, b, r] = sum_c C(c, r) H[a, b, c],
    inverted by H[a, b, c] = sum_r (-1)**(r - c) C(r, c) M[a, b, r]. Cost sum_s 2**|s|, for
    sparse label sets far below the number of pairs of distinct sets. Exact in int64 as long
    as the caller checks (sum n_s)**2 C(max |s|, max |s| / 2) < 2**62.
    """
    k1 = n_labels + 1
    total = 0
    for s in range(packed.size):
        if counts[s] > 0:
            total += np.int64(1) << sizes[s]
    masks = np.empty(total, np.uint64)
    owners = np.empty(total, np.int64)
    e = 0
    for s in range(packed.size):
        if counts[s] == 0:
            continue
        full = packed[s]
        sub = full
        while True:  # every submask of the set, the set itself and the empty set included
            masks[e] = sub
            owners[e] = s
            e += 1
            if sub == 0:
                break
            sub = (sub - np.uint64(1)) & full
    order = np.argsort(masks, kind="mergesort")
    moments = np.zeros((k1, k1, k1), np.int64)
    by_size = np.zeros(k1, np.int64)
    touched = np.empty(k1, np.int64)
    start = 0
    while start < total:
        mask = masks[order[start]]
        stop = start
        n_touched = 0
        while stop < total and masks[order[stop]] == mask:
            s = owners[order[stop]]
            a = sizes[s]
            if by_size[a] == 0:
                touched[n_touched] = a
                n_touched += 1
            by_size[a] += counts[s]
            stop += 1
        r = _popcount(mask)
        for u in range(n_touched):
            for w in range(n_touched):
                moments[touched[u], touched[w], r] += by_size[touched[u]] * by_size[touched[w]]
        for u in range(n_touched):
            by_size[touched[u]] = 0
        start = stop
    binomial = np.zeros((k1, k1), np.int64)
    for r in range(k1):
        binomial[r, 0] = 1
        for c in range(1, r + 1):
            binomial[r, c] = binomial[r - 1, c - 1] + (binomial[r - 1, c] if c < r else 0)
    histogram = np.zeros((k1, k1, k1), np.int64)
    for a in range(k1):
        for b in range(k1):
            top = min(a, b)
            for c in range(top + 1):
                value = 0
                for r in range(c, top + 1):
                    term = binomial[r, c] * moments[a, b, r]
                    value += term if (r - c) % 2 == 0 else -term
                histogram[a, b, c] = value
    return histogram


@njit(cache=True, nogil=True)
def pack_label_sets(values, packed):
    """Bit-pack each (group, item, annotator) label vector of 0/1 ``values`` (G, N, n, k)
    into ``packed`` (G, N, n, W) uint64. Returns status (G, N, n) int8: 0 a decided vector,
    1 all labels missing (NaN), 2 some labels missing, 3 a value other than 0, 1 or NaN."""
    G, N, n, k = values.shape
    status = np.zeros((G, N, n), np.int8)
    for i in range(N):
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


# --- bootstrap ---
# Resampling weights and per-(item, label) counts for xr_agreement.bootstrap.


@njit(cache=True, nogil=True)
def resample_counts(words, first_half, n_units, threshold, counts, done):
    """Multinomial resampling counts from uniform 64-bit ``words``.

    Row ``r`` of ``counts`` (R, n_units) receives ``n_units`` draws of a unit index in
    ``[0, n_units)``, made exactly as NumPy's ``Generator.integers(0, n_units)`` makes them
    from a bit generator with 64-bit output: each word gives two 32-bit values (low half
    first), each mapped by Lemire's multiply-shift with rejection below ``threshold =
    2**32 % n_units``. So the counts equal a bincount of ``rng.integers(0, n_units, (R,
    n_units))`` row by row. Starts at half ``first_half`` of ``words`` after ``done``
    draws (row-major) and stops when the words run out; returns ``(draws done, halves
    used)`` so the caller can continue with fresh words.
    """
    R = counts.shape[0]
    bound = np.uint64(n_units)
    low_mask = np.uint64(0xFFFFFFFF)
    shift = np.uint64(32)
    n_halves = 2 * words.shape[0]
    h = first_half
    row = done // n_units
    column = done - row * n_units
    while row < R:
        start = h
        exhausted = False
        leftover = np.uint64(0)
        product = np.uint64(0)
        while True:
            if h >= n_halves:
                exhausted = True
                break
            word = words[h >> 1]
            value = (word >> shift) if (h & 1) else (word & low_mask)
            h += 1
            product = value * bound
            leftover = product & low_mask
            if leftover >= threshold:
                break
        if exhausted:
            h = start
            break
        counts[row, np.int64(product >> shift)] += 1
        column += 1
        if column == n_units:
            column = 0
            row += 1
    return row * n_units + column, h


@njit(cache=True, nogil=True)
def _weighted_item_range(values, weights, i0, i1, positives, deciders):
    """Rows ``i0:i1`` of the flattened (G * N, n, k) ``values``: per (row, label) the
    weighted number of 1 decisions and of decisions made (NaN = not made). Returns the
    number of values that are neither 0, 1 nor NaN."""
    n = values.shape[1]
    k = values.shape[2]
    bad = 0
    for r in range(i0, i1):
        for j in range(k):
            positives[r, j] = 0
            deciders[r, j] = 0
        for a in range(n):
            w = np.int32(weights[a])
            # branch-free, so that the loop over labels vectorizes
            for j in range(k):
                v = values[r, a, j]
                one = v == 1
                decided = one | (v == 0)
                positives[r, j] += w * one
                deciders[r, j] += w * decided
                bad += (not decided) & (v == v)  # noqa: PLR0124 (v is not NaN)
    return bad


@njit(cache=True, nogil=True)
def weighted_item_counts(values, weights, positives, deciders):
    """Per (row, label) positives ``x`` and deciders ``m`` of ``values`` (R, n, k), annotator
    ``a`` counted ``weights[a]`` times (a resampled annotator appears as that many distinct
    raters). Runs on the calling thread; returns the number of invalid values."""
    return _weighted_item_range(values, weights, 0, values.shape[0], positives, deciders)


# PCG64 (NumPy's default bit generator), stepped inline so that resampling draws run at
# the speed of the arithmetic and in parallel from jumped-ahead states; the stream equals
# ``numpy.random.PCG64``'s: 128-bit LCG step, then the XSL-RR output of the new state.
_PCG_MULT_HIGH = np.uint64(2549297995355413924)
_PCG_MULT_LOW = np.uint64(4865540595714422341)


@intrinsic
def _multiply_high(typingctx, a, b):
    """High 64 bits of the 128-bit product of two uint64 (one machine multiply)."""
    signature = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, sig, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return signature, codegen


@njit(cache=True, nogil=True)
def pcg64_indices(state, start_high, n_halves, n_units, threshold, out):
    """Unit indices from ``n_halves`` 32-bit halves of a PCG64 stream.

    ``state`` is (state_high, state_low, inc_high, inc_low) uint64; the stream starts at the
    high half of the current output if ``start_high`` (a half NumPy buffered), else with the
    next step. Each half maps to ``(half * n_units) >> 32`` unless Lemire's rejection
    (low 32 bits < ``threshold``) drops it; accepted indices are written to ``out`` in
    order. Returns the number accepted; ``state`` is left after the last step taken.
    """
    hi = state[0]
    lo = state[1]
    inc_hi = state[2]
    inc_lo = state[3]
    low32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    bound = np.uint64(n_units)
    accepted = 0
    h = 0
    word = np.uint64(0)
    if start_high:
        x = hi ^ lo
        rot = hi >> np.uint64(58)
        word = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    while h < n_halves:
        if (h + start_high) & 1:
            value = word >> s32
        else:
            product_low = lo * _PCG_MULT_LOW
            new_lo = product_low + inc_lo
            carry = np.uint64(1) if new_lo < product_low else np.uint64(0)
            hi = _multiply_high(lo, _PCG_MULT_LOW) + lo * _PCG_MULT_HIGH + hi * _PCG_MULT_LOW
            hi = hi + inc_hi + carry
            lo = new_lo
            x = hi ^ lo
            rot = hi >> np.uint64(58)
            word = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
            value = word & low32
        h += 1
        product = value * bound
        if (product & low32) >= threshold:
            out[accepted] = np.uint32(product >> s32)
            accepted += 1
    state[0] = hi
    state[1] = lo
    return accepted


@njit(cache=True, nogil=True)
def _scatter_rows(buffer, offsets, accepted, counts, r0, r1, row_shift=0):
    """Count draws ``r * N .. (r + 1) * N - 1`` of the stream into ``counts[r -
    row_shift]`` for ``r`` in ``r0:r1``."""
    N = counts.shape[1]
    for r in range(r0, r1):
        # the segment holding this row's first draw (draw r * N of the stream)
        position = r * N
        s = 0
        while position >= accepted[s]:
            position -= accepted[s]
            s += 1
        row = r - row_shift
        for t in range(N):
            while position >= accepted[s]:
                position = 0
                s += 1
            counts[row, buffer[offsets[s] + position]] += 1
            position += 1


@njit(cache=True, nogil=True)
def scatter_counts(buffer, offsets, accepted, counts):
    """``counts[r, i] += 1`` for the draws ``r * N .. (r + 1) * N - 1`` of a stream of unit
    indices stored in segments: segment ``s`` holds ``accepted[s]`` draws from
    ``buffer[offsets[s]]`` on."""
    _scatter_rows(buffer, offsets, accepted, counts, 0, counts.shape[0])


@njit(cache=True, nogil=True)
def cell_count_fingerprints(deciders, column_of, mixed, sums, j0, j1):
    """For labels ``j0:j1`` whose cells have several decider counts (``mixed[g, j]``), per
    cell-count column ``c`` of the per-item table (see :func:`fill_item_table`): its number
    of ones ``sums[c, 0]`` and a hash of where they are ``sums[c, 1]`` (int64, wrapping),
    so that equal columns have equal rows of ``sums``."""
    G, N, _ = deciders.shape
    for g in range(G):
        for i in range(N):
            h = (np.int64(i) * np.int64(2654435761) + np.int64(40503)) ^ np.int64(i >> 3)
            for j in range(j0, j1):
                if mixed[g, j]:
                    c = column_of[g, j, deciders[g, i, j], 0]
                    sums[c, 0] += 1
                    sums[c, 1] += h


@njit(cache=True, nogil=True)
def fill_item_table(positives, deciders, column_of, table, totals, i0, i1):
    """Rows ``i0:i1`` of the per-item table ``table`` (N, F), one row per item, and their
    column sums added to ``totals`` (F,): for label cells (g, j) with ``m`` deciders, the
    cell count 1 (stat 0), ``x`` (stat 1) and ``x (m - x)`` (stat 2) go to column
    ``column_of[g, j, m, stat]`` (skipped where -1; a column written twice in a row holds
    the same value both times)."""
    G, _, k = positives.shape
    F = table.shape[1]
    row = np.zeros(F, np.int64)
    for i in range(i0, i1):
        row[:] = 0
        for g in range(G):
            for j in range(k):
                x = positives[g, i, j]
                m = deciders[g, i, j]
                c = column_of[g, j, m, 0]
                if c >= 0:
                    row[c] = 1
                c = column_of[g, j, m, 1]
                if c >= 0:
                    row[c] = x
                c = column_of[g, j, m, 2]
                if c >= 0:
                    row[c] = x * (m - x)
        for c in range(F):
            table[i, c] = row[c]
            totals[c] += row[c]


@njit(cache=True, nogil=True)
def hash_rows(rows, hashes):
    """Mix the bytes of each row of ``rows`` (N, B) uint8 into ``hashes`` (N,) uint64
    (FNV-1a style, then a final avalanche)."""
    prime = np.uint64(1099511628211)
    for i in range(rows.shape[0]):
        h = hashes[i] ^ np.uint64(14695981039346656037)
        for b in range(rows.shape[1]):
            h = (h ^ np.uint64(rows[i, b])) * prime
        hashes[i] = _splitmix(h)


@njit(cache=True, nogil=True)
def complete_item_table(values, table, totals, item_spread, i0, i1):
    """Rows ``i0:i1`` of the per-item table of complete 0/1 decisions ``values`` (G, N, n,
    k): column 0 is 1, columns ``1 + 2 c`` and ``2 + 2 c`` (c = g k + j) hold ``x`` and
    ``x (n - x)``; their column sums are added to ``totals``, and each item's sum of
    ``x (n - x)`` over labels goes to ``item_spread[g, i]``. Returns whether a value is
    not 0 or 1 (the rows are then not to be used)."""
    G, _, n, k = values.shape
    x = np.zeros(k, np.int32)
    sum_x = np.zeros((G, k), np.int64)
    sum_spread = np.zeros((G, k), np.int64)
    # every bit set in any value (an OR keeps the loop vectorized): 0 and 1 set bit 0 only
    bits = values.dtype.type(0)
    for i in range(i0, i1):
        table[i, 0] = 1
        for g in range(G):
            x[:] = 0
            for a in range(n):
                row = values[g, i, a]
                for j in range(k):
                    bits |= row[j]
                    x[j] += row[j]
            column_x = sum_x[g]
            column_spread = sum_spread[g]
            out = table[i, 1 + 2 * g * k : 1 + 2 * (g + 1) * k]
            spreads = 0
            for j in range(k):
                spread = x[j] * (n - x[j])
                column_x[j] += x[j]
                column_spread[j] += spread
                spreads += spread
                out[2 * j] = x[j]
                out[2 * j + 1] = spread
            item_spread[g, i] = spreads
    totals[0] += i1 - i0
    for g in range(G):
        for j in range(k):
            totals[1 + 2 * (g * k + j)] += sum_x[g, j]
            totals[2 + 2 * (g * k + j)] += sum_spread[g, j]
    return (bits & ~values.dtype.type(1)) != 0


@njit(cache=True, nogil=True)
def scatter_count_rows(buffer, offsets, accepted, counts, r0, r1):
    """Rows ``r0:r1`` of :func:`scatter_counts`, overwritten (``counts`` may hold anything
    there). Each row is counted in a 16-bit scratch row (half the cache footprint of a
    float32 row: random increments run about twice as fast) and then copied; a row whose
    copy does not add up to ``N`` had a count above 65535 and is counted again directly."""
    N = counts.shape[1]
    scratch = np.zeros(N, np.uint16)
    for r in range(r0, r1):
        _scatter_rows(buffer, offsets, accepted, scratch.reshape(1, N), r, r + 1, r)
        total = 0
        for i in range(N):
            counts[r, i] = scratch[i]
            total += scratch[i]
            scratch[i] = 0
        if total != N:  # pragma: no cover - needs an item drawn 65536 times
            for i in range(N):
                counts[r, i] = 0
            _scatter_rows(buffer, offsets, accepted, counts, r, r + 1, 0)


@njit(cache=True, nogil=True)
def label_cell_occurrences(deciders, occurs):
    """``occurs[g, j, m]`` set where some item has ``m`` deciders on label ``j`` of
    extra-dim row ``g``."""
    G, N, k = deciders.shape
    for g in range(G):
        for i in range(N):
            for j in range(k):
                occurs[g, j, deciders[g, i, j]] = True


# Block-seeded multinomial item counts (bootstrap.BlockedResampler): items are cut into
# fixed blocks; a replicate's number of draws in each block is given (a multinomial over the
# blocks), and within block v of replicate r the draws come from xoshiro256** seeded by
# (key, r, v), so any range of items can be counted without drawing the others.


@njit(cache=True, inline="always")
def _splitmix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _rotl(x, bits):
    return (x << np.uint64(bits)) | (x >> np.uint64(64 - bits))


@njit(cache=True, inline="always")
def _xoshiro_next(s0, s1, s2, s3):
    """xoshiro256**: (output, next state)."""
    word = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    return word, s0, s1, s2, _rotl(s3, 45)


@njit(cache=True, nogil=True)
def _count_block_draws(key, replicate, block, n_draws, size, target, increment=1):
    """Add ``increment`` to ``target[:size]`` at each of ``n_draws`` uniform draws from
    ``range(size)`` (``size`` at most 2**16): the four 16-bit quarters of each xoshiro256**
    output (low first), mapped by Lemire's multiply-shift with rejection (exact). For a
    power of two nothing is rejected and the mapping is a shift, done without branches
    (every block but the last)."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    seed = _splitmix(key ^ _splitmix(np.uint64(replicate) * golden + np.uint64(1)))
    seed = _splitmix(seed ^ _splitmix(np.uint64(block) * golden + np.uint64(2)))
    s0 = _splitmix(seed + golden)
    s1 = _splitmix(seed + np.uint64(2) * golden)
    s2 = _splitmix(seed + np.uint64(3) * golden)
    s3 = _splitmix(seed + np.uint64(4) * golden)
    bound = np.uint64(size)
    low16 = np.uint64(0xFFFF)
    done = 0
    if size & (size - 1) == 0:
        # (q * size) >> 16 for a 16-bit quarter q is its top log2(size) bits
        bits = 0
        while (1 << bits) < size:
            bits += 1
        shift = np.uint64(16 - bits)
        for _ in range(n_draws // 4):
            word, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
            target[(word & low16) >> shift] += increment
            target[((word >> np.uint64(16)) & low16) >> shift] += increment
            target[((word >> np.uint64(32)) & low16) >> shift] += increment
            target[(word >> np.uint64(48)) >> shift] += increment
        done = n_draws - n_draws % 4
    threshold = (np.uint64(1) << np.uint64(16)) % bound
    while done < n_draws:
        word, s0, s1, s2, s3 = _xoshiro_next(s0, s1, s2, s3)
        for quarter in range(4):
            product = ((word >> np.uint64(16 * quarter)) & low16) * bound
            if (product & low16) >= threshold and done < n_draws:
                target[product >> np.uint64(16)] += increment
                done += 1


@njit(cache=True, nogil=True)
def blocked_item_counts(key, block_totals, block_size, n_units, r0, n_replicates, i0,
                        increments, out):
    """``out[r, i]``: how often item ``i0 + i`` is drawn in replicate ``r0 + r``, given
    ``block_totals[r0 + r, v]`` draws in block ``v`` (items ``v * block_size`` on), for
    ``n_replicates`` replicates; ``increments`` is ``[1]`` (of ``out``'s dtype). With
    ``increments = [1, scale]``, row ``p`` holds two replicates instead: the counts of
    ``r0 + 2 p`` plus ``scale`` times those of ``r0 + 2 p + 1`` (0 past the last). ``out``
    may hold anything; it is overwritten."""
    rows, width = out.shape
    if width == 0:
        return
    i1 = i0 + width
    scratch = np.empty(block_size, out.dtype)
    for row in range(rows):
        out[row, :] = 0
        per_row = len(increments)
        for half in range(per_row):
            offset = per_row * row + half
            if offset >= n_replicates:
                break
            replicate = r0 + offset
            increment = increments[half]
            for v in range(i0 // block_size, (i1 - 1) // block_size + 1):
                start = v * block_size
                size = min(block_size, n_units - start)
                lo = max(i0, start)
                hi = min(i1, start + size)
                if lo == start and hi == start + size:  # the whole block: straight in
                    _count_block_draws(key, replicate, v, block_totals[replicate, v], size,
                                       out[row, start - i0 : start - i0 + size], increment)
                else:
                    scratch[:size] = 0
                    _count_block_draws(key, replicate, v, block_totals[replicate, v], size,
                                       scratch, increment)
                    out[row, lo - i0 : hi - i0] += scratch[lo - start : hi - start]


@njit(cache=True, nogil=True)
def unpack_replicate_pairs(products, shift, most, ones, rows, sums, draws):
    """Split products of paired counts into the sums of each replicate.

    ``products[s, p, c]`` (float32 integers) is ``a + b * 2**shift``, ``a`` and ``b`` the
    sums of table column ``c`` over item sub-block ``s`` weighted by the counts of
    replicates ``2 p`` and ``2 p + 1``; column ``ones`` is 1 on every item, so it holds
    their numbers of draws. The ``a`` go to ``sums[2 p]``, the ``b`` to ``sums[2 p + 1]``
    (for ``2 p + 1 < rows``), and the decoded draws to ``draws[2 p]`` and ``draws[2 p +
    1]``. The split is exact when every sub-block's draws are at most ``most`` and decode
    to the replicates' true totals (the caller checks the latter); returns, per pair,
    whether a sub-block was outside these bounds (its sums are then not to be used)."""
    S, P, F = products.shape
    mask = np.int32((1 << shift) - 1)
    outside = np.zeros(P, np.bool_)
    # int32 halves: each sub-block adds less than 2**shift per pair and column when inside
    # the bounds (a pair outside them is recomputed, whatever its halves hold)
    low = np.zeros((P, F), np.int32)
    high = np.zeros((P, F), np.int32)
    for s in range(S):
        for p in range(P):
            total = products[s, p, ones]
            if total >= 2.0**24:
                outside[p] = True
                continue
            both = np.int64(total)
            if (both & mask) > most or (both >> shift) > most:
                outside[p] = True
            row = products[s, p]
            first = low[p]
            second = high[p]
            for c in range(F):
                packed = np.int32(row[c])
                first[c] += packed & mask
                second[c] += packed >> np.int32(shift)
    for p in range(P):
        r = 2 * p
        draws[r] += low[p, ones]
        for c in range(F):
            sums[r, c] += low[p, c]
        if r + 1 < rows:
            draws[r + 1] += high[p, ones]
            for c in range(F):
                sums[r + 1, c] += high[p, c]
    return outside


@njit(cache=True, nogil=True)
def jackknife_power_sums(values, estimate, weights, sums):
    """Add to ``sums[p, s]`` (p = 0..3) the sum over b of ``weights[b] * d**p`` with ``d =
    values[s, b] - estimate[s]``, leaving NaN values out (BCa's jackknife moments, in one
    pass)."""
    S, B = values.shape
    for s in range(S):
        centre = estimate[s]
        total = 0.0
        first = 0.0
        second = 0.0
        third = 0.0
        for b in range(B):
            value = values[s, b]
            if value != value:
                continue
            d = value - centre
            w = weights[b]
            total += w
            first += w * d
            second += w * d * d
            third += w * d * d * d
        sums[0, s] += total
        sums[1, s] += first
        sums[2, s] += second
        sums[3, s] += third


# --- comparison measures (compare.py) ---


@njit(cache=True, nogil=True)
def expected_f1_independent(p_first, p_second):
    """Expected F1 overlap 2 |A & B| / (|A| + |B|) of one item (1 when both sets are empty)
    when the two annotators select label j independently with probabilities
    p_first[r, j] and p_second[r, j]; exact, by dynamic programming over the labels on the
    joint distribution of (|A & B|, |A| + |B|). Returns (R,)."""
    R, k = p_first.shape
    out = np.empty(R, np.float64)
    for r in range(R):
        prob = np.zeros((k + 1, 2 * k + 1), np.float64)
        prob[0, 0] = 1.0
        for j in range(k):
            a = p_first[r, j]
            b = p_second[r, j]
            both = a * b
            one = a * (1 - b) + (1 - a) * b
            none = (1 - a) * (1 - b)
            step = np.zeros((k + 1, 2 * k + 1), np.float64)
            for x in range(j + 1):
                for s in range(2 * j + 1):
                    q = prob[x, s]
                    if q == 0.0:
                        continue
                    step[x, s] += q * none
                    step[x, s + 1] += q * one
                    step[x + 1, s + 2] += q * both
            prob = step
        total = prob[0, 0]
        for x in range(k + 1):
            for s in range(1, 2 * k + 1):
                if prob[x, s] != 0.0:
                    total += prob[x, s] * 2.0 * x / s
        out[r] = total
    return out


@njit(cache=True, nogil=True)
def label_pair_agreement(values):
    """A_m sums (Bhowmick et al. 2008) of 0/1 ``values`` (G, N, n, k): for every unordered
    label pair (j, l) the value of an annotation is (0, 0), (1, 1) or mixed; returns (G, 2)
    with the sums over annotator pairs a < b and label pairs of P_o (share of items where a
    and b give the same value) and P_e = sum_v P_a(v) P_b(v) (each annotator's marginals)."""
    G, N, n, k = values.shape
    out = np.zeros((G, 2), np.float64)
    per_item = np.zeros(3, np.int64)
    marginals = np.zeros((n, 3), np.float64)
    for g in range(G):
        observed = 0.0
        expected = 0.0
        for j in range(k):
            for l in range(j + 1, k):
                marginals[:, :] = 0.0
                agreeing = 0
                for i in range(N):
                    per_item[:] = 0
                    for a in range(n):
                        u = values[g, i, a, j]
                        w = values[g, i, a, l]
                        v = 2 if u != w else u
                        per_item[v] += 1
                        marginals[a, v] += 1.0
                    for v in range(3):
                        agreeing += per_item[v] * (per_item[v] - 1) // 2
                observed += agreeing / N
                for v in range(3):
                    column = 0.0
                    squares = 0.0
                    for a in range(n):
                        share = marginals[a, v] / N
                        column += share
                        squares += share * share
                    expected += (column * column - squares) / 2.0
        out[g, 0] = observed
        out[g, 1] = expected
    return out


# --- alpha standard errors and bootstrap (alpha.py) ---
# Extra distance ids for item_pair_terms: nominal (c != k) and the squared difference of
# per-group scores (interval on values, ordinal on mid-ranks).
DELTA_NOMINAL = -1
DELTA_SQUARED_SCORES = -2


@njit(cache=True, nogil=True)
def item_pair_terms(values, low, metric_id, delta, numbers, scores, rows):
    """Per item (G, N, 3): the number of ratings m, sum_{a != b} delta(c_a, c_b) and
    sum_a rows[g, c_a] (Gwet's linearized terms of alpha need these per item).

    Nominal and squared-score distances take O(m) per item (equal pairs counted per code;
    2 m sum (s - mean)^2, centred for accuracy); other distances loop over pairs."""
    G, N, n = values.shape
    out = np.zeros((G, N, 3), np.float64)
    present = np.empty(n, np.int64)
    same = np.zeros(rows.shape[1], np.int64)
    no_packed = np.zeros((1, 1), np.uint64)
    no_sizes = np.zeros(1, np.int64)
    for g in range(G):
        for i in range(N):
            m = _present_codes(values, g, i, low, present)
            pairs = 0.0
            spread = 0.0
            for a in range(m):
                spread += rows[g, present[a]]
            if metric_id == DELTA_NOMINAL:
                equal = 0
                for a in range(m):
                    equal += same[present[a]]
                    same[present[a]] += 1
                for a in range(m):
                    same[present[a]] = 0
                pairs = 2.0 * (m * (m - 1) // 2 - equal)
            elif metric_id == DELTA_SQUARED_SCORES:
                mean = 0.0
                for a in range(m):
                    mean += scores[g, present[a]]
                mean = mean / m if m > 0 else 0.0
                for a in range(m):
                    deviation = scores[g, present[a]] - mean
                    pairs += deviation * deviation
                pairs *= 2.0 * m
            else:
                pairs = _pair_distances(present, m, metric_id, delta, numbers, no_packed,
                                        no_sizes)
            out[g, i, 0] = m
            out[g, i, 1] = pairs
            out[g, i, 2] = spread
    return out


# --- alpha on dask ---
# One dask task counts one block on its own thread: a serial, GIL-free version of
# rating_counts (the parallel target must not be entered from several dask threads).


@njit(cache=True, nogil=True)
def rating_counts_serial(values, low, n_values, with_coincidence):
    """:func:`rating_counts` of all items in one run, without numba's parallel target."""
    G, N, n = values.shape
    side = n_values if with_coincidence else 0
    counts = np.zeros((G, n_values), np.int64)
    unpaired = np.zeros((G, n_values), np.int64)
    items = np.zeros((G, n + 1), np.int64)
    agreeing = np.zeros((G, n + 1), np.int64)
    coincidence = np.zeros((G, side, side), np.float64)
    irregular = _rating_counts_range(values, low, n_values, 0, N, with_coincidence, counts,
                                     unpaired, items, agreeing, coincidence)
    for g in range(G):
        for c in range(side):
            for k in range(c + 1, side):
                coincidence[g, k, c] = coincidence[g, c, k]
    return counts, counts + unpaired, items, agreeing, coincidence, irregular
