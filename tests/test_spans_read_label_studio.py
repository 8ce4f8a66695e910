"""Label Studio span exports read as span tables (xr_agreement.io.spans.label_studio), and the
classification reader's refusal of span controls (issue 29's first paragraph).

The real exports under tests/data/spans/label_studio/server_1.23.2 were written by a Label
Studio 1.23.2 server from an NER project annotated through its API (README.md there);
``annotated.json`` is what was posted, recorded when it was posted. Each export must read back
exactly that. Random exports are generated with their spans known, written in the documented
shapes (JSON tasks, JSON-min records) and read back.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest

from xr_agreement import read_annotations
from xr_agreement.io import AnnotationFileError
from xr_agreement.io.spans import label_studio
from xr_agreement.io.tools.label_studio import read_label_studio

HERE = Path(__file__).parent / "data" / "spans" / "label_studio" / "server_1.23.2"
CONFIG = HERE / "config.xml"
POSTED = json.loads((HERE / "annotated.json").read_text())
USER = {**{email: str(uid) for email, uid in POSTED["users"].items()},
        **{str(uid): str(uid) for uid in POSTED["users"].values()}}
TEXTS = {task: text for text, task in POSTED["tasks"].items()}
# (task, user id) submitted (with or without regions), as README.md's table; alice (2)
# skipped task 3, carol (4) never opened 2 and 4, nobody annotated 6
SUBMITTED = {(1, "2"), (1, "3"), (1, "4"), (2, "2"), (2, "3"), (3, "3"), (3, "4"),
             (4, "2"), (4, "3"), (5, "2"), (5, "3"), (5, "4")}
EXPECTED = {(task, USER[email], start, end, label)
            for task, email, start, end, label in POSTED["spans"]}
EXPORTS = ["json_all_tasks.json", "json_min_all_tasks.json", "csv_all_tasks.csv",
           "snapshot_details.json", "snapshot_details_min.json"]


def spans_of(table) -> set:
    return set(zip(table.document.values.tolist(),
                   [USER[a] for a in table.annotator.values.tolist()],
                   table.start.values.tolist(), table.end.values.tolist(),
                   table.label.values.tolist()))


def annotated_of(table) -> set:
    docs, anns = table.document_id.values.tolist(), table.annotator_id.values.tolist()
    mask = table.annotated.values
    return {(docs[d], USER[anns[a]]) for d in range(len(docs)) for a in range(len(anns))
            if mask[d, a]}


@pytest.mark.parametrize("name", EXPORTS)
@pytest.mark.parametrize("labels", [None, CONFIG, ["MISC", "LOC", "ORG", "PER", "DATE"]])
def test_the_servers_exports_read_what_was_annotated(name, labels):
    table = label_studio.read(HERE / name, labels=labels)
    assert table.attrs["reader"] == "label-studio"
    assert spans_of(table) == EXPECTED
    assert annotated_of(table) == SUBMITTED
    universe = (sorted({s[-1] for s in EXPECTED}) if labels is None else
                ["PER", "ORG", "LOC", "MISC"] if labels == CONFIG else labels)
    assert table.label_id.values.tolist() == universe
    for task in range(1, 6):  # the text and its length; task 6: nobody annotated it
        assert table.text.sel(document_id=task).item() == TEXTS[task]
        assert int(table.length.sel(document_id=task)) == len(TEXTS[task])
    assert 6 not in table.document_id.values.tolist()
    # every span covers the text it was posted for
    for doc, start, end in zip(table.document.values, table.start.values, table.end.values):
        assert 0 <= start < end <= len(TEXTS[int(doc)])


def test_what_was_left_out_is_counted():
    table = label_studio.read(HERE / "json_all_tasks.json")
    # alice's skip, the admin's draft, task 6; the model's prediction is not read at all
    assert json.loads(table.attrs["dropped"]) == {"cancelled": {"2": 1}, "draft": {"1": 1},
                                      "unannotated task": {"nobody": 1}}
    assert json.loads(label_studio.read(HERE / "json_min_all_tasks.json").attrs["dropped"]) == {
        "unannotated task": {"nobody": 1}}
    # the snapshot with user details names the annotators by email
    table = label_studio.read(HERE / "snapshot_details.json")
    assert sorted(table.annotator_id.values.tolist()) == [
        "alice@example.com", "bob@example.com", "carol@example.com"]
    assert json.loads(table.attrs["dropped"])["cancelled"] == {"alice@example.com": 1}


def test_the_conll_export_is_refused():
    with pytest.raises(AnnotationFileError, match=r"CONLL2003 export.*no annotator ids"):
        label_studio.read(HERE / "ner.conll")


# ------------------------------------------------------------------------------------------
# the classification reader refuses span controls, unless asked for label sets by name
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", EXPORTS)
def test_read_annotations_refuses_a_span_control(name):
    with pytest.raises(AnnotationFileError, match=r"control 'label' holds text spans.*"
                       r"xr_agreement.read_spans.*spans_as_label_sets=True"):
        read_annotations(HERE / name)


@pytest.mark.parametrize("name", EXPORTS)
def test_the_label_set_reading_when_asked_for(name):
    da = read_label_studio(HERE / name, spans_as_label_sets=True)
    used = {}
    for task, who, *_, label in EXPECTED:
        used.setdefault((task, who), set()).add(label)
    for item in da["item"].values.tolist():
        for annotator in da["annotator"].values.tolist():
            row = da.sel(item=item, annotator=annotator)
            key = (item, USER[annotator])
            if key not in SUBMITTED:
                assert np.isnan(row.values).all(), key
            else:
                chosen = {str(l) for l, v in zip(da["label"].values, row.values) if v == 1}
                assert chosen == used.get(key, set()), key


def test_a_region_control_of_images_is_refused_too(tmp_path):
    tasks = json.loads((HERE / "json_all_tasks.json").read_text())
    for task in tasks:
        for annotation in task["annotations"]:
            for result in annotation["result"]:
                result["type"] = "rectanglelabels"
                result["value"]["rectanglelabels"] = result["value"].pop("labels")
    path = write(tmp_path, tasks)
    with pytest.raises(AnnotationFileError, match=r"labelled regions \('rectanglelabels' "
                       r"results\).*spans_as_label_sets=True"):
        read_annotations(path)
    with pytest.raises(AnnotationFileError, match=r"rectanglelabels regions mark images"):
        label_studio.read(path)


# ------------------------------------------------------------------------------------------
# variations of the real export: controls, relations, unsupported regions, hostile values
# ------------------------------------------------------------------------------------------

def write(tmp_path, tasks, name="export.json"):
    path = tmp_path / name
    path.write_text(json.dumps(tasks, ensure_ascii=False))
    return path


def real_tasks():
    return json.loads((HERE / "json_all_tasks.json").read_text())


def first_region(tasks):
    return tasks[0]["annotations"][0]["result"][0]


def test_two_span_controls_need_control(tmp_path):
    tasks = real_tasks()
    extra = copy.deepcopy(first_region(tasks))
    extra["from_name"] = "highlight"
    extra["value"]["labels"] = ["quote"]
    tasks[0]["annotations"][1]["result"].append(extra)
    path = write(tmp_path, tasks)
    with pytest.raises(AnnotationFileError, match=r"several span controls: \['highlight', "
                       r"'label'\]; choose one with control=NAME"):
        label_studio.read(path)
    assert spans_of(label_studio.read(path, control="label")) == EXPECTED
    table = label_studio.read(path, control="highlight")
    assert spans_of(table) == {(1, "3", 0, 12, "quote")}
    # everyone else submitted without a highlight: annotated, marked nothing
    assert annotated_of(table) == SUBMITTED
    with pytest.raises(AnnotationFileError, match=r"no span control named 'nope'"):
        label_studio.read(path, control="nope")


def test_a_choices_control_is_pointed_to_read_annotations(tmp_path):
    tasks = real_tasks()
    tasks[0]["annotations"][0]["result"].append(
        {"from_name": "topic", "to_name": "text", "type": "choices",
         "value": {"choices": ["science"]}})
    path = write(tmp_path, tasks)
    with pytest.raises(AnnotationFileError, match=r"'topic' holds no labelled regions.*"
                       r"read_annotations"):
        label_studio.read(path, control="topic")
    assert spans_of(label_studio.read(path)) == EXPECTED  # the one span control


def test_relations_are_counted_not_read(tmp_path):
    tasks = real_tasks()
    tasks[0]["annotations"][0]["result"].append(
        {"from_id": "a", "to_id": "b", "type": "relation", "direction": "right"})
    table = label_studio.read(write(tmp_path, tasks))
    assert spans_of(table) == EXPECTED
    assert json.loads(table.attrs["dropped"])["relation (not measured)"] == {"2": 1}
    assert "1 relation(s)" in json.loads(table.attrs["notes"])[0]


@pytest.mark.parametrize("kind, value, message", [
    ("hypertextlabels", {"start": "/p[1]/text()[1]", "end": "/p[1]/text()[1]",
                         "startOffset": 0, "endOffset": 3, "hypertextlabels": ["PER"]},
     r"HyperTextLabels regions: their start and end are XPath positions.*not supported"),
    ("paragraphlabels", {"start": "0", "end": "1", "startOffset": 0, "endOffset": 3,
                         "paragraphlabels": ["PER"]},
     r"ParagraphLabels regions.*not supported"),
])
def test_hypertext_and_paragraph_regions_are_refused(tmp_path, kind, value, message):
    tasks = real_tasks()
    for task in tasks:
        for annotation in task["annotations"]:
            for result in annotation["result"]:
                result["type"], result["value"] = kind, copy.deepcopy(value)
    with pytest.raises(AnnotationFileError, match=message):
        label_studio.read(write(tmp_path, tasks))
    # a labels result whose start is an XPath (hypertext exported under "labels")
    tasks = real_tasks()
    first_region(tasks)["value"]["start"] = "/p[1]/text()[1]"
    with pytest.raises(AnnotationFileError, match=r"XPath positions.*not supported"):
        label_studio.read(write(tmp_path, tasks))


@pytest.mark.parametrize("change, message", [
    ({"start": -1}, r"start is negative"),
    ({"end": 500}, r"end is past the document's text \(69 characters\)"),
    ({"start": 12}, r"start must be less than end"),
    ({"start": 13}, r"start must be less than end"),
    ({"start": 0.5}, r"whole-number character offset, got float 0.5"),
    ({"start": "0"}, r"XPath positions"),
    ({"end": True}, r"whole-number character offset, got bool True"),
    ({"end": None}, r"whole-number character offset, got NoneType None"),
    ({"text": "Ada Lovelacx"}, r"the export says the span is 'Ada Lovelacx' but the text "
                               r"there is 'Ada Lovelace': the offsets count something other"),
    ({"start": 1, "end": 13}, r"the export says the span is 'Ada Lovelace' but the text "
                              r"there is 'da Lovelace '"),
    ({"labels": [["PER"]]}, r"a label must be text, got a nested list"),
    ({"labels": [None]}, r"a label must be text, got None"),
    ({"labels": [""]}, r"an empty label"),
    ({"labels": "PER"}, r"a region without a labels list"),
])
def test_bad_regions_are_refused_naming_task_and_field(tmp_path, change, message):
    tasks = real_tasks()
    first_region(tasks)["value"].update(change)
    with pytest.raises(AnnotationFileError, match=message) as error:
        label_studio.read(write(tmp_path, tasks))
    assert error.value.row == 1
    assert error.value.column.startswith("annotations[0].result[0]")
    assert "\n" not in str(error.value)


def test_other_hostile_exports(tmp_path):
    text = (HERE / "json_all_tasks.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(AnnotationFileError, match=r"invalid JSON \(truncated or malformed\)"):
        label_studio.read(cut)
    # one task twice with different texts
    tasks = real_tasks()
    twin = copy.deepcopy(tasks[1])
    twin["data"]["text"] = "Something else entirely, longer than before."
    with pytest.raises(AnnotationFileError, match=r"document 2 appears twice with different"):
        label_studio.read(write(tmp_path, tasks + [twin]))
    # a label outside the labeling config
    tasks = real_tasks()
    first_region(tasks)["value"]["labels"] = ["DATE"]
    with pytest.raises(AnnotationFileError, match=r"label 'DATE' is not in the declared"):
        label_studio.read(write(tmp_path, tasks), labels=CONFIG)
    # a task without its text
    tasks = real_tasks()
    del tasks[0]["data"]["text"]
    tasks[0]["data"]["other"] = 3
    with pytest.raises(AnnotationFileError, match=r"task 1 has no text in data.text"):
        label_studio.read(write(tmp_path, tasks))
    # a folder is not a Label Studio export
    with pytest.raises(AnnotationFileError, match=r"one file"):
        label_studio.read(tmp_path)
    # JSON lines is not a Label Studio export
    lines = tmp_path / "export.jsonl"
    lines.write_text("\n".join(json.dumps(t) for t in real_tasks()))
    with pytest.raises(AnnotationFileError, match=r"one JSON array of tasks"):
        label_studio.read(lines)


def test_the_labeling_config_must_be_this_projects(tmp_path):
    other = tmp_path / "other.xml"
    other.write_text('<View><Labels name="ner" toName="body"><Label value="PER"/></Labels>'
                     '<Text name="body" value="$body"/></View>')
    with pytest.raises(AnnotationFileError, match=r"control 'label' is not a control of the "
                       r"labeling config \['ner'\]"):
        label_studio.read(HERE / "json_all_tasks.json", labels=other)
    # nobody marked a span: the config names the control and the universe
    tasks = real_tasks()
    for task in tasks:
        for annotation in task["annotations"]:
            annotation["result"] = []
    table = label_studio.read(write(tmp_path, tasks), labels=CONFIG)
    assert table.sizes["span"] == 0
    assert table.label_id.values.tolist() == ["PER", "ORG", "LOC", "MISC"]
    assert annotated_of(table) == SUBMITTED
    with pytest.raises(AnnotationFileError, match=r"no annotation holds a labels region"):
        label_studio.read(write(tmp_path, tasks))


def test_a_text_given_as_a_link_is_refused(tmp_path):
    tasks = real_tasks()
    tasks[0]["data"]["text"] = "https://example.org/doc1.txt"
    with pytest.raises(AnnotationFileError, match=r"the text of task 1 is a link"):
        label_studio.read(write(tmp_path, tasks))


def test_same_user_twice_on_a_task_the_latest_is_the_decision(tmp_path):
    # as the classification reader: several annotations by one user on one task, the
    # latest (updated_at) is the decision and the others are counted "superseded"
    tasks = real_tasks()
    again = copy.deepcopy(tasks[0]["annotations"][0])
    again["updated_at"] = "2030-01-01T00:00:00Z"
    again["result"] = [again["result"][0]]
    tasks[0]["annotations"].append(again)
    table = label_studio.read(write(tmp_path, tasks))
    kept = {s for s in EXPECTED if not (s[0] == 1 and s[1] == "2")} | {(1, "2", 0, 12, "PER")}
    assert spans_of(table) == kept
    assert json.loads(table.attrs["dropped"])["superseded"] == {"2": 1}


def test_duplicate_regions_and_formulas(tmp_path):
    tasks = real_tasks()
    region = first_region(tasks)
    tasks[0]["annotations"][0]["result"].append(copy.deepcopy(region))
    region["value"]["labels"] = ["PER", "=HYPERLINK(\"x\")"]
    table = label_studio.read(write(tmp_path, tasks))
    assert (1, "2", 0, 12, "=HYPERLINK(\"x\")") in spans_of(table)  # data, kept as it is
    assert json.loads(table.attrs["dropped"])["duplicate span"] == {"2": 1}


def test_offsets_in_utf16_units_are_converted_when_the_region_text_confirms(tmp_path):
    # JavaScript counts an emoji as two UTF-16 units (Label Studio #1347): the same regions
    # after an emoji come shifted by 3 units = 2 characters (emoji + blank)
    tasks = real_tasks()
    task = next(t for t in tasks if t["id"] == 5)
    task["data"]["text"] = "\U0001F642 " + task["data"]["text"]
    for annotation in task["annotations"]:
        for result in annotation["result"]:
            result["value"]["start"] += 3
            result["value"]["end"] += 3
    table = label_studio.read(write(tmp_path, tasks))
    shifted = {(d, w, s + 2, e + 2, l) if d == 5 else (d, w, s, e, l)
               for d, w, s, e, l in EXPECTED}
    assert spans_of(table) == shifted
    assert json.loads(table.attrs["notes"]) == [
        "5 span(s) had offsets in UTF-16 units (what JavaScript counts; an emoji is two) "
        "and were converted to characters, each checked against the text the export gives "
        "for the span."]
    # shifted by one unit more: neither count gives the region's text
    for annotation in task["annotations"]:
        for result in annotation["result"]:
            result["value"]["start"] += 1
            result["value"]["end"] += 1
    with pytest.raises(AnnotationFileError, match=r"offsets count something other"):
        label_studio.read(write(tmp_path, tasks))


def test_inputs_not_modified(tmp_path):
    path = write(tmp_path, real_tasks())
    before = path.read_bytes()
    label_studio.read(path)
    assert path.read_bytes() == before


# ------------------------------------------------------------------------------------------
# random exports in both shapes, read back exactly
# ------------------------------------------------------------------------------------------

def random_project(rng):
    """Tasks, and the truth: spans (task, user, start, end, label), submitted pairs."""
    tasks, spans, submitted = [], set(), set()
    users = ["11", "12", "13"]
    for task_id in range(1, rng.randint(2, 7)):
        text = "".join(rng.choice("ab cdé") for _ in range(rng.randint(0, 30)))
        annotations = []
        for user in users:
            roll = rng.random()
            if roll < 0.15:
                continue  # never opened
            if roll < 0.25:
                annotations.append({"completed_by": int(user), "was_cancelled": True,
                                    "result": []})
                continue
            result = []
            for _ in range(rng.randint(0, 4) if text else 0):
                start = rng.randrange(len(text))
                end = rng.randint(start + 1, len(text))
                labels = rng.sample(["PER", "LOC", "ORG"], rng.randint(1, 2))
                result.append({"from_name": "ner", "to_name": "doc", "type": "labels",
                               "value": {"start": start, "end": end,
                                         "text": text[start:end], "labels": labels}})
                spans |= {(task_id, user, start, end, label) for label in labels}
            annotations.append({"completed_by": int(user), "was_cancelled": False,
                                "result": result})
            submitted.add((task_id, user))
        tasks.append({"id": task_id, "data": {"doc": text}, "annotations": annotations})
    return tasks, spans, submitted


def as_json_min(tasks):
    """The JSON-min records of ``tasks`` as label-studio-sdk's convert_to_json_min writes
    them: one per submitted annotation (cancelled ones not written), the regions under the
    control name, no key for an empty result."""
    out = []
    for task in tasks:
        kept = [a for a in task["annotations"] if not a["was_cancelled"]]
        if not kept:
            out.append({**task["data"], "id": task["id"], "annotator": None,
                        "annotation_id": None})
        for number, annotation in enumerate(kept):
            record = {**task["data"], "id": task["id"]}
            if annotation["result"]:
                record["ner"] = [{**r["value"]} for r in annotation["result"]]
            record.update(annotator=annotation["completed_by"], annotation_id=number,
                          lead_time=1.0)
            out.append(record)
    return out


@pytest.mark.parametrize("seed", range(10))
def test_random_exports_read_back_exactly(tmp_path, seed):
    rng = random.Random(seed)
    tasks, spans, submitted = random_project(rng)
    if not spans:
        return
    for shape, records in (("json", tasks), ("min", as_json_min(tasks))):
        table = label_studio.read(write(tmp_path, records, f"{shape}.json"))
        got = set(zip(table.document.values.tolist(), table.annotator.values.tolist(),
                      table.start.values.tolist(), table.end.values.tolist(),
                      table.label.values.tolist()))
        assert got == spans, shape
        docs, anns = table.document_id.values.tolist(), table.annotator_id.values.tolist()
        assert {(docs[d], anns[a]) for d, a in zip(*np.nonzero(table.annotated.values))} == \
            submitted, shape


def test_looks_like():
    records = json.loads((HERE / "json_all_tasks.json").read_text())
    assert label_studio.looks_like(records)
    assert label_studio.looks_like(json.loads((HERE / "json_min_all_tasks.json").read_text()))
    assert label_studio.looks_like([(1, r) for r in records])
    classification = Path(__file__).parent / "data" / "tools" / "label_studio"
    assert not label_studio.looks_like(json.loads((classification / "export.json").read_text()))
    assert not label_studio.looks_like(json.loads(
        (classification / "export_min.json").read_text()))
    assert not label_studio.looks_like([{"id": 1, "text": "a", "label": [[0, 1, "X"]]}])
