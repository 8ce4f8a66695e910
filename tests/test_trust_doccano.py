"""doccano exports and zip archives read as the tool writes them, or refused in one line
(issue 28).

doccano's own export code (github.com/doccano/doccano, backend/data_export): celery_tasks.py
writes one file per project member (``create_individual_dataset``: every member, named
``<username>.<ext>``), filtered by ``filter_examples(..., confirmed_only=export_approved,
user=member.user)``; pipeline/writers.py zips them under their base names (``zip_files``,
ZIP_DEFLATED) and writes CSV with ``DataFrame.to_csv``, JSONL with ``to_json(lines=True)``;
pipeline/formatters.py joins a CSV cell's labels with ``"#".join(sorted(...))`` (no escaping)
and writes spans as sorted ``(start_offset, end_offset, label)`` tuples.
"""

from __future__ import annotations

import json
import zipfile

import pytest

from xr_agreement.cli import main
from xr_agreement.io import AnnotationFileError, read_annotations
from xr_agreement.io.tools import archive


def lines(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def make_zip(path, members: dict, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as handle:
        for name, text in members.items():
            handle.writestr(name, text)
    return path


def refused(capsys, path, *fragments, extra=()):
    """The CLI's answer: exit 2, nothing on stdout, one line on stderr naming the file."""
    code = main(["report", str(path), *extra])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("xr-agreement: error: ")
    assert "Traceback" not in err and str(path) in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


ALICE = lines({"id": 1, "text": "a", "label": ["x"]}, {"id": 2, "text": "b", "label": ["y"]})
BOB = lines({"id": 1, "text": "a", "label": ["y"]}, {"id": 2, "text": "b", "label": ["y"]})


# ---------------------------------------------------------------------------------------
# member names (case 3): PKWARE APPNOTE.TXT 4.4.17.1 - relative paths, forward slashes
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["/bob.jsonl", "../bob.jsonl", "export/../../bob.jsonl",
                                  "C:/export/bob.jsonl", "\\bob.jsonl", "..\\bob.jsonl"])
def test_an_absolute_or_climbing_member_name_is_refused_naming_it(tmp_path, capsys, name):
    path = make_zip(tmp_path / "export.zip", {"alice.jsonl": ALICE, name: BOB})
    with pytest.raises(AnnotationFileError, match="absolute or climbing path"):
        read_annotations(path)
    refused(capsys, path, repr(name), "absolute or climbing path")


def test_backslashes_in_a_member_name_are_folder_separators(tmp_path):
    # a Windows zipper's "export\bob.jsonl" is bob's file in a folder: annotator "bob"
    path = make_zip(tmp_path / "export.zip", {"export\\alice.jsonl": ALICE,
                                              "export\\bob.jsonl": BOB})
    da = read_annotations(path)
    assert sorted(da["annotator"].values.tolist()) == ["alice", "bob"]
    assert da.sel(item=1, annotator="alice").values.tolist() == [1.0, 0.0]
    assert da.sel(item=1, annotator="bob").values.tolist() == [0.0, 1.0]


# ---------------------------------------------------------------------------------------
# bounded reading (case 4)
# ---------------------------------------------------------------------------------------

def test_a_member_expanding_too_many_times_is_refused_before_it_is_read(tmp_path, capsys):
    # 8 MiB of spaces after one record deflate to ~8 kB: ~1,000 times
    bomb = BOB + " " * (8 * 2**20)
    path = make_zip(tmp_path / "export.zip", {"alice.jsonl": ALICE, "bob.jsonl": bomb})
    refused(capsys, path, "bob.jsonl", "times", "zip bomb")


def test_a_member_larger_than_the_limit_is_refused(tmp_path, capsys, monkeypatch):
    # text that compresses like text (under the ratio): only the size limit stops it
    big = "".join(json.dumps({"id": n, "text": f"{n * 7919 % 10007:x}{n}", "label": ["y"]})
                  + "\n" for n in range(40000))
    path = make_zip(tmp_path / "export.zip", {"alice.jsonl": ALICE, "bob.jsonl": big})
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 2**20)
    refused(capsys, path, "bob.jsonl", "more than the 1 MiB one member file")
    # the same bound on a file of an export folder, before it is read
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "bob.jsonl").write_text(big)
    refused(capsys, folder, "bob.jsonl", "more than the 1 MiB", extra=["--from", "doccano"])


def test_a_member_is_read_in_bounded_chunks_whatever_its_header_says(tmp_path):
    path = make_zip(tmp_path / "export.zip", {"bob.jsonl": BOB * 100})
    with zipfile.ZipFile(path) as handle:
        info = handle.getinfo("bob.jsonl")
        text, expanded = archive.read_member(handle, info, path)
        assert text == BOB * 100 and expanded == len(BOB) * 100
        with pytest.raises(AnnotationFileError, match="bob.jsonl: the members expand to more"):
            archive.read_member(handle, info, path, budget=len(BOB))


def test_a_header_that_understates_the_size_is_refused(tmp_path, capsys):
    # the central directory says bob.jsonl expands to 10 bytes: the read stops there and
    # the checksum of the member tells it was cut
    path = make_zip(tmp_path / "export.zip", {"alice.jsonl": ALICE, "bob.jsonl": BOB})
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")  # bob's entry (the last one written)
    data[central + 24:central + 28] = (10).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    refused(capsys, path, "bob.jsonl", "cannot read the member")


def test_a_zipped_table_with_a_bomb_is_refused_while_telling_the_tool(tmp_path, capsys):
    # detection reads only the header line of a one-table zip, and under the same bounds
    path = make_zip(tmp_path / "votes.csv.zip",
                    {"votes.csv": "item,annotator,labels" + " " * (8 * 2**20) + "\n"})
    refused(capsys, path, "votes.csv", "zip bomb")


# ---------------------------------------------------------------------------------------
# CSV cells (case 1): doccano writes "#".join(sorted(labels)), no escaping
# ---------------------------------------------------------------------------------------

# alice chose "C#" on example 1 and "C#" and "Java" on example 2; bob chose "C" and "C",
# "Java": as doccano writes them ("C##Java": sorted "C#" < "Java")
LANGUAGES_CSV = {"alice.csv": "id,text,label\n1,a,C#\n2,b,C##Java\n3,c,Java\n",
                 "bob.csv": "id,text,label\n1,a,C\n2,b,C#Java\n3,c,Java\n"}


def test_a_csv_label_holding_the_separator_is_refused_not_cut(tmp_path, capsys):
    path = make_zip(tmp_path / "export.zip", LANGUAGES_CSV)
    refused(capsys, path, "alice.csv", "row 1 (line 2)", "'C#'", "cannot be told apart")


def test_a_declared_universe_splits_a_csv_cell_the_one_way_it_can(tmp_path):
    path = make_zip(tmp_path / "export.zip", LANGUAGES_CSV)
    da = read_annotations(path, labels=["C", "C#", "Java"])
    # counted by hand from LANGUAGES_CSV, labels in the order C, C#, Java
    assert da.sel(annotator="alice").values.tolist() == [[0, 1, 0], [0, 1, 1], [0, 0, 1]]
    assert da.sel(annotator="bob").values.tolist() == [[1, 0, 0], [1, 0, 1], [0, 0, 1]]
    # "A#B#C" with A, B, C, A#B and B#C declared splits two ways: refused
    two = make_zip(tmp_path / "two.zip", {"alice.csv": "id,text,label\n1,a,A#B#C\n",
                                          "bob.csv": "id,text,label\n1,a,A\n"})
    with pytest.raises(AnnotationFileError, match=r"alice.csv: row 1 \(line 2\), column "
                       r"'label': the cell 'A#B#C' splits at '#' into the declared labels in "
                       r"several ways"):
        read_annotations(two, labels=["A", "B", "C", "A#B", "B#C"])


# ---------------------------------------------------------------------------------------
# JSONL label lists (case 2): a span is [start, end, label] with two integer offsets
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", [["pos", "news", "sport"], [0, "5", "PER"], [0.0, 5, "PER"],
                                   [True, 5, "PER"], [0, 5], [0, 5, "PER", "x"]])
def test_a_nested_list_that_is_not_a_span_is_refused(tmp_path, capsys, entry):
    path = make_zip(tmp_path / "export.zip", {
        "alice.jsonl": ALICE,
        "bob.jsonl": lines({"id": 1, "text": "a", "label": [entry]},
                           {"id": 2, "text": "b", "label": ["y"]})})
    refused(capsys, path, "bob.jsonl", "line 1", "not a span [start, end, label]")


def test_spans_are_read_as_the_set_of_their_labels(tmp_path):
    # sequence labelling, as TupledSpanFormatter writes it: sorted (start, end, label)
    path = make_zip(tmp_path / "export.zip", {
        "alice.jsonl": lines({"id": 1, "text": "Ann met Bob", "label": [[0, 3, "PER"],
                                                                         [8, 11, "PER"]]}),
        "bob.jsonl": lines({"id": 1, "text": "Ann met Bob", "label": [[0, 3, "PER"],
                                                                       [4, 7, "ACT"]]})})
    da = read_annotations(path)
    assert da["label"].values.tolist() == ["ACT", "PER"]
    assert da.sel(item=1).values.tolist() == [[0, 1], [1, 1]]
