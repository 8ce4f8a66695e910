"""doccano sequence-labelling exports -> span tables.

Format, from doccano's documentation (https://doccano.github.io/doccano/tutorial/#export-data)
and its export code (github.com/doccano/doccano, ``backend/data_export/pipeline``:
``formatters.py`` writes a sequence-labelling record's spans as ``[start_offset, end_offset,
label]`` triples under ``label``; a project with relations writes ``entities`` objects and
``relations``):

- JSONL, one example per line: ``{"id": 1, "text": "...", "label": [[0, 5, "PER"], ...]}``
  (older exports name the list ``labels``), or ``{"id": 1, "text": "...", "entities":
  [{"id": 7, "label": "PER", "start_offset": 0, "end_offset": 5}], "relations": [{"id",
  "from_id", "to_id", "type"}]}``. Offsets are half-open, counted by doccano's editor in
  JavaScript's UTF-16 units (doccano issue #2290), or grapheme clusters in a project that
  counts them: the characters of ``text`` only before the first character beyond U+FFFF.
  A span ending after such a character is refused (the export holds no span text to tell
  the unit).
- One file per project member (``<username>.jsonl``), zipped, as for classification; an
  "export approved only" lists in each member's file the examples that member confirmed.

Meaning read here: everything about members, files and empty lists is the classification
reader's (:func:`xr_agreement.io.tools.doccano.read_members`, the same code): the annotator
is the file's name; an empty member file is a member who confirmed nothing (left out, said in
``notes``); ``all.jsonl`` (collaborative annotation) is refused; a record without a span
list is no decision ("no label field"); an empty list is "marked nothing" (annotated, no
span), except in a full export (every member lists the same examples, some lists empty),
which cannot tell an example never opened from one with no span and is refused unless
``empty_list`` says which ("missing" or "no-label"). Relations link spans and are not read
(counted "relation (not measured)", said in ``notes``). The document is the example ``id``,
its length the length of ``text``.
"""

from __future__ import annotations

from ..._core.attrs import json_attr
from ..files import AnnotationFileError
from ..tools._common import Annotation, Where, load_json_records, scalar_id
from ..tools.doccano import read_members
from ._shared import declared_labels
from .collect import SpanCollector, is_offset

SPAN_KEYS = ("label", "labels", "entities")


def _spans_of(value, key, where, line) -> list[tuple]:
    """(start, end, label, column) of each span of one record's span list."""
    if not isinstance(value, list):
        raise where(f"{key} must be a list of spans, got {value!r}", line, key)
    out = []
    for number, entry in enumerate(value):
        column = f"{key}[{number}]"
        if isinstance(entry, dict):
            missing = [k for k in ("start_offset", "end_offset", "label") if k not in entry]
            if missing:
                raise where(f"a span object without {missing[0]!r}: {entry!r}", line, column)
            out.append((entry["start_offset"], entry["end_offset"], entry["label"], column))
        elif isinstance(entry, list) and len(entry) == 3:
            out.append((entry[0], entry[1], entry[2], column))
        else:
            raise where(f"the entry {entry!r} is not a span [start, end, label]: a text "
                        "classification export (labels without offsets) is read by "
                        "xr_agreement.read_annotations", line, column)
        for offset in out[-1][:2]:
            if not is_offset(offset):
                raise where(f"span {entry!r}: offsets must be whole-number character "
                            f"offsets, got {offset!r}", line, column)
    return out


def _one_count(text, item, start, end, label, where, line, column) -> None:
    """Refuse a span whose offsets count differently in characters and in UTF-16 units: one
    with a character beyond U+FFFF (an emoji) before its end. doccano's editor counts
    JavaScript's UTF-16 units (doccano issue #2290), or grapheme clusters when the project
    says so, and the export gives no span text to tell which: read as characters, the span
    would silently cover other text."""
    if isinstance(end, int) and not text[:end].isascii() and any(
            ord(ch) > 0xFFFF for ch in text[:end]):
        raise where(f"span [{start}, {end}) {label!r} of example {item!r} lies after a "
                    "character beyond U+FFFF (an emoji, say), where doccano's offsets count "
                    "UTF-16 units (or grapheme clusters), not characters; the export gives no "
                    "span text to tell which, so the span is not read (not supported)",
                    line, column)


def _member(text, who, member, records_out) -> list[Annotation]:
    """The annotations of one member's file; each record's text and spans kept in
    ``records_out`` under (who, line)."""
    where = Where(member, kind="line")
    records, kind = load_json_records(member, text)
    out = []
    for line, record in records:
        row = line if kind == "array" else None
        if record.get("id") in (None, ""):
            raise where("a record without id", line, "id")
        item = scalar_id(record["id"], where, line, "id")
        keys = [k for k in SPAN_KEYS if k in record]
        if len(keys) > 1:
            raise where(f"a record with both {keys[0]!r} and {keys[1]!r}: which holds the "
                        "spans cannot be told", line, keys[1])
        relations = record.get("relations")
        records_out[(who, line)] = (record.get("text"), where,
                                    len(relations) if isinstance(relations, list) else 0)
        if not keys:  # no decision recorded for this example: dropped "no label field"
            out.append(Annotation(item, who, None, line=line, row=row))
            continue
        spans = _spans_of(record[keys[0]], keys[0], where, line)
        out.append(Annotation(item, who, spans, line=line, row=row, column=keys[0]))
    return out


def read(path, *, labels=None, empty_list=None):
    """The span table of a doccano sequence-labelling export (see the module docstring).

    Parameters
    ----------
    path : str or path-like
        The export zip (one ``<username>.jsonl`` per member), its folder, or one member's
        file.
    labels : str, path-like or sequence, optional
        The label universe (a file of one label per line, or a list). Default: the labels
        of the spans.
    empty_list : {"missing", "no-label"}, optional
        What an empty span list means where the export cannot tell (a full export):
        "missing" (never annotated: no decision) or "no-label" (looked, marked nothing).

    Returns
    -------
    xarray.Dataset
        The span table (:func:`xr_agreement.from_spans`): documents are example ids,
        annotators the members, offsets characters of ``text``; attrs ``reader``
        ("doccano"), ``dropped``, ``empty_label_lists`` and, when needed, ``notes``.

    Raises
    ------
    AnnotationFileError
        A file that is not such an export, a full export without ``empty_list``, or a span
        that cannot be read as it says (offsets outside the text, not whole numbers, start
        not before end, a label that is not text), naming the member file, the line and the
        field.

    Examples
    --------
    >>> import os, tempfile, zipfile
    >>> path = os.path.join(tempfile.mkdtemp(), "export.zip")
    >>> with zipfile.ZipFile(path, "w") as archive:
    ...     archive.writestr("alice.jsonl",
    ...                      '{"id": 1, "text": "Ada met Bob.", "label": [[0, 3, "PER"]]}\\n')
    ...     archive.writestr("bob.jsonl", '{"id": 1, "text": "Ada met Bob.", "label": '
    ...                      '[[0, 3, "PER"], [8, 11, "PER"]]}\\n')
    >>> table = read(path)
    >>> table.annotator.values.tolist(), table.start.values.tolist()
    (['alice', 'bob', 'bob'], [0, 0, 8])
    """
    from ..tools import is_config

    if is_config(labels):
        raise AnnotationFileError("a labeling config (XML) declares a Label Studio "
                                  "project's labels; give doccano's labels as a list or a "
                                  "file of one label per line", path=labels)
    universe = declared_labels(labels)
    found, members = {}, {}

    def reader(name, text, who, member):
        if name.lower().endswith(".csv"):
            raise AnnotationFileError("doccano writes sequence labelling as JSONL; a CSV "
                                      "export is a text classification one: read it with "
                                      "xr_agreement.read_annotations", path=member)
        members[who] = member
        return _member(text, who, member, found)

    annotations, dropped, empty, notes = read_members(path, reader, empty_list)
    spans = SpanCollector(Where(path), "doccano")
    spans.dropped, spans.notes = dropped, notes
    relations, seen = 0, {}
    for annotation in annotations:
        item, who = annotation.item, annotation.annotator
        first = seen.setdefault((str(item), who), annotation.line)
        if first != annotation.line:  # as the classification reader: never merged
            raise AnnotationFileError(
                f"duplicate annotation: example {item!r} by {who!r} already at line {first}",
                path=members[who], line=annotation.line)
        text, where, n_relations = found[(who, annotation.line)]
        spans.where = where  # errors name the member file and its line
        if annotation.chosen is None:
            if isinstance(text, str):
                spans.document(item, text, annotation.line, "text")
            spans.not_annotated(item, who)
            continue
        if not isinstance(text, str):
            raise where(f"example {item!r} has no text (the text its spans are offsets "
                        "into)", annotation.line, "text")
        spans.document(item, text, annotation.line, "text")
        spans.annotated(item, who)
        for start, end, label, column in annotation.chosen:
            _one_count(text, item, start, end, label, where, annotation.line, column)
            spans.span(item, who, start, end, label, annotation.line, column)
        relations += n_relations
        for _ in range(n_relations):
            dropped.add("relation (not measured)", who)
    spans.where = Where(path)
    if relations:
        notes.append(f"doccano: {relations} relation(s) between spans not read: span "
                     "agreement measures the spans, not the relations.")
    table = spans.table(universe)
    table.attrs["empty_label_lists"] = json_attr(dict(sorted(empty.items())))
    return table


def looks_like(records) -> bool:
    """Whether parsed JSON records (dicts, or ``(line, dict)`` pairs) are doccano
    sequence-labelling records: an ``id``, a ``text`` and a span list (``label`` /
    ``labels`` of ``[start, end, label]`` triples, or ``entities`` objects with
    ``start_offset`` and ``end_offset``).

    Examples
    --------
    >>> looks_like([{"id": 1, "text": "Ada", "label": [[0, 3, "PER"]]}])
    True
    >>> looks_like([{"id": 1, "text": "Ada", "label": ["positive"]}])
    False
    """
    seen = False
    for record in list(records)[:1000]:
        if isinstance(record, tuple) and len(record) == 2:
            record = record[1]
        if not isinstance(record, dict) or "id" not in record or "text" not in record:
            return False
        for key in SPAN_KEYS:
            value = record.get(key)
            if not isinstance(value, list):
                continue
            for entry in value:
                if isinstance(entry, dict) and "start_offset" in entry and "end_offset" in entry:
                    seen = True
                elif isinstance(entry, list) and len(entry) == 3 and all(
                        is_offset(v) for v in entry[:2]):
                    seen = True
                else:
                    return False
    return seen
