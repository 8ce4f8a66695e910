"""Argilla exported records: the v2 flat layout and the v1 FeedbackDataset layout.

Format, from Argilla's documentation: v2 "Export and import datasets" and the records API
(https://docs.argilla.io/latest/how_to_guides/import_export/,
``dataset.records.to_datasets()`` / ``to_list(flatten=True)`` / ``to_json``): one row per
record with ``id``, ``status``, the fields, and per question ``<question>.responses`` (the
values, a list of labels for a multi-label question), ``<question>.responses.users`` (the
users' ids, in the same order) and ``<question>.responses.status`` ("submitted", "draft",
"discarded"); nested records (``to_json``, ``to_list()``) hold ``"responses": {"<question>":
[{"user_id", "value", "status"}]}``. v1 FeedbackDataset exports (``push_to_huggingface``/``format_as("datasets")``)
hold per question a list ``[{"user_id", "value", "status"}]`` and ``external_id``.

Meaning read here: only a "submitted" response is a decision; "discarded" (the annotator
declined the record) and "draft" (not submitted) are no decision, dropped as such; a
submitted multi-label response with an empty list chose no label. A submitted response
without a value (null) for the question read is no decision on it, dropped "submitted
without a value": Argilla's server asks a submitted response for values of the required
questions only (argilla-server ``validators/responses.py``,
``_validate_required_questions_have_values``), so a question that is not required may be
left unanswered; a response with no ``value`` field at all is refused (Argilla writes
``"value": null``). The item is the record's ``id`` (v1: ``external_id``, else ``id``, else
the row number); the annotator is the user id. An id is the id it is: a whole number
written as a float (``1.0``) is that integer, any other number stays itself (``1.5`` and
``1`` are two items), a non-finite number is refused; a v1 record without ``external_id``
(it is optional) named by its row number is refused when that number is another record's
``external_id`` (the two would be one item). A file with several label questions
needs ``control=``.

Single-label questions: the value of a response says which kind of question it answers, a
label (text) for a single-label question (v2 ``LabelQuestion``, type ``label_selection``;
v1 ``LabelQuestion``) and a list of labels for a multi-label one (``MultiLabelQuestion``,
``multi_label_selection``) (https://docs.argilla.io/latest/reference/argilla/settings/questions,
https://docs.argilla.io/latest/reference/argilla/records/responses). Values that are all
single labels are read as ratings (item, annotator); any list value makes the question
multi-label, read as label sets. Responses that are all JSON numbers (a ``RatingQuestion``'s)
are ratings too, whose ``single_label`` says they are read as nominal categories.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..files import AnnotationFileError
from ..cells import LabelTexts
from ._common import (Annotation, Dropped, ScalarIds, Single, Where, blank, build,
                      load_json_records, parse_list_text, read_csv, read_text, scalar_id)

STATUSES = ("submitted", "discarded", "draft")
UNANSWERED = "submitted without a value"


def _records(path) -> tuple[list[tuple[int, dict]], Where]:
    name = os.fspath(path).lower()
    if name.endswith((".parquet", ".pq")):
        try:
            table = pd.read_parquet(path)
        except Exception as error:  # noqa: BLE001 - pyarrow raises several unrelated types
            raise AnnotationFileError(f"cannot read parquet: {error}", path=path) from None
        return [(i + 1, r) for i, r in enumerate(table.to_dict("records"))], Where(path)
    if name.endswith((".csv", ".tsv")):
        table = read_csv(path, sep="\t" if name.endswith(".tsv") else ",")
        return ([(i + 1, r) for i, r in enumerate(table.to_dict("records"))],
                Where(path, lines=table.attrs["lines"]))
    records, kind = load_json_records(path, read_text(path))
    return records, Where(path, kind="line" if kind == "lines" else "row")


def _listed(value, where, row, column):
    """A list cell: a list, an array (parquet) or its JSON / Python text (CSV)."""
    if type(value) is list:  # JSON's, the common case: as it is
        return value
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, str) and value.strip()[:1] in "[{":
        try:
            return parse_list_text(value)  # JSON, or the Python repr of a list
        except ValueError:
            raise where(f"cannot parse the list {value[:60]!r}", row, column) from None
    if blank(value):
        return []
    return value


def _labels(value, where, row, column, texts=None) -> list[str]:
    texts = LabelTexts() if texts is None else texts
    if isinstance(value, list):
        try:  # every label text already read: neither blank nor refused
            return texts.many(value, where, row, column) if all(
                v in texts for v in value) else [texts(v, where, row, column)
                                                 for v in value if not blank(v)]
        except TypeError:  # an unhashable label: label_text refuses it
            return [texts(v, where, row, column) for v in value if not blank(v)]
    return [texts(value, where, row, column)]


def _choose(questions, control, where):
    if control is not None:
        if control not in questions:
            raise where(f"no question named {control!r}; the file has {sorted(questions)}")
        return control
    if len(questions) == 1:
        return questions[0]
    if not questions:
        raise where("no question responses found: expected <question>.responses columns "
                    "(v2) or [{user_id, value, status}] lists (v1)")
    raise where(f"several questions: {sorted(questions)}; choose one with control=NAME "
                "(command line: --control NAME)")


def read_argilla(path, *, universe=None, control=None, item="item", annotator="annotator",
                 label="label", layout="auto", **_):
    """Decisions from exported Argilla records (see the module docstring)."""
    records, where = _records(path)
    if any(isinstance(r.get("responses"), dict) for _, r in records):
        # v2 nested records (records.to_json / to_list()): responses = {question: [{user_id,
        # value, status}]}, read as the v1 layout keyed by the question
        records = [(row, {"id": r.get("id", r.get("_server_id")),
                          **{q: v for q, v in (r.get("responses") or {}).items()}})
                   for row, r in records]
    keys = list(dict.fromkeys(k for _, r in records for k in r))
    v2 = [k[: -len(".responses")] for k in keys if k.endswith(".responses")]
    dropped, annotations, shapes = Dropped(), [], set()
    memo = (LabelTexts(), ScalarIds())
    if v2:
        question = _choose(v2, control, where)
        columns = [f"{question}.responses", f"{question}.responses.users",
                   f"{question}.responses.status"]
        for column in columns[1:]:
            if column not in keys:
                raise where(f"no {column!r} column next to {columns[0]!r}", column=column)
        for row, record in records:
            record_id = record.get("id", record.get("_server_id"))
            if blank(record_id):
                raise where("a record without id", row, "id")
            values, users, statuses = (_listed(record.get(c), where, row, c) for c in columns)
            if not (isinstance(values, list) and isinstance(users, list)
                    and isinstance(statuses, list)) or not len(values) == len(users) == len(
                    statuses):
                raise where(f"{columns[0]}, .users and .status must be lists of one length",
                            row, columns[0])
            for value, user, status in zip(values, users, statuses):
                _add(annotations, dropped, record_id, user, status, value, where, row,
                     columns[0], columns[1], shapes, memo)
    else:
        questions = [k for k in keys if any(_is_v1(r.get(k)) for _, r in records)]
        question = _choose(questions, control, where)
        given = {}  # an id the file gives -> its row: a row number must not be one of them
        for row, record in records:
            record_id = next((record[k] for k in ("external_id", "id")
                              if not blank(record.get(k))), None)
            if record_id is not None:
                given.setdefault(str(scalar_id(record_id, where, row, "external_id")), row)
        for row, record in records:
            record_id = next((record[k] for k in ("external_id", "id")
                              if not blank(record.get(k))), None)
            if record_id is None:  # external_id is optional: the record is named by its row
                record_id = row
                if str(row) in given:
                    raise where(f"a record without external_id (named by its row, {row}) "
                                f"beside the record of external_id {row} (row "
                                f"{given[str(row)]}): they would be one item; give every "
                                "record an external_id, or none", row, "external_id")
            responses = _listed(record.get(question), where, row, question)
            if not isinstance(responses, list):
                raise where("responses must be a list of {user_id, value, status}", row,
                            question)
            for response in responses:
                if not isinstance(response, dict) or "user_id" not in response:
                    raise where("a response without user_id", row, question)
                if "value" not in response:  # Argilla writes "value": null, never no key
                    raise where("a response without a value field (expected {user_id, "
                                "value, status}): a damaged or foreign record", row, question)
                _add(annotations, dropped, record_id, response["user_id"],
                     response.get("status"), response.get("value"), where, row, question,
                     f"{question}.user_id", shapes, memo)
    if "list" in shapes:
        single = Single(False, f"question {question!r} is multi-label: its responses are "
                               "lists of labels")
    elif shapes == {"number"}:
        single = Single(True, f"question {question!r} answers one number per response (as "
                              "a RatingQuestion does): read as nominal categories, their "
                              "order unused (weights= of the kappa family, alpha's "
                              "'ordinal' or 'interval' metric use it)")
    elif shapes:
        single = Single(True, f"question {question!r} is single-label: its responses are "
                              "one label each, not lists (as a LabelQuestion's are)")
    else:
        single = None
    return build(annotations, reader="argilla", dropped=dropped, where=where,
                 universe=universe, item=item, annotator=annotator, label=label,
                 sep_option="", layout=layout, single=single)


def _is_v1(value) -> bool:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return (isinstance(value, list) and bool(value) and isinstance(value[0], dict)
            and "user_id" in value[0] and "status" in value[0])


def _add(annotations, dropped, record_id, user, status, value, where, row, column,
         user_column, shapes, memo=None):
    # memo: (LabelTexts, ScalarIds) of the reading, each label and id checked once per
    # distinct value: cells.invisible and blank were called 2.8 million times (~21%;
    # 1.44 -> 1.03 s for 10^5 responses)
    texts, ids = (LabelTexts(), ScalarIds()) if memo is None else memo
    record_id = ids(record_id, where, row, "id")
    if not (type(user) is str and user in ids) and blank(user):
        raise where("a response without a user id", row, column)
    user = ids(user, where, row, user_column)
    if status not in STATUSES:
        raise where(f"response status must be one of {list(STATUSES)}, got {status!r}", row,
                    column)
    if status != "submitted":
        dropped.add(status, user)
        annotations.append(Annotation(record_id, str(user), None, row=row))
        return
    if isinstance(value, dict) and "value" in value:
        value = value["value"]  # v1 responses may nest {"value": ...}
    if type(value) is not list and blank(value):  # a list is never blank
        # Argilla requires a value only for required questions: a submitted response may
        # leave another question unanswered, which is no decision on it (an empty list is
        # the answer "none of these")
        dropped.add(UNANSWERED, user)
        annotations.append(Annotation(record_id, str(user), None, row=row))
        return
    listed = _listed(value, where, row, column)
    # a JSON number is no LabelQuestion's label (text): a RatingQuestion's value
    number = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    shapes.add("list" if isinstance(listed, list) else "number" if number else "label")
    chosen = _labels(listed, where, row, column, texts)
    annotations.append(Annotation(record_id, str(user), list(dict.fromkeys(chosen)), row=row,
                                  column=column))
