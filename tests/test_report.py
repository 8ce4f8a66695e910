"""The reliability report (section 5 of Menzner & Leidner) on the paper's worked example.

Expected numbers are the ones printed in the paper (Tables 2 and 3, section 3.7, eq. 8) or
come from the independent oracle in tests/oracle.py; none is a stored output of our code.
"""

import base64
import json
import os
import re
import sys

import numpy as np
import pytest
import xarray as xr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oracle import oracle_mla, oracle_mla_missing

import xr_agreement
from xr_agreement.report import Report
from xr_agreement.report.document import JSON_FORMAT

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
MLA_MODULE = sys.modules["xr_agreement.mla.api"]  # the module report() calls mla() from

# Table 2 of the paper: A_o, A_ml^(F), A_ml^(ac1), A_ml^(pb), A_o,min (3 decimals).
TABLE2 = {"all": ["0.914", "0.232", "0.903", "0.828", "0.849"],
          "used": ["0.758", "0.232", "0.646", "0.515", "0.576"]}
# Table 3 of the paper: p_j, A_o,j, A_j^(F), A_j^(ac1), A_j^(pb) for the rows it prints.
TABLE3 = {
    2: ["0.333", "0.667", "0.250", "0.400", "0.333"],
    3: ["0.083", "0.833", "-0.091", "0.803", "0.667"],
    5: ["0.083", "0.833", "-0.091", "0.803", "0.667"],
    14: ["0.250", "1.000", "1.000", "1.000", "1.000"],
    17: ["0.167", "0.833", "0.400", "0.769", "0.667"],
    21: ["0.167", "0.833", "0.400", "0.769", "0.667"],
}
USED = [2, 3, 5, 14, 17, 21, 22, 23, 27, 29, 31]  # selected at least once (Table 1)
VERBAL = ("poor", "slight", "fair", "moderate", "substantial", "almost perfect")


@pytest.fixture(scope="module")
def example():
    return xr_agreement.datasets.bias_example()


@pytest.fixture(scope="module")
def rep(example):
    return xr_agreement.report(example, labels_fixed=True)


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


def table_with(markdown, first_header):
    return next(t for t in markdown_tables(markdown) if t[0][0] == first_header)


# ---------------------------------------------------------------------------------------
# every checklist item, with the paper's numbers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("render", ["text", "markdown", "html"])
def test_table2_in_every_rendering(rep, render):
    out = {"text": str, "markdown": Report.to_markdown, "html": Report._repr_html_}[render](rep)
    for values in TABLE2.values():
        pattern = r"\D+".join(re.escape(v) for v in values)
        assert re.search(pattern, out), (values, render)


def test_table2_rows(rep):
    header, rows = table_with(rep.to_markdown(), "label universe")
    assert header == ["label universe", "A_o", "A_ml (F)", "A_ml (AC1)", "A_ml (PB)", "A_o,min"]
    assert rows[0][0].startswith("all 31") and rows[1][0].startswith("11 used")
    assert rows[0][1:] == TABLE2["all"]
    assert rows[1][1:] == TABLE2["used"]


def test_table3_rows(rep):
    header, rows = table_with(rep.to_markdown(), "label")
    assert header[1:6] == ["p_j", "A_o,j", "A_j (F)", "A_j (AC1)", "A_j (PB)"]
    by_label = {int(r[0].split()[0]): r for r in rows}
    assert sorted(by_label) == USED  # the 11 labels selected at least once, no others
    for label, printed in TABLE3.items():
        assert by_label[label][1:6] == printed, label
    assert "(Ambiguous Attribution Bias)" in by_label[2][0]


def test_label_universe_section(rep):
    text = str(rep)
    section = text.split("1. Label universe")[1].split("2. Meaning")[0]
    assert "fixed before annotation: yes" in section
    assert "k = 31 labels, of which 11" in section
    never = re.search(r"Never selected \((\d+)\): (.*?)\.\n\n", section, re.DOTALL)
    assert int(never.group(1)) == 20
    listed = [int(x) for x in re.findall(r"(?:^|, )(\d+)", never.group(2).replace("\n", " "))]
    assert listed == [j for j in range(1, 32) if j not in USED]
    # Table 2's message: F unchanged, AC1 and PB change
    flat = " ".join(section.split())
    assert "leaves F unchanged" in flat
    assert "AC1 (from 0.903 to 0.646)" in flat and "PB (from 0.828 to 0.515)" in flat


@pytest.mark.parametrize("fixed, expected", [(True, "yes."), (False, "no"), (None, "not stated")])
def test_labels_fixed_is_stated(example, fixed, expected):
    text = " ".join(str(xr_agreement.report(example, labels_fixed=fixed)).split())
    assert f"Label inventory fixed before annotation: {expected}" in text


def test_joint_omissions_section(rep, example):
    # count the agreeing (annotator pair, label) comparisons by brute force
    values = example.values
    omissions = selections = 0
    for i in range(values.shape[0]):
        for c in range(3):
            for d in range(c + 1, 3):
                both = values[i, c] == values[i, d]
                selections += int((both & (values[i, c] == 1)).sum())
                omissions += int((both & (values[i, c] == 0)).sum())
    assert omissions + selections == 93 + 83 + 85 + 79  # S_i of section 3.7
    text = " ".join(str(rep).split())
    assert (f"Of the {omissions + selections} agreeing (annotator pair, label) comparisons, "
            f"{omissions} ({100 * omissions / (omissions + selections):.1f}%) are joint "
            f"omissions and {selections} joint selections") in text
    stated = xr_agreement.report(example, joint_omissions="every bias type was checked")
    assert "Analyst's statement: every bias type was checked" in str(stated)


def test_baseline_section_with_floors(example):
    # eq. 8 and section 3.7, printed with 4 decimals
    rep4 = xr_agreement.report(example, digits=4)
    header, rows = table_with(rep4.to_markdown(), "baseline")
    assert header == ["baseline", "role", "A_e", "A_ml", "floor A_ml,min"]
    assert rows == [["F", "primary", "0.8880", "0.2320", "-0.3440"],
                    ["AC1", "sensitivity", "0.1120", "0.9031", "0.8305"],
                    ["PB", "sensitivity", "0.5000", "0.8280", "0.6989"]]
    assert "Pre-specified primary model: F" in rep4.to_markdown()


def test_other_primary_baseline(example):
    rep = xr_agreement.report(example, baseline="pabak", sensitivity="F")
    _header, rows = table_with(rep.to_markdown(), "baseline")
    assert [r[:2] for r in rows] == [["PB", "primary"], ["F", "sensitivity"]]
    assert rows[0][3] == "0.828"
    # left at its default, the sensitivity analysis is the other two baselines
    _, rows = table_with(xr_agreement.report(example, baseline="AC1").to_markdown(), "baseline")
    assert [r[:2] for r in rows] == [["AC1", "primary"], ["F", "sensitivity"],
                                     ["PB", "sensitivity"]]
    alone = xr_agreement.report(example, sensitivity=None)
    assert "the paper recommends at least one" in " ".join(str(alone).split())


def test_diagnostics_numbers(rep):
    _header, rows = table_with(rep.to_markdown(), "quantity")
    values = dict(rows)
    assert values["N (items)"] == "4"
    assert values["n (annotators)"] == "3"
    assert values["annotators per item"] == "3 (every item)"
    assert values["k (labels)"] == "31"
    assert values["A_o (observed agreement)"] == f"{85 / 93:.3f}"
    assert values["p_r (raw prevalence)"] == f"{7 / 93:.3f}"  # "p_r = 7/93"
    assert values["A_o,min (floor of A_o given the prevalences)"] == f"{79 / 93:.3f}"


def test_lowest_labels_and_hardest_items(rep, example):
    oracle = oracle_mla(example.values.astype(int), "F")
    label_f = np.asarray(oracle["label_agreement"], float)
    used = np.array(USED) - 1
    expected = [USED[p] for p in np.argsort(label_f[used], kind="stable")[:5]]
    assert rep.lowest_labels() == expected
    assert expected[0] == 22  # Political Bias: A_o,j 0.5 at p_j 1/3
    text = " ".join(rep.to_markdown().split())
    assert "Labels with the lowest agreement under F: 22 (Political Bias): -0.125" in text
    _header, rows = table_with(rep.to_markdown(), "item")
    # A_o,i = 79/93 < 83/93 < 85/93 (section 3.7); sentence 1 agrees perfectly
    assert [r[0] for r in rows] == ["4", "2", "3"]
    assert rows[0][1] == f"{79 / 93:.3f}"
    disputed_4 = {j for j in range(31) if 0 < example.values[3, :, j].sum() < 3}
    assert set(map(int, rows[0][3].split(", "))) == {j + 1 for j in disputed_4}


def test_missing_data_and_uncertainty_sections(rep):
    text = " ".join(str(rep).split())
    assert "Complete design" in text and "no missing data" in text
    assert "No confidence intervals were computed" in text


def test_missing_data_report_matches_oracle():
    da = xr_agreement.read_annotations(os.path.join(DATA, "missing_sets.csv"))
    rep = xr_agreement.report(da, digits=6)
    oracle = oracle_mla_missing(da.values, "F")
    assert float(rep.result.agreement.sel(baseline="F")) == pytest.approx(oracle["agreement"])
    # 2 absent annotations of 2 labels each (b-z, d-x) out of 4 x 3 x 2 decisions
    text = " ".join(str(rep).split())
    assert "4 of 24 decisions (16.7%) were not made" in text
    assert "annotators per item" in text and "2-3 (median" in text
    header, _ = table_with(rep.to_markdown(), "label")
    assert "n_j" in header


def test_no_verbal_scale_unless_asked(example, rep):
    plain = str(rep).lower()
    assert not any(re.search(rf"\b{word}\b", plain) for word in VERBAL)
    opted = xr_agreement.report(example, landis_koch=True)
    _header, rows = table_with(opted.to_markdown(), "baseline")
    # Landis & Koch (1977): 0.21-0.40 fair, 0.81-1.00 almost perfect
    assert [r[-1] for r in rows] == ["fair", "almost perfect", "almost perfect"]


# ---------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------


def test_json_keys_and_numbers_are_the_datasets(rep):
    data = json.loads(rep.to_json(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    variables = data["results"]["declared"]["data_vars"]
    for name in rep.result.data_vars:
        assert name in variables
        if rep.result[name].dtype.kind in "OU":  # text (undefined_reason)
            np.testing.assert_array_equal(np.array(variables[name]["data"], dtype=object),
                                          rep.result[name].values.astype(object))
        else:
            stored = np.array(variables[name]["data"], dtype=float)  # None -> nan
            np.testing.assert_array_equal(stored, rep.result[name].values.astype(float))
        # the paper's variables carry a symbol; undefined_reason has none
        assert variables[name]["attrs"].get("symbol") == rep.result[name].attrs.get("symbol")
    np.testing.assert_allclose(variables["agreement"]["data"], [0.232, 0.9031, 0.828],
                               atol=5e-4)
    used = data["results"]["used_labels"]["data_vars"]["agreement"]["data"]
    np.testing.assert_allclose(used, [0.232, 0.646, 0.515], atol=5e-4)
    assert data["design"]["unused_labels"] == [j for j in range(1, 32) if j not in USED]
    assert data["settings"]["labels_fixed"] is True


def test_json_round_trip(rep):
    restored = Report.from_json(rep.to_json())
    xr.testing.assert_allclose(restored.result, rep.result)
    xr.testing.assert_allclose(restored.used_result, rep.used_result)
    for name in rep.result.variables:
        assert restored.result[name].attrs == rep.result[name].attrs, name
    assert str(restored) == str(rep)
    assert restored.to_markdown() == rep.to_markdown()
    with pytest.raises(ValueError, match="not an xr-agreement report"):
        Report.from_json('{"format": "something else"}')


def test_json_of_an_earlier_release_gives_reasons_as_coordinates(rep):
    """A report JSON written before issue 31 holds the reasons among the data variables:
    read back, the results take arithmetic as today's do (reasons are coordinates)."""
    data = json.loads(rep.to_json())
    for key in ("declared", "used_labels"):
        result = data["results"][key]
        for name in [n for n in result["coords"] if n.endswith("_reason")]:
            result["data_vars"][name] = result["coords"].pop(name)
    restored = Report.from_json(json.dumps(data))
    for ds, original in ((restored.result, rep.result), (restored.used_result, rep.used_result)):
        assert {"undefined_reason", "label_undefined_reason"} <= set(ds.coords)
        assert not [name for name in ds.data_vars if name.endswith("_reason")]
        xr.testing.assert_allclose(ds * 1.0, original * 1.0)


# ---------------------------------------------------------------------------------------
# intervals (the bootstrap of another module: supported when mla takes ci=)
# ---------------------------------------------------------------------------------------


def _fake_interval_mla(original):
    def mla(da, baseline="F", *, ci=None, seed=None, **kwargs):
        result = original(da, baseline, **kwargs)
        if ci is not None:
            for name in ("agreement", "label_agreement", "observed"):
                result[f"{name}_lower"] = result[name] - 0.1
                result[f"{name}_upper"] = result[name] + 0.1
            result.attrs["ci_method"] = "percentile"
            result.attrs["ci_level"] = ci
        return result

    return mla


def test_intervals_shown_when_mla_provides_them(monkeypatch, example):
    monkeypatch.setattr(MLA_MODULE, "mla", _fake_interval_mla(MLA_MODULE.mla))
    rep = xr_agreement.report(example, ci=0.9, seed=3)
    header, rows = table_with(rep.to_markdown(), "baseline")
    assert header[-1] == "90% CI"
    assert rows[0][-1] == "[0.132, 0.332]"
    text = " ".join(str(rep).split())
    assert "Intervals: 90% CI from mla(..., ci=0.9, seed=3)" in text
    assert "ci_method = percentile" in text
    label_header, _label_rows = table_with(rep.to_markdown(), "label")
    assert "F 90% CI" in label_header
    figure = rep.plot("labels")
    assert len(figure.axes[0].collections) == 2  # error bars and markers
    restored = Report.from_json(rep.to_json())
    xr.testing.assert_allclose(restored.result, rep.result)


def test_intervals_from_the_installed_bootstrap(example):
    # the bootstrap of mla(ci=...) when installed: same seed, same report; the rendered
    # interval is the Dataset's
    first = xr_agreement.report(example, ci=0.95, seed=7, n_resamples=200, digits=6)
    second = xr_agreement.report(example, ci=0.95, seed=7, n_resamples=200, digits=6)
    assert first.to_json() == second.to_json()
    lower = float(first.result.agreement_lower.sel(baseline="F"))
    upper = float(first.result.agreement_upper.sel(baseline="F"))
    assert lower <= upper
    _header, rows = table_with(first.to_markdown(), "baseline")
    assert rows[0][-1] == f"[{lower:.6f}, {upper:.6f}]"


def test_intervals_without_support_say_so(monkeypatch, example):
    def mla_without_ci(da, baseline="F", *, item="item", annotator="annotator",
                       label="label"):
        raise AssertionError("not reached")

    monkeypatch.setattr(MLA_MODULE, "mla", mla_without_ci)
    with pytest.raises(NotImplementedError, match="confidence intervals need"):
        xr_agreement.report(example, ci=0.95)


def test_ci_options_need_ci(example):
    with pytest.raises(ValueError, match="only apply with ci"):
        xr_agreement.report(example, n_resamples=10)
    with pytest.raises(ValueError, match=r"ci must be a number in \(0, 1\), got 95"):
        xr_agreement.report(example, ci=95)


def test_reports_of_an_earlier_format_are_refused_with_the_reason(example):
    text = xr_agreement.report(example).to_json()
    current = f'"{JSON_FORMAT}"'
    for earlier in ("1", "2"):  # 1: other variable names; 2: no summary block
        old = text.replace(current, f'"xr-agreement-report/{earlier}"')
        with pytest.raises(ValueError, match="earlier version .other variable names or "
                           f"entries.; this version reads '{JSON_FORMAT}'"):
            xr_agreement.Report.from_json(old)
    with pytest.raises(ValueError, match="not an"):
        xr_agreement.Report.from_json(text.replace(current, '"something"'))


def test_reports_of_a_later_format_say_to_update(example):
    later = xr_agreement.report(example).to_json().replace(
        f'"{JSON_FORMAT}"', '"xr-agreement-report/99"')
    with pytest.raises(ValueError, match="by a later version; .* update xr_agreement"):
        xr_agreement.Report.from_json(later)


def test_reports_of_format_3_are_still_read(example):
    """Format 3 (before the "pairs" form of many annotators and the reader's notes) is
    format 4 without those entries: such a JSON reads and renders as the report itself."""
    rep = xr_agreement.report(example)
    data = json.loads(rep.to_json())
    assert data["format"] == "xr-agreement-report/4"
    data["format"] = "xr-agreement-report/3"
    del data["design"]["reading_notes"]
    assert "pairs" not in data["design"]["annotators"]
    restored = xr_agreement.Report.from_json(json.dumps(data))
    assert str(restored) == str(rep)
    assert restored.to_markdown() == rep.to_markdown()


# ---------------------------------------------------------------------------------------
# HTML, figures, entry points, errors
# ---------------------------------------------------------------------------------------


def test_html_is_self_contained(rep):
    page = rep.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 4  # labels, items, baselines and the annotator-pair heat map
    for image in images:
        assert base64.b64decode(image)[:8] == b"\x89PNG\r\n\x1a\n"
    fragment = rep._repr_html_()
    assert "<table>" in fragment and "<h2>1. Label universe</h2>" in fragment


def test_plot_labels_sorted_and_sized_by_weight(rep, example):
    figure = rep.plot("labels")
    ax = figure.axes[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert len(names) == 11
    points = ax.collections[-1]
    x = points.get_offsets()[:, 0]
    assert np.all(np.diff(x) >= 0)  # sorted by value
    oracle = oracle_mla(example.values.astype(int), "F")
    weight = {j + 1: oracle["label_weight"][j] for j in range(31)}
    shown = [int(n.split()[0]) for n in names]
    sizes = points.get_sizes()
    np.testing.assert_allclose(np.argsort(sizes, kind="stable"),
                               np.argsort([weight[j] for j in shown], kind="stable"))


def test_plot_all_and_items(rep):
    figure = rep.plot()
    assert len(figure.axes) == 3
    items = rep.plot("items")
    assert [t.get_text() for t in items.axes[0].texts][:3] == ["4", "2", "3"]
    baselines = rep.plot("baselines")
    assert [t.get_text() for t in baselines.axes[0].get_legend().get_texts()] == [
        "F", "AC1", "PB"]
    with pytest.raises(ValueError, match="kind"):
        rep.plot("pie")


def test_plots_of_one_selected_baseline_name_it(example):
    """mla(baseline="all").sel(baseline="AC1"): the figures say AC1, in AC1's colour, not
    the result's attrs["baseline"] (the JSON list of all three)."""
    from xr_agreement.plot import PALETTE, plot_items, plot_labels

    chosen = example.agreement.mla("all").sel(baseline="AC1")
    labels = plot_labels(chosen).axes[0]
    assert labels.get_xlabel() == "label agreement A_j (AC1)"
    assert labels.get_title().startswith("Label-wise agreement (AC1)")
    assert mcolors_equal(labels.collections[-1].get_facecolor()[0], PALETTE["AC1"])
    assert plot_items(chosen).axes[0].get_xlabel() == "item agreement A_ml,i (AC1)"


def mcolors_equal(rgba, colour) -> bool:
    from matplotlib.colors import to_rgba

    return np.allclose(rgba[:3], to_rgba(colour)[:3])


def test_accessor_and_function_agree(example, rep):
    via_accessor = example.agreement.report(labels_fixed=True)
    assert str(via_accessor) == str(rep)


def test_input_is_not_modified(example):
    before = example.copy(deep=True)
    xr_agreement.report(example)
    xr.testing.assert_identical(example, before)


def test_errors(example):
    with pytest.raises(ValueError, match="extra dims \\['round'\\]"):
        xr_agreement.report(xr.concat([example, example], dim="round"))
    with pytest.raises(ValueError, match="one pre-specified primary"):
        xr_agreement.report(example, baseline=["F", "AC1"])
    with pytest.raises(ValueError, match="also in sensitivity"):
        xr_agreement.report(example, baseline="kappa", sensitivity=("F",))
    with pytest.raises(ValueError, match="unknown baseline"):
        xr_agreement.report(example, sensitivity=("XYZ",))
    with pytest.raises(ValueError, match="label dim 'category' not found"):
        xr_agreement.report(example, label="category")


def test_all_labels_used_gives_one_universe(example):
    rep = xr_agreement.report(example.sel(label=USED))
    assert rep.used_result is None
    assert "Every declared label was selected at least once" in str(rep)


def test_matplotlib_is_imported_only_for_figures():
    import subprocess

    code = ("import sys, xr_agreement; "
            "rep = xr_agreement.report(xr_agreement.datasets.bias_example()); "
            "text = str(rep) + rep.to_markdown() + rep.to_json(); "
            "assert 'matplotlib' not in sys.modules, 'imported too early'; "
            "rep.plot('labels'); assert 'matplotlib' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------------------------
# the "Annotators" and "Labels confused with each other" sections
# ---------------------------------------------------------------------------------------


def _section_text(text, title):
    start = text.index(title)
    end = text.find("\n\n8. ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_annotators_section_worked_example(rep):
    text = _section_text(str(rep), "7. Annotators")
    # the paper's Table 1 by hand: without annotator 1 the two others agree best
    # (mla of annotators 2 and 3 alone: A_o = 116/124)
    pair = xr_agreement.mla(xr_agreement.datasets.bias_example().sel(annotator=[2, 3]))
    assert f"{float(pair.agreement):.3f}" in text
    assert "Leaving out annotator 1 raises agreement most" in text
    lines = [line.split() for line in text.splitlines()]
    row = next(line for line in lines if line[:2] == ["1", "4"])
    # annotator 1's observed agreement with the others: 224 agreeing of 248 comparisons
    assert row[2] == f"{224 / 248:.3f}"
    markdown = rep.to_markdown()
    assert "## 7. Annotators" in markdown and "## 8. Labels confused with each other" in markdown


def test_confusions_section_worked_example(rep):
    text = _section_text(str(rep), "8. Labels confused with each other")
    rows = [line for line in text.splitlines() if "(" in line and line[0].isdigit()]
    # item 3 of Table 1: annotator 2 chose Anecdotal Evidence (3) where 1 and 3 chose
    # Ambiguous Attribution (2), so both ordered pairs (2, 1) and (2, 3) substitute 3 -> 2
    assert rows[0].startswith("3 (Anecdotal Evidence Bias)")
    assert "2 (Ambiguous Attribution Bias)" in rows[0]
    assert rows[0].split()[-3:] == ["2", "2", "1.000"]


def test_diagnostic_sections_survive_json(rep):
    again = Report.from_json(rep.to_json())
    assert str(again) == str(rep)
    assert again.to_html().count("data:image/png") == 4


def test_drifting_annotator_named_in_report():
    rng = np.random.default_rng(3)
    truth = rng.random((300, 1, 6)) < 0.3
    errors = np.array([0.04, 0.04, 0.12, 0.04])[None, :, None]
    values = (truth ^ (rng.random((300, 4, 6)) < errors)).astype(float)
    da = xr.DataArray(values, dims=("item", "annotator", "label"),
                      coords={"annotator": ["ana", "ben", "cy", "dee"],
                              "label": [f"code-{j}" for j in range(6)]})
    text = str(xr_agreement.report(da))
    assert "Leaving out annotator cy raises agreement most" in text


def test_summary_is_flat_and_first_in_the_json(example):
    rep = xr_agreement.report(example)
    document = json.loads(rep.to_json())
    assert list(document)[0] == "summary"
    summary = document["summary"]
    assert summary == rep.summary()
    assert summary["N"] == 4 and summary["n"] == 3 and summary["k"] == 31
    # the paper's worked example (section 3.7): A_ml^(F) = 0.232, p_r = 28 / (12 * 31)
    assert summary["agreement"]["F"] == pytest.approx(0.232, abs=5e-4)
    assert summary["p_r"] == pytest.approx(28 / (12 * 31))
    for name in ("agreement_lower", "agreement_upper"):
        assert summary[name] == {"F": None, "AC1": None, "PB": None}
    # an array built in Python was read by no reader: the report says nothing about reading
    assert summary["reader"] is None and summary["dropped"] == {}
    assert "reader" not in str(rep).split("1. Label universe")[0]
