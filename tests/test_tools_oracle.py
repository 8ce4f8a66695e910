"""Annotation-tool exports read by xr_agreement.read_annotations, against hand-written oracles.

The fixtures in tests/data/tools_oracle follow each tool's documented export layout
(README.md there cites the page or exporter source of each). Beside each fixture, this file
writes out by hand the decisions the tool meant, as (item, annotator, label set or None)
records, and builds the expected DataArray with ``xr_agreement.from_sets`` (existing
record-level code, independent of the tool readers). A reader passes when its DataArray
holds the same decisions (same ids, same NaN pattern) and gives the same MLA values, and
when the command line reports the same F coefficient.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

import xr_agreement
from xr_agreement import AnnotationFileError, read_annotations
from xr_agreement.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "tools_oracle")

# the words a reader may use for the tools' "no decision" entries (attrs["dropped"] keys)
DROP_REASONS = {"skipped", "cancelled", "ignored", "rejected", "discarded", "draft"}
BASELINES = ["F", "AC1", "PB"]


@dataclass
class Case:
    path: str
    tool: str
    labels: list
    records: list = None          # (item, annotator, set of labels | None)
    long_rows: list = None        # (item, annotator, label, 0/1) for per-label decisions
    dropped: dict = field(default_factory=dict)   # annotator -> number of entries dropped
    reason_words: set = field(default_factory=lambda: set(DROP_REASONS))
    kwargs: dict = field(default_factory=dict)    # extra read_annotations keywords
    cli_args: list = field(default_factory=list)

    def expected(self):
        if self.records is not None:
            return xr_agreement.from_sets(self.records, labels=self.labels)
        table = pd.DataFrame(self.long_rows, columns=["item", "annotator", "label", "value"])
        return xr_agreement.from_long(table, value_column="value", labels=self.labels)


# --------------------------------------------------------------------------------------
# The decisions, by hand
# --------------------------------------------------------------------------------------

LS_TOPICS = ["Politics", "Sports", "Economy", "Science"]
LS_CHOICES_RECORDS = [
    (101, "3", {"Politics", "Economy"}), (101, "7", {"Politics"}),
    (101, "12", {"Politics", "Economy"}),
    (102, "3", {"Sports"}), (102, "7", {"Sports"}), (102, "12", None),      # 12 cancelled
    (103, "3", set()), (103, "7", {"Science"}), (103, "12", {"Science", "Economy"}),
    (104, "3", {"Economy"}), (104, "7", None), (104, "12", {"Economy"}),    # 7 cancelled
    (105, "3", {"Science"}), (105, "12", {"Science", "Politics"}),          # 7 never saw 105
]

ANA, BEN, CHEN = "ana@lab.example", "ben@lab.example", "chen@lab.example"
TAXONOMY = ["Archaea", "Bacteria", "Eukarya", "Eukarya/Human", "Eukarya/Opossum"]
LS_TAXONOMY_RECORDS = [
    (201, ANA, {"Bacteria"}), (201, BEN, {"Bacteria"}), (201, CHEN, {"Bacteria", "Archaea"}),
    (202, ANA, {"Eukarya/Human"}), (202, BEN, {"Eukarya/Human", "Eukarya/Opossum"}),
    (202, CHEN, None),
    (203, ANA, {"Archaea"}), (203, BEN, set()), (203, CHEN, {"Archaea"}),
    (204, ANA, {"Eukarya"}), (204, BEN, {"Eukarya/Opossum"}), (204, CHEN, {"Eukarya/Opossum"}),
]

LS_TWO_CONTROLS_TOPIC_RECORDS = [
    (301, "4", {"Sports", "Economy"}), (301, "9", {"Sports"}),
    (302, "4", set()), (302, "9", {"Politics"}),          # 4 gave a sentiment, no topic
    (303, "4", {"Politics"}), (303, "9", None),            # 9 cancelled
    (304, "4", {"Economy"}), (304, "9", {"Economy"}),
]

PRODIGY_OPTIONS = ["POLITICS", "SPORTS", "TECH", "HEALTH", "SCIENCE"]   # SCIENCE never chosen
ALEX, BEA, CAT = "news_topics-alex", "news_topics-bea", "news_topics-cat"
PRODIGY_CHOICE_RECORDS = [
    (-1223457234, ALEX, {"POLITICS", "TECH"}), (-1223457234, BEA, {"POLITICS"}),
    (-1223457234, CAT, {"POLITICS", "TECH"}),
    (849378123, ALEX, {"SPORTS"}), (849378123, BEA, None),               # ignored
    (849378123, CAT, {"SPORTS", "HEALTH"}),
    (193847561, ALEX, set()), (193847561, BEA, {"HEALTH"}), (193847561, CAT, None),
    (-583920174, ALEX, {"TECH"}), (-583920174, BEA, {"TECH"}),
]

# choice_style "single" with int option ids (labels compare as the strings "1", "2", "3")
ANA_S, RAJ, LOU = "review_sentiment-ana", "review_sentiment-raj", "review_sentiment-lou"
PRODIGY_SINGLE_RECORDS = [
    (-401928374, ANA_S, {1}), (1638201947, ANA_S, {2}), (-99102833, ANA_S, {3}),
    (-401928374, RAJ, {1}), (1638201947, RAJ, {2}), (-99102833, RAJ, {1}),
    (-401928374, LOU, {1}), (-99102833, LOU, {3}),
]

DAN, EVE = "sports_binary-dan", "sports_binary-eve"
PRODIGY_BINARY_ROWS = [          # accept -> 1, reject -> 0, ignore / never asked -> absent
    (402133811, DAN, "SPORTS", 1), (402133811, EVE, "SPORTS", 1),
    (402133811, DAN, "POLITICS", 0), (402133811, EVE, "POLITICS", 1),
    (-77120934, DAN, "SPORTS", 0), (-77120934, EVE, "SPORTS", 0),
    (-77120934, EVE, "POLITICS", 0),
    (1300022871, DAN, "SPORTS", 1),
]

DOCCANO_JSONL_RECORDS = [
    (17, "alice", {"bug"}), (17, "bob", {"bug", "docs"}), (17, "carol", {"bug"}),
    (18, "alice", {"feature"}), (18, "bob", {"question"}), (18, "carol", set()),
    (19, "alice", {"question", "docs"}), (19, "bob", {"question"}),
    (20, "bob", {"feature"}), (20, "carol", {"feature", "bug"}),
]
DOCCANO_CSV_RECORDS = [
    (31, "alice", {"bug", "feature"}), (31, "bob", {"bug"}),
    (32, "alice", {"question"}), (32, "bob", set()),
    (33, "alice", {"feature"}), (33, "bob", {"feature"}),
    (34, "bob", {"bug", "question"}),
    (35, "alice", {"bug"}),
]

U1 = "0f8b2c1e-6a39-4d0b-9b2e-3c5d7a1e9f01"
U2 = "5c1d9e7a-2b4f-4e8a-8f3c-9a0b1c2d3e02"
U3 = "a7e3f1b9-8c2d-4f6e-b1a0-4d5e6f7a8b03"
ARGILLA_TOPICS = ["billing", "outage", "account", "feedback"]
ARGILLA_V2_RECORDS = [
    ("rec-001", U1, {"billing"}), ("rec-001", U2, {"billing", "account"}),
    ("rec-001", U3, {"billing"}),
    ("rec-002", U1, {"outage"}), ("rec-002", U2, None), ("rec-002", U3, {"outage", "feedback"}),
    ("rec-003", U1, None), ("rec-003", U2, {"account"}), ("rec-003", U3, {"account", "billing"}),
    ("rec-004", U1, {"feedback"}), ("rec-004", U3, {"feedback"}),
]
ARGILLA_V1_RECORDS = [
    ("ticket-0007", U1, {"outage"}), ("ticket-0007", U2, {"outage"}),
    ("ticket-0008", U1, {"billing", "account"}), ("ticket-0008", U2, None),
    ("ticket-0008", U3, {"billing"}),
    ("ticket-0009", U1, None), ("ticket-0009", U2, {"feedback"}),
    ("ticket-0009", U3, {"feedback", "outage"}),
    ("ticket-0010", U2, {"account"}), ("ticket-0010", U3, {"account"}),
]

# a label_selection question: each response value is one label string
ARGILLA_V2_SINGLE_RECORDS = [
    ("c-1", U1, {"positive"}), ("c-1", U2, {"positive"}), ("c-1", U3, {"positive"}),
    ("c-2", U1, {"negative"}), ("c-2", U2, {"neutral"}), ("c-2", U3, None),      # discarded
    ("c-3", U1, {"neutral"}), ("c-3", U3, {"neutral"}),
    ("c-4", U1, None), ("c-4", U2, {"neutral"}), ("c-4", U3, {"positive"}),      # draft
]

W1, W2, W3 = "A1B2C3D4E5F6G7", "A2Z9Y8X7W6V5U4", "A3QWERTYUIOP12"
H1, H2, H3, H4 = ("3T2HW4QDUVJ0M1XKJ7Q9N5YHM1A9PZ", "3K8CQCQRMQ8FX0C2Y1S7PRZ8D8BY2L",
                  "3D0LPO3EAB14KQ0A1T4XK7UQZTBYO5", "3LB1BGHFL3ZK9P0QYAZ5UA6M2QF7YS")
MTURK_TASKANSWERS_RECORDS = [
    (H1, W1, {"Positive"}), (H1, W2, {"Positive", "Neutral"}), (H1, W3, None),   # rejected
    (H2, W1, {"Negative"}), (H2, W2, {"Negative"}), (H2, W3, {"Negative", "Neutral"}),
    (H3, W1, {"Neutral"}), (H3, W2, None), (H3, W3, {"Neutral"}),                # rejected
    (H4, W1, {"Positive", "Negative"}), (H4, W3, {"Negative"}),
]
C1, C2, C3 = ("3VP28W7DUNV2H8E0EQMGH0ZT4PRZFA", "3Q2T3FD0ON8B4M7N2C1AWX9K0E2M3B",
              "3X0EMNLXEPNK3QGZ9ZYN1P4A0CTPV3")
MTURK_CHECKBOX_RECORDS = [
    (C1, W1, {"funny"}), (C1, W2, {"funny", "sarcastic"}), (C1, W3, set()),
    (C2, W1, {"offensive"}), (C2, W2, {"offensive"}), (C2, W3, None),            # rejected
    (C3, W1, {"sarcastic"}), (C3, W3, {"sarcastic", "funny"}),
]

CROWD_RECORDS = [
    ("t1", "w1", {"cat"}), ("t1", "w2", {"cat"}), ("t1", "w3", {"dog"}),
    ("t2", "w1", {"dog"}), ("t2", "w2", {"dog"}), ("t2", "w3", {"dog"}),
    ("t3", "w1", {"bird"}), ("t3", "w3", {"cat"}),
    ("t4", "w2", {"bird"}), ("t4", "w3", {"bird"}),
]

# relevance grades 0/1/2 as single-choice labels (not 0/1 decision values)
CROWD_INT_RECORDS = [
    ("q17-d3", "w11", {1}), ("q17-d3", "w12", {1}), ("q17-d3", "w13", {0}),
    ("q17-d8", "w11", {0}), ("q17-d8", "w12", {0}), ("q17-d8", "w13", {0}),
    ("q21-d1", "w11", {2}), ("q21-d1", "w12", {1}), ("q21-d1", "w13", {2}),
    ("q21-d5", "w12", {1}), ("q21-d5", "w13", {1}),
]

EMOTIONS = ("admiration amusement anger annoyance approval caring confusion curiosity desire "
            "disappointment disapproval disgust embarrassment excitement fear gratitude grief "
            "joy love nervousness optimism pride realization relief remorse sadness surprise "
            "neutral").split()
GOEMOTIONS_RECORDS = [
    ("eew5j0j", 1, {"joy"}), ("eew5j0j", 37, {"joy", "gratitude"}), ("eew5j0j", 61, {"joy"}),
    ("ed2mah1", 1, {"neutral"}), ("ed2mah1", 37, None), ("ed2mah1", 61, {"annoyance"}),
    ("eeibobj", 1, {"anger", "annoyance"}), ("eeibobj", 37, {"anger"}),
    ("eeibobj", 61, {"anger", "disgust"}),
    ("eda6yn6", 37, {"curiosity"}), ("eda6yn6", 61, {"curiosity", "confusion"}),
]

SETS, SETS_ARGS = {"layout": "sets"}, ["--layout", "sets"]
CASES = {
    "ls_choices": Case("ls_choices.json", "label-studio", LS_TOPICS, LS_CHOICES_RECORDS,
                       dropped={"12": 1, "7": 1}),
    "ls_taxonomy": Case("ls_taxonomy.json", "label-studio", TAXONOMY, LS_TAXONOMY_RECORDS,
                        dropped={CHEN: 1}),
    "ls_two_controls": Case("ls_two_controls.json", "label-studio",
                            ["Sports", "Economy", "Politics"], LS_TWO_CONTROLS_TOPIC_RECORDS,
                            dropped={"9": 1}, kwargs={"control": "topic"},
                            cli_args=["--control", "topic"]),
    # JSON-min leaves cancelled annotations out: nothing to count
    "ls_min": Case("ls_min.json", "label-studio", LS_TOPICS,
                   [r for r in LS_CHOICES_RECORDS if r[2] is not None]),
    "ls_taxonomy_min": Case("ls_taxonomy_min.json", "label-studio", TAXONOMY,
                            [r for r in LS_TAXONOMY_RECORDS if r[2] is not None]),
    "prodigy_choice": Case("prodigy_choice.jsonl", "prodigy", PRODIGY_OPTIONS,
                           PRODIGY_CHOICE_RECORDS, dropped={BEA: 1, CAT: 1}),
    # a dataset from a Prodigy version that wrote no _annotator_id: _session_id names the
    # annotator
    "prodigy_session_only": Case("prodigy_choice_session_only.jsonl", "prodigy",
                                 PRODIGY_OPTIONS, PRODIGY_CHOICE_RECORDS,
                                 dropped={BEA: 1, CAT: 1}),
    # the same answers from a "blocks" interface (choice + text_input), as custom recipes do
    "prodigy_blocks": Case("prodigy_blocks.jsonl", "prodigy", PRODIGY_OPTIONS,
                           PRODIGY_CHOICE_RECORDS, dropped={BEA: 1, CAT: 1}),
    # single-label fixtures (read as ratings by default, tests/test_tools_single.py): their
    # label-set reading, asked for by name
    "prodigy_single": Case("prodigy_choice_single.jsonl", "prodigy", [1, 2, 3],
                           PRODIGY_SINGLE_RECORDS, kwargs=SETS, cli_args=SETS_ARGS),
    "prodigy_binary": Case("prodigy_binary.jsonl", "prodigy", ["SPORTS", "POLITICS"],
                           long_rows=PRODIGY_BINARY_ROWS, dropped={DAN: 1, EVE: 1}),
    "doccano_jsonl": Case("doccano_jsonl.zip", "doccano", ["bug", "feature", "question", "docs"],
                          DOCCANO_JSONL_RECORDS),
    "doccano_csv": Case("doccano_csv.zip", "doccano", ["bug", "feature", "question"],
                        DOCCANO_CSV_RECORDS),
    "argilla_v2": Case("argilla_v2.jsonl", "argilla", ARGILLA_TOPICS, ARGILLA_V2_RECORDS,
                       dropped={U1: 1, U2: 1}),
    "argilla_v1": Case("argilla_v1.jsonl", "argilla", ARGILLA_TOPICS, ARGILLA_V1_RECORDS,
                       dropped={U1: 1, U2: 1}),
    "argilla_v2_single": Case("argilla_v2_single.jsonl", "argilla",
                              ["positive", "negative", "neutral"], ARGILLA_V2_SINGLE_RECORDS,
                              dropped={U1: 1, U3: 1}, kwargs=SETS, cli_args=SETS_ARGS),
    # a second question (free-text "comment") beside the labels: control= picks the labels
    "argilla_v2_two_questions": Case("argilla_v2_two_questions.jsonl", "argilla",
                                     ARGILLA_TOPICS, ARGILLA_V2_RECORDS, dropped={U1: 1, U2: 1},
                                     kwargs={"control": "topics"},
                                     cli_args=["--control", "topics"]),
    # the same records as the Hub holds them after dataset.to_hub(): parquet
    "argilla_v2_parquet": Case("argilla_v2.parquet", "argilla", ARGILLA_TOPICS,
                               ARGILLA_V2_RECORDS, dropped={U1: 1, U2: 1}),
    "mturk_taskanswers": Case("mturk_taskanswers.csv", "mturk",
                              ["Positive", "Negative", "Neutral"], MTURK_TASKANSWERS_RECORDS,
                              dropped={W3: 1, W2: 1}),
    # nobody ticked "spam": still a label of the universe
    "mturk_checkbox": Case("mturk_checkbox.csv", "mturk",
                           ["funny", "offensive", "sarcastic", "spam"],
                           MTURK_CHECKBOX_RECORDS, dropped={W3: 1}),
    "crowd": Case("crowd_kit.csv", "crowd", ["cat", "dog", "bird"], CROWD_RECORDS,
                  kwargs=SETS, cli_args=SETS_ARGS),
    "crowd_int": Case("crowd_kit_int.csv", "crowd", [0, 1, 2], CROWD_INT_RECORDS,
                      kwargs=SETS, cli_args=SETS_ARGS),
    # GoEmotions' flag is no tool status word: the reason's name is the reader's choice
    "wide": Case("goemotions_raw.csv", "wide", EMOTIONS, GOEMOTIONS_RECORDS,
                 dropped={"37": 1}, reason_words=None),
}

# file and command-line flags, and the field the one-line message must name
MALFORMED = {
    "ls_truncated": (["bad_ls_truncated.json"], "JSON"),
    "ls_no_task_id": (["bad_ls_no_task_id.json"], "id"),
    "ls_no_annotator": (["bad_ls_no_annotator.json"], "completed_by"),
    "ls_no_result": (["bad_ls_no_result.json"], "result"),
    "prodigy_unknown_answer": (["bad_prodigy_unknown_answer.jsonl"], "maybe"),
    "prodigy_mixed": (["bad_prodigy_mixed.jsonl"], "line"),
    "prodigy_no_annotator": (["bad_prodigy_no_annotator.jsonl"], "_annotator_id"),
    # MTurk's Answer.taskAnswers cells in a generic item/annotator/labels table
    "generic_json_labels": (["bad_generic_json_labels.csv", "--layout", "sets"], "labels"),
    # doccano's collaborative export merges everyone's labels: no annotator to compare (a
    # whole-file defect: no row to name)
    "doccano_collaborative": (["bad_doccano_collaborative.zip"], "all.jsonl"),
    "crowd_duplicate": (["bad_crowd_duplicate.csv"], "w2"),
    # alex answered the same input twice, differently (re-served by an overlapping feed)
    "prodigy_duplicate": (["bad_prodigy_duplicate.jsonl"], "news_topics-alex"),
    "mturk_checkbox_value": (["bad_mturk_checkbox_value.csv"], "Answer.sarcastic.on"),
    "wide_value_declared": (["bad_wide_value.csv", "--labels", "goemotions_labels.txt"], "joy"),
}
WHOLE_FILE = {"doccano_collaborative", "ls_truncated"}


def data(name):
    return os.path.join(DATA, name)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------

def as_strings(da):
    """Coords as strings, in sorted order: ids compare as text whatever dtype a reader keeps."""
    da = da.transpose("item", "annotator", "label")
    da = da.assign_coords({dim: [str(v) for v in da[dim].values]
                           for dim in ("item", "annotator", "label")})
    return da.sel({dim: sorted(da[dim].values) for dim in ("item", "annotator", "label")})


def coord_set(da, dim):
    return {str(v) for v in da[dim].values}


def dropped_totals(dropped):
    """attrs["dropped"] (reason -> {annotator: count}) as annotator -> total, zeros left out."""
    totals = {}
    for per_annotator in dropped.values():
        for annotator, count in per_annotator.items():
            totals[str(annotator)] = totals.get(str(annotator), 0) + int(count)
    return {annotator: n for annotator, n in totals.items() if n}


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def cli(args):
    proc = subprocess.run([sys.executable, "-m", "xr_agreement.cli", "report", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    return request.param, CASES[request.param]


# --------------------------------------------------------------------------------------
# 1. the tool is recognised from the content and by name; the file is left alone
# --------------------------------------------------------------------------------------

def test_reader_detected_and_named(case):
    name, c = case
    path = data(c.path)
    before = file_digest(path)
    detected = read_annotations(path, **c.kwargs)
    named = read_annotations(path, tool=c.tool, **c.kwargs)
    assert detected.attrs.get("reader") == c.tool, (name, detected.attrs)
    assert named.attrs.get("reader") == c.tool, (name, named.attrs)
    assert file_digest(path) == before


# --------------------------------------------------------------------------------------
# 2. the decisions and the MLA values equal those of the hand-written records
# --------------------------------------------------------------------------------------

def test_decisions_equal_the_oracle(case):
    name, c = case
    read = read_annotations(data(c.path), tool=c.tool, **c.kwargs)
    expected = c.expected()
    for dim in ("item", "annotator", "label"):
        assert coord_set(read, dim) == coord_set(expected, dim), (name, dim)
    got, want = as_strings(read).astype(float), as_strings(expected).astype(float)
    np.testing.assert_array_equal(np.isnan(got.values), np.isnan(want.values), err_msg=name)
    # the decided cells hold the same 0/1 (assert_array_equal treats NaN == NaN)
    np.testing.assert_array_equal(got.values, want.values, err_msg=name)


def test_mla_equals_the_oracle(case):
    name, c = case
    got = xr_agreement.mla(read_annotations(data(c.path), tool=c.tool, **c.kwargs),
                           baseline="all")
    want = xr_agreement.mla(c.expected(), baseline="all")
    for var in ("agreement", "minimum"):
        for baseline in BASELINES:
            np.testing.assert_allclose(float(got[var].sel(baseline=baseline)),
                                       float(want[var].sel(baseline=baseline)),
                                       rtol=0, atol=1e-12, err_msg=f"{name} {var} {baseline}")
    np.testing.assert_allclose(float(got["observed"]), float(want["observed"]),
                               rtol=0, atol=1e-12, err_msg=name)


# --------------------------------------------------------------------------------------
# 3. the command line reports the same F
# --------------------------------------------------------------------------------------

def check_summary(name, case, code, out, err):
    assert code == 0, (name, err)
    document = json.loads(out)
    assert next(iter(document)) == "summary", (name, list(document)[:5])
    want = xr_agreement.mla(case.expected(), baseline="all").agreement
    assert abs(float(document["summary"]["agreement"]["F"]) - float(want.sel(baseline="F"))) \
        < 1e-9, name
    # the default sensitivity baselines too (AC1 and PB depend on the label universe)
    for baseline in ("AC1", "PB"):
        value = float(document["summary"]["agreement"][baseline])
        assert abs(value - float(want.sel(baseline=baseline))) < 1e-9, (name, baseline)


def test_cli_json_summary(case, capsys):
    # in-process, as tests/test_cli.py does: an interpreter start per fixture would cost
    # more than the rest of this module; test_cli_in_a_real_process covers the real process
    name, c = case
    code = main(["report", "--format", "json", data(c.path), *c.cli_args])
    out, err = capsys.readouterr()
    check_summary(name, c, code, out, err)


@pytest.mark.parametrize("name", ["prodigy_choice", "argilla_v2"])
def test_cli_in_a_real_process(name):
    c = CASES[name]
    check_summary(name, c, *cli(["--format", "json", data(c.path), *c.cli_args]))


# --------------------------------------------------------------------------------------
# 4. the tool's "no decision" entries are counted per annotator
# --------------------------------------------------------------------------------------

def test_dropped_entries_counted(case):
    name, c = case
    read = read_annotations(data(c.path), tool=c.tool, **c.kwargs)
    assert "dropped" in read.attrs, (name, sorted(read.attrs))
    dropped = json.loads(read.attrs["dropped"])
    assert isinstance(dropped, dict), (name, dropped)
    if c.reason_words is not None:
        assert set(dropped) <= c.reason_words, (name, sorted(dropped))
    assert dropped_totals(dropped) == c.dropped, (name, dropped)


# --------------------------------------------------------------------------------------
# exports that also hold items nobody decided on (an unlabeled task, a pending record)
# --------------------------------------------------------------------------------------

# doccano 1.5 wrote examples nobody labeled to "unknown.jsonl": a placeholder, no annotator
DOCCANO_15 = Case("doccano_v15.zip", "doccano", ["spam", "ham"], [
    (41, "alice", {"spam"}), (42, "alice", {"ham"}), (44, "alice", {"spam"}),
    (41, "bob", {"spam"}), (42, "bob", {"spam"}), (43, "bob", {"ham"})])
UNDECIDED = {"ls_with_unlabeled": ("ls_choices_with_unlabeled.json", CASES["ls_choices"], "106"),
             "argilla_pending": ("argilla_v2_with_pending.jsonl", CASES["argilla_v2"], "rec-005"),
             "doccano_15_unknown": ("doccano_v15.zip", DOCCANO_15, "45")}
# single-label fixtures, compared with label-set oracles: read as label sets by name
UNDECIDED_SETS = {"doccano_15_unknown"}


@pytest.mark.parametrize("name", sorted(UNDECIDED))
def test_undecided_items_change_nothing(name):
    """Such an item is either left out or all missing; the decisions and values stay."""
    path, c, undecided = UNDECIDED[name]
    read = read_annotations(data(path), **(SETS if name in UNDECIDED_SETS else {}))
    assert read.attrs.get("reader") == c.tool
    expected = c.expected()
    assert coord_set(read, "annotator") == coord_set(expected, "annotator")
    extra = coord_set(read, "item") - coord_set(expected, "item")
    assert extra <= {undecided}, extra
    if extra:
        assert bool(as_strings(read).sel(item=sorted(extra)).isnull().all()), extra
    kept = as_strings(read).sel(item=sorted(coord_set(expected, "item")))
    np.testing.assert_array_equal(kept.astype(float).values,
                                  as_strings(expected).astype(float).values)
    got, want = xr_agreement.mla(read, baseline="all"), xr_agreement.mla(expected,
                                                                      baseline="all")
    for var in ("agreement", "observed", "minimum"):
        np.testing.assert_allclose(got[var].values, want[var].values, rtol=0, atol=1e-12,
                                   err_msg=var)


def test_annotator_who_only_skipped():
    """User 20 skipped both tasks shown: counted in dropped, and either absent or all
    missing; the decisions and values of the others stay."""
    c = CASES["ls_choices"]
    read = read_annotations(data("ls_choices_with_skipper.json"))
    expected = c.expected()
    extra = coord_set(read, "annotator") - coord_set(expected, "annotator")
    assert extra <= {"20"}, extra
    if extra:
        assert bool(as_strings(read).sel(annotator="20").isnull().all())
    kept = as_strings(read).sel(annotator=sorted(coord_set(expected, "annotator")))
    np.testing.assert_array_equal(kept.astype(float).values,
                                  as_strings(expected).astype(float).values)
    assert dropped_totals(json.loads(read.attrs["dropped"])) == {"12": 1, "7": 1, "20": 2}, \
        read.attrs["dropped"]
    got, want = xr_agreement.mla(read, baseline="all"), xr_agreement.mla(expected,
                                                                      baseline="all")
    for var in ("agreement", "observed", "minimum"):
        np.testing.assert_allclose(got[var].values, want[var].values, rtol=0, atol=1e-12,
                                   err_msg=var)


# --------------------------------------------------------------------------------------
# a tool named wrongly is refused, not guessed
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, wrong", [
    ("ls_choices", "prodigy"), ("prodigy_choice", "label-studio"), ("doccano_jsonl", "argilla"),
    ("argilla_v2", "prodigy"), ("crowd", "mturk"), ("wide", "crowd"),
    ("mturk_checkbox", "doccano")])
def test_wrong_tool_is_refused(name, wrong):
    c = CASES[name]
    with pytest.raises((AnnotationFileError, ValueError)):
        read_annotations(data(c.path), tool=wrong)


# --------------------------------------------------------------------------------------
# a declared label universe keeps labels nobody used (AC1 and PB depend on them)
# --------------------------------------------------------------------------------------

def test_declared_universe_without_a_used_label_is_refused():
    with pytest.raises((AnnotationFileError, ValueError)) as info:
        read_annotations(data("ls_choices.json"), tool="label-studio",
                         labels=["Politics", "Sports", "Science"])
    assert "Economy" in str(info.value), info.value


@pytest.mark.parametrize("name", ["ls_choices", "argilla_v2", "crowd"])
def test_declared_universe_keeps_unused_labels(name):
    c = CASES[name]
    universe = [*c.labels, "unused-label"]
    read = read_annotations(data(c.path), tool=c.tool, labels=universe, **c.kwargs)
    expected = xr_agreement.from_sets(c.records, labels=universe)
    assert coord_set(read, "label") == {str(v) for v in universe}
    np.testing.assert_array_equal(as_strings(read).astype(float).values,
                                  as_strings(expected).astype(float).values)
    got = xr_agreement.mla(read, baseline="all").agreement
    want = xr_agreement.mla(expected, baseline="all").agreement
    np.testing.assert_allclose(got.values, want.values, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------
# a fixture with two control tags needs control=; malformed exports are refused
# --------------------------------------------------------------------------------------

def test_unknown_control_is_refused():
    with pytest.raises((AnnotationFileError, ValueError)) as info:
        read_annotations(data("ls_choices.json"), tool="label-studio", control="sentiment")
    assert "sentiment" in str(info.value) and "topic" in str(info.value), info.value


@pytest.mark.parametrize("path, tool, names", [
    ("ls_two_controls.json", "label-studio", ["sentiment", "topic"]),
    ("argilla_v2_two_questions.jsonl", "argilla", ["comment", "topics"])])
def test_two_controls_need_a_choice(path, tool, names):
    with pytest.raises((AnnotationFileError, ValueError)) as info:
        read_annotations(data(path), tool=tool)
    message = str(info.value)
    assert all(n in message for n in names), message


def test_the_other_control_reads_too():
    read = read_annotations(data("ls_two_controls.json"), tool="label-studio",
                            control="sentiment")
    expected = xr_agreement.from_sets(
        [(301, "4", {"Positive"}), (301, "9", {"Positive"}), (302, "4", {"Negative"}),
         (302, "9", {"Negative"}), (303, "4", set()), (303, "9", None), (304, "4", set()),
         (304, "9", {"Neutral"})],
        labels=["Positive", "Negative", "Neutral"])
    got, want = as_strings(read).astype(float), as_strings(expected).astype(float)
    assert coord_set(read, "label") == coord_set(expected, "label")
    np.testing.assert_array_equal(got.values, want.values)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_exports_fail_in_one_line(name, capsys):
    # in-process, as tests/test_cli.py does; the run below covers the real process
    args, fragment = MALFORMED[name]
    code = main(["report", data(args[0]), *[data(a) if a.endswith(".txt") else a
                                            for a in args[1:]]])
    out, err = capsys.readouterr()
    assert code == 2, (name, code, err)
    assert err.count("\n") == 1 and err.strip(), (name, err)
    assert "Traceback" not in out + err, name
    assert re.search(r"\d", out) is None, (name, out)
    # the message says what is wrong and where (a row or line of the file)
    assert fragment in err, (name, err)
    assert name in WHOLE_FILE or re.search(r"\b(row|line)\b", err), (name, err)


def test_malformed_export_in_a_real_process():
    code, out, err = cli([data("bad_prodigy_unknown_answer.jsonl"), "--format", "json"])
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in out + err, err
    assert re.search(r"\d", out) is None, out


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_exports_raise(name):
    # the command-line flags of MALFORMED, as keywords
    kwargs = {"generic_json_labels": {"layout": "sets"},
              "wide_value_declared": {"labels": EMOTIONS}}.get(name, {})
    with pytest.raises((AnnotationFileError, ValueError)):
        read_annotations(data(MALFORMED[name][0][0]), **kwargs)


def test_two_annotations_by_one_user_on_one_task():
    """Label Studio lets a user add a second annotation to a task: refused, or one kept and
    the other counted in attrs["dropped"]; never both merged into one label set."""
    path = data("bad_ls_two_annotations_by_one_user.json")
    try:
        read = read_annotations(path)
    except (AnnotationFileError, ValueError) as error:
        assert ANA in str(error), error
        return
    decided = as_strings(read).sel(item="201", annotator=ANA)
    chosen = {str(v) for v in decided.label.values[decided.values == 1]}
    assert chosen in ({"Bacteria"}, {"Archaea"}), chosen
    assert dropped_totals(json.loads(read.attrs["dropped"])).get(ANA) == 1, read.attrs["dropped"]


def test_wide_label_column_with_a_bad_value_is_not_dropped():
    """A 2 in GoEmotions' joy column (every emotion column is 0/1): refused, or joy kept;
    never 27 labels read silently instead of 28."""
    try:
        read = read_annotations(data("bad_wide_value.csv"), tool="wide")
    except (AnnotationFileError, ValueError) as error:
        assert "joy" in str(error), error
        return
    assert "joy" in coord_set(read, "label"), sorted(coord_set(read, "label"))


def test_mturk_batch_with_generic_flags_is_never_a_json_label():
    """The whole batch file with the generic column flags: refused, or read as the MTurk
    export it is; never a label named by a JSON document."""
    try:
        read = read_annotations(data("mturk_taskanswers.csv"), "sets", item_column="HITId",
                                annotator_column="WorkerId",
                                labels_column="Answer.taskAnswers")
    except (AnnotationFileError, ValueError) as error:
        assert "Answer.taskAnswers" in str(error), error
        return
    assert coord_set(read, "label") == {"Positive", "Negative", "Neutral"}
    expected = CASES["mturk_taskanswers"].expected()
    np.testing.assert_array_equal(as_strings(read).astype(float).values,
                                  as_strings(expected).astype(float).values)
