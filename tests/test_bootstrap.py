"""Bootstrap confidence intervals (issue 5).

Independent references: plain ``mla()`` recomputed on explicitly resampled arrays (a raw
recount, not the weighted-sum path), NumPy's own ``Generator.integers`` draws,
``scipy.stats.bootstrap`` on a statistic written here from the definition with loops over
annotator pairs, ``numpy.nanquantile``, and a simulation whose population value is analytic.
"""

from __future__ import annotations

import io
import itertools
import math
from contextlib import redirect_stderr
from unittest import mock

import numpy as np
import pytest
import scipy.stats
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import xr_agreement
from xr_agreement import resampling as bs
from xr_agreement._core import threads
from xr_agreement.mla import MLAStatistic
from xr_agreement.mla import intervals as mla_intervals
from xr_agreement.resampling import draws as resampling_draws
from xr_agreement.resampling import fast as resampling_fast
from xr_agreement.resampling import kernels as resampling_kernels
from laziness import raise_if_dask_computes
from resampling import resampled

CORPUS = ["agreement", "observed", "expected", "minimum", "observed_minimum",
          "raw_prevalence", "alpha_hamming"]
LABEL = ["label_observed", "label_expected", "label_agreement", "label_weight",
         "label_observed_minimum", "label_prevalence", "label_positive_agreement",
         "label_negative_agreement"]


def decisions(seed, N=30, n=4, k=3, missing=0.1, rounds=None, prevalence=0.3):
    rng = np.random.default_rng(seed)
    shape = (N, n, k) if rounds is None else (rounds, N, n, k)
    values = (rng.random(shape) < prevalence).astype(float)
    values[rng.random(shape) < missing] = np.nan
    dims = ("item", "annotator", "label") if rounds is None else ("round", "item",
                                                                  "annotator", "label")
    coords = {"label": [f"L{j}" for j in range(k)], "item": [f"i{i}" for i in range(N)],
              "annotator": [f"a{a}" for a in range(n)]}
    if rounds is not None:
        coords["round"] = [f"r{r}" for r in range(rounds)]
    return xr.DataArray(values, dims=dims, coords=coords)


def assert_same(actual, expected, context):
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-13, equal_nan=True,
                               err_msg=context)


# ----------------------------------------------------------------------------- resamples


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.Philox,
                                           np.random.SFC64, np.random.MT19937])
@pytest.mark.parametrize("n_units,n_resamples,batch", [(1, 3, 2), (2, 9, 4), (7, 11, 3),
                                                       (1000, 13, 5), (3_000_001, 2, 1)])
def test_item_counts_are_numpys_draws(bit_generator, n_units, n_resamples, batch):
    indices = np.random.Generator(bit_generator(7)).integers(0, n_units,
                                                              (n_resamples, n_units))
    expected = np.stack([np.bincount(row, minlength=n_units) for row in indices])
    batches = list(bs.item_resample_counts(np.random.Generator(bit_generator(7)), n_units,
                                           n_resamples, batch))
    assert [start for start, _ in batches] == list(range(0, n_resamples, batch))
    np.testing.assert_array_equal(np.concatenate([c for _, c in batches]), expected)


def test_scipy_draws_the_same_stream_whatever_its_batches():
    """scipy.stats.bootstrap draws ``rng.integers(0, N, (batch, N))`` per batch; the
    generator's stream does not depend on the batches, so one call of ``(n_resamples, N)``
    (what the counts above equal) is what scipy draws with any ``batch``."""
    sample = np.random.default_rng(1).random(23)
    bounds = [scipy.stats.bootstrap((sample,), np.mean, n_resamples=50, batch=batch,
                                    method="percentile", rng=np.random.default_rng(4))
              .bootstrap_distribution for batch in (None, 7, 50)]
    indices = np.random.default_rng(4).integers(0, 23, (50, 23))
    for distribution in bounds:
        np.testing.assert_allclose(distribution, sample[indices].mean(axis=1), rtol=1e-15)


def test_counts_above_16_bits_are_exact():
    """A unit drawn more than 65535 times in a row is counted exactly, and the rows are
    overwritten, not added to."""
    from xr_agreement.resampling import kernels as _kernels

    N = 70_000
    draws = np.stack([np.zeros(N, np.int64), np.arange(N, dtype=np.int64)[::-1]])
    counts = np.full((2, N), 7.0, np.float32)  # overwritten, not added to
    _kernels.count_rows(draws, counts, 0, 2)
    expected = [np.bincount(draws[0], minlength=N), np.bincount(draws[1], minlength=N)]
    np.testing.assert_array_equal(counts, expected)


def _compositions(total, parts):
    """Every vector of ``parts`` non-negative integers adding up to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


@pytest.mark.parametrize("block_items", [2, 3, 4, 2**14])
def test_seeded_counts_are_multinomial(monkeypatch, block_items):
    """The block-seeded counts of 5 items have the law of 5 draws with replacement: every
    count vector's frequency over 40 000 replicates against its multinomial probability
    (chi-square), with blocks of 2, 3 and 4 items (the block totals and the draws inside;
    4 takes the branch-free path of powers of two) and with one block."""
    monkeypatch.setattr(resampling_draws, "BLOCK_ITEMS", block_items)
    N, R = 5, 40_000
    counts = bs.BlockedResampler(2024, N, R).counts(0, R, 0, N).astype(np.int64)
    np.testing.assert_array_equal(counts.sum(axis=1), N)
    observed, expected = [], []
    seen = {}
    for row in map(tuple, counts):
        seen[row] = seen.get(row, 0) + 1
    for vector in _compositions(N, N):
        probability = math.factorial(N) / math.prod(math.factorial(c) for c in vector) / N**N
        observed.append(seen.pop(vector, 0))
        expected.append(R * probability)
    assert not seen
    statistic, p_value = scipy.stats.chisquare(observed, expected)
    assert p_value > 1e-4, (statistic, p_value)


def _reference_block_draws(key, replicate, block, n_draws, size):
    """The documented stream of one block, in plain Python integers: splitmix64 seeding,
    xoshiro256**, the four 16-bit quarters of each output (low first) mapped by Lemire's
    multiply-shift, quarters whose low product bits fall below 2**16 mod size rejected."""
    mask = 2**64 - 1

    def splitmix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    def rotl(x, bits):
        return ((x << bits) | (x >> (64 - bits))) & mask

    golden = 0x9E3779B97F4A7C15
    seed = splitmix(key ^ splitmix((replicate * golden + 1) & mask))
    seed = splitmix(seed ^ splitmix((block * golden + 2) & mask))
    s = [splitmix((seed + j * golden) & mask) for j in range(1, 5)]
    counts = [0] * size
    done = 0
    while done < n_draws:
        word = (rotl((s[1] * 5) & mask, 7) * 9) & mask
        t = (s[1] << 17) & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        for quarter in range(4):
            product = ((word >> (16 * quarter)) & 0xFFFF) * size
            if (product & 0xFFFF) >= 2**16 % size and done < n_draws:
                counts[product >> 16] += 1
                done += 1
    return counts


@pytest.mark.parametrize("size, n_draws", [(2**14, 1003), (2**16, 77), (16, 16), (1, 3),
                                           (12_345, 2000), (3, 10)])
def test_block_draws_follow_the_documented_stream(size, n_draws):
    """The kernel's counts equal a plain-Python implementation of the stream, on the
    branch-free path of powers of two and on the rejecting path of other sizes."""
    from xr_agreement.resampling import kernels as _kernels

    key = 0xDEADBEEF12345678
    counts = np.zeros(size, np.int64)
    _kernels._count_block_draws(np.uint64(key), 5, 2, n_draws, size, counts)
    assert counts.tolist() == _reference_block_draws(key, 5, 2, n_draws, size)


def test_seeded_counts_do_not_depend_on_ranges_or_batches():
    """Any item range and replicate range of the counts is the same slice of the whole."""
    N, R = 50_000, 7
    draws = bs.BlockedResampler(np.random.SeedSequence(3), N, R)
    whole = draws.counts(0, R, 0, N)
    for r0, rows, i0, i1 in [(0, 7, 0, 1), (2, 3, 16_380, 16_390), (6, 1, 1, 49_999),
                             (0, 7, 32_768, 50_000), (3, 2, 17, 17)]:
        np.testing.assert_array_equal(draws.counts(r0, rows, i0, i1),
                                      whole[r0 : r0 + rows, i0:i1])
    batched = np.concatenate([c.copy() for _, c in draws.batches(3)])
    np.testing.assert_array_equal(batched, whole)
    # the same seed gives the same counts; another seed others; a SeedSequence is not used up
    sequence = np.random.SeedSequence(3)
    np.testing.assert_array_equal(bs.BlockedResampler(sequence, N, R).counts(0, R, 0, N), whole)
    np.testing.assert_array_equal(bs.BlockedResampler(sequence, N, R).counts(0, R, 0, N), whole)
    assert not np.array_equal(bs.BlockedResampler(4, N, R).counts(0, R, 0, N), whole)
    # the counts of one item: mean 1, variance 1 - 1/N, over many replicates
    many = bs.BlockedResampler(5, N, 400).counts(0, 400, 0, N)
    assert abs(many.mean() - 1) < 1e-12  # every replicate draws N items
    assert abs(many.var() - (1 - 1 / N)) < 0.01


def test_seeded_replicates_are_independent():
    """One item's counts in consecutive replicates, and two items' counts in one replicate
    across a block boundary, against their joint laws (chi-square): independent
    Binomial(N, 1/N) in the first case, the multinomial pair in the second."""
    N, R = 6, 60_000
    with mock.patch.object(resampling_draws, "BLOCK_ITEMS", 3):
        counts = bs.BlockedResampler(77, N, R).counts(0, R, 0, N).astype(np.int64)
    top = 4  # counts of 4 or more pooled
    pmf = scipy.stats.binom.pmf(np.arange(top), N, 1 / N)
    marginal = np.append(pmf, 1 - pmf.sum())

    def pair_test(a, b, joint):
        observed = np.zeros((top + 1, top + 1))
        np.add.at(observed, (np.minimum(a, top), np.minimum(b, top)), 1)
        expected = joint * len(a)
        keep = expected.ravel() > 5  # the test on the cells kept, scaled to their total
        return scipy.stats.chisquare(observed.ravel()[keep],
                                     expected.ravel()[keep] * observed.ravel()[keep].sum()
                                     / expected.ravel()[keep].sum())[1]

    assert pair_test(counts[0::2, 0], counts[1::2, 0], np.outer(marginal, marginal)) > 1e-4
    joint = np.zeros((top + 1, top + 1))  # items 2 and 3: (c2, c3, rest) multinomial
    for c2 in range(N + 1):
        for c3 in range(N + 1 - c2):
            p = scipy.stats.multinomial.pmf([c2, c3, N - c2 - c3], N, [1 / N, 1 / N, 1 - 2 / N])
            joint[min(c2, top), min(c3, top)] += p
    assert pair_test(counts[:, 2], counts[:, 3], joint) > 1e-4


def test_block_counts_exact_when_a_block_gets_many_draws():
    """Sums of the per-item table above float32's exact range (2**24): 16384 items with
    x (m - x) = 31 * 33 (odd) in the first resampler block, which a replicate draws about
    16384 times. The replicates (numpy streaming blocks, and dask blocks) must still equal
    mla() recomputed on the resampled items."""
    N, n, R = 32768, 64, 8
    values = np.zeros((N, n, 1), np.uint8)
    values[: N // 2, :31, 0] = 1  # x (m - x) = 1023 per item in the first block
    values[N // 2 :, :2, 0] = 1
    da = xr.DataArray(values, dims=("item", "annotator", "label"))
    kwargs = dict(ci=0.9, n_resamples=R, seed=4, return_replicates=True)
    eager = xr_agreement.mla(da, "F", **kwargs)
    lazy = xr_agreement.mla(da.chunk(item=(N // 2 - 5, N // 2 + 5)), "F", **kwargs).compute()
    counts = bs.BlockedResampler(4, N, R).counts(0, R, 0, N).astype(np.int64)
    draws = counts[:, : N // 2].sum(axis=1)
    # some sums are odd and above 2**24: float32 cannot hold them
    assert ((1023 * draws > 2**24) & (draws % 2 == 1)).any()
    for r in range(R):
        expected = xr_agreement.mla(resampled(da, {"item": np.repeat(np.arange(N), counts[r])}),
                                    "F")
        for name in CORPUS + LABEL:
            for out in (eager, lazy):
                assert_same(out[f"{name}_replicates"].isel(resample=r).values,
                            expected[name].values, f"{name} replicate {r}")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), N=st.integers(1, 12), missing=st.sampled_from([0, 0.3]))
def test_seeded_replicates_equal_recomputation(seed, N, missing):
    """With an int seed, each replicate equals mla() recomputed on the resampled items that
    the seeded counts describe."""
    da = decisions(seed, N=N, n=3, k=3, missing=missing, prevalence=0.4)
    out = xr_agreement.mla(da, ["F", "AC1"], ci=0.95, n_resamples=3, seed=seed,
                           return_replicates=True)
    counts = bs.BlockedResampler(seed, N, 3).counts(0, 3, 0, N).astype(np.int64)
    for r in range(3):
        items = np.repeat(np.arange(N), counts[r])
        expected = xr_agreement.mla(resampled(da, {"item": items}), ["F", "AC1"])
        for name in CORPUS + LABEL:
            assert_same(out[f"{name}_replicates"].isel(resample=r).values,
                        expected[name].values, name)


# ----------------------------------------------------------------------------- replicates


@pytest.mark.parametrize("unit", ["item", "annotator", "both"])
def test_replicates_equal_recomputation(unit):
    da = decisions(1, rounds=2)
    B = 12
    # a Generator as seed: resamples are NumPy's rng.integers draws
    out = xr_agreement.mla(da, "all", ci=0.9, n_resamples=B, resample=unit,
                           seed=np.random.default_rng(5), return_replicates=True)
    rng = np.random.default_rng(5)
    N, n = da.sizes["item"], da.sizes["annotator"]
    annotators = rng.integers(0, n, (B, n)) if unit != "item" else None
    items = rng.integers(0, N, (B, N)) if unit != "annotator" else None
    for r in range(B):
        sample = da
        if annotators is not None:
            sample = resampled(sample, {"annotator": annotators[r]})
        if items is not None:
            sample = resampled(sample, {"item": items[r]})
        expected = xr_agreement.mla(sample, "all")
        for name in CORPUS + LABEL:
            actual = out[f"{name}_replicates"].isel(resample=r)
            assert actual.dims == expected[name].dims
            assert_same(actual.values, expected[name].values, f"{unit} {name} replicate {r}")


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(1, 12),
    n=st.integers(2, 5),
    k=st.integers(1, 4),
    missing=st.sampled_from([0.0, 0.3]),
)
def test_item_replicates_property(seed, N, n, k, missing):
    da = decisions(seed, N=N, n=n, k=k, missing=missing, prevalence=0.4)
    out = xr_agreement.mla(da, ["F", "AC1"], ci=0.95, n_resamples=3,
                           seed=np.random.default_rng(seed), return_replicates=True)
    items = np.random.default_rng(seed).integers(0, N, (3, N))
    for r in range(3):
        expected = xr_agreement.mla(resampled(da, {"item": items[r]}), ["F", "AC1"])
        for name in CORPUS + LABEL:
            assert_same(out[f"{name}_replicates"].isel(resample=r).values,
                        expected[name].values, name)


def test_shared_missing_patterns_replicates():
    """Labels missing on the same (item, annotator) cells, one on its own and one complete:
    the replicates equal recomputations on the resampled items."""
    rng = np.random.default_rng(11)
    N, n = 40, 4
    values = (rng.random((N, n, 4)) < 0.4).astype(float)
    gone = rng.random((N, n)) < 0.3
    values[gone, :2] = np.nan  # labels 0 and 1: the same missing cells
    values[rng.random((N, n)) < 0.3, 2] = np.nan  # label 2: its own; label 3 complete
    da = xr.DataArray(values, dims=("item", "annotator", "label"),
                      coords={"label": list("abcd")})
    out = xr_agreement.mla(da, "F", ci=0.9, n_resamples=4, seed=np.random.default_rng(2),
                           return_replicates=True)
    items = np.random.default_rng(2).integers(0, N, (4, N))
    for r in range(4):
        expected = xr_agreement.mla(resampled(da, {"item": items[r]}), "F")
        for name in CORPUS + LABEL:
            assert_same(out[f"{name}_replicates"].isel(resample=r).values,
                        expected[name].values, name)


def test_same_replicates_from_a_pool_thread():
    """Called from one of the package's own pool threads (as a nested task would be), the
    bootstrap runs there instead of waiting on the pool, with the same draws."""
    from xr_agreement._core.threads import _thread_pool

    da = decisions(4, N=5000, n=3, k=2, missing=0.0)

    def run():
        return xr_agreement.mla(da, "F", ci=0.9, n_resamples=6, seed=1,
                                return_replicates=True)

    in_pool = [_thread_pool().submit(run) for _ in range(4)]  # more tasks than threads
    expected = run()
    for future in in_pool:
        xr.testing.assert_identical(future.result(timeout=120), expected)


def test_generic_recomputation_matches_fast_path():
    """The generic (recomputing) statistic and the MLA weighted-sum statistic agree."""
    da = decisions(2, N=10, n=3, k=2)
    result = xr_agreement.mla(da)
    for unit in ["item", "annotator", "both"]:
        fast = xr_agreement.mla(da, ci=0.9, n_resamples=12, resample=unit, ci_method="bca",
                                seed=3, return_replicates=True)
        generic = bs.bootstrap(
            bs.RecomputedStatistic(xr_agreement.mla, da, item="item", annotator="annotator"),
            result, ci=0.9, n_resamples=12, resample=unit, ci_method="bca", seed=3,
            return_replicates=True,
        )
        for name in CORPUS + LABEL:
            for suffix in ["lower", "upper", "replicates"]:
                assert_same(fast[f"{name}_{suffix}"].values,
                            generic[f"{name}_{suffix}"].transpose(
                                *fast[f"{name}_{suffix}"].dims).values,
                            f"{unit} {name}_{suffix}")


# ----------------------------------------------------------------------------- scipy


def f_coefficient(values):
    """Fleiss-type multi-label agreement of complete 0/1 data (..., N, n, k), from the
    definition: mean agreement over annotator pairs, pooled prevalence per label."""
    n = values.shape[-2]
    pairs = list(itertools.combinations(range(n), 2))
    agreeing = sum((values[..., a, :] == values[..., b, :]).astype(float) for a, b in pairs)
    observed = agreeing.mean(axis=(-2, -1)) / len(pairs)
    p = values.mean(axis=(-3, -2))
    expected = (p**2 + (1 - p) ** 2).mean(axis=-1)
    return (observed - expected) / (1 - expected)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
@pytest.mark.parametrize("unit", ["item", "annotator"])
def test_intervals_equal_scipy(method, unit):
    rng = np.random.default_rng(11)
    N, n, k = 25, 4, 3
    latent = rng.random((N, 1, k)) < 0.4
    values = (latent ^ (rng.random((N, n, k)) < 0.2)).astype(np.int8)
    da = xr.DataArray(values, dims=("item", "annotator", "label"))

    def statistic(indices, axis=-1):
        if unit == "item":
            return f_coefficient(values[indices])
        picked = np.moveaxis(values[:, indices, :], 0, -3)  # (..., N, n, k)
        return f_coefficient(picked)

    size = N if unit == "item" else n
    reference = scipy.stats.bootstrap((np.arange(size),), statistic, n_resamples=999,
                                      confidence_level=0.9, method=method, vectorized=True,
                                      rng=np.random.default_rng(4))
    out = xr_agreement.mla(da, ci=0.9, n_resamples=999, resample=unit, ci_method=method,
                           seed=np.random.default_rng(4), return_replicates=True)
    assert float(out.agreement) == pytest.approx(float(f_coefficient(values)), rel=1e-12)
    np.testing.assert_allclose(np.sort(out.agreement_replicates.values),
                               np.sort(reference.bootstrap_distribution), rtol=1e-10)
    assert float(out.agreement_lower) == pytest.approx(reference.confidence_interval.low,
                                                       rel=1e-10)
    assert float(out.agreement_upper) == pytest.approx(reference.confidence_interval.high,
                                                       rel=1e-10)


def test_interval_bounds_bca_equals_scipy_on_its_distribution():
    """BCa from given replicates and jackknife values, against scipy's own."""
    rng = np.random.default_rng(0)
    sample = rng.exponential(size=40)
    res = scipy.stats.bootstrap((sample,), np.mean, n_resamples=500, method="BCa",
                                confidence_level=0.8, rng=np.random.default_rng(1))
    indices = np.random.default_rng(1).integers(0, 40, (500, 40))
    replicates = sample[indices].mean(axis=1)
    jackknife = np.array([np.delete(sample, i).mean() for i in range(40)])
    lower, upper = bs.interval_bounds(np.array(sample.mean()), replicates, 0.8, "bca",
                                      [jackknife])
    assert float(lower) == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert float(upper) == pytest.approx(res.confidence_interval.high, rel=1e-12)


# ----------------------------------------------------------------------------- output


def test_output_variables_dims_and_attrs():
    da = decisions(3, rounds=2)
    plain = xr_agreement.mla(da, "all")
    out = xr_agreement.mla(da, "all", ci=0.8, n_resamples=50, seed=1, return_replicates=True)
    for name in CORPUS + LABEL:
        for suffix in ["lower", "upper"]:
            bound = out[f"{name}_{suffix}"]
            assert bound.dims == plain[name].dims
            for coord in plain[name].coords:
                np.testing.assert_array_equal(bound[coord].values, plain[name][coord].values)
            assert {"long_name", "description", "symbol"} <= set(bound.attrs)
            assert "80%" in bound.attrs["long_name"]
        assert out[f"{name}_replicates"].dims == ("resample", *plain[name].dims)
        lower, upper = out[f"{name}_lower"], out[f"{name}_upper"]
        assert bool(((lower <= upper) | lower.isnull()).all())
    for name in ["item_observed", "item_agreement", "n_pairable_items",
                 "n_missing_decisions", "label_n_pairable_values"]:
        assert f"{name}_lower" not in out
        xr.testing.assert_identical(out[name], plain[name])
    assert out.attrs["ci_level"] == 0.8
    assert out.attrs["ci_method"] == "percentile"
    assert out.attrs["ci_n_resamples"] == 50
    assert out.attrs["ci_resampling_unit"] == "item"
    without = xr_agreement.mla(da, "all", ci=0.8, n_resamples=50, seed=1)
    assert not [v for v in without.data_vars if v.endswith("_replicates")]


def test_percentile_bounds_are_quantiles_of_defined_replicates():
    """A rare label is absent from some resamples: its label agreement is NaN there (label
    universe fixed) and the interval comes from the replicates where it is defined."""
    values = np.zeros((20, 3, 2))
    values[:, :, 0] = np.random.default_rng(0).random((20, 3)) < 0.5
    values[0, :2, 1] = 1  # label 1: one item only
    da = xr.DataArray(values, dims=("item", "annotator", "label"))
    out = xr_agreement.mla(da, ci=0.9, n_resamples=200, seed=2, return_replicates=True)
    reps = out.label_agreement_replicates.sel(label=1).values
    assert np.isnan(reps).any() and not np.isnan(reps).all()
    assert out.label_weight_replicates.sel(label=1).values[np.isnan(reps)].max() == 0
    lower, upper = np.nanquantile(reps, [0.05, 0.95])
    assert float(out.label_agreement_lower.sel(label=1)) == pytest.approx(lower, rel=1e-12)
    assert float(out.label_agreement_upper.sel(label=1)) == pytest.approx(upper, rel=1e-12)


def test_same_seed_same_intervals_numpy_dask_and_generator():
    da = decisions(4, N=37, rounds=2)
    lazy = da.chunk({"item": 10, "round": 1, "label": 2})
    for unit, method in [("item", "bca"), ("item", "percentile"), ("annotator", "percentile"),
                         ("both", "bca")]:
        kwargs = dict(ci=0.95, n_resamples=40, resample=unit, ci_method=method)
        eager = xr_agreement.mla(da, seed=9, **kwargs)
        on_dask = xr_agreement.mla(lazy, seed=9, **kwargs).compute()
        from_generator = xr_agreement.mla(da, seed=np.random.default_rng(9), **kwargs)
        generator_on_dask = xr_agreement.mla(lazy, seed=np.random.default_rng(9),
                                             **kwargs).compute()
        for name in CORPUS + LABEL:
            for suffix in ["lower", "upper"]:
                key = f"{name}_{suffix}"
                if method == "percentile":  # the same int64 counts, the same finishing
                    np.testing.assert_array_equal(on_dask[key].values, eager[key].values, key)
                else:  # BCa's jackknife moments are float sums, added block by block
                    np.testing.assert_allclose(on_dask[key].values, eager[key].values,
                                               rtol=1e-12, atol=1e-15, equal_nan=True,
                                               err_msg=key)
                np.testing.assert_array_equal(generator_on_dask[key].values,
                                              from_generator[key].values, key)
        if unit == "item":  # (4 annotators have few distinct resamples)
            other = xr_agreement.mla(da, seed=10, **kwargs)
            assert not np.array_equal(other.agreement_lower.values,
                                      eager.agreement_lower.values)


def test_progress_bar_only_when_asked_outside_interactive_sessions():
    da = decisions(5)
    quiet, shown = io.StringIO(), io.StringIO()
    with redirect_stderr(quiet):
        xr_agreement.mla(da, ci=0.9, n_resamples=20, seed=0)
    with redirect_stderr(shown):
        xr_agreement.mla(da, ci=0.9, n_resamples=20, seed=0, progress=True)
    assert quiet.getvalue() == ""
    assert "20/20" in shown.getvalue()


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(ci=95), ValueError, r"ci must be a number in \(0, 1\), got 95"),
        (dict(ci=0.9, n_resamples=1), ValueError, "n_resamples"),
        (dict(ci=0.9, resample="items"), ValueError, "resample must be one of.*'items'"),
        (dict(ci=0.9, ci_method="basic"), ValueError, "ci_method must be one of.*'basic'"),
        (dict(ci=0.9, seed=1.5), TypeError, "seed must be"),
        (dict(ci=0.9, progress="yes"), ValueError, "progress"),
    ],
)
def test_bad_options_fail_before_counting(kwargs, error, match):
    values = np.zeros((2, 2, 2))
    values[0, 0, 0] = 2  # invalid too, but the option is reported first
    da = xr.DataArray(values, dims=("item", "annotator", "label"))
    with pytest.raises(error, match=match):
        xr_agreement.mla(da, **kwargs)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.int64])
def test_integer_decisions_replicates_equal_recomputation(dtype):
    """Complete integer or boolean decisions take a one-pass table; each replicate still
    equals mla() recomputed on the resampled items (extra dim included)."""
    rng = np.random.default_rng(8)
    values = (rng.random((2, 40, 4, 3)) < 0.35).astype(dtype)
    da = xr.DataArray(values, dims=("round", "item", "annotator", "label"))
    out = xr_agreement.mla(da, ["F", "AC1"], ci=0.9, n_resamples=4, seed=5,
                           return_replicates=True)
    counts = bs.BlockedResampler(5, 40, 4).counts(0, 4, 0, 40).astype(np.int64)
    for r in range(4):
        expected = xr_agreement.mla(resampled(da, {"item": np.repeat(np.arange(40), counts[r])}),
                                    ["F", "AC1"])
        for name in CORPUS + LABEL:
            assert_same(out[f"{name}_replicates"].isel(resample=r).values,
                        expected[name].values, f"{dtype.__name__} {name}")


@pytest.mark.parametrize("most, missing", [(None, False), (262, False), (None, True)])
def test_paired_products_equal_recomputation(monkeypatch, most, missing):
    """The counts of two replicates share a float32 row (the second scaled by 2**shift)
    and are multiplied sub-block by sub-block. Each replicate still equals mla()
    recomputed on the resampled items: over several resampler blocks, sub-blocks and a
    tail, an odd number of replicates, an extra dim, with missing decisions (the general
    table, whose ones column is a label nobody skipped); with ``most=262`` (sub-blocks of
    256 items) part of the sub-blocks get more draws than the pairing allows and their
    pairs are multiplied again unpaired."""
    monkeypatch.setattr(resampling_draws, "BLOCK_ITEMS", 1024)
    if most is not None:
        monkeypatch.setattr(mla_intervals, "replicate_pairing", lambda largest: (12, most, 256))
    N, n, R = 2900, 5, 5
    rng = np.random.default_rng(3)
    values = (rng.random((2, N, n, 4)) < rng.uniform(0.1, 0.6, 4)).astype(np.int8)
    da = xr.DataArray(values, dims=("round", "item", "annotator", "label"))
    if missing:
        da = da.astype(float).where(
            (rng.random(da.shape) > 0.2) | (da.label.values[None, None, None, :] == 0))
    unpacked = []
    unpack = resampling_kernels.unpack_replicate_pairs
    monkeypatch.setattr(resampling_kernels, "unpack_replicate_pairs",
                        lambda products, *args: unpacked.append(products.shape)
                        or unpack(products, *args))
    out = xr_agreement.mla(da, ["F", "AC1"], ci=0.9, n_resamples=R, seed=11,
                           return_replicates=True)
    assert unpacked  # the paired products were taken
    counts = bs.BlockedResampler(11, N, R).counts(0, R, 0, N).astype(np.int64)
    if most is not None:
        draws = counts[:, : N // 256 * 256].reshape(R, -1, 256).sum(axis=-1)
        assert (draws > most).any() and (draws <= most).any()
    for r in range(R):
        expected = xr_agreement.mla(resampled(da, {"item": np.repeat(np.arange(N), counts[r])}),
                                    ["F", "AC1"])
        for name in CORPUS + LABEL:
            assert_same(out[f"{name}_replicates"].isel(resample=r).values,
                        expected[name].values, f"{name} replicate {r}")


@pytest.mark.parametrize("cores", [1, 3, 8])
def test_same_replicates_whatever_the_number_of_cores(cores):
    """The streamed bootstrap splits replicates among as many threads as cores (one thread:
    no BLAS limit, ranges in turn); the replicates are the same bit for bit."""
    rng = np.random.default_rng(0)
    da = xr.DataArray((rng.random((5000, 4, 6)) < 0.3).astype(np.int8),
                      dims=("item", "annotator", "label"))
    kwargs = dict(ci=0.9, n_resamples=700, seed=3, return_replicates=True)
    expected = xr_agreement.mla(da, **kwargs)
    with mock.patch("os.cpu_count", return_value=cores):
        xr.testing.assert_identical(xr_agreement.mla(da, **kwargs), expected)


def test_no_pairing_without_a_ones_column():
    """Missing decisions in every label leave the general table without a column of
    ones: no pairing, and the replicates still equal recomputation."""
    rng = np.random.default_rng(4)
    N, R = 600, 3
    da = xr.DataArray((rng.random((N, 4, 3)) < 0.4).astype(float),
                      dims=("item", "annotator", "label"))
    da = da.where(rng.random(da.shape) > 0.3)
    statistic = MLAStatistic(da, ["F"], True, item="item", annotator="annotator",
                                label="label")
    assert statistic.pairing() is None
    out = xr_agreement.mla(da, ci=0.9, n_resamples=R, seed=2, return_replicates=True)
    counts = bs.BlockedResampler(2, N, R).counts(0, R, 0, N).astype(np.int64)
    for r in range(R):
        expected = xr_agreement.mla(resampled(da, {"item": np.repeat(np.arange(N), counts[r])}))
        assert_same(out.agreement_replicates.isel(resample=r).values,
                    expected.agreement.values, f"replicate {r}")


def test_blas_is_single_threaded_while_streaming_and_restored(monkeypatch):
    """The streamed products run with single-threaded BLAS (the worker threads fill the
    cores); bootstraps running at once in two threads leave every BLAS library's thread
    count as it was."""
    import threadpoolctl
    from concurrent.futures import ThreadPoolExecutor

    def blas_threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["user_api"] == "blas"]

    before = blas_threads()
    seen = []
    pair_sums = MLAStatistic.pair_sums
    monkeypatch.setattr(MLAStatistic, "pair_sums",
                        lambda self, *args: seen.append(blas_threads()) or pair_sums(self, *args))
    da = decisions(5, N=3000, n=4, k=3, missing=0, prevalence=0.3)
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(xr_agreement.mla, da, ci=0.9, n_resamples=300, seed=s)
                for s in range(4)]
        [run.result() for run in runs]
    assert seen and all(set(threads) == {1} for threads in seen)
    assert blas_threads() == before
    # a limit held by another thread (threadpoolctl's own) is left as it is, and is
    # restored by its owner
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        with ThreadPoolExecutor(1) as pool:
            pool.submit(xr_agreement.mla, da, ci=0.9, n_resamples=300, seed=1).result()
        assert set(blas_threads()) == {1}
    assert blas_threads() == before
    # and the limit can be switched off
    seen.clear()
    monkeypatch.setattr(threads, "SINGLE_THREADED_BLAS", False)
    xr_agreement.mla(da, ci=0.9, n_resamples=300, seed=1)
    assert seen and all(threads == before for threads in seen)


@pytest.mark.parametrize("largest", range(1, 21))
def test_replicate_pairing_sums_stay_exact(largest):
    """The largest sums a pairing allows, added one item at a time in float32, equal the
    integers, and the first replicate's sum stays below 2**shift."""
    shift, most, items = resampling_fast.replicate_pairing(largest)
    assert items + 4 * math.sqrt(items) <= most and items & (items - 1) == 0
    assert most * largest < 2**shift
    value = np.float32(largest * (1 + 2**shift))  # one item drawn by both, at the maximum
    total = np.float32(0)
    for _ in range(most):
        total = np.float32(total + value)
    assert int(total) == most * largest * (1 + 2**shift)


@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int8, np.int64, float])
def test_point_values_with_ci_equal_plain_mla(dtype):
    """With ``ci`` the point values of complete integer decisions come from the bootstrap's
    table pass instead of the usual count: every variable (item level included) equals
    plain mla() exactly, extra dim and coordinates included."""
    rng = np.random.default_rng(12)
    values = (rng.random((2, 300, 4, 5)) < rng.uniform(0.05, 0.7, 5)).astype(dtype)
    da = xr.DataArray(values, dims=("round", "item", "annotator", "label"),
                      coords={"label": list("abcde"), "round": [1, 2]})
    plain = xr_agreement.mla(da, ["F", "AC1", "PB"])
    with_ci = xr_agreement.mla(da, ["F", "AC1", "PB"], ci=0.9, n_resamples=20, seed=1)
    xr.testing.assert_identical(with_ci[list(plain.data_vars)].drop_attrs(),
                                plain.drop_attrs())
    for name in plain.data_vars:
        assert with_ci[name].attrs == plain[name].attrs


@pytest.mark.parametrize("bad", [2, -1])
def test_invalid_integer_decision_is_named_with_ci(bad):
    values = np.zeros((10, 3, 2), np.int8)
    values[7, 2, 1] = bad
    da = xr.DataArray(values, dims=("item", "annotator", "label"),
                      coords={"item": [f"i{i}" for i in range(10)]})
    with pytest.raises(ValueError, match=rf"{bad}.*item='i7'.*annotator=2.*label=1"):
        xr_agreement.mla(da, ci=0.9, n_resamples=5, seed=0)


def test_invalid_value_in_dask_input_is_named():
    da = decisions(6, N=20)
    values = da.values.copy()
    values[13, 1, 2] = 3.0
    lazy = da.copy(data=values).chunk({"item": 5})
    result = xr_agreement.mla(lazy, ci=0.9, n_resamples=5, seed=0)  # lazy: nothing read yet
    # every task that reads the block names the value: the estimate's and the bootstrap's
    with pytest.raises(ValueError, match=r"3\.0.*item='i13'.*annotator='a1'.*label='L2'"):
        result.compute()
    with pytest.raises(ValueError, match=r"3\.0.*item='i13'.*annotator='a1'.*label='L2'"):
        result.agreement_lower.compute()


@settings(max_examples=15, deadline=None)
@given(data=st.data(), missing=st.sampled_from([0.0, 0.2]),
       unit=st.sampled_from(["item", "annotator", "both"]),
       method=st.sampled_from(["percentile", "bca"]))
def test_dask_intervals_are_lazy_blockwise_and_equal_numpy(data, missing, unit, method):
    """On dask input (int seed) the intervals are a lazy graph with one counting task per
    block (no task gets the whole array), equal to numpy's for any item chunking."""

    N = data.draw(st.integers(2, 30))
    cuts = sorted(data.draw(st.sets(st.integers(1, N - 1), max_size=4)))
    chunks = tuple(np.diff([0, *cuts, N]).tolist())
    da = decisions(N + 7, N=N, n=3, k=3, missing=missing, rounds=2)
    lazy = da.chunk({"item": chunks, "round": 1})
    kwargs = dict(baseline=["F", "PB"], ci=0.9, n_resamples=30, resample=unit, ci_method=method,
                  seed=N, return_replicates=True)

    # resampler blocks of 4 items: dask chunks start and end inside them
    with mock.patch.object(resampling_draws, "BLOCK_ITEMS", 4), raise_if_dask_computes():
        result = xr_agreement.mla(lazy, **kwargs)
    keys = [str(key) for key in dict(result.__dask_graph__())]
    counting = [key for key in keys if key.startswith("bootstrap-counts-")
                and key.split("-")[-1].isdigit() and "sum" not in key and "total" not in key]
    assert len(counting) == len(chunks) * 2  # one per (item block, round block)
    with mock.patch.object(resampling_draws, "BLOCK_ITEMS", 4):
        expected = xr_agreement.mla(da, **kwargs)
        computed = result.compute()
    for name in expected.data_vars:
        if expected[name].dtype.kind in "OUS":  # the reasons a value is undefined
            np.testing.assert_array_equal(computed[name].transpose(*expected[name].dims).values,
                                          expected[name].values, err_msg=name)
            continue
        np.testing.assert_allclose(computed[name].transpose(*expected[name].dims).values,
                                   expected[name].values, rtol=1e-12, atol=1e-13,
                                   equal_nan=True, err_msg=name)


# ----------------------------------------------------------------------------- calibration


def flip_corpora(rng, n_corpora, N, n, k, p, eps):
    """Annotators copy a latent Bernoulli(p) label and flip each decision with prob eps."""
    latent = rng.random((n_corpora, N, 1, k)) < p
    flips = rng.random((n_corpora, N, n, k)) < eps
    return xr.DataArray((latent ^ flips).astype(np.int8),
                        dims=("corpus", "item", "annotator", "label"))


@pytest.mark.slow
def test_item_bootstrap_interval_is_calibrated():
    p, eps = 0.3, 0.1
    agreement = (1 - eps) ** 2 + eps**2
    q = eps + p * (1 - 2 * eps)
    chance = q**2 + (1 - q) ** 2
    population = (agreement - chance) / (1 - chance)
    # N = 300 items: the estimate's O(1/N) bias is about 1% of its standard error
    rng = np.random.default_rng(2026)
    covered = []
    # corpora share resampling counts within a call (items drawn jointly across the
    # corpus dim); each call has its own seed, and the data of every corpus is independent
    for call in range(8):
        corpora = flip_corpora(rng, 125, N=300, n=3, k=2, p=p, eps=eps)
        out = xr_agreement.mla(corpora, ci=0.95, n_resamples=1000, seed=call)
        covered.append(((out.agreement_lower <= population)
                        & (population <= out.agreement_upper)).values)
    covered = np.concatenate(covered)
    rate = covered.mean()
    error = math.sqrt(rate * (1 - rate) / covered.size)
    message = (f"95% item-bootstrap interval covered the population value {population:.4f} "
               f"in {rate:.1%} of {covered.size} corpora (Monte Carlo error {error:.1%})")
    print(message)
    assert 0.93 <= rate <= 0.97, message


@pytest.mark.parametrize("call", [
    lambda da: xr_agreement.mla(da, ci=0.9, n_resamples=20, seed=1),
    lambda da: xr_agreement.fleiss(da.isel(label=0), ci_method="percentile", n_resamples=20,
                                   seed=1),
    lambda da: xr_agreement.cohen(da.isel(label=0), ci_method="bca", n_resamples=20, seed=1),
    lambda da: xr_agreement.alpha(da.isel(label=0), "nominal", ci_method="percentile",
                                  n_resamples=20, seed=1),
    lambda da: xr_agreement.annotators(da.chunk(item=5), ci=0.9, n_resamples=20, seed=1),
])
def test_an_input_dim_named_resample_is_refused_by_the_bootstrap(call):
    # it met the replicates' dim deep inside: a clash of sizes or duplicate dims, unexplained
    rng = np.random.default_rng(2)
    da = xr.DataArray((rng.random((10, 3, 4, 2)) < 0.3).astype(float),
                      dims=("item", "annotator", "label", "resample"))
    with pytest.raises(ValueError, match="dim 'resample'.*rename it"):
        call(da)
