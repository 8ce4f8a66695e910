"""Numba kernels of the bootstrap: resampling counts (of NumPy's draws, and block-seeded
xoshiro256**), the split of paired products and jackknife sums. No xarray in this module."""

from __future__ import annotations

import numpy as np
from .._core.jit import njit


@njit(cache=True, nogil=True)
def count_rows(indices, counts, r0, r1):
    """``counts[r]`` (overwritten) = the bincount of ``indices[r]`` for the rows ``r0:r1``:
    how often each unit is drawn in each replicate."""
    for r in range(r0, r1):
        counts[r, :] = 0
        for i in indices[r]:
            counts[r, i] += 1


# Block-seeded multinomial item counts (draws.BlockedResampler): items are cut into
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
