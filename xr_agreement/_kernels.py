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
    x = np.zeros(k, np.int64)
    seen = np.zeros(k, np.int64)
    for i in range(i0, i1):
        x[:] = 0
        for a in range(n):
            for j in range(k):
                v = values[g, i, a, j]
                x[j] += v
                seen[j] |= v
        agree = 0
        for j in range(k):
            xj = x[j]
            agree += (xj * (xj - 1) + (n - xj) * (n - xj - 1)) // 2
            label_counts[g, j, n, 0] += 1
            label_counts[g, j, n, 1] += xj
            label_counts[g, j, n, 2] += xj * xj
        item_counts[g, i, 0] = agree
        item_counts[g, i, 1] = k * (n * (n - 1) // 2)
    combined = 0
    for j in range(k):
        combined |= seen[j]
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
