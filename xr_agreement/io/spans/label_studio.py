"""Label Studio span exports -> span tables: ``labels`` results of a ``<Labels>`` control on a
``<Text>`` object (named entities, highlights), in the JSON export, the JSON-min export and
the CSV / TSV exports.

Format, from Label Studio's documentation "Label Studio JSON format of annotated tasks"
(https://labelstud.io/guide/task_format: a ``labels`` region's ``value`` holds ``start`` and
``end``, character offsets into the text, ``text``, the text they cover, and ``labels``, a
list), "Export annotations and data" (https://labelstud.io/guide/export: JSON, JSON-min, CSV,
CONLL2003) and the converter of label-studio-sdk (``converter.py``: ``convert_to_json_min``
writes one record per annotation, the region list under the control's name as ``[{"start",
"end", "text", "labels"}]``, and omits cancelled annotations; ``convert_to_conll2003``
writes tokens and tags without annotators), checked on a Label Studio 1.23.2 server's own
exports (``tests/data/spans/label_studio/server_1.23.2``):

- JSON: ``[{"id": <task>, "data": {"text": ...}, "annotations": [{"completed_by",
  "was_cancelled", "result": [{"from_name", "to_name", "type": "labels", "value": {"start",
  "end", "text", "labels": [...]}}]}], "drafts": [...], "predictions": [...]}]``.
- JSON-min: ``{"id", "text", "<control>": [{"start", "end", "text", "labels"}],
  "annotator", "annotation_id", ...}``; an annotation with an empty result has no
  ``<control>`` key; a task nobody annotated is a record with ``"annotator": null``.
- CSV / TSV: the JSON-min records as rows, the region list as JSON text.

Meaning read here (as :mod:`xr_agreement.io.tools.label_studio` reads classifications):

- the document is the task (its ``id``), its text ``data[<field>]`` where the ``<Text>``
  object named by the regions' ``to_name`` reads it (``value="$text"``: the labeling config
  says which field; without it ``data[to_name]``, else ``data["text"]``, else the task's one
  text field); the length is the text's, and each region's ``text`` is checked against the
  text at its offsets (a mismatch is refused: offsets in another unit);
- one annotator per user (the id, named by the email where the export gives one);
- ``was_cancelled: true`` (the annotator pressed Skip): the annotator did not annotate the
  task (missing, NaN), counted in ``dropped`` as "cancelled"; JSON-min does not write
  cancelled annotations, so there they are simply absent (missing too);
- a submitted annotation with no region of the control: annotated, marked nothing;
- a region with several labels is several spans (one per label); the same span twice by one
  annotator is one span ("duplicate span" in ``dropped``); a region with no label is none
  ("region without label");
- several annotations by one user on one task: the latest is the decision ("superseded");
  drafts and predictions are never read (drafts counted as "draft");
- relations (``type: "relation"``) link spans and are not spans: not read, counted as
  "relation (not measured)" and said in ``attrs["notes"]``;
- ``HyperTextLabels`` (offsets as XPath positions in HTML), ``ParagraphLabels`` (offsets into
  dialogue paragraphs) and regions of images, audio or time series are refused: their
  positions are not character offsets of one text;
- the CONLL2003 export names no annotator and is refused.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree

from ..files import AnnotationFileError
from ..tools._common import Where, is_collection, scalar_id
from ..tools.label_studio import (MIN_META, NOBODY, UNANNOTATED, _one_project, _user_of,
                                  export_records, min_annotations, read_config,
                                  task_annotations)
from ._shared import declared_labels
from .collect import SpanCollector

# the result type of a text span region (a <Labels> control on a <Text> object)
TEXT_SPANS = "labels"

# region types whose positions are not character offsets of one text, and why
NOT_TEXT_SPANS = {
    "hypertextlabels": "HyperTextLabels regions: their start and end are XPath positions in "
                       "HTML, not character offsets of one text",
    "paragraphlabels": "ParagraphLabels regions: their offsets point into dialogue "
                       "paragraphs, not into one text",
}


def _region_kind(kind: str) -> bool:
    """Whether a result type is a labelled region (``labels``, ``rectanglelabels``, ...)."""
    return kind.lower().endswith("labels")


def _why_not(control: str, kind: str) -> str:
    why = NOT_TEXT_SPANS.get(kind, f"{kind} regions mark images, audio, video or time "
                                   "series, not character offsets of a text")
    return (f"control {control!r} holds {why}; span agreement reads Labels regions on a Text "
            "object only (not supported)")


class _Config:
    """The labeling config's span controls: name -> (tag, toName, label values), and its
    objects: name -> the task data field they read (``value="$text"`` -> "text")."""

    def __init__(self, path):
        values = read_config(path)  # also refuses a missing or broken file
        root = ElementTree.parse(path).getroot()
        self.controls, self.objects = {}, {}
        for element in root.iter():
            name = element.get("name")
            if name is None:
                continue
            tag = element.tag.lower()
            if _region_kind(tag):
                self.controls[name] = (tag, element.get("toName"), values.get(name))
            elif str(element.get("value", "")).startswith("$"):
                self.objects[name] = element.get("value")[1:]


def _declared(labels):
    """(universe, config) from ``labels=``: a labeling config (XML), a file of labels or a
    list of labels."""
    from ..tools import is_config

    if is_config(labels):
        return None, _Config(labels)
    return declared_labels(labels), None


def _choose(found: dict, control, config, present: set, where) -> str:
    """The span control to read. ``found``: region controls of the export -> result type;
    ``present``: every control name its results use."""
    in_config = {} if config is None else {n: c[0] for n, c in config.controls.items()}
    if control is not None:
        kind = found.get(control, in_config.get(control))
        if kind is None:
            if control in present:
                raise where(f"control {control!r} holds no labelled regions (spans): read its "
                            "choices with xr_agreement.read_annotations")
            raise where(f"no span control named {control!r}; the export has "
                        f"{sorted(found) or 'no span control'}"
                        + (f", the labeling config {sorted(in_config)}" if config else ""))
        chosen = control
    else:
        names = sorted(n for n, k in found.items() if k == TEXT_SPANS) or sorted(
            n for n, k in in_config.items() if k == TEXT_SPANS)
        if len(names) > 1:
            raise where(f"several span controls: {names}; choose one with control=NAME "
                        "(command line: --control NAME)")
        if not names:
            others = sorted(n for n in found)
            if others:
                raise where(_why_not(others[0], found[others[0]]))
            raise where("no annotation holds a labels region (a span) and no labeling config "
                        "names a Labels control: is this a span export? Classifications are "
                        "read by xr_agreement.read_annotations")
        chosen = names[0]
    kind = found.get(chosen, in_config.get(chosen))
    if kind != TEXT_SPANS:
        raise where(_why_not(chosen, kind))
    if config is not None and chosen not in in_config:
        raise where(f"control {chosen!r} is not a control of the labeling config "
                    f"{sorted(in_config)}: is the config of another project?")
    return chosen


def _text_field(to_name, config, fields: set, where) -> str:
    """The task data field holding the text the regions' offsets count in."""
    if config is not None and to_name in config.objects:
        return config.objects[to_name]
    for name in (to_name, "text"):
        if name is not None and name in fields:
            return name
    if len(fields) == 1:
        return next(iter(fields))
    raise where(f"cannot tell which task field holds the text the spans are offsets into "
                f"(the regions name the object {to_name!r}; text fields: {sorted(fields)}); "
                "pass the labeling config (labels=config.xml, --labels config.xml)")


def _not_a_url(task_id, text: str, where, row, column) -> None:
    """Refuse a task whose text is a link (``<Text valueType="url">``): its spans are
    offsets into the text the link points to, which the export does not hold."""
    head = text.strip()
    if head.startswith(("http://", "https://", "s3://", "gs://", "/data/")) and \
            not any(ch.isspace() for ch in head):
        raise where(f"the text of task {task_id!r} is a link ({_short(head)!r}): its spans "
                    "are offsets into the text it points to, which the export does not hold "
                    "(not supported); import the texts themselves", row, column)


def _short(text: str, size: int = 60) -> str:
    return text if len(text) <= size else text[:size] + "..."


def _regions(value, where, row, column) -> list:
    """The labels of one region ``value`` (a ``labels`` result's value, or a JSON-min
    entry), after the checks that do not need the text."""
    if not isinstance(value, dict):
        raise where(f"a region must be an object, got {value!r}", row, column)
    for kind in value:
        if kind in NOT_TEXT_SPANS:
            raise where(f"a region holding {kind!r}: {NOT_TEXT_SPANS[kind]} (not supported)",
                        row, column)
    if isinstance(value.get("start"), str) or isinstance(value.get("end"), str):
        raise where(f"a region whose start / end are text ({value.get('start')!r}, "
                    f"{value.get('end')!r}): HyperText XPath positions, not character "
                    "offsets of one text (not supported)", row, column)
    for key in ("start", "end"):
        if key not in value:
            raise where(f"a region without {key!r}: not a text span", row, column)
    chosen = value.get("labels")
    if not isinstance(chosen, list):
        raise where(f"a region without a labels list (labels is {chosen!r})", row, column)
    return chosen


def _add_region(spans, task_id, who, value, where, row, column) -> None:
    chosen = _regions(value, where, row, column)
    if not chosen:
        spans.dropped.add("region without label", who)
        return
    quoted = value.get("text")
    for label in chosen:  # one span per label; a label twice is one span ("duplicate span")
        spans.span(task_id, who, value["start"], value["end"], label, row, column,
                   quoted=quoted if isinstance(quoted, str) else None)


def _read_full(records, where, universe, config, control):
    _one_project([(row, "project", task.get("project")) for row, task in records], where)
    found, present, to_names = {}, set(), {}
    for row, task in records:
        annotations = task.get("annotations")
        if not isinstance(annotations, list):
            raise where("a task without an annotations list", row, "annotations")
        for number, entry in enumerate(annotations):
            column = f"annotations[{number}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("result"), list):
                raise where("an annotation must be an object with a result list", row, column)
            for position, result in enumerate(entry["result"]):
                if not isinstance(result, dict) or not isinstance(result.get("type"), str):
                    raise where("a result entry without type", row,
                                f"{column}.result[{position}]")
                name, kind = result.get("from_name"), result["type"].lower()
                if isinstance(name, str):
                    present.add(name)
                    if _region_kind(kind):
                        found.setdefault(name, kind)
                        to_names.setdefault(name, result.get("to_name"))
    chosen = _choose(found, control, config, present, where)
    to_name = to_names.get(chosen) or (config.controls[chosen][1] if config else None)
    fields = {k for _, t in records if isinstance(t.get("data"), dict)
              for k, v in t["data"].items() if isinstance(v, str)}
    field = _text_field(to_name, config, fields, where)
    spans = SpanCollector(where, "label-studio")
    users, places = [], []
    for row, task in records:
        if task.get("id") in (None, ""):
            raise where("a task without id", row, "id")
        task_id = scalar_id(task["id"], where, row, "id")
        for number, entry in enumerate(task["annotations"]):
            column = f"annotations[{number}].completed_by"
            if "completed_by" not in entry:
                raise where("an annotation without completed_by", row, column)
            users.append((row, column, _user_of(entry["completed_by"], where, row, column)))
            places.append((row, task_id, entry, f"annotations[{number}]"))
        if not task["annotations"]:  # an "all tasks" export lists the tasks nobody annotated
            spans.dropped.add(UNANNOTATED, NOBODY)
            continue
        data = task.get("data")
        if not isinstance(data, dict) or not isinstance(data.get(field), str):
            raise where(f"task {task_id!r} has no text in data.{field} (the text its spans "
                        "are offsets into)", row, f"data.{field}")
        _not_a_url(task_id, data[field], where, row, f"data.{field}")
        spans.document(task_id, data[field], row, f"data.{field}")
    relations = 0
    for task_id, who, row, entry, column in task_annotations(records, users, places,
                                                             spans.dropped, where):
        cancelled = entry.get("was_cancelled", False)
        if not isinstance(cancelled, bool):
            raise where(f"was_cancelled must be true or false, got {cancelled!r}", row,
                        f"{column}.was_cancelled")
        if cancelled:
            spans.dropped.add("cancelled", who)
            spans.not_annotated(task_id, who)
            continue
        spans.annotated(task_id, who)
        for position, result in enumerate(entry["result"]):
            at = f"{column}.result[{position}]"
            if result["type"].lower() == "relation":
                relations += 1
                spans.dropped.add("relation (not measured)", who)
            if result.get("from_name") != chosen:
                continue
            if result["type"].lower() != TEXT_SPANS:
                raise where(_why_not(chosen, result["type"].lower()), row, at)
            _add_region(spans, task_id, who, result.get("value"), where, row, f"{at}.value")
    if relations:
        spans.notes.append(f"Label Studio: {relations} relation(s) between spans not read: "
                           "span agreement measures the spans, not the relations.")
    return spans.table(_universe(universe, config, chosen))


def _universe(universe, config, chosen):
    """The declared labels, else the config's labels of the control (None when the config
    does not list them: the labels used)."""
    if universe is None and config is not None:
        return config.controls[chosen][2]
    return universe


def _min_regions(value) -> str | None:
    """The region type of a JSON-min value that is a region list, else None."""
    if not (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)):
        return None
    kinds = {k for v in value for k in v if _region_kind(k)}
    if not kinds or not all("start" in v or "x" in v or "startOffset" in v for v in value):
        return None
    return TEXT_SPANS if kinds == {TEXT_SPANS} else sorted(kinds - {TEXT_SPANS})[0]


def _read_min(records, where, universe, config, control):
    _one_project([(row, "project", record.get("project")) for row, record in records], where,
                 "; if 'project' is a field of your tasks' data, read the JSON export")
    for row, record in records:
        if record.get("id") in (None, ""):
            raise where("a JSON-min record without 'id' (is this a Label Studio export?)",
                        row, "id")
        if "annotator" not in record or record["annotator"] == "":
            raise where("a JSON-min record without 'annotator' (is this a Label Studio "
                        "export?)", row, "annotator")
        record["id"] = scalar_id(record["id"], where, row, "id")
    found, present = {}, set()
    for _, record in records:
        for key, value in record.items():
            if key in MIN_META:
                continue
            present.add(key)
            kind = _min_regions(value)
            if kind is not None:
                found.setdefault(key, kind)
    chosen = _choose(found, control, config, present, where)
    to_name = config.controls[chosen][1] if config else None
    fields = {k for _, r in records for k, v in r.items()
              if isinstance(v, str) and k not in MIN_META and k not in found}
    field = _text_field(to_name, config, fields, where)
    spans = SpanCollector(where, "label-studio")
    for task_id, who, row, record in min_annotations(records, chosen, spans.dropped, where):
        if not isinstance(record.get(field), str):
            raise where(f"task {task_id!r} has no text in {field!r} (the text its spans are "
                        "offsets into)", row, field)
        _not_a_url(task_id, record[field], where, row, field)
        spans.document(task_id, record[field], row, field)
        if record.get("was_cancelled") is True:  # JSON-min omits them; a hand-made file may not
            spans.dropped.add("cancelled", who)
            spans.not_annotated(task_id, who)
            continue
        spans.annotated(task_id, who)
        value = record.get(chosen)
        if value in (None, "", []):
            continue
        if not isinstance(value, list):
            raise where(f"the regions of {chosen!r} must be a list, got {value!r}", row,
                        chosen)
        for number, region in enumerate(value):
            _add_region(spans, task_id, who, region, where, row, f"{chosen}[{number}]")
    return spans.table(_universe(universe, config, chosen))


def read(path, *, control=None, labels=None):
    """The span table of a Label Studio span export (see the module docstring).

    Parameters
    ----------
    path : str or path-like
        A JSON, JSON-min, CSV or TSV export of a project with a ``<Labels>`` control on a
        ``<Text>`` object.
    control : str, optional
        The Labels control to read (its ``name``, the results' ``from_name``), needed when
        the export holds several.
    labels : str, path-like or sequence, optional
        The label universe: the project's labeling config (XML; its ``<Label>`` values), a
        file of one label per line, or a list. Default: the labels of the spans.

    Returns
    -------
    xarray.Dataset
        The span table (:func:`xr_agreement.from_spans`): documents are task ids, annotators
        the users, offsets characters of ``text``; attrs ``reader`` ("label-studio"),
        ``dropped`` (what was not read, per reason and annotator) and, when needed,
        ``notes``.

    Raises
    ------
    AnnotationFileError
        A file that is not such an export, or a span that cannot be read as it says (offsets
        outside the text or not matching the region's text, a label that is not text, a
        region type that is not a text span), naming the file, the task row and the field.

    Examples
    --------
    >>> import json, os, tempfile
    >>> task = {"id": 7, "data": {"text": "Ada met Bob."}, "annotations": [
    ...     {"completed_by": 1, "was_cancelled": False, "result": [
    ...         {"from_name": "label", "to_name": "text", "type": "labels",
    ...          "value": {"start": 0, "end": 3, "text": "Ada", "labels": ["PER"]}}]},
    ...     {"completed_by": 2, "was_cancelled": True, "result": []}]}
    >>> path = os.path.join(tempfile.mkdtemp(), "export.json")
    >>> with open(path, "w") as f:
    ...     json.dump([task], f)
    >>> table = read(path)
    >>> table.start.values.tolist(), table.end.values.tolist(), table.label.values.tolist()
    ([0], [3], ['PER'])
    >>> json.loads(table.attrs["dropped"])
    {'cancelled': {'2': 1}}
    """
    where = Where(path)
    if not os.path.exists(path):
        raise AnnotationFileError("file not found", path=path)
    if is_collection(path):
        raise where("a Label Studio export is one file (JSON, JSON-min, CSV or TSV), not a "
                    "folder or a zip")
    universe, config = _declared(labels)
    records, full = export_records(path, where)
    if full:
        return _read_full(records, where, universe, config, control)
    return _read_min(records, where, universe, config, control)


def looks_like(records) -> bool:
    """Whether parsed JSON records (dicts, or ``(row, dict)`` pairs) are a Label Studio span
    export: tasks whose annotations hold ``labels`` regions with offsets, or JSON-min
    records (``annotator``, ``id``) holding a list of ``{start, end, labels}`` regions.

    Examples
    --------
    >>> looks_like([{"id": 1, "annotator": 2, "text": "Ada",
    ...              "label": [{"start": 0, "end": 3, "text": "Ada", "labels": ["PER"]}]}])
    True
    >>> looks_like([{"id": 1, "annotator": 2, "text": "Ada", "topic": "sports"}])
    False
    """
    for record in list(records)[:1000]:
        if isinstance(record, tuple) and len(record) == 2:
            record = record[1]
        if not isinstance(record, dict):
            return False
        annotations = record.get("annotations")
        if isinstance(annotations, list):
            for entry in annotations:
                for result in (entry.get("result") or []) if isinstance(entry, dict) else []:
                    if isinstance(result, dict) and str(result.get("type")).lower() == \
                            TEXT_SPANS and isinstance(result.get("value"), dict) and \
                            "start" in result["value"]:
                        return True
        elif "annotator" in record and "id" in record:
            if any(_min_regions(v) == TEXT_SPANS for k, v in record.items()
                   if k not in MIN_META):
                return True
    return False
