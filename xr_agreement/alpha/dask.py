"""Alpha on dask: per-block additive statistics, tree reductions, one finishing task."""

from __future__ import annotations

import operator
from functools import partial

import numpy as np
import xarray as xr

from .._core.dataset import _check_names, reasons_as_coordinates
from .blocks import (_add_arrays, _finish_se, _finish_totals, _merge_counts, _plan,
                     _ranked_block_sums, _se_block_sums, _set_block_counts,
                     _single_block_counts)
from .counts import _extra_frame, REASON_TEXT


# --- dask: the graph of the block functions of :mod:`.blocks` ---------------------------
# Every block (a run of items, all annotators and labels, a run of extra-dim values) is
# counted by one task (the same function the numpy path calls on the whole array). A tree
# of merges gives the totals of each extra-dim block, from which alpha is finished on small
# arrays. Ordinal distances (mid-ranks of the total frequencies) and Gwet's standard error
# need the totals in every block: a second (and for ordinal with se a third) pass over the
# blocks takes them as input, and its per-block sums are added the same way.

SPLIT_EVERY = 8  # blocks merged per task of the tree reductions


# Task names of the outputs where "alpha-<variable>" would not do: dask's key_split reads
# an 8-letter word starting with a-f ("expected", "category") as part of the token.
OUTPUT_TASKS = {"alpha": "alpha-coefficient",
                "expected_disagreement": "alpha-chance-disagreement",
                "category_n_pairable_values": "alpha-coincidence-margins"}


class _Graph:
    """The layers of a dask alpha over the blocks of ``data`` (extra dims first, then item,
    annotator and label in single chunks): one task per block for each pass, trees of
    merges per extra-dim block."""

    def __init__(self, data, dim_values, n_extra, token, plan):
        self.data, self.token, self.plan, self.n_extra = data, token, plan, n_extra
        self.dim_values = dim_values
        self.offsets = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64)
                        for c in data.chunks]
        self.extra_blocks = list(np.ndindex(*data.numblocks[:n_extra]))
        self.n_item_blocks = data.numblocks[n_extra]
        self.core_tail = (0,) * (data.ndim - n_extra - 1)
        self.layers, self.dependencies = {}, {}

    def block_coords(self, index):
        return [(dim, values[self.offsets[axis][i]:self.offsets[axis][i + 1]])
                for axis, ((dim, values), i) in enumerate(zip(self.dim_values,
                                                              index + self.core_tail))]

    def extra_shape(self, e):
        return tuple(self.data.chunks[axis][i] for axis, i in enumerate(e))

    def add_layer(self, prefix, tasks, depends_on):
        name = f"{prefix}-{self.token}"
        self.layers[name] = tasks
        self.dependencies[name] = set(depends_on)
        return name

    def block_pass(self, prefix, function, per_extra=None, shared=None):
        """One task per block; ``per_extra``: the layer whose (name, *e) key it also takes
        (else the ``shared`` layer's one key, if any)."""
        layer = f"{prefix}-{self.token}"
        tasks = {}
        other = per_extra if per_extra is not None else shared
        for e in self.extra_blocks:
            for i in range(self.n_item_blocks):
                index = (*e, i)
                arguments = [(self.data.name, *index, *self.core_tail)]
                if other is not None:
                    arguments.append((other, *(e if per_extra is not None else ())))
                tasks[(layer, *index)] = (
                    partial(function, coords=self.block_coords(index), plan=self.plan),
                    *arguments)
        return self.add_layer(prefix, tasks, [self.data.name] + ([other] if other else []))

    def tree(self, prefix, leaves, combine):
        """Per extra-dim block, the leaves combined ``SPLIT_EVERY`` at a time."""
        partial_layer = f"{prefix}-partial-{self.token}"
        total_layer = f"{prefix}-sum-{self.token}"
        partial_tasks, total_tasks = {}, {}
        for e in self.extra_blocks:
            keys = [(leaves, *e, i) for i in range(self.n_item_blocks)]
            level = 0
            while len(keys) > SPLIT_EVERY:
                merged = []
                for start in range(0, len(keys), SPLIT_EVERY):
                    key = (partial_layer, level, *e, start // SPLIT_EVERY)
                    partial_tasks[key] = (combine, keys[start:start + SPLIT_EVERY])
                    merged.append(key)
                keys, level = merged, level + 1
            total_tasks[(total_layer, *e)] = (combine, keys)
        self.add_layer(f"{prefix}-partial", partial_tasks, [leaves])
        return self.add_layer(f"{prefix}-sum", total_tasks, [leaves, partial_layer])

    def per_extra(self, prefix, function, *layers):
        """One task per extra-dim block, taking the (layer, *e) key of each of ``layers``
        (None: the argument None; a 1-tuple: that layer's one key)."""
        def argument(layer, e):
            if layer is None:
                return None
            return (layer[0],) if isinstance(layer, tuple) else (layer, *e)

        tasks = {(f"{prefix}-{self.token}", *e): (
            partial(function, plan=self.plan, shape=self.extra_shape(e)),
            *(argument(layer, e) for layer in layers)) for e in self.extra_blocks}
        names = [layer[0] if isinstance(layer, tuple) else layer for layer in layers if layer]
        return self.add_layer(prefix, tasks, names)


def _dask_alpha(da, metric, name, multi_label, *, item, annotator, label, categories,
                ci, population_size) -> xr.Dataset:
    """:func:`alpha` of a dask-backed array as a lazy Dataset (see the section comment);
    ``ci``: the level of the analytic interval, or None.

    Task names: ``alpha-counts`` (one per block: the first pass), ``alpha-counts-partial``
    and ``alpha-counts-sum`` (the tree of merges), ``alpha-finish`` (per extra-dim block);
    for ordinal ``alpha-ranked`` (+ ``-partial``, ``-sum``), for the standard error
    ``alpha-se-terms`` (+ ``-partial``, ``-sum``) and ``alpha-standard-error``; the outputs
    are ``alpha-<variable>`` (or as in ``OUTPUT_TASKS``).
    """
    from dask.base import tokenize

    roles = (item, annotator, label) if multi_label else (item, annotator)
    plan, declared_delta = _plan(da, metric, name, multi_label, label, categories, ci,
                                 population_size)
    extra, coords = _extra_frame(da, roles)
    ordered = da.transpose(*extra, *roles)
    n_extra = len(extra)
    data = ordered.data.rechunk({axis: -1 for axis in range(n_extra + 1, ordered.ndim)})
    dim_values = [(d, ordered[d].values) for d in ordered.dims]
    token = tokenize(data.name, name, metric, categories, ci, population_size,
                     [(d, v) for d, v in dim_values])
    graph = _Graph(data, dim_values, n_extra, token, plan)
    distances = None
    if declared_delta is not None:
        distances = graph.add_layer("alpha-distances", {(f"alpha-distances-{token}",):
                                                        declared_delta}, [])
    counts = graph.block_pass("alpha-counts",
                              _set_block_counts if multi_label else _single_block_counts,
                              shared=distances)
    totals = graph.tree("alpha-counts", counts, _merge_counts)
    ranked_sum = None
    if name == "ordinal" and not multi_label:
        ranked = graph.block_pass("alpha-ranked", _ranked_block_sums, per_extra=totals)
        ranked_sum = graph.tree("alpha-ranked", ranked, _add_arrays)
    finished = graph.per_extra("alpha-finish", _finish_totals, totals, ranked_sum,
                               None if distances is None else (distances,))
    sources = {var: finished for var in ("alpha", "observed_disagreement",
                                         "expected_disagreement", "n_pairable_values",
                                         "n_pairable_items", "undefined_reason")}
    if plan.with_coincidence:
        sources.update(coincidence=finished, category_n_pairable_values=finished)
    if plan.ci is not None and not multi_label:
        terms = graph.block_pass("alpha-se-terms", _se_block_sums, per_extra=finished)
        squares = graph.tree("alpha-se-terms", terms, _add_arrays)
        se = graph.per_extra("alpha-standard-error", _finish_se, finished, squares)
        sources.update(alpha_se=se, alpha_lower=se, alpha_upper=se)
    return _lazy_dataset(graph, counts, sources, coords, extra)


def _lazy_dataset(graph: _Graph, counts, sources, coords, extra) -> xr.Dataset:
    """The outputs ``sources`` (variable: the layer whose dict holds it) as dask arrays."""
    from dask.array import Array
    from dask.highlevelgraph import HighLevelGraph

    data, plan, token = graph.data, graph.plan, graph.token
    base = HighLevelGraph.from_collections(counts, graph.layers[counts], dependencies=[data])
    all_layers = {**base.layers, **graph.layers}
    all_dependencies = {**base.dependencies, **graph.dependencies}
    V = len(plan.categories) if plan.with_coincidence else 0
    core = {"coincidence": (("category", "paired_category"), ((V,), (V,))),
            "category_n_pairable_values": (("category",), ((V,),))}
    dtypes = {var: np.int64 for var in ("n_pairable_values", "n_pairable_items",
                                        "category_n_pairable_values")}
    dtypes["undefined_reason"] = REASON_TEXT.dtype
    outputs = {}
    for var, source in sources.items():
        core_dims, core_chunks = core.get(var, ((), ()))
        output = f"{OUTPUT_TASKS.get(var, 'alpha-' + var.replace('_', '-'))}-{token}"
        all_layers[output] = {
            (output, *e, *(0,) * len(core_dims)): (operator.getitem, (source, *e), var)
            for e in graph.extra_blocks
        }
        all_dependencies[output] = {source}
        outputs[var] = ((*extra, *core_dims), (output, core_chunks))
    hlg = HighLevelGraph(all_layers, all_dependencies)
    variables = {
        var: (dims, Array(hlg, output, chunks=data.chunks[:graph.n_extra] + core_chunks,
                          dtype=dtypes.get(var, np.float64)))
        for var, (dims, (output, core_chunks)) in outputs.items()
    }
    if plan.with_coincidence:  # refused by name, as on numpy input
        _check_names(coords, dict.fromkeys(("category", "paired_category")))
    result = xr.Dataset(variables, coords=coords)
    if plan.with_coincidence:
        category_coord = np.asarray(plan.categories)
        result = result.assign_coords(category=category_coord, paired_category=category_coord)
    return reasons_as_coordinates(result)
