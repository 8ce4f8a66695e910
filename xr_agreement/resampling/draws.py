"""Resampling counts: NumPy's own draws for a ``numpy.random.Generator`` seed, the
block-seeded :class:`BlockedResampler` for other seeds, and annotator draws."""

from __future__ import annotations

import os
from functools import partial

import numpy as np

from .._core.threads import _in_threads
from . import kernels as _kernels


# Bytes of resampling counts held at once (replicates are processed in batches this size).
BATCH_BYTES = 128 * 2**20


# Bytes of drawn item indices held at once (they are counted straight away).
INDEX_BYTES = 16 * 2**20


# Items per block of the seeded resampler (:class:`BlockedResampler`); at most 2**16 (its
# draws are 16-bit), a power of two so that no draw is rejected.
BLOCK_ITEMS = 2**14


# Spawn-key entry of the resampler's child seed sequences ("xr_a").
_SPAWN_TAG = 0x78725F61


# --------------------------------------------------------------------------- resamples


def item_resample_counts(
    rng: np.random.Generator, n_units: int, n_resamples: int, batch: int, reuse: bool = False
):
    """Yield ``(start, counts)`` batches of multinomial resampling counts.

    ``counts`` (rows, n_units) float32: how often each unit is drawn in replicates
    ``start .. start + rows``. The draws are ``rng.integers(0, n_units, (rows, n_units))``
    a few rows at a time (never more than :data:`INDEX_BYTES` of indices), through NumPy's
    public API only: the generator's stream does not depend on how its draws are cut into
    calls, so they equal ``rng.integers(0, n_units, (n_resamples, n_units))``, what
    :func:`scipy.stats.bootstrap` draws, and ``rng`` is left where that call leaves it.
    With ``reuse`` every batch is written into the same array (use it before asking for
    the next batch).

    >>> counts = np.concatenate([c for _, c in item_resample_counts(
    ...     np.random.default_rng(3), 5, 4, batch=3)])
    >>> indices = np.random.default_rng(3).integers(0, 5, (4, 5))
    >>> bool((counts == [np.bincount(row, minlength=5) for row in indices]).all())
    True
    """
    group = max(1, INDEX_BYTES // (8 * max(1, n_units)))
    reused = None
    for start in range(0, n_resamples, batch):
        rows = min(batch, n_resamples - start)
        if reuse and reused is not None and len(reused) >= rows:
            counts = reused[:rows]
        else:
            counts = reused = np.empty((rows, n_units), np.float32)
        for first in range(0, rows, group):
            part = counts[first : first + group]
            indices = rng.integers(0, n_units, part.shape)
            # rows counted in the pool's threads (the kernel releases the GIL)
            _in_threads(partial(_kernels.count_rows, indices, part), len(part),
                        min(len(part), 2 * (os.cpu_count() or 1)))
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


def batch_rows(n_units: int, n_resamples: int) -> int:
    """Replicates per batch of item counts: at most :data:`BATCH_BYTES` of float32 counts,
    in batches of equal size (a short last batch multiplies slowly in BLAS)."""
    most = int(max(1, min(n_resamples, BATCH_BYTES // (4 * n_units))))
    return -(-n_resamples // -(-n_resamples // most))


def annotator_resample_counts(rng: np.random.Generator, n_units: int, n_resamples: int):
    """(n_resamples, n_units) int64: how often each annotator is drawn in each replicate."""
    indices = rng.integers(0, n_units, (n_resamples, n_units))
    return np.stack([np.bincount(row, minlength=n_units) for row in indices])
