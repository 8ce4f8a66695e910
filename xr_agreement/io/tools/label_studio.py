"""Label Studio exports: the JSON export (a JSON array of tasks), the JSON-min export and
the CSV / TSV exports; the CONLL2003 export is refused.

Format, from Label Studio's documentation "Label Studio JSON format of annotated tasks"
(https://labelstud.io/guide/task_format, https://labelstud.io/guide/export), the server's
export serializers (``data_export/serializers.py``, ``AnnotationDraftSerializer``) and the
converter of label-studio-sdk / label-studio-converter (``converter.py``:
``annotation_result_from_task``, ``convert_to_json_min``, ``convert_to_conll2003``;
``exports/csv2.py``; ``utils.py``: ``get_annotator``, ``prettify_result``):

- JSON: ``[{"id": <task id>, "project", "data": {...}, "annotations": [{"id", "completed_by",
  "was_cancelled", "created_at", "updated_at", "project", "result": [{"from_name", "to_name",
  "type", "value": {"choices": [...]}}]}], "predictions": [...], "drafts": [...]}]``.
  ``completed_by`` is the user id (an int) or, with annotator details, an object ``{"id",
  "email", ...}``. ``predictions`` are a model's, not an annotator's, and are not read. A
  draft names its author in ``user`` and ``created_username`` ("[first last ]email, id").
- JSON-min: one flat record per annotation: the task data fields, ``id`` (task),
  ``annotator`` (the email where the export held the user object, else the id),
  ``annotation_id``, ``created_at``, ``updated_at``, ``lead_time``, and one key per control
  tag (its ``from_name``): a single choice as a string, several as ``{"choices": [...]}``, a
  taxonomy as ``[{"taxonomy": [[...]]}]``, spans as ``[{"start", "end", "text", "labels":
  [...]}]``. A task nobody annotated ("all tasks" exports) is a record with ``"annotator":
  null``, ``"annotation_id": null`` and no control key. Cancelled annotations and drafts are
  not written.
- CSV / TSV: the JSON-min records as rows, columns sorted; a value that is not text (several
  choices, a taxonomy, spans) as JSON text, a null as an empty cell.
- CONLL2003: ``-DOCSTART- -X- O``, then one ``token -X- _ TAG`` line per token: no annotator
  id, so no agreement; refused, naming the export to use instead.
- The labeling config (XML) declares the label universe: ``<Choices name=...>`` with
  ``<Choice value=... alias=...>`` children (the result holds the alias when one is set),
  ``<Taxonomy>`` with nested ``<Choice>``, ``<Labels>`` with ``<Label>``.

Meaning read here:

- one annotator per user: the identity is the user id (``completed_by: 3`` and ``{"id": 3,
  "email": ...}`` are one annotator), named by its email where the export gives one for that
  id, else by the id; an id given two emails, an email given two ids, or two users who would
  get one name are refused (JSON-min writes an email or an id, never both: an id and an
  email there are two users unless a user object in the file links them);
- one annotation per (task, annotator);
- ``was_cancelled: true`` (the annotator pressed Skip): no decision, dropped "cancelled";
- a submitted annotation with no result entry for the control: the annotator chose no label
  (every label 0);
- ``choices`` and ``taxonomy`` values (a taxonomy path joined with "/"): the set of labels
  chosen on the task;
- ``labels`` (text spans) and the other ``*labels`` region types: refused, pointing to
  :func:`xr_agreement.read_spans` (a set of the labels used on a task says nothing about
  where they were put); ``spans_as_label_sets=True`` asks for that set reading by name;
- several annotations by one person on one task: the latest (``updated_at``, else
  ``created_at``, else the last in the file) is the decision, the others are dropped
  "superseded";
- a task nobody annotated: no item, counted in ``dropped`` as "unannotated task" (under the
  annotator "nobody"); a draft: never read, counted as "draft" per author;
- tasks of several projects in one file (their ``project`` differs): refused, naming them;
- a file holding several control tags needs ``control=`` (an error lists them);
- single-label projects: the labeling config, when given (``labels=config.xml``), says it:
  a ``<Choices>`` whose ``choice`` is absent, "single" or "single-radio" allows one choice
  per annotation and is read as ratings (item, annotator); ``choice="multiple"`` as label
  sets (Label Studio's ``Choices`` tag, https://labelstud.io/tags/choices: "[choice] single
  | single-radio | multiple, default single"). The export itself does not say (a result is
  ``{"choices": [...]}`` either way; JSON-min writes one choice as text and several as an
  object, which is what was chosen, not what was allowed): without the config, ratings
  when every annotation chose exactly one label. Read as ratings, a submitted annotation
  with no choice is no decision (dropped "no choice": a single-choice control left
  unanswered chose no category). Spans read as label sets stay label sets.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
import xml.etree.ElementTree as ElementTree

from ..files import AnnotationFileError
from ._common import (Annotation, Dropped, Single, Where, blank, build, label_text,
                      load_json_records, parse_json, read_text, scalar_id)
from .tables import read_table

LABEL_TAGS = ("choices", "taxonomy", "labels")

# the reason and the annotator under which a task nobody annotated is counted in ``dropped``
UNANNOTATED, NOBODY = "unannotated task", "nobody"

# JSON-min keys that are annotation metadata, never a control tag
MIN_META = {"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time",
            "agreement", "drafts", "predictions", "total_annotations", "cancelled_annotations",
            "total_predictions", "file_upload", "inner_id", "project", "meta", "history",
            "was_cancelled"}


def _is_label_type(kind: str) -> bool:
    kind = kind.lower()
    return kind in ("choices", "taxonomy") or kind.endswith("labels")


def read_config(path) -> dict[str, list[str] | None]:
    """Control name -> its declared label values (None when the choices are dynamic) from a
    Label Studio labeling config (XML)."""
    if not os.path.exists(path):
        raise AnnotationFileError("labeling config not found", path=path)
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise AnnotationFileError(f"not a valid labeling config (XML): {error}",
                                  path=path) from None
    controls = {}
    for element in root.iter():
        tag = element.tag.lower()
        if not (tag in ("choices", "taxonomy") or tag.endswith("labels")) or "name" not in \
                element.attrib:
            continue
        if tag == "taxonomy":
            values = []

            def walk(node, prefix):
                for child in node:
                    if child.tag.lower() == "choice":
                        name = child.get("alias") or child.get("value")
                        values.append("/".join(prefix + [name]))
                        walk(child, prefix + [name])

            walk(element, [])
        else:
            child_tag = "choice" if tag == "choices" else "label"
            values = [c.get("alias") or c.get("value") for c in element.iter()
                      if c.tag.lower() == child_tag and (c.get("alias") or c.get("value"))]
        controls[element.get("name")] = values or None
    if not controls:
        raise AnnotationFileError("the labeling config has no Choices, Taxonomy or Labels "
                                  "control", path=path)
    return controls


def read_choice_styles(path) -> dict[str, Single]:
    """Control name -> how many choices the labeling config (XML, already checked by
    :func:`read_config`) lets one annotation hold, for its ``<Choices>`` controls: the
    ``choice`` attribute, "single" when absent (https://labelstud.io/tags/choices)."""
    styles = {}
    for element in ElementTree.parse(path).getroot().iter():
        if element.tag.lower() != "choices" or "name" not in element.attrib:
            continue
        name = element.get("name")
        given = {k.lower(): v for k, v in element.attrib.items()}.get("choice")
        style = (given or "single").strip().lower()
        said = f'the labeling config\'s <Choices name="{name}">'
        shown = f'choice="{given}"' if given is not None else "no choice attribute: single"
        if style in ("single", "single-radio"):
            styles[name] = Single(True, f"{said} allows one choice ({shown})")
        elif style == "multiple":
            styles[name] = Single(False, f'{said} allows several choices (choice="multiple")')
    return styles


def _stated(styles, control, kind) -> Single | None:
    """What the config says about ``control`` (None: nothing); spans read as label sets
    are label sets."""
    if kind.endswith("labels"):
        return Single(False, "spans are read as label sets (spans_as_label_sets=True)")
    return (styles or {}).get(control)


def _pick_control(found: dict, control, config, where, source: str,
                  present: set | None = None) -> str:
    """The control to read. ``found``: the label controls of the export; ``present``: every
    name the export's results (JSON-min: records) use. With a labeling config the control
    must be one of the config's and must occur in the export: a config of another project
    would otherwise read every annotation as "chose no label"."""
    present = set(found) if present is None else present | set(found)
    names = list(config) if config else list(found)
    if config and control is not None and control not in config:
        raise where(f"control {control!r} is not a control of the labeling config; the "
                    f"config has {sorted(config)}, the {source} has {sorted(present)}")
    if control is not None:
        if control not in present and control not in (config or {}):
            raise where(f"no control named {control!r}; the {source} has "
                        f"{sorted(set(found) | set(config or {}))}")
        chosen = control
    elif len(names) == 1:
        chosen = names[0]
    elif not names:
        raise where("no annotation holds a choices, taxonomy or labels result: nothing to "
                    "measure agreement on")
    elif config:
        # several controls in the config: the one the export uses, if only one is
        used = [n for n in names if n in present]
        if len(used) != 1:
            raise where(f"several control tags: {sorted(used or names)}; choose one with "
                        "control=NAME (command line: --control NAME)")
        chosen = used[0]
    else:
        raise where(f"several control tags: {sorted(names)}; choose one with control=NAME "
                    "(command line: --control NAME)")
    if config and chosen not in present:
        raise where(f"control {chosen!r} of the labeling config occurs in no result of the "
                    f"{source}: is the config of another project? The config has "
                    f"{sorted(config)}, the {source} has {sorted(present)}")
    return chosen


def _user_of(value, where, row, column) -> tuple[str | None, str | None]:
    """(id, email) of one ``completed_by`` / JSON-min ``annotator`` value: an int (or
    integer text) is the user id, text with "@" the email (JSON-min writes the email when
    the export held the user object), an object ``{"id", "email", ...}`` both."""
    if isinstance(value, dict):
        user_id, email = value.get("id"), value.get("email")
        if user_id in (None, "") and email in (None, ""):
            raise where("completed_by has neither email nor id", row, column)
        if user_id not in (None, ""):
            user_id = str(scalar_id(user_id, where, row, f"{column}.id"))
        if email not in (None, "") and not isinstance(email, str):
            raise where(f"email must be text, got {email!r}", row, f"{column}.email")
        return user_id or None, email or None
    if value is None or value == "" or isinstance(value, (bool, list)):
        raise where(f"missing annotator id ({column} is {value!r}): an annotation that names "
                    "no user (imported without one, or of a deleted user) cannot be "
                    "attributed; assign it to its annotator in Label Studio or remove it "
                    "from the export", row, column)
    text = str(scalar_id(value, where, row, column))
    return (None, text) if isinstance(value, str) and "@" in text else (text, None)


def _annotator_names(users: list[tuple], where) -> list[str]:
    """One annotator name per ``(row, column, (id, email))``: one user is one annotator
    however the export spells them (``completed_by: 3`` and ``{"id": 3, "email": ...}``).
    The identity is the user id; the email, where the export gives it for that id, is the
    name. An id given two emails, an email given two ids, or two users who would get one
    name cannot be told apart and are refused."""
    emails_of, ids_of, first = {}, {}, {}
    for row, column, (user_id, email) in users:
        if user_id is None or email is None:
            continue
        first.setdefault((user_id, email), (row, column))
        emails_of.setdefault(user_id, set()).add(email)
        ids_of.setdefault(email, set()).add(user_id)
    for user_id, emails in emails_of.items():
        if len(emails) > 1:
            row, column = max(first[(user_id, e)] for e in emails)
            raise where(f"user id {user_id} is given the emails {sorted(emails)}: which "
                        "user annotated cannot be told; export the project again", row,
                        column)
    for email, ids in ids_of.items():
        if len(ids) > 1:
            row, column = max(first[(i, email)] for i in ids)
            raise where(f"the email {email!r} is given to the user ids {sorted(ids)}: two "
                        "users would become one annotator; export the project again", row,
                        column)
    names, identity_of = [], {}
    for row, column, (user_id, email) in users:
        if user_id is None and email in ids_of:
            user_id = next(iter(ids_of[email]))
        identity = ("id", user_id) if user_id is not None else ("email", email)
        name = (next(iter(emails_of[user_id])) if user_id in emails_of
                else user_id if user_id is not None else email)
        other = identity_of.setdefault(name, identity)
        if other != identity:
            raise where(f"two users are both named {name!r} ({other[0]} {other[1]!r} and "
                        f"{identity[0]} {identity[1]!r}): their annotations would merge",
                        row, column)
        names.append(name)
    return names


def _values_of(kind: str, value, where, row, column) -> list[str]:
    if not isinstance(value, dict):
        raise where(f"result value must be an object, got {value!r}", row, column)
    if kind == "taxonomy":
        paths = value.get("taxonomy")
        if not isinstance(paths, list):
            raise where("a taxonomy result without value.taxonomy", row, column)
        out = []
        for path in paths:
            path = path if isinstance(path, list) else [path]
            out.append("/".join(label_text(p, where, row, column) for p in path))
        return out
    chosen = value.get(kind, value.get("choices") if kind == "choices" else None)
    if not isinstance(chosen, list):
        raise where(f"a {kind} result without a value.{kind} list", row, column)
    return [label_text(v, where, row, column) for v in chosen]


def _timestamp(text, where, row, column) -> datetime:
    """An ISO 8601 timestamp as an aware datetime (a trailing Z is UTC; a naive one is taken
    as UTC, which is what Label Studio writes)."""
    if not isinstance(text, str):
        raise where(f"{column.rsplit('.', 1)[-1]} must be an ISO 8601 timestamp, got "
                    f"{text!r}", row, column)
    try:
        stamp = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z"))
                                       else text)
    except ValueError:
        raise where(f"{column.rsplit('.', 1)[-1]} is not an ISO 8601 timestamp: {text!r}",
                    row, column) from None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)


def _latest(group: list[tuple], where) -> int:
    """Position in ``group`` of the latest annotation: updated_at, else created_at, else the
    last; timestamps compare as datetimes (as text, "10:00:00.25+00:00" would sort before
    "10:00:00Z")."""
    if len(group) == 1:
        return 0
    for key in ("updated_at", "created_at"):
        if all(entry[1].get(key) not in (None, "") for entry in group):
            stamps = [_timestamp(entry[1][key], where, entry[0],
                                 key if entry[2] is None else f"{entry[2]}.{key}")
                      for entry in group]
            return max(range(len(group)), key=lambda i: (stamps[i], i))
    return len(group) - 1


def export_records(path, where, text=None) -> tuple[list, bool]:
    """(records, whether they are the full JSON export's tasks) of a Label Studio export
    file: a CSV / TSV or JSON-min export gives one record per annotation, the JSON export one
    per task with its ``annotations``. The CONLL2003 export and JSON lines are refused.
    Shared with the span reader."""
    if is_table_export(path):
        return _table_records(path, where), False
    text = read_text(path) if text is None else text
    if is_conll(text[:CONLL_PEEK]):
        raise where(CONLL_REFUSAL)
    records, kind = load_json_records(path, text)
    if kind != "array":
        raise where("a Label Studio export is one JSON array of tasks; this file is JSON "
                    "lines")
    return records, any("annotations" in r for _, r in records)


def task_annotations(records, users, places, dropped, where):
    """(task, annotator, row, annotation, column) of the JSON export's annotations, the
    latest per annotator and task (:func:`_latest_per_annotator`), given each annotation's
    user (``users``) and place (``places``: row, task, annotation, column). Drafts are never
    read, only counted in ``dropped``. Shared with the span reader."""
    drafts = _drafts(records, where)
    # a draft author's email names nobody: names come from the annotations, so that who
    # left a draft does not change how the others are named (the id, where no annotation
    # gives an email)
    authors = [(row, column, (user_id, None if user_id is not None else email))
               for row, column, (user_id, email) in (d for d in drafts if d[2] is not None)]
    names = _annotator_names(users + authors, where)
    groups = {}
    for (row, task_id, entry, column), who in zip(places, names):
        groups.setdefault((task_id, who), []).append((row, entry, column))
    drafted = iter(names[len(places):])
    for *_, user in drafts:  # never read, counted: the report says how many were left out
        dropped.add("draft", "unknown user" if user is None else next(drafted))
    return _latest_per_annotator(groups, dropped, where)


def min_annotations(records, control, dropped, where):
    """(task, annotator, row, record) of each JSON-min / CSV record that is an annotation,
    the latest per annotator and task (:func:`_latest_per_annotator`). The converter writes a
    task nobody annotated ("all tasks" exports) as a record with ``"annotator": null``,
    ``"annotation_id": null`` and no control key: counted in ``dropped``; a null annotator
    beside an annotation id or a result is refused. Shared with the span reader."""
    annotated = []
    for row, record in records:
        if record["annotator"] is not None:
            annotated.append((row, record))
            continue
        if record.get("annotation_id") not in (None, "") or record.get(control) not in \
                (None, "", []):
            raise where("an annotation without annotator (\"annotator\": null beside an "
                        "annotation id or a result)", row, "annotator")
        dropped.add(UNANNOTATED, NOBODY)
    users = [(row, "annotator", _user_of(record["annotator"], where, row, "annotator"))
             for row, record in annotated]
    groups = {}
    for (row, record), who in zip(annotated, _annotator_names(users, where)):
        groups.setdefault((record["id"], who), []).append((row, record, None))
    return [(task_id, who, row, record) for task_id, who, row, record, _
            in _latest_per_annotator(groups, dropped, where)]


def _latest_per_annotator(groups: dict, dropped, where):
    """(task id, annotator, row, entry, column) of the latest annotation of each (task,
    annotator) in ``groups``; the earlier ones count as "superseded" in ``dropped``."""
    for (task_id, who), group in groups.items():
        winner = _latest(group, where)
        for _ in range(len(group) - 1):
            dropped.add("superseded", who)
        yield (task_id, who, *group[winner])


def read_label_studio(path, *, universe=None, config=None, control=None, item="item",
                      annotator="annotator", label="label", text=None,
                      spans_as_label_sets=False, layout="auto", choice_styles=None):
    """Decisions from a Label Studio JSON, JSON-min, CSV or TSV export (see the module
    docstring); the CONLL2003 export, which names no annotator, is refused.

    A control whose results are labelled regions (``labels`` spans of a text, rectangles,
    ...) is refused unless ``spans_as_label_sets=True`` asks for the set of labels each
    annotator used on each task: that reading says nothing about where the regions are
    (two annotators who marked different words with one label agree), so it is never
    taken silently; :func:`xr_agreement.read_spans` reads text spans as spans.

    ``layout`` ("auto", "sets", "single") and ``choice_styles`` (the labeling config's
    statement per control, :func:`read_choice_styles`): ratings or label sets, see the
    module docstring."""
    where = Where(path)
    spans_ok = bool(spans_as_label_sets)
    records, full = export_records(path, where, text)
    if full:
        return _read_full(records, where, universe, config, control, item, annotator, label,
                          spans_ok, layout, choice_styles)
    return _read_min(records, where, universe, config, control, item, annotator, label,
                     spans_ok, layout, choice_styles)


# --------------------------------------------------------------------------------------
# the CSV / TSV export and the CONLL2003 export
# --------------------------------------------------------------------------------------

# how much of a file is read to tell the CONLL2003 export
CONLL_PEEK = 4096
CONLL_LINE = re.compile(r"^\S+ -X- _ \S+$")
CONLL_REFUSAL = ("a Label Studio CONLL2003 export: it holds one tag per token and no "
                 "annotator ids, so agreement cannot be measured from it; export the project "
                 "as JSON (or JSON-min) and read that file")


def is_conll(head: str) -> bool:
    """Whether ``head`` (the first characters of a text file) is the CONLL2003 export:
    ``-DOCSTART- -X- O``, then ``token -X- _ TAG`` lines (``convert_to_conll2003``).

    Examples
    --------
    >>> is_conll("-DOCSTART- -X- O\\nShowers -X- _ O\\nBahia -X- _ B-Location\\n")
    True
    >>> is_conll("item,annotator,labels\\n1,ann,a\\n")
    False
    """
    lines = head.splitlines()
    lines = [line.strip() for line in lines[:-1] or lines if line.strip()]  # last: cut
    if not lines:
        return False
    return lines[0].startswith("-DOCSTART- -X-") or all(CONLL_LINE.match(line)
                                                       for line in lines[:50])


def is_table_export(path) -> bool:
    """Whether ``path`` is named like a table: CSV / TSV (optionally compressed), or
    parquet (a CSV export converted).

    Examples
    --------
    >>> is_table_export("project-3-at-2024-03-05.tsv"), is_table_export("export.json")
    (True, False)
    """
    name = os.fspath(path).lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    return name.endswith((".csv", ".tsv", ".tab", ".parquet", ".pq"))


def _table_records(path, where) -> list[tuple[int, dict]]:
    """The rows of the CSV / TSV export as JSON-min records. The converter (exports/csv2.py)
    writes the JSON-min records as rows: a JSON value (several choices, a taxonomy, spans,
    task data that is a list or an object) as JSON text, a single choice as its text, a
    null as an empty cell."""
    table, _ = read_table(path)
    missing = [c for c in ("id", "annotator") if c not in table.columns]
    if missing:
        raise where(f"a Label Studio CSV / TSV export has the columns id and annotator; "
                    f"this file has no {missing[0]!r} column (columns: "
                    f"{list(table.columns)})", column=missing[0])
    where.lines = table.attrs.get("lines")  # errors name the line a row starts on
    records = []
    for row, cells in enumerate(table.to_dict("records"), start=1):
        record = {}
        for column, cell in cells.items():
            if not isinstance(cell, str):  # a parquet cell: a null is None or NaN
                record[column] = None if blank(cell) else cell
            elif cell == "":
                record[column] = None
            elif column == "was_cancelled":
                record[column] = cell.strip().lower() == "true"
            elif column not in MIN_META and cell.lstrip()[:1] in "[{":
                try:
                    value = parse_json(cell)  # nested too deeply, NaN: a JSONDecodeError
                except json.JSONDecodeError:
                    value = cell
                record[column] = value if _min_shape(value) else cell
            else:
                record[column] = cell
        if record["id"] is None:
            raise where("a row without task id", row, "id")
        records.append((row, record))
    return records


def _one_project(places, where, hint: str = "") -> None:
    """Refuse an export holding tasks of several projects (``places``: (row, column, the
    ``project`` field)): two projects' exports concatenated would make one project's labels
    "decided 0" on the other's tasks, and their colliding task ids one item."""
    projects = {}
    for row, column, value in places:
        if value is None:
            continue
        key = value if isinstance(value, (str, int)) and not isinstance(value, bool) else \
            json.dumps(value, sort_keys=True)
        projects.setdefault(str(key), (row, column))
        if len(projects) > 1:
            raise where(f"the file holds tasks of several Label Studio projects "
                        f"({', '.join(projects)}): an export is of one project; export each "
                        f"project on its own and read them one at a time{hint}", row, column)


# the end of a draft's ``created_username``: "[first last ]email, id" (older servers:
# "first last (email, id)")
DRAFT_AUTHOR = re.compile(r"([^\s(]+@[^\s,]+), (\d+)\)?\s*$")


def _drafts(records, where) -> list[tuple]:
    """(row, column, (id, email) or None) of each draft of the JSON export's tasks (the
    ``drafts`` list, written by the server's ``AnnotationDraftSerializer``: ``user`` and
    ``created_username``); None where neither names the author."""
    out = []
    for row, task in records:
        drafts = task.get("drafts")
        if drafts is None:
            continue
        if not isinstance(drafts, list):
            raise where("drafts must be a list", row, "drafts")
        for number, draft in enumerate(drafts):
            column = f"drafts[{number}]"
            if isinstance(draft, int) and not isinstance(draft, bool):
                # the snapshot export's default (and the SDK's export_snapshot_create)
                # writes each draft as its id: a draft whose author the file does not say
                out.append((row, column, None))
                continue
            if not isinstance(draft, dict):
                raise where("a draft must be an object or a draft id", row, column)
            text, user = draft.get("created_username"), draft.get("user")
            match = DRAFT_AUTHOR.search(text) if isinstance(text, str) else None
            if match:
                out.append((row, f"{column}.created_username", (match[2], match[1])))
            elif isinstance(user, (int, str, dict)) and not isinstance(user, bool) and \
                    user not in ("", {}):
                out.append((row, f"{column}.user", _user_of(user, where, row,
                                                            f"{column}.user")))
            else:
                out.append((row, column, None))
    return out


def _universe(config, chosen_control, universe):
    if universe is None and config is not None:
        return config.get(chosen_control)
    return universe


def _region_refusal(control: str, kind: str, where) -> AnnotationFileError:
    """The error for a control of labelled regions read as a classification (issue 29: a
    span export read as label sets gave two annotators who marked different text with one
    label full agreement, without a word)."""
    what = ("text spans (Label Studio 'labels' regions)" if kind == "labels" else
            f"labelled regions ({kind!r} results)")
    to_do = ("read them as spans with xr_agreement.read_spans(path) (command line: "
             "xr-agreement report FILE reads span exports as spans), or "
             if kind == "labels" else "")
    return where(f"control {control!r} holds {what}: read as a classification, each task "
                 "would only say which labels occur in it, and annotators who marked "
                 f"different places with one label would agree; {to_do}ask for that reading "
                 "by name: spans_as_label_sets=True")


def _read_full(records, where, universe, config, control, item, annotator, label,
               spans_ok=False, layout="auto", styles=None):
    _one_project([(row, column, entry.get("project")) for row, task in records
                  for column, entry in [("project", task)] + [
                      (f"annotations[{n}].project", a)
                      for n, a in enumerate(task.get("annotations") if isinstance(
                          task.get("annotations"), list) else [])
                      if isinstance(a, dict)]], where)
    found, present = {}, set()
    for row, task in records:
        annotations = task.get("annotations")
        if annotations is None:
            raise where("a task without an annotations list", row, "annotations")
        if not isinstance(annotations, list):
            raise where("annotations must be a list", row, "annotations")
        for number, entry in enumerate(annotations):
            column = f"annotations[{number}]"
            if not isinstance(entry, dict):
                raise where("an annotation must be an object", row, column)
            if "result" not in entry:
                raise where("an annotation without result", row, f"{column}.result")
            if not isinstance(entry["result"], list):
                raise where("result must be a list", row, f"{column}.result")
            for position, result in enumerate(entry["result"]):
                if not isinstance(result, dict) or "type" not in result:
                    raise where("a result entry without type", row,
                                f"{column}.result[{position}]")
                name = result.get("from_name")
                if "from_name" in result and not isinstance(name, str):
                    raise where(f"from_name must be text, got {name!r}", row,
                                f"{column}.result[{position}].from_name")
                if name is not None:
                    present.add(name)
                if _is_label_type(str(result["type"])) and "from_name" in result:
                    found.setdefault(result["from_name"], str(result["type"]).lower())
                elif result.get("from_name") == control:
                    raise where(f"control {control!r} is a {result['type']!r} result, not "
                                "choices, taxonomy or labels", row,
                                f"{column}.result[{position}]")
    chosen_control = _pick_control(found, control, config, where, "export", present)
    kind = found.get(chosen_control, "")
    if kind.endswith("labels") and not spans_ok:
        raise _region_refusal(chosen_control, kind, where)
    dropped = Dropped()
    users, places = [], []
    for row, task in records:
        if "id" not in task or task["id"] in (None, ""):
            raise where("a task without id", row, "id")
        task_id = scalar_id(task["id"], where, row, "id")  # 1.0 is the task 1
        for number, entry in enumerate(task["annotations"]):
            column = f"annotations[{number}]"
            if "completed_by" not in entry:
                raise where("an annotation without completed_by", row,
                            f"{column}.completed_by")
            users.append((row, f"{column}.completed_by",
                          _user_of(entry["completed_by"], where, row,
                                   f"{column}.completed_by")))
            places.append((row, task_id, entry, column))
        if not task["annotations"]:  # an "all tasks" export lists the tasks nobody annotated
            dropped.add(UNANNOTATED, NOBODY)
    annotations = []
    for task_id, who, row, entry, column in task_annotations(records, users, places, dropped,
                                                             where):
        cancelled = entry.get("was_cancelled", False)
        if not isinstance(cancelled, bool):
            raise where(f"was_cancelled must be true or false, got {cancelled!r}", row,
                        f"{column}.was_cancelled")
        if cancelled:
            dropped.add("cancelled", who)
            annotations.append(Annotation(task_id, who, None, row=row))
            continue
        chosen = []
        for position, result in enumerate(entry["result"]):
            if result.get("from_name") != chosen_control:
                continue
            kind = str(result["type"]).lower()
            if not _is_label_type(kind):
                raise where(f"control {chosen_control!r} is a {kind!r} result, not choices, "
                            "taxonomy or labels", row, f"{column}.result[{position}]")
            chosen += _values_of(kind, result.get("value"), where, row,
                                 f"{column}.result[{position}].value")
        annotations.append(Annotation(task_id, who, list(dict.fromkeys(chosen)), row=row,
                                      column=f"{column}.result"))
    return build(annotations, reader="label-studio", dropped=dropped, where=where,
                 universe=_universe(config, chosen_control, universe), item=item,
                 annotator=annotator, label=label, sep_option="", layout=layout,
                 single=_stated(styles, chosen_control, found.get(chosen_control, "")))


def _min_shape(value) -> bool:
    """A JSON-min value that can only be a control's result (not task data)."""
    if isinstance(value, dict):
        return any(k in value for k in LABEL_TAGS)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return all(any(k in v for k in LABEL_TAGS) or "labels" in v for v in value)
    return False


def _min_values(value, where, row, column) -> list[str]:
    if isinstance(value, str):
        return [label_text(value, where, row, column)]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise where(f"cannot read labels from {value!r}", row, column)
    out = []
    for entry in value:
        if isinstance(entry, str):
            out.append(label_text(entry, where, row, column))
            continue
        if not isinstance(entry, dict):
            raise where(f"cannot read labels from {entry!r}", row, column)
        kinds = [k for k in entry if k in LABEL_TAGS or k.endswith("labels")]
        if len(kinds) != 1:
            raise where(f"cannot read labels from {entry!r}", row, column)
        out += _values_of(kinds[0], entry, where, row, column)
    return out


def _min_region_kind(value) -> str | None:
    """The region type (``labels``, ``rectanglelabels``, ...) of a JSON-min value that is
    a list of regions, else None."""
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None
    for entry in value:
        if isinstance(entry, dict):
            for key in entry:
                if key.endswith("labels"):
                    return key
    return None


def _read_min(records, where, universe, config, control, item, annotator, label,
              spans_ok=False, layout="auto", styles=None):
    # the converter writes no "project" key into JSON-min records, but a record holds the
    # task's data fields, which may have one: which of the two it is cannot be told here
    _one_project([(row, "project", record.get("project")) for row, record in records], where,
                 "; if 'project' is a field of your tasks' data, read the JSON export, which "
                 "keeps the data apart")
    for row, record in records:
        for key in ("id", "annotator"):
            if key not in record or record[key] == "" or (key == "id" and record[key] is None):
                raise where(f"a JSON-min record without {key!r} (is this a Label Studio "
                            "export?)", row, key)
            if key == "id":
                record["id"] = scalar_id(record["id"], where, row, key)  # 1.0 is the task 1
            elif not isinstance(record[key], (dict, type(None))):
                scalar_id(record[key], where, row, key)
    found = {}
    for _, record in records:
        for key, value in record.items():
            if key not in MIN_META and _min_shape(value):
                found.setdefault(key, "choices")
    if control is None and not config and not found:
        keys = sorted({k for _, r in records for k in r if k not in MIN_META})
        raise where(f"cannot tell which field holds the labels; name the control: "
                    f"control=NAME (--control NAME) or pass the labeling config (--labels "
                    f"config.xml); fields: {keys}")
    present = {k for _, r in records for k in r if k not in MIN_META}
    chosen_control = _pick_control(found, control, config, where, "export", present)
    region = next((k for _, r in records
                   for k in [_min_region_kind(r.get(chosen_control))] if k is not None), None)
    if region is not None and not spans_ok:
        raise _region_refusal(chosen_control, region, where)
    dropped = Dropped()
    annotations = []
    for task_id, who, row, record in min_annotations(records, chosen_control, dropped, where):
        if record.get("was_cancelled") is True:
            dropped.add("cancelled", who)
            annotations.append(Annotation(task_id, who, None, row=row))
            continue
        value = record.get(chosen_control)
        chosen = [] if value in (None, "", []) else _min_values(value, where, row,
                                                                chosen_control)
        annotations.append(Annotation(task_id, who, list(dict.fromkeys(chosen)), row=row,
                                      column=chosen_control))
    return build(annotations, reader="label-studio", dropped=dropped, where=where,
                 universe=_universe(config, chosen_control, universe), item=item,
                 annotator=annotator, label=label, sep_option="", layout=layout,
                 single=_stated(styles, chosen_control, region or ""))
