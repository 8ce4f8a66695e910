"""Annotation files -> decisions: CSV, TSV, parquet and JSON-lines in two layouts.

``"sets"``: one row per (item, annotator) with a column of selected labels, separated by
``sep`` in text files or a list in parquet / JSON-lines. An empty cell is an annotation with no
label selected (the empty set); an (item, annotator) pair without a row is a missing annotation
(NaN). ``"long"``: one row per (item, annotator, label) with a 0/1 column; an absent row is a
missing decision. ``"single"``: one row per (item, annotator) with one rating (single-label
data), returned as an (item, annotator) array of ratings.

Every problem in a file is raised as :class:`AnnotationFileError`, whose one-line message names
the file, the row and the column at fault. Rows are counted from 1 over the data rows; in CSV
and TSV files the line number (header = line 1) is given too.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import zipfile
from collections.abc import Sequence

import numpy as np
import pandas as pd
import xarray as xr

from .._core.arrays import _plain, object_variable
from .cells import blank, ids_as_coordinate, invisible, non_finite, parse_json
from .cells import number_text as _number_text
from .cells import unify_labels as _unify_labels
from .records import _grid, from_long, from_sets
from .vectorised import (Fallback, arrow_strings, file_bytes, id_coordinate, json_lines,
                         long_decisions, quote_free_table, sets_decisions, single_ratings)


# Column names recognised without being told (compared case-insensitively).
ITEM_COLUMNS = ("item", "item_id", "unit", "unit_id", "document", "doc_id", "sentence",
                "sentence_id", "text_id", "example", "example_id", "id")


ANNOTATOR_COLUMNS = ("annotator", "annotator_id", "rater", "rater_id", "coder", "coder_id",
                     "judge", "worker", "worker_id", "user", "user_id")


LABELS_COLUMNS = ("labels", "label_set", "label_list", "tags", "categories", "codes")


LABEL_COLUMNS = ("label", "label_id", "category", "tag", "class", "code")


VALUE_COLUMNS = ("value", "selected", "decision", "present", "positive", "is_selected")


RATING_COLUMNS = ("rating", "label", "category", "class", "answer", "response", "value", "code")

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
           ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}


COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zip", ".zst")


TRUE_WORDS = {"1", "1.0", "true", "yes"}


FALSE_WORDS = {"0", "0.0", "false", "no"}


class AnnotationFileError(ValueError):
    """A problem in an annotation or label file, located by row and column.

    Attributes ``path``, ``row`` (1-based data row, None for the header or the whole file),
    ``column`` and ``line`` (line of a text file, header = 1) locate it; ``str()`` is one line.
    """

    def __init__(self, message: str, *, path=None, row: int | None = None,
                 column: str | None = None, line: int | None = None, header: bool = False):
        self.path = None if path is None else str(path)
        self.row, self.column, self.line, self.reason = row, column, line, message
        where = []
        if row is not None:
            where.append(f"row {row}" + (f" (line {line})" if line is not None else ""))
        elif header:
            where.append("header" + (f" (line {line})" if line is not None else ""))
        elif line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column!r}")
        text = ", ".join(where)
        prefix = f"{self.path}: " if self.path else ""
        full = f"{prefix}{text}: {message}" if text else f"{prefix}{message}"
        super().__init__(" ".join(full.split()))  # one line, whatever the message held


def file_format(path, format: str | None = None) -> str:
    """The table format of ``path``: "csv", "tsv", "parquet" or "jsonl".

    >>> file_format("votes.tsv.gz")
    'tsv'
    """
    if format is not None:
        if format not in set(FORMATS.values()):
            raise ValueError(f"format must be one of {sorted(set(FORMATS.values()))}, got "
                             f"{format!r}")
        return format
    name = os.fspath(path).lower()
    for suffix in COMPRESSION_SUFFIXES:
        name = name.removesuffix(suffix)
    extension = os.path.splitext(name)[1]
    if extension not in FORMATS:
        raise AnnotationFileError(
            f"cannot tell the format from the extension {extension!r}; use one of "
            f"{sorted(FORMATS)} or pass format=", path=path)
    return FORMATS[extension]


def _open_text(path):
    """A text handle on ``path`` (UTF-8, a BOM dropped), decompressed by its suffix."""
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    if name.endswith(".bz2"):
        return bz2.open(path, "rt", encoding="utf-8-sig", newline="")
    if name.endswith(".xz"):
        return lzma.open(path, "rt", encoding="utf-8-sig", newline="")
    if name.endswith(".zip"):
        archive = zipfile.ZipFile(path)
        # folders, hidden files and macOS's __MACOSX/._x left out (tools.archive.member_name)
        members = [n for n in archive.namelist() if not n.endswith("/") and not any(
            p.startswith(".") and p != "." or p == "__MACOSX"
            for p in n.replace("\\", "/").split("/"))]
        if len(members) != 1:
            raise AnnotationFileError(f"a compressed table must hold one file, this zip holds "
                                      f"{len(members)}", path=path)
        return io.TextIOWrapper(archive.open(members[0]), encoding="utf-8-sig", newline="")
    if name.endswith(".zst"):
        from pandas.io.common import get_handle  # zstandard, when installed

        return get_handle(path, "r", compression="zstd", encoding="utf-8-sig").handle
    return open(path, encoding="utf-8-sig", newline="")


def read_delimited(path, sep: str = ",", text: str | None = None,
                   nrows: int | None = None, dtype=object) -> pd.DataFrame:
    """A CSV / TSV (``text``, else the file) as a DataFrame of text cells, every row checked
    to have as many fields as the header.

    pandas fills a short row (a truncated download) with empty cells, which would read as
    "chose no label", and takes the first column as the index when data rows have one field
    more than the header (a trailing separator), shifting every column left; the csv module
    shows both, and each is refused naming its line. Blank lines are skipped, and
    ``attrs["lines"]`` holds the line each data row starts on (a quoted cell may span
    lines); header names are made unique as pandas does ("a", "a.1"; an empty one
    "Unnamed: 2"); ``nrows``: only the first data rows. ``dtype``: of the cells, object
    (Python text) or pandas' Arrow strings; a quote-free file is parsed by pandas, its rows
    checked alike (:func:`.vectorised.quote_free_table`).

    Examples
    --------
    >>> read_delimited("f.csv", text="item,annotator,labels\\ns1,ann,\\n").values.tolist()
    [['s1', 'ann', '']]
    >>> read_delimited("f.csv", text="item,annotator,labels\\ns1,ann\\n")
    Traceback (most recent call last):
    ...
    xr_agreement.io.files.AnnotationFileError: f.csv: line 2: 2 fields where the header has 3 (item, annotator, labels): a truncated row? Fix the file or export it again
    """
    limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # a long document in a cell is text, not an error
    try:
        # bytes to pandas, UTF-8 decoded once, by its parser
        data = None if nrows is not None else file_bytes(path, _open_text) if text is None \
            else text.encode("utf-8", "surrogatepass")
        plain_file = text is None and not os.fspath(path).lower().endswith(COMPRESSION_SUFFIXES)
        quick = None if data is None else quote_free_table(data, sep, dtype,
                                                           path if plain_file else None)
        if quick is not None:
            header, table = quick
            table.columns = _unique_names(header)
            # a range: pandas deep-copies attrs on every column taken (an array of the 5 *
            # 10^5 lines of benchmarks/bench_read.py took 1-6 ms a column)
            table.attrs["lines"] = range(2, len(table) + 2)
            return table
        records, starts = _csv_records(path, sep, text, nrows)
    except FileNotFoundError:
        raise AnnotationFileError("file not found", path=path) from None
    except (csv.Error, UnicodeDecodeError, OSError, EOFError, zipfile.BadZipFile,
            lzma.LZMAError) as error:
        raise AnnotationFileError(f"cannot parse the file: {' '.join(str(error).split())}",
                                  path=path) from None
    finally:
        csv.field_size_limit(limit)
    kept = [i for i, fields in enumerate(records)  # blank lines skipped
            if len(fields) > 1 or (fields and fields[0].strip())]
    if not kept:
        raise AnnotationFileError("the file is empty (no header, no rows)", path=path, line=1)
    header, data = records[kept[0]], kept[1:]
    if nrows is not None:
        data = data[:nrows]
    short_or_long = next((i for i in data if len(records[i]) != len(header)), None)
    if short_or_long is not None:
        line = short_or_long + 1 if starts is None else starts[short_or_long]
        raise _field_count_error(path, line, len(records[short_or_long]), header)
    rows = records[1:] if len(data) == len(records) - 1 else [records[i] for i in data]
    table = pd.DataFrame(rows, columns=_unique_names(header), dtype=object)
    # the line each data row starts on: a quoted cell may span lines, blank lines are skipped
    # (an array: pandas deep-copies attrs on every column taken, a list of ints is slow)
    table.attrs["lines"] = np.asarray(data, dtype=np.int64) + 1 if starts is None else \
        np.asarray(starts, dtype=np.int64)[data]
    return table


def _csv_records(path, sep, text, nrows) -> tuple[list, list | None]:
    """The records of a CSV and the line each starts on (None: record i is on line i + 1).

    A quoted cell still open at the end of the file (a download cut inside it) is refused
    naming the line it opens on: the csv module would take the rest of the file as that
    cell, swallowing the rows after it (pandas' parser refused it: "EOF inside string").
    Its strict mode tells that case; a file it refuses for another reason (text after a
    closing quote, ``"a" b``, which pandas reads) is read again leniently."""
    def handle():
        return io.StringIO(text, newline="") if text is not None else _open_text(path)

    def parse(strict: bool, track: bool):
        records, starts, last = [], [], 0
        with handle() as stream:
            reader = csv.reader(stream, delimiter=sep, strict=strict)
            try:
                for fields in reader:
                    records.append(fields)
                    if track:
                        starts.append(last + 1)
                        last = reader.line_num
                        if nrows is not None and len(records) > 2 * nrows + 10:
                            break  # enough for nrows data rows but for many blank lines
            except csv.Error as error:
                if strict and "unexpected end of data" in str(error):
                    raise _Unclosed(last + 1 if track else None) from None
                raise
        return records, (starts if track else None), reader.line_num

    try:
        if nrows is None:  # the fast path: one record per line
            records, _, line_num = parse(strict=True, track=False)
            if line_num == len(records):
                return records, None
        return parse(strict=True, track=True)[:2]
    except _Unclosed as unclosed:
        line = unclosed.line
        if line is None:  # the fast path does not track lines: read again to name it
            try:
                parse(strict=True, track=True)
            except _Unclosed as located:
                line = located.line
        raise AnnotationFileError("the row starting on this line opens a quoted cell that "
                                  "is never closed: the file ends inside it (a truncated "
                                  "download?); export the file again", path=path,
                                  line=line) from None
    except csv.Error:
        return parse(strict=False, track=True)[:2]


class _Unclosed(Exception):
    def __init__(self, line):
        self.line = line


def _field_count_error(path, line, count, header) -> AnnotationFileError:
    names = ", ".join(header[:6]) + (", ..." if len(header) > 6 else "")
    if count > len(header):
        extra = count - len(header)
        what = ("one field more than the header (a trailing separator?)" if extra == 1 else
                f"{extra} fields more than the header")
        what += f" ({names})"
        return AnnotationFileError(f"{what}: every row needs one field per column; fix the "
                                   "row or the header", path=path, line=line)
    return AnnotationFileError(f"{count} field{'s' if count != 1 else ''} where the header "
                               f"has {len(header)} ({names}): a truncated row? Fix the file "
                               "or export it again", path=path, line=line)


def _unique_names(header: list[str]) -> list[str]:
    names, seen = [], set()
    for position, name in enumerate(header):
        name = name or f"Unnamed: {position}"
        unique, count = name, 0
        while unique in seen:
            count += 1
            unique = f"{name}.{count}"
        seen.add(unique)
        names.append(unique)
    return names


def _read_table(path, format: str) -> tuple[pd.DataFrame, int | None]:
    """The file as a DataFrame and the line offset of data row 1 (None for parquet)."""
    if not os.path.exists(path):
        raise AnnotationFileError("file not found", path=path)
    if format in ("csv", "tsv"):
        table = read_delimited(path, "," if format == "csv" else "\t",
                               dtype=arrow_strings() or object)
        return table, 2
    if format == "jsonl":
        records, numbers = json_lines(path) or ([], [])  # else line by line, naming errors
        with open(path, encoding="utf-8-sig") as handle:  # a BOM (Windows editors) dropped
            for number, text in enumerate(handle if not records else (), start=1):
                if not text.strip():
                    continue
                try:
                    record = parse_json(text)
                except json.JSONDecodeError as error:
                    raise AnnotationFileError(f"invalid JSON: {error.msg}", path=path,
                                              line=number) from None
                if not isinstance(record, dict):
                    raise AnnotationFileError(
                        f"each line must be a JSON object, got {type(record).__name__}",
                        path=path, line=number)
                records.append(record)
                numbers.append(number)
        if not records:
            raise AnnotationFileError("the file is empty (no records)", path=path, line=1)
        table = pd.DataFrame.from_records(records)
        table.attrs["lines"] = np.asarray(numbers, dtype=np.int64)  # blank lines skipped
        # a key some records lack: pandas fills NaN, which reads as an empty cell
        keys = set().union(*records)
        absent = {}
        lengths = np.fromiter(map(len, records), np.int64, len(records))
        for position in np.flatnonzero(lengths != len(keys)).tolist():
            for key in keys.difference(records[position]):
                absent.setdefault(key, position)
        table.attrs["absent"] = absent
        return table, None
    try:
        return pd.read_parquet(path), None
    except Exception as error:  # noqa: BLE001 - pyarrow raises several unrelated types
        raise AnnotationFileError(f"cannot read parquet: {error}", path=path) from None


def _is_blank(value) -> bool:
    return blank(value) or value is pd.NA


class _Locator:
    """Builds AnnotationFileError for a data row of one file."""

    def __init__(self, path, first_line, lines=None):
        self.path, self.first_line, self.lines = path, first_line, lines

    def __call__(self, message, position=None, column=None, header=False):
        row = None if position is None else position + 1
        line = None if position is None or self.first_line is None else position + self.first_line
        if self.lines is not None and position is not None and position < len(self.lines):
            line = int(self.lines[position])
        if header and self.first_line is not None:
            line = 1
        return AnnotationFileError(message, path=self.path, row=row, column=column, line=line,
                                   header=header)


def _pick_column(table, given, candidates, role, locate, required=True):
    if given is not None:
        if given not in table.columns:
            raise locate(f"{role} column {given!r} not found; the file has columns "
                         f"{list(map(str, table.columns))}", column=given, header=True)
        return given
    lower = {str(c).lower(): c for c in table.columns}
    found = [lower[name] for name in candidates if name in lower]
    if len(found) > 1:
        raise locate(f"several columns could be the {role} column: {found}; name one "
                     f"({role}_column=..., --{role}-column)", header=True)
    if not found:
        if required:
            raise locate(f"no {role} column: expected one named like {list(candidates[:4])} "
                         f"(or name it: {role}_column=..., --{role}-column); the file has "
                         f"columns {list(map(str, table.columns))}", column=role,
                         header=True)
        return None
    return found[0]


def read_label_universe(path) -> tuple[list, list | None]:
    """The declared label universe from a text file: one label per line.

    A line may add a display name after a tab (``2<TAB>Ambiguous Attribution Bias``). Blank
    lines and lines starting with ``#`` are skipped. Labels that are all integers become int.

    Returns
    -------
    labels : list
    names : list of str, or None when no line gives a name

    Raises
    ------
    AnnotationFileError
        Missing or empty file, a duplicate label (its line is named).
    """
    if not os.path.exists(path):
        raise AnnotationFileError("label universe file not found", path=path)
    labels, names, seen = [], [], {}
    try:  # a BOM (Windows editors) dropped, never part of the first label
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().split("\n")  # as the file's lines (\r\n, \r read as \n)
    except UnicodeDecodeError as error:
        raise AnnotationFileError(f"not UTF-8 text: {error.reason}", path=path) from None
    for number, text in enumerate(lines, start=1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        value, _, name = text.partition("\t")
        value = value.strip()
        if value in seen:
            raise AnnotationFileError(f"label {value!r} already declared on line "
                                      f"{seen[value]}", path=path, line=number)
        seen[value] = number
        labels.append(value)
        names.append(name.strip() or None)
    if not labels:
        raise AnnotationFileError("the label universe file declares no labels", path=path)
    return labels, (names if any(n is not None for n in names) else None)


def read_table_annotations(
    path,
    layout: str = "auto",
    *,
    format: str | None = None,
    labels: Sequence | str | os.PathLike | None = None,
    sep: str = ";",
    item_column: str | None = None,
    annotator_column: str | None = None,
    labels_column: str | None = None,
    label_column: str | None = None,
    value_column: str | None = None,
    rating_column: str | None = None,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> xr.DataArray:
    """Read annotations from a CSV, TSV, parquet or JSON-lines table (the generic reader
    of :func:`xr_agreement.read_annotations`, ``tool="table"``).

    Parameters
    ----------
    path : str or path-like
        The file; its extension gives the format (``.csv``, ``.tsv``/``.tab``, ``.parquet``/
        ``.pq``, ``.jsonl``/``.ndjson``/``.json``, optionally compressed, e.g. ``.csv.gz``).
    layout : {"auto", "sets", "long", "single"}
        ``"sets"``: one row per (item, annotator) with a label-list column (``sep``-separated
        text, or a list in parquet / JSON-lines); an empty cell is an empty set and an absent
        row a missing annotation. ``"long"``: one row per (item, annotator, label) with a 0/1
        column (``0``/``1``/``true``/``false``); without a value column every row is a
        positive decision and the design is taken to be complete. ``"single"``: one rating
        per (item, annotator). ``"auto"`` picks "long" when label and 0/1 columns are found,
        else "sets" when a label-list column is found.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the extension.
    labels : sequence or path, optional
        The declared label universe: a list, or a text file with one label per line (see
        :func:`read_label_universe`; names given there become the ``label_name`` coordinate).
        A label in the annotations outside it is an error. Without it, the labels used.
    sep : str
        Separator inside a label-list cell of a text file.
    item_column, annotator_column, labels_column, label_column, value_column, rating_column : str
        Column names; by default recognised from common names (``item``, ``annotator``,
        ``labels``, ``label``, ``value``, ``rating`` and synonyms) when exactly one column fits.
    item, annotator, label : str
        Names of the output dims.

    Returns
    -------
    xarray.DataArray
        Layouts "sets" and "long": 0/1 decisions (item, annotator, label), float with NaN
        where missing. Layout "single": ratings (item, annotator), NaN/None where missing.
        Text that is an integer in every row (item ids, labels) becomes int, unless two
        values would merge ("01" and "1" stay two texts).

    Raises
    ------
    AnnotationFileError
        Naming row and column: a missing column, an empty file, a blank item or annotator,
        a duplicate (item, annotator) row (or (item, annotator, label) in "long"), a label
        outside the declared universe, a value other than 0/1, a CSV/TSV row with more or
        fewer fields than the header or a quoted cell never closed (naming its line), a
        JSON-lines record without the labels key others have, an id or label that is NaN,
        an infinity, a boolean, a nested list or blank.

    Examples
    --------
    >>> import os, tempfile, xr_agreement
    >>> path = os.path.join(tempfile.mkdtemp(), "votes.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("item,annotator,labels\\ns1,ann,a\\ns1,bob,a;b\\ns2,ann,\\ns2,bob,b\\n")
    >>> da = xr_agreement.read_annotations(path, tool="table")
    >>> da.sel(item="s1").values
    array([[1, 0],
           [1, 1]], dtype=uint8)
    >>> read_table_annotations(path, labels=["a", "b", "c"]).sizes["label"]
    3
    """
    if layout not in ("auto", "sets", "long", "single"):
        raise ValueError(f"layout must be 'auto', 'sets', 'long' or 'single', got {layout!r}")
    format = file_format(path, format)
    table, first_line = _read_table(path, format)
    locate = _Locator(path, first_line, table.attrs.get("lines"))
    if table.empty:
        raise AnnotationFileError("the file has a header but no data rows", path=path,
                                  line=first_line, row=1)
    table.columns = [str(c) for c in table.columns]

    universe, names = None, None
    if labels is not None:
        if isinstance(labels, (str, os.PathLike)):
            universe, names = read_label_universe(labels)
        else:
            universe = list(labels)

    item_col = _pick_column(table, item_column, ITEM_COLUMNS, "item", locate)
    annotator_col = _pick_column(table, annotator_column, ANNOTATOR_COLUMNS, "annotator",
                                 locate)
    if layout == "auto":
        value_col = _pick_column(table, value_column, VALUE_COLUMNS, "value", locate, False)
        label_col = _pick_column(table, label_column, LABEL_COLUMNS, "label", locate, False)
        if value_col is not None and label_col is not None:
            layout = "long"
        elif _pick_column(table, labels_column, LABELS_COLUMNS, "labels", locate, False):
            layout = "sets"
        elif label_col is not None and value_col is None:
            layout = "sets"  # a single "label" column: one label (or a list) per annotation
        else:
            raise locate("cannot tell the layout: pass layout='sets' (label-list column), "
                         "'long' (label and 0/1 columns) or 'single' (rating column)")

    if layout == "single":
        rating_col = _pick_column(table, rating_column, RATING_COLUMNS, "rating", locate)
        try:  # whole columns; on anything unusual the per-row code, which names it
            values, items, annotators, categories = single_ratings(
                table, (item_col, annotator_col, rating_col), universe)
            # (single_ratings gives NaN for missing text, as xarray makes of per-row None)
            da = xr.DataArray(object_variable((item, annotator), values), name="rating",
                              coords={item: id_coordinate(item, items),
                                      annotator: id_coordinate(annotator, annotators)})
            if categories is not None:
                da.attrs["categories"] = list(categories)
        except (Fallback, AnnotationFileError, TypeError, ValueError, OverflowError):
            ids = _ids(table, [item_col, annotator_col], locate)
            da = _single(table, ids, rating_col, universe, locate, item, annotator)
        if names is not None:  # each declared category's name, in their order
            da.attrs["category_names"] = [n or str(v) for n, v in zip(names, universe)]
        da.attrs.update(reader="table", dropped={})
        return da
    da = None
    try:  # whole-column operations; on anything unusual the per-row code, which names it
        if layout == "sets":
            column = _labels_column(table, labels_column, label_column, locate)
            _refuse_absent(table, column, locate)
            values, *coords = sets_decisions(table, (item_col, annotator_col, column),
                                             universe, sep)
        else:
            columns = (_pick_column(table, label_column, LABEL_COLUMNS, "label", locate),
                       _pick_column(table, value_column, VALUE_COLUMNS, "value", locate,
                                    False))
            for column in columns:
                _refuse_absent(table, column, locate)
            values, *coords = long_decisions(table, (item_col, annotator_col, *columns),
                                             universe, TRUE_WORDS, FALSE_WORDS)
        items, annotators, universe = coords
        da = _grid(values, id_coordinate(item, items), id_coordinate(annotator, annotators),
                   universe, item, annotator, label,
                   object if any(isinstance(v, str) for v in universe) else None)
    except (Fallback, AnnotationFileError, TypeError, ValueError, OverflowError):
        pass  # e.g. unhashable ids (JSON objects), which the per-row code refuses
    if da is None and layout == "sets":
        ids = _ids(table, [item_col, annotator_col], locate)
        column = _labels_column(table, labels_column, label_column, locate)
        _refuse_absent(table, column, locate)
        da = _sets(table, ids, column, universe, sep, locate, item, annotator, label)
    elif da is None:
        ids = _ids(table, [item_col, annotator_col], locate)
        label_col = _pick_column(table, label_column, LABEL_COLUMNS, "label", locate)
        value_col = _pick_column(table, value_column, VALUE_COLUMNS, "value", locate, False)
        for column in (label_col, value_col):
            _refuse_absent(table, column, locate)
        da = _long(table, ids, label_col, value_col, universe, locate, item, annotator, label)
    if names is not None:
        da = da.assign_coords(label_name=(label, [n or str(v) for n, v in
                                                  zip(names, da[label].values.tolist())]))
    da.attrs.update(reader="table", dropped={})
    return da


def _labels_column(table, labels_column, label_column, locate) -> str:
    column = _pick_column(table, labels_column, LABELS_COLUMNS, "labels", locate, False)
    if column is None:  # a "label" column holding one label (or a list) per annotation
        column = _pick_column(table, label_column, LABEL_COLUMNS, "labels", locate)
    return column


def _ids(table, columns, locate) -> dict[str, list]:
    """Item and annotator ids per row, checked for blanks; numbers beside text made text;
    stripped and integer text made int when that merges no two ids
    (:func:`ids_as_coordinate`)."""
    out = {}
    for column in columns:
        values = [_plain(v) for v in table[column].tolist()]
        if all(type(v) is str for v in values):  # noqa: E721 - text tables: blanks only
            blanks = [p for p, v in enumerate(values) if invisible(v)]
            if blanks:
                raise locate("empty cell: every row needs an item and an annotator",
                             blanks[0], column)
            out[column] = ids_as_coordinate(values)
            continue
        for position, value in enumerate(values):
            if _is_blank(value):
                raise locate("empty cell: every row needs an item and an annotator",
                             position, column)
            if non_finite(value) or isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (str, int, float, np.integer, np.floating)):
                raise locate(f"an id must be text or a finite number, got "
                             f"{type(value).__name__} {value!r}", position, column)
        if any(isinstance(v, str) for v in values) and not all(isinstance(v, str)
                                                               for v in values):
            values = [_number_text(v) for v in values]  # JSON 1 and "1": one id
        out[column] = ids_as_coordinate(values)
    return out


def _refuse_absent(table, column, locate) -> None:
    """JSON lines: a record without the labels (or 0/1 value) key that other records have is
    damaged or foreign, not "chose no label" as an empty cell is; refused naming its line."""
    position = table.attrs.get("absent", {}).get(column)
    if position is not None:
        raise locate(f"the record has no {column!r} key, which other records have: a damaged "
                     "record? Write [] where no label was chosen", position, column)


def _check_duplicates(keys: list[tuple], columns: list[str], locate, hint=""):
    first = {}
    for position, key in enumerate(keys):
        if key in first:
            shown = ", ".join(f"{c}={k!r}" for c, k in zip(columns, key))
            raise locate(f"duplicate row: {shown} already on row {first[key] + 1}{hint}",
                         position, columns[-1])
        first[key] = position


def _label_value(value, position, column, locate):
    """One label or rating as the file gave it: text stripped, a whole float as int, a
    boolean, NaN, infinity, list or object refused (``True == 1`` would merge two labels)."""
    value = _plain(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (bool, np.bool_)):
        raise locate(f"a label must be text or a number, got {value!r} (a JSON boolean is "
                     "not a label; write the label's name)", position, column)
    if non_finite(value):
        raise locate(f"a label must be text or a finite number, got {value!r}", position,
                     column)
    if isinstance(value, (float, np.floating)):
        return int(value) if value.is_integer() else float(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    raise locate(f"a label must be text or a number, got a nested {type(value).__name__} "
                 f"{value!r}", position, column)


def _labels_of_cell(value, sep, position, column, locate) -> list:
    value = _plain(value)
    if _is_blank(value):
        return []
    if isinstance(value, str):
        if value.strip()[:1] in "[{":  # a JSON list or a Python list repr: never one label
            from .cells import cell_labels

            return cell_labels(value, sep, lambda message, *_: locate(message, position,
                                                                      column))
        return [part.strip() for part in value.split(sep) if part.strip()]
    if isinstance(value, (list, tuple, np.ndarray, set, frozenset)):
        return [_label_value(v, position, column, locate) for v in value if not _is_blank(v)]
    if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        return [_label_value(value, position, column, locate)]
    raise locate(f"a label list must be text or a list, got {type(value).__name__} "
                 f"{value!r}", position, column)


def _check_universe(per_row, universe, column, locate):
    if universe is None:
        return
    declared = set(universe)
    for position, row in enumerate(per_row):
        for value in row:
            if value not in declared:
                raise locate(f"label {value!r} is not in the declared label universe "
                             f"({len(universe)} labels)", position, column)


def _sets(table, ids, column, universe, sep, locate, item, annotator, label):
    item_col, annotator_col = list(ids)
    keys = list(zip(ids[item_col], ids[annotator_col]))
    _check_duplicates(keys, [item_col, annotator_col], locate,
                      hint=" (one row per positive label? use layout='long')")
    per_row = [_labels_of_cell(v, sep, p, column, locate)
               for p, v in enumerate(table[column].tolist())]
    per_row, universe = _unify_labels(per_row, universe)
    _check_universe(per_row, universe, column, locate)
    if universe is None:
        _check_joined(per_row, sep, column, locate)
    for position, row in enumerate(per_row):
        if len(set(row)) != len(row):
            raise locate(f"a label is listed twice in {row!r}", position, column)
    records = [(i, a, chosen) for (i, a), chosen in zip(keys, per_row)]
    if universe is None and not any(per_row):
        raise locate("no label is selected anywhere and no label universe is declared; "
                     "pass labels=... (--labels FILE)", column=column)
    return from_sets(records, labels=universe, item=item, annotator=annotator, label=label)


def _check_joined(per_row, sep, column, locate):
    """Refuse a label that is other labels of the file joined by another separator than
    ``sep`` ("x, y" beside "x" and "y" is two labels, not a third)."""
    from .cells import joined_labels

    labels = {v for row in per_row for v in row if isinstance(v, str)}
    for position, row in enumerate(per_row):
        for value in row:
            joined = joined_labels(value, labels, sep)
            if joined is not None:
                other, parts = joined
                raise locate(f"the label {value!r} is the labels {parts} joined by "
                             f"{other!r}, not one label; if labels are separated by "
                             f"{other!r} here, say so (sep={other!r}, --sep {other!r})",
                             position, column)


def _binary(value, position, column, locate) -> float:
    value = _plain(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return 1.0
        if word in FALSE_WORDS:
            return 0.0
    elif isinstance(value, (bool, np.bool_)) or isinstance(value, (int, float)) and value in (0, 1):
        return float(value)
    raise locate(f"value must be 0 or 1, got {value!r}", position, column)


def _long(table, ids, label_col, value_col, universe, locate, item, annotator, label):
    item_col, annotator_col = list(ids)
    per_row = []
    for position, value in enumerate(table[label_col].tolist()):
        if _is_blank(value):
            raise locate("empty label", position, label_col)
        per_row.append([_label_value(value, position, label_col, locate)])
    per_row, universe = _unify_labels(per_row, universe)
    _check_universe(per_row, universe, label_col, locate)
    keys = list(zip(ids[item_col], ids[annotator_col], (r[0] for r in per_row)))
    _check_duplicates(keys, [item_col, annotator_col, label_col], locate)
    frame = pd.DataFrame(keys, columns=["item", "annotator", "label"])
    if value_col is not None:
        frame["value"] = [_binary(v, p, value_col, locate)
                          for p, v in enumerate(table[value_col].tolist())]
    return from_long(frame, value_column="value" if value_col is not None else None,
                     labels=universe, item=item, annotator=annotator, label=label)


def _single(table, ids, rating_col, categories, locate, item, annotator):
    item_col, annotator_col = list(ids)
    keys = list(zip(ids[item_col], ids[annotator_col]))
    _check_duplicates(keys, [item_col, annotator_col], locate)
    ratings = [None if _is_blank(v) else _label_value(v, p, rating_col, locate)
               for p, v in enumerate(table[rating_col].tolist())]
    (present,), categories = _unify_labels([[r for r in ratings if r is not None]], categories)
    present = iter(present)
    ratings = [None if r is None else next(present) for r in ratings]
    present = [r for r in ratings if r is not None]
    if categories is not None:
        declared = set(categories)
        for position, rating in enumerate(ratings):
            if rating is not None and rating not in declared:
                raise locate(f"rating {rating!r} is not among the declared categories "
                             f"({len(categories)})", position, rating_col)
    items = list(dict.fromkeys(k[0] for k in keys))
    annotators = list(dict.fromkeys(k[1] for k in keys))
    numeric = all(isinstance(r, (int, float)) for r in present)
    values = np.full((len(items), len(annotators)), np.nan if numeric else None,
                     dtype=float if numeric else object)
    item_index = {v: i for i, v in enumerate(items)}
    annotator_index = {v: i for i, v in enumerate(annotators)}
    for (i, a), rating in zip(keys, ratings):
        if rating is not None:
            values[item_index[i], annotator_index[a]] = rating
    da = xr.DataArray(values, dims=(item, annotator),
                      coords={item: items, annotator: annotators}, name="rating")
    if categories is not None:
        da.attrs["categories"] = list(categories)
    return da
