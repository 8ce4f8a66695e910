"""The kappa family's counting passes (xr_agreement/kappa/counts.py, kernels.py, finish.py).

Each fast path is checked against another way to the same numbers: the compositions of
single-label items against the counts per number of ratings and the standard error's pass
over the ratings; the uint8 lanes of complete multi-label decisions against the general
count of the same decisions as floats; the histogram of the labels' states against the
counts of MLA's own pass (a different kernel); the analytic standard errors against a
brute-force per-item loop written here from Gwet (2014).
"""

import itertools

import numpy as np
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.kappa import counts as kappa_counts
from xr_agreement.kappa import kernels as kappa_kernels
from xr_agreement.kappa.encode import _prepare
from xr_agreement.mla import hamming_counts

GWET_FAMILY = ["fleiss", "conger", "gwet", "brennan_prediger", "percent"]


def _single_label(seed, n_items=60, n_annotators=4, q=4, missing=0.15, rounds=None):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, n_items)
    shape = (n_items, n_annotators) if rounds is None else (rounds, n_items, n_annotators)
    values = np.where(rng.random(shape) < 0.6, truth[:, None] if rounds is None
                      else truth[None, :, None], rng.integers(0, q, shape)).astype(float)
    values = np.array([2.0, 3.0, 5.0, 8.0, 13.0, 21.0])[values.astype(int)]
    values[rng.random(shape) < missing] = np.nan
    values[0] = np.nan  # an item nobody rated
    dims = ("item", "annotator") if rounds is None else ("round", "item", "annotator")
    coords = {"item": [f"doc-{i}" for i in range(n_items)],
              "annotator": [f"ann-{a}" for a in range(n_annotators)]}
    return xr.DataArray(values, dims=dims, coords=coords)


def _multi_label(seed, n_items=80, n_annotators=5, n_labels=6, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    truth = rng.random((n_items, 1, n_labels)) < 0.3
    values = (truth ^ (rng.random((n_items, n_annotators, n_labels)) < 0.2)).astype(dtype)
    values[:, :, 0] = 0  # a label nobody marks
    values[:, :, 1] = 1  # a label everybody marks
    return xr.DataArray(values, dims=("item", "annotator", "label"),
                        coords={"label": [f"label-{j}" for j in range(n_labels)]})


def _assert_same(a, b):
    assert set(a.data_vars) == set(b.data_vars)
    for name in a.data_vars:
        if a[name].dtype.kind in "US":
            assert (a[name].values == b[name].values).all(), name
        else:
            np.testing.assert_allclose(a[name].values, b[name].values, rtol=0, atol=1e-12,
                                       equal_nan=True, err_msg=name)


@pytest.mark.parametrize("method", GWET_FAMILY)
@pytest.mark.parametrize("weights", [None, "quadratic", "asymmetric"])
def test_compositions_give_the_counts_by_m(monkeypatch, method, weights):
    """Single-label ratings counted by composition (sums over the compositions seen, the
    standard error included) equal the counts per number of ratings with the standard
    error's pass over the ratings."""
    da = _single_label(5, rounds=2)
    if weights == "asymmetric":
        rng = np.random.default_rng(1)
        weights = np.eye(4) + np.triu(rng.uniform(0, 1, (4, 4)), 1) * 0.5
    function = getattr(xr_agreement, method)
    by_composition = function(da, weights)
    monkeypatch.setattr(kappa_kernels, "PATTERN_LIMIT", 0)
    assert not kappa_counts.by_patterns(5, 4, 10**6)
    by_m = function(da, weights)
    _assert_same(by_composition, by_m)


@pytest.mark.parametrize("weights", [None, "quadratic", "asymmetric"])
@pytest.mark.parametrize("chunks", [None, 17])
def test_conger_by_rating_vectors_equals_his_pass_over_the_ratings(monkeypatch, weights,
                                                                   chunks, jit_mode):
    """Conger's tables and standard errors from the items per rating vector (a sum over the
    vectors seen) equal the pass over every item; on dask too (block by block)."""
    da = _single_label(7, n_items=90, rounds=3)
    if weights == "asymmetric":
        rng = np.random.default_rng(2)
        weights = np.eye(4) + np.triu(rng.uniform(0, 1, (4, 4)), 1) * 0.5
    if chunks:
        da = da.chunk({"item": chunks})
    assert not kappa_counts.by_rating_vectors(4, 4, 90)  # (625 vectors: too few items)
    assert kappa_counts.by_rating_vectors(4, 4, 2500)
    monkeypatch.setattr(kappa_counts, "by_rating_vectors", lambda *args: True)
    by_vectors = xr_agreement.conger(da, weights).compute()
    monkeypatch.setattr(kappa_counts, "by_rating_vectors", lambda *args: False)
    by_items = xr_agreement.conger(da, weights).compute()
    _assert_same(by_vectors, by_items)
    # (round 0 has no rating: _single_label blanks values[0])
    assert np.isfinite(by_vectors.coefficient_se[1:]).all()


def test_rating_vectors_give_the_compositions_and_annotator_tables():
    """The compositions and each annotator's ratings per category derived from the rating
    vectors equal those counted from the ratings."""
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 3, (2, 300, 4)).astype(np.int32)
    side = 5
    vectors = kappa_counts.rating_vectors(codes, 3)
    assert vectors.sum() == 2 * 300
    patterns, annotators = kappa_counts.from_rating_vectors(vectors, 3, 4, side)
    expected_patterns, expected_annotators = kappa_counts.pattern_histogram(codes, 3, side,
                                                                            True)
    np.testing.assert_array_equal(patterns, expected_patterns)
    np.testing.assert_array_equal(annotators, expected_annotators)
    ids = np.flatnonzero(vectors[0])
    decoded = kappa_counts.vector_codes(ids, 3, 4)
    seen = {tuple(row) for row in codes[0]}
    assert {tuple(row) for row in decoded} == seen


@pytest.mark.parametrize("method", GWET_FAMILY)
@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.int64])
def test_complete_lanes_equal_the_general_count(method, dtype):
    """Complete integer decisions take the uint8 lanes; the same decisions as floats take
    the general count: the same values."""
    da = _multi_label(3, dtype=dtype)
    function = getattr(xr_agreement, method)
    _assert_same(function(da), function(da.astype(np.float64)))


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_state_histogram_moments_are_mla_label_counts(missing):
    """The histogram of each label's states (m deciders, x ones) has the moments MLA's
    own counting pass gives: cells, sum of x and sum of x**2 per m."""
    da = _multi_label(8, n_labels=7).astype(np.float64)
    rng = np.random.default_rng(2)
    da = da.where(rng.random(da.shape) >= missing)
    data = _prepare(da, None, None, "item", "annotator", "label")
    n = da.sizes["annotator"]
    offsets, n_states = kappa_counts.state_offsets(np.ones(n + 1, bool))
    tables, _ = kappa_counts.binary_tables(data["decisions"], offsets, n_states, False)
    histogram = tables["histogram"][0]  # (label, states)
    # the states of m: offsets[m] .. offsets[m] + m, x = 0..m
    m = np.repeat(np.arange(n + 1), np.arange(n + 1) + 1)
    x = np.concatenate([np.arange(k + 1) for k in range(n + 1)])
    ours = np.stack([np.stack([histogram[:, m == k].sum(axis=1),
                               (histogram * x)[:, m == k].sum(axis=1),
                               (histogram * x**2)[:, m == k].sum(axis=1)], axis=-1)
                     for k in range(n + 1)], axis=1)
    theirs = hamming_counts(da, "item", "annotator", "label").label_counts
    np.testing.assert_array_equal(ours, theirs.transpose("label", "deciders", "stat").values)
    decided = (~np.isnan(da)).sum("annotator")
    assert tables["rated_items"][0] == int((decided >= 1).any("label").sum())
    assert tables["pairable_items"][0] == int((decided >= 2).any("label").sum())


def _brute_gwet_se(rows, q, method, weights=None):
    """Gwet's (2014) standard error of the overall coefficient of single-label rows (lists
    of category indexes, None missing), written from his per-item terms with plain loops:
    kappa_i* = kappa_i - 2 (1 - kappa) (p_e|i - p_e) / (1 - p_e) over the rated items,
    kappa_i = (n / n'') (p_a|i - p_e) / (1 - p_e) on pairable items, 0 on the others (as
    irrCAC computes it)."""
    w = np.eye(q) if weights is None else weights
    rated = [[c for c in row if c is not None] for row in rows]
    rated = [r for r in rated if r]
    n = len(rated)
    pairable = [r for r in rated if len(r) >= 2]
    n2 = len(pairable)

    def agreement(r):
        m = len(r)
        return sum(w[a, b] for i, a in enumerate(r) for j, b in enumerate(r) if i != j) / (
            m * (m - 1))

    p_a = sum(agreement(r) for r in pairable) / n2
    pi = [sum(r.count(k) / len(r) for r in rated) / n for k in range(q)]
    if method == "fleiss":
        p_e = sum(w[k, l] * pi[k] * pi[l] for k in range(q) for l in range(q))

        def item_chance(r):
            return sum(r.count(k) / len(r) * (sum(w[k, l] * pi[l] for l in range(q))
                                              + sum(w[l, k] * pi[l] for l in range(q))) / 2
                       for k in range(q))
    else:  # gwet
        scale = w.sum() / (q * (q - 1))
        p_e = scale * sum(p * (1 - p) for p in pi)

        def item_chance(r):
            return scale * sum(r.count(k) / len(r) * (1 - pi[k]) for k in range(q))
    kappa = (p_a - p_e) / (1 - p_e)
    total = 0.0
    for r in rated:
        # only pairable items carry an agreement term (irrCAC: pe * (r_i >= 2))
        observed = n / n2 * (agreement(r) - p_e) if len(r) >= 2 else 0.0
        term = (observed - 2 * (1 - kappa) * (item_chance(r) - p_e)) / (1 - p_e)
        total += (term - kappa) ** 2
    return kappa, np.sqrt(total / (n * (n - 1)))


@pytest.mark.parametrize("method", ["fleiss", "gwet"])
@pytest.mark.parametrize("weights", [None, "linear"])
def test_standard_error_equals_a_brute_force_loop(method, weights):
    da = _single_label(11, n_items=40, n_annotators=5, q=3, missing=0.25)
    result = getattr(xr_agreement, method)(da, weights)
    codes, cats = np.unique(da.values[~np.isnan(da.values)], return_inverse=True)
    index = {v: k for k, v in enumerate(codes)}
    rows = [[None if np.isnan(v) else index[v] for v in row] for row in da.values]
    w = None
    if weights == "linear":
        values = codes.astype(float)
        w = 1 - np.abs(values[:, None] - values[None, :]) / (values.max() - values.min())
    kappa, se = _brute_gwet_se(rows, len(codes), method, w)
    assert float(result.coefficient) == pytest.approx(kappa, abs=1e-12)
    assert float(result.coefficient_se) == pytest.approx(se, abs=1e-12)


def test_the_passes_do_not_depend_on_the_number_of_runs(monkeypatch):
    """Items split into runs (threads) or counted in one: the same values."""
    da = _single_label(4, n_items=9000, n_annotators=6, q=3)
    ml = _multi_label(4, n_items=9000)
    many = [xr_agreement.fleiss(da), xr_agreement.conger(ml.astype(float))]
    monkeypatch.setattr(kappa_counts, "_runs", lambda n_items, size=1: 1)
    one = [xr_agreement.fleiss(da), xr_agreement.conger(ml.astype(float))]
    for a, b in zip(many, one):
        _assert_same(a, b)


def test_decisions_other_than_0_1_are_named():
    da = _multi_label(2)
    bad = da.copy()
    bad[3, 2, 4] = 2
    with pytest.raises(ValueError, match="label-4"):
        xr_agreement.fleiss(bad)
    assert int(da[3, 2, 4]) in (0, 1)  # the input was not modified


def test_integers_no_one_chose_are_not_categories():
    """Integral ratings are coded from their range; a value in the range that nobody chose
    is not a category (as with strings)."""
    values = np.array([[1, 5, 5], [1, 1, 5], [9, 9, 5], [1, 9, np.nan]])
    result = xr_agreement.gwet(xr.DataArray(values, dims=("item", "annotator")))
    assert result.category.values.tolist() == [1.0, 5.0, 9.0]
    as_text = xr.DataArray(np.where(np.isnan(values), None, np.nan_to_num(values).astype(int).astype(str)),
                           dims=("item", "annotator"))
    other = xr_agreement.gwet(as_text)
    for name in ("coefficient", "coefficient_se", "category_coefficient"):
        np.testing.assert_allclose(result[name].values, other[name].values, atol=1e-12)


def test_compositions_are_counted_exactly():
    """The composition ids of every item (brute force: count each category) against the
    kernel's histogram."""
    rng = np.random.default_rng(0)
    codes = rng.integers(-1, 3, (2, 300, 4)).astype(np.int32)
    histogram, annotators = kappa_counts.pattern_histogram(codes, 3, 5, True)
    expected = np.zeros_like(histogram)
    for g, i in itertools.product(range(2), range(300)):
        r = [int((codes[g, i] == k).sum()) for k in range(3)]
        expected[g, r[0] + 5 * r[1] + 25 * r[2]] += 1
    np.testing.assert_array_equal(histogram, expected)
    for g, a, k in itertools.product(range(2), range(4), range(3)):
        assert annotators[g, a, k] == int((codes[g, :, a] == k).sum())


@pytest.mark.parametrize("method", GWET_FAMILY)
def test_crowd_designs_count_up_to_the_most_ratings_of_an_item(monkeypatch, method):
    """Thousands of annotators, three on each item: the states and compositions are indexed
    by m up to 3, not up to n (memory follows the design). The same values as indexing by
    every m = 0..n."""
    from xr_agreement.kappa import finish

    rng = np.random.default_rng(6)
    n_items, n_annotators = 120, 400
    single = np.full((n_items, n_annotators), np.nan)
    multi = np.full((n_items, n_annotators, 3), np.nan)
    for i in range(n_items):
        chosen = rng.choice(n_annotators, 3, replace=False)
        single[i, chosen] = rng.integers(0, 3, 3)
        multi[i, chosen] = rng.integers(0, 2, (3, 3))
    single = xr.DataArray(single, dims=("item", "annotator"))
    multi = xr.DataArray(multi, dims=("item", "annotator", "label"))
    data = _prepare(single, None, None, "item", "annotator", "label")
    assert finish.settings(data, method, 0.95, None, True)["side"] == 4
    function = getattr(xr_agreement, method)
    crowd = [function(single), function(multi)]
    monkeypatch.setattr(finish, "FEW_ANNOTATORS", 10_000)
    assert finish.settings(data, method, 0.95, None, True)["side"] == n_annotators + 1
    for a, b in zip(crowd, [function(single), function(multi)]):
        _assert_same(a, b)


def _crowd(seed, n_items=150, n_annotators=300):
    rng = np.random.default_rng(seed)
    single = np.full((n_items, n_annotators), np.nan)
    multi = np.full((n_items, n_annotators, 4), np.nan)
    for i in range(n_items):
        chosen = rng.choice(n_annotators, 2 + i % 3, replace=False)
        single[i, chosen] = rng.integers(0, 3, chosen.size)
        multi[i, chosen] = rng.integers(0, 2, (chosen.size, 4))
    return (xr.DataArray(single, dims=("item", "annotator")),
            xr.DataArray(multi, dims=("item", "annotator", "label")))


@pytest.mark.parametrize("method", ["fleiss", "conger", "percent"])
@pytest.mark.parametrize("kind", ["single", "multi"])
def test_dask_crowd_designs_find_the_numbers_of_ratings_in_the_graph(method, kind):
    """On dask which numbers of ratings items have is a reduction in the graph (building it
    computes nothing); every block counts into tables laid out for them; the values are
    numpy's."""
    from laziness import raise_if_dask_computes

    da = _crowd(9)[kind == "multi"]
    function = getattr(xr_agreement, method)
    # declared categories: else the distinct ratings are computed first (documented)
    options = {} if kind == "multi" else {"categories": [0.0, 1.0, 2.0]}
    with raise_if_dask_computes():
        lazy = function(da.chunk({"item": 40}), **options)
    assert any(str(key[0] if isinstance(key, tuple) else key).startswith("kappa-seen-")
               for key in dict(lazy.coefficient.data.__dask_graph__()))
    _assert_same(lazy.compute(), function(da))


@pytest.mark.parametrize("method", ["fleiss", "conger"])
@pytest.mark.parametrize("ci", [0.95, None])
def test_the_dask_graph_counts_each_block_once(method, ci):
    """One count task per block of items, one standard-error task per block only with an
    analytic interval, and nothing computed while the graph is built."""
    from laziness import raise_if_dask_computes

    da = _single_label(3, n_items=90)
    with raise_if_dask_computes():
        lazy = getattr(xr_agreement, method)(da.chunk({"item": 25}), ci=ci,
                                             categories=[2.0, 3.0, 5.0, 8.0])
    names = [str(key[0] if isinstance(key, tuple) else key)
             for key in dict(lazy.coefficient.data.__dask_graph__())]
    assert sum(name.startswith("kappa-count-") and "sum" not in name for name in names) == 4
    spreads = sum(name.startswith("kappa-spread-") and "sum" not in name for name in names)
    assert spreads == (4 if ci is not None else 0)


@pytest.mark.parametrize("n_annotators", [16, 40, 300])
def test_complete_decisions_of_many_annotators(n_annotators):
    """Complete decisions have m = n on every item: their states are x = 0..n only (not
    (n + 1)**2), counted the same compiled and interpreted (an x beyond 255 once overflowed
    a uint8 state interpreted), and the same as the general count of the same decisions as
    floats."""
    from xr_agreement._core import jit
    from xr_agreement.kappa import finish

    rng = np.random.default_rng(n_annotators)
    da = xr.DataArray((rng.random((30, n_annotators, 3)) < 0.3).astype(np.uint8),
                      dims=("item", "annotator", "label"))
    data = _prepare(da, None, None, "item", "annotator", "label")
    assert finish.settings(data, "fleiss", 0.95, None, True)["n_states"] == n_annotators + 1
    compiled = xr_agreement.fleiss(da)
    previous = jit.mode()
    jit.set_mode("never")
    try:
        interpreted = xr_agreement.fleiss(da)
    finally:
        jit.set_mode(previous)
    _assert_same(compiled, interpreted)
    _assert_same(compiled, xr_agreement.fleiss(da.astype(np.float64)))


@pytest.mark.parametrize("method", ["fleiss", "conger"])
def test_a_gold_item_rated_by_everyone_adds_its_states_only(monkeypatch, method):
    """A crowd design with one item rated by every annotator: the states are laid out for
    the numbers of ratings that occur (3 and n), not for every m up to n; the values equal
    those of the full layout."""
    from xr_agreement.kappa import finish

    single, multi = _crowd(4, n_items=60, n_annotators=120)
    rng = np.random.default_rng(1)
    single[0] = rng.integers(0, 3, 120)
    multi[0] = rng.integers(0, 2, (120, 4))
    data = _prepare(multi, None, None, "item", "annotator", "label")
    setting = finish.settings(data, method, 0.95, None, True)
    assert setting["n_states"] < 4 * 121
    compact = [getattr(xr_agreement, method)(single), getattr(xr_agreement, method)(multi)]
    monkeypatch.setattr(finish, "FEW_ANNOTATORS", 10_000)
    full = [getattr(xr_agreement, method)(single), getattr(xr_agreement, method)(multi)]
    for a, b in zip(compact, full):
        _assert_same(a, b)


def test_many_groups_of_few_items_are_not_counted_by_composition():
    """Compositions are ids up to (m + 1)**q per group: with many groups of few items their
    tables would dwarf the ratings, so such designs take the counts by m."""
    assert not kappa_counts.by_patterns(6, 5, 20 * 5 * 2)  # 7776 ids, 200 ratings
    assert not kappa_counts.by_patterns(6, 6, 20 * 5)
    assert kappa_counts.by_patterns(6, 3, 50 * 5)


def test_dask_gold_item_with_many_categories():
    """The counts by m (many categories: no compositions) on dask, a crowd design with one
    item rated by everyone: the graph finds the layout; numpy's values."""
    from laziness import raise_if_dask_computes

    rng = np.random.default_rng(2)
    n_items, n_annotators, q = 80, 150, 20
    values = np.full((n_items, n_annotators), np.nan)
    for i in range(n_items):
        values[i, rng.choice(n_annotators, 3, replace=False)] = rng.integers(0, q, 3)
    values[0] = rng.integers(0, q, n_annotators)
    da = xr.DataArray(values, dims=("item", "annotator"))
    with raise_if_dask_computes():
        lazy = xr_agreement.fleiss(da.chunk({"item": 30}), categories=list(range(q)))
    _assert_same(lazy.compute(), xr_agreement.fleiss(da, categories=list(range(q))))


def test_conger_on_a_thousand_annotators_counts_item_by_item():
    """(q + 1) ** n overflowed a float from about 1,000 annotators (a crowd design), and
    conger raised OverflowError; counted item by item, its observed agreement is Fleiss'
    (both Gwet's P_o) and the coefficient is defined."""
    assert not kappa_counts.by_rating_vectors(3, 1100, 10**9)
    assert not kappa_counts.by_rating_vectors(3, 10**5, 10**9)
    rng = np.random.default_rng(4)
    n_items, n = 40, 1100
    values = np.full((n_items, n), None, dtype=object)
    for i in range(n_items):
        values[i, rng.choice(n, 3, replace=False)] = rng.choice(["a", "b", "c"], 3)
    da = xr.DataArray(values, dims=("item", "annotator"))
    result = xr_agreement.conger(da)
    # the same Gwet formula counted item by item by fleiss-style sums: P_o is Fleiss'
    assert float(result.observed) == pytest.approx(float(xr_agreement.fleiss(da).observed),
                                                   abs=1e-12)
    assert np.isfinite(float(result.coefficient))
