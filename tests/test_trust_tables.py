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
