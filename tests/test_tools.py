"""Annotation-tool exports: each fixture under tests/data/tools/<tool>/ is written from the
tool's documented export format (cited above its tests), with that tool's "no decision"
cases. The decisions each file means are written out here by hand, as (item, annotator,
label set or None) records for ``from_sets`` or as explicit per-label values, independently
of the readers; the readers, ``read_annotations`` and the command line must give exactly
those decisions and ``mla()``'s numbers on them."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.cli import main
from xr_agreement.io import AnnotationFileError, read_annotations

DATA = Path(__file__).parent / "data" / "tools"
NEWS = ["Politics", "Sports", "Tech", "Health"]
NEWS_SORTED = sorted(NEWS)


def grid(decisions: dict, items, annotators, labels) -> xr.DataArray:
    """An (item, annotator, label) array from {(item, annotator): {label: 0/1}} by plain
    loops; an absent pair or label is NaN."""
    values = np.full((len(items), len(annotators), len(labels)), np.nan)
    for i, it in enumerate(items):
        for a, who in enumerate(annotators):
            for j, lab in enumerate(labels):
                value = decisions.get((it, who), {}).get(lab)
                if value is not None:
                    values[i, a, j] = value
    return xr.DataArray(values, dims=("item", "annotator", "label"),
                        coords={"item": list(items), "annotator": list(annotators),
                                "label": list(labels)})


def sets(records, labels) -> xr.DataArray:
    return xr_agreement.from_sets(records, labels=labels).astype(float)


def assert_same_decisions(da, expected):
    assert set(da.dims) == {"item", "annotator", "label"}
    assert sorted(map(str, da["item"].values)) == sorted(map(str, expected["item"].values))
    assert sorted(da["annotator"].values.tolist()) == sorted(
        expected["annotator"].values.tolist())
    assert da["label"].values.tolist() == [str(v) for v in expected["label"].values]
    aligned = da.sel(item=expected["item"].values, annotator=expected["annotator"].values)
    np.testing.assert_array_equal(aligned.values, expected.values)


MLA_VARIABLES = ("agreement", "minimum", "observed", "raw_prevalence", "alpha_hamming")


def assert_same_mla(da, expected):
    got, want = xr_agreement.mla(da, "all"), xr_agreement.mla(expected, "all")
    for name in MLA_VARIABLES:
        np.testing.assert_allclose(got[name].values, want[name].values, rtol=1e-12,
                                   equal_nan=True, err_msg=name)


def cli_summary(capsys, *args) -> dict:
    code = main(["report", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    assert next(iter(document)) == "summary"  # the flat summary comes first
    return document["summary"]


def assert_summary(summary, expected, reader, dropped):
    want = xr_agreement.mla(expected, "all")
    for baseline in ("F", "AC1", "PB"):
        assert summary["agreement"][baseline] == pytest.approx(
            float(want.agreement.sel(baseline=baseline)), rel=1e-12, nan_ok=True)
        assert summary["minimum"][baseline] == pytest.approx(
            float(want.minimum.sel(baseline=baseline)), rel=1e-12, nan_ok=True)
        assert summary["agreement_lower"][baseline] is None
        assert summary["agreement_upper"][baseline] is None
    assert summary["N"] == expected.sizes["item"]
    assert summary["n"] == expected.sizes["annotator"]
    assert summary["k"] == expected.sizes["label"]
    assert summary["observed"] == pytest.approx(float(want.observed), rel=1e-12)
    assert summary["p_r"] == pytest.approx(float(want.raw_prevalence), rel=1e-12)
    assert summary["reader"] == reader and summary["dropped"] == dropped


def check(path, expected, reader, dropped, *, cli=(), capsys=None, **keywords):
    da = read_annotations(path, **keywords)
    assert da.attrs["reader"] == reader
    assert json.loads(da.attrs["dropped"]) == dropped
    assert isinstance(da.attrs["dropped"], str)  # JSON text: every store takes it
    assert_same_decisions(da, expected)
    assert_same_mla(da, expected)
    if capsys is not None:
        assert_summary(cli_summary(capsys, path, *cli), expected, reader, dropped)
    return da


# ---------------------------------------------------------------------------------------
# Label Studio: https://labelstud.io/guide/task_format (tasks with annotations[],
# completed_by an int or an object, was_cancelled, result[] with from_name/type/value) and
# label-studio-converter's convert_to_json_min / prettify_result (JSON-min).
# ---------------------------------------------------------------------------------------

LS = DATA / "label_studio"
LS_CONFIG = LS / "config.xml"
BEA = "bea@example.org"
LS_RECORDS = [
    (101, "1", {"Politics"}), (101, BEA, {"Politics", "Tech"}), (101, "3", {"Politics"}),
    (102, "1", {"Sports"}), (102, BEA, None), (102, "3", {"Sports", "Health"}),
    # annotator 1 annotated 103 twice: the later one (updated 2024-03-05) is the decision
    (103, "1", {"Tech", "Health"}), (103, BEA, set()), (103, "3", {"Health"}),
    (104, "1", {"Health"}), (104, BEA, {"Health"}), (104, "3", None),
]
LS_DROPPED = {"cancelled": {BEA: 1}, "superseded": {"1": 1}}


def test_label_studio_export_with_its_labeling_config(capsys):
    # the config declares "Science", never chosen: it stays in the universe (AC1, PB move)
    expected = sets(LS_RECORDS, NEWS + ["Science"])
    check(LS / "export.json", expected, "label-studio", LS_DROPPED, labels=LS_CONFIG,
          cli=["--labels", LS_CONFIG], capsys=capsys)


def test_label_studio_export_without_config_uses_the_labels_seen(capsys):
    expected = sets(LS_RECORDS, NEWS_SORTED)
    da = check(LS / "export.json", expected, "label-studio", LS_DROPPED, capsys=capsys)
    assert da["item"].values.tolist() == [101, 102, 103, 104]  # the task ids
    # the model's prediction on task 104 ("Sports") is not an annotator's decision
    assert float(da.sel(item=104, label="Sports").sum()) == 0


def test_label_studio_json_min(capsys):
    # JSON-min writes no cancelled annotation: bea on 102 is simply absent (missing)
    expected = sets(LS_RECORDS, NEWS_SORTED)
    check(LS / "export_min.json", expected, "label-studio", {"superseded": {"1": 1}},
          capsys=capsys)
    check(LS / "export_min.json", sets(LS_RECORDS, NEWS + ["Science"]), "label-studio",
          {"superseded": {"1": 1}}, labels=LS_CONFIG)


def test_label_studio_several_controls_need_control(capsys):
    with pytest.raises(AnnotationFileError, match=r"several control tags: \['tone', "
                       r"'topic'\]; choose one with control=NAME"):
        read_annotations(LS / "two_controls.json")
    check(LS / "two_controls.json", sets(LS_RECORDS, NEWS_SORTED), "label-studio",
          LS_DROPPED, control="topic", cli=["--control", "topic"], capsys=capsys)
    tone = [(i, a, None if s is None else ({"neutral"} if s else set()))
            for i, a, s in LS_RECORDS]
    check(LS / "two_controls.json", sets(tone, ["neutral"]), "label-studio", LS_DROPPED,
          control="tone")


def test_label_studio_taxonomy_paths_and_span_labels():
    taxonomy = [(1, "7", {"Economy/Monetary policy"}),
                (1, "8", {"Economy/Monetary policy", "Politics"}),
                (2, "7", {"Health"}), (2, "8", {"Health", "Science/Medicine"})]
    check(LS / "taxonomy.json", sets(taxonomy, sorted({v for *_, s in taxonomy for v in s})),
          "label-studio", {})
    spans = [(11, "1", {"PER", "LOC"}), (11, "2", {"PER"}), (12, "1", set()),
             (12, "2", {"DATE"})]
    # a span control is never read as label sets silently (issue 29): refused, and read
    # as sets only when asked for by name
    with pytest.raises(AnnotationFileError, match=r"holds text spans.*read_spans.*"
                       r"spans_as_label_sets=True"):
        read_annotations(LS / "spans.json")
    from xr_agreement.io.tools.label_studio import read_label_studio
    da = read_label_studio(LS / "spans.json", spans_as_label_sets=True)
    assert_same_decisions(da, sets(spans, ["DATE", "LOC", "PER"]))


def test_label_studio_label_outside_the_config_names_it_and_its_task(tmp_path):
    tasks = json.loads((LS / "export.json").read_text())
    tasks[2]["annotations"][2]["result"][0]["value"]["choices"] = ["Finance"]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(AnnotationFileError, match=r"row 3, column 'annotations\[2\]\.result'"
                       r": label 'Finance' is not in the declared label universe"):
        read_annotations(path, labels=LS_CONFIG)


def test_label_studio_latest_annotation_by_time_not_by_text():
    # annotation 31 (10:00:00.25 UTC) is later than 32 (10:00:00 UTC): Tech, not Politics
    expected = sets([(201, "1", {"Tech"}), (201, "2", {"Tech"})], ["Tech"])
    # every annotation holds one choice: read as label sets by name (ratings: test_tools_single)
    check(LS / "edited_timestamps.json", expected, "label-studio", {"superseded": {"1": 1}},
          layout="sets")


def test_label_studio_config_of_another_project_is_refused(tmp_path):
    # a config whose control ("category") no result of the export uses would read every
    # annotation as "chose no label"
    other = tmp_path / "config.xml"
    other.write_text(LS_CONFIG.read_text().replace('name="topic"', 'name="category"'))
    for path in (LS / "export.json", LS / "export_min.json"):
        with pytest.raises(AnnotationFileError, match=r"control 'category' of the labeling "
                           r"config occurs in no result.*config has \['category'\], the "
                           r"export has \[.*'topic'"):
            read_annotations(path, labels=other)
    with pytest.raises(AnnotationFileError, match=r"control 'tone' is not a control of the "
                       r"labeling config; the config has \['topic'\], the export has "
                       r"\['tone', 'topic'\]"):
        read_annotations(LS / "two_controls.json", labels=LS_CONFIG, control="tone")


# ---------------------------------------------------------------------------------------
# Prodigy: https://prodi.gy/docs/api-interfaces ("answer" accept / reject / ignore; the
# choice interface's options and accept; the binary classification interface's label),
# db-out (https://prodi.gy/docs/recipes#db-out), _annotator_id / _session_id / _input_hash.
# ---------------------------------------------------------------------------------------

PRODIGY = DATA / "prodigy"
A, B, C = -1423532410, 883920103, 1735022671
P, S, T = "POLITICS", "SPORTS", "TECH"


def prodigy_choice_expected():
    alice, bob, carol = (f"news_topics-{w}" for w in ("alice", "bob", "carol"))
    decisions = {
        (A, alice): {P: 1, S: 0, T: 0}, (A, bob): {P: 1, S: 0, T: 1},  # carol: ignore
        (B, alice): {P: 0, S: 0, T: 0}, (B, bob): {P: 0, S: 1, T: 0},
        (B, carol): {P: 0, S: 1, T: 0},
        # alice rejected her selection TECH: TECH is 0, the other options undecided;
        # carol rejected with nothing selected: no decision
        (C, alice): {T: 0}, (C, bob): {P: 0, S: 0, T: 1},
    }
    return grid(decisions, [A, B, C], [alice, bob, carol], [P, S, T])


PRODIGY_DROPPED = {"ignored": {"news_topics-carol": 1}, "rejected": {"news_topics-carol": 1}}


def test_prodigy_choice_tasks(capsys):
    check(PRODIGY / "textcat_manual.jsonl", prodigy_choice_expected(), "prodigy",
          PRODIGY_DROPPED, capsys=capsys)


def test_prodigy_silent_failure_now_gives_the_right_number(capsys):
    # the issue: these column flags counted carol's "ignore" as "chose no label"
    path = PRODIGY / "textcat_manual.jsonl"
    flags = ["--item-column", "_input_hash", "--annotator-column", "_annotator_id",
             "--labels-column", "accept"]
    assert_summary(cli_summary(capsys, path, *flags), prodigy_choice_expected(), "prodigy",
                   PRODIGY_DROPPED)
    # the generic table reader, forced, still reads it the old way: a different number
    old = cli_summary(capsys, path, *flags, "--from", "table")
    right = float(xr_agreement.mla(prodigy_choice_expected()).agreement)
    assert old["agreement"]["F"] != pytest.approx(right)


def test_prodigy_choice_tasks_with_different_options():
    # a task offers POLITICS and TECH, another SPORTS and HEALTH: an accept says 0 only of
    # the options that task offered; the labels it never showed are undecided
    da = read_annotations(PRODIGY / "choice_options_per_task.jsonl")
    alice, bob = "news_topics-alice", "news_topics-bob"
    decisions = {(A, alice): {"POLITICS": 1, "TECH": 0}, (A, bob): {"POLITICS": 1, "TECH": 1},
                 (B, alice): {"SPORTS": 1, "HEALTH": 1}, (B, bob): {"SPORTS": 1, "HEALTH": 0}}
    labels = ["POLITICS", "TECH", "SPORTS", "HEALTH"]
    assert_same_decisions(da, grid(decisions, [A, B], [alice, bob], labels))


def test_prodigy_an_ignore_beside_an_answer_is_a_duplicate(tmp_path):
    rows = [json.loads(line) for line in PRODIGY_PATH.read_text().splitlines()]
    again = dict(rows[0], answer="ignore", accept=[], _timestamp=rows[0]["_timestamp"] + 60)
    path = tmp_path / "db-out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows + [again]))
    with pytest.raises(AnnotationFileError, match=rf"line {len(rows) + 1}: duplicate "
                       r"annotation: item '-1423532410' by annotator 'news_topics-alice' "
                       r"already at line 1"):
        read_annotations(path)
    path.write_text("".join(json.dumps(r) + "\n" for r in [again] + rows))
    with pytest.raises(AnnotationFileError, match=r"line 2: duplicate annotation: .* already "
                       r"at line 1"):
        read_annotations(path)


def test_prodigy_binary_tasks(capsys):
    alice, bob, session = "topics_binary-alice", "topics_binary-bob", "2024-03-01_10-12-44"
    decisions = {
        (A, alice): {P: 1, T: 0}, (A, bob): {P: 1, T: 1}, (A, session): {P: 0},
        (B, alice): {S: 1}, (B, session): {S: 1},  # bob ignored B
        (C, alice): {T: 1}, (C, bob): {T: 1}, (C, session): {T: 0},
    }
    expected = grid(decisions, [A, B, C], [alice, bob, session], [P, S, T])
    check(PRODIGY / "textcat_binary.jsonl", expected, "prodigy",
          {"ignored": {"topics_binary-bob": 1}}, capsys=capsys)


# ---------------------------------------------------------------------------------------
# doccano: https://doccano.github.io/doccano/tutorial/#export-data and its data_export code
# (one file per user in the export zip; JSONL {"id", "text", "label": [...]}; CSV id, text,
# label with "#"-joined labels; all.jsonl in collaborative mode).
# ---------------------------------------------------------------------------------------

DOCCANO = DATA / "doccano"
DOCCANO_RECORDS = [
    (1, "alice", {"Politics"}), (1, "bob", {"Politics", "Tech"}), (1, "carol", {"Politics"}),
    (2, "alice", {"Sports"}), (2, "bob", set()), (2, "carol", {"Sports", "Health"}),
    (3, "alice", {"Tech", "Health"}), (3, "bob", {"Health"}), (3, "carol", {"Health"}),
    (4, "alice", {"Health"}), (4, "bob", None), (4, "carol", {"Health"}),
]


@pytest.mark.parametrize("name", ["project_export.zip", "project_export_csv.zip"])
def test_doccano_zip_of_per_user_files(name, capsys):
    check(DOCCANO / name, sets(DOCCANO_RECORDS, NEWS_SORTED), "doccano", {}, capsys=capsys)


def test_doccano_directory_and_one_users_file(tmp_path):
    folder = tmp_path / "export"
    with zipfile.ZipFile(DOCCANO / "project_export.zip") as archive:
        archive.extractall(folder)
    check(folder, sets(DOCCANO_RECORDS, NEWS_SORTED), "doccano", {})
    alone = [r for r in DOCCANO_RECORDS if r[1] == "alice"]
    da = read_annotations(folder / "alice.jsonl", tool="doccano")  # one user: nothing to pair
    assert_same_decisions(da, sets(alone, NEWS_SORTED))


def test_doccano_counts_empty_label_lists_and_records_without_label(tmp_path, capsys):
    # bob's file gains example 4 without a label field: no decision, dropped; his empty
    # list on example 2 stays "chose no label" and is counted
    folder = tmp_path / "export"
    with zipfile.ZipFile(DOCCANO / "project_export.zip") as archive:
        archive.extractall(folder)
    with open(folder / "bob.jsonl", "a") as handle:
        handle.write(json.dumps({"id": 4, "text": "Flu season peaks early, hospitals report.",
                                 "Comments": []}) + "\n")
    da = check(folder, sets(DOCCANO_RECORDS, NEWS_SORTED), "doccano",
               {"no label field": {"bob": 1}}, capsys=capsys)
    assert json.loads(da.attrs["empty_label_lists"]) == {"bob": 1}
    assert json.loads(read_annotations(DOCCANO / "project_export_csv.zip").attrs[
        "empty_label_lists"]) == {"bob": 1}


def test_a_zipped_plain_table_goes_to_the_table_reader(tmp_path):
    # votes.csv.zip: one compressed table, not doccano's per-user files
    path = tmp_path / "votes.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("votes.csv", "item,annotator,labels\ns1,ann,a\ns1,bob,a;b\ns2,ann,\n"
                                      "s2,bob,b\n")
    da = read_annotations(path)
    assert da.attrs["reader"] == "table"
    expected = sets([("s1", "ann", {"a"}), ("s1", "bob", {"a", "b"}), ("s2", "ann", set()),
                     ("s2", "bob", {"b"})], ["a", "b"])
    assert_same_decisions(da, expected)
    # one user's doccano CSV in a zip stays doccano's
    one = tmp_path / "export.zip"
    with zipfile.ZipFile(one, "w") as archive:
        archive.writestr("alice.csv", "id,text,label\n1,a,Politics\n2,b,Tech#Politics\n")
    assert read_annotations(one).attrs["reader"] == "doccano"


def test_doccano_csv_with_another_separator_is_refused_with_a_hint(tmp_path):
    path = tmp_path / "alice.csv"
    path.write_text("id,text,label\n1,a,Politics\n2,b,Tech\n3,c,\"Politics,Tech\"\n")
    with pytest.raises(AnnotationFileError, match=r"row 3 \(line 4\), column 'label': the "
                       r"label 'Politics,Tech' is the labels \['Politics', 'Tech'\] joined "
                       r"by ','.*--sep ','"):
        read_annotations(path, tool="doccano")
    da = read_annotations(path, tool="doccano", sep=",")
    assert da.sel(item=3).values.tolist() == [[1.0, 1.0]]


# ---------------------------------------------------------------------------------------
# Argilla: v2 https://docs.argilla.io/latest/how_to_guides/import_export/ (records with
# <question>.responses, .responses.users, .responses.status: submitted / draft / discarded);
# v1 FeedbackDataset exports ([{user_id, value, status}] per question, external_id).
# ---------------------------------------------------------------------------------------

ARGILLA = DATA / "argilla"
ANA, BEN, CAI = ("0c3b2f1e-5d7a-4a8e-9f4c-1b2d3e4f5a6b", "7d8e9f0a-1b2c-4d3e-8f5a-6b7c8d9e0f1a",
                 "a1b2c3d4-e5f6-4789-8abc-def012345678")
ARGILLA_RECORDS = [
    ("news-0001", ANA, {"politics"}), ("news-0001", BEN, {"politics", "tech"}),
    ("news-0001", CAI, {"politics"}),
    ("news-0002", ANA, {"sports"}), ("news-0002", BEN, None),  # discarded
    ("news-0002", CAI, {"sports", "health"}),
    ("news-0003", ANA, {"tech", "health"}), ("news-0003", BEN, set()),
    ("news-0003", CAI, None),  # draft
    ("news-0004", ANA, {"health"}), ("news-0004", BEN, {"health"}),
]
ARGILLA_DROPPED = {"discarded": {BEN: 1}, "draft": {CAI: 1}}
TOPICS = ["health", "politics", "sports", "tech"]


def test_argilla_v2_flat_records(capsys):
    with pytest.raises(AnnotationFileError, match=r"several questions: \['comment', "
                       r"'topics'\]"):
        read_annotations(ARGILLA / "records_v2.jsonl")
    check(ARGILLA / "records_v2.jsonl", sets(ARGILLA_RECORDS, TOPICS), "argilla",
          ARGILLA_DROPPED, control="topics", cli=["--control", "topics"], capsys=capsys)


def test_argilla_v1_response_lists(capsys):
    check(ARGILLA / "records_v1.jsonl", sets(ARGILLA_RECORDS, TOPICS), "argilla",
          ARGILLA_DROPPED, capsys=capsys)


# ---------------------------------------------------------------------------------------
# MTurk: batch results CSV (HITId, WorkerId, AssignmentStatus, Answer.*) and
# crowd-classifier-multi-select's output [{"<name>": {"labels": [...]}}]
# (https://docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-crowd-classifier-multi-select.html);
# checkbox templates: Answer.<label>.on.
# ---------------------------------------------------------------------------------------

MTURK = DATA / "mturk"
H1, H2, H3 = ("3Z8UJEJOCZEG603II1EL4BE2PV293A", "3R6RZGK0XFN2ZD7LP81MQ5D4D2GVY7",
              "37Y5RYYI0PQ1T8L1U0YIM4BVBGQSXG")
W1, W2, W3 = "A1W7I6FN183I8F", "A2JCHN9Z0K1MIR", "A3QRCZ3LF9MN6H"
MTURK_RECORDS = [
    (H1, W1, {"Politics"}), (H1, W2, {"Politics", "Tech"}), (H1, W3, {"Politics"}),
    (H2, W1, {"Sports"}), (H2, W2, None),  # Rejected (every topic ticked)
    (H2, W3, {"Sports", "Health"}),
    (H3, W1, {"Tech", "Health"}), (H3, W2, set()), (H3, W3, {"Health"}),
]


# the checkbox columns declare the labels (in their order); taskAnswers only the labels used
@pytest.mark.parametrize("name, labels", [("batch_results.csv", NEWS_SORTED),
                                          ("batch_results_checkboxes.csv", NEWS)])
def test_mturk_batch_results(name, labels, capsys):
    check(MTURK / name, sets(MTURK_RECORDS, labels), "mturk", {"rejected": {W2: 1}},
          capsys=capsys)


def test_mturk_silent_failure_now_gives_the_right_number_or_an_error(capsys):
    path = MTURK / "batch_results.csv"
    flags = ["--item-column", "HITId", "--annotator-column", "WorkerId", "--labels-column",
             "Answer.taskAnswers"]
    assert_summary(cli_summary(capsys, path, *flags), sets(MTURK_RECORDS, NEWS_SORTED),
                   "mturk", {"rejected": {W2: 1}})
    # forced through the generic table reader: the JSON cell is refused, not one label
    code = main(["report", str(path), *flags, "--from", "table"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "column 'Answer.taskAnswers'" in err and "nested dict" in err


# ---------------------------------------------------------------------------------------
# crowd tables: crowd-kit (https://toloka.ai/docs/crowd-kit/: columns task, worker, label)
# and Toloka's assignment export (INPUT:, OUTPUT:, ASSIGNMENT:worker_id, ASSIGNMENT:status).
# ---------------------------------------------------------------------------------------

CROWD = DATA / "crowd"


def test_crowd_kit_table(capsys):
    records = [("t1", "w1", {"politics"}), ("t1", "w2", {"politics"}), ("t1", "w3", {"tech"}),
               ("t2", "w1", {"sports"}), ("t2", "w2", {"sports"}), ("t2", "w3", {"sports"}),
               ("t3", "w1", {"health"}), ("t3", "w2", {"tech"}),
               ("t4", "w2", {"health"}), ("t4", "w3", {"health"})]
    # one label per row: read as label sets by name (ratings: test_tools_single)
    check(CROWD / "crowd_kit.csv", sets(records, TOPICS), "crowd", {}, capsys=capsys,
          layout="sets", cli=("--layout", "sets"))


def test_toloka_assignments(capsys):
    k1, k2, k3 = "5f1e2a3b4c5d6e7f8a9b0c1d", "6a7b8c9d0e1f2a3b4c5d6e7f", "7b8c9d0e1f2a3b4c5d6e7f8a"
    t1 = "Parliament passes the new data protection bill."
    t2 = "The city marathon adds a medical tent."
    t3 = "A wearable that tracks blood sugar wins an award."
    records = [(t1, k1, {"politics"}), (t1, k2, {"politics"}), (t1, k3, {"tech"}),
               (t2, k1, {"sports"}), (t2, k2, None), (t2, k3, {"sports"}),
               (t3, k1, None), (t3, k2, {"tech"}), (t3, k3, {"health"})]
    check(CROWD / "toloka_assignments.tsv", sets(records, TOPICS), "crowd",
          {"rejected": {k2: 1}, "skipped": {k1: 1}}, capsys=capsys, layout="sets",
          cli=("--layout", "sets"))


def test_toloka_statuses_other_than_an_answer(tmp_path):
    # Toloka assignment statuses: ACTIVE (taken, not submitted: its output cell may already
    # hold text), SUBMITTED, ACCEPTED, REJECTED, SKIPPED, EXPIRED; only the submitted and
    # accepted are answers
    lines = (CROWD / "toloka_assignments.tsv").read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace("\tSUBMITTED\t", "\tACTIVE\t")  # t1 by k3, "tech"
    lines[9] = lines[9].replace("\tACCEPTED\t", "\tEXPIRED\t")  # t3 by k3
    path = tmp_path / "assignments.tsv"
    path.write_text("".join(lines))
    k1, k2, k3 = "5f1e2a3b4c5d6e7f8a9b0c1d", "6a7b8c9d0e1f2a3b4c5d6e7f", "7b8c9d0e1f2a3b4c5d6e7f8a"
    t1 = "Parliament passes the new data protection bill."
    t2 = "The city marathon adds a medical tent."
    t3 = "A wearable that tracks blood sugar wins an award."
    records = [(t1, k1, {"politics"}), (t1, k2, {"politics"}), (t1, k3, None),
               (t2, k1, {"sports"}), (t2, k2, None), (t2, k3, {"sports"}),
               (t3, k1, None), (t3, k2, {"tech"}), (t3, k3, None)]
    # "health" is chosen only in assignments that are no answer
    check(path, sets(records, ["politics", "sports", "tech"]), "crowd",
          {"active": {k3: 1}, "expired": {k3: 1}, "rejected": {k2: 1}, "skipped": {k1: 1}},
          layout="sets")
    lines[5] = lines[5].replace("\tREJECTED\t", "\tPENDING\t")
    path.write_text("".join(lines))
    with pytest.raises(AnnotationFileError, match=r"row 5 \(line 6\), column "
                       r"'ASSIGNMENT:status': ASSIGNMENT:status must be one of .*'PENDING'"):
        read_annotations(path)


def test_crowd_label_cells_that_are_lists_are_parsed(tmp_path):
    path = tmp_path / "votes.csv"
    path.write_text("task,worker,label\nt1,w1,\"['a', 'b']\"\nt1,w2,\"[\"\"a\"\"]\"\n"
                    "t2,w1,b\nt2,w2,\n")
    expected = sets([("t1", "w1", {"a", "b"}), ("t1", "w2", {"a"}), ("t2", "w1", {"b"}),
                     ("t2", "w2", set())], ["a", "b"])
    check(path, expected, "crowd", {})


# ---------------------------------------------------------------------------------------
# wide tables: GoEmotions raw ratings (goemotions_1.csv of google-research/goemotions: id,
# rater_id, example_very_unclear, one 0/1 column per emotion).
# ---------------------------------------------------------------------------------------

EMOTIONS = ["admiration", "amusement", "anger", "annoyance", "approval", "caring",
            "confusion", "curiosity", "desire", "disappointment", "disapproval", "disgust",
            "embarrassment", "excitement", "fear", "gratitude", "grief", "joy", "love",
            "nervousness", "optimism", "pride", "realization", "relief", "remorse", "sadness",
            "surprise", "neutral"]


def test_goemotions_raw_ratings(capsys):
    records = [("eew5j0j", "1", {"sadness"}), ("eew5j0j", "4", {"sadness", "disappointment"}),
               ("eew5j0j", "37", {"sadness"}),
               ("ed2mah1", "1", {"gratitude", "joy"}), ("ed2mah1", "4", {"gratitude"}),
               ("ed2mah1", "37", None),  # example_very_unclear = True
               ("eeibobj", "4", {"confusion", "curiosity"}), ("eeibobj", "37", {"curiosity"}),
               ("eeibobj", "61", {"neutral"})]
    check(DATA / "wide" / "goemotions_1.csv", sets(records, EMOTIONS), "wide",
          {"unclear": {"37": 1}}, capsys=capsys)


# ---------------------------------------------------------------------------------------
# the report says how the file was read; items with fewer than two annotators
# ---------------------------------------------------------------------------------------


def test_report_states_reader_dropped_and_lonely_items(tmp_path, capsys):
    code = main(["report", str(LS / "export.json")])
    out, _ = capsys.readouterr()
    assert code == 0
    text = " ".join(out.split())
    assert "Read with the 'label-studio' reader." in text
    assert "cancelled 1 (bea@example.org: 1); superseded 1 (1: 1)" in text
    path = tmp_path / "votes.csv"
    path.write_text("task,worker,label\nt1,w1,a\nt1,w2,b\nt2,w1,a\n")
    # one label per row: the label-set report by name
    code = main(["report", str(path), "--format", "markdown", "--layout", "sets"])
    out, _ = capsys.readouterr()
    assert "1 item(s) have fewer than two annotators' decisions and contribute no pair: t2" \
        in " ".join(out.split())


def test_json_summary_with_intervals(capsys):
    summary = cli_summary(capsys, LS / "export.json", "--ci", "0.9", "--seed", "3")
    result = xr_agreement.mla(read_annotations(LS / "export.json"), ["F", "AC1", "PB"],
                              ci=0.9, seed=3)
    for baseline in ("F", "AC1", "PB"):
        for bound in ("agreement_lower", "agreement_upper"):
            assert summary[bound][baseline] == pytest.approx(
                float(result[bound].sel(baseline=baseline)), rel=1e-12)


def test_detection_and_forcing():
    from xr_agreement.io.tools import detect_tool

    found = {path.relative_to(DATA).as_posix(): detect_tool(path) for path in [
        LS / "export.json", LS / "export_min.json", PRODIGY / "textcat_manual.jsonl",
        DOCCANO / "project_export.zip", ARGILLA / "records_v1.jsonl",
        ARGILLA / "records_v2.jsonl", MTURK / "batch_results.csv", CROWD / "crowd_kit.csv",
        CROWD / "toloka_assignments.tsv", DATA / "wide" / "goemotions_1.csv"]}
    assert found == {
        "label_studio/export.json": "label-studio", "label_studio/export_min.json":
        "label-studio", "prodigy/textcat_manual.jsonl": "prodigy",
        "doccano/project_export.zip": "doccano", "argilla/records_v1.jsonl": "argilla",
        "argilla/records_v2.jsonl": "argilla", "mturk/batch_results.csv": "mturk",
        "crowd/crowd_kit.csv": "crowd", "crowd/toloka_assignments.tsv": "crowd",
        "wide/goemotions_1.csv": "wide"}
    assert detect_tool(Path(__file__).parent / "data" / "bias_sets.csv") == "table"
    with pytest.raises(ValueError, match="tool must be one of"):
        read_annotations(LS / "export.json", tool="inception")


def test_a_long_table_with_several_0_1_columns_is_ambiguous(capsys):
    # a wide table with a gold "label" column is also an item/annotator/label table
    path = DATA / "wide" / "ratings_with_gold_label.csv"
    with pytest.raises(AnnotationFileError, match=r"ambiguous table: .* 0/1 columns \['joy', "
                       r"'anger', 'sadness'\]; say how to read it: --from wide .* --from "
                       r"table / --from crowd"):
        read_annotations(path)
    code = main(["report", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "--from wide" in err
    # said: the 0/1 columns are the decisions, row by row (r02 on e1: joy and sadness)
    decisions = {("e1", "r01"): {"joy": 1, "anger": 0, "sadness": 0},
                 ("e1", "r02"): {"joy": 1, "anger": 0, "sadness": 1},
                 ("e2", "r01"): {"joy": 0, "anger": 1, "sadness": 0},
                 ("e2", "r02"): {"joy": 0, "anger": 1, "sadness": 1},
                 ("e3", "r01"): {"joy": 0, "anger": 0, "sadness": 1},
                 ("e3", "r02"): {"joy": 0, "anger": 0, "sadness": 1}}
    expected = grid(decisions, ["e1", "e2", "e3"], ["r01", "r02"], ["joy", "anger", "sadness"])
    assert_same_decisions(read_annotations(path, tool="wide"), expected)


def test_ids_are_converted_only_when_no_two_ids_merge(tmp_path):
    # "01" and "1" are two tasks: as int they would be one item id twice
    path = CROWD / "padded_ids.csv"
    da = read_annotations(path, layout="sets")  # one label per row: label sets by name
    assert da["item"].values.tolist() == ["01", "1", "2"]
    records = [("01", "w1", {"spam"}), ("01", "w2", {"spam"}), ("1", "w1", {"ham"}),
               ("1", "w2", {"spam"}), ("2", "w1", {"spam"}), ("2", "w2", {"ham"})]
    assert_same_decisions(da, sets(records, ["ham", "spam"]))
    table = tmp_path / "votes.csv"  # the generic table reader: the same rule
    table.write_text("item,annotator,labels\n01,w1,a\n01,w2,a\n1,w1,b\n1,w2,a\n")
    assert read_annotations(table)["item"].values.tolist() == ["01", "1"]
    # " a" and "a" are two ids as written; "b " alone is stripped
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("task,worker,label\n a,w1,x\na,w1,y\nb ,w1,x\n")
    assert read_annotations(spaced)["item"].values.tolist() == [" a", "a", "b "]
    spaced.write_text("task,worker,label\n a,w1,x\nb ,w1,y\n7,w1,x\n")
    assert read_annotations(spaced)["item"].values.tolist() == ["a", "b", "7"]
    spaced.write_text("task,worker,label\n 3,w1,x\n10,w1,y\n")
    assert read_annotations(spaced)["item"].values.tolist() == [3, 10]


def test_inputs_are_not_modified(tmp_path):
    for source in (LS / "export.json", PRODIGY / "textcat_manual.jsonl",
                   MTURK / "batch_results.csv"):
        copy = tmp_path / source.name
        shutil.copy(source, copy)
        before = copy.read_bytes()
        read_annotations(copy)
        assert copy.read_bytes() == before


# ---------------------------------------------------------------------------------------
# malformed exports: one line, exit 2, never a traceback, never a number
# ---------------------------------------------------------------------------------------


def _ls(edit):
    tasks = json.loads((LS / "export.json").read_text())
    edit(tasks)
    return json.dumps(tasks)


def _lines(path, edit):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    edit(rows)
    return "".join(json.dumps(r) + "\n" for r in rows)


def _set(rows, index, key, value):
    rows[index][key] = value


def _delete(rows, index, key):
    del rows[index][key]


LS_TEXT = (LS / "export.json").read_text()
PRODIGY_PATH = PRODIGY / "textcat_manual.jsonl"
MTURK_TEXT = (MTURK / "batch_results.csv").read_text()
MALFORMED = {
    "ls_truncated.json": (LS_TEXT[: len(LS_TEXT) // 2], [], ["invalid JSON", "line"]),
    "ls_no_result.json": (_ls(lambda t: t[0]["annotations"][1].pop("result")), [],
                          ["row 1", "annotations[1].result", "an annotation without result"]),
    "ls_no_completed_by.json": (_ls(lambda t: t[1]["annotations"][0].pop("completed_by")), [],
                                ["row 2", "without completed_by"]),
    "ls_no_task_id.json": (_ls(lambda t: t[3].pop("id")), [], ["row 4", "a task without id"]),
    "ls_cancelled_word.json": (_ls(lambda t: t[0]["annotations"][0].update(
        was_cancelled="yes")), [], ["was_cancelled must be true or false"]),
    "ls_unknown_control.json": (LS_TEXT, ["--control", "sentiment"],
                                ["no control named 'sentiment'", "['topic']"]),
    "ls_not_a_label_control.json": (_ls(lambda t: t[0]["annotations"][0]["result"].append(
        {"from_name": "notes", "to_name": "text", "type": "textarea",
         "value": {"text": ["x"]}})), ["--control", "notes"],
        ["'textarea' result, not choices"]),
    "ls_bad_timestamp.json": (_ls(lambda t: t[2]["annotations"][3].update(
        updated_at="last Tuesday")), [], ["row 3", "annotations[3].updated_at",
                                           "not an ISO 8601 timestamp: 'last Tuesday'"]),
    "ls_two_tools.json": (_ls(lambda t: t[0].update(_input_hash=1, answer="accept")), [],
                          ["several tools", "--from TOOL"]),
    "prodigy_unknown_answer.jsonl": (_lines(PRODIGY_PATH, lambda r: _set(r, 3, "answer",
                                                                          "maybe")), [],
                                     ["line 4", "answer must be one of", "'maybe'"]),
    "prodigy_no_hash.jsonl": (_lines(PRODIGY_PATH, lambda r: _delete(r, 1, "_input_hash")),
                              ["--from", "prodigy"], ["line 2", "without _input_hash"]),
    "prodigy_no_annotator.jsonl": (_lines(PRODIGY_PATH, lambda r: (
        _delete(r, 2, "_annotator_id"), _delete(r, 2, "_session_id"))), [],
        ["line 3", "without _annotator_id or _session_id"]),
    "prodigy_mixed.jsonl": (_lines(PRODIGY_PATH, lambda r: (
        _delete(r, 4, "options"), _set(r, 4, "label", "SPORTS"))), [],
        ["line 5", "mixed task types"]),
    "prodigy_unknown_option.jsonl": (_lines(PRODIGY_PATH, lambda r: _set(
        r, 0, "accept", ["FINANCE"])), [], ["line 1", "['FINANCE']", "not among"]),
    "prodigy_duplicate.jsonl": (_lines(PRODIGY_PATH, lambda r: r.append(dict(r[0]))), [],
                                ["line 10", "duplicate annotation", "already at line 1"]),
    "prodigy_truncated.jsonl": (PRODIGY_PATH.read_text()[:-40], [],
                                ["line 9", "invalid JSON"]),
    "mturk_status.csv": (MTURK_TEXT.replace(",Submitted,", ",Pending,", 1), [],
                         ["row 3 (line 4)", "AssignmentStatus must be one of"]),
    "mturk_bad_json.csv": (MTURK_TEXT.replace('[{""topic"": {""labels"": [""Sports""]}}]',
                                              '[{""topic"": {""labels"": [""Sports""', 1), [],
                           ["row 4 (line 5)", "not valid JSON"]),
    # a crowd element's labels that are one string, not a list: an error, not "no label"
    "mturk_labels_not_a_list.csv": (MTURK_TEXT.replace('[{""topic"": {""labels"": [""Sports""]}}]',
                                                       '[{""topic"": {""labels"": ""Sports""}}]',
                                                       1), [],
                                    ["row 4 (line 5)", "element 'topic': labels must be a list"]),
    "mturk_element_missing.csv": (MTURK_TEXT.replace('[{""topic"": {""labels"": [""Sports""]}}]',
                                                     '[{""comment"": {""text"": ""hard""}}]', 1),
                                  [], ["row 4 (line 5)", "no labels of the crowd element "
                                       "'topic'"]),
    "mturk_no_worker.csv": (MTURK_TEXT.replace("A3QRCZ3LF9MN6H", "", 1), [],
                            ["row 3 (line 4)", "empty WorkerId"]),
    "mturk_duplicate.csv": (MTURK_TEXT + MTURK_TEXT.splitlines()[1] + "\n", [],
                            ["row 10 (line 11)", "duplicate annotation",
                             "one assignment per HIT"]),
    "crowd_duplicate.csv": ("task,worker,label\nt1,w1,a\nt1,w2,b\nt1,w1,b\n", [],
                            ["row 3 (line 4)", "duplicate annotation"]),
    "crowd_joined.csv": ("task,worker,label\nt1,w1,a\nt1,w2,b\nt2,w1,\"a, b\"\n", [],
                         ["row 3 (line 4)", "'a, b' is the labels ['a', 'b'] joined by ','",
                          "--sep ','"]),
    "crowd_object.csv": ("task,worker,label\nt1,w1,\"{\"\"a\"\": 1}\"\nt1,w2,b\n", [],
                         ["row 1 (line 2)", "JSON object, not a label list"]),
    "table_list_repr.csv": ("item,annotator,labels\ns1,ann,\"['a', 'b']\"\ns1,bob,a\n"
                            "s2,ann,\"['a', ['b']]\"\n", [],
                            ["row 3 (line 4)", "nested list"]),
    "wide_not_binary.csv": ("id,rater_id,joy,anger\ne1,1,1,0\ne1,2,2,0\n",
                            ["--from", "wide", "--labels", "LABELS"],
                            ["row 2 (line 3)", "column 'joy'", "must hold 0 or 1"]),
    "wide_flag_word.csv": ("id,rater_id,example_very_unclear,joy,anger\ne1,1,False,0,1\n"
                           "e1,2,maybe,1,0\ne2,1,False,1,0\n", [],
                           ["row 2 (line 3)", "column 'example_very_unclear'",
                            "must hold 0/1 or true/false", "'maybe'"]),
    "argilla_status.jsonl": (_lines(ARGILLA / "records_v1.jsonl", lambda r: r[0]["topics"][0]
                                    .update(status="pending")), [],
                             ["line 1", "status must be one of", "'pending'"]),
    # a list or an object where an id is expected: never made text, never "unhashable"
    "argilla_user_list.jsonl": (_lines(ARGILLA / "records_v2.jsonl", lambda r: r[1][
        "topics.responses.users"].__setitem__(0, [r[1]["topics.responses.users"][0]])),
        ["--control", "topics"],
        ["line 2", "column 'topics.responses.users'", "must be an id", "got list"]),
    "doccano_id_object.jsonl": ('{"id": 1, "text": "a", "label": ["Tech"]}\n'
                                '{"id": {"x": 2}, "text": "b", "label": ["Tech"]}\n',
                                ["--from", "doccano"],
                                ["line 2", "column 'id'", "must be an id", "got dict"]),
    "ls_task_id_list.json": (_ls(lambda t: t[1].update(id=[102])), [],
                             ["row 2", "column 'id'", "must be an id", "got list [102]"]),
    "ls_min_id_object.json": (json.dumps([dict(r, id={"task": r["id"]}) if n == 2 else r
                                          for n, r in enumerate(json.loads(
                                              (LS / "export_min.json").read_text()))]), [],
                              ["row 3", "column 'id'", "must be an id", "got dict"]),
    "prodigy_hash_list.jsonl": (_lines(PRODIGY_PATH, lambda r: _set(r, 2, "_input_hash",
                                                                     [r[2]["_input_hash"]])),
                                [], ["line 3", "column '_input_hash'", "must be an id"]),
    "argilla_lengths.jsonl": (_lines(ARGILLA / "records_v2.jsonl", lambda r: r[1][
        "topics.responses.users"].pop()), ["--control", "topics"],
        ["line 2", "lists of one length"]),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_export_is_one_line_and_exit_2(name, tmp_path, capsys):
    text, extra, fragments = MALFORMED[name]
    path = tmp_path / name
    path.write_text(text)
    extra = [str(tmp_path / "labels.txt") if e == "LABELS" else e for e in extra]
    (tmp_path / "labels.txt").write_text("joy\nanger\n")
    code = main(["report", str(path), *extra])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("xr-agreement: error: "), err
    assert "Traceback" not in err and str(path) in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def test_doccano_malformed_archives(tmp_path, capsys):
    broken = tmp_path / "export.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    for path, extra, fragment in [
        (DOCCANO / "collaborative_export.zip", [], "collaborative annotation"),
        (broken, ["--from", "doccano"], "cannot open the zip archive"),
    ]:
        code = main(["report", str(path), *extra])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err, err


def test_a_labeling_config_is_for_label_studio_only():
    for path in (PRODIGY / "textcat_manual.jsonl",
                 Path(__file__).parent / "data" / "bias_sets.csv"):
        with pytest.raises(AnnotationFileError, match=r"config.xml: a labeling config \(XML\) "
                           r"declares a Label Studio project's labels"):
            read_annotations(path, labels=LS_CONFIG)


def test_argilla_v2_nested_records(tmp_path):
    # records.to_json(): {"id", "fields", "responses": {"<question>": [{user_id, value,
    # status}]}, ...}; the same responses as the v1 fixture
    rows = [json.loads(line) for line in (ARGILLA / "records_v1.jsonl").read_text()
            .splitlines()]
    nested = [{"id": r["external_id"], "status": "completed", "fields": {"text": r["text"]},
               "metadata": {}, "suggestions": {}, "responses": {"topics": r["topics"]},
               "vectors": {}} for r in rows]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(nested))
    check(path, sets(ARGILLA_RECORDS, TOPICS), "argilla", ARGILLA_DROPPED)


def test_a_json_array_of_no_known_tool_is_refused(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps([{"doc": 1, "who": "a", "tags": ["x"]}]))
    with pytest.raises(AnnotationFileError, match="cannot tell which tool wrote this JSON "
                       r"array.*--from TOOL"):
        read_annotations(path)
