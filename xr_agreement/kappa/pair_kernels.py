"""Numba kernels of Cohen's kappa: every annotator pair's contingency table in one counting
pass over the ratings, and the pooled multi-label standard error's per-item influence terms
in a second. No xarray in this module.

Layouts
-------
``codes``   (G, N, n) int32: G = product of the extra dims, N items, n annotators; -1 where
            missing, else the category's index 0..q-1.
``values``  (G, N, n, L): multi-label decisions 0/1 (ints, bool viewed as uint8, or float
            with NaN missing).
``words``   (G, N, n, W) uint64: complete decisions as bits, W words of 64 labels in the
            order of :func:`_pack_row`.
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
    such pair are two contiguous runs (see :func:`label_pair_missing`)."""
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


@njit(cache=True, nogil=True, work=lambda values, i0, i1, out, common: (
    values.shape[0] * (i1 - i0) * out.shape[2] * values.shape[3] * 4))
def label_pair_missing(values, i0, i1, out, common):
    """Decisions with missing values (float, NaN missing): for every pair p and label j,
    out[g, 0, p, j] += items both said 1, out[g, 1, p, j] += a said 1 and b decided,
    out[g, 2, p, j] += a decided and b said 1, out[g, 3, p, j] += both decided; and
    common[g, p] += items both decided at least one label on. Pairs by shift: for shift d
    the products of rows a and a + d of all its pairs are one loop over the item's bytes
    k < (n - d) L, into the pairs' uint8 sums, laid out likewise (blocks of
    :data:`BYTE_BLOCK` items, flushed to int64)."""
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
def _lanes(flat, at):
    """The 8 bytes from ``flat[at]`` (an unsigned index) as one number, the first byte the
    lowest: LLVM merges the loads into one (with signed offsets each load is checked for a
    negative index and they stay 8 loads, 2.5x slower)."""
    return (np.uint64(flat[at]) | (np.uint64(flat[at + np.uint64(1)]) << np.uint64(8))
            | (np.uint64(flat[at + np.uint64(2)]) << np.uint64(16))
            | (np.uint64(flat[at + np.uint64(3)]) << np.uint64(24))
            | (np.uint64(flat[at + np.uint64(4)]) << np.uint64(32))
            | (np.uint64(flat[at + np.uint64(5)]) << np.uint64(40))
            | (np.uint64(flat[at + np.uint64(6)]) << np.uint64(48))
            | (np.uint64(flat[at + np.uint64(7)]) << np.uint64(56)))


def bit_masks(L, W):
    """(W,) uint64: the bits of :func:`_pack_row`'s words that hold one of L labels."""
    label = 64 * np.arange(W)[:, None] + 8 * (np.arange(64) % 8) + np.arange(64) // 8
    return ((label < L).astype(np.uint64) << np.arange(64, dtype=np.uint64)).sum(
        axis=1, dtype=np.uint64)


@njit(cache=True, nogil=True, inline="always")
def _pack_margin(n, L, W):
    """The bytes past an item's that :func:`_pack_row` reads."""
    return max(0, 64 * W - L)


@njit(cache=True, nogil=True, inline="always")
def _pack_row(flat, row, n, L, W, masks, words, at):
    """An item's n rows of L 0/1 bytes, ``flat[row + a L + j]``, as bits: words[at + a W +
    w] bit 8 t + s = the decision on label 64 w + 8 s + t (0 past L, ``masks`` from
    :func:`bit_masks`), so byte t of a word holds labels t, t + 8, ..., t + 56 of its 64.
    That order packs 8 bytes at once: the row's 8 numbers of 8 bytes (:func:`_lanes`) each
    shifted by its index s and ORed, a byte's bit 0 to bit s (in the order of the labels,
    a multiply per 8 labels packed them 2x slower). Numbers past the row read the next
    row's bytes, masked off: the caller sees that :func:`_pack_margin` bytes past the item
    can be read. Read where they are, not from a copy just written (8 bytes that vector
    stores just wrote stall the load: 230 ns an item so). Returns the OR of the bytes
    read (bits past bit 0 of a byte set: a value other than 0/1)."""
    seen = np.uint64(0)
    if W == 1:  # no loop over the words (1.5-2x faster at (5, 50))
        mask = masks[0]
        for a in range(np.uint64(n)):
            first = row + a * np.uint64(L)
            word = np.uint64(0)
            # 8 numbers always (past L they read the next row, or the caller's margin): a
            # constant count, 8 loads, shifts and ORs
            for s in range(np.uint64(8)):
                lanes = _lanes(flat, first + s * np.uint64(8))
                seen |= lanes
                word |= lanes << s
            words[np.uint64(at) + a] = word & mask
        return seen
    for a in range(np.uint64(n)):
        for w in range(np.uint64(W)):
            first = row + a * np.uint64(L) + w * np.uint64(64)
            word = np.uint64(0)
            for s in range(np.uint64(8)):
                lanes = _lanes(flat, first + s * np.uint64(8))
                seen |= lanes
                word |= lanes << s
            words[np.uint64(at) + a * np.uint64(W) + w] = word & masks[w]
    return seen


# work: as label_pair_complete's packing
@njit(cache=True, nogil=True, work=lambda values, masks, i0, i1, words: (
    values.shape[0] * (i1 - i0) * values.shape[2] * masks.size * 200))
def pack_bits(values, masks, i0, i1, words):
    """words[g, i] = :func:`_pack_row` of item i's decisions (C-contiguous uint8 0/1), for
    the items i0 .. i1: what :func:`label_pair_complete` writes, where its pass did not."""
    G, N, n, L = values.shape
    W = words.shape[3]
    flat = values.reshape(-1)
    bits = words.reshape(-1)
    margin = _pack_margin(n, L, W)
    row = np.zeros(n * L + margin, np.uint8)  # the last items' bytes, then zeros
    for g in range(G):
        for i in range(i0, i1):
            start = (g * N + i) * n * L
            if start + n * L + margin <= flat.size:
                _pack_row(flat, np.uint64(start), n, L, W, masks, bits, ((g * N + i) * n) * W)
            else:
                row[:n * L] = flat[start:start + n * L]
                _pack_row(row, np.uint64(0), n, L, W, masks, bits, ((g * N + i) * n) * W)


# the lowest bit of each byte of a uint64
BYTE_ONES = 0x0101010101010101


@njit(cache=True, nogil=True, inline="always")
def _flush_bytes(out, g, p, first, sums, L):
    """out[g, p, first + t] += byte t of ``sums`` (labels from L on left out)."""
    for t in range(8):
        if first + t < L:
            out[g, p, first + t] += np.int64((sums >> np.uint64(8 * t)) & np.uint64(255))


# work: microseconds interpreted, an item: packing a word of 64 labels took 100-200 (8
# numbers of 8 bytes read as Python scalars), a pair's sums on it about 17
@njit(cache=True, nogil=True, work=lambda values, masks, i0, i1, out, words: (
    values.shape[0] * (i1 - i0) * masks.size * (20 * out.shape[1] + 150 * values.shape[2])))
def label_pair_complete(values, masks, i0, i1, out, words):
    """out[g, p, j] += the items on which both annotators of pair p said 1 to label j, on
    complete 0/1 values (C-contiguous uint8). For a == b that is a's number of 1s; the rest
    of the 2x2 table follows from those and the number of items. Returns whether a value
    other than 0/1 was read (uint8 input is checked here, in the pass that reads it: numpy's
    max took 0.5 ms at (5 10^4, 5, 50)).

    On bits: each item's decisions are packed (:func:`_pack_row`; into ``words`` (G, N, n,
    W) too unless it is empty: the standard error's pass reads them) into a block of
    :data:`BYTE_BLOCK` items, a row of words per (annotator, word). A pair's products on a
    word of 64 labels are one AND, and byte t of ``(m >> s) & 0x0101..`` is its product on
    label 8 s + t: the 8 of them summed over the block's items, a vector loop over the
    items, give the pair's 64 sums in 8-bit fields (no carry: at most 255 items), flushed to
    int64. At (5 10^4, 5, 50), one thread: 39-40 ns an item, the packing about 15 of them,
    against 50 for the byte products (``x[k] & x[k + d L]`` over an item's bytes into 8-bit
    sums, without packing; 65 with it).
    """
    G, N, n, L = values.shape
    W = masks.size
    B = BYTE_BLOCK
    flat = values.reshape(-1)
    keep = words.size > 0
    kept = words.reshape(-1)
    item = np.zeros(n * W, np.uint64)
    block = np.zeros(n * W * B, np.uint64)  # [a W + w, t]
    margin = _pack_margin(n, L, W)
    row = np.zeros(n * L + margin, np.uint8)  # the last items' bytes, then zeros
    ones = np.uint64(BYTE_ONES)
    seen = np.uint64(0)  # every byte ORed: a bit past bit 0 if some decision is not 0/1
    for g in range(G):
        for b0 in range(i0, i1, B):
            size = min(B, i1 - b0)
            for t in range(size):
                start = (g * N + b0 + t) * n * L
                if start + n * L + margin <= flat.size:
                    seen |= _pack_row(flat, np.uint64(start), n, L, W, masks, item, 0)
                else:
                    row[:n * L] = flat[start:start + n * L]
                    seen |= _pack_row(row, np.uint64(0), n, L, W, masks, item, 0)
                at = (g * N + b0 + t) * n * W
                for k in range(n * W):
                    block[k * B + t] = item[k]
                    if keep:
                        kept[at + k] = item[k]
            p = 0
            for d in range(n):
                for a in range(n - d):
                    for w in range(W):
                        row_a = np.uint64((a * W + w) * B)
                        row_b = np.uint64(((a + d) * W + w) * B)
                        s0 = np.uint64(0)
                        s1 = np.uint64(0)
                        s2 = np.uint64(0)
                        s3 = np.uint64(0)
                        s4 = np.uint64(0)
                        s5 = np.uint64(0)
                        s6 = np.uint64(0)
                        s7 = np.uint64(0)
                        for t in range(np.uint64(size)):
                            m = block[row_a + t] & block[row_b + t]
                            s0 += m & ones
                            s1 += (m >> np.uint64(1)) & ones
                            s2 += (m >> np.uint64(2)) & ones
                            s3 += (m >> np.uint64(3)) & ones
                            s4 += (m >> np.uint64(4)) & ones
                            s5 += (m >> np.uint64(5)) & ones
                            s6 += (m >> np.uint64(6)) & ones
                            s7 += (m >> np.uint64(7)) & ones
                        # byte t of s_s: label 64 w + 8 s + t
                        _flush_bytes(out, g, p, 64 * w, s0, L)
                        _flush_bytes(out, g, p, 64 * w + 8, s1, L)
                        _flush_bytes(out, g, p, 64 * w + 16, s2, L)
                        _flush_bytes(out, g, p, 64 * w + 24, s3, L)
                        _flush_bytes(out, g, p, 64 * w + 32, s4, L)
                        _flush_bytes(out, g, p, 64 * w + 40, s5, L)
                        _flush_bytes(out, g, p, 64 * w + 48, s6, L)
                        _flush_bytes(out, g, p, 64 * w + 56, s7, L)
                    p += 1
    return (seen & ~ones) != 0


def byte_tables(ones, W, C):
    """The tables of :func:`complete_influence` from ``ones`` (G, n, L) (S_b[j]: the items b
    said 1 to label j, int32, zero past L): (G, C * 8 W * 1024) uint64, entry ((c 8 W + 8 w +
    t) 256 + v) 4 + q the sums over the set bits s of v of S_b[64 w + 8 s + t] (the labels
    of byte t of word w, :func:`_pack_row`) for b = 8 c + 2 q in the low 32 bits and b + 1
    in the high (0 for b >= n and labels past L). With numpy, once
    per call (in a kernel each item run built its own, and interpreted a table took 14 ms);
    float products of 0/1 and counts below 2^53 are exact."""
    G, n, L = ones.shape
    K = 8 * W
    rates = np.zeros((G, 8 * C, 8 * K))
    rates[:, :n, :L] = ones
    # byte t of word w: bit s the label 64 w + 8 s + t (see _pack_row)
    rates = rates.reshape(G, 8 * C, W, 8, 8).swapaxes(3, 4).reshape(G, 8 * C, K, 8)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (v, s)
    sums = (rates @ bits.T.astype(np.float64)).astype(np.uint64)
    pairs = sums.reshape(G, C, 4, 2, K, 256)  # b = 8 c + 2 q + h
    words = pairs[:, :, :, 0] | (pairs[:, :, :, 1] << np.uint64(32))  # (G, C, q, K, v)
    return np.ascontiguousarray(words.transpose(0, 1, 3, 4, 2)).reshape(G, -1)


def _influence_work(words, first, i0, i1):
    """The interpreted steps of :func:`complete_influence` (see ``jit``), about a
    microsecond each: interpreted, an item took some 5 us per annotator, word and chunk of
    annotators' group of 8 labels, 8 per pair."""
    G, _, n, W = words.shape
    return G * (i1 - i0) * (40 * n * W * -(-n // 8) + 8 * first.size)


# Items per block of complete_influence: its pair terms are vector loops over a block's items.
INFLUENCE_BLOCK = 64


@njit(cache=True, nogil=True, inline="always")
def _item_sums(bits, row, L, table, C, W, Q, a, said, words, counts, at, block):
    """One item's sums of :func:`complete_influence` for annotator a, whose W words of bits
    start at ``bits[row]``: said[(4 (a C + c) + q) block + at] (the two 32-bit sums x . S_b
    for b = 8 c + 2 q and b + 1), words[(a W + w) block + at] (the bits) and counts[a block
    + at] (the 1s), from the byte table (:func:`byte_tables`); of the 4 sums q < Q looked
    up (the others 0: with at most 6 annotators the fourth is, and skipping its lookups
    took 10% off the pass at 5). Offsets unsigned (with signed ones LLVM turned the loops
    into gathers and scatters)."""
    groups = np.uint64(8 * W)
    total = np.uint64(0)
    for w in range(np.uint64(W)):
        word = bits[row + w]
        words[np.uint64((a * W) * block) + w * np.uint64(block) + at] = word
        total += _popcount(word)
    for c in range(np.uint64(C)):
        s0 = np.uint64(0)
        s1 = np.uint64(0)
        s2 = np.uint64(0)
        s3 = np.uint64(0)
        for w in range(np.uint64(W)):
            word = bits[row + w]
            # a constant count, unrolled; the exit keeps LLVM from vectorizing the loop over
            # the groups with gathers (a loop of L / 8 groups was 2-3x slower so)
            for k in range(np.uint64(8)):
                if w * np.uint64(64) + k >= np.uint64(L):  # byte k holds no label
                    break
                group = c * groups + w * np.uint64(8) + k
                index = (group * np.uint64(256)
                         + ((word >> (np.uint64(8) * k)) & np.uint64(255))) * np.uint64(4)
                s0 += table[index]
                if Q > 1:
                    s1 += table[index + np.uint64(1)]
                if Q > 2:
                    s2 += table[index + np.uint64(2)]
                if Q > 3:
                    s3 += table[index + np.uint64(3)]
        first = np.uint64(4 * block) * (np.uint64(a * C) + c) + at
        said[first] = s0
        said[first + np.uint64(block)] = s1
        said[first + np.uint64(2 * block)] = s2
        said[first + np.uint64(3 * block)] = s3
    counts[np.uint64(a * block) + at] = np.int64(total)


@njit(cache=True, nogil=True, work=lambda words, L, first, second, coefficients, tables, i0,
      i1, out: _influence_work(words, first, i0, i1))
def complete_influence(words, L, first, second, coefficients, tables, i0, i1, out):
    """:func:`pooled_influence` on complete 0/1 decisions, given as bits (G, N, n, W) uint64
    of L labels (:func:`_pack_row`), from integer sums: there a pair's term is ``C + delta
    n11 + k_a A + k_b B + lam (x_a . S_b + x_b . S_a)`` (coefficients[g, p] in this order),
    with A, B the labels a and b said 1 to on the item, n11 those both did, and S_b[j] the
    items b said 1 to label j in all (x_a . S_b < 2^31: the caller sends larger sums
    elsewhere), summed 8 labels at a time in ``tables`` (:func:`byte_tables`).

    The "four Russians" method: each byte of an item's bits of annotator a (8 labels)
    indexes a table of its labels' sums of S_b for every b at once (a table per extra-dims
    value), so that the n dot products x_a . S_b take a lookup per 8 labels; two 32-bit
    sums share a 64-bit word (they stay below 2^31, so no carry crosses). A, B and n11 are
    popcounts of the bits. The terms of a block of :data:`INFLUENCE_BLOCK` items are then
    vector loops over the items, a pair at a time (item by item they took longer than the
    lookups: 130 ns against 80).

    The bits come from the counting pass (:func:`label_pair_complete`), which reads the
    bytes anyway (or :func:`pack_bits`). At (5 annotators, 50 labels), one thread: 38 ns an
    item, against 66 where this pass read the bytes and packed them itself (measured side by
    side in one process, on a busy machine).
    """
    _influence_pass(words, L, first, second, coefficients, tables, i0, i1, out,
                    words.shape[3], -(-words.shape[2] // 8), 4)


@njit(cache=True, nogil=True, work=lambda words, L, first, second, coefficients, tables, i0,
      i1, out: _influence_work(words, first, i0, i1))
def complete_influence_short(words, L, first, second, coefficients, tables, i0, i1, out):
    """:func:`complete_influence` for at most 64 labels and 8 annotators: one word of bits
    and one chunk of sums, constants here, so that LLVM drops those loops (12% of the pass
    at (5 annotators, 50 labels); the two cases in one kernel ran 2x slower)."""
    _influence_pass(words, L, first, second, coefficients, tables, i0, i1, out, 1, 1,
                    (words.shape[2] + 1) // 2)


@njit(cache=True, nogil=True, inline="always")
def _influence_pass(item_words, L, first, second, coefficients, tables, i0, i1, out, W, C,
                    Q):
    """:func:`complete_influence` with W words of bits per row and C chunks of sums, Q of
    each chunk's 4 looked up (:func:`_item_sums`)."""
    G, N, n = item_words.shape[:3]
    P = first.size
    B = INFLUENCE_BLOCK
    bits = item_words.reshape(-1)
    said = np.zeros(n * 4 * C * B, np.uint64)
    words = np.zeros(n * W * B, np.uint64)
    counts = np.zeros(n * B, np.int64)
    both = np.zeros(B, np.int64)
    squares = np.zeros(P * B)
    mask = np.uint64(0xFFFFFFFF)
    for g in range(G):
        table = tables[g]
        squares[:] = 0
        for b0 in range(i0, i1, B):
            size = min(B, i1 - b0)
            for t in range(np.uint64(size)):
                start = np.uint64((g * N + b0) * n * W) + t * np.uint64(n * W)
                for a in range(n):
                    _item_sums(bits, start + np.uint64(a * W), L, table, C, W, Q, a, said,
                               words, counts, t, B)
            for p in range(P):
                c0 = coefficients[g, p, 0]
                c1 = coefficients[g, p, 1]
                c2 = coefficients[g, p, 2]
                c3 = coefficients[g, p, 3]
                c4 = coefficients[g, p, 4]
                a = first[p]
                b = second[p]
                # unsigned offsets: with signed ones each access is checked for a negative
                # index and LLVM gathers what are contiguous loads
                if W > 1:  # n11 of the words past the first (0 at one word)
                    for t in range(np.uint64(size)):
                        both[t] = 0
                    for w in range(1, W):
                        row_a = np.uint64((a * W + w) * B)
                        row_b = np.uint64((b * W + w) * B)
                        for t in range(np.uint64(size)):
                            both[t] += np.int64(_popcount(words[row_a + t] & words[row_b + t]))
                word_a = np.uint64(a * W * B)
                word_b = np.uint64(b * W * B)
                sum_ab = np.uint64((a * 4 * C + b // 2) * B)
                sum_ba = np.uint64((b * 4 * C + a // 2) * B)
                shift_ab = np.uint64(32 * (b % 2))
                shift_ba = np.uint64(32 * (a % 2))
                count_a = np.uint64(a * B)
                count_b = np.uint64(b * B)
                at = np.uint64(p * B)
                for t in range(np.uint64(size)):
                    e = (np.int64((said[sum_ab + t] >> shift_ab) & mask)
                         + np.int64((said[sum_ba + t] >> shift_ba) & mask))
                    n11 = np.int64(_popcount(words[word_a + t] & words[word_b + t])) + both[t]
                    term = (c0 + c1 * n11 + c2 * counts[count_a + t]
                            + c3 * counts[count_b + t] + c4 * e)
                    # NaN terms left out (adding 0 keeps the loop a vector loop)
                    squares[at + t] += term * term if term == term else 0.0
        for p in range(P):
            for t in range(B):
                out[g, p] += squares[p * B + t]
