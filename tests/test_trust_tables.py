"""Issue 28, the generic table reader and the shared reading machinery: damaged or hostile
files are refused with one line naming the file (and the line or row), or read as they mean;
never a traceback, never another number.

The damaged files follow the shapes the issue describes; the tool files follow each tool's
documented export format (cited beside each test). Expected decisions are written out by hand.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from xr_agreement.cli import main
from xr_agreement.io import AnnotationFileError, read_annotations


def cli(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def refused(path, capsys, *needles, **read_options):
    """The reader raises AnnotationFileError naming the file and ``needles``; the CLI exits 2
    with one line naming the file. Returns the message."""
    with pytest.raises(AnnotationFileError) as caught:
        read_annotations(path, **read_options)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    for needle in needles:
        assert needle in message, message
    options = [f"--from={read_options['tool']}"] if "tool" in read_options else []
    code, out, err = cli(["report", path, *options], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and str(path) in err, err
    assert "Traceback" not in err
    return message


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------
# short rows (a truncated download) and rows with one field more than the header
# --------------------------------------------------------------------------------------


def test_generic_csv_short_row_is_refused_naming_its_line(tmp_path, capsys):
    # line 3 lost its label field: not "chose no label"
    path = write(tmp_path / "votes.csv", "item,annotator,labels\ns1,ann,a\ns1,bob\n"
                 "s2,ann,b\ns2,bob,b\n")
    message = refused(path, capsys, "line 3", "2 fields where the header has 3")
    assert "truncated" in message


def test_a_legitimately_empty_last_cell_is_not_short(tmp_path):
    path = write(tmp_path / "votes.csv", "item,annotator,labels\ns1,ann,a\ns1,bob,\n"
                 "s2,ann,b\ns2,bob,b\n")
    da = read_annotations(path)
    # by hand: bob chose no label on s1 (an empty set, all 0), not missing
    assert da.sel(item="s1", annotator="bob").values.tolist() == [0, 0]
    assert da.sel(item="s1", annotator="ann").values.tolist() == [1, 0]


def test_crowd_csv_short_row_is_refused(tmp_path, capsys):
    # crowd-kit's columns task, worker, label (https://toloka.ai/docs/crowd-kit/)
    path = write(tmp_path / "crowd.csv", "task,worker,label\nt1,w1,spam\nt1,w2\n"
                 "t2,w1,ham\nt2,w2,ham\n")
    refused(path, capsys, "line 3", "2 fields", tool="crowd")


def test_wide_csv_short_row_is_refused(tmp_path, capsys):
    path = write(tmp_path / "wide.csv", "id,rater_id,joy,anger\nx1,1,1,0\nx1,2,1\n")
    refused(path, capsys, "line 3", "3 fields where the header has 4", tool="wide")


def doccano_csv_zip(tmp_path, members: dict):
    # doccano's CSV export (https://doccano.github.io/doccano/tutorial/#export-data): one
    # file per user, columns id, text, label, the labels of an example joined by "#"
    path = tmp_path / "doccano.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


def test_doccano_csv_short_row_is_refused(tmp_path, capsys):
    path = doccano_csv_zip(tmp_path, {
        "alice.csv": "id,text,label\n1,Vote passes,Politics\n2,Marathon\n",
        "bob.csv": "id,text,label\n1,Vote passes,Politics\n2,Marathon,Sports\n"})
    refused(path, capsys, "line 3", "2 fields", tool="doccano")


def test_mturk_csv_short_row_is_refused(tmp_path, capsys):
    # MTurk batch results: HITId, WorkerId, AssignmentStatus, Answer.<name> columns
    path = write(tmp_path / "Batch_1_batch_results.csv",
                 "HITId,WorkerId,AssignmentStatus,Answer.sentiment.label\n"
                 "h1,W1,Approved,positive\nh1,W2,Approved\n")
    refused(path, capsys, "line 3", "3 fields where the header has 4", tool="mturk")


def test_trailing_separator_on_data_rows_is_refused_not_shifted(tmp_path, capsys):
    # pandas would take the item column as the index: items would become annotator names
    path = write(tmp_path / "votes.csv", "item,annotator,labels\ns1,ann,a,\ns1,bob,b,\n"
                 "s2,ann,a,\ns2,bob,a,\n")
    message = refused(path, capsys, "line 2", "one field more")
    assert "trailing separator" in message


def test_one_row_with_an_extra_field_is_refused(tmp_path, capsys):
    path = write(tmp_path / "crowd.csv", "task,worker,label\nt1,w1,spam\nt1,w2,ham,x\n")
    refused(path, capsys, "line 3", "more than the header", tool="crowd")


def test_trailing_separator_everywhere_is_an_unnamed_empty_column(tmp_path):
    # header and rows alike end in a separator: every row has as many fields as the header
    path = write(tmp_path / "votes.csv", "item,annotator,labels,\ns1,ann,a,\ns1,bob,b,\n")
    da = read_annotations(path)
    assert da.sel(item="s1").values.tolist() == [[1, 0], [0, 1]]


def test_blank_lines_are_skipped_and_a_gzip_table_is_read(tmp_path):
    import gzip

    text = "item,annotator,labels\n\ns1,ann,a\ns1,bob,a;b\n\n"
    path = tmp_path / "votes.csv.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(text)
    da = read_annotations(path)
    assert da.sel(item="s1").values.tolist() == [[1, 0], [1, 1]]


# --------------------------------------------------------------------------------------
# NaN and Infinity (Python's json module reads them) are neither ids nor labels
# --------------------------------------------------------------------------------------


def label_studio_task(task_id, annotations):
    # Label Studio's JSON export (https://labelstud.io/guide/export#Label-Studio-JSON-format-
    # of-annotated-tasks): a JSON array of tasks {"id", "data", "annotations": [{"id",
    # "completed_by", "result": [{"from_name", "to_name", "type", "value"}]}]}
    return {"id": task_id, "data": {"text": "some text"}, "annotations": [
        {"id": number, "completed_by": who, "result": [
            {"from_name": "topic", "to_name": "text", "type": "choices",
             "value": {"choices": chosen}}]}
        for number, (who, chosen) in enumerate(annotations, start=1)]}


def test_label_studio_tasks_with_id_nan_are_refused(tmp_path, capsys):
    # json.dumps writes float("nan") as NaN; json.loads reads it back: two tasks, one "item"
    tasks = [label_studio_task(float("nan"), [(1, ["sport"]), (2, ["news"])]),
             label_studio_task(float("nan"), [(1, ["news"]), (2, ["news"])])]
    path = write(tmp_path / "export.json", json.dumps(tasks, indent=1))
    assert "NaN" in path.read_text()
    message = refused(path, capsys, "NaN")
    assert "line 3" in message  # "id": NaN of the first task, json.dumps(indent=1)
    refused(path, capsys, "NaN", tool="label-studio")


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity"])
def test_label_studio_infinite_annotator_is_refused(tmp_path, capsys, constant):
    tasks = [label_studio_task(1, [(1, ["sport"]), (2, ["news"])])]
    text = json.dumps(tasks).replace('"completed_by": 2', f'"completed_by": {constant}')
    path = write(tmp_path / "export.json", text)
    refused(path, capsys, constant, tool="label-studio")


def test_a_string_nan_is_an_id_like_any_other(tmp_path):
    # the text "NaN" in a JSON string is an id; only the bare constant is refused
    tasks = [label_studio_task("NaN", [(1, ["sport"]), (2, ["news"])]),
             label_studio_task(7, [(1, ["news"]), (2, ["news"])])]
    path = write(tmp_path / "export.json", json.dumps(tasks))
    da = read_annotations(path, tool="label-studio")
    assert sorted(map(str, da["item"].values)) == ["7", "NaN"]


def test_generic_jsonl_nan_label_and_id_are_refused(tmp_path, capsys):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                 '{"item": NaN, "annotator": "b", "labels": ["x"]}\n')
    refused(path, capsys, "line 2", "NaN")
    path = write(tmp_path / "single.jsonl", '{"item": 1, "annotator": "a", "rating": 1}\n'
                 '{"item": 1, "annotator": "b", "rating": Infinity}\n')
    refused(path, capsys, "line 2", "Infinity", layout="single")


def test_parquet_infinite_id_and_label_are_refused(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "votes.parquet"
    pd.DataFrame({"item": [1.5, float("inf"), float("inf")], "annotator": ["a", "a", "b"],
                  "labels": [["x"], ["x"], ["y"]]}).to_parquet(path)
    refused(path, capsys, "row 2", "item")
    path = tmp_path / "ratings.parquet"
    pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"],
                  "rating": [1.0, float("inf")]}).to_parquet(path)
    with pytest.raises(AnnotationFileError, match="row 2"):
        read_annotations(path, layout="single")


def test_label_text_refuses_non_finite_numbers():
    from xr_agreement.io.cells import label_text

    def where(message, row, column):
        return AnnotationFileError(message, path="f.json", row=row, column=column)

    for value in (float("nan"), float("inf"), np.float64("-inf")):
        with pytest.raises(AnnotationFileError, match="finite"):
            label_text(value, where, 1, "label")
    assert label_text(2.0, where) == "2" and label_text(1, where) == "1"


# --------------------------------------------------------------------------------------
# blank and invisible ids
# --------------------------------------------------------------------------------------


def test_whitespace_annotator_in_label_studio_is_refused(tmp_path, capsys):
    tasks = [label_studio_task(1, [(" ", ["sport"]), (2, ["news"])]),
             label_studio_task(2, [(" ", ["news"]), (2, ["news"])])]
    path = write(tmp_path / "export.json", json.dumps(tasks))
    refused(path, capsys, "blank", tool="label-studio")


def test_whitespace_task_id_in_label_studio_is_refused(tmp_path, capsys):
    tasks = [label_studio_task(" ", [(1, ["sport"]), (2, ["news"])]),
             label_studio_task("\t", [(1, ["news"]), (2, ["news"])])]
    path = write(tmp_path / "export.json", json.dumps(tasks))
    refused(path, capsys, "blank", tool="label-studio")


def test_invisible_ids_are_refused_in_tables(tmp_path, capsys):
    # a zero-width space is no annotator: generic, crowd and wide tables
    path = write(tmp_path / "votes.csv", "item,annotator,labels\ns1,\u200b,a\ns1,bob,b\n")
    refused(path, capsys, "line 2", "annotator")
    path = write(tmp_path / "crowd.csv", "task,worker,label\nt1,w1,a\n\u200b,w2,b\n")
    refused(path, capsys, "line 3", "task", tool="crowd")
    path = write(tmp_path / "wide.csv", "id,rater_id,joy,anger\nx1,\ufeff,1,0\nx1,2,1,0\n")
    refused(path, capsys, "line 2", "rater_id", tool="wide")


def test_an_invisible_label_is_refused():
    from xr_agreement.io.cells import label_text

    def where(message, row, column):
        return AnnotationFileError(message, path="f.csv", row=row, column=column)

    with pytest.raises(AnnotationFileError, match="invisible"):
        label_text("\u200b\u200d", where, 1, "label")


# --------------------------------------------------------------------------------------
# label and rating values: integers only when no two labels merge
# --------------------------------------------------------------------------------------


def test_labels_01_and_1_stay_two_labels_in_sets(tmp_path):
    path = write(tmp_path / "votes.csv", "item,annotator,labels\ns1,ann,01\ns1,bob,1\n"
                 "s2,ann,1\ns2,bob,1\n")
    da = read_annotations(path, layout="sets")
    assert sorted(da["label"].values.tolist()) == ["01", "1"]
    # by hand: on s1 ann chose "01" only and bob "1" only; on s2 both chose "1"
    assert da.sel(item="s1", annotator="ann", label="01") == 1
    assert da.sel(item="s1", annotator="ann", label="1") == 0
    assert da.sel(item="s1", annotator="bob", label="01") == 0
    assert da.sel(item="s2", label="1").values.tolist() == [1, 1]
    assert da.sel(item="s2", label="01").values.tolist() == [0, 0]


def test_ratings_01_and_1_stay_two_categories(tmp_path):
    path = write(tmp_path / "ratings.csv", "item,annotator,rating\ns1,ann,01\ns1,bob,1\n"
                 "s2,ann,2\ns2,bob,2\n")
    da = read_annotations(path, layout="single")
    assert da.sel(item="s1").values.tolist() == ["01", "1"]  # they disagree on s1
    assert da.sel(item="s2").values.tolist() == ["2", "2"]


def test_integer_ratings_still_become_int(tmp_path):
    path = write(tmp_path / "ratings.csv", "item,annotator,rating\ns1,ann,1\ns1,bob,2\n")
    da = read_annotations(path, layout="single")
    assert da.sel(item="s1").values.tolist() == [1.0, 2.0]


def test_labels_01_and_1_stay_two_labels_in_long(tmp_path):
    path = write(tmp_path / "long.csv", "item,annotator,label,value\ns1,ann,01,1\n"
                 "s1,ann,1,0\ns1,bob,01,0\ns1,bob,1,1\n")
    da = read_annotations(path, layout="long")
    assert sorted(da["label"].values.tolist()) == ["01", "1"]
    assert da.sel(item="s1", annotator="ann", label="01") == 1
    assert da.sel(item="s1", annotator="bob", label="1") == 1
    assert da.sel(item="s1", annotator="bob", label="01") == 0


def test_json_true_and_1_are_not_one_label(tmp_path, capsys):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": [true]}\n'
                 '{"item": 1, "annotator": "b", "labels": [1]}\n')
    refused(path, capsys, "row 1", "boolean")
    path = write(tmp_path / "ratings.jsonl", '{"item": 1, "annotator": "a", "rating": 1}\n'
                 '{"item": 1, "annotator": "b", "rating": true}\n')
    with pytest.raises(AnnotationFileError, match="row 2.*boolean"):
        read_annotations(path, layout="single")


def test_json_1_and_text_1_are_one_label_spelled_two_ways(tmp_path):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["1"]}\n'
                 '{"item": 1, "annotator": "b", "labels": [1, "2"]}\n')
    da = read_annotations(path)
    assert da["label"].values.tolist() == [1, 2]
    assert da.sel(item=1).values.tolist() == [[1, 0], [1, 1]]


def test_json_01_and_1_are_two_labels(tmp_path):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["01"]}\n'
                 '{"item": 1, "annotator": "b", "labels": [1]}\n')
    da = read_annotations(path)
    assert sorted(da["label"].values.tolist()) == ["01", "1"]
    assert da.sel(item=1, label="1").values.tolist() == [0, 1]


def test_tool_readers_keep_01_and_1_apart(tmp_path):
    path = write(tmp_path / "crowd.csv", "task,worker,label\nt1,w1,01\nt1,w2,1\n")
    da = read_annotations(path, tool="crowd", layout="sets")  # one label each: sets by name
    assert da["label"].values.tolist() == ["01", "1"]
    assert da.sel(item="t1").values.tolist() == [[1, 0], [0, 1]]
    ratings = read_annotations(path, tool="crowd")
    assert ratings.sel(item="t1").values.tolist() == ["01", "1"]


def test_parquet_integer_labels_meet_a_text_universe(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "votes.parquet"
    pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"],
                  "labels": [[1], [1, 2]]}).to_parquet(path)
    universe = write(tmp_path / "labels.txt", "1\n2\n3\n")
    da = read_annotations(path, labels=universe)
    assert da["label"].values.tolist() == [1, 2, 3]
    assert da.sel(item=1).values.tolist() == [[1, 0, 0], [1, 1, 0]]


# --------------------------------------------------------------------------------------
# internal errors: each is one line about the file, or the file is read
# --------------------------------------------------------------------------------------


def test_wide_table_with_an_all_blank_column_is_read(tmp_path, capsys):
    # GoEmotions-like raw ratings (one 0/1 column per label) with an empty notes column: an
    # all-blank column of no known role is not a label column (was IndexError)
    path = write(tmp_path / "wide.csv", "id,rater_id,joy,anger,notes\nx1,1,1,0,\nx1,2,1,0,\n"
                 "x2,1,0,1,\nx2,2,0,0,\n")
    da = read_annotations(path, tool="wide")
    assert da["label"].values.tolist() == ["joy", "anger"]
    assert da.sel(item="x1").values.tolist() == [[1, 0], [1, 0]]
    assert da.sel(item="x2").values.tolist() == [[0, 1], [0, 0]]
    code, out, err = cli(["report", path, "--from", "wide"], capsys)
    assert code == 0 and err == ""


def test_wide_parquet_with_a_list_column_is_not_a_label_column(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "wide.parquet"
    pd.DataFrame({"id": ["x1", "x1"], "rater_id": [1, 2], "joy": [1, 0],
                  "tags": [["a", "b"], ["b", "c"]]}).to_parquet(path)
    da = read_annotations(path, tool="wide")  # was "truth value of an array is ambiguous"
    assert da["label"].values.tolist() == ["joy"]
    assert da.sel(item="x1").values.tolist() == [[1], [0]]


def test_nested_lists_as_labels_are_refused(tmp_path, capsys):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": '
                 '[["x", "y"]]}\n{"item": 1, "annotator": "b", "labels": ["x"]}\n')
    refused(path, capsys, "row 1", "nested list")
    path = write(tmp_path / "long.jsonl", '{"item": 1, "annotator": "a", "label": ["x"], '
                 '"value": 1}\n')
    with pytest.raises(AnnotationFileError, match="nested list"):
        read_annotations(path, layout="long")
    path = write(tmp_path / "ids.jsonl", '{"item": [1], "annotator": "a", "labels": ["x"]}\n')
    refused(path, capsys, "row 1", "item")


def test_nested_lists_in_parquet_are_refused(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "votes.parquet"
    pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"],
                  "labels": [[["x", "y"]], [["x"]]]}).to_parquet(path)
    refused(path, capsys, "row 1", "nested")


DEEP = "[" * 100_000 + "]" * 100_000  # json.loads raises RecursionError on this


def test_deeply_nested_json_is_one_line(tmp_path, capsys):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                 '{"item": 2, "annotator": "a", "labels": ' + DEEP + '}\n')
    refused(path, capsys, "line 2", "nested too deeply")
    path = write(tmp_path / "export.json", DEEP)
    refused(path, capsys, "nested too deeply", tool="label-studio")
    path = write(tmp_path / "crowd.csv", "task,worker,label\nt1,w1,a\nt1,w2," + DEEP + "\n")
    refused(path, capsys, "line 3", "cannot be parsed", tool="crowd")


BIG = "7" * 5000  # int() of this raises "Exceeds the limit (4300 digits)"


def test_5000_digit_ids_and_labels_in_csv_stay_text(tmp_path):
    path = write(tmp_path / "votes.csv", f"item,annotator,labels\n{BIG},ann,{BIG}\n"
                 f"{BIG},bob,a\n2,ann,a\n2,bob,a\n")
    da = read_annotations(path)
    assert da["item"].values.tolist() == [BIG, "2"]
    assert sorted(da["label"].values.tolist()) == [BIG, "a"]
    assert da.sel(item=BIG, label=BIG).values.tolist() == [1, 0]
    path = write(tmp_path / "crowd.csv", f"task,worker,label\n{BIG},w1,{BIG}\n{BIG},w2,a\n")
    da = read_annotations(path, tool="crowd")
    assert da["item"].values.tolist() == [BIG]
    path = write(tmp_path / "ratings.csv", f"item,annotator,rating\n1,ann,{BIG}\n1,bob,1\n")
    assert read_annotations(path, layout="single").values.tolist() == [[BIG, "1"]]


def test_a_5000_digit_json_number_is_refused_naming_its_line(tmp_path, capsys):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                 f'{{"item": {BIG}, "annotator": "b", "labels": ["x"]}}\n')
    refused(path, capsys, "line 2", "too long")
    tasks = json.dumps([label_studio_task(1, [(1, ["sport"]), (2, ["news"])])])
    path = write(tmp_path / "export.json", tasks.replace('"id": 1,', f'"id": {BIG},', 1))
    refused(path, capsys, "too long", tool="label-studio")


def test_lines_are_named_past_a_multi_line_cell_and_a_blank_line(tmp_path, capsys):
    # a quoted cell spans lines 2-3 and line 4 is blank: the duplicate row is on line 6
    path = write(tmp_path / "votes.csv", 'item,annotator,labels,text\ns1,ann,a,"two\nlines"\n'
                 "\ns1,bob,a,x\ns1,bob,b,y\n")
    refused(path, capsys, "row 3 (line 6)", "duplicate")
    path = write(tmp_path / "crowd.csv", 'task,worker,label,text\nt1,w1,a,"two\nlines"\n\n'
                 "t1, ,a,x\n")
    refused(path, capsys, "row 2 (line 5)", "empty cell", tool="crowd")


def test_json_ids_1_and_text_1_are_one_item_01_and_1_two(tmp_path):
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                 '{"item": "1", "annotator": "b", "labels": []}\n'
                 '{"item": "01", "annotator": "b", "labels": ["x"]}\n')
    da = read_annotations(path)
    # by hand: item "1" (spelled 1 and "1") has a: x, b: nothing; item "01" has b: x only
    assert sorted(da["item"].values.tolist()) == ["01", "1"]
    assert da.sel(item="1").values.tolist() == [[1], [0]]
    assert np.isnan(da.sel(item="01", annotator="a").values).all()
    assert da.sel(item="01", annotator="b").values.tolist() == [1]


def test_lists_as_ids_or_nested_labels_in_crowd_and_wide_parquet_are_refused(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "crowd.parquet"
    pd.DataFrame({"task": [["t1"], ["t1"]], "worker": ["w1", "w2"],
                  "label": ["a", "b"]}).to_parquet(path)
    refused(path, capsys, "row 1", "task", tool="crowd")  # was "unhashable type"
    path = tmp_path / "nested.parquet"
    pd.DataFrame({"task": ["t1", "t1"], "worker": ["w1", "w2"],
                  "label": [[["a", "b"]], [["b"]]]}).to_parquet(path)
    refused(path, capsys, "row 1", "nested", tool="crowd")
    path = tmp_path / "wide.parquet"
    pd.DataFrame({"id": [["x"], ["x"]], "rater_id": [1, 2], "joy": [1, 0]}).to_parquet(path)
    refused(path, capsys, "row 1", "id", tool="wide")


def test_deep_json_in_mturk_and_argilla_cells_is_one_line(tmp_path, capsys):
    # MTurk batch results with the crowd-html form's Answer.taskAnswers JSON column
    path = write(tmp_path / "Batch_1_batch_results.csv",
                 "HITId,WorkerId,AssignmentStatus,Answer.taskAnswers\n"
                 f"h1,W1,Approved,{DEEP}\n"
                 'h1,W2,Approved,"[{""sentiment"": {""label"": ""positive""}}]"\n')
    refused(path, capsys, "line 2", "Answer.taskAnswers", tool="mturk")
    # Argilla v2 flat records as CSV: <question>.responses, .responses.users, .status lists
    path = write(tmp_path / "records.csv",
                 "id,topics.responses,topics.responses.users,topics.responses.status\n"
                 f'r1,{DEEP},"[""u1""]","[""submitted""]"\n')
    refused(path, capsys, "topics.responses", tool="argilla")


def test_json_lines_are_split_at_newlines_only(tmp_path):
    # JSON allows U+2028 (and U+0085, U+001C) raw inside a string; a JSON-lines reader that
    # split there read the record as two cut lines. Prodigy db-out, one task per line.
    tasks = [{"text": f"first\u2028second {n}", "_input_hash": n, "_annotator_id": who,
              "options": [{"id": "a"}, {"id": "b"}], "accept": chosen, "answer": "accept"}
             for n, who, chosen in ((1, "ann", ["a"]), (1, "bob", ["a", "b"]))]
    path = tmp_path / "db-out.jsonl"
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\r\n" for t in tasks),
                    encoding="utf-8")
    da = read_annotations(path)
    assert da.attrs["reader"] == "prodigy"
    assert da.sel(item=1).values.tolist() == [[1.0, 0.0], [1.0, 1.0]]


# --------------------------------------------------------------------------------------
# review of issue 28: a quoted cell the file ends inside
# --------------------------------------------------------------------------------------


def test_a_quote_never_closed_is_refused_not_the_rest_of_the_file_as_one_cell(tmp_path,
                                                                              capsys):
    # the csv module takes everything after an unclosed quote as one cell: the rows of
    # items s2 and s3 vanished into bob's label of s1 (pandas refused: "EOF inside string")
    path = write(tmp_path / "votes.csv", 'item,annotator,labels\ns1,ann,x\ns1,bob,"x\n'
                 "s2,ann,y\ns2,bob,y\ns3,ann,x\ns3,bob,y\n")
    refused(path, capsys, "line 3", "never closed")
    # a download cut inside the last row's quoted labels: "pos;ne" is not two labels
    cut = write(tmp_path / "cut.csv", 'task,worker,label\nt1,w1,pos\nt1,w2,"pos;ne')
    refused(cut, capsys, "line 3", "never closed", tool="crowd")
    # the same through a quoted multi-line cell before it: the line its row starts on
    multi = write(tmp_path / "multi.csv", 'item,annotator,labels\ns1,ann,"x\ny"\n'
                  's1,bob,"x\n')
    refused(multi, capsys, "line 4", "never closed")


def test_text_after_a_closing_quote_is_read_as_before(tmp_path):
    # pandas read '"x" y' as the cell 'x y'; the csv module's strict mode refuses it, so
    # such a file is read leniently, as it was
    path = write(tmp_path / "votes.csv", 'item,annotator,labels\ns1,ann,"x" y\ns1,bob,y\n')
    da = read_annotations(path)
    assert da.sel(item="s1", annotator="ann", label="x y").item() == 1.0
    assert da.sel(item="s1", annotator="bob", label="y").item() == 1.0


def test_a_json_record_without_the_labels_key_is_not_chose_no_label(tmp_path, capsys):
    # the JSON lines counterpart of a CSV row missing its label field: pandas fills the
    # absent key with NaN, which read as an empty cell, "chose no label" (b on item 1 was
    # all 0); the line is named (the blank line 2 is skipped)
    path = write(tmp_path / "votes.jsonl", '{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                 '\n{"item": 1, "annotator": "b"}\n'
                 '{"item": 2, "annotator": "a", "labels": ["y"]}\n'
                 '{"item": 2, "annotator": "b", "labels": []}\n')
    refused(path, capsys, "row 2 (line 3)", "no 'labels' key")
    long = write(tmp_path / "long.jsonl", '{"item": 1, "annotator": "a", "label": "x", '
                 '"value": 1}\n{"item": 1, "annotator": "b", "label": "x"}\n')
    refused(long, capsys, "line 2", "no 'value' key")
    # an explicit empty list is read as before, and so is a key no record has
    path.write_text('{"item": 1, "annotator": "a", "labels": ["x"], "note": "n"}\n'
                    '{"item": 1, "annotator": "b", "labels": []}\n')
    da = read_annotations(path)
    assert da.sel(item=1).values.tolist() == [[1], [0]]


def test_a_json_lines_table_with_a_byte_order_mark_is_read(tmp_path):
    # Windows editors save UTF-8 with a BOM; the tool readers dropped it, the table reader
    # refused line 1 ("Unexpected UTF-8 BOM")
    path = tmp_path / "votes.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"item": 1, "annotator": "a", "labels": ["x"]}\n'
                     b'{"item": 1, "annotator": "b", "labels": []}\n')
    da = read_annotations(path)
    assert da.sel(item=1).values.tolist() == [[1], [0]]


def test_a_label_file_with_a_byte_order_mark_declares_its_first_label(tmp_path, capsys):
    # the BOM was read as part of the first label: "\ufeffx" is not "x", and the file's
    # "x" was refused as outside the universe; a file that is not UTF-8 was a message
    # without the file's name
    votes = write(tmp_path / "votes.csv", "item,annotator,labels\ns1,a,x\ns1,b,y\n")
    labels = tmp_path / "labels.txt"
    labels.write_bytes(b"\xef\xbb\xbfx\ny\n")
    da = read_annotations(votes, labels=str(labels))
    assert da["label"].values.tolist() == ["x", "y"]
    labels.write_bytes(b"caf\xe9\n")
    with pytest.raises(AnnotationFileError, match="not UTF-8") as caught:
        read_annotations(votes, labels=str(labels))
    assert str(labels) in str(caught.value)


def test_a_table_zipped_on_macos_is_read(tmp_path):
    # macOS's "Compress" adds __MACOSX/._votes.csv beside votes.csv: the zip was refused as
    # holding two files
    path = tmp_path / "votes.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("votes.csv", "item,annotator,labels\ns1,a,x\ns1,b,y\n")
        archive.writestr("__MACOSX/._votes.csv", b"\x00\x05\x16\x07 resource fork")
    da = read_annotations(path)
    assert da.sel(item="s1").values.tolist() == [[1, 0], [0, 1]]
