"""The single-label report (xr_agreement.single_label_report, `xr-agreement report --layout
single`): its numbers against independent implementations (statsmodels, the krippendorff
package, scikit-learn, a pair loop written here), its renderings, and the command line."""

import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.cli import main
from xr_agreement.report import SingleLabelReport, single_label_report

DECLARED = ["negative", "neutral", "positive", "mixed"]  # "mixed": declared, never used
ANNOTATORS = ["ann", "bob", "cat", "dan"]
# a realistic sentiment task: string ids on every dim, missing ratings, doc-09 rated once
ROWS = {
    "doc-01": ["positive", "positive", "positive", "positive"],
    "doc-02": ["negative", "negative", "neutral", None],
    "doc-03": ["neutral", "neutral", "neutral", "positive"],
    "doc-04": ["positive", "neutral", "positive", "positive"],
    "doc-05": ["negative", "negative", "negative", "negative"],
    "doc-06": [None, "positive", "negative", "positive"],
    "doc-07": ["neutral", "positive", "neutral", "neutral"],
    "doc-08": ["negative", "neutral", "negative", "negative"],
    "doc-09": [None, None, "positive", None],
    "doc-10": ["positive", "positive", "neutral", "positive"],
    "doc-11": ["neutral", "neutral", "negative", None],
    "doc-12": ["negative", "negative", "negative", "neutral"],
}


def ratings_array(rows=ROWS, annotators=ANNOTATORS, declared=DECLARED):
    da = xr.DataArray(np.array(list(rows.values()), dtype=object), dims=("item", "annotator"),
                      coords={"item": list(rows), "annotator": annotators}, name="rating")
    if declared is not None:
        da.attrs["categories"] = json.dumps(declared)
    return da


@pytest.fixture(scope="module")
def ratings():
    return ratings_array()


@pytest.fixture(scope="module")
def rep(ratings):
    return single_label_report(ratings, digits=6)


@pytest.fixture(scope="module")
def restored(rep):
    return SingleLabelReport.from_json(rep.to_json())


def rated(row):
    return [(a, r) for a, r in zip(ANNOTATORS, row) if r is not None]


# ---------------------------------------------------------------------------------------
# the numbers against independent computations
# ---------------------------------------------------------------------------------------


def test_fleiss_equals_statsmodels_on_complete_data():
    from statsmodels.stats.inter_rater import fleiss_kappa

    complete = {k: v for k, v in ROWS.items() if None not in v}
    report = single_label_report(ratings_array(complete))
    counts = np.array([[row.count(c) for c in DECLARED] for row in complete.values()])
    expected = fleiss_kappa(counts, method="fleiss")
    restored = SingleLabelReport.from_json(report.to_json())
    assert float(restored.results["fleiss"].coefficient) == pytest.approx(expected, abs=1e-12)
    assert report.summary()["coefficient"]["fleiss"] == pytest.approx(expected, abs=1e-12)
    # the same number in the rendering (digits=3)
    assert f"| Fleiss' kappa | {expected:.3f} |" in report.to_markdown()


def test_alpha_equals_the_krippendorff_package(rep, restored):
    krippendorff = pytest.importorskip("krippendorff")
    codes = {c: float(i) for i, c in enumerate(DECLARED)}
    data = np.array([[np.nan if r is None else codes[r] for r in row]
                     for row in ROWS.values()]).T  # annotators x items
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal",
                                  value_domain=list(codes.values()))
    assert float(restored.results["alpha"].alpha) == pytest.approx(expected, abs=1e-12)
    assert f"Krippendorff's alpha (nominal) | {expected:.6f} |" in rep.to_markdown()


def test_cohen_per_pair_equals_sklearn(rep, restored):
    from sklearn.metrics import cohen_kappa_score

    pairs = restored.results["cohen"]
    markdown = rep.to_markdown()
    kappas = []
    for i, j in itertools.combinations(range(len(ANNOTATORS)), 2):
        both = [(row[i], row[j]) for row in ROWS.values()
                if row[i] is not None and row[j] is not None]
        expected = cohen_kappa_score([a for a, _ in both], [b for _, b in both])
        kappas.append(expected)
        where = {"annotator_1": ANNOTATORS[i], "annotator_2": ANNOTATORS[j]}
        assert float(pairs.pair_coefficient.sel(where)) == pytest.approx(expected, abs=1e-12)
        assert int(pairs.pair_n_pairable_items.sel(where)) == len(both)
        assert f"| {ANNOTATORS[i]} | {ANNOTATORS[j]} | {len(both)} |" in markdown
        assert f"| {expected:.6f} |" in markdown
    # the Cohen row: the mean over the pairs (Light's kappa)
    assert float(pairs.coefficient) == pytest.approx(np.mean(kappas), abs=1e-12)


def test_coincidence_table_equals_a_pair_loop(rep, restored):
    expected = pd.DataFrame(0.0, index=DECLARED, columns=DECLARED)
    for row in ROWS.values():
        values = [r for _, r in rated(row)]
        m = len(values)
        if m < 2:
            continue
        for u, v in itertools.permutations(range(m), 2):
            expected.loc[values[u], values[v]] += 1 / (m - 1)
    got = restored.results["alpha"].coincidence.to_pandas()
    got.index, got.columns = list(got.index), list(got.columns)
    pd.testing.assert_frame_equal(got.loc[DECLARED, DECLARED], expected, check_names=False,
                                  atol=1e-12)
    text = str(rep)
    for category in DECLARED:
        row = expected.loc[category]
        line = next(line for line in text.splitlines() if line.startswith(category + " ")
                    and line.count(".") == len(DECLARED) + 1)
        assert line.split()[1:] == [f"{v:.6f}" for v in row] + [f"{row.sum():.6f}"]
    # the most frequent off-diagonal pair is named first
    first = re.search(r"Most frequent confusions: (\w+) rated where another annotator rated "
                      r"(\w+) \(and the reverse\): ([0-9.]+) each way", " ".join(text.split()))
    most = max(expected.loc[a, b] for a, b in itertools.combinations(DECLARED, 2))
    assert expected.loc[first[1], first[2]] == pytest.approx(most, abs=1e-9)
    assert float(first[3]) == pytest.approx(most, abs=1e-6)


def test_categories_and_marginals_equal_pandas_counts(rep):
    long = pd.DataFrame([(item, a, r) for item, row in ROWS.items() for a, r in rated(row)],
                        columns=["item", "annotator", "rating"])
    per_annotator = pd.crosstab(long.annotator, long.rating).reindex(
        index=ANNOTATORS, columns=DECLARED, fill_value=0)
    assert rep.facts["ratings_per_annotator"] == per_annotator.to_numpy().tolist()
    assert rep.facts["n_ratings"] == len(long)
    assert rep.facts["n_missing"] == len(ROWS) * len(ANNOTATORS) - len(long)
    assert rep.facts["categories_unused"] == ["mixed"]
    assert rep.facts["items_with_fewer_than_two_ratings"] == ["doc-09"]
    markdown = rep.to_markdown()
    share = long.rating.value_counts(normalize=True)
    for category in ("negative", "neutral", "positive"):
        assert f"| {category} | {(long.rating == category).sum()} | {share[category]:.6f} |" \
            in markdown
    for annotator in ANNOTATORS:
        counts = per_annotator.loc[annotator]
        assert ("| " + " | ".join([annotator] + [str(n) for n in counts]
                                  + [str(counts.sum())]) + " |") in markdown
    # Fleiss' category kappa from the function
    fleiss = xr_agreement.fleiss(ratings_array(), categories=DECLARED)
    value = float(fleiss.category_coefficient.sel(category="neutral"))
    assert f"| neutral | {(long.rating == 'neutral').sum()} | {share['neutral']:.6f} | " \
           f"{value:.6f} |" in markdown


def test_every_coefficient_is_the_function_value(ratings, restored):
    for name in ("fleiss", "conger", "gwet", "brennan_prediger", "percent"):
        result = getattr(xr_agreement, name)(ratings, categories=DECLARED)
        for variable in ("coefficient", "observed", "expected", "coefficient_se",
                         "coefficient_lower", "coefficient_upper"):
            assert float(restored.results[name][variable]) == pytest.approx(
                float(result[variable]), abs=1e-12), (name, variable)
    alpha = xr_agreement.alpha(ratings, categories=DECLARED)
    for variable in ("alpha", "alpha_se", "alpha_lower", "alpha_upper"):
        assert float(restored.results["alpha"][variable]) == pytest.approx(
            float(alpha[variable]), abs=1e-12)


# ---------------------------------------------------------------------------------------
# the data section, intervals, renderings
# ---------------------------------------------------------------------------------------


def test_data_section_states_the_design(rep):
    text = " ".join(str(rep).split())
    assert "Declared but never used: mixed" in text
    assert "Items with fewer than two ratings" in text and "(doc-09)" in text
    n_ratings = sum(len(rated(row)) for row in ROWS.values())
    assert f"Ratings given: {n_ratings} of {4 * len(ROWS)}" in text
    assert f"missing: {4 * len(ROWS) - n_ratings}" in text
    assert "95% (the functions' default" in text


def test_reading_facts_and_single_label_sentence_are_stated():
    da = ratings_array()
    da.attrs.update(reader="label-studio", dropped=json.dumps({"cancelled": {"ann": 2}}),
                    notes=json.dumps(["two drafts were skipped"]),
                    single_label="the Choices control has no choice=\"multiple\"")
    text = " ".join(str(single_label_report(da)).split())
    assert ("Why these are single-label ratings: the Choices control has no "
            "choice=\"multiple\".") in text
    assert "Read with the 'label-studio' reader." in text
    assert "cancelled 2 (ann: 2)" in text and "two drafts were skipped." in text


def test_level_and_bootstrap(ratings):
    report = single_label_report(ratings, ci=0.9)
    assert "90% interval" in report.to_markdown()
    fleiss = xr_agreement.fleiss(ratings, categories=DECLARED, ci=0.9)
    assert report.summary()["lower"]["fleiss"] == float(fleiss.coefficient_lower)
    boot = single_label_report(ratings, ci=0.9, ci_method="percentile", n_resamples=100,
                               seed=3)
    again = single_label_report(ratings, ci=0.9, ci_method="percentile", n_resamples=100,
                                seed=3)
    assert boot.summary() == again.summary()
    assert boot.summary()["lower"]["cohen"] is not None  # the mean over pairs gets one
    assert "percentile bootstrap of 100 resamples" in " ".join(str(boot).split())
    with pytest.raises(ValueError, match="bootstrap"):
        single_label_report(ratings, seed=1)


def test_json_round_trip(rep, restored):
    data = json.loads(rep.to_json())
    assert data["format"] == "xr-agreement-single-label-report/1"
    assert set(data["results"]) == {"fleiss", "conger", "cohen", "gwet", "brennan_prediger",
                                    "percent", "alpha"}
    assert str(restored) == str(rep) and restored.to_markdown() == rep.to_markdown()
    assert restored.to_json() == rep.to_json()
    with pytest.raises(ValueError, match="format"):
        SingleLabelReport.from_json(json.dumps({**data, "format": "xr-agreement-report/4"}))


def test_markdown_and_html_hold_the_sections(rep):
    titles = ["1. Data", "2. Coefficients", "3. Categories", "4. Confusions between annotators",
              "5. Annotator pairs and annotators", "6. Uncertainty"]
    markdown, page = rep.to_markdown(), rep.to_html()
    assert markdown.startswith("# Single-label agreement report\n")
    for title in titles:
        assert f"## {title}" in markdown and f"<h2>{title}</h2>" in page
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page
    assert "<h2>" in rep._repr_html_()


def hostile_ratings():
    rows = {"<script>alert(1)</script>": ["=cmd|' /C calc'!A0", "<img src=x onerror=alert(2)>"],
            "=HYPERLINK(\"x\")": ["<img src=x onerror=alert(2)>", "<img src=x onerror=alert(2)>"],
            "[i](javascript:alert(3))": ["=cmd|' /C calc'!A0", "=cmd|' /C calc'!A0"]}
    return ratings_array(rows, ["<script>alert(1)</script>", "+bob"], None)


def test_html_and_markdown_escape_hostile_ids():
    report = single_label_report(hostile_ratings(), title="<script>t</script>",
                                 notes=["[n](javascript:x) <b>note</b>"])
    page = report.to_html()
    assert "<script" not in page and "<img" not in page
    assert "<b>" not in page and "href" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "=cmd|" in page
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(
        report.to_markdown())
    assert "<script" not in rendered and "<img" not in rendered and "href" not in rendered


# ---------------------------------------------------------------------------------------
# report() and single_label_report() refuse each other's input
# ---------------------------------------------------------------------------------------


def test_report_on_ratings_names_single_label_report(ratings):
    with pytest.raises(ValueError, match="single_label_report"):
        xr_agreement.report(ratings)
    with pytest.raises(ValueError, match="single_label_report"):
        ratings.agreement.report()


def test_single_label_report_on_decisions_names_report():
    with pytest.raises(ValueError, match="xr_agreement.report"):
        single_label_report(xr_agreement.datasets.bias_example())


# ---------------------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------------------


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def csv_path(tmp_path):
    rows = [(item, a, r) for item, row in ROWS.items() for a, r in zip(ANNOTATORS, row)
            if r is not None]
    path = tmp_path / "ratings.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "rating"]).to_csv(path, index=False)
    return str(path)


def test_cli_text_json_html(csv_path, capsys, tmp_path):
    code, out, err = run(["report", csv_path, "--layout", "single"], capsys)
    assert code == 0, err
    assert out.startswith("Single-label agreement report: ratings.csv\n")
    assert "--layout single was given" in out and "Multi-label" not in out
    code, out, err = run(["report", csv_path, "--layout", "single", "--format", "json",
                          "--ci", "0.9", "--digits", "4", "--landis-koch"], capsys)
    assert code == 0, err
    restored = SingleLabelReport.from_json(out)
    python = single_label_report(ratings_array(declared=None), ci=0.9)
    for name, ds in python.results.items():
        xr.testing.assert_allclose(restored.results[name].reset_coords(drop=True),
                                   ds.reset_coords(drop=True))
    assert restored.settings["landis_koch"] and restored.settings["digits"] == 4
    target = tmp_path / "report.html"
    code, out, err = run(["report", csv_path, "--layout", "single", "--format", "html",
                          "--output", str(target)], capsys)
    assert code == 0 and out == "", err
    page = target.read_text()
    assert "<title>Single-label agreement report: ratings.csv</title>" in page
    assert "<h2>4. Confusions between annotators</h2>" in page


def test_cli_bootstrap_with_seed(csv_path, capsys):
    args = ["report", csv_path, "--layout", "single", "--format", "json", "--ci-method",
            "percentile", "--seed", "5"]
    first, second = run(args, capsys), run(args, capsys)
    assert first[0] == 0 and first[1] == second[1]
    assert json.loads(first[1])["summary"]["lower"]["cohen"] is not None
    code, _, err = run(["report", csv_path, "--layout", "single", "--seed", "5"], capsys)
    assert code == 2 and "--ci-method percentile" in err


@pytest.mark.parametrize("option", [["--sensitivity", "AC1"], ["--labels-fixed", "yes"],
                                    ["--all-labels-considered", "no"],
                                    ["--joint-omissions", "x"], ["--baseline", "AC1"]])
def test_cli_refuses_the_multi_label_options(csv_path, capsys, option):
    code, out, err = run(["report", csv_path, "--layout", "single", *option], capsys)
    assert code == 2 and out == ""
    assert option[0] in err and "single-label ratings" in err and "\n" == err[-1]
    assert err.count("\n") == 1


def test_cli_disagreements_on_ratings(csv_path, capsys, tmp_path):
    code, out, err = run(["disagreements", csv_path, "--layout", "single"], capsys)
    assert code == 0, err
    table = pd.read_csv(pd.io.common.StringIO(out))
    expected = {(item, category) for item, row in ROWS.items()
                for category in {r for r in row if r is not None}
                if len({r for r in row if r is not None}) > 1}
    assert set(zip(table["item"], table["label"])) == expected
    row = table[(table["item"] == "doc-04") & (table["label"] == "neutral")].iloc[0]
    assert row["positive_annotators"] == "bob" and row["negative_annotators"] == "ann;cat;dan"
    target = tmp_path / "review.json"
    code, _, err = run(["disagreements", csv_path, "--layout", "single", "--output",
                        str(target)], capsys)
    assert code == 0, err
    assert len(json.loads(target.read_text())) == len(expected)


def test_cli_disagreements_csv_defuses_formulas(tmp_path, capsys):
    rows = [(item, a, r) for item, row in hostile_ratings().to_pandas().iterrows()
            for a, r in row.items()]
    path = tmp_path / "hostile.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "rating"]).to_csv(path, index=False)
    code, out, err = run(["disagreements", str(path), "--layout", "single"], capsys)
    assert code == 0, err
    assert "'=cmd" in out and "\n=cmd" not in out and ",=cmd" not in out
    code, out, err = run(["report", str(path), "--layout", "single", "--format", "html"],
                         capsys)
    assert code == 0 and "<script" not in out and "<img" not in out


def test_many_annotators_list_the_lowest_pairs_and_the_busiest_annotators():
    from xr_agreement.report.single_sections import MAX_ANNOTATORS_LISTED, MAX_PAIRS_LISTED

    rng = np.random.default_rng(7)
    n = MAX_ANNOTATORS_LISTED + 5
    values = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(40, n))
    values[rng.random((40, n)) < 0.2] = None
    annotators = [f"w{k:02d}" for k in range(n)]
    report = single_label_report(ratings_array(dict(zip(map(str, range(40)), values)),
                                 annotators, None), digits=6)
    section = report.to_markdown().split("## 5.")[1]
    pair_rows = [line for line in section.splitlines()
                 if re.match(r"\| w\d\d \| w\d\d \|", line)]
    assert len(pair_rows) == MAX_PAIRS_LISTED
    kappa = report.results["cohen"].pair_coefficient.values
    lowest = np.sort(kappa[np.triu_indices(n, 1)])[:MAX_PAIRS_LISTED]
    shown = sorted(float(line.split("|")[5]) for line in pair_rows)
    np.testing.assert_allclose(shown, lowest, atol=1e-6)
    marginal_rows = [line for line in section.splitlines() if re.match(r"\| w\d\d \| \d", line)]
    assert len(marginal_rows) == MAX_ANNOTATORS_LISTED
    assert "| all annotators |" in section


def test_cli_analytic_intervals_only_for_ratings(capsys):
    code, out, err = run(["report", "--ci-method", "analytic"], capsys)
    assert code == 2 and "only single-label ratings have analytic intervals" in err


def test_landis_koch_bands_skip_percent_agreement(ratings):
    """Landis-Koch bands are for chance-corrected coefficients: percent agreement (0.7 here,
    'substantial' on the kappa scale) gets none, the kappas and alpha get theirs."""
    from xr_agreement.report import landis_koch

    report = single_label_report(ratings, landis_koch=True)
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[-1].rstrip(" |")
            for line in report.to_markdown().split("## 2.")[1].split("## 3.")[0].splitlines()
            if line.startswith("| ") and "Landis-Koch" not in line}
    assert rows["percent agreement"] == "-"
    assert rows["Fleiss' kappa"] == landis_koch(report.summary()["coefficient"]["fleiss"])
    assert rows["Krippendorff's alpha (nominal)"] == landis_koch(
        report.summary()["coefficient"]["alpha"])
    assert "percent agreement has none" in " ".join(str(report).split())


def test_headline_does_not_say_every_item_was_rated_by_everyone(rep):
    """With missing ratings (ROWS has 9 of 48 cells missing) the headline cannot say that
    each annotator gave each item a category; it says what a rating is."""
    text = " ".join(str(rep).split())
    assert "each annotator gave each item" not in text
    assert "each rating is one category of a set of mutually exclusive categories" in text


def test_crowd_designs_skip_cohens_pairs_and_say_so():
    """Above MAX_PAIR_ANNOTATORS annotators the n^2 pair tables are not computed: the
    report says so where Cohen's numbers would be, every other coefficient is the
    function's own, and the JSON round trip keeps the absence."""
    from xr_agreement.report.single_sections import MAX_PAIR_ANNOTATORS

    rng = np.random.default_rng(5)
    n_items, n = 150, MAX_PAIR_ANNOTATORS + 1
    values = np.full((n_items, n), None, dtype=object)
    for i in range(n_items):  # three workers an item, as crowd designs have
        values[i, rng.choice(n, 3, replace=False)] = rng.choice(["cat", "dog", "bird"], 3)
    ratings = xr.DataArray(values, dims=("item", "annotator"),
                           coords={"item": [f"t{i}" for i in range(n_items)],
                                   "annotator": [f"w{a}" for a in range(n)]})
    rep = single_label_report(ratings)
    assert "cohen" not in rep.results
    assert rep.summary()["coefficient"]["cohen"] is None
    assert rep.summary()["coefficient"]["conger"] == float(xr_agreement.conger(ratings)
                                                           .coefficient)
    text = str(rep)
    assert re.search(rf"Cohen's kappa per pair is not computed for {n} annotators \(above "
                     rf"{MAX_PAIR_ANNOTATORS}\): {n * (n - 1) // 2} pairs", " ".join(
                         text.split()))
    row = next(line for line in text.splitlines() if line.startswith("Cohen's kappa, mean"))
    assert row.split()[-5:] == ["-"] * 5
    back = SingleLabelReport.from_json(rep.to_json())
    assert str(back) == text
    # at the limit the pairs are there
    assert "cohen" in single_label_report(ratings.isel(annotator=slice(0, n - 1))).results


def test_dask_ratings_give_the_same_report(monkeypatch):
    """Dask ratings (items in chunks) give the numpy report word for word, the coincidence
    table included; the per-annotator counts, encoded a block of items at a time (blocks
    made small here), equal a plain count of each annotator's column."""
    from xr_agreement.report import single

    monkeypatch.setattr(single, "COUNT_BLOCK", 50)
    rng = np.random.default_rng(0)
    values = rng.choice(np.array(["a", "b", "c", None], dtype=object), (300, 7))
    ratings = xr.DataArray(values, dims=("item", "annotator"),
                           coords={"item": [f"i{i}" for i in range(300)],
                                   "annotator": list("ABCDEFG")})
    in_memory = single_label_report(ratings)
    lazy = single_label_report(ratings.chunk(item=37))
    assert str(lazy) == str(in_memory)
    assert lazy.facts == in_memory.facts
    table = pd.DataFrame(values, columns=list("ABCDEFG"))
    assert in_memory.facts["ratings_per_annotator"] == [
        [int((table[a] == c).sum()) for c in "abc"] for a in "ABCDEFG"]
    assert "Krippendorff's coincidence table" in str(lazy)
