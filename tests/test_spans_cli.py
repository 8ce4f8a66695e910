"""``xr-agreement report`` and ``xr-agreement disagreements`` on span exports: a Label Studio
NER export written here in the documented JSON format (https://labelstud.io/guide/export),
read by the command line and checked against the span report of the same table and against
positions counted by brute force from the tasks as written."""

import csv
import io
import json
import os
import sys

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_spans_report import oracle  # noqa: E402  (the brute-force position counts)

import xr_agreement  # noqa: E402
from xr_agreement.cli import main  # noqa: E402
from xr_agreement.report import span_report  # noqa: E402

CONFIG = """<View>
  <Labels name="label" toName="text">
    <Label value="PER"/>
    <Label value="ORG"/>
    <Label value="LOC"/>
    <Label value="=SUM(A1)"/>
  </Labels>
  <Text name="text" value="$text"/>
</View>
"""
LABELS = ["PER", "ORG", "LOC", "=SUM(A1)"]

# task id -> text; annotator (user id) -> regions (the words marked, label), None: cancelled
TASKS = {
    1: "Ada Lovelace met Charles Babbage at the University of London.",
    2: "=cmd| '/C calc'!A0 <script>alert(1)</script> in Nairobi",
    3: "Nothing here.",
    4: "The United Nations met in Geneva and Nairobi.",
}
MARKED = {
    1: {1: [("Ada Lovelace", "PER"), ("Charles Babbage", "PER"),
            ("University of London", "ORG"), ("London", "LOC")],
        2: [("Ada Lovelace", "PER"), ("Babbage", "PER"), ("University of London", "ORG")],
        3: [("Ada", "PER"), ("Lovelace", "PER"), ("University of London", "ORG"),
            ("London", "LOC")]},
    2: {1: [("=cmd| '/C calc'!A0", "=SUM(A1)"), ("Nairobi", "LOC")],
        2: [("Nairobi", "LOC")], 3: None},
    3: {1: [], 2: [], 3: []},
    4: {1: [("The United Nations", "ORG"), ("Geneva", "LOC"), ("Nairobi", "LOC")],
        2: [("United Nations", "ORG"), ("Geneva", "LOC")]},
}
# the same as (start, end, label), offsets found in the text
ANNOTATIONS = {
    task: {user: None if marked is None else [
        (TASKS[task].index(words), TASKS[task].index(words) + len(words), label)
        for words, label in marked] for user, marked in per_user.items()}
    for task, per_user in MARKED.items()}


def region(number, text, start, end, label):
    return {"id": f"r{number}", "from_name": "label", "to_name": "text", "type": "labels",
            "origin": "manual",
            "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]}}


def write_export(folder):
    tasks, number = [], 0
    for task, text in TASKS.items():
        annotations = []
        for user, regions in ANNOTATIONS[task].items():
            number += 1
            result = [region(f"{number}-{i}", text, *r) for i, r in enumerate(regions or [])]
            annotations.append({"id": number, "completed_by": user, "result": result,
                                "was_cancelled": regions is None, "ground_truth": False,
                                "lead_time": 3.2, "task": task})
        tasks.append({"id": task, "data": {"text": text}, "annotations": annotations,
                      "drafts": [], "predictions": [], "meta": {}})
    path = folder / "project-1-at-2026-12-03.json"
    path.write_text(json.dumps(tasks, indent=1))
    config = folder / "config.xml"
    config.write_text(CONFIG)
    return str(path), str(config)


@pytest.fixture()
def export(tmp_path):
    return write_export(tmp_path)


def truth():
    """The tasks as written, as the oracle's records: a cancelled annotation is no
    decision (the annotator did not annotate the task), an empty result is one."""
    records, annotated = [], []
    for task, per_user in ANNOTATIONS.items():
        for user, regions in per_user.items():
            if regions is None:
                continue
            annotated.append((task, user))
            records += [(task, user, s, e, label) for s, e, label in regions]
    return oracle(records, annotated, TASKS, LABELS)


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_report_of_a_span_export_against_brute_force(export, capsys):
    path, config = export
    code, out, err = run(["report", path, "--spans", "--labels", config, "--format", "json"],
                         capsys)
    assert code == 0 and err == ""
    summary = json.loads(out)["summary"]
    expected = truth()
    assert summary["observed"] == pytest.approx(float(expected["observed"]), abs=1e-12)
    assert summary["agreement"]["F"] == pytest.approx(float(expected["agreement"]), abs=1e-12)
    assert summary["n_documents"] == 4 and summary["n_annotators"] == 3
    assert summary["n_positions"] == sum(len(t) for t in TASKS.values())


def test_report_is_the_python_span_report(export, capsys):
    path, config = export
    table = xr_agreement.read_spans(path, labels=config)
    expected = span_report(table, "AC1", title=f"Span agreement report: {os.path.basename(path)}")
    for form, render in (("json", lambda r: r.to_json() + "\n"), ("text", str),
                         ("markdown", lambda r: r.to_markdown()), ("html", lambda r: r.to_html())):
        code, out, err = run(["report", path, "--spans", "--labels", config, "--baseline",
                              "AC1", "--format", form], capsys)
        assert code == 0 and err == "" and out == render(expected), form


def test_cancelled_is_missing_in_the_report(export, capsys):
    path, config = export
    code, out, _ = run(["report", path, "--spans", "--labels", config], capsys)
    text = " ".join(out.split())
    assert code == 0 and out.splitlines()[3].startswith("These numbers are span agreement")
    assert "annotator 3 did not annotate 2 of 4 documents (2, 4)" in text
    assert "never read as 'marked nothing'" in text


def test_span_export_is_recognised_without_spans(export, capsys):
    """The Label Studio classification reader refuses a Labels control and points to
    read_spans: the command line then reads the spans."""
    path, config = export
    with pytest.raises(xr_agreement.AnnotationFileError, match="read_spans"):
        xr_agreement.read_annotations(path, labels=config)
    forced = run(["report", path, "--spans", "--labels", config, "--format", "json"], capsys)
    told = run(["report", path, "--labels", config, "--format", "json"], capsys)
    assert told == forced and told[0] == 0


def test_disagreements_of_a_span_export(export, capsys, tmp_path):
    path, config = export
    regions = pd.DataFrame(xr_agreement.span_disagreements(
        xr_agreement.read_spans(path, labels=config)))
    code, out, err = run(["disagreements", path, "--spans", "--labels", config], capsys)
    assert code == 0 and err == ""
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == [str(c) for c in regions.columns]
    assert len(rows) - 1 == len(regions) > 0
    cells = [cell for row in rows[1:] for cell in row]
    # no cell a spreadsheet would run: formulas (a label, a quoted text) get a ' in front
    assert not any(cell.startswith(("=", "+", "@")) for cell in cells)
    assert any(cell.startswith("'=") for cell in cells)
    output = tmp_path / "review.json"
    code, _, err = run(["disagreements", path, "--spans", "--labels", config, "--output",
                        str(output)], capsys)
    assert code == 0 and err == ""
    records = json.loads(output.read_text())
    assert [r["document"] for r in records] == regions.document.tolist()
    assert [r["start"] for r in records] == regions.start.tolist()


@pytest.mark.parametrize("extra, fragment", [
    (["--layout", "long"], "--layout only apply to label-set annotations"),
    (["--sensitivity", "PB"], "--sensitivity only apply"),
    (["--baseline", "XYZ"], "XYZ"),
])
def test_options_that_do_not_apply_are_one_line_errors(export, capsys, extra, fragment):
    path, config = export
    code, out, err = run(["report", path, "--spans", "--labels", config, *extra], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("xr-agreement: error: ") and fragment in err


def test_failures_are_one_line(tmp_path, capsys):
    votes = tmp_path / "votes.csv"
    votes.write_text("item,annotator,labels\n1,a,x\n1,b,x\n")
    for args in (["report", "--spans"], ["report", str(tmp_path / "absent.json"), "--spans"],
                 ["report", str(votes), "--spans"], ["disagreements", "--spans"]):
        code, out, err = run(args, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1, args
        assert err.startswith("xr-agreement: error: "), args


# ---------------------------------------------------------------------------------------
# the span readers' fixtures (tests/data/spans): each tool's export through the CLI
# ---------------------------------------------------------------------------------------

SPANS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "spans")
SERVER = os.path.join(SPANS, "label_studio", "server_1.23.2")


@pytest.mark.parametrize("name, options, read", [
    # a Label Studio server's own export: recognised by the label-set reader's refusal
    (os.path.join(SERVER, "json_all_tasks.json"),
     ["--labels", os.path.join(SERVER, "config.xml")],
     {"labels": os.path.join(SERVER, "config.xml")}),
    (os.path.join(SERVER, "csv_all_tasks.csv"), ["--from", "label-studio", "--spans"],
     {"tool": "label-studio"}),
    # refused as label sets, recognised by its content
    (os.path.join(SPANS, "prodigy", "ner_manual.jsonl"), [], {}),
    (os.path.join(SPANS, "brat", "project"), [], {}),
    # a tool that only writes spans
    (os.path.join(SPANS, "brat", "project"), ["--from", "brat"], {"tool": "brat"}),
])
def test_span_exports_of_each_tool(name, options, read, capsys):
    table = xr_agreement.read_spans(name, **read)
    expected = span_report(table, title=f"Span agreement report: {os.path.basename(name)}")
    code, out, err = run(["report", name, *options, "--format", "json"], capsys)
    assert code == 0 and err == ""
    assert out == expected.to_json() + "\n"
    assert json.loads(out)["units"]["reader"] == table.attrs.get("reader",
                                                                 table.attrs.get("tool"))


def test_reading_facts_of_a_server_export(capsys):
    """The server export holds a cancelled annotation (missing), a draft (never read) and a
    task nobody annotated: the report says what was left out, per annotator."""
    name = os.path.join(SERVER, "json_all_tasks.json")
    table = xr_agreement.read_spans(name, labels=os.path.join(SERVER, "config.xml"))
    code, out, _ = run(["report", name, "--labels", os.path.join(SERVER, "config.xml")],
                       capsys)
    text = " ".join(out.split())
    assert code == 0
    for reason, per in json.loads(table.attrs["dropped"]).items():
        assert f"{reason} {sum(per.values())} (" in text
    for who, documents in (
            (str(a), [str(d) for d, done in zip(table.document_id.values, column) if not done])
            for a, column in zip(table.annotator_id.values, table.annotated.values.T)):
        if documents:
            assert (f"annotator {who} did not annotate {len(documents)} of "
                    f"{table.sizes['document']} documents ({', '.join(documents)})") in text


def test_disagreements_of_a_brat_project(capsys):
    name = os.path.join(SPANS, "brat", "project")
    regions = pd.DataFrame(xr_agreement.span_disagreements(xr_agreement.read_spans(name)))
    code, out, err = run(["disagreements", name, "--from", "brat"], capsys)
    assert code == 0 and err == ""
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["document"], int(r["start"]), int(r["end"])) for r in rows] == list(
        zip(regions.document.astype(str), regions.start, regions.end))
    # who marked what; an annotator who did not annotate the document is said in words
    # (bob has no news2.ann), unlike one who marked nothing there (an empty cell)
    table = xr_agreement.read_spans(name)
    for annotator in table.annotator_id.values.tolist():
        expected = ["not annotated" if pd.isna(v) else v for v in regions[annotator]]
        assert [r[str(annotator)] for r in rows] == expected, annotator
    missing = [r["bob"] for r in rows if r["document"] == "news2"]
    assert missing and set(missing) == {"not annotated"}
    assert any(r[a] == "" for r in rows for a in ("alice", "bob", "carol"))


def test_project_with_a_label_set_and_a_span_control(tmp_path, capsys):
    """Label Studio project with Choices and Labels: without --control the label-set reader's
    refusal stands (no span report chosen silently); --control picks either reading."""
    path, config = write_export(tmp_path)
    tasks = json.loads(open(path).read())
    for task in tasks:
        for annotation in task["annotations"]:
            if not annotation["was_cancelled"]:
                annotation["result"].append({
                    "id": f"c{annotation['id']}", "from_name": "topic", "to_name": "text",
                    "type": "choices", "value": {"choices": ["news"]}})
    with open(path, "w") as stream:
        json.dump(tasks, stream)
    # choice="multiple": a label-set control (a single-choice one is read as ratings)
    both = CONFIG.replace("</View>", '  <Choices name="topic" toName="text" choice="multiple">'
                          '<Choice value="news"/><Choice value="other"/></Choices>\n</View>')
    with open(config, "w") as stream:
        stream.write(both)
    code, out, err = run(["report", path, "--labels", config], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "control" in err
    code, out, _ = run(["report", path, "--labels", config, "--control", "label"], capsys)
    assert code == 0 and out.splitlines()[3].startswith("These numbers are span agreement")
    code, out, _ = run(["report", path, "--labels", config, "--control", "topic"], capsys)
    assert code == 0 and out.startswith("Multi-label agreement report")


def test_spans_as_label_sets_is_asked_for_by_name(export, capsys):
    """--spans-as-label-sets gives the label-set report (each task's set of span labels per
    annotator), which without it the span export never gets."""
    path, config = export
    code, out, err = run(["report", path, "--spans-as-label-sets", "--labels", config], capsys)
    assert code == 0, err
    assert out.startswith("Multi-label agreement report")
    code, out, err = run(["report", path, "--labels", config], capsys)
    assert code == 0 and out.startswith("Span agreement report")
    da = xr_agreement.read_annotations(path, labels=config, spans_as_label_sets=True)
    table = xr_agreement.read_spans(path, labels=config)
    expected = {}
    for doc, ann, lab in zip(table.document.values, table.annotator.values,
                             table.label.values):
        expected.setdefault((str(doc), str(ann)), set()).add(str(lab))
    for doc, ann in zip(*np.nonzero(table.annotated.values)):
        doc_id = str(table.document_id.values[doc])
        ann_id = str(table.annotator_id.values[ann])
        row = da.sel(item=da["item"].values[[str(v) == doc_id for v in da["item"].values]][0],
                     annotator=da["annotator"].values[[str(v) == ann_id for v in
                                                       da["annotator"].values]][0])
        chosen = {str(lab) for lab, v in zip(da["label"].values, row.values) if v == 1}
        assert chosen == expected.get((doc_id, ann_id), set())


def test_disagreement_headers_are_spreadsheet_safe(tmp_path, capsys):
    """Annotator ids name the span disagreement columns: a formula there must not reach a
    spreadsheet as a formula, nor a control character a terminal."""
    import zipfile

    record = {"id": 1, "text": "Ann met Bob", "label": [[0, 3, "PER"]]}
    other = {"id": 1, "text": "Ann met Bob", "label": [[8, 11, "PER"]]}
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("=HYPERLINK(1).jsonl", json.dumps(record) + "\n")
        archive.writestr("bob\x1b.jsonl", json.dumps(other) + "\n")
    code, out, err = run(["disagreements", str(path)], capsys)
    assert code == 0, err
    header = next(csv.reader(io.StringIO(out)))
    assert not any(cell.startswith(("=", "+", "-", "@")) for cell in header), header
    assert "\x1b" not in out
    assert any("HYPERLINK" in cell for cell in header)
