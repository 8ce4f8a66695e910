"""Alpha's coding of ratings and the sums of observed and expected disagreement from
counts (see :mod:`.blocks` for the counting itself)."""

from __future__ import annotations

import math
import os

import numpy as np
import xarray as xr

from .._core.arrays import _plain
from .._core.categorical import encode_ratings, Ratings
from .._core.threads import _in_threads, _pool_map
from . import finish_kernels as _finish
from . import kernels as _kernels


# Above this many distinct values the (V, V) coincidence matrix is not returned: its memory
# (times the item tasks below) would dominate, and nothing else needs it.
COINCIDENCE_LIMIT = 256


# Jaccard/MASI expected disagreement: a histogram of intersection sizes (one entry per
# subset of each distinct set) is used when it needs fewer than 1 / SUBSETS_PER_PAIR as many
# steps as comparing pairs of distinct sets. Measured at (300, 5, 31): a subset step
# (sort, group) costs ~250 ns, a pair of one-word sets (AND, popcount, lookup) ~1 ns.
SUBSETS_PER_PAIR = 256

# ... and the pairs within each label's list of sets are compared instead of all pairs when
# there are fewer of them (LIST_PAIRS_PER_PAIR times as many steps): the same kernel per
# pair, so the same cost.
LIST_PAIRS_PER_PAIR = 1


# Fewer pairs of distinct values than this are summed in the calling thread, and label-set
# pairs are split into parts of about this many (about 1 ms of work): handing work to the
# pool's threads costs more than it saves below (at 1,200 label sets of 31 labels, 0.7 M
# pairs, two parts on two threads took 1.0-1.2 ms, one in the calling thread 0.5-0.8 ms).
PAIRS_PER_THREAD = 1 << 21


# Integral ratings spanning at most this many integers are read as codes directly
# (interval and ratio; nominal and ordinal use COINCIDENCE_LIMIT).
INTEGER_SPAN_LIMIT = 1 << 12


def _extra_frame(da: xr.DataArray, roles) -> tuple[list[str], dict]:
    extra = [d for d in da.dims if d not in roles]
    coords = {}
    for cname, coord in da.coords.items():
        if set(coord.dims) <= set(extra):
            coords[cname] = coord
    return extra, coords


def _alpha_terms(observed_sum, expected_sum, pairable):
    """(alpha, D_o, D_e) from the numerators O = sum o_ck delta_ck and E = sum n_c n_k
    delta_ck and the number n of pairable values (arrays over groups, or replicates and
    groups): :func:`.finish_kernels.alpha_terms`."""
    observed_sum, expected_sum, pairable = np.broadcast_arrays(observed_sum, expected_sum,
                                                               pairable)
    shape = observed_sum.shape
    value, observed, expected = (np.empty(shape) for _ in range(3))
    _finish.alpha_terms(*(_flat(x) for x in (observed_sum, expected_sum, pairable)),
                        value.reshape(-1), observed.reshape(-1), expected.reshape(-1))
    return value, observed, expected


def _flat(x):
    """``x`` as a 1-D contiguous float64 array (a view where it is one)."""
    return np.ascontiguousarray(x, dtype=np.float64).reshape(-1)


# The text of each of :func:`.finish_kernels.reason_codes`' codes.
# fixed-width text, not object: a dask result then has a dtype to write without computing
# (an object dtype made to_netcdf compute the reasons first to choose one, and warn)
REASON_TEXT = np.array(["", "expected disagreement is 0: all pairable values are equal",
                        "no pairable values"], dtype=str)


def _undefined_reasons(pairable, expected_sum) -> np.ndarray:
    """Why alpha is NaN, per group (text of ``REASON_TEXT``'s dtype, "" where alpha is
    defined)."""
    pairable, expected_sum = np.broadcast_arrays(pairable, expected_sum)
    codes = np.empty(pairable.shape, np.int64)
    _finish.reason_codes(_flat(pairable), _flat(expected_sum), codes.reshape(-1))
    return REASON_TEXT[codes.reshape(-1)].reshape(codes.shape)  # (0-d: still an array)


def _nominal_sums(counts):
    """O and E of the nominal metric from integer counts
    (:func:`.finish_kernels.nominal_sums`)."""
    G = counts.items_by_m.shape[0]
    observed_sum, expected_sum = np.empty(G), np.empty(G)
    _finish.nominal_sums(*(np.ascontiguousarray(x, dtype=np.int64) for x in (
        counts.items_by_m, counts.agreeing_by_m, counts.value_counts, counts.pairable)),
        observed_sum, expected_sum)
    return observed_sum, expected_sum


def _spread_expected(weights, counts):
    """E of the interval metric on per-code ``weights`` (G, V), from the pooled values."""
    value_counts = counts.value_counts
    n = np.maximum(counts.pairable, 1).astype(np.float64)
    mean = (value_counts * weights).sum(axis=1) / n
    return 2 * counts.pairable * (value_counts * (weights - mean[:, None]) ** 2).sum(1)


_EMPTY_DELTA = np.zeros((1, 1))


_EMPTY_NUMBERS = np.zeros(1)


_EMPTY_PACKED = np.zeros((1, 1), np.uint64)


_EMPTY_SIZES = np.zeros(1, np.int64)


def _pair_expected_sum(counts, metric_id, delta=_EMPTY_DELTA, numbers=_EMPTY_NUMBERS,
                       packed=_EMPTY_PACKED, sizes=_EMPTY_SIZES):
    """E of a non-additive distance from the pairable value counts (G, V): per group, the
    rows of :func:`_kernels.expected_rows` in runs on the thread pool when there are many
    pairs of distinct values (each row is one sum, so threads do not change the result)."""
    value_counts = counts.value_counts
    expected_sum = np.zeros(value_counts.shape[0])
    for g in range(value_counts.shape[0]):
        used = np.flatnonzero(value_counts[g] > 0)
        half = (used.size + 1) // 2
        row_sums = np.zeros(half)
        parts = (os.cpu_count() or 1) if used.size**2 >= PAIRS_PER_THREAD else 1
        _in_threads(lambda r0, r1: _kernels.expected_rows(
            value_counts, g, used, r0, r1, metric_id, delta, numbers, packed, sizes,
            row_sums), half, parts)
        expected_sum[g] = row_sums.sum()
    if metric_id == _kernels.DELTA_MATRIX:
        # a callable may give delta(c, c) != 0: n_c (n_c - 1) pairs of equal values
        expected_sum = expected_sum + (value_counts * (value_counts - 1) * np.diag(delta)).sum(1)
    return expected_sum


# --- single-label ratings -------------------------------------------------------------


def _coded(ordered: xr.DataArray, categories) -> Ratings:
    """Integer codes (-1 missing) of ratings and the value of each code.

    Strings, objects and declared categories go through :func:`encode_ratings`; numbers
    through ``numpy.unique``, with the same result (sorted distinct values)."""
    values = np.asarray(ordered.values)
    if categories is not None or values.dtype.kind not in "biuf":
        codes, cats = encode_ratings(ordered, categories)
    else:
        if values.dtype.kind == "f":
            infinite = np.isinf(values)
            if infinite.any():
                raise ValueError(_describe_rating(ordered, infinite, "is not finite"))
            missing = np.isnan(values)
        else:
            missing = np.zeros(values.shape, bool)
        cats, inverse = np.unique(values[~missing], return_inverse=True)
        codes = np.full(values.shape, -1, np.int64)
        codes[~missing] = inverse.reshape(-1)
    codes = codes.astype(np.int32).reshape((-1,) + values.shape[-2:])
    return Ratings(codes, 0, cats)


def _describe_rating(da: xr.DataArray, mask: np.ndarray, problem: str) -> str:
    position = np.unravel_index(int(np.argmax(mask)), mask.shape)
    where = ", ".join(
        f"{d}={_plain(da[d].values[p]) if d in da.coords else p!r}"
        for d, p in zip(da.dims, position)
    )
    return (f"rating {_plain(da.values[position])!r} at {where} {problem} "
            f"({int(mask.sum())} such rating(s))")


def _coded_label_sets(values, name, bad_value, partial_vector, scope=""):
    """Label-set codes (G, N, n) int32 (-1 missing) of 0/1/NaN decisions ``values`` (G, N,
    n, k) and the distinct sets, bit-packed (V, words) uint64. A value other than 0, 1, NaN
    raises ``bad_value()``; a partly missing label vector raises an error naming the first
    one with ``partial_vector(position)`` (``scope`` says where they were counted)."""
    G, N, n, k = values.shape
    words = (k + 63) // 64
    packed = np.zeros((G, N, n, words), np.uint64)
    status = _kernels.pack_label_sets(values, packed)
    if (status == 3).any():
        raise ValueError(bad_value())
    if (status == 2).any():
        position = np.unravel_index(int(np.argmax(status == 2)), status.shape)
        raise ValueError(
            f"the label vector at {partial_vector(position)} is only partly missing "
            f"({int((status == 2).sum())} such vector(s){scope}); metric {name!r} compares "
            "whole label sets, so an annotation must be complete or entirely NaN. Use "
            "metric='hamming' for per-decision missing data."
        )
    present = status == 0
    rows = packed[present]
    if words == 1:
        # the codes from one argsort: np.unique(..., return_inverse=True) took 2x as long on
        # 1,500 sets, and np.searchsorted of the unsorted sets 70 of 80 us (cache misses)
        keys = rows[:, 0]
        order = np.argsort(keys)
        ordered = keys[order]
        first = np.empty(len(ordered), bool)
        first[:1] = True
        first[1:] = ordered[1:] != ordered[:-1]
        distinct = ordered[first][:, None]
        inverse = np.empty(len(ordered), np.intp)
        inverse[order] = np.cumsum(first) - 1
    else:
        distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    codes = np.full(status.shape, -1, np.int32)
    codes[present] = inverse.reshape(-1)
    return codes, np.ascontiguousarray(distinct, dtype=np.uint64)


def _set_expected_sums(counts, packed, sizes, table, n_labels):
    """E = sum over ordered pairs of pairable label sets of their distance, per group, for
    distinct sets of one machine word (``packed`` (V, 1) uint64, at most 64 labels), by the
    cheapest of three ways (see the constants above): pair by pair with a popcount
    (:func:`_word_pair_sums`), pair by pair within each label's list of sets
    (:func:`_kernels.label_list_expected`), or the histogram
    of (|s|, |t|, |s & t|) built from the sets' subsets (when its int64 binomial inversion
    cannot overflow)."""
    k1 = n_labels + 1
    out = np.zeros(counts.value_counts.shape[0])
    for g, value_counts in enumerate(counts.value_counts):
        used = value_counts > 0
        n_used = int(used.sum())
        if n_used < 2:
            continue
        # the sets in order of size, as the pair kernels take them
        used_sizes = sizes[used]
        order = np.argsort(used_sizes.astype(np.uint8), kind="stable")  # radix: < 65
        set_sizes = np.ascontiguousarray(used_sizes[order], np.int64)
        words = np.ascontiguousarray(packed[used, 0][order], np.uint64)
        largest = int(set_sizes[-1])
        pair_steps = n_used**2 / 2
        if pair_steps >= 2 * PAIRS_PER_THREAD:  # the pairs run on every core, the lists not
            pair_steps /= os.cpu_count() or 1
        list_starts = _kernels.label_list_starts(words, n_labels)
        lengths = np.diff(list_starts).astype(np.float64)
        list_steps = float(np.sum(lengths * lengths)) / 2 * LIST_PAIRS_PER_PAIR
        subsets = float(np.sum(np.ldexp(1.0, set_sizes)))  # sum 2^|s|
        # |terms| of the inversion: C(r, c) * M[a, b, r] <= n**2 C(L, L / 2)**2, L + 1 of them
        bound = (float(value_counts.sum()) ** 2 * math.comb(largest, largest // 2) ** 2
                 * (largest + 1))
        if (largest <= 24 and bound < 2.0**62
                and subsets * SUBSETS_PER_PAIR < min(pair_steps, list_steps)):
            histogram = _kernels.intersection_histogram(
                np.ascontiguousarray(packed[:, 0]), sizes, value_counts, n_labels)
            out[g] = float((histogram * table.reshape(k1, k1, k1)).sum())
            continue
        # sizes above the largest are never looked up: a table that stays in cache
        small = np.ascontiguousarray(table.reshape(k1, k1, k1)[:largest + 1, :largest + 1,
                                                               :largest + 1])
        set_counts = np.ascontiguousarray(value_counts[used][order], np.float64)
        if list_steps < pair_steps:
            pairs = _kernels.label_list_expected(words, set_sizes, set_counts, small,
                                                 list_starts)
        else:
            pairs = _word_pair_sums(words, set_sizes, set_counts, small)
        # and each set with itself, n_s^2 delta(s, s)
        out[g] = float(pairs) + float(np.sum(set_counts**2 * small[set_sizes, set_sizes,
                                                                   set_sizes]))
    return out


def _word_pair_sums(packed, sizes, counts, table) -> float:
    """:func:`_kernels.set_pair_expected` over all pairs of distinct sets ``packed`` (in
    order of ``sizes``), its rows split into ranges of about equal work (row s compares
    V - s pairs) on the thread pool; their number, and so the float sums, depend on V only."""
    arguments = (packed, sizes, counts, table,
                 np.searchsorted(sizes, np.arange(table.shape[1] + 1)).astype(np.int64))
    V = sizes.size
    parts = int(max(1, min(16, V * V // (2 * PAIRS_PER_THREAD))))
    if parts == 1:
        return float(_kernels.set_pair_expected(*arguments, 0, V))
    work = np.cumsum(np.arange(V, 0, -1, dtype=np.float64))
    bounds = np.searchsorted(work, work[-1] * np.arange(1, parts) / parts)
    bounds = np.concatenate([[0], 8 * (bounds // 8), [V]]).astype(np.int64)  # blocks of 8
    return float(sum(_pool_map(lambda t: _kernels.set_pair_expected(
        *arguments, bounds[t], bounds[t + 1]), range(parts))))


def _describe_vector(ordered, position, extra, item, annotator, shape) -> str:
    group, i, a = position
    extra_position = np.unravel_index(group, shape) if shape else ()
    parts = []
    for dim, p in [*zip(extra, extra_position), (item, i), (annotator, a)]:
        value = _plain(ordered[dim].values[p]) if dim in ordered.coords else p
        parts.append(f"{dim}={value!r}")
    return ", ".join(parts)
