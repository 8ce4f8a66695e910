"""Annotator and label diagnostics (issue 15) against a brute-force oracle.

The oracle below is written from the definitions of ``annotators``, ``confusions`` and
``disagreements`` only, as explicit Python loops over items, ordered annotator pairs and
labels on plain numpy (``x[i, r, l]``: decision of annotator ``r`` on item ``i`` and label
``l``; NaN = no decision). Quantities defined through ``mla`` (``pair_agreement``,
``agreement_without``, ``item_observed``) are compared with ``mla`` called on the sub-array.
The paper's worked example is also checked against values derived by hand from its table.
"""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from laziness import raise_if_dask_computes

RTOL = 1e-10
DIMS = ("item", "annotator", "label")


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def string_coords(n_items, n_annotators, n_labels):
    return {
        "item": [f"doc-{i:03d}" for i in range(n_items)],
        "annotator": [f"ann-{chr(ord('a') + r)}" for r in range(n_annotators)],
        "label": [f"topic-{j}" for j in range(n_labels)],
    }


def random_decisions(seed, n_items=24, n_annotators=4, n_labels=5, missing=False, dtype="float64"):
    """0/1 decisions; with ``missing``, single cells and whole items skipped (NaN)."""
    rng = np.random.default_rng(seed)
    prevalence = rng.uniform(0.15, 0.6, n_labels)
    values = (rng.random((n_items, n_annotators, n_labels)) < prevalence).astype(np.float64)
    if missing:
        values[rng.random(values.shape) < 0.12] = np.nan
        # annotators who skip whole items
        values[rng.random((n_items, n_annotators)) < 0.2, :] = np.nan
    da = xr.DataArray(values, dims=DIMS, coords=string_coords(n_items, n_annotators, n_labels))
    if not missing:
        da = da.astype(dtype)
    return da


def with_label_names(da):
    names = [f"Topic {j} (long name)" for j in range(da.sizes["label"])]
    return da.assign_coords(label_name=("label", names))


def with_rounds(seed, missing=True):
    """Two rounds of decisions along a leading extra dim ``round``."""
    first = random_decisions(seed, n_items=18, missing=missing)
    second = random_decisions(seed + 1000, n_items=18, missing=missing)
    return xr.concat([first, second], dim=pd.Index(["round-1", "round-2"], name="round"))


def disjoint_pair_decisions():
    """ann-c and ann-d never decide the same item: their pair shares no cell."""
    da = random_decisions(7, n_items=16, n_annotators=4, n_labels=4)
    values = da.values.copy()
    values[:8, 2, :] = np.nan
    values[8:, 3, :] = np.nan
    return da.copy(data=values)


# ---------------------------------------------------------------------------
# the oracle: explicit loops on plain numpy
# ---------------------------------------------------------------------------


def decided(v):
    return not np.isnan(v)


def oracle_pairs(x):
    """Shared and agreeing (item, label) cells of every ordered pair r != s."""
    n_items, n_annotators, n_labels = x.shape
    shared = np.zeros((n_annotators, n_annotators), dtype=np.int64)
    agreeing = np.zeros((n_annotators, n_annotators), dtype=np.int64)
    for r in range(n_annotators):
        for s in range(n_annotators):
            if r == s:
                continue
            for i in range(n_items):
                for lab in range(n_labels):
                    a, b = x[i, r, lab], x[i, s, lab]
                    if decided(a) and decided(b):
                        shared[r, s] += 1
                        if a == b:
                            agreeing[r, s] += 1
    return shared, agreeing


def oracle_annotators(x):
    n_items, n_annotators, n_labels = x.shape
    shared, agreeing = oracle_pairs(x)
    pair_observed = np.full((n_annotators, n_annotators), np.nan)
    for r in range(n_annotators):
        for s in range(n_annotators):
            if r != s and shared[r, s] > 0:
                pair_observed[r, s] = agreeing[r, s] / shared[r, s]
    annotator_observed = np.full(n_annotators, np.nan)
    for r in range(n_annotators):
        total_agreeing = sum(agreeing[r, s] for s in range(n_annotators) if s != r)
        total_shared = sum(shared[r, s] for s in range(n_annotators) if s != r)
        if total_shared > 0:
            annotator_observed[r] = total_agreeing / total_shared
    prevalence = np.full((n_annotators, n_labels), np.nan)
    for r in range(n_annotators):
        for lab in range(n_labels):
            ones = 0
            deciding_items = 0
            for i in range(n_items):
                if decided(x[i, r, lab]):
                    deciding_items += 1
                    ones += int(x[i, r, lab] == 1)
            if deciding_items > 0:
                prevalence[r, lab] = ones / deciding_items
    n_items_annotated = np.zeros(n_annotators, dtype=np.int64)
    for r in range(n_annotators):
        for i in range(n_items):
            if any(decided(x[i, r, lab]) for lab in range(n_labels)):
                n_items_annotated[r] += 1
    return {
        "shared": shared,
        "pair_observed": pair_observed,
        "annotator_observed": annotator_observed,
        "annotator_prevalence": prevalence,
        "n_items_annotated": n_items_annotated,
    }


def oracle_confusions(x):
    n_items, n_annotators, n_labels = x.shape
    co_selection = np.zeros((n_labels, n_labels), dtype=np.int64)
    substitution = np.zeros((n_labels, n_labels), dtype=np.int64)
    n_disagreeing = np.zeros((n_labels, n_labels), dtype=np.int64)
    for i in range(n_items):
        for r in range(n_annotators):
            for s in range(n_annotators):
                if r == s:
                    continue
                for a in range(n_labels):
                    for b in range(n_labels):
                        cells = (x[i, r, a], x[i, r, b], x[i, s, a], x[i, s, b])
                        if not all(decided(v) for v in cells):
                            continue
                        ra, rb, sa, sb = cells
                        if ra == 1 and sb == 1:
                            co_selection[a, b] += 1
                        if a != b and ra == 1 and rb == 0 and sb == 1 and sa == 0:
                            substitution[a, b] += 1
                        if ra == 1 and sa == 0:
                            n_disagreeing[a, b] += 1
    rate = np.full((n_labels, n_labels), np.nan)
    for a in range(n_labels):
        for b in range(n_labels):
            if a != b and n_disagreeing[a, b] > 0:
                rate[a, b] = substitution[a, b] / n_disagreeing[a, b]
    return {
        "co_selection": co_selection,
        "substitution": substitution,
        "n_disagreeing_pairs": n_disagreeing,
        "substitution_rate": rate,
    }


def oracle_disagreement_rows(x, items, annotators, labels, item_observed):
    """Unsorted rows (item index, label index, counts, annotator tuples, item_observed)."""
    n_items, n_annotators, n_labels = x.shape
    rows = []
    for i in range(n_items):
        for lab in range(n_labels):
            positive, negative, undecided = [], [], 0
            for r in range(n_annotators):
                v = x[i, r, lab]
                if not decided(v):
                    undecided += 1
                elif v == 1:
                    positive.append(annotators[r])
                else:
                    negative.append(annotators[r])
            if positive and negative:
                rows.append(
                    {
                        "i": i,
                        "lab": lab,
                        "item": items[i],
                        "label": labels[lab],
                        "n_positive": len(positive),
                        "n_negative": len(negative),
                        "n_undecided": undecided,
                        "positive_annotators": tuple(positive),
                        "negative_annotators": tuple(negative),
                        "item_observed": item_observed[i],
                    }
                )
    return rows


def plain(da):
    """The (item, annotator, label) values as float64 numpy (NaN kept)."""
    return np.asarray(da.transpose(*DIMS).values, dtype=np.float64)


def coord_list(da, dim):
    return list(da[dim].values)


# ---------------------------------------------------------------------------
# comparison helpers
# ---------------------------------------------------------------------------


def close(actual, expected, what):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(
        actual, expected, rtol=RTOL, atol=1e-12, equal_nan=True, err_msg=what
    )


def pair_matrix(ds, name, ids):
    """The variable as an (annotator_1, annotator_2) numpy matrix in the order of ``ids``."""
    var = ds[name]
    assert set(var.dims) >= {"annotator_1", "annotator_2"}, f"{name} dims {var.dims}"
    assert sorted(var["annotator_1"].values.tolist()) == sorted(ids)
    assert sorted(var["annotator_2"].values.tolist()) == sorted(ids)
    return var.sel(annotator_1=ids, annotator_2=ids).transpose("annotator_1", "annotator_2").values


def label_matrix(ds, name, labels):
    var = ds[name]
    assert set(var.dims) == {"label", "other_label"}, f"{name} dims {var.dims}"
    assert var["other_label"].values.tolist() == var["label"].values.tolist()
    return var.sel(label=labels, other_label=labels).transpose("label", "other_label").values


def check_annotators(ds, da, baseline="F"):
    """Every annotators() variable of one (item, annotator, label) array against the oracle."""
    x = plain(da)
    ids = coord_list(da, "annotator")
    labels = coord_list(da, "label")
    expected = oracle_annotators(x)

    close(ds["agreement"], xr_agreement.mla(da, baseline).agreement, "agreement")

    n_pairable = pair_matrix(ds, "pair_n_pairable_values", ids)
    off_diagonal = ~np.eye(len(ids), dtype=bool)
    close(n_pairable[off_diagonal], expected["shared"][off_diagonal], "pair_n_pairable_values")

    observed = pair_matrix(ds, "pair_observed", ids)
    close(observed, expected["pair_observed"], "pair_observed")
    close(observed, observed.T, "pair_observed symmetric")

    pair_agreement = pair_matrix(ds, "pair_agreement", ids)
    for r in range(len(ids)):
        assert np.isnan(pair_agreement[r, r]), f"pair_agreement diagonal at {ids[r]!r}"
        for s in range(len(ids)):
            if r != s:
                sub = da.isel(annotator=[r, s])
                close(
                    pair_agreement[r, s],
                    xr_agreement.mla(sub, baseline).agreement,
                    f"pair_agreement {ids[r]} x {ids[s]}",
                )

    var = ds["annotator_observed"]
    close(var.sel(annotator=ids), expected["annotator_observed"], "annotator_observed")

    for r, ann in enumerate(ids):
        without = xr_agreement.mla(da.drop_sel(annotator=ann), baseline).agreement
        close(ds["agreement_without"].sel(annotator=ann), without, f"agreement_without {ann}")

    prevalence = ds["annotator_prevalence"].sel(annotator=ids, label=labels)
    prevalence = prevalence.transpose("annotator", "label")
    close(prevalence, expected["annotator_prevalence"], "annotator_prevalence")

    n_items = ds["n_items_annotated"].sel(annotator=ids)
    close(n_items, expected["n_items_annotated"], "n_items_annotated")


def check_confusions(ds, da):
    x = plain(da)
    labels = coord_list(da, "label")
    expected = oracle_confusions(x)
    for name, values in expected.items():
        close(label_matrix(ds, name, labels), values, name)


# ---------------------------------------------------------------------------
# a case small enough to derive by hand (checks the oracle as well)
# ---------------------------------------------------------------------------


def tiny_decisions():
    """doc-000: ann-a {topic-0}, ann-b {topic-1}, ann-c skipped the item;
    doc-001: ann-a {topic-0, topic-1}, ann-b {topic-0}, ann-c {topic-0}, no decision on topic-2."""
    n = np.nan
    values = np.array(
        [
            [[1, 0, 0], [0, 1, 0], [n, n, n]],
            [[1, 1, 0], [1, 0, 0], [1, 0, n]],
        ]
    )
    return xr.DataArray(values, dims=DIMS, coords=string_coords(2, 3, 3))


# Derived on paper from tiny_decisions (rows a, columns b of [a, b]).
TINY_CONFUSIONS = {
    "co_selection": [[6, 3, 0], [3, 0, 0], [0, 0, 0]],
    "substitution": [[0, 1, 0], [1, 0, 0], [0, 0, 0]],
    "n_disagreeing_pairs": [[1, 1, 1], [3, 3, 2], [0, 0, 0]],
    "substitution_rate": [[np.nan, 1.0, 0.0], [1 / 3, np.nan, 0.0], [np.nan, np.nan, np.nan]],
}
TINY_ANNOTATORS = {
    "pair_n_pairable_values": [[np.nan, 6, 2], [6, np.nan, 2], [2, 2, np.nan]],
    "pair_observed": [[np.nan, 3 / 6, 1 / 2], [3 / 6, np.nan, 2 / 2], [1 / 2, 2 / 2, np.nan]],
    "annotator_observed": [4 / 8, 5 / 8, 3 / 4],
    "annotator_prevalence": [[1.0, 0.5, 0.0], [0.5, 0.5, 0.0], [1.0, 0.0, np.nan]],
    "n_items_annotated": [2, 2, 1],
}


def test_oracle_on_hand_derived_case():
    x = plain(tiny_decisions())
    for name, values in oracle_confusions(x).items():
        close(values, TINY_CONFUSIONS[name], f"oracle {name}")
    expected = oracle_annotators(x)
    shared = expected["shared"].astype(float)
    np.fill_diagonal(shared, np.nan)
    close(shared, TINY_ANNOTATORS["pair_n_pairable_values"], "oracle shared")
    for name in (
        "pair_observed",
        "annotator_observed",
        "annotator_prevalence",
        "n_items_annotated",
    ):
        close(expected[name], TINY_ANNOTATORS[name], f"oracle {name}")


def test_oracle_pair_observed_is_mla_observed_of_the_pair():
    # With two annotators, mla's observed agreement is the agreeing share of their shared cells.
    da = random_decisions(8, n_annotators=4, missing=True)
    expected = oracle_annotators(plain(da))["pair_observed"]
    for r in range(4):
        for s in range(4):
            if r != s:
                observed = xr_agreement.mla(da.isel(annotator=[r, s])).observed
                close(observed, expected[r, s], f"pair {r}, {s}")


def test_confusions_hand_derived():
    da = tiny_decisions()
    ds = xr_agreement.confusions(da)
    for name, values in TINY_CONFUSIONS.items():
        close(label_matrix(ds, name, coord_list(da, "label")), values, name)


def test_annotators_hand_derived():
    da = tiny_decisions()
    ds = xr_agreement.annotators(da)
    ids = coord_list(da, "annotator")
    off_diagonal = ~np.eye(3, dtype=bool)
    n_pairable = pair_matrix(ds, "pair_n_pairable_values", ids)
    by_hand = np.asarray(TINY_ANNOTATORS["pair_n_pairable_values"])
    close(n_pairable[off_diagonal], by_hand[off_diagonal], "pair_n_pairable_values")
    close(pair_matrix(ds, "pair_observed", ids), TINY_ANNOTATORS["pair_observed"], "pair_observed")
    observed = ds["annotator_observed"].sel(annotator=ids)
    close(observed, TINY_ANNOTATORS["annotator_observed"], "annotator_observed")
    prevalence = ds["annotator_prevalence"].sel(annotator=ids).transpose("annotator", "label")
    close(prevalence, TINY_ANNOTATORS["annotator_prevalence"], "annotator_prevalence")
    n_items = ds["n_items_annotated"].sel(annotator=ids)
    close(n_items, TINY_ANNOTATORS["n_items_annotated"], "n_items_annotated")


def test_disagreements_hand_derived():
    table = xr_agreement.disagreements(tiny_decisions())
    assert table["item"].tolist() == ["doc-000", "doc-000", "doc-001"]
    assert table["label"].tolist() == ["topic-0", "topic-1", "topic-1"]
    assert table["n_positive"].tolist() == [1, 1, 1]
    assert table["n_negative"].tolist() == [1, 1, 2]
    assert table["n_undecided"].tolist() == [1, 1, 0]
    assert table["positive_annotators"].tolist() == [("ann-a",), ("ann-b",), ("ann-a",)]
    assert table["negative_annotators"].tolist() == [("ann-b",), ("ann-a",), ("ann-b", "ann-c")]
    # doc-000: 1 of the 3 comparisons of ann-a with ann-b agrees; doc-001: 2 + 1 + 2 of 3 + 2 + 2
    close(table["item_observed"], [1 / 3, 1 / 3, 5 / 7], "item_observed")


# ---------------------------------------------------------------------------
# annotators()
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "bool", "float64"])
def test_annotators_complete(dtype):
    da = random_decisions(1, dtype=dtype)
    check_annotators(xr_agreement.annotators(da), da)


@pytest.mark.parametrize("seed", [2, 3])
def test_annotators_missing(seed):
    da = random_decisions(seed, n_annotators=5, missing=True)
    assert np.isnan(da.values).any()
    check_annotators(xr_agreement.annotators(da), da)


@pytest.mark.parametrize("baseline", ["AC1", "PB"])
def test_annotators_other_baselines(baseline):
    da = random_decisions(4, missing=True)
    check_annotators(xr_agreement.annotators(da, baseline), da, baseline)


def test_annotators_pair_sharing_no_cell():
    da = disjoint_pair_decisions()
    ds = xr_agreement.annotators(da)
    check_annotators(ds, da)
    cell = dict(annotator_1="ann-c", annotator_2="ann-d")
    assert np.isnan(float(ds["pair_observed"].sel(cell)))
    assert np.isnan(float(ds["pair_agreement"].sel(cell)))
    assert int(ds["pair_n_pairable_values"].sel(cell)) == 0


def test_annotators_extra_dim():
    da = with_rounds(5)
    ds = xr_agreement.annotators(da)
    assert "round" in ds["pair_observed"].dims
    assert "round" in ds["annotator_observed"].dims
    assert "round" in ds["agreement"].dims
    for rnd in da["round"].values:
        check_annotators(ds.sel(round=rnd), da.sel(round=rnd))


def test_annotators_worked_example():
    da = xr_agreement.datasets.bias_example()
    ds = xr_agreement.annotators(da)
    check_annotators(ds, da)
    # By hand from the example's table: labels on which the annotators differ, per item
    # (items 1..4): annotators 1,2: 0+5+4+5 = 14; 1,3: 0+4+2+4 = 10; 2,3: 0+1+2+5 = 8;
    # out of 4 x 31 = 124 shared cells per pair.
    observed = ds["pair_observed"]
    assert float(observed.sel(annotator_1=1, annotator_2=2)) == pytest.approx(110 / 124, rel=RTOL)
    assert float(observed.sel(annotator_1=3, annotator_2=1)) == pytest.approx(114 / 124, rel=RTOL)
    assert float(observed.sel(annotator_1=2, annotator_2=3)) == pytest.approx(116 / 124, rel=RTOL)
    per_annotator = {1: (110 + 114) / 248, 2: (110 + 116) / 248, 3: (114 + 116) / 248}
    for ann, value in per_annotator.items():
        assert float(ds["annotator_observed"].sel(annotator=ann)) == pytest.approx(value, rel=RTOL)
    assert ds["n_items_annotated"].values.tolist() == [4, 4, 4]
    # label 29: annotator 1 never chose it, annotator 2 on items 2 and 4, annotator 3 on item 2
    prevalence = ds["annotator_prevalence"].sel(label=29)
    close(prevalence.sel(annotator=[1, 2, 3]), [0.0, 0.5, 0.25], "annotator_prevalence label 29")


def test_annotators_drifting_annotator_singled_out():
    # Latent vectors from simulate("perfect") (every annotator identical), then each
    # annotator flips each decision with probability e, the drifter with 3e.
    n_items, n_annotators, n_labels, e = 400, 5, 8, 0.04
    latent = xr_agreement.simulate("perfect", n_items, n_annotators, n_labels, 0.3, seed=11)
    rng = np.random.default_rng(12)
    flip_probability = np.full(n_annotators, e)
    flip_probability[2] = 3 * e
    flips = rng.random(latent.shape) < flip_probability[None, :, None]
    values = np.where(flips, 1 - latent.values, latent.values).astype(np.uint8)
    coords = string_coords(n_items, n_annotators, n_labels)
    da = xr.DataArray(values, dims=latent.dims, coords=coords)
    drifter = coords["annotator"][2]

    ds = xr_agreement.annotators(da)
    assert ds["agreement_without"].idxmax("annotator").item() == drifter
    assert ds["annotator_observed"].idxmin("annotator").item() == drifter
    assert float(ds["agreement_without"].sel(annotator=drifter)) > float(ds["agreement"])
    # every pair that includes the drifter agrees less than every pair without it
    observed = ds["pair_observed"]
    others = [a for a in coords["annotator"] if a != drifter]
    with_drifter = observed.sel(annotator_1=drifter, annotator_2=others)
    without_drifter = observed.sel(annotator_1=others, annotator_2=others)
    assert float(with_drifter.max()) < float(without_drifter.min())


# ---------------------------------------------------------------------------
# confusions()
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "bool", "float64"])
def test_confusions_complete(dtype):
    da = random_decisions(21, dtype=dtype)
    check_confusions(xr_agreement.confusions(da), da)


@pytest.mark.parametrize("seed", [22, 23])
def test_confusions_missing(seed):
    da = random_decisions(seed, n_annotators=5, missing=True)
    check_confusions(xr_agreement.confusions(da), da)


def test_confusions_diagonal():
    da = random_decisions(24, missing=True)
    ds = xr_agreement.confusions(da)
    diagonal = np.diag(label_matrix(ds, "substitution", coord_list(da, "label")))
    assert (diagonal == 0).all()
    rate = label_matrix(ds, "substitution_rate", coord_list(da, "label"))
    assert np.isnan(np.diag(rate)).all()


def test_confusions_extra_dim():
    da = with_rounds(25)
    ds = xr_agreement.confusions(da)
    assert "round" in ds["co_selection"].dims
    for rnd in da["round"].values:
        one_round = ds.sel(round=rnd)
        check_confusions(one_round.drop_vars("round", errors="ignore"), da.sel(round=rnd))


def test_confusions_worked_example():
    da = xr_agreement.datasets.bias_example()
    ds = xr_agreement.confusions(da)
    check_confusions(ds, da)
    # By hand, item 2: annotator 1 chose {22, 23}, 2 chose {27, 29, 31}, 3 chose {29, 31};
    # no other item has 22 without 29 against someone with 29 without 22 (item 4: annotator
    # 2 has both). Ordered pairs (1, 2) and (1, 3) swap 22 for 29: substitution 2.
    assert int(ds["substitution"].sel(label=22, other_label=29)) == 2
    assert int(ds["substitution"].sel(label=29, other_label=22)) == 2


def test_confusions_swapped_labels_rank_first():
    n_items, n_annotators, n_labels = 300, 5, 6
    latent = xr_agreement.simulate("perfect", n_items, n_annotators, n_labels, 0.3, seed=31)
    rng = np.random.default_rng(32)
    values = latent.values.copy()
    flips = rng.random(values.shape) < 0.03
    values = np.where(flips, 1 - values, values)
    swap_a, swap_b = 1, 4
    # annotators ann-b and ann-e read topic-1 as topic-4 and vice versa on half of the items
    for r in (1, 4):
        on = rng.random(n_items) < 0.5
        a_values = values[on, r, swap_a].copy()
        values[on, r, swap_a] = values[on, r, swap_b]
        values[on, r, swap_b] = a_values
    coords = string_coords(n_items, n_annotators, n_labels)
    da = xr.DataArray(values.astype(np.uint8), dims=latent.dims, coords=coords)

    ds = xr_agreement.confusions(da)
    labels = coords["label"]
    rate = label_matrix(ds, "substitution_rate", labels)
    off = ~np.eye(n_labels, dtype=bool)
    ranked = sorted(
        (
            (rate[a, b], labels[a], labels[b])
            for a in range(n_labels)
            for b in range(n_labels)
            if off[a, b]
        ),
        reverse=True,
    )
    top_two = {(ranked[0][1], ranked[0][2]), (ranked[1][1], ranked[1][2])}
    assert top_two == {(labels[swap_a], labels[swap_b]), (labels[swap_b], labels[swap_a])}


# ---------------------------------------------------------------------------
# disagreements()
# ---------------------------------------------------------------------------

TAIL_COLUMNS = [
    "n_positive",
    "n_negative",
    "n_undecided",
    "positive_annotators",
    "negative_annotators",
    "item_observed",
]


def expected_disagreements(da):
    """Oracle rows of one (item, annotator, label) array, sorted as the contract says."""
    item_observed = xr_agreement.mla(da).item_observed.values
    rows = oracle_disagreement_rows(
        plain(da),
        coord_list(da, "item"),
        coord_list(da, "annotator"),
        coord_list(da, "label"),
        item_observed,
    )
    return sorted(rows, key=lambda row: (row["item_observed"], row["i"], row["lab"]))


def check_rows(table, rows):
    assert len(table) == len(rows)
    for k, row in enumerate(rows):
        got = table.iloc[k]
        where = f"row {k} ({row['item']!r}, {row['label']!r})"
        assert got["item"] == row["item"], where
        assert got["label"] == row["label"], where
        for name in ("n_positive", "n_negative", "n_undecided"):
            assert int(got[name]) == row[name], f"{where}: {name}"
        for name in ("positive_annotators", "negative_annotators"):
            assert isinstance(got[name], tuple), f"{where}: {name} is {type(got[name])}"
            assert got[name] == row[name], f"{where}: {name}"
        assert got["item_observed"] == pytest.approx(row["item_observed"], rel=RTOL), where


@pytest.mark.parametrize("missing", [False, True])
def test_disagreements_random(missing):
    da = random_decisions(41, n_annotators=5, missing=missing)
    table = xr_agreement.disagreements(da)
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == ["item", "label", *TAIL_COLUMNS]
    assert list(table.index) == list(range(len(table)))
    rows = expected_disagreements(da)
    assert rows, "the test data must hold disagreements"
    check_rows(table, rows)


def test_disagreements_label_name_column():
    da = with_label_names(random_decisions(42, missing=True))
    table = xr_agreement.disagreements(da)
    assert list(table.columns) == ["item", "label", "label_name", *TAIL_COLUMNS]
    names = dict(zip(da["label"].values.tolist(), da["label_name"].values.tolist()))
    assert [names[lab] for lab in table["label"]] == table["label_name"].tolist()
    check_rows(table, expected_disagreements(da))


def test_disagreements_extra_dim():
    da = with_rounds(43)
    table = xr_agreement.disagreements(da)
    assert list(table.columns) == ["round", "item", "label", *TAIL_COLUMNS]
    assert list(table.index) == list(range(len(table)))
    # The contract fixes the order within a round; across rounds it only says item_observed
    # ascending, so rounds are compared one by one and the global order checked on its own.
    assert np.all(np.diff(table["item_observed"].to_numpy(dtype=float)) >= 0)
    for rnd in da["round"].values:
        part = table[table["round"] == rnd].reset_index(drop=True)
        check_rows(part, expected_disagreements(da.sel(round=rnd)))


def test_disagreements_worked_example():
    da = xr_agreement.datasets.bias_example()
    table = xr_agreement.disagreements(da)
    assert list(table.columns) == ["item", "label", "label_name", *TAIL_COLUMNS]
    check_rows(table, expected_disagreements(da))
    # By hand: the item's pairs differ on (5, 4, 5) labels in item 4, (5, 4, 1) in item 2,
    # (4, 2, 2) in item 3 and none in item 1, so item 4 (79/93) comes first, then item 2
    # (83/93), then item 3 (85/93); item 1 has no disagreement.
    assert table["item"].tolist() == [4] * 7 + [2] * 5 + [3] * 4
    assert table["label"].tolist() == [2, 17, 21, 22, 23, 29, 31, 22, 23, 27, 29, 31, 2, 3, 5, 22]
    close(table["item_observed"].iloc[[0, 7, 12]], [79 / 93, 83 / 93, 85 / 93], "item_observed")
    row = table[(table["item"] == 2) & (table["label"] == 29)].iloc[0]
    assert (row["n_positive"], row["n_negative"], row["n_undecided"]) == (2, 1, 0)
    assert row["positive_annotators"] == (2, 3)
    assert row["negative_annotators"] == (1,)


# ---------------------------------------------------------------------------
# dask, input untouched, bad input
# ---------------------------------------------------------------------------


def test_dask_same_values():
    da = random_decisions(51, n_items=40, n_annotators=4, missing=True)
    lazy = da.chunk({"item": 7})
    eager_confusions = xr_agreement.confusions(da)
    lazy_confusions = xr_agreement.confusions(lazy).compute()
    for name in ("co_selection", "substitution", "n_disagreeing_pairs", "substitution_rate"):
        close(lazy_confusions[name], eager_confusions[name], f"dask {name}")
    check_confusions(lazy_confusions, da)

    eager = xr_agreement.annotators(da)
    lazy_result = xr_agreement.annotators(lazy).compute()
    for name in (
        "agreement",
        "pair_n_pairable_values",
        "pair_observed",
        "pair_agreement",
        "annotator_observed",
        "agreement_without",
        "annotator_prevalence",
        "n_items_annotated",
    ):
        close(lazy_result[name], eager[name].transpose(*lazy_result[name].dims), f"dask {name}")
    check_annotators(lazy_result, da)


def test_dask_extra_dim_same_values():
    da = with_rounds(52)
    lazy = da.chunk({"item": 5})
    eager = xr_agreement.confusions(da)["substitution"]
    lazy_substitution = xr_agreement.confusions(lazy)["substitution"].compute()
    close(lazy_substitution.transpose(*eager.dims), eager, "dask substitution with round")
    eager = xr_agreement.annotators(da)["pair_observed"]
    lazy_observed = xr_agreement.annotators(lazy)["pair_observed"].compute()
    close(lazy_observed.transpose(*eager.dims), eager, "dask pair_observed")


def test_dask_disagreements_same_table():
    da = random_decisions(54, n_items=30, missing=True)
    eager = xr_agreement.disagreements(da)
    lazy = xr_agreement.disagreements(da.chunk({"item": 7}))
    pd.testing.assert_frame_equal(lazy, eager)
    check_rows(lazy, expected_disagreements(da))


@pytest.mark.parametrize("function", ["annotators", "confusions", "disagreements"])
def test_accessor_same_as_function(function):
    da = random_decisions(55, missing=True)
    by_accessor = getattr(da.agreement, function)()
    by_function = getattr(xr_agreement, function)(da)
    if function == "disagreements":
        pd.testing.assert_frame_equal(by_accessor, by_function)
    else:
        xr.testing.assert_identical(by_accessor, by_function)


@pytest.mark.parametrize("function", ["annotators", "confusions"])
def test_dask_graph_computes_nothing(function):
    # The issue: on dask "block by block like MLA"; building the graph must not compute.
    lazy = random_decisions(53, n_items=30, missing=True).chunk({"item": 8})
    with raise_if_dask_computes():
        result = getattr(xr_agreement, function)(lazy)
    name = "substitution" if function == "confusions" else "pair_observed"
    assert result[name].chunks is not None, f"{function}: {name} is not a dask array"


def test_annotator_without_decisions_and_label_nobody_decided():
    da = random_decisions(9, n_annotators=4, missing=True)
    values = da.values.copy()
    values[:, 3, :] = np.nan  # ann-d made no decision at all in this batch
    values[:, :, 2] = np.nan  # topic-2 was decided by nobody
    da = da.copy(data=values)
    ds = xr_agreement.annotators(da)
    check_annotators(ds, da)
    assert np.isnan(float(ds["annotator_observed"].sel(annotator="ann-d")))
    assert int(ds["n_items_annotated"].sel(annotator="ann-d")) == 0
    check_confusions(xr_agreement.confusions(da), da)
    check_rows(xr_agreement.disagreements(da), expected_disagreements(da))


def test_extra_dim_last():
    da = with_rounds(26).transpose("item", "annotator", "label", "round")
    annotators = xr_agreement.annotators(da)
    confusions = xr_agreement.confusions(da)
    for rnd in da["round"].values:
        check_annotators(annotators.sel(round=rnd), da.sel(round=rnd))
        check_confusions(confusions.sel(round=rnd), da.sel(round=rnd))


@pytest.mark.parametrize("function", ["annotators", "confusions", "disagreements"])
def test_input_not_modified(function):
    da = with_label_names(random_decisions(61, missing=True))
    da.attrs["note"] = "kept"
    before = da.copy(deep=True)
    getattr(xr_agreement, function)(da)
    xr.testing.assert_identical(da, before)


@pytest.mark.parametrize("function", ["annotators", "confusions", "disagreements"])
def test_missing_dim_named(function):
    da = random_decisions(62).rename(item="sentence")
    with pytest.raises(ValueError, match="item"):
        getattr(xr_agreement, function)(da)


@pytest.mark.parametrize("function", ["annotators", "confusions", "disagreements"])
def test_bad_value_named(function):
    da = random_decisions(63, missing=True)
    values = da.values.copy()
    values[3, 1, 2] = 2.0
    bad = da.copy(data=values)
    with pytest.raises(ValueError) as error:
        getattr(xr_agreement, function)(bad)
    message = str(error.value)
    for part in ("2", "doc-003", "ann-b", "topic-2"):
        assert part in message, f"{part!r} not in {message!r}"


def test_other_dim_names():
    # Other dim names via item=, annotator=, label=: the same numbers as with the defaults
    # (how the output dims are named then is not part of the contract tested here).
    da = random_decisions(64, missing=True)
    renamed = da.rename(item="sentence", annotator="coder", label="tag")
    names = dict(item="sentence", annotator="coder", label="tag")

    expected = oracle_annotators(plain(da))
    result = xr_agreement.annotators(renamed, **names)
    observed = np.sort(result["annotator_observed"].values)
    close(observed, np.sort(expected["annotator_observed"]), "renamed annotator_observed")

    expected = oracle_confusions(plain(da))
    result = xr_agreement.confusions(renamed, **names)
    substitution = np.sort(result["substitution"].values.ravel())
    close(substitution, np.sort(expected["substitution"].ravel()), "renamed substitution")

    table = xr_agreement.disagreements(renamed, **names)
    assert len(table) == len(expected_disagreements(da))
