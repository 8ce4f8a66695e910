"""Label Studio 1.23.2's own exports, as its server wrote them.

The files under ``tests/data/tools/label_studio/server_1.23.2/`` were made by a Label Studio
1.23.2 server run on this machine (pip ``label-studio==1.23.2``, on 127.0.0.1), driven
through its REST API and exported through its own export code: the direct export
(``GET /api/projects/1/export?exportType=...&download_all_tasks=true``), the snapshot export
(``POST /api/projects/1/exports/``: with an empty body, as label-studio-sdk's
``export_snapshot_create`` sends, drafts are written as ids; with user details expanded,
``completed_by`` is ``{"id", "email", ...}`` and JSON-min's ``annotator`` the email), and the
SDK's download of the TSV snapshot, which the server names ``project-1-at-...csv``.

The project (``config.xml``): multi-label ``Choices`` "topic" (sports, politics, tech) on 6
tasks. Users: admin (id 1), alice (2), bob (3). What was annotated, one row per task:

    task  admin                   alice              bob
    1     sports                  sports             sports, tech
    2     politics                politics, tech     -
    3     tech                    tech               skipped (was_cancelled)
    4     politics, tech, sports  politics, tech     sports
    5     a draft only (tech)     submitted, empty   politics, tech
    6     nobody annotated the task
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readback import decisions
from xr_agreement import read_annotations
from xr_agreement.cli import main

HERE = Path(__file__).parent / "data" / "tools" / "label_studio" / "server_1.23.2"
CONFIG = HERE / "config.xml"
LABELS = ["sports", "politics", "tech"]

# (task, user id) -> the labels chosen, as annotated above; absent: no decision
ANNOTATED = {
    (1, 1): {"sports"}, (1, 2): {"sports"}, (1, 3): {"sports", "tech"},
    (2, 1): {"politics"}, (2, 2): {"politics", "tech"},
    (3, 1): {"tech"}, (3, 2): {"tech"},
    (4, 1): {"politics", "tech", "sports"}, (4, 2): {"politics", "tech"}, (4, 3): {"sports"},
    (5, 2): set(), (5, 3): {"politics", "tech"},
}
USER = {"1": 1, "2": 2, "3": 3, "admin@example.com": 1, "alice@example.com": 2,
        "bob@example.com": 3}

EXPORTS = ["json_all_tasks.json", "json_min_all_tasks.json", "csv_all_tasks.csv",
           "tsv_all_tasks.tsv", "project-1-at-2026-12-02-23-16-8bc39e61.csv",
           "snapshot_default.json", "snapshot_details.json", "snapshot_details_min.json"]



@pytest.mark.parametrize("name", EXPORTS)
@pytest.mark.parametrize("config", [None, CONFIG])
def test_every_export_reads_what_was_annotated(name, config):
    da = read_annotations(HERE / name, labels=config)
    assert da.attrs["reader"] == "label-studio"
    assert sorted(da["label"].values.tolist()) == sorted(LABELS)
    assert decisions(da, USER.get) == ANNOTATED
    # one name per user in a file, whoever left a draft
    names = da["annotator"].values.tolist()
    assert len({USER[n] for n in names}) == len(names) == 3
    assert all(n.isdigit() for n in names) or all("@" in n for n in names), names


def test_the_json_export_counts_what_it_left_out():
    da = read_annotations(HERE / "json_all_tasks.json")
    assert json.loads(da.attrs["dropped"]) == {"cancelled": {"3": 1}, "draft": {"1": 1},
                                   "unannotated task": {"nobody": 1}}
    # the snapshot's default names no draft author: counted all the same
    da = read_annotations(HERE / "snapshot_default.json")
    assert json.loads(da.attrs["dropped"])["draft"] == {"unknown user": 1}


def test_the_conll_export_is_refused_with_the_export_to_use(capsys):
    assert main(["report", str(HERE / "ner.conll")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ner.conll" in err and "no annotator ids" in err
    assert "export the project as JSON" in err


def test_the_report_of_the_tsv_named_csv_is_the_report_of_the_json(capsys):
    outputs = []
    for name in ("json_all_tasks.json", "project-1-at-2026-12-02-23-16-8bc39e61.csv"):
        assert main(["report", str(HERE / name), "--labels", str(CONFIG), "--format",
                     "json"]) == 0
        outputs.append(capsys.readouterr().out)
    import json

    summaries = [json.loads(o)["summary"] for o in outputs]
    for summary in summaries:
        summary.pop("dropped"), summary.pop("reader")
    assert summaries[0] == summaries[1]
