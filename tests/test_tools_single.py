"""Single-label tool exports read as ratings (item, annotator), saying why (issue 31, part 4).

Each fixture is written here from the tool's documented export of a single-choice project;
the expected ratings are written by hand, cell by cell, from the fixture. The multi-choice
counterpart stays label sets, ``layout="sets"`` forces label sets, ``layout="single"`` on an
annotation with several choices is an error naming it.

Sources: Label Studio's ``Choices`` tag (https://labelstud.io/tags/choices: ``choice``
single | single-radio | multiple, default single) and JSON export
(https://labelstud.io/guide/export); Prodigy's choice interface (``choice_style`` "single" /
"multiple", https://prodi.gy/docs/api-interfaces#choice); Argilla's LabelQuestion (one label)
and MultiLabelQuestion (a list); the crowd HTML elements ``crowd-classifier`` (``{"label":
...}``) and ``crowd-classifier-multi-select`` (``{"labels": [...]}``).
"""

from __future__ import annotations

import csv
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from xr_agreement import AnnotationFileError, read_annotations

INFERRED = ("every annotation selects exactly one category; the export does not say whether "
            "several were allowed (layout='sets' reads label sets)")
NAN = None  # an expected cell with no decision


def ratings_of(da) -> dict:
    """{(item, annotator): category or None} over every cell."""
    assert da.dims == ("item", "annotator"), da.dims
    assert da.name == "rating"
    return {(i, a): (None if pd.isna(v) else v)
            for i, row in zip(da["item"].values.tolist(), da.values.tolist())
            for a, v in zip(da["annotator"].values.tolist(), row)}


def check_ratings(da, expected: dict, reader: str, single_label: str, categories: list,
                  dropped: dict):
    assert ratings_of(da) == expected
    assert da.dtype == object  # text ratings, as the table reader's layout="single" gives
    assert da.attrs["reader"] == reader
    assert da.attrs["single_label"] == single_label
    # None: no universe declared, no categories attr (the report would call them declared)
    assert (json.loads(da.attrs["categories"]) if "categories" in da.attrs
            else None) == categories
    assert json.loads(da.attrs["dropped"]) == dropped


# --------------------------------------------------------------------------------------
# Label Studio
# --------------------------------------------------------------------------------------

CONFIG = """<View>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text"{choice}>
    <Choice value="pos"/>
    <Choice value="neg"/>
    <Choice value="neu"/>
  </Choices>
</View>
"""


def ls_annotation(user, *choices, cancelled=False):
    result = [{"from_name": "sentiment", "to_name": "text", "type": "choices",
               "value": {"choices": list(choices)}}] if choices else []
    return {"id": hash((str(user), choices)) % 10**6, "completed_by": user,
            "was_cancelled": cancelled, "result": result,
            "created_at": "2024-05-01T10:00:00Z", "updated_at": "2024-05-01T10:00:00Z"}


def ls_tasks(empty=True):
    """Three tasks, users 1-3: user 3 skipped task 1; user 2 submitted task 2 without a
    choice (``empty``; else chose "neu"); user 2 never saw task 3."""
    return [
        {"id": 1, "data": {"text": "a"}, "annotations": [
            ls_annotation(1, "pos"), ls_annotation(2, "pos"),
            ls_annotation(3, cancelled=True)]},
        {"id": 2, "data": {"text": "b"}, "annotations": [
            ls_annotation(1, "neg"), ls_annotation(2) if empty else ls_annotation(2, "neu"),
            ls_annotation(3, "neu")]},
        {"id": 3, "data": {"text": "c"}, "annotations": [
            ls_annotation(1, "pos"), ls_annotation(3, "neg")]},
    ]


def write_json(path, value):
    path.write_text(json.dumps(value))
    return path


def config(tmp_path, choice):
    path = tmp_path / "config.xml"
    path.write_text(CONFIG.format(choice="" if choice is None else f' choice="{choice}"'))
    return path


LS_EXPECTED = {(1, "1"): "pos", (1, "2"): "pos", (1, "3"): NAN,
               (2, "1"): "neg", (2, "2"): NAN, (2, "3"): "neu",
               (3, "1"): "pos", (3, "2"): NAN, (3, "3"): "neg"}


@pytest.mark.parametrize("choice", [None, "single", "single-radio"])
def test_label_studio_single_choice_config_reads_ratings(tmp_path, choice):
    path = write_json(tmp_path / "export.json", ls_tasks())
    da = read_annotations(path, labels=config(tmp_path, choice))
    shown = "no choice attribute: single" if choice is None else f'choice="{choice}"'
    # user 2's submitted annotation of task 2 chose nothing: no category, no decision
    check_ratings(da, LS_EXPECTED, "label-studio",
                  f'the labeling config\'s <Choices name="sentiment"> allows one choice '
                  f'({shown})', ["pos", "neg", "neu"],
                  {"cancelled": {"3": 1}, "no choice": {"2": 1}})


def test_label_studio_multiple_choice_config_stays_label_sets(tmp_path):
    # every annotation holds one choice, but the config allows several: label sets
    path = write_json(tmp_path / "export.json", ls_tasks(empty=False))
    da = read_annotations(path, labels=config(tmp_path, "multiple"))
    assert da.dims == ("item", "annotator", "label")
    assert "single_label" not in da.attrs
    assert da.sel(item=2, annotator="2").values.tolist() == [0.0, 0.0, 1.0]


def test_label_studio_without_config_infers_from_the_annotations(tmp_path):
    path = write_json(tmp_path / "export.json", ls_tasks(empty=False))
    da = read_annotations(path)
    expected = {**LS_EXPECTED, (2, "2"): "neu"}
    # no universe declared: no categories attr
    check_ratings(da, expected, "label-studio", INFERRED, None,
                  {"cancelled": {"3": 1}})
    # the report does not call the categories used "declared"
    from xr_agreement import single_label_report
    assert single_label_report(da).facts["categories_declared"] is None
    # an annotation with no choice is not one category: label sets, as before
    sets = read_annotations(write_json(tmp_path / "empty.json", ls_tasks()))
    assert sets.dims == ("item", "annotator", "label")
    assert sets.sel(item=2, annotator="2").values.tolist() == [0.0, 0.0, 0.0]


def test_label_studio_json_min_single_choice_is_text(tmp_path):
    # JSON-min writes one choice as text (convert_to_json_min); cancelled ones are left out
    records = [{"id": 1, "annotator": 1, "annotation_id": 11, "sentiment": "pos"},
               {"id": 1, "annotator": 2, "annotation_id": 12, "sentiment": "neg"},
               {"id": 2, "annotator": 1, "annotation_id": 13, "sentiment": "neg"}]
    da = read_annotations(write_json(tmp_path / "min.json", records), control="sentiment")
    check_ratings(da, {(1, "1"): "pos", (1, "2"): "neg", (2, "1"): "neg", (2, "2"): NAN},
                  "label-studio", INFERRED, None, {})


def test_layout_sets_forces_label_sets(tmp_path):
    path = write_json(tmp_path / "export.json", ls_tasks())
    da = read_annotations(path, labels=config(tmp_path, "single"), layout="sets")
    assert da.dims == ("item", "annotator", "label")
    assert da.sel(item=1, annotator="1").values.tolist() == [1.0, 0.0, 0.0]
    assert da.sel(item=2, annotator="2").values.tolist() == [0.0, 0.0, 0.0]  # chose none
    assert "single_label" not in da.attrs


def test_several_choices_are_an_error_naming_item_annotator_and_row(tmp_path):
    tasks = ls_tasks(empty=False)
    tasks[1]["annotations"][2] = ls_annotation(3, "neu", "neg")  # task 2, user 3, row 2
    path = write_json(tmp_path / "export.json", tasks)
    with pytest.raises(AnnotationFileError, match=r"row 2, column 'annotations\[2\]\.result'"
                       r": layout='single' was given, but annotator '3' chose several "
                       r"categories on item 2: 'neu', 'neg'; read label sets with "
                       r"layout='sets'"):
        read_annotations(path, layout="single")
    # the config says one choice, the file holds two: refused, never read as sets silently
    with pytest.raises(AnnotationFileError, match=r"row 2, .*the labeling config's <Choices "
                       r"name=\"sentiment\"> allows one choice \(choice=\"single\"\), but "
                       r"annotator '3' chose several categories on item 2: 'neu', 'neg'"):
        read_annotations(path, labels=config(tmp_path, "single"))
    # without a statement, several choices are label sets
    assert read_annotations(path).dims == ("item", "annotator", "label")


def test_layout_single_on_an_export_with_empty_annotations_reads_them_missing(tmp_path):
    path = write_json(tmp_path / "export.json", ls_tasks())
    da = read_annotations(path, layout="single")
    check_ratings(da, LS_EXPECTED, "label-studio", "layout='single' was given", None,
                  {"cancelled": {"3": 1}, "no choice": {"2": 1}})


def test_declared_universe_checks_every_chosen_category(tmp_path):
    path = write_json(tmp_path / "export.json", ls_tasks(empty=False))
    with pytest.raises(AnnotationFileError, match=r"label 'neu' is not in the declared label "
                       r"universe \(2 labels: pos, neg\)"):
        read_annotations(path, labels=["pos", "neg"])
    da = read_annotations(path, labels=["pos", "neg", "neu", "unused"])
    assert json.loads(da.attrs["categories"]) == ["pos", "neg", "neu", "unused"]
    assert da.attrs["single_label"] == INFERRED


def test_layout_long_is_refused_for_a_tool_export(tmp_path):
    path = write_json(tmp_path / "export.json", ls_tasks())
    for tool in (None, "label-studio"):
        with pytest.raises(AnnotationFileError, match=r"layout='long' is for the generic "
                           "table reader"):
            read_annotations(path, layout="long", tool=tool)


# --------------------------------------------------------------------------------------
# Prodigy
# --------------------------------------------------------------------------------------

OPTIONS = [{"id": "POS", "text": "Positive"}, {"id": "NEG", "text": "Negative"},
           {"id": "NEU", "text": "Neutral"}]


def prodigy_task(item, who, answer, accept, style="single"):
    task = {"text": f"text {item}", "options": OPTIONS, "_input_hash": item,
            "_task_hash": item * 10, "_view_id": "choice", "accept": accept,
            "answer": answer, "_annotator_id": who, "_session_id": who}
    if style is not None:
        task["config"] = {"choice_style": style}
    return task


def write_lines(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def prodigy_rows(style="single"):
    return [prodigy_task(1, "ds-ann", "accept", ["POS"], style),
            prodigy_task(1, "ds-bob", "accept", ["POS"], style),
            prodigy_task(2, "ds-ann", "accept", ["NEG"], style),
            prodigy_task(2, "ds-bob", "ignore", [], style),
            prodigy_task(3, "ds-ann", "accept", ["NEU"], style),
            prodigy_task(3, "ds-bob", "reject", ["NEU"], style)]


def test_prodigy_choice_style_single_reads_ratings(tmp_path):
    da = read_annotations(write_lines(tmp_path / "db.jsonl", prodigy_rows()))
    # bob ignored task 2; his reject of task 3 says "not NEU", which is no category
    check_ratings(da, {(1, "ds-ann"): "POS", (1, "ds-bob"): "POS", (2, "ds-ann"): "NEG",
                       (2, "ds-bob"): NAN, (3, "ds-ann"): "NEU", (3, "ds-bob"): NAN},
                  "prodigy", "the tasks' config says choice_style 'single' (one option "
                  "selectable)", ["POS", "NEG", "NEU"],
                  {"ignored": {"ds-bob": 1}, "rejected": {"ds-bob": 1}})


def test_prodigy_choice_style_multiple_stays_label_sets(tmp_path):
    rows = [r for r in prodigy_rows("multiple") if r["answer"] == "accept"]
    da = read_annotations(write_lines(tmp_path / "db.jsonl", rows))
    assert da.dims == ("item", "annotator", "label")
    assert da.sel(item=1, annotator="ds-bob").values.tolist() == [1.0, 0.0, 0.0]


def test_prodigy_without_choice_style_infers(tmp_path):
    rows = [r for r in prodigy_rows(None) if r["answer"] != "reject"]
    da = read_annotations(write_lines(tmp_path / "db.jsonl", rows))
    check_ratings(da, {(1, "ds-ann"): "POS", (1, "ds-bob"): "POS", (2, "ds-ann"): "NEG",
                       (2, "ds-bob"): NAN, (3, "ds-ann"): "NEU", (3, "ds-bob"): NAN},
                  "prodigy", INFERRED, ["POS", "NEG", "NEU"], {"ignored": {"ds-bob": 1}})
    # a reject with a selection ("not NEU") is no single category: label sets
    da = read_annotations(write_lines(tmp_path / "all.jsonl", prodigy_rows(None)))
    assert da.dims == ("item", "annotator", "label")


def test_prodigy_binary_stays_label_sets_and_has_no_single_reading(tmp_path):
    rows = [{"text": "t", "label": "SPORTS", "_input_hash": 1, "answer": a,
             "_annotator_id": who} for who, a in (("ann", "accept"), ("bob", "reject"))]
    path = write_lines(tmp_path / "binary.jsonl", rows)
    assert read_annotations(path).dims == ("item", "annotator", "label")
    with pytest.raises(AnnotationFileError, match="decides one label per record"):
        read_annotations(path, layout="single")


# --------------------------------------------------------------------------------------
# Argilla
# --------------------------------------------------------------------------------------

U1, U2, U3 = "u-1", "u-2", "u-3"


def argilla_v2(values):
    """v2 flat records (to_list(flatten=True)): values[record] = [(user, value, status)]."""
    return [{"id": f"r{n}", "status": "completed", "text": f"t{n}",
             "sentiment.responses": [v for _, v, _ in responses],
             "sentiment.responses.users": [u for u, _, _ in responses],
             "sentiment.responses.status": [s for _, _, s in responses]}
            for n, responses in enumerate(values, start=1)]


def test_argilla_label_question_reads_ratings(tmp_path):
    rows = argilla_v2([
        [(U1, "positive", "submitted"), (U2, "positive", "submitted"),
         (U3, "negative", "submitted")],
        [(U1, "negative", "submitted"), (U2, None, "submitted"), (U3, "neutral", "draft")],
        [(U1, "neutral", "submitted"), (U2, "neutral", "discarded")],
    ])
    da = read_annotations(write_lines(tmp_path / "records.jsonl", rows))
    check_ratings(da, {("r1", U1): "positive", ("r1", U2): "positive", ("r1", U3): "negative",
                       ("r2", U1): "negative", ("r2", U2): NAN, ("r2", U3): NAN,
                       ("r3", U1): "neutral", ("r3", U2): NAN, ("r3", U3): NAN},
                  "argilla", "question 'sentiment' is single-label: its responses are one "
                  "label each, not lists (as a LabelQuestion's are)", None,
                  {"discarded": {U2: 1}, "draft": {U3: 1}, "submitted without a value": {U2: 1}})


def test_argilla_multi_label_question_stays_label_sets(tmp_path):
    # one label in every list, but lists: a MultiLabelQuestion
    rows = argilla_v2([[(U1, ["positive"], "submitted"), (U2, ["negative"], "submitted")]])
    da = read_annotations(write_lines(tmp_path / "records.jsonl", rows))
    assert da.dims == ("item", "annotator", "label")
    with pytest.raises(AnnotationFileError, match="layout='single' was given"):
        read_annotations(write_lines(tmp_path / "two.jsonl", argilla_v2(
            [[(U1, ["positive", "negative"], "submitted")]])), layout="single")


def test_argilla_v1_label_question_reads_ratings(tmp_path):
    rows = [{"external_id": "a", "text": "x", "label": [
                {"user_id": U1, "value": "pos", "status": "submitted"},
                {"user_id": U2, "value": "neg", "status": "submitted"}]},
            {"external_id": "b", "text": "y", "label": [
                {"user_id": U1, "value": "neg", "status": "discarded"},
                {"user_id": U2, "value": "neg", "status": "submitted"}]}]
    da = read_annotations(write_lines(tmp_path / "v1.jsonl", rows))
    assert ratings_of(da) == {("a", U1): "pos", ("a", U2): "neg", ("b", U1): NAN,
                              ("b", U2): "neg"}
    assert "single-label" in da.attrs["single_label"]


# --------------------------------------------------------------------------------------
# MTurk
# --------------------------------------------------------------------------------------


def mturk(tmp_path, rows, name="batch.csv"):
    """rows: (HITId, WorkerId, AssignmentStatus, Answer.taskAnswers object)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "Input.text",
                     "Answer.taskAnswers", "Approve", "Reject"])
    for number, (hit, worker, status, answer) in enumerate(rows):
        writer.writerow([hit, f"A{number}", worker, status, "text", json.dumps([answer]), "",
                         ""])
    path = tmp_path / name
    path.write_text(out.getvalue())
    return path


def test_mturk_crowd_classifier_reads_ratings(tmp_path):
    path = mturk(tmp_path, [("H1", "W1", "Approved", {"sentiment": {"label": "Positive"}}),
                            ("H1", "W2", "Submitted", {"sentiment": {"label": "Negative"}}),
                            ("H2", "W1", "Rejected", {"sentiment": {"label": "Negative"}}),
                            ("H2", "W2", "Approved", {"sentiment": {"label": "Neutral"}})])
    da = read_annotations(path)
    check_ratings(da, {("H1", "W1"): "Positive", ("H1", "W2"): "Negative", ("H2", "W1"): NAN,
                       ("H2", "W2"): "Neutral"},
                  "mturk", "the crowd element 'sentiment' answers {\"label\": ...} "
                  "(crowd-classifier: one category)", None,
                  {"rejected": {"W1": 1}})


def test_mturk_multi_select_stays_label_sets(tmp_path):
    path = mturk(tmp_path, [("H1", "W1", "Approved", {"topic": {"labels": ["Tech"]}}),
                            ("H1", "W2", "Approved", {"topic": {"labels": ["Sports"]}})])
    assert read_annotations(path).dims == ("item", "annotator", "label")
    da = read_annotations(path, layout="single")  # one label each: readable as ratings
    assert ratings_of(da) == {("H1", "W1"): "Tech", ("H1", "W2"): "Sports"}
    assert da.attrs["single_label"] == "layout='single' was given"


# --------------------------------------------------------------------------------------
# doccano, crowd tables and the generic table reader
# --------------------------------------------------------------------------------------


def test_doccano_one_label_each_reads_ratings(tmp_path):
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("alice.jsonl", '{"id": 1, "text": "a", "label": ["spam"]}\n'
                                        '{"id": 2, "text": "b", "label": ["ham"]}\n')
        archive.writestr("bob.jsonl", '{"id": 1, "text": "a", "label": ["ham"]}\n')
    da = read_annotations(path)
    check_ratings(da, {(1, "alice"): "spam", (1, "bob"): "ham", (2, "alice"): "ham",
                       (2, "bob"): NAN}, "doccano", INFERRED, None, {})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("cai.jsonl", '{"id": 2, "text": "b", "label": ["ham", "spam"]}\n')
    assert read_annotations(path).dims == ("item", "annotator", "label")
    with pytest.raises(AnnotationFileError, match=r"annotator 'cai' chose several categories "
                       r"on item 2: 'ham', 'spam'"):
        read_annotations(path, layout="single")


def test_toloka_assignments_read_as_ratings_with_statuses_missing(tmp_path):
    path = tmp_path / "assignments.tsv"
    path.write_text("INPUT:text\tOUTPUT:result\tASSIGNMENT:task_id\tASSIGNMENT:worker_id\t"
                    "ASSIGNMENT:status\n"
                    "a\tcat\tT1\tK1\tACCEPTED\n"
                    "a\tdog\tT1\tK2\tSUBMITTED\n"
                    "b\tdog\tT2\tK1\tREJECTED\n"
                    "b\tdog\tT2\tK2\tACCEPTED\n")
    da = read_annotations(path)
    check_ratings(da, {("T1", "K1"): "cat", ("T1", "K2"): "dog", ("T2", "K1"): NAN,
                       ("T2", "K2"): "dog"}, "crowd", INFERRED, None,
                  {"rejected": {"K1": 1}})


def test_table_layout_single_says_it_was_given(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("item,annotator,rating\n1,a,x\n1,b,y\n")
    da = read_annotations(path, "single")
    assert da.attrs["single_label"] == "layout='single' was given"
    assert da.attrs["reader"] == "table" and json.loads(da.attrs["dropped"]) == {}
    assert ratings_of(da) == {(1, "a"): "x", (1, "b"): "y"}


# --------------------------------------------------------------------------------------
# storing
# --------------------------------------------------------------------------------------


def test_ratings_attrs_are_storable(tmp_path):
    path = write_json(tmp_path / "export.json", ls_tasks())
    da = read_annotations(path, labels=config(tmp_path, None))
    out = tmp_path / "ratings.nc"
    da.to_netcdf(out, engine="scipy")
    with xr.open_dataarray(out, engine="scipy") as back:
        back = back.load()
    assert back.attrs == da.attrs
    assert back.attrs["single_label"].startswith("the labeling config's")
    decided = ~da.isnull()
    np.testing.assert_array_equal(back.values[decided.values], da.values[decided.values])


def mturk_form(tmp_path, header, rows, name="radio.csv"):
    """A classic HTML form's batch results: HITId, WorkerId, AssignmentStatus, then the
    ``Answer.<name>`` columns of ``header`` (a radio group submits its checked value)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "Input.text",
                     *header, "Approve", "Reject"])
    for number, (hit, worker, status, *answers) in enumerate(rows):
        writer.writerow([hit, f"A{number}", worker, status, "text", *answers, "", ""])
    path = tmp_path / name
    path.write_text(out.getvalue())
    return path


def test_mturk_radio_group_reads_ratings(tmp_path):
    path = mturk_form(tmp_path, ["Answer.sentiment"], [
        ("H1", "W1", "Approved", "positive"), ("H1", "W2", "Submitted", "negative"),
        ("H2", "W1", "Approved", ""),  # left unchecked: the browser submits nothing
        ("H2", "W2", "Rejected", "positive"), ("H3", "W1", "Approved", "positive"),
        ("H3", "W2", "Approved", "positive")])
    da = read_annotations(path)
    check_ratings(da, {("H1", "W1"): "positive", ("H1", "W2"): "negative", ("H2", "W1"): NAN,
                       ("H2", "W2"): NAN, ("H3", "W1"): "positive", ("H3", "W2"): "positive"},
                  "mturk", "the form field Answer.sentiment holds one value per assignment, "
                  "read as its category (as an HTML radio group or drop-down submits one; "
                  "the export does not show that the field was one)", None,
                  {"no choice": {"W1": 1}, "rejected": {"W2": 1}})
    sets = read_annotations(path, layout="sets")
    assert sets.sel(item="H1", annotator="W2").values.tolist() == [1.0, 0.0]
    with pytest.raises(AnnotationFileError, match="label 'positive' is not in the declared"):
        read_annotations(path, labels=["neg", "neu"])


def test_mturk_several_form_fields_need_control(tmp_path):
    path = mturk_form(tmp_path, ["Answer.comment", "Answer.sentiment"], [
        ("H1", "W1", "Approved", "fine", "positive"), ("H1", "W2", "Approved", "", "negative")])
    with pytest.raises(AnnotationFileError, match=r"several form fields \['Answer.comment', "
                                                  r"'Answer.sentiment'\]: choose .*control"):
        read_annotations(path)
    da = read_annotations(path, control="sentiment")
    assert ratings_of(da) == {("H1", "W1"): "positive", ("H1", "W2"): "negative"}
    with pytest.raises(AnnotationFileError, match=r"no form field Answer.topic"):
        read_annotations(path, control="topic")


# --------------------------------------------------------------------------------------
# review: what the report may say of the categories
# --------------------------------------------------------------------------------------


def test_undeclared_categories_are_not_reported_as_declared(tmp_path):
    """A tool export read without a declared universe has no ``categories`` attr (as the
    table reader's layout "single"): the single-label report then says none were declared,
    not "3 declared"; a declared universe still reaches the report."""
    from xr_agreement import single_label_report

    path = write_json(tmp_path / "export.json", ls_tasks(empty=False))
    da = read_annotations(path)
    assert da.attrs["single_label"] == INFERRED
    assert "categories" not in da.attrs
    rep = single_label_report(da)
    assert rep.facts["categories_declared"] is None
    assert "none were declared" in str(rep) and "declared (" not in str(rep)
    declared = read_annotations(path, labels=config(tmp_path, None))
    assert json.loads(declared.attrs["categories"]) == ["pos", "neg", "neu"]
    assert single_label_report(declared).facts["categories_declared"] == ["pos", "neg", "neu"]


def test_mturk_on_columns_of_radio_buttons_are_inferred_not_called_checkboxes(tmp_path):
    """``Answer.<value>.on`` columns are what crowd-radio-button and crowd-checkbox both
    write (``{"<name>": {"on": true}}``, ``on`` the default value): the export does not say
    which, so one ticked per assignment reads as ratings (inferred), several as label sets;
    never the claim that the columns allow several."""
    header = ["Answer.negative.on", "Answer.positive.on"]
    path = mturk_form(tmp_path, header, [
        ("H1", "W1", "Approved", "false", "true"), ("H1", "W2", "Approved", "true", "false"),
        ("H2", "W1", "Approved", "false", "true"), ("H2", "W2", "Rejected", "true", "true")])
    da = read_annotations(path)
    check_ratings(da, {("H1", "W1"): "positive", ("H1", "W2"): "negative",
                       ("H2", "W1"): "positive", ("H2", "W2"): NAN},
                  "mturk", INFERRED, ["negative", "positive"], {"rejected": {"W2": 1}})
    ticked_two = mturk_form(tmp_path, header, [
        ("H1", "W1", "Approved", "true", "true"), ("H1", "W2", "Approved", "true", "false")],
        name="two.csv")
    assert read_annotations(ticked_two).dims == ("item", "annotator", "label")
    with pytest.raises(AnnotationFileError, match=r"layout='single' was given, but annotator "
                       r"'W1' chose several categories on item 'H1'"):
        read_annotations(ticked_two, layout="single")


def test_cli_layout_single_on_a_tool_export_says_no_rows(tmp_path, capsys):
    """--layout single on a Label Studio JSON export: the report's reason names the option,
    not "one rating per row" (a JSON export has no rows of item and annotator)."""
    from xr_agreement.cli import main

    path = write_json(tmp_path / "export.json", ls_tasks())
    assert main(["report", str(path), "--layout", "single", "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["single_label"] == "--layout single was given on the command line"


def test_label_sets_because_of_a_no_choice_annotation_say_so(tmp_path):
    """Without a statement, one annotation that chose nothing (every other chose one)
    keeps label sets: a reading note says why and how to read ratings, and the multi-label
    report prints it; several choices somewhere need no such note."""
    from xr_agreement import report

    da = read_annotations(write_json(tmp_path / "empty.json", ls_tasks()))
    assert da.dims == ("item", "annotator", "label")
    notes = json.loads(da.attrs["notes"])
    assert notes == ["Every annotation chose at most one category, but 1 chose none (no "
                     "choice: 1): read as label sets; layout='single' (--layout single) "
                     "reads single-label ratings, an annotation with no category missing"]
    assert "but 1 chose none" in " ".join(str(report(da)).split())
    tasks = ls_tasks(empty=False)
    tasks[1]["annotations"][2] = ls_annotation(3, "neu", "neg")
    tasks[0]["annotations"][0] = ls_annotation(1)
    assert "notes" not in read_annotations(write_json(tmp_path / "two.json", tasks)).attrs


def test_argilla_numeric_responses_are_not_called_label_question_answers(tmp_path):
    """Responses that are JSON numbers (an Argilla RatingQuestion's 1-10) are single values
    read as nominal ratings; the reason says numbers and that their order is unused, not
    "as a LabelQuestion's are"."""
    rows = argilla_v2([[(U1, 4, "submitted"), (U2, 5, "submitted")],
                       [(U1, 1, "submitted"), (U2, 1.0, "submitted")]])
    da = read_annotations(write_lines(tmp_path / "records.jsonl", rows))
    check_ratings(da, {("r1", U1): "4", ("r1", U2): "5", ("r2", U1): "1", ("r2", U2): "1"},
                  "argilla", "question 'sentiment' answers one number per response (as a "
                  "RatingQuestion does): read as nominal categories, their order unused "
                  "(weights= of the kappa family, alpha's 'ordinal' or 'interval' metric "
                  "use it)", None, {})


def test_mturk_task_answers_without_a_classifier_say_what_is_read(tmp_path):
    """crowd-radio-button answers in Answer.taskAnswers ({"<name>": {"<value>": true}}) are
    not read: the error says which answers are, instead of naming the element None."""
    path = mturk(tmp_path, [
        ("H1", "W1", "Approved", {"negative": {"on": False}, "positive": {"on": True}}),
        ("H1", "W2", "Approved", {"negative": {"on": True}, "positive": {"on": False}})])
    with pytest.raises(AnnotationFileError) as error:
        read_annotations(path)
    assert "None" not in str(error.value)
    assert "no crowd-classifier answer" in str(error.value)
    assert "crowd-radio-button" in str(error.value)


def test_category_names_of_a_labels_file_are_kept(tmp_path):
    """A labels file's names (label<TAB>name) are the label_name coordinate of label sets;
    ratings have no label dim, so the names go beside the categories, in their order."""
    names = tmp_path / "labels.txt"
    names.write_text("pos\tPositive\nneg\nneu\tNeutral\n", "utf-8")
    path = write_json(tmp_path / "export.json", ls_tasks(empty=False))
    da = read_annotations(path, labels=names)
    assert da.dims == ("item", "annotator")
    assert json.loads(da.attrs["categories"]) == ["pos", "neg", "neu"]
    assert json.loads(da.attrs["category_names"]) == ["Positive", "neg", "Neutral"]
    sets = read_annotations(path, labels=names, layout="sets")
    assert sets["label_name"].values.tolist() == ["Positive", "neg", "Neutral"]
    table = tmp_path / "ratings.csv"
    table.write_text("item,annotator,rating\n1,a,pos\n1,b,neu\n", "utf-8")
    ratings = read_annotations(table, layout="single", labels=names)
    assert json.loads(ratings.attrs["categories"]) == ["pos", "neg", "neu"]
    assert json.loads(ratings.attrs["category_names"]) == ["Positive", "neg", "Neutral"]
