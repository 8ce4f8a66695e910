"""The span table: one row per span (document, annotator, start, end, label), the length of
each document's continuum and which annotator annotated which document.

Layout of the Dataset :func:`from_spans` returns (every span measure reads it through
:func:`span_arrays`)::

    dims         span, document, annotator, label
    over span    document, annotator, label  (coordinates: the ids of each span)
                 start, end                  (data: half-open offsets, int64 or float64)
    over document   document_id  (indexed coordinate: the document ids), length
    over annotator  annotator_id (indexed coordinate)
    over label      label_id     (indexed coordinate: the label universe)
    over (document, annotator)   annotated (bool)

The span-wise ids take the names ``document``, ``annotator`` and ``label``, so the dims' own
indexes are ``document_id``, ``annotator_id`` and ``label_id``:
``table.length.sel(document_id="d1")``, ``table.annotated.sel(annotator_id="ann")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

COLUMNS = ("document", "annotator", "start", "end", "label")
ID_DIMS = {"document": "document_id", "annotator": "annotator_id", "label": "label_id"}
# what the measures that take the documents every annotator annotated (unitizing alpha,
# gamma) count of them: long_name, symbol, description
CONTINUUM_COUNTS = {
    "n_documents": ("documents in the continuum", "",
                    "documents that every annotator annotated: the continuum"),
    "n_documents_left_out": ("documents left out", "",
                             "documents that some annotator did not annotate"),
    "n_units": ("units", "", "units of all labels and annotators in the continuum"),
}
REQUIRED = ("start", "end", "length", "annotated", *COLUMNS, *ID_DIMS.values())


class SpanArrays(NamedTuple):
    """A span table as plain arrays: what the kernels read.

    ``document``, ``annotator`` and ``label`` are int64 codes into ``document_ids``,
    ``annotator_ids`` and ``label_ids``; ``start`` and ``end`` the offsets (int64 or
    float64); ``lengths`` (n_documents,) and ``annotated`` (n_documents, n_annotators) bool.
    """

    document: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    start: np.ndarray
    end: np.ndarray
    lengths: np.ndarray
    annotated: np.ndarray
    document_ids: np.ndarray
    annotator_ids: np.ndarray
    label_ids: np.ndarray


def _ids(values, column: str) -> np.ndarray:
    """One id per value: text or a number (a whole float is its int, as the readers read
    ids); refused naming the column and the first offending row: missing, a boolean, NaN,
    an infinity, blank text, a list."""
    values = pd.Series(values, dtype=object).reset_index(drop=True)
    kind = pd.api.types.infer_dtype(values, skipna=False)
    if kind == "string" and not values.str.strip().eq("").any():
        return values.to_numpy(dtype=object)  # the common case, without a loop per row
    if kind == "integer":
        return np.array([int(v) for v in values], dtype=object)
    out = np.empty(len(values), dtype=object)
    has_text = has_number = False
    for row, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or value is None:
            raise ValueError(f"{column} of span {row} must be an id (text or a number), "
                             f"got {value!r}")
        if isinstance(value, str):
            if not value.strip():
                raise ValueError(f"{column} of span {row} is blank ({value!r})")
            has_text = True
        elif isinstance(value, (int, np.integer)):
            value = int(value)
            has_number = True
        elif isinstance(value, (float, np.floating)):
            if not np.isfinite(value):
                raise ValueError(f"{column} of span {row} must be an id, got {value!r}")
            value = int(value) if float(value).is_integer() else float(value)
            has_number = True
        else:
            raise ValueError(f"{column} of span {row} must be an id (text or a number), got "
                             f"{type(value).__name__} {value!r}")
        out[row] = value
    if has_text and has_number:  # 1 and "1" are one id, as in every reader
        out = np.array([str(v) for v in out], dtype=object)
    return out


def _offsets(values, column: str) -> np.ndarray:
    """Offsets as int64 when every one is a whole number, else float64 (time continua)."""
    series = pd.Series(values).reset_index(drop=True)
    if series.dtype == bool or series.map(lambda v: isinstance(v, (bool, np.bool_))).any():
        raise ValueError(f"{column} offsets must be numbers, not booleans")
    # whole numbers given as integers are kept exactly: through float64 an offset past
    # 2**53 would silently move (2**53 + 3 becomes 2**53 + 4) and the table turn "real"
    # (missing values, as in pandas' nullable Int64, go on to be refused as not finite)
    if not series.isna().any() and (series.dtype.kind in "iu" or (len(series) and series.map(
            lambda v: isinstance(v, (int, np.integer))).all())):
        exact = [int(v) for v in series]
        if not all(-2**63 <= v < 2**63 for v in exact):
            row = next(r for r, v in enumerate(exact) if not -2**63 <= v < 2**63)
            raise ValueError(f"{column} of span {row} is {exact[row]!r}, beyond the 64-bit "
                             f"integers offsets are kept in")
        return np.array(exact, dtype=np.int64)
    try:
        numbers = pd.to_numeric(series, errors="raise").to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{column} offsets must be numbers: {error}") from None
    bad = ~np.isfinite(numbers)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{column} of span {row} must be a finite number, got "
                         f"{series.iloc[row]!r}")
    if np.all(numbers == np.round(numbers)) and np.all(np.abs(numbers) < 2.0**53):
        return numbers.astype(np.int64)
    return numbers


def _records_frame(records) -> pd.DataFrame:
    if isinstance(records, pd.DataFrame):
        missing = [c for c in COLUMNS if c not in records.columns]
        if missing:
            raise ValueError(f"the span records lack the columns {missing}; they have "
                             f"{list(records.columns)}")
        return records.loc[:, list(COLUMNS)].reset_index(drop=True)
    rows = list(records)
    for row, record in enumerate(rows):
        if isinstance(record, (str, bytes)) or not hasattr(record, "__len__") \
                or len(record) != 5:
            raise ValueError(f"span record {row} must be (document, annotator, start, end, "
                             f"label), got {record!r}")
    return pd.DataFrame([tuple(r) for r in rows], columns=list(COLUMNS), dtype=object)


def _first_appearance(*groups) -> list:
    seen: dict = {}
    for group in groups:
        for value in group:
            seen.setdefault(value, None)
    return list(seen)


def _id_array(values: list) -> np.ndarray:
    if values and all(isinstance(v, str) for v in values):
        return np.array(values, dtype=str)
    # ints past int64 (64-bit unsigned hashes as ids) stay Python ints in an object array
    if all(isinstance(v, int) and -2**63 <= v < 2**63 for v in values):
        return np.array(values, dtype=np.int64)
    return np.array(values, dtype=object)


def from_spans(records, lengths=None, annotated=None, *, labels=None,
               texts=None) -> xr.Dataset:
    """The span table of span annotations (named entities, segments, highlights).

    Parameters
    ----------
    records : DataFrame or iterable of tuples
        One span per row: ``(document, annotator, start, end, label)``, or a DataFrame with
        those columns. ``start`` and ``end`` are half-open offsets: characters or tokens
        (integers), or seconds (floats) for a time continuum; ``start < end``.
    lengths : mapping, optional
        The length of each document's continuum (``{document: length}`` or a Series).
        Default: each document's largest ``end``. Documents that hold no span need one here.
    annotated : iterable of (document, annotator) pairs, optional
        The pairs that were annotated, so that "read the document and marked nothing"
        (every position 0) differs from "never saw it" (missing, NaN). Default: the pairs
        that hold a span.
    labels : sequence, optional
        The label universe, in order (a label nobody used counts: it agrees everywhere).
        Default: the labels of the spans, in order of first appearance.
    texts : mapping, optional
        The text of documents whose offsets are characters (``{document: text}``): kept as
        the variable ``text`` over ``document`` (empty where unknown) so that lists of
        disagreements can quote the spans; a document's length defaults to its text's.

    Returns
    -------
    xarray.Dataset
        Dims ``span``, ``document``, ``annotator``, ``label``. Over ``span``: ``document``,
        ``annotator``, ``label`` (the ids, as coordinates), ``start``, ``end``; ``length``
        over ``document``; ``annotated`` over (``document``, ``annotator``). The dims'
        indexes are ``document_id``, ``annotator_id`` and ``label_id``. The records are not
        modified; spans keep their order.

    Raises
    ------
    ValueError
        A missing column, an id that is not text or a number, an offset that is not a finite
        number, ``start >= end``, a negative start, an end past the document's length, a span
        of a (document, annotator) pair that ``annotated`` leaves out, a label outside
        ``labels``, the same span twice, a document without spans and without a length. The
        message names the span (its row), the document and the offsets.

    Examples
    --------
    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 7, "LOC"), ("d1", "bob", 0, 7, "LOC"), ("d1", "bob", 12, 30, "ORG")],
    ...     lengths={"d1": 40, "d2": 25},
    ...     annotated=[("d1", "ann"), ("d1", "bob"), ("d2", "ann"), ("d2", "bob")])
    >>> table.sizes["span"], table.label_id.values.tolist()
    (3, ['LOC', 'ORG'])
    >>> int(table.length.sel(document_id="d2"))
    25
    """
    frame = _records_frame(records)
    document = _ids(frame["document"], "document")
    annotator = _ids(frame["annotator"], "annotator")
    label = _ids(frame["label"], "label")
    start = _offsets(frame["start"], "start")
    end = _offsets(frame["end"], "end")
    if start.dtype != end.dtype:
        start, end = start.astype(np.float64), end.astype(np.float64)

    def where(row) -> str:
        return (f"span {row} (document {document[row]!r}, annotator {annotator[row]!r}, "
                f"label {label[row]!r}, start {start[row].item()!r}, end "
                f"{end[row].item()!r})")

    empty = np.flatnonzero(start >= end)
    if empty.size:
        raise ValueError(f"{where(empty[0])}: start must be less than end (offsets are "
                         f"half-open, [start, end))")
    negative = np.flatnonzero(start < 0)
    if negative.size:
        raise ValueError(f"{where(negative[0])}: start is negative")

    text_of: dict = {}
    if texts is not None:
        if not isinstance(texts, (Mapping, pd.Series)):
            raise TypeError(f"texts must map each document to its text (a dict or a Series), "
                            f"got {type(texts).__name__}")
        for key, value in texts.items():
            if not isinstance(value, str):
                raise ValueError(f"texts gives document {key!r} a {type(value).__name__}, "
                                 f"not text")
        if len(texts):
            text_keys = _ids(list(texts.keys()), "document in texts")
            text_of = dict(zip(text_keys, texts.values()))
        if lengths is None and text_of:
            lengths = {key: len(value) for key, value in text_of.items()}
            # documents without a text keep the default (their largest end)
            for row, doc in enumerate(document):
                lengths.setdefault(doc, None)
            largest = pd.Series(end).groupby(pd.Series(document, dtype=object)).max()
            lengths = {key: (largest[key].item() if value is None else value)
                       for key, value in lengths.items()}
        elif lengths is not None:
            for key, value in text_of.items():
                given = lengths.get(key) if hasattr(lengths, "get") else None
                if given is not None and given != len(value):
                    raise ValueError(f"document {key!r}: lengths gives {given!r} but its text "
                                     f"has {len(value)} characters")

    length_of: dict = {}
    if lengths is not None:
        items = lengths.items() if isinstance(lengths, (Mapping, pd.Series)) else None
        if items is None:
            raise TypeError(f"lengths must map each document to its length (a dict or a "
                            f"Series), got {type(lengths).__name__}")
        keys, values = zip(*items) if len(lengths) else ((), ())
        keys = _ids(list(keys), "document in lengths") if keys else []
        values = _offsets(list(values), "length") if values else []
        for key, value in zip(keys, values):
            if key in length_of:
                raise ValueError(f"lengths gives document {key!r} twice")
            if value < 0:
                raise ValueError(f"lengths gives document {key!r} the negative length "
                                 f"{value!r}")
            length_of[key] = value.item() if hasattr(value, "item") else value

    pairs: list | None = None
    if annotated is not None:
        if isinstance(annotated, pd.DataFrame):
            annotated = annotated.itertuples(index=False, name=None)
        pairs = []
        for number, pair in enumerate(annotated):
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise ValueError(f"annotated pair {number} must be (document, annotator), got "
                                 f"{pair!r}")
            pairs.append(tuple(pair))
        if pairs:
            pair_docs = _ids([p[0] for p in pairs], "document in annotated")
            pair_anns = _ids([p[1] for p in pairs], "annotator in annotated")
            pairs = list(zip(pair_docs, pair_anns))

    # 1 and "1" are one id: when the records hold text ids, numbers elsewhere are read as text
    def same_kind(values, like):
        if len(like) and isinstance(like[0], str):
            return [str(v) for v in values]
        return list(values)

    length_keys = same_kind(length_of, document)
    length_of = dict(zip(length_keys, length_of.values()))
    text_of = dict(zip(same_kind(text_of, document), text_of.values()))
    if pairs:
        pairs = list(zip(same_kind([p[0] for p in pairs], document),
                         same_kind([p[1] for p in pairs], annotator)))

    document_ids = _first_appearance(document, length_of, [p[0] for p in pairs or ()],
                                     text_of)
    annotator_ids = _first_appearance(annotator, [p[1] for p in pairs or ()])
    if labels is not None:
        label_list = list(_ids(list(labels), "label in labels"))
        label_list = same_kind(label_list, label)
        if len(set(label_list)) != len(label_list):
            raise ValueError(f"labels holds a label twice: {label_list}")
        known = set(label_list)
        outside = [row for row, value in enumerate(label) if value not in known]
        if outside:
            raise ValueError(f"{where(outside[0])}: its label is not one of the labels "
                             f"{label_list}")
        label_ids = label_list
    else:
        label_ids = _first_appearance(label)

    document_code = pd.Index(document_ids).get_indexer(pd.Index(document, dtype=object))
    annotator_code = pd.Index(annotator_ids).get_indexer(pd.Index(annotator, dtype=object))
    label_code = pd.Index(label_ids).get_indexer(pd.Index(label, dtype=object))

    n_documents, n_annotators = len(document_ids), len(annotator_ids)
    if pairs is None:
        annotated_mask = np.zeros((n_documents, n_annotators), dtype=bool)
        annotated_mask[document_code, annotator_code] = True
    else:
        annotated_mask = np.zeros((n_documents, n_annotators), dtype=bool)
        document_index, annotator_index = pd.Index(document_ids), pd.Index(annotator_ids)
        for doc, ann in pairs:
            annotated_mask[document_index.get_loc(doc), annotator_index.get_loc(ann)] = True
        outside = np.flatnonzero(~annotated_mask[document_code, annotator_code])
        if outside.size:
            raise ValueError(f"{where(outside[0])}: annotated does not list the pair "
                             f"({document[outside[0]]!r}, {annotator[outside[0]]!r}) that "
                             f"holds this span")

    # lengths: given, or the largest end
    largest_end = np.zeros(n_documents, dtype=end.dtype)
    has_span = np.zeros(n_documents, dtype=bool)
    if len(end):
        np.maximum.at(largest_end, document_code, end)
        has_span[document_code] = True
    if lengths is None:
        no_length = np.flatnonzero(~has_span)
        if no_length.size:
            raise ValueError(f"document {document_ids[no_length[0]]!r} holds no span, so its "
                             f"length is unknown: pass lengths={{document: length}}")
        length_values = largest_end
    else:
        missing = [doc for doc in document_ids if doc not in length_of]
        if missing:
            raise ValueError(f"lengths gives no length for the document {missing[0]!r}")
        length_values = np.array([length_of[doc] for doc in document_ids])
        if length_values.dtype.kind == "f" or end.dtype.kind == "f":
            length_values = length_values.astype(np.float64)
            if end.dtype.kind != "f":
                start, end = start.astype(np.float64), end.astype(np.float64)
        else:
            length_values = length_values.astype(np.int64)
        past = np.flatnonzero(end > length_values[document_code])
        if past.size:
            row = past[0]
            raise ValueError(f"{where(row)}: end is past the document's length "
                             f"{length_values[document_code[row]].item()!r}")

    if len(end):
        keys = pd.DataFrame({"d": document_code, "a": annotator_code, "l": label_code,
                             "s": start, "e": end})
        twice = np.flatnonzero(keys.duplicated().to_numpy())
        if twice.size:
            first = int(np.flatnonzero((keys == keys.iloc[twice[0]]).all(axis=1))[0])
            raise ValueError(f"{where(twice[0])} is the same span as span {first}: a doubled "
                             f"record (drop one, or mark the annotator's second span apart)")

    table = xr.Dataset(
        {
            "start": ("span", start),
            "end": ("span", end),
            "length": ("document", length_values),
            "annotated": (("document", "annotator"), annotated_mask),
        },
        coords={
            "document": ("span", _id_array(list(document))),
            "annotator": ("span", _id_array(list(annotator))),
            "label": ("span", _id_array(list(label))),
            "document_id": ("document", _id_array(document_ids)),
            "annotator_id": ("annotator", _id_array(annotator_ids)),
            "label_id": ("label", _id_array(label_ids)),
        },
    )
    if text_of:
        table["text"] = ("document", np.array([text_of.get(doc, "") for doc in document_ids],
                                              dtype=object))
        table.text.attrs.update(long_name="text", description="the document's text (empty "
                                "where unknown): offsets are characters of it")
    table = table.set_xindex("document_id").set_xindex("annotator_id").set_xindex("label_id")
    table.start.attrs.update(long_name="start", description="first offset of the span "
                             "(half-open: the span covers [start, end))")
    table.end.attrs.update(long_name="end", description="offset just past the span")
    table.length.attrs.update(long_name="length", description="length of the document's "
                              "continuum (positions 0 .. length - 1)")
    table.annotated.attrs.update(long_name="annotated", description="whether the annotator "
                                 "annotated the document (False: never saw it, missing)")
    table.attrs["offsets"] = "real" if end.dtype.kind == "f" else "integer"
    return table


def is_span_table(obj) -> bool:
    return isinstance(obj, xr.Dataset) and all(name in obj.variables for name in REQUIRED)


def _codes(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The position of each value among ``ids`` (distinct), -1 where it is not one.

    Text or integer ids of one numpy dtype kind: a binary search in the sorted ids. At
    128,000 spans of 1,000 documents, 5 annotators and 10 labels it took the three columns
    from 105 to about 30 ms (pandas' hash table converts numpy text to its own strings
    first). Other ids (object arrays, mixed kinds): pandas."""
    if ids.dtype.kind in "Ui" and values.dtype.kind == ids.dtype.kind and len(ids):
        order = np.argsort(ids, kind="stable")
        found = np.minimum(np.searchsorted(ids[order], values), len(ids) - 1)
        code = order[found]
        return np.where(ids[code] == values, code, -1)
    return pd.Index(ids).get_indexer(values)


def span_arrays(table: xr.Dataset) -> SpanArrays:
    """The span table as plain arrays (codes into the id coordinates), checked: a Dataset
    that is not a span table, or one whose spans name an id missing from the dims' ids, is
    refused naming what is wrong."""
    if not is_span_table(table):
        have = sorted(map(str, table.variables)) if isinstance(table, xr.Dataset) else \
            type(table).__name__
        raise TypeError(f"expected a span table (xr_agreement.from_spans or read_spans), got "
                        f"{have}")
    codes = {}
    for column, dim_id in ID_DIMS.items():
        values = table[column].values
        code = _codes(table[dim_id].values, values)
        if (code < 0).any():
            row = int(np.flatnonzero(code < 0)[0])
            value = values[row].item() if hasattr(values[row], "item") else values[row]
            raise ValueError(f"span {row} has {column} {value!r}, which is not among the "
                             f"table's {dim_id} values")
        codes[column] = code.astype(np.int64)
    start, end = table["start"].values, table["end"].values
    annotated = table["annotated"].values.astype(bool)
    # a table edited after from_spans (an annotator's document marked not annotated to set
    # it aside, a length cut short) keeps spans that no longer fit: counting them gave F1
    # above 1, put them in another annotator's column of the disagreements, and laid them
    # across the next document of the unitizing continuum
    lengths = table["length"].values
    checks = (
        (~annotated[codes["document"], codes["annotator"]],
         "belongs to a (document, annotator) pair the table marks as not annotated: drop the "
         "pair's spans too (or rebuild the table with from_spans)"),
        (~(start < end), "does not end after it starts"),
        (start < 0, "starts before 0"),
        (end > lengths[codes["document"]], "ends past its document's length"),
    )
    for bad, what in checks:
        if len(start) and bad.any():
            row = int(np.flatnonzero(bad)[0])

            def plain(value):
                return value.item() if isinstance(value, np.generic) else value

            raise ValueError(
                f"span {row} (document {plain(table['document'].values[row])!r}, annotator "
                f"{plain(table['annotator'].values[row])!r}, label "
                f"{plain(table['label'].values[row])!r}, start {plain(start[row])!r}, end "
                f"{plain(end[row])!r}, document length "
                f"{plain(lengths[codes['document'][row]])!r}) {what}")
    return SpanArrays(codes["document"], codes["annotator"], codes["label"], start, end,
                      lengths, annotated,
                      table["document_id"].values, table["annotator_id"].values,
                      table["label_id"].values)
