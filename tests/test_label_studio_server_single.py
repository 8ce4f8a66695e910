"""Label Studio 1.23.2's own exports of a single-choice project, as its server wrote them
(issue 31, part 4).

The files under ``tests/data/tools/label_studio/server_1.23.2_single/`` were made by a Label
Studio 1.23.2 server run on this machine (pip ``label-studio==1.23.2``, on 127.0.0.1), driven
through its REST API by ``make_exports.py`` (its docstring holds the plan) and exported
through its own export code: the direct export (``GET /api/projects/1/export?exportType=
JSON|JSON_MIN|CSV|TSV&download_all_tasks=true``) and a snapshot with user details
(``completed_by`` as ``{"id", "email", ...}``; its JSON-min conversion names the annotator by
email).

The project (``config.xml``): ``<Choices name="sentiment">`` positive, negative, neutral with
no ``choice`` attribute (Label Studio's default: single) on 6 tasks. Users: admin (id 1),
alice (2), bob (3). What was annotated, one row per task:

    task  admin                alice                        bob
    1     positive             positive                     positive
    2     negative             negative                     neutral
    3     neutral              skipped (was_cancelled)      neutral
    4     neutral              negative, then positive      submitted, empty result
    5     a draft only         positive                     -
    6     nobody annotated the task (a model's prediction only)

So the ratings (item x annotator; "-" no decision), with what each missing cell is:

    item  1         2                    3
    1     positive  positive             positive
    2     negative  negative             neutral
    3     neutral   - (cancelled)        neutral
    4     neutral   positive (latest)    - (no choice)
    5     - (draft) positive             -

and task 6 is no item ("unannotated task"). The JSON exports keep the cancelled annotation
and the draft; JSON-min, CSV and TSV write neither (alice on task 3 and the admin's draft are
absent), write bob's empty result as a record without the ``sentiment`` key (CSV / TSV: an
empty cell) and a single choice as text (``"sentiment": "positive"``).

A second project (the ``one_choice_each_*`` files, tasks 7-9) holds one choice in every
annotation: what a reader infers without the config.

    task  admin     alice     bob
    7     positive  positive  positive
    8     negative  negative  neutral
    9     neutral   positive  neutral
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from readback import decisions
from xr_agreement import AnnotationFileError, read_annotations, single_label_report
from xr_agreement.cli import main
from xr_agreement.report import SingleLabelReport

HERE = Path(__file__).parent / "data" / "tools" / "label_studio" / "server_1.23.2_single"
CONFIG = HERE / "config.xml"
CATEGORIES = ["positive", "negative", "neutral"]  # the config's order
CONFIG_SAID = ('the labeling config\'s <Choices name="sentiment"> allows one choice (no choice '
               'attribute: single)')
INFERRED = ("every annotation selects exactly one category; the export does not say whether "
            "several were allowed (layout='sets' reads label sets)")

# (task, user id) -> the category, as planned above; None: no decision
PLANNED = {
    (1, 1): "positive", (1, 2): "positive", (1, 3): "positive",
    (2, 1): "negative", (2, 2): "negative", (2, 3): "neutral",
    (3, 1): "neutral", (3, 2): None, (3, 3): "neutral",
    (4, 1): "neutral", (4, 2): "positive", (4, 3): None,
    (5, 1): None, (5, 2): "positive", (5, 3): None,
}
ONE_EACH = {
    (7, 1): "positive", (7, 2): "positive", (7, 3): "positive",
    (8, 1): "negative", (8, 2): "negative", (8, 3): "neutral",
    (9, 1): "neutral", (9, 2): "positive", (9, 3): "neutral",
}
USER = {"1": 1, "2": 2, "3": 3, "admin@example.com": 1, "alice@example.com": 2,
        "bob@example.com": 3, "nobody": "nobody"}

FULL = ["json_all_tasks.json", "snapshot_details.json"]  # the JSON export: one record a task
MIN = ["json_min_all_tasks.json", "csv_all_tasks.csv", "tsv_all_tasks.tsv",
       "snapshot_details_min.json"]  # one record an annotation
EXPORTS = FULL + MIN

# what was left out, per reason and user id: the JSON exports hold the cancelled annotation
# and the draft, JSON-min / CSV / TSV neither
DROPPED_FULL = {"cancelled": {2: 1}, "draft": {1: 1}, "no choice": {3: 1},
                "superseded": {2: 1}, "unannotated task": {"nobody": 1}}
DROPPED_MIN = {"no choice": {3: 1}, "superseded": {2: 1}, "unannotated task": {"nobody": 1}}


def ratings_by_user(da) -> dict:
    """{(item, user id): category or None} over every cell of a ratings array."""
    assert da.dims == ("item", "annotator"), da.dims
    assert da.name == "rating" and da.dtype == object
    return {(item, USER[who]): (None if pd.isna(value) else value)
            for item, row in zip(da["item"].values.tolist(), da.values.tolist())
            for who, value in zip(da["annotator"].values.tolist(), row)}


def dropped_by_user(da) -> dict:
    return {reason: {USER[who]: n for who, n in per.items()}
            for reason, per in json.loads(da.attrs["dropped"]).items()}


def as_sets(planned: dict) -> dict:
    """The planned ratings as label sets: a category one label; bob's empty result on task 4
    chose no label (a decision of all zeros); no decision stays absent."""
    out = {key: {value} for key, value in planned.items() if value is not None}
    out[(4, 3)] = set()
    return out


def names_are_one_kind(da):
    names = da["annotator"].values.tolist()
    assert len(names) == 3 and len({USER[n] for n in names}) == 3
    assert all(n.isdigit() for n in names) or all("@" in n for n in names), names


# --------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", EXPORTS)
def test_with_the_config_every_export_reads_the_planned_ratings(name):
    da = read_annotations(HERE / name, labels=CONFIG)
    assert ratings_by_user(da) == PLANNED
    assert da.attrs["reader"] == "label-studio"
    assert da.attrs["single_label"] == CONFIG_SAID
    assert json.loads(da.attrs["categories"]) == CATEGORIES
    assert dropped_by_user(da) == (DROPPED_FULL if name in FULL else DROPPED_MIN)
    names_are_one_kind(da)


@pytest.mark.parametrize("name", FULL)
def test_without_the_config_the_json_export_is_label_sets(name):
    # the documented rule: without the config, ratings only when every annotation chose
    # exactly one label; bob's empty result chose none, so the export reads as label sets
    da = read_annotations(HERE / name)
    assert da.dims == ("item", "annotator", "label")
    assert "single_label" not in da.attrs
    assert sorted(da["label"].values.tolist()) == sorted(CATEGORIES)
    assert decisions(da, USER.get) == as_sets(PLANNED)
    expected = {r: per for r, per in DROPPED_FULL.items() if r != "no choice"}
    assert dropped_by_user(da) == expected


@pytest.mark.parametrize("name", MIN)
def test_without_the_config_a_json_min_or_table_export_needs_the_control(name):
    # a single choice is written as text, like the task's own text: nothing says which
    # field is the control
    with pytest.raises(AnnotationFileError, match=r"cannot tell which field holds the labels; "
                       r"name the control: control=NAME .* fields: \['sentiment', 'text'\]"):
        read_annotations(HERE / name)
    da = read_annotations(HERE / name, control="sentiment")
    assert da.dims == ("item", "annotator", "label")  # bob's empty record: not one each
    assert decisions(da, USER.get) == as_sets(PLANNED)
    expected = {r: per for r, per in DROPPED_MIN.items() if r != "no choice"}
    assert dropped_by_user(da) == expected


@pytest.mark.parametrize("name", EXPORTS)
def test_layout_single_without_the_config_reads_the_planned_ratings(name):
    control = {} if name in FULL else {"control": "sentiment"}
    da = read_annotations(HERE / name, layout="single", **control)
    assert ratings_by_user(da) == PLANNED
    assert da.attrs["single_label"] == "layout='single' was given"
    assert "categories" not in da.attrs  # none declared: the used ones are the ratings'
    assert dropped_by_user(da) == (DROPPED_FULL if name in FULL else DROPPED_MIN)


@pytest.mark.parametrize("name", EXPORTS)
def test_layout_sets_gives_the_one_hot_reading(name):
    da = read_annotations(HERE / name, labels=CONFIG, layout="sets")
    assert da.dims == ("item", "annotator", "label")
    assert da["label"].values.tolist() == CATEGORIES
    assert "single_label" not in da.attrs
    assert decisions(da, USER.get) == as_sets(PLANNED)
    # one-hot: every decided cell but bob's empty one holds exactly one 1
    ones = da.sum("label", skipna=False).values
    assert sorted(ones[~np.isnan(ones)].tolist()) == [0.0] + [1.0] * 11


@pytest.mark.parametrize("name", ["one_choice_each_json.json", "one_choice_each_json_min.json",
                                  "one_choice_each_csv.csv"])
def test_one_choice_each_is_inferred_without_the_config(name):
    control = {} if name.endswith("_json.json") else {"control": "sentiment"}
    if control:
        with pytest.raises(AnnotationFileError, match="cannot tell which field holds"):
            read_annotations(HERE / name)
    da = read_annotations(HERE / name, **control)
    assert ratings_by_user(da) == ONE_EACH
    assert da.attrs["single_label"] == INFERRED
    assert "categories" not in da.attrs
    assert json.loads(da.attrs["dropped"]) == {}
    stated = read_annotations(HERE / name, labels=CONFIG)
    assert ratings_by_user(stated) == ONE_EACH
    assert stated.attrs["single_label"] == CONFIG_SAID
    assert json.loads(stated.attrs["categories"]) == CATEGORIES


# --------------------------------------------------------------------------------------
# the report, against computations on the plan written here
# --------------------------------------------------------------------------------------


def plan_rows() -> list[list]:
    """The planned ratings, one list of the three users' categories (None: none) per item."""
    return [[PLANNED[(item, user)] for user in (1, 2, 3)] for item in range(1, 6)]


def gwet_generalized(rows, categories) -> dict:
    """Fleiss' kappa, Conger's kappa, Gwet's AC1, Brennan-Prediger and percent agreement with
    missing ratings, Gwet's (2014) generalized formulas written out: observed agreement over
    the items with two ratings or more, category shares over the items with one or more."""
    q = len(categories)
    counts = np.array([[row.count(c) for c in categories] for row in rows], dtype=float)
    rated = counts.sum(1)
    pairable = rated >= 2
    p_o = np.mean((counts * (counts - 1)).sum(1)[pairable]
                  / (rated * (rated - 1))[pairable])
    shares = (counts[rated >= 1] / rated[rated >= 1, None]).mean(0)
    # Conger: each annotator's own shares over the items they rated
    own = np.array([[sum(row[g] == c for row in rows) / sum(row[g] is not None for row in rows)
                     for c in categories] for g in range(len(rows[0]))])
    chance = {"fleiss": (shares ** 2).sum(),
              "conger": ((own.mean(0) ** 2) - own.var(0, ddof=1) / len(own)).sum(),
              "gwet": (shares * (1 - shares)).sum() / (q - 1),
              "brennan_prediger": 1 / q, "percent": 0.0}
    return {name: (p_o - p_e) / (1 - p_e) for name, p_e in chance.items()}


@pytest.fixture(scope="module")
def expected() -> dict:
    import krippendorff
    rows = plan_rows()
    out = gwet_generalized(rows, CATEGORIES)
    codes = {c: float(i) for i, c in enumerate(CATEGORIES)}
    data = np.array([[np.nan if r is None else codes[r] for r in row] for row in rows]).T
    out["alpha"] = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal",
                                      value_domain=list(codes.values()))
    from sklearn.metrics import cohen_kappa_score

    pairs = {}
    for i, j in itertools.combinations(range(3), 2):
        both = [(row[i], row[j]) for row in rows if row[i] is not None and row[j] is not None]
        pairs[(i + 1, j + 1)] = (cohen_kappa_score([a for a, _ in both], [b for _, b in both]),
                                 len(both))
    out["cohen"] = float(np.mean([k for k, _ in pairs.values()]))
    out["pairs"] = pairs
    return out


def test_the_plan_numbers_by_hand():
    # a check of the check: the plan's percent agreement and Fleiss' kappa worked out on
    # paper; items 1-4 are pairable (1, 1/3, 1, 0), item 5 has one rating
    numbers = gwet_generalized(plan_rows(), CATEGORIES)
    assert numbers["percent"] == pytest.approx(7 / 12)
    shares = np.array([2.5, 2 / 3, 1 / 3 + 1.5]) / 5  # positive, negative, neutral
    assert numbers["fleiss"] == pytest.approx((7 / 12 - (shares ** 2).sum())
                                              / (1 - (shares ** 2).sum()))


@pytest.mark.parametrize("name", EXPORTS)
def test_the_cli_prints_the_single_label_report_of_the_plan(name, capsys):
    assert main(["report", str(HERE / name), "--labels", str(CONFIG)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Single-label agreement report: {name}\n")
    text = " ".join(out.split())
    assert f"Why these are single-label ratings: {CONFIG_SAID}." in text
    assert "5 items, 3 annotators, 3 categories (3 used), 11 ratings." in text
    # what was left out, each reason once (the names: ids or emails, as the export has them)
    left_out = text.split("Ratings left out, per reason: ")[1].split(". A left-out")[0]
    reasons = [part.split(" 1 (")[0] for part in left_out.split("; ")]
    assert reasons == sorted(DROPPED_FULL if name in FULL else DROPPED_MIN)


def test_the_cli_without_the_config(capsys):
    # one choice in every annotation: the single-label report, saying it was inferred
    assert main(["report", str(HERE / "one_choice_each_json.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Single-label agreement report: one_choice_each_json.json\n")
    assert f"Why these are single-label ratings: {INFERRED}." in " ".join(out.split())
    # a single-choice CSV export names no control: one line saying what to pass
    assert main(["report", str(HERE / "csv_all_tasks.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot tell which field holds the labels" in err
    assert "--control NAME" in err and "--labels config.xml" in err
    assert main(["report", str(HERE / "csv_all_tasks.csv"), "--control", "sentiment",
                 "--layout", "single"]) == 0
    assert capsys.readouterr().out.startswith("Single-label agreement report: csv_all_tasks")


@pytest.mark.parametrize("name", EXPORTS)
def test_the_cli_json_report_equals_the_computation_on_the_plan(name, expected, capsys):
    assert main(["report", str(HERE / name), "--labels", str(CONFIG), "--format",
                 "json"]) == 0
    out = capsys.readouterr().out
    summary = json.loads(out)["summary"]
    assert (summary["n_items"], summary["n_annotators"], summary["n_ratings"],
            summary["n_missing"], summary["n_categories"]) == (5, 3, 11, 4, 3)
    for coefficient in ("fleiss", "conger", "gwet", "brennan_prediger", "percent", "alpha",
                        "cohen"):
        assert summary["coefficient"][coefficient] == pytest.approx(
            expected[coefficient], abs=1e-12), coefficient
    report = SingleLabelReport.from_json(out)
    pairs = report.results["cohen"]
    names = {USER[n]: n for n in pairs["annotator_1"].values.tolist()}
    for (i, j), (kappa, n) in expected["pairs"].items():
        for first, second in ((i, j), (j, i)):  # a symmetric table of the pairs
            where = {"annotator_1": names[first], "annotator_2": names[second]}
            assert float(pairs.pair_coefficient.sel(where)) == pytest.approx(kappa,
                                                                              abs=1e-12)
            assert int(pairs.pair_n_pairable_items.sel(where)) == n


def test_fleiss_on_the_complete_items_equals_statsmodels():
    from statsmodels.stats.inter_rater import fleiss_kappa

    da = read_annotations(HERE / "json_all_tasks.json", labels=CONFIG)
    complete = [1, 2]  # the items every user rated
    counts = np.array([[row.count(c) for c in CATEGORIES] for row in plan_rows()[:2]])
    report = single_label_report(da.sel(item=complete))
    assert report.summary()["coefficient"]["fleiss"] == pytest.approx(
        fleiss_kappa(counts, method="fleiss"), abs=1e-12)
