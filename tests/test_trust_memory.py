"""Issue 28, section 5: the annotator diagnostics of a crowd design (thousands of workers,
a few on each task) cost memory in proportion to the pairs who annotated common items, not
to n^2, with the same numbers as the dense counts.

The sparse pair counts (``counts.sparse_sums``) are checked against the brute-force oracle
of ``test_diagnostics_oracle`` (explicit loops; ``mla`` on each pair's and each
leave-one-out sub-array) and against the dense counts on the same arrays, bit for bit.
"""

import json
import sys
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from test_diagnostics_oracle import check_annotators
from xr_agreement.diagnostics.annotators import pair_table
from xr_agreement.diagnostics.counts import sparse_pairs_cheaper, sparse_sums
from xr_agreement.report import diagnostics as report_diagnostics

ANNOTATORS_MODULE = sys.modules["xr_agreement.diagnostics.annotators"]
DIMS = ("item", "annotator", "label")


def crowd_decisions(n_items=60, n_annotators=25, n_labels=4, per_item=3, seed=0,
                    lost=0.1, skipped_cells=0.05):
    """A crowd design as crowd-kit's ``task, worker, label`` tables give it: each item
    decided by ``per_item`` workers drawn from many (string ids), some items with an answer
    lost (one worker fewer), a few single (item, label) cells not decided, and one item
    nobody decided; NaN elsewhere."""
    rng = np.random.default_rng(seed)
    values = np.full((n_items, n_annotators, n_labels), np.nan)
    for i in range(1, n_items):  # item 0: nobody
        workers = rng.choice(n_annotators, per_item, replace=False)
        if rng.random() < lost:
            workers = workers[:-1]
        values[i, workers] = rng.random((len(workers), n_labels)) < 0.3
    decided = ~np.isnan(values)
    values[decided & (rng.random(values.shape) < skipped_cells)] = np.nan
    return xr.DataArray(values, dims=DIMS, coords={
        "item": [f"task-{i:04d}" for i in range(n_items)],
        "annotator": [f"worker {r:04d}" for r in range(n_annotators)],
        "label": [f"label-{j}" for j in range(n_labels)]})


@pytest.fixture
def pair_counts():
    """Set annotators()' choice of pair counts ("dense", "sparse"), restored after."""
    before = ANNOTATORS_MODULE.PAIR_COUNTS

    def choose(choice):
        ANNOTATORS_MODULE.PAIR_COUNTS = choice

    yield choose
    ANNOTATORS_MODULE.PAIR_COUNTS = before


def dense_and_sparse(pair_counts, da, **options):
    pair_counts("dense")
    dense = xr_agreement.annotators(da, **options)
    pair_counts("sparse")
    sparse = xr_agreement.annotators(da, **options)
    pair_counts("auto")
    return dense, sparse


def visits(da):
    """Pairs visited item by item, counted by hand: d (d - 1) / 2 for the d annotators
    deciding something on each item."""
    total = 0
    for i in range(da.sizes["item"]):
        d = sum(bool(np.any(~np.isnan(da.values[i, r]))) for r in range(da.sizes["annotator"]))
        total += d * (d - 1) // 2
    return total


# --------------------------------------------------------------------------- the rule


def test_the_rule_takes_sparse_counts_for_a_crowd_design_only():
    crowd = crowd_decisions()
    n = crowd.sizes["annotator"]
    assert visits(crowd) < n * (n - 1) // 2
    assert sparse_pairs_cheaper(visits(crowd), 1, n)
    assert sparse_sums(crowd, "item", "annotator", "label") is not None
    # every annotator on every item: each item visits every pair, the dense counts win
    complete = crowd.fillna(0)
    assert not sparse_pairs_cheaper(visits(complete), 1, n)
    assert sparse_sums(complete, "item", "annotator", "label") is None
    # integer decisions have nothing missing: dense
    assert sparse_sums(complete.astype("uint8"), "item", "annotator", "label") is None


def test_sparse_pair_keys_are_the_pairs_who_shared_an_item():
    crowd = crowd_decisions(n_items=30, n_annotators=20)
    sums, extra = sparse_sums(crowd, "item", "annotator", "label")
    assert extra == []
    n = crowd.sizes["annotator"]
    expected = set()
    for i in range(crowd.sizes["item"]):
        who = [r for r in range(n) if np.any(~np.isnan(crowd.values[i, r]))]
        expected |= {(r, s) for r in who for s in who if r < s}
    keys = sums["pair_keys"]
    assert sorted(zip((keys // n).tolist(), (keys % n).tolist())) == sorted(expected)
    # at most 3 workers an item, so no (item, label) cell has more than 3 deciders
    assert sums["without"].shape[-2] <= 4


# --------------------------------------------------------------------------- the numbers


def test_crowd_design_against_the_oracle():
    crowd = crowd_decisions(n_items=40, n_annotators=24, n_labels=3, seed=3)
    assert sparse_sums(crowd, "item", "annotator", "label") is not None  # the auto rule
    check_annotators(xr_agreement.annotators(crowd), crowd)


@pytest.mark.parametrize("baseline", ["AC1", "PB"])
def test_crowd_design_other_baselines_against_the_oracle(baseline):
    crowd = crowd_decisions(n_items=30, n_annotators=20, n_labels=3, seed=4)
    assert sparse_sums(crowd, "item", "annotator", "label") is not None
    check_annotators(xr_agreement.annotators(crowd, baseline), crowd, baseline)


@pytest.mark.parametrize("case", ["crowd", "two per item", "four per item", "all baselines",
                                  "float32", "two annotators", "whole items skipped",
                                  "no pair shares an item"])
def test_sparse_counts_give_the_dense_numbers(pair_counts, case):
    options = {}
    if case == "crowd":
        da = crowd_decisions(n_items=120, n_annotators=50, n_labels=5, seed=1)
    elif case == "two per item":
        da = crowd_decisions(n_items=80, n_annotators=30, per_item=2, seed=2)
    elif case == "four per item":
        da = crowd_decisions(n_items=80, n_annotators=10, per_item=4, seed=3)
    elif case == "all baselines":
        da = crowd_decisions(seed=5)
        options = {"baseline": "all"}
    elif case == "float32":
        da = crowd_decisions(seed=6).astype("float32")
    elif case == "two annotators":
        da = crowd_decisions(n_annotators=2, per_item=2, seed=7)
    elif case == "whole items skipped":  # dense: most deciders on a cell; sparse elsewhere
        da = crowd_decisions(n_annotators=6, per_item=6, seed=8, lost=0.5, skipped_cells=0.3)
    else:
        values = np.full((6, 4, 2), np.nan)
        values[0:3, 0] = values[3:6, 1] = 1.0  # never on the same item as anyone
        values[0, 2, 0] = 0.0
        values[5, 3, 1] = 1.0
        da = xr.DataArray(values, dims=DIMS)
    dense, sparse = dense_and_sparse(pair_counts, da, **options)
    xr.testing.assert_identical(sparse, dense)


def test_sparse_counts_on_integer_decisions_give_the_dense_numbers(pair_counts):
    da = xr_agreement.datasets.bias_example()
    dense, sparse = dense_and_sparse(pair_counts, da)
    xr.testing.assert_identical(sparse, dense)


@pytest.mark.parametrize("seed", range(40))
def test_sparse_counts_give_the_dense_numbers_on_small_random_designs(pair_counts, seed):
    """What annotators() accepts, small and varied: bool, integer and float input, two to
    five annotators, items nobody or one annotator decided, an extra dim, every baseline;
    the sparse counts forced (the rule takes them for crowd float input only)."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 8)), int(rng.integers(2, 6)), int(rng.integers(1, 4)))
    values = (rng.random(shape) < 0.4).astype(float)
    kind = ("bool", "int8", "float", "extra dim")[seed % 4]
    if kind in ("float", "extra dim"):
        values[rng.random(shape) < rng.random()] = np.nan
        values[rng.random(shape[:2]) < rng.random()] = np.nan  # whole items skipped
    da = xr.DataArray(values.astype(kind) if kind in ("bool", "int8") else values, dims=DIMS)
    if kind == "extra dim":
        other = values.copy()
        other[rng.random(shape) < 0.3] = np.nan
        da = xr.concat([da, da.copy(data=other)], dim="round").transpose(
            "item", "round", "annotator", "label")
    dense, sparse = dense_and_sparse(pair_counts, da, baseline="all")
    xr.testing.assert_identical(sparse, dense)


def test_sparse_counts_with_an_extra_dim(pair_counts):
    first = crowd_decisions(n_items=40, n_annotators=15, seed=10)
    second = crowd_decisions(n_items=40, n_annotators=15, seed=11, per_item=2)
    da = xr.concat([first, second], dim=pd.Index(["round-1", "round-2"], name="round"))
    da = da.transpose("item", "round", "annotator", "label")  # extra dim between others
    dense, sparse = dense_and_sparse(pair_counts, da, baseline=["F", "AC1"])
    xr.testing.assert_identical(sparse, dense)
    for name in ("round-1", "round-2"):
        check_annotators(sparse.sel(round=name, baseline="F"), da.sel(round=name))


def test_a_pair_sharing_no_item_is_as_today(pair_counts):
    crowd = crowd_decisions(n_items=20, n_annotators=30, seed=12)
    n = crowd.sizes["annotator"]
    shared = np.zeros((n, n), bool)
    for i in range(crowd.sizes["item"]):
        who = [r for r in range(n) if np.any(~np.isnan(crowd.values[i, r]))]
        shared[np.ix_(who, who)] = True
    r, s = np.argwhere(~shared)[0]
    cell = {"annotator_1": crowd.annotator.values[r], "annotator_2": crowd.annotator.values[s]}
    result = xr_agreement.annotators(crowd)
    assert int(result.pair_n_pairable_values.sel(cell)) == 0
    assert np.isnan(float(result.pair_observed.sel(cell)))
    assert np.isnan(float(result.pair_agreement.sel(cell)))


def test_an_invalid_value_is_named_as_by_the_dense_counts(pair_counts):
    crowd = crowd_decisions(n_items=20, n_annotators=30, seed=13)
    values = crowd.values.copy()
    i, r, j = np.argwhere(~np.isnan(values))[7]
    values[i, r, j] = 2.0
    bad = crowd.copy(data=values)
    messages = []
    for choice in ("dense", "sparse"):
        pair_counts(choice)
        with pytest.raises(ValueError) as error:
            xr_agreement.annotators(bad)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert f"annotator={str(crowd.annotator.values[r])!r}" in messages[1]


def test_the_report_is_the_same_with_sparse_counts(pair_counts):
    crowd = crowd_decisions(n_items=80, n_annotators=40, seed=14)
    texts = []
    for choice in ("dense", "sparse"):
        pair_counts(choice)
        texts.append(json.loads(xr_agreement.report(crowd).to_json()))
    assert texts[0] == texts[1]


# --------------------------------------------------------------------------- the memory


def test_crowd_design_memory_follows_the_pairs_not_n_squared():
    """1,500 workers, 3 on each of 300 tasks, 2 labels: the dense counts held (label, n, n)
    int64 three times over and the pair label counts (n, n, label, 3, 3) int64, over 400 MB
    traced; now the peak is the result's own dense pair matrices (and the decisions) plus
    little: the counts are kept for the ~900 pairs who shared a task."""
    crowd = crowd_decisions(n_items=300, n_annotators=1500, n_labels=2, lost=0.0,
                            skipped_cells=0.0, seed=15)
    xr_agreement.annotators(crowd.isel(item=slice(0, 10)))  # numba compiled outside the trace
    tracemalloc.start()
    try:
        result = xr_agreement.annotators(crowd)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.pair_n_pairable_values.shape == (1500, 1500)
    assert peak < result.nbytes + crowd.nbytes + 32 * 2**20, peak / 2**20


def test_pair_table_lists_the_pairs_sharing_a_cell_with_the_matrix_values(pair_counts):
    """The report's source: the pairs r < s with a shared decided cell, counted by hand,
    with annotators()' matrix values; on the dense path (forced) the same table."""
    crowd = crowd_decisions(n_items=50, n_annotators=30, seed=16)
    matrices = xr_agreement.annotators(crowd)
    decided = ~np.isnan(crowd.values)
    n = crowd.sizes["annotator"]
    expected = [(r, s) for r in range(n) for s in range(r + 1, n)
                if (decided[:, r] & decided[:, s]).any()]
    for choice in ("sparse", "dense"):
        pair_counts(choice)
        table = pair_table(crowd)
        found = list(zip(table.annotator_1.values.tolist(), table.annotator_2.values.tolist()))
        assert found == expected
        for name in ("pair_n_pairable_values", "pair_observed", "pair_agreement"):
            np.testing.assert_array_equal(
                table[name].values,
                [matrices[name].values[r, s] for r, s in expected])


# --------------------------------------------------------------------------- the report


@pytest.fixture
def few_pair_matrices(monkeypatch):
    """The report's facts take the "pairs" form above 10 annotators (1,000 in use)."""
    monkeypatch.setattr(report_diagnostics, "MAX_PAIR_MATRIX_ANNOTATORS", 10)


def test_report_facts_of_many_annotators_list_the_pairs(few_pair_matrices):
    crowd = crowd_decisions(n_items=60, n_annotators=40, seed=17)
    rep = xr_agreement.report(crowd)
    facts = rep.design["annotators"]
    assert "pair_observed" not in facts and "pair_agreement" not in facts
    # a format-3 reader needs the matrices: the JSON says format 4
    assert json.loads(rep.to_json())["format"] == "xr-agreement-report/4"
    pairs = facts["pairs"]
    matrices = xr_agreement.annotators(crowd)
    decided = ~np.isnan(crowd.values)
    n = crowd.sizes["annotator"]
    expected = [(r, s) for r in range(n) for s in range(r + 1, n)
                if (decided[:, r] & decided[:, s]).any()]
    assert list(zip(pairs["annotator_1"], pairs["annotator_2"])) == expected
    assert len(expected) <= 3 * crowd.sizes["item"]  # at most 3 pairs a task
    for name in ("pair_observed", "pair_agreement"):
        listed = [np.nan if v is None else v for v in pairs[name]]
        np.testing.assert_array_equal(listed, [matrices[name].values[r, s] for r, s in expected])


def test_report_reads_the_same_from_pairs_as_from_matrices(monkeypatch):
    crowd = crowd_decisions(n_items=60, n_annotators=40, seed=18)
    with_matrices = xr_agreement.report(crowd)
    monkeypatch.setattr(report_diagnostics, "MAX_PAIR_MATRIX_ANNOTATORS", 10)
    with_pairs = xr_agreement.report(crowd)
    assert "pairs" in with_pairs.design["annotators"]
    assert str(with_pairs) == str(with_matrices)
    assert with_pairs.to_markdown() == with_matrices.to_markdown()
    restored = type(with_pairs).from_json(with_pairs.to_json())
    assert str(restored) == str(with_matrices)


def test_heat_map_blocks_are_the_means_of_their_pairs():
    """5 annotators in blocks of 2 (3 a side), by hand: block (0, 0) holds pair (0, 1),
    block (0, 1) pair (0, 3), block (0, 2) pair (1, 4); (2, 3) has no value."""
    pairs = {"annotator_1": [0, 0, 2, 1], "annotator_2": [1, 3, 3, 4],
             "pair_observed": [0.5, 1.0, None, 0.25]}
    expected = np.array([[0.5, 1.0, 0.25], [1.0, np.nan, np.nan], [0.25, np.nan, np.nan]])
    np.testing.assert_array_equal(
        report_diagnostics._block_means(pairs, "pair_observed", 5, 2), expected)
    pairs = {"annotator_1": [0, 0], "annotator_2": [1, 2], "pair_observed": [0.2, 0.6]}
    assert report_diagnostics._block_means(pairs, "pair_observed", 3, 3).tolist() == [[0.4]]


def test_heat_map_of_many_annotators_draws_blocks(monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(report_diagnostics, "MAX_PAIR_MATRIX_ANNOTATORS", 10)
    monkeypatch.setattr(report_diagnostics, "MAX_HEAT_MAP_BLOCKS", 8)
    crowd = crowd_decisions(n_items=60, n_annotators=48, seed=19)  # no tick labels
    facts = xr_agreement.report(crowd).design["annotators"]
    figure = report_diagnostics.pair_heat_map(facts)
    image = figure.axes[0].images[0].get_array()
    assert image.shape == (8, 8)  # 48 annotators in blocks of 6
    assert "blocks of 6" in figure.axes[0].get_xlabel()


def test_report_facts_memory_follows_the_pairs_not_n_squared():
    """3,000 workers, 3 on each of 300 tasks: the facts held two 3,000 x 3,000 nested lists
    and annotators() built (label, n, n) and (n, n, label, 3, 3) int64 counts (gigabytes);
    now the facts list the ~900 pairs and the peak is near the decisions' own size."""
    crowd = crowd_decisions(n_items=300, n_annotators=3000, n_labels=2, lost=0.0,
                            skipped_cells=0.0, seed=20)
    small = crowd.isel(item=slice(0, 10))
    report_diagnostics.diagnostic_facts(small, "F", "item", "annotator", "label")  # compiled
    tracemalloc.start()
    try:
        facts = report_diagnostics.diagnostic_facts(crowd, "F", "item", "annotator", "label")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(facts["annotators"]["pairs"]["annotator_1"]) <= 900
    assert peak < 3 * crowd.nbytes + 16 * 2**20, peak / 2**20


# --------------------------------------------------------------------------- mla's minimum


def test_mla_observed_minimum_of_a_crowd_design_against_the_greedy_oracle():
    """mla's max_disagreement now builds candidate gains only for the numbers of deciders
    some cell has (here 0, 1, 2, 3 of 40): same minimum as the oracle's greedy allocation
    written from the definition."""
    from oracle import observed_minimum_missing_greedy

    crowd = crowd_decisions(n_items=50, n_annotators=40, n_labels=3, seed=21)
    corpus, per_label = observed_minimum_missing_greedy(crowd.values)
    result = xr_agreement.mla(crowd)
    np.testing.assert_allclose(float(result.observed_minimum), corpus, rtol=1e-12)
    np.testing.assert_allclose(result.label_observed_minimum.values, per_label, rtol=1e-12)


def test_mla_memory_on_a_crowd_design_does_not_grow_with_n_squared():
    """3,000 workers, 3 on each of 300 tasks: every m up to n gave n^2 / 2 candidate gains
    in five arrays, 223 MiB traced; now a few KiB beside the counts."""
    crowd = crowd_decisions(n_items=300, n_annotators=3000, n_labels=2, lost=0.0,
                            skipped_cells=0.0, seed=22)
    xr_agreement.mla(crowd.isel(item=slice(0, 10)))  # compiled outside the trace
    tracemalloc.start()
    try:
        xr_agreement.mla(crowd)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak / 2**20


def test_sparse_counts_give_the_dense_intervals(pair_counts):
    """The item bootstrap recomputes every value on each resample (items drawn again, some
    twice): the same intervals from either counts."""
    crowd = crowd_decisions(n_items=40, n_annotators=30, seed=23)
    dense, sparse = dense_and_sparse(pair_counts, crowd, ci=0.9, n_resamples=30, seed=1)
    xr.testing.assert_identical(sparse, dense)
