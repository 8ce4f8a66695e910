"""Alpha's one implementation: per-block additive counts, their merge, the finish.

A block is a run of items with all annotators (and labels) and a run of extra-dim values.
Every block is counted by :func:`_single_block_counts` or :func:`_set_block_counts`: its own
distinct values (or label sets) with their pairable counts, the items by number of
ratings, the agreeing pairs and the observed distance sum, all additive once the distinct
values of two blocks are merged (:func:`_merge_counts`). :func:`_finish_totals` finishes
alpha from the totals of an extra-dim block, on small arrays. Ordinal distances (mid-ranks
of the total frequencies) and Gwet's standard error need the totals in every block: a
second pass over the blocks (:func:`_ranked_block_sums`, :func:`_se_block_sums`) takes them
as input; except for the nominal standard error of one numpy block with few distinct values,
whose squares follow exactly from moments the counting pass sums (:func:`_with_moments`,
``variance._nominal_squares``). On numpy the whole array is one block (counted on numba's
threads); on dask (:mod:`.dask`) every chunk is one, counted on its dask thread.
"""

from __future__ import annotations

import functools
import json
import math
import operator
import os

import numpy as np
import xarray as xr

from .._core.arrays import _plain, kernel_input, object_variable
from .._core.categorical import (declared_categories, encode_ratings, EXACT_INTEGERS,
                                 integral_ratings, Ratings)
from .._core.threads import _in_threads, item_runs
from .._core.validate import describe_position
from . import finish_kernels as _finish
from . import kernels as _kernels
from .counts import (_alpha_terms, _coded, _coded_label_sets, _describe_rating,
                     _describe_vector, _EMPTY_DELTA, _EMPTY_NUMBERS, _EMPTY_PACKED,
                     _EMPTY_SIZES, _nominal_sums, _pair_expected_sum,
                     _set_expected_sums, _spread_expected, _undefined_reasons,
                     COINCIDENCE_LIMIT, INTEGER_SPAN_LIMIT)
from .distances import _cached_set_table, _callable_delta, SET_METRIC_IDS
from .variance import _distance_rows, _nominal_squares, _standard_error_limits


class _Totals:
    """Summed block statistics: the counts the finishing functions read."""

    def __init__(self, stats: dict):
        self.value_counts = stats["value_counts"]
        self.items_by_m = stats["items_by_m"]
        self.agreeing_by_m = stats["agreeing_by_m"]
        G = self.items_by_m.shape[0]
        self.pairable, self.pairable_items, self.rated_items = (
            np.empty(G, np.int64) for _ in range(3))
        _finish.count_totals(*(np.ascontiguousarray(stats[key], dtype=np.int64) for key in
                               ("items_by_m", "value_counts", "seen")),
                             self.pairable, self.pairable_items, self.rated_items)


class _Plan:
    """What the counting of a block needs besides the block (small and picklable).

    ``with_coincidence``: True/False, or None to count the coincidence matrix whenever a
    block has at most ``COINCIDENCE_LIMIT`` distinct values (one block only: numpy).
    ``parallel``: count on the thread pool (numpy; dask tasks count serially)."""

    def __init__(self, name, metric, multi_label, *, categories=None, numbers=None,
                 float_error=None, with_coincidence=False, n_labels=0, label_values=None,
                 ci=None, population_size=None, parallel=False):
        self.name = name
        self.metric = metric
        self.multi_label = multi_label
        self.categories = categories  # declared values (object array) or None
        self.numbers = numbers  # declared values as numbers (interval, ratio)
        self.float_error = float_error  # (type, message) if object blocks must be numbers
        self.with_coincidence = with_coincidence
        self.n_labels = n_labels
        self.label_values = label_values
        self.ci = ci  # level of the analytic interval, or None
        self.population_size = population_size
        self.parallel = parallel


def _plan(da, metric, name, multi_label, label, categories, ci, population_size,
          parallel=False):
    """The plan and, for a callable on declared categories, its distances, after the
    checks that need only the dtype and the arguments (values are checked block by
    block)."""
    if multi_label:
        k = da.sizes[label]
        label_values = None  # the set metrics compare bits; other distances name labels
        if name not in SET_METRIC_IDS:
            label_values = [_plain(v) for v in (da[label].values if label in da.coords
                                                else np.arange(k))]
        coincidence = None if parallel and name not in SET_METRIC_IDS else False
        return _Plan(name, metric, True, n_labels=k, label_values=label_values,
                     with_coincidence=coincidence, parallel=parallel), None
    kind = da.dtype.kind
    numeric = name in ("interval", "ratio")
    if kind == "c":
        raise TypeError(f"ratings must be numbers, codes or strings, got dtype {da.dtype}")
    float_error = None
    if categories is None and name in ("ordinal", "interval", "ratio") and kind not in "biuf":
        if numeric:
            error = (TypeError, f"metric {name!r} needs numeric ratings; got dtype {da.dtype}")
        else:
            error = (ValueError, ("metric 'ordinal' on non-numeric ratings needs their "
                                  "rank order: pass categories=[lowest, ..., highest]"))
        if kind != "O":
            raise error[0](error[1])
        float_error = error  # numbers in an object array are fine: known block by block
    declared = numbers = delta = None
    if categories is not None:
        declared = declared_categories(categories)
        if numeric:
            try:
                numbers = np.asarray(declared, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"metric {name!r} needs numeric categories, got "
                                f"{list(declared)[:5]}") from None
        if name == "callable":
            delta = _callable_delta(metric, [_plain(v) for v in declared])
        with_coincidence = not numeric and len(declared) <= COINCIDENCE_LIMIT
    else:
        with_coincidence = None if parallel and not numeric else False
    plan = _Plan(name, metric, False, categories=declared, numbers=numbers,
                 float_error=float_error, with_coincidence=with_coincidence, ci=ci,
                 population_size=population_size, parallel=parallel)
    return plan, delta


def _block_array(block, coords) -> xr.DataArray:
    """A block as a DataArray with its slice of every coordinate (for error messages)."""
    return xr.DataArray(object_variable([d for d, _ in coords], block), coords=dict(coords))


def _empty_values(block, plan: _Plan):
    if plan.multi_label:
        return np.zeros((0, (plan.n_labels + 63) // 64), np.uint64)
    return np.zeros(0, block.dtype if block.dtype.kind in "iuf" else object)


def _interval_scores(numbers):
    """The interval metric's category values, shifted to start at 0: its distance
    (v_c - v_k)**2 does not change, and the sums centred on means stay exact-ish however far
    the values are from 0 (on the raw values, a common offset of 1e12 cost 1e-8 of alpha)."""
    numbers = np.asarray(numbers, np.float64)
    return numbers - numbers.min() if numbers.size else numbers


def _integer_range(values) -> bool:
    """Whether ``values`` are consecutive integers below :data:`EXACT_INTEGERS` in magnitude
    (ratings then are read as float codes)."""
    values = np.asarray(values)
    return (values.dtype.kind in "iuf" and len(values) > 0
            and max(abs(float(values[0])), abs(float(values[-1]))) < EXACT_INTEGERS
            and bool(np.all(values == values[0] + np.arange(len(values)))))


def _block_ratings(block, coords, plan: _Plan, values=None, sampled=True) -> Ratings:
    """A block of single-label ratings as the kernels take them, with the value of each
    code: the declared categories, the given ``values`` (the merged values of all blocks,
    in the later passes) or the block's own distinct ratings (first pass). Integral
    ratings in a short range are read directly (code = value - lowest), with no coding
    pass; the first pass checks that they are integral and, where their range was read
    from a sample of items (``sampled``), that it holds them all (``_count``)."""
    G = math.prod(block.shape[:-2])
    N, n = block.shape[-2:]
    if N == 0:
        kept = plan.categories if plan.categories is not None else values
        return Ratings(np.zeros((G, 0, n), np.int32), 0,
                        kept if kept is not None else _empty_values(block, plan))
    x = np.asarray(block)
    if plan.float_error is not None:
        try:  # numbers (and None) in an object array
            x = x.astype(np.float64)
        except (TypeError, ValueError):
            raise plan.float_error[0](plan.float_error[1]) from None
    if plan.categories is not None:
        return Ratings(_coded(_block_array(x, coords), plan.categories).values.reshape(G, N, n),
                        0, plan.categories)
    if values is None:
        if plan.name != "callable":
            numeric = plan.name in ("interval", "ratio")
            fast = integral_ratings(x, INTEGER_SPAN_LIMIT if numeric else COINCIDENCE_LIMIT,
                                sampled)
            if fast is not None:
                return fast
        return _coded(_block_array(x, coords), None)
    if x.dtype.kind in "biuf" and _integer_range(values):
        x = np.ascontiguousarray(x, dtype=np.float64).reshape(G, N, n)
        return Ratings(x, float(values[0]), values)
    if x.dtype.kind in "biuf":
        present = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
        codes = np.full(x.shape, -1, np.int64)
        codes[present] = np.searchsorted(values, x[present])
    else:
        codes, _ = encode_ratings(_block_array(x, coords), values)
    return Ratings(codes.astype(np.int32).reshape(G, N, n), 0, values)


def _count(ratings: Ratings, with_coincidence, plan: _Plan):
    """:func:`_kernels.rating_counts` of a block: runs of items on the thread pool for the
    numpy path (their number a function of the shape only, so that the coincidence sums do
    not depend on the number of threads), one run in the calling thread in a dask task.
    Returns (value_counts, seen, items_by_m, agreeing_by_m, coincidence, gwet_moments,
    unmatched); ``gwet_moments`` is the (moments, outer) pair of the nominal standard error
    where :func:`_with_moments`, else None; ``unmatched`` counts the present ratings that
    are no category's value (outside the range, or not integral)."""
    values = ratings.values
    V = len(ratings.categories)
    if with_coincidence is None:
        with_coincidence = V <= COINCIDENCE_LIMIT
    G, N, n = values.shape
    with_moments = plan.parallel and _with_moments(plan, V, N, n)
    n_tasks = 1
    if plan.parallel:
        accumulator_size = G * V * (1 + V * (with_coincidence + with_moments))
        if with_moments:
            accumulator_size += G * (n + 1) * (1 + 2 * V)
        n_tasks = item_runs(N, accumulator_size)
    missing = np.nan if values.dtype.kind == "f" else -1.0  # NaN ratings, or -1 codes
    runs = _in_threads(lambda i0, i1: _kernels.rating_counts(
        values, ratings.low, missing, V, i0, i1, with_coincidence, with_moments), N, n_tasks)
    # summed in the runs' order; a single run is taken as it is
    counts, unpaired, items, agreeing, upper, moments, outer, unmatched = (
        functools.reduce(operator.add, parts) for parts in zip(*runs))
    # the kernel fills the upper triangle (c <= k) of the symmetric coincidence matrix
    coincidence = _finish.symmetric_coincidence(upper) if upper.size else upper
    return (counts, counts + unpaired, items, agreeing, coincidence,
            (moments, outer) if with_moments else None, unmatched)


# Gwet's nominal standard error from moments of the counting pass needs O(V^2) work per item
# (and memory per item run); up to this many distinct values that beats a second pass.
MOMENTS_LIMIT = 16


# The moments are finished in fractions, per group: about (n + 1)(10 + 2 V) operations of
# some 4 us each, where the second pass reads each of the group's N n ratings in about 2 ns.
# The moments are used where they cost less, i.e. where N n >= this times (n + 1)(10 + 2 V).
RATINGS_PER_FRACTION_STEP = 2000


def _with_moments(plan: _Plan, n_values: int, n_items: int, n_annotators: int) -> bool:
    """Whether the counting pass also sums the moments of the nominal standard error: one
    numpy block (a dask block's moments would need re-indexing to the merged values), few
    distinct values, enough ratings per group for the exact finish to cost less than a
    second pass, and sums of a_i^2 <= N n^4 that fit in int64."""
    if not (plan.ci is not None and plan.name == "nominal" and plan.parallel
            and not plan.multi_label and n_values <= MOMENTS_LIMIT):
        return False
    fraction_steps = (n_annotators + 1) * (10 + 2 * n_values)
    return (n_items * n_annotators >= RATINGS_PER_FRACTION_STEP * fraction_steps
            and float(n_items) * float(n_annotators) ** 4 < 2.0**62)


def _single_block_counts(block, delta=None, *, coords, plan: _Plan) -> dict:
    """The additive statistics of one block of single-label ratings (``delta``: a
    callable's distances between the declared categories). ``"ratings"`` holds the coded
    block for a second pass over the same single block (numpy)."""
    ratings = _block_ratings(block, coords, plan)
    counted = _count(ratings, plan.with_coincidence, plan)
    if counted[-1] and ratings.sampled:  # outside the range read from a sample: all of it
        ratings = _block_ratings(block, coords, plan, sampled=False)
        counted = _count(ratings, plan.with_coincidence, plan)
    if counted[-1]:  # not integral after all: code them
        data = _block_array(block, coords)
        ratings = _coded(data if plan.float_error is None else data.astype(np.float64), None)
        counted = _count(ratings, plan.with_coincidence, plan)
    value_counts, seen, items, agreeing, coincidence, gwet_moments, _ = counted
    values = ratings.categories
    G, V = value_counts.shape
    stats = {"values": None if plan.categories is not None else values,
             "value_counts": value_counts, "seen": seen, "items_by_m": items,
             "agreeing_by_m": agreeing}
    if gwet_moments is not None:
        stats["gwet_moments"] = gwet_moments
    if coincidence.shape[-1] or plan.with_coincidence:
        stats["coincidence"] = coincidence
    name = plan.name
    n_tasks = item_runs(ratings.values.shape[1])
    if name in ("interval", "ratio"):
        numbers = plan.numbers if plan.numbers is not None else np.asarray(values, np.float64)
        numbers = np.ascontiguousarray(numbers, dtype=np.float64)
        if name == "ratio" and (numbers[seen.sum(axis=0) > 0] < 0).any():
            data = _block_array(block, coords)
            negative = np.asarray(data.values, dtype=np.float64) < 0
            raise ValueError(_describe_rating(data, negative, "is negative; the ratio "
                                              "metric needs values >= 0"))
        if name == "interval":
            weights = np.ascontiguousarray(np.broadcast_to(_interval_scores(numbers), (G, V)))
            stats["observed_sum"] = _kernels.squared_spread(ratings.values, ratings.low,
                                                            weights, n_tasks)
        else:
            stats["observed_sum"] = _kernels.pair_observed(
                ratings.values, ratings.low, _kernels.DELTA_RATIO, _EMPTY_DELTA, numbers,
                _EMPTY_PACKED, _EMPTY_SIZES, n_tasks)
    elif name == "callable":
        if delta is None:
            delta = _callable_delta(plan.metric, [_plain(v) for v in values])
        stats["observed_sum"] = _kernels.pair_observed(
            ratings.values, ratings.low, _kernels.DELTA_MATRIX, delta, _EMPTY_NUMBERS,
            _EMPTY_PACKED, _EMPTY_SIZES, n_tasks)
    if plan.parallel:
        stats["ratings"] = ratings
    return stats


def _set_bits(packed, n_labels):
    """The (V, n_labels) 0/1 label vectors of bit-packed label sets (V, W) uint64."""
    return np.unpackbits(np.ascontiguousarray(packed).astype("<u8").view(np.uint8), axis=1,
                         bitorder="little")[:, :n_labels]


def _set_sizes(packed):
    """The number of labels of each bit-packed label set (V, W) uint64."""
    return _kernels.set_sizes(np.ascontiguousarray(packed, dtype=np.uint64))


def _label_sets(bits, label_values):
    label_sets = np.empty(len(bits), dtype=object)
    label_sets[:] = [frozenset(label_values[j] for j in np.flatnonzero(row)) for row in bits]
    return label_sets


def _label_set_names(bits, label_values) -> np.ndarray:
    """Each label set as the JSON list of its labels in label order (``'["a", "b"]'``,
    ``'[]'``): the category coordinate of alpha on label sets. Text tells any two sets
    apart whatever the labels hold, and every store writes it (no store takes a frozenset);
    a label JSON has no type for (a timestamp) is written as its text."""
    return np.asarray([json.dumps([label_values[j] for j in np.flatnonzero(row)], default=str)
                       for row in bits], dtype=str)


def _set_block_counts(block, delta=None, *, coords, plan: _Plan) -> dict:
    """The additive statistics of one block of multi-label decisions: the block's distinct
    label sets (bit-packed) with their pairable counts, and the observed distance sum."""
    values = kernel_input(block)
    extra_shape = values.shape[:-3]
    G = math.prod(extra_shape)
    N, n, k = values.shape[-3:]
    words = (k + 63) // 64

    def partial_vector(position):
        ordered = _block_array(block, coords)
        extra = list(ordered.dims[:-3])
        item, annotator = ordered.dims[-3:-1]
        return _describe_vector(ordered, position, extra, item, annotator, extra_shape)

    codes, distinct = _coded_label_sets(
        values.reshape(G, N, n, k), plan.name,
        lambda: describe_position(values, coords), partial_vector,
        scope="" if plan.parallel else " in this block")
    ratings = Ratings(codes, 0, distinct)
    value_counts, seen, items, agreeing, coincidence, _, _ = _count(
        ratings, plan.with_coincidence, plan)
    stats = {"values": distinct, "value_counts": value_counts, "seen": seen,
             "items_by_m": items, "agreeing_by_m": agreeing}
    if coincidence.shape[-1]:
        stats["coincidence"] = coincidence
    sizes = _set_sizes(distinct)
    n_tasks = item_runs(N)
    if plan.name in SET_METRIC_IDS:
        if words == 1:
            metric_id, delta = _kernels.DELTA_SET_TABLE, _cached_set_table(plan.name, k)
        else:
            metric_id, delta = SET_METRIC_IDS[plan.name], _EMPTY_DELTA
        stats["observed_sum"] = _kernels.pair_observed(codes, 0.0, metric_id, delta,
                                                       _EMPTY_NUMBERS, distinct, sizes, n_tasks)
    elif plan.name == "callable":
        delta = _callable_delta(plan.metric,
                                list(_label_sets(_set_bits(distinct, k), plan.label_values)))
        stats["observed_sum"] = _kernels.pair_observed(
            codes, 0.0, _kernels.DELTA_MATRIX, delta, _EMPTY_NUMBERS, _EMPTY_PACKED,
            _EMPTY_SIZES, n_tasks)
    return stats


def _union(arrays):
    """Sorted union of distinct values (1-D) or packed label sets (2-D uint64), and where
    each input's entries sit in it."""
    lengths = [len(a) for a in arrays]
    splits = np.cumsum(lengths)[:-1]
    if arrays[0].dtype == object:
        try:
            union = sorted(set().union(*(a.tolist() for a in arrays)))
        except TypeError as error:
            raise TypeError(f"ratings of mixed types cannot be ordered: {error}") from None
        position = {value: p for p, value in enumerate(union)}
        return (np.asarray(union, dtype=object),
                [np.array([position[v] for v in a.tolist()], np.int64) for a in arrays])
    joined = np.concatenate(arrays)
    if joined.ndim == 2 and joined.shape[1] == 1:
        union, inverse = np.unique(joined[:, 0], return_inverse=True)
        union = union[:, None]
    else:
        union, inverse = np.unique(joined, axis=0 if joined.ndim == 2 else None,
                                   return_inverse=True)
    return union, np.split(inverse.reshape(-1), splits)


PER_VALUE = ("value_counts", "seen")  # block statistics over the block's distinct values


def _merge_counts(parts) -> dict:
    """Block statistics of several blocks merged: per-value counts re-indexed to the union
    of the distinct values, everything else added."""
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    # gwet_moments are per value and value pair of one block: a merge drops them (the
    # standard error then takes its second pass)
    merged = {key: sum(p[key] for p in parts) for key in first
              if key not in ("values", "ratings", "gwet_moments", *PER_VALUE)}
    if first["values"] is None:  # declared categories: the same codes in every block
        merged["values"] = None
        merged.update({key: sum(p[key] for p in parts) for key in PER_VALUE})
        return merged
    used = [p for p in parts if len(p["values"])] or parts[:1]
    union, positions = _union([p["values"] for p in used])
    for key in PER_VALUE:
        merged[key] = np.zeros((first["items_by_m"].shape[0], len(union)), np.int64)
        for p, where in zip(used, positions):
            merged[key][:, where] += p[key]
    merged["values"] = union
    return merged


def _add_arrays(parts):
    return sum(parts[1:], parts[0])


def _ranked_block_sums(block, totals, *, coords, plan: _Plan, ratings=None):
    """Ordinal: the block's observed distance sums on the mid-ranks of the total
    frequencies (``ratings``: the block already coded with the totals' values)."""
    if ratings is None:
        ratings = _block_ratings(block, coords, plan, totals["values"])
    return _kernels.squared_spread(ratings.values, ratings.low,
                                   _ordinal_ranks(totals["value_counts"]),
                                   item_runs(ratings.values.shape[1]))


def _ordinal_ranks(value_counts):
    return np.ascontiguousarray(np.cumsum(value_counts, axis=1) - value_counts / 2.0)


def _distance_sums(totals, counts, values, ranked_observed, delta, plan: _Plan):
    """The numerators O = sum o_ck delta_ck and E = sum n_c n_k delta_ck from the totals,
    the category values as numbers (interval, ratio) and a callable's distances."""
    name = plan.name
    numbers = None
    if plan.multi_label:
        if name in SET_METRIC_IDS:
            sizes = _set_sizes(values)
            if (plan.n_labels + 63) // 64 == 1:
                expected_sum = _set_expected_sums(
                    counts, values, sizes, _cached_set_table(name, plan.n_labels),
                    plan.n_labels)
            else:
                expected_sum = _pair_expected_sum(counts, SET_METRIC_IDS[name], packed=values,
                                                  sizes=sizes)
            return totals["observed_sum"], expected_sum, numbers, delta
        if name == "nominal":
            return (*_nominal_sums(counts), numbers, delta)
        bits = _set_bits(values, plan.n_labels)
        delta = _callable_delta(plan.metric, list(_label_sets(bits, plan.label_values)))
        expected_sum = _pair_expected_sum(counts, _kernels.DELTA_MATRIX, delta=delta)
        return totals["observed_sum"], expected_sum, numbers, delta
    if name == "nominal":
        return (*_nominal_sums(counts), numbers, delta)
    if name == "ordinal":
        expected_sum = _spread_expected(_ordinal_ranks(counts.value_counts), counts)
        return ranked_observed, expected_sum, numbers, delta
    if name in ("interval", "ratio"):
        numbers = plan.numbers if plan.numbers is not None else np.asarray(values, np.float64)
        numbers = np.ascontiguousarray(numbers, dtype=np.float64)
        if name == "interval":
            weights = np.ascontiguousarray(np.broadcast_to(_interval_scores(numbers),
                                                           counts.value_counts.shape))
            expected_sum = _spread_expected(weights, counts)
        else:
            expected_sum = _pair_expected_sum(counts, _kernels.DELTA_RATIO, numbers=numbers)
        return totals["observed_sum"], expected_sum, numbers, delta
    if delta is None:
        delta = _callable_delta(plan.metric, [_plain(v) for v in values])
    expected_sum = _pair_expected_sum(counts, _kernels.DELTA_MATRIX, delta=delta)
    return totals["observed_sum"], expected_sum, numbers, delta


def _finish_totals(totals, ranked_observed, delta, *, plan: _Plan, shape) -> dict:
    """alpha and its parts (arrays of ``shape``) of one extra-dim block from the merged
    block statistics; for the standard error also what the second pass needs."""
    counts = _Totals(totals)
    values = totals["values"] if plan.categories is None else plan.categories
    observed_sum, expected_sum, numbers, delta = _distance_sums(
        totals, counts, values, ranked_observed, delta, plan)
    value, observed, expected = _alpha_terms(observed_sum, expected_sum, counts.pairable)
    out = {"alpha": value, "observed_disagreement": observed,
           "expected_disagreement": expected, "n_pairable_values": counts.pairable,
           "n_pairable_items": counts.pairable_items,
           "undefined_reason": _undefined_reasons(counts.pairable, expected_sum)}
    out = {var: np.asarray(v).reshape(shape) for var, v in out.items()}
    if "coincidence" in totals:
        V = len(values)
        out["coincidence"] = totals["coincidence"].reshape(shape + (V, V))
        out["category_n_pairable_values"] = counts.value_counts.reshape(shape + (V,))
    if plan.ci is not None:
        scores = _interval_scores(numbers) if plan.name == "interval" else None
        # the distances need the category values only, not the ratings
        metric_id, delta, numbers, scores, rows = _distance_rows(
            Ratings(None, 0, values), counts, plan.name, plan.metric, numbers, scores, delta)
        rows = np.ascontiguousarray(rows, dtype=np.float64)
        constants = np.empty((len(rows), 6))  # a NaN row where the variance is undefined
        _finish.gwet_constants(counts.pairable_items, counts.pairable,
                               np.ascontiguousarray(observed_sum, dtype=np.float64),
                               np.ascontiguousarray(counts.value_counts, dtype=np.int64),
                               rows, constants)
        out["se_inputs"] = {
            "values": values, "metric_id": metric_id, "delta": delta, "numbers": numbers,
            "scores": scores, "rows": rows, "constants": constants,
            "rated_items": counts.rated_items, "pairable_items": counts.pairable_items,
        }
        if "gwet_moments" in totals:  # the counting pass summed what the squares need
            moments, outer = totals["gwet_moments"]
            out["se_inputs"]["squares"] = np.array([
                _nominal_squares(counts.items_by_m[g], counts.agreeing_by_m[g],
                                 counts.value_counts[g], moments[g], outer[g])
                for g in range(len(rows))])
    return out


def _se_block_sums(block, finished, *, coords, plan: _Plan, ratings=None):
    """The block's sums of Gwet's squared linearized deviations, per group (``ratings``:
    the block already coded with the totals' values)."""
    inputs = finished["se_inputs"]
    if ratings is None:
        ratings = _block_ratings(block, coords, plan, inputs["values"])
    constants = inputs["constants"]
    values = ratings.values
    arguments = (values, ratings.low, inputs["metric_id"], inputs["delta"], inputs["numbers"],
                 inputs["scores"], inputs["rows"], constants)
    N = values.shape[1]
    parts = (os.cpu_count() or 1) if plan.parallel and values.size >= (1 << 20) else 1
    # item ranges on plain threads (the kernel is nogil); the sums of squares add up
    return np.sum(_in_threads(lambda i0, i1: _kernels.gwet_squares(*arguments, i0, i1), N,
                              parts), axis=0)


def _finish_se(finished, squares, *, plan: _Plan, shape) -> dict:
    """``alpha_se``, ``alpha_lower``, ``alpha_upper`` from the summed squares."""
    inputs = finished["se_inputs"]
    n = inputs["pairable_items"]
    variance = np.empty(len(n))
    population = math.nan if plan.population_size is None else float(plan.population_size)
    _finish.gwet_variance(np.ascontiguousarray(squares, dtype=np.float64), n,
                          inputs["rated_items"], population, inputs["constants"], variance)
    se, lower, upper = _standard_error_limits(finished["alpha"], variance.reshape(shape),
                                              (n - 1).reshape(shape), plan.ci)
    return {"alpha_se": se, "alpha_lower": lower, "alpha_upper": upper}
