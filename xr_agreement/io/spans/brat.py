"""brat standoff files (``.ann`` beside ``.txt``), one folder per annotator -> span table.

Format, from brat's documentation "brat standoff format"
(https://brat.nlplab.org/standoff.html) and the format specification of its wiki
(https://github.com/nlplab/brat/wiki/Annotation-Data-Format):

- ``DOC.ann`` holds the annotations of the text ``DOC.txt`` (the same base name), one per
  line, the id first and a tab after it. Offsets count characters (Unicode code points) of
  the ``.txt`` from 0, half-open: "Japan" at the start of a text is ``0 5``.
- text-bound annotations: ``T1<TAB>Organization 0 4<TAB>Sony``; a discontinuous one gives
  its fragments separated by ``;`` and their texts joined by a space:
  ``T2<TAB>Location 0 5;16 23<TAB>North America``.
- the other lines do not mark text: relations ``R``, events ``E``, attributes and
  modifications ``A`` / ``M``, normalisations ``N``, notes ``#``, equivalences ``*``.

Layout accepted: a folder (or a .zip) holding one sub-folder per annotator, named by the
annotator, each with its ``DOC.ann`` files and their ``DOC.txt``; a ``DOC.txt`` may instead
sit once at the top, shared by every annotator (two texts of one document that differ are
refused). A folder wrapping the whole export (``export/alice/DOC.ann``) is skipped. Below an
annotator's folder, sub-folders are part of the document's name (``alice/batch1/DOC.ann``
is the document ``batch1/DOC``, its shared text ``batch1/DOC.txt`` at the top).

Meaning read here:

- the document is the base name of the file; the annotator is its folder;
- an annotator whose folder holds ``DOC.ann`` annotated DOC; a document without ``.ann`` in
  an annotator's folder was not annotated by them (no decision);
- an empty ``.ann`` (no line that marks text) is read as annotated, nothing marked. brat's
  server cannot open a document without its ``.ann`` (``server/src/annotation.py`` raises
  ``AnnotationFileNotFoundError``), so projects create an empty ``.ann`` beside every text
  before annotation starts: an empty file may also be a document never opened. The notes
  count the empty files; ``empty_list="missing"`` reads them as not annotated instead;
- the label is the annotation's type; a discontinuous annotation becomes one span of that
  label per fragment (each fragment's characters are marked with the type; the gap is not),
  counted in the attr ``discontinuous``;
- the lines that mark no text (R, E, A, M, N, #, \\*) are left out, counted in ``notes``;
- the document's length is its ``.txt``'s, whose text is kept (``texts``); the text an
  annotation quotes must be the ``.txt``'s slice at its offsets (whitespace aside: brat
  writes a line break inside a span as a space), else the offsets do not belong to that
  text, and the file is refused (brat's server, ``annotation.py``, checks the same: the text
  starts the line's tail, a comment may follow after a space).

Refused, naming the file, the line and the annotation: a truncated line, an id brat never
writes, a T id twice in one file, offsets that are not numbers, start >= end, past the text,
overlapping fragments (brat's server refuses them too; their order is free), the same span of one type twice in one annotator's file, a
``.ann`` without any ``.txt``, a label outside ``labels``. brat reads a ``.txt`` as UTF-8
and counts a byte-order mark as a character; here it is dropped, as in every reader, so
offsets written against it would be one off, and the text check refuses them.
"""

from __future__ import annotations

import re
from collections import Counter

from ..files import AnnotationFileError
from ._shared import check_label, collection_texts, declared_labels, lines_of, span_table

# brat's ids: a type letter (or #), a number, a free tail (wiki, "Identifiers")
_ID = re.compile(r"^([A-Za-z]|#)(\d+)(\S*)$")
_OFFSETS = re.compile(r"^\d+ \d+(;\d+ \d+)*$")
NOT_TEXT = {"R": "relation", "E": "event", "A": "attribute", "M": "attribute",
            "N": "normalization", "#": "note", "*": "equivalence"}


def _unwrap(names: list[str]) -> list[str]:
    """The names without the folders that wrap the whole export (``export/alice/d.ann`` ->
    ``alice/d.ann``), as long as every .ann stays inside an annotator's folder."""
    while names and len({n.split("/", 1)[0] for n in names}) == 1 and all(
            n.count("/") >= 2 for n in names if n.lower().endswith(".ann")):
        names = [n.split("/", 1)[1] for n in names]
    return names


def _parse_ann(text: str, where_file: str):
    """The text-bound annotations of one .ann: [(line, id, label, fragments, quoted)], and
    the count of the other lines per kind."""
    out, skipped, seen = [], Counter(), {}
    for number, line in lines_of(text):
        if not line.strip():
            continue
        where = f"{where_file}: line {number}"
        ident, tab, rest = line.partition("\t")
        if ident == "*":
            skipped["equivalence"] += 1
            continue
        match = _ID.match(ident)
        if not match or not tab:
            raise AnnotationFileError(f"{where}: {line[:60]!r} is not a brat annotation line "
                                      "(an id such as T1, a tab, then the annotation)")
        kind = match.group(1)
        if kind != "T":
            if kind not in NOT_TEXT:
                raise AnnotationFileError(f"{where}: the id {ident!r} is none of brat's "
                                          "(T, R, E, A, M, N, #, *)")
            skipped[NOT_TEXT[kind]] += 1
            continue
        if ident in seen:
            raise AnnotationFileError(f"{where}: the id {ident} is already on line "
                                      f"{seen[ident]}")
        seen[ident] = number
        head, tab, quoted = rest.partition("\t")  # the text may hold tabs: all of it
        if not tab:
            raise AnnotationFileError(f"{where}: {ident} has no text after its offsets (a "
                                      "truncated line? brat writes the text)")
        label, _, offsets = head.partition(" ")
        if not label.strip() or not _OFFSETS.match(offsets.rstrip()):
            raise AnnotationFileError(f"{where}: {ident}: expected 'TYPE START END' (or "
                                      f"'TYPE S1 E1;S2 E2' for fragments), got {head!r}")
        fragments = [tuple(int(v) for v in part.split(" "))
                     for part in offsets.rstrip().split(";")]
        for start, end in fragments:
            if start >= end:
                raise AnnotationFileError(f"{where}: {ident} ({label} {start} {end}): start "
                                          "must be less than end (an empty span marks nothing)")
        ordered = sorted(fragments)  # brat keeps fragments in any order, never overlapping
        for (_, end), (start, _) in zip(ordered, ordered[1:]):
            if start < end:
                raise AnnotationFileError(f"{where}: {ident}: fragments {offsets!r} overlap")
        out.append((number, ident, label, fragments, quoted))
    return out, skipped


EMPTY_LIST = ("no-label", "missing")


def read(path, *, labels=None, empty_list=None):
    """The span table of a brat export: a folder or .zip of per-annotator folders (see the
    module docstring).

    Parameters
    ----------
    path : str or path-like
        The folder or .zip.
    labels : sequence or path, optional
        The declared label universe (the annotation types); a type outside it is an error.
    empty_list : {"no-label", "missing"}, optional
        What an ``.ann`` without text-bound annotations means: read, nothing marked
        ("no-label", the default) or never opened ("missing": not annotated).

    Returns
    -------
    xarray.Dataset
        The span table (character offsets); attrs ``tool`` ("brat"), ``offsets_unit``
        ("character"), ``discontinuous`` (the number of discontinuous annotations, each read
        as one span per fragment), ``n_empty_ann`` (the ``.ann`` files that mark no text)
        and ``notes``.

    Examples
    --------
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> for who, ann in [("ann", "T1\\tLOC 0 5\\tJapan\\n"), ("bob", "")]:
    ...     os.mkdir(os.path.join(root, who))
    ...     with open(os.path.join(root, who, "d1.ann"), "w") as f:
    ...         _ = f.write(ann)
    >>> with open(os.path.join(root, "d1.txt"), "w") as f:
    ...     _ = f.write("Japan was today struck")
    >>> table = read(root)
    >>> table.sizes["span"], table.annotated.values.tolist()
    (1, [[True, True]])
    """
    if empty_list not in (None, *EMPTY_LIST):
        raise ValueError(f"empty_list must be one of {list(EMPTY_LIST)}, got {empty_list!r}")
    universe = declared_labels(labels)
    files = collection_texts(path, (".ann", ".txt"))
    inner = dict(zip(_unwrap([n for n, _ in files]), files))
    anns, texts = {}, {}  # ann: (document, annotator) -> (name, text); txt: inner name -> (name, text)
    for relative, (name, text) in inner.items():
        stem, suffix = relative[:-4], relative[-4:].lower()
        if suffix == ".txt":
            texts[stem] = (name, text)
            continue
        if "/" not in stem:
            raise AnnotationFileError(
                f"{path}: {name} is not in an annotator's folder; the layout read is one "
                "folder per annotator holding its DOC.ann files")
        annotator, document = stem.split("/", 1)
        anns[(document, annotator)] = (name, text)
    if not anns:
        raise AnnotationFileError(f"{path}: no .ann file (brat standoff) found")
    records, annotated, lengths, text_of = [], [], {}, {}
    skipped, discontinuous, no_ann, n_empty = Counter(), 0, 0, 0
    for (document, annotator), (name, text) in sorted(anns.items()):
        candidates = [texts[k] for k in (f"{annotator}/{document}", document) if k in texts]
        if not candidates:
            raise AnnotationFileError(f"{path}: {name} has no {document}.txt beside it or in "
                                      "the folder above the annotators' (the text its "
                                      "offsets count)")
        text_name, document_text = candidates[0]
        known = text_of.setdefault(document, (text_name, document_text))
        if known[1] != document_text:
            raise AnnotationFileError(f"{path}: {known[0]} and {text_name} are two "
                                      f"different texts of the document {document!r}")
        lengths[document] = len(document_text)
        spans, other = _parse_ann(text, f"{path}: {name}")
        skipped.update(other)
        if not spans:
            n_empty += 1
            if empty_list == "missing":
                continue
        annotated.append((document, annotator))
        seen = {}
        for line, ident, label, fragments, quoted in spans:
            where = f"{path}: {name}: line {line}: {ident}"
            check_label(label, universe, where)
            if len(fragments) > 1:
                discontinuous += 1
            end = max(e for _, e in fragments)
            if end > len(document_text):
                raise AnnotationFileError(f"{where} ({label} {fragments}): end {end} is past "
                                          f"the text of {document}.txt ({len(document_text)} "
                                          "characters)")
            # brat's own check: the text starts the tail, then a space or nothing (a
            # comment may follow); a span across a line break cannot be quoted on one line,
            # so whitespace runs compared as one space too
            sliced = " ".join(document_text[s:e] for s, e in fragments)
            rest = quoted[len(sliced):]
            if not (quoted.startswith(sliced) and (not rest or rest[0].isspace())) and \
                    sliced.split() != quoted.split():
                raise AnnotationFileError(f"{where}: quotes {quoted[:60]!r} but "
                                          f"{document}.txt holds {sliced[:60]!r} at "
                                          f"{fragments}: the offsets do not belong to this "
                                          "text")
            for start, stop in fragments:
                key = (label, start, stop)
                if key in seen:
                    raise AnnotationFileError(f"{where}: {label} {start} {stop} is already "
                                              f"marked by {seen[key]} (the same span twice)")
                seen[key] = ident
                records.append((document, annotator, start, stop, label))
    # a folder holding .ann files is an annotator's; other texts are shared ones
    annotators = {a for _, a in anns}
    for stem, (name, text) in texts.items():  # a text nobody annotated is still a document
        annotator, document = stem.split("/", 1) if "/" in stem else ("", stem)
        if annotator not in annotators:
            annotator, document = "", stem
        if document not in lengths:
            lengths[document] = len(text)
            text_of[document] = (name, text)
        if annotator:
            no_ann += (document, annotator) not in anns
    notes = []
    if skipped:
        notes.append("Lines that mark no text left out: " + ", ".join(
            f"{n} {kind}" for kind, n in sorted(skipped.items())) + ".")
    if discontinuous:
        notes.append(f"{discontinuous} discontinuous annotations: each fragment read as a "
                     "span of the annotation's type.")
    if n_empty:
        notes.append(f"{n_empty} .ann files mark no text: read as " + (
            "not annotated (empty_list='missing')." if empty_list == "missing" else
            "annotated, nothing marked (brat projects create an empty .ann for every text, "
            "so some may be documents never opened: empty_list='missing' reads them so)."))
    if no_ann:
        notes.append(f"{no_ann} documents have a .txt but no .ann in an annotator's folder: "
                     "not annotated by that annotator.")
    return span_table(records, lengths, annotated, path=path, tool="brat", unit="character",
                      labels=universe, texts={d: t for d, (_, t) in text_of.items()},
                      notes=notes, discontinuous=discontinuous, n_empty_ann=n_empty,
                      annotators=sorted(annotators))
