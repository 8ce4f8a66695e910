"""Numba kernels of Krippendorff's alpha. No xarray in this module."""

from __future__ import annotations

import numpy as np

from .._core.jit import njit


# --- Krippendorff's alpha ---
# Ratings arrive as ``values`` (G, N, n): G groups (the extra dims), N items, n annotators.
# Either int32 codes 0..V-1 with -1 for a missing rating (``low`` = 0), or integral float
# ratings with NaN missing, whose code is ``value - low`` (no coding pass needed). Work is
# split into ``n_tasks`` runs of items, each with its own accumulators (summed at the end),
# so memory stays O(n_tasks * G * V) whatever N is. The two kernels that carry the
# benchmarks' weight (rating_counts, expected_rows) count one run of items (or of rows) per
# call, and their callers run the runs on the thread pool (``_core.threads``).

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


# Up to this many values, ratings are counted by :func:`_few_value_counts` (compared with
# every value; items grouped by their number of ratings), above by :func:`_many_value_counts`.
FEW_VALUES = 8


# Items per batch of :func:`_few_value_counts`: its (V, batch) int64 buffers stay in cache.
COUNT_BATCH = 1024


@njit(cache=True, nogil=True,  # work: every rating compared with up to 8 values, and
      # (few values) the sums by m finished per group whatever the number of items
      work=lambda values, low, missing, V, i0, i1, *_: values.shape[0] * (
          (i1 - i0) * values.shape[2] * (min(V, FEW_VALUES) + 2)
          + (values.shape[2] + 1) * min(V, FEW_VALUES) ** 2))
def rating_counts(values, low, missing, n_values, i0, i1, with_coincidence, with_moments):
    """One pass over the ratings of items i0..i1 (a run of items: the caller runs several
    on the thread pool and adds their results in a fixed order). A rating is missing if it
    is NaN or equals ``missing`` (-1 for int32 codes; NaN for float ratings, then only NaN);
    a present rating is counted as code c if it equals low + c, c in 0..V-1.

    Returns per group: ``value_counts`` (G, V) int64, the pairable values n_c (items with
    at least 2 ratings only); ``unpaired`` (G, V) int64, the ratings of items with one;
    ``items_by_m`` (G, n + 1) int64, items with m ratings; ``agreeing_by_m`` (G, n + 1)
    int64, the sum over those items of a_i = sum_c n_ic (n_ic - 1); ``coincidence``
    (G, V, V) float64, the upper triangle (c <= k) of o_ck = sum_i (n_ic n_ik - [c = k]
    n_ic) / (m_i - 1), if ``with_coincidence`` else empty; if ``with_moments`` (else empty)
    the moments of Gwet's nominal standard error over the pairable items with m ratings,
    ``moments`` (G, n + 1, 1 + 2 V) int64 = (sum a_i^2, sum n_ic over c, sum a_i n_ic over
    c), and ``outer`` (G, V, V) int64 = sum_i n_ic n_ik (see ``variance._nominal_squares``);
    and the number of present ratings equal to none of low .. low + V - 1, left out of
    every count: outside a range read from a sample of items, or not integral (the caller
    then counts again on the whole range, or codes the ratings).
    """
    if n_values <= FEW_VALUES:
        return _few_value_counts(values, low, missing, n_values, i0, i1, with_coincidence,
                                 with_moments)
    return _many_value_counts(values, low, missing, n_values, i0, i1, with_coincidence,
                              with_moments)


@njit(cache=True, nogil=True, inline="always")
def _count_accumulators(G, n, V, with_coincidence, with_moments):
    """The zeroed results of :func:`rating_counts` (see there), the coincidence and the
    moments empty when not asked for."""
    side = V if with_coincidence else 0
    terms = 1 + 2 * V if with_moments else 0
    pairs = V if with_moments else 0
    return (np.zeros((G, V), np.int64), np.zeros((G, V), np.int64),
            np.zeros((G, n + 1), np.int64), np.zeros((G, n + 1), np.int64),
            np.zeros((G, side, side), np.float64),  # upper triangle
            np.zeros((G, n + 1, terms), np.int64), np.zeros((G, pairs, pairs), np.int64))


@njit(cache=True, nogil=True)
def _few_value_counts(values, low, missing, n_values, i0, i1, with_coincidence, with_moments):
    """:func:`rating_counts` for at most :data:`FEW_VALUES` values.

    Every rating is compared with every value low + c, which vectorizes over the annotators
    (2x faster than computing codes first at V = 5, n = 20). The sums over items of products
    (n_ic n_ik for the coincidence and Gwet's ``outer``, a_i^2 and a_i n_ic for the moments)
    are not added item by item: a batch of items is put in order of m, its counts laid out
    as columns (V, items), and each product summed over the items of one m as a column
    product, which vectorizes (alpha nominal with its se at 10^6 x 20, V = 5: 105-125 -> 40-66
    ms in one thread). The sums are int64 per m, exact; the coincidence is divided by m - 1
    at the end, in order of m.
    """
    G, N, n = values.shape
    V = n_values
    counts, unpaired, items, agreeing, coincidence, moments, outer = _count_accumulators(
        G, n, V, with_coincidence, with_moments)
    values_by_m = np.zeros((n + 1, V), np.int64)  # sum of n_ic over the items with m ratings
    products_by_m = np.zeros((n + 1, V, V), np.int64)  # ... of n_ic n_ik, c <= k
    # the values low + c as eight scalars, NaN (equal to no rating) from c = V on: every
    # rating is compared with all eight in one pass over the item (a loop over c, each over
    # the annotators, took 1.4x as long at V = 5, n = 20)
    targets = np.full(FEW_VALUES, np.nan)
    for c in range(V):
        targets[c] = low + c
    t0, t1, t2, t3, t4, t5, t6, t7 = (targets[0], targets[1], targets[2], targets[3],
                                      targets[4], targets[5], targets[6], targets[7])
    item_counts = np.empty((COUNT_BATCH, FEW_VALUES), np.int64)  # n_ic of the batch's items
    item_m = np.empty(COUNT_BATCH, np.int64)
    columns = np.empty((V, COUNT_BATCH), np.int64)  # the same n_ic, in order of m
    item_agree = np.empty(COUNT_BATCH, np.int64)  # a_i of an m's items
    group_start = np.empty(n + 2, np.int64)  # where each m's items start in ``columns``
    place = np.empty(n + 1, np.int64)
    unmatched = 0
    for g in range(G):
        values_by_m[:] = 0
        products_by_m[:] = 0
        for b0 in range(i0, i1, COUNT_BATCH):
            size = min(COUNT_BATCH, i1 - b0)
            place[:] = 0
            for j in range(size):
                item = values[g, b0 + j]
                rated = 0
                n0 = n1 = n2 = n3 = n4 = n5 = n6 = n7 = 0
                for a in range(n):
                    v = item[a]
                    rated += (v == v) & (v != missing)
                    n0 += v == t0
                    n1 += v == t1
                    n2 += v == t2
                    n3 += v == t3
                    n4 += v == t4
                    n5 += v == t5
                    n6 += v == t6
                    n7 += v == t7
                counted = item_counts[j]
                counted[0] = n0
                counted[1] = n1
                counted[2] = n2
                counted[3] = n3
                counted[4] = n4
                counted[5] = n5
                counted[6] = n6
                counted[7] = n7
                m = n0 + n1 + n2 + n3 + n4 + n5 + n6 + n7
                unmatched += rated - m
                item_m[j] = m
                place[m] += 1
            group_start[0] = 0
            for m in range(n + 1):
                group_start[m + 1] = group_start[m] + place[m]
                place[m] = group_start[m]
            for j in range(size):
                p = place[item_m[j]]
                place[item_m[j]] = p + 1
                for c in range(V):
                    columns[c, p] = item_counts[j, c]
            for m in range(n + 1):
                p0 = group_start[m]
                width = group_start[m + 1] - p0
                if width == 0:
                    continue
                # loops over range(width) on slices: no negative-index checks, so they vectorize
                if m < 2:
                    for c in range(V):
                        column = columns[c, p0:p0 + width]
                        total = 0
                        for p in range(width):
                            total += column[p]
                        unpaired[g, c] += total
                    continue
                items[g, m] += width
                agree = item_agree[:width]
                agree[:] = 0
                for c in range(V):
                    column = columns[c, p0:p0 + width]
                    total = 0
                    for p in range(width):
                        x = column[p]
                        agree[p] += x * (x - 1)
                        total += x
                    values_by_m[m, c] += total
                total = 0
                for p in range(width):
                    total += agree[p]
                agreeing[g, m] += total
                if with_moments:
                    total = 0
                    for p in range(width):
                        total += agree[p] * agree[p]
                    moments[g, m, 0] += total
                    for c in range(V):
                        column = columns[c, p0:p0 + width]
                        total = 0
                        for p in range(width):
                            total += agree[p] * column[p]
                        moments[g, m, 1 + V + c] += total
                if with_coincidence or with_moments:
                    for c in range(V):
                        left = columns[c, p0:p0 + width]
                        for k in range(c, V):
                            right = columns[k, p0:p0 + width]
                            total = 0
                            for p in range(width):
                                total += left[p] * right[p]
                            products_by_m[m, c, k] += total
        for m in range(2, n + 1):
            for c in range(V):
                counts[g, c] += values_by_m[m, c]
                if with_moments:
                    moments[g, m, 1 + c] = values_by_m[m, c]
                    for k in range(c, V):
                        outer[g, c, k] += products_by_m[m, c, k]
            if with_coincidence:
                scale = 1.0 / (m - 1)
                for c in range(V):
                    coincidence[g, c, c] += (products_by_m[m, c, c] - values_by_m[m, c]) * scale
                    for k in range(c + 1, V):
                        coincidence[g, c, k] += products_by_m[m, c, k] * scale
        if with_moments:
            for c in range(V):
                for k in range(c + 1, V):
                    outer[g, k, c] = outer[g, c, k]
    return counts, unpaired, items, agreeing, coincidence, moments, outer, unmatched


@njit(cache=True, nogil=True)
def _many_value_counts(values, low, missing, n_values, i0, i1, with_coincidence, with_moments):
    """:func:`rating_counts` for more than :data:`FEW_VALUES` values: each rating's code,
    and a list of the codes an item touches, added item by item."""
    G, N, n = values.shape
    V = n_values
    counts, unpaired, items, agreeing, coincidence, moments, outer = _count_accumulators(
        G, n, V, with_coincidence, with_moments)
    scratch = np.zeros(V, np.int64)
    touched = np.empty(max(n, V), np.int64)  # the item's codes ...
    present = np.empty(max(n, V), np.int64)  # ... and how often each occurs
    unmatched = 0
    for g in range(G):
        for i in range(i0, i1):
            rated = 0
            for a in range(n):
                v = values[g, i, a]
                rated += (v == v) & (v != missing)
            m = 0
            n_codes = 0
            for a in range(n):
                v = values[g, i, a]
                # clamped before the conversion: a far-off rating has no int64 code
                offset = min(max((v if v == v else low - 1.0) - low, -1.0), float(V))
                c = np.int64(offset)
                if c >= 0 and c < V and c + low == v:
                    if scratch[c] == 0:
                        touched[n_codes] = c
                        n_codes += 1
                    scratch[c] += 1
                    m += 1
            for u in range(n_codes):
                present[u] = scratch[touched[u]]
                scratch[touched[u]] = 0
            unmatched += rated - m
            if m < 2:
                for u in range(n_codes):
                    unpaired[g, touched[u]] += present[u]
                continue
            scale = 1.0 / (m - 1)
            agree = 0
            for u in range(n_codes):
                c = touched[u]
                nc = present[u]
                counts[g, c] += nc
                agree += nc * (nc - 1)
                if with_coincidence:
                    coincidence[g, c, c] += nc * (nc - 1) * scale
                    for w in range(u + 1, n_codes):
                        k = touched[w]
                        coincidence[g, min(c, k), max(c, k)] += nc * present[w] * scale
            items[g, m] += 1
            agreeing[g, m] += agree
            if with_moments:
                moments[g, m, 0] += agree * agree
                for u in range(n_codes):
                    c = touched[u]
                    nc = present[u]
                    moments[g, m, 1 + c] += nc
                    moments[g, m, 1 + V + c] += agree * nc
                    for w in range(n_codes):
                        outer[g, c, touched[w]] += nc * present[w]
    return counts, unpaired, items, agreeing, coincidence, moments, outer, unmatched


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


@njit(cache=True, nogil=True, work=lambda values, *_: values.size * values.shape[-1])
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


@njit(cache=True, nogil=True, work=lambda counts, g, used, r0, r1, *_: 2 * (r1 - r0) * used.size)
def expected_rows(counts, g, used, r0, r1, metric_id, delta, numbers, packed, sizes, row_sums):
    """Rows r0..r1 of group g's sum over ordered pairs of distinct values of n_c n_k
    delta(c, k), the numerator of D_e, over the distinct values actually used (``used``):
    ``row_sums[r]`` gets rows r and U - 1 - r, so that every r has the same work (O(U**2)
    time in all, O(U) memory)."""
    U = used.size
    for r in range(r0, r1):
        total = _expected_row(counts, g, used, r, metric_id, delta, numbers, packed, sizes)
        if U - 1 - r != r:
            total += _expected_row(counts, g, used, U - 1 - r, metric_id, delta, numbers,
                                   packed, sizes)
        row_sums[r] = total


@njit(cache=True, nogil=True,
      work=lambda packed, sizes, counts, table, starts, s0, s1: (s1 - s0) * packed.size)
def set_pair_expected(packed, sizes, counts, table, starts, s0, s1):
    """Rows s0..s1 of E = sum over ordered pairs of distinct pairable label sets (s, t) of
    n_s n_t table[|s|, |t|, |s & t|], for sets of at most 64 labels (``packed`` (V,) uint64,
    one machine word each; ``sizes`` |s|, ``counts`` n_s) in order of size, the sets of
    size b from ``starts[b]`` on: the intersection size is one AND and a popcount, so
    comparing every pair of distinct sets is cheap. Each unordered pair is visited once
    (from its first set) and counted twice; pairs of a set with itself are left to the
    caller.

    Eight rows at a time: each set t is read once for eight sets s, whose words and sums
    stay in registers, and within a size b of t each s reads one row table[|s|, b] (2.7x
    faster than one row at a time at 1,200 distinct sets of 31 labels: the loads of t, not
    the popcounts, were the cost)."""
    V = packed.size
    total = 0.0
    s = s0
    while s + 8 <= s1:
        w0, w1, w2, w3 = packed[s], packed[s + 1], packed[s + 2], packed[s + 3]
        w4, w5, w6, w7 = packed[s + 4], packed[s + 5], packed[s + 6], packed[s + 7]
        within = 0.0  # the pairs among the eight
        for u in range(s, s + 8):
            for v in range(u + 1, s + 8):
                within += counts[u] * counts[v] * table[sizes[u], sizes[v],
                                                        _popcount(packed[u] & packed[v])]
        r0 = r1 = r2 = r3 = r4 = r5 = r6 = r7 = 0.0
        # the sets after the eight are as large or larger, up to the last one's size
        for b in range(sizes[s], sizes[V - 1] + 1):
            t0 = max(starts[b], s + 8)
            t1 = starts[b + 1]
            if t0 >= t1:
                continue
            d0, d1, d2, d3 = (table[sizes[s], b], table[sizes[s + 1], b],
                              table[sizes[s + 2], b], table[sizes[s + 3], b])
            d4, d5, d6, d7 = (table[sizes[s + 4], b], table[sizes[s + 5], b],
                              table[sizes[s + 6], b], table[sizes[s + 7], b])
            for t in range(t0, t1):
                word = packed[t]
                n_t = counts[t]
                r0 += n_t * d0[_popcount(w0 & word)]
                r1 += n_t * d1[_popcount(w1 & word)]
                r2 += n_t * d2[_popcount(w2 & word)]
                r3 += n_t * d3[_popcount(w3 & word)]
                r4 += n_t * d4[_popcount(w4 & word)]
                r5 += n_t * d5[_popcount(w5 & word)]
                r6 += n_t * d6[_popcount(w6 & word)]
                r7 += n_t * d7[_popcount(w7 & word)]
        total += 2.0 * (counts[s] * r0 + counts[s + 1] * r1 + counts[s + 2] * r2
                        + counts[s + 3] * r3 + counts[s + 4] * r4 + counts[s + 5] * r5
                        + counts[s + 6] * r6 + counts[s + 7] * r7 + within)
        s += 8
    for s in range(s, s1):  # the last rows one at a time
        word = packed[s]
        row = 0.0
        for t in range(s + 1, V):
            row += counts[t] * table[sizes[s], sizes[t], _popcount(word & packed[t])]
        total += 2.0 * counts[s] * row
    return total


@njit(cache=True, nogil=True)
def label_list_starts(packed, n_labels):
    """Where each label's list of the sets ``packed`` (V,) uint64 holding it starts, in
    the lists one after the other by label: (n_labels + 1,) int64, the last the total."""
    list_starts = np.zeros(n_labels + 1, np.int64)
    for v in range(packed.size):
        for l in range(n_labels):
            list_starts[l + 1] += (packed[v] >> np.uint64(l)) & np.uint64(1)
    for l in range(n_labels):
        list_starts[l + 1] += list_starts[l]
    return list_starts


@njit(cache=True, nogil=True,
      work=lambda packed, sizes, counts, table, list_starts: packed.size * sizes.size)
def label_list_expected(packed, sizes, counts, table, list_starts):
    """The sum over ordered pairs of distinct sets ``packed`` (V,) uint64 (in order of
    ``sizes``, with frequencies ``counts``) of n_s n_t T[|s|, |t|, |s & t|], T = ``table``,
    from the pairs within each label's list of sets (:func:`label_list_starts`) only: as
    T[a, b, c] = T[a, b, 0] + c e[a, b, c] with e = (T[a, b, c] - T[a, b, 0]) / c, it is
    the sum over all pairs of T[|s|, |t|, 0] (from the sizes' frequencies alone) plus, for
    each label and each pair of sets that both hold it, n_s n_t e[|s|, |t|, |s & t|]: a
    pair sharing c labels is met in c lists, and disjoint pairs are never met. With sparse
    labels that is far fewer pairs than :func:`set_pair_expected` compares (at (300, 5,
    31), p = 0.1: 0.31 M instead of 0.71 M, 650 -> 370 us)."""
    V = packed.size
    k1 = table.shape[0]
    n_labels = list_starts.size - 1
    one = np.uint64(1)
    # the lists (a counting sort by label: each list stays in order of size)
    fill = list_starts[:n_labels].copy()
    words = np.empty(list_starts[n_labels], np.uint64)
    word_sizes = np.empty(list_starts[n_labels], np.int64)
    word_counts = np.empty(list_starts[n_labels], np.float64)
    for v in range(V):
        for l in range(n_labels):
            if (packed[v] >> np.uint64(l)) & one:
                e = fill[l]
                words[e], word_sizes[e], word_counts[e] = packed[v], sizes[v], counts[v]
                fill[l] = e + 1
    # e[a, b, c] = (T[a, b, c] - T[a, b, 0]) / c: a pair sharing c labels is met c times
    excess = np.zeros_like(table)
    for a in range(k1):
        for b in range(k1):
            for c in range(1, k1):
                excess[a, b, c] = (table[a, b, c] - table[a, b, 0]) / c
    every_size = np.arange(k1 + 1)
    listed = 0.0
    for l in range(n_labels):
        o0, o1 = list_starts[l], list_starts[l + 1]
        if o1 - o0 >= 2:
            listed += set_pair_expected(words[o0:o1], word_sizes[o0:o1], word_counts[o0:o1],
                                        excess, np.searchsorted(word_sizes[o0:o1], every_size),
                                        0, o1 - o0)
    # every pair at T[|s|, |t|, 0]; its pairs by size counted exactly in int64 (the counts
    # are integers), as all pairs less the pairs of a set with itself: in floats the two
    # would cancel to ~N^2 eps when one set holds most of the N values
    by_size = np.zeros(k1, np.int64)
    own_pairs = np.zeros(k1, np.int64)
    for v in range(V):
        n_v = np.int64(counts[v])
        by_size[sizes[v]] += n_v
        own_pairs[sizes[v]] += n_v * n_v
    disjoint = 0.0
    for a in range(k1):
        for b in range(k1):
            pairs = by_size[a] * by_size[b] - (own_pairs[a] if a == b else 0)
            disjoint += np.float64(pairs) * table[a, b, 0]
    return listed + disjoint


@njit(cache=True, nogil=True,
      work=lambda packed, sizes, counts, n_labels: float(np.sum(2.0 ** sizes)) + (n_labels + 1)**3)
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
    1 all labels missing (NaN), 2 some labels missing, 3 a value other than 0, 1 or NaN.
    Each word is formed in a register with no branch on the values (2x faster than setting
    bits in memory at (300, 5, 31), where 1 in 10 decisions is a 1)."""
    G, N, n, k = values.shape
    W = packed.shape[3]
    status = np.zeros((G, N, n), np.int8)
    for g in range(G):
        for i in range(N):
            for a in range(n):
                row = values[g, i, a]
                missing = 0
                invalid = 0
                for w in range(W):
                    j0 = 64 * w
                    word = np.uint64(0)
                    for j in range(min(64, k - j0)):
                        v = row[j0 + j]
                        word |= np.uint64(v == 1) << np.uint64(j)
                        missing += v != v
                        invalid += (v == v) & (v != 0) & (v != 1)
                    packed[g, i, a, w] = word
                if invalid:
                    status[g, i, a] = 3
                elif missing == k:
                    status[g, i, a] = 1
                elif missing:
                    status[g, i, a] = 2
    return status


@njit(cache=True, nogil=True)
def set_sizes(packed):
    """|s|, the number of labels, of each bit-packed label set of ``packed`` (V, W) uint64."""
    V, W = packed.shape
    sizes = np.zeros(V, np.int64)
    for s in range(V):
        for w in range(W):
            sizes[s] += _popcount(packed[s, w])
    return sizes


# --- alpha standard errors and bootstrap ---
# Extra distance ids for gwet_squares: nominal (c != k) and the squared difference of
# per-group scores (interval on values, ordinal on mid-ranks).
DELTA_NOMINAL = -1


DELTA_SQUARED_SCORES = -2


@njit(cache=True, nogil=True,
      work=lambda values, *rest: (rest[-1] - rest[-2]) * values.shape[0] * values.shape[-1]**2)
def gwet_squares(values, low, metric_id, delta, numbers, scores, rows, constants, i0, i1):
    """Per group (G,): the sum over the pairable items i0..i1 of Gwet's squared linearized
    deviation (kx_i - alpha')**2, from each item's number of ratings m_i, pair distance sum
    P_i = sum_{a != b} delta(c_a, c_b) and e_i = sum_a rows[g, c_a] (see
    ``finish_kernels.gwet_constants`` for the formula and ``constants``; a NaN row: undefined).

    Nominal and squared-score distances take O(m) per item (equal pairs counted per code;
    2 m sum (s - mean)^2, centred for accuracy); other distances loop over pairs."""
    G, N, n = values.shape
    out = np.zeros(G, np.float64)
    present = np.empty(n, np.int64)
    same = np.zeros(rows.shape[1], np.int64)
    no_packed = np.zeros((1, 1), np.uint64)
    no_sizes = np.zeros(1, np.int64)
    for g in range(G):
        n_values, mean_m, observed, scaled_expected, expected, alpha_prime = constants[g]
        if np.isnan(alpha_prime):
            continue
        squares = 0.0
        for i in range(i0, i1):
            m = _present_codes(values, g, i, low, present)
            if m < 2:
                continue
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
                mean = mean / m
                for a in range(m):
                    deviation = scores[g, present[a]] - mean
                    pairs += deviation * deviation
                pairs *= 2.0 * m
            else:
                pairs = _pair_distances(present, m, metric_id, delta, numbers, no_packed,
                                        no_sizes)
            k_i = 1.0 + ((m - mean_m) * (1.0 - 1.0 / n_values) * observed - pairs / (m - 1)) / (
                mean_m * scaled_expected)
            expected_i = (m - spread * n_values / expected) / mean_m
            deviation = k_i - 2.0 * (1.0 - alpha_prime) * expected_i - alpha_prime
            squares += deviation * deviation
        out[g] = squares
    return out
