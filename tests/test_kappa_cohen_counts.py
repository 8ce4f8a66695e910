"""Cohen's kappa from the counting kernels (issue 30): every pair's contingency table against
brute-force loops over items and pairs, the pooled multi-label standard error against the
per-item formula the kernels replace (written out here with numpy from one-hot arrays),
compiled and interpreted alike, on numpy and dask input."""

import importlib

import dask
import numpy as np
import pytest
import xarray as xr
from dask.utils import key_split

import xr_agreement
from xr_agreement._core import jit
from xr_agreement.kappa.encode import _prepare
from laziness import raise_if_dask_computes

cohen_module = importlib.import_module("xr_agreement.kappa.cohen")
pair_kernels = importlib.import_module("xr_agreement.kappa.pair_kernels")


def with_kernel_input(da, weights=None, item="item", annotator="annotator", label="label"):
    """:func:`_prepare`'s output: the kernels' inputs (``codes`` or ``decisions``, ``lead``,
    ``lead_shape``)."""
    data = _prepare(da, weights, None, item, annotator, label)
    assert ("decisions" if label in da.dims else "codes") in data
    return data


def variables(values):
    """:func:`_cohen_values`' ``(dims, array)`` values as variables."""
    return {name: xr.Variable(*value) for name, value in values[0].items()}


# --------------------------------------------------------------------------- brute force


def brute_tables(codes, q):
    """T[g, a, b, r, c]: items rated r by a and c by b, by loops over items and pairs."""
    G, N, n = codes.shape
    table = np.zeros((G, n, n, q, q))
    for g in range(G):
        for i in range(N):
            for a in range(n):
                for b in range(n):
                    r, c = codes[g, i, a], codes[g, i, b]
                    if r >= 0 and c >= 0:
                        table[g, a, b, r, c] += 1
    return table


def brute_label_tables(values):
    """T[g, label, a, b, r, c] on the items both decided the label, and the items a pair
    shares a decided label on, by loops."""
    G, N, n, L = values.shape
    table = np.zeros((G, L, n, n, 2, 2))
    common = np.zeros((G, n, n))
    for g in range(G):
        for i in range(N):
            for a in range(n):
                for b in range(n):
                    shared = False
                    for j in range(L):
                        x, y = values[g, i, a, j], values[g, i, b, j]
                        if not (np.isnan(x) or np.isnan(y)):
                            table[g, j, a, b, int(x), int(y)] += 1
                            shared = True
                    common[g, a, b] += shared
    return table, common


def per_item_pooled(values, w):
    """Pooled kappa and its delta-method standard error of decisions (N, n, L), NaN
    missing, as computed before the kernels: per-item arrays from the one-hot indicator."""
    x = np.moveaxis(np.asarray(values, float), -1, 0)  # (label, item, annotator)
    ind = np.stack([x == 0, x == 1], axis=-1).astype(float)
    rated = (~np.isnan(x)).astype(float)
    both = rated[..., :, None] * rated[..., None, :]
    item_agreement = np.einsum("jiak,kl,jibl->jiab", ind, w, ind)
    n = (both.max(axis=0) > 0).sum(axis=0)
    n_j = both.sum(axis=1)
    used = n_j > 0
    known = np.where(used, n_j, np.nan)
    marg1 = np.einsum("jiak,jib->jabk", ind, rated) / known[..., None]
    marg2 = np.einsum("jia,jibk->jabk", rated, ind) / known[..., None]
    observed_j = item_agreement.sum(axis=1) / known
    expected_j = np.einsum("kl,jabk,jabl->jab", w, marg1, marg2)

    def pool(array):  # mean over the used labels (the first axis)
        mask = used if array.ndim == 3 else used[:, None]
        return np.nansum(np.where(mask, array, np.nan), axis=0) / used.sum(axis=0)

    observed, expected = pool(observed_j), pool(expected_j)
    gap = 1 - expected
    kappa = (observed - expected) / gap
    w_marg2 = np.nan_to_num(np.einsum("kl,jabl->jabk", w, marg2))
    w_marg1 = np.nan_to_num(np.einsum("kl,jabk->jabl", w, marg1))
    item_expected = (np.einsum("jiak,jabk->jiab", ind, w_marg2) * rated[..., None, :]
                     + np.einsum("jibk,jabk->jiab", ind, w_marg1) * rated[..., :, None])
    scale = (n / known)[:, None]
    obs_term = pool(scale * (item_agreement - observed_j[:, None] * both))
    exp_term = pool(scale * (item_expected - 2 * expected_j[:, None] * both))
    influence = (obs_term - (1 - kappa) * exp_term) / gap
    se = np.sqrt(np.nansum(influence**2, axis=0) / n.astype(float) ** 2)
    return kappa, se


def random_decisions(rng, shape, missing, dtype=float):
    rates = rng.random(shape[-1])
    values = (rng.random(shape) < rates).astype(float)
    if missing:
        values[rng.random(shape) < missing] = np.nan
        return values
    return values.astype(dtype)


# --------------------------------------------------------------------------- tables


@pytest.mark.parametrize("runs", [1, 3])
def test_single_label_tables_are_the_pair_loops(jit_mode, runs):
    rng = np.random.default_rng(3)
    N = 4200 if jit_mode == "always" else 300  # past a bit block of 4096 items when compiled
    codes = rng.integers(0, 3, (2, N, 4)).astype(np.int32)
    codes[rng.random(codes.shape) < 0.1] = -1
    counts = cohen_module._count(codes, 3, runs)
    table = cohen_module._sums(counts, False, 4, (2,), np.eye(3))["table"]
    np.testing.assert_array_equal(table, brute_tables(codes, 3))


@pytest.mark.parametrize("kind", ["uint8", "bool", "int64", "float", "float-missing"])
def test_multi_label_tables_are_the_pair_loops(jit_mode, kind):
    rng = np.random.default_rng(len(kind))
    N = 600 if jit_mode == "always" else 270  # past a uint8 block of 255 items
    dtype = {"uint8": np.uint8, "bool": bool, "int64": np.int64}.get(kind, float)
    values = random_decisions(rng, (2, N, 4, 5), 0.2 if kind == "float-missing" else 0,
                              dtype)
    if kind == "int64":
        values = values[:, :, :, ::-1]  # not C-contiguous: copied item by item
    counts = cohen_module._count(values, 2, 2)
    sums = cohen_module._sums(counts, True, 4, (2, 5), np.eye(2))
    table, common = brute_label_tables(np.asarray(values, float))
    np.testing.assert_array_equal(sums["table"], table)
    np.testing.assert_array_equal(sums["common"], common)
    np.testing.assert_array_equal(sums["both"], table.sum(axis=(-2, -1)))


@pytest.mark.parametrize("n_annotators, n_labels", [(2, 1), (3, 7), (5, 50), (9, 33),
                                                     (17, 2), (4, 64)])
def test_complete_label_tables_are_the_pair_loops_at_any_width(n_annotators, n_labels):
    """The complete pass pads each shift's loop to whole vectors: tables equal the pair
    loops whatever the row's width against the padding."""
    rng = np.random.default_rng(n_annotators * 100 + n_labels)
    values = random_decisions(rng, (1, 300, n_annotators, n_labels), 0, np.uint8)
    counts = cohen_module._count(values, 2, 1)
    sums = cohen_module._sums(counts, True, n_annotators, (1, n_labels), np.eye(2))
    table, _ = brute_label_tables(np.asarray(values, float))
    np.testing.assert_array_equal(sums["table"], table)


def brute_bits(values):
    """(G, N, n, W) uint64: bit 8 t + s of word w the decision on label 64 w + 8 s + t."""
    G, N, n, L = values.shape
    W = -(-L // 64)
    words = np.zeros((G, N, n, W), np.uint64)
    for j in range(L):
        w, s, t = j // 64, j % 64 // 8, j % 8
        words[..., w] |= values[..., j].astype(np.uint64) << np.uint64(8 * t + s)
    return words


@pytest.mark.parametrize("n_annotators, n_labels", [(1, 1), (3, 7), (2, 8), (9, 9), (5, 50),
                                                     (3, 63), (3, 64), (2, 65), (8, 130)])
def test_the_counting_pass_keeps_the_decisions_as_bits(jit_mode, n_annotators, n_labels):
    """The words the counting pass keeps for the standard error's pass (and those packed
    without it, for dask blocks and float input) are the decisions bit by bit, whatever the
    row's width against the 8-byte numbers read (the last item's read past the array from
    a copy), across runs and blocks of 255 items; the tables stay the pair loops'."""
    rng = np.random.default_rng(n_annotators * 1000 + n_labels)
    N = 600 if jit_mode == "always" else 40
    values = random_decisions(rng, (2, N, n_annotators, n_labels), 0, np.uint8)
    bits = cohen_module._bit_words(values)
    counts = cohen_module._count(values, 2, 3, None, bits)
    np.testing.assert_array_equal(bits, brute_bits(values))
    sums = cohen_module._sums(counts, True, n_annotators, (2, n_labels), np.eye(2))
    np.testing.assert_array_equal(sums["table"], brute_label_tables(values.astype(float))[0])
    packed = np.empty_like(bits)
    masks = pair_kernels.bit_masks(n_labels, bits.shape[3])
    pair_kernels.pack_bits(values, masks, 0, N // 3, packed)
    pair_kernels.pack_bits(values, masks, N // 3, N, packed)
    np.testing.assert_array_equal(packed, bits)


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_the_counting_pass_sees_a_decision_other_than_0_1(jit_mode, where):
    rng = np.random.default_rng(4)
    values = random_decisions(rng, (2, 300 if jit_mode == "always" else 30, 3, 50), 0,
                              np.uint8)
    refused = []
    cohen_module._count(values, 2, 2, lambda: refused.append(True))
    assert not refused
    flat = values.reshape(-1)
    flat[{"first": 0, "middle": flat.size // 2 + 7, "last": -1}[where]] = 2
    cohen_module._count(values, 2, 2, lambda: refused.append(True))
    assert refused


# --------------------------------------------------------------------------- pooled SE


@pytest.mark.parametrize("missing", [0.0, 0.15])
@pytest.mark.parametrize("weights", [None, [[1.0, 0.3], [0.6, 1.0]]], ids=["identity",
                                                                          "asymmetric"])
@pytest.mark.parametrize("lookup_bytes", [None, 0], ids=["grouped", "label-by-label"])
def test_pooled_se_is_the_per_item_formula(missing, weights, lookup_bytes, monkeypatch):
    if lookup_bytes is not None:
        monkeypatch.setattr(cohen_module, "LOOKUP_BYTES", lookup_bytes)
    rng = np.random.default_rng(5)
    values = random_decisions(rng, (2, 90, 4, 7), missing)
    da = xr.DataArray(values, dims=("round", "item", "annotator", "label"))
    if not missing:
        da = da.astype(np.uint8)
    data = with_kernel_input(da, weights)
    w = np.asarray(data["weights"])
    out = variables(cohen_module._cohen_values(data, 0.95))
    for r in range(2):
        kappa, se = per_item_pooled(values[r], w)
        np.testing.assert_allclose(out["pair_coefficient"].values[r], kappa, rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(out["pair_coefficient_se"].values[r], se, rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("n_annotators, n_labels", [
    (2, 1), (3, 7), (4, 8), (5, 9), (5, 50), (3, 63), (3, 64), (2, 65), (9, 17), (17, 130)])
@pytest.mark.parametrize("dtype", [np.uint8, bool, np.int16])
def test_complete_pass_is_the_per_item_formula(jit_mode, n_annotators, n_labels, dtype,
                                               monkeypatch):
    """The byte-table pass of complete decisions (:func:`complete_influence`) around its
    widths: rows shorter than 8 labels (padded), groups of 8 ending past L, 64-label words,
    more than 8 annotators (a second chunk of sums), a run past a block of 64 items."""
    rng = np.random.default_rng(n_annotators * 1000 + n_labels)
    N = 150 if jit_mode == "always" or n_annotators * n_labels < 200 else 70
    rounds = 2 if n_labels == 50 else 1  # a second extra-dims value: its own table
    if rounds == 2:  # and its own pass (the tables' memory capped to one at a time)
        monkeypatch.setattr(cohen_module, "TABLE_BYTES", 0)
    values = random_decisions(rng, (rounds, N, n_annotators, n_labels), 0, dtype)
    weights = [[1.0, 0.2], [0.5, 1.0]] if n_labels == 9 else None  # every ordered pair
    data = with_kernel_input(
        xr.DataArray(values, dims=("round", "item", "annotator", "label")), weights)
    w = np.asarray(data["weights"])
    counts = cohen_module._count(data["decisions"], 2, 1)
    sums = cohen_module._sums(counts, True, n_annotators, (rounds, n_labels), w)
    assert "coefficients" in cohen_module._influence_plan(sums, w, N)  # the complete pass
    out = variables(cohen_module._cohen_values(data, 0.95))
    for r in range(rounds):
        kappa, se = per_item_pooled(values[r].astype(float), w)
        np.testing.assert_allclose(out["pair_coefficient"].values[r], kappa, rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(out["pair_coefficient_se"].values[r], se, rtol=1e-10,
                                   atol=1e-12)


def test_compiled_and_interpreted_give_the_same_numbers():
    rng = np.random.default_rng(9)
    decisions = xr.DataArray(random_decisions(rng, (40, 3, 6), 0.1),
                             dims=("item", "annotator", "label"))
    complete = xr.DataArray(random_decisions(rng, (40, 3, 6), 0, np.uint8),
                            dims=("item", "annotator", "label"))
    # the byte-table pass past its padding: 2 words of bits, 2 chunks of sums, 2 rounds
    wide = xr.DataArray(random_decisions(rng, (2, 70, 9, 67), 0, np.uint8),
                        dims=("round", "item", "annotator", "label"))
    ratings = xr.DataArray(rng.integers(0, 4, (40, 3)).astype(float),
                           dims=("item", "annotator"))
    previous = jit.mode()
    try:
        results = []
        for mode in ("always", "never"):
            jit.set_mode(mode)
            results.append([variables(cohen_module._cohen_values(with_kernel_input(da), 0.9))
                            for da in (decisions, complete, wide, ratings)])
    finally:
        jit.set_mode(previous)
    for compiled, interpreted in zip(*results):
        for name, value in compiled.items():
            xr.testing.assert_identical(value, interpreted[name])


def test_public_cohen_equals_the_per_item_formula():
    rng = np.random.default_rng(12)
    values = random_decisions(rng, (60, 3, 4), 0.2)
    result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator", "label")))
    kappa, se = per_item_pooled(values, np.eye(2))
    np.testing.assert_allclose(result.pair_coefficient.values, kappa, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(result.pair_coefficient_se.values, se, rtol=1e-12, atol=1e-12)


def test_pooled_se_is_undefined_with_the_coefficient():
    values = np.ones((6, 3, 2))
    values[0, 0, 0] = np.nan
    result = xr_agreement.cohen(xr.DataArray(values, dims=("item", "annotator", "label")))
    assert np.isnan(result.pair_coefficient.values).all()
    assert np.isnan(result.pair_coefficient_se.values).all()


# --------------------------------------------------------------------------- dask


@pytest.mark.parametrize("kind", ["single", "uint8", "float-missing"])
def test_dask_counts_each_block_in_its_own_task_and_equals_numpy(kind):
    rng = np.random.default_rng(4)
    if kind == "single":
        values = rng.integers(0, 3, (2, 50, 4)).astype(float)
        values[rng.random(values.shape) < 0.1] = np.nan
        dims = ("round", "item", "annotator")
    else:
        values = random_decisions(rng, (2, 50, 4, 3), 0.2 if kind == "float-missing" else 0,
                                  np.uint8)
        dims = ("round", "item", "annotator", "label")
    da = xr.DataArray(values, dims=dims)
    eager = variables(cohen_module._cohen_values(with_kernel_input(da), 0.95))
    data = with_kernel_input(da)
    key = "decisions" if kind != "single" else "codes"
    data[key] = dask.array.from_array(data[key], chunks=(2, (9, 20, 4, 17),
                                                         *data[key].shape[2:]))
    with raise_if_dask_computes():
        lazy = variables(cohen_module._cohen_values(data, 0.95))
    graph = dict(lazy["pair_coefficient"].data.__dask_graph__())
    tasks = [key_split(k) for k in graph]
    assert tasks.count("count") == 4  # key_split drops the underscore
    if kind != "single":
        assert tasks.count("influence_squares") == 4
    for name, value in eager.items():
        assert isinstance(lazy[name].data, dask.array.Array)
        computed = lazy[name].compute()
        if value.dtype.kind == "U":
            xr.testing.assert_equal(computed, value)
        else:
            xr.testing.assert_allclose(computed, value, rtol=1e-12, atol=1e-12)


def test_public_cohen_on_complete_bytes_through_dask():
    rng = np.random.default_rng(6)
    da = xr.DataArray(random_decisions(rng, (40, 3, 5), 0, np.uint8),
                      dims=("item", "annotator", "label"))
    eager = xr_agreement.cohen(da)
    with raise_if_dask_computes():
        lazy = xr_agreement.cohen(da.chunk(item=15))
    xr.testing.assert_allclose(eager, lazy.compute(), rtol=1e-12, atol=1e-12)
