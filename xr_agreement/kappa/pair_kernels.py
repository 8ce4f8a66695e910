"""Numba kernels of Cohen's kappa: every annotator pair's contingency table in one counting
pass over the ratings, and the pooled multi-label standard error's per-item influence terms
in a second. No xarray in this module.

Layouts
-------
``codes``   (G, N, n) int32: G = product of the extra dims, N items, n annotators; -1 where
            missing, else the category's index 0..q-1.
``values``  (G, N, n, L): multi-label decisions 0/1 (ints, bool viewed as uint8, or float
            with NaN missing).
Pairs       ``p`` of annotators ``a <= b`` in the order of :func:`shift_pairs` (the self pair
            a == b included): a pair's table is the transpose of its mirror's.

Every kernel counts the items ``i0 .. i1`` (a run: the caller runs several on the thread
pool and adds their results in a fixed order). Hot loops index flat arrays with offsets,
not slices (a slice costs a reference count), and unsigned offsets where a loop should
vectorize (a signed index is checked for negative values).
"""

from __future__ import annotations

import numpy as np

from .._core.jit import njit


def shift_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(first, second) annotators of the pairs a <= b, by the shift d = b - a, then a: the
    pairs of one shift are (0, d), (1, d + 1), ..., so an item's rows a and a + d of every
    such pair are two contiguous runs (see :func:`label_pair_complete`)."""
    first = np.concatenate([np.arange(n - d) for d in range(n)]).astype(np.int64)
    second = np.concatenate([np.arange(d, n) for d in range(n)]).astype(np.int64)
    return first, second


# uint8 sums over this many items cannot overflow (each item adds at most 1)
BYTE_BLOCK = 255


# Items per block of code_pair_tables: 64 words of 64 items per (annotator, category).
BIT_WORDS = 64


@njit(cache=True, nogil=True, inline="always")
def _popcount(x):
    """Set bits of a uint64 (the SWAR sum; LLVM emits one instruction for it)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2))
                                               & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True, nogil=True,
      work=lambda codes, q, i0, i1, out: codes.shape[0] * (i1 - i0) * codes.shape[2]
      * (1 + codes.shape[2] * q * q // 64))
def code_pair_tables(codes, q, i0, i1, out):
    """out[g, u * nq + v] += the items rated r by a and c by b, u = a q + r, v = b q + c,
    for b >= a (other entries are not written); a missing rating (or a code outside
    0..q-1) is in no cell.

    Bit-sliced: per block of 64 * :data:`BIT_WORDS` items, one bit per item in a word of
    each (annotator, category), and a cell is the popcount of two words ANDed (at 10^5
    items x 5 annotators x 3 categories 7x faster than adding 1 to a cell per rating pair,
    whose repeated cells chain their additions).
    """
    G, N, n = codes.shape
    nq = n * q
    W = BIT_WORDS
    bits = np.zeros(nq * W, np.uint64)
    for g in range(G):
        for b0 in range(i0, i1, 64 * W):
            b1 = min(b0 + 64 * W, i1)
            bits[:] = 0
            for i in range(b0, b1):
                word = (i - b0) >> 6
                bit = np.uint64(1) << np.uint64((i - b0) & 63)
                for a in range(n):
                    c = codes[g, i, a]
                    if c >= 0 and c < q:
                        bits[(a * q + c) * W + word] |= bit
            words = (b1 - b0 + 63) >> 6
            for u in range(nq):
                for v in range(u // q * q, nq):
                    total = np.uint64(0)
                    for w in range(words):
                        total += _popcount(bits[u * W + w] & bits[v * W + w])
                    out[g, u * nq + v] += np.int64(total)


@njit(cache=True, nogil=True, work=lambda values, i0, i1, out: (
    values.shape[0] * (i1 - i0) * out.shape[1] * values.shape[3]))
def label_pair_complete(values, i0, i1, out):
    """out[g, p, j] += the items on which both annotators of pair p said 1 to label j, on
    complete 0/1 values (C-contiguous uint8). For a == b that is a's number of 1s; the rest
    of the 2x2 table follows from those and the number of items.

    Pairs by shift (:func:`shift_pairs`): for shift d the products of rows a and a + d of
    all its pairs are one loop over the item's bytes k < (n - d) L, ``x[k] & x[k + d L]``,
    into the pairs' uint8 sums, laid out likewise (blocks of :data:`BYTE_BLOCK` items,
    flushed to int64).
    """
    G, N, n, L = values.shape
    P = out.shape[1]
    flat = values.reshape(-1)
    acc = np.zeros(P * L, np.uint8)
    for g in range(G):
        for b0 in range(i0, i1, BYTE_BLOCK):
            acc[:] = 0
            for i in range(b0, min(b0 + BYTE_BLOCK, i1)):
                start = np.uint64((g * N + i) * n * L)
                base = np.uint64(0)
                for d in range(n):
                    other = start + np.uint64(d * L)
                    length = np.uint64((n - d) * L)
                    for k in range(length):
                        acc[base + k] += flat[start + k] & flat[other + k]
                    base += length
            for p in range(P):
                for j in range(L):
                    out[g, p, j] += acc[p * L + j]


@njit(cache=True, nogil=True, work=lambda values, i0, i1, out, common: (
    values.shape[0] * (i1 - i0) * out.shape[2] * values.shape[3] * 4))
def label_pair_missing(values, i0, i1, out, common):
    """Decisions with missing values (float, NaN missing): for every pair p and label j,
    out[g, 0, p, j] += items both said 1, out[g, 1, p, j] += a said 1 and b decided,
    out[g, 2, p, j] += a decided and b said 1, out[g, 3, p, j] += both decided; and
    common[g, p] += items both decided at least one label on. Pairs by shift, sums in
    uint8 as in :func:`label_pair_complete`."""
    G, N, n, L = values.shape
    P = out.shape[2]
    # the four sums' offsets, unsigned (an int times a uint64 is a float in numba)
    offset_1 = np.uint64(P * L)
    offset_2 = np.uint64(2 * P * L)
    offset_3 = np.uint64(3 * P * L)
    said = np.zeros(n * L, np.uint8)
    decided = np.zeros(n * L, np.uint8)
    both = np.zeros(n * L, np.uint8)
    acc = np.zeros(4 * P * L, np.uint8)
    for g in range(G):
        for b0 in range(i0, i1, BYTE_BLOCK):
            acc[:] = 0
            for i in range(b0, min(b0 + BYTE_BLOCK, i1)):
                for a in range(n):
                    for j in range(L):
                        v = values[g, i, a, j]
                        said[a * L + j] = v == 1
                        decided[a * L + j] = v == v
                base = np.uint64(0)
                p = 0
                for d in range(n):
                    other = np.uint64(d * L)
                    length = np.uint64((n - d) * L)
                    # one loop per sum: with more arrays in a loop LLVM stops vectorizing
                    for k in range(length):
                        acc[base + k] += said[k] & said[other + k]
                    for k in range(length):
                        acc[offset_1 + base + k] += said[k] & decided[other + k]
                    for k in range(length):
                        acc[offset_2 + base + k] += decided[k] & said[other + k]
                    for k in range(length):
                        both[k] = decided[k] & decided[other + k]
                    for k in range(length):
                        acc[offset_3 + base + k] += both[k]
                    for a in range(n - d):
                        shared = np.uint8(0)
                        row = np.uint64(a * L)
                        for j in range(np.uint64(L)):
                            shared |= both[row + j]
                        common[g, p] += shared
                        p += 1
                    base += length
            for k in range(4):
                for p in range(P):
                    for j in range(L):
                        out[g, k, p, j] += acc[k * P * L + p * L + j]


@njit(cache=True, nogil=True, work=lambda values, missing, group, first, second, table, i0, i1,
      out: values.shape[0] * (i1 - i0) * (values.shape[2] * values.shape[3]
                                          + first.size * table.shape[2]))
def pooled_influence(values, missing, group, first, second, table, i0, i1, out):
    """out[g, p] += the sum over items of the squared influence term of the pooled kappa of
    pair (first[p], second[p]) (items whose term is NaN left out, as numpy's nansum does).

    The term is a sum over labels of a per-(pair, label) value of the two decisions, 0
    where one is missing. Labels go in ``K = table.shape[2]`` groups of ``group``, group k
    holding labels k, K + k, 2K + k, ...; an annotator's decisions on a group are one
    number, their states in base S (S = 3 with ``missing``: 0 missing, 1 for a 0, 2 for a
    1; else S = 2, the decision), the first label the leading digit, labels past L read as
    state 0; and ``table[g, p, k, da * S**group + db]`` is the group's share of the term.
    So a pair takes K lookups an item, not L.
    """
    G, N, n, L = values.shape
    P = first.size
    K = table.shape[2]
    S = 3 if missing else 2
    SG = S ** group
    cells = K * SG * SG
    lookups = table.reshape(-1)
    digits = np.zeros(n * K, np.int64)
    for g in range(G):
        for i in range(i0, i1):
            for a in range(n):
                row = a * K
                for k in range(K):
                    digits[row + k] = 0
                for t in range(group):
                    start = t * K
                    stop = min(K, L - start) if L > start else 0
                    if missing:
                        for k in range(stop):
                            v = values[g, i, a, start + k]
                            digits[row + k] = (digits[row + k] * 3 + np.int64(v == v)
                                               + np.int64(v == 1))
                    else:
                        for k in range(stop):
                            digits[row + k] = (digits[row + k] * 2
                                               + np.int64(values[g, i, a, start + k] == 1))
                    for k in range(stop, K):
                        digits[row + k] = digits[row + k] * S
            for p in range(P):
                row_a = np.uint64(first[p] * K)
                row_b = np.uint64(second[p] * K)
                at = np.uint64((g * P + p) * cells)
                total = 0.0
                for k in range(np.uint64(K)):
                    total += lookups[at + k * np.uint64(SG * SG)
                                     + np.uint64(digits[row_a + k] * SG + digits[row_b + k])]
                if total == total:
                    out[g, p] += total * total


@njit(cache=True, nogil=True, inline="always")
def _item_influence(source, start, stride, lanes, L, rates, rows, said, words, first,
                    second, coefficients, g, out):
    """:func:`complete_influence` for the item whose n rows start at ``source[start]``,
    ``stride`` apart: the dot products with the rates over ``lanes`` bytes (the bytes past L
    meet zero rates), four per loop (a loop of 64 lanes costs more to start than to run);
    n11 the popcount of the two rows as bits."""
    n = said.shape[0]
    P = first.size
    for a in range(n):
        row = start + np.uint64(a) * stride
        # x_a . S_b for every b, and with row n of the rates (1s): A
        for b in range(0, rows, 4):
            r0 = np.uint64(g * rows + b) * lanes
            r1 = r0 + lanes
            r2 = r1 + lanes
            r3 = r2 + lanes
            t0 = np.int32(0)
            t1 = np.int32(0)
            t2 = np.int32(0)
            t3 = np.int32(0)
            # int32 sums, cast back at each step so that LLVM keeps 16 to a vector (numba
            # computes in 64 bits); the caller sends larger sums (L N >= 2^31) elsewhere
            for j in range(lanes):
                x = -np.int32(source[row + j])  # all bits set where a said 1: AND, not times
                t0 = np.int32(t0 + (x & rates[r0 + j]))
                t1 = np.int32(t1 + (x & rates[r1 + j]))
                t2 = np.int32(t2 + (x & rates[r2 + j]))
                t3 = np.int32(t3 + (x & rates[r3 + j]))
            said[a, b] = t0
            said[a, b + 1] = t1
            said[a, b + 2] = t2
            said[a, b + 3] = t3
        # the item's decisions as bits, so that a pair's n11 is a popcount
        for w in range(words.shape[1]):
            base = row + np.uint64(64 * w)
            word = np.uint64(0)
            for k in range(np.uint64(min(64, L - 64 * w))):
                word |= np.uint64(source[base + k]) << k
            words[a, w] = word
    for p in range(P):
        a = first[p]
        b = second[p]
        n11 = 0
        for w in range(words.shape[1]):
            n11 += _popcount(words[a, w] & words[b, w])
        term = (coefficients[g, p, 0] + coefficients[g, p, 1] * n11
                + coefficients[g, p, 2] * said[a, n] + coefficients[g, p, 3] * said[b, n]
                + coefficients[g, p, 4] * (said[a, b] + said[b, a]))
        if term == term:
            out[g, p] += term * term


@njit(cache=True, nogil=True, work=lambda values, first, second, coefficients, ones, i0, i1,
      out: values.shape[0] * (i1 - i0) * values.shape[2] * ones.shape[1] * ones.shape[2])
def complete_influence(values, first, second, coefficients, ones, i0, i1, out):
    """:func:`pooled_influence` on complete 0/1 decisions (C-contiguous uint8) from integer
    sums: there a pair's term is ``C + delta n11 + k_a A + k_b B + lam (x_a . S_b + x_b .
    S_a)`` (coefficients[g, p] in this order), with A, B the labels a and b said 1 to on the
    item, n11 those both did, and S_b[j] the items b said 1 to label j in all: ``ones[g,
    b, j]`` for b < n, then a row of 1s (for A and B), then zero rows to a multiple of 4;
    zero past L.

    The dot products run over ``lanes = ones.shape[2]`` (L rounded up to a multiple of 32:
    loops of L bytes left most of their time to a scalar remainder): an item's rows are
    read in place past their end while the bytes exist, other items copied into a
    zero-padded buffer. About 0.25 us an item at (5 annotators, 50 labels).
    """
    G, N, n, L = values.shape
    rows, lanes = ones.shape[1:]
    flat = values.reshape(-1)
    rates = ones.reshape(-1)
    buffer = np.zeros(n * lanes, np.uint8)
    said = np.zeros((n, rows), np.int64)
    words = np.zeros((n, (L + 63) // 64), np.uint64)
    in_place_end = flat.size - (n - 1) * L - lanes  # last start readable in whole lanes
    for g in range(G):
        for i in range(i0, i1):
            start = (g * N + i) * n * L
            if start <= in_place_end:
                _item_influence(flat, np.uint64(start), np.uint64(L), np.uint64(lanes), L,
                                rates, rows, said, words, first, second, coefficients, g, out)
            else:
                for a in range(n):
                    for j in range(L):
                        buffer[a * lanes + j] = values[g, i, a, j]
                _item_influence(buffer, np.uint64(0), np.uint64(lanes), np.uint64(lanes), L,
                                rates, rows, said, words, first, second, coefficients, g, out)
