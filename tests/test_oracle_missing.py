"""xr_agreement.mla with missing decisions (NaN) against the oracle.

Contract (see tests/oracle.py, oracle_mla_missing): only pairable cells
(m_ij >= 2) count; label values from those cells; corpus A_o and A_e are
n_j-weighted means; item_observed over comparisons where both annotators
decided; alpha from pairable values; observed_minimum = minimum of the
n_j-weighted A_o over reassignments of positives within labels.
"""

import os
import sys

import numpy as np
import pytest
import xarray as xr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import xr_agreement  # noqa: E402
from oracle import (  # noqa: E402
    ALL_KEYS,
    BASELINES,
    oracle_alpha_vectors,
    oracle_mla,
    oracle_mla_missing,
    observed_minimum_missing_bruteforce,
    observed_minimum_missing_greedy,
)

TOL = dict(rtol=1e-12, atol=1e-12, equal_nan=True)
DIMS = ("item", "annotator", "label")

# Quantities the missing-data contract defines.
CONTRACT_CORPUS = ("agreement", "observed", "expected", "minimum", "observed_minimum", "alpha_hamming")
CONTRACT_ITEM = ("item_observed", "item_agreement")
CONTRACT_LABEL = (
    "label_observed",
    "label_expected",
    "label_agreement",
    "label_observed_minimum",
    "label_prevalence",
)
# label_weight (contract: 1 - A_e,j from the pairable p_j) is checked on its own
# in test_label_weight_missing, so that a disagreement about it stays isolated.


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def coords_for(N, n, k):
    return {
        "item": [f"s{i}" for i in range(N)],
        "annotator": [f"ann{c}" for c in range(n)],
        "label": [100 + j for j in range(k)],
    }


def to_da(values, order=DIMS, dtype=np.float64, attrs=None):
    N, n, k = values.shape
    da = xr.DataArray(np.asarray(values).astype(dtype), dims=DIMS, coords=coords_for(N, n, k),
                      attrs=attrs or {})
    return da.transpose(*order)


def every_label_pairable(v):
    decided = (~np.isnan(v)).sum(axis=1)  # (item, label)
    return bool(((decided >= 2).any(axis=0)).all())


def random_missing(rng, N, n, k, p, q, mode):
    """0/1 data with missingness: 'cell' (each decision NaN w.p. q), 'vector'
    (each annotator skips a whole item w.p. q) or 'both'."""
    while True:
        v = (rng.random((N, n, k)) < p).astype(float)
        if mode in ("cell", "both"):
            v[rng.random((N, n, k)) < q] = np.nan
        if mode in ("vector", "both"):
            skip = rng.random((N, n)) < q
            v[skip, :] = np.nan
        if every_label_pairable(v):
            return v


def vec(da, dim, coords):
    assert da.dims == (dim,), (da.name, da.dims)
    assert list(da[dim].values) == list(coords), da.name
    return np.asarray(da.values, dtype=float)


def assert_matches_missing(ds, ref, coords, msg=""):
    for key in CONTRACT_CORPUS:
        assert ds[key].dims == (), key
        np.testing.assert_allclose(float(ds[key]), ref[key], **TOL, err_msg=f"{key} {msg}")
    for key in CONTRACT_ITEM:
        np.testing.assert_allclose(vec(ds[key], "item", coords["item"]), ref[key], **TOL,
                                   err_msg=f"{key} {msg}")
    for key in CONTRACT_LABEL:
        np.testing.assert_allclose(vec(ds[key], "label", coords["label"]), ref[key], **TOL,
                                   err_msg=f"{key} {msg}")


def assert_matches_missing_all(ds, v, msg=""):
    assert list(ds["baseline"].values) == list(BASELINES)
    coords = coords_for(*v.shape)
    for b in BASELINES:
        assert_matches_missing(ds.sel(baseline=b), oracle_mla_missing(v, b), coords, msg=f"{b} {msg}")


# ---------------------------------------------------------------------------
# oracle self-checks
# ---------------------------------------------------------------------------


def test_oracle_missing_reduces_to_complete():
    rng = np.random.default_rng(0)
    for _ in range(15):
        N, n, k = rng.integers(1, 7), rng.integers(2, 6), rng.integers(1, 6)
        v = (rng.random((N, n, k)) < rng.random()).astype(float)
        for b in BASELINES:
            a, c = oracle_mla(v, b), oracle_mla_missing(v, b)
            for key in ALL_KEYS:
                np.testing.assert_allclose(c[key], a[key], rtol=1e-12, atol=1e-12, equal_nan=True,
                                           err_msg=key)


def test_oracle_greedy_minimum_equals_bruteforce():
    rng = np.random.default_rng(1)
    for _ in range(60):
        N, n, k = rng.integers(1, 4), rng.integers(2, 5), rng.integers(1, 3)
        v = random_missing(rng, N, n, k, rng.random(), 0.3, "both")
        g, gl = observed_minimum_missing_greedy(v)
        b, bl = observed_minimum_missing_bruteforce(v)
        assert g == pytest.approx(b, abs=1e-13)
        np.testing.assert_allclose(gl, bl, rtol=0, atol=1e-13, equal_nan=True)


def test_oracle_alpha_vectors_equals_label_formula():
    rng = np.random.default_rng(2)
    for _ in range(20):
        N, n, k = rng.integers(2, 7), rng.integers(2, 6), rng.integers(1, 6)
        v = random_missing(rng, N, n, k, 0.3, 0.3, "vector")
        a = oracle_alpha_vectors(v)
        b = oracle_mla_missing(v)["alpha_hamming"]
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_hand_computed_example():
    """N=2, n=3, k=1: item 1 = [1, 1, NaN], item 2 = [0, 0, 1].

    pairable: n_j = 5, p = 3/5, D_o = (0 + 2*1*2/2)/5 = 2/5, A_o = 3/5,
    A_e(F) = 13/25, A = (15-13)/(25-13) = 1/6; D_e(alpha) = 2*3*2/(5*4) = 3/5,
    alpha = 1/3; item_observed = [1/1, 1/3]; minimum over x in {(0,3),(1,2),(2,1)}
    of A_o = {1, 1/5, 3/5} -> 1/5.
    """
    v = np.array([[[1.0], [1.0], [np.nan]], [[0.0], [0.0], [1.0]]])
    r = oracle_mla_missing(v, "F", minimum_method="bruteforce")
    assert r["observed"] == pytest.approx(3 / 5)
    assert r["label_prevalence"][0] == pytest.approx(3 / 5)
    assert r["expected"] == pytest.approx(13 / 25)
    assert r["agreement"] == pytest.approx(1 / 6)
    assert r["alpha_hamming"] == pytest.approx(1 / 3)
    assert oracle_alpha_vectors(v) == pytest.approx(1 / 3)
    np.testing.assert_allclose(r["item_observed"], [1, 1 / 3])
    assert r["observed_minimum"] == pytest.approx(1 / 5)

    ds = xr_agreement.mla(to_da(v), "F")
    assert float(ds["observed"]) == pytest.approx(3 / 5, abs=1e-12)
    assert float(ds["label_prevalence"][0]) == pytest.approx(3 / 5, abs=1e-12)
    assert float(ds["expected"]) == pytest.approx(13 / 25, abs=1e-12)
    assert float(ds["agreement"]) == pytest.approx(1 / 6, abs=1e-12)
    assert float(ds["alpha_hamming"]) == pytest.approx(1 / 3, abs=1e-12)
    np.testing.assert_allclose(ds["item_observed"].values, [1, 1 / 3], rtol=0, atol=1e-12)
    assert float(ds["observed_minimum"]) == pytest.approx(1 / 5, abs=1e-12)


# ---------------------------------------------------------------------------
# implementation vs oracle
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_random_missing_vs_oracle(seed):
    rng = np.random.default_rng(500 + seed)
    N, n, k = int(rng.integers(1, 16)), int(rng.integers(2, 7)), int(rng.integers(1, 9))
    mode = ("cell", "vector", "both")[seed % 3]
    p = [0.05, 0.3, 0.5, 0.9][seed % 4]
    q = [0.1, 0.3, 0.5][seed % 3]
    v = random_missing(rng, N, n, k, p, q, mode)
    order = tuple(rng.permutation(DIMS))
    dtype = np.float32 if seed % 5 == 0 else np.float64
    ds = xr_agreement.mla(to_da(v, order=order, dtype=dtype), "all")
    assert_matches_missing_all(ds, v, msg=f"seed={seed} mode={mode}")


def test_item_with_no_comparisons():
    rng = np.random.default_rng(3)
    v = random_missing(rng, 5, 3, 3, 0.4, 0.0, "cell")
    v[2, 1:, :] = np.nan           # item s2: only one annotator left
    v[4, :, 0] = np.nan            # item s4: label 100 undecided
    ds = xr_agreement.mla(to_da(v), "all")
    assert np.isnan(float(ds["item_observed"].sel(item="s2")))
    assert np.isnan(ds["item_agreement"].sel(item="s2").values).all()
    assert np.isfinite(float(ds["item_observed"].sel(item="s4")))
    assert_matches_missing_all(ds, v)


@pytest.mark.parametrize("seed", range(12))
def test_alpha_whole_vector_missingness(seed):
    rng = np.random.default_rng(700 + seed)
    N, n, k = int(rng.integers(2, 10)), int(rng.integers(2, 6)), int(rng.integers(1, 7))
    v = random_missing(rng, N, n, k, [0.1, 0.3, 0.5][seed % 3], [0.0, 0.2, 0.5][seed % 3], "vector")
    ds = xr_agreement.mla(to_da(v), "F")
    np.testing.assert_allclose(float(ds["alpha_hamming"]), oracle_alpha_vectors(v), **TOL)


def test_alpha_single_label_krippendorff_package():
    """k = 1: alpha_hamming is Krippendorff's nominal alpha (any missingness)."""
    import krippendorff as kr
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(30):
        N, n = int(rng.integers(2, 12)), int(rng.integers(2, 6))
        v = random_missing(rng, N, n, 1, 0.4, 0.3, "cell")
        vals = v[:, :, 0]
        pairable = (~np.isnan(vals)).sum(axis=1) >= 2
        used = vals[pairable]
        used = used[~np.isnan(used)]
        if used.min() == used.max():
            continue
        want = kr.alpha(reliability_data=vals.T, level_of_measurement="nominal")
        ds = xr_agreement.mla(to_da(v))
        assert float(ds["alpha_hamming"]) == pytest.approx(want, abs=1e-10)
        checked += 1
    assert checked >= 10


def test_missing_is_not_zero():
    rng = np.random.default_rng(5)
    v = random_missing(rng, 8, 4, 5, 0.5, 0.25, "cell")
    v0 = np.nan_to_num(v, nan=0.0)
    ds = xr_agreement.mla(to_da(v), "all")
    dz = xr_agreement.mla(to_da(v0), "all")
    assert_matches_missing_all(ds, v)
    # filled with 0 = complete data, paper formulas
    for b in BASELINES:
        ref0 = oracle_mla(v0, b)
        part = dz.sel(baseline=b)
        for key in CONTRACT_CORPUS:
            np.testing.assert_allclose(float(part[key]), ref0[key], **TOL, err_msg=key)
    # and the two really differ, by exactly what the oracles say
    for key in ("observed", "label_prevalence", "label_observed", "item_observed", "alpha_hamming"):
        a = ds[key].values
        z = dz[key].values
        assert not np.allclose(a, z), key
        np.testing.assert_allclose(
            a - z,
            np.asarray(oracle_mla_missing(v)[key]) - np.asarray(oracle_mla(v0)[key]),
            rtol=1e-10,
            atol=1e-12,
            err_msg=key,
        )


def test_hand_example_not_zero_filled():
    v = np.array([[[1.0], [1.0], [np.nan]], [[0.0], [0.0], [1.0]]])
    ds = xr_agreement.mla(to_da(v), "F")
    dz = xr_agreement.mla(to_da(np.nan_to_num(v)), "F")
    assert float(ds["agreement"]) == pytest.approx(1 / 6, abs=1e-12)
    # zero-filled: A_o = 1/3, p = 1/2, A = (1/3 - 1/2) / (1/2) = -1/3
    assert float(dz["agreement"]) == pytest.approx(-1 / 3, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_observed_minimum_bruteforce_tiny(seed):
    rng = np.random.default_rng(900 + seed)
    N, n, k = int(rng.integers(1, 4)), int(rng.integers(2, 5)), int(rng.integers(1, 3))
    v = random_missing(rng, N, n, k, rng.random(), [0.15, 0.3, 0.45][seed % 3],
                       ("cell", "vector", "both")[seed % 3])
    ds = xr_agreement.mla(to_da(v), "all")
    bf, per_label = observed_minimum_missing_bruteforce(v)
    assert float(ds["observed_minimum"]) == pytest.approx(bf, abs=1e-12)
    np.testing.assert_allclose(ds["label_observed_minimum"].values, per_label, **TOL)
    assert float(ds["observed_minimum"]) <= float(ds["observed"]) + 1e-12
    assert (ds["label_observed_minimum"].values <= ds["label_observed"].values + 1e-12).all()
    for b in BASELINES:
        part = ds.sel(baseline=b)
        e = float(part["expected"])
        if e != 1.0:
            assert float(part["minimum"]) == pytest.approx((bf - e) / (1 - e), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_complete_data_float_path_equals_int_path(seed):
    rng = np.random.default_rng(1100 + seed)
    N, n, k = int(rng.integers(1, 20)), int(rng.integers(2, 7)), int(rng.integers(1, 10))
    v = (rng.random((N, n, k)) < [0.0, 0.1, 0.5, 1.0, 0.3, 0.7][seed]).astype(int)
    di = xr_agreement.mla(to_da(v, dtype=np.int64), "all")
    for dtype in (np.float64, np.float32):
        df = xr_agreement.mla(to_da(v, dtype=dtype), "all")
        for key in ALL_KEYS:
            np.testing.assert_allclose(df[key].values, di[key].values, **TOL, err_msg=key)


def test_extra_dim_with_missing():
    rng = np.random.default_rng(6)
    vs = np.stack([random_missing(rng, 5, 4, 3, 0.4, q, "both") for q in (0.0, 0.2, 0.4)])
    c = coords_for(5, 4, 3)
    da = xr.DataArray(vs, dims=("round",) + DIMS, coords={"round": [0, 1, 2], **c})
    ds = xr_agreement.mla(da.transpose("annotator", "round", "label", "item"), "all")
    for r in range(3):
        part = ds.sel(round=r)
        assert_matches_missing_all(part, vs[r], msg=f"round={r}")


def test_input_with_nan_not_modified():
    rng = np.random.default_rng(7)
    v = random_missing(rng, 6, 3, 4, 0.4, 0.3, "both")
    da = to_da(v, order=("label", "item", "annotator"), attrs={"source": "x"})
    before = da.copy(deep=True)
    xr_agreement.mla(da, "all")
    xr.testing.assert_identical(da, before)


@pytest.mark.parametrize("seed", range(4))
def test_label_weight_missing(seed):
    """Contract: label_weight = 1 - A_e,j with A_e,j from the pairable p_j
    (the same definition as on complete data, paper eq. 6)."""
    rng = np.random.default_rng(1200 + seed)
    v = random_missing(rng, 9, 4, 5, 0.4, 0.3, ("cell", "vector", "both", "cell")[seed])
    ds = xr_agreement.mla(to_da(v), "all")
    for b in BASELINES:
        ref = oracle_mla_missing(v, b)
        np.testing.assert_allclose(ds["label_weight"].sel(baseline=b).values, ref["label_weight"],
                                   **TOL, err_msg=b)


@pytest.mark.parametrize("seed", range(4))
def test_eq6_with_missing(seed):
    """With missing data the corpus coefficient is the (n_j * (1 - A_e,j))-
    weighted mean of the label coefficients (follows from the n_j-weighted
    A_o and A_e); n_j from the oracle, everything else from the result."""
    rng = np.random.default_rng(1300 + seed)
    v = random_missing(rng, 9, 4, 5, 0.3, 0.3, ("cell", "vector", "both", "cell")[seed])
    ds = xr_agreement.mla(to_da(v), "all")
    n_j = oracle_mla_missing(v)["n_j"]
    for b in BASELINES:
        part = ds.sel(baseline=b)
        w = n_j * (1 - part["label_expected"].values)
        aj = part["label_agreement"].values
        used = w > 0
        want = np.sum(w[used] * aj[used]) / np.sum(w[used])
        assert float(part["agreement"]) == pytest.approx(want, rel=1e-10, abs=1e-12), b


def test_specific_agreement_missing_extension():
    """Not spelled out by the contract for missing data: the natural extension
    sum_i x(x-1) / sum_i x(m_ij - 1) over cells with m_ij >= 2 (ordered pairs
    of annotators who both decided), and likewise for negatives."""
    rng = np.random.default_rng(8)
    v = random_missing(rng, 10, 4, 5, 0.4, 0.3, "cell")
    ds = xr_agreement.mla(to_da(v))
    ref = oracle_mla_missing(v)
    for key in ("label_positive_agreement", "label_negative_agreement"):
        np.testing.assert_allclose(ds[key].values, ref[key], **TOL, err_msg=key)
