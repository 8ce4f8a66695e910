"""annotators(), confusions() and disagreements() against brute-force loops over items,
labels and annotator pairs written here from the definitions (docs/vocabulary.md and the
functions' docstrings), on random data with and without missing decisions and extra dims;
simulated drift and label swaps; dask; errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement import annotators, confusions, disagreements


def decisions(seed, n_items=9, n_annotators=4, n_labels=5, missing=0.0, rounds=None):
    rng = np.random.default_rng(seed)
    shape = (n_items, n_annotators, n_labels)
    if rounds:
        shape = (rounds,) + shape
    values = (rng.random(shape) < 0.4).astype(float)
    if missing:
        values[rng.random(shape) < missing] = np.nan
    dims = ("item", "annotator", "label")
    coords = {"item": [f"doc-{i:02d}" for i in range(n_items)],
              "annotator": [f"ann-{chr(97 + a)}" for a in range(n_annotators)],
              "label": [f"lab-{j}" for j in range(n_labels)]}
    if rounds:
        dims = ("round",) + dims
        coords["round"] = [f"r{t}" for t in range(rounds)]
    da = xr.DataArray(values, dims=dims, coords=coords)
    return da.assign_coords(label_name=("label", [f"name {j}" for j in range(n_labels)]))


def cases():
    return [decisions(0), decisions(1, missing=0.2), decisions(2, missing=0.3, n_annotators=5)]


# --------------------------------------------------------------------------- brute force


def brute_annotators(values):
    """values (N, n, k) float with NaN: dicts of the per-pair and per-annotator quantities."""
    N, n, k = values.shape
    shared = np.zeros((n, n))
    agree = np.zeros((n, n))
    for r, s in itertools.product(range(n), range(n)):
        for i in range(N):
            for j in range(k):
                a, b = values[i, r, j], values[i, s, j]
                if not (math.isnan(a) or math.isnan(b)):
                    shared[r, s] += 1
                    agree[r, s] += a == b
    observed = np.full((n, n), np.nan)
    annotator_observed = np.full(n, np.nan)
    for r in range(n):
        for s in range(n):
            if r != s and shared[r, s]:
                observed[r, s] = agree[r, s] / shared[r, s]
        num = sum(agree[r, s] for s in range(n) if s != r)
        den = sum(shared[r, s] for s in range(n) if s != r)
        if den:
            annotator_observed[r] = num / den
    prevalence = np.full((n, k), np.nan)
    items_annotated = np.zeros(n)
    for r in range(n):
        for j in range(k):
            column = [values[i, r, j] for i in range(N) if not math.isnan(values[i, r, j])]
            if column:
                prevalence[r, j] = sum(column) / len(column)
        items_annotated[r] = sum(any(not math.isnan(v) for v in values[i, r]) for i in range(N))
    return dict(shared=shared, observed=observed, annotator_observed=annotator_observed,
                prevalence=prevalence, items_annotated=items_annotated)


def brute_two_annotator_fleiss(a, b):
    """MLA under F of two annotators, from the paper's definitions: per label the cells
    both decided, p_j the share of 1s among their decisions, A_o and A_e weighted by the
    label's pairable values."""
    agree_sum = expected_sum = weight = 0.0
    for j in range(a.shape[1]):
        cells = [(x, y) for x, y in zip(a[:, j], b[:, j])
                 if not (math.isnan(x) or math.isnan(y))]
        if not cells:
            continue
        n_j = 2 * len(cells)
        p = sum(x + y for x, y in cells) / n_j
        agree_sum += n_j * sum(x == y for x, y in cells) / len(cells)
        expected_sum += n_j * (p * p + (1 - p) * (1 - p))
        weight += n_j
    if weight == 0:
        return np.nan
    observed, expected = agree_sum / weight, expected_sum / weight
    return np.nan if expected == 1 else (observed - expected) / (1 - expected)


def brute_confusions(values):
    N, n, k = values.shape
    co = np.zeros((k, k))
    sub = np.zeros((k, k))
    dis = np.zeros((k, k))
    for i in range(N):
        for r, s in itertools.permutations(range(n), 2):
            for a, b in itertools.product(range(k), range(k)):
                cell = [values[i, r, a], values[i, r, b], values[i, s, a], values[i, s, b]]
                if any(math.isnan(v) for v in cell):
                    continue
                ra, rb, sa, sb = cell
                co[a, b] += ra == 1 and sb == 1
                sub[a, b] += ra == 1 and rb == 0 and sb == 1 and sa == 0
                dis[a, b] += ra == 1 and sa == 0
    rate = np.full((k, k), np.nan)
    for a, b in itertools.product(range(k), range(k)):
        if a != b and dis[a, b]:
            rate[a, b] = sub[a, b] / dis[a, b]
    return co, sub, dis, rate


# --------------------------------------------------------------------------- annotators


def all_cases():
    """The random cases, and complete integer and bool input (another counting path)."""
    complete = decisions(0)
    return cases() + [complete.astype(np.uint8), complete.astype(bool),
                      decisions(4, n_annotators=6, n_labels=7).astype(np.int64)]


@pytest.mark.parametrize("index", range(6))
def test_annotators_brute_force(index):
    da = all_cases()[index]
    ids = da.annotator.values.tolist()
    ds = annotators(da)
    expected = brute_annotators(da.transpose("item", "annotator", "label").values.astype(float))
    assert ds.pair_observed.dims == ("annotator_1", "annotator_2")
    assert ds.annotator_1.values.tolist() == ids == ds.annotator_2.values.tolist()
    np.testing.assert_array_equal(ds.pair_n_pairable_values.values, expected["shared"])
    np.testing.assert_allclose(ds.pair_observed.values, expected["observed"], equal_nan=True)
    np.testing.assert_allclose(ds.annotator_observed.values, expected["annotator_observed"])
    np.testing.assert_allclose(ds.annotator_prevalence.transpose("annotator", "label").values,
                               expected["prevalence"], equal_nan=True)
    np.testing.assert_array_equal(ds.n_items_annotated.values, expected["items_annotated"])
    corpus = xr_agreement.mla(da)
    assert float(ds.agreement) == pytest.approx(float(corpus.agreement))
    np.testing.assert_allclose(ds.label_prevalence.values, corpus.label_prevalence.values)
    values = da.transpose("item", "annotator", "label").values.astype(float)
    for r, s in itertools.permutations(range(len(ids)), 2):
        value = float(ds.pair_agreement.sel(annotator_1=ids[r], annotator_2=ids[s]))
        np.testing.assert_allclose(value, brute_two_annotator_fleiss(values[:, r], values[:, s]),
                                   equal_nan=True)
    assert np.isnan(np.diag(ds.pair_agreement.values)).all()
    assert np.isnan(np.diag(ds.pair_observed.values)).all()
    for r, name in enumerate(ids):  # leave one out, against mla on the smaller array
        np.testing.assert_allclose(
            float(ds.agreement_without.sel(annotator=name)),
            float(xr_agreement.mla(da.drop_sel(annotator=name)).agreement))


@pytest.mark.parametrize("baseline", ["F", "AC1", "PB", ["F", "PB"]])
def test_pairs_and_leave_one_out_equal_mla(baseline):
    da = decisions(5, missing=0.25, n_annotators=5)
    ids = da.annotator.values.tolist()
    ds = annotators(da, baseline)
    for r, s in itertools.permutations(range(5), 2):
        expected = xr_agreement.mla(da.isel(annotator=[r, s]), baseline).agreement
        got = ds.pair_agreement.sel(annotator_1=ids[r], annotator_2=ids[s])
        np.testing.assert_allclose(got.values, expected.values, equal_nan=True)
    for r, name in enumerate(ids):
        expected = xr_agreement.mla(da.drop_sel(annotator=name), baseline).agreement
        np.testing.assert_allclose(ds.agreement_without.sel(annotator=name).values,
                                   expected.values)
    if isinstance(baseline, list):
        assert ds.pair_agreement.dims == ("baseline", "annotator_1", "annotator_2")
        assert ds.baseline.values.tolist() == baseline


def test_uint8_kernel_over_many_items():
    """The uint8 kernel sums in uint8 blocks of 255 items padded to 32 labels: items past
    a block, cells that are 1 for every item of a block (a block sum of exactly 255) and a
    label count that is no multiple of 32 must count as the brute force does."""
    da = decisions(23, n_items=600, n_annotators=4, n_labels=35)
    values = da.values.copy()
    values[:300, :, :3] = 1  # 255 ones in the first block on the first three labels
    da = da.copy(data=values)
    expected = brute_annotators(values)
    for dtype in (np.uint8, bool):
        ds = annotators(da.astype(dtype))
        np.testing.assert_allclose(ds.pair_observed.values, expected["observed"])
        np.testing.assert_allclose(ds.annotator_prevalence.transpose("annotator", "label"),
                                   expected["prevalence"])
        xr.testing.assert_allclose(ds, annotators(da.astype(np.int64)))
    values[599, 3, 34] = 2
    with pytest.raises(ValueError, match="2 at item='doc-599', annotator='ann-d', "
                                         "label='lab-34'"):
        annotators(da.copy(data=values).astype(np.uint8))


def test_annotators_extra_dim_and_int_input():
    for da in (decisions(7, missing=0.2, rounds=2), decisions(7, rounds=2).astype(np.uint8)):
        _same_as_each_round(da)


def _same_as_each_round(da):
    ds = annotators(da)
    assert ds.pair_observed.dims == ("round", "annotator_1", "annotator_2")
    for t in da["round"].values:
        alone = annotators(da.sel(round=t))
        for name in ("pair_observed", "pair_agreement", "annotator_observed",
                     "agreement_without", "annotator_prevalence", "pair_n_pairable_values"):
            np.testing.assert_allclose(ds[name].sel(round=t).values, alone[name].values,
                                       equal_nan=True)


def test_two_annotators():
    da = decisions(9, missing=0.1, n_annotators=2)
    ds = annotators(da)
    assert np.isnan(ds.agreement_without.values).all()
    assert float(ds.pair_agreement[0, 1]) == pytest.approx(float(xr_agreement.mla(da).agreement))


def drifting_corpus(seed, n_items=400, n_annotators=5, n_labels=8, error=0.05, drifter=2):
    """Latent label vectors; each annotator flips each decision with probability ``error``,
    the drifter three times as often."""
    rng = np.random.default_rng(seed)
    truth = rng.random((n_items, 1, n_labels)) < 0.3
    errors = np.full((1, n_annotators, 1), error)
    errors[0, drifter, 0] = 3 * error
    flips = rng.random((n_items, n_annotators, n_labels)) < errors
    values = (truth ^ flips).astype(float)
    values[rng.random(values.shape) < 0.05] = np.nan
    return xr.DataArray(values, dims=("item", "annotator", "label"), coords={
        "item": [f"it{i}" for i in range(n_items)],
        "annotator": [f"coder-{a}" for a in range(n_annotators)],
        "label": [f"code-{j}" for j in range(n_labels)]})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_drifting_annotator_singled_out(seed):
    da = drifting_corpus(seed)
    ds = annotators(da)
    assert ds.agreement_without.idxmax().item() == "coder-2"
    assert ds.annotator_observed.idxmin().item() == "coder-2"
    assert float(ds.agreement_without.max()) > float(ds.agreement)


def test_annotators_intervals():
    da = decisions(3, missing=0.1, n_items=20)
    ds = annotators(da, ci=0.9, n_resamples=30, seed=0)
    for name in ("pair_agreement", "annotator_observed", "agreement_without", "agreement"):
        lower, upper = ds[f"{name}_lower"], ds[f"{name}_upper"]
        assert lower.dims == ds[name].dims
        inside = (lower <= ds[name] + 1e-12) & (ds[name] <= upper + 1e-12)
        assert bool(inside.where(ds[name].notnull(), True).all()), name
    assert ds.attrs["ci_level"] == 0.9 and ds.attrs["ci_resampling_unit"] == "item"
    assert "annotators kept" in ds.attrs["ci_note"]
    again = annotators(da, ci=0.9, n_resamples=30, seed=0)
    xr.testing.assert_identical(ds, again)
    with pytest.raises(ValueError, match="resample"):
        annotators(da, ci=0.9, resample="annotator")


# --------------------------------------------------------------------------- confusions


@pytest.mark.parametrize("index", range(6))
def test_confusions_brute_force(index):
    da = all_cases()[index]
    ds = confusions(da)
    co, sub, dis, rate = brute_confusions(
        da.transpose("item", "annotator", "label").values.astype(float))
    assert ds.co_selection.dims == ("label", "other_label")
    assert ds.other_label.values.tolist() == da.label.values.tolist()
    assert ds.other_label_name.values.tolist() == da.label_name.values.tolist()
    np.testing.assert_array_equal(ds.co_selection.values, co)
    np.testing.assert_array_equal(ds.substitution.values, sub)
    np.testing.assert_array_equal(ds.n_disagreeing_pairs.values, dis)
    np.testing.assert_allclose(ds.substitution_rate.values, rate, equal_nan=True)


def test_confusions_extra_dim_and_dtypes():
    da = decisions(11, missing=0.15, rounds=3)
    ds = confusions(da)
    assert ds.substitution.dims == ("round", "label", "other_label")
    for t in da["round"].values:
        co, sub, dis, rate = brute_confusions(
            da.sel(round=t).transpose("item", "annotator", "label").values)
        np.testing.assert_array_equal(ds.substitution.sel(round=t).values, sub)
        np.testing.assert_array_equal(ds.co_selection.sel(round=t).values, co)
    complete = decisions(12)
    for dtype in (np.uint8, bool, np.int64):
        np.testing.assert_array_equal(confusions(complete.astype(dtype)).substitution.values,
                                      confusions(complete).substitution.values)


def test_uint8_confusion_kernel_blocks_and_padding():
    """The complete-data confusion kernel sums in uint8 (rows padded to 32 labels) and in
    int32 over blocks of 2^31 / n^2 items: 35 labels must count as the float kernel does
    (another implementation), and 250 annotators over sums past 2^31 (one thread, more
    items than one block) as numpy's int64 arithmetic does."""
    from xr_agreement.diagnostics import kernels

    wide = decisions(24, n_items=40, n_annotators=6, n_labels=35)
    got, expected = confusions(wide.astype(np.uint8)), confusions(wide)
    for name in ("co_selection", "substitution", "n_disagreeing_pairs"):
        np.testing.assert_array_equal(got[name].values, expected[name].values, name)
    rng = np.random.default_rng(25)
    values = (rng.random((40_000, 250, 2)) < 0.97).astype(np.uint8)
    values[:100] = 1  # items where every annotator chose both labels
    co_selection = np.zeros((1, 2, 2), np.int64)
    substitution = np.zeros((1, 2, 2), np.int64)
    disagreeing = np.zeros((1, 2), np.int64)
    assert kernels.complete_confusion_counts(values[None], co_selection, substitution,
                                             disagreeing) == 0
    x = values.astype(np.int64)
    chose = x.sum(axis=1)  # (item, label)
    both = np.einsum("ira,irb->iab", x, x)
    assert (chose[:, :, None] * chose[:, None, :] - both).sum() > 2**31
    np.testing.assert_array_equal(co_selection[0], (chose[:, :, None] * chose[:, None, :]
                                                    - both).sum(axis=0))
    np.testing.assert_array_equal(substitution[0], ((chose[:, :, None] - both)
                                                    * (chose[:, None, :] - both)).sum(axis=0))
    np.testing.assert_array_equal(disagreeing[0], (chose * (250 - chose)).sum(axis=0))


@pytest.mark.parametrize("mode", ["always", "never"])
def test_uint8_confusion_kernel_on_sparse_rows(mode):
    """The complete-data confusion kernel visits only the labels chosen in a row and in an
    item: sparse rows, rows and items with no label chosen, a label nobody chose and an item
    where everyone chose every other label must count as the pair loops do, compiled and
    interpreted."""
    from xr_agreement._core import jit

    rng = np.random.default_rng(31)
    values = (rng.random((30, 4, 6)) < 0.08).astype(np.uint8)
    values[:5] = 0  # items where nobody chose a label
    values[7, 2] = 0  # a row with none chosen in an item with some
    values[9] = 1  # everyone chose every label but the next one
    values[:, :, 3] = 0  # a label nobody chose
    da = xr.DataArray(values, dims=("item", "annotator", "label"),
                      coords={"label": [f"lab-{j}" for j in range(6)]})
    co, sub, dis, _ = brute_confusions(values.astype(float))
    previous = jit.mode()
    jit.set_mode(mode)
    try:
        ds = confusions(da)
    finally:
        jit.set_mode(previous)
    np.testing.assert_array_equal(ds.co_selection.values, co)
    np.testing.assert_array_equal(ds.substitution.values, sub)
    np.testing.assert_array_equal(ds.n_disagreeing_pairs.values, dis)


def test_swapped_labels_rank_first():
    rng = np.random.default_rng(4)
    da = drifting_corpus(4, n_items=600, error=0.03)
    values = da.values.copy()
    a, b = 1, 5  # code-1 chosen as code-5 by coder-3 on a third of the items with code-1
    rows = (values[:, 3, a] == 1) & (values[:, 3, b] == 0) & (rng.random(len(values)) < 0.35)
    values[rows, 3, a], values[rows, 3, b] = 0, 1
    ds = confusions(da.copy(data=values))
    top = ds.substitution_rate.to_series().dropna().sort_values(ascending=False)
    assert set(top.index[:2]) == {("code-1", "code-5"), ("code-5", "code-1")}


def test_large_item_counts_use_threads_same_as_serial():
    da = drifting_corpus(5, n_items=30000, n_labels=10)
    whole = confusions(da)
    pieces = sum(confusions(da.isel(item=slice(start, start + 5000)))["substitution"]
                 for start in range(0, 30000, 5000))
    np.testing.assert_array_equal(whole.substitution.values, pieces.values)
    whole = annotators(da)
    pieces = sum(annotators(da.isel(item=slice(start, start + 5000)))["pair_n_pairable_values"]
                 for start in range(0, 30000, 5000))
    np.testing.assert_array_equal(whole.pair_n_pairable_values.values, pieces.values)


def crowd(seed, n_items, n_annotators, n_labels, per_item=3, n_full=0):
    """A crowd design: each item decided by ``per_item`` of many annotators (NaN for the
    rest), the first ``n_full`` items by everyone; a few single decisions left out too."""
    rng = np.random.default_rng(seed)
    values = np.full((n_items, n_annotators, n_labels), np.nan)
    for i in range(n_items):
        who = (np.arange(n_annotators) if i < n_full
               else rng.choice(n_annotators, per_item, replace=False))
        values[i, who] = rng.random((len(who), n_labels)) < 0.3
    values[rng.random(values.shape) < 0.02] = np.nan
    return xr.DataArray(values, dims=("item", "annotator", "label"), coords={
        "item": [f"task-{i:04d}" for i in range(n_items)],
        "annotator": [f"worker-{a:03d}" for a in range(n_annotators)],
        "label": [f"tag-{j}" for j in range(n_labels)]})


def test_crowd_design_equals_mla_without_each_annotator():
    # mostly 3 of 12 annotators per item, a few items by all 12: both ways the counting
    # kernel takes a cell (few deciders, few non-deciders) meet in one corpus
    da = crowd(30, n_items=80, n_annotators=12, n_labels=4, n_full=6)
    ds = annotators(da, ["F", "AC1"])
    for name in da.annotator.values:
        expected = xr_agreement.mla(da.drop_sel(annotator=name), ["F", "AC1"]).agreement
        np.testing.assert_allclose(ds.agreement_without.sel(annotator=name).values,
                                   expected.values, rtol=1e-12)
    for r, s in [(0, 1), (3, 7), (11, 2)]:
        pair = da.isel(annotator=[r, s])
        expected = xr_agreement.mla(pair).agreement
        got = ds.pair_agreement.sel(baseline="F", annotator_1=da.annotator.values[r],
                                    annotator_2=da.annotator.values[s])
        np.testing.assert_allclose(got.values, expected.values, rtol=1e-12)


def test_crowd_design_memory_grows_with_pairs_not_cubes():
    """Many annotators, 3 per item: the counts and the whole call stay O(n^2 k) bytes (the
    (n, k, n+1, n+1) tables per annotator, n^3 k, were 2.6 GB at n = 400)."""
    import tracemalloc

    from xr_agreement.diagnostics.counts import block_sums

    n, k = 150, 4
    da = crowd(31, n_items=600, n_annotators=n, n_labels=k)
    pair_table = n * n * k * 8  # bytes of one int64 (annotator, annotator, label) array
    sums, _ = block_sums(da, "annotators", "item", "annotator", "label")
    assert sum(value.nbytes for value in sums.values()) <= 8 * pair_table
    annotators(da.isel(item=slice(0, 20)))  # compile outside the measurement
    tracemalloc.start()
    try:
        result = annotators(da)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # measured about 40 pair tables here (mostly the pair coefficients' finishing, done a
    # block of rows at a time); one of the old per-annotator tables alone was
    # n * k * (n + 1)^2 * 8 bytes, 150 pair tables here
    assert peak <= 64 * pair_table
    assert np.isfinite(result.agreement_without.values).all()


# --------------------------------------------------------------------------- disagreements


def brute_disagreements(da):
    rows = []
    observed = xr_agreement.mla(da).item_observed
    names = dict(zip(da.label.values.tolist(), da.label_name.values.tolist()))
    for i in da["item"].values.tolist():
        for j in da.label.values.tolist():
            column = {a: da.sel(item=i, label=j, annotator=a).item()
                      for a in da.annotator.values.tolist()}
            pos = tuple(a for a, v in column.items() if v == 1)
            neg = tuple(a for a, v in column.items() if v == 0)
            if pos and neg:
                rows.append(dict(item=i, label=j, label_name=names[j], n_positive=len(pos),
                                 n_negative=len(neg),
                                 n_undecided=len(column) - len(pos) - len(neg),
                                 positive_annotators=pos, negative_annotators=neg,
                                 item_observed=observed.sel(item=i).item()))
    items = da["item"].values.tolist()
    labels = da.label.values.tolist()
    rows.sort(key=lambda row: (row["item_observed"], items.index(row["item"]),
                               labels.index(row["label"])))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("index", range(3))
def test_disagreements_brute_force(index):
    da = cases()[index]
    table = disagreements(da)
    expected = brute_disagreements(da)
    assert list(table.columns) == list(expected.columns)
    assert table.index.tolist() == list(range(len(expected)))
    pd.testing.assert_frame_equal(table, expected, check_dtype=False)


def test_disagreements_extra_dim_and_names():
    da = decisions(13, missing=0.2, rounds=2).rename(item="doc", label="code",
                                                     annotator="coder")
    table = disagreements(da, item="doc", annotator="coder", label="code")
    assert list(table.columns[:3]) == ["round", "item", "label"]
    assert "label_name" in table.columns  # a label_name coordinate on the label dim (code)
    for t in da["round"].values:
        part = table[table["round"] == t].drop(columns="round").reset_index(drop=True)
        alone = da.sel(round=t).rename(doc="item", code="label", coder="annotator")
        expected = brute_disagreements(alone)
        pd.testing.assert_frame_equal(part, expected, check_dtype=False)
    assert table["item_observed"].is_monotonic_increasing


# --------------------------------------------------------------------------- dask


def test_dask_equals_numpy():
    pytest.importorskip("dask")
    da = decisions(17, n_items=23, missing=0.2, rounds=2)
    lazy = da.chunk({"item": 5, "round": 1})
    for function in (annotators, confusions):
        result = function(lazy)
        assert all(result[name].chunks is not None for name in result.data_vars
                   if name not in ("agreement", "label_prevalence")), function.__name__
        xr.testing.assert_allclose(result.compute(), function(da))
    pd.testing.assert_frame_equal(disagreements(lazy), disagreements(da))


def test_dask_invalid_value_named():
    pytest.importorskip("dask")
    da = decisions(18, n_items=12, missing=0.1)
    values = da.values.copy()
    values[10, 2, 3] = 2
    bad = da.copy(data=values).chunk({"item": 4})
    lazy = confusions(bad)  # lazy: the values are read when it is computed
    with pytest.raises(ValueError, match="item='doc-10'.*annotator='ann-c'.*label='lab-3'"):
        lazy.compute()


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("function", [annotators, confusions, disagreements])
def test_errors_name_dim_value_coordinate(function):
    da = decisions(19, missing=0.1)
    before = da.copy(deep=True)
    function(da)
    xr.testing.assert_identical(da, before)
    with pytest.raises(ValueError, match="annotator dim 'rater' not found"):
        function(da, annotator="rater")
    values = da.values.copy()
    values[4, 1, 2] = 0.5
    with pytest.raises(ValueError, match="0.5 at item='doc-04', annotator='ann-b', "
                                         "label='lab-2'"):
        function(da.copy(data=values))
    with pytest.raises(ValueError, match="at least 2 annotators"):
        function(da.isel(annotator=[0]))
    with pytest.raises(TypeError, match="dtype"):
        function(da.astype(str))


def test_accessor_methods():
    da = decisions(20, missing=0.1)
    xr.testing.assert_identical(da.agreement.annotators(baseline="AC1"),
                                annotators(da, "AC1"))
    xr.testing.assert_identical(da.agreement.confusions(), confusions(da))
    pd.testing.assert_frame_equal(da.agreement.disagreements(), disagreements(da))


@pytest.mark.parametrize("function", [annotators, confusions, disagreements])
def test_integer_input_bad_value_named(function):
    da = decisions(21).astype(np.int16)
    values = da.values.copy()
    values[6, 3, 1] = -1
    with pytest.raises(ValueError, match="-1 at item='doc-06', annotator='ann-d', "
                                         "label='lab-1'"):
        function(da.copy(data=values))
    two = decisions(22, n_annotators=2).astype(np.uint8)
    assert function(two) is not None


# --------------------------------------------------------------------------- report sections


def _report_section(text, title):
    """The text of one numbered section of a plain-text report."""
    import re

    start = text.index(title)
    end = re.search(r"\n\n\d+\. ", text[start:])
    return text[start:] if end is None else text[start:start + end.start()]


def _flowing(text):
    return " ".join(text.split())


def test_wilson_bound_matches_statsmodels():
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    from xr_agreement.report.diagnostics import _rate_lower_bound

    for count, pairs in [(1, 1), (90, 100), (3, 7), (533, 1978), (2, 2)]:
        lower, _ = proportion.proportion_confint(count, pairs, alpha=0.05, method="wilson")
        assert _rate_lower_bound(count, pairs) == pytest.approx(lower, rel=1e-9)


def test_report_ranks_substitutions_by_the_pairs_behind_the_rate():
    # two annotators: once, "ant" where the other chose "bee" (rate 1 from one pair); 100
    # times "cat" where the other chose "dog", 11 times "cat" where the other chose "elk"
    # (cat -> dog: 100 of 111 pairs, 0.90)
    labels = ["ant", "bee", "cat", "dog", "elk"]
    rows = [("ant", "bee")] + [("cat", "dog")] * 100 + [("cat", "elk")] * 11
    values = np.zeros((len(rows), 2, len(labels)))
    for i, (first, second) in enumerate(rows):
        values[i, 0, labels.index(first)] = 1
        values[i, 1, labels.index(second)] = 1
    values[5, 1, 4] = np.nan  # a missing decision: the pair is not counted for elk there
    da = xr.DataArray(values, dims=("item", "annotator", "label"), coords={
        "item": [f"doc-{i}" for i in range(len(rows))], "annotator": ["ann", "bob"],
        "label": labels})
    text = _report_section(str(xr_agreement.report(da)), "Labels confused with each other")
    order = [tuple(line.split()[:2]) for line in text.splitlines()
             if line.split()[:1] and line.split()[0] in labels]
    assert order.index(("cat", "dog")) < order.index(("ant", "bee"))
    assert order.index(("dog", "cat")) < order.index(("ant", "bee"))
    assert "Ordered by the lower end of the rate's 95% Wilson interval" in _flowing(text)
    # the rate itself is shown as counted: 100 substitutions of 111 disagreeing pairs
    row = next(line for line in text.splitlines() if line.split()[:2] == ["cat", "dog"])
    assert row.split()[2:] == ["100", "111", f"{100 / 111:.3f}"]


def test_report_lists_the_annotators_worth_talking_to():
    # 24 careful annotators and two who guess: with 26 annotators the text lists 10
    rng = np.random.default_rng(40)
    n_items, k = 150, 4
    truth = rng.random((n_items, 1, k)) < 0.3
    errors = np.full(26, 0.05)
    errors[[7, 19]] = 0.45
    values = (truth ^ (rng.random((n_items, 26, k)) < errors[None, :, None])).astype(float)
    values[rng.random(values.shape) < 0.6] = np.nan
    ids = [f"coder-{a:02d}" for a in range(26)]
    da = xr.DataArray(values, dims=("item", "annotator", "label"),
                      coords={"annotator": ids, "label": [f"code-{j}" for j in range(k)]})
    text = _report_section(str(xr_agreement.report(da)), "Annotators")
    assert "26 annotators: listed here are the 10 most worth talking to" in _flowing(text)
    assert "16 are left out of these tables" in _flowing(text)
    listed = [line.split()[0] for line in text.splitlines()
              if line.split()[:1] and line.split()[0] in ids]
    table, pairs = listed[:10], listed[10:]
    assert pairs == table  # the pair table shows the same 10
    header = next(line for line in text.splitlines() if line.startswith("annotator  coder-"))
    assert header.split()[1:] == table
    # independently: the 5 whose removal raises mla most, then the lowest observed agreement
    corpus = float(xr_agreement.mla(da).agreement)
    gain = {name: float(xr_agreement.mla(da.drop_sel(annotator=name)).agreement) - corpus
            for name in ids}
    by_gain = sorted(ids, key=lambda name: -gain[name])[:5]
    observed = brute_annotators(da.values)["annotator_observed"]
    rest = sorted((name for name in ids if name not in by_gain),
                  key=lambda name: observed[ids.index(name)])
    assert table == by_gain + rest[:5]
    assert {"coder-07", "coder-19"} <= set(by_gain)
