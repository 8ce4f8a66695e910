"""The worked example of Menzner & Leidner (section 3.7, Tables 1-3), checked
against the numbers exactly as printed in the paper.

Tolerances follow the printed digits: a value printed with d decimals is
checked to 0.5 * 10**-d; values the paper gives as exact fractions are checked
to 1e-12.
"""

import os
import sys

import numpy as np
import pytest
import xarray as xr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import xr_agreement  # noqa: E402
from oracle import oracle_mla  # noqa: E402

# Table 1 / seeds README: 1-based label indices chosen by each annotator.
SELECTIONS = {
    1: ([14], [14], [14]),
    2: ([22, 23], [27, 29, 31], [29, 31]),
    3: ([2, 5, 22], [3], [2]),
    4: ([17, 21, 22, 31], [2, 17, 22, 23, 29], [2, 21, 23, 31]),
}
# Names of the labels that occur in Table 1 (lower case, without "Bias").
KNOWN_NAMES = {
    2: "ambiguous attribution",
    3: "anecdotal evidence",
    5: "cherry picking",
    14: "faulty analogy",
    17: "intergroup",
    21: "opinionated",
    22: "political",
    23: "projection",
    27: "speculation",
    29: "unsubstantiated claims",
    31: "word choice",
}
SELECTED_LABELS = sorted(KNOWN_NAMES)  # the 11 labels ever selected


def tol(decimals):
    return 0.5 * 10.0 ** (-decimals) + 1e-12


def build_example():
    values = np.zeros((4, 3, 31), dtype=int)
    for item, per_annotator in SELECTIONS.items():
        for c, labels in enumerate(per_annotator):
            for label in labels:
                values[item - 1, c, label - 1] = 1
    return xr.DataArray(
        values,
        dims=("item", "annotator", "label"),
        coords={"item": [1, 2, 3, 4], "annotator": [1, 2, 3], "label": np.arange(1, 32)},
    )


@pytest.fixture(scope="module")
def example():
    return build_example()


@pytest.fixture(scope="module")
def result(example):
    return xr_agreement.mla(example, baseline="all")


@pytest.fixture(scope="module")
def result11(example):
    return xr_agreement.mla(example.sel(label=SELECTED_LABELS), baseline="all")


# ---------------------------------------------------------------------------
# the bundled data set
# ---------------------------------------------------------------------------


def test_table1_vectors_as_printed(example):
    # Spot checks of the 31-bit vectors printed in Table 1.
    assert list(example.sel(item=2, annotator=2).values) == [0] * 26 + [1, 0, 1, 0, 1]
    assert list(example.sel(item=4, annotator=1).values) == (
        [0] * 16 + [1, 0, 0, 0, 1, 1] + [0] * 8 + [1]
    )
    assert int(example.sum()) == 28  # "there are 28 positive assignments"


def test_bias_example_matches_table1(example):
    ex = xr_agreement.datasets.bias_example()
    assert isinstance(ex, xr.DataArray)
    assert ex.dims == ("item", "annotator", "label")
    assert ex.shape == (4, 3, 31)
    assert list(ex["item"].values) == [1, 2, 3, 4]
    assert list(ex["annotator"].values) == [1, 2, 3]
    assert list(ex["label"].values) == list(range(1, 32))
    assert np.issubdtype(ex["label"].dtype, np.integer)
    np.testing.assert_array_equal(np.asarray(ex.values, dtype=float), example.values.astype(float))


def test_bias_example_label_names():
    ex = xr_agreement.datasets.bias_example()
    assert "label_name" in ex.coords
    assert "label_name" not in ex.indexes  # non-index coordinate
    assert ex["label_name"].dims == ("label",)
    names = [str(s) for s in ex["label_name"].values]
    assert len(set(names)) == 31
    for label, fragment in KNOWN_NAMES.items():
        assert fragment in names[label - 1].lower(), (label, names[label - 1])


# ---------------------------------------------------------------------------
# section 3.7: all 31 labels
# ---------------------------------------------------------------------------


def test_item_observed(result):
    # S = 93, 83, 85, 79 agreeing (pair, label) comparisons out of 31 * 3.
    np.testing.assert_allclose(
        result["item_observed"].sel(item=[1, 2, 3, 4]).values,
        np.array([93, 83, 85, 79]) / 93,
        rtol=0,
        atol=1e-12,
    )


def test_observed_agreement(result):
    assert float(result["observed"]) == pytest.approx(85 / 93, abs=1e-12)


def test_expected_agreement(result):
    a_e = result["expected"]
    assert float(a_e.sel(baseline="F")) * 31 == pytest.approx(27.5278, abs=tol(4))
    assert float(a_e.sel(baseline="F")) == pytest.approx(0.8880, abs=tol(4))
    assert float(a_e.sel(baseline="AC1")) == pytest.approx(0.1120, abs=tol(4))
    assert float(a_e.sel(baseline="PB")) == 0.5
    # A_e^(ac1) = 1 - A_e^(F) for binary decisions.
    assert float(a_e.sel(baseline="AC1")) == pytest.approx(1 - float(a_e.sel(baseline="F")), abs=1e-12)


def test_corpus_coefficients(result):
    a = result["agreement"]
    assert float(a.sel(baseline="F")) == pytest.approx(0.2320, abs=tol(4))
    assert float(a.sel(baseline="AC1")) == pytest.approx(0.9031, abs=tol(4))
    assert float(a.sel(baseline="PB")) == pytest.approx(0.8280, abs=tol(4))


def test_raw_prevalence(result):
    assert float(result["raw_prevalence"]) == pytest.approx(7 / 93, abs=1e-12)
    assert float(result["raw_prevalence"]) == pytest.approx(0.0753, abs=tol(4))


def test_minimum(result):
    # (20*1 + 3*5/6 + 2*2/3 + 3*1/2 + 3*1/3) / 31 = 79/93
    assert float(result["observed_minimum"]) == pytest.approx(79 / 93, abs=1e-12)
    m = result["minimum"]
    assert float(m.sel(baseline="F")) == pytest.approx(-0.3440, abs=tol(4))
    assert float(m.sel(baseline="AC1")) == pytest.approx(0.8305, abs=tol(4))
    assert float(m.sel(baseline="PB")) == pytest.approx(0.6989, abs=tol(4))


def test_label_minima(result):
    # 20 never-selected labels: 1; three labels with T=1: 5/6; two with T=2: 2/3;
    # three with T=3: 1/2; three with T=4: 1/3.
    lom = result["label_observed_minimum"]
    tot = result.label_prevalence * 12
    expected = {0: 1.0, 1: 5 / 6, 2: 2 / 3, 3: 1 / 2, 4: 1 / 3}
    counts = {0: 20, 1: 3, 2: 2, 3: 3, 4: 3}
    for T, value in expected.items():
        sel = np.isclose(tot.values, T)
        assert sel.sum() == counts[T]
        np.testing.assert_allclose(lom.values[sel], value, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
# Table 2: label universe
# ---------------------------------------------------------------------------


def test_table2_all_31_labels(result):
    assert float(result["observed"]) == pytest.approx(0.914, abs=tol(3))
    assert float(result["agreement"].sel(baseline="F")) == pytest.approx(0.232, abs=tol(3))
    assert float(result["agreement"].sel(baseline="AC1")) == pytest.approx(0.903, abs=tol(3))
    assert float(result["agreement"].sel(baseline="PB")) == pytest.approx(0.828, abs=tol(3))
    assert float(result["observed_minimum"]) == pytest.approx(0.849, abs=tol(3))


def test_table2_11_selected_labels(result11):
    assert result11.sizes["label"] == 11
    assert float(result11["observed"]) == pytest.approx(0.758, abs=tol(3))
    assert float(result11["agreement"].sel(baseline="F")) == pytest.approx(0.232, abs=tol(3))
    assert float(result11["agreement"].sel(baseline="AC1")) == pytest.approx(0.646, abs=tol(3))
    assert float(result11["agreement"].sel(baseline="PB")) == pytest.approx(0.515, abs=tol(3))
    assert float(result11["observed_minimum"]) == pytest.approx(0.576, abs=tol(3))


def test_table2_pooled_marginal_unchanged(result, result11):
    # Constant labels have weight 1 - A_e,j^(F) = 0: coefficient and floor unchanged.
    for var in ("agreement", "minimum"):
        assert float(result11[var].sel(baseline="F")) == pytest.approx(
            float(result[var].sel(baseline="F")), abs=1e-12
        )


# ---------------------------------------------------------------------------
# Table 3: label-wise statistics (rows printed in the paper)
# ---------------------------------------------------------------------------

TABLE3 = {
    # label: (p_j, A_o,j, F, AC1, PB)
    2: (0.333, 0.667, 0.250, 0.400, 0.333),
    3: (0.083, 0.833, -0.091, 0.803, 0.667),
    5: (0.083, 0.833, -0.091, 0.803, 0.667),
    14: (0.250, 1.000, 1.000, 1.000, 1.000),
    17: (0.167, 0.833, 0.400, 0.769, 0.667),
    21: (0.167, 0.833, 0.400, 0.769, 0.667),
}


@pytest.mark.parametrize("label", sorted(TABLE3))
@pytest.mark.parametrize("universe", ["all31", "selected11"])
def test_table3_rows(result, result11, label, universe):
    ds = result if universe == "all31" else result11
    p, a_o, f, ac1, pb = TABLE3[label]
    assert float(ds["label_prevalence"].sel(label=label)) == pytest.approx(p, abs=tol(3))
    assert float(ds["label_observed"].sel(label=label)) == pytest.approx(a_o, abs=tol(3))
    la = ds["label_agreement"].sel(label=label)
    assert float(la.sel(baseline="F")) == pytest.approx(f, abs=tol(3))
    assert float(la.sel(baseline="AC1")) == pytest.approx(ac1, abs=tol(3))
    assert float(la.sel(baseline="PB")) == pytest.approx(pb, abs=tol(3))


def test_never_selected_labels(result):
    # p_j = 0: A_o,j = 1, F coefficient 0/0 -> NaN with weight 0; AC1 and PB give 1.
    never = [j for j in range(1, 32) if j not in KNOWN_NAMES]
    ds = result.sel(label=never)
    np.testing.assert_array_equal(ds["label_prevalence"].values, 0.0)
    np.testing.assert_array_equal(ds["label_observed"].values, 1.0)
    assert np.isnan(ds["label_agreement"].sel(baseline="F").values).all()
    np.testing.assert_array_equal(ds["label_weight"].sel(baseline="F").values, 0.0)
    np.testing.assert_allclose(ds["label_agreement"].sel(baseline="AC1").values, 1.0, atol=1e-12)
    np.testing.assert_allclose(ds["label_agreement"].sel(baseline="PB").values, 1.0, atol=1e-12)
    # no positive decisions -> positive agreement undefined; negative agreement 1
    assert np.isnan(ds["label_positive_agreement"].values).all()
    np.testing.assert_allclose(ds["label_negative_agreement"].values, 1.0, atol=1e-12)


def test_alpha_hamming_example(result):
    # 3.4: alpha_H = 1 - D_o / (M/(M-1) * (1 - A_e^(F))), M = n N = 12.
    a_e = float(result["expected"].sel(baseline="F"))
    expected = 1 - (1 - 85 / 93) / (12 / 11 * (1 - a_e))
    assert float(result["alpha_hamming"]) == pytest.approx(expected, abs=1e-12)


def test_whole_example_against_oracle(example, result):
    for baseline in ("F", "AC1", "PB"):
        ref = oracle_mla(example.values, baseline)
        ds = result.sel(baseline=baseline)
        for key, want in ref.items():
            np.testing.assert_allclose(
                np.asarray(ds[key].values, dtype=float), want, rtol=1e-12, atol=1e-12,
                equal_nan=True, err_msg=f"{key} ({baseline})",
            )
