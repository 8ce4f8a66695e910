"""Issue 28, Label Studio: exports as Label Studio's server and converter write them.

Shapes from Label Studio's documentation (https://labelstud.io/guide/task_format,
https://labelstud.io/guide/export) and from the export code: the server's task export
(``data_export/serializers.py``: ``completed_by`` an id or ``{"id", "email", "first_name",
"last_name"}``, ``project`` on tasks and annotations, ``drafts`` serialized by
``AnnotationDraftSerializer``: ``user``, ``created_username`` "first last email, id") and
label-studio-sdk's converter (``converter.py``: ``annotation_result_from_task`` yields a task
with no annotation as a record whose ``completed_by`` is ``{}``; ``convert_to_json_min`` writes
``annotator`` with ``get_annotator(item, int_id=True)``, so such a record has ``"annotator":
null`` and no control key; ``exports/csv2.py`` writes the same records as CSV / TSV rows,
columns sorted, a single choice as text and several as ``{"choices": [...]}`` JSON text;
``convert_to_conll2003`` writes ``-DOCSTART- -X- O`` then ``token -X- _ TAG`` lines).
Every expected value is counted by hand from the fixture written beside it.
"""

from __future__ import annotations

import json

import pytest

from xr_agreement import read_annotations
from xr_agreement.cli import main
from xr_agreement.io.files import AnnotationFileError


def choice(name, *labels):
    return {"from_name": name, "to_name": "text", "type": "choices",
            "value": {"choices": list(labels)}}


def task(task_id, *annotations, project=None, **extra):
    out = {"id": task_id, "data": {"text": f"task {task_id}"}, "annotations": list(annotations),
           "predictions": [], **extra}
    if project is not None:
        out["project"] = project
        for entry in out["annotations"]:
            entry["project"] = project
    return out


def annotation(who, *labels, stamp="2024-03-01T10:00:00Z", control="topic"):
    return {"completed_by": who, "result": [choice(control, *labels)] if labels else [],
            "was_cancelled": False, "created_at": stamp, "updated_at": stamp}


def write(tmp_path, content, name="export.json"):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def refused(path, capsys, match, **keywords):
    """The reader's error, and the command line's: exit 2, one line naming the file."""
    with pytest.raises(AnnotationFileError, match=match):
        read_annotations(path, **keywords)
    capsys.readouterr()
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err, err


def decisions(da, item, who):
    return {label: da.sel(item=item, annotator=who, label=label).item()
            for label in da["label"].values.tolist()}


# ----------------------------------------------------------------------------------------
# 1. one user is one annotator, however completed_by spells them
# ----------------------------------------------------------------------------------------

BEA = {"id": 3, "first_name": "Bea", "last_name": "Lind", "email": "bea@example.org"}


def test_an_int_id_and_the_user_object_of_that_id_are_one_annotator(tmp_path):
    path = write(tmp_path, [
        task(1, annotation(3, "news"), annotation(5, "news")),
        task(2, annotation(BEA, "sport"), annotation(5, "news")),
    ])
    da = read_annotations(path, layout="sets")  # one choice each: label sets by name
    # two users (3 = bea, 5), not three; bea's name is her email
    assert da["annotator"].values.tolist() == ["bea@example.org", "5"]
    assert decisions(da, 1, "bea@example.org") == {"news": 1.0, "sport": 0.0}
    assert decisions(da, 2, "bea@example.org") == {"news": 0.0, "sport": 1.0}


def test_two_annotations_of_one_user_under_both_spellings_are_one_superseded(tmp_path):
    path = write(tmp_path, [task(1, annotation(3, "news", stamp="2024-03-01T10:00:00Z"),
                                 annotation(BEA, "sport", stamp="2024-03-01T11:00:00Z"),
                                 annotation(5, "news"))])
    da = read_annotations(path, layout="sets")  # one choice each: label sets by name
    assert json.loads(da.attrs["dropped"]) == {"superseded": {"bea@example.org": 1}}
    assert decisions(da, 1, "bea@example.org") == {"news": 0.0, "sport": 1.0}


def test_two_users_never_merge_and_what_cannot_be_told_apart_is_refused(tmp_path, capsys):
    other = dict(BEA, id=4)  # another user given bea's email
    path = write(tmp_path, [task(1, annotation(BEA, "news"), annotation(other, "sport"))])
    refused(path, capsys, r"row 1, column 'annotations\[1\]\.completed_by': the email "
            r"'bea@example.org' is given to the user ids \['3', '4'\]")
    renamed = dict(BEA, email="bea@other.org")  # one id, two emails
    path = write(tmp_path, [task(1, annotation(BEA, "news"), annotation(5, "news")),
                            task(2, annotation(renamed, "news"), annotation(5, "news"))])
    refused(path, capsys, r"row 2, .*user id 3 is given the emails \['bea@example.org', "
            r"'bea@other.org'\]")
    # user 7's email is "5": user 5 (no email) and user 7 would both be named "5"
    path = write(tmp_path, [task(1, annotation({"id": 7, "email": "5@x"}, "news"),
                                 annotation(5, "news"), annotation("5@x", "sport"))])
    da = read_annotations(path)  # "5@x" is user 7's email: one user, superseded
    assert da["annotator"].values.tolist() == ["5@x", "5"]
    path = write(tmp_path, [task(1, annotation({"id": 7, "email": "5"}, "news"),
                                 annotation(5, "news"))])
    refused(path, capsys, r"two users are both named '5'")


def test_json_min_user_objects_and_ids_are_one_annotator(tmp_path):
    records = [{"id": 1, "annotator": 3, "annotation_id": 1, "topic": "news"},
               {"id": 1, "annotator": 5, "annotation_id": 2, "topic": "news"},
               {"id": 2, "annotator": BEA, "annotation_id": 3, "topic": "sport"},
               {"id": 2, "annotator": 5, "annotation_id": 4, "topic": "news"}]
    da = read_annotations(write(tmp_path, records), control="topic")
    assert da["annotator"].values.tolist() == ["bea@example.org", "5"]


# ----------------------------------------------------------------------------------------
# 2. two projects' exports concatenated
# ----------------------------------------------------------------------------------------


def test_two_projects_concatenated_are_refused_naming_them(tmp_path, capsys):
    # project 12 labels topics, project 13 tone; task ids 1 and 2 occur in both
    first = [task(1, annotation(1, "news"), annotation(2, "news"), project=12),
             task(2, annotation(1, "sport"), annotation(2, "news"), project=12)]
    second = [task(1, annotation(1, "calm"), annotation(2, "calm"), project=13),
              task(2, annotation(1, "angry"), annotation(2, "calm"), project=13)]
    path = write(tmp_path, first + second)
    refused(path, capsys, r"row 3, column 'project': the file holds tasks of several Label "
            r"Studio projects \(12, 13\)")
    # the annotations may carry the project where the task does not
    second = [dict(t, project=None) for t in second]
    refused(write(tmp_path, first + second), capsys,
            r"row 3, column 'annotations\[0\]\.project': .*several Label Studio projects "
            r"\(12, 13\)")
    records = [{"id": 1, "annotator": 1, "annotation_id": 1, "topic": "news", "project": 12},
               {"id": 1, "annotator": 1, "annotation_id": 2, "topic": "calm", "project": 13}]
    refused(write(tmp_path, records), capsys, r"row 2, column 'project': .*several Label "
            r"Studio projects \(12, 13\).*if 'project' is a field of your tasks' data, read "
            r"the JSON export", control="topic")
    # one project: read as before
    da = read_annotations(write(tmp_path, first), layout="sets")  # one choice each: label sets by name
    assert decisions(da, 2, "1") == {"news": 0.0, "sport": 1.0}


# ----------------------------------------------------------------------------------------
# 3. "all tasks" exports: a task nobody annotated
# 6. drafts: never read, counted
# ----------------------------------------------------------------------------------------


def min_record(task_id, who, annotation_id, topic=None):
    record = {"text": f"task {task_id}", "id": task_id, "annotator": who,
              "annotation_id": annotation_id, "created_at": "2024-03-01T10:00:00Z",
              "updated_at": "2024-03-01T10:00:00Z", "lead_time": 4.2}
    if topic is not None:
        record["topic"] = topic
    return record


# convert_to_json_min of a task with no annotation (get_data(task, {}, {})): every
# annotation field null, no control key
UNANNOTATED = {"text": "task 3", "id": 3, "annotator": None, "annotation_id": None,
               "created_at": None, "updated_at": None, "lead_time": None}


def test_json_min_all_tasks_counts_the_unannotated_tasks(tmp_path, capsys):
    records = [min_record(1, 1, 11, "news"), min_record(1, 2, 12, {"choices": ["news",
                                                                            "sport"]}),
               min_record(2, 1, 13, "sport"), min_record(2, 2, 14, "sport"),
               UNANNOTATED, dict(UNANNOTATED, id=4, text="task 4")]
    path = write(tmp_path, records)
    da = read_annotations(path)
    # tasks 3 and 4 carry no decision: no item, counted
    assert da["item"].values.tolist() == [1, 2]
    assert json.loads(da.attrs["dropped"]) == {"unannotated task": {"nobody": 2}}
    assert decisions(da, 1, "2") == {"news": 1.0, "sport": 1.0}
    capsys.readouterr()
    assert main(["report", str(path)]) == 0
    assert "unannotated task 2 (nobody: 2)" in " ".join(capsys.readouterr().out.split())
    # a null annotator beside an annotation is no unannotated task
    records[4] = dict(UNANNOTATED, annotation_id=15)
    refused(write(tmp_path, records), capsys, r"row 5, column 'annotator': an annotation "
            r"without annotator")
    records[4] = dict(UNANNOTATED, topic="news")
    refused(write(tmp_path, records), capsys, r"row 5, column 'annotator': an annotation "
            r"without annotator")


def test_json_all_tasks_and_drafts_are_counted(tmp_path, capsys):
    drafts = [  # AnnotationDraftSerializer: user, created_username "first last email, id"
        {"id": 71, "user": 3, "created_username": "Bea Lind bea@example.org, 3",
         "created_ago": "2 hours", "result": [choice("topic", "sport")], "lead_time": 3.1,
         "was_postponed": False, "task": 2, "annotation": None,
         "created_at": "2024-03-01T09:00:00Z", "updated_at": "2024-03-01T09:00:00Z"},
        {"id": 72, "user": 5, "result": [choice("topic", "news")], "task": 2,
         "annotation": None}]
    path = write(tmp_path, [
        task(1, annotation(BEA, "news"), annotation(5, "news")),
        task(2, annotation(3, "sport"), annotation(5, "sport"), drafts=drafts),
        task(3),  # nobody annotated it
    ])
    da = read_annotations(path, layout="sets")  # one choice each: label sets by name
    assert da["annotator"].values.tolist() == ["bea@example.org", "5"]
    assert da["item"].values.tolist() == [1, 2]
    assert json.loads(da.attrs["dropped"]) == {"draft": {"5": 1, "bea@example.org": 1},
                                   "unannotated task": {"nobody": 1}}
    # the drafts changed no decision: task 2 is sport for both
    assert decisions(da, 2, "5") == {"news": 0.0, "sport": 1.0}
    capsys.readouterr()
    assert main(["report", str(path), "--layout", "sets"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the report wraps its lines
    assert "draft 2 (5: 1, bea@example.org: 1)" in out and "unannotated task 1" in out


# ----------------------------------------------------------------------------------------
# 4. the CSV and TSV exports
# 5. the CONLL2003 export
# ----------------------------------------------------------------------------------------


def converter_rows(path, rows, sep):
    """Write ``rows`` the way the converter's exports/csv2.py does: one row per annotation,
    columns sorted, csv.QUOTE_NONNUMERIC, a single choice as text and several as the JSON
    text of {"choices": [...]}, a null as an empty cell."""
    import csv

    keys = {"annotator", "annotation_id", "created_at", "updated_at", "lead_time"}
    for row in rows:
        keys.update(row)
    with open(path, "w", encoding="utf8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=sorted(keys),
                                quoting=csv.QUOTE_NONNUMERIC, delimiter=sep)
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
    return path


def csv_row(task_id, who, annotation_id, topic=None, text="a headline, with a comma"):
    row = {"id": task_id, "text": text, "annotator": who, "annotation_id": annotation_id,
           "created_at": None if who is None else "2024-03-01T10:00:00.000000Z",
           "updated_at": None if who is None else "2024-03-01T10:00:00.000000Z",
           "lead_time": None if who is None else 4.2}
    if topic is not None:  # prettify_result: one choice as text, several as the value
        row["topic"] = topic if isinstance(topic, str) else json.dumps({"choices": topic})
    return row


CSV_ROWS = [csv_row(1, "1", 11, "news"), csv_row(1, "bea@example.org", 12, ["news", "sport"]),
            csv_row(2, "1", 13, "sport"), csv_row(2, "bea@example.org", 14, "sport"),
            csv_row(3, "1", 15), csv_row(3, "bea@example.org", 16, "news"),
            csv_row(4, None, None)]  # a task nobody annotated (get_annotator of {}: None)


@pytest.mark.parametrize("name, sep", [("export.csv", ","), ("export.tsv", "\t")])
def test_label_studio_csv_and_tsv_exports_are_read(tmp_path, capsys, name, sep):
    path = converter_rows(tmp_path / name, CSV_ROWS, sep)
    da = read_annotations(path)
    assert da.attrs["reader"] == "label-studio"
    assert json.loads(da.attrs["dropped"]) == {"unannotated task": {"nobody": 1}}
    assert da["item"].values.tolist() == [1, 2, 3]
    assert da["annotator"].values.tolist() == ["1", "bea@example.org"]
    # counted by hand from CSV_ROWS
    assert decisions(da, 1, "1") == {"news": 1.0, "sport": 0.0}
    assert decisions(da, 1, "bea@example.org") == {"news": 1.0, "sport": 1.0}
    assert decisions(da, 2, "bea@example.org") == {"news": 0.0, "sport": 1.0}
    assert decisions(da, 3, "1") == {"news": 0.0, "sport": 0.0}  # submitted, no choice
    capsys.readouterr()
    assert main(["report", str(path)]) == 0


def test_label_studio_csv_of_single_choices_needs_the_control(tmp_path, capsys):
    # with only single choices no cell says which column is the control's
    rows = [r for r in CSV_ROWS if not str(r.get("topic", "")).startswith("{")]
    path = converter_rows(tmp_path / "export.csv", rows, ",")
    refused(path, capsys, r"cannot tell which field holds the labels; name the control: "
            r"control=NAME \(--control NAME\)")
    da = read_annotations(path, control="topic")
    assert decisions(da, 2, "1") == {"news": 0.0, "sport": 1.0}
    capsys.readouterr()
    assert main(["report", str(path), "--control", "topic"]) == 0


CONLL = ("-DOCSTART- -X- O\nShowers -X- _ O\ncontinued -X- _ O\nin -X- _ O\n"
         "Bahia -X- _ B-Location\n\nA -X- _ O\n")


@pytest.mark.parametrize("name", ["result.conll", "project-3.txt", "export.json"])
def test_label_studio_conll2003_is_refused_saying_which_export_to_use(tmp_path, capsys,
                                                                      name):
    path = write(tmp_path, CONLL, name)
    refused(path, capsys, r"CONLL2003 export: .*no annotator ids.*export the project as "
            r"JSON")
    with pytest.raises(AnnotationFileError, match=r"CONLL2003 export"):
        read_annotations(path, tool="label-studio")
    # without the -DOCSTART- line: the token lines alone
    path = write(tmp_path, CONLL.split("\n", 1)[1], name)
    refused(path, capsys, r"CONLL2003 export")


def test_hostile_shapes_found_by_mutation_are_one_line(tmp_path, capsys):
    # an annotations field that is no list, beside project fields (once a TypeError)
    refused(write(tmp_path, [task(1, annotation(1, "news"), project=12),
                             dict(task(2, project=12), annotations=5)]), capsys,
            r"row 2, column 'annotations': annotations must be a list")


# ----------------------------------------------------------------------------------------
# review of issue 28
# ----------------------------------------------------------------------------------------

def test_label_studio_csv_cell_nested_too_deeply_is_one_line(tmp_path, capsys):
    # the CSV export writes several choices as JSON text; a cell of JSON nested 100,000
    # deep was json.loads' RecursionError, a traceback without the file's name
    deep = "[" * 100_000 + "]" * 100_000
    path = write(tmp_path, "annotation_id,annotator,id,lead_time,topic\n"
                           f"1,1,1,2.0,\"{deep}\"\n"
                           '2,2,1,2.0,"{""choices"": [""sport""]}"\n', "export.csv")
    refused(path, capsys, r"row 1 \(line 2\).*looks like JSON")


def test_task_ids_1_0_and_1_are_one_task(tmp_path):
    # the id rule (scalar_id): a whole number written as a float is that integer, so the
    # two annotators of task 1 are compared on one item (they were two items "1", "1.0")
    path = write(tmp_path, [task(1, annotation(1, "news")), task(1.0, annotation(2, "sport"))])
    da = read_annotations(path, layout="sets")  # one choice each: label sets by name
    assert da["item"].values.tolist() == [1]
    assert decisions(da, 1, "1") == {"news": 1.0, "sport": 0.0}
    assert decisions(da, 1, "2") == {"news": 0.0, "sport": 1.0}
    rows = [{"id": 7, "annotator": 1, "annotation_id": 1, "topic": {"choices": ["news"]}},
            {"id": 7.0, "annotator": 2, "annotation_id": 2, "topic": {"choices": ["sport"]}}]
    da = read_annotations(write(tmp_path, rows, "min.json"))
    assert da["item"].values.tolist() == [7]


def test_an_annotation_without_a_user_is_refused_saying_what_to_do(tmp_path, capsys):
    path = write(tmp_path, [task(1, annotation(1, "a"), annotation(None, "b"))])
    refused(path, capsys, r"row 1.*completed_by is None.*assign it to its annotator")
