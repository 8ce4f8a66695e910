"""Gamma (Mathet, Widlöcher & Métivier 2015): agreement on units that annotators place
themselves, from the best alignment of all annotators' units.

**What it computes.** Every unit is compared with the units of the other annotators by a
dissimilarity that weighs how far apart their boundaries are (relative to their lengths)
and whether their labels differ. An alignment groups the units into unitary alignments, at
most one unit per annotator, the other slots empty; a unitary alignment's disorder is the
mean dissimilarity over its pairs of slots (an empty slot costs ``empty_cost`` against
anything, so a unit left alone costs exactly ``empty_cost``), and an alignment's is the
sum of its unitary alignments' disorders over the mean number of units per annotator. The
observed disorder is that of the best (least disordered) alignment, found exactly; the
expected disorder is the mean observed disorder of continua drawn at random with the
data's statistics (:mod:`.sampler`); gamma is 1 - observed / expected.

**Documents.** Units are aligned only with units of their own document. A document that
some annotator did not annotate is left out (``n_documents_left_out``), as unitizing alpha
leaves it out: "never saw it" is not "marked nothing". The sampler's statistics are those
of the documents that entered, the gaps taken within each document (:mod:`.sampler`), so
on one document everything is as in pygamma-agreement, and nothing depends on the order of
the documents.

**Speed.** See :mod:`.kernels`: the candidate unitary alignments are enumerated within a
reach that the cost of leaving units alone bounds, and the best alignment is a dynamic
programme along the continuum, exact; the sampled continua are solved together, as blocks
of one call.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from ..._core.arrays import _plain
from ..._core.dataset import dataset, variable
from ..table import CONTINUUM_COUNTS, span_arrays
from . import kernels, sampler
from .milp import best_alignment_milp

REFERENCE = (
    "Mathet, Y., Widlöcher, A. & Métivier, J.-P. (2015). The unified and holistic method "
    "gamma for inter-annotator agreement measure and alignment. Computational Linguistics "
    "41(3), 437-479; dissimilarities, unitary disorder and the statistical sampler as "
    "pygamma-agreement (Titeux & Riad 2021) computes them")

MISSING_DATA = ("units are aligned within their document; a document some annotator did not "
                "annotate is left out (n_documents_left_out)")

# samples drawn first when the number is set by ``precision`` (pygamma-agreement's default)
FIRST_SAMPLES = 30
DEFAULT_PRECISION = 0.02
# the normal quantile of the 95% interval the precision is stated for
CONFIDENCE_Z = 1.96
# beyond these, candidate enumeration stops with an error (memory: a candidate row is 8 bytes
# per annotator; about 0.1 s per million sets tried)
MAX_CANDIDATES = 5_000_000
MAX_TRIED = 50_000_000
# units of sampled continua solved in one call (memory, not speed: calls cost little)
SAMPLE_BATCH_UNITS = 1_000_000
# a step of the dynamic programme with more states than this goes to the MILP instead
MAX_STATES = 4096

# long_name, symbol, description
VARIABLES = {
    "gamma": (
        "gamma", "gamma",
        "1 - observed_disorder / expected_disorder; 1 where the observed disorder is 0 "
        "(every annotator placed the same units), NaN where undefined (see "
        "undefined_reason)"),
    "observed_disorder": (
        "observed disorder", "delta(best alignment)",
        "disorder of the best alignment of the units: the sum of its unitary alignments' "
        "disorders divided by the mean number of units per annotator"),
    "expected_disorder": (
        "expected disorder", "delta_e",
        "mean observed disorder of n_samples continua drawn by the statistical sampler"),
    "expected_disorder_se": (
        "standard error of the expected disorder", "",
        "standard deviation of sampled_disorder / sqrt(n_samples)"),
    "n_samples": ("sampled continua", "", "continua the expected disorder averages"),
    "sampled_disorder": (
        "disorder of a sampled continuum", "",
        "best-alignment disorder of each sampled continuum, in the order drawn"),
    **CONTINUUM_COUNTS,
    "n_unitary_alignments": ("unitary alignments", "",
                             "unitary alignments of the best alignment, lone units included"),
    "undefined_reason": ("why gamma is undefined", "", "empty where gamma is defined"),
    "unitary_disorder": (
        "disorder of the unitary alignment", "delta(a)",
        "mean dissimilarity over the C(n, 2) pairs of slots; a unit alone costs "
        "empty_cost"),
    "n_aligned_units": ("units in the unitary alignment", "",
                               "units it holds, one per annotator at most; 1 for a lone unit"),
}


def gamma(table: xr.Dataset, positional_weight: float = 1.0, categorical_weight: float = 1.0,
          empty_cost: float = 1.0, n_samples: int | None = None,
          precision: float | None = None, seed=None, *, categorical_dissimilarity=None,
          return_alignment: bool = False) -> xr.Dataset:
    """Gamma (Mathet, Widlöcher & Métivier 2015): agreement on spans from the best
    alignment of every annotator's units, positions and labels together.

    Gamma answers: how much less disorder is there in the annotators' units, best aligned,
    than in units placed at random with the same statistics? Unlike span F1 it needs no
    matching rule, and it copes with overlapping, nested and unequal spans and with units
    some annotator did not mark.

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``).
    positional_weight : float, default 1.0
        The paper's alpha: the weight of the positional dissimilarity
        ``((|s1 - s2| + |e1 - e2|) / (l1 + l2))**2 * empty_cost``. Must be positive (the
        reach within which units are compared depends on it).
    categorical_weight : float, default 1.0
        The paper's beta: the weight of the categorical dissimilarity
        ``dist(label1, label2) * empty_cost``, dist 0 for equal labels and 1 otherwise, or
        ``categorical_dissimilarity``.
    empty_cost : float, default 1.0
        The paper's Delta_empty: the dissimilarity of a unit to an empty slot (and of two
        empty slots), so the cost of leaving a unit unaligned.
    n_samples : int, optional
        Continua to sample for the expected disorder. Default: as many as ``precision``
        needs.
    precision : float, optional
        Without ``n_samples``: after 30 sampled continua, draw as many more as make the
        half-width of the 95% interval of the expected disorder at most ``precision`` times
        its value, ``ceil((cv * 1.96 / precision)**2)`` continua in all, the coefficient of
        variation ``cv`` estimated on the first 30 (the paper, section 5.3;
        pygamma-agreement's ``precision_level``). Default 0.02.
    seed : int or numpy.random.Generator, optional
        The sampler's seed: the same seed gives the same result.
    categorical_dissimilarity : DataArray, DataFrame or 2-D array, optional
        The distance between labels, symmetric, 0 on the diagonal, non-negative: a
        DataArray or DataFrame indexed by label ids on both axes, or an array in the order
        of the table's ``label_id``.
    return_alignment : bool, default False
        Add the best alignment: the coordinate ``unitary_alignment_of`` over ``span`` (the
        table's spans, with their ``document``, ``annotator``, ``label``, ``start`` and
        ``end``) and, over ``unitary_alignment``, ``unitary_disorder``,
        ``n_aligned_units`` and the coordinate ``unitary_alignment_document``.

    Returns
    -------
    xarray.Dataset
        ``gamma``, ``observed_disorder``, ``expected_disorder``, ``expected_disorder_se``,
        ``n_samples``, ``n_units``, ``n_documents``, ``n_documents_left_out``,
        ``n_unitary_alignments``, ``undefined_reason``, and ``sampled_disorder`` over
        ``sample``; with ``return_alignment`` the variables above. The attrs record the
        parameters, the seed and the reference.

    Raises
    ------
    ValueError
        Fewer than two annotators; a weight or cost that is not a finite number in range;
        both ``n_samples`` and ``precision``; a ``categorical_dissimilarity`` of the wrong
        shape, labels, sign or symmetry; a region so crowded (many long units of every
        annotator overlapping one another) that the exact alignment would not finish in
        bounded time and memory, named by document and offsets; offsets too large for
        float64 to hold a unit's length.

    Examples
    --------
    Three annotators mark the same two entities; one starts the second a token early, one
    labels it differently:

    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d", "ann", 0, 4, "PER"), ("d", "ann", 10, 14, "LOC"),
    ...      ("d", "bob", 0, 4, "PER"), ("d", "bob", 9, 14, "LOC"),
    ...      ("d", "cat", 0, 4, "PER"), ("d", "cat", 10, 14, "ORG")], lengths={"d": 20})
    >>> result = gamma(table, seed=0)
    >>> round(float(result.observed_disorder), 4)
    0.3374
    >>> int(result.n_unitary_alignments)
    2

    The best alignment, for adjudication: which spans were aligned together.

    >>> aligned = gamma(table, seed=0, return_alignment=True)
    >>> aligned.unitary_alignment_of.values.tolist()
    [0, 1, 0, 1, 0, 1]
    >>> aligned.unitary_disorder.round(4).values.tolist()
    [0.0, 0.6749]
    """
    positional_weight, categorical_weight, empty_cost = _parameters(
        positional_weight, categorical_weight, empty_cost, n_samples, precision)
    arrays = span_arrays(table)
    n_annotators, n_labels = arrays.annotator_ids.size, arrays.label_ids.size
    if n_annotators < 2:
        raise ValueError(f"gamma compares annotators: the table has {n_annotators} "
                         f"(annotator_id: {arrays.annotator_ids.tolist()})")
    categorical = _categorical(categorical_dissimilarity, arrays.label_ids)
    rng = np.random.default_rng(seed)  # a Generator given is used as it is
    settings = _Settings(n_annotators, positional_weight, categorical_weight, empty_cost,
                         categorical)

    entered = arrays.annotated.all(axis=1)
    rows = np.flatnonzero(entered[arrays.document]) if arrays.document.size \
        else np.zeros(0, np.int64)
    order = rows[np.lexsort((arrays.annotator[rows], arrays.end[rows], arrays.start[rows],
                             arrays.document[rows]))]
    units = _Units(arrays.document[order], arrays.annotator[order],
                   *_local_offsets(arrays, order), arrays.label[order], arrays.document_ids)
    choice, unit_cost, members = _align(units, settings)
    n_units = order.size
    # fsum: the same total whatever the order of the documents
    observed = math.fsum(unit_cost) / (n_units / n_annotators) if n_units else np.nan

    reason = ""
    if not entered.any():
        reason = "no document was annotated by every annotator"
    elif n_units == 0:
        reason = "no annotator marked a unit in the documents every annotator annotated"
    sampled = np.zeros(0)
    if not reason and observed > 0:
        sampled = _sampled_disorders(arrays, order, settings, n_samples, precision, rng)
        expected = sampled.mean()
        if not expected > 0:
            reason = "expected disorder is 0: the sampled continua have no disorder"
    if reason:
        value = expected = np.nan
    elif observed == 0:
        value, expected = 1.0, (sampled.mean() if sampled.size else np.nan)
    else:
        value = 1.0 - observed / expected
    se = sampled.std(ddof=1) / math.sqrt(sampled.size) if sampled.size > 1 else np.nan
    alignment_id, sizes, first_units = _unitary_alignments(choice, members)
    values = {
        "gamma": ((), np.float64(value)),
        "observed_disorder": ((), np.float64(observed)),
        "expected_disorder": ((), np.float64(expected)),
        "expected_disorder_se": ((), np.float64(se)),
        "n_samples": ((), np.int64(sampled.size)),
        "sampled_disorder": (("sample",), sampled.astype(np.float64)),
        "n_units": ((), np.int64(n_units)),
        "n_documents": ((), np.int64(entered.sum())),
        "n_documents_left_out": ((), np.int64((~entered).sum())),
        "n_unitary_alignments": ((), np.int64(sizes.size)),
        "undefined_reason": ((), np.array(reason, dtype=object)),
    }
    coords = {}
    if return_alignment:
        of_span = np.full(arrays.start.size, -1, dtype=np.int64)
        of_span[order] = alignment_id
        disorder = np.where(choice[first_units] >= 0, unit_cost[first_units], empty_cost)
        values.update({
            "unitary_disorder": (("unitary_alignment",), disorder.astype(np.float64)),
            "n_aligned_units": (("unitary_alignment",), sizes),
        })
        coords["unitary_alignment"] = np.arange(sizes.size)
        alignment_documents = arrays.document_ids[units.document[first_units]]
    result = _result(values, coords, table if return_alignment else None)
    if return_alignment:  # ids and text, read like the span's own coordinates
        result = result.assign_coords(
            unitary_alignment_of=variable("span", of_span, {
                "long_name": "unitary alignment of the span",
                "description": "the unitary_alignment holding the span in the best "
                               "alignment; -1 for a span of a document left out"}),
            unitary_alignment_document=variable("unitary_alignment", alignment_documents, {
                "long_name": "document of the unitary alignment",
                "description": "the document its units are in"}))
    result.attrs.update({
        "reference": REFERENCE, "missing_data": MISSING_DATA,
        "positional_weight": positional_weight, "categorical_weight": categorical_weight,
        "empty_cost": empty_cost,
        "categorical_dissimilarity": "0/1" if categorical_dissimilarity is None else "matrix",
        "seed": "" if seed is None or isinstance(seed, np.random.Generator) else str(seed),
        "n_annotators": int(n_annotators), "n_labels": int(n_labels),
    })
    if n_samples is None:  # the number of sampled continua followed from it
        result.attrs["precision"] = DEFAULT_PRECISION if precision is None else float(precision)
    return result


class _Settings(NamedTuple):
    """What every alignment of one call shares: the annotators and the dissimilarity."""

    n_annotators: int
    positional_weight: float
    categorical_weight: float
    empty_cost: float
    categorical: np.ndarray  # label x label distances


class _Units:
    """Units sorted by (block, start, end, annotator): what the kernels read."""

    def __init__(self, block, annotator, start, end, label, document_ids=None):
        self.document = block
        self.document_ids = document_ids  # None for sampled continua
        self.annotator = np.ascontiguousarray(annotator, dtype=np.int64)
        self.start = np.ascontiguousarray(start, dtype=np.float64)
        self.end = np.ascontiguousarray(end, dtype=np.float64)
        self.label = np.ascontiguousarray(label, dtype=np.int64)
        bounds = np.flatnonzero(np.r_[True, block[1:] != block[:-1], True]) if block.size \
            else np.zeros(1, np.int64)
        self.block_start = bounds[:-1]
        sizes = np.diff(bounds)
        self.block_end = np.repeat(bounds[1:], sizes).astype(np.int64)
        longest = np.maximum.reduceat(self.end - self.start, self.block_start) \
            if block.size else np.zeros(0)
        self.max_length = np.repeat(longest, sizes)


def _align(units: _Units, settings):
    """The best alignment of the units: ``choice`` per unit (as the kernels give it) and
    the cost each unit carries (its candidate's disorder at its first unit, empty_cost
    alone, 0 for the others)."""
    n_annotators, positional_weight, categorical_weight, empty_cost, categorical = settings
    first, members, cost, widest, stopped_at = kernels.candidates(
        units.annotator, units.start, units.end, units.label, units.block_end, n_annotators,
        positional_weight, categorical_weight, empty_cost, categorical, units.max_length,
        MAX_CANDIDATES, MAX_TRIED)
    if stopped_at >= 0:
        raise ValueError(_crowded(units, stopped_at))
    members = members.reshape(-1, n_annotators)
    choice = _best_alignment(units, first, members, cost, widest, empty_cost)
    unit_cost = np.zeros(choice.size)
    unit_cost[choice == -1] = empty_cost
    aligned = choice >= 0
    unit_cost[aligned] = cost[choice[aligned]]
    _check_partition(choice, members)
    return choice, unit_cost, members


def _best_alignment(units: _Units, first, members, cost, widest, empty_cost) -> np.ndarray:
    """``choice`` per unit: the dynamic programme, and the MILP for each block it declines
    (a candidate reaching too far, a step with too many states), that block alone."""
    block_of = np.repeat(np.arange(units.block_start.size), np.diff(
        np.r_[units.block_start, first.size - 1]))
    declined = set()
    if widest > kernels.MAX_SPAN:
        rows = np.repeat(np.arange(first.size - 1), np.diff(first))
        too_far = members.max(axis=1) - rows > kernels.MAX_SPAN
        declined.update(block_of[rows[too_far]].tolist())
    block_first = units.block_start[block_of]
    skipped, choice = kernels.best_alignment(first, members, cost, empty_cost, MAX_STATES,
                                             np.isin(block_of, list(declined)), block_first,
                                             units.block_end)
    declined.update(np.unique(block_of[skipped]).tolist())
    for block in sorted(declined):
        lo = units.block_start[block]
        hi = units.block_end[lo]
        rows = slice(first[lo], first[hi])
        local = members[rows] - lo
        local[members[rows] < 0] = -1
        block_choice = best_alignment_milp(first[lo:hi + 1] - first[lo], local, cost[rows],
                                           empty_cost)
        choice[lo:hi] = np.where(block_choice >= 0, block_choice + first[lo], block_choice)
    return choice


def _crowded(units: _Units, row: int) -> str:
    """Where the enumeration of candidates stopped, said for the user."""
    start, end = units.start[row], units.end[row]
    block = slice(units.block_start[units.block_start <= row][-1], units.block_end[row])
    near = int(((units.start[block] < end) & (units.end[block] > start)).sum())
    where = ("document " + repr(_plain(units.document_ids[units.document[row]]))
             if units.document_ids is not None else "a sampled continuum")
    return (f"gamma: in {where}, around offsets {start:g}-{end:g} ({near} units overlap that "
            f"one unit), so many units of every annotator lie within reach of one another "
            f"that the exact alignment would try more than {MAX_TRIED:,} sets of units or "
            f"keep more than {MAX_CANDIDATES:,}. Gamma compares units that annotators place "
            f"one by one; for long stretches covered many times over (nested or repeated "
            f"spans of one annotator), split the labels into separate tables, or merge the "
            f"repeated spans")


def _check_partition(choice, members) -> None:
    """Every unit in exactly one unitary alignment (a guard on the solvers)."""
    covered = np.zeros(choice.size, dtype=np.int64)
    covered[choice == -1] += 1
    chosen = members[choice[choice >= 0]]
    np.add.at(covered, chosen[chosen >= 0], 1)
    if choice.size and not (covered == 1).all():
        raise RuntimeError("gamma's best alignment does not cover every unit once")


def _unitary_alignments(choice, members):
    """Per unit the id of its unitary alignment (numbered by first unit), each unitary
    alignment's size and first unit."""
    starts = np.flatnonzero(choice != -2)
    ids = np.arange(starts.size)
    alignment_id = np.full(choice.size, -1, dtype=np.int64)
    alignment_id[starts] = ids
    sizes = np.ones(starts.size, dtype=np.int64)
    grouped = choice[starts] >= 0
    rows = members[choice[starts[grouped]]]
    flat = rows.ravel()
    alignment_id[flat[flat >= 0]] = np.repeat(ids[grouped], rows.shape[1])[flat >= 0]
    sizes[grouped] = (rows >= 0).sum(axis=1)
    return alignment_id, sizes, starts


def _sampled_disorders(arrays, order, settings, n_samples, precision, rng):
    """Best-alignment disorders of sampled continua (first ``n_samples``, or 30 and as
    many more as ``precision`` asks)."""
    params = sampler.parameters(arrays.document[order], arrays.annotator[order],
                                arrays.start[order], arrays.end[order], arrays.label[order],
                                settings.n_annotators, arrays.label_ids.size)
    first = n_samples if n_samples is not None else FIRST_SAMPLES
    disorders = _sample_batches(params, settings, first, rng)
    if n_samples is None:
        target = DEFAULT_PRECISION if precision is None else precision
        variation = disorders.std() / disorders.mean() if disorders.mean() > 0 else 0.0
        needed = int(math.ceil((variation * CONFIDENCE_Z / target) ** 2))
        if needed > first:
            disorders = np.concatenate([disorders,
                                        _sample_batches(params, settings, needed - first, rng)])
    return disorders


def _sample_batches(params, settings, n_continua: int, rng) -> np.ndarray:
    """Sampled continua solved a batch at a time (a batch holds about
    :data:`SAMPLE_BATCH_UNITS` units: memory stays bounded whatever ``n_samples``)."""
    per_continuum = max(1.0, settings.n_annotators * (params.count[0] + params.count[1]))
    size = max(1, int(SAMPLE_BATCH_UNITS // per_continuum))
    return np.concatenate([_sample_batch(params, settings, min(size, n_continua - done), rng)
                           for done in range(0, n_continua, size)])


def _local_offsets(arrays, order):
    """start and end as float64, integer offsets first made relative to each document's
    first start (exact in int64), so that large offsets keep their differences; a span
    float64 cannot tell from zero length is refused."""
    start, end = arrays.start[order], arrays.end[order]
    if start.dtype.kind in "iu" and start.size:
        lowest = np.full(arrays.document_ids.size, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(lowest, arrays.document[order], start)
        start = start - lowest[arrays.document[order]]
        end = end - lowest[arrays.document[order]]
    start, end = start.astype(np.float64), end.astype(np.float64)
    flat = np.flatnonzero(~(end > start))
    if flat.size:
        row = order[flat[0]]
        raise ValueError(
            f"document {_plain(arrays.document_ids[arrays.document[row]])!r}, annotator "
            f"{_plain(arrays.annotator_ids[arrays.annotator[row]])!r}: the span "
            f"[{_plain(arrays.start[row])!r}, {_plain(arrays.end[row])!r}) is too short for float64 to tell "
            f"its start from its end at these offsets; give offsets relative to the document")
    return start, end


def _sample_batch(params, settings, n_continua: int, rng) -> np.ndarray:
    block, annotator, start, end, label = sampler.sample(params, settings.n_annotators,
                                                         n_continua, rng)
    order = np.lexsort((annotator, end, start, block))
    units = _Units(block[order], annotator[order], start[order], end[order], label[order])
    _, unit_cost, _ = _align(units, settings)
    totals = np.bincount(units.document, weights=unit_cost, minlength=n_continua)
    sizes = np.bincount(units.document, minlength=n_continua)
    return totals / (sizes / settings.n_annotators)


def _parameters(positional_weight, categorical_weight, empty_cost, n_samples, precision):
    checked = []
    for name, value, positive in (("positional_weight", positional_weight, True),
                                  ("categorical_weight", categorical_weight, False),
                                  ("empty_cost", empty_cost, True)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not math.isfinite(value) or value < 0 or (positive and value == 0):
            bound = "above 0" if positive else "of at least 0"
            raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
        checked.append(float(value))
    if n_samples is not None:
        if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) \
                or n_samples < 2:
            raise ValueError(f"n_samples must be a whole number of at least 2, got "
                             f"{n_samples!r}")
        if precision is not None:
            raise ValueError("give n_samples or precision, not both: n_samples sets the "
                             "number of sampled continua, precision lets it follow from "
                             "their spread")
    if precision is not None and (isinstance(precision, bool)
                                  or not isinstance(precision, numbers.Real)
                                  or not 0 < precision < 1):
        raise ValueError(f"precision must be a number between 0 and 1 (0.02: the 95% "
                         f"interval of the expected disorder within 2% of it), got "
                         f"{precision!r}")
    return checked


def _categorical(matrix, label_ids) -> np.ndarray:
    """The label distance matrix in the order of ``label_ids``."""
    n = label_ids.size
    if matrix is None:
        return np.ones((n, n)) - np.eye(n)
    ids = label_ids.tolist()
    if isinstance(matrix, xr.DataArray):
        if matrix.ndim != 2:
            raise ValueError(f"categorical_dissimilarity must have 2 dims, got {matrix.dims}")
        matrix = pd.DataFrame(matrix.values, index=matrix.get_index(matrix.dims[0]),
                              columns=matrix.get_index(matrix.dims[1]))
    if isinstance(matrix, pd.DataFrame):
        for axis, labels in (("rows", matrix.index), ("columns", matrix.columns)):
            missing = [label for label in ids if label not in labels]
            if missing:
                raise ValueError(f"categorical_dissimilarity lacks the labels {missing} in "
                                 f"its {axis} (it has {list(labels)})")
        matrix = matrix.loc[ids, ids].to_numpy()
    values = np.asarray(matrix, dtype=np.float64)
    if values.shape != (n, n):
        raise ValueError(f"categorical_dissimilarity must be {n} x {n} (label_id: {ids}), "
                         f"got shape {values.shape}")
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"categorical_dissimilarity[{ids[i]!r}, {ids[j]!r}] must be a "
                         f"finite number of at least 0, got {values[i, j]!r}")
    if (np.diag(values) != 0).any():
        i = int(np.flatnonzero(np.diag(values) != 0)[0])
        raise ValueError(f"categorical_dissimilarity[{ids[i]!r}, {ids[i]!r}] must be 0 (a "
                         f"label against itself), got {values[i, i]!r}")
    if not np.array_equal(values, values.T):
        i, j = np.argwhere(values != values.T)[0]
        raise ValueError(f"categorical_dissimilarity must be symmetric: [{ids[i]!r}, "
                         f"{ids[j]!r}] is {values[i, j]!r}, [{ids[j]!r}, {ids[i]!r}] is "
                         f"{values[j, i]!r}")
    return np.ascontiguousarray(values)


def _result(values, coords, table) -> xr.Dataset:
    variables = {}
    for name, (dims, data) in values.items():
        long_name, symbol, description = VARIABLES[name]
        attrs = {"long_name": long_name}
        if description:
            attrs["description"] = description
        if symbol:
            attrs["symbol"] = symbol
        variables[name] = variable(dims, np.asarray(data), attrs)
    result = dataset(variables, new_coords=coords)
    if table is not None:  # the spans' own ids and offsets, to read the alignment by
        result = result.assign_coords({name: ("span", table[name].values)
                                       for name in ("document", "annotator", "label",
                                                    "start", "end")})
    return result
