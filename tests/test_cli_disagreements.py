"""``xr-agreement disagreements FILE``: the adjudication list as CSV or JSON, with the
tool's own ids, checked against rows counted here from the file's records."""

import csv
import io
import json
import os

import pandas as pd
import pytest

from xr_agreement.cli import main

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write_votes(path):
    """Sets layout with string ids; doc-2 is not annotated by carol (a missing annotation)."""
    path.write_text(
        "item,annotator,labels\n"
        "doc-1,alice,sport;politics\n"
        "doc-1,bob,sport\n"
        "doc-1,carol,sport;politics\n"
        "doc-2,alice,\n"
        "doc-2,bob,economy\n"
        "doc-3,alice,economy\n"
        "doc-3,bob,economy\n"
        "doc-3,carol,economy\n"
    )
    return path


EXPECTED = [
    # item, label, n_positive, n_negative, n_undecided, positive, negative
    ("doc-2", "economy", 1, 1, 1, ["bob"], ["alice"]),
    ("doc-1", "politics", 2, 1, 0, ["alice", "carol"], ["bob"]),
]


def test_csv_to_stdout_and_file(tmp_path, capsys):
    votes = write_votes(tmp_path / "votes.csv")
    code, out, err = run(["disagreements", str(votes)], capsys)
    assert code == 0 and err == ""
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["item", "label", "n_positive", "n_negative", "n_undecided",
                             "positive_annotators", "negative_annotators", "item_observed"]
    got = [(r["item"], r["label"], int(r["n_positive"]), int(r["n_negative"]),
            int(r["n_undecided"]), r["positive_annotators"].split(";"),
            r["negative_annotators"].split(";")) for r in rows]
    assert got == EXPECTED
    # doc-2: one comparison on each of the 3 labels, economy disagrees: 2 / 3
    assert float(rows[0]["item_observed"]) == pytest.approx(2 / 3)
    # doc-1: 3 pairs x 3 labels, politics disagrees in 2 pairs: 7 / 9
    assert float(rows[1]["item_observed"]) == pytest.approx(7 / 9)
    target = tmp_path / "review.csv"
    code, out, _ = run(["disagreements", str(votes), "--output", str(target)], capsys)
    assert code == 0 and out == ""
    assert pd.read_csv(target).shape == (2, 8)


def test_json_records_with_lists(tmp_path, capsys):
    votes = write_votes(tmp_path / "votes.csv")
    target = tmp_path / "review.json"
    code, _, _ = run(["disagreements", str(votes), "-o", str(target)], capsys)
    assert code == 0
    records = json.loads(target.read_text())
    got = [(r["item"], r["label"], r["n_positive"], r["n_negative"], r["n_undecided"],
            r["positive_annotators"], r["negative_annotators"]) for r in records]
    assert got == EXPECTED


def test_label_names_from_the_universe_and_bundled_example(capsys):
    code, out, _ = run(["disagreements", os.path.join(DATA, "bias_sets.csv"),
                        "--labels", os.path.join(DATA, "bias_labels.txt")], capsys)
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    code, bundled, _ = run(["disagreements"], capsys)
    assert code == 0
    assert len(table) == len(pd.read_csv(io.StringIO(bundled))) == 16
    # the paper's Table 1: item 4 is the most disputed sentence
    assert table["item"].iloc[0] == 4


@pytest.mark.parametrize("args, fragment", [
    (["disagreements", os.path.join(DATA, "bad_nonbinary.csv")], "must be 0 or 1, got '2'"),
    (["disagreements", os.path.join(DATA, "does_not_exist.csv")], "file not found"),
    (["disagreements", "--output", "review.xlsx"], "--output must end in .csv or .json"),
])
def test_bad_input_one_line_exit_2(args, fragment, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("xr-agreement: error: ")
    assert fragment in err
