"""Issue 28, the Argilla, MTurk and Prodigy cases: ids kept as the ids they are (Argilla,
Prodigy), a submitted Argilla response without a value, and the MTurk requester's Reject
column.

Fixtures follow the formats the readers cite: Argilla v2 flat records
(``dataset.records.to_list(flatten=True)`` / ``to_json``: ``id``, ``<question>.responses``,
``.responses.users``, ``.responses.status``) and v1 FeedbackDataset records (``[{user_id,
value, status}]`` per question); Argilla's server validates a submitted response only for
the required questions (argilla-server ``validators/responses.py``:
``_validate_required_questions_have_values``). The MTurk batch results CSV is the fixture
tests/data/tools/mturk/batch_results.csv with its ``Approve`` and ``Reject`` columns filled
as the Requester UI guide says ("Review assignments offline": "enter an X in the Approve
column or a reason to reject the result in the Reject column"). The expected decisions are
written out by hand.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from readback import decisions
from xr_agreement.cli import main
from xr_agreement.io import AnnotationFileError, read_annotations

MTURK = Path(__file__).parent / "data" / "tools" / "mturk" / "batch_results.csv"


def _v2(records):
    """Argilla v2 flat records, one question "label" (a single-label question)."""
    rows = []
    for record_id, responses in records:
        rows.append({"id": record_id, "status": "completed", "text": "a text",
                     "label.responses": [value for _, value, _ in responses],
                     "label.responses.users": [user for user, _, _ in responses],
                     "label.responses.status": [status for _, _, status in responses]})
    return rows


def _write_lines(path, rows, dumps=json.dumps):
    path.write_text("".join(dumps(row) + "\n" for row in rows))
    return path



# ------------------------------------------------------------------------------------------
# Argilla ids
# ------------------------------------------------------------------------------------------


def test_argilla_float_ids_1_5_and_1_stay_two_items(tmp_path):
    # the original reader made both records the item 1 (int() truncation) and then refused
    # the file as a duplicate of ann on item 1, or merged the two records
    path = _write_lines(tmp_path / "records.jsonl", _v2([
        (1, [("ann", "pos", "submitted"), ("bob", "pos", "submitted")]),
        (1.5, [("ann", "neg", "submitted"), ("bob", "pos", "submitted")]),
    ]))
    da = read_annotations(path, layout="sets")  # single-label responses: label sets by name
    assert da.sizes["item"] == 2
    assert sorted(map(str, da["item"].values)) == ["1", "1.5"]
    got = decisions(da)
    items = {str(i): i for i in da["item"].values.tolist()}
    assert got[(items["1"], "ann")] == {"pos"} and got[(items["1.5"], "ann")] == {"neg"}
    assert got[(items["1.5"], "bob")] == {"pos"}


def test_argilla_whole_float_id_is_the_integer_id(tmp_path):
    # 2.0 and 2 are one record id, written two ways: one item, two annotators on it
    path = _write_lines(tmp_path / "records.jsonl", _v2([
        (2.0, [("ann", "pos", "submitted")]),
        (3, [("ann", "neg", "submitted"), ("bob", "neg", "submitted")]),
    ]) + [{"id": 2, "label.responses": ["neg"], "label.responses.users": ["bob"],
           "label.responses.status": ["submitted"]}])
    da = read_annotations(path, layout="sets")  # single-label responses: label sets by name
    assert da["item"].values.tolist() == [2, 3]
    assert decisions(da)[(2, "bob")] == {"neg"}


def test_argilla_v1_float_external_ids_stay_distinct(tmp_path):
    rows = [{"text": "t", "external_id": 7, "label": [
                {"user_id": "ann", "value": "pos", "status": "submitted"},
                {"user_id": "bob", "value": "pos", "status": "submitted"}]},
            {"text": "t", "external_id": 7.25, "label": [
                {"user_id": "ann", "value": "neg", "status": "submitted"},
                {"user_id": "bob", "value": "neg", "status": "submitted"}]}]
    da = read_annotations(_write_lines(tmp_path / "v1.jsonl", rows))
    assert sorted(map(str, da["item"].values)) == ["7", "7.25"]


@pytest.mark.parametrize("literal", ["Infinity", "-Infinity"])
def test_argilla_non_finite_id_is_refused_naming_the_line(tmp_path, literal, capsys):
    rows = _v2([(1, [("ann", "pos", "submitted"), ("bob", "pos", "submitted")]),
                (2, [("ann", "neg", "submitted"), ("bob", "pos", "submitted")])])
    text = "".join(json.dumps(r) + "\n" for r in rows).replace('"id": 2,', f'"id": {literal},')
    path = tmp_path / "records.jsonl"
    path.write_text(text)
    with pytest.raises(AnnotationFileError, match="finite") as caught:
        read_annotations(path)
    assert "records.jsonl" in str(caught.value) and "line 2" in str(caught.value)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("xr-agreement: error:")


def test_argilla_user_ids_1_0_and_1_are_one_annotator(tmp_path):
    # v1 user ids written as 1.0 on one record and 1 on another are the same user
    rows = [{"external_id": "a", "label": [
                {"user_id": 1.0, "value": "pos", "status": "submitted"},
                {"user_id": 2, "value": "pos", "status": "submitted"}]},
            {"external_id": "b", "label": [
                {"user_id": 1, "value": "neg", "status": "submitted"},
                {"user_id": 2, "value": "pos", "status": "submitted"}]}]
    da = read_annotations(_write_lines(tmp_path / "v1.jsonl", rows))
    assert sorted(da["annotator"].values.tolist()) == ["1", "2"]


# ------------------------------------------------------------------------------------------
# Argilla: a submitted response without a value
# ------------------------------------------------------------------------------------------


def test_argilla_v2_submitted_null_value_is_no_decision_not_an_empty_set(tmp_path):
    # cai submitted record 2 without answering "label" (not a required question): the
    # original reader gave cai "no label" on item 2 (0 for pos and neg)
    path = _write_lines(tmp_path / "records.jsonl", _v2([
        (1, [("ann", "pos", "submitted"), ("bob", "pos", "submitted"),
             ("cai", "neg", "submitted")]),
        (2, [("ann", "neg", "submitted"), ("bob", "neg", "submitted"),
             ("cai", None, "submitted")]),
    ]))
    da = read_annotations(path, layout="sets")  # single-label responses: label sets by name
    assert json.loads(da.attrs["dropped"]) == {"submitted without a value": {"cai": 1}}
    assert np.isnan(da.sel(item=2, annotator="cai").values).all()
    assert decisions(da) == {(1, "ann"): {"pos"}, (1, "bob"): {"pos"}, (1, "cai"): {"neg"},
                              (2, "ann"): {"neg"}, (2, "bob"): {"neg"}}


def test_argilla_v1_submitted_response_without_value_is_no_decision(tmp_path):
    rows = [{"external_id": "a", "topics": [
                {"user_id": "ann", "value": ["x", "y"], "status": "submitted"},
                {"user_id": "bob", "value": ["x"], "status": "submitted"}]},
            {"external_id": "b", "topics": [
                {"user_id": "ann", "value": [], "status": "submitted"},
                {"user_id": "bob", "value": None, "status": "submitted"}]}]
    da = read_annotations(_write_lines(tmp_path / "v1.jsonl", rows))
    assert json.loads(da.attrs["dropped"]) == {"submitted without a value": {"bob": 1}}
    # ann's empty list is the answer "none of these": decided 0 for both labels
    assert da.sel(item="b", annotator="ann").values.tolist() == [0.0, 0.0]
    assert np.isnan(da.sel(item="b", annotator="bob").values).all()


def test_argilla_v1_response_without_a_value_field_is_refused(tmp_path):
    # Argilla writes "value": null for a response without one; a record without the field
    # is damaged, not "no decision"
    rows = [{"external_id": "a", "topics": [
                {"user_id": "ann", "value": ["x"], "status": "submitted"},
                {"user_id": "bob", "status": "submitted"}]}]
    with pytest.raises(AnnotationFileError, match="line 1.*value field"):
        read_annotations(_write_lines(tmp_path / "v1.jsonl", rows))


def test_argilla_submitted_without_value_changes_the_cli_number(tmp_path, capsys):
    # two annotators, two items: on item 1 they agree, on item 2 bob gave no value. Read
    # as "no decision", item 2 has one annotator and gives no pair: observed agreement 1.
    # Read as an empty set (the old reading), item 2 would be a disagreement.
    path = _write_lines(tmp_path / "records.jsonl", _v2([
        (1, [("ann", "pos", "submitted"), ("bob", "pos", "submitted")]),
        (2, [("ann", "neg", "submitted"), ("bob", None, "submitted")]),
        (3, [("ann", "neg", "submitted"), ("bob", "neg", "submitted")]),
    ]))
    # single-label responses: the label-set report by name
    assert main(["report", str(path), "--format", "json", "--layout", "sets"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    # by hand: items 1 and 3 are the only pairs and both agree on every label
    assert summary["observed"] == 1.0 and summary["N"] == 3
    assert summary["dropped"] == {"submitted without a value": {"bob": 1}}


# ------------------------------------------------------------------------------------------
# MTurk: the requester's Reject and Approve columns
# ------------------------------------------------------------------------------------------


def _mturk_with(tmp_path, marks: dict, name="batch.csv"):
    """The batch results fixture with {row number (1-based): (approve, reject, status or
    None)} filled in."""
    table = list(csv.DictReader(io.StringIO(MTURK.read_text())))
    for number, (approve, reject, status) in marks.items():
        table[number - 1]["Approve"], table[number - 1]["Reject"] = approve, reject
        if status is not None:
            table[number - 1]["AssignmentStatus"] = status
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(table[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    path = tmp_path / name
    path.write_text(out.getvalue())
    return path, table


def test_mturk_reject_column_filled_is_a_rejected_assignment(tmp_path):
    # row 1: a Submitted assignment the requester rejected offline (a reason in Reject);
    # row 2: one approved offline with an x. The original reader read row 1 as a decision.
    path, table = _mturk_with(tmp_path, {1: ("", "did not read the text", "Submitted"),
                                         2: ("x", "", "Submitted")})
    base = read_annotations(MTURK)
    da = read_annotations(path)
    worker, hit = table[0]["WorkerId"], table[0]["HITId"]
    assert np.isnan(da.sel(item=hit, annotator=worker).values).all()
    assert not np.isnan(base.sel(item=hit, annotator=worker).values).all()
    # counted beside the fixture's own Rejected assignment
    want = {k: dict(v) for k, v in json.loads(base.attrs["dropped"]).items()}
    want["rejected"][worker] = want["rejected"].get(worker, 0) + 1
    assert json.loads(da.attrs["dropped"]) == want
    # every other decision is the fixture's
    other = [(r["HITId"], r["WorkerId"]) for r in table[1:]]
    for hit_id, who in other:
        np.testing.assert_array_equal(da.sel(item=hit_id, annotator=who).values,
                                      base.sel(item=hit_id, annotator=who).values)


def test_mturk_rejected_status_with_its_reason_in_reject_is_read_as_before(tmp_path):
    # a batch downloaded after review keeps the rejection reason beside the Rejected status
    rejected = [n for n, r in enumerate(csv.DictReader(io.StringIO(MTURK.read_text())), 1)
                if r["AssignmentStatus"] == "Rejected"]
    path, _ = _mturk_with(tmp_path, {n: ("", "off-topic labels", None) for n in rejected})
    base, da = read_annotations(MTURK), read_annotations(path)
    np.testing.assert_array_equal(da.values, base.values)
    assert json.loads(da.attrs["dropped"]) == json.loads(base.attrs["dropped"])


@pytest.mark.parametrize("marks, column", [
    ({3: ("x", "wrong", "Submitted")}, "Reject"),      # both marked
    ({3: ("", "wrong", "Approved")}, "Reject"),        # MTurk cannot reject approved work
    ({3: ("x", "", "Rejected")}, "Approve"),           # a reversal not yet uploaded
])
def test_mturk_contradicting_review_marks_are_refused_naming_the_row(tmp_path, marks,
                                                                     column, capsys):
    path, _ = _mturk_with(tmp_path, marks)
    with pytest.raises(AnnotationFileError) as caught:
        read_annotations(path)
    message = str(caught.value)
    assert "batch.csv" in message and "line 4" in message and column in message
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("xr-agreement: error:")


# ------------------------------------------------------------------------------------------
# Prodigy: the same id rule for _input_hash and the annotator (db-out JSON lines, binary
# classification tasks: "label" + "answer", https://prodi.gy/docs/api-interfaces)
# ------------------------------------------------------------------------------------------


def _prodigy_line(input_hash, annotator, answer, label="SPORT"):
    return (f'{{"text": "t", "label": "{label}", "_input_hash": {input_hash}, '
            f'"_task_hash": 5, "_annotator_id": {json.dumps(annotator)}, '
            f'"_session_id": "s-{annotator}", "answer": "{answer}"}}\n')


@pytest.mark.parametrize("literal", ["NaN", "Infinity"])
def test_prodigy_non_finite_input_hash_is_refused(tmp_path, literal, capsys):
    # two different inputs whose hash was lost (NaN): the original reader made them the
    # one item "nan", annotated by ann and bob
    path = tmp_path / "db-out.jsonl"
    path.write_text(_prodigy_line(11, "ann", "accept") + _prodigy_line(11, "bob", "accept")
                    + _prodigy_line(literal, "ann", "accept")
                    + _prodigy_line(literal, "bob", "reject", label="NEWS"))
    with pytest.raises(AnnotationFileError, match="finite") as caught:
        read_annotations(path)
    assert "db-out.jsonl" in str(caught.value) and "line 3" in str(caught.value)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("xr-agreement: error:")


def test_prodigy_input_hash_1_0_and_1_are_one_input(tmp_path):
    # the original reader kept "1.0" and "1" as two items, each with one annotator
    path = tmp_path / "db-out.jsonl"
    path.write_text(_prodigy_line("1.0", "ann", "accept") + _prodigy_line(1, "bob", "reject")
                    + _prodigy_line(2, "ann", "accept") + _prodigy_line(2, "bob", "accept"))
    da = read_annotations(path)
    assert da["item"].values.tolist() == [1, 2]
    assert da.sel(item=1, label="SPORT").values.tolist() == [1.0, 0.0]


def test_prodigy_blank_annotator_id_is_refused(tmp_path):
    path = tmp_path / "db-out.jsonl"
    path.write_text(_prodigy_line(1, "ann", "accept") + _prodigy_line(1, " ", "accept"))
    path.write_text(path.read_text().replace('"_session_id": "s- "', '"_session_id": " "'))
    with pytest.raises(AnnotationFileError, match="line 2"):
        read_annotations(path)


# ------------------------------------------------------------------------------------------
# review of issue 28
# ------------------------------------------------------------------------------------------


def test_argilla_v1_record_without_external_id_never_takes_another_records_id(tmp_path):
    # FeedbackDataset records have an optional external_id (None where not given); the
    # reader names such a record by its row, and row 2 became the item of external_id 2:
    # u1 and u2 were compared on one item they never shared
    rows = [{"external_id": 2, "text": "a", "label": [
                {"user_id": "u1", "value": "pos", "status": "submitted"}]},
            {"external_id": None, "text": "b", "label": [
                {"user_id": "u2", "value": "neg", "status": "submitted"}]}]
    path = _write_lines(tmp_path / "v1.jsonl", rows)
    with pytest.raises(AnnotationFileError, match="line 2.*external_id 2"):
        read_annotations(path, tool="argilla")
    # ids that cannot collide: read, one item per record
    rows[0]["external_id"] = "r-1"
    da = read_annotations(_write_lines(tmp_path / "v1b.jsonl", rows), tool="argilla",
                          layout="sets")  # single-label responses: label sets by name
    assert decisions(da) == {("r-1", "u1"): {"pos"}, ("2", "u2"): {"neg"}}


def test_mturk_error_names_the_line_its_row_starts_on(tmp_path, capsys):
    # Input.<name> cells hold the task's text, which may span lines (quoted): the row that
    # starts on line 5 was named "line 3"
    path = tmp_path / "batch.csv"
    path.write_text('HITId,WorkerId,AssignmentStatus,Input.text,Answer.taskAnswers\n'
                    'h1,w1,Submitted,"first\nsecond\nthird","[{""s"": {""label"": ""a""}}]"\n'
                    'h1,w2,Submitted,x,NaN\n')
    capsys.readouterr()
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "row 2 (line 5)" in err, err


def test_argilla_csv_error_names_the_line_its_row_starts_on(tmp_path, capsys):
    # a flat record's text field may span lines (quoted): the row is named with its line
    path = tmp_path / "records.csv"
    path.write_text('id,text,label.responses,label.responses.users,label.responses.status\n'
                    'r1,"first\nsecond","[""a""]","[""u1""]","[""submitted""]"\n'
                    'r2,x,"[""a""]","[""u1""]","[""accepted""]"\n')
    with pytest.raises(AnnotationFileError, match=r"row 2 \(line 4\)"):
        read_annotations(path, tool="argilla")
