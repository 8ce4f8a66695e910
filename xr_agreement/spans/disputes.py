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


def _offset(value) -> str:
    return str(value.item() if hasattr(value, "item") else value)


def _document_regions(starts, ends, annotators, labels, readers, n_annotators,
                      n_labels):
    """Disputed regions of one document: (start, end, disagreement, disputed labels) per
    region, from the spans' codes. ``readers`` are the annotators who annotated it."""
    cut = np.unique(np.concatenate([starts, ends]))
    if len(cut) < 2:
        return []
    coverage = np.zeros((len(cut), n_annotators, n_labels), np.int64)
    np.add.at(coverage, (np.searchsorted(cut, starts), annotators, labels), 1)
    np.add.at(coverage, (np.searchsorted(cut, ends), annotators, labels), -1)
    covered = np.cumsum(coverage, axis=0)[:-1, readers, :] > 0  # segment x reader x label
    m = len(readers)
    x = covered.sum(axis=1)  # segment x label: readers covering
    disputed_label = (x > 0) & (x < m)
    disputed = disputed_label.any(axis=1)
    length = np.diff(cut)
    # annotator pairs that differ, summed over labels, times the segment's length
    pair_positions = (x * (m - x)).sum(axis=1) * length
    regions = []
    k = 0
    n = len(disputed)
    while k < n:
        if not disputed[k]:
            k += 1
            continue
        first = k
        while k + 1 < n and disputed[k + 1]:  # segments are contiguous: cut[k+1] ends one
            k += 1
        regions.append((cut[first], cut[k + 1], pair_positions[first:k + 1].sum(),
                        disputed_label[first:k + 1].any(axis=0)))
        k += 1
    return regions


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
    rows = []
    for d in range(n_documents):
        readers = np.flatnonzero(arrays.annotated[d])
        if len(readers) < 2:
            continue
        spans = order[split[d]:split[d + 1]]
        if len(spans) == 0:
            continue
        starts, ends = arrays.start[spans], arrays.end[spans]
        regions = _document_regions(starts, ends, arrays.annotator[spans],
                                    arrays.label[spans], readers, n_annotators, n_labels)
        for start, end, score, disputed_label in regions:
            row = {"document": document_ids[d], "start": start, "end": end,
                   "text": texts[d][int(start):int(end)] if texts is not None and integer
                   else "",
                   "n_annotators": len(readers),
                   "labels": tuple(label_ids[j] for j in np.flatnonzero(disputed_label)),
                   "disagreement": score, "_document": d}
            inside = spans[(starts < end) & (ends > start)]
            for a in range(n_annotators):
                if not arrays.annotated[d, a]:
                    row[a] = np.nan
                    continue
                mine = inside[arrays.annotator[inside] == a]  # already in start, end order
                row[a] = "; ".join(f"{label_ids[arrays.label[s]]} "
                                   f"[{_offset(arrays.start[s])},{_offset(arrays.end[s])})"
                                   for s in mine)
            rows.append(row)

    columns = [*FIXED_COLUMNS, "_document", *range(n_annotators)]
    frame = pd.DataFrame(rows, columns=columns)
    if len(frame) == 0:  # keep the columns' kinds on an empty list
        frame = frame.astype({"start": arrays.start.dtype, "end": arrays.end.dtype,
                              "n_annotators": np.int64,
                              "disagreement": arrays.start.dtype})
    frame = frame.sort_values(["disagreement", "_document", "start"],
                              ascending=[False, True, True], kind="stable")
    frame = frame.drop(columns="_document").reset_index(drop=True)
    # annotator columns named by their ids only now: an id never takes a fixed column's place
    frame.columns = [*FIXED_COLUMNS, *annotator_ids]
    if top is not None:
        frame = frame.head(int(top))
    return frame
