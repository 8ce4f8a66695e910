"""Amazon Mechanical Turk batch results CSV (and SageMaker Ground Truth custom templates,
which use the same crowd HTML elements).

Format, from the MTurk Requester documentation ("Downloading batch results": one row per
assignment with ``HITId``, ``AssignmentId``, ``WorkerId``, ``AssignmentStatus``
(``Submitted``, ``Approved``, ``Rejected``), ``Input.<name>`` and ``Answer.<name>``
columns) and the crowd HTML elements reference for ``crowd-classifier-multi-select``
(https://docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-crowd-classifier-multi-select.html:
"The output of this element is an object using the specified name value as a property
name, and a string from the categories as the property's value": ``[{"<name>": {"labels":
["label_a", "label_b"]}}]``, submitted by ``crowd-form`` in ``Answer.taskAnswers``;
``crowd-classifier`` gives ``{"label": "..."}``). Classic HTML checkbox templates give one
``Answer.<label>.on`` column per label, ``true`` when checked and blank otherwise (a browser
submits no value for an unchecked box).

The requester reviews a batch offline in the same file ("Review assignments offline": "enter
an X in the Approve column or a reason to reject the result in the Reject column", then
upload it; https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/ReviewingResultsOutsideoftheRUI.html).

Meaning read here: item ``HITId``, annotator ``WorkerId``; a ``Rejected`` assignment, or one
whose ``Reject`` cell holds a reason, is no decision (dropped "rejected": the requester
refused the work); ``Submitted`` and ``Approved`` are decisions; ``Approve`` and ``Reject``
both marked, ``Reject`` on an ``Approved`` assignment or ``Approve`` on a ``Rejected`` one
(a reversal not yet uploaded) are errors naming the row; the labels come from
``Answer.taskAnswers`` (a JSON cell, parsed, never taken as one label) or from the
``Answer.<label>.on`` columns (whose labels are then the universe, a box nobody ticked
included); several crowd elements in ``taskAnswers`` need ``control=``. The same worker
twice on one HIT is an error (MTurk gives a worker one assignment per HIT).

Single-label tasks: the answer's shape says which element wrote it. ``crowd-classifier``
("Output: ... an object using the specified name value as a property name, and a string
from the categories as the property's value", ``{"<name>": {"label": "..."}}``;
https://docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-crowd-classifier.html)
chooses one category: read as ratings (item, annotator), an empty label no decision
(dropped "no choice"). ``crowd-classifier-multi-select`` (``{"labels": [...]}``) allows
several: label sets.
``Answer.<label>.on`` columns come from ``crowd-checkbox`` and ``crowd-radio-button`` alike
(each writes ``{"<name>": {"<value>": true|false}}``, ``value`` "on" by default;
https://docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-crowd-checkbox.html,
https://docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-crowd-radio-group.html):
ratings when every assignment ticked exactly one, else label sets. The same elements'
answers inside ``Answer.taskAnswers`` are not read (an error says which answers are). A classic HTML radio group
(``<input type="radio" name="sentiment" value="positive">``, of which "only one radio
button in a given group can be selected at the same time",
https://developer.mozilla.org/en-US/docs/Web/HTML/Element/input/radio) or drop-down
(``<select name=...>``) submits one ``name=value`` pair, which the batch results hold in an
``Answer.<name>`` column: such a column (the only ``Answer.`` column, or the one named by
``control=``) is read as ratings, a blank cell no decision (dropped "no choice": a browser
submits nothing for a group left unchecked).
"""

from __future__ import annotations

import json

from ._common import (Annotation, Dropped, Single, Where, blank, build, label_text, line_of,
                      parse_json, read_csv)

STATUSES = ("Submitted", "Approved", "Rejected")
TRUE, FALSE = {"true", "on", "1", "yes"}, {"false", "off", "0", "no", ""}


def read_mturk(path, *, universe=None, control=None, item="item", annotator="annotator",
               label="label", layout="auto", **_):
    """Decisions from an MTurk batch results CSV (see the module docstring)."""
    table = read_csv(path)
    where = Where(path, lines=table.attrs["lines"])  # an Input.<name> text may span lines
    for needed in ("HITId", "WorkerId"):
        if needed not in table.columns:
            raise where(f"no {needed!r} column: not an MTurk batch results file", column=needed)
    checkboxes = [c for c in table.columns if c.startswith("Answer.") and c.endswith(".on")]
    answers = "Answer.taskAnswers" in table.columns
    if not answers and not checkboxes:
        field = _form_field(table, control, where)
        if field is not None:
            return _read_field(table, field, where, universe, item, annotator, label, layout)
        raise where("no Answer.taskAnswers column, no Answer.<label>.on checkbox columns and "
                    "no Answer.<name> form field", column="Answer.taskAnswers")
    if answers and checkboxes:
        raise where("both Answer.taskAnswers and Answer.<label>.on columns: cannot tell which "
                    "holds the labels", column="Answer.taskAnswers")
    # Answer.<value>.on columns say nothing of how many were allowed: crowd-checkbox and
    # crowd-radio-button both write {"<name>": {"on": true}} ("on" their default value)
    dropped, annotations, parsed, shapes, single = Dropped(), [], [], set(), None
    for position, record in enumerate(table.to_dict("records")):
        row, line = position + 1, line_of(table, position)
        who = _worker(record, where, row, line, dropped, annotations)
        if who is None:
            continue
        if answers:
            parsed.append((row, line, record, _task_answers(record["Answer.taskAnswers"],
                                                            where, row, line, shapes)))
        else:
            chosen = []
            for column in checkboxes:
                word = str(record[column]).strip().lower()
                if word in TRUE:
                    chosen.append(column[len("Answer."):-len(".on")])
                elif word not in FALSE:
                    raise where(f"a checkbox cell must be true or blank, got {word!r}", row,
                                column, line)
            annotations.append(Annotation(record["HITId"].strip(), who, chosen, row=row,
                                          line=line, column="Answer"))
    if answers:
        names = list(dict.fromkeys(n for *_, found in parsed for n in found))
        if control is not None and control not in names:
            raise where(f"no crowd element named {control!r} in Answer.taskAnswers; found "
                        f"{names}", column="Answer.taskAnswers")
        if control is None and len(names) > 1:
            raise where(f"Answer.taskAnswers holds several elements: {names}; choose one with "
                        "control=NAME (command line: --control NAME)",
                        column="Answer.taskAnswers")
        if not names and parsed:  # (every row rejected: the builder says so)
            raise where("Answer.taskAnswers holds no crowd-classifier answer ({\"<name>\": "
                        "{\"label\": ...}} or {\"labels\": [...]}); other elements "
                        "(crowd-radio-button and crowd-checkbox, {\"<name>\": {\"<value>\": "
                        "true}}, free text) are not read", column="Answer.taskAnswers")
        name = control or (names[0] if names else None)
        for row, line, record, found in parsed:
            if name not in found:  # crowd-form submits every element, a choice or none
                raise where(f"Answer.taskAnswers has no labels of the crowd element "
                            f"{name!r} (it has {list(found) or 'no labels'})", row,
                            "Answer.taskAnswers", line)
            chosen = found[name]
            annotations.append(Annotation(record["HITId"].strip(), record["WorkerId"].strip(),
                                          chosen, row=row, line=line,
                                          column="Answer.taskAnswers"))
    if answers and name is not None:
        kinds = {kind for element, kind in shapes if element == name}
        if "labels" in kinds:
            single = Single(False, f"the crowd element {name!r} answers {{\"labels\": "
                                   "[...]}} (crowd-classifier-multi-select: several labels)")
        elif kinds:
            single = Single(True, f"the crowd element {name!r} answers {{\"label\": ...}} "
                                  "(crowd-classifier: one category)")
    if checkboxes and universe is None:  # one column per label: the export declares them all
        universe = [c[len("Answer."):-len(".on")] for c in checkboxes]
    elif checkboxes:
        outside = [c for c in checkboxes if c[len("Answer."):-len(".on")] not in universe]
        if outside:
            raise where(f"checkbox column {outside[0]!r} is not a label of the declared "
                        "universe", column=outside[0])
    return build(annotations, reader="mturk", dropped=dropped, where=where, universe=universe,
                 item=item, annotator=annotator, label=label, sep_option="",
                 duplicate_hint=" (MTurk gives a worker one assignment per HIT)",
                 layout=layout, single=single)


def _form_field(table, control, where) -> str | None:
    """The ``Answer.<name>`` column of a classic HTML form's one field (a radio group or a
    drop-down): the only one, or the one ``control=`` names; None when there is none."""
    fields = [c[len("Answer."):] for c in table.columns if c.startswith("Answer.")]
    if control is not None:
        if control not in fields:
            raise where(f"no form field Answer.{control}; found "
                        f"{['Answer.' + f for f in fields]}", column=f"Answer.{control}")
        return control
    if len(fields) > 1:
        raise where(f"several form fields {['Answer.' + f for f in fields]}: choose the one "
                    "that holds the category with control=NAME (command line: --control "
                    "NAME)", column=f"Answer.{fields[0]}")
    return fields[0] if fields else None


def _read_field(table, field, where, universe, item, annotator, label, layout):
    """One category per assignment from the form field ``Answer.<field>`` (module
    docstring): ratings; label sets of one label with ``layout='sets'``."""
    column = f"Answer.{field}"
    dropped, annotations = Dropped(), []
    for position, record in enumerate(table.to_dict("records")):
        row, line = position + 1, line_of(table, position)
        who = _worker(record, where, row, line, dropped, annotations)
        if who is None:
            continue
        value = record[column]
        chosen = [] if blank(value) else [label_text(value, where, row, column)]
        annotations.append(Annotation(record["HITId"].strip(), who, chosen, row=row, line=line,
                                      column=column))
    # the export does not show the field's kind: a text box would be read so too
    single = Single(True, f"the form field {column} holds one value per assignment, read as "
                          "its category (as an HTML radio group or drop-down submits one; "
                          "the export does not show that the field was one)")
    return build(annotations, reader="mturk", dropped=dropped, where=where, universe=universe,
                 item=item, annotator=annotator, label=label, sep_option="",
                 duplicate_hint=" (MTurk gives a worker one assignment per HIT)",
                 layout=layout, single=single)


def _worker(record, where, row, line, dropped, annotations) -> str | None:
    """The worker of an assignment row, or None for a rejected one (then recorded as no
    decision, dropped "rejected"); blank ids and unknown statuses are errors."""
    for column in ("HITId", "WorkerId"):
        if blank(record[column]):
            raise where(f"empty {column}", row, column, line)
    who = record["WorkerId"].strip()
    status = record.get("AssignmentStatus", "Submitted").strip()
    if status not in STATUSES:
        raise where(f"AssignmentStatus must be one of {list(STATUSES)}, got {status!r}",
                    row, "AssignmentStatus", line)
    if _rejected(record, status, where, row, line):
        dropped.add("rejected", who)
        annotations.append(Annotation(record["HITId"].strip(), who, None, row=row, line=line))
        return None
    return who


def _rejected(record, status, where, row, line) -> bool:
    """Whether the assignment is rejected: by MTurk (``AssignmentStatus`` ``Rejected``) or
    by the requester reviewing offline, who writes a reason in the ``Reject`` column (an
    ``x`` in ``Approve`` approves); marks that contradict each other or the status are
    refused, since either reading could be the wrong one."""
    approve = str(record.get("Approve", "")).strip()
    reject = str(record.get("Reject", "")).strip()
    if approve and reject:
        raise where(f"both Approve ({approve[:30]!r}) and Reject ({reject[:30]!r}) are "
                    "marked: clear the one that does not hold", row, "Reject", line)
    if reject and status == "Approved":
        raise where(f"Reject is marked ({reject[:30]!r}) on an Approved assignment, which "
                    "MTurk cannot reject: clear the Reject cell", row, "Reject", line)
    if approve and status == "Rejected":
        raise where("Approve is marked on a Rejected assignment (a reversal not yet "
                    "uploaded): upload the file to MTurk and download the results again, or "
                    "clear the Approve cell", row, "Approve", line)
    return status == "Rejected" or bool(reject)


def _task_answers(cell, where, row, line, shapes) -> dict[str, list[str]]:
    """Element name -> labels from one ``Answer.taskAnswers`` cell; (element name, "label"
    or "labels") added to ``shapes`` for each answer, the shape telling the element."""
    column = "Answer.taskAnswers"
    try:
        value = parse_json(cell)  # NaN and nesting too deep: a JSONDecodeError
    except (json.JSONDecodeError, TypeError):
        raise where(f"Answer.taskAnswers is not valid JSON: {str(cell)[:60]!r}", row, column,
                    line) from None
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise where("Answer.taskAnswers must be a list of objects", row, column, line)
    out = {}
    for entry in value:
        for name, answer in entry.items():
            if isinstance(answer, dict) and "labels" in answer:
                labels = answer["labels"]
                if not isinstance(labels, list):  # never read as "chose no label"
                    raise where(f"element {name!r}: labels must be a list, got "
                                f"{labels!r}", row, column, line)
                shapes.add((name, "labels"))
            elif isinstance(answer, dict) and "label" in answer:
                labels = [] if blank(answer["label"]) else [answer["label"]]
                shapes.add((name, "label"))
            else:
                continue  # another element of the form (free text, a rating): not labels
            out[name] = list(dict.fromkeys(label_text(v, where, row, column) for v in labels))
    return out
