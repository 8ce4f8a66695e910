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
    da = read_annotations(path, layout="sets")  # one label each: label sets by name
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


def test_spans_are_refused_or_read_as_the_set_of_their_labels_by_name(tmp_path):
    # sequence labelling, as TupledSpanFormatter writes it: sorted (start, end, label);
    # read as label sets, alice's "Bob" and bob's "Ann" would agree: refused unless asked
    path = make_zip(tmp_path / "export.zip", {
        "alice.jsonl": lines({"id": 1, "text": "Ann met Bob", "label": [[0, 3, "PER"],
                                                                         [8, 11, "PER"]]}),
        "bob.jsonl": lines({"id": 1, "text": "Ann met Bob", "label": [[0, 3, "PER"],
                                                                       [4, 7, "ACT"]]})})
    with pytest.raises(AnnotationFileError, match="holds spans.*read_spans"):
        read_annotations(path)
    da = read_annotations(path, spans_as_label_sets=True)
    assert da["label"].values.tolist() == ["ACT", "PER"]
    assert da.sel(item=1).values.tolist() == [[0, 1], [1, 1]]


def test_the_newer_entities_export_is_refused_or_read_by_name(tmp_path):
    record = {"id": 1, "text": "Ann met Bob", "entities": [
        {"id": 5, "start_offset": 0, "end_offset": 3, "label": "PER"}], "relations": []}
    path = make_zip(tmp_path / "export.zip", {"alice.jsonl": lines(record),
                                              "bob.jsonl": lines(record)})
    with pytest.raises(AnnotationFileError, match="holds spans"):
        read_annotations(path)
    da = read_annotations(path, spans_as_label_sets=True)
    assert da.sel(item=1).values.tolist() == [[1], [1]]


# ---------------------------------------------------------------------------------------
# "export approved only" and the full export (cases 5-6), as doccano 1.8 writes them:
# one file per project member (the admin is always one), JSONL from
# DataFrame.to_json(orient="records", lines=True): compact, keys id, text, Comments, label
# ---------------------------------------------------------------------------------------

def compact(*records) -> str:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


def example(n, labels):
    return {"id": n, "text": f"example {n}", "Comments": [], "label": labels}


# who confirmed what, with which labels (None: never opened); example 4: carol looked and
# chose no label
CONFIRMED = {
    "alice": {1: ["x"], 2: ["y"], 3: ["x", "y"], 4: ["y"]},
    "bob": {1: ["x"], 2: ["x"], 4: ["y"]},
    "carol": {1: ["x"], 2: ["y"], 3: ["y"], 4: []},
}


def approved_only(admin_file: str) -> dict:
    members = {"admin.jsonl": admin_file}
    for who, done in CONFIRMED.items():
        members[f"{who}.jsonl"] = compact(*(example(n, labels) for n, labels in done.items()))
    return members


def full_export() -> dict:
    members = {"admin.jsonl": compact(*(example(n, []) for n in (1, 2, 3, 4)))}
    for who, done in CONFIRMED.items():
        members[f"{who}.jsonl"] = compact(*(example(n, done.get(n, []))
                                            for n in (1, 2, 3, 4)))
    return members


# the decisions by hand, labels x, y (NaN: never opened)
NAN = float("nan")
BY_HAND = {
    "alice": [[1, 0], [0, 1], [1, 1], [0, 1]],
    "bob": [[1, 0], [1, 0], [NAN, NAN], [0, 1]],
    "carol": [[1, 0], [0, 1], [0, 1], [0, 0]],
}


def assert_by_hand(da, by_hand):
    assert sorted(da["annotator"].values.tolist()) == sorted(by_hand)
    assert da["label"].values.tolist() == ["x", "y"]
    assert sorted(da["item"].values.tolist()) == [1, 2, 3, 4]
    for who, rows in by_hand.items():
        got = da.sel(annotator=who, item=[1, 2, 3, 4]).values.tolist()
        assert str(got) == str([[float(v) for v in row] for row in rows]), (who, got)


@pytest.mark.parametrize("admin_file", ["", "\n", "[]", "[]\n"])
def test_an_empty_member_file_is_a_member_who_annotated_nothing(tmp_path, capsys, admin_file):
    path = make_zip(tmp_path / "export.zip", approved_only(admin_file))
    da = read_annotations(path)
    assert_by_hand(da, BY_HAND)
    assert json.loads(da.attrs["dropped"]) == {}
    assert json.loads(da.attrs["notes"]) == [
        "doccano: 1 member file(s) empty, members who annotated nothing, left out: admin.jsonl."]
    code = main(["report", str(path), "--format", "markdown"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "left out: admin.jsonl" in out
    # the report made in Python says it too, and keeps it through JSON
    from xr_agreement.report import Report

    rep = da.agreement.report()
    assert "left out: admin.jsonl" in str(rep)
    assert "left out: admin.jsonl" in str(Report.from_json(rep.to_json()))


def test_an_empty_csv_member_is_left_out_too(tmp_path):
    # DataFrame.to_csv of no examples writes one newline; a header alone holds no example
    members = {"admin.csv": "\n", "guest.csv": "id,text,label\n",
               "alice.csv": "id,text,label\n1,a,x\n2,b,y\n",
               "bob.csv": "id,text,label\n1,a,x#y\n"}
    da = read_annotations(make_zip(tmp_path / "export.zip", members))
    assert sorted(da["annotator"].values.tolist()) == ["alice", "bob"]
    assert da.sel(annotator="bob", item=1).values.tolist() == [1.0, 1.0]
    assert "admin.csv, guest.csv" in json.loads(da.attrs["notes"])[0]


def test_every_member_file_empty_is_refused(tmp_path, capsys):
    path = make_zip(tmp_path / "export.zip", {"admin.jsonl": "\n", "alice.jsonl": "[]"})
    refused(capsys, path, "every member's file is empty", "admin.jsonl, alice.jsonl")


def test_a_full_export_is_refused_by_default(tmp_path, capsys):
    path = make_zip(tmp_path / "export.zip", full_export())
    # 4 examples in 4 files; empty lists: admin 4, bob 1 (never opened), carol 1 (chose none)
    refused(capsys, path, "full export", "the same 4 examples", "6 label lists are empty",
            "export approved only", "--empty-list")


def test_a_full_export_read_with_empty_lists_as_missing(tmp_path, capsys):
    path = make_zip(tmp_path / "export.zip", full_export())
    da = read_annotations(path, empty_list="missing")
    # carol's "chose no label" on 4 cannot be told from never opened: read as missing
    assert_by_hand(da, dict(BY_HAND, carol=[[1, 0], [0, 1], [0, 1], [NAN, NAN]]))
    assert json.loads(da.attrs["dropped"]) == {
        "empty label list, read as not annotated": {"bob": 1, "carol": 1},
        "every label list empty, not an annotator": {"admin": 4}}
    assert json.loads(da.attrs["empty_label_lists"]) == {"admin": 4, "bob": 1, "carol": 1}
    code = main(["report", str(path), "--empty-list", "missing", "--format", "markdown"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "every label list empty, not an annotator 4 (admin: 4)" in out
    assert "No annotation was left out" not in out


def test_a_full_export_read_with_empty_lists_as_no_label(tmp_path, capsys):
    path = make_zip(tmp_path / "export.zip", full_export())
    da = read_annotations(path, empty_list="no-label")
    assert_by_hand(da, dict(BY_HAND, bob=[[1, 0], [1, 0], [0, 0], [0, 1]]))
    assert json.loads(da.attrs["dropped"]) == {
        "every label list empty, not an annotator": {"admin": 4}}
    code = main(["report", str(path), "--empty-list", "no-label", "--format", "markdown"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 empty label list(s) read as" in out and "bob 1, carol 1" in out


def test_the_approved_only_fixtures_are_no_full_export():
    # their members list different examples: read as before, empty lists "chose no label"
    from pathlib import Path
    folder = Path(__file__).parent / "data" / "tools" / "doccano"
    for name in ("project_export.zip", "project_export_csv.zip"):
        da = read_annotations(folder / name)
        assert json.loads(da.attrs["empty_label_lists"]) == {"bob": 1} and "notes" not in da.attrs
        assert da.sel(item=2, annotator="bob").values.tolist() == [0.0, 0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------------------
# review of issue 28
# ---------------------------------------------------------------------------------------

def test_a_jsonl_label_given_as_text_holding_the_separator_is_never_cut(tmp_path, capsys):
    # doccano's JSONL holds a list; a label written as a string went through the CSV
    # split at "#", and "C#" was cut to "C", agreeing with bob's "C"
    path = make_zip(tmp_path / "export.zip", {
        "alice.jsonl": lines({"id": 1, "text": "a", "label": "C#"},
                             {"id": 2, "text": "b", "label": "C"}),
        "bob.jsonl": lines({"id": 1, "text": "a", "label": "C"},
                           {"id": 2, "text": "b", "label": "C"})})
    refused(capsys, path, "alice.jsonl", "line 1", "empty part")


def test_a_csv_error_names_the_line_its_row_starts_on(tmp_path, capsys):
    # doccano's CSV holds the example's text, which may span lines (quoted): the row that
    # starts on line 5 was named "line 3"
    path = tmp_path / "alice.csv"
    path.write_text('id,text,label\n1,"first\nsecond\nthird",pos\n2,"x",C#\n')
    err = refused(capsys, path, "row 2")
    assert "line 5" in err, err


def test_a_file_of_another_kind_beside_the_export_is_never_opened(tmp_path):
    # a picture or a PDF of guidelines in the export folder or zip was decoded as UTF-8
    # text, and the whole export refused ("not UTF-8 text"); only .jsonl, .json and .csv
    # files are members
    picture = bytes(range(128, 256)) * 20
    zipped = make_zip(tmp_path / "export.zip", {"alice.jsonl": ALICE, "bob.jsonl": BOB,
                                                "guidelines.pdf": picture})
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "alice.jsonl").write_text(ALICE)
    (folder / "bob.jsonl").write_text(BOB)
    (folder / "photo.png").write_bytes(picture)
    for path in (zipped, folder):
        # one label each: label sets by name
        da = read_annotations(path, tool="doccano", layout="sets")
        # by hand: item 1 alice x, bob y; item 2 both y
        assert da.sel(item=1).values.tolist() == [[1, 0], [0, 1]]
        assert da.sel(item=2).values.tolist() == [[0, 1], [0, 1]]
