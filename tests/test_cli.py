"""File input (xr_agreement.read_annotations) and the command line (xr-agreement report).

The fixtures in tests/data were written by tests/data/make_fixtures.py with plain pandas from
the paper's Table 1, independently of the reader under test.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement import AnnotationFileError, read_annotations
from xr_agreement.cli import main
from xr_agreement.report import Report, SingleLabelReport

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
LABELS = os.path.join(DATA, "bias_labels.txt")


def data(name):
    return os.path.join(DATA, name)


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def example():
    return xr_agreement.datasets.bias_example()


@pytest.fixture(scope="module")
def python_report(example):
    return xr_agreement.report(example, labels_fixed=True)


# ---------------------------------------------------------------------------------------
# reading files
# ---------------------------------------------------------------------------------------

BIAS_FILES = [("bias_sets.csv", "auto"), ("bias_sets.tsv", "sets"),
              ("bias_sets.parquet", "auto"), ("bias_sets.jsonl", "sets"),
              ("bias_long.csv", "auto"), ("bias_long.parquet", "long")]


@pytest.mark.parametrize("name, layout", BIAS_FILES)
def test_files_give_the_table1_decisions(name, layout, example):
    da = read_annotations(data(name), layout, labels=LABELS)
    assert da.dims == ("item", "annotator", "label")
    assert da["label"].values.tolist() == list(range(1, 32))
    assert da["item"].values.tolist() == [1, 2, 3, 4]
    np.testing.assert_array_equal(da.values, example.values)
    assert da["label_name"].sel(label=22).item() == "Political Bias"
    assert da["label_name"].sel(label=1).item() == "1"  # no name given in the file


def test_without_universe_only_used_labels():
    da = read_annotations(data("bias_sets.csv"))
    assert da["label"].values.tolist() == [2, 3, 5, 14, 17, 21, 22, 23, 27, 29, 31]
    with pytest.raises(AnnotationFileError, match="row 1 .*label 14 is not in the declared"):
        read_annotations(data("bias_sets.csv"), labels=[2, 3])


def test_empty_cell_is_empty_set_absent_row_is_missing():
    da = read_annotations(data("missing_sets.csv"))
    assert da["label"].values.tolist() == ["p", "q"]
    # c,x has an empty cell: an annotation with no label selected
    assert da.sel(item="c", annotator="x").values.tolist() == [0, 0]
    # b,z and d,x have no row: not annotated
    assert np.isnan(da.sel(item="b", annotator="z").values).all()
    assert np.isnan(da.sel(item="d", annotator="x").values).all()
    assert da.sel(item="a", annotator="x").values.tolist() == [1, 1]
    assert int(da.isnull().sum()) == 4


def test_long_without_value_column_is_positive_rows(tmp_path):
    path = tmp_path / "positives.csv"
    path.write_text("item,annotator,label\n1,x,a\n1,y,a\n2,x,b\n")
    da = read_annotations(path, "long")
    assert da.sel(item=2).values.tolist() == [[0, 1], [0, 0]]


def test_column_names_configurable(tmp_path):
    path = tmp_path / "custom.csv"
    path.write_text("doc,who,picked,id\n1,x,a|b,7\n1,y,a,8\n")
    with pytest.raises(AnnotationFileError, match="annotator column"):
        read_annotations(path, "sets", item_column="doc", labels_column="picked", sep="|")
    da = read_annotations(path, "sets", item_column="doc", annotator_column="who",
                          labels_column="picked", sep="|")
    assert da.sel(annotator="x").values.tolist() == [[1, 1]]


def test_single_label_file():
    ratings = read_annotations(data("single.csv"), "single")
    assert ratings.dims == ("item", "annotator")
    assert ratings.sel(item=3).values.tolist() == ["maybe", "yes", "maybe"]


def test_read_error_attributes():
    with pytest.raises(AnnotationFileError) as caught:
        read_annotations(data("bad_unknown_label.csv"), labels=LABELS)
    error = caught.value
    assert (error.row, error.column, error.line) == (2, "labels", 3)
    assert "99" in str(error) and "\n" not in str(error)


# ---------------------------------------------------------------------------------------
# the command line gives the numbers of the Python call
# ---------------------------------------------------------------------------------------


def test_no_file_prints_the_bundled_example(capsys):
    code, out, err = run(["report"], capsys)
    assert code == 0 and err == ""
    lines = [" ".join(line.split()) for line in out.splitlines()]
    # section 3.7 and eq. 8 of the paper
    for expected in ["N (items) 4", "n (annotators) 3", "k (labels) 31",
                     "A_o (observed) 0.9140", "p_r (raw prevalence) 0.0753",
                     "F 0.8880 0.2320 -0.3440", "AC1 0.1120 0.9031 0.8305",
                     "PB 0.5000 0.8280 0.6989"]:
        assert expected in lines, expected
    assert "1. Label universe" in out and "6. Uncertainty" in out


@pytest.mark.parametrize("name, layout", BIAS_FILES)
def test_cli_json_equals_python_call(name, layout, capsys, python_report):
    code, out, err = run(["report", data(name), "--layout", layout, "--labels", LABELS,
                          "--labels-fixed", "yes", "--format", "json"], capsys)
    assert code == 0, err
    restored = Report.from_json(out)
    for mine, theirs in ((restored.result, python_report.result),
                         (restored.used_result, python_report.used_result)):
        for name_ in python_report.result.data_vars:
            if theirs[name_].dtype.kind in "OU":  # text (undefined_reason)
                np.testing.assert_array_equal(mine[name_].values, theirs[name_].values,
                                              err_msg=name_)
                continue
            np.testing.assert_allclose(mine[name_].values, theirs[name_].values, rtol=0,
                                       atol=1e-12, err_msg=name_)
    assert restored.design["unused_labels"] == python_report.design["unused_labels"]
    assert restored.lowest_labels() == python_report.lowest_labels()


def test_cli_markdown_html_output_file(tmp_path, capsys, python_report):
    target = tmp_path / "report.html"
    code, out, err = run(["report", data("bias_long.parquet"), "--labels", LABELS,
                          "--format", "html", "--output", str(target)], capsys)
    assert code == 0 and out == "" and err == ""
    page = target.read_text()
    assert page.startswith("<!DOCTYPE html>") and "0.232" in page and "0.646" in page
    code, out, _ = run(["report", data("bias_sets.csv"), "--labels", LABELS, "--labels-fixed",
                        "yes", "--format", "markdown"], capsys)
    assert code == 0
    # identical from the label-universe table on (the bundled array names every label
    # "bias type j", the file only the printed ones)
    start = "| label universe"
    assert out[out.index(start):] == python_report.to_markdown()[
        python_report.to_markdown().index(start):]


def test_cli_missing_data_file(capsys):
    code, out, _ = run(["report", data("missing_sets.csv"), "--format", "json"], capsys)
    assert code == 0
    python = xr_agreement.report(read_annotations(data("missing_sets.csv")))
    xr.testing.assert_allclose(Report.from_json(out).result, python.result)


def test_cli_single_label_is_fleiss_kappa(capsys):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table = pd.read_csv(data("single.csv"))
    wide = table.pivot(index="item", columns="coder", values="rating").to_numpy()
    counts, _ = aggregate_raters(wide)
    code, out, err = run(["report", data("single.csv"), "--layout", "single", "--format",
                          "json"], capsys)
    assert code == 0, err
    # the single-label report, not the multi-label one on one-hot labels
    with pytest.raises(ValueError, match="single-label-report"):
        Report.from_json(out)
    result = SingleLabelReport.from_json(out).results["fleiss"]
    assert float(result.coefficient) == pytest.approx(fleiss_kappa(counts))


def test_cli_options(capsys):
    code, out, _ = run(["report", "--baseline", "AC1", "--sensitivity", "F,PB", "--digits",
                        "4", "--format", "markdown"], capsys)
    assert code == 0
    assert "| AC1 | primary | 0.1120 | 0.9031 | 0.8305 |" in out
    code, out, _ = run(["report", "--baseline", "PB", "--format", "markdown"], capsys)
    assert "| PB | primary |" in out and "| F | sensitivity |" in out
    assert "| AC1 | sensitivity |" in out
    code, out, _ = run(["report", "--sensitivity", "none", "--landis-koch"], capsys)
    assert code == 0 and "Landis-Koch" in out and "| AC1" not in out


def test_cli_ci(capsys, example):
    code, out, err = run(["report", "--ci", "0.95", "--seed", "1", "--format", "json"], capsys)
    import inspect

    if "ci" in inspect.signature(sys.modules["xr_agreement.mla"].mla).parameters:
        assert code == 0, err
        result = Report.from_json(out).result
        assert "agreement_lower" in result and "agreement_upper" in result
    else:
        assert code == 2 and err.count("\n") == 1
        assert "confidence intervals need" in err


def test_help_shows_an_example(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["report", "--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    assert "example" in out and "xr-agreement report votes.csv --labels" in out


# ---------------------------------------------------------------------------------------
# malformed files: one line naming row and column, exit code 2
# ---------------------------------------------------------------------------------------

MALFORMED = [
    # file, extra arguments, fragments the one line must contain
    ("bad_missing_column.csv", [], ["no annotator column", "'item', 'labels'"]),
    ("bad_unknown_label.csv", ["--labels", LABELS], ["row 2 (line 3)", "column 'labels'",
                                                      "label 99 is not in the declared"]),
    ("bad_duplicate.csv", [], ["row 3 (line 4)", "column 'annotator'", "already on row 1"]),
    ("bad_duplicate_long.csv", [], ["row 3 (line 4)", "column 'label'", "already on row 1"]),
    ("bad_nonbinary.csv", [], ["row 2 (line 3)", "column 'value'", "must be 0 or 1, got '2'"]),
    ("bad_empty.csv", [], ["line 1", "empty"]),
    ("bad_header_only.csv", [], ["row 1 (line 2)", "no data rows"]),
    ("bad_blank_item.csv", [], ["row 2 (line 3)", "column 'item'", "empty cell"]),
    ("bad_json.jsonl", [], ["line 2", "invalid JSON"]),
    ("does_not_exist.csv", [], ["file not found"]),
]


@pytest.mark.parametrize("name, extra, fragments", MALFORMED)
def test_malformed_file_one_line_exit_2(name, extra, fragments, capsys):
    code, out, err = run(["report", data(name), *extra], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("xr-agreement: error: ")
    assert "Traceback" not in err
    assert name in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def test_bad_statistics_input_is_one_line_too(tmp_path, capsys):
    path = tmp_path / "one_rater.csv"
    path.write_text("item,annotator,labels\n1,x,a\n2,x,b\n")
    code, _, err = run(["report", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1 and "at least 2 annotators" in err


def test_console_script_exit_code():
    assert shutil.which("xr-agreement"), "the console script of pyproject [project.scripts]"
    bad = subprocess.run(["xr-agreement", "report", data("bad_nonbinary.csv")],
                         check=False, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1


def test_ambiguous_or_unknown_layout(tmp_path):
    two = tmp_path / "two_items.csv"
    two.write_text("item,unit,annotator,labels\n1,1,x,a\n")
    with pytest.raises(AnnotationFileError, match="several columns could be the item column"):
        read_annotations(two)
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("item,annotator,score\n1,x,3\n")
    with pytest.raises(AnnotationFileError, match="cannot tell the layout"):
        read_annotations(unknown)
    with pytest.raises(AnnotationFileError, match="cannot tell the format"):
        read_annotations(tmp_path / "votes.xlsx")


def test_from_tool_and_control_options(capsys):
    from xr_agreement.cli import _parser
    from xr_agreement.io.tools import TOOLS

    parser_help = _parser()._subparsers._group_actions[0].choices["report"].format_help()
    for tool in TOOLS:
        assert tool in parser_help
    assert "--control NAME" in parser_help
    # an unknown tool is an argparse error (exit 2), not a traceback
    with pytest.raises(SystemExit) as stop:
        main(["report", data("bias_sets.csv"), "--from", "inception"])
    assert stop.value.code == 2
    assert "invalid choice: 'inception'" in capsys.readouterr().err
    # the generic reader has no control tags to pick
    code, _, err = run(["report", data("bias_sets.csv"), "--control", "topic"], capsys)
    assert code == 2 and err.count("\n") == 1 and "control= picks a control" in err


def test_json_report_of_a_table_has_the_summary_first(capsys):
    import json

    code, out, _ = run(["report", data("bias_sets.csv"), "--labels", data("bias_labels.txt"),
                        "--format", "json"], capsys)
    document = json.loads(out)
    assert code == 0 and list(document)[:2] == ["summary", "format"]
    assert document["summary"]["reader"] == "table" and document["summary"]["dropped"] == {}
    result = xr_agreement.mla(xr_agreement.datasets.bias_example(), "F")
    assert document["summary"]["agreement"]["F"] == pytest.approx(float(result.agreement))
