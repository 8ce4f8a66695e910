"""Numba kernels of Multi-Label Agreement: the one counting pass, item values, the
conditional minimum, and the per-item tables of its bootstrap. No xarray in this module.

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

from .._core.jit import multiply_u16, njit


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


@njit(cache=True, nogil=True, inline="always")
def _sum_annotator_rows(item, x, seen, zero):
    """x[j] = sum over annotators of item[a, j] (uint8, n < 256), and seen[j] |= every value.

    Five rows per pass over x, the first pass writing x, the others adding to it; rows past
    the last annotator are read from ``zero`` (k zeros), so one loop serves every n. One pass
    for up to five annotators: at (10^6, 5, 100) the row sums took 62 -> 35 ns an item. More
    rows per pass do not vectorize: LLVM checks at run time that the loop's arrays do not
    overlap, and gives up beyond some seven of them.
    """
    n, k = item.shape
    for a in range(0, n, 5):
        r0 = item[a]
        r1 = item[a + 1] if a + 1 < n else zero
        r2 = item[a + 2] if a + 2 < n else zero
        r3 = item[a + 3] if a + 3 < n else zero
        r4 = item[a + 4] if a + 4 < n else zero
        if a == 0:
            for j in range(k):
                v0, v1, v2, v3, v4 = r0[j], r1[j], r2[j], r3[j], r4[j]
                x[j] = v0 + v1 + v2 + v3 + v4
                seen[j] |= v0 | v1 | v2 | v3 | v4
        else:
            for j in range(k):
                v0, v1, v2, v3, v4 = r0[j], r1[j], r2[j], r3[j], r4[j]
                x[j] += v0 + v1 + v2 + v3 + v4
                seen[j] |= v0 | v1 | v2 | v3 | v4


# Lanes of count_bytes' label loops: each item's rows are read in whole multiples of this
# many bytes (see _sum_rows_read_past).
BYTE_LANES = 32


@njit(cache=True, nogil=True, inline="always")
def _sum_rows_read_past(flat, start, n, k, x, seen, mask, zero):
    """:func:`_sum_annotator_rows` for an item of C-contiguous input that starts at
    ``flat[start]``, reading each row over all ``x.size`` lanes (k rounded up to
    :data:`BYTE_LANES`): past the row's last label into the bytes that follow it (the next
    row or item). ``mask`` (0xFF on the first k lanes, 0 after) zeroes those lanes of x; their
    ``seen`` lanes are never read. The caller checks that the bytes exist.

    Why: k = 100 is three 32-byte vectors and 4 labels more, and the vectorized loop leaves
    those to a scalar loop that costs as much as the vectors; in whole lanes there is no
    scalar remainder. At (10^6, 5, 100) on a core without AVX2 the pass took 40 -> 24 ns an
    item (np.count_nonzero of the same bytes: 20), at 50 and 31 labels 34 -> 18 and 35 -> 16.
    Its loops repeat those of :func:`_sum_annotator_rows` on purpose: one shared loop (a
    flag for the first pass, the mask on the row-by-row path too) made both 7-15% slower.
    """
    lanes = x.size
    for a in range(0, n, 5):
        row = start + a * k
        r0 = flat[row:row + lanes]
        r1 = flat[row + k:row + k + lanes] if a + 1 < n else zero
        r2 = flat[row + 2 * k:row + 2 * k + lanes] if a + 2 < n else zero
        r3 = flat[row + 3 * k:row + 3 * k + lanes] if a + 3 < n else zero
        r4 = flat[row + 4 * k:row + 4 * k + lanes] if a + 4 < n else zero
        if a == 0:
            for j in range(lanes):
                v0, v1, v2, v3, v4 = r0[j], r1[j], r2[j], r3[j], r4[j]
                x[j] = (v0 + v1 + v2 + v3 + v4) & mask[j]
                seen[j] |= v0 | v1 | v2 | v3 | v4
        else:
            for j in range(lanes):
                v0, v1, v2, v3, v4 = r0[j], r1[j], r2[j], r3[j], r4[j]
                x[j] = (x[j] + v0 + v1 + v2 + v3 + v4) & mask[j]
                seen[j] |= v0 | v1 | v2 | v3 | v4


@njit(cache=True, nogil=True)
def count_bytes(values, flat, label_counts, item_counts, item_total):
    """:func:`count_exact` for uint8 input (bool is viewed as uint8) with at most
    255 annotators and k n^2 < 2^32, about 2.5x faster: per-item sums stay in uint8, squares
    in uint16 (a 16-bit multiply, :func:`.._core.jit.multiply_u16`), item totals in
    ``item_total`` (``np.uint16`` where k n^2 < 2^16, else ``np.uint32``), and label sums in
    uint16 blocks flushed to int64 before they could overflow.

    ``flat`` is ``values.reshape(-1)`` of C-contiguous ``values`` or an empty array. With it,
    the rows of every item whose last row can be read in whole lanes within ``flat`` are
    summed by :func:`_sum_rows_read_past` (all items but the last few, all of them when k is
    a multiple of :data:`BYTE_LANES`), the others row by row.
    """
    G, N, n, k = values.shape
    lanes = -(-k // BYTE_LANES) * BYTE_LANES
    # every lane past k stays 0 in x, block_x and block_x2
    x = np.zeros(lanes, np.uint8)
    seen = np.zeros(lanes, np.uint8)
    zero = np.zeros(lanes, np.uint8)
    mask = np.zeros(lanes, np.uint8)
    mask[:k] = 0xFF
    block_x = np.zeros(lanes, np.uint16)
    block_x2 = np.zeros(lanes, np.uint16)
    all_pairs = k * (n * (n - 1) // 2)
    block = max(1, 65535 // (n * n))  # block_x2 <= block * n^2 < 2^16
    # an item's rows may be read past their end while the bytes read exist
    read_past_end = flat.size - (n - 1) * k - lanes
    for g in range(G):
        sum_x = np.zeros(k, np.int64)
        sum_x2 = np.zeros(k, np.int64)
        for b0 in range(0, N, block):
            b1 = min(b0 + block, N)
            block_x[:] = 0
            block_x2[:] = 0
            for i in range(b0, b1):
                start = (g * N + i) * n * k
                if start <= read_past_end:
                    _sum_rows_read_past(flat, start, n, k, x, seen, mask, zero)
                    width = lanes
                else:
                    _sum_annotator_rows(values[g, i], x[:k], seen[:k], zero[:k])
                    width = k
                # item totals <= k n^2 fit item_total (the caller sends larger items to
                # count_exact); the casts keep the sums in 16- or 32-bit lanes
                s1 = item_total(0)
                s2 = item_total(0)
                for j in range(width):
                    xj = np.uint16(x[j])
                    square = multiply_u16(xj, xj)
                    block_x[j] = block_x[j] + xj
                    block_x2[j] = block_x2[j] + square
                    s1 = item_total(s1 + xj)
                    s2 = item_total(s2 + square)
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
def label_sums(label_counts, m_values, sums, disagreement):
    """The per-label sums over m that :func:`label_values` finishes, in one pass.

    label_counts (G, k, M, 3) int64 for the numbers of deciders ``m_values`` (M,); writes
    sums (G, k, 6) int64: n_j = sum m cells, positives, sum (x^2 - x), sum (m - 1) x,
    sum (m^2 - m) cells - (2m - 1) x + x^2, sum (m - 1)(m cells - x), over pairable cells
    (m >= 2); and disagreement (G, k) float64 = sum 2 (m x - x^2) / (m - 1).
    """
    G, k, M = label_counts.shape[:3]
    for g in range(G):
        for j in range(k):
            n_j = 0
            positives = 0
            positive_pairs = 0
            positive_total = 0
            negative_pairs = 0
            negative_total = 0
            total = 0.0
            for u in range(M):
                m = m_values[u]
                if m < 2:
                    continue
                cells = label_counts[g, j, u, 0]
                x = label_counts[g, j, u, 1]
                xx = label_counts[g, j, u, 2]
                n_j += m * cells
                positives += x
                total += 2 * (m * x - xx) * (1.0 / (m - 1))
                positive_pairs += xx - x
                positive_total += (m - 1) * x
                negative_pairs += m * m * cells - 2 * m * x + xx - m * cells + x
                negative_total += (m - 1) * (m * cells - x)
            sums[g, j, 0] = n_j
            sums[g, j, 1] = positives
            sums[g, j, 2] = positive_pairs
            sums[g, j, 3] = positive_total
            sums[g, j, 4] = negative_pairs
            sums[g, j, 5] = negative_total
            disagreement[g, j] = total


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
    # candidate gains: one per (m, x) with multiplicity cells[r, m], for the m some row
    # has (every m up to n was n^2 / 2 candidates: 0.4 GB at n = 4,000 in a crowd design);
    # the others would be skipped below, and the stable sort keeps the order of the rest
    present = np.zeros(M1, np.bool_)
    for r in range(R):
        for m in range(2, M1):
            if cells[r, m] != 0:
                present[m] = True
    n_cand = 0
    for m in range(2, M1):
        if present[m]:
            n_cand += m
    gain = np.empty(n_cand, np.float64)
    num = np.empty(n_cand, np.int64)
    den = np.empty(n_cand, np.int64)
    mult_m = np.empty(n_cand, np.int64)
    c = 0
    for m in range(2, M1):
        if not present[m]:
            continue
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


# Baselines as the finishing kernel takes them (``variables.BASELINES`` order).
BASELINE_F = 0
BASELINE_AC1 = 1
BASELINE_PB = 2


@njit(cache=True, nogil=True)
def _quotient(numerator, denominator):
    """numerator / denominator, NaN where the denominator is 0 (as ``_core.arrays.divide``)."""
    if denominator == 0:
        return np.nan
    return numerator / denominator


@njit(cache=True, nogil=True)
def label_values(label_counts, m_values, n_deciders, baselines, label_out, label_baseline_out,
                 corpus_out, corpus_baseline_out):
    """Every label- and corpus-level MLA value from the label counts, in one pass (called by
    ``mla.finish.label_values`` on numpy input and, one block of the extra dims at a time,
    on dask input).

    label_counts (G, k, M, 3) int64 for the numbers of deciders ``m_values`` (M,), out of
    ``n_deciders`` annotators; ``baselines`` (B,) of the BASELINE_* ids. Writes, NaN where a
    value is 0/0, one output after the other along the first axis:

    - label_out (6, G, k): n_j (pairable values), p_j, observed A_o,j, observed minimum,
      positive and negative specific agreement;
    - label_baseline_out (3, B, G, k): A_e,j, the coefficient and the weight 1 - A_e,j
      (0 where undefined);
    - corpus_out (5, G): A_o, the observed minimum, raw prevalence, Hamming alpha and the
      number of decisions made (every m);
    - corpus_baseline_out (4, B, G): the coefficient, A_e, the minimum coefficient and
      1 - A_e.
    """
    G, k, M = label_counts.shape[:3]
    B = baselines.shape[0]
    sums = np.empty((G, k, 6), np.int64)
    disagreement = np.empty((G, k))
    label_sums(label_counts, m_values, sums, disagreement)
    cells = np.zeros((G * k, n_deciders + 1), np.int64)  # pairable cells by m, for eq. 7
    decided = np.zeros(G, np.int64)
    for g in range(G):
        for j in range(k):
            for u in range(M):
                m = m_values[u]
                decided[g] += m * label_counts[g, j, u, 0]
                if m >= 2:
                    cells[g * k + j, m] = label_counts[g, j, u, 0]
    largest = max_disagreement(cells, sums[:, :, 1].copy().reshape(G * k))
    for g in range(G):
        total_values = 0
        positives_total = 0
        disagreement_total = 0.0
        largest_total = 0.0
        expected_disagreement_total = 0.0
        for j in range(k):
            n_j = sums[g, j, 0]
            positives = sums[g, j, 1]
            total_values += n_j
            positives_total += positives
            disagreement_total += disagreement[g, j]
            largest_total += largest[g * k + j]
            # Krippendorff's D_e,j: pairable values drawn without replacement (0 if n_j < 2)
            if n_j - 1 != 0:
                expected_disagreement_total += 2 * positives * (n_j - positives) / (n_j - 1)
            p = _quotient(positives, n_j)
            label_disagreement = _quotient(disagreement[g, j], n_j)
            label_out[0, g, j] = n_j
            label_out[1, g, j] = p
            label_out[2, g, j] = 1 - label_disagreement
            label_out[3, g, j] = 1 - _quotient(2 * largest[g * k + j], n_j)
            label_out[4, g, j] = _quotient(sums[g, j, 2], sums[g, j, 3])
            label_out[5, g, j] = _quotient(sums[g, j, 4], sums[g, j, 5])
            for b in range(B):
                # (A_e,j, 1 - A_e,j), the latter computed directly so that it is exactly 0
                # when it should be
                if baselines[b] == BASELINE_F:
                    expected = p * p + (1 - p) * (1 - p)
                    gap = 2 * p * (1 - p)
                elif baselines[b] == BASELINE_AC1:
                    expected = 2 * p * (1 - p)
                    gap = p * p + (1 - p) * (1 - p)
                else:
                    expected = np.nan if np.isnan(p) else 0.5
                    gap = expected
                label_baseline_out[0, b, g, j] = expected
                label_baseline_out[1, b, g, j] = 1 - _quotient(label_disagreement, gap)
                label_baseline_out[2, b, g, j] = 0.0 if np.isnan(gap) else gap
        observed_disagreement = _quotient(disagreement_total, total_values)
        maximum_disagreement = _quotient(2 * largest_total, total_values)
        corpus_out[0, g] = 1 - observed_disagreement
        corpus_out[1, g] = 1 - maximum_disagreement
        corpus_out[2, g] = _quotient(positives_total, total_values)
        corpus_out[3, g] = 1 - _quotient(disagreement_total, expected_disagreement_total)
        corpus_out[4, g] = decided[g]
        for b in range(B):
            expected_total = 0.0
            gap_total = 0.0
            for j in range(k):
                n_j = sums[g, j, 0]
                expected = label_baseline_out[0, b, g, j]
                if not np.isnan(expected):
                    expected_total += n_j * expected
                gap_total += n_j * label_baseline_out[2, b, g, j]
            gap = _quotient(gap_total, total_values)
            corpus_baseline_out[0, b, g] = 1 - _quotient(observed_disagreement, gap)
            corpus_baseline_out[1, b, g] = _quotient(expected_total, total_values)
            corpus_baseline_out[2, b, g] = 1 - _quotient(maximum_disagreement, gap)
            corpus_baseline_out[3, b, g] = gap


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


@njit(cache=True, nogil=True)
def fill_item_table(positives, deciders, column_of, table, totals, i0, i1):
    """Rows ``i0:i1`` of the per-item table ``table`` (N, F), one row per item, and their
    column sums added to ``totals`` (F,): for label cells (g, j) with ``m`` deciders, the
    cell count 1 (stat 0), ``x`` (stat 1) and ``x (m - x)`` (stat 2) go to column
    ``column_of[g, j, m, stat]`` (skipped where -1)."""
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
def label_cell_occurrences(deciders, occurs):
    """``occurs[g, j, m]`` set where some item has ``m`` deciders on label ``j`` of
    extra-dim row ``g``."""
    G, N, k = deciders.shape
    for g in range(G):
        for i in range(N):
            for j in range(k):
                occurs[g, j, deciders[g, i, j]] = True
