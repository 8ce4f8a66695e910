"""doccano 1.8.4's own exports, as its server wrote them.

The zips under ``tests/data/tools/doccano/server_1.8.4/`` were made by a doccano 1.8.4 server
run on this machine (pip ``doccano==1.8.4`` on Python 3.10, its WSGI app on 127.0.0.1, its
``doccano task`` worker), driven through its REST API and exported through its own export
code (``POST /v1/projects/{id}/download``, JSONL / CSV / JSON, "export approved only" on
and off, collaborative annotation on for ``collab_*``). One member file per project member,
named by the user; the project's admin is a member who annotated nothing.

Project 1 (text classification, several labels: pos, neg, news), as annotated:

    example  alice                          bob
    1        pos, confirmed                 pos, confirmed
    2        neg news, confirmed            neg, confirmed
    3        no label, confirmed            neg, confirmed
    4        pos, confirmed                 never opened
    5        news, not confirmed            news pos, confirmed
    6        neg, confirmed                 pos, not confirmed

Project 2 (labels C, C#, Java; all confirmed): alice 7: C C#, 8: C# Java, 9: C; bob 7: C#,
8: C# Java, 9: C Java. doccano joins a CSV cell's labels with "#" and escapes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readback import decisions
from xr_agreement import read_annotations
from xr_agreement.cli import main
from xr_agreement.io.files import AnnotationFileError

HERE = Path(__file__).parent / "data" / "tools" / "doccano" / "server_1.8.4"

# (example, user) -> labels; approved only: what each confirmed
APPROVED = {(1, "alice"): {"pos"}, (2, "alice"): {"neg", "news"}, (3, "alice"): set(),
            (4, "alice"): {"pos"}, (6, "alice"): {"neg"},
            (1, "bob"): {"pos"}, (2, "bob"): {"neg"}, (3, "bob"): {"neg"},
            (5, "bob"): {"news", "pos"}}
# the full export lists every example for every member: the unconfirmed ones too, and an
# empty list where bob never opened example 4
UNCONFIRMED = {(5, "alice"): {"news"}, (6, "bob"): {"pos"}}
HASH = {(7, "alice"): {"C", "C#"}, (8, "alice"): {"C#", "Java"}, (9, "alice"): {"C"},
        (7, "bob"): {"C#"}, (8, "bob"): {"C#", "Java"}, (9, "bob"): {"C", "Java"}}



@pytest.mark.parametrize("name", ["jsonl_approved.zip", "csv_approved.zip",
                                  "json_approved.zip"])
def test_approved_only_reads_what_was_confirmed(name):
    da = read_annotations(HERE / name)
    assert da.attrs["reader"] == "doccano"
    assert sorted(da["label"].values.tolist()) == ["neg", "news", "pos"]
    assert decisions(da) == APPROVED
    assert "admin" in " ".join(json.loads(da.attrs["notes"]))  # the admin's empty file, said


@pytest.mark.parametrize("name", ["jsonl_all.zip", "csv_all.zip"])
def test_the_full_export_is_refused_unless_told_what_an_empty_list_means(name, capsys):
    with pytest.raises(AnnotationFileError, match="export approved only"):
        read_annotations(HERE / name)
    assert main(["report", str(HERE / name)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and name in err
    assert "8 label lists are empty (6 of them in the files of admin" in err
    # told, the file is read as told: the admin is no annotator; bob's never-opened example
    # 4 and alice's confirmed empty example 3 cannot be told apart, both follow the keyword
    told_no_label = read_annotations(HERE / name, empty_list="no-label")
    expected = {**APPROVED, **UNCONFIRMED, (4, "bob"): set()}
    assert decisions(told_no_label) == expected
    told_missing = read_annotations(HERE / name, empty_list="missing")
    del expected[(4, "bob")], expected[(3, "alice")]
    assert decisions(told_missing) == expected


def test_a_collaborative_export_is_refused(capsys):
    assert main(["report", str(HERE / "collab_jsonl_approved.zip")]) == 2
    assert "collaborative" in capsys.readouterr().err


def test_labels_holding_the_separator(capsys):
    # JSONL keeps each label whole; a CSV cell of such labels is ambiguous without the
    # declared labels (C#C# is C and C#) and is read with them
    assert decisions(read_annotations(HERE / "hash_jsonl_approved.zip")) == HASH
    with pytest.raises(AnnotationFileError, match="empty part"):
        read_annotations(HERE / "hash_csv_approved.zip")
    da = read_annotations(HERE / "hash_csv_approved.zip", labels=["C", "C#", "Java"])
    assert decisions(da) == HASH
