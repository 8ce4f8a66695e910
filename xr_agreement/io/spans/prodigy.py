"""Prodigy span annotations (``db-out`` JSON lines of ``ner.manual``, ``spans.manual``)
-> span table.

Format, from Prodigy's documentation: "Annotation interfaces"
(https://prodi.gy/docs/api-interfaces, ``ner_manual`` and ``spans_manual``: a task holds
``text``, ``tokens`` ``[{"text", "start", "end", "id", "ws"}]`` and ``spans`` ``[{"start",
"end", "token_start", "token_end", "label"}]``, character offsets half-open and
``token_end`` the index of the span's last token; "annotated tasks contain an additional
``answer`` key mapping to either accept, reject or ignore"), the ``db-out`` recipe
(https://prodi.gy/docs/recipes#db-out), and the multi-annotator documentation
(``_input_hash`` identifies the input, ``_annotator_id`` / ``_session_id`` the annotator:
https://prodi.gy/docs/task-routing).

Meaning read here:

- document: ``_input_hash`` (one text, one hash); annotator: ``_annotator_id``, else
  ``_session_id``;
- ``accept``: the annotator marked the spans listed, and nothing else (an accepted task
  without spans: read, nothing marked);
- ``ignore``: skipped, no decision (not annotated);
- ``reject`` in a manual task: not a statement about spans. Prodigy's maintainers describe
  reject in ``ner.manual`` as "the text itself may be corrupted / weird, let's not use it"
  and say the ``review`` recipe leaves "ignore" and "reject" answers out of manual
  annotations (Prodigy support forum,
  https://support.prodi.gy/t/what-do-the-accept-reject-and-ignore-buttons-do/5036): no
  decision (not annotated), counted in ``notes``;
- binary ``ner`` tasks (``_view_id: "ner"``, ``ner.teach``: accept or reject one suggested
  span) say nothing about the rest of the text, so they cannot be read as spans marked
  against a text read whole: refused;
- ``unit="character"`` (default): the spans' ``start`` / ``end``, the document's length the
  length of ``text`` (kept as ``texts``); ``unit="token"``: ``token_start`` to
  ``token_end + 1``, the length the number of ``tokens``, each span's tokens checked to
  cover exactly its characters. The attr ``offsets_unit`` says which.

Refused, naming the line and field: a JSON array (``db-out`` writes JSON lines), a missing or
non-id ``_input_hash`` or annotator, an unknown ``answer``, an accepted task without a
``spans`` list (another interface's task, e.g. a text classification in the same dataset), one input with two different
texts, the same (input, annotator) twice (Prodigy documents no "latest wins" rule), a span
without integer offsets or label, outside the text, whose ``text`` is not the text's slice,
the same span twice, a label outside ``labels``.
"""

from __future__ import annotations

from collections import Counter

from ..files import AnnotationFileError
from ..tools._common import blank, load_json_records, scalar_id
from ._shared import check_label, declared_labels, read_file_text, span_table

ANSWERS = ("accept", "reject", "ignore")
UNITS = ("character", "token")


def refuse_at(path):
    """A ``where`` for :func:`~xr_agreement.io.tools._common.scalar_id` (row = line)."""
    def where(message, line=None, column=None):
        return AnnotationFileError(message, path=path, line=line, column=column)
    return where


def _int(value, where, field):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not value.is_integer()):
        raise AnnotationFileError(f"{where}: {field} must be a whole number, got {value!r}")
    return int(value)


def _token_offsets(task, where):
    tokens = task.get("tokens")
    if not isinstance(tokens, list) or not tokens and task.get("spans"):
        raise AnnotationFileError(f"{where}: unit='token' needs the task's tokens")
    out = []
    for number, token in enumerate(tokens):
        if not isinstance(token, dict):
            raise AnnotationFileError(f"{where}: token {number} is not an object")
        out.append((_int(token.get("start"), where, f"tokens[{number}].start"),
                    _int(token.get("end"), where, f"tokens[{number}].end")))
    return out


def read(path, *, labels=None, unit="character"):
    """The span table of a Prodigy ``db-out`` file of manual span tasks (see the module
    docstring).

    Parameters
    ----------
    path : str or path-like
        The JSON-lines file.
    labels : sequence or path, optional
        The declared label universe; a span label outside it is an error.
    unit : {"character", "token"}
        Offsets in characters of ``text`` (default) or in ``tokens``.

    Returns
    -------
    xarray.Dataset
        The span table; attrs ``tool`` ("prodigy"), ``offsets_unit``, ``notes``.

    Examples
    --------
    >>> import json, os, tempfile
    >>> task = {"text": "Hi Ann", "_input_hash": 7, "tokens": [
    ...     {"text": "Hi", "start": 0, "end": 2, "id": 0, "ws": True},
    ...     {"text": "Ann", "start": 3, "end": 6, "id": 1, "ws": False}]}
    >>> rows = [dict(task, _annotator_id="db-ann", answer="accept", spans=[
    ...     {"start": 3, "end": 6, "token_start": 1, "token_end": 1, "label": "PER"}]),
    ...     dict(task, _annotator_id="db-bob", answer="ignore", spans=[])]
    >>> path = os.path.join(tempfile.mkdtemp(), "db-out.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write("".join(json.dumps(r) + "\\n" for r in rows))
    >>> table = read(path)
    >>> table.start.values.tolist(), table.annotated.values.tolist()
    ([3], [[True, False]])
    >>> read(path, unit="token").start.values.tolist()
    [1]
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {list(UNITS)}, got {unit!r}")
    universe = declared_labels(labels)
    records_in, kind = load_json_records(path, read_file_text(path))
    if kind == "array":
        raise AnnotationFileError("a Prodigy db-out export is JSON lines (one task per "
                                  "line), not one JSON array", path=path)
    records, annotated, lengths, texts = [], [], {}, {}
    answered, text_line, dropped = {}, {}, Counter()
    at_line = refuse_at(path)
    for line, task in records_in:
        where = f"{path}: line {line}"

        def refuse(message, field=None, line=line):
            return at_line(message, line, field)

        if task.get("_view_id") == "ner":
            raise refuse("a binary ner task (ner.teach: accept or reject one suggested span) "
                         "says nothing about the rest of the text; span agreement needs "
                         "manual tasks (ner.manual, spans.manual)", "_view_id")
        if blank(task.get("_input_hash")):
            raise refuse("a task without _input_hash", "_input_hash")
        document = scalar_id(task["_input_hash"], at_line, line, "_input_hash")
        who_field = "_annotator_id" if not blank(task.get("_annotator_id")) else "_session_id"
        if blank(task.get(who_field)):
            raise refuse("a task without _annotator_id or _session_id", "_annotator_id")
        who = str(scalar_id(task[who_field], at_line, line, who_field))
        answer = task.get("answer")
        if answer not in ANSWERS:
            raise refuse(f"answer must be one of {list(ANSWERS)}, got {answer!r}", "answer")
        text = task.get("text")
        if not isinstance(text, str):
            raise refuse(f"text must be the task's text, got {type(text).__name__}", "text")
        if document in text_line and texts[document] != text:
            raise refuse(f"the input {document!r} has another text on line "
                         f"{text_line[document]} (one _input_hash, two texts)", "text")
        text_line.setdefault(document, line)
        texts[document] = text
        tokens = _token_offsets(task, where) if unit == "token" else None
        if document not in lengths:
            lengths[document] = len(text) if tokens is None else len(tokens)
        elif tokens is not None and lengths[document] != len(tokens):
            raise refuse(f"the input {document!r} has {lengths[document]} tokens on line "
                         f"{text_line[document]} and {len(tokens)} here", "tokens")
        key = (document, who)
        if key in answered:
            raise refuse(f"the input {document!r} by annotator {who!r} is already on line "
                         f"{answered[key]} (Prodigy has no rule for a repeated answer)")
        answered[key] = line
        if answer != "accept":
            dropped["ignored" if answer == "ignore" else "rejected"] += 1
            continue
        if "spans" not in task:  # another interface's task (textcat's choice, say): its
            # accept says nothing about spans, and read as "marked nothing" it would add
            # agreeing empty positions
            raise refuse("an accepted task without a spans list: not a manual span task "
                         "(ner.manual, spans.manual)", "spans")
        annotated.append(key)
        spans = task["spans"]
        if spans is None:
            spans = []
        if not isinstance(spans, list):
            raise refuse("spans must be a list", "spans")
        seen = {}
        for number, span in enumerate(spans):
            at = f"{where}: spans[{number}]"
            if not isinstance(span, dict):
                raise AnnotationFileError(f"{at} is not an object")
            if blank(span.get("label")) or not isinstance(span.get("label"), str):
                raise AnnotationFileError(f"{at}: label must be text, got "
                                          f"{span.get('label')!r}")
            label = span["label"]
            check_label(label, universe, at)
            start, end = _int(span.get("start"), at, "start"), _int(span.get("end"), at, "end")
            if not 0 <= start < end <= len(text):
                raise AnnotationFileError(f"{at} ({label} {start} {end}): offsets outside the "
                                          f"text ({len(text)} characters) or start >= end")
            if isinstance(span.get("text"), str) and span["text"] != text[start:end]:
                raise AnnotationFileError(f"{at}: quotes {span['text'][:60]!r} but the text "
                                          f"holds {text[start:end][:60]!r} there")
            if tokens is not None:
                first = _int(span.get("token_start"), at, "token_start")
                last = _int(span.get("token_end"), at, "token_end")
                if not 0 <= first <= last < len(tokens) or (
                        tokens[first][0], tokens[last][1]) != (start, end):
                    raise AnnotationFileError(
                        f"{at} ({label} {start} {end}): tokens {first}..{last} do not cover "
                        "exactly its characters")
                start, end = first, last + 1  # token_end is the last token, inclusive
            if (label, start, end) in seen:
                raise AnnotationFileError(f"{at}: the same span as spans[{seen[label, start, end]}] "
                                          f"({label} {start} {end})")
            seen[label, start, end] = number
            records.append((document, who, start, end, label))
    if not annotated:
        raise AnnotationFileError("no task is accepted: nothing was annotated "
                                  f"({dict(dropped)})", path=path)
    notes = []
    if dropped:
        notes.append("Tasks that are no decision (not annotated): " + ", ".join(
            f"{n} {reason}" for reason, n in sorted(dropped.items())) + ".")
    # every input is a document, one only ignored or rejected by everyone too
    return span_table(records, lengths, annotated, path=path, tool="prodigy", unit=unit,
                      labels=universe, texts=texts if unit == "character" else None,
                      notes=notes, annotators=[who for _, who in answered], n_ignored=dropped["ignored"],
                      n_rejected=dropped["rejected"])
