"""Span table -> the additive counts of position-level MLA, without building positions.

Every position of every document is an MLA item: each annotator who annotated the document
decides 0/1 per label there. The MLA counts need, per label and number of deciders ``m``,
the number of (position, label) cells and the sums of ``x`` and ``x**2`` (``x`` the
annotators who said 1). Here ``m`` is the same at every position of a document (the
annotators who annotated it), so the counts are sums over documents of

- cells: the document's length in positions (for every label),
- positives and positives_squared: the sums of ``x`` and ``x**2`` over its positions, which
  the sweep (:func:`.kernels.sweep`) gets from the span boundaries.

Both are kept per (document, label) (:class:`SpanCounts`): summed over documents they are
the label counts; weighted by how often a bootstrap replicate draws each document, the
replicate's label counts (resampling documents, :mod:`.intervals`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..table import SpanArrays, span_arrays
from . import kernels as _kernels

# relative tolerance of an offset being a whole number of units (float offsets)
UNIT_TOLERANCE = 1e-9
# ... but never more than this share of a unit: relative alone, at 10**9 units (1e6 s in
# units of 1e-3) half a unit passed and was rounded away silently
MAX_UNIT_ERROR = 1e-3

# events are sorted by one combined int64 key (group, position) below this many keys
COMBINED_KEY_LIMIT = 2**62


class SpanCounts(NamedTuple):
    """What every position-level measure of a span table is computed from.

    ``document_label`` (D, k, 2) int64: per (document, label) the sums over the document's
    positions of ``x`` and ``x**2``; ``lengths`` (D,) int64 positions per document;
    ``deciders`` (D,) int64 annotators who annotated it; ``unit`` the offset of one position;
    ``arrays`` the span table's :class:`SpanArrays` and ``start``, ``end`` its spans in
    positions.
    """

    document_label: np.ndarray
    lengths: np.ndarray
    deciders: np.ndarray
    unit: float | int
    arrays: SpanArrays
    start: np.ndarray
    end: np.ndarray

    @property
    def n_positions(self) -> int:
        return int(self.lengths.sum())


def _plain(value):
    """A numpy scalar as the Python value it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _span(arrays: SpanArrays, row: int) -> str:
    """A span named for a message: its row, ids and offsets."""
    return (f"span {row} (document {_plain(arrays.document_ids[arrays.document[row]])!r}, "
            f"annotator {_plain(arrays.annotator_ids[arrays.annotator[row]])!r}, label "
            f"{_plain(arrays.label_ids[arrays.label[row]])!r}, start "
            f"{_plain(arrays.start[row])!r}, end {_plain(arrays.end[row])!r})")


def _whole_units(values: np.ndarray, unit, what: str, arrays: SpanArrays):
    """``values / unit`` as int64, refused (naming the first offending value and its span, or
    its document for ``what="length"``) where a value is not a whole number of units."""
    if values.dtype.kind in "iu" and unit == 1:
        return values.astype(np.int64, copy=False)
    if values.dtype.kind in "iu" and isinstance(unit, (int, np.integer)):
        quotient, remainder = np.divmod(values, unit)
        bad = np.flatnonzero(remainder != 0)
        whole = quotient
    else:
        ratio = values / float(unit)
        whole = np.rint(ratio)
        tolerance = np.minimum(UNIT_TOLERANCE * np.maximum(1.0, np.abs(ratio)),
                               MAX_UNIT_ERROR)
        bad = np.flatnonzero(np.abs(ratio - whole) > tolerance)
    if bad.size:
        first = int(bad[0])
        if what == "length":  # one per document
            place = (f"the length {_plain(values[first])!r} of document "
                     f"{_plain(arrays.document_ids[first])!r}")
        else:
            place = f"the {what} {_plain(values[first])!r} of {_span(arrays, first)}"
        raise ValueError(f"{place} is not a whole number of units of {unit!r}: positions are "
                         f"units of offset; pass a unit that divides every offset")
    return whole.astype(np.int64)


def check_unit(arrays: SpanArrays, unit):
    """The unit of one position: 1 for integer offsets by default; required (a positive
    number) for real offsets."""
    real = arrays.start.dtype.kind == "f" or arrays.lengths.dtype.kind == "f"
    if unit is None:
        if real:
            raise ValueError("the span table's offsets are real numbers (seconds?): pass "
                             "unit=, the offset of one position (e.g. unit=0.01)")
        return 1
    if isinstance(unit, (bool, np.bool_)) or not isinstance(unit, (int, float, np.integer,
                                                                    np.floating)):
        raise TypeError(f"unit must be a positive number, got {type(unit).__name__} {unit!r}")
    if not np.isfinite(unit) or unit <= 0:
        raise ValueError(f"unit must be a positive number, got {unit!r}")
    if isinstance(unit, (float, np.floating)) and float(unit).is_integer() and not real:
        unit = int(unit)
    return unit.item() if hasattr(unit, "item") else unit


def in_positions(table, unit=None):
    """(arrays, unit, start, end, lengths): the span table's offsets in positions (int64)."""
    arrays = span_arrays(table)
    unit = check_unit(arrays, unit)
    start = _whole_units(arrays.start, unit, "start", arrays)
    end = _whole_units(arrays.end, unit, "end", arrays)
    lengths = _whole_units(np.asarray(arrays.lengths), unit, "length", arrays)
    outside = np.flatnonzero(~arrays.annotated[arrays.document, arrays.annotator])
    if outside.size:
        raise ValueError(f"{_span(arrays, int(outside[0]))} belongs to a (document, "
                         f"annotator) pair that the table marks as not annotated")
    bad = np.flatnonzero((start < 0) | (start >= end) | (end > lengths[arrays.document]))
    if bad.size:
        s = int(bad[0])
        raise ValueError(f"{_span(arrays, s)} does not lie within [0, length "
                         f"{_plain(arrays.lengths[arrays.document[s]])!r}] with start < end")
    return arrays, unit, start, end, lengths


def _check_range(lengths: np.ndarray, n_annotators: int, n_labels: int, unit) -> None:
    """Refuse a table whose counts could pass the int64 range: the sums of ``x**2`` and the
    comparisons reach (positions x labels x annotators**2), and a bootstrap replicate may
    draw the longest document once per document. Python integers: the bound itself must
    not wrap (it did: 2 documents of 2**62 positions gave n_positions -2**63 and NaN)."""
    longest = int(lengths.max(initial=0))
    positions = max(sum(int(n) for n in lengths), len(lengths) * longest)
    bound = positions * max(n_labels, 1) * max(n_annotators, 1) ** 2
    if bound >= 2**63:
        raise ValueError(f"the span table has {sum(int(n) for n in lengths)} positions "
                         f"(longest document {longest}) of {n_labels} labels and "
                         f"{n_annotators} annotators: their counts would pass the 64-bit "
                         f"integers; pass a coarser unit= (now {unit!r})")


def span_counts(table, unit=None) -> SpanCounts:
    """The sweep's counts of a span table (see the module docstring): O(spans log spans)
    time, O(spans + documents x labels) memory."""
    arrays, unit, start, end, lengths = in_positions(table, unit)
    n_documents, n_annotators = arrays.annotated.shape
    n_labels = len(arrays.label_ids)
    _check_range(lengths, n_annotators, n_labels, unit)
    group = arrays.document * n_labels + arrays.label
    event_group = np.concatenate([group, group])
    event_position = np.concatenate([start, end])
    # by group, then position: one stable sort of a combined key where it fits in int64
    # (at 128,000 spans 6 ms against lexsort's 32: the spans come mostly in order, which
    # the stable sort's merging of runs uses)
    span = int(lengths.max(initial=0)) + 1
    if len(arrays.document_ids) * max(n_labels, 1) * span < COMBINED_KEY_LIMIT:
        order = np.argsort(event_group * span + event_position, kind="stable")
    else:
        order = np.lexsort((event_position, event_group))
    event_annotator = np.concatenate([arrays.annotator, arrays.annotator])[order]
    event_step = np.concatenate([np.ones(len(start), np.int64),
                                 np.full(len(end), -1, np.int64)])[order]
    document_label = np.zeros((n_documents, n_labels, 2), np.int64)
    unclosed = _kernels.sweep(event_group[order], event_position[order], event_annotator,
                              event_step, n_annotators, max(n_labels, 1), document_label)
    if unclosed:  # in_positions checked start < end: cannot happen
        raise AssertionError(f"the sweep left {unclosed} coverage counts open")
    deciders = arrays.annotated.sum(axis=1).astype(np.int64)
    return SpanCounts(document_label, lengths, deciders, unit, arrays, start, end)


def document_table(counts: SpanCounts) -> tuple[np.ndarray, np.ndarray]:
    """(table (D, F) int64, m_values): each document's contribution to the label counts,
    one row per document. For every number of deciders ``m`` in ``m_values`` (those some
    document has) 1 + 2 k columns: the cells (its length, if it has ``m`` deciders, else 0),
    then per label the sum of ``x``, then per label the sum of ``x**2``. Column sums (or
    sums weighted by resampling counts) go to :func:`label_counts_from_sums`."""
    D, k = counts.document_label.shape[:2]
    m_values = np.unique(counts.deciders)
    table = np.zeros((D, len(m_values), 1 + 2 * k), np.int64)
    for u, m in enumerate(m_values):
        rows = counts.deciders == m
        table[rows, u, 0] = counts.lengths[rows]
        table[rows, u, 1:1 + k] = counts.document_label[rows, :, 0]
        table[rows, u, 1 + k:] = counts.document_label[rows, :, 1]
    return table.reshape(D, -1), m_values


def label_counts_from_sums(sums: np.ndarray, m_values, n_labels: int,
                           n_annotators: int) -> np.ndarray:
    """(R, k, n + 1, 3) int64 label counts (cells, positives, positives_squared per label and
    number of deciders, the layout of ``mla.count_arrays``) from (R, F) sums of
    :func:`document_table` columns."""
    R, k = sums.shape[0], n_labels
    blocks = sums.reshape(R, len(m_values), 1 + 2 * k)
    out = np.zeros((R, k, n_annotators + 1, 3), np.int64)
    for u, m in enumerate(m_values):
        out[:, :, m, 0] = blocks[:, u, :1]
        out[:, :, m, 1] = blocks[:, u, 1:1 + k]
        out[:, :, m, 2] = blocks[:, u, 1 + k:]
    return out


def document_pairs(counts: SpanCounts) -> tuple[np.ndarray, np.ndarray]:
    """(agreeing, pairs) per document: the (annotator pair, label, position) comparisons
    that agree, and all of them. A position with ``x`` of ``m`` annotators saying 1 has
    ``m (m - 1) / 2`` pairs, of which ``x (m - x)`` disagree."""
    k = counts.document_label.shape[1]
    m = counts.deciders
    pairs = k * counts.lengths * (m * (m - 1) // 2)
    positives = counts.document_label[..., 0].sum(axis=1)
    squares = counts.document_label[..., 1].sum(axis=1)
    return pairs - (m * positives - squares), pairs
