"""Which tool wrote a file, told from its content (not its extension).

Each tool leaves a signature no other leaves: Label Studio tasks with ``annotations`` (or
JSON-min records, and CSV / TSV columns, with ``annotator`` and ``annotation_id``; its
CONLL2003 export, ``-DOCSTART- -X- O``, names no annotator and is refused), Prodigy's
``_input_hash`` with ``answer``, Argilla's ``<question>.responses`` columns or
``[{user_id, value, status}]`` lists, MTurk's ``HITId`` + ``WorkerId`` + ``Answer.*``,
doccano's per-user files. A table that the generic reader understands stays "table";
otherwise the crowd-table and wide-table column names are tried. Two signatures at once is
ambiguous and refused (pass ``tool=``).
"""

from __future__ import annotations

import itertools
import json
import os
import zipfile
import zlib

from ..files import (ANNOTATOR_COLUMNS, ITEM_COLUMNS, LABEL_COLUMNS, LABELS_COLUMNS,
                     VALUE_COLUMNS, AnnotationFileError)
from ..cells import _Constant, _refuse_constant
from ._common import is_collection, json_lines, load_json_records, read_text
from .archive import archive_members
from .label_studio import CONLL_PEEK, CONLL_REFUSAL, is_conll
from .tables import CROWD_ITEMS, CROWD_LABELS, CROWD_WORKERS, FLAG_COLUMNS, _binary, read_table


# how many rows or lines are read to tell the tool (a large table is read once, by its reader)
PEEK_ROWS = 1000
# how much of a zipped table's first line is read to see its columns
HEADER_BYTES = 64 * 1024


def _json_tools(records) -> set[str]:
    found = set()
    for _, record in records[:PEEK_ROWS]:
        keys = set(record)
        if isinstance(record.get("annotations"), list):
            found.add("label-studio")
        if {"annotator", "id"} <= keys and ("annotation_id" in keys or "lead_time" in keys):
            found.add("label-studio")
        if "_input_hash" in keys and "answer" in keys:
            found.add("prodigy")
        nested = record.get("responses")
        if isinstance(nested, dict) and any(isinstance(v, list) for v in nested.values()):
            found.add("argilla")
        if any(k.endswith(".responses") for k in keys) or any(
                isinstance(v, list) and v and isinstance(v[0], dict) and "user_id" in v[0]
                and "status" in v[0] for v in record.values()):
            found.add("argilla")
    return found


# a table whose columns are both a long table's and a wide table's
AMBIGUOUS = "ambiguous"
TOLOKA_PREFIXES = ("input", "output", "golden", "hint", "assignment", "acceptance")


def _binary_columns(columns, rows) -> list[str]:
    """The columns of no known role whose cells are all 0/1 (true/false)."""
    known = (set(CROWD_ITEMS) | set(CROWD_WORKERS) | set(CROWD_LABELS) | set(FLAG_COLUMNS)
             | set(ITEM_COLUMNS) | set(ANNOTATOR_COLUMNS) | set(LABEL_COLUMNS)
             | set(LABELS_COLUMNS) | set(VALUE_COLUMNS))
    out = []
    for column in columns:
        name = column.lower()
        if name in known or name.split(":")[0] in TOLOKA_PREFIXES:
            continue
        cells = [v for v in rows[column].tolist() if not (isinstance(v, str) and not v.strip())]
        if cells and all(_binary(v) is not None for v in cells):  # an empty column is no label
            out.append(column)
    return out


def _columns_tool(columns, rows) -> str | None:
    lower = {c.lower() for c in columns}
    if {"annotator", "id"} <= lower and lower & {"annotation_id", "lead_time"}:
        return "label-studio"  # its CSV / TSV export: JSON-min's keys as columns
    if {"hitid", "workerid"} <= lower and any(c.startswith("Answer.") for c in columns):
        return "mturk"
    if any(c.endswith(".responses") for c in columns):
        return "argilla"
    has = {role: bool(lower & set(names)) for role, names in (
        ("item", ITEM_COLUMNS), ("annotator", ANNOTATOR_COLUMNS),
        ("labels", LABELS_COLUMNS + LABEL_COLUMNS))}
    crowd_item = bool(lower & set(CROWD_ITEMS)) or any(c.startswith("input:") for c in lower)
    crowd_worker = bool(lower & set(CROWD_WORKERS))
    crowd_label = bool(lower & set(CROWD_LABELS)) or any(c.startswith("output:") for c in lower)
    long_tool = "table" if all(has.values()) else (
        "crowd" if crowd_item and crowd_worker and crowd_label else None)
    if long_tool is not None:
        # a wide table may also have a label column (a gold label, a category): with two
        # or more 0/1 columns beside it, which one holds the decisions is not ours to guess
        if rows is not None and len(_binary_columns(columns, rows)) >= 2:
            return AMBIGUOUS
        return long_tool
    if crowd_item and crowd_worker and rows is not None:
        ids = set(CROWD_ITEMS) | set(CROWD_WORKERS) | set(FLAG_COLUMNS)
        binary = [c for c in columns if c.lower() not in ids and all(
            _binary(v) is not None for v in rows[c].tolist())]
        if binary:
            return "wide"
    if {"id", "label"} <= lower and not crowd_worker:
        return "doccano"
    return None


def _whole_lines(text: str) -> list[tuple[int, dict]]:
    """The JSON-lines records of ``text`` that parse, each as (line, record); the others
    passed over (to tell the tool of a file with a damaged line)."""
    records = []
    for number, line in enumerate(itertools.islice(json_lines(text), PEEK_ROWS), start=1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            records.append((number, record))
    return records


def _array_head(text: str) -> list[tuple[int, dict]] | None:
    """The first PEEK_ROWS records of a JSON array, each as (position, record), parsed one
    element at a time, or None when they are not PEEK_ROWS objects that parse (a short,
    damaged or odd array: detection then parses it whole, as before). A tool found here is
    the reader's to parse and check: the whole of a Label Studio export was parsed twice,
    by detection and by its reader (34 MB: the head in 0.03 s, the whole in 1.0-1.7 s)."""
    decode = json.JSONDecoder(parse_constant=_refuse_constant).raw_decode
    start = text.find("[") + 1
    records = []
    try:
        for position in range(1, PEEK_ROWS + 1):
            while text[start:start + 1].isspace():
                start += 1
            if position > 1:
                if text[start:start + 1] != ",":
                    return None
                start += 1
                while text[start:start + 1].isspace():
                    start += 1
            record, start = decode(text, start)
            if not isinstance(record, dict):
                return None
            records.append((position, record))
    except (ValueError, RecursionError, _Constant):  # NaN, or nesting too deep
        return None
    return records


def _json_head(path) -> str:
    """The text detection needs: a JSON array whole (it parses only whole), of JSON lines
    only the first PEEK_ROWS lines (a large file is read once, by its reader)."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            head = list(itertools.islice(handle, PEEK_ROWS))
            joined = "".join(head)
            if not joined.strip() or joined.lstrip().startswith("["):
                return joined + handle.read()
    except UnicodeDecodeError:
        return read_text(path)  # whose error names the file
    return "".join(head)


def _zipped_plain_table(path) -> bool:
    """A .zip holding one CSV / TSV without doccano's ``id`` and ``label`` columns: a table
    compressed as a zip (``votes.csv.zip``), read by the table reader as before. The members
    are listed under the archive's rules (a hostile name or a bomb is refused here) and only
    the header line is read, bounded."""
    if os.path.isdir(path):
        return False
    members = archive_members(path)
    if len(members) != 1 or not members[0][1].lower().endswith((".csv", ".tsv", ".tab")):
        return False
    try:
        with zipfile.ZipFile(path) as archive, archive.open(members[0][0]) as handle:
            header = handle.readline(HEADER_BYTES).decode("utf-8-sig", errors="replace")
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, RuntimeError,
            OSError) as error:
        raise AnnotationFileError(f"cannot read the member (damaged or unsupported zip): "
                                  f"{error}", path=f"{path}:{members[0][0].filename}") from None
    sep = "," if members[0][1].lower().endswith(".csv") else "\t"
    columns = {c.strip().strip('"').lower() for c in header.strip().split(sep)}
    return not {"id", "label"} <= columns


def detect_tool(path) -> str:
    """The tool whose export ``path`` is: one of the readers' names, or "table" (the
    generic reader) when no tool's signature is found.

    Raises
    ------
    AnnotationFileError
        The file carries the signatures of two tools, or is a JSON array that cannot be
        parsed.

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "db-out.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write(json.dumps({"_input_hash": 1, "_annotator_id": "a", "label": "X",
    ...                             "answer": "accept"}) + "\\n")
    >>> detect_tool(path)
    'prodigy'
    """
    if not os.path.exists(path):
        return "table"  # whose message (unknown extension, file not found) stays as it was
    if is_collection(path):
        return "table" if _zipped_plain_table(path) else "doccano"
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            head = handle.read(CONLL_PEEK).decode("utf-8", errors="replace")
        if is_conll(head):
            raise AnnotationFileError(CONLL_REFUSAL, path=path)
    name = os.fspath(path).lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    if name.endswith((".json", ".jsonl", ".ndjson")) and name == os.fspath(path).lower():
        text = _json_head(path)
        head = _array_head(text) if text.lstrip().startswith("[") else None
        found = _json_tools(head) if head is not None else set()
        if len(found) == 1:  # the file is parsed whole, and checked, by that tool's reader
            return found.pop()
        try:
            records, kind = load_json_records(path, text)
        except AnnotationFileError:
            if text.lstrip().startswith("[") or _json_tools(_whole_lines(text)):
                # only a tool writes one JSON array; and a tool's JSON lines with a damaged
                # line are that tool's export, damaged: its error, not the table reader's
                raise
            return "table"  # the table reader says what is wrong, as it always did
        found = _json_tools(records)
        if len(found) > 1:
            raise AnnotationFileError(f"the file looks like an export of several tools "
                                      f"({sorted(found)}); name it with tool= (--from TOOL)",
                                      path=path)
        if found:
            return found.pop()
        keys = {k.lower() for _, r in records for k in r}
        if {"id", "label"} <= keys and not keys & set(CROWD_WORKERS):
            return "doccano"
        if kind == "array":  # the table reader reads JSON lines only
            raise AnnotationFileError(
                "cannot tell which tool wrote this JSON array (Label Studio tasks, JSON-min "
                "or Argilla records were expected); name it with tool= (--from TOOL)",
                path=path)
        return "table"
    if name.endswith((".csv", ".tsv", ".tab", ".parquet", ".pq")):
        try:
            table, _ = read_table(path, nrows=PEEK_ROWS)
        except AnnotationFileError:
            return "table"  # the table reader says what is wrong, as it always did
        tool = _columns_tool(list(table.columns), table) or "table"
        if tool == AMBIGUOUS:
            binary = _binary_columns(list(table.columns), table)
            raise AnnotationFileError(
                f"ambiguous table: it has item, annotator and label columns and also the 0/1 "
                f"columns {binary}; say how to read it: --from wide (one 0/1 column per "
                f"label) or --from table / --from crowd (the label column) (tool=...)",
                path=path)
        return tool
    return "table"
