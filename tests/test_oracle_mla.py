"""xr_agreement.mla against the independent oracle (tests/oracle.py) on complete
data, plus property tests of the paper's identities and the API contract."""

import os
import sys
import zlib

import numpy as np
import pytest
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import xr_agreement  # noqa: E402
from xr_agreement.mla import counts as mla_counts  # noqa: E402
from oracle import (  # noqa: E402
    ALL_KEYS,
    BASELINE_DEPENDENT,
    BASELINES,
    CORPUS_KEYS,
    ITEM_KEYS,
    LABEL_KEYS,
    min_label_agreement_bruteforce,
    min_label_agreement_eq7,
    oracle_mla,
    oracle_observed_minimum_bruteforce,
)

TOL = dict(rtol=1e-12, atol=1e-12, equal_nan=True)
DIMS = ("item", "annotator", "label")
PREVALENCES = [0.0, 0.02, 0.1, 0.3, 0.5, 0.9, 1.0, "mixed"]
DTYPES = [bool, np.int8, np.int64, np.uint8, np.float32, np.float64]

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def random_values(rng, N, n, k, prevalence):
    if prevalence == "mixed":
        p = rng.choice([0.0, 0.02, 0.1, 0.3, 0.5, 0.8, 1.0], size=k)
    else:
        p = np.full(k, prevalence)
    return (rng.random((N, n, k)) < p).astype(np.int64)


def coords_for(N, n, k):
    return {
        "item": [f"s{i}" for i in range(N)],
        "annotator": [f"ann{c}" for c in range(n)],
        "label": [100 + j for j in range(k)],
    }


def to_da(values, order=DIMS, dtype=np.int64, coords=True, names=DIMS, attrs=None):
    """values[item, annotator, label] -> DataArray with dims in `order`."""
    N, n, k = values.shape
    c = coords_for(N, n, k)
    da = xr.DataArray(
        np.asarray(values).astype(dtype),
        dims=names,
        coords={nm: c[d] for nm, d in zip(names, DIMS)} if coords else None,
        attrs=attrs or {},
    )
    rename = dict(zip(DIMS, names))
    return da.transpose(*[rename[d] for d in order])


def vec(da, dim, coords):
    """1-D values of `da` along `dim`, checking the coordinate is kept."""
    assert da.dims == (dim,), (da.name, da.dims)
    if coords is not None:
        assert list(da[dim].values) == list(coords), da.name
    return np.asarray(da.values, dtype=float)


def assert_matches(ds, ref, *, coords=None, item="item", label="label", msg=""):
    for key in CORPUS_KEYS:
        assert ds[key].dims == (), (key, ds[key].dims)
        np.testing.assert_allclose(float(ds[key]), ref[key], **TOL, err_msg=f"{key} {msg}")
    for key in ITEM_KEYS:
        got = vec(ds[key], item, None if coords is None else coords["item"])
        np.testing.assert_allclose(got, ref[key], **TOL, err_msg=f"{key} {msg}")
    for key in LABEL_KEYS:
        got = vec(ds[key], label, None if coords is None else coords["label"])
        np.testing.assert_allclose(got, ref[key], **TOL, err_msg=f"{key} {msg}")


def assert_matches_all(ds, values, **kw):
    assert list(ds["baseline"].values) == list(BASELINES)
    for b in BASELINES:
        assert_matches(ds.sel(baseline=b), oracle_mla(values, b), msg=b, **kw)


# ---------------------------------------------------------------------------
# oracle self-checks (no implementation involved)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("N", [1, 2, 3, 4])
def test_oracle_eq7_equals_bruteforce(N, n):
    for T in range(N * n + 1):
        assert min_label_agreement_eq7(T, N, n) == pytest.approx(
            min_label_agreement_bruteforce(T, N, n), abs=1e-15
        )


def test_oracle_unconditional_minimum():
    # 3.5: min_x f(x)/C(n,2) = (n-2)/(2(n-1)) for n even, (n-1)/(2n) for n odd.
    for n in range(2, 9):
        want = (n - 2) / (2 * (n - 1)) if n % 2 == 0 else (n - 1) / (2 * n)
        got = min(min_label_agreement_eq7(T, 1, n) for T in range(n + 1))
        assert got == pytest.approx(want, abs=1e-15)


def test_oracle_identities_random():
    rng = np.random.default_rng(0)
    for _ in range(20):
        N, n, k = rng.integers(1, 8), rng.integers(2, 6), rng.integers(1, 7)
        v = random_values(rng, N, n, k, "mixed")
        r = oracle_mla(v, "F")
        # additivity of Hamming agreement: A_o = mean_j A_o,j
        assert r["observed"] == pytest.approx(np.mean(r["label_observed"]), abs=1e-13)
        # brute-force minimum equals eq. 7
        if N <= 3 and n <= 4:
            assert oracle_observed_minimum_bruteforce(v)[0] == pytest.approx(
                r["observed_minimum"], abs=1e-13
            )


def test_fleiss_kappa_statsmodels_single_label():
    """For one label the F coefficient is Fleiss' kappa (independent check)."""
    import statsmodels.stats.inter_rater as sm
    rng = np.random.default_rng(1)
    for _ in range(10):
        N, n = rng.integers(2, 15), rng.integers(2, 7)
        v = random_values(rng, N, n, 1, 0.4)
        if v.min() == v.max():
            continue
        x = v[:, :, 0].sum(axis=1)
        table = np.stack([n - x, x], axis=1)
        kappa = sm.fleiss_kappa(table, method="fleiss")
        assert oracle_mla(v, "F")["label_agreement"][0] == pytest.approx(kappa, abs=1e-12)
        ds = xr_agreement.mla(to_da(v))
        assert float(ds["label_agreement"][0]) == pytest.approx(kappa, abs=1e-12)
        assert float(ds["agreement"]) == pytest.approx(kappa, abs=1e-12)


# ---------------------------------------------------------------------------
# implementation vs oracle, random data
# ---------------------------------------------------------------------------


def _case(seed):
    rng = np.random.default_rng(1000 + seed)
    N = int(rng.integers(1, 31))
    n = int(rng.integers(2, 8))
    k = int(rng.integers(1, 13))
    prevalence = PREVALENCES[seed % len(PREVALENCES)]
    dtype = DTYPES[seed % len(DTYPES)]
    order = tuple(rng.permutation(DIMS))
    return rng, N, n, k, prevalence, dtype, order


@pytest.mark.parametrize("seed", range(36))
def test_random_vs_oracle(seed):
    rng, N, n, k, prevalence, dtype, order = _case(seed)
    v = random_values(rng, N, n, k, prevalence)
    da = to_da(v, order=order, dtype=dtype)
    ds = xr_agreement.mla(da, baseline="all")
    assert_matches_all(ds, v, coords=coords_for(N, n, k))


@pytest.mark.parametrize(
    "shape", [(1, 2, 1), (1, 2, 5), (5, 2, 1), (1, 7, 12), (30, 7, 12), (30, 2, 1), (2, 3, 1)]
)
@pytest.mark.parametrize("prevalence", [0.0, 0.5, 1.0, "mixed"])
def test_edge_shapes_vs_oracle(shape, prevalence):
    rng = np.random.default_rng(zlib.crc32(repr((shape, prevalence)).encode()))
    v = random_values(rng, *shape, prevalence)
    ds = xr_agreement.mla(to_da(v), baseline="all")
    assert_matches_all(ds, v, coords=coords_for(*shape))


@pytest.mark.parametrize("alias,canonical", [
    ("F", "F"), ("f", "F"), ("kappa", "F"), ("Fleiss", "F"), ("SCOTT", "F"),
    ("AC1", "AC1"), ("ac1", "AC1"), ("gwet", "AC1"), ("Gwet", "AC1"),
    ("PB", "PB"), ("pabak", "PB"), ("PABAK", "PB"), ("bp", "PB"),
])
def test_single_baseline_vs_oracle(alias, canonical):
    rng = np.random.default_rng(7)
    v = random_values(rng, 9, 4, 6, "mixed")
    ds = xr_agreement.mla(to_da(v), baseline=alias)
    assert "baseline" not in ds.dims
    assert_matches(ds, oracle_mla(v, canonical), coords=coords_for(9, 4, 6))


def test_default_baseline_is_F():
    rng = np.random.default_rng(8)
    v = random_values(rng, 6, 3, 4, 0.3)
    ds = xr_agreement.mla(to_da(v))
    assert "baseline" not in ds.dims
    assert_matches(ds, oracle_mla(v, "F"))


def test_no_coordinates():
    rng = np.random.default_rng(9)
    v = random_values(rng, 7, 3, 5, "mixed")
    ds = xr_agreement.mla(to_da(v, coords=False), baseline="all")
    assert_matches_all(ds, v, coords=None)


def test_custom_dim_names():
    rng = np.random.default_rng(10)
    v = random_values(rng, 8, 4, 5, "mixed")
    names = ("sentence", "coder", "category")
    da = to_da(v, order=("label", "item", "annotator"), names=names)
    assert da.dims == ("category", "sentence", "coder")
    ds = xr_agreement.mla(da, "all", item="sentence", annotator="coder", label="category")
    c = coords_for(8, 4, 5)
    assert_matches_all(ds, v, coords={"item": c["item"], "label": c["label"]},
                       item="sentence", label="category")


def test_accessor_equals_function():
    rng = np.random.default_rng(11)
    da = to_da(random_values(rng, 6, 3, 4, "mixed"))
    for b in ("F", ["AC1", "PB"], "all"):
        xr.testing.assert_identical(da.agreement.mla(b), xr_agreement.mla(da, b))
    xr.testing.assert_identical(da.agreement.mla(), xr_agreement.mla(da))


@pytest.mark.parametrize("n", range(2, 12))
@pytest.mark.parametrize("dtype", [np.uint8, bool])
def test_byte_input_every_annotator_count_vs_oracle(n, dtype):
    # the uint8 kernel adds annotator rows five to a pass, the last pass padded with zeros
    rng = np.random.default_rng(n)
    v = random_values(rng, 9, n, 35, "mixed")
    ds = xr_agreement.mla(to_da(v, dtype=dtype), baseline="all")
    assert_matches_all(ds, v, coords=coords_for(9, n, 35))


def test_byte_input_with_item_totals_past_32_bits():
    """An item's sum of squares over labels, k n^2, past 2^32 (66,052 labels of 255
    annotators): the per-item agreeing pairs, counted directly here, stay exact (the uint8
    kernel keeps item totals in 32 bits, so such items take the int64 one)."""
    n, k = 255, 66_052
    rng = np.random.default_rng(3)
    v = np.ones((2, n, k), np.uint8)
    v[1] = rng.random((n, k)) < 0.5
    ds = xr_agreement.mla(xr.DataArray(v, dims=("item", "annotator", "label")))
    np.testing.assert_allclose(ds.item_observed.values, _direct_item_observed(v), rtol=1e-12)


@pytest.mark.parametrize("n", [5, 7])  # one pass of five rows, two passes
@pytest.mark.parametrize("k", [1, 31, 32, 33, 100])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "two rounds"])
def test_byte_rows_read_past_their_last_label_vs_oracle(n, k, layout, set_mode):
    """Compiled, the uint8 kernel reads each row of a C-contiguous item in whole 32-byte
    lanes, past its last label into the next row or item, and masks those lanes; items
    whose annotator rows are not next to each other in memory are read row by row. Both
    against the oracle, the bytes after every row being decisions."""
    set_mode("always")  # small calls would run interpreted, and read row by row
    rng = np.random.default_rng(k)
    if layout == "two rounds":
        # the last item of round 0 is read past into the first of round 1
        v = random_values(rng, 2 * 40, n, k, "mixed").reshape(2, 40, n, k)
        da = xr.DataArray(v.astype(np.uint8), dims=("round", *DIMS))
        ds = xr_agreement.mla(da, baseline="all")
        for r in range(2):
            assert_matches_all(ds.isel(round=r), v[r])
        return
    v = random_values(rng, 40, n, k, "mixed")
    data = v.astype(np.uint8)
    if layout == "strided":  # dims in order, memory annotator-major
        data = np.ascontiguousarray(data.transpose(1, 0, 2)).transpose(1, 0, 2)
    da = xr.DataArray(data, dims=DIMS, coords=coords_for(40, n, k))
    assert data.flags.c_contiguous == (layout == "contiguous")
    assert_matches_all(xr_agreement.mla(da, baseline="all"), v, coords=coords_for(40, n, k))


def test_an_invalid_byte_read_past_another_item_is_named_where_it_is(set_mode):
    # compiled, the first byte of item c is read (and masked) as a lane past item b's last
    # row: still found, in its own item's lanes
    set_mode("always")
    for position in [(2, 0, 0), (2, 4, 32), (3, 0, 0), (1, 2, 17)]:
        v = np.ones((4, 5, 33), np.uint8)
        v[position] = 9
        names = ["a", "b", "c", "d"]
        da = to_da(v, dtype=np.uint8).assign_coords(item=names)
        with pytest.raises(ValueError) as e:
            xr_agreement.mla(da)
        assert "9" in str(e.value) and f"'{names[position[0]]}'" in str(e.value), str(e.value)


def _direct_item_observed(v):
    """Agreeing pairs over all pairs per item of complete (N, n, k) decisions, counted
    directly."""
    N, n, k = v.shape
    x = v.sum(axis=1, dtype=np.int64)  # (item, label): annotators who said 1
    agreeing = (x * (x - 1) // 2 + (n - x) * (n - x - 1) // 2).sum(axis=1)
    return agreeing / (k * n * (n - 1) // 2)


def test_byte_rows_read_past_in_threads_vs_direct_counts(monkeypatch):
    """Input large enough for the counting threads: each thread's items are read past their
    rows up to the end of its own range."""
    n, k = 5, 41
    rng = np.random.default_rng(5)
    v = (rng.random((21_011, n, k)) < 0.3).astype(np.uint8)
    assert v.size >= mla_counts.PARALLEL_THRESHOLD
    ranges = []
    split = mla_counts._count_threads
    monkeypatch.setattr(mla_counts, "_count_threads",
                        lambda values, *rest: ranges.append(values.shape) or split(values, *rest))
    ds = xr_agreement.mla(xr.DataArray(v, dims=DIMS), baseline="F")
    assert ranges == ([(1, 21_011, n, k)] if (os.cpu_count() or 1) > 1 else [])
    np.testing.assert_allclose(ds.item_observed.values, _direct_item_observed(v), rtol=1e-12)
    np.testing.assert_allclose(ds.label_prevalence.values, v.mean(axis=(0, 1)), rtol=1e-12)


@pytest.mark.parametrize("cpus", [2, 4])  # as many groups as threads, fewer
def test_byte_rows_of_two_rounds_in_threads_vs_direct_counts(monkeypatch, cpus):
    """With an extra dim, the counting threads take whole groups (as many as threads) or
    ranges of items one group at a time (fewer), so that every call gets C-contiguous
    items (and their fast rows)."""
    n, k = 5, 41
    rng = np.random.default_rng(6)
    v = (rng.random((2, 10_513, n, k)) < 0.3).astype(np.uint8)
    assert v.size >= mla_counts.PARALLEL_THRESHOLD
    monkeypatch.setattr(mla_counts.os, "cpu_count", lambda: cpus)
    calls = []
    count = mla_counts._count_bytes
    monkeypatch.setattr(mla_counts, "_count_bytes",
                        lambda values, *rest: calls.append(values.flags.c_contiguous)
                        or count(values, *rest))
    ds = xr_agreement.mla(xr.DataArray(v, dims=("round", *DIMS)), baseline="F")
    assert len(calls) >= 2 and all(calls), calls
    for r in range(2):
        np.testing.assert_allclose(ds.item_observed.isel(round=r).values,
                                   _direct_item_observed(v[r]), rtol=1e-12)
        np.testing.assert_allclose(ds.label_prevalence.isel(round=r).values,
                                   v[r].mean(axis=(0, 1)), rtol=1e-12)


@pytest.mark.parametrize("n,k", [(255, 1), (16, 255), (16, 256), (128, 4), (255, 2)])
def test_byte_item_totals_at_the_16_bit_limit(n, k):
    """An item's sum of squares over labels is at most k n^2: kept in 16 bits below 2^16,
    in 32 from there (all positives reach the bound)."""
    v = np.ones((3, n, k), np.uint8)
    v[1, : n // 2] = 0
    ds = xr_agreement.mla(xr.DataArray(v, dims=DIMS))
    np.testing.assert_allclose(ds.item_observed.values, _direct_item_observed(v), rtol=1e-12)


def test_byte_rows_read_past_interpreted_stay_within_the_array(set_mode):
    """The kernel run as Python with its flat view: a slice past the array's end would be
    short there, and its rows' lanes raise IndexError; the counts against direct ones. (The
    package passes the view only to compiled calls.)"""
    from xr_agreement.mla import kernels as mla_kernels

    set_mode("never")
    rng = np.random.default_rng(11)
    for n, k in [(2, 1), (5, 31), (7, 33), (3, 64)]:
        v = (rng.random((1, 9, n, k)) < 0.4).astype(np.uint8)
        label_counts = np.zeros((1, k, n + 1, 3), np.int64)
        item_counts = np.zeros((1, 9, 2), np.int64)
        mla_kernels.count_bytes(v, v.reshape(-1), label_counts, item_counts, np.uint16)
        np.testing.assert_allclose(item_counts[0, :, 0] / item_counts[0, :, 1],
                                   _direct_item_observed(v[0]), rtol=1e-12)
        np.testing.assert_array_equal(label_counts[0, :, n, 1], v[0].sum(axis=(0, 1)))


def test_an_interpreted_byte_count_reads_rows_by_their_labels(set_mode, monkeypatch):
    # interpreted, whole lanes would be 32 Python steps for each row of one label
    from xr_agreement.mla import kernels as mla_kernels

    set_mode("never")
    seen = []
    original = mla_kernels.count_bytes.py_func
    monkeypatch.setattr(mla_kernels.count_bytes, "py_func",
                        lambda values, flat, *rest: seen.append(flat.size)
                        or original(values, flat, *rest))
    v = np.ones((50, 3, 1), np.uint8)
    ds = xr_agreement.mla(xr.DataArray(v, dims=DIMS))
    assert seen == [0] and float(ds.observed) == 1.0


def test_dtype_paths_agree():
    rng = np.random.default_rng(12)
    v = random_values(rng, 12, 5, 7, "mixed")
    ref = xr_agreement.mla(to_da(v, dtype=np.int64), "all")
    for dtype in DTYPES:
        ds = xr_agreement.mla(to_da(v, dtype=dtype), "all")
        for key in ALL_KEYS:
            np.testing.assert_allclose(ds[key].values, ref[key].values, **TOL, err_msg=str(dtype))


# ---------------------------------------------------------------------------
# extra dims
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("baseline", ["AC1", "all"])
def test_extra_round_dim(baseline):
    rng = np.random.default_rng(13)
    R, N, n, k = 3, 6, 4, 5
    vs = np.stack([random_values(rng, N, n, k, p) for p in (0.0, 0.2, "mixed")])
    c = coords_for(N, n, k)
    da = xr.DataArray(vs, dims=("round",) + DIMS, coords={"round": [10, 20, 30], **c})
    da = da.transpose("label", "round", "item", "annotator")
    ds = xr_agreement.mla(da, baseline)
    for key in ALL_KEYS:
        assert "round" in ds[key].dims, key
    assert list(ds["round"].values) == [10, 20, 30]
    for r, rv in enumerate([10, 20, 30]):
        single = xr_agreement.mla(da.sel(round=rv), baseline)
        part = ds.sel(round=rv)
        for key in ALL_KEYS:
            a = part[key].transpose(*single[key].dims)
            np.testing.assert_allclose(a.values, single[key].values, **TOL, err_msg=key)
        if baseline == "all":
            assert_matches_all(part, vs[r], coords=c)
        else:
            assert_matches(part, oracle_mla(vs[r], "AC1"), coords=c)


def test_two_extra_dims():
    rng = np.random.default_rng(14)
    vs = (rng.random((2, 3, 5, 3, 4)) < 0.3).astype(int)
    da = xr.DataArray(vs, dims=("round", "batch") + DIMS)
    ds = xr_agreement.mla(da, "all")
    for key in ALL_KEYS:
        assert "round" in ds[key].dims and "batch" in ds[key].dims, key
    for a in range(2):
        for b in range(3):
            assert_matches_all(ds.isel(round=a, batch=b), vs[a, b])


# ---------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_da():
    rng = np.random.default_rng(15)
    return to_da(random_values(rng, 6, 3, 5, "mixed"))


@pytest.mark.parametrize("request_,coord", [
    ("all", ["F", "AC1", "PB"]),
    (["F", "AC1", "PB"], ["F", "AC1", "PB"]),
    (["pb", "kappa"], ["PB", "F"]),
    (["Gwet"], ["AC1"]),
    (["pabak", "scott", "ac1"], ["PB", "F", "AC1"]),
    (["BP", "fleiss"], ["PB", "F"]),
])
def test_baseline_coordinate(small_da, request_, coord):
    ds = xr_agreement.mla(small_da, request_)
    assert list(ds["baseline"].values) == coord
    for key in ALL_KEYS:
        assert ("baseline" in ds[key].dims) == (key in BASELINE_DEPENDENT), key
    for b in coord:
        single = xr_agreement.mla(small_da, b)
        for key in ALL_KEYS:
            got = ds[key].sel(baseline=b) if "baseline" in ds[key].dims else ds[key]
            np.testing.assert_allclose(got.values, single[key].values, **TOL, err_msg=key)


def test_single_name_has_no_baseline_dim(small_da):
    for b in ("F", "kappa", "AC1", "gwet", "PB", "pabak"):
        ds = xr_agreement.mla(small_da, b)
        for key in ALL_KEYS:
            assert "baseline" not in ds[key].dims, (b, key)


# ---------------------------------------------------------------------------
# undefined values
# ---------------------------------------------------------------------------


def test_constant_labels():
    v = np.zeros((4, 3, 3), dtype=int)
    v[:, :, 1] = 1                   # label 101: all positive
    v[0, 0, 2] = v[1, 1, 2] = 1      # label 102: varied
    ds = xr_agreement.mla(to_da(v), "all")
    la, lw = ds["label_agreement"], ds["label_weight"]
    for lab in (100, 101):
        assert np.isnan(float(la.sel(baseline="F", label=lab)))
        assert float(lw.sel(baseline="F", label=lab)) == 0.0
        assert float(la.sel(baseline="AC1", label=lab)) == pytest.approx(1.0, abs=1e-12)
        assert float(lw.sel(baseline="AC1", label=lab)) == pytest.approx(1.0, abs=1e-12)
        assert float(la.sel(baseline="PB", label=lab)) == pytest.approx(1.0, abs=1e-12)
        assert float(lw.sel(baseline="PB", label=lab)) == 0.5
    assert np.isfinite(float(la.sel(baseline="F", label=102)))
    # specific agreement: label 100 has no positives, label 101 no negatives
    assert np.isnan(float(ds["label_positive_agreement"].sel(label=100)))
    assert float(ds["label_negative_agreement"].sel(label=100)) == 1.0
    assert float(ds["label_positive_agreement"].sel(label=101)) == 1.0
    assert np.isnan(float(ds["label_negative_agreement"].sel(label=101)))
    # eq. 6: the corpus F coefficient is the coefficient of the only varied label
    assert float(ds["agreement"].sel(baseline="F")) == pytest.approx(
        float(la.sel(baseline="F", label=102)), abs=1e-12
    )
    assert_matches_all(ds, v, coords=coords_for(4, 3, 3))


@pytest.mark.parametrize("fill", [0, 1, "mixed"])
def test_all_constant_corpus(fill):
    v = np.zeros((3, 4, 5), dtype=int)
    if fill == 1:
        v[:] = 1
    elif fill == "mixed":
        v[:, :, ::2] = 1
    ds = xr_agreement.mla(to_da(v), "all")
    F = ds.sel(baseline="F")
    assert float(ds["observed"]) == 1.0
    assert float(ds["observed_minimum"]) == 1.0
    assert np.isnan(float(F["agreement"]))
    assert np.isnan(float(F["minimum"]))
    assert np.isnan(F["item_agreement"].values).all()
    assert np.isnan(F["label_agreement"].values).all()
    assert (F["label_weight"].values == 0).all()
    assert np.isnan(float(ds["alpha_hamming"]))  # D_e = 0: alpha undefined
    for b in ("AC1", "PB"):
        assert float(ds["agreement"].sel(baseline=b)) == pytest.approx(1.0, abs=1e-12)
    assert_matches_all(ds, v)


# ---------------------------------------------------------------------------
# metadata
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("baseline", ["F", "all"])
def test_attrs(small_da, baseline):
    ds = xr_agreement.mla(small_da, baseline)
    assert isinstance(ds, xr.Dataset)
    assert set(ALL_KEYS) <= set(ds.data_vars)
    for name, var in ds.data_vars.items():
        # the paper has a symbol for every number; the undefined_reason texts have none
        attributes = ("long_name", "description") + (("symbol",) if var.dtype.kind not in "OU" else ())
        for attr in attributes:
            assert isinstance(var.attrs.get(attr), str) and var.attrs[attr], (name, attr)
    assert ds.attrs["n_items"] == 6
    assert ds.attrs["n_annotators"] == 3
    assert ds.attrs["n_labels"] == 5


# ---------------------------------------------------------------------------
# errors and input immutability
# ---------------------------------------------------------------------------


def test_missing_dim_error():
    da = xr.DataArray(np.zeros((3, 2, 4), dtype=int), dims=("item", "rater", "label"))
    with pytest.raises(ValueError) as e:
        xr_agreement.mla(da)
    assert "annotator" in str(e.value) and "rater" in str(e.value)
    da = xr.DataArray(np.zeros((3, 2, 4), dtype=int), dims=("sentence", "annotator", "label"))
    with pytest.raises(ValueError) as e:
        xr_agreement.mla(da)
    assert "item" in str(e.value)
    assert "sentence" in str(e.value)
    with pytest.raises(ValueError) as e:
        xr_agreement.mla(da, label="category", item="sentence")
    assert "category" in str(e.value)


@pytest.mark.parametrize("dtype,bad,text", [
    (np.int64, 7, "7"), (np.int64, -3, "-3"), (np.float64, 0.375, "0.375"),
    (np.float32, 2.5, "2.5"), (np.int8, 4, "4"),
])
def test_invalid_value_error(dtype, bad, text):
    v = np.zeros((5, 3, 4))
    v[1, 0, 2] = 1
    v[3, 2, 1] = bad
    da = to_da(v, dtype=dtype, order=("label", "annotator", "item"))
    da = da.assign_coords(item=["a", "b", "c", "ITEMQX", "e"])
    with pytest.raises(ValueError) as e:
        xr_agreement.mla(da)
    msg = str(e.value)
    assert text in msg, msg
    assert "ITEMQX" in msg, msg


@pytest.mark.parametrize("n", [5, 7])
@pytest.mark.parametrize("bad", [2, 255])
def test_invalid_byte_at_every_annotator_is_named(n, bad):
    # uint8 sums wrap (255 + 1 = 0): the value itself must still be caught, in a row added
    # in a group of four as well as in the last rows
    for a in range(n):
        v = np.ones((4, n, 3), np.uint8)
        v[2, a, 1] = bad
        da = to_da(v, dtype=np.uint8).assign_coords(item=["a", "b", "ITEMQX", "d"])
        with pytest.raises(ValueError) as e:
            xr_agreement.mla(da)
        assert str(bad) in str(e.value) and "ITEMQX" in str(e.value), str(e.value)


def test_fewer_than_two_annotators():
    da = to_da(np.zeros((4, 1, 3), dtype=int))
    with pytest.raises(ValueError):
        xr_agreement.mla(da)


@pytest.mark.parametrize("shape", [(0, 3, 4), (4, 3, 0), (4, 0, 3)])
def test_empty_dim(shape):
    da = xr.DataArray(np.zeros(shape, dtype=int), dims=DIMS)
    with pytest.raises(ValueError):
        xr_agreement.mla(da)


@pytest.mark.parametrize("kind", ["str", "object"])
def test_non_numeric_dtype(kind):
    v = np.zeros((3, 2, 2), dtype=int)
    v[0, 0, 0] = 1
    arr = v.astype(str) if kind == "str" else v.astype(object)
    da = xr.DataArray(arr, dims=DIMS)
    with pytest.raises(TypeError):
        xr_agreement.mla(da)


@pytest.mark.parametrize("dtype", [bool, np.int64, np.float64])
def test_input_not_modified(dtype):
    rng = np.random.default_rng(16)
    v = random_values(rng, 5, 3, 4, "mixed")
    da = to_da(v, dtype=dtype, order=("annotator", "label", "item"), attrs={"origin": "test", "units": "1"})
    before = da.copy(deep=True)
    xr_agreement.mla(da, "all")
    da.agreement.mla("gwet")
    xr.testing.assert_identical(da, before)
    assert da.attrs == {"origin": "test", "units": "1"}
    assert da.dtype == before.dtype


# ---------------------------------------------------------------------------
# hypothesis property tests
# ---------------------------------------------------------------------------


@st.composite
def binary_arrays(draw, max_N=8, max_n=5, max_k=6):
    N = draw(st.integers(1, max_N))
    n = draw(st.integers(2, max_n))
    k = draw(st.integers(1, max_k))
    return draw(hnp.arrays(np.int8, (N, n, k), elements=st.integers(0, 1)))


@SETTINGS
@given(v=binary_arrays(), data=st.data())
def test_permutation_invariance(v, data):
    N, n, k = v.shape
    pi = data.draw(st.permutations(range(N)))
    pa = data.draw(st.permutations(range(n)))
    pl = data.draw(st.permutations(range(k)))
    da = to_da(v)
    ds = xr_agreement.mla(da, "all")
    dp = xr_agreement.mla(da.isel(item=list(pi), annotator=list(pa), label=list(pl)), "all")
    for key in ALL_KEYS:
        a = ds[key]
        b = dp[key]
        if "item" in a.dims:
            b = b.sel(item=a["item"].values)
        if "label" in a.dims:
            b = b.sel(label=a["label"].values)
        np.testing.assert_allclose(a.values, b.transpose(*a.dims).values, **TOL, err_msg=key)


@SETTINGS
@given(v=binary_arrays(max_N=10, max_n=6, max_k=8))
def test_paper_identities(v):
    """Additivity (3.1), eq. 6 for all baselines, the minimum bounds (3.5) and
    the Hamming-alpha relation (3.4), on one result per example."""
    N, n, k = v.shape
    ds = xr_agreement.mla(to_da(v), "all")
    a_o = float(ds["observed"])

    # 3.1 additivity: A_o = mean_j A_o,j
    assert a_o == pytest.approx(float(ds["label_observed"].mean()), abs=1e-12)

    # eq. 6: corpus coefficient = weighted mean of label coefficients,
    # weights 1 - A_e,j (label_weight), over labels with weight > 0.
    for b in BASELINES:
        part = ds.sel(baseline=b)
        w = part["label_weight"].values
        aj = part["label_agreement"].values
        np.testing.assert_allclose(w, 1 - part["label_expected"].values, **TOL)
        assert float(part["expected"]) == pytest.approx(float(part["label_expected"].mean()), abs=1e-12)
        used = w > 0
        if used.any():
            want = np.sum(w[used] * aj[used]) / np.sum(w[used])
            assert float(part["agreement"]) == pytest.approx(want, rel=1e-10, abs=1e-12), b
            assert np.isfinite(aj[used]).all()
        else:
            assert b == "F" and np.isnan(float(part["agreement"]))

    # 3.5: A_o,min <= A_o, per label and overall; never below the
    # unconditional minimum; the normalized floor is below the coefficient.
    assert float(ds["observed_minimum"]) <= a_o + 1e-12
    assert (ds["label_observed_minimum"].values <= ds["label_observed"].values + 1e-12).all()
    floor = (n - 2) / (2 * (n - 1)) if n % 2 == 0 else (n - 1) / (2 * n)
    assert (ds["label_observed_minimum"].values >= floor - 1e-12).all()
    for b in BASELINES:
        part = ds.sel(baseline=b)
        if np.isfinite(float(part["agreement"])):
            assert float(part["minimum"]) <= float(part["agreement"]) + 1e-12

    # 3.4: alpha_H = 1 - D_o / (M/(M-1) * D_e^inf), D_e^inf = 1 - A_e^(F)
    M = n * N
    a_e = float(ds["expected"].sel(baseline="F"))
    if a_e == 1.0:
        assert np.isnan(float(ds["alpha_hamming"]))
    else:
        want = 1 - (1 - a_o) / (M / (M - 1) * (1 - a_e))
        assert float(ds["alpha_hamming"]) == pytest.approx(want, rel=1e-10, abs=1e-12)


@SETTINGS
@given(v=binary_arrays(max_N=6, max_n=4, max_k=4))
def test_property_vs_oracle(v):
    ds = xr_agreement.mla(to_da(v), "all")
    assert_matches_all(ds, v, coords=coords_for(*v.shape))


@pytest.mark.parametrize("N,n,k", [(1, 2, 1), (2, 3, 2), (3, 4, 2), (3, 3, 3), (2, 4, 1)])
def test_minimum_vs_bruteforce(N, n, k):
    rng = np.random.default_rng(N * 100 + n * 10 + k)
    for _ in range(5):
        v = random_values(rng, N, n, k, "mixed")
        ds = xr_agreement.mla(to_da(v))
        bf, per_label = oracle_observed_minimum_bruteforce(v)
        assert float(ds["observed_minimum"]) == pytest.approx(bf, abs=1e-12)
        np.testing.assert_allclose(ds["label_observed_minimum"].values, per_label, **TOL)
