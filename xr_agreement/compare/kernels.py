"""Numba kernels of the earlier multi-label measures. No xarray in this module."""

from __future__ import annotations

import numpy as np
from .._core.jit import njit


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


@njit(cache=True, nogil=True,
      work=lambda values: values.size * values.shape[2] * values.shape[3])
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
