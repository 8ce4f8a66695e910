"""Prodigy ``db-out`` exports (JSON lines).

Format, from Prodigy's documentation: "Annotation interfaces" (https://prodi.gy/docs/api-interfaces:
"Annotated tasks contain an additional "answer" key mapping to either "accept", "reject" or
"ignore""; the ``choice`` interface: ``"options": [{"id", "text"}]`` and the selected ids in
``"accept"``; the binary ``classification`` interface: one ``"label"`` per task), the
``db-out`` recipe (https://prodi.gy/docs/recipes#db-out) and the multi-annotator
documentation (``_annotator_id`` and ``_session_id``, ``_input_hash`` identifying the input,
https://prodi.gy/docs/task-routing, https://prodi.gy/docs/review).

Meaning read here:

- item: ``_input_hash``; annotator: ``_annotator_id``, else ``_session_id``;
- ``"answer": "ignore"``: the annotator skipped the task: no decision, dropped "ignored";
- choice tasks (with ``options``): ``accept`` -> the ids in ``accept`` are 1 and the task's
  other options 0; labels of the universe that this task did not offer stay undecided (NaN)
  when tasks offer different options; the label universe is the union of the options' ids
  (or the declared one);
- choice tasks answered ``reject``: Prodigy's own conversion of choice annotations for
  training treats the options selected in a rejected task as wrong (negative) answers and
  says nothing about the others, so the selected ids are 0 and the other options undecided
  (NaN); a rejected choice task with nothing selected says nothing about any option: no
  decision, dropped "rejected";
- binary tasks (``label`` + ``answer``, no ``options``): ``accept`` -> that label 1,
  ``reject`` -> that label 0, the other labels undecided for that annotator;
- a file mixing choice and binary tasks, an unknown ``answer``, a missing, blank or
  non-finite ``_input_hash`` or annotator id is an error (``1.0`` is the id ``1``; ``1.5``
  stays ``1.5``); so is the same (input, annotator) twice (the same label twice
  in binary tasks), whatever the answers (an ``ignore`` and an ``accept`` too): Prodigy
  documents no "latest wins" rule;
- single-label projects: the choice interface's ``choice_style`` ("single": one option
  selectable, radio buttons; "multiple": checkboxes; https://prodi.gy/docs/api-interfaces#choice)
  is stated where the tasks carry it, in their ``config`` (``"config": {"choice_style":
  "multiple"}``); choice tasks all saying "single" are read as ratings (item, annotator),
  any saying "multiple" as label sets. Without it (the recipe's config is not saved with
  the answers) they are ratings when every answer is an accept selecting exactly one
  option.
  Read as ratings, an accepted task with nothing selected is no decision (dropped "no
  choice") and so is a rejected one (dropped "rejected": it says which option is wrong,
  not which is right). Binary accept/reject tasks stay label sets.
"""

from __future__ import annotations


from ..cells import LabelTexts
from ._common import (Annotation, Dropped, ScalarIds, Single, Where, blank, build, label_text,
                      load_json_records)

ANSWERS = ("accept", "reject", "ignore")


def read_prodigy(path, *, universe=None, item="item", annotator="annotator", label="label",
                 text=None, layout="auto", **_):
    """Decisions from a Prodigy ``db-out`` JSONL file (see the module docstring)."""
    where = Where(path, kind="line")
    records, kind = load_json_records(path, text)
    annotations, dropped, kinds, options, answered = [], Dropped(), {}, {}, {}
    styles = {}  # choice_style -> first line saying it
    # each label and id checked once per distinct value (cells.LabelTexts, ScalarIds): the
    # per-option check was ~40% of the reading (3.9 -> 2.5 s at 10^5 lines)
    texts, ids = LabelTexts(), ScalarIds()
    for line, task in records:
        if kind == "array":
            raise where("a Prodigy db-out export is JSON lines (one task per line), not one "
                        "JSON array")
        if not _given(task.get("_input_hash"), ids):
            raise where("a task without _input_hash", line, "_input_hash")
        item_id = ids(task["_input_hash"], where, line, "_input_hash")
        who_column = "_annotator_id" if _given(task.get("_annotator_id"), ids) \
            else "_session_id"
        who = task.get(who_column)
        if not _given(who, ids):
            raise where("a task without _annotator_id or _session_id", line, "_annotator_id")
        who = ids(who, where, line, who_column)
        answer = task.get("answer")
        if answer not in ANSWERS:
            raise where(f"answer must be one of {list(ANSWERS)}, got {answer!r}", line,
                        "answer")
        task_kind = "choice" if "options" in task else "binary" if "label" in task else None
        if task_kind is None:
            raise where("a task with neither options (choice) nor label (binary)", line)
        kinds.setdefault(task_kind, line)
        if len(kinds) > 1:
            first = kinds["choice" if task_kind == "binary" else "binary"]
            raise where(f"mixed task types: a {task_kind} task here, a "
                        f"{'choice' if task_kind == 'binary' else 'binary'} task on line "
                        f"{first}; export one recipe's dataset at a time", line)
        if task_kind == "choice":
            if not isinstance(task["options"], list):
                raise where("options must be a list", line, "options")
            try:
                offered = texts.many([option["id"] for option in task["options"]], where,
                                     line, "options")
            except (TypeError, KeyError):  # an option that is no object or has no id
                offered = []
                for option in task["options"]:
                    if not isinstance(option, dict) or "id" not in option:
                        raise where("an option without id", line, "options") from None
                    offered.append(label_text(option["id"], where, line, "options"))
            options.setdefault(tuple(offered))
            config = task.get("config")
            style = config.get("choice_style") if isinstance(config, dict) else None
            if style is not None:
                styles.setdefault(str(style).strip().lower(), line)
        # every answer counts, an ignore too: an ignore and an accept of one input by one
        # annotator are two answers, and Prodigy has no rule for which one stands
        key = (str(item_id), str(who))
        if task_kind == "binary":
            key += (texts(task["label"], where, line, "label"),)
        if key in answered:
            raise where(f"duplicate annotation: item {key[0]!r} by annotator {key[1]!r}"
                        + (f" (label {key[2]!r})" if len(key) > 2 else "")
                        + f" already at line {answered[key]} (Prodigy has no rule for a "
                        "repeated answer)", line)
        answered[key] = line
        if answer == "ignore":
            dropped.add("ignored", who)
            annotations.append(Annotation(item_id, str(who), None, line=line))
            continue
        if task_kind == "binary":
            value = texts(task["label"], where, line, "label")
            chosen, zeros = ([value], []) if answer == "accept" else ([], [value])
            annotations.append(Annotation(item_id, str(who), chosen, zeros,
                                          line=line, column="label", label=value))
            continue
        accepted = task.get("accept", [])
        if not isinstance(accepted, list):
            raise where("accept must be a list of option ids", line, "accept")
        accepted = texts.many(accepted, where, line, "accept")
        unknown = [v for v in accepted if v not in offered]
        if unknown:
            raise where(f"accept holds {unknown}, which are not among this task's options "
                        f"{offered}", line, "accept")
        if answer == "accept":  # 0: this task's other options; labels it did not offer: NaN
            annotations.append(Annotation(item_id, str(who), accepted,
                                          [v for v in offered if v not in accepted], line=line,
                                          column="accept"))
        elif accepted:
            annotations.append(Annotation(item_id, str(who), [], accepted,
                                          line=line, column="accept", empty_reason="rejected"))
        else:
            dropped.add("rejected", who)
            annotations.append(Annotation(item_id, str(who), None, line=line))
    options = list(dict.fromkeys(v for offered in options for v in offered))
    if universe is None and "choice" in kinds:
        universe = options
    elif universe is not None and "choice" in kinds:
        declared = set(universe)
        outside = [v for v in options if v not in declared]
        if outside:
            raise where(f"options {outside} are not in the declared label universe")
    return build(annotations, reader="prodigy", dropped=dropped, where=where,
                 universe=universe, item=item, annotator=annotator, label=label,
                 sep_option="", key_by_label="binary" in kinds,
                 duplicate_hint=" (Prodigy has no rule for a repeated answer)",
                 layout=layout, single=_stated(styles))


def _given(value, ids: ScalarIds) -> bool:
    """Not blank (:func:`blank`): an int, or text already read as an id, without looking."""
    return type(value) is int or (type(value) is str and value in ids) or not blank(value)


def _stated(styles: dict) -> Single | None:
    """What the tasks' ``config.choice_style`` says (None: no task says it)."""
    if "multiple" in styles:
        return Single(False, f"the tasks' config says choice_style 'multiple' (line "
                             f"{styles['multiple']})")
    if styles and set(styles) == {"single"}:
        return Single(True, "the tasks' config says choice_style 'single' (one option "
                            "selectable)")
    return None
