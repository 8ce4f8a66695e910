"""Reading span annotations: the annotation tools' span exports, one entry point.

:func:`read_spans` tells the tool from the content (or is told, ``tool=``) and hands the path
to that tool's reader in this package: ``label_studio``, ``prodigy``, ``doccano``, ``brat``,
``conll``. Each keeps its tool's meaning of "no decision" and says it in its docstring.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import zipfile

from ..files import AnnotationFileError
from ..tools.archive import archive_members, read_member
from ._shared import check_file, collection_names, is_collection, read_file_text

TOOLS = ("label_studio", "prodigy", "doccano", "brat", "conll")
# how many JSON lines are read to tell the tool (the reader reads the file once, whole)
PEEK_LINES = 1000
# how much of a text file is read to tell CoNLL columns
PEEK_BYTES = 64 * 1024
JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")


def _undetected(path, what: str) -> AnnotationFileError:
    return AnnotationFileError(
        f"cannot tell which tool wrote this span export ({what}); the readers are "
        f"{', '.join(TOOLS)}: name one with tool=", path=path)


def _looks_like(tool: str, records: list) -> bool:
    """The other span readers' own test of their format (absent before they land)."""
    try:
        if tool == "label_studio":
            from .label_studio import looks_like
        else:
            from .doccano import looks_like
    except ImportError:
        return False
    return bool(looks_like(records))


def _json_records(path) -> list[dict]:
    """The records detection looks at: a JSON array whole, of JSON lines the first
    PEEK_LINES that parse (a damaged line is the reader's to name)."""
    text = read_file_text(path) if _first_char(path) == "[" else None
    if text is not None:
        try:
            records = json.loads(text)
        except (ValueError, RecursionError):
            raise AnnotationFileError("invalid JSON (truncated or malformed); the reader of "
                                      "the tool that wrote it (tool=) says where", path=path
                                      ) from None
        return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []
    records = []
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        for line in itertools.islice(handle, PEEK_LINES):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _first_char(path) -> str:
    with open(path, "rb") as handle:
        head = handle.read(PEEK_BYTES).decode("utf-8-sig", errors="replace")
    stripped = head.lstrip()
    return stripped[:1]


def _json_tool(path, records: list[dict]) -> str:
    found = []
    if any(isinstance(r.get("spans"), list) and ("_input_hash" in r or "answer" in r)
           for r in records):
        found.append("prodigy")
    found += [tool for tool in ("label_studio", "doccano") if _looks_like(tool, records)]
    if len(found) > 1:
        raise AnnotationFileError(f"the file looks like a span export of several tools "
                                  f"({found}); name it with tool=", path=path)
    if not found:
        raise _undetected(path, "JSON records without a tool's span fields")
    return found[0]


def _label_studio_columns(head: str) -> bool:
    """Whether the header line of a CSV / TSV is Label Studio's (JSON-min's keys as columns:
    ``annotator``, ``id`` and ``annotation_id`` or ``lead_time``)."""
    first = head.split("\n", 1)[0].rstrip("\r")
    for sep in (",", "\t"):
        try:
            columns = {c.strip().lower() for c in next(csv.reader([first], delimiter=sep))}
        except (csv.Error, StopIteration):
            continue
        if {"annotator", "id"} <= columns and columns & {"annotation_id", "lead_time"}:
            return True
    return False


def _member_head(path, name: str) -> str:
    if os.path.isdir(path):
        full = os.path.join(path, *name.split("/"))
        with open(full, "rb") as handle:
            return handle.read(PEEK_BYTES).decode("utf-8-sig", errors="replace")
    members = dict((n, info) for info, n in archive_members(path))
    with zipfile.ZipFile(path) as archive:
        return read_member(archive, members[name], path)[0][:PEEK_BYTES]


def detect_span_tool(path) -> str:
    """The tool whose span export ``path`` is, told from the content: brat (``.ann`` files
    in a folder or .zip), doccano (a folder or .zip of per-user JSON files, or JSON records
    its reader recognises), CoNLL (token / tag columns), Prodigy (JSON lines with ``spans``
    and ``answer`` / ``_input_hash``), Label Studio (JSON its reader recognises, or a CSV /
    TSV with its columns ``annotator``, ``id``, ``annotation_id`` / ``lead_time``).

    Raises
    ------
    AnnotationFileError
        Nothing recognised, or two tools' signatures at once: the message lists the tools
        and ``tool=``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ann.conll")
    >>> with open(path, "w") as f:
    ...     _ = f.write("token\\tann\\tbob\\nParis\\tB-LOC\\tB-LOC\\nis\\tO\\tO\\n")
    >>> detect_span_tool(path)
    'conll'
    """
    if not os.path.exists(path):
        raise AnnotationFileError("file not found", path=path)
    if is_collection(path):
        names = collection_names(path)
        if any(n.lower().endswith(".ann") for n in names):
            return "brat"
        if any(n.lower().endswith(JSON_SUFFIXES) for n in names):
            return "doccano"
        from .conll import SUFFIXES, looks_like

        tagged = [n for n in names if n.lower().endswith(SUFFIXES)]
        if tagged and looks_like(_member_head(path, tagged[0])):
            return "conll"
        raise _undetected(path, "a folder or archive without .ann, JSON or CoNLL files")
    check_file(path)  # a file too large is refused before detection reads it
    if os.fspath(path).lower().endswith(".ann"):
        raise AnnotationFileError("one brat .ann file holds one annotator's annotations; "
                                  "read the folder (or .zip) that holds one folder per "
                                  "annotator with their .ann files and the .txt", path=path)
    first = _first_char(path)
    if first in ("[", "{"):
        return _json_tool(path, _json_records(path))
    with open(path, "rb") as handle:
        head = handle.read(PEEK_BYTES).decode("utf-8-sig", errors="replace")
    if _label_studio_columns(head):
        return "label_studio"
    from .conll import looks_like

    if looks_like(head.rsplit("\n", 1)[0] if len(head) == PEEK_BYTES else head):
        return "conll"
    raise _undetected(path, "neither JSON nor token / tag columns")


def read_spans(path, tool=None, control=None, labels=None, *, unit=None, scheme=None,
               empty_list=None):
    """Read a span export (named entities, segments, highlights) into a span table.

    Parameters
    ----------
    path : str or path-like
        The export: a file, or a folder / .zip (brat, per-annotator CoNLL files, doccano's
        per-user files).
    tool : {"label_studio", "prodigy", "doccano", "brat", "conll"}, optional
        The tool that wrote it ("label-studio" is read as "label_studio"). By default told
        from the content (:func:`detect_span_tool`), never from the file's name alone.
    control : str, optional
        Label Studio: the labels control (``from_name``) to read when the export has several.
    labels : sequence or path, optional
        The declared label universe (labels nobody used count: they agree everywhere); for
        Label Studio also its labeling config. A span label outside it is an error.
    unit : {"character", "token"}, optional
        Prodigy: offsets in characters of ``text`` (default) or in ``tokens``. CoNLL files
        are always tokens, brat and the others characters.
    scheme : {"iob2", "iob1"}, optional
        CoNLL: how ``I-X`` after ``O`` or another type is read (IOB2: refused, the
        default; IOB1: a chunk's start). Columns with ``E-``/``S-`` tags are BIOES.
    empty_list : {"missing", "no-label"}, optional
        What an empty span list means: never opened (not annotated) or read and given no
        span. doccano: required for a full export (every member's file lists every
        example); brat: an ``.ann`` that marks no text (default "no-label").

    Returns
    -------
    xarray.Dataset
        The span table of :func:`xr_agreement.from_spans` (``annotated`` False where the
        tool's export says the annotator made no decision), with attrs ``tool``,
        ``offsets_unit`` ("character" or "token") and ``notes`` (a sentence per thing the
        reader left out or read in its own way), plus each reader's own (brat:
        ``discontinuous``; Prodigy: ``n_ignored``, ``n_rejected``; CoNLL: ``documents``).
        Label Studio and doccano give ``reader``, ``dropped`` (reason -> {annotator:
        count}) and, when they noted something, ``notes`` as a list; doccano also
        ``empty_label_lists``. Those dicts and lists are JSON text, which every store
        (netCDF, zarr) accepts: ``json.loads(table.attrs["dropped"])``.

    Raises
    ------
    AnnotationFileError
        An export that no reader recognises (listing the tools and ``tool=``), and each
        reader's refusals, naming the file, the line, the document and annotator and the
        offsets.

    Examples
    --------
    >>> import os, tempfile, xr_agreement
    >>> root = tempfile.mkdtemp()
    >>> for who, ann in [("ann", "T1\\tLOC 0 5\\tJapan\\n"), ("bob", "T1\\tORG 0 5\\tJapan\\n")]:
    ...     os.mkdir(os.path.join(root, who))
    ...     with open(os.path.join(root, who, "d1.ann"), "w") as f:
    ...         _ = f.write(ann)
    >>> with open(os.path.join(root, "d1.txt"), "w") as f:
    ...     _ = f.write("Japan was today struck")
    >>> table = xr_agreement.read_spans(root)
    >>> table.attrs["tool"], table.label.values.tolist()
    ('brat', ['LOC', 'ORG'])
    """
    if tool is not None:
        tool = str(tool).replace("-", "_")
        if tool not in TOOLS:
            raise ValueError(f"tool must be one of {list(TOOLS)}, got {tool!r}")
    else:
        tool = detect_span_tool(path)
    if control is not None and tool != "label_studio":
        raise ValueError(f"control= picks a Label Studio control; this is a {tool} export")
    if unit is not None and tool != "prodigy":
        raise ValueError(f"unit= is for Prodigy exports (which hold both characters and "
                         f"tokens); a {tool} export's offsets are "
                         f"{'tokens' if tool == 'conll' else 'characters'}")
    if scheme is not None and tool != "conll":
        raise ValueError(f"scheme= is for CoNLL files; this is a {tool} export")
    if empty_list is not None and tool not in ("doccano", "brat"):
        raise ValueError(f"empty_list= is for doccano and brat exports; this is a {tool} "
                         "export")
    if tool == "label_studio":
        from .label_studio import read

        return read(path, control=control, labels=labels)
    if tool == "doccano":
        from .doccano import read

        return read(path, labels=labels, empty_list=empty_list)
    if tool == "prodigy":
        from .prodigy import read

        return read(path, labels=labels, unit=unit or "character")
    if tool == "brat":
        from .brat import read

        return read(path, labels=labels, empty_list=empty_list)
    from .conll import read

    return read(path, labels=labels, scheme=scheme or "iob2")
