"""Tests of xr_agreement.versus (one judge against a human reference).

Oracles: scikit-learn's metrics on vectors built here by loops from the definitions
(majority of the humans present, abstentions dropped or scored), numpy / scipy correlations,
and hand-built tables whose numbers are derived in the tests.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    matthews_corrcoef,
    precision_recall_fscore_support,
)

import xr_agreement
from resampling import resampled

MEASURES = [
    "accuracy",
    "precision",
    "recall",
    "f1",
    "specificity",
    "kappa",
    "phi",
    "judge_positive_rate",
    "reference_positive_rate",
    "kappa_phi_gap",
    "positive_rate_drift",
]


def make_decisions(values, annotators=None, labels=None):
    values = np.asarray(values, dtype=float)
    n_items, n_annotators, n_labels = values.shape
    return xr.DataArray(
        values,
        dims=("item", "annotator", "label"),
        coords={
            "item": np.arange(n_items) + 100,
            "annotator": annotators or ["judge"] + [f"h{c}" for c in range(1, n_annotators)],
            "label": labels or [f"L{j}" for j in range(n_labels)],
        },
    )


def random_decisions(seed, n_items=60, n_humans=3, n_labels=4, abstain=0.1, missing=0.1):
    """Judge in slot 0 with NaN abstentions, humans with NaN missing decisions."""
    rng = np.random.default_rng(seed)
    truth = rng.random((n_items, 1, n_labels)) < rng.uniform(0.2, 0.7, n_labels)
    flips = rng.random((n_items, 1 + n_humans, n_labels)) < 0.2
    values = (truth ^ flips).astype(float)
    values[:, 0][rng.random((n_items, n_labels)) < abstain] = np.nan
    values[:, 1:][rng.random((n_items, n_humans, n_labels)) < missing] = np.nan
    return values


def majority_by_loops(humans, tie):
    """Reference per (item, label) from the definition: majority of the humans present.

    Returns (reference with NaN where undefined, tie mask)."""
    n_items, _, n_labels = humans.shape
    reference = np.full((n_items, n_labels), np.nan)
    ties = np.zeros((n_items, n_labels), bool)
    for i in range(n_items):
        for j in range(n_labels):
            present = [v for v in humans[i, :, j] if not np.isnan(v)]
            ones, zeros = present.count(1.0), present.count(0.0)
            if not present:
                continue
            if ones > zeros:
                reference[i, j] = 1
            elif zeros > ones:
                reference[i, j] = 0
            else:
                ties[i, j] = True
                reference[i, j] = {"exclude": np.nan, "positive": 1, "negative": 0}[tie]
    return reference, ties


def sklearn_label_values(y_ref, y_judge):
    """Every per-label measure from scikit-learn (and numpy for the rates)."""
    y_ref, y_judge = np.asarray(y_ref, int), np.asarray(y_judge, int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        p, r, f, _ = precision_recall_fscore_support(
            y_ref, y_judge, average="binary", zero_division=np.nan
        )
        _, specificity, _, _ = precision_recall_fscore_support(
            y_ref, y_judge, average="binary", pos_label=0, zero_division=np.nan
        )
    return {
        "accuracy": accuracy_score(y_ref, y_judge),
        "precision": p,
        "recall": r,
        "f1": f,
        "specificity": specificity,
        "kappa": cohen_kappa_score(y_ref, y_judge),
        "phi": matthews_corrcoef(y_ref, y_judge),
        "judge_positive_rate": y_judge.mean(),
        "reference_positive_rate": y_ref.mean(),
    }


# --- per label against scikit-learn, "exclude" mode ---------------------------------------


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), tie=st.sampled_from(["exclude", "positive", "negative"]))
def test_label_measures_equal_sklearn_majority(seed, tie):
    values = random_decisions(seed, n_humans=int(seed % 3) + 2)
    da = make_decisions(values)
    result = xr_agreement.versus(da, "judge", abstain="exclude", tie=tie)
    reference, ties = majority_by_loops(values[:, 1:], tie)
    np.testing.assert_array_equal(result.label_ties.values, ties.sum(0))
    for j, name in enumerate(da.label.values):
        keep = ~np.isnan(values[:, 0, j]) & ~np.isnan(reference[:, j])
        expected = sklearn_label_values(reference[keep, j], values[keep, 0, j])
        for measure, value in expected.items():
            got = result[f"label_{measure}"].sel(label=name).item()
            np.testing.assert_allclose(got, value, rtol=0, atol=1e-12, err_msg=measure)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_label_measures_equal_sklearn_single_and_each(seed):
    values = random_decisions(seed, n_humans=3)
    da = make_decisions(values)
    each = xr_agreement.versus(da, "judge", reference="each")
    chosen = ["h1", "h2", "h3"][seed % 3]
    single = da.agreement.versus("judge", reference=chosen)
    xr.testing.assert_identical(
        single.label_kappa, each.label_kappa.sel(reference=chosen, drop=True)
    )
    for c, human in enumerate(["h1", "h2", "h3"], start=1):
        for j, name in enumerate(da.label.values):
            keep = ~np.isnan(values[:, 0, j]) & ~np.isnan(values[:, c, j])
            expected = sklearn_label_values(values[keep, c, j], values[keep, 0, j])
            for measure, value in expected.items():
                got = each[f"label_{measure}"].sel(label=name, reference=human).item()
                np.testing.assert_allclose(got, value, rtol=0, atol=1e-12, err_msg=measure)


def test_named_references_are_their_majority():
    values = random_decisions(7, n_humans=4)
    da = make_decisions(values)
    result = da.agreement.versus("judge", reference=["h1", "h3", "h4"])
    reference, _ = majority_by_loops(values[:, [1, 3, 4]], "exclude")
    assert json.loads(result.attrs["reference_annotators"]) == ["h1", "h3", "h4"]
    assert result.attrs["reference_rule"] == "majority of ['h1', 'h3', 'h4']"
    for j in range(values.shape[2]):
        keep = ~np.isnan(values[:, 0, j]) & ~np.isnan(reference[:, j])
        assert result.label_kappa.isel(label=j).item() == pytest.approx(
            cohen_kappa_score(reference[keep, j], values[keep, 0, j]), abs=1e-12
        )


# --- aggregation against scikit-learn's average= on the multilabel indicator form --------


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_averages_equal_sklearn_multilabel(seed):
    # complete data, odd number of humans: every cell has a reference and a judge decision
    values = random_decisions(seed, n_items=25, n_humans=3, n_labels=5, abstain=0, missing=0)
    rng = np.random.default_rng(seed)
    values[:, 0, rng.integers(5)] = 0  # a label the judge never uses: precision 0/0
    da = make_decisions(values)
    result = xr_agreement.versus(da, "judge")
    y_ref = majority_by_loops(values[:, 1:], "exclude")[0].astype(int)
    y_judge = values[:, 0].astype(int)
    sklearn_average = {
        "micro": "micro",
        "macro": "macro",
        "weighted_macro": "weighted",
        "exemplar": "samples",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for ours, theirs in sklearn_average.items():
            p, r, f, _ = precision_recall_fscore_support(
                y_ref, y_judge, average=theirs, zero_division=np.nan
            )
            for measure, value in (("precision", p), ("recall", r), ("f1", f)):
                got = result[measure].sel(average=ours).item()
                np.testing.assert_allclose(got, value, rtol=0, atol=1e-12, err_msg=ours)
    flat_ref, flat_judge = y_ref.ravel(), y_judge.ravel()
    micro = result.sel(average="micro")
    assert micro.accuracy.item() == pytest.approx(accuracy_score(flat_ref, flat_judge), abs=1e-12)
    assert micro.kappa.item() == pytest.approx(cohen_kappa_score(flat_ref, flat_judge), abs=1e-12)
    assert micro.phi.item() == pytest.approx(matthews_corrcoef(flat_ref, flat_judge), abs=1e-12)
    # exemplar accuracy on complete data: mean per-item label accuracy = 1 - Hamming loss
    exemplar_accuracy = np.mean([(y_ref[i] == y_judge[i]).mean() for i in range(len(y_ref))])
    assert result.accuracy.sel(average="exemplar").item() == pytest.approx(exemplar_accuracy)


def test_averages_by_loops_with_abstentions_and_missing():
    values = random_decisions(11, n_items=40, n_humans=2, n_labels=4, abstain=0.2, missing=0.15)
    da = make_decisions(values)
    result = xr_agreement.versus(da, "judge", abstain="exclude", tie="positive")
    reference, _ = majority_by_loops(values[:, 1:], "positive")
    judge = values[:, 0]
    compared = ~np.isnan(judge) & ~np.isnan(reference)

    def kappa_of(ref, jud):
        # from the definition: p_o and p_e from the two margins; 0/0 is NaN
        if ref.size == 0:
            return np.nan
        p_o = np.mean(ref == jud)
        p_e = np.mean(ref) * np.mean(jud) + np.mean(1 - ref) * np.mean(1 - jud)
        return np.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)

    columns = [compared[:, j] for j in range(4)]
    label_kappa = np.array([kappa_of(reference[c, j], judge[c, j]) for j, c in enumerate(columns)])
    support = np.array([(reference[c, j] == 1).sum() for j, c in enumerate(columns)])
    item_kappa = np.array(
        [kappa_of(reference[i, compared[i]], judge[i, compared[i]]) for i in range(40)]
    )
    defined = ~np.isnan(label_kappa)
    expected = {
        "micro": cohen_kappa_score(reference[compared], judge[compared]),
        "macro": np.mean(label_kappa[defined]),
        "weighted_macro": np.sum(label_kappa[defined] * support[defined]) / support[defined].sum(),
        "exemplar": np.nanmean(item_kappa),
    }
    for average, value in expected.items():
        assert result.kappa.sel(average=average).item() == pytest.approx(value, abs=1e-12)
    np.testing.assert_allclose(result.label_kappa.values, label_kappa, atol=1e-12)
    assert result.coverage.item() == pytest.approx(compared.sum() / (~np.isnan(reference)).sum())


# --- the binary identities ------------------------------------------------------------------


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_phi_is_mcc_is_pearson_spearman_kendall(seed):
    values = random_decisions(seed, n_items=30, n_humans=1, n_labels=8, abstain=0, missing=0)
    da = make_decisions(values)
    result = xr_agreement.versus(da, "judge", reference="h1")
    for j in range(8):
        judge, human = values[:, 0, j], values[:, 1, j]
        if judge.std() == 0 or human.std() == 0:
            assert np.isnan(result.label_phi.isel(label=j).item())
            continue
        phi = result.label_phi.isel(label=j).item()
        assert phi == pytest.approx(matthews_corrcoef(human, judge), abs=1e-12)
        assert phi == pytest.approx(np.corrcoef(human, judge)[0, 1], abs=1e-12)
        assert phi == pytest.approx(stats.spearmanr(human, judge).statistic, abs=1e-12)
        assert phi == pytest.approx(stats.kendalltau(human, judge).statistic, abs=1e-12)


def tables_as_labels(tables):
    """One label per (tp, fp, fn, tn) table: judge in slot 0, the reference human in slot 1,
    padded with cells that have no reference (not compared)."""
    size = max(sum(t) for t in tables)
    values = np.full((size, 2, len(tables)), np.nan)
    for j, (tp, fp, fn, tn) in enumerate(tables):
        judge = [1] * tp + [1] * fp + [0] * fn + [0] * tn
        reference = [1] * tp + [0] * fp + [1] * fn + [0] * tn
        values[: len(judge), 0, j] = judge
        values[: len(judge), 1, j] = reference
    return xr_agreement.versus(make_decisions(values), "judge", reference="h1")


def test_kappa_equals_phi_exactly_when_positive_rates_agree():
    grid = [
        (tp, e, tn, x) for tp in (1, 2, 7) for e in (0, 1, 3, 8) for tn in (1, 4, 9) for x in (1, 5)
    ]
    equal = tables_as_labels([(tp, e, e, tn) for tp, e, tn, _ in grid])  # fp = fn
    assert (equal.label_no_reference > 0).any()  # the padding really is left out
    assert (equal.label_positive_rate_drift == 0).all()
    np.testing.assert_allclose(equal.label_kappa, equal.label_phi, rtol=0, atol=1e-15)
    assert (abs(equal.label_kappa_phi_gap) <= 1e-15).all()
    drifted = tables_as_labels([(tp, e + x, e, tn) for tp, e, tn, x in grid])  # judge says 1 more
    assert (drifted.label_positive_rate_drift > 0).all()
    kappa, phi = drifted.label_kappa.values, drifted.label_phi.values
    unrelated = np.array([tp * tn == (e + x) * e for tp, e, tn, x in grid])  # TP TN = FP FN
    assert (abs(kappa[~unrelated]) < abs(phi[~unrelated])).all()
    assert (kappa[unrelated] == 0).all() and (phi[unrelated] == 0).all()
    np.testing.assert_allclose(drifted.label_kappa_phi_gap, phi - kappa, rtol=0, atol=1e-15)


# --- abstention modes on a hand-built table -------------------------------------------------


def hand_built(marker=np.nan):
    """One label, ten cells: TP 3, FP 1, FN 2, TN 2, abstentions 1 on a reference 1 and 1 on a
    reference 0; reference from one human."""
    judge = [1, 1, 1, 1, 0, 0, 0, 0, marker, marker]
    reference = [1, 1, 1, 0, 1, 1, 0, 0, 1, 0]
    values = np.stack([judge, reference], axis=1)[:, :, None]
    return make_decisions(values)


# derived by hand from the table of each mode (n, margins; kappa = (p_o - p_e) / (1 - p_e),
# phi = (n c - sum p_k t_k) / sqrt((n^2 - sum p_k^2)(n^2 - sum t_k^2)))
HAND_BUILT_EXPECTED = {
    # n = 8: TP 3 FP 1 FN 2 TN 2; judge 4 / 4, reference 5 / 3; p_o 5/8, p_e (20 + 12)/64 = 1/2
    "exclude": {
        "accuracy": 5 / 8,
        "precision": 3 / 4,
        "recall": 3 / 5,
        "f1": 6 / 9,
        "specificity": 2 / 3,
        "kappa": (5 / 8 - 1 / 2) / (1 / 2),
        "phi": (3 * 2 - 1 * 2) / np.sqrt(4 * 4 * 5 * 3),
        "judge_positive_rate": 4 / 8,
        "reference_positive_rate": 5 / 8,
    },
    # abstentions are errors: TP 3 FP 2 FN 3 TN 2, n = 10; judge 5 / 5, reference 6 / 4;
    # p_o 1/2, p_e (30 + 20)/100 = 1/2: kappa 0, phi (6 - 6) / ... = 0
    "disagree": {
        "accuracy": 5 / 10,
        "precision": 3 / 5,
        "recall": 3 / 6,
        "f1": 6 / 11,
        "specificity": 2 / 4,
        "kappa": 0.0,
        "phi": 0.0,
        "judge_positive_rate": 5 / 10,
        "reference_positive_rate": 6 / 10,
    },
    # 3 x 2 table, n = 10; judge 4 / 4 / 2 (abstained), reference 6 / 4; p_o 1/2,
    # p_e (24 + 16)/100 = 2/5; phi = (50 - 40) / sqrt((100 - 36) (100 - 52))
    "category": {
        "accuracy": 5 / 10,
        "precision": 3 / 4,
        "recall": 3 / 6,
        "f1": 6 / 10,
        "specificity": 2 / 4,
        "kappa": (1 / 2 - 2 / 5) / (1 - 2 / 5),
        "phi": 10 / np.sqrt(64 * 48),
        "judge_positive_rate": 4 / 10,
        "reference_positive_rate": 6 / 10,
    },
}


@pytest.mark.parametrize("mode", ["exclude", "disagree", "category"])
def test_abstention_mode_hand_built(mode):
    result = xr_agreement.versus(hand_built(), "judge", reference="h1", abstain=mode)
    counts = [
        result[name].item()
        for name in (
            "label_true_positives",
            "label_false_positives",
            "label_false_negatives",
            "label_true_negatives",
            "label_abstentions_on_positive",
            "label_abstentions_on_negative",
        )
    ]
    assert counts == [3, 1, 2, 2, 1, 1]
    assert result.label_coverage.item() == pytest.approx(8 / 10)
    assert result.coverage.item() == pytest.approx(8 / 10)
    for measure, value in HAND_BUILT_EXPECTED[mode].items():
        assert result[f"label_{measure}"].item() == pytest.approx(value, abs=1e-12), measure
        # one label, one table: micro and macro are the label value
        assert result[measure].sel(average="micro").item() == pytest.approx(value, abs=1e-12)
    assert result.attrs["abstain"] == mode


def test_category_mode_equals_sklearn_three_categories():
    values = random_decisions(3, n_items=80, n_humans=1, n_labels=3, abstain=0.25, missing=0)
    result = xr_agreement.versus(
        make_decisions(values), "judge", reference="h1", abstain="category"
    )
    for j in range(3):
        judge = np.where(np.isnan(values[:, 0, j]), 2, values[:, 0, j])  # 2 = abstained
        human = values[:, 1, j]
        assert result.label_kappa.isel(label=j).item() == pytest.approx(
            cohen_kappa_score(human, judge), abs=1e-12
        )
        assert result.label_phi.isel(label=j).item() == pytest.approx(
            matthews_corrcoef(human, judge), abs=1e-12
        )
        p, r, _, _ = precision_recall_fscore_support(
            human, judge, labels=[1], average=None, zero_division=np.nan
        )
        assert result.label_precision.isel(label=j).item() == pytest.approx(p[0], abs=1e-12)
        assert result.label_recall.isel(label=j).item() == pytest.approx(r[0], abs=1e-12)


def test_abstain_all_stacks_the_three_modes():
    da = make_decisions(random_decisions(5, n_items=30))
    every = xr_agreement.versus(da, "judge", abstain="all")
    assert list(every.abstain.values) == ["exclude", "disagree", "category"]
    assert "abstain" not in every.label_true_positives.dims
    assert "abstain" not in every.coverage.dims
    for mode in ("exclude", "disagree", "category"):
        single = xr_agreement.versus(da, "judge", abstain=mode)
        for measure in MEASURES:
            xr.testing.assert_allclose(every[measure].sel(abstain=mode, drop=True), single[measure])
            xr.testing.assert_allclose(
                every[f"label_{measure}"].sel(abstain=mode, drop=True), single[f"label_{measure}"]
            )


def test_abstention_code_and_missing_judge_decisions():
    with_nan = hand_built(np.nan)
    with_code = hand_built(-1.0)
    # an extra cell where the judge was not asked (NaN) while abstentions are coded -1
    extra = xr.concat(
        [with_code, make_decisions([[[np.nan], [1.0]]]).assign_coords(item=[999])], dim="item"
    )
    for mode in ("exclude", "disagree", "category"):
        reference = xr_agreement.versus(with_nan, "judge", reference="h1", abstain=mode)
        coded = xr_agreement.versus(extra, "judge", reference="h1", abstain=mode, abstain_value=-1)
        assert coded.label_judge_missing.item() == 1
        assert reference.label_judge_missing.item() == 0
        for measure in MEASURES:
            xr.testing.assert_allclose(coded[f"label_{measure}"], reference[f"label_{measure}"])
        assert coded.coverage.item() == pytest.approx(0.8)


# --- ties and missing human decisions --------------------------------------------------------


def test_ties_and_missing_humans_hand_built():
    nan = np.nan
    # one label; judge 1 everywhere; humans -> present decisions -> majority
    humans = [
        [1, 0, nan],  # 1 vs 0: tie
        [1, 1, 0],  # 1
        [1, nan, nan],  # 1 (one human present)
        [0, nan, 0],  # 0
        [nan, nan, nan],  # no reference
        [0, 1, nan],  # tie
    ]
    values = np.array([[[1.0]] + [[h] for h in row] for row in humans])
    da = make_decisions(values)
    expected_tp_fp = {"exclude": (2, 1), "positive": (4, 1), "negative": (2, 3)}
    for tie, (tp, fp) in expected_tp_fp.items():
        result = xr_agreement.versus(da, "judge", tie=tie)
        assert result.label_ties.item() == 2
        assert result.label_no_reference.item() == 1
        assert (result.label_true_positives.item(),
                result.label_false_positives.item()) == (tp, fp)
        assert result.label_precision.item() == pytest.approx(tp / (tp + fp))
        assert result.attrs["tie"] == tie


# --- 0/0, human agreement, extra dims, dask, errors, attrs -----------------------------------


def test_zero_division_is_nan():
    # label 0: judge never says 1 (precision 0/0); label 1: both always 0 (kappa, phi 0/0)
    judge = [[0, 0], [0, 0], [0, 0], [0, 0]]
    human = [[1, 0], [0, 0], [1, 0], [0, 0]]
    result = xr_agreement.versus(
        make_decisions(np.stack([judge, human], 1)), "judge", reference="h1"
    )
    assert np.isnan(result.label_precision.isel(label=0).item())
    assert result.label_recall.isel(label=0).item() == 0
    assert result.label_f1.isel(label=0).item() == 0
    assert np.isnan(result.label_recall.isel(label=1).item())
    assert np.isnan(result.label_kappa.isel(label=1).item())
    assert np.isnan(result.label_phi.isel(label=1).item())
    assert np.isnan(result.label_phi.isel(label=0).item())  # the judge uses one category
    assert result.label_accuracy.isel(label=1).item() == 1
    assert np.isnan(result.precision.sel(average="macro").item())  # nothing defined is left


def test_human_agreement_is_mla_of_the_humans():
    da = make_decisions(random_decisions(9, n_humans=3))
    result = da.agreement.versus("judge")
    humans = da.sel(annotator=["h1", "h2", "h3"])
    # mla's values without the reasons they carry: versus gives the values alone
    expected = xr_agreement.mla(humans, baseline=["F", "AC1"]).drop_vars(
        ["undefined_reason", "label_undefined_reason"])
    xr.testing.assert_allclose(result.human_agreement, expected.agreement)
    xr.testing.assert_allclose(result.label_human_agreement, expected.label_agreement)
    one_human = xr_agreement.versus(da.sel(annotator=["judge", "h1"]), "judge")
    assert one_human.human_agreement.isnull().all()


def test_extra_dims_are_carried_through():
    rounds = [make_decisions(random_decisions(s, n_items=20)) for s in (1, 2)]
    stacked = xr.concat(rounds, dim="round").assign_coords(round=["a", "b"])
    result = stacked.agreement.versus("judge", abstain="all")
    assert "round" in result.label_kappa.dims and "round" in result.human_agreement.dims
    for name, single in zip(["a", "b"], rounds):
        alone = xr_agreement.versus(single, "judge", abstain="all")
        for var in ("label_kappa", "f1", "label_ties", "coverage", "human_agreement"):
            xr.testing.assert_allclose(result[var].sel(round=name, drop=True), alone[var])


def test_dask_equals_numpy_and_is_lazy():
    import dask

    da = make_decisions(random_decisions(4, n_items=50))
    chunked = da.chunk({"item": 15})
    with dask.config.set(scheduler=_refuse_compute):
        lazy = xr_agreement.versus(chunked, "judge", abstain="all")
    expected = xr_agreement.versus(da, "judge", abstain="all")
    xr.testing.assert_allclose(lazy.compute(), expected)
    bad = da.copy()
    bad[3, 1, 2] = 2
    with pytest.raises(ValueError, match="human decisions must be 0, 1 or NaN"):
        xr_agreement.versus(bad.chunk({"item": 15}), "judge").compute()


def _refuse_compute(*args, **kwargs):
    raise AssertionError("the graph was computed while it was being built")


def test_inputs_not_modified_and_attrs_complete():
    da = make_decisions(random_decisions(2))
    before = da.copy(deep=True)
    result = xr_agreement.versus(da, "judge", reference="each", abstain="all")
    xr.testing.assert_identical(da, before)
    for name, variable in result.data_vars.items():
        assert {"long_name", "description", "symbol"} <= set(variable.attrs), name
    assert list(result.average.values) == ["micro", "macro", "weighted_macro", "exemplar"]
    assert list(result.reference.values) == ["h1", "h2", "h3"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"judge": "gpt"}, "annotator 'gpt' not found in dim 'annotator'"),
        ({"judge": "judge", "reference": ["judge", "h1"]}, "cannot be its own reference"),
        ({"judge": "judge", "reference": "h9"}, "annotator 'h9' not found"),
        ({"judge": "judge", "abstain": "ignore"}, "abstain must be one of"),
        ({"judge": "judge", "tie": "coin"}, "tie must be one of"),
        ({"judge": "judge", "abstain_value": 1}, "must differ from the decisions 0 and 1"),
        ({"judge": "judge", "label": "criterion"}, "label dim 'criterion' not found"),
        ({"judge": "judge", "item": "average"}, "dim 'average' is used by the result"),
    ],
)
def test_errors(kwargs, message):
    da = make_decisions(random_decisions(1, n_items=10))
    if kwargs.get("item") == "average":
        da = da.rename(item="average")
    with pytest.raises(ValueError, match=message):
        xr_agreement.versus(da, **kwargs)


def test_invalid_values_are_named():
    values = random_decisions(1, n_items=10)
    values[4, 2, 1] = 2
    with pytest.raises(ValueError, match=r"human decisions .* found 2.*item=104, annotator='h2'"):
        xr_agreement.versus(make_decisions(values), "judge")
    values = random_decisions(1, n_items=10)
    values[6, 0, 3] = -1  # a code, but the marker is NaN
    with pytest.raises(ValueError, match=r"judge decisions .* found -1.*item=106, label='L3'"):
        xr_agreement.versus(make_decisions(values), "judge")
    values = random_decisions(1, n_items=10)
    values[6, 1, 3] = -1  # the abstention code in a human's slot
    with pytest.raises(ValueError, match="humans cannot abstain"):
        xr_agreement.versus(make_decisions(values), "judge", abstain_value=-1)
    with pytest.raises(TypeError, match="dtype"):
        xr_agreement.versus(make_decisions(values).astype(str), "judge")


# --- bootstrap intervals (items resampled) -------------------------------------------------


@pytest.mark.parametrize("reference, abstain", [("majority", "all"), ("each", "disagree")])
def test_replicates_are_versus_on_resampled_items(reference, abstain):
    da = make_decisions(random_decisions(11, n_items=25))
    seed, n_resamples = 5, 4
    result = xr_agreement.versus(
        da, "judge", reference=reference, abstain=abstain, ci=0.9, n_resamples=n_resamples,
        seed=np.random.default_rng(seed), return_replicates=True,
    )
    # the resamples scipy.stats.bootstrap would draw with this seed, applied by hand
    indices = np.random.default_rng(seed).integers(0, da.sizes["item"], (n_resamples, 25))
    names = [n[: -len("_replicates")] for n in result.data_vars if n.endswith("_replicates")]
    assert {"label_kappa", "f1", "coverage", "human_agreement"} <= set(names)
    for r, rows in enumerate(indices):
        expected = xr_agreement.versus(resampled(da, {"item": rows}), "judge",
                                       reference=reference, abstain=abstain)
        for name in names:
            np.testing.assert_allclose(
                result[name + "_replicates"].isel(resample=r).transpose(*expected[name].dims),
                expected[name], rtol=1e-12, atol=1e-12, err_msg=name,
            )


def test_intervals_same_seed_same_bounds_and_contain_estimate():
    da = make_decisions(random_decisions(12, n_items=40))
    first = xr_agreement.versus(da, "judge", ci=0.9, n_resamples=200, seed=3, ci_method="bca")
    again = da.agreement.versus("judge", ci=0.9, n_resamples=200, seed=3, ci_method="bca")
    other = xr_agreement.versus(da, "judge", ci=0.9, n_resamples=200, seed=4, ci_method="bca")
    xr.testing.assert_identical(first, again)
    assert not np.allclose(first.kappa_lower, other.kappa_lower)
    for name in ("kappa", "label_f1", "coverage", "human_agreement"):
        lower, value, upper = first[name + "_lower"], first[name], first[name + "_upper"]
        assert bool(((lower <= value) & (value <= upper)).all()), name
    assert "label_true_positives_lower" not in first  # counts get no interval
    assert first.attrs["ci_method"] == "bca" and first.attrs["ci_resampling_unit"] == "item"
    with pytest.raises(ValueError, match="resamples items only"):
        xr_agreement.versus(da, "judge", ci=0.9, resample="annotator")
    with pytest.raises(ValueError, match=r"ci must be a number in \(0, 1\)"):
        xr_agreement.versus(da, "judge", ci=95)


def test_intervals_with_one_human_leave_human_agreement_out():
    da = make_decisions(random_decisions(13, n_items=30, n_humans=1))
    result = xr_agreement.versus(da, "judge", ci=0.8, n_resamples=50, seed=0)
    assert "kappa_lower" in result and "human_agreement_lower" not in result


# --- the judge-validation report ------------------------------------------------------------


def markdown_table(markdown, first_header):
    """Rows (lists of cells) of the markdown table whose first header cell is given."""
    lines = markdown.splitlines()
    for start, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            rows = []
            for row in lines[start + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            return cells, rows
    raise AssertionError(f"no table starting with {first_header!r}")


def number(cell):
    return float("nan") if cell == "NaN" else float(cell)


def test_judge_report_content_equals_sklearn_and_loops():
    sys_path_oracle()
    from oracle import oracle_mla_missing

    values = random_decisions(21, n_items=50, n_humans=4)
    da = make_decisions(values)
    rep = da.agreement.judge_report("judge", digits=9)
    markdown = rep.to_markdown()
    reference, ties = majority_by_loops(values[:, 1:], "exclude")
    judge = values[:, 0]
    compared = ~np.isnan(reference)
    abstained = compared & np.isnan(judge)
    decided = compared & ~np.isnan(judge)

    # confusion matrix pooled, from the definition
    header, rows = markdown_table(markdown, "")
    assert header == ["", "reference 1", "reference 0"]
    expected = [[(judge == a) & (reference == b) & decided for b in (1, 0)] for a in (1, 0)]
    expected.append([abstained & (reference == b) for b in (1, 0)])
    assert [[int(c) for c in row[1:]] for row in rows] == [
        [int(m.sum()) for m in row] for row in expected
    ]
    assert f"{int(ties.sum())} tied (item, label) cells" in markdown
    assert f"({int(decided.sum())} of {int(compared.sum())} compared cells decided)" in markdown

    # per label, "exclude": scikit-learn on the decided cells, and the human ceiling
    humans = oracle_mla_missing(values[:, 1:], "F"), oracle_mla_missing(values[:, 1:], "AC1")
    header, rows = markdown_table(markdown.split("## 5.")[1], "label")
    assert header[:8] == ["label", "Acc", "P", "R", "F1", "Spec", "kappa", "phi (MCC)"]
    for j, row in enumerate(rows):
        keep = decided[:, j]
        oracle = sklearn_label_values(reference[keep, j], judge[keep, j])
        shown = dict(zip(header[1:], map(number, row[1:])))
        for name, caption in [("accuracy", "Acc"), ("precision", "P"), ("recall", "R"),
                              ("f1", "F1"), ("specificity", "Spec"), ("kappa", "kappa"),
                              ("phi", "phi (MCC)")]:
            np.testing.assert_allclose(shown[caption], oracle[name], atol=1e-8, err_msg=name)
        np.testing.assert_allclose(
            shown["p_J - p_R"],
            oracle["judge_positive_rate"] - oracle["reference_positive_rate"], atol=1e-8)
        np.testing.assert_allclose(shown["human A_j (F)"], humans[0]["label_agreement"][j],
                                   atol=1e-8)
        np.testing.assert_allclose(shown["human A_j (AC1)"],
                                   humans[1]["label_agreement"][j], atol=1e-8)
    _, rows = markdown_table(markdown, "baseline")
    np.testing.assert_allclose([number(r[1]) for r in rows],
                               [humans[0]["agreement"], humans[1]["agreement"]], atol=1e-8)

    # micro: scikit-learn on the pooled decided cells; the three modes side by side
    pooled_ref, pooled_judge = reference[decided], judge[decided]
    pooled = sklearn_label_values(pooled_ref, pooled_judge)
    _, rows = markdown_table(markdown, "measure")
    micro = {row[0]: number(row[1]) for row in rows}
    for name, caption in [("precision", "P"), ("recall", "R"), ("f1", "F1"),
                          ("kappa", "kappa"), ("phi", "phi (MCC)")]:
        np.testing.assert_allclose(micro[caption], pooled[name], atol=1e-8, err_msg=name)
    _, rows = markdown_table(markdown, "abstain")
    modes = {row[0].split()[0]: [number(c) for c in row[1:]] for row in rows}
    assert list(modes) == ["exclude", "disagree", "category"]
    all_ref = reference[compared].astype(int)
    three = np.where(np.isnan(judge[compared]), 2, judge[compared]).astype(int)
    # disagree: an abstention becomes the wrong answer
    flipped = np.where(three == 2, 1 - all_ref, three)
    for mode, judged in (("disagree", flipped), ("category", three)):
        accuracy, _, _, _, kappa, phi = modes[mode]
        np.testing.assert_allclose(accuracy, accuracy_score(all_ref, judged), atol=1e-8)
        np.testing.assert_allclose(kappa, cohen_kappa_score(all_ref, judged), atol=1e-8)
        np.testing.assert_allclose(phi, matthews_corrcoef(all_ref, judged), atol=1e-8)
    assert "No confidence intervals were computed" in markdown


def sys_path_oracle():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.insert(0, here)


def test_judge_report_json_round_trip_and_renderings():
    da = make_decisions(random_decisions(22, n_items=30))
    rep = xr_agreement.judge_report(da, "judge", abstain="disagree", ci=0.9, n_resamples=50,
                                    seed=2, title="LLM judge on criteria")
    text = rep.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    restored = xr_agreement.JudgeReport.from_json(text)
    xr.testing.assert_allclose(restored.result, rep.result)
    for name in rep.result.variables:
        assert restored.result[name].attrs == rep.result[name].attrs, name
    assert str(restored) == str(rep)
    assert restored.to_markdown() == rep.to_markdown()
    html = rep.to_html()
    assert html.startswith("<!DOCTYPE html>") and "<title>LLM judge on criteria</title>" in html
    assert "LLM judge on criteria" in rep._repr_html_()
    # the intervals shown are the result's
    micro = rep.result.sel(abstain="disagree", average="micro")
    shown = f"kappa = {micro.kappa.item():.3f} [{micro.kappa_lower.item():.3f}, "
    assert shown in rep.to_markdown() and "abstentions 'disagree'" in rep.to_markdown()
    assert "percentile bootstrap, 50 item resamples, seed=2" in rep.to_markdown()
    with pytest.raises(ValueError, match="not an xr-agreement judge report"):
        xr_agreement.JudgeReport.from_json('{"format": "xr-agreement-report/2"}')


def test_judge_report_errors():
    da = make_decisions(random_decisions(23, n_items=10))
    with pytest.raises(ValueError, match="reference='each' is not supported"):
        xr_agreement.judge_report(da, "judge", reference="each")
    with pytest.raises(ValueError, match="abstain must be one of"):
        xr_agreement.judge_report(da, "judge", abstain="all")
    with pytest.raises(ValueError, match="only apply with ci"):
        xr_agreement.judge_report(da, "judge", n_resamples=10)
    with pytest.raises(ValueError, match="extra dims"):
        xr_agreement.judge_report(da.expand_dims(round=2), "judge")


def test_intervals_dask_equal_numpy_with_abstention_code():
    values = random_decisions(24, n_items=30)
    values[:, 0] = np.where(np.isnan(values[:, 0]), -1, values[:, 0])
    values[3, 0, 1] = np.nan  # a missing judge decision next to the code
    da = make_decisions(values)
    options = {"abstain": "all", "abstain_value": -1, "ci": 0.9, "n_resamples": 40, "seed": 7}
    expected = xr_agreement.versus(da, "judge", **options)
    lazy = xr_agreement.versus(da.chunk({"item": 10}), "judge", **options)
    xr.testing.assert_allclose(lazy.compute(), expected)
