"""Resampling counts: NumPy's PCG64 stream stepped in numba, the block-seeded
:class:`BlockedResampler`, annotator draws and the pairing of two replicates per row."""

from __future__ import annotations

import math
import os
from functools import partial

import numpy as np

from .._core.threads import _in_threads, _pool_map
from . import kernels as _kernels


# Bytes of resampling counts held at once (replicates are processed in batches this size).
BATCH_BYTES = 128 * 2**20


# Bytes of drawn item indices held at once (they are counted straight away).
INDEX_BYTES = 16 * 2**20


# Items per block of the seeded resampler (:class:`BlockedResampler`); at most 2**16 (its
# draws are 16-bit), a power of two so that no draw is rejected.
BLOCK_ITEMS = 2**14


# Fewest items per sub-block of a product of paired counts (see :func:`replicate_pairing`):
# on shorter products BLAS loses what pairing gains.
PAIR_MIN_ITEMS = 128


# Spawn-key entry of the resampler's child seed sequences ("xr_a").
_SPAWN_TAG = 0x78725F61


# Bit generators whose raw output is 64 bits split into two 32-bit draws (low half first),
# which :func:`_kernels.resample_counts` consumes like NumPy does.
_SPLIT_64 = ("PCG64", "PCG64DXSM", "Philox", "SFC64")


# --------------------------------------------------------------------------- resamples


_PCG_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341


_MASK_128 = (1 << 128) - 1


_MASK_64 = (1 << 64) - 1


def _pcg_advance(state: int, increment: int, steps: int) -> int:
    """PCG64 state after ``steps`` LCG steps (jump-ahead by squaring, Brown 1994)."""
    acc_mult, acc_plus = 1, 0
    cur_mult, cur_plus = _PCG_MULTIPLIER, increment
    while steps:
        if steps & 1:
            acc_mult = (acc_mult * cur_mult) & _MASK_128
            acc_plus = (acc_plus * cur_mult + cur_plus) & _MASK_128
        cur_plus = ((cur_mult + 1) * cur_plus) & _MASK_128
        cur_mult = (cur_mult * cur_mult) & _MASK_128
        steps >>= 1
    return (acc_mult * state + acc_plus) & _MASK_128


class _PCG64Stream:
    """The 32-bit draws of a ``numpy.random.PCG64`` generator, made in parallel segments
    from jumped-ahead states; :meth:`close` leaves the generator exactly where NumPy would
    (including its buffered half word)."""

    def __init__(self, bit_generator):
        self.bit_generator = bit_generator
        state = bit_generator.state
        self.state = state["state"]["state"]
        self.increment = state["state"]["inc"]
        self.pending_high = False  # the current output's high half is still unused
        self.segments = max(1, min(os.cpu_count() or 1, 8))

    def fill(self, n_draws: int, n_units: int, threshold):
        """The next ``n_draws`` accepted unit indices, as (buffer, offsets, accepted):
        segment ``s`` holds ``accepted[s]`` indices from ``buffer[offsets[s]]`` on. The
        buffer is reused by the next call."""
        capacity = n_draws + 4096
        if getattr(self, "buffer", None) is None or self.buffer.size < capacity:
            self.buffer = np.empty(capacity + capacity // 64, np.uint32)
        offsets, accepted = [], []
        used = 0
        while n_draws > 0:
            if self.buffer.size < used + n_draws:  # pragma: no cover - very many rejections
                grown = np.empty(2 * (used + n_draws), np.uint32)
                grown[:used] = self.buffer[:used]
                self.buffer = grown
            for offset, count in self._draw(n_draws, n_units, threshold, used):
                offsets.append(offset)
                accepted.append(count)
                n_draws -= count
            used = self._used
        return self.buffer, np.array(offsets, np.int64), np.array(accepted, np.int64)

    def _draw(self, n_halves: int, n_units: int, threshold, offset: int):
        # segment 0 starts where the stream is (possibly on a buffered high half); later
        # segments start on whole words, from jumped-ahead states
        first = int(self.pending_high)
        per_segment = max(2, -(-(n_halves - first) // self.segments) // 2 * 2)
        lengths, starts, states = [], [], []
        done = 0
        while done < n_halves:
            length = min(n_halves - done, per_segment + (first if not lengths else 0))
            if lengths:
                states.append(_pcg_advance(self.state, self.increment, (done - first) // 2))
            else:
                states.append(self.state)
            starts.append(bool(first) and not lengths)
            lengths.append(length)
            done += length
        offsets = list(offset + np.cumsum([0] + lengths[:-1]))
        arrays = [
            np.array([st >> 64, st & _MASK_64, self.increment >> 64,
                      self.increment & _MASK_64], np.uint64)
            for st in states
        ]

        def run(i):
            out = self.buffer[offsets[i] : offsets[i] + lengths[i]]
            return _kernels.pcg64_indices(arrays[i], starts[i], lengths[i], n_units, threshold,
                                          out)

        if len(lengths) > 1:
            accepted = _pool_map(run, range(len(lengths)))
        else:
            accepted = [run(0)]
        last = arrays[-1]
        self.state = (int(last[0]) << 64) | int(last[1])
        self.pending_high = (first + n_halves) % 2 == 1
        self._used = offset + n_halves
        return [(int(o), int(a)) for o, a in zip(offsets, accepted)]

    def close(self):
        state = self.bit_generator.state
        state["state"]["state"] = self.state
        state["has_uint32"] = int(self.pending_high)
        if self.pending_high:
            hi, lo = self.state >> 64, self.state & _MASK_64
            rot = hi >> 58
            x = hi ^ lo
            output = ((x >> rot) | (x << ((64 - rot) & 63))) & _MASK_64
            state["uinteger"] = output >> 32
        self.bit_generator.state = state


def item_resample_counts(
    rng: np.random.Generator, n_units: int, n_resamples: int, batch: int, reuse: bool = False
):
    """Yield ``(start, counts)`` batches of multinomial resampling counts.

    ``counts`` (rows, n_units) float32: how often each unit is drawn in replicates
    ``start .. start + rows``. The draws equal ``rng.integers(0, n_units, (n_resamples,
    n_units))`` (what :func:`scipy.stats.bootstrap` draws) for the common bit generators,
    made without holding the index array. With ``reuse`` every batch is written into the
    same array (use it before asking for the next batch).

    >>> counts = np.concatenate([c for _, c in item_resample_counts(
    ...     np.random.default_rng(3), 5, 4, batch=3)])
    >>> indices = np.random.default_rng(3).integers(0, 5, (4, 5))
    >>> bool((counts == [np.bincount(row, minlength=5) for row in indices]).all())
    True
    """
    if n_units == 1:  # NumPy draws nothing for a one-value range
        for start in range(0, n_resamples, batch):
            yield start, np.ones((min(batch, n_resamples - start), 1), np.float32)
        return
    fast = (
        type(rng.bit_generator).__name__ in _SPLIT_64
        and n_units < 2**32
        and not rng.bit_generator.state.get("has_uint32", 0)
    )
    threshold = np.uint64((2**32) % n_units)
    if fast and type(rng.bit_generator).__name__ == "PCG64":
        stream = _PCG64Stream(rng.bit_generator)
        # buffers are reused: fresh pages cost more than the draws on some machines
        reused = None
        try:
            # indices are drawn a few rows at a time into a buffer that stays in cache
            group = max(1, INDEX_BYTES // (4 * n_units))
            for start in range(0, n_resamples, batch):
                rows = min(batch, n_resamples - start)
                if reuse and reused is not None and len(reused) >= rows:
                    counts = reused[:rows]
                else:
                    counts = reused = np.empty((rows, n_units), np.float32)
                for first in range(0, rows, group):
                    part = counts[first : first + group]
                    indices = stream.fill(len(part) * n_units, n_units, threshold)
                    # rows in Python threads (numba's parallel layer spin-waits on a busy
                    # machine); each task overwrites its rows
                    _in_threads(partial(_kernels.scatter_count_rows, *indices, part),
                                len(part), min(len(part), 2 * stream.segments))
                yield start, counts
        finally:
            stream.close()
        return
    words = np.empty(0, np.uint64)
    half = 0
    for start in range(0, n_resamples, batch):
        rows = min(batch, n_resamples - start)
        counts = np.zeros((rows, n_units), np.float32)
        if not fast:
            indices = rng.integers(0, n_units, (rows, n_units))
            for r in range(rows):
                counts[r] = np.bincount(indices[r], minlength=n_units)
            yield start, counts
            continue
        done = 0
        while done < rows * n_units:
            if half >= 2 * words.size:
                # rejections are rare (probability n_units / 2**32 per draw)
                words, half = rng.bit_generator.random_raw((rows * n_units - done + 1) // 2 + 1), 0
            done, half = _kernels.resample_counts(words, half, n_units, threshold, counts, done)
            if done < rows * n_units:
                # out of words mid-draw: keep the unused halves in front of fresh words
                rest = words[half >> 1 :]
                fresh = rng.bit_generator.random_raw(max(1, (rows * n_units - done) // 2))
                words, half = np.concatenate([rest, fresh]), half & 1
        yield start, counts


class BlockedResampler:
    """Multinomial item resampling counts from a seed, drawn block by block.

    Items are cut into blocks of :data:`BLOCK_ITEMS`. For each replicate, how many of the
    ``N`` draws fall into each block is drawn first (one multinomial over the blocks, with
    probabilities proportional to their sizes); the draws inside block ``v`` of replicate
    ``r`` then come from a xoshiro256** stream seeded by ``(seed, r, v)``. Together this is
    exactly the multinomial of ``N`` draws with replacement from ``N`` items, and the counts
    of any range of items can be made without drawing the others: the same seed gives the
    same counts whatever the chunks of a dask array or the number of threads.

    Examples
    --------
    >>> draws = BlockedResampler(7, n_units=40_000, n_resamples=3)
    >>> counts = draws.counts(0, 3, 0, 40_000)
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((3, 40000), [40000.0, 40000.0, 40000.0])
    >>> bool((draws.counts(0, 3, 100, 30_000) == counts[:, 100:30_000]).all())
    True
    """

    def __init__(self, seed, n_units: int, n_resamples: int):
        if isinstance(seed, np.random.SeedSequence):
            sequence = seed
        else:
            sequence = np.random.SeedSequence(seed)
        # independent children without advancing the caller's SeedSequence
        # (tagged: a later sequence.spawn() of the caller's must not return these streams)
        children = [
            np.random.SeedSequence(sequence.entropy,
                                   spawn_key=(*sequence.spawn_key, _SPAWN_TAG, i))
            for i in range(3)
        ]
        self.n_units = int(n_units)
        self.n_resamples = int(n_resamples)
        self.block_size = BLOCK_ITEMS
        self.key = children[1].generate_state(1, np.uint64)[0]
        self.annotator_rng = np.random.default_rng(children[2])
        n_blocks = max(1, -(-self.n_units // self.block_size))
        if n_blocks == 1:
            self.block_totals = np.full((self.n_resamples, 1), self.n_units, np.int64)
        else:
            sizes = np.minimum(self.block_size,
                               self.n_units - self.block_size * np.arange(n_blocks))
            self.block_totals = np.random.default_rng(children[0]).multinomial(
                self.n_units, sizes / self.n_units, size=self.n_resamples
            ).astype(np.int64)

    def counts(self, r0: int, rows: int, i0: int, i1: int, out=None,
               threads: bool = True, pair_scale: int = 0) -> np.ndarray:
        """(rows, i1 - i0) float32: how often items ``i0:i1`` are drawn in replicates
        ``r0:r0 + rows`` (written into ``out`` if given); ``threads=False`` draws in the
        calling thread (inside a dask task). With ``pair_scale`` > 0 the result has
        ``ceil(rows / 2)`` rows, each holding two replicates: the counts of the first plus
        ``pair_scale`` times those of the second (see :meth:`MLAStatistic.pair_sums`)."""
        if not (0 <= r0 and r0 + rows <= self.n_resamples and 0 <= i0 <= i1 <= self.n_units):
            raise IndexError(f"replicates {r0}:{r0 + rows} of {self.n_resamples}, items "
                             f"{i0}:{i1} of {self.n_units}")
        shape = ((rows + 1) // 2 if pair_scale else rows, i1 - i0)
        if out is None:
            out = np.empty(shape, np.float32)
        if out.shape != shape:
            raise ValueError(f"out has shape {out.shape}, expected {shape}")
        increments = np.array([1, pair_scale] if pair_scale else [1], out.dtype)
        per_row = len(increments)

        def task(a, b):  # rows a:b of out
            _kernels.blocked_item_counts(self.key, self.block_totals, self.block_size,
                                         self.n_units, r0 + per_row * a,
                                         min(per_row * b, rows) - per_row * a, i0,
                                         increments, out[a:b])

        if not threads or out.size < 2**16:
            task(0, len(out))
        else:
            # replicates in Python threads (numba's parallel layer spin-waits when busy)
            _in_threads(task, len(out), min(len(out), 2 * (os.cpu_count() or 1)))
        return out

    def max_draws(self, i0: int, i1: int) -> int:
        """The most draws any replicate makes among items ``i0:i1`` (at most those of the
        blocks they lie in)."""
        if i1 <= i0:
            return 0
        blocks = self.block_totals[:, i0 // self.block_size : (i1 - 1) // self.block_size + 1]
        return int(blocks.sum(axis=1).max())

    def batches(self, batch: int):
        """Yield ``(start, counts)`` for all items, ``batch`` replicates at a time, in one
        reused array (use each before asking for the next)."""
        reused = None
        for start in range(0, self.n_resamples, batch):
            rows = min(batch, self.n_resamples - start)
            if reused is None or len(reused) < rows:
                reused = np.empty((rows, self.n_units), np.float32)
            yield start, self.counts(start, rows, 0, self.n_units, reused[:rows])


def replicate_pairing(largest: int):
    """How to multiply the counts of two replicates at once in float32: ``(shift, most,
    items)``, or None.

    The counts of replicates ``a`` and ``b`` go in one row as ``W_a + W_b * 2**shift``.
    Times a table column of integers at most ``largest``, its sum over items holds both
    replicates' sums, ``A + B * 2**shift``, exactly (below 2**24) and separably (``A``
    below ``2**shift``) while each replicate draws at most ``most`` items among them. The
    product is therefore taken over sub-blocks of ``items`` items (a power of two), with
    room for draws about 4 standard deviations above their mean; the table's ones column
    counts the draws, and a pair of replicates with a sub-block outside the bound is
    multiplied again unpaired. Half the rows: the product costs about a fifth less, and
    the counts take half the memory traffic. None when sub-blocks would be shorter than
    :data:`PAIR_MIN_ITEMS` (``largest`` above 23: complete decisions of 10 annotators or
    more).

    Examples
    --------
    Five annotators: the table holds ``x <= 5`` and ``x (5 - x) <= 6``.

    >>> replicate_pairing(6)
    (12, 682, 512)
    """
    largest = max(1, largest)
    shift, most = max(
        ((s, min((2**s - 1) // largest, (2**24 - 1) // (largest * (1 + 2**s))))
         for s in range(1, 24)),
        key=lambda choice: choice[1],
    )
    items = BLOCK_ITEMS
    while items >= PAIR_MIN_ITEMS and items + 4 * math.sqrt(items) > most:
        items //= 2
    return (shift, most, items) if items >= PAIR_MIN_ITEMS else None


def batch_rows(n_units: int, n_resamples: int) -> int:
    """Replicates per batch of item counts: at most :data:`BATCH_BYTES` of float32 counts,
    in batches of equal size (a short last batch multiplies slowly in BLAS)."""
    most = int(max(1, min(n_resamples, BATCH_BYTES // (4 * n_units))))
    return -(-n_resamples // -(-n_resamples // most))


def annotator_resample_counts(rng: np.random.Generator, n_units: int, n_resamples: int):
    """(n_resamples, n_units) int64: how often each annotator is drawn in each replicate."""
    indices = rng.integers(0, n_units, (n_resamples, n_units))
    return np.stack([np.bincount(row, minlength=n_units) for row in indices])
