"""The tool readers' shortcuts (issue 31, part 3) keep every guard: a check made once per
distinct value still names the first record where a bad value occurs, never merges values
that differ in type (1, "1", True), the Label Studio export detected from its head is still
refused whole when its tail is damaged, the garbage collector is never left paused, and the
decisions set from factorized codes are the ones the per-annotation loop set."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest

from xr_agreement.io import AnnotationFileError, read_annotations
from xr_agreement.io.cells import LabelTexts
from xr_agreement.io.tools import detect_tool
from xr_agreement.io.tools._common import (REST_ZERO, Annotation, Dropped, ScalarIds, Where,
                                           build)

OPTIONS = [{"id": label, "text": label} for label in ("a", "b", "c")]


def prodigy_line(i: int, who="ann-1", accept=("a",), options=OPTIONS, **extra) -> str:
    return json.dumps({"_input_hash": i, "_annotator_id": who, "answer": "accept",
                       "options": options, "accept": list(accept), **extra})


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def where(message, row=None, column=None, line=None):
    return AnnotationFileError(message, path="f", row=row, column=column, line=line)


def test_a_bad_label_first_at_line_5000_is_named_there(tmp_path):
    lines = [prodigy_line(i) for i in range(1, 5000)]
    lines.append(prodigy_line(5000, accept=["a", "[x]"],
                              options=OPTIONS + [{"id": "[x]", "text": "x"}]))
    lines += [prodigy_line(i, accept=["[x]"], options=OPTIONS + [{"id": "[x]"}])
              for i in range(5001, 5100)]
    path = write_lines(tmp_path / "db.jsonl", lines)
    with pytest.raises(AnnotationFileError, match=r"line 5000, column 'options'.*looks like"):
        read_annotations(path)


def test_an_invisible_label_first_at_line_5000_is_named_there(tmp_path):
    lines = [prodigy_line(i) for i in range(1, 5000)]
    lines.append(prodigy_line(5000, options=OPTIONS + [{"id": "\u200b"}]))
    path = write_lines(tmp_path / "db.jsonl", lines)
    with pytest.raises(AnnotationFileError, match=r"line 5000.*empty label"):
        read_annotations(path)


def test_an_argilla_label_first_bad_at_line_5000_is_named_there(tmp_path):
    def record(i, value):
        return json.dumps({"id": f"r{i}", "label.responses": [value, ["a"]],
                           "label.responses.users": ["u1", "u2"],
                           "label.responses.status": ["submitted", "submitted"]})

    lines = [record(i, ["a", "b"]) for i in range(1, 5000)] + [record(5000, ["a", True])]
    path = write_lines(tmp_path / "argilla.jsonl", lines)
    with pytest.raises(AnnotationFileError, match=r"line 5000.*a label must be text, got True"):
        read_annotations(path)


def test_the_memos_never_merge_1_and_text_1_or_true_and_1():
    texts = LabelTexts()
    assert texts("1", where) == "1"
    with pytest.raises(AnnotationFileError, match="got True"):
        texts(True, where, 7)
    with pytest.raises(AnnotationFileError, match="got True"):
        texts.many(["1", True], where, 8)
    assert texts(1, where) == "1" and texts(1.0, where) == "1"
    with pytest.raises(AnnotationFileError, match="got True"):
        texts(True, where, 9)  # after 1, which equals True as a dict key
    with pytest.raises(AnnotationFileError, match="nested list"):
        texts.many(["1", ["1"]], where)
    ids = ScalarIds()
    assert ids("1", where, 1, "id") == "1"
    assert ids(1, where, 2, "id") == 1  # the int, never the text seen before
    with pytest.raises(AnnotationFileError, match="got bool True"):
        ids(True, where, 3, "id")
    assert ids(2.0, where, 4, "id") == 2 and type(ids(2.0, where, 4, "id")) is int
    with pytest.raises(AnnotationFileError, match="blank"):
        ids(" ", where, 5, "id")


def test_prodigy_true_after_the_option_1_is_refused(tmp_path):
    one = [{"id": 1}, {"id": "2"}]
    lines = [prodigy_line(1, accept=[1], options=one),
             prodigy_line(2, accept=[True], options=[{"id": True}, {"id": "2"}])]
    path = write_lines(tmp_path / "db.jsonl", lines)
    with pytest.raises(AnnotationFileError, match=r"line 2.*a label must be text, got True"):
        read_annotations(path)


def test_prodigy_annotator_true_after_text_1_is_refused(tmp_path):
    lines = [prodigy_line(1, who="1"), prodigy_line(2, who=True)]
    path = write_lines(tmp_path / "db.jsonl", lines)
    with pytest.raises(AnnotationFileError, match=r"line 2.*_annotator_id must be an id"):
        read_annotations(path)


def label_studio_tasks(n: int) -> list[dict]:
    return [{"id": i, "project": 1, "annotations": [
        {"id": 10 * i + a, "completed_by": a, "result": [
            {"from_name": "label", "to_name": "text", "type": "choices",
             "value": {"choices": ["x" if (i + a) % 3 else "y"]}}]} for a in (1, 2)]}
        for i in range(1, n + 1)]


def test_a_label_studio_array_truncated_after_its_head_is_refused(tmp_path):
    text = json.dumps(label_studio_tasks(1500))
    path = tmp_path / "export.json"
    path.write_text(text[: len(text) - 300])
    assert detect_tool(path) == "label-studio"  # from the head: the reader parses it whole
    with pytest.raises(AnnotationFileError, match=r"invalid JSON \(truncated or malformed\)"):
        read_annotations(path)
    with pytest.raises(AnnotationFileError, match=r"invalid JSON \(truncated or malformed\)"):
        read_annotations(path, tool="label-studio")


def test_a_label_studio_array_with_a_bad_record_after_its_head_is_refused(tmp_path):
    tasks = label_studio_tasks(1500)
    tasks[1200] = ["not", "a", "task"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(AnnotationFileError, match=r"row 1201.*must be a JSON object, got list"):
        read_annotations(path)
    tasks[1200] = {"id": 1201, "annotations": [{"completed_by": 1, "result": [
        {"type": "choices", "from_name": "label", "value": {"choices": [float("nan")]}}]}]}
    path.write_text(json.dumps(tasks))
    with pytest.raises(AnnotationFileError, match="NaN is not a number JSON allows"):
        read_annotations(path)


def test_a_label_studio_array_is_parsed_once(tmp_path, monkeypatch):
    from xr_agreement.io.tools import _common

    calls = []
    parse = _common.parse_json
    monkeypatch.setattr(_common, "parse_json", lambda text: calls.append(1) or parse(text))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(label_studio_tasks(1500)))
    assert read_annotations(path).attrs["reader"] == "label-studio"
    assert len(calls) == 1


def test_a_label_studio_array_read_whole_gives_the_loop_s_decisions(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(label_studio_tasks(1500)))
    da = read_annotations(path, layout="sets")
    assert da.sizes == {"item": 1500, "annotator": 2, "label": 2}
    expected = np.array([[[0.0, 1.0] if (i + a) % 3 == 0 else [1.0, 0.0] for a in (1, 2)]
                         for i in range(1, 1501)])
    np.testing.assert_array_equal(da.values, expected)


def test_the_collector_runs_again_after_a_reading_and_after_an_error(tmp_path):
    assert gc.isenabled()
    good = write_lines(tmp_path / "db.jsonl", [prodigy_line(1), prodigy_line(2, "ann-2")])
    read_annotations(good)
    assert gc.isenabled()
    bad = write_lines(tmp_path / "bad.jsonl", [prodigy_line(1), prodigy_line(1)])
    with pytest.raises(AnnotationFileError, match="duplicate annotation"):
        read_annotations(bad)
    assert gc.isenabled()


def test_the_factorized_fill_sets_what_the_loop_set():
    annotations = [
        Annotation("i1", "a", ["x"], REST_ZERO, row=1),
        Annotation("i1", "b", ["y"], ["x"], row=2),  # z not offered: NaN
        Annotation("i2", "a", [], ["z"], row=3),  # a rejected choice: z 0, rest NaN
        Annotation("i2", "b", None, row=4),  # no decision
        Annotation("i3", "b", ["x", "z"], REST_ZERO, row=5),
    ]
    da = build(annotations, reader="test", dropped=Dropped(), where=Where("f"),
               universe=["x", "y", "z"])
    nan = np.nan
    expected = [[[1, 0, 0], [0, 1, nan]], [[nan, nan, 0], [nan, nan, nan]],
                [[nan, nan, nan], [1, 0, 1]]]
    np.testing.assert_array_equal(da.values, np.array(expected, dtype=float))
    assert list(da["item"].values) == ["i1", "i2", "i3"]
