"""What the span readers share: spans gathered with where they came from in the file, checked
there (so that an error names the file, the row and the field, not a span number of the
table), then handed to :func:`xr_agreement.spans.table.from_spans`.

A reader calls :meth:`SpanCollector.document` for each document it meets (its text, when
the export holds it), :meth:`SpanCollector.annotated` or :meth:`SpanCollector.not_annotated`
for each (document, annotator) it meets, and :meth:`SpanCollector.span` for each span;
:meth:`SpanCollector.table` builds the span table, with attrs ``reader``, ``dropped`` (what
was left out, per reason and annotator, as the classification readers say it) and, where
there is something to say, ``notes``.
"""

from __future__ import annotations


import numpy as np

from ..._core.attrs import json_attr
from ...spans.table import from_spans
from ..files import AnnotationFileError, ids_as_coordinate
from ..tools._common import Dropped, blank, label_text


def is_offset(value) -> bool:
    """A whole-number offset as JSON gives it: an int, never a bool (``true`` is not 1)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class SpanCollector:
    """Spans of one export, each checked where it is read."""

    def __init__(self, where, reader: str):
        self.where, self.reader = where, reader
        self.texts: dict = {}
        self.lengths: dict = {}
        self.documents: dict = {}  # document -> None, in order of appearance
        self.pairs: dict = {}  # (document, annotator) -> annotated (bool)
        self.spans: dict = {}  # (document, annotator, start, end, label) -> (row, column)
        self.dropped = Dropped()
        self.notes: list[str] = []
        self.utf16 = 0  # spans whose offsets counted UTF-16 units, converted
        self.labels: dict = {}  # label as written -> label as checked

    def document(self, document, text=None, row=None, column=None) -> None:
        """Meet a document (and its text, when known). One document with two texts (a task
        exported twice, edited in between) is refused: its offsets would point into
        either."""
        key = _key(document)
        self.documents.setdefault(key, None)
        if text is None:
            return
        if not isinstance(text, str):
            raise self.where(f"the text of document {document!r} must be text, got "
                             f"{type(text).__name__}", row, column)
        known = self.texts.setdefault(key, text)
        if known != text:
            raise self.where(f"document {document!r} appears twice with different texts: "
                             "which one its offsets point into cannot be told", row, column)

    def annotated(self, document, annotator) -> None:
        """The annotator annotated the document (marked spans there, or none)."""
        self.document(document)
        self.pairs[(_key(document), annotator)] = True

    def not_annotated(self, document, annotator) -> None:
        """The annotator appears on the document but made no decision there (missing). The
        document stays in the table (its length known from its text); an annotator with no
        decision anywhere has no column (what was dropped says who)."""
        self.document(document)
        self.pairs.setdefault((_key(document), annotator), False)

    def text_of(self, document):
        return self.texts.get(_key(document))

    def span(self, document, annotator, start, end, label, row=None, column=None,
             quoted=None) -> None:
        """One span ``[start, end)`` with one label. ``quoted``: the text the export says
        the span covers (checked against the document's text: a mismatch means the offsets
        count something else). The same span twice by one annotator is one span, counted in
        ``dropped`` as "duplicate span"."""
        where = self.where

        def say():  # only built for an error: a file holds many spans
            return f"span [{start!r}, {end!r}) of document {document!r} by {annotator!r}"

        for name, value in (("start", start), ("end", end)):
            if not is_offset(value):
                raise where(f"{say()}: {name} must be a whole-number character offset, got "
                            f"{type(value).__name__} {value!r}", row, column)
        if start < 0:
            raise where(f"{say()}: start is negative", row, column)
        if start >= end:
            raise where(f"{say()}: start must be less than end (offsets are half-open, "
                        "[start, end))", row, column)
        checked = self.labels.get(label) if isinstance(label, str) else None
        if checked is None:
            if isinstance(label, str) and blank(label):  # label_text calls "" JSON-like
                raise where(f"{say()}: an empty label ({label!r})", row, column)
            checked = label_text(label, where, row, column)
            if isinstance(label, str):  # a file repeats a few labels: each checked once
                self.labels[label] = checked
        label = checked
        text = self.texts.get(_key(document))
        if text is not None:
            if end > len(text):
                raise where(f"{say()}, label {label!r}: end is past the document's text "
                            f"({len(text)} characters)", row, column)
            if quoted is not None and quoted != text[start:end]:
                # JavaScript counts UTF-16 units: an emoji before a span shifts it by one
                # (Label Studio #1347); taken only when the region's own text confirms it
                converted = from_utf16(text, start, end)
                if converted is not None and text[converted[0]:converted[1]] == quoted:
                    self.utf16 += 1
                    start, end = converted
                    quoted = None
            if quoted is not None and quoted != text[start:end]:
                raise where(f"{say()}, label {label!r}: the export says the span is "
                            f"{_short(quoted)!r} but the text there is "
                            f"{_short(text[start:end])!r}: the offsets count something other "
                            "than the characters of this text (bytes, UTF-16 units, tokens), "
                            "or the text changed after annotation", row, column)
        key = (_key(document), annotator, int(start), int(end), label)
        if key in self.spans:
            self.dropped.add("duplicate span", annotator)
            return
        self.annotated(document, annotator)
        self.spans[key] = (row, column)

    def table(self, labels=None):
        """The span table (:func:`xr_agreement.from_spans`) of what was collected; a label
        outside the declared ``labels`` is refused naming where it is. Without ``labels``,
        the universe is the labels used, sorted."""
        if not any(self.pairs.values()):
            reasons = ", ".join(f"{sum(per.values())} {reason}"
                                for reason, per in self.dropped.as_dict().items())
            raise self.where("no annotation is a decision" + (f" (dropped: {reasons})"
                                                             if reasons else ""))
        if labels is not None:
            declared = set(labels)
            for (*_, label), (row, column) in self.spans.items():
                if label not in declared:
                    raise self.where(f"label {label!r} is not in the declared label universe "
                                     f"({len(labels)} labels: {', '.join(labels[:8])}"
                                     f"{', ...' if len(labels) > 8 else ''})", row, column)
        elif not self.spans:
            raise self.where("nobody marked a span and no label universe is declared; pass "
                             "labels=... (the labeling config, or a file of one label per "
                             "line)")
        else:  # the labels used, sorted (as the classification readers order them)
            labels = sorted({key[-1] for key in self.spans})
        # a document nobody annotated and whose text is unknown has no length: left out
        # (what left it out is in ``dropped``)
        decided = {d for (d, _), done in self.pairs.items() if done}
        missing = [d for d in self.documents if d in decided and d not in self.texts
                   and d not in self.lengths]
        lengths = None
        if self.texts or self.lengths:
            if missing:
                raise self.where(f"the length of document {missing[0]!r} is unknown (the "
                                 "export holds no text for it)")
            lengths = {**{d: len(t) for d, t in self.texts.items()}, **self.lengths}
        # one id per document however the file spelled it (1, "1", " 1"): integer text as
        # int where that merges no two ids, as the classification readers' items
        ids = dict(zip(self.documents, ids_as_coordinate(list(self.documents))))
        try:
            table = from_spans(
                [(ids[d], *rest) for d, *rest in self.spans],
                lengths=None if lengths is None else {ids[d]: n for d, n in lengths.items()},
                annotated=[(ids[d], a) for (d, a), done in self.pairs.items() if done],
                labels=labels, texts={ids[d]: t for d, t in self.texts.items()} or None)
        except ValueError as error:  # checked above; anything left is still this file's
            raise AnnotationFileError(str(error), path=self.where.path) from None
        if self.utf16:
            self.notes.append(f"{self.utf16} span(s) had offsets in UTF-16 units (what "
                              "JavaScript counts; an emoji is two) and were converted to "
                              "characters, each checked against the text the export gives "
                              "for the span.")
        # JSON text: no netCDF engine writes a dict (_core.attrs)
        table.attrs.update(reader=self.reader, dropped=json_attr(self.dropped.as_dict()))
        if self.notes:
            table.attrs["notes"] = json_attr(self.notes)
        return table


def from_utf16(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Character offsets of the UTF-16 unit offsets ``[start, end)`` of ``text``, or None
    when the text has no character beyond U+FFFF (the two counts agree), an offset falls
    inside a surrogate pair, or past the text.

    Examples
    --------
    >>> text = "\U0001F600 Ada"
    >>> from_utf16(text, 3, 6), text[2:5]
    ((2, 5), 'Ada')
    >>> from_utf16("plain", 0, 2) is None
    True
    """
    if text.isascii() or all(ord(ch) <= 0xFFFF for ch in text):
        return None
    units = np.cumsum([0] + [2 if ord(ch) > 0xFFFF else 1 for ch in text])
    found = np.searchsorted(units, [start, end])
    if found[1] >= len(units) or units[found[0]] != start or units[found[1]] != end:
        return None
    return int(found[0]), int(found[1])


def _key(document) -> str:
    """The document as the collector keys it: its id as text, so that 1 and "1" (a JSON
    id and a CSV cell) are one document."""
    return str(document)


def _short(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[:size] + "..."
