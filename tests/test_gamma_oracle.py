"""Tests of the gamma oracle (tests/gamma_oracle.py): values worked by hand from the
definitions, properties, and pygamma-agreement's recorded values (tests/data/gamma)."""

import itertools
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from gamma_oracle import (Dissimilarity, Unit, alignment_disorder, alignments, best_alignment,
                          best_alignment_enumerated, gamma, sample_continuum,
                          sampler_parameters, unitary_disorder)

VALUES = Path(__file__).parent / "data" / "gamma" / "pygamma_values.json"
FLOAT32 = 1e-6  # pygamma sums float32 disorders: a few units in the last place


def units_of(records):
    return [Unit(*r) for r in records]


# --------------------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------------------


def test_dissimilarities_by_hand():
    d = Dissimilarity(alpha=3.0, beta=2.0, empty_cost=0.5)
    u, v = Unit("a", 0, 10, "X"), Unit("b", 2, 10, "Y")
    # (|0-2| + |10-10|) / (10 + 8) = 1/9; squared 1/81; times Delta 0.5
    assert d.positional(u, v) == pytest.approx(0.5 / 81, abs=1e-15)
    assert d.categorical(u, v) == 0.5  # 1 * Delta
    assert d(u, v) == pytest.approx(3 * 0.5 / 81 + 2 * 0.5, abs=1e-15)
    assert d(u, None) == d(None, v) == d(None, None) == 0.5
    # pygamma's default combined dissimilarity: categorical distance not scaled by Delta
    assert Dissimilarity(empty_cost=0.5, categorical_empty_cost=1.0).categorical(u, v) == 1.0


def test_two_annotators_one_pair():
    # a [0,10) and b [2,10), same category, Delta 1: aligned costs (2/18)**2 = 1/81 (one
    # annotator pair); apart, two lone units cost 1 each = 2. Mean units per annotator 1.
    units = [Unit("a", 0, 10, "X"), Unit("b", 2, 10, "X")]
    value, partition = best_alignment(units, ["a", "b"], Dissimilarity())
    assert value == pytest.approx(1 / 81, abs=1e-15)
    assert partition == [tuple(units)]


def test_three_annotators_category_clash():
    # a [0,10) X, b [0,10) Y, c [20,30) X; alpha = beta = Delta = 1; 3 annotator pairs.
    # {a, b, -}: (a,b) = 0 + 1, (a,-) = 1, (b,-) = 1 -> 3/3 = 1; {c} alone: 3 pairs of
    # Delta -> 1. Total 2. All alone: 3. {a, b, c}: d_pos(a,c) = ((20+20)/20)**2 = 4, so
    # (1 + 4 + 5)/3 = 10/3. Mean units per annotator 3/3 = 1 -> observed 2.
    units = [Unit("a", 0, 10, "X"), Unit("b", 0, 10, "Y"), Unit("c", 20, 30, "X")]
    d = Dissimilarity()
    assert unitary_disorder(units, "abc", d) == pytest.approx(10 / 3, abs=1e-15)
    assert best_alignment(units, "abc", d)[0] == pytest.approx(2.0, abs=1e-15)


def test_category_matrix_and_its_delta():
    # two annotators, same span, categories N / V at distance 0.5 in the matrix.
    units = [Unit("a", 0, 4, "N"), Unit("b", 0, 4, "V")]
    matrix = dict(matrix=[[0, 0.5], [0.5, 0]], categories=["N", "V"])
    # Delta 1: aligned 0.5 < apart 2 -> 0.5
    assert best_alignment(units, "ab", Dissimilarity(**matrix))[0] == pytest.approx(0.5)
    # Delta 0.2: aligned 0.5 * 0.2 = 0.1 < apart 0.4 -> 0.1
    d = Dissimilarity(empty_cost=0.2, **matrix)
    assert best_alignment(units, "ab", d)[0] == pytest.approx(0.1, abs=1e-15)
    # categorical part kept at Delta 1 (pygamma's default): aligned 0.5 > apart 0.4 -> 0.4
    d = Dissimilarity(empty_cost=0.2, categorical_empty_cost=1.0, **matrix)
    value, partition = best_alignment(units, "ab", d)
    assert value == pytest.approx(0.4, abs=1e-15)
    assert len(partition) == 2


def test_normalised_by_mean_units_per_annotator():
    # a: [0,10) [20,30) [40,50); b: [2,10) [20,30). Best: the two pairs (1/81 and 0) and
    # a's third unit alone (1); 5 units over 2 annotators -> divide by 2.5.
    units = units_of([("a", 0, 10, "x"), ("a", 20, 30, "x"), ("a", 40, 50, "x"),
                      ("b", 2, 10, "x"), ("b", 20, 30, "x")])
    assert best_alignment(units, "ab", Dissimilarity())[0] == pytest.approx(
        (1 / 81 + 0 + 1) / 2.5, abs=1e-15)


def test_empty_pairs_cost_delta_too():
    # 4 annotators, 6 pairs: {a, b, -, -}: (a,b) = 1/81, 4 unit-empty pairs and 1
    # empty-empty pair at Delta = 1 -> (1/81 + 5)/6; c and d alone cost 1 each.
    units = units_of([("a", 0, 10, "x"), ("b", 2, 10, "x"), ("c", 100, 110, "x"),
                      ("d", 200, 210, "x")])
    assert best_alignment(units, "abcd", Dissimilarity())[0] == pytest.approx(
        (1 / 81 + 5) / 6 + 2, abs=1e-15)


def test_pair_threshold_three_annotators():
    # a [0,10) x, b [0,10) y, beta 3.9: together (3.9 + 1 + 1)/3 = 1.9667 < 2 lone units;
    # c far away alone: 1. At beta 4.1 together would cost 2.0333 > 2: apart, 3 in all.
    units = units_of([("a", 0, 10, "x"), ("b", 0, 10, "y"), ("c", 100, 110, "x")])
    value, partition = best_alignment(units, "abc", Dissimilarity(beta=3.9))
    assert value == pytest.approx(5.9 / 3 + 1, abs=1e-15) and len(partition) == 2
    value, partition = best_alignment(units, "abc", Dissimilarity(beta=4.1))
    assert value == pytest.approx(3.0, abs=1e-15) and len(partition) == 3


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------


def random_continuum(rng, n_annotators, n_units, categories="XYZ"):
    annotators = [f"r{i}" for i in range(n_annotators)]
    units = []
    for _ in range(n_units):
        start = rng.randint(0, 40)
        units.append(Unit(rng.choice(annotators), start, start + rng.randint(1, 12),
                          rng.choice(categories)))
    return units, annotators


def test_identical_annotations_have_no_disorder():
    rng = random.Random(1)
    base, _ = random_continuum(rng, 1, 4)
    units = [Unit(a, u.start, u.end, u.category) for a in "abc" for u in base]
    assert best_alignment(units, "abc", Dissimilarity())[0] == 0
    assert gamma(units, "abc", Dissimilarity(), n_samples=3, seed=0)["gamma"] == 1.0


@pytest.mark.parametrize("n_annotators", [2, 3, 4])
@pytest.mark.parametrize("empty_cost", [1.0, 0.5])
def test_annotators_without_units(n_annotators, empty_cost):
    # only the first annotator marked units: every unit sits alone and costs Delta, so
    # the total k * Delta over k / n units per annotator is n * Delta
    units = units_of([("a0", 0, 5, "X"), ("a0", 3, 9, "Y"), ("a0", 20, 22, "X")])
    annotators = [f"a{i}" for i in range(n_annotators)]
    d = Dissimilarity(empty_cost=empty_cost)
    assert best_alignment(units, annotators, d)[0] == pytest.approx(
        n_annotators * empty_cost, abs=1e-12)


def test_alignment_count_two_annotators():
    # m and n units: sum over k pairs of C(m,k) C(n,k) k! partitions
    units = units_of([("a", 0, 1, "X"), ("a", 2, 3, "X"), ("a", 4, 5, "X"),
                      ("b", 0, 1, "X"), ("b", 2, 3, "X")])
    expected = sum(math.comb(3, k) * math.comb(2, k) * math.factorial(k) for k in range(3))
    found = list(alignments(units))
    assert len(found) == expected == 13
    for partition in found:  # each a partition with one unit per annotator at most
        assert sorted(u for block in partition for u in block) == sorted(units)
        assert all(len({u.annotator for u in b}) == len(b) for b in partition)


@pytest.mark.parametrize("seed", range(12))
def test_search_equals_enumeration(seed):
    rng = random.Random(seed)
    n_annotators = 2 + seed % 3
    units, annotators = random_continuum(rng, n_annotators, rng.randint(n_annotators, 8))
    d = Dissimilarity(alpha=rng.choice([1.0, 2.0, 3.0]), beta=rng.choice([0.5, 1.0, 2.0]),
                      empty_cost=rng.choice([0.5, 1.0, 2.0]))
    value, partition = best_alignment(units, annotators, d)
    reference, _ = best_alignment_enumerated(units, annotators, d)
    assert value == pytest.approx(reference, abs=1e-12)
    assert alignment_disorder(partition, annotators, len(units), d) == pytest.approx(
        value, abs=1e-12)
    # never worse than every unit alone: n * Delta
    assert value <= n_annotators * d.empty_cost + 1e-12


def pair_threshold(n_annotators, empty_cost):
    """Units further apart never need to share a unitary alignment. Splitting a unitary
    alignment into parts on annotator sets of sizes a and b (r empty slots, P = C(n, 2)
    pairs) changes its cost by (P * Delta + a * b * Delta - sum of the a * b cross
    dissimilarities) / P, which is <= 0 when every cross dissimilarity is at least
    (1 + P / (a * b)) * Delta, so for all a, b >= 1 when at least (1 + P) * Delta."""
    return (1 + math.comb(n_annotators, 2)) * empty_cost


def split_by_components(seed, limit_of):
    """(number of components, their best disorders combined, the global best disorder) on a
    random continuum, components of the graph of unit pairs (of different annotators)
    with a dissimilarity below ``limit_of(n_annotators, empty_cost)``."""
    rng = random.Random(100 + seed)
    n_annotators = 2 + seed % 3
    units, annotators = random_continuum(rng, n_annotators, 8)
    units = [Unit(u.annotator, u.start * 3, u.end * 3, u.category) for u in units]
    d = Dissimilarity(alpha=1.0, beta=rng.choice([0.5, 1.0, 3.0]),
                      empty_cost=rng.choice([0.25, 0.5, 1.0]))
    limit = limit_of(n_annotators, d.empty_cost)
    parent = list(range(len(units)))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(len(units)), 2):
        if units[i].annotator != units[j].annotator and d(units[i], units[j]) < limit:
            parent[root(i)] = root(j)
    groups = {}
    for i, u in enumerate(units):
        groups.setdefault(root(i), []).append(u)
    # a component's disorder is over its own units per annotator: weigh back by its size
    total = sum(best_alignment(g, annotators, d)[0] * len(g) for g in groups.values())
    return len(groups), total / len(units), best_alignment(units, annotators, d)[0]


@pytest.mark.parametrize("seed", range(10))
def test_components_solve_separately(seed):
    # seeds 0, 3, 4, 6, 7, 8, 9 split into 2 to 8 components
    _, split, whole = split_by_components(seed, pair_threshold)
    assert split == pytest.approx(whole, abs=1e-12)


@pytest.mark.parametrize("seed", [5, 8])
def test_components_need_the_full_threshold(seed):
    # 4 annotators: cutting pairs at 2 Delta (the two-annotator threshold) loses the best
    n_components, split, whole = split_by_components(seed, lambda n, delta: 2 * delta)
    assert n_components > 1 and split > whole + 0.05


def test_invariances():
    rng = random.Random(5)
    units, annotators = random_continuum(rng, 3, 7)
    d = Dissimilarity(alpha=2.0)
    value = best_alignment(units, annotators, d)[0]
    moved = [Unit(u.annotator, 3 * u.start + 7, 3 * u.end + 7, u.category) for u in units]
    assert best_alignment(moved, annotators, d)[0] == pytest.approx(value, abs=1e-12)
    for order in itertools.permutations(annotators):
        assert best_alignment(units[::-1], list(order), d)[0] == pytest.approx(
            value, abs=1e-12)


def test_sampler():
    units = units_of([("a", 2, 6, "X"), ("a", 8, 9, "Y"), ("b", 0, 4, "X")])
    params = sampler_parameters(units, "abc")
    # units per annotator 2, 1, 0; gaps 0, 8 - 6, and the first starts above 0: 2 (b: 0)
    assert params["count"] == pytest.approx((1.0, np.std([2, 1, 0])))
    assert params["gap"] == pytest.approx((4 / 3, np.std([0, 2, 2])))
    assert params["duration"] == pytest.approx((3.0, np.std([4, 1, 4])))
    assert params["categories"] == ["X", "Y"] and params["weights"] == [2 / 3, 1 / 3]
    rng = np.random.default_rng(0)
    for _ in range(50):
        sample = sample_continuum(params, "abc", rng)
        assert sample and all(u.end - u.start >= 1e-6 for u in sample)
    a = gamma(units, "abc", Dissimilarity(), n_samples=5, seed=3)
    b = gamma(units, "abc", Dissimilarity(), n_samples=5, seed=3)
    assert a["sampled_disorders"] == b["sampled_disorders"]


# --------------------------------------------------------------------------------------
# pygamma-agreement's values
# --------------------------------------------------------------------------------------

RECORDED = json.loads(VALUES.read_text())["continua"]


def dissimilarity(settings):
    return Dissimilarity(alpha=settings["alpha"], beta=settings["beta"],
                         empty_cost=settings["empty_cost"], matrix=settings.get("matrix"),
                         categories=settings.get("categories"),
                         categorical_empty_cost=settings.get("categorical_empty_cost"))


@pytest.mark.parametrize("case", RECORDED, ids=[c["name"] for c in RECORDED])
def test_best_alignment_equals_pygamma(case):
    value, _ = best_alignment(units_of(case["units"]), case["annotators"],
                              dissimilarity(case["settings"]))
    assert value == pytest.approx(case["best_alignment_disorder"], rel=FLOAT32)


def test_pygamma_own_test_value():
    # tests/test_alignement.py of pygamma-agreement: best alignment 0.43478875578596043
    (case,) = [c for c in RECORDED if c["name"] == "pygamma_test_alignment"]
    value, _ = best_alignment(units_of(case["units"]), case["annotators"],
                              dissimilarity(case["settings"]))
    assert value == pytest.approx(0.43478875578596043, rel=FLOAT32)


@pytest.mark.parametrize("case", RECORDED, ids=[c["name"] for c in RECORDED])
def test_expected_disorder_within_sampling_error_of_pygamma(case):
    # 30 samples each side, different generators: the means differ by chance only
    ours = gamma(units_of(case["units"]), case["annotators"], dissimilarity(case["settings"]),
                 n_samples=30, seed=1)
    theirs = case["gamma"]["sampled_disorders"]
    se = math.hypot(ours["expected_disorder_se"],
                    np.std(theirs, ddof=1) / math.sqrt(len(theirs)))
    assert abs(ours["expected_disorder"] - np.mean(theirs)) < 3.5 * se
