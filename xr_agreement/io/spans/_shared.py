"""What the span readers share: bounded reading of one file or of an export's folder / zip,
the declared label universe, and the span table with the reader's attrs.

Text is read as UTF-8 with its line ends kept as written (``\\r\\n`` stays two characters:
offsets in standoff files count them), a byte-order mark dropped.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from ..files import AnnotationFileError, read_label_universe
from ..tools.archive import MAX_ARCHIVE_BYTES, MAX_MEMBER_BYTES, member_name, zip_texts
from ..tools import is_config
from ..tools._common import is_collection
from ...spans.table import from_spans


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def check_file(path) -> None:
    """Refuse a folder, a missing file, or a file larger than one member of an export may be
    (:data:`~xr_agreement.io.tools.archive.MAX_MEMBER_BYTES`), before anything is read."""
    if os.path.isdir(path):
        raise AnnotationFileError("a folder, where this reader reads one file", path=path)
    if not os.path.isfile(path):
        raise AnnotationFileError("file not found", path=path)
    size = os.path.getsize(path)
    if size > MAX_MEMBER_BYTES:
        raise AnnotationFileError(f"the file holds {_mib(size)}, more than the "
                                  f"{_mib(MAX_MEMBER_BYTES)} one export file may hold; not "
                                  "read", path=path)


def read_file_text(path) -> str:
    """The text of one file (:func:`check_file` first)."""
    check_file(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        raise AnnotationFileError(f"not UTF-8 text: {error.reason}", path=path) from None


def _hidden(part: str) -> bool:
    return part.startswith(".") or part == "__MACOSX"


def collection_names(path, suffixes: tuple[str, ...] | None = None) -> list[str]:
    """The relative names (forward slashes) of the files of a folder (walked down) or a zip
    that are read, sorted; nothing is opened."""
    if os.path.isdir(path):
        names = []
        for root, folders, files in os.walk(path):
            folders[:] = sorted(f for f in folders if not _hidden(f))
            relative = os.path.relpath(root, path)
            for name in sorted(files):
                if _hidden(name) or (suffixes and not name.lower().endswith(suffixes)):
                    continue
                names.append(name if relative == "." else
                             f"{relative.replace(os.sep, '/')}/{name}")
        return sorted(names)
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise AnnotationFileError(f"cannot open the zip archive: {error}", path=path) from None
    names = []
    for info in infos:
        name = None if info.is_dir() else member_name(info.filename, path)
        if name is not None and not (suffixes and not name.lower().endswith(suffixes)):
            names.append(name)
    return sorted(names)


def collection_texts(path, suffixes: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """(relative name, text) of the files of a folder (walked down, hidden files and
    ``__MACOSX`` left out) or of a zip (under the rules of
    :mod:`xr_agreement.io.tools.archive`: hostile names, zip bombs), sorted by name; each
    file bounded as one member, all of them together as one archive."""
    if not os.path.isdir(path):
        return zip_texts(path, suffixes)
    out, total = [], 0
    for name in collection_names(path, suffixes):
        full = os.path.join(path, *name.split("/"))
        total += os.path.getsize(full)
        if total > MAX_ARCHIVE_BYTES:
            raise AnnotationFileError(f"the files hold more than {_mib(MAX_ARCHIVE_BYTES)} "
                                      "together (the limit for one export); not read",
                                      path=path)
        out.append((name, read_file_text(full)))
    return out


def lines_of(text: str):
    """(line number from 1, line without its end) of ``text``, split at "\\n" only (a
    ``\\r`` before it dropped): ``splitlines`` would also split at characters that a
    token or a brat text may hold (U+2028, form feed)."""
    start, number = 0, 1
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield number, text[start:end].removesuffix("\r")
        start, number = end + 1, number + 1


def declared_labels(labels) -> list | None:
    """The declared label universe: None, a sequence of labels, or a text file with one
    label per line (:func:`~xr_agreement.io.files.read_label_universe`)."""
    if labels is None:
        return None
    if is_config(labels):  # its XML lines would otherwise be read as labels
        raise AnnotationFileError("a labeling config (XML) declares a Label Studio "
                                  "project's labels; give this export's labels as a list or "
                                  "a file with one label per line", path=labels)
    if isinstance(labels, (str, os.PathLike)):
        return [str(v) for v in read_label_universe(labels)[0]]
    out = [str(v) for v in labels]
    if len(set(out)) != len(out):
        raise ValueError(f"labels holds a label twice: {out}")
    return out


def check_label(label: str, universe: list | None, where) -> None:
    if universe is not None and label not in universe:
        shown = ", ".join(universe[:8]) + (", ..." if len(universe) > 8 else "")
        raise AnnotationFileError(f"{where}: label {label!r} is not in the declared label "
                                  f"universe ({len(universe)} labels: {shown})")


def _with_annotators(table, annotators):
    """``table`` with the annotators it lacks (who annotated nothing: every task skipped)
    added, annotated nowhere: they were assigned documents and made no decision."""
    have = [str(v) for v in table.annotator_id.values]
    extra = [a for a in dict.fromkeys(annotators) if a not in have]
    if not extra:
        return table
    mask = np.zeros((table.sizes["document"], len(have) + len(extra)), dtype=bool)
    mask[:, :len(have)] = table.annotated.values
    attrs = table.annotated.attrs
    out = table.drop_vars(["annotated", "annotator_id"])
    out = out.assign_coords(annotator_id=("annotator", np.array(have + extra, dtype=str)))
    out["annotated"] = (("document", "annotator"), mask, attrs)
    return out.set_xindex("annotator_id")


def span_table(records, lengths, annotated, *, path, tool: str, unit: str, labels=None,
               texts=None, notes=(), annotators=(), **attrs):
    """The span table (:func:`~xr_agreement.spans.table.from_spans`) with the attrs every
    reader sets: ``tool``, ``offsets_unit`` ("character" or "token") and ``notes`` (one
    string, the reader's sentences joined; netCDF keeps only text and numbers).
    ``annotators``: every annotator of the export, those who annotated nothing too. An
    export where nobody annotated any document is refused."""
    annotated = list(annotated)
    if not annotated:  # every measure would be NaN: said here, as the JSON readers say it
        raise AnnotationFileError("no document is annotated by any annotator: no decision "
                                  "to measure" + (f" ({' '.join(notes)})" if notes else ""),
                                  path=path)
    try:
        table = from_spans(records, lengths=lengths, annotated=annotated, labels=labels,
                           texts=texts)
    except ValueError as error:  # the readers check first; this names the file too
        raise AnnotationFileError(str(error), path=path) from None
    table = _with_annotators(table, [str(a) for a in annotators])
    # documents in the export's order (from_spans orders them by their first span)
    position = {str(d): i for i, d in enumerate(lengths)}
    order = sorted(range(table.sizes["document"]),
                   key=lambda i: position.get(str(table.document_id.values[i]), i))
    table = table.isel(document=order)
    table.attrs.update(tool=tool, offsets_unit=unit, notes=" ".join(notes), **attrs)
    return table


__all__ = ["check_file", "collection_names", "collection_texts", "declared_labels", "is_collection",
           "lines_of", "read_file_text", "span_table", "check_label"]
