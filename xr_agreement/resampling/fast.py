"""The bootstrap's speed tricks, all in one place, each with what it buys.

Nothing here changes a number: every trick gives bit for bit the replicates of the plain
route (a float64 product of the resampling counts with the per-item table, batch by batch).
The gains are those measured with ``python benchmarks/bench_bootstrap.py`` (N = 10**5
items, n = 5 annotators, k = 50 labels, 1000 item resamples of :func:`xr_agreement.mla`,
int seed; two cores, best of several runs, each trick switched off on its own). A trick
that bought less than a fifth of the bootstrap's time was removed (see the end).

1. **Streaming in worker threads with single-threaded BLAS** (:func:`stream_item_blocks`):
   each thread of the process's pool takes up to :data:`STREAM_ROWS` replicates and walks
   the item blocks of :class:`~xr_agreement.resampling.draws.BlockedResampler`, drawing a
   block's counts into its own small buffer and multiplying them with the block's rows of
   the table straight away; BLAS runs single-threaded meanwhile
   (:func:`xr_agreement._core.threads._single_threaded_blas`). No large array of counts is
   held. Off (the counts of a batch of replicates drawn for all items, then one product):
   0.61 s instead of 0.27 s. With the streaming but BLAS left multi-threaded (its threads
   spin-wait against the workers): 2.1 s.
2. **Two replicates per float32 row** (:func:`replicate_pairing`, :func:`paired_sums`,
   the kernel ``unpack_replicate_pairs``): where the table's values are small integers (at
   most 23: complete decisions of up to 9 annotators, or missing data with a label nobody
   skipped), one row of counts holds ``W_a + 2**shift W_b`` and the product is taken over
   sub-blocks of items short enough that both halves of every sum stay exact in float32.
   The table's column of ones (complete data, or a label whose cells all have one number
   of deciders; without it no pairing) counts each replicate's draws per sub-block, which
   must stay within the bound and add up to the replicate's known total; a pair that fails
   either check is multiplied again unpaired. Half the rows for the same products. Off: 0.41 s
   instead of 0.27 s.
3. **The complete-integer one-pass table** (``MLAStatistic._complete_table``, in
   :mod:`xr_agreement.mla.intervals`): complete 0/1 integer decisions give the table and
   the point estimate's counts in one pass over the data, as a plain call reads them.
   Off (the general table, then the plain count): 0.064 s instead of 0.022 s, about 15% of
   the bootstrap. Below a fifth, but kept: removing it would break the acceptance rule "no
   benchmark slower by more than 10%" (issue 14).
4. **Zero columns skipped on dask blocks** (``_block_table_sums`` in :mod:`.statistics`):
   the fixed-layout tables of dask input are mostly zero columns and only the others are
   multiplied. Not on this benchmark (numpy input).

Removed (less than a fifth each, within the run-to-run noise of about 10%): the shared
cell-count columns of labels with the same missing cells (fingerprinted, then merged:
complete data never used them, and on 10^5 x 5 x 50 decisions with 10% missing they bought
nothing either), the numba copy of NumPy's PCG64 stream (a ``Generator`` seed now draws
through ``rng.integers``, see :func:`~xr_agreement.resampling.draws.item_resample_counts`),
the 16-bit scratch rows of its counts, the hashing of item rows that finished each distinct
row of the jackknife once (``distinct_rows``: on the benchmark every item row is distinct),
and the transposed product for short batches.
"""

from __future__ import annotations

import math
import os
import queue
import threading

import numpy as np

from .._core.threads import _pool_map, _single_threaded_blas
from . import draws as _draws
from . import kernels as _kernels


# Replicates per thread's range when item blocks are streamed (:func:`stream_item_blocks`).
STREAM_ROWS = 256


# Fewest items per sub-block of a product of paired counts (see :func:`replicate_pairing`):
# on shorter products BLAS loses what pairing gains.
PAIR_MIN_ITEMS = 128


def _add_all(*parts):
    """Sum of arrays, or of dicts of arrays with the same keys."""
    if isinstance(parts[0], dict):
        return {name: _add_all(*(p[name] for p in parts)) for name in parts[0]}
    total = np.array(parts[0], copy=True)
    for part in parts[1:]:
        total += part
    return total


# --------------------------------------------------------------------------- 1. streaming


def stream_item_blocks(statistic, resampler, bar=None) -> list:
    """Item-resampling batches of ``statistic`` (for its :meth:`finish`), streamed (trick
    1): the statistic's ``block_sums(counts, i0, i1, draws)`` (column sums of its table's
    rows ``i0:i1``) are added up over the item blocks and given to ``from_sums``. A
    statistic whose ``pairing()`` is not None gets two replicates per row (trick 2) through
    ``pair_sums``; a pair whose split is not certain to be exact is multiplied again from
    its unpaired counts (drawn again: the resampler gives any replicate's counts alone)."""
    n_resamples, n_items = resampler.n_resamples, statistic.n_items
    workers = max(1, min(n_resamples, os.cpu_count() or 1))
    step = min(STREAM_ROWS, -(-n_resamples // workers))
    size = min(resampler.block_size, n_items)
    statistic.prepare()
    pairing = statistic.pairing()
    buffers = queue.SimpleQueue()
    for _ in range(workers):
        buffers.put(np.empty(((step + 1) // 2 if pairing else step, size), np.float32))
    lock = threading.Lock()

    def block(start, rows, i0, i1, buffer):
        if not pairing:
            counts = resampler.counts(start, rows, i0, i1, buffer[:rows, : i1 - i0],
                                      threads=False)
            return statistic.block_sums(counts, i0, i1, resampler.max_draws(i0, i1))
        counts = resampler.counts(start, rows, i0, i1, buffer[: (rows + 1) // 2, : i1 - i0],
                                  threads=False, pair_scale=2 ** pairing[0])
        draws = resampler.block_totals[start : start + rows, i0 // resampler.block_size]
        sums, unsure = statistic.pair_sums(counts, i0, i1, rows, draws)
        for pair in unsure:
            pair_rows = slice(2 * pair, min(2 * pair + 2, rows))
            alone = resampler.counts(start + pair_rows.start, pair_rows.stop - pair_rows.start,
                                     i0, i1, threads=False)
            sums[pair_rows] = statistic.block_sums(alone, i0, i1, resampler.max_draws(i0, i1))
        return sums

    def run(start):
        rows = min(step, n_resamples - start)
        buffer = buffers.get()
        try:
            sums = None
            for i0 in range(0, n_items, resampler.block_size):
                part = block(start, rows, i0, min(n_items, i0 + resampler.block_size), buffer)
                sums = part if sums is None else _add_all(sums, part)
        finally:
            buffers.put(buffer)
        if bar is not None:
            with lock:
                bar.update(rows)
        return statistic.from_sums(sums)

    if workers == 1:  # one thread of ours: BLAS may use the cores itself
        return [run(start) for start in range(0, n_resamples, step)]
    with _single_threaded_blas():
        return _pool_map(run, range(0, n_resamples, step))


# --------------------------------------------------------------------------- 2. pairing


def replicate_pairing(largest: int):
    """How to multiply the counts of two replicates at once in float32 (trick 2): ``(shift,
    most, items)``, or None.

    The counts of replicates ``a`` and ``b`` go in one row as ``W_a + W_b * 2**shift``.
    Times a table column of integers at most ``largest``, its sum over items holds both
    replicates' sums, ``A + B * 2**shift``, exactly (below 2**24) and separably (``A``
    below ``2**shift``) while each replicate draws at most ``most`` items among them. The
    product is therefore taken over sub-blocks of ``items`` items (a power of two), with
    room for draws about 4 standard deviations above their mean. None when sub-blocks would
    be shorter than :data:`PAIR_MIN_ITEMS` (``largest`` above 23).

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
    items = _draws.BLOCK_ITEMS
    while items >= PAIR_MIN_ITEMS and items + 4 * math.sqrt(items) > most:
        items //= 2
    return (shift, most, items) if items >= PAIR_MIN_ITEMS else None


def paired_sums(table, ones: int, pairing, paired_counts, i0: int, i1: int, rows: int,
                draws) -> tuple:
    """(rows, F) int64 column sums of ``table[i0:i1]`` for ``rows`` replicates from their
    paired counts (``ceil(rows / 2)`` rows, see :meth:`BlockedResampler.counts`), given
    each replicate's number of draws among these items, and the pairs whose split is not
    certain to be exact (their two rows are to be replaced). Column ``ones`` of the
    float32 ``table`` is 1 on every item."""
    shift, most, size = pairing
    pairs = len(paired_counts)
    sums = np.zeros((rows, table.shape[1]), np.int64)
    decoded = np.zeros(rows, np.int64)
    n_sub = (i1 - i0) // size
    body = n_sub * size
    unsure = np.zeros(pairs, np.bool_)
    parts = []
    if n_sub:
        parts.append((paired_counts[:, :body].reshape(pairs, n_sub, size).transpose(1, 0, 2),
                      table[i0 : i0 + body].reshape(n_sub, size, -1)))
    if body < i1 - i0:
        parts.append((paired_counts[None, :, body:], table[None, i0 + body : i1]))
    for weights, rows_of_table in parts:
        products = np.matmul(weights, rows_of_table)
        unsure |= _kernels.unpack_replicate_pairs(products, shift, most, ones, rows, sums,
                                                  decoded)
    # every sub-block's draws decoded as each replicate's true total: no carries
    wrong = decoded != np.asarray(draws)
    unsure |= wrong[0::2] | np.append(wrong[1::2], False)[:pairs]
    return sums, np.flatnonzero(unsure)
