"""Alpha on dask: per-block additive statistics, tree reductions, one finishing task."""

from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np
import xarray as xr

from .._core.arrays import _plain
from .._core.categorical import declared_categories, encode_ratings
from .._core.validate import describe_position
from . import kernels as _kernels
from .counts import (_coded, _coded_label_sets, _describe_rating, _describe_vector, _EMPTY_DELTA,
                     _EMPTY_NUMBERS, _EMPTY_PACKED, _EMPTY_SIZES, _extra_frame, _finish,
                     _nominal_sums, _pair_expected_sum, _Ratings, _set_expected_sums,
                     _spread_expected, COINCIDENCE_LIMIT)
from .distances import _cached_set_table, _callable_delta, SET_METRIC_IDS
from .variance import (_distance_rows, _gwet_constants, _gwet_squares, _gwet_variance,
                       _standard_error_limits)


# --- dask: per-block additive statistics ----------------------------------------------
# Every block (a run of items, all annotators and labels, a run of extra-dim values) is
# counted by one task: its own distinct values (or label sets) with their pairable counts,
# the items by number of ratings, the agreeing pairs and the observed distance sum, all
# additive once the distinct values of two blocks are merged. A tree of merges gives the
# totals of each extra-dim block, from which alpha is finished on small arrays. Ordinal
# distances (mid-ranks of the total frequencies) and Gwet's standard error need the totals
# in every block: a second (and for ordinal with se a third) pass over the blocks takes
# them as input, and its per-block sums are added the same way.

SPLIT_EVERY = 8  # blocks merged per task of the tree reductions


# Task names of the outputs where "alpha-<variable>" would not do: dask's key_split reads
# an 8-letter word starting with a-f ("expected", "category") as part of the token.
OUTPUT_TASKS = {"alpha": "alpha-coefficient",
                "expected_disagreement": "alpha-chance-disagreement",
                "category_pairable_values": "alpha-coincidence-margins"}


class _Totals:
    """Summed block statistics, with the attributes of :class:`_Counts` that the finishing
    functions read."""

    def __init__(self, stats: dict):
        self.value_counts = stats["value_counts"]
        self.items_by_m = stats["items_by_m"]
        self.agreeing_by_m = stats["agreeing_by_m"]
        m = np.arange(self.items_by_m.shape[1])
        self.pairable = (self.items_by_m * m).sum(axis=1)
        self.pairable_items = self.items_by_m[:, 2:].sum(axis=1)


class _DaskPlan:
    """What the tasks of a dask alpha need besides their block (small and picklable)."""

    def __init__(self, name, metric, multi_label, *, categories=None, numbers=None,
                 float_error=None, with_coincidence=False, n_labels=0, label_values=None,
                 confidence=None, population_size=None):
        self.name = name
        self.metric = metric
        self.multi_label = multi_label
        self.categories = categories  # declared values (object array) or None
        self.numbers = numbers  # declared values as numbers (interval, ratio)
        self.float_error = float_error  # (type, message) if object blocks must be numbers
        self.with_coincidence = with_coincidence
        self.n_labels = n_labels
        self.label_values = label_values
        self.confidence = confidence
        self.population_size = population_size


def _dask_plan(da, metric, name, multi_label, label, categories, confidence,
               population_size):
    """The plan and, for a callable on declared categories, its distances (one graph key,
    not a copy in every task), after the checks the numpy path makes from the dtype and
    the arguments (the values themselves are checked block by block, at compute time)."""
    if multi_label:
        k = da.sizes[label]
        label_values = None
        if name == "callable":
            label_values = [_plain(v) for v in (da[label].values if label in da.coords
                                                 else np.arange(k))]
        return _DaskPlan(name, metric, True, n_labels=k, label_values=label_values), None
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
    with_coincidence = (declared is not None and not numeric
                        and len(declared) <= COINCIDENCE_LIMIT)
    plan = _DaskPlan(name, metric, False, categories=declared, numbers=numbers,
                     float_error=float_error, with_coincidence=with_coincidence,
                     confidence=confidence, population_size=population_size)
    return plan, delta


def _block_array(block, coords) -> xr.DataArray:
    """A block as a DataArray with its slice of every coordinate (for error messages)."""
    return xr.DataArray(block, dims=[d for d, _ in coords], coords=dict(coords))


def _empty_values(block, plan: _DaskPlan):
    if plan.multi_label:
        return np.zeros((0, (plan.n_labels + 63) // 64), np.uint64)
    return np.zeros(0, block.dtype if block.dtype.kind in "iuf" else object)


def _block_codes(block, coords, plan: _DaskPlan, values=None):
    """Codes (G, N, n) int32 of a block of single-label ratings (-1 missing) and the value
    of each code: the declared categories, the given ``values`` (the merged values of all
    blocks, in the later passes) or the block's own distinct ratings (first pass)."""
    G = int(np.prod(block.shape[:-2]))
    N, n = block.shape[-2:]
    if N == 0:
        kept = plan.categories if plan.categories is not None else values
        return np.zeros((G, 0, n), np.int32), (kept if kept is not None
                                               else _empty_values(block, plan))
    ratings = _block_array(block, coords)
    if plan.float_error is not None:
        try:  # numbers (and None) in an object array, as the numpy path reads them
            ratings = ratings.astype(np.float64)
        except (TypeError, ValueError):
            raise plan.float_error[0](plan.float_error[1]) from None
    if plan.categories is not None:
        return _coded(ratings, plan.categories).values.reshape(G, N, n), plan.categories
    if values is None:
        coded = _coded(ratings, None)
        return coded.values.reshape(G, N, n), coded.categories
    x = np.asarray(ratings.values)
    if x.dtype.kind in "biuf":
        present = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
        codes = np.full(x.shape, -1, np.int64)
        codes[present] = np.searchsorted(values, x[present])
    else:
        codes, _ = encode_ratings(ratings, values)
    return codes.astype(np.int32).reshape(G, N, n), values


def _single_block_counts(block, delta=None, *, coords, plan: _DaskPlan) -> dict:
    """The additive statistics of one block of single-label ratings (``delta``: a
    callable's distances between the declared categories)."""
    codes, values = _block_codes(block, coords, plan)
    G = codes.shape[0]
    V = len(values)
    value_counts, seen, items, agreeing, coincidence, _ = _kernels.rating_counts_serial(
        codes, 0.0, V, plan.with_coincidence)
    stats = {"values": None if plan.categories is not None else values,
             "value_counts": value_counts, "items_by_m": items, "agreeing_by_m": agreeing}
    if plan.with_coincidence:
        stats["coincidence"] = coincidence
    name = plan.name
    if name in ("interval", "ratio"):
        numbers = plan.numbers if plan.numbers is not None else np.asarray(values, np.float64)
        numbers = np.ascontiguousarray(numbers, dtype=np.float64)
        if name == "ratio" and (numbers[seen.sum(axis=0) > 0] < 0).any():
            ratings = _block_array(block, coords)
            negative = np.asarray(ratings.values, dtype=np.float64) < 0
            raise ValueError(_describe_rating(ratings, negative, "is negative; the ratio "
                                              "metric needs values >= 0"))
        if name == "interval":
            weights = np.ascontiguousarray(np.broadcast_to(numbers, (G, V)))
            stats["observed_sum"] = _kernels.squared_spread(codes, 0.0, weights, 1)
        else:
            stats["observed_sum"] = _kernels.pair_observed(
                codes, 0.0, _kernels.DELTA_RATIO, _EMPTY_DELTA, numbers, _EMPTY_PACKED,
                _EMPTY_SIZES, 1)
    elif name == "callable":
        if delta is None:
            delta = _callable_delta(plan.metric, [_plain(v) for v in values])
        stats["observed_sum"] = _kernels.pair_observed(
            codes, 0.0, _kernels.DELTA_MATRIX, delta, _EMPTY_NUMBERS, _EMPTY_PACKED,
            _EMPTY_SIZES, 1)
    return stats


def _set_sizes(packed, n_labels):
    bits = np.unpackbits(np.ascontiguousarray(packed).astype("<u8").view(np.uint8), axis=1,
                         bitorder="little")[:, :n_labels]
    return bits, bits.sum(axis=1).astype(np.int64)


def _label_sets(bits, label_values):
    label_sets = np.empty(len(bits), dtype=object)
    label_sets[:] = [frozenset(label_values[j] for j in np.flatnonzero(row)) for row in bits]
    return label_sets


def _set_block_counts(block, delta=None, *, coords, plan: _DaskPlan) -> dict:
    """The additive statistics of one block of multi-label decisions: the block's distinct
    label sets (bit-packed) with their pairable counts, and the observed distance sum."""
    values = np.asarray(block)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    extra_shape = values.shape[:-3]
    G = int(np.prod(extra_shape))
    N, n, k = values.shape[-3:]
    words = (k + 63) // 64

    def partial_vector(position):
        ordered = _block_array(block, coords)
        extra = list(ordered.dims[:-3])
        item, annotator = ordered.dims[-3:-1]
        return _describe_vector(ordered, position, extra, item, annotator, extra_shape)

    codes, distinct = _coded_label_sets(
        values.reshape(G, N, n, k), plan.name,
        lambda: describe_position(np.asarray(block), coords), partial_vector,
        scope=" in this block")
    value_counts, _, items, agreeing, _, _ = _kernels.rating_counts_serial(
        codes, 0.0, len(distinct), False)
    stats = {"values": distinct, "value_counts": value_counts, "items_by_m": items,
             "agreeing_by_m": agreeing}
    bits, sizes = _set_sizes(distinct, k)
    if plan.name in SET_METRIC_IDS:
        if words == 1:
            metric_id, delta = _kernels.DELTA_SET_TABLE, _cached_set_table(plan.name, k)
        else:
            metric_id, delta = SET_METRIC_IDS[plan.name], _EMPTY_DELTA
        stats["observed_sum"] = _kernels.pair_observed(codes, 0.0, metric_id, delta,
                                                       _EMPTY_NUMBERS, distinct, sizes, 1)
    elif plan.name == "callable":
        delta = _callable_delta(plan.metric, list(_label_sets(bits, plan.label_values)))
        stats["observed_sum"] = _kernels.pair_observed(
            codes, 0.0, _kernels.DELTA_MATRIX, delta, _EMPTY_NUMBERS, _EMPTY_PACKED,
            _EMPTY_SIZES, 1)
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


def _merge_counts(parts) -> dict:
    """Block statistics of several blocks merged: value counts re-indexed to the union of
    the distinct values, everything else added."""
    first = parts[0]
    merged = {key: sum(p[key] for p in parts) for key in first
              if key not in ("values", "value_counts")}
    if first["values"] is None:  # declared categories: the same codes in every block
        merged["values"] = None
        merged["value_counts"] = sum(p["value_counts"] for p in parts)
        return merged
    used = [p for p in parts if len(p["values"])] or parts[:1]
    union, positions = _union([p["values"] for p in used])
    value_counts = np.zeros((first["items_by_m"].shape[0], len(union)), np.int64)
    for p, where in zip(used, positions):
        value_counts[:, where] += p["value_counts"]
    merged["values"] = union
    merged["value_counts"] = value_counts
    return merged


def _add_arrays(parts):
    return sum(parts[1:], parts[0])


def _ranked_block_sums(block, totals, *, coords, plan: _DaskPlan):
    """Ordinal: the block's observed distance sums on the mid-ranks of the total
    frequencies."""
    codes, _ = _block_codes(block, coords, plan, totals["values"])
    return _kernels.squared_spread(codes, 0.0, _ordinal_ranks(totals["value_counts"]), 1)


def _ordinal_ranks(value_counts):
    return np.ascontiguousarray(np.cumsum(value_counts, axis=1) - value_counts / 2.0)


def _finish_totals(totals, ranked_observed, delta, *, plan: _DaskPlan, shape, extra) -> dict:
    """alpha and its parts of one extra-dim block from the merged block statistics; for
    the standard error also what the second pass over the blocks needs."""
    counts = _Totals(totals)
    name = plan.name
    values = totals["values"] if plan.categories is None else plan.categories
    numbers = None
    if plan.multi_label:
        words = (plan.n_labels + 63) // 64
        if name in SET_METRIC_IDS:
            observed_sum = totals["observed_sum"]
            sizes = _set_sizes(values, plan.n_labels)[1]
            if words == 1:
                expected_sum = _set_expected_sums(
                    counts, values, sizes, _cached_set_table(name, plan.n_labels),
                    plan.n_labels)
            else:
                expected_sum = _pair_expected_sum(counts, SET_METRIC_IDS[name], packed=values,
                                                  sizes=sizes)
        elif name == "nominal":
            observed_sum, expected_sum = _nominal_sums(counts)
        else:
            bits = _set_sizes(values, plan.n_labels)[0]
            delta = _callable_delta(plan.metric, list(_label_sets(bits, plan.label_values)))
            observed_sum = totals["observed_sum"]
            expected_sum = _pair_expected_sum(counts, _kernels.DELTA_MATRIX, delta=delta)
    elif name == "nominal":
        observed_sum, expected_sum = _nominal_sums(counts)
    elif name == "ordinal":
        observed_sum = ranked_observed
        expected_sum = _spread_expected(_ordinal_ranks(counts.value_counts), counts)
    elif name in ("interval", "ratio"):
        numbers = plan.numbers if plan.numbers is not None else np.asarray(values, np.float64)
        numbers = np.ascontiguousarray(numbers, dtype=np.float64)
        observed_sum = totals["observed_sum"]
        if name == "interval":
            weights = np.ascontiguousarray(np.broadcast_to(numbers, counts.value_counts.shape))
            expected_sum = _spread_expected(weights, counts)
        else:
            expected_sum = _pair_expected_sum(counts, _kernels.DELTA_RATIO, numbers=numbers)
    else:
        if delta is None:
            delta = _callable_delta(plan.metric, [_plain(v) for v in values])
        observed_sum = totals["observed_sum"]
        expected_sum = _pair_expected_sum(counts, _kernels.DELTA_MATRIX, delta=delta)
    result = _finish(observed_sum, expected_sum, counts.pairable, counts.pairable_items,
                     extra, shape, {})
    out = {var: result[var].values for var in result.data_vars}
    if plan.with_coincidence:
        V = len(values)
        out["coincidence"] = totals["coincidence"].reshape(shape + (V, V))
        out["category_pairable_values"] = counts.value_counts.reshape(shape + (V,))
    if plan.confidence is not None:
        scores = numbers if name == "interval" else None
        # the distances need the category values only, not the ratings
        metric_id, delta, numbers, scores, rows = _distance_rows(
            _Ratings(None, 0, values), counts, name, plan.metric, numbers, scores, delta)
        rows = np.ascontiguousarray(rows)
        constants = [
            _gwet_constants(int(counts.pairable_items[g]), float(counts.pairable[g]),
                            float(observed_sum[g]),
                            float((counts.value_counts[g] * rows[g]).sum()))
            for g in range(len(rows))
        ]
        out["se_inputs"] = {
            "values": values, "metric_id": metric_id, "delta": delta, "numbers": numbers,
            "scores": scores, "rows": rows, "constants": constants,
            "rated_items": counts.items_by_m[:, 1:].sum(axis=1),
            "pairable_items": counts.pairable_items,
        }
    return out


def _se_block_sums(block, finished, *, coords, plan: _DaskPlan):
    """The block's sums of Gwet's squared linearized deviations, per group."""
    inputs = finished["se_inputs"]
    codes, _ = _block_codes(block, coords, plan, inputs["values"])
    terms = _kernels.item_pair_terms(codes, 0.0, inputs["metric_id"], inputs["delta"],
                                     inputs["numbers"], inputs["scores"], inputs["rows"])
    return np.array([0.0 if constants is None else _gwet_squares(terms[g], constants)
                     for g, constants in enumerate(inputs["constants"])])


def _finish_se(finished, squares, *, plan: _DaskPlan, shape) -> dict:
    inputs = finished["se_inputs"]
    n = inputs["pairable_items"]
    variance = np.array([
        math.nan if constants is None
        else _gwet_variance(squares[g], int(n[g]), inputs["rated_items"][g],
                            plan.population_size)
        for g, constants in enumerate(inputs["constants"])
    ])
    se, lower, upper = _standard_error_limits(finished["alpha"], variance.reshape(shape),
                                              (n - 1).reshape(shape), plan.confidence)
    return {"se": se, "ci_lower": lower, "ci_upper": upper}


def _dask_alpha(da, metric, name, multi_label, *, item, annotator, label, categories,
                confidence, population_size) -> xr.Dataset:
    """:func:`alpha` of a dask-backed array as a lazy Dataset (see the section comment).

    Task names: ``alpha-counts`` (one per block: the first pass), ``alpha-counts-partial``
    and ``alpha-counts-sum`` (the tree of merges), ``alpha-finish`` (per extra-dim block);
    for ordinal ``alpha-ranked`` (+ ``-partial``, ``-sum``), for the standard error
    ``alpha-se-terms`` (+ ``-partial``, ``-sum``) and ``alpha-standard-error``; the outputs
    are ``alpha-<variable>`` (or as in ``OUTPUT_TASKS``).
    """
    from dask.array import Array
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    roles = (item, annotator, label) if multi_label else (item, annotator)
    plan, declared_delta = _dask_plan(da, metric, name, multi_label, label, categories,
                                      confidence, population_size)
    extra, coords = _extra_frame(da, roles)
    ordered = da.transpose(*extra, *roles)
    n_extra = len(extra)
    data = ordered.data.rechunk({axis: -1 for axis in range(n_extra + 1, ordered.ndim)})
    dim_values = [(d, ordered[d].values) for d in ordered.dims]
    token = tokenize(data.name, name, metric, categories, confidence, population_size,
                     [(d, v) for d, v in dim_values])
    offsets = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in data.chunks]
    extra_blocks = list(np.ndindex(*data.numblocks[:n_extra]))
    n_item_blocks = data.numblocks[n_extra]
    core_tail = (0,) * (ordered.ndim - n_extra - 1)

    def block_coords(index):
        return [(dim, values[offsets[axis][i]:offsets[axis][i + 1]])
                for axis, ((dim, values), i) in enumerate(zip(dim_values, index + core_tail))]

    def extra_shape(e):
        return tuple(data.chunks[axis][i] for axis, i in enumerate(e))

    layers, dependencies = {}, {}

    def add_layer(prefix, tasks, depends_on):
        name_ = f"{prefix}-{token}"
        layers[name_] = tasks
        dependencies[name_] = set(depends_on)
        return name_

    distances = None
    if declared_delta is not None:
        distances = add_layer("alpha-distances", {(f"alpha-distances-{token}",):
                                                  declared_delta}, [])

    def block_pass(prefix, function, per_extra=None):
        """One task per block; ``per_extra``: the layer whose (name, *e) key it also takes
        (else the declared distances, if any)."""
        layer = f"{prefix}-{token}"
        tasks = {}
        shared = per_extra if per_extra is not None else distances
        for e in extra_blocks:
            for i in range(n_item_blocks):
                index = (*e, i)
                arguments = [(data.name, *index, *core_tail)]
                if shared is not None:
                    arguments.append((shared, *(e if per_extra is not None else ())))
                tasks[(layer, *index)] = (
                    partial(function, coords=block_coords(index), plan=plan), *arguments)
        return add_layer(prefix, tasks, [data.name] + ([shared] if shared else []))

    def tree(prefix, leaves, combine):
        """Per extra-dim block, the leaves combined ``SPLIT_EVERY`` at a time."""
        partial_layer, total_layer = f"{prefix}-partial-{token}", f"{prefix}-sum-{token}"
        partial_tasks, total_tasks = {}, {}
        for e in extra_blocks:
            keys = [(leaves, *e, i) for i in range(n_item_blocks)]
            level = 0
            while len(keys) > SPLIT_EVERY:
                merged = []
                for start in range(0, len(keys), SPLIT_EVERY):
                    key = (partial_layer, level, *e, start // SPLIT_EVERY)
                    partial_tasks[key] = (combine, keys[start:start + SPLIT_EVERY])
                    merged.append(key)
                keys, level = merged, level + 1
            total_tasks[(total_layer, *e)] = (combine, keys)
        add_layer(f"{prefix}-partial", partial_tasks, [leaves])
        return add_layer(f"{prefix}-sum", total_tasks, [leaves, partial_layer])

    counts = block_pass("alpha-counts",
                        _set_block_counts if multi_label else _single_block_counts)
    totals = tree("alpha-counts", counts, _merge_counts)
    ranked_sum = None
    if name == "ordinal" and not multi_label:
        ranked = block_pass("alpha-ranked", _ranked_block_sums, per_extra=totals)
        ranked_sum = tree("alpha-ranked", ranked, _add_arrays)
    finish_tasks = {
        ("alpha-finish-" + token, *e): (
            partial(_finish_totals, plan=plan, shape=extra_shape(e), extra=extra),
            (totals, *e), None if ranked_sum is None else (ranked_sum, *e),
            None if distances is None else (distances,))
        for e in extra_blocks
    }
    finished = add_layer("alpha-finish", finish_tasks,
                         [layer for layer in (totals, ranked_sum, distances) if layer])
    sources = {var: finished for var in ("alpha", "observed_disagreement",
                                         "expected_disagreement", "n_pairable_values",
                                         "n_pairable_items")}
    if plan.with_coincidence:
        sources.update(coincidence=finished, category_pairable_values=finished)
    if plan.confidence is not None and not multi_label:
        terms = block_pass("alpha-se-terms", _se_block_sums, per_extra=finished)
        squares = tree("alpha-se-terms", terms, _add_arrays)
        se_tasks = {
            ("alpha-standard-error-" + token, *e): (partial(_finish_se, plan=plan, shape=extra_shape(e)),
                                        (finished, *e), (squares, *e))
            for e in extra_blocks
        }
        se = add_layer("alpha-standard-error", se_tasks, [finished, squares])
        sources.update(se=se, ci_lower=se, ci_upper=se)

    graph = HighLevelGraph.from_collections(counts, layers[counts], dependencies=[data])
    all_layers = {**graph.layers, **layers}
    all_dependencies = {**graph.dependencies, **dependencies}
    V = len(plan.categories) if plan.with_coincidence else 0
    core = {"coincidence": (("category", "paired_category"), ((V,), (V,))),
            "category_pairable_values": (("category",), ((V,),))}
    integer = ("n_pairable_values", "n_pairable_items", "category_pairable_values")
    outputs = {}
    for var, source in sources.items():
        core_dims, core_chunks = core.get(var, ((), ()))
        output = f"{OUTPUT_TASKS.get(var, 'alpha-' + var.replace('_', '-'))}-{token}"
        all_layers[output] = {
            (output, *e, *(0,) * len(core_dims)): (operator.getitem, (source, *e), var)
            for e in extra_blocks
        }
        all_dependencies[output] = {source}
        outputs[var] = ((*extra, *core_dims), (output, core_chunks))
    graph = HighLevelGraph(all_layers, all_dependencies)
    variables = {
        var: (dims, Array(graph, output, chunks=data.chunks[:n_extra] + core_chunks,
                          dtype=np.int64 if var in integer else np.float64))
        for var, (dims, (output, core_chunks)) in outputs.items()
    }
    result = xr.Dataset(variables, coords=coords)
    if plan.with_coincidence:
        category_coord = np.asarray(plan.categories)
        result = result.assign_coords(category=category_coord, paired_category=category_coord)
    return result
