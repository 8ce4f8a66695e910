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
from .._core.threads import item_runs as _runs  # alpha's rule, one for every family
from . import kernels as _kernels


def _added(parts) -> tuple:
    """The runs' results added in order (a single run as it is)."""
    return tuple(functools.reduce(operator.add, values) for values in zip(*parts))


def _pass(kernel, n_items: int, *arguments, size: int = 1, runs: int | None = None):
    """``kernel(*arguments, i0, i1)`` on runs of the items on the thread pool
    (:func:`_runs`, accumulators of ``size`` elements; or ``runs`` of them), the runs'
    results added in order: a tuple of arrays, or one array."""
    parts = _in_threads(lambda i0, i1: kernel(*arguments, i0, i1), n_items,
                        _runs(n_items, size) if runs is None else runs)
    if isinstance(parts[0], tuple):
        return _added(parts)
    return functools.reduce(operator.add, parts)


def single_label_tables(codes: np.ndarray, q: int, offsets: np.ndarray, n_states: int,
                        with_annotators: bool) -> dict:
    """The counting pass over single-label ``codes`` (G, N, n): see
    :func:`.kernels.single_label_counts`."""
    G, N, n = codes.shape
    side = offsets.size
    size = G * (side * (1 + q + q * q) + q * n_states + n * q)
    by_m, sums, products, histogram, annotators = _pass(
        _kernels.single_label_counts, N, codes, q, offsets, n_states, with_annotators,
        size=size)
    return {"by_m": by_m, "sums": sums, "products": products, "histogram": histogram,
            "annotators": annotators}


def state_offsets(seen) -> tuple[np.ndarray, int]:
    """Where each m's states start (-1 for an m that does not occur) and how many states
    there are: m + 1 for each m in ``seen`` (bool (side,)), one after another."""
    m = np.arange(len(seen))
    sizes = np.where(seen, m + 1, 0)
    offsets = np.where(seen, np.cumsum(sizes) - sizes, -1).astype(np.int64)
    return offsets, int(sizes.sum())


def ratings_seen(array, multi_label: bool) -> np.ndarray:
    """Which numbers of ratings m = 0..n an item has (on some label, on multi-label input):
    bool (n + 1,)."""
    n = array.shape[2]
    if array.size == 0:
        return np.zeros(n + 1, bool)
    if multi_label:
        if array.dtype.kind != "f":
            return np.arange(n + 1) == n
        m = (~np.isnan(array)).sum(axis=2, dtype=np.int64)
    else:
        m = (array >= 0).sum(axis=2, dtype=np.int64)
    return np.bincount(m.ravel(), minlength=n + 1) > 0


def by_patterns(side: int, q: int, n_ratings: int) -> bool:
    """Whether single-label ratings are counted by composition (see
    :data:`.kernels.PATTERN_LIMIT`; ``side``: one more than the most ratings of an item):
    few enough ids, and their table no larger than a few times the ``n_ratings`` of a group
    (many groups of few items each would otherwise get tables far larger than the input)."""
    ids = float(side) ** q
    return ids <= _kernels.PATTERN_LIMIT and ids <= max(4096, 4 * n_ratings)


def pattern_histogram(codes: np.ndarray, q: int, side: int, with_annotators: bool) -> tuple:
    """Items per composition of single-label ``codes`` (G, N, n), ids in base ``side``, and
    with ``with_annotators`` each annotator's ratings per category: see
    :func:`.kernels.pattern_histogram`."""
    G, N, n = codes.shape
    powers = np.zeros((n, q + 1), np.int64)  # every annotator's rating counts alike
    powers[:, 1:] = side ** np.arange(q, dtype=np.int64)
    return _pass(_kernels.pattern_histogram, N, codes, powers, side ** q, q, with_annotators,
                 size=G * (side ** q + n * q))


def single_label_spread(codes, w, constants, chance, annotator_chance, binary_constants,
                        binary_chance, multiplicity=None) -> tuple:
    """The standard error's pass over single-label ``codes``: see
    :func:`.kernels.single_label_spread`."""
    if multiplicity is None:
        multiplicity = np.zeros((0, 0))
    return _pass(_kernels.single_label_spread, codes.shape[1], codes, w, constants, chance,
                 annotator_chance, binary_constants, binary_chance, multiplicity)


def by_rating_vectors(q: int, n: int, n_items: int) -> bool:
    """Whether Conger's single-label tables are counted per rating vector (who rated what,
    :func:`.kernels.pattern_histogram`): few enough ids, at most a quarter of the
    items (the vectors' finishing costs a few numpy steps per call and a step per vector:
    at 50 items it took longer than the pass over the items it saves)."""
    ids = (q + 1) ** n  # a Python int: as a float it overflowed from ~1,000 annotators
    return ids <= _kernels.PATTERN_LIMIT and 4 * ids <= n_items


def rating_vectors(codes: np.ndarray, q: int) -> np.ndarray:
    """Items per rating vector of single-label ``codes`` (G, N, n): see
    :func:`.kernels.pattern_histogram`."""
    G, N, n = codes.shape
    base = q + 1
    digits = np.arange(base, dtype=np.int64)
    powers = digits[None, :] * base ** np.arange(n, dtype=np.int64)[:, None]
    return _pass(_kernels.pattern_histogram, N, codes, np.ascontiguousarray(powers),
                 base ** n, q, False, size=G * base ** n)[0]


def vector_codes(ids: np.ndarray, q: int, n: int) -> np.ndarray:
    """The codes (len(ids), n) int32 of rating vector ids (-1 missing)."""
    base = q + 1
    return ((ids[:, None] // base ** np.arange(n, dtype=np.int64)) % base - 1).astype(np.int32)


def from_rating_vectors(vectors: np.ndarray, q: int, n: int, side: int) -> tuple:
    """The items per composition (base ``side``) and each annotator's ratings per category
    (G, n, q) of the items per rating vector ``vectors`` (G, (q + 1)**n): what
    :func:`pattern_histogram` counts, from the vectors seen."""
    ids = np.flatnonzero(vectors.any(axis=0))
    codes = vector_codes(ids, q, n)  # (C, n)
    chose = (codes[:, :, None] == np.arange(q)).astype(np.int64)  # (C, n, q)
    counts = vectors[:, ids]  # (G, C)
    composition = chose.sum(axis=1) @ side ** np.arange(q, dtype=np.int64)
    patterns = np.zeros((vectors.shape[0], side ** q), np.int64)
    np.add.at(patterns.T, composition, counts.T)
    return patterns, np.einsum("gc,cak->gak", counts, chose)


def state_dtype(n_states: int):
    """The narrowest integer type holding every state."""
    return np.uint8 if n_states <= 256 else np.uint16 if n_states <= 1 << 16 else np.int32


def binary_tables(decisions: np.ndarray, offsets: np.ndarray, n_states: int,
                  with_annotators: bool) -> tuple[dict, tuple]:
    """The counting pass over multi-label ``decisions`` (G, N, n, L): the histogram of each
    label's states, the items rated and pairable on some label, Conger's marginals (when
    asked for), ``not_binary`` (labels with a decision other than 0/1: uint8 decisions are
    checked in this pass, :func:`.encode._checked_decisions`), and the states (G, N, L) for
    the standard error's pass with the offset to add to them (see
    :func:`.kernels.complete_binary_states`) and whether the decisions were complete."""
    G, N, n, L = decisions.shape
    size = G * L * n_states
    if decisions.dtype.kind in "bui" and n < 256:  # no missing decision: m = n
        # other integers were checked 0/1 (encode._checked_decisions): as bytes they are
        # the same numbers; uint8 ones are checked by this pass
        small = (decisions.view(np.uint8) if decisions.dtype.itemsize == 1
                 else decisions.astype(np.uint8))
        state = np.empty((G, N, L), np.uint8)  # x only: see complete_binary_states
        offset = int(offsets[n])
        histogram, not_binary = _pass(_kernels.complete_binary_states, N, small, offset,
                                      n_states, state, size=size)
        rated_items = np.full(G, N if n >= 1 and L >= 1 else 0, np.int64)
        pairable_items = np.full(G, N if n >= 2 and L >= 1 else 0, np.int64)
        complete = True
    else:
        state = np.empty((G, N, L), state_dtype(n_states))
        histogram, rated_items, pairable_items = _pass(_kernels.binary_states, N, decisions,
                                                       offsets, n_states, state, size=size)
        offset, complete, not_binary = 0, False, 0
    tables = {"histogram": histogram, "rated_items": rated_items,
              "pairable_items": pairable_items, "not_binary": int(not_binary)}
    if with_annotators:
        tables["annotators"] = _pass(_kernels.binary_annotator_counts, N, decisions,
                                     size=G * L * n)
    return tables, (state, offset, complete)


def pooled_spread(state, table, rated_state, kappa) -> np.ndarray:
    """The pooled coefficient's standard-error pass over the states ((states, offset,
    complete) of :func:`binary_tables`): see :func:`.kernels.pooled_spread`."""
    state, offset, all_rated = state  # complete decisions: every item rated
    return _pass(_kernels.pooled_spread, state.shape[1], state, offset, table, rated_state,
                 all_rated, kappa)


def conger_binary_spread(decisions, n_problems, w, constants, annotator_chance,
                         pooled_constants, pooled) -> tuple:
    """Conger's standard-error pass over multi-label decisions: see
    :func:`.kernels.conger_binary_spread`."""
    return _pass(_kernels.conger_binary_spread, decisions.shape[1], decisions, n_problems, w,
                 constants, annotator_chance, pooled_constants, pooled)
