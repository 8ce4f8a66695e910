"""The list to adjudicate on spans: :func:`span_disagreements`, one row per disputed region.

A position of a document is disputed when the annotators who annotated the document do not
all make the same decision on some label there (one covers it with a span of the label,
another does not). A region is a maximal run of disputed positions. Per document the span
boundaries cut the continuum into elementary segments on which every annotator's coverage
is constant; the coverage of each (annotator, label) on each segment is a cumulative sum of
+1 at starts and -1 at ends, so the positions are never walked one by one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .table import span_arrays

FIXED_COLUMNS = ("document", "start", "end", "text", "n_annotators", "labels",
                 "disagreement")


def _document_regions(starts, ends, annotators, labels, readers, n_labels):
    """Disputed regions of one document, from its spans' codes: arrays of the regions'
    starts, ends, disagreement and disputed labels (region x label). ``readers`` are the
    annotators who annotated it (a bool mask over all annotators)."""
    cut = np.unique(np.concatenate([starts, ends]))
    # coverage only over this document's readers and the labels it uses: segments x
    # readers x labels stays in proportion to the document, not to the corpus's universe
    reader = np.cumsum(readers) - 1
    present, label = np.unique(labels, return_inverse=True)
    coverage = np.zeros((len(cut), int(readers.sum()), len(present)), np.int64)
    np.add.at(coverage, (np.searchsorted(cut, starts), reader[annotators], label), 1)
    np.add.at(coverage, (np.searchsorted(cut, ends), reader[annotators], label), -1)
    covered = np.cumsum(coverage, axis=0)[:-1] > 0  # segment x reader x label
    m = covered.shape[1]
    x = covered.sum(axis=1)  # segment x label: readers covering
    disputed_label = (x > 0) & (x < m)
    disputed = disputed_label.any(axis=1)
    # annotator pairs that differ, summed over labels, times the segment's length
    pair_positions = (x * (m - x)).sum(axis=1) * np.diff(cut)
    # runs of disputed segments (consecutive segments touch: a run is one region)
    edge = np.flatnonzero(np.diff(np.r_[False, disputed, False].astype(np.int8)))
    first, stop = edge[0::2], edge[1::2]
    if len(first) == 0:
        return None
    # sums from each run's first segment up to the next run's: the segments in between are
    # agreed, so they add 0 and no label
    score = np.add.reduceat(pair_positions, first)
    labels_of = np.zeros((len(first), n_labels), bool)
    labels_of[:, present] = np.logical_or.reduceat(disputed_label, first, axis=0)
    return cut[first], cut[stop], score, labels_of


def _tuples(rows, ids) -> np.ndarray:
    """A 1-D object array of the tuple of ids each boolean row selects. Rows repeat (few
    label sets, many regions): each distinct row is made once."""
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    made = np.empty(len(distinct), dtype=object)
    for i, row in enumerate(distinct):  # element by element: a 2-D array otherwise
        made[i] = tuple(ids[j] for j in np.flatnonzero(row))
    return made[inverse.reshape(-1)]


def _marks(arrays, spans, region_document, region_start, region_end, label_ids):
    """(region, annotator) -> the annotator's spans overlapping the region, formatted and
    joined, for the spans ``spans`` (indices, sorted by document, start, end, label) and
    the regions (sorted by document and start, disjoint within a document)."""
    document = arrays.document[spans]
    start, end = arrays.start[spans], arrays.end[spans]
    # per span, the regions of its document it overlaps: [lo, hi) of the region list
    lo = np.empty(len(spans), np.int64)
    hi = np.empty(len(spans), np.int64)
    doc_cut = np.searchsorted(region_document, np.arange(len(arrays.document_ids) + 1))
    span_cut = np.searchsorted(document, np.arange(len(arrays.document_ids) + 1))
    for d in np.unique(document):
        r0, r1 = doc_cut[d], doc_cut[d + 1]
        s0, s1 = span_cut[d], span_cut[d + 1]
        lo[s0:s1] = r0 + np.searchsorted(region_end[r0:r1], start[s0:s1], side="right")
        hi[s0:s1] = r0 + np.searchsorted(region_start[r0:r1], end[s0:s1], side="left")
    count = np.maximum(hi - lo, 0)
    which = np.repeat(np.arange(len(spans)), count)
    region = np.repeat(lo, count) + (np.arange(count.sum()) - np.repeat(np.cumsum(count)
                                                                         - count, count))
    label = arrays.label[spans]
    annotator = arrays.annotator[spans][which]
    # group by (region, annotator), keeping the spans' order within a group
    order = np.lexsort((which, annotator, region))
    region, annotator, which = region[order], annotator[order], which[order]
    text = [f"{label_ids[j]} [{s},{e})" for j, s, e in
            zip(label[which].tolist(), start[which].tolist(), end[which].tolist())]
    key = region * len(arrays.annotator_ids) + annotator
    groups = np.flatnonzero(np.diff(key, prepend=-1)) if len(key) else np.zeros(0, np.int64)
    stops = np.r_[groups[1:], len(key)].tolist()
    joined = ["; ".join(text[a:b]) for a, b in zip(groups.tolist(), stops)]
    return region[groups], annotator[groups], joined


def span_disagreements(table: xr.Dataset, *, top: int | None = None) -> pd.DataFrame:
    """The disputed regions of a span table, most disputed first: the list to adjudicate.

    A position is disputed when the annotators who annotated its document do not all agree
    on every label there (some cover it with a span of a label, some do not); a region is a
    maximal run of disputed positions in one document. Annotators who did not annotate the
    document take no part (a document fewer than two annotated has no region).

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``).
    top : int, optional
        Keep the first ``top`` rows (the most disputed).

    Returns
    -------
    pandas.DataFrame
        One row per region, columns in order: ``document`` (id), ``start``, ``end`` (the
        region, half-open), ``text`` (the region's characters when the table has ``text``
        and integer offsets, else ""), ``n_annotators`` (who annotated the document),
        ``labels`` (tuple of the labels disputed somewhere in the region, in label order),
        ``disagreement`` (the annotator pairs that differ, summed over the region's
        positions and the labels: for real offsets weighted by length), then one column per
        annotator, named by its id, in annotator order: what the annotator marked over the
        region, its spans that overlap it as ``"LABEL [start,end)"`` joined by ``"; "``
        (in order of start, end and the table's label order; a span may reach past the
        region), ``""`` for
        nothing, NaN for an annotator who did not annotate the document. Sorted by
        ``disagreement`` descending, then document order and start; index ``0 .. n - 1``.
        Text and ids are given as they are in the table (not escaped).

    Raises
    ------
    ValueError
        ``top`` is negative or not an integer; an annotator id equals a fixed column name
        (rename the annotator first); the table is not a span table.

    Examples
    --------
    >>> import xr_agreement
    >>> text = "Kofi Annan visited Nairobi for the United Nations."
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 10, "PER"), ("d1", "ann", 19, 26, "LOC"),
    ...      ("d1", "bob", 0, 10, "PER"), ("d1", "bob", 31, 49, "LOC")],
    ...     texts={"d1": text})
    >>> regions = xr_agreement.spans.span_disagreements(table)
    >>> regions[["start", "end", "text", "disagreement", "ann", "bob"]]
       start  end                text  disagreement          ann              bob
    0     31   49  the United Nations            18               LOC [31,49)
    1     19   26             Nairobi             7  LOC [19,26)
    """
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer))
                            or top < 0):
        raise ValueError(f"top must be a non-negative integer or None, got {top!r}")
    arrays = span_arrays(table)
    n_documents, n_annotators = arrays.annotated.shape
    n_labels = len(arrays.label_ids)
    # plain Python ids (not numpy scalars) in the frame and in messages
    annotator_ids = arrays.annotator_ids.tolist()
    document_ids = arrays.document_ids.tolist()
    label_ids = arrays.label_ids.tolist()
    clash = [a for a in annotator_ids if isinstance(a, str) and a in FIXED_COLUMNS]
    if clash:
        raise ValueError(f"annotator {clash[0]!r} has the name of a fixed column of the "
                         f"disagreements table {FIXED_COLUMNS}; rename the annotator first")
    texts = table["text"].values if "text" in table.variables else None
    integer = arrays.start.dtype.kind in "iu"

    order = np.lexsort((arrays.label, arrays.end, arrays.start, arrays.document))
    document = arrays.document[order]
    split = np.searchsorted(document, np.arange(n_documents + 1))
    n_readers = arrays.annotated.sum(axis=1)
    found = []  # (document, starts, ends, scores, labels) per document with regions
    for d in np.flatnonzero((n_readers >= 2) & (split[1:] > split[:-1])):
        spans = order[split[d]:split[d + 1]]
        regions = _document_regions(arrays.start[spans], arrays.end[spans],
                                    arrays.annotator[spans], arrays.label[spans],
                                    arrays.annotated[d], n_labels)
        if regions is not None:
            found.append((np.full(len(regions[0]), d), *regions))
    if found:
        region_document, region_start, region_end, score, disputed = (
            np.concatenate(parts) for parts in zip(*found))
    else:
        region_document = np.zeros(0, np.int64)
        region_start = region_end = np.zeros(0, arrays.start.dtype)
        score = np.zeros(0, arrays.start.dtype)
        disputed = np.zeros((0, n_labels), bool)

    # what each annotator marked: "" for a reader who marked nothing there, NaN for others
    cells = np.full((len(region_document), n_annotators), np.nan, dtype=object)
    readers = arrays.annotated[region_document]
    cells[readers] = ""
    region, annotator, joined = _marks(arrays, order, region_document, region_start,
                                       region_end, label_ids)
    cells[region, annotator] = joined

    if texts is not None and integer:
        text = [texts[d][s:e] for d, s, e in zip(region_document.tolist(),
                                                 region_start.tolist(), region_end.tolist())]
    else:
        text = [""] * len(region_document)
    columns = {
        "document": np.array([document_ids[d] for d in region_document.tolist()], object),
        "start": region_start,
        "end": region_end,
        "text": np.array(text, dtype=object),
        "n_annotators": n_readers[region_document].astype(np.int64),
        "labels": _tuples(disputed, label_ids),
        "disagreement": score,
    }
    # most disputed first; ties in document order, then by start
    rank = np.lexsort((region_start, region_document, -score))
    frame = pd.DataFrame({name: values[rank] for name, values in columns.items()})
    for a in range(n_annotators):
        frame[len(FIXED_COLUMNS) + a] = cells[rank, a]
    # annotator columns named by their ids only now: an id never takes a fixed column's place
    frame.columns = [*FIXED_COLUMNS, *annotator_ids]
    if top is not None:
        frame = frame.head(int(top))
    return frame
