"""The Gwet family's passes over the ratings (:mod:`.kernels`), run on the thread pool.

Each pass runs on runs of items whose number depends on the shape only, each with its own
accumulators, added in a fixed order: results do not depend on the number of threads
(``_core/threads.py``). Every pass is additive over items, so on dask input
(:mod:`.lazy`) the same functions count one block of items each.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._core.threads import _in_threads
from . import kernels as _kernels


def _runs(n_items: int, accumulator_size: int = 1) -> int:
    """Runs of items per pass: about 4,096 items or more each, at most 16, fewer when each
    run's accumulators (``accumulator_size`` elements) are large, so that together they
    stay below about 2**22 elements."""
    return int(max(1, min(16, n_items // 4096, (1 << 22) // max(1, accumulator_size))))


def _added(parts) -> tuple:
    """The runs' results added in order (a single run as it is)."""
    return tuple(functools.reduce(operator.add, values) for values in zip(*parts))


def _pass(kernel, n_items: int, *arguments, size: int = 1):
    """``kernel(*arguments, i0, i1)`` on runs of the items on the thread pool
    (:func:`_runs`, accumulators of ``size`` elements), the runs' results added in order: a
    tuple of arrays, or one array."""
    parts = _in_threads(lambda i0, i1: kernel(*arguments, i0, i1), n_items,
                        _runs(n_items, size))
    if isinstance(parts[0], tuple):
        return _added(parts)
    return functools.reduce(operator.add, parts)


def single_label_tables(codes: np.ndarray, q: int, side: int, with_annotators: bool) -> dict:
    """The counting pass over single-label ``codes`` (G, N, n): see
    :func:`.kernels.single_label_counts`."""
    G, N, n = codes.shape
    size = G * (side * (1 + q + q * q) + q * side * side + n * q)
    by_m, sums, products, histogram, annotators = _pass(
        _kernels.single_label_counts, N, codes, q, side, with_annotators, size=size)
    return {"by_m": by_m, "sums": sums, "products": products, "histogram": histogram,
            "annotators": annotators}


def by_patterns(side: int, q: int) -> bool:
    """Whether single-label ratings are counted by composition (see
    :data:`.kernels.PATTERN_LIMIT`; ``side``: one more than the most ratings of an item)."""
    return float(side) ** q <= _kernels.PATTERN_LIMIT


def pattern_histogram(codes: np.ndarray, q: int, side: int, with_annotators: bool) -> tuple:
    """Items per composition of single-label ``codes`` (G, N, n), ids in base ``side``, and
    with ``with_annotators`` each annotator's ratings per category: see
    :func:`.kernels.pattern_histogram`."""
    G, N, n = codes.shape
    powers = np.zeros(q + 1, np.int64)
    powers[1:] = side ** np.arange(q, dtype=np.int64)
    return _pass(_kernels.pattern_histogram, N, codes, powers, side ** q, q, with_annotators,
                 size=G * (side ** q + n * q))


def most_ratings(array, multi_label: bool) -> int:
    """The most ratings an item has (on one label, on multi-label input)."""
    if array.size == 0:
        return 0
    if multi_label:
        if array.dtype.kind != "f":
            return array.shape[2]
        return int((~np.isnan(array)).sum(axis=2, dtype=np.int64).max())
    return int((array >= 0).sum(axis=2, dtype=np.int64).max())


def single_label_spread(codes, w, constants, chance, annotator_chance, binary_constants,
                        binary_chance) -> tuple:
    """The standard error's pass over single-label ``codes``: see
    :func:`.kernels.single_label_spread`."""
    return _pass(_kernels.single_label_spread, codes.shape[1], codes, w, constants, chance,
                 annotator_chance, binary_constants, binary_chance)


def state_dtype(side: int):
    """The narrowest integer type holding every state ``m * side + x``."""
    states = side * side
    return np.uint8 if states <= 256 else np.uint16 if states <= 1 << 16 else np.int32


def binary_tables(decisions: np.ndarray, side: int,
                  with_annotators: bool) -> tuple[dict, np.ndarray]:
    """The counting pass over multi-label ``decisions`` (G, N, n, L): the histogram of each
    label's states, the items rated and pairable on some label, Conger's marginals (when
    asked for), and the states (G, N, L) for the standard error's pass, with the offset to
    add to them (see :func:`.kernels.complete_binary_states`)."""
    G, N, n, L = decisions.shape
    size = G * L * side * side
    if decisions.dtype.kind in "bui" and n < 256:  # no missing decision: m = n = side - 1
        # checked 0/1 (encode._checked_decisions): as bytes they are the same numbers
        small = (decisions.view(np.uint8) if decisions.dtype.itemsize == 1
                 else decisions.astype(np.uint8))
        state = np.empty((G, N, L), np.uint8)  # x only: see complete_binary_states
        histogram = _pass(_kernels.complete_binary_states, N, small, state, size=size)
        rated_items = np.full(G, N if n >= 1 and L >= 1 else 0, np.int64)
        pairable_items = np.full(G, N if n >= 2 and L >= 1 else 0, np.int64)
        offset = n * (n + 1)
    else:
        state = np.empty((G, N, L), state_dtype(side))
        histogram, rated_items, pairable_items = _pass(_kernels.binary_states, N, decisions,
                                                       side, state, size=size)
        offset = 0
    tables = {"histogram": histogram, "rated_items": rated_items,
              "pairable_items": pairable_items}
    if with_annotators:
        tables["annotators"] = _pass(_kernels.binary_annotator_counts, N, decisions,
                                     size=G * L * n)
    return tables, (state, offset)


def pooled_spread(state, table, rated_state, kappa) -> np.ndarray:
    """The pooled coefficient's standard-error pass over the states ((states, offset) of
    :func:`binary_tables`): see :func:`.kernels.pooled_spread`."""
    state, offset = state
    return _pass(_kernels.pooled_spread, state.shape[1], state, offset, table, rated_state,
                 kappa)


def conger_binary_spread(decisions, n_problems, w, constants, annotator_chance,
                         pooled_constants, pooled) -> tuple:
    """Conger's standard-error pass over multi-label decisions: see
    :func:`.kernels.conger_binary_spread`."""
    return _pass(_kernels.conger_binary_spread, decisions.shape[1], decisions, n_problems, w,
                 constants, annotator_chance, pooled_constants, pooled)
