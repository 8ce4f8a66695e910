"""Bootstrap confidence intervals for agreement coefficients.

The pieces, usable by every coefficient function:

* :func:`check_options` validates the keywords (``ci``, ``n_resamples``, ``resample``,
  ``method``, ``seed``, ``progress``) before any work.
* A *weighted statistic* (:class:`WeightedStatistic`) evaluates a coefficient with item ``i``
  counted ``W[r, i]`` times and annotator ``a`` counted ``c[r, a]`` times, for a batch of
  replicates ``r`` at once. :class:`RecomputedStatistic` does so for any function of a
  DataArray by building the resampled array (simple, slow); :class:`MLAStatistic` does it
  for :func:`xr_agreement.mla` from per-item sufficient statistics (fast, see below).
* :func:`bootstrap` draws the resamples, evaluates the statistic, and attaches
  ``V_lower``/``V_upper`` (and on request ``V_replicates``) to a result Dataset.

Resampling units
----------------
``"item"``
    Items are drawn with replacement, ``N`` of ``N``: the usual design, for inference to
    other items rated by the same annotators. Items are drawn jointly across extra dims (a
    ``round``, a ``task``), so paired comparisons stay paired.
``"annotator"``
    Annotators are drawn with replacement, ``n`` of ``n``. An annotator drawn twice counts
    as two distinct raters who made the same decisions: the pair of copies is compared like
    any other pair (and agrees perfectly). This is what resampling raters as units means,
    but it pulls resampled observed agreement above the estimate, the more so the fewer the
    annotators (with 3 to 5 annotators most resamples contain a copy): annotator intervals
    for agreement then lie above the estimate, and BCa can be undefined (NaN, as in scipy)
    when no replicate falls below it. Prefer item resampling unless the annotators are a
    sample from a larger pool of many raters.
``"both"``
    The two-way bootstrap: items and annotators are drawn independently in each replicate
    (annotator draws for all replicates first, then item draws).

In every replicate the whole coefficient is recomputed, including its chance baseline (the
pooled prevalences under F and AC1). The label universe is fixed: a label that no resampled
item carries stays in the result, with the value its definition gives (for instance NaN
label agreement under F, and weight 0 in the corpus coefficient).

Intervals
---------
``"percentile"`` takes the ``(1 - ci)/2`` and ``(1 + ci)/2`` quantiles of the replicates
(linear interpolation, as :func:`numpy.quantile`). ``"bca"`` is Efron's bias-corrected and
accelerated interval: the bias correction from the share of replicates below the estimate,
the acceleration from the leave-one-out jackknife over the resampled unit (for ``"both"``
over items and over annotators, combined as for several samples, Efron & Tibshirani 1993
eq. 15.36); the formulas are those of :func:`scipy.stats.bootstrap`, which gives the same
interval for the same statistic and resamples. The acceleration is taken as 0 where the
jackknife values do not vary (beyond rounding: a spread below ``1e-12`` times the estimate,
at least 1 in scale), and replicates within that distance of the estimate count as ties
(half below), so that sums added in another order (dask blocks) give the same interval.
Replicates (and jackknife values) in which a value is undefined (NaN) are left out of its
interval; an undefined estimate gets NaN bounds.

Resamples
---------
With an int (or None, or a ``numpy.random.SeedSequence``) as ``seed``, item resamples come
from :class:`BlockedResampler`: exactly multinomial (``N`` draws with replacement from ``N``
items), drawn in blocks of items from counter-seeded streams, so that the counts of any range
of items can be made on its own. The same seed gives the same resamples on numpy and on dask
input, whatever the chunks and the number of threads: the same MLA replicates (exact integer
sums), and the same replicates of other coefficients up to float rounding (about 1e-15,
from the order of their sums). With a ``numpy.random.Generator`` as
``seed``, item resamples are NumPy's own draws, ``rng.integers(0, N, (n_resamples, N))``
(what :func:`scipy.stats.bootstrap` draws from that generator, so its intervals can be
reproduced exactly), and the generator is advanced as NumPy would advance it; this stream
can only be drawn in order, so it is slower and on dask input the per-item table is
gathered. Annotators are drawn with ``Generator.integers`` in both cases.

Speed
-----
The Hamming statistics of MLA are sums over items of per-(item, label) terms in ``x`` (the
positives) and ``m`` (the deciders). For item resampling the label count table of every
replicate is therefore one matrix product: the multinomial resampling counts ``W`` (R x N)
times a per-item table of cell counts, ``x`` and ``x (m - x)`` for each (label, m) that
occurs (cell-count columns that are equal, such as all of them on complete data, are
kept once). Everything else is finished on those small tables in one call of
:func:`xr_agreement.mla.finish_counts` with a ``resample`` dim.

With an int seed the counts are streamed (:func:`_stream_item_blocks`): each worker thread
takes up to 256 replicates and walks the blocks of items, drawing a block's counts (numba)
into a small buffer and multiplying them with the block's rows of the table straight away,
with BLAS single-threaded meanwhile (threadpoolctl; :data:`SINGLE_THREADED_BLAS`), so no
large array of counts is ever held and the threads do not wait on each other. Where the
table's values are small (at most 23: complete decisions of up to 9 annotators, or missing
data with a label nobody skipped), two replicates share a row of counts,
``W_a + 2**12 W_b``, and the product is taken over sub-blocks of items small enough that
both halves of every sum stay exact in float32 (:func:`replicate_pairing`): half the rows for the same
products. The table's column of ones gives each replicate's draws per sub-block, which must
stay within the bound and add up to the replicate's known total; a pair that fails either
check is multiplied again unpaired, so the sums are exact in every case. For complete
integer decisions the table comes from one pass over the data that also gives the point
estimate's counts (the data are read once, as by a plain call). With a Generator seed the
counts come from NumPy's PCG64 stream stepped in numba, in parallel segments from
jumped-ahead states, counted row by row (two-way resampling also draws whole rows).
Annotator resampling recounts ``x`` and ``m`` once per distinct multiset of drawn
annotators. BCa adds the item jackknife: one finishing per distinct item row, so on large
corpora it costs far more than the percentile interval.

What this costs against one plain :func:`xr_agreement.mla` call, which reads the
``N n k`` decisions once: ``R`` item resamples take ``R N`` random draws and a product
of ``R / 2`` rows of counts with the ``N x (2k + 1)`` table, neither depending on ``n``,
so the ratio falls as ``1 / n``. Measured on two cores (load average under 1) at
``N = 10**5``, ``k = 50``, with an int seed (``benchmarks/bench_bootstrap.py``, run to run
variation about 10%): 1000 resamples cost 24 to 26 times a plain call with ``n = 5``
annotators (0.12 s against 5 ms; the draws alone about 5.5 times, the products 11), 28 to
31 with ``n = 3``, about 35 with ``n = 2`` (the plain call reads less, the bootstrap does
the same work), 21 to 24 with ``n = 10`` (table values up to 25: not paired) and 11 with
``n = 20``. A Generator seed (NumPy's stream) costs about four times as much.

Examples
--------
>>> import xr_agreement
>>> ex = xr_agreement.datasets.bias_example()
>>> result = ex.agreement.mla(ci=0.9, n_resamples=200, seed=0)
>>> bool(result.agreement_lower <= result.agreement <= result.agreement_upper)
True
>>> result.label_agreement_upper.dims
('label',)
>>> result.attrs["ci_method"], result.attrs["ci_resampling_unit"]
('percentile', 'item')
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import queue
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from statistics import NormalDist

import numpy as np
import xarray as xr

from . import _kernels
from ._stats import _is_dask, _thread_pool
from ._validate import describe_position

UNITS = ("item", "annotator", "both")
METHODS = ("percentile", "bca")
RESAMPLE_DIM = "resample"
# Jackknife values whose spread is below this (relative to the estimate, at least 1 in
# scale) differ by rounding only: BCa takes no acceleration from them.
NOISE = 1e-12
# Bytes of resampling counts held at once (replicates are processed in batches this size).
BATCH_BYTES = 128 * 2**20
# Bytes of drawn item indices held at once (they are counted straight away).
INDEX_BYTES = 16 * 2**20
# Replicates per batch when item blocks are streamed (see :func:`bootstrap`).
STREAM_ROWS = 256
# Items per block of the seeded resampler (:class:`BlockedResampler`); at most 2**16 (its
# draws are 16-bit), a power of two so that no draw is rejected.
BLOCK_ITEMS = 2**14
# Streaming item resamples (numpy input, int seed) runs the products in worker threads with
# BLAS limited to one thread (process-wide, see _single_threaded_blas); False leaves BLAS
# alone (slower: its threads then compete with the workers for the cores).
SINGLE_THREADED_BLAS = True
# Fewest items per sub-block of a product of paired counts (see :func:`replicate_pairing`):
# on shorter products BLAS loses what pairing gains.
PAIR_MIN_ITEMS = 128
# Spawn-key entry of the resampler's child seed sequences ("xr_a").
_SPAWN_TAG = 0x78725F61
# Bit generators whose raw output is 64 bits split into two 32-bit draws (low half first),
# which :func:`_kernels.resample_counts` consumes like NumPy does.
_SPLIT_64 = ("PCG64", "PCG64DXSM", "Philox", "SFC64")


# --------------------------------------------------------------------------- options


def check_options(ci, n_resamples, resample, method, seed, progress) -> tuple:
    """Validated bootstrap keywords: ``(ci, n_resamples, resample, method)``.

    >>> check_options(0.95, 1000, "item", "BCa", 0, None)
    (0.95, 1000, 'item', 'bca')
    >>> check_options(95, 1000, "item", "bca", 0, None)
    Traceback (most recent call last):
    ...
    ValueError: ci is the confidence level, a number strictly between 0 and 1 (e.g. 0.95); got 95
    """
    if isinstance(ci, bool) or not isinstance(ci, (int, float, np.floating)) or not 0 < ci < 1:
        raise ValueError(
            "ci is the confidence level, a number strictly between 0 and 1 (e.g. 0.95); "
            f"got {ci!r}"
        )
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or (
        n_resamples < 2
    ):
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}")
    if resample not in UNITS:
        raise ValueError(f"resample must be one of {list(UNITS)}, got {resample!r}")
    if not isinstance(method, str) or method.lower() not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    if not (
        seed is None
        or isinstance(seed, (np.random.Generator, np.random.SeedSequence))
        or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool))
    ):
        raise TypeError(
            f"seed must be None, an int or a numpy.random.Generator, got {type(seed).__name__}"
        )
    if progress not in (None, True, False):
        raise ValueError(f"progress must be None, True or False, got {progress!r}")
    return float(ci), int(n_resamples), resample, method.lower()


def resolve_rng(seed) -> np.random.Generator:
    """The Generator to draw from: ``seed`` itself if it is one (it is advanced), else
    ``numpy.random.default_rng(seed)``."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _interactive() -> bool:
    """True in a Python prompt or a Jupyter/IPython session."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipython = sys.modules.get("IPython")
    return bool(ipython and getattr(ipython, "get_ipython", lambda: None)())


def _progress_bar(total: int, progress, description: str):
    """A tqdm bar, or None. ``progress=None`` shows one only in interactive sessions."""
    show = _interactive() if progress is None else progress
    if not show:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            raise ImportError(
                "progress=True needs tqdm: pip install tqdm (or xr-agreement[progress])"
            ) from None
        return None
    return tqdm(total=total, desc=description, unit="resample")


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


# --------------------------------------------------------------------------- intervals


_NORMAL = NormalDist()
_ndtr = np.vectorize(_NORMAL.cdf, otypes=[float])


def _ndtri_scalar(p: float) -> float:
    if math.isnan(p):
        return math.nan
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return _NORMAL.inv_cdf(p)


_ndtri = np.vectorize(_ndtri_scalar, otypes=[float])


def _quantiles(values: np.ndarray, *levels) -> list[np.ndarray]:
    """Quantile of each level (broadcast against ``values.shape[:-1]``) of the non-NaN values
    along the last axis, linear interpolation as :func:`numpy.quantile`; NaN where none is
    valid. The values are sorted once for all levels."""
    ordered = np.sort(values, axis=-1)  # NaN sorts last
    n_valid = np.sum(~np.isnan(values), axis=-1)
    last = np.maximum(n_valid - 1, 0)
    out = []
    for q in levels:
        q = np.broadcast_to(np.asarray(q, float), n_valid.shape)
        position = q * last
        position = np.where(np.isfinite(position), position, 0)
        below = np.clip(np.floor(position).astype(np.int64), 0, last)
        above = np.minimum(below + 1, last)
        a = np.take_along_axis(ordered, below[..., None], -1)[..., 0]
        b = np.take_along_axis(ordered, above[..., None], -1)[..., 0]
        t = position - below
        # numpy's _lerp: exact at both ends
        value = np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t)
        out.append(np.where((n_valid > 0) & ~np.isnan(q), value, np.nan))
    return out


class JackknifeMoments:
    """Streaming sums for the BCa acceleration of one resampled unit.

    Leave-one-out values are added in batches (units on the last axis, each with a
    multiplicity); only the shifted power sums of ``d = value - estimate`` are kept, so the
    jackknife over many items never has to be held in memory. NaN values are left out.
    """

    def __init__(self, estimate: np.ndarray):
        self.estimate = np.asarray(estimate, float)
        self.sums = [np.zeros(self.estimate.shape) for _ in range(4)]

    def add(self, values: np.ndarray, multiplicity=None) -> None:
        values = np.asarray(values, float)
        units = values.shape[-1]
        weight = np.ones(units) if multiplicity is None else np.asarray(multiplicity, float)
        sums = np.zeros((4, self.estimate.size))
        _kernels.jackknife_power_sums(np.ascontiguousarray(values.reshape(-1, units)),
                                      np.ascontiguousarray(self.estimate.reshape(-1)),
                                      np.ascontiguousarray(weight), sums)
        for power in range(4):
            self.sums[power] += sums[power].reshape(self.estimate.shape)

    def terms(self) -> tuple[np.ndarray, np.ndarray]:
        """scipy's per-sample numerator and denominator: sum U**3 / n**3 and sum U**2 /
        n**2 with U = (n - 1) (mean - value)."""
        n, s1, s2, s3 = self.sums
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / n
            central2 = np.maximum(s2 - n * mean**2, 0.0)
            central3 = s3 - 3 * mean * s2 + 2 * n * mean**3
            # values equal up to rounding: their "skewness" would be noise of order 1
            # (and differ with the order of the sums); no acceleration then
            constant = central2 <= n * (NOISE * np.maximum(1.0, np.abs(self.estimate))) ** 2
            numerator = np.where(constant, 0.0, -((n - 1) ** 3) * central3 / n**3)
            return numerator, np.where(constant, 0.0, (n - 1) ** 2 * central2 / n**2)


def acceleration(moments: list[JackknifeMoments]) -> np.ndarray:
    """BCa acceleration over one or more resampled units (scipy's multi-sample form);
    0 where the jackknife values do not vary."""
    numerator = sum(m.terms()[0] for m in moments)
    denominator = sum(m.terms()[1] for m in moments)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = numerator / 6 / denominator**1.5
    return np.where(np.asarray(denominator) > 0, a, 0.0)


def interval_bounds(
    estimate: np.ndarray,
    replicates: np.ndarray,
    ci: float,
    method: str = "percentile",
    jackknives: list[np.ndarray] | None = None,
    accel: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper confidence bounds, elementwise.

    Parameters
    ----------
    estimate : numpy.ndarray
        The estimate on the full data, shape S.
    replicates : numpy.ndarray
        Bootstrap replicates, shape S + (R,).
    ci : float
        Confidence level.
    method : {"percentile", "bca"}
    jackknives : list of numpy.ndarray
        For "bca": leave-one-out values, shape S + (n_units,), one array per resampled unit.
    accel : numpy.ndarray
        For "bca", instead of ``jackknives``: the acceleration (see :func:`acceleration`).

    Examples
    --------
    >>> interval_bounds(np.array(2.0), np.arange(101.0), 0.9)
    (array(5.), array(95.))
    """
    estimate = np.asarray(estimate, float)
    replicates = np.asarray(replicates, float)
    alpha = (1 - ci) / 2
    if method == "percentile":
        levels = (np.full(estimate.shape, alpha), np.full(estimate.shape, 1 - alpha))
    else:
        valid = ~np.isnan(replicates)
        # replicates within rounding of the estimate count as ties (half below): sums taken
        # in another order (dask blocks) must not move the bias correction
        tolerance = NOISE * np.maximum(1.0, np.abs(estimate))[..., None]
        below = np.sum(replicates < estimate[..., None] - tolerance, axis=-1)
        at_most = np.sum(replicates <= estimate[..., None] + tolerance, axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (below + at_most) / (2 * np.sum(valid, axis=-1))
        z0 = _ndtri(share)
        if accel is None:
            moments = []
            for values in jackknives or []:
                moments.append(JackknifeMoments(estimate))
                moments[-1].add(values)
            accel = acceleration(moments) if moments else np.zeros(estimate.shape)
        a = accel
        levels = []
        for z_alpha in (_ndtri_scalar(alpha), -_ndtri_scalar(alpha)):
            shifted = z0 + z_alpha
            with np.errstate(invalid="ignore", divide="ignore"):
                levels.append(_ndtr(z0 + shifted / (1 - a * shifted)))
    lower, upper = _quantiles(replicates, *levels)
    undefined = np.isnan(estimate)
    return np.where(undefined, np.nan, lower), np.where(undefined, np.nan, upper)


def interval_variables(result: xr.Dataset, item: str) -> list[str]:
    """Variables that get intervals by default: floating-point values without the item dim
    (coefficients and their components at corpus and label level; counts and item-level
    diagnostics get none)."""
    return [
        name
        for name, var in result.data_vars.items()
        if item not in var.dims and var.dtype.kind == "f"
    ]


def add_intervals(
    result: xr.Dataset,
    estimate: xr.Dataset,
    replicates: xr.Dataset,
    *,
    variables: list[str],
    ci: float,
    method: str,
    resample: str,
    accelerations: dict[str, np.ndarray] | None = None,
    return_replicates: bool = False,
) -> xr.Dataset:
    """``result`` with ``V_lower``, ``V_upper`` (and ``V_replicates``) for each V in
    ``variables`` and the bootstrap recorded in its attrs.

    ``estimate`` holds the statistic on the full data as the replicates compute it (the BCa
    bias correction compares replicates with it); ``replicates`` has a ``resample`` dim;
    ``accelerations`` gives, for "bca", each variable's acceleration (dims of ``result``,
    see :func:`jackknife_accelerations`).
    """
    level = f"{100 * ci:g}%"
    new = {}
    for name in variables:
        template = result[name]
        point = estimate[name].transpose(*template.dims)
        reps = replicates[name].transpose(*template.dims, RESAMPLE_DIM)
        accel = None
        if method == "bca":
            accel = np.asarray(accelerations[name]).reshape(template.shape)
        lower, upper = interval_bounds(point.values, reps.values, ci, method, accel=accel)
        n_resamples = replicates.sizes[RESAMPLE_DIM]
        for side, bound in (("lower", lower), ("upper", upper)):
            attrs = _bound_attrs(template, name, side, level, method, resample, n_resamples)
            data = np.asarray(bound, float).reshape(template.shape)
            new[f"{name}_{side}"] = xr.Variable(template.dims, data, attrs)
        if return_replicates:
            values = reps.transpose(RESAMPLE_DIM, *template.dims)
            new[f"{name}_replicates"] = xr.Variable(values.dims, values.values,
                                                    _replicate_attrs(template, name, resample))
    # one merge for all new variables (adding them one by one realigns every time)
    out = result.assign(new)
    if return_replicates:
        out = out.assign_coords({RESAMPLE_DIM: np.arange(replicates.sizes[RESAMPLE_DIM])})
    out.attrs.update(_interval_attrs(ci, method, int(replicates.sizes[RESAMPLE_DIM]), resample))
    return out


def _bound_attrs(template, name, side, level, method, resample, n_resamples) -> dict:
    return {
        "long_name": f"{side} bound of the {level} confidence interval of "
        f"{template.attrs.get('long_name', name)}",
        "symbol": f"{template.attrs.get('symbol', name)},{side}",
        "description": f"{method} bootstrap interval, {resample} resampling "
        f"({n_resamples} resamples); replicates where the value is undefined (NaN) are "
        "left out",
    }


def _replicate_attrs(template, name, resample) -> dict:
    return {
        "long_name": f"bootstrap replicates of {template.attrs.get('long_name', name)}",
        "symbol": f"{template.attrs.get('symbol', name)}*",
        "description": f"{name} recomputed on each {resample} resample",
    }


def _interval_attrs(ci, method, n_resamples, resample) -> dict:
    return {
        "ci_level": ci,
        "ci_method": method,
        "ci_n_resamples": int(n_resamples),
        "ci_resampling_unit": resample,
        "ci_note": "baseline recomputed in every replicate; label universe fixed; "
        + (
            "a resampled annotator drawn twice counts as two distinct raters"
            if resample != "item"
            else "items drawn jointly across extra dims"
        ),
    }


# --------------------------------------------------------------------------- statistics


class WeightedStatistic:
    """A statistic evaluated on resamples given as unit counts.

    Subclasses implement :meth:`replicates` (a batch of replicates, in any form they like)
    and :meth:`finish` (batches -> Dataset with a ``resample`` dim); :meth:`leave_one_out`
    has a generic implementation through the same two methods.
    """

    n_items: int
    n_annotators: int

    def replicates(self, item_counts, annotator_counts):
        """Replicates with item ``i`` counted ``item_counts[r, i]`` times and annotator ``a``
        counted ``annotator_counts[r, a]`` times; None means every count is 1. The count
        arrays are reused after the call: keep results, not references to them."""
        raise NotImplementedError

    def finish(self, batches: list) -> xr.Dataset:
        raise NotImplementedError

    def leave_one_out(self, unit: str, batch: int = 256):
        """Yield ``(values, multiplicity)``: the statistic without each ``unit`` ("item" or
        "annotator") in turn, in batches (a Dataset with a ``resample`` dim);
        ``multiplicity[r]`` counts the units whose removal gives these values."""
        size = self.n_items if unit == "item" else self.n_annotators
        for start in range(0, size, batch):
            rows = min(batch, size - start)
            counts = np.ones((rows, size), np.float32)
            counts[np.arange(rows), start + np.arange(rows)] = 0
            if unit == "item":
                values = self.finish([self.replicates(counts, None)])
            else:
                values = self.finish([self.replicates(None, counts.astype(np.int64))])
            yield values, np.ones(rows, np.int64)


class RecomputedStatistic(WeightedStatistic):
    """Any ``function(DataArray) -> Dataset``, recomputed on each resampled array.

    The generic (slow) route: the resampled array repeats item ``i`` ``W[r, i]`` times and
    annotator ``a`` ``c[r, a]`` times (given fresh coordinates ``0 .. n - 1`` so duplicates
    stay distinct raters).
    """

    def __init__(self, function, da: xr.DataArray, *, item: str, annotator: str):
        self.function = function
        self.da = da
        self.item = item
        self.annotator = annotator
        self.n_items = da.sizes[item]
        self.n_annotators = da.sizes[annotator]

    def _select(self, dim, counts):
        size = self.da.sizes[dim]
        return np.repeat(np.arange(size), np.asarray(counts, np.int64))

    def replicates(self, item_counts, annotator_counts):
        if item_counts is None and annotator_counts is None:
            return [self.function(self.da)]
        rows = len(item_counts) if item_counts is not None else len(annotator_counts)
        out = []
        for r in range(rows):
            selection = {}
            if item_counts is not None:
                selection[self.item] = self._select(self.item, item_counts[r])
            if annotator_counts is not None:
                selection[self.annotator] = self._select(self.annotator, annotator_counts[r])
            resampled = self.da.isel(selection)
            for dim in selection:
                resampled = resampled.assign_coords({dim: np.arange(resampled.sizes[dim])})
            out.append(self.function(resampled))
        return out

    def finish(self, batches):
        results = [r for batch in batches for r in batch]
        return xr.concat(results, dim=RESAMPLE_DIM, coords="minimal", compat="override")


class TableStatistic(WeightedStatistic):
    """A statistic whose item resamples are ``finish(W @ T)``: per-item tables ``T`` (N x F
    each) summed with the resampling counts ``W``, then finished.

    Subclasses give :meth:`item_tables`, :meth:`finish_sums` and :meth:`drop_tables` (and
    may override :meth:`replicates` for annotator resampling). Item resampling is then one
    matrix product per table, the item jackknife subtracts one item's rows from the totals,
    and on dask input (tables chunked along items) both run block by block
    (:func:`lazy_intervals`): nothing is gathered.
    """

    def item_tables(self) -> dict:
        """{name: (N, F) array}, numpy or dask (chunked along items only)."""
        raise NotImplementedError

    def finish_sums(self, sums: dict) -> xr.Dataset:
        """The statistic from {name: (R, F) float64 weighted column sums}, with a
        ``resample`` dim of length R."""
        raise NotImplementedError

    def drop_tables(self) -> None:
        """Forget the tables (see :meth:`finisher`)."""
        raise NotImplementedError

    @property
    def is_lazy(self) -> bool:
        return any(_is_dask(table) for table in self.item_tables().values())

    def lazy_units(self, resample: str) -> bool:
        """items only"""
        return resample == "item"

    def finisher(self) -> TableStatistic:
        """A copy without its tables (small, for the finishing task)."""
        light = copy.copy(self)
        light.drop_tables()
        return light

    def replicates(self, item_counts, annotator_counts):
        if annotator_counts is not None:
            raise ValueError(f"{type(self).__name__} resamples items only")
        tables = self.item_tables()
        if item_counts is None:
            return {name: np.asarray(t, np.float64).sum(axis=0)[None] for name, t in
                    tables.items()}
        weights = np.asarray(item_counts, np.float64)
        return {name: weights @ np.asarray(t, np.float64) for name, t in tables.items()}

    def finish(self, batches) -> xr.Dataset:
        return self.finish_sums({name: np.concatenate([b[name] for b in batches])
                                 for name in batches[0]})

    def leave_one_out(self, unit: str, batch: int = 4096):
        if unit != "item":
            yield from super().leave_one_out(unit, batch)
            return
        tables = {name: np.asarray(t, np.float64) for name, t in self.item_tables().items()}
        yield from _table_leave_one_out(self, tables,
                                        {n: t.sum(axis=0) for n, t in tables.items()}, batch)

    def prepare(self) -> None:
        """Make the tables that :meth:`block_sums` reads (before threads call it)."""
        self.item_tables()

    def block_sums(self, item_counts, i0: int, i1: int, draws: int) -> dict:
        """{name: (R, F)} column sums of the tables' rows ``i0:i1`` weighted by
        ``item_counts``; their sums over all blocks go to :meth:`from_sums`."""
        weights = np.asarray(item_counts, np.float64)
        return {name: weights @ np.asarray(t[i0:i1], np.float64)
                for name, t in self.item_tables().items()}

    def from_sums(self, sums: dict) -> dict:
        """A batch for :meth:`finish` from the summed :meth:`block_sums`."""
        return sums

    def total_rows(self, totals: dict, start, stop) -> dict:
        return {name: np.asarray(t)[start:stop] for name, t in totals.items()}

    def lazy_totals(self, resampler, annotator_counts, loo_annotators, token: str):
        """Delayed {name: (R + 1, F)}: every replicate's column sums, then the estimate's,
        summed over item blocks (keys named with ``token``)."""
        import dask

        tables = self._aligned_tables()
        names = list(tables)
        shared = dask.delayed(resampler, pure=True, name=f"bootstrap-resampler-{token}")
        parts = []
        for number, (item_range, blocks) in enumerate(self._table_blocks(tables)):
            parts.append(dask.delayed(_block_table_sums, pure=True)(
                names, blocks, item_range, shared,
                dask_key_name=f"bootstrap-counts-{token}-{number}"))
        return _tree_sum(parts, f"bootstrap-counts-sum-{token}")

    def lazy_item_jackknife(self, totals, estimate_row: int, templates: dict, token: str):
        """Delayed {name: (4, *shape)} item-jackknife moment sums, block by block."""
        import dask

        tables = self._aligned_tables()
        names = list(tables)
        finisher = dask.delayed(self.finisher(), pure=True,
                                name=f"bootstrap-statistic-{token}")
        parts = []
        for number, (_, blocks) in enumerate(self._table_blocks(tables)):
            parts.append(dask.delayed(_block_table_jackknife, pure=True)(
                finisher, names, blocks, totals, estimate_row, templates,
                dask_key_name=f"bootstrap-jackknife-{token}-{number}"))
        return _tree_sum(parts, f"bootstrap-jackknife-sum-{token}")

    def _aligned_tables(self) -> dict:
        """The tables as dask arrays with the first table's item chunks, one chunk across."""
        import dask.array

        tables = {name: dask.array.asarray(t) for name, t in self.item_tables().items()}
        chunks = next(iter(tables.values())).chunks[0]
        return {name: t.rechunk({0: chunks, 1: -1}) for name, t in tables.items()}

    @staticmethod
    def _table_blocks(tables: dict):
        """(item range, [delayed block of each table]) per item block."""
        first = next(iter(tables.values()))
        offsets = np.concatenate([[0], np.cumsum(first.chunks[0])]).astype(np.int64)
        delayed = [t.to_delayed()[:, 0] for t in tables.values()]
        for b in range(len(first.chunks[0])):
            yield (int(offsets[b]), int(offsets[b + 1])), [d[b] for d in delayed]


def _table_leave_one_out(statistic, tables: dict, totals: dict, batch: int):
    """Yield ``(values, multiplicity)`` of the statistic without each distinct item row of
    ``tables`` (numpy), the others' sums being ``totals - row``; batches hold at most
    ``batch`` rows and :data:`BATCH_BYTES` of sums (wide tables make the finishing's
    temporaries large)."""
    names = list(tables)
    n_items = len(next(iter(tables.values())))
    if n_items == 0:
        return
    width = sum(tables[n].shape[1] for n in names)
    batch = max(1, min(batch, BATCH_BYTES // (8 * max(1, width))))
    first, multiplicity = distinct_rows([tables[n] for n in names])
    for start in range(0, len(first), batch):
        chosen = first[start : start + batch]
        sums = {n: totals[n][None] - tables[n][chosen] for n in names}
        yield statistic.finish_sums(sums), multiplicity[start : start + batch]


def distinct_rows(tables: list) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct item, its number of items) over the rows of ``tables``
    (arrays with N rows each, taken side by side), without copying them: rows are hashed
    and equal hashes confirmed equal.

    >>> first, count = distinct_rows([np.array([[1, 2], [3, 4], [1, 2]]), np.zeros((3, 1))])
    >>> first.tolist(), count.tolist()
    ([0, 1], [2, 1])
    """
    n_items = len(tables[0])
    hashes = np.zeros(n_items, np.uint64)
    for table in tables:
        rows = np.ascontiguousarray(table).reshape(n_items, -1)
        if rows.shape[1]:
            _kernels.hash_rows(rows.view(np.uint8).reshape(n_items, -1), hashes)
    order = np.argsort(hashes, kind="stable")
    sorted_hashes = hashes[order]
    starts = np.ones(n_items, bool)
    starts[1:] = sorted_hashes[1:] != sorted_hashes[:-1]
    group_sorted = np.cumsum(starts) - 1
    first = order[starts]  # the smallest item of each hash (stable sort)
    group = np.empty(n_items, np.int64)
    group[order] = group_sorted
    # confirm that items sharing a hash have equal rows (in slices: no N x F temporary)
    step = max(1, BATCH_BYTES // (8 * max(1, sum(t[0].size for t in tables))))
    for start in range(0, n_items, step):
        items = np.arange(start, min(n_items, start + step))
        heads = first[group[items]]
        for table in tables:
            if not (table[items] == table[heads]).reshape(len(items), -1).all():
                # two different rows with one 64-bit hash: let numpy sort them out
                joined = np.concatenate([np.asarray(t).reshape(n_items, -1) for t in tables],
                                        axis=1)
                _, first, multiplicity = np.unique(joined, axis=0, return_index=True,
                                                   return_counts=True)
                order = np.argsort(first, kind="stable")
                return first[order], multiplicity[order]
    multiplicity = np.bincount(group, minlength=len(first))
    # in the items' order (first occurrences ascending)
    order = np.argsort(first, kind="stable")
    return first[order], multiplicity[order]


def _block_table_sums(names, blocks, item_range, resampler) -> dict:
    """One item block's part of :meth:`TableStatistic.lazy_totals`."""
    i0, i1 = item_range
    tables = [np.asarray(b, np.float64) for b in blocks]
    n_resamples = resampler.n_resamples
    out = {n: np.zeros((n_resamples + 1, t.shape[1])) for n, t in zip(names, tables)}
    step = batch_rows(max(1, i1 - i0), n_resamples)
    # wide fixed-layout tables are mostly zero columns: multiply the others only
    used = [np.flatnonzero(t.any(axis=0)) for t in tables]
    compact = [t[:, columns] for t, columns in zip(tables, used)]
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        counts = resampler.counts(start, rows, i0, i1, threads=False).astype(np.float64)
        for n, t, columns in zip(names, compact, used):
            out[n][start : start + rows, columns] = counts @ t
    for n, t in zip(names, tables):
        out[n][n_resamples] = t.sum(axis=0)
    return out


def _block_table_jackknife(statistic, names, blocks, totals, estimate_row, templates) -> dict:
    """One item block's part of :meth:`TableStatistic.lazy_item_jackknife`."""
    tables = {n: np.asarray(b, np.float64) for n, b in zip(names, blocks)}
    estimate = statistic.finish_sums({n: np.asarray(totals[n])[estimate_row : estimate_row + 1]
                                      for n in names}).isel({RESAMPLE_DIM: 0})
    moments = {name: JackknifeMoments(estimate[name].transpose(*dims).values)
               for name, (dims, _) in templates.items()}
    own = {n: np.asarray(totals[n])[estimate_row] for n in names}
    for values, multiplicity in _table_leave_one_out(statistic, tables, own, 4096):
        for name, (dims, _) in templates.items():
            moments[name].add(values[name].transpose(*dims, RESAMPLE_DIM).values, multiplicity)
    return {name: np.stack(moments[name].sums).reshape((4, *shape))
            for name, (_, shape) in templates.items()}


def _tree_sum(parts: list, name: str):
    """Delayed sum of ``parts`` (arrays or dicts of arrays), 8 at a time."""
    import dask

    depth = 0
    while len(parts) > 1:
        parts = [dask.delayed(_add_all, pure=True)(*parts[i : i + 8],
                                                   dask_key_name=f"{name}-{depth}-{i}")
                 for i in range(0, len(parts), 8)]
        depth += 1
    return parts[0]


def jackknife_accelerations(
    statistic: WeightedStatistic,
    units: list[str],
    estimate: xr.Dataset,
    variables: list[str],
    result: xr.Dataset,
) -> dict[str, np.ndarray]:
    """BCa acceleration of each variable (shaped like ``result[name]``) from the
    leave-one-out jackknife over ``units``, streamed batch by batch."""
    moments = {
        name: [
            JackknifeMoments(estimate[name].transpose(*result[name].dims).values)
            for _ in units
        ]
        for name in variables
    }
    for u, unit in enumerate(units):
        for values, multiplicity in statistic.leave_one_out(unit):
            for name in variables:
                dims = (*result[name].dims, RESAMPLE_DIM)
                moments[name][u].add(values[name].transpose(*dims).values, multiplicity)
    return {name: acceleration(moments[name]) for name in variables}


def bootstrap(
    statistic: WeightedStatistic,
    result: xr.Dataset,
    *,
    ci: float,
    n_resamples: int = 1000,
    resample: str = "item",
    method: str = "percentile",
    seed=None,
    return_replicates: bool = False,
    progress: bool | None = None,
    variables: list[str] | None = None,
    item: str = "item",
) -> xr.Dataset:
    """``result`` with bootstrap confidence bounds for ``variables`` (default
    :func:`interval_variables`), see the module docstring for the semantics.

    Examples
    --------
    A statistic without special structure, through :class:`RecomputedStatistic`:

    >>> import xarray as xr
    >>> def share_of_ones(da):
    ...     return xr.Dataset({"share": da.mean(("item", "annotator"))})
    >>> da = xr.DataArray(np.random.default_rng(0).integers(0, 2, (40, 3)),
    ...                   dims=("item", "annotator"))
    >>> statistic = RecomputedStatistic(share_of_ones, da, item="item", annotator="annotator")
    >>> out = bootstrap(statistic, share_of_ones(da), ci=0.9, n_resamples=200, seed=1)
    >>> bool(out.share_lower < out.share < out.share_upper)
    True
    """
    ci, n_resamples, resample, method = check_options(
        ci, n_resamples, resample, method, seed, progress
    )
    if variables is None:
        variables = interval_variables(result, item)
    if isinstance(seed, np.random.Generator):
        rng, resampler = seed, None
    else:
        resampler = BlockedResampler(seed, statistic.n_items, n_resamples)
        rng = resampler.annotator_rng
    if resampler is not None and getattr(statistic, "is_lazy", False):
        if not statistic.lazy_units(resample):
            raise ValueError(f"{type(statistic).__name__} on dask input resamples items "
                             f"only; got resample={resample!r}")
        annotator_counts = None
        if resample in ("annotator", "both"):
            annotator_counts = annotator_resample_counts(rng, statistic.n_annotators,
                                                         n_resamples)
        return lazy_intervals(statistic, result, resampler, annotator_counts, variables=variables,
                              ci=ci, method=method, resample=resample,
                              return_replicates=return_replicates)
    bar = _progress_bar(n_resamples, progress, f"bootstrap ({resample})")
    try:
        batches = []
        annotator_counts = None
        if resample in ("annotator", "both"):
            annotator_counts = annotator_resample_counts(
                rng, statistic.n_annotators, n_resamples
            )
        if resample == "annotator":
            step = max(1, min(n_resamples, 100))
            for start in range(0, n_resamples, step):
                batches.append(
                    statistic.replicates(None, annotator_counts[start : start + step])
                )
                if bar is not None:
                    bar.update(len(annotator_counts[start : start + step]))
        elif resampler is not None and annotator_counts is None and hasattr(statistic,
                                                                            "block_sums"):
            batches = _stream_item_blocks(statistic, resampler, bar)
        else:
            step = batch_rows(statistic.n_items, n_resamples)
            if resampler is None:
                draws = item_resample_counts(rng, statistic.n_items, n_resamples, step,
                                             reuse=True)
            else:
                draws = resampler.batches(step)
            for start, counts in draws:
                rows = len(counts)
                chosen = None
                if annotator_counts is not None:
                    chosen = annotator_counts[start : start + rows]
                batches.append(statistic.replicates(counts, chosen))
                if bar is not None:
                    bar.update(rows)
        replicates = statistic.finish(batches)
        estimate = statistic.finish([statistic.replicates(None, None)]).isel(
            {RESAMPLE_DIM: 0}
        )
        accelerations = None
        if method == "bca":
            units = ["item", "annotator"] if resample == "both" else [resample]
            accelerations = jackknife_accelerations(statistic, units, estimate, variables,
                                                    result)
    finally:
        if bar is not None:
            bar.close()
    return add_intervals(
        result,
        estimate,
        replicates,
        variables=variables,
        ci=ci,
        method=method,
        resample=resample,
        accelerations=accelerations,
        return_replicates=return_replicates,
    )


def _stream_item_blocks(statistic, resampler: BlockedResampler, bar=None) -> list:
    """Item-resampling batches of ``statistic`` (for its :meth:`finish`), streamed: each
    thread of the pool takes a range of at most :data:`STREAM_ROWS` replicates and walks the
    item blocks, drawing a block's counts into its own small buffer and multiplying them with
    the block's rows of the tables straight away. No large array of counts is ever held.
    BLAS runs single-threaded meanwhile: the threads already fill the cores, and BLAS
    threads spin-waiting between products would slow the draws.

    A statistic with a ``pairing()`` (MLA, see :func:`replicate_pairing`) gets the counts
    of two replicates per row, and a pair whose split is not certain to be exact is
    multiplied again from its unpaired counts (drawn again: the resampler gives any
    replicate's counts on their own)."""
    n_resamples, n_items = resampler.n_resamples, statistic.n_items
    workers = max(1, min(n_resamples, os.cpu_count() or 1))
    step = min(STREAM_ROWS, -(-n_resamples // workers))
    size = min(resampler.block_size, n_items)
    statistic.prepare()
    pairing = statistic.pairing() if hasattr(statistic, "pairing") else None
    buffers = queue.SimpleQueue()
    for _ in range(workers):
        buffers.put(np.empty(((step + 1) // 2 if pairing else step, size), np.float32))
    lock = threading.Lock()

    def block(start, rows, i0, i1, buffer):
        if not pairing:
            counts = resampler.counts(start, rows, i0, i1, buffer[:rows, : i1 - i0],
                                      threads=False)
            return statistic.block_sums(counts, i0, i1, resampler.max_draws(i0, i1))
        scale = 2 ** pairing[0]
        counts = resampler.counts(start, rows, i0, i1, buffer[: (rows + 1) // 2, : i1 - i0],
                                  threads=False, pair_scale=scale)
        draws = resampler.block_totals[start : start + rows, i0 // resampler.block_size]
        sums, unsure = statistic.pair_sums(counts, i0, i1, rows, draws)
        for pair in unsure:
            pair_rows = slice(2 * pair, min(2 * pair + 2, rows))
            alone = resampler.counts(start + pair_rows.start, pair_rows.stop - pair_rows.start,
                                     i0, i1, threads=False)
            sums[pair_rows] = statistic.block_sums(alone, i0, i1,
                                                   resampler.max_draws(i0, i1))
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


@contextlib.contextmanager
def _single_threaded_blas():
    """Context in which BLAS libraries (numpy's and any other loaded) run single-threaded,
    unless :data:`SINGLE_THREADED_BLAS` is False.

    The limit is process-wide (OpenBLAS has one pool), so it is shared: the first bootstrap
    to enter sets it, the last to leave restores each library's thread count, and only if
    it still holds the 1 set here (anyone who changed it meanwhile keeps their value). Both
    changes are made from one dedicated thread through threadpoolctl, which lets only the
    thread that first changed OpenBLAS's pool change it again until that thread lets go:
    ours lets go after restoring, and while another thread holds the pool (inside its own
    ``threadpool_limits``), nothing here changes it."""
    if not SINGLE_THREADED_BLAS:
        yield
        return
    with _BLAS_LOCK:
        if _BLAS_STATE["depth"] == 0:
            _BLAS_STATE["saved"] = _blas_thread().submit(_limit_blas).result()
        _BLAS_STATE["depth"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["depth"] -= 1
            if _BLAS_STATE["depth"] == 0:
                _blas_thread().submit(_restore_blas, _BLAS_STATE.pop("saved")).result()


def _blas_controllers() -> list:
    """threadpoolctl's controllers of the loaded BLAS libraries (found once: it takes ms)."""
    if _BLAS_STATE.get("controllers") is None:
        from threadpoolctl import ThreadpoolController

        _BLAS_STATE["controllers"] = [lib for lib in ThreadpoolController().lib_controllers
                                      if lib.user_api == "blas"]
    return _BLAS_STATE["controllers"]


def _limit_blas() -> list:
    saved = [(lib, lib.num_threads) for lib in _blas_controllers()]
    for lib, _ in saved:
        lib.set_num_threads(1)
    return saved


def _restore_blas(saved: list) -> None:
    for lib, threads in saved:
        if lib.num_threads == 1 and threads != 1:
            lib.set_num_threads(threads)
    from threadpoolctl import OpenBLASController

    # let go of OpenBLAS's pool (threadpoolctl 3.6 and later): only the thread that holds it
    # can change it, and this one is done
    release = getattr(OpenBLASController, "clear_controlling_thread", None)
    if release is not None:
        release()


def _blas_thread():
    """The one thread that changes BLAS thread counts (see :func:`_single_threaded_blas`)."""
    if _BLAS_STATE.get("thread") is None:
        _BLAS_STATE["thread"] = ThreadPoolExecutor(1, thread_name_prefix="xr-agreement-blas")
    return _BLAS_STATE["thread"]


_BLAS_LOCK = threading.Lock()
_BLAS_STATE = {"depth": 0}


# --------------------------------------------------------------------------- dask


def lazy_intervals(statistic, result, resampler, annotator_counts, *, variables, ci, method,
                   resample, return_replicates) -> xr.Dataset:
    """:func:`bootstrap` on dask input, lazily and block by block.

    Every item block adds its part of the replicates' label counts (the seeded counts of its
    own items, :meth:`BlockedResampler.counts`), of the estimate and, for BCa with annotator
    resampling, of the leave-one-annotator-out values; a tree reduction sums them and one
    small task finishes the intervals. The item jackknife of BCa is a second pass over the
    blocks, given the totals, whose additive moment sums are reduced the same way. Nothing
    is computed here; the bounds are dask arrays of the result's shapes.
    """
    import dask
    import dask.array

    jack_units = []
    if method == "bca":
        jack_units = ["item", "annotator"] if resample == "both" else [resample]
    loo_annotators = None
    if "annotator" in jack_units:
        loo_annotators = np.ones((statistic.n_annotators, statistic.n_annotators), np.int64)
        np.fill_diagonal(loo_annotators, 0)
    item_counts = resample != "annotator"
    n_resamples = resampler.n_resamples
    templates = {name: (result[name].dims, result[name].shape) for name in variables}
    # every key of this bootstrap derives from the result's own variables (their graph
    # names carry the data and the coefficient's options) and the bootstrap's options
    token = dask.base.tokenize(type(statistic).__name__, [result[v].data for v in variables],
                               variables, ci, method, resample, return_replicates,
                               resampler.key, resampler.block_totals, annotator_counts)
    if annotator_counts is not None:
        annotator_counts = dask.delayed(annotator_counts, pure=True,
                                        name=f"bootstrap-annotators-{token}")
    totals = statistic.lazy_totals(resampler if item_counts else None, annotator_counts,
                                   loo_annotators, token)
    moments = None
    if "item" in jack_units:
        moments = statistic.lazy_item_jackknife(totals, n_resamples, templates, token)
    finisher = statistic.finisher()

    def finish(totals, moments):
        replicates = finisher.finish([finisher.total_rows(totals, 0, n_resamples)])
        estimate = finisher.finish(
            [finisher.total_rows(totals, n_resamples, n_resamples + 1)]).isel({RESAMPLE_DIM: 0})
        annotator_moments = {}
        if loo_annotators is not None:
            loo = finisher.finish([finisher.total_rows(totals, n_resamples + 1, None)])
            for name in variables:
                dims = templates[name][0]
                gathered = JackknifeMoments(estimate[name].transpose(*dims).values)
                gathered.add(loo[name].transpose(*dims, RESAMPLE_DIM).values)
                annotator_moments[name] = gathered
        out = {}
        for name in variables:
            dims, shape = templates[name]
            point = estimate[name].transpose(*dims).values
            reps = replicates[name].transpose(*dims, RESAMPLE_DIM).values
            accel = None
            if method == "bca":
                parts = []
                if moments is not None:
                    item_part = JackknifeMoments(point)
                    item_part.sums = [np.asarray(v, float) for v in moments[name]]
                    parts.append(item_part)
                if name in annotator_moments:
                    parts.append(annotator_moments[name])
                accel = acceleration(parts)
            lower, upper = interval_bounds(point, reps, ci, method, accel=accel)
            out[name] = (lower.reshape(shape), upper.reshape(shape),
                         np.moveaxis(reps, -1, 0) if return_replicates else None)
        return out

    finished = dask.delayed(finish, pure=True)(totals, moments,
                                               dask_key_name=f"bootstrap-intervals-{token}")
    return _with_lazy_bounds(result, variables, finished, ci=ci, method=method,
                             resample=resample, n_resamples=n_resamples,
                             return_replicates=return_replicates)


def deferred_bootstrap(make_statistic, inputs, result: xr.Dataset, *, variables: list[str],
                       item: str = "item", **options) -> xr.Dataset:
    """:func:`bootstrap` for dask input whose statistic has no block-by-block form, lazily.

    One task receives ``inputs`` in memory (dask collections among them are computed and
    gathered, so the per-item tables they hold must fit in memory), builds the statistic
    with ``make_statistic(inputs)`` and runs :func:`bootstrap`; the bounds of ``result``
    are dask arrays until computed. With a ``numpy.random.Generator`` as seed, the draws
    are those of the generator's state when the graph was built; the caller's generator is
    advanced when the task runs in the same process (threaded scheduler), a copy of it
    otherwise.
    """
    import dask
    import dask.array

    templates = {name: (result[name].dims, result[name].shape) for name in variables}
    skeleton = xr.Dataset(
        {name: xr.Variable(dims, np.zeros(shape), result[name].attrs)
         for name, (dims, shape) in templates.items()}
    )
    return_replicates = bool(options.get("return_replicates", False))

    def run(inputs):
        out = bootstrap(make_statistic(inputs), skeleton, variables=variables, item=item,
                        **options)
        arrays = {}
        for name, (dims, _) in templates.items():
            arrays[name] = (out[f"{name}_lower"].transpose(*dims).values,
                            out[f"{name}_upper"].transpose(*dims).values,
                            out[f"{name}_replicates"].transpose(RESAMPLE_DIM, *dims).values
                            if return_replicates else None)
        return arrays

    seed = options.get("seed")
    # the result's variables carry the data and the coefficient's options in their names
    token = dask.base.tokenize(inputs, [result[v].data for v in variables], variables, sorted(
        (k, v) for k, v in options.items() if k != "seed"),
        seed if not isinstance(seed, np.random.Generator) else id(seed))
    finished = dask.delayed(run, pure=True)(inputs, dask_key_name=f"bootstrap-{token}")
    ci, method = options["ci"], options.get("method", "percentile")
    resample = options.get("resample", "item")
    n_resamples = options.get("n_resamples", 1000)
    return _with_lazy_bounds(result, variables, finished, ci=ci, method=method,
                             resample=resample, n_resamples=n_resamples,
                             return_replicates=return_replicates)


def _with_lazy_bounds(result, variables, finished, *, ci, method, resample, n_resamples,
                      return_replicates) -> xr.Dataset:
    """``result`` with ``V_lower``, ``V_upper`` (and ``V_replicates``) as dask arrays taken
    from the delayed ``finished`` ({name: (lower, upper, replicates)})."""
    import dask.array

    level = f"{100 * ci:g}%"
    new = {}
    for name in variables:
        template = result[name]
        for position, side in enumerate(("lower", "upper")):
            data = dask.array.from_delayed(finished[name][position], template.shape, float)
            attrs = _bound_attrs(template, name, side, level, method, resample, n_resamples)
            new[f"{name}_{side}"] = xr.Variable(template.dims, data, attrs)
        if return_replicates:
            data = dask.array.from_delayed(finished[name][2], (n_resamples, *template.shape),
                                           float)
            new[f"{name}_replicates"] = xr.Variable((RESAMPLE_DIM, *template.dims), data,
                                                    _replicate_attrs(template, name, resample))
    out = result.assign(new)
    if return_replicates:
        out = out.assign_coords({RESAMPLE_DIM: np.arange(n_resamples)})
    out.attrs.update(_interval_attrs(ci, method, n_resamples, resample))
    return out


# --------------------------------------------------------------------------- MLA


class MLAStatistic(WeightedStatistic):
    """:func:`xr_agreement.mla` on resamples, from per-item sufficient statistics.

    For annotator weights ``c`` (all 1 for item resampling) one pass gives, per (extra,
    item, label), the weighted positives ``x`` and deciders ``m``; they become an (N x F)
    table with, for each (extra, label, m) that occurs, the columns cell count, ``x`` and
    ``x (m - x)`` (identical columns kept once). Item resampling counts ``W`` (R x N) times
    this table is the replicates' label count table, computed exactly: float32 (or float64)
    matrix products of integers whose sums stay below the format's exact-integer range.
    """

    def __init__(self, da, baselines, single, *, item, annotator, label):
        self.extra = [d for d in da.dims if d not in (item, annotator, label)]
        self.ordered = da.transpose(*self.extra, item, annotator, label)
        self.ordered_dims = self.ordered.dims
        self.baselines = baselines
        self.single = single
        self.item, self.annotator, self.label = item, annotator, label
        self.n_items = da.sizes[item]
        self.n_annotators = da.sizes[annotator]
        self.n_labels = da.sizes[label]
        self.extra_shape = tuple(da.sizes[d] for d in self.extra)
        self.coords = {d: da[d] for d in (*self.extra, label) if d in da.coords}
        for name, coord in da.coords.items():
            if name not in self.coords and set(coord.dims) <= {*self.extra, label}:
                self.coords[name] = coord
        self._coords = [
            (d, np.asarray(self.ordered[d].values)) for d in self.ordered.dims
        ]
        self._tables = {}
        # the most items a replicate draws (None: the corpus size); a dask block's share
        self.draws_bound = None

    # per-item counts -------------------------------------------------------------------

    def _item_counts(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x, m), each (G, N, k) int32, annotator ``a`` counted ``weights[a]`` times."""
        data = self.ordered.data
        N, k = self.n_items, self.n_labels
        if _is_dask(data):
            import dask.array

            nd = data.ndim
            data = data.rechunk({nd - 2: -1, nd - 1: -1})
            stacked = dask.array.map_blocks(
                _count_block,
                data,
                weights=weights,
                coords=self._coords,
                dtype=np.int32,
                drop_axis=nd - 2,
                new_axis=nd - 1,
                chunks=data.chunks[:-2] + ((k,), (2,)),
            )
            stacked = stacked.compute().reshape(-1, N, k, 2)
            return stacked[..., 0], stacked[..., 1]
        positives, deciders = _count_arrays(np.asarray(data), weights, self._coords,
                                            parallel=True)
        return positives.reshape(-1, N, k), deciders.reshape(-1, N, k)

    def _table(self, weights: np.ndarray):
        """Per-item table for annotator weights (cached for the all-ones weights)."""
        key = weights.tobytes()
        if key in self._tables:
            return self._tables[key]
        entry = self._complete_table() if np.all(weights == 1) else None
        if entry is not None:
            self._tables[key] = entry
            return entry
        positives, deciders = self._item_counts(weights)
        G, N, k = positives.shape
        M = int(weights.sum()) + 1
        # which (extra, label, m) occur; each gets three slots (cell count, x, x (m - x))
        occurs = np.zeros((G, k, M), np.bool_)
        _kernels.label_cell_occurrences(deciders, occurs)
        column_of = np.where(occurs[..., None], 0, -1).astype(np.int64).repeat(3, -1)
        slots = np.flatnonzero(column_of.ravel() >= 0)
        column_of.ravel()[slots] = np.arange(slots.size)
        # identical cell-count columns (every one on complete data, those of labels with
        # the same missing pattern otherwise) are multiplied once: a label whose cells all
        # have the same m has an all-ones column; other candidates share fingerprints and
        # are confirmed equal before being merged
        mixed = occurs.sum(axis=-1) > 1
        fingerprints = np.zeros((slots.size, 2), np.int64)
        if mixed.any():
            _in_threads(partial(_kernels.cell_count_fingerprints, deciders, column_of, mixed,
                                fingerprints), k, min(k, 2 * (os.cpu_count() or 1)))
        source = np.empty(slots.size, np.int64)
        groups = {}
        n_columns = 0
        for c in range(slots.size):
            g, j, _, stat = np.unravel_index(slots[c], column_of.shape)
            if stat == 0:
                group = ("ones",) if not mixed[g, j] else tuple(fingerprints[c])
                candidates = groups.setdefault(group, [])
                first = next((f for f in candidates if not mixed[g, j] or self._same_column(
                    deciders, column_of.shape, slots[f], slots[c])), None)
                if first is not None:
                    source[c] = source[first]
                    continue
                candidates.append(c)
            source[c] = n_columns
            n_columns += 1
        column_of.ravel()[slots] = source
        # values are at most max(m, m**2 / 4) (x and x (m - x) for x <= m); float32 holds
        # every integer below 2**24 exactly (see _weighted_sums for the products)
        m_max = int(np.flatnonzero(occurs.any(axis=(0, 1)))[-1]) if occurs.any() else 0
        largest = max(1, m_max, m_max**2 // 4)
        dtype = np.float32 if largest < 2**24 else np.float64
        table = np.empty((N, n_columns), dtype)  # (N, F), item-major as BLAS wants it
        parts = 2 * (os.cpu_count() or 1) if N >= 4096 else 1
        totals = np.zeros((parts, n_columns), np.int64)  # one row per part: no races
        bounds = np.linspace(0, N, parts + 1).astype(np.int64)
        _pool_map(
            lambda t: _kernels.fill_item_table(positives, deciders, column_of, table,
                                               totals[t], bounds[t], bounds[t + 1]),
            range(parts),
        )
        entry = {
            "table": table,
            "totals": totals.sum(axis=0),
            "source": source,
            "slots": slots,
            "shape": (G, k, M),
            "largest": largest,
            # a column of ones (a label whose cells all have one m), for replicate_pairing
            "ones": int(source[groups[("ones",)][0]]) if ("ones",) in groups else None,
        }
        if np.all(weights == 1):
            self._tables[key] = entry
        return entry

    def _complete_table(self):
        """The all-ones table of integer or boolean decisions (nobody missing, so every
        cell has ``m = n``) in one pass over the data: columns 1, then ``x`` and
        ``x (n - x)`` per (extra, label), the layout :meth:`_table` gives such data. None
        for other input, or when a value is not 0 or 1 (the general path names it)."""
        data = self.ordered.data
        if _is_dask(data) or data.dtype.kind not in "biu" or self.n_items == 0:
            return None
        values = np.asarray(data)
        if values.dtype == np.bool_:
            values = values.view(np.uint8)
        G = int(np.prod(self.extra_shape))
        N, n, k = self.n_items, self.n_annotators, self.n_labels
        values = values.reshape(G, N, n, k)
        largest = max(1, n, n**2 // 4)
        table = np.empty((N, 1 + 2 * G * k), np.float32 if largest < 2**24 else np.float64)
        parts = 2 * (os.cpu_count() or 1) if N >= 4096 else 1
        totals = np.zeros((parts, table.shape[1]), np.int64)  # one row per part: no races
        item_spread = np.empty((G, N), np.int64)
        bounds = np.linspace(0, N, parts + 1).astype(np.int64)
        bad = _pool_map(
            lambda t: _kernels.complete_item_table(values, table, totals[t], item_spread,
                                                   bounds[t], bounds[t + 1]),
            range(parts),
        )
        if any(bad):
            return None
        # the slots of _label_counts: (g, j, m = n, stat) for every (g, j); all cell-count
        # slots read the ones column
        cells = np.arange(G * k)
        slots = ((cells[:, None] * (n + 1) + n) * 3 + np.arange(3)).ravel()
        source = np.stack([np.zeros_like(cells), 1 + 2 * cells, 2 + 2 * cells], -1).ravel()
        return {"table": table, "totals": totals.sum(axis=0), "source": source,
                "slots": slots, "shape": (G, k, n + 1), "largest": largest, "ones": 0,
                "item_spread": item_spread}

    def point_counts(self):
        """``(label_counts, item_counts, extra)`` as :func:`_stats.count_arrays` gives them,
        from the pass that makes the per-item table of complete integer or boolean
        decisions (so :func:`xr_agreement.mla` with ``ci`` reads the data once); None for
        other input (then count them as usual)."""
        data = self.ordered.data
        if _is_dask(data) or data.dtype.kind not in "biu":
            return None
        entry = self._table(np.ones(self.n_annotators, np.int64))
        if "item_spread" not in entry:
            return None
        G, k, M = entry["shape"]
        n = self.n_annotators
        label_counts = self._label_counts(entry, entry["totals"][None, :])[0]
        # agreeing (annotator, label) pairs of an item: k C(n, 2) minus its x (n - x) sum
        all_pairs = k * (n * (n - 1) // 2)
        item_counts = np.empty((G, self.n_items, 2), np.int64)
        item_counts[..., 0] = all_pairs - entry["item_spread"]
        item_counts[..., 1] = all_pairs
        return (label_counts.reshape(self.extra_shape + label_counts.shape[1:]),
                item_counts.reshape(self.extra_shape + (self.n_items, 2)), self.extra)

    def item_table(self):
        """``(table, entry)``: the per-item table (N x F) with the entry that maps its
        column sums to label counts (:meth:`_label_counts`). On numpy the compact table
        of :meth:`_table`; on dask a lazy table chunked like the items, in the fixed layout
        of every (extra, label, m, stat) column (no data-dependent column choice)."""
        if not self.is_lazy:
            entry = self._table(np.ones(self.n_annotators, np.int64))
            return entry["table"], entry
        import dask.array
        import dask.base

        data = self.ordered.data
        nd = data.ndim
        G = int(np.prod(self.extra_shape))
        k, n = self.n_labels, self.n_annotators
        width = G * k * (n + 1) * 3
        # the item axis first, everything else in one chunk
        data = dask.array.moveaxis(data, nd - 3, 0).rechunk({i: -1 for i in range(1, nd)})
        table = data.map_blocks(
            _fixed_item_table, n, k, dtype=np.float64, drop_axis=list(range(2, nd)),
            chunks=(data.chunks[0], (width,)),
            name="bootstrap-item-table-" + dask.base.tokenize(data, n, k),
        )
        entry = {"slots": np.arange(width), "source": np.arange(width), "shape": (G, k, n + 1)}
        return table, entry

    @staticmethod
    def _same_column(deciders, shape, slot_a, slot_b) -> bool:
        """Whether the cell-count slots ``slot_a`` and ``slot_b`` (flat indices into
        ``shape`` = (G, k, M, 3)) are 1 on the same items."""
        columns = []
        for slot in (slot_a, slot_b):
            g, j, m, _ = np.unravel_index(slot, shape)
            columns.append(deciders[g, :, j] == m)
        return bool(np.array_equal(*columns))

    def _label_counts(self, entry, sums: np.ndarray) -> np.ndarray:
        """(R, G, k, n + 1, 3) label_counts (cells, positives, positives_squared) from the
        replicate sums of the table's columns (R, F)."""
        G, k, M = entry["shape"]
        R = sums.shape[0]
        n = self.n_annotators
        out = np.zeros((R, G, k, max(M, n + 1), 3), np.int64)
        if M == out.shape[3]:
            out.reshape(R, -1)[:, entry["slots"]] = sums[:, entry["source"]]
        else:
            flat = np.zeros((R, G * k * M * 3), np.int64)
            flat[:, entry["slots"]] = sums[:, entry["source"]]
            out[..., :M, :] = flat.reshape(R, G, k, M, 3)
        m = np.arange(out.shape[3])
        # x**2 = m x - x (m - x)
        out[..., 2] = m * out[..., 1] - out[..., 2]
        return out

    def _weighted_sums(self, entry, item_counts, rows=slice(None), draws=None) -> np.ndarray:
        """(R, F) int64 exact column sums of the table's ``rows`` weighted by
        ``item_counts``. A float32 product is exact while every sum stays below 2**24:
        ``draws`` (the most items any replicate draws among these rows; by default the
        corpus size, what a replicate draws in all) times the largest table value."""
        table = entry["table"][rows]
        draws = self.n_items if draws is None else draws
        if table.dtype == np.float32 and draws * entry["largest"] >= 2**24:
            table = table.astype(np.float64)
        product = _product(item_counts.astype(table.dtype, copy=False), table)
        return np.rint(product).astype(np.int64)

    def prepare(self) -> None:
        """Make the table that :meth:`block_sums` reads (before threads call it)."""
        self._table(np.ones(self.n_annotators, np.int64))

    def block_sums(self, item_counts, i0: int, i1: int, draws: int) -> np.ndarray:
        """(R, F) int64 column sums of the per-item table's rows ``i0:i1`` weighted by
        ``item_counts`` (R, i1 - i0), in which no replicate draws more than ``draws``
        items; sums over all blocks go to :meth:`from_sums`."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        return self._weighted_sums(entry, item_counts, slice(i0, i1), draws)

    def pairing(self):
        """``(shift, most, items)`` of :func:`replicate_pairing` for the item table, or None
        (no ones column, values too large, or a float64 table)."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        if "pairing" not in entry:
            entry["pairing"] = (replicate_pairing(entry["largest"])
                                if entry.get("ones") is not None
                                and entry["table"].dtype == np.float32 else None)
        return entry["pairing"]

    def pair_sums(self, paired_counts, i0: int, i1: int, rows: int, draws) -> tuple:
        """:meth:`block_sums` of ``rows`` replicates from their paired counts
        (``ceil(rows / 2)`` rows, see :meth:`BlockedResampler.counts` and
        :meth:`pairing`), given each replicate's number of draws among items ``i0:i1``.
        Returns the (rows, F) sums and the pairs whose split is not certain to be exact
        (their two rows are then to be replaced: :func:`_stream_item_blocks` multiplies
        them unpaired)."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        shift, most, size = self.pairing()
        table = entry["table"]
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
            unsure |= _kernels.unpack_replicate_pairs(products, shift, most, entry["ones"],
                                                      rows, sums, decoded)
        # every sub-block's draws decoded as each replicate's true total: no carries
        wrong = decoded != np.asarray(draws)
        unsure |= wrong[0::2] | np.append(wrong[1::2], False)[:pairs]
        return sums, np.flatnonzero(unsure)

    def from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Label counts (see :meth:`replicates`) from the summed :meth:`block_sums`."""
        entry = self._table(np.ones(self.n_annotators, np.int64))
        return self._label_counts(entry, sums)

    def replicates(self, item_counts, annotator_counts):
        n = self.n_annotators
        if annotator_counts is None:
            entry = self._table(np.ones(n, np.int64))
            if item_counts is None:
                return self._label_counts(entry, entry["totals"][None, :])
            sums = self._weighted_sums(entry, item_counts, draws=self.draws_bound)
            return self._label_counts(entry, sums)
        annotator_counts = np.asarray(annotator_counts, np.int64)
        R = len(annotator_counts)
        unique, inverse = np.unique(annotator_counts, axis=0, return_inverse=True)
        out = None
        for u, weights in enumerate(unique):
            rows = np.flatnonzero(inverse.ravel() == u)
            entry = self._table(weights)
            if item_counts is None:
                sums = np.broadcast_to(entry["totals"], (rows.size, entry["totals"].size))
            else:
                sums = self._weighted_sums(entry, item_counts[rows], draws=self.draws_bound)
            counts = self._label_counts(entry, sums)
            if out is None:
                out = np.zeros((R,) + counts.shape[1:], np.int64)
            out[rows] = counts
        return out

    # dask: block by block ----------------------------------------------------------------

    @property
    def is_lazy(self) -> bool:
        return self.ordered is not None and _is_dask(self.ordered.data)

    def finisher(self) -> MLAStatistic:
        """A copy without the data, for the finishing task (small to send to a worker)."""
        light = copy.copy(self)
        light.ordered = None
        light._coords = None  # every coordinate of the input (N item labels): not needed
        light._tables = {}
        return light

    def _blocks(self) -> list:
        """(delayed block, its coords, extra block index, extra ranges, item range) per
        block of the data, annotator and label merged into single chunks."""
        data = self.ordered.data
        nd = data.ndim
        data = data.rechunk({nd - 2: -1, nd - 1: -1})
        offsets = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in data.chunks]
        delayed = data.to_delayed()
        blocks = []
        for index in np.ndindex(*data.numblocks[:-2]):
            ranges = [(int(offsets[axis][i]), int(offsets[axis][i + 1]))
                      for axis, i in enumerate(index)]
            coords = {dim: values[start:stop]
                      for (dim, values), (start, stop) in zip(self._coords, ranges)}
            coords.update(self._coords[-2:])  # annotator and label: whole
            blocks.append((delayed[index + (0, 0)], coords, index[:-1], ranges[:-1],
                           ranges[-1]))
        return blocks

    def _block_statistic(self, block, coords) -> MLAStatistic:
        da = xr.DataArray(block, dims=self.ordered_dims, coords=coords)
        sub = MLAStatistic(da, self.baselines, self.single, item=self.item,
                           annotator=self.annotator, label=self.label)
        return sub

    def lazy_units(self, resample: str) -> bool:
        """items, annotators or both"""
        return True

    def total_rows(self, totals, start, stop) -> np.ndarray:
        """Rows ``start:stop`` of :meth:`lazy_totals`'s result, as :meth:`finish` takes
        them."""
        rows = np.moveaxis(np.asarray(totals), len(self.extra_shape), 0)[start:stop]
        return rows.reshape((rows.shape[0], -1) + rows.shape[-3:])

    def lazy_totals(self, resampler, annotator_counts, loo_annotators, token: str):
        """Delayed (*extra, rows, k, n + 1, 3) int64 label counts: the replicates, then the
        estimate, then the leave-one-annotator-out values (if asked), summed over blocks
        (keys named with ``token``)."""
        import dask

        shared = dask.delayed(resampler, pure=True, name=f"bootstrap-resampler-{token}")
        finisher = dask.delayed(self.finisher(), pure=True,
                                name=f"bootstrap-statistic-{token}")
        parts, places = {}, {}
        for number, (block, coords, extra_index, extra_ranges, item_range) in enumerate(
            self._blocks()
        ):
            part = dask.delayed(_block_label_counts, pure=True)(
                finisher, block, coords, item_range, shared, annotator_counts,
                loo_annotators, dask_key_name=f"bootstrap-counts-{token}-{number}")
            parts.setdefault(extra_index, []).append(part)
            places[extra_index] = extra_ranges
        summed = self._tree_sums(parts, f"bootstrap-counts-sum-{token}")
        return dask.delayed(_place_extra_blocks, pure=True)(
            summed, places, self.extra_shape, dask_key_name=f"bootstrap-counts-total-{token}")

    def lazy_item_jackknife(self, totals, estimate_row: int, templates: dict, token: str):
        """Delayed {name: (4, *shape)} sums of the item jackknife's moments (see
        :class:`JackknifeMoments`) for the variables of ``templates`` ({name: (dims,
        shape)} of the result), given the delayed totals of :meth:`lazy_totals`
        whose row ``estimate_row`` holds the estimate's label counts."""
        import dask

        finisher = dask.delayed(self.finisher(), pure=True,
                                name=f"bootstrap-statistic-{token}")
        parts = []
        for number, (block, coords, _, extra_ranges, _) in enumerate(self._blocks()):
            parts.append(dask.delayed(_block_item_jackknife, pure=True)(
                finisher, block, coords, extra_ranges, totals, estimate_row, templates,
                dask_key_name=f"bootstrap-jackknife-{token}-{number}"))
        return self._tree_sums({(): parts}, f"bootstrap-jackknife-sum-{token}")[()]

    @staticmethod
    def _tree_sums(parts: dict, name: str) -> dict:
        """The parts of each extra block summed, 8 at a time."""
        return {extra_index: _tree_sum(level, f"{name}-{'-'.join(map(str, extra_index))}")
                for extra_index, level in parts.items()}

    def leave_one_out(self, unit: str, batch: int = 4096):
        if unit == "annotator":
            yield from super().leave_one_out(unit, batch)
            return
        # item jackknife: the totals minus one item's row; items with identical rows give
        # identical values, so each distinct row is finished once
        entry = self._table(np.ones(self.n_annotators, np.int64))
        first, multiplicity = distinct_rows([entry["table"]])
        for start in range(0, len(first), batch):
            chunk = entry["table"][first[start : start + batch]].astype(np.int64)
            values = self.finish([self._label_counts(entry, entry["totals"] - chunk)])
            yield values, multiplicity[start : start + batch]

    def finish(self, batches) -> xr.Dataset:
        from .mla import assemble, finish_counts

        label_counts = np.concatenate(batches, axis=0)
        R = label_counts.shape[0]
        label_counts = label_counts.reshape((R,) + self.extra_shape + label_counts.shape[2:])
        # the resample dim leads as an extra dim; one dummy item (item-level values are not
        # bootstrapped and are dropped)
        dummy = np.zeros((R,) + self.extra_shape + (1,), np.int64)
        values = finish_counts(label_counts, dummy, dummy, self.baselines)
        result = assemble(values, self.baselines, self.single, extra=[RESAMPLE_DIM, *self.extra],
                          item=self.item, label=self.label,
                          coords={**self.coords, RESAMPLE_DIM: np.arange(R)},
                          n_annotators=self.n_annotators)
        return result.drop_vars([name for name, var in result.data_vars.items()
                                 if self.item in var.dims or name.startswith("n_")])


def _pool_map(function, *iterables) -> list:
    """``list(map(function, *iterables))`` in the process's persistent thread pool, or in
    the calling thread if that is one of the pool's own (waiting there for the pool's
    other threads could deadlock)."""
    if threading.current_thread().name.startswith("xr-agreement"):
        return list(map(function, *iterables))
    return list(_thread_pool().map(function, *iterables))


def _in_threads(task, size: int, parts: int) -> list:
    """``task(start, stop)`` for ``parts`` consecutive ranges of ``range(size)``, in the
    process's persistent thread pool (numba's parallel layer spin-waits on a busy machine;
    the kernels called here release the GIL)."""
    bounds = np.linspace(0, size, max(1, parts) + 1).astype(np.int64)
    return _pool_map(task, bounds[:-1], bounds[1:])


def _product(weights: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``weights @ table``; with few rows as ``(table.T @ weights.T).T``, which multithreaded
    BLAS (OpenBLAS) splits better when the first operand is short and wide."""
    if len(weights) < 128:
        return (table.T @ weights.T).T
    return weights @ table


def _count_block(block, weights, coords=None, parallel=False, block_info=None):
    """(..., N, n, k) decisions -> (..., N, k, 2) int32 weighted positives and deciders.

    ``coords`` holds (dim, coordinate values) of the whole array, used to name an invalid
    value (``block_info`` locates a dask block in it).
    """
    positives, deciders = _count_arrays(block, weights, coords, parallel, block_info)
    return np.stack([positives, deciders], axis=-1)


def _count_arrays(block, weights, coords=None, parallel=False, block_info=None):
    """(..., N, n, k) decisions -> weighted positives and deciders, each (..., N, k) int32
    (see :func:`_count_block`)."""
    values = np.asarray(block)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    lead = values.shape[:-2]
    n, k = values.shape[-2:]
    flat = values.reshape(-1, n, k)
    positives = np.zeros((flat.shape[0], k), np.int32)
    deciders = np.zeros((flat.shape[0], k), np.int32)
    weights = np.asarray(weights, np.int64)
    if flat.size:
        rows = flat.shape[0]
        if parallel and threading.current_thread() is threading.main_thread() and (
            rows >= 4096
        ):
            # item ranges in Python threads (numba's parallel layer spin-waits when busy)
            bad = sum(_in_threads(
                lambda i0, i1: _kernels._weighted_item_range(
                    flat, weights, i0, i1, positives, deciders
                ),
                rows,
                2 * (os.cpu_count() or 1),
            ))
        else:
            bad = _kernels.weighted_item_counts(flat, weights, positives, deciders)
        if bad:
            if coords is None:
                coords = [(f"axis {i}", np.arange(s)) for i, s in enumerate(values.shape)]
            if block_info and 0 in block_info:
                location = block_info[0]["array-location"]
                coords = [(d, v[a:b]) for (d, v), (a, b) in zip(coords, location)]
            raise ValueError(describe_position(values, coords))
    return positives.reshape(lead + (k,)), deciders.reshape(lead + (k,))


def _block_label_counts(statistic, block, coords, item_range, resampler, annotator_counts,
                        loo_annotators) -> np.ndarray:
    """One block's part of :meth:`MLAStatistic.lazy_totals`: (*extra block, rows, k,
    n + 1, 3) int64."""
    sub = statistic._block_statistic(np.asarray(block), coords)
    i0, i1 = item_range
    parts = []
    if resampler is not None:
        sub.draws_bound = resampler.max_draws(i0, i1)
        n_resamples = resampler.n_resamples
        step = batch_rows(max(1, i1 - i0), n_resamples)
        for start in range(0, n_resamples, step):
            rows = min(step, n_resamples - start)
            counts = resampler.counts(start, rows, i0, i1, threads=False)
            chosen = None if annotator_counts is None else annotator_counts[start : start + rows]
            parts.append(sub.replicates(counts, chosen))
    else:
        parts.append(sub.replicates(None, annotator_counts))
    parts.append(sub.replicates(None, None))
    if loo_annotators is not None:
        parts.append(sub.replicates(None, loo_annotators))
    rows = np.concatenate(parts)
    rows = rows.reshape((len(rows),) + sub.extra_shape + rows.shape[2:])
    return np.moveaxis(rows, 0, len(sub.extra_shape))


def _block_item_jackknife(statistic, block, coords, extra_ranges, totals, estimate_row,
                          templates, batch: int = 4096) -> dict:
    """One block's part of :meth:`MLAStatistic.lazy_item_jackknife`: the moment sums of
    its items' leave-one-out values, placed in the result's shapes (zero elsewhere)."""
    sub = statistic._block_statistic(np.asarray(block), coords)
    region = tuple(slice(start, stop) for start, stop in extra_ranges)
    own = totals[region][..., estimate_row, :, :, :]
    own = own.reshape((1, -1) + own.shape[-3:])  # (1, G block, k, n + 1, 3)
    estimate = sub.finish([own]).isel({RESAMPLE_DIM: 0})
    moments = {name: JackknifeMoments(estimate[name].transpose(*dims).values)
               for name, (dims, _) in templates.items()}
    entry = sub._table(np.ones(sub.n_annotators, np.int64))
    first, multiplicity = distinct_rows([entry["table"]])
    for start in range(0, len(first), batch):
        rows = entry["table"][first[start : start + batch]].astype(np.int64)
        values = sub.finish([own - sub._label_counts(entry, rows)])
        for name, (dims, _) in templates.items():
            moments[name].add(values[name].transpose(*dims, RESAMPLE_DIM).values,
                              multiplicity[start : start + batch])
    out = {}
    for name, (dims, shape) in templates.items():
        placed = np.zeros((4, *shape))
        where = tuple(region[statistic.extra.index(d)] if d in statistic.extra else slice(None)
                      for d in dims)
        placed[(slice(None), *where)] = np.stack(moments[name].sums)
        out[name] = placed
    return out


def _fixed_item_table(block, n_annotators, n_labels) -> np.ndarray:
    """(N, G k (n + 1) 3) float64 per-item table of a block (item axis first, then the extra
    axes, annotator, label) with a column for every (extra, label, m, stat)."""
    values = np.moveaxis(np.asarray(block), 0, -3)  # (*extra, N, n, k)
    positives, deciders = _count_arrays(values, np.ones(n_annotators, np.int64))
    N = values.shape[-3]
    positives = positives.reshape(-1, N, n_labels)
    deciders = deciders.reshape(-1, N, n_labels)
    G = positives.shape[0]
    column_of = np.arange(G * n_labels * (n_annotators + 1) * 3, dtype=np.int64).reshape(
        G, n_labels, n_annotators + 1, 3)
    table = np.empty((N, column_of.size))
    totals = np.zeros(column_of.size, np.int64)
    _kernels.fill_item_table(positives, deciders, column_of, table, totals, 0, N)
    return table


def _add_all(*parts):
    """Sum of arrays, or of dicts of arrays with the same keys."""
    if isinstance(parts[0], dict):
        return {name: _add_all(*(p[name] for p in parts)) for name in parts[0]}
    total = np.array(parts[0], copy=True)
    for part in parts[1:]:
        total += part
    return total


def _place_extra_blocks(summed: dict, places: dict, extra_shape) -> np.ndarray:
    """The per-extra-block sums put together into one array (extra dims first)."""
    first = next(iter(summed.values()))
    out = np.zeros(tuple(extra_shape) + first.shape[len(extra_shape):], first.dtype)
    for index, part in summed.items():
        out[tuple(slice(start, stop) for start, stop in places[index])] = part
    return out


def mla_intervals(
    da: xr.DataArray,
    result: xr.Dataset,
    baselines: list[str],
    single: bool,
    *,
    item: str,
    annotator: str,
    label: str,
    ci: float,
    n_resamples: int,
    resample: str,
    method: str,
    seed,
    return_replicates: bool,
    progress,
    statistic: MLAStatistic | None = None,
) -> xr.Dataset:
    """The :func:`xr_agreement.mla` result with bootstrap intervals (see the module
    docstring); ``statistic`` is the :class:`MLAStatistic` of ``da`` if made already."""
    options = dict(ci=ci, n_resamples=n_resamples, resample=resample, method=method, seed=seed,
                   return_replicates=return_replicates, progress=progress)
    if _is_dask(da.data) and isinstance(seed, np.random.Generator):
        # NumPy's stream is drawn in order: one lazy task gets the array and resamples it
        return deferred_bootstrap(
            lambda inputs: MLAStatistic(inputs["da"], baselines, single, item=item,
                                        annotator=annotator, label=label),
            {"da": da}, result, variables=interval_variables(result, item), item=item,
            **options)
    if statistic is None:
        statistic = MLAStatistic(da, baselines, single, item=item, annotator=annotator,
                                 label=label)
    return bootstrap(statistic, result, item=item, **options)
