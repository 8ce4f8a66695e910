"""What every annotation-tool reader shares: loading the export, the guards against silent
nonsense in label cells, and one builder from annotations to the decision array.

A reader turns its export into :class:`Annotation` records (one per item x annotator, or per
item x annotator x label for binary tools) and a ``dropped`` tally; :func:`build` checks them
against the declared universe and the separator guard and makes the DataArray, whose attrs
``reader`` and ``dropped`` say how it was read: label sets (item, annotator, label), or
single-label ratings (item, annotator) when the export is single-label (:class:`Single`, the
``layout`` the reader was given), with attr ``single_label`` saying why.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from ..._core.arrays import object_variable
from ..._core.attrs import json_attr
from ..cells import (SEPARATORS, blank, cell_labels, joined_labels, label_text,  # noqa: F401 (for readers)
                     non_finite, parse_json, parse_list_text)
from ..files import AnnotationFileError, ids_as_coordinate, read_delimited
from .archive import folder_texts, zip_texts

# Rest of the universe not chosen: 0 (a submitted multi-label annotation), or only the labels
# named in ``zeros`` are 0 and the others undecided (a binary accept/reject).
REST_ZERO = "zero"


@dataclass
class Annotation:
    """One annotator's decisions on one item, and where they came from in the file."""

    item: object
    annotator: str
    chosen: list | None  # None: no decision (the item and annotator still get coordinates)
    zeros: object = REST_ZERO  # REST_ZERO or a list of labels decided 0
    row: int | None = None  # 1-based record / row / line position
    column: str | None = None
    line: int | None = None
    label: object = None  # binary tools: the one label this record decides
    # read as a rating, an annotation choosing nothing is no decision, dropped with this reason
    empty_reason: str = "no choice"


@dataclass
class Single:
    """What an export says about how many categories one annotation may choose:
    ``allows_one`` True (one: a single-choice control), False (several) or None (the format
    does not say); ``why``: the sentence saying so, which becomes ``attrs["single_label"]``
    when the ratings are read because of it, or opens the error when an annotation holds
    several categories all the same."""

    allows_one: bool | None = None
    why: str = ""


# the ``single_label`` sentences of a reading the export does not state
INFERRED = ("every annotation selects exactly one category; the export does not say whether "
            "several were allowed (layout='sets' reads label sets)")
GIVEN = "layout='single' was given"
LAYOUTS = ("auto", "sets", "single")


@dataclass
class Dropped:
    """Counts of annotations that were not decisions, per reason and annotator."""

    counts: dict = field(default_factory=lambda: defaultdict(Counter))

    def add(self, reason: str, annotator) -> None:
        self.counts[reason][str(annotator)] += 1

    def as_dict(self) -> dict:
        return {reason: dict(sorted(per.items())) for reason, per in sorted(self.counts.items())}


class Where:
    """Builds one-line AnnotationFileErrors for one file."""

    def __init__(self, path, kind: str = "row", line_offset: int | None = None,
                 lines: list | None = None):
        # kind "line": positions are lines (JSON lines); line_offset: data row r of a text
        # table is line r + line_offset (1 below a header); lines: the line each data row
        # starts on (read_delimited's attrs["lines"]), which wins over the offset
        self.path, self.kind, self.line_offset, self.lines = path, kind, line_offset, lines

    def __call__(self, message, row=None, column=None, line=None):
        if self.kind == "line" and line is None and row is not None:
            line, row = row, None
        if (line is None and row is not None and self.lines is not None
                and 0 < row <= len(self.lines)):
            line = int(self.lines[row - 1])
        if line is None and row is not None and self.line_offset is not None:
            line = row + self.line_offset
        return AnnotationFileError(message, path=self.path, row=row, column=column, line=line)


# --------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------


def read_text(path) -> str:
    if not os.path.exists(path):
        raise AnnotationFileError("file not found", path=path)
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        raise AnnotationFileError(f"not UTF-8 text: {error.reason}", path=path) from None


@contextlib.contextmanager
def gc_paused():
    """The garbage collector paused while an export is parsed and read: a reader keeps
    every record it parsed, and the collector walked them all, again and again, at every
    few hundred objects the reading made (vectorised.json_lines pauses it for its parse
    only); the records hold no reference cycles to collect. read_annotations of the
    2x10^4-item exports of benchmarks/bench_read.py, gc on -> paused: Label Studio JSON
    4.0 -> 1.65 s, Prodigy JSONL 5.1 -> 2.4 s, Argilla JSONL 1.7 -> 0.7 s."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def load_json_records(path, text: str | None = None) -> tuple[list, str]:
    """A JSON array or JSON lines, as (records, "array" | "lines"); every record a dict."""
    text = read_text(path) if text is None else text
    stripped = text.lstrip()
    if not stripped:
        raise AnnotationFileError("the file is empty", path=path)
    if stripped.startswith("["):
        try:
            with gc_paused():
                records = parse_json(text)
        except json.JSONDecodeError as error:
            raise AnnotationFileError(f"invalid JSON{_malformed(error)}: {error.msg} at "
                                      f"column {error.colno}", path=path,
                                      line=error.lineno) from None
        kind = "array"
    else:
        records, kind = [], "lines"
        for number, line in enumerate(json_lines(text), start=1):
            if not line.strip():
                continue
            try:
                records.append(parse_json(line))
            except json.JSONDecodeError as error:
                raise AnnotationFileError(f"invalid JSON{_malformed(error)}: {error.msg}",
                                          path=path, line=number) from None
            records[-1] = (number, records[-1])
    checked = []
    for position, entry in enumerate(records, start=1):
        number, record = entry if kind == "lines" else (position, entry)
        if not isinstance(record, dict):
            raise AnnotationFileError(f"each record must be a JSON object, got "
                                      f"{type(record).__name__}", path=path,
                                      **({"line": number} if kind == "lines" else {"row": number}))
        checked.append((number, record))
    if not checked:
        raise AnnotationFileError("the file holds no records", path=path)
    return checked, kind


def json_lines(text: str):
    """The lines of JSON-lines text one at a time, split at "\\n" only: a list of every line
    (``splitlines``) of a 250 MiB member of blank lines took 3.4 GB, and splitlines also
    splits at U+2028 and other breaks that JSON allows inside a string."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


def _malformed(error: json.JSONDecodeError) -> str:
    # parse_json's own refusals (NaN, nesting) say what is wrong; a parse error may be a cut
    return "" if "JSON allows" in error.msg or "nested" in error.msg else \
        " (truncated or malformed)"


def read_csv(path, text: str | None = None, sep: str = ",") -> pd.DataFrame:
    """A CSV as text cells (no NA guessing); ``attrs["lines"]``: the line each data row
    starts on (:func:`line_of`; a quoted cell may span lines)."""
    text = read_text(path) if text is None else text
    if not text.strip():
        raise AnnotationFileError("the file is empty (no header, no rows)", path=path, line=1)
    table = read_delimited(path, sep, text)
    if table.empty:
        raise AnnotationFileError("the file has a header but no data rows", path=path, line=2)
    table.columns = [str(c).strip() for c in table.columns]
    return table


def line_of(table, position):
    """The line data row ``position`` (from 0) starts on in a text table (read by
    :func:`read_delimited`, which knows where a quoted cell spans lines), else None."""
    lines = table.attrs.get("lines")
    return int(lines[position]) if lines is not None and position < len(lines) else None


def member_files(path, suffixes: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """(name, text) of the files in an export folder or a .zip, sorted by name; hidden files
    and folders (``__MACOSX``) left out, and with ``suffixes`` the files not named so (never
    opened: a picture beside the export is no reason to refuse it); names with forward
    slashes. Each member is read under the bounds and name rules of :mod:`.archive` (a zip
    bomb or a hostile name is one line)."""
    if os.path.isdir(path):
        return folder_texts(path, suffixes)
    return zip_texts(path, suffixes)


def is_collection(path) -> bool:
    """Whether ``path`` is a folder or a zip archive (by its extension and its signature)."""
    return os.path.isdir(path) or (os.fspath(path).lower().endswith(".zip")
                                   and os.path.isfile(path) and zipfile.is_zipfile(path))


def scalar_id(value, where, row, column):
    """``value`` as an id if it can be one (text or a number): a whole number written as a
    float (JSON ``1.0``) is that int, any other number stays itself (``1.5`` is never the id
    ``1``). A list, an object or a boolean is refused naming the row and field (never made
    text, never "unhashable type"), and so are NaN and infinities (two tasks with id NaN are
    not one item) and blank text."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, np.integer)):
        raise where(f"{column} must be an id (text or a number), got "
                    f"{type(value).__name__} {value!r}", row, column)
    if non_finite(value):
        raise where(f"{column} must be an id (text or a finite number), got {value!r}", row,
                    column)
    if isinstance(value, str) and blank(value):
        raise where(f"{column} is blank ({value!r}): every record needs an id", row, column)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float) and value.is_integer():  # np.float64 is a float too
        return int(value)
    return value


class ScalarIds(dict):
    """:func:`scalar_id` once per distinct text id (a Prodigy export names 5 annotators on
    3x10^5 lines); an int is its own id, as scalar_id says (gain: with
    :class:`cells.LabelTexts`). Only text is kept (1 and True
    are never the id "1"); a value refused is never kept, so the error names the first row
    where it occurs."""

    def __call__(self, value, where, row, column):
        kind = type(value)
        if kind is int:
            return value
        if kind is str:
            found = self.get(value)
            if found is None:
                found = self[value] = scalar_id(value, where, row, column)
            return found
        return scalar_id(value, where, row, column)


# --------------------------------------------------------------------------------------
# the guard against labels joined by another separator (the cell guards: io/cells.py)
# --------------------------------------------------------------------------------------


def check_joined(annotations: list[Annotation], where, sep_in_use: str | None,
                 option: str = "--sep") -> None:
    """Refuse a label that is other labels of the file joined by a separator that is not the
    one in use ("x, y" beside "x" and "y")."""
    labels = {v for a in annotations for v in a.chosen}
    labels |= {v for a in annotations if isinstance(a.zeros, list) for v in a.zeros}
    for annotation in annotations:
        for value in annotation.chosen:
            joined = joined_labels(value, labels, sep_in_use)
            if joined is not None:
                sep, parts = joined
                hint = (f"; if labels are separated by {sep!r} here, say so ({option} "
                        f"{sep!r})" if option else "")
                raise where(f"the label {value!r} is the labels {parts} joined by "
                            f"{sep!r}, not one label{hint}", annotation.row,
                            annotation.column, annotation.line)


# --------------------------------------------------------------------------------------
# building the decision array
# --------------------------------------------------------------------------------------


def build(annotations: list[Annotation], *, reader: str, dropped: Dropped, where,
          universe: list | None = None, item: str = "item", annotator: str = "annotator",
          label: str = "label", sep_in_use: str | None = None, sep_option: str = "--sep",
          key_by_label: bool = False, duplicate_hint: str = "", layout: str = "sets",
          single: Single | None = None) -> xr.DataArray:
    """The decision DataArray (item, annotator, label) of the annotations, or their ratings
    (item, annotator) when ``layout`` and ``single`` say so (:func:`single_reading`).

    ``key_by_label``: binary tools, where one record decides one label, so an (item,
    annotator) may have one record per label. A duplicate key is an error naming both rows.
    """
    if not any(a.chosen is not None for a in annotations):
        reasons = ", ".join(f"{n} {r}" for r, per in dropped.as_dict().items()
                            for n in [sum(per.values())])
        raise where("no annotation is a decision" + (f" (dropped: {reasons})" if reasons
                                                       else ""))
    good = set()  # ids of text seen and checked: each checked once, not per annotation
    for annotation in annotations:  # whatever the reader checked: no blank or NaN id
        for role, value in (("item", annotation.item), ("annotator", annotation.annotator)):
            kind = type(value)
            if kind is int or (kind is str and value in good):  # an int is an id
                continue
            if kind is str and not blank(value):
                good.add(value)
                continue
            if blank(value) or non_finite(value) or not isinstance(
                    value, (str, int, float, np.integer)) or isinstance(value, bool):
                raise where(f"the {role} id {value!r} is not an id (blank, not a finite "
                            "number, or not text); every annotation needs an item and an "
                            "annotator", annotation.row, annotation.column, annotation.line)
    # one id per item, however the file spelled it (1, "1"); stripped and int only when that
    # merges no two ids ("01" and "1" stay two items)
    spelled = [str(a.item) for a in annotations]
    for annotation, value in zip(annotations, ids_as_coordinate(spelled)):
        annotation.item = value
    missing = [a for a in annotations if a.chosen is None]
    annotations = [a for a in annotations if a.chosen is not None]
    if sep_in_use is not False and universe is None:  # a declared label is one label
        check_joined(annotations, where, sep_in_use, sep_option)
    seen = {}
    for annotation in annotations:
        key = (annotation.item, annotation.annotator)
        if key_by_label:
            key += (annotation.label,)
        if key in seen:
            first = seen[key]
            at = (f"row {first.row}" if first.line is None else f"line {first.line}")
            raise where(f"duplicate annotation: item {annotation.item!r} by annotator "
                        f"{annotation.annotator!r} already at {at}{duplicate_hint}",
                        annotation.row, annotation.column, annotation.line)
        seen[key] = annotation
    if universe is not None:
        declared = set(universe)
        for annotation in annotations:
            zeros = annotation.zeros if isinstance(annotation.zeros, list) else []
            for value in list(annotation.chosen) + zeros:
                if value not in declared:
                    raise where(f"label {value!r} is not in the declared label universe "
                                f"({len(universe)} labels: {', '.join(universe[:8])}"
                                f"{', ...' if len(universe) > 8 else ''})", annotation.row,
                                annotation.column, annotation.line)
        labels = list(universe)
    else:
        used = {v for a in annotations for v in a.chosen}
        used |= {v for a in annotations if isinstance(a.zeros, list) for v in a.zeros}
        if not used:
            raise where("no label is selected anywhere and no label universe is declared; "
                        "pass labels=... (--labels FILE)")
        labels = sorted(used)
    ordered = sorted(annotations + missing, key=lambda a: (a.line or a.row or 0))
    items = list(dict.fromkeys(a.item for a in ordered))
    annotators = list(dict.fromkeys(a.annotator for a in ordered))
    item_index = {v: i for i, v in enumerate(items)}
    annotator_index = {v: i for i, v in enumerate(annotators)}
    why = single_reading(annotations, layout, single, key_by_label, where)
    if why is not None:
        return _ratings(annotations, why, labels if universe is not None else None, items,
                        annotators, item_index, annotator_index, dropped, reader, item,
                        annotator)
    label_index = {v: i for i, v in enumerate(labels)}
    values = np.full((len(items), len(annotators), len(labels)), np.nan)
    for annotation in annotations:
        cell = values[item_index[annotation.item], annotator_index[annotation.annotator]]
        if annotation.zeros == REST_ZERO:
            cell[:] = 0.0
        else:
            for value in annotation.zeros:
                cell[label_index[value]] = 0.0
        for value in annotation.chosen:
            cell[label_index[value]] = 1.0
    # JSON text: no netCDF engine writes a dict (_core.attrs)
    attrs = {"reader": reader, "dropped": json_attr(dropped.as_dict())}
    note = _no_choice_note(annotations, layout, single, key_by_label)
    if note is not None:
        attrs["notes"] = json_attr([note])
    return xr.DataArray(
        values, dims=(item, annotator, label),
        coords={item: items, annotator: [str(a) for a in annotators],
                label: [str(v) for v in labels]},
        name="decision", attrs=attrs)


# --------------------------------------------------------------------------------------
# single-label ratings
# --------------------------------------------------------------------------------------


def single_reading(annotations: list[Annotation], layout: str, single: Single | None,
                   key_by_label: bool, where) -> str | None:
    """Why the decisions ``annotations`` (those that are not None) are read as single-label
    ratings, or None to read them as label sets.

    ``layout`` "sets": never; "single": always, and an annotation choosing several
    categories is an error naming it; "auto": the export's own statement (``single``) where
    it makes one, else ratings when every annotation chooses exactly one category. A
    binary accept/reject export (``key_by_label``: one record per label) has no rating."""
    if layout not in LAYOUTS:
        raise ValueError(f"a tool's export is read with layout 'auto', 'sets' or 'single', got "
                         f"{layout!r}")
    single = single or Single()
    if layout == "sets":
        return None
    if key_by_label:
        if layout == "single":
            raise where("layout='single': this export decides one label per record (a "
                        "binary accept/reject task), not one category per annotation; read "
                        "it as label sets (layout='sets')")
        return None
    if layout == "auto" and single.allows_one is False:
        return None
    if layout == "auto" and single.allows_one is None:
        one = all(len(a.chosen) == 1 for a in annotations)
        return INFERRED if one and annotations else None
    for annotation in annotations:
        if len(annotation.chosen) > 1:
            said = GIVEN if layout == "single" else single.why
            raise where(f"{said}, but annotator {annotation.annotator!r} chose several "
                        f"categories on item {annotation.item!r}: "
                        f"{', '.join(map(repr, annotation.chosen))}; read label sets with "
                        "layout='sets' (--layout sets)", annotation.row, annotation.column,
                        annotation.line)
    return single.why if single.allows_one and layout == "auto" else GIVEN


def _no_choice_note(annotations, layout, single, key_by_label) -> str | None:
    """Why an export that states nothing and looks single-label (no annotation with several
    categories) was read as label sets: some annotations chose none. None otherwise."""
    if layout != "auto" or key_by_label or (single is not None and
                                              single.allows_one is not None):
        return None
    if any(len(a.chosen) > 1 for a in annotations):
        return None
    reasons = {}
    for annotation in annotations:
        if not annotation.chosen:
            reasons[annotation.empty_reason] = reasons.get(annotation.empty_reason, 0) + 1
    if not reasons:
        return None
    return (f"Every annotation chose at most one category, but {sum(reasons.values())} "
            "chose none (" + ", ".join(f"{r}: {n}" for r, n in reasons.items()) + "): read "
            "as label sets; layout='single' (--layout single) reads single-label ratings, "
            "an annotation with no category missing")


def _ratings(annotations, why, categories, items, annotators, item_index, annotator_index,
             dropped, reader, item, annotator) -> xr.DataArray:
    """The ratings (item, annotator): the category chosen, text, NaN where no decision (as
    the table reader's layout "single" gives text ratings); an annotation choosing nothing
    is no decision, counted in ``dropped`` under its ``empty_reason``. Attr ``categories``
    only for a declared universe (``categories`` not None): the report calls it declared."""
    values = np.full((len(items), len(annotators)), np.nan, dtype=object)
    for annotation in annotations:
        if not annotation.chosen:
            dropped.add(annotation.empty_reason, annotation.annotator)
            continue
        values[item_index[annotation.item], annotator_index[annotation.annotator]] = str(
            annotation.chosen[0])
    attrs = {"reader": reader, "dropped": json_attr(dropped.as_dict())}
    if categories is not None:
        attrs["categories"] = json_attr([str(c) for c in categories])
    attrs["single_label"] = why
    return xr.DataArray(object_variable((item, annotator), values), coords={item: items, annotator: [str(a) for a in annotators]},
                        name="rating", attrs=attrs)
