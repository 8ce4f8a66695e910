"""CoNLL-style token / tag columns (IOB2 = BIO, BIOES = BILOU, IOB1) -> span table.

Format, from the CoNLL-2003 shared task (Tjong Kim Sang & De Meulder 2003,
https://www.clips.uantwerpen.be/conll2003/ner/: one token per line, the tag in the last
column, sentences separated by blank lines, documents started by ``-DOCSTART- -X- O O``),
and the tag schemes of Ramshaw & Marcus (1995; IOB1: ``I-X`` inside a chunk, ``B-X`` only to
start a chunk right after another of the same type), Tjong Kim Sang & Veenstra (1999; IOB2 =
BIO: every chunk starts with ``B-X``) and BIOES / BILOU (Ratinov & Roth 2009: ``E-X`` / ``L-X``
ends a chunk, ``S-X`` / ``U-X`` is a one-token chunk).

Layouts accepted:

- a folder or .zip of files, one per annotator (the annotator is the file name without its
  extension), with the same tokens in the same order; the token is the first column and
  the tag the last (columns split at tabs when the line has one, else at spaces);
- one file whose first line is a header: ``token`` (or ``word``, ``form``), then one column
  per annotator, named by the annotator, holding that annotator's tags.

Meaning read here:

- offsets are tokens: a span ``[start, end)`` of token indices within its document, the
  document's length its number of tokens (attr ``offsets_unit`` "token");
- documents: the ``-DOCSTART-`` blocks when the file has ``-DOCSTART-`` lines (blank lines
  inside are sentence breaks, and token indices run on across them), else each sentence
  (the lines between blank lines); ids are their numbers from 1, in file order (attr
  ``documents`` says which);
- a tag column that is ``_`` for every token of a document: that annotator did not annotate
  the document (no decision); a document with only ``O``: annotated, nothing marked;
- schemes: an annotator's column that holds any ``E-``/``S-``/``L-``/``U-`` tag is BIOES and
  read strictly (every chunk closed by ``E-`` or made by ``S-``); otherwise IOB2, strictly:
  ``I-X`` must continue a chunk of type X; an ``I-X`` after ``O``, after a chunk of another
  type or at a document's start is refused, naming the document, token and line: such files
  are IOB1 (the original CoNLL-2003 files), read with ``scheme="iob1"`` (``I-X`` after
  anything but X starts a chunk, ``B-X`` always starts one). Never repaired silently;
- lines starting with ``#`` are comments (CoNLL-U style), unless they have two fields or
  more and a tag last (a ``#`` token).

Refused, naming the file, line, document and token: a line with one field (no tag), a tag
of no scheme, annotators' files with different numbers of documents or different tokens, a
header naming an annotator twice, a row with fewer or more columns than the header, a
document partly ``_``, a label outside ``labels``; one file without a header (one annotator:
no agreement to measure; Label Studio's CONLL2003 export is such a file).
"""

from __future__ import annotations

import re

from ..files import AnnotationFileError
from ..tools._common import is_collection
from ._shared import (check_label, collection_texts, declared_labels, lines_of,
                      read_file_text, span_table)

TAG = re.compile(r"^(O|[BIESLU]-\S+)$")
MISSING = "_"
HEADER_TOKENS = ("token", "tokens", "word", "words", "form")
SCHEMES = ("iob2", "iob1")
SUFFIXES = (".conll", ".conll03", ".conllu", ".iob", ".iob1", ".iob2", ".bio", ".bioes",
            ".bilou", ".txt", ".tsv", ".tab")


def fields_of(line: str) -> list[str]:
    if not line.strip():
        return []
    return [f.strip() for f in line.split("\t")] if "\t" in line else line.split()


def is_tag(value: str) -> bool:
    return bool(TAG.match(value)) or value == MISSING


def _is_comment(line: str) -> bool:
    if not line.startswith("#"):
        return False
    fields = fields_of(line)
    return len(fields) < 2 or not is_tag(fields[-1])


def documents_of(text: str, after: int = 0):
    """The documents of a CoNLL text (its lines after line ``after``), each a list of
    (line, fields), and whether they are ``-DOCSTART-`` blocks (else sentences). Empty
    ``-DOCSTART-`` blocks are left out."""
    lines = [(n, line) for n, line in lines_of(text) if n > after and not _is_comment(line)]
    blocks = any(fields_of(line)[:1] == ["-DOCSTART-"] for _, line in lines)
    documents, current = [], []
    for number, line in lines:
        fields = fields_of(line)
        boundary = fields[:1] == ["-DOCSTART-"] if blocks else not fields
        if boundary:
            if current:
                documents.append(current)
            current = []
            continue
        if fields:
            current.append((number, fields))
    if current:
        documents.append(current)
    return documents, blocks


def decode(tags: list[str], scheme: str, where) -> list[tuple[int, int, str]] | None:
    """The chunks (start, end, type) of one document's tags; None when every tag is ``_``
    (not annotated). ``where(index, message)`` builds the error for token ``index``."""
    if all(t == MISSING for t in tags):
        return None
    if MISSING in tags:
        raise where(tags.index(MISSING), f"the tag is {MISSING!r} (not annotated) but other "
                    "tokens of the document are tagged: a document is annotated whole or not")
    chunks, label, start = [], None, 0

    def close(index):
        nonlocal label
        if label is not None:
            chunks.append((start, index, label))
        label = None

    for index, tag in enumerate(tags):
        prefix, _, kind = tag.partition("-")
        prefix = {"L": "E", "U": "S"}.get(prefix, prefix)
        if scheme == "bioes":
            if prefix in ("O", "B", "S") and label is not None:
                raise where(index, f"{tag} but the {label} chunk begun at token {start} is "
                            "not closed by E- (BIOES)")
            if prefix in ("I", "E") and label != kind:
                raise where(index, f"{tag} does not continue a chunk of {kind} begun by B- "
                            "(BIOES)")
            if prefix == "S":
                chunks.append((index, index + 1, kind))
            elif prefix == "B":
                label, start = kind, index
            elif prefix == "E":
                start_at = start
                label = None
                chunks.append((start_at, index + 1, kind))
            continue
        if prefix == "O":
            close(index)
        elif prefix == "B":
            close(index)
            label, start = kind, index
        elif prefix == "I" and label == kind:
            continue
        elif prefix == "I" and scheme == "iob1":
            close(index)
            label, start = kind, index
        else:
            after = "at the document's start" if index == 0 else (
                "after O" if label is None else f"after a chunk of {label}")
            raise where(index, f"{tag} {after} is not IOB2 (every chunk starts with B-); an "
                        "IOB1 file (the original CoNLL-2003 tags)? read it with "
                        "scheme='iob1'")
    if scheme == "bioes" and label is not None:
        raise where(len(tags) - 1, f"the {label} chunk begun at token {start} is not closed "
                    "by E- at the document's end (BIOES)")
    close(len(tags))
    return chunks


def _columns(documents, name, first_tag: int, n_fields: int | None):
    """Check every row: a tag in each tag column, as many fields as the header."""
    for document in documents:
        for line, fields in document:
            if n_fields is not None and len(fields) != n_fields:
                raise AnnotationFileError(f"{name}: line {line}: {len(fields)} columns where "
                                          f"the header has {n_fields} (a truncated line?)")
            if len(fields) < 2:
                raise AnnotationFileError(f"{name}: line {line}: {fields[0]!r} has no tag "
                                          "column (a truncated line?)")
            for value in fields[first_tag:]:
                if not is_tag(value):
                    raise AnnotationFileError(
                        f"{name}: line {line}: {value!r} is not a tag (O, B-X, I-X, E-X, "
                        f"S-X, L-X, U-X, or {MISSING!r} for not annotated)")


def _header(text: str):
    """(line, fields) of the header (the first line that is not blank or a comment, when it
    starts with ``token`` and names no tag), else None."""
    for number, line in lines_of(text):
        if line.strip() and not _is_comment(line):
            fields = fields_of(line)
            if fields[0].lower() in HEADER_TOKENS and len(fields) >= 2 and not any(
                    TAG.match(f) for f in fields[1:]):
                return number, fields
            return None
    return None


def read(path, *, labels=None, scheme="iob2"):
    """The span table of CoNLL-style files (see the module docstring): a folder or .zip of
    one file per annotator, or one file with a header naming the annotators' tag columns.

    Parameters
    ----------
    path : str or path-like
        The folder, .zip or file.
    labels : sequence or path, optional
        The declared label universe (the chunk types); a type outside it is an error.
    scheme : {"iob2", "iob1"}
        How ``I-`` after ``O`` or another type is read where no ``E-``/``S-`` tag appears:
        refused (IOB2, default) or as a chunk's start (IOB1).

    Returns
    -------
    xarray.Dataset
        The span table (token offsets); attrs ``tool`` ("conll"), ``offsets_unit``
        ("token"), ``documents`` ("-DOCSTART- blocks" or "sentences"), ``notes``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tags.tsv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("token\\tann\\tbob\\nNew\\tB-LOC\\tB-ORG\\nYork\\tI-LOC\\tI-ORG\\n"
    ...                 "is\\tO\\tO\\n\\nHi\\tO\\t_\\n")
    >>> table = read(path)
    >>> table.label.values.tolist(), table.start.values.tolist(), table.end.values.tolist()
    (['LOC', 'ORG'], [0, 0], [2, 2])
    >>> table.annotated.values.tolist()
    [[True, True], [True, False]]
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {list(SCHEMES)}, got {scheme!r}")
    universe = declared_labels(labels)
    columns = []  # (annotator, file name, documents): one tag column each
    if is_collection(path):
        files = collection_texts(path, SUFFIXES)
        if not files:
            raise AnnotationFileError(f"no file named {', '.join(SUFFIXES)} in the folder / "
                                      "archive", path=path)
        names = {}
        for name, text in files:
            annotator = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            if annotator in names:
                raise AnnotationFileError(f"{path}: {names[annotator]} and {name} name one "
                                          f"annotator {annotator!r}")
            names[annotator] = name
            documents, blocks = documents_of(text)
            _columns(documents, f"{path}: {name}", -1, None)
            columns.append((annotator, name, documents, -1, blocks))
    else:
        text = read_file_text(path)
        found = _header(text)
        if found is None:
            from ..tools.label_studio import CONLL_PEEK, CONLL_REFUSAL, is_conll

            if is_conll(text[:CONLL_PEEK]):
                raise AnnotationFileError(CONLL_REFUSAL, path=path)
            raise AnnotationFileError(
                "one CoNLL file without a header holds one annotator's tags: no agreement to "
                "measure. Put each annotator's file in one folder (or .zip), named by the "
                "annotator, or write one file whose first line names the columns: token, "
                "then one tag column per annotator", path=path)
        header_line, header = found
        annotators = header[1:]
        if len(set(annotators)) != len(annotators):
            raise AnnotationFileError(f"the header {header} names an annotator twice",
                                      path=path, line=header_line)
        documents, blocks = documents_of(text, after=header_line)
        _columns(documents, str(path), 1, len(header))
        for number, annotator in enumerate(annotators, start=1):
            columns.append((annotator, "", documents, number, blocks))
    first_name, first_documents = columns[0][1], columns[0][2]
    for annotator, name, documents, _, blocks in columns[1:]:
        if len(documents) != len(first_documents) or blocks != columns[0][4]:
            raise AnnotationFileError(
                f"{name} holds {len(documents)} documents, {first_name} "
                f"{len(first_documents)}: the annotators' files must hold the same tokens",
                path=path)
        for number, (ours, theirs) in enumerate(zip(documents, first_documents), start=1):
            for index in range(max(len(ours), len(theirs))):
                a = ours[index] if index < len(ours) else None
                b = theirs[index] if index < len(theirs) else None
                if a is None or b is None or a[1][0] != b[1][0]:
                    shown = [f"{a[1][0]!r} (line {a[0]})" if a else "nothing",
                             f"{b[1][0]!r} (line {b[0]})" if b else "nothing"]
                    raise AnnotationFileError(
                        f"document {number}, token {index}: {name} has {shown[0]}, "
                        f"{first_name} has {shown[1]}: the annotators' files must hold the "
                        "same tokens", path=path)
    records, annotated, lengths, not_annotated = [], [], {}, 0
    for annotator, short, documents, column, _ in columns:
        name = f"{path}: {short}" if short else str(path)
        tags_in_column = {fields[column][0] for d in documents for _, fields in d}
        own = "bioes" if tags_in_column & {"E", "S", "L", "U"} else scheme
        for number, document in enumerate(documents, start=1):
            lengths[number] = len(document)

            def where(index, message, document=document, number=number, name=name,
                      annotator=annotator):
                line = document[index][0]
                return AnnotationFileError(
                    f"{name}: line {line}: document {number}, token {index} "
                    f"({document[index][1][0]!r}), annotator {annotator!r}: {message}")

            chunks = decode([fields[column] for _, fields in document], own, where)
            if chunks is None:
                not_annotated += 1
                continue
            annotated.append((number, annotator))
            for start, end, label in chunks:
                check_label(label, universe, f"{name}: line {document[start][0]}: document "
                            f"{number}, annotator {annotator!r}")
                records.append((number, annotator, start, end, label))
    if not lengths:
        raise AnnotationFileError("no token in the file(s)", path=path)
    notes = [f"Offsets are tokens; documents are the "
             f"{'-DOCSTART- blocks' if columns[0][4] else 'sentences'}, numbered from 1."]
    if not_annotated:
        notes.append(f"{not_annotated} (document, annotator) tag columns are all "
                     f"{MISSING!r}: not annotated.")
    return span_table(records, lengths, annotated, path=path, tool="conll", unit="token",
                      labels=universe, notes=notes,
                      annotators=[c[0] for c in columns],
                      documents="-DOCSTART- blocks" if columns[0][4] else "sentences")


def looks_like(head: str) -> bool:
    """Whether the first lines of a text look like token / tag columns: most lines of two
    fields or more end with a tag, at least one of them not ``O``."""
    rows = [fields_of(line) for _, line in lines_of(head)]
    rows = [f for f in rows if f and f[0] != "-DOCSTART-" and not _is_comment("\t".join(f))]
    header = _header(head)
    if header is not None:
        rows = rows[1:]
    if len(rows) < 2:
        return False
    first_tag = 1 if header is not None else -1
    tagged = [f for f in rows if len(f) >= 2 and all(is_tag(v) for v in f[first_tag:])]
    return len(tagged) >= 0.9 * len(rows) and any(
        v not in ("O", MISSING) for f in tagged for v in f[first_tag:])
