"""doccano exports: JSONL with a ``label`` list, or CSV with ``#``-joined labels; one file per
project member (the export zip of a project without collaborative annotation).

Format, from doccano's documentation (https://doccano.github.io/doccano/tutorial/#export-data)
and its export code (github.com/doccano/doccano, ``backend/data_export``):

- ``celery_tasks.py`` (``create_individual_dataset``) writes one file per project member,
  named ``<username>.<ext>`` (the admin is a member too), and ``all.jsonl`` when annotation is
  collaborative; ``pipeline/writers.py`` zips them under their base names.
- ``pipeline/dataset.py`` (``filter_examples``): with "export approved only" a member's file
  lists the examples that member confirmed (``states__confirmed_by=user``); without it, every
  example of the project, with an empty label list where the member did nothing.
- ``pipeline/formatters.py``: a CSV cell is ``"#".join(sorted(labels))``, nothing escaped;
  spans are sorted ``(start_offset, end_offset, label)`` tuples. Text classification JSONL
  records are ``{"id": 1, "text": "...", "label": ["positive", "news"]}``; sequence labelling
  ones hold ``"label": [[start, end, "PER"], ...]``; the CSV has columns ``id``, ``text``,
  ``label``.

Meaning read here: the annotator is the file's name without extension; the item is the
record's ``id``; a record's labels are its choices (for spans, the set of span labels used;
a nested list that is not a span with two integer offsets is refused); an empty ``label``
list is an annotation with no label chosen. A record without a ``label`` field is no
decision, dropped "no label field"; the number of empty ``label`` lists per user is
``attrs["empty_label_lists"]`` (JSON text of annotator -> count). An empty member file (what
"export approved only" writes for a member who confirmed nothing) is left out and named in
``attrs["notes"]`` (JSON text of a list of sentences). A full export
(two or more members listing the same examples, some lists empty) cannot tell an example never
opened from one given no label: refused unless ``empty_list`` says which ("missing" or
"no-label"); with it, a member whose every list is empty is not an annotator. A CSV cell with
an empty part between separators (a label holding ``#``) is refused, or split by the declared
labels the one way it can be; a JSONL ``label`` written as one string follows the CSV rule.
``all.jsonl`` (collaborative mode) has no annotator and is
refused. ``unknown.jsonl`` beside users' files, holding only examples with no label, is
doccano's placeholder for the examples nobody labelled (doccano 1.5): no annotator, not read.
Zip members are read under :mod:`.archive`'s bounds and name rules.

Single-label projects: the export does not say whether the project allowed one label per
example (doccano's "single class" setting is not exported), so the examples are read as
ratings (item, annotator) when every annotation holds exactly one label; an empty list
(with ``empty_list="no-label"``) or several labels anywhere keep label sets.
"""

from __future__ import annotations

import os

import numpy as np

from ..._core.attrs import from_json_attr, json_attr
from ._common import (Annotation, Dropped, Single, Where, blank, build, cell_labels, is_collection,
                      label_text, line_of, load_json_records, member_files, read_csv,
                      read_text, scalar_id)

EXTENSIONS = (".jsonl", ".json", ".csv")


SPANS_REFUSED = ("holds spans (sequence labelling): read as label sets, two annotators who "
                 "marked different words with the same type would agree. Read it with "
                 "xr_agreement.read_spans (or xr-agreement report, which reads span exports "
                 "as spans); to measure agreement on the set of span labels per example, ask "
                 "for it by name: spans_as_label_sets=True")


def _span_or_label(value, where, row, column, spans_as_label_sets=False):
    """The label of one entry of a JSONL ``label`` list: a label, a span ``[start, end,
    label]`` (two integer offsets, doccano's TupledSpanFormatter) or a span object with a
    ``label``; any other nested list is refused, never cut to its last element. A span is
    refused unless ``spans_as_label_sets`` asks for the set of span labels."""
    if isinstance(value, list):
        offsets = value[:2]
        if len(value) == 3 and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                   for v in offsets):
            if not spans_as_label_sets:
                raise where(f"the export {SPANS_REFUSED}", row, column)
            return label_text(value[2], where, row, column)
        raise where(f"the entry {value!r} is a nested list but not a span [start, end, label] "
                    "with two integer offsets; a text classification label list holds "
                    "labels, a sequence labelling one spans", row, column)
    if isinstance(value, dict) and "label" in value:
        if not spans_as_label_sets and ("start_offset" in value or "start" in value):
            raise where(f"the export {SPANS_REFUSED}", row, column)
        return label_text(value["label"], where, row, column)
    return label_text(value, where, row, column)


def _split_cell(cell, sep, universe, where, row, column):
    """The labels of a doccano CSV cell. doccano writes ``sep.join(sorted(labels))`` with no
    escaping (JoinedCategoryFormatter), so a label holding the separator cannot be told from
    two labels: with a declared universe the cell is split the one way its parts make declared
    labels; without one, an empty part (``C#``, ``C##Java``: a label begins or ends with the
    separator) is refused, never cut."""
    if not isinstance(cell, str) or not cell.strip() or cell.strip()[:1] in "[{":
        return cell_labels(cell, sep, where, row, column)
    parts = cell.strip().split(sep)
    if universe is not None:
        declared = set(universe)
        ways = _partitions(parts, sep, declared)
        if len(ways) == 1:
            return list(ways[0])
        if not ways and not any(sep in label for label in declared):
            return cell_labels(cell, sep, where, row, column)  # says which label is unknown
        raise where(f"the cell {cell.strip()[:60]!r} splits at {sep!r} into the declared labels "
                    f"{'in several ways' if ways else 'in no way'}; doccano's CSV joins labels "
                    f"with {sep!r} without escaping: export JSONL (its labels are a list)",
                    row, column)
    if any(not part.strip() for part in parts):
        raise where(f"the cell {cell.strip()[:60]!r} has an empty part between {sep!r}: a "
                    f"label holds {sep!r}, the separator doccano's CSV joins labels with, and "
                    "the labels cannot be told apart; export JSONL (its labels are a list) or "
                    "declare the labels (labels=..., --labels FILE)", row, column)
    return cell_labels(cell, sep, where, row, column)


def _partitions(parts, sep, declared, limit=2) -> list[tuple]:
    """Up to ``limit`` ways to rejoin consecutive ``parts`` with ``sep`` into declared
    labels (two are enough to know the cell is ambiguous)."""
    ways = {len(parts): [()]}
    for start in range(len(parts) - 1, -1, -1):
        found = []
        for end in range(start + 1, len(parts) + 1):
            label = sep.join(parts[start:end]).strip()
            if label in declared:
                found += [(label, *rest) for rest in ways[end]]
            if len(found) >= limit:
                break
        ways[start] = found[:limit]
    return ways[0]


def _jsonl(name, text, who, path, sep, universe=None, spans_as_label_sets=False):
    where = Where(path, kind="line")
    records, kind = load_json_records(path, text)
    out = []
    for line, record in records:
        if record.get("id") in (None, ""):
            raise where("a record without id", line, "id")
        item_id = scalar_id(record["id"], where, line, "id")  # 1.0 is the example 1
        key = "label" if "label" in record else "labels" if "labels" in record else None
        if key is None and isinstance(record.get("entities"), list) and record["entities"] \
                and not spans_as_label_sets:
            raise where(f"the export {SPANS_REFUSED}", line, "entities")
        if key is None and spans_as_label_sets and isinstance(record.get("entities"), list):
            key = "entities"
        if key is None:  # no decision recorded for this example: dropped "no label field"
            out.append(Annotation(item_id, who, None, line=line,
                                  row=line if kind == "array" else None))
            continue
        value = record[key]
        if isinstance(value, str):  # labels joined as in the CSV: never cut at a separator
            chosen = _split_cell(value, sep, universe, where, line, key)
        elif isinstance(value, list):
            chosen = [_span_or_label(v, where, line, key, spans_as_label_sets) for v in value]
        else:
            raise where(f"label must be a list, got {value!r}", line, key)
        out.append(Annotation(item_id, who, list(dict.fromkeys(chosen)), line=line,
                              column=key, row=line if kind == "array" else None))
    return out


def _csv(name, text, who, path, sep, universe=None):
    table = read_csv(path, text)
    where = Where(path, lines=table.attrs["lines"])  # a quoted text may span lines
    lower = {c.lower(): c for c in table.columns}
    for needed in ("id", "label"):
        if needed not in lower:
            raise where(f"no {needed!r} column; a doccano CSV export has columns id, text, "
                        f"label; this file has {list(table.columns)}", column=needed)
    out = []
    for position, (item, cell) in enumerate(zip(table[lower["id"]], table[lower["label"]])):
        row = position + 1
        if blank(item):
            raise where("empty id: every row needs an example id", row, lower["id"])
        chosen = _split_cell(cell, sep, universe, where, row, lower["label"])
        out.append(Annotation(item.strip(), who, list(dict.fromkeys(chosen)), row=row,
                              column=lower["label"], line=line_of(table, position)))
    return out


# what an empty ``label`` list means, when the reader is told (empty_list=)
EMPTY_LIST_MEANINGS = ("missing", "no-label")


def _empty_member(name: str, text: str) -> bool:
    """A member file with no record: empty, one newline, ``[]``, or a CSV header alone (what
    "export approved only" writes for a member who confirmed no example)."""
    if len(text) > 4096:  # an empty file, "[]" or a header line is short: no copy of a long one
        return False
    body = text.strip()
    if body in ("", "[]"):
        return True
    return name.lower().endswith(".csv") and len(body.splitlines()) == 1


def _full_export(reads: dict) -> tuple[int, int] | None:
    """(examples, empty lists) when the members' files look like a full export: two or more
    members, every one listing the same examples with a label list, and some list empty
    (doccano's export without "approved only" writes every example of the project into every
    member's file, ``filter_examples`` in backend/data_export/pipeline/dataset.py), else
    None."""
    listed = [{str(a.item).strip() for a in read if a.chosen is not None}
              for read in reads.values()]
    if len(listed) < 2 or any(ids != listed[0] for ids in listed) or not listed[0]:
        return None
    empty = sum(1 for read in reads.values() for a in read if a.chosen == [])
    return (len(listed[0]), empty) if empty else None


def read_members(path, reader, empty_list=None):
    """The annotations of every member file of a doccano export (a zip or folder of per-user
    files, or one user's file), with what an empty ``label`` list means settled (see the
    module docstring): the one place the member rules live, for the classification reader
    and the span reader (:mod:`xr_agreement.io.spans.doccano`).

    ``reader(name, text, who, member)`` turns one member file into :class:`Annotation`
    records whose ``chosen`` is None (no label field), ``[]`` (an empty list) or what the
    record holds. Returns ``(annotations, dropped, empty, notes)``: ``empty`` counts the
    empty lists per user, ``notes`` says what was left out or how empty lists were read.
    """
    if empty_list not in (None, *EMPTY_LIST_MEANINGS):
        raise ValueError(f"empty_list must be one of {list(EMPTY_LIST_MEANINGS)} or None, got "
                         f"{empty_list!r}")
    collection = is_collection(path) or os.fspath(path).lower().endswith(".zip")
    if collection:
        members = member_files(path, EXTENSIONS)
    else:
        members = [(os.path.basename(os.fspath(path)), read_text(path))]
    where = Where(path)
    if not members:
        raise where("no .jsonl, .json or .csv file inside")
    stems = [os.path.splitext(os.path.basename(n))[0] for n, _ in members]
    if stems == ["all"] or (len(stems) > 1 and "all" in stems):
        raise where("all.jsonl merges every user's labels (collaborative annotation): there "
                    "is no annotator to compare; export with collaborative annotation off")
    if len(set(stems)) != len(stems):
        raise where(f"two files for one user: {sorted(stems)}")
    reads, empty_members = {}, []
    for (name, text), who in zip(members, stems):
        if collection and _empty_member(name, text):
            empty_members.append(name)  # a member who confirmed nothing: no annotator
            continue
        member = f"{path}:{name}" if collection else path
        read = reader(name, text, who, member)
        if who == "unknown" and len(stems) > 1 and not any(a.chosen for a in read):
            continue  # doccano's placeholder for examples nobody labelled: no annotator
        reads[who] = read
    if not reads:
        raise where(f"every member's file is empty ({', '.join(empty_members)}): nobody's "
                    "annotations were exported; an \"export approved only\" lists only the "
                    "examples each member confirmed")
    full = _full_export(reads)
    if full is not None and empty_list is None:
        # members whose every list is empty (the admin, in doccano's full export) are named
        # apart: their lists would otherwise make the others' look many
        idle = [who for who, read in reads.items()
                if all(a.chosen == [] for a in read if a.chosen is not None)]
        idle_lists = sum(1 for who in idle for a in reads[who] if a.chosen == [])
        of_idle = (f" ({idle_lists} of them in the files of {', '.join(idle)}, whose every "
                   "list is empty)" if idle else "")
        raise where(
            f"a full export: every member's file lists the same {full[0]} examples and "
            f"{full[1]} label lists are empty{of_idle}, which may be examples never opened "
            "as well as examples given no label; export again with \"export approved only\" ticked, or "
            "say what an empty list means: empty_list='missing' or 'no-label' (--empty-list; "
            "an approved-only export where every member confirmed every example looks the "
            "same, and its empty lists are 'no-label')")
    annotations, dropped, empty, notes = [], Dropped(), {}, []
    if empty_members:
        notes.append(f"doccano: {len(empty_members)} member file(s) empty, members who "
                     f"annotated nothing, left out: {', '.join(empty_members)}.")
    for who, read in reads.items():
        lists = [a for a in read if a.chosen is not None]
        n_empty = sum(1 for a in lists if a.chosen == [])
        if n_empty:
            # an empty label list is "chose no label" (all 0) unless told otherwise, and
            # also what doccano writes for an example the user never opened: counted
            empty[who] = n_empty
        if empty_list is not None and lists and n_empty == len(lists):
            for _ in lists:  # every list empty: not an annotator (a project's admin)
                dropped.add("every label list empty, not an annotator", who)
            continue
        for annotation in read:
            if annotation.chosen is None:
                dropped.add("no label field", who)
            elif annotation.chosen == [] and empty_list == "missing":
                annotation.chosen = None
                dropped.add("empty label list, read as not annotated", who)
        annotations += read
    if empty_list == "no-label":
        kept = {who: n for who, n in empty.items() if who not in dropped.counts.get(
            "every label list empty, not an annotator", {})}
        if kept:
            notes.append(f"doccano: {sum(kept.values())} empty label list(s) read as "
                         "\"looked and chose no label\" (empty_list='no-label'): "
                         + ", ".join(f"{who} {n}" for who, n in sorted(kept.items())) + ".")
    return annotations, dropped, empty, notes


def read_doccano(path, *, universe=None, sep=None, empty_list=None, item="item",
                 annotator="annotator", label="label", spans_as_label_sets=False,
                 layout="auto", **_):
    """Decisions from a doccano export: a zip or directory of per-user files, or one user's
    file (see the module docstring).

    ``empty_list``: what an empty ``label`` list means, "missing" (an example the member
    never annotated: no decision) or "no-label" (the member looked and chose no label).
    Required for a full export (every member lists the same examples, some lists empty),
    where the file cannot tell the two apart; with it, a member whose every list is empty is
    not an annotator. A sequence labelling export (spans) is refused, pointing to
    :func:`xr_agreement.read_spans`, unless ``spans_as_label_sets=True`` asks for the set of
    span labels of each example by name.

    Examples
    --------
    >>> import json, os, tempfile, zipfile
    >>> path = os.path.join(tempfile.mkdtemp(), "export.zip")
    >>> with zipfile.ZipFile(path, "w") as archive:
    ...     archive.writestr("admin.jsonl", "\\n")
    ...     archive.writestr("alice.jsonl", '{"id": 1, "text": "a", "label": ["x"]}\\n')
    ...     archive.writestr("bob.jsonl", '{"id": 1, "text": "a", "label": ["x", "y"]}\\n')
    >>> da = read_doccano(path)
    >>> da.sel(item=1).values
    array([[1., 0.],
           [1., 1.]])
    >>> json.loads(da.attrs["notes"])
    ['doccano: 1 member file(s) empty, members who annotated nothing, left out: admin.jsonl.']
    """
    sep = "#" if sep is None else sep

    def reader(name, text, who, member):
        if name.lower().endswith(".csv"):
            return _csv(name, text, who, member, sep, universe)
        return _jsonl(name, text, who, member, sep, universe, spans_as_label_sets)

    annotations, dropped, empty, notes = read_members(path, reader, empty_list)
    da = build(annotations, reader="doccano", dropped=dropped, where=Where(path),
               universe=universe, item=item, annotator=annotator, label=label,
               sep_in_use=sep, layout=layout,
               single=Single(False, "spans are read as label sets (spans_as_label_sets=True)")
               if spans_as_label_sets else None)
    da.attrs["empty_label_lists"] = json_attr(dict(sorted(empty.items())))
    if notes:  # after the builder's own note, if any
        da.attrs["notes"] = json_attr((from_json_attr(da.attrs.get("notes")) or []) + notes)
    return da
