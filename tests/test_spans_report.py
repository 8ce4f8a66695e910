"""The span report (xr_agreement.span_report): its numbers are the span measures' own results,
checked once more against a brute-force count written here from the definitions (pair loops
over every position of the records, without the package), every format renders, and text
from the input (labels, ids, document text) is escaped in every format."""

import copy
import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from doc_pages import run_page
from xr_agreement.report import SpanReport, span_report

# three annotators with string ids; nested (PER in ORG), overlapping and touching spans;
# cy did not annotate d3 (missing), d4 is annotated by ann alone, d5 annotated by all and
# nobody marked anything (every position 0)
TEXTS = {
    "d1": "Ada Lovelace met Charles Babbage in London.",
    "d2": "The University of London opened in 1836.",
    "d3": "Nairobi hosts the United Nations office.",
    "d4": "Nothing to see here.",
    "d5": "A sentence without entities.",
}
RECORDS = [
    ("d1", "ann", 0, 12, "PER"), ("d1", "bob", 0, 12, "PER"), ("d1", "cy", 4, 12, "PER"),
    ("d1", "ann", 17, 32, "PER"), ("d1", "bob", 17, 32, "PER"), ("d1", "cy", 17, 32, "PER"),
    ("d1", "ann", 36, 42, "LOC"), ("d1", "bob", 36, 42, "LOC"), ("d1", "cy", 36, 42, "ORG"),
    ("d2", "ann", 4, 24, "ORG"), ("d2", "bob", 4, 24, "ORG"), ("d2", "ann", 18, 24, "LOC"),
    ("d2", "cy", 4, 17, "ORG"), ("d2", "cy", 17, 24, "ORG"),  # touching
    ("d2", "bob", 35, 39, "MISC"),
    ("d3", "ann", 0, 7, "LOC"), ("d3", "bob", 0, 7, "LOC"), ("d3", "bob", 18, 32, "ORG"),
    ("d3", "ann", 14, 32, "ORG"), ("d3", "ann", 18, 32, "LOC"),  # nested
    ("d4", "ann", 0, 7, "MISC"),
]
ANNOTATED = [(d, a) for d in ("d1", "d2", "d5") for a in ("ann", "bob", "cy")] + [
    ("d3", "ann"), ("d3", "bob"), ("d4", "ann")]
LABELS = ["PER", "ORG", "LOC", "MISC"]
BASELINES = ["F", "AC1", "PB"]


def make_table(records=RECORDS, annotated=ANNOTATED, texts=TEXTS, labels=LABELS):
    return xr_agreement.from_spans(records, annotated=annotated, texts=texts, labels=labels)


@pytest.fixture(scope="module")
def table():
    return make_table()


@pytest.fixture(scope="module")
def rep(table):
    return span_report(table)


def markdown_tables(markdown):
    """Every pipe table of a markdown text as (header, rows) of cell strings."""
    tables, current = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip("|").split(" | ")])
        elif current:
            tables.append((current[0], current[2:]))
            current = []
    return tables


def table_with(markdown, first_header, second_header=None):
    return next(t for t in markdown_tables(markdown) if t[0][0] == first_header
                and (second_header is None or t[0][1] == second_header))


# ---------------------------------------------------------------------------------------
# the brute-force oracle: positions and pairs counted from the records, in fractions
# ---------------------------------------------------------------------------------------


def oracle(records, annotated, texts, labels):
    """Position-level label-wise observed agreement (Krippendorff's pairable values: every
    ordered pair of the annotators who annotated the document, weighted 1 / (m - 1)) and the
    F-baseline coefficient of eq. 4 / eq. 6, by loops over documents, positions, labels and
    annotator pairs."""
    pairable = {label: 0 for label in labels}  # n_j
    disagreeing = {label: Fraction(0) for label in labels}  # sum over cells of D_o terms
    positives = {label: 0 for label in labels}
    for document, text in texts.items():
        deciders = sorted({a for d, a in annotated if d == document})
        m = len(deciders)
        if m < 2:
            continue
        for position in range(len(text)):
            for label in labels:
                marks = {a: any(d == document and a == who and s <= position < e and lab == label
                                for d, who, s, e, lab in records) for a in deciders}
                pairable[label] += m
                positives[label] += sum(marks.values())
                for first in deciders:
                    for second in deciders:
                        if first != second and marks[first] != marks[second]:
                            disagreeing[label] += Fraction(1, m - 1)
    observed = {j: 1 - disagreeing[j] / pairable[j] for j in labels}
    prevalence = {j: Fraction(positives[j], pairable[j]) for j in labels}
    expected = {j: prevalence[j] ** 2 + (1 - prevalence[j]) ** 2 for j in labels}
    total = sum(pairable.values())
    corpus_observed = sum(pairable[j] * observed[j] for j in labels) / total
    corpus_expected = sum(pairable[j] * expected[j] for j in labels) / total
    return {"label_observed": observed, "label_expected": expected,
            "label_prevalence": prevalence, "observed": corpus_observed,
            "agreement": (corpus_observed - corpus_expected) / (1 - corpus_expected),
            "n_positions_pairable": sum(len(t) for d, t in texts.items()
                                        if len({a for dd, a in annotated if dd == d}) >= 2)}


@pytest.fixture(scope="module")
def truth():
    return oracle(RECORDS, ANNOTATED, TEXTS, LABELS)


def test_position_values_against_brute_force(rep, truth):
    mla = rep.mla.sel(baseline="F")
    assert float(rep.mla.observed) == pytest.approx(float(truth["observed"]), abs=1e-12)
    assert float(mla.agreement) == pytest.approx(float(truth["agreement"]), abs=1e-12)
    for label in LABELS:
        for name in ("label_observed", "label_expected", "label_prevalence"):
            assert float(mla[name].sel(label=label)) == pytest.approx(
                float(truth[name][label]), abs=1e-12), (name, label)
    assert int(rep.mla.n_pairable_items) == truth["n_positions_pairable"]


def test_rendered_position_values_are_the_brute_force_ones(rep, truth):
    markdown = rep.to_markdown()
    header, rows = table_with(markdown, "label", "p_j")
    by_label = {row[0]: dict(zip(header, row)) for row in rows}
    for label in LABELS:
        assert by_label[label]["A_o,j"] == f"{float(truth['label_observed'][label]):.3f}"
        assert by_label[label]["p_j"] == f"{float(truth['label_prevalence'][label]):.3f}"
    assert f"A_o = {float(truth['observed']):.3f}" in markdown
    assert f"A_ml^(F) = {float(truth['agreement']):.3f}" in markdown


def test_eq6_shares_give_the_coefficient(rep):
    """The rendered weights are eq. 6's: sum_j share_j A_j is A_ml, the shares sum to 1."""
    header, rows = table_with(rep.to_markdown(), "label", "p_j")
    shares = [float(row[header.index("share")]) for row in rows]
    values = [float(row[header.index("A_j (F)")]) for row in rows]
    assert sum(shares) == pytest.approx(1, abs=5e-3)
    assert sum(s * v for s, v in zip(shares, values)) == pytest.approx(
        float(rep.mla.agreement.sel(baseline="F")), abs=5e-3)
    w = rep.mla.label_weight.sel(baseline="F")
    assert [row[header.index("w_j")] for row in rows] == [f"{float(x):.3f}" for x in w]


def test_not_annotated_is_missing_not_marked_nothing(table, rep, truth):
    """cy never saw d3: missing. Read as 'marked nothing' the numbers would differ."""
    assert rep.units["not_annotated"] == {"bob": ["d4"], "cy": ["d3", "d4"]}
    assert rep.units["documents_with_fewer_than_two_annotators"] == ["d4"]
    assert rep.units["documents_without_spans"] == ["d5"]
    text = " ".join(str(rep).split())
    assert "annotator cy did not annotate 2 of 5 documents (d3, d4)" in text
    assert "missing for that annotator (no decision, NaN), never read as 'marked nothing'" in text
    nothing = ANNOTATED + [("d3", "cy")]
    other = oracle(RECORDS, nothing, TEXTS, LABELS)
    assert other["observed"] != truth["observed"]
    assert float(span_report(make_table(annotated=nothing)).mla.observed) == pytest.approx(
        float(other["observed"]), abs=1e-12)


def test_units_counted_from_the_records(rep):
    u = rep.units
    assert (u["n_documents"], u["n_annotators"], u["n_labels"], u["n_spans"]) == (
        5, 3, 4, len(RECORDS))
    assert u["total_length"] == sum(len(t) for t in TEXTS.values())
    counts = dict(zip(u["spans_per_label"]["label"], u["spans_per_label"]["counts"]))
    for label in LABELS:
        assert counts[label] == [sum(1 for r in RECORDS if r[4] == label and r[1] == a)
                                 for a in ("ann", "bob", "cy")]
    assert u["documents_annotated"] == [5, 4, 3]
    # cy's touching ORG spans in d2: the second lies on the end of the first
    assert u["n_overlapping_same_label"] == 1


# ---------------------------------------------------------------------------------------
# the report holds the functions' own results
# ---------------------------------------------------------------------------------------


def test_results_are_the_functions_results(table, rep):
    xr.testing.assert_identical(rep.mla, xr_agreement.span_mla(table, BASELINES))
    for match in ("exact", "overlap"):
        xr.testing.assert_identical(rep.f1[match], xr_agreement.span_f1(table, match))
    xr.testing.assert_identical(rep.unitizing, xr_agreement.unitizing_alpha(table))
    expected = pd.DataFrame(xr_agreement.span_disagreements(table, top=10))
    pd.testing.assert_frame_equal(rep.disagreements, expected.reset_index(drop=True))


def test_rendered_f1_and_unitizing_are_the_functions_values(table, rep):
    markdown = rep.to_markdown()
    exact, overlap = (xr_agreement.span_f1(table, m) for m in ("exact", "overlap"))
    header, rows = table_with(markdown, "label", "exact")
    for row in rows:
        assert row[1] == _three(exact.label_f1.sel(label=row[0]))
        assert row[2] == _three(overlap.label_f1.sel(label=row[0]))
    assert [r[0] for r in rows] == LABELS
    header, rows = table_with(markdown, "annotator_1")
    assert [(r[0], r[1]) for r in rows] == [("ann", "bob"), ("ann", "cy"), ("bob", "cy")]
    for row in rows:
        where = {"annotator_1": row[0], "annotator_2": row[1]}
        assert row[2] == str(int(exact.pair_n_documents.sel(where)))
        assert row[3:] == [_three(exact.pair_f1.sel(where)), _three(overlap.pair_f1.sel(where))]
    # documents both annotated, counted from the records: cy missed d3 and d4, bob d4
    assert [r[2] for r in rows] == ["4", "3", "3"]
    header, rows = table_with(markdown, "", "exact")
    assert rows[0] == ["micro F1", _three(exact.f1), _three(overlap.f1)]
    assert rows[1] == ["macro F1", _three(exact.macro_f1), _three(overlap.macro_f1)]
    unitizing = xr_agreement.unitizing_alpha(table)
    header, rows = table_with(markdown, "label", "alpha")
    for row in rows:
        assert row[1:] == [_three(unitizing[name].sel(label=row[0])) for name in
                           ("label_alpha", "label_observed_disagreement",
                            "label_expected_disagreement")]


def test_gamma_is_the_functions_value(table, rep):
    # the report's gamma samples with seed 0 unless given one: the same report every time
    xr.testing.assert_identical(rep.gamma, xr_agreement.gamma(table, seed=0))
    markdown = rep.to_markdown()
    header, rows = table_with(markdown, "", "value")
    assert rows[0] == ["gamma", _three(rep.gamma.gamma)]
    assert rows[1] == ["observed disorder (best alignment)", _three(rep.gamma.observed_disorder)]
    assert "; gamma = " + _three(rep.gamma.gamma) + "." in " ".join(markdown.split())
    assert "how much less disorder" in markdown
    seeded = span_report(table, seed=4)
    xr.testing.assert_identical(seeded.gamma, xr_agreement.gamma(table, seed=4))
    assert json.loads(rep.to_json())["summary"]["gamma"] == float(rep.gamma.gamma)


def test_a_saved_report_without_gamma_still_reads(rep):
    data = json.loads(rep.to_json())
    del data["gamma"]
    back = SpanReport.from_json(json.dumps(data))
    assert back.gamma is None
    assert "Not computed: a report saved before gamma was part of it." in " ".join(
        str(back).split())


def _three(value):
    value = float(value)
    return "NaN" if np.isnan(value) else f"{value:.3f}"


def test_disagreements_section_lists_the_top_regions(table, rep):
    regions = pd.DataFrame(xr_agreement.span_disagreements(table))
    assert len(rep.disagreements) == min(10, len(regions))
    header, rows = table_with(rep.to_markdown(), "document", "start")
    assert header == [str(c) for c in regions.columns]
    assert [r[0] for r in rows] == [str(d) for d in regions.document.head(10)]


def test_first_sentence_says_span_agreement(rep):
    for rendered in (str(rep).split("\n", 3)[3], rep.to_markdown().split("\n", 2)[2],
                     rep.to_html().split('<p class="headline">', 1)[1]):
        assert rendered.startswith("These numbers are span agreement"), rendered[:80]
    assert "not agreement on classifying documents" in " ".join(str(rep).split())


# ---------------------------------------------------------------------------------------
# formats
# ---------------------------------------------------------------------------------------


def test_every_format_renders(rep):
    text, markdown, page = str(rep), rep.to_markdown(), rep.to_html()
    for title in ("Units", "Positions: multi-label agreement", "F1 between annotators",
                  "unitizing alpha", "Spans as units: gamma", "Disagreements", "Uncertainty"):
        assert title in text and title in markdown and title in page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert rep._repr_html_().startswith("<style>")
    data = json.loads(rep.to_json())
    assert list(data)[:2] == ["summary", "format"]
    assert data["summary"]["agreement"]["F"] == float(rep.mla.agreement.sel(baseline="F"))
    assert data["summary"]["f1"]["overlap"] == float(rep.f1["overlap"].f1)
    assert data["summary"]["unitizing_alpha"] == float(rep.unitizing.alpha)
    assert data["summary"]["n_positions"] == sum(len(t) for t in TEXTS.values())


def test_json_round_trip(rep):
    back = SpanReport.from_json(rep.to_json())
    assert str(back) == str(rep) and back.to_markdown() == rep.to_markdown()
    assert json.loads(back.to_json())["summary"] == json.loads(rep.to_json())["summary"]
    xr.testing.assert_allclose(back.mla, rep.mla)
    xr.testing.assert_allclose(back.f1["overlap"], rep.f1["overlap"])
    xr.testing.assert_allclose(back.gamma, rep.gamma)
    pd.testing.assert_frame_equal(back.disagreements, rep.disagreements, check_dtype=False)


def test_json_of_another_format_is_refused(rep):
    data = json.loads(rep.to_json())
    data["format"] = "xr-agreement-span-report/9"
    with pytest.raises(ValueError, match="later version"):
        SpanReport.from_json(json.dumps(data))
    data["format"] = "xr-agreement-report/4"
    with pytest.raises(ValueError, match="not an xr-agreement span report"):
        SpanReport.from_json(json.dumps(data))


HOSTILE = {
    "label": "<script>alert(1)</script>",
    "annotator": "=HYPERLINK(\"http://x\")",
    "other": "*bob*|\x1b[31m",
    "document": "[doc](javascript:alert(1))\u202e",
    "text": "<img src=x onerror=alert(1)> # $x^2$ \u202eevil",
}


def test_markup_is_escaped_in_every_format():
    h = HOSTILE
    records = [(h["document"], h["annotator"], 0, 12, h["label"]),
               (h["document"], h["other"], 0, 5, h["label"]),
               (h["document"], h["other"], 6, 12, "LOC"),
               (h["document"], h["other"], 0, 5, "LOC")]
    rep = span_report(xr_agreement.from_spans(records, texts={h["document"]: h["text"]}),
                      title="<b>title</b>", notes=["<i>note</i>"])
    text, markdown, page = str(rep), rep.to_markdown(), rep.to_html()
    for raw in ("\x1b", "\u202e"):
        assert raw not in text and raw not in markdown and raw not in page
    for raw in ("<script>", "<img", "<b>title", "<i>note"):
        assert raw not in markdown and raw not in page, raw
    assert "\\x1b" in text and "\\u202e" in text  # control characters shown as escapes
    assert "&lt;script&gt;" in markdown and "&lt;script&gt;" in page
    assert "\\*bob\\*\\|" in markdown  # no emphasis, no extra table cell
    assert "[doc\\](javascript" in markdown  # no link
    assert "&lt;img s" in page and "&lt;img s" in markdown  # the disputed region's text
    assert text.count("<script>alert(1)</script>") >= 1  # plain text shows it as itself
    data = json.loads(rep.to_json())
    assert data["units"]["labels"][0] == h["label"]  # JSON keeps the exact strings
    assert h["annotator"] in data["units"]["annotators"]
    back = SpanReport.from_json(rep.to_json())
    assert back.to_markdown() == markdown


# ---------------------------------------------------------------------------------------
# options, intervals, errors
# ---------------------------------------------------------------------------------------


def test_unitizing_undefined_is_said_and_the_rest_stands():
    """An annotator's overlapping units of one label: Krippendorff's 2004 coefficient is
    undefined (unitizing_alpha refuses the table); the report says so in its section."""
    records = RECORDS + [("d1", "bob", 4, 20, "PER")]
    table = make_table(records=records)
    with pytest.raises(ValueError, match="overlap"):
        xr_agreement.unitizing_alpha(table)
    rep = span_report(table)
    assert rep.unitizing is None and "overlap" in rep.settings["unitizing_not_computed"]
    text = " ".join(str(rep).split())
    assert "unitizing alpha = not computed" in text
    assert "Not computed: document 'd1', annotator 'bob'" in text
    xr.testing.assert_identical(rep.f1["exact"], xr_agreement.span_f1(table, "exact"))
    back = SpanReport.from_json(rep.to_json())
    assert back.unitizing is None and str(back) == str(rep)
    assert json.loads(rep.to_json())["summary"]["unitizing_alpha"] is None


def test_primary_baseline_and_sensitivity(table):
    rep = span_report(table, "AC1")
    assert [str(b) for b in rep.mla.baseline.values] == ["AC1", "F", "PB"]
    header, rows = table_with(rep.to_markdown(), "baseline")
    assert rows[0][0] == "AC1 (primary)" and "A_j (AC1)" in rep.to_markdown()
    assert f"A_ml^(AC1) = {_three(rep.mla.agreement.sel(baseline='AC1'))}" in rep.to_markdown()


def test_intervals_resample_documents(table):
    rep = span_report(table, ci=0.9, seed=3)
    direct = xr_agreement.span_mla(table, BASELINES, ci=0.9, seed=3)
    xr.testing.assert_identical(rep.mla, direct)
    lower = _three(direct.agreement_lower.sel(baseline="F"))
    upper = _three(direct.agreement_upper.sel(baseline="F"))
    markdown = rep.to_markdown()
    assert f"[{lower}, {upper}]" in markdown
    assert "resamples of documents" in markdown and "seed=3" in markdown


def test_accessor_and_function_agree(table, rep):
    assert table.agreement.report().to_json() == rep.to_json()


def test_input_is_not_modified(table):
    before = copy.deepcopy(table)
    span_report(table, ci=0.9, seed=1)
    xr.testing.assert_identical(table, before)
    assert table.attrs == before.attrs


def test_reader_facts_are_stated():
    table = make_table()
    table.attrs.update(reader="label-studio", dropped={"cancelled": {"cy": 2}},
                       notes=["relations are not measured"])
    text = " ".join(str(span_report(table)).split())
    assert "Read with the 'label-studio' span reader" in text
    assert "cancelled 2 (cy: 2)" in text and "relations are not measured." in text


def test_reader_without_dropped_is_not_said_to_have_left_nothing_out():
    # brat, CoNLL and Prodigy keep no ``dropped`` count; their notes say what they left out
    # (relation lines, ignored tasks): "Nothing was left out" would contradict them
    from xr_agreement.io.spans import brat

    text = " ".join(str(span_report(brat.read("tests/data/spans/brat/project"))).split())
    assert "Read with the 'brat' span reader" in text
    assert "Lines that mark no text left out" in text
    assert "Nothing was left out" not in text
    table = make_table()
    table.attrs.update(reader="doccano", dropped={})
    assert "Nothing was left out" in str(span_report(table))


def test_headline_gives_the_reason_beside_each_undefined_f1():
    # no span on the one document both annotators annotated: both F1 are 0/0
    table = xr_agreement.from_spans([("d2", "ann", 0, 3, "X")], lengths={"d1": 5, "d2": 5},
                                    annotated=[("d1", "ann"), ("d1", "bob"), ("d2", "ann")])
    text = " ".join(str(span_report(table)).split())
    reason = str(span_report(table).f1["exact"].undefined_reason.values)
    assert reason
    assert f"exact = NaN ({reason})" in text and f"overlap = NaN ({reason})" in text


def test_errors(table):
    with pytest.raises(TypeError, match="expected a span table"):
        span_report(xr.Dataset({"x": 1}))
    with pytest.raises(ValueError, match="digits"):
        span_report(table, digits=-1)
    with pytest.raises(ValueError):
        span_report(table, "XYZ")
    one = xr_agreement.from_spans([("d1", "ann", 0, 3, "PER")])
    with pytest.raises(ValueError, match="at least 2 annotators"):
        span_report(one)


# ---------------------------------------------------------------------------------------
# docs/spans.md: the worked example prints what the page shows
# ---------------------------------------------------------------------------------------


def test_docs_worked_example_prints_what_the_page_shows():
    _, checked = run_page("spans.md")
    assert checked == 5


def test_time_continuum_with_a_unit():
    """Speaker turns in seconds: positions of unit 0.5 s; the 2004 unitizing alpha counts
    positions of integer offsets and is said not computed."""
    records = [("call", "ann", 0.0, 2.5, "agent"), ("call", "bob", 0.0, 3.0, "agent"),
               ("call", "ann", 3.0, 6.0, "client"), ("call", "bob", 3.5, 6.0, "client")]
    table = xr_agreement.from_spans(records, lengths={"call": 6.0})
    rep = span_report(table, unit=0.5)
    assert rep.mla.attrs["n_positions"] == 12 and rep.settings["unit"] == 0.5
    # brute force on the 12 half-second positions: ann and bob differ at [2.5, 3.0) on
    # agent and at [3.0, 3.5) on client: 2 of 24 (position, label) cells
    assert float(rep.mla.observed) == pytest.approx(22 / 24, abs=1e-12)
    text = " ".join(str(rep).split())
    assert "12 positions of 0.500 offset each" in text
    assert rep.unitizing is None and "unitizing alpha = not computed" in text
    with pytest.raises(ValueError, match="unit"):
        span_report(table)


def test_undefined_intervals_are_explained():
    """One document annotated by two annotators: the document bootstrap cannot make an
    interval, and the report says why beside the NaN bounds."""
    table = xr_agreement.from_spans([("d", "a", 0, 3, "X"), ("d", "b", 1, 3, "X"),
                                     ("e", "a", 0, 2, "X")], lengths={"d": 10, "e": 5})
    text = str(xr_agreement.span_report(table, ci=0.9, seed=0, n_resamples=50))
    assert "[NaN, NaN]" in text
    assert "The intervals are undefined (NaN): 1 document(s) annotated by two or more" in \
        " ".join(text.split())
