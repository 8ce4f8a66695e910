"""What the outputs let through (issue 28, section 4): hostile ids and labels in the CSV, the
markdown, the terminal; an output written over an input; the review JSON's precision.

The hostile texts are the ones the issue names: cells that begin with = + - @ (OWASP "CSV
Injection", https://owasp.org/www-community/attacks/CSV_Injection), ``<script>``,
``<img onerror=...>``, ``[x](javascript:...)`` and newlines in markdown, ESC / BEL / OSC 8
hyperlinks, C1 controls and bidi overrides on a terminal.
"""

import csv
import io
import itertools
import json
import os
import re
import warnings

import numpy as np
import pytest

import xr_agreement
from xr_agreement._core.safe_text import (FORMULA_START, join_ids, markdown_text,
                                          spreadsheet_cell, split_ids, visible)
from xr_agreement.cli import main

OSC_LINK = "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07"
# what must never reach a terminal raw: C0 controls but the newline, DEL, C1, bidi overrides
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def unescape_cell(cell):
    """The text of a CSV cell written under the spreadsheet rule: one leading ' removed."""
    return cell[1:] if cell.startswith("'") else cell


# ---------------------------------------------------------------------------------------
# 1. CSV injection, and ids containing ";" in the joined columns
# ---------------------------------------------------------------------------------------

HOSTILE_VOTES = (
    'item,annotator,labels\n'
    '"=1+1",@alice,"+x;-y"\n'
    '"=1+1","b;ob",+x\n'
    '"=1+1",-carol,\n'
)


def expected_hostile_rows():
    """Counted by hand from HOSTILE_VOTES: label +x chosen by @alice and b;ob, not by -carol;
    -y chosen by @alice only. Item =1+1: 3 pairs x 2 labels, one agreeing pair per label."""
    return {("=1+1", "+x"): (2, 1, 0, ["@alice", "b;ob"], ["-carol"]),
            ("=1+1", "-y"): (1, 2, 0, ["@alice"], ["-carol", "b;ob"])}


def test_disagreements_csv_neutralises_formulas_and_splits_ids_back(tmp_path, capsys):
    votes = tmp_path / "votes.csv"
    votes.write_text(HOSTILE_VOTES)
    target = tmp_path / "review.csv"
    code, out, err = run(["disagreements", str(votes), "-o", str(target)], capsys)
    assert code == 0 and err == ""
    rows = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8"))))
    header, body = rows[0], rows[1:]
    assert header == ["item", "label", "n_positive", "n_negative", "n_undecided",
                      "positive_annotators", "negative_annotators", "item_observed"]
    # no cell a spreadsheet would run: none begins with = + - @ (numbers aside)
    for row in body:
        for name, cell in zip(header, row):
            if name in ("n_positive", "n_negative", "n_undecided", "item_observed"):
                float(cell)  # a number, written as such
            else:
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (name, cell)
    # and every text cell reads back exactly: one leading ' removed, ids split on unescaped ;
    got = {}
    for row in body:
        cells = dict(zip(header, row))
        key = (unescape_cell(cells["item"]), unescape_cell(cells["label"]))
        got[key] = (int(cells["n_positive"]), int(cells["n_negative"]),
                    int(cells["n_undecided"]),
                    sorted(split_ids(unescape_cell(cells["positive_annotators"]))),
                    sorted(split_ids(unescape_cell(cells["negative_annotators"]))))
        assert float(cells["item_observed"]) == pytest.approx(2 / 6)
    assert got == expected_hostile_rows()
    # text cells are quoted (OWASP), numbers are not
    line = target.read_text(encoding="utf-8").splitlines()[1]
    assert line.startswith("\"'=1+1\",") and re.search(r",\d+,\d+,\d+,", line)


def test_negative_numbers_stay_numbers_and_text_ids_are_escaped():
    # a number written by us is not user text; the same characters in a text id are
    assert spreadsheet_cell(-0.5) == -0.5 and spreadsheet_cell(np.int64(-3)) == -3
    for start in FORMULA_START:
        assert spreadsheet_cell(start + "x") == "'" + start + "x"
    assert spreadsheet_cell("doc-1") == "doc-1"
    # "'" itself is escaped, so that removing one leading ' always gives the text back
    for text in ("'=x", "''", "=", "'", "a'b"):
        assert unescape_cell(spreadsheet_cell(text)) == text


@pytest.mark.parametrize("ids", [
    ["a;b", "c"], ["a", "b;c"], ["a\\", ";b"], ["\\;", "x"], [";", ";;"], ["x"], ["", "y"],
    ["a\\;b"], [1, 2],
])
def test_joined_ids_split_back_exactly(ids):
    assert split_ids(join_ids(ids)) == [str(i) for i in ids]


def test_joined_ids_of_two_annotators_differ_from_one_with_a_semicolon():
    assert join_ids(["a", "b"]) != join_ids(["a;b"])


# ---------------------------------------------------------------------------------------
# 2. markdown: labels, ids, names, title and notes shown as themselves
# ---------------------------------------------------------------------------------------

HOSTILE_TEXTS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "[x](javascript:alert(3))",
    "![y](javascript:alert(4))",
    "two\nlines\n# heading\n| a | b |",
    "*bold* _it_ `code` a|b \\[z](javascript:alert(5))",
    "&lt;script&gt;",
    "<javascript:alert(6)>",
]


def hostile_decisions(labels):
    """Three annotators (hostile ids too) on two items (one hostile id), every label
    disputed on the first item."""
    first, second = "<b>item</b>\n1", "[i2](javascript:alert(7))"
    records = [(first, "<u>ann</u>", labels), (first, "[b](javascript:x)", labels[:1]),
               (first, "c\rd", []), (second, "<u>ann</u>", labels[:2]),
               (second, "[b](javascript:x)", labels[:2]), (second, "c\rd", labels[:1])]
    return xr_agreement.from_sets(records, labels=labels)


def hostile_report(labels):
    return xr_agreement.report(hostile_decisions(labels), title="<script>t</script>\n# x",
                               notes=["[n](javascript:alert(8)) <img onerror=alert(9)>",
                                      "- list?\n1. list?"],
                               joint_omissions="<b>omitted</b>\n[o](javascript:y)")


def test_markdown_renders_hostile_texts_as_text():
    markdown_it = pytest.importorskip("markdown_it")
    rep = hostile_report(HOSTILE_TEXTS)
    markdown = rep.to_markdown()
    # an independent renderer (CommonMark with raw HTML allowed, plus GFM tables)
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "<u>" not in page and "href" not in page
    assert "<code>" not in page and "<strong>" not in page
    # each section heading once, no heading or list item of the input's own
    assert len(re.findall(r"<h1>", page)) == 1
    benign = xr_agreement.report(
        hostile_decisions([f"label{j}" for j in range(len(HOSTILE_TEXTS))]),
        title="title", notes=["note", "note"], joint_omissions="omitted")
    benign_page = markdown_it.MarkdownIt("commonmark").enable("table").render(
        benign.to_markdown())
    # the same structure as with benign texts (<em>: the report's own table captions)
    for tag in ("<h2>", "<li>", "<tr>", "<td", "<p>", "<ul>", "<ol>", "<em>", "<a "):
        assert page.count(tag) == benign_page.count(tag), tag
    # the texts are shown: the label and its markup as characters
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "[x](javascript:alert(3))" in page
    assert "&amp;lt;script&amp;gt;" in page  # an entity in the input is shown as typed


def test_markdown_lines_are_the_same_as_with_benign_texts():
    # newlines in labels, ids, title and notes do not start lines of their own
    rep = hostile_report(HOSTILE_TEXTS)
    benign = xr_agreement.report(
        hostile_decisions([f"label{j}" for j in range(len(HOSTILE_TEXTS))]),
        title="title", notes=["note", "note"], joint_omissions="omitted")
    assert len(rep.to_markdown().splitlines()) == len(benign.to_markdown().splitlines())
    assert "\\x0a" in rep.to_markdown()


def test_markdown_text_leaves_the_report_own_notation():
    # A_ml, A_o,min, intervals and "yes|no" read as before once rendered
    assert markdown_text("A_o,min [0.132, 0.332] A_ml^(F)") == "A_o,min [0.132, 0.332] A_ml^(F)"


def test_html_report_escapes_the_same_hostile_texts():
    page = hostile_report(HOSTILE_TEXTS).to_html(figures=False)
    assert "<script" not in page and "<img" not in page and "<u>" not in page
    assert "href" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not RAW_CONTROL.search(page)


def test_html_report_figures_show_dollar_signs_as_text():
    # matplotlib reads "$...$" as mathtext: a label "$\\frac$" made the HTML report fail
    pytest.importorskip("matplotlib")
    labels = ["$\\frac$", "$x^2$", "plain"]
    da = xr_agreement.from_sets([("i", "a", labels[:2]), ("i", "b", labels[:1]),
                                 ("j", "a", labels[2:]), ("j", "b", labels[1:])],
                                labels=labels)
    page = xr_agreement.report(da).to_html()
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 4


def test_html_report_figures_show_control_characters_as_escapes():
    # a label drawn raw: matplotlib warned "Glyph 27 (\x1b) missing" on stderr, an ESC
    # reaching the terminal of `xr-agreement report --format html`
    pytest.importorskip("matplotlib")
    labels = ["\x1b[31mred", "bell\x07", "plain"]
    da = xr_agreement.from_sets([("i", "a\x1b]0;x", labels[:2]), ("i", "b", labels[:1]),
                                 ("j", "a\x1b]0;x", labels[2:]), ("j", "b", labels[1:])],
                                labels=labels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = xr_agreement.report(da).to_html()
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 4
    assert not [w for w in caught if RAW_CONTROL.search(str(w.message))], caught


def test_cli_markdown_with_a_hostile_file_name(tmp_path, capsys):
    markdown_it = pytest.importorskip("markdown_it")
    votes = tmp_path / "<img src=x onerror=alert(1)>[a](javascript:b).csv"
    votes.write_text(HOSTILE_VOTES)
    code, out, err = run(["report", str(votes), "--format", "markdown",
                          "--joint-omissions", "<script>x</script>"], capsys)
    assert code == 0, err
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(out)
    assert "<img" not in page and "<script" not in page and "href" not in page


# ---------------------------------------------------------------------------------------
# 3. terminal control sequences
# ---------------------------------------------------------------------------------------

TERMINAL_LABELS = [OSC_LINK, "bell\x07", "csi\x9b31m", "\u202eevil", "tab\there"]


def terminal_decisions():
    records = [("i1", "a", TERMINAL_LABELS), ("i1", "b", TERMINAL_LABELS[:1]),
               ("i1", "c\x1b[2J", []), ("i2", "a", TERMINAL_LABELS[:2]),
               ("i2", "b", TERMINAL_LABELS[:2]), ("i2", "c\x1b[2J", TERMINAL_LABELS[:1])]
    return xr_agreement.from_sets(records, labels=TERMINAL_LABELS)


def test_text_report_shows_control_characters_as_escapes():
    rep = xr_agreement.report(terminal_decisions(), title="t\x1b[31mred",
                              notes=["n\x07"], joint_omissions="\x1b]0;title\x07")
    for text in (str(rep), rep.to_markdown()):
        assert not RAW_CONTROL.search(text)
        assert "\\x1b]8;;http://evil.example\\x07click" in text
        assert "\\x9b31m" in text and "\\u202eevil" in text
    # the JSON keeps the exact strings (escaped as JSON escapes them)
    data = json.loads(rep.to_json())
    assert OSC_LINK in data["design"]["used_labels"]
    assert not RAW_CONTROL.search(rep.to_json())


def write_terminal_votes(path):
    rows = [("i1", "a", TERMINAL_LABELS), ("i1", "b", TERMINAL_LABELS[:1]), ("i1", "c", []),
            ("i2", "a", TERMINAL_LABELS[:2]), ("i2", "b", TERMINAL_LABELS[:2]),
            ("i2", "c", TERMINAL_LABELS[:1])]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "annotator", "labels"])
        for item, annotator, labels in rows:  # the OSC sequence holds ";": "|" separates
            writer.writerow([item, annotator, "|".join(labels)])
    return path


def test_disagreements_on_stdout_show_control_characters_files_keep_them(tmp_path, capsys):
    votes = write_terminal_votes(tmp_path / "votes.csv")
    code, out, err = run(["disagreements", str(votes), "--sep", "|"], capsys)
    assert code == 0, err
    assert not RAW_CONTROL.search(out)
    assert "\\x1b]8;;http://evil.example\\x07click" in out and "\\u202eevil" in out
    # --output: the exact labels (a file for machines)
    target = tmp_path / "review.csv"
    assert run(["disagreements", str(votes), "--sep", "|", "-o", str(target)], capsys)[0] == 0
    with open(target, newline="", encoding="utf-8") as handle:
        labels = {unescape_cell(r["label"]) for r in csv.DictReader(handle)}
    assert OSC_LINK in labels and "\u202eevil" in labels
    # JSON: the exact labels once parsed, no raw control character in the text
    target = tmp_path / "review.json"
    assert run(["disagreements", str(votes), "--sep", "|", "-o", str(target)], capsys)[0] == 0
    text = target.read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(text)
    assert OSC_LINK in {r["label"] for r in json.loads(text)}
    assert "csi\x9b31m" in {r["label"] for r in json.loads(text)}


def test_error_line_shows_control_characters(tmp_path, capsys):
    missing = tmp_path / "no\x1b[2Jfile.csv"
    code, out, err = run(["disagreements", str(missing)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "\x1b" not in err and "\\x1b[2J" in err


def test_visible_keeps_printable_text():
    assert visible("café, שלום, 中文, emoji \U0001F600") == "café, שלום, 中文, emoji \U0001F600"


# ---------------------------------------------------------------------------------------
# 4. an output over an input
# ---------------------------------------------------------------------------------------

VOTES = ("item,annotator,labels\n"
         "doc-1,alice,sport;politics\n"
         "doc-1,bob,sport\n"
         "doc-1,carol,sport;politics\n"
         "doc-2,alice,\n"
         "doc-2,bob,economy\n"
         "doc-2,carol,economy\n")


def assert_refused_unchanged(args, paths, capsys):
    before = {p: (open(p, "rb").read(), os.stat(p).st_mtime_ns) for p in paths}
    code, out, err = run(args, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("xr-agreement: error: ") and "overwrite the input" in err
    assert {p: (open(p, "rb").read(), os.stat(p).st_mtime_ns) for p in paths} == before


@pytest.mark.parametrize("extension", [".csv", ".json"])
def test_disagreements_output_over_its_file_is_refused(tmp_path, capsys, monkeypatch,
                                                       extension):
    votes = tmp_path / f"votes{extension}"
    votes.write_text(VOTES)  # a table of that name: it is never read
    assert_refused_unchanged(["disagreements", str(votes), "-o", str(votes)], [votes], capsys)
    # the same file spelled differently, through a symbolic link, through a hard link
    monkeypatch.chdir(tmp_path)
    other = os.path.join("..", tmp_path.name, ".", votes.name)
    assert_refused_unchanged(["disagreements", votes.name, "-o", other], [votes], capsys)
    (tmp_path / f"link{extension}").symlink_to(votes)
    assert_refused_unchanged(["disagreements", votes.name, "-o", f"link{extension}"],
                             [votes], capsys)
    os.link(votes, tmp_path / f"hard{extension}")
    assert_refused_unchanged(["disagreements", f"hard{extension}", "-o", votes.name],
                             [votes], capsys)


def test_report_output_over_its_labels_file_is_refused(tmp_path, capsys):
    votes = tmp_path / "votes.csv"
    votes.write_text(VOTES)
    labels = tmp_path / "labels.txt"
    labels.write_text("sport\npolitics\neconomy\n")
    assert_refused_unchanged(["report", str(votes), "--labels", str(labels), "-o",
                              str(labels)], [votes, labels], capsys)
    assert_refused_unchanged(["report", str(votes), "-o", str(votes)], [votes, labels],
                             capsys)
    assert_refused_unchanged(["disagreements", str(votes), "--labels", str(labels), "-o",
                              str(labels)], [votes, labels], capsys)
    # elsewhere: written
    target = tmp_path / "report.txt"
    code, _, err = run(["report", str(votes), "--labels", str(labels), "-o", str(target)],
                       capsys)
    assert code == 0 and err == "" and target.read_text().startswith("Multi-label")


def test_output_inside_an_input_folder_is_refused(tmp_path, capsys):
    # a doccano export folder: a file written into it would become a member of the export
    folder = tmp_path / "export"
    folder.mkdir()
    member = folder / "alice.jsonl"
    member.write_text('{"id": 1, "text": "t", "label": ["a"]}\n')
    target = folder / "review.csv"
    assert_refused_unchanged(["disagreements", str(folder), "-o", str(target)], [member],
                             capsys)
    assert not target.exists()
    # a doccano zip as FILE and as the output
    archive = tmp_path / "export.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    assert_refused_unchanged(["report", str(archive), "-o", str(archive)], [archive], capsys)


# ---------------------------------------------------------------------------------------
# 5. review.json keeps full precision
# ---------------------------------------------------------------------------------------


def observed_by_pair_counting(sets, labels):
    """Observed agreement of one item, by looping over annotator pairs and labels."""
    agreeing = total = 0
    for first, second in itertools.combinations(sets, 2):
        for label in labels:
            total += 1
            agreeing += (label in first) == (label in second)
    return agreeing / total


def test_review_json_item_observed_full_precision(tmp_path, capsys):
    # doc-1: 3 annotators x 7 labels; politics and law disputed: 21 comparisons, 17 agree
    labels = ["sport", "politics", "law", "a", "b", "c", "d"]
    sets = {"alice": {"sport", "politics"}, "bob": {"sport", "law"},
            "carol": {"sport", "politics"}}
    votes = tmp_path / "votes.csv"
    votes.write_text("item,annotator,labels\n" + "".join(
        f"doc-1,{who},{';'.join(sorted(chosen))}\n" for who, chosen in sets.items()))
    universe = tmp_path / "labels.txt"
    universe.write_text("\n".join(labels) + "\n")
    target = tmp_path / "review.json"
    code, _, err = run(["disagreements", str(votes), "--labels", str(universe), "-o",
                        str(target)], capsys)
    assert code == 0, err
    expected = observed_by_pair_counting(list(sets.values()), labels)
    assert expected == 17 / 21
    assert round(expected, 10) != expected  # pandas' to_json would write 0.8095238095
    assert len(repr(expected)) >= 17
    records = json.loads(target.read_text())
    assert {r["label"] for r in records} == {"politics", "law"}
    assert all(r["item_observed"] == expected for r in records)
