"""gamma (xr_agreement.spans.gamma) against the brute-force oracle (tests/gamma_oracle.py:
every partition enumerated, or the memoised search that equals it) and
pygamma-agreement's recorded values (tests/data/gamma/pygamma_values.json)."""

import json
import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from doc_pages import run_page
from gamma_oracle import (Dissimilarity, Unit, alignment_disorder, best_alignment,
                          best_alignment_enumerated, unitary_disorder)
from gamma_oracle import gamma as oracle_gamma
from xr_agreement.spans import span_arrays
from xr_agreement.spans.alignment import api as gamma_api
from xr_agreement.spans.alignment import kernels as gamma_kernels

VALUES = Path(__file__).parent / "data" / "gamma" / "pygamma_values.json"
RECORDED = json.loads(VALUES.read_text())["continua"]
FLOAT32 = 1e-6


def random_units(rng, n_annotators, n_units, categories="XYZ", width=40, real=False):
    """Units with string ids; an annotator never marks the same span twice."""
    annotators = [f"ann-{i}" for i in range(n_annotators)]
    units = set()
    while len(units) < n_units:
        start = rng.uniform(0, width) if real else rng.randint(0, width)
        length = rng.uniform(0.5, 12) if real else rng.randint(1, 12)
        units.add(Unit(rng.choice(annotators), start, start + length, rng.choice(categories)))
    return sorted(units), annotators


def table_of(units, annotators, document="doc-1", length=None):
    records = [(document, u.annotator, u.start, u.end, u.category) for u in units]
    end = max((u.end for u in units), default=1)
    return xr_agreement.from_spans(
        records, lengths={document: length or math.ceil(end) + 1},
        annotated=[(document, a) for a in annotators])


def ours(table, d, **kw):
    return xr_agreement.gamma(table, d.alpha, d.beta, d.empty_cost, n_samples=kw.pop(
        "n_samples", 2), seed=kw.pop("seed", 0), **kw)


def settings(rng):
    return Dissimilarity(alpha=rng.choice([1.0, 2.0, 3.0]), beta=rng.choice([0.0, 0.5, 1.0, 2.0]),
                         empty_cost=rng.choice([0.25, 0.5, 1.0, 2.0]))


@pytest.mark.parametrize("seed", range(40))
def test_observed_disorder_equals_enumeration(seed):
    rng = random.Random(seed)
    n_annotators = 2 + seed % 3
    units, annotators = random_units(rng, n_annotators, rng.randint(n_annotators, 8),
                                     real=seed % 4 == 3)
    d = settings(rng)
    reference, _ = best_alignment_enumerated(units, annotators, d)
    result = ours(table_of(units, annotators), d, return_alignment=True)
    assert float(result.observed_disorder) == pytest.approx(reference, abs=1e-12)
    # the alignment returned is a partition with that disorder
    table = table_of(units, annotators)
    spans = [Unit(a, s, e, c) for a, s, e, c in zip(
        table.annotator.values, table.start.values, table.end.values, table.label.values)]
    blocks = {}
    for unit, block in zip(spans, result.unitary_alignment_of.values):
        blocks.setdefault(int(block), []).append(unit)
    partition = list(blocks.values())
    assert all(len({u.annotator for u in b}) == len(b) for b in partition)
    assert alignment_disorder(partition, annotators, len(spans), d) == pytest.approx(
        reference, abs=1e-12)
    for block_id, block in blocks.items():
        assert float(result.unitary_disorder[block_id]) == pytest.approx(
            unitary_disorder(block, annotators, d), abs=1e-12)
        assert int(result.n_aligned_units[block_id]) == len(block)


@pytest.mark.parametrize("seed", range(12))
def test_larger_continua_equal_the_search(seed):
    # 12-16 units on a crowded continuum: many candidates per unit, chains of overlaps
    rng = random.Random(1000 + seed)
    n_annotators = 2 + seed % 3
    units, annotators = random_units(rng, n_annotators, rng.randint(12, 16), width=30)
    d = settings(rng)
    reference, _ = best_alignment(units, annotators, d)
    result = ours(table_of(units, annotators), d)
    assert float(result.observed_disorder) == pytest.approx(reference, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_the_milp_gives_the_same_best(seed, monkeypatch):
    # the set-partitioning MILP, which the dynamic programme hands over to when a step
    # holds too many states, on the same continua
    rng = random.Random(2000 + seed)
    n_annotators = 2 + seed % 3
    units, annotators = random_units(rng, n_annotators, rng.randint(6, 14), width=30)
    d = settings(rng)
    reference, _ = best_alignment(units, annotators, d)
    monkeypatch.setattr(gamma_api, "MAX_STATES", 0)
    result = ours(table_of(units, annotators), d)
    assert float(result.observed_disorder) == pytest.approx(reference, abs=1e-9)


def test_a_long_unit_reaching_far_goes_to_the_milp(monkeypatch):
    # one annotator's paragraph against another's many short units: its candidates reach
    # beyond the dynamic programme's masks
    units = [Unit("ann-1", 0, 400, "X")] + [Unit("ann-2", 5 * i, 5 * i + 3, "X")
                                              for i in range(80)]
    table = table_of(units, ["ann-1", "ann-2"])
    calls = []
    solve = gamma_api.best_alignment_milp
    monkeypatch.setattr(gamma_api, "best_alignment_milp",
                        lambda *a: calls.append(1) or solve(*a))
    d = Dissimilarity(beta=1.0)
    result = ours(table, d)
    assert calls
    # every short unit alone or one of them with the paragraph: the best pairs the
    # paragraph with the short unit nearest its middle... unless alone is cheaper
    alone = (len(units) * d.empty_cost) / (len(units) / 2)
    paired = min(d(units[0], u) + (len(units) - 2) * d.empty_cost for u in units[1:])
    assert float(result.observed_disorder) == pytest.approx(
        min(alone, paired / (len(units) / 2)), abs=1e-12)


def test_only_the_document_that_needs_it_goes_to_the_milp(monkeypatch):
    # one document where a paragraph overlaps 80 words; the others NER-like
    rng = random.Random(21)
    annotators = ["ann-1", "ann-2"]
    per_document = {"doc-long": [Unit("ann-1", 0, 400, "X")] + [
        Unit("ann-2", 5 * i, 5 * i + 3, "X") for i in range(80)]}
    for k in range(3):
        units, _ = random_units(rng, 2, 8)
        per_document[f"doc-{k}"] = [Unit(f"ann-{1 + int(u.annotator[-1])}", u.start, u.end,
                                         u.category) for u in units]
    records = [(doc, u.annotator, u.start, u.end, u.category)
               for doc, units in per_document.items() for u in units]
    table = xr_agreement.from_spans(records, lengths={doc: 500 for doc in per_document},
                                    annotated=[(d, a) for d in per_document for a in annotators])
    sizes = []
    solve = gamma_api.best_alignment_milp
    monkeypatch.setattr(gamma_api, "best_alignment_milp",
                        lambda first, *a: sizes.append(first.size - 1) or solve(first, *a))
    d = Dissimilarity()
    result = xr_agreement.gamma(table, n_samples=2, seed=0)
    assert sizes[0] == 81  # the long document's units, not the corpus'
    n_units = sum(map(len, per_document.values()))
    total = sum(best_alignment(units, annotators, d)[0] * len(units) / 2
                for doc, units in per_document.items() if doc != "doc-long")
    long_units = per_document["doc-long"]
    alone = len(long_units) * d.empty_cost
    paired = min(d(long_units[0], u) + (len(long_units) - 2) * d.empty_cost
                 for u in long_units[1:])
    total += min(alone, paired)
    assert float(result.observed_disorder) == pytest.approx(total / (n_units / 2), abs=1e-12)


@pytest.mark.parametrize("seed, max_states", [(s, m) for s in range(6) for m in (4096, 0, 2)])
def test_documents_are_aligned_apart(seed, max_states, monkeypatch):
    # max_states 0 or 2: the dynamic programme gives every block, or the crowded ones, back
    # to the MILP, going back to the block's start and on
    rng = random.Random(3000 + seed)
    annotators = ["ann-1", "ann-2", "ann-3"]
    d = settings(rng)
    records, lengths, per_document = [], {}, []
    for k in range(3):
        units, _ = random_units(rng, 3, rng.randint(3, 7))
        units = [Unit(f"ann-{1 + int(u.annotator[-1])}", u.start, u.end, u.category)
                 for u in units]
        per_document.append(units)
        records += [(f"doc-{k}", u.annotator, u.start, u.end, u.category) for u in units]
        lengths[f"doc-{k}"] = 60
    # a fourth document that ann-3 never saw: left out
    records += [("doc-x", "ann-1", 0, 5, "X"), ("doc-x", "ann-2", 30, 35, "Y")]
    lengths["doc-x"] = 60
    annotated = [(doc, a) for doc in lengths for a in annotators
                 if not (doc == "doc-x" and a == "ann-3")]
    table = xr_agreement.from_spans(records, lengths=lengths, annotated=annotated)
    total = sum(best_alignment(units, annotators, d)[0] * len(units) / 3
                for units in per_document)
    n_units = sum(map(len, per_document))
    monkeypatch.setattr(gamma_api, "MAX_STATES", max_states)
    result = ours(table, d)
    assert float(result.observed_disorder) == pytest.approx(total / (n_units / 3), abs=1e-12)
    assert int(result.n_documents) == 3 and int(result.n_documents_left_out) == 1
    assert int(result.n_units) == n_units


@pytest.mark.parametrize("case", RECORDED, ids=[c["name"] for c in RECORDED])
def test_pygamma_values(case):
    s = case["settings"]
    labels = s.get("categories") or sorted({u[3] for u in case["units"]})
    # pygamma's categorical part carries its own Delta (categorical_empty_cost); ours is
    # the paper's dist * empty_cost: the same products with beta scaled
    beta = s["beta"] * s.get("categorical_empty_cost", s["empty_cost"]) / s["empty_cost"]
    matrix = None
    if s.get("matrix") is not None:
        matrix = pd.DataFrame(s["matrix"], index=labels, columns=labels)
    units = [Unit(*u) for u in case["units"]]
    records = [("doc", u.annotator, u.start, u.end, u.category) for u in units]
    table = xr_agreement.from_spans(records, lengths={"doc": 10_000},
                                    annotated=[("doc", a) for a in case["annotators"]],
                                    labels=labels)
    result = xr_agreement.gamma(table, s["alpha"], beta, s["empty_cost"], n_samples=200,
                                seed=5, categorical_dissimilarity=matrix)
    assert float(result.observed_disorder) == pytest.approx(case["best_alignment_disorder"],
                                                            rel=FLOAT32)
    theirs = case["gamma"]["sampled_disorders"]
    se = math.hypot(float(result.expected_disorder_se),
                    np.std(theirs, ddof=1) / math.sqrt(len(theirs)))
    assert abs(float(result.expected_disorder) - np.mean(theirs)) < 4 * se


@pytest.mark.parametrize("seed", range(4))
def test_expected_disorder_within_sampling_error_of_the_oracle(seed):
    # the oracle samples unit by unit, as pygamma does; ours draws whole arrays: the two
    # means differ by chance only
    rng = random.Random(4000 + seed)
    units, annotators = random_units(rng, 2 + seed % 2, 8, width=60)
    d = Dissimilarity()
    reference = oracle_gamma(units, annotators, d, n_samples=60, seed=seed)
    result = xr_agreement.gamma(table_of(units, annotators), n_samples=200, seed=seed)
    theirs = reference["sampled_disorders"]
    se = math.hypot(float(result.expected_disorder_se),
                    np.std(theirs, ddof=1) / math.sqrt(len(theirs)))
    assert abs(float(result.expected_disorder) - np.mean(theirs)) < 4 * se
    # each sampled disorder is a best alignment's: at most n * Delta (every unit alone)
    assert (result.sampled_disorder <= len(annotators) * d.empty_cost + 1e-12).all()


def test_gamma_from_its_parts_and_seeds():
    rng = random.Random(7)
    units, annotators = random_units(rng, 3, 12)
    table = table_of(units, annotators)
    a = xr_agreement.gamma(table, seed=11)
    b = table.agreement.gamma(seed=11)
    xr.testing.assert_identical(a, b)
    assert float(a.gamma) == pytest.approx(1 - float(a.observed_disorder)
                                           / float(a.sampled_disorder.mean()), abs=1e-12)
    assert int(a.n_samples) >= gamma_api.FIRST_SAMPLES == 30
    sd = float(a.sampled_disorder.std(ddof=1))
    assert float(a.expected_disorder_se) == pytest.approx(sd / math.sqrt(int(a.n_samples)))
    assert int(xr_agreement.gamma(table, n_samples=7, seed=1).n_samples) == 7
    # a finer precision draws more continua: (cv * 1.96 / precision)**2
    coarse = xr_agreement.gamma(table, precision=0.2, seed=2)
    fine = xr_agreement.gamma(table, precision=0.01, seed=2)
    assert int(coarse.n_samples) == 30 and int(fine.n_samples) > 30
    cv = float(fine.sampled_disorder[:30].std() / fine.sampled_disorder[:30].mean())
    assert int(fine.n_samples) == max(30, math.ceil((cv * 1.96 / 0.01) ** 2))


def test_identical_annotators_and_edge_cases():
    units = [Unit(a, s, e, c) for a in ("ann-1", "ann-2") for s, e, c in
             [(0, 4, "PER"), (9, 12, "LOC")]]
    result = xr_agreement.gamma(table_of(units, ["ann-1", "ann-2"]), seed=0)
    assert float(result.gamma) == 1.0 and float(result.observed_disorder) == 0.0
    # nobody marked anything in the documents every annotator saw
    empty = xr_agreement.from_spans([("doc-1", "ann-1", 0, 3, "X")],
                                    lengths={"doc-1": 10, "doc-2": 10},
                                    annotated=[("doc-1", "ann-1"), ("doc-2", "ann-1"),
                                               ("doc-2", "ann-2")])
    result = xr_agreement.gamma(empty, seed=0)
    assert np.isnan(float(result.gamma))
    assert "no annotator marked a unit" in str(result.undefined_reason.values)
    with pytest.raises(ValueError, match="gamma compares annotators"):
        xr_agreement.gamma(xr_agreement.from_spans([("doc-1", "ann-1", 0, 3, "X")]))


@pytest.mark.parametrize("kwargs, message", [
    ({"positional_weight": 0}, "positional_weight must be a finite number above 0"),
    ({"categorical_weight": -1}, "categorical_weight must be a finite number of at least 0"),
    ({"empty_cost": float("nan")}, "empty_cost must be"),
    ({"n_samples": 1}, "n_samples must be a whole number of at least 2"),
    ({"n_samples": 10, "precision": 0.1}, "not both"),
    ({"precision": 1.5}, "precision must be a number between 0 and 1"),
    ({"categorical_dissimilarity": np.ones((2, 2))}, "must be 3 x 3"),
    ({"categorical_dissimilarity": np.ones((3, 3))}, r"\['X', 'X'\] must be 0"),
    ({"categorical_dissimilarity": [[0, 1, 2], [1, 0, 1], [1, 1, 0]]}, "symmetric"),
    ({"categorical_dissimilarity": [[0, -1, 1], [-1, 0, 1], [1, 1, 0]]}, "at least 0"),
    ({"categorical_dissimilarity": pd.DataFrame(np.zeros((2, 2)), index=["X", "Y"],
                                                columns=["X", "Y"])}, r"lacks the labels \['Z'\]"),
])
def test_bad_parameters(kwargs, message):
    units = [Unit("ann-1", 0, 3, "X"), Unit("ann-2", 1, 3, "Y"), Unit("ann-2", 5, 9, "Z")]
    table = table_of(units, ["ann-1", "ann-2"])
    before = table.copy(deep=True)
    with pytest.raises(ValueError, match=message):
        xr_agreement.gamma(table, **kwargs)
    xr.testing.assert_identical(table, before)


def test_categorical_matrix_as_dataarray_in_any_order():
    rng = random.Random(9)
    units, annotators = random_units(rng, 3, 8)
    matrix = [[0, 0.3, 0.8], [0.3, 0, 0.5], [0.8, 0.5, 0]]
    d = Dissimilarity(matrix=matrix, categories="XYZ")
    reference, _ = best_alignment_enumerated(units, annotators, d)
    table = table_of(units, annotators)
    order = ["Z", "X", "Y"]
    index = {c: i for i, c in enumerate("XYZ")}
    shuffled = xr.DataArray([[matrix[index[a]][index[b]] for b in order] for a in order],
                            dims=("label", "other"), coords={"label": order, "other": order})
    result = xr_agreement.gamma(table, n_samples=2, seed=0,
                                categorical_dissimilarity=shuffled)
    assert float(result.observed_disorder) == pytest.approx(reference, abs=1e-12)


def test_kernels_interpreted_and_compiled_agree():
    rng = np.random.default_rng(0)
    n = 300
    start = np.sort(rng.uniform(0, 400, n))
    end = start + rng.uniform(1, 10, n)
    annotator = rng.integers(0, 3, n)
    label = rng.integers(0, 3, n)
    block_end = np.full(n, n, dtype=np.int64)
    longest = np.full(n, (end - start).max())
    matrix = 1.0 - np.eye(3)
    args = (annotator, start, end, label, block_end, 3, 1.0, 1.0, 1.0, matrix, longest,
            10**7, 10**8)
    interpreted = gamma_kernels.candidates.py_func(*args)
    compiled = gamma_kernels.candidates.dispatcher(*args)
    for a, b in zip(interpreted, compiled):
        np.testing.assert_array_equal(a, b)
    first, members, cost, _, stopped_at = compiled
    assert stopped_at == -1
    members = members.reshape(-1, 3)
    skip, block_first = np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
    one = gamma_kernels.best_alignment.py_func(first, members, cost, 1.0, 4096, skip,
                                               block_first, block_end)
    two = gamma_kernels.best_alignment.dispatcher(first, members, cost, 1.0, 4096, skip,
                                                  block_first, block_end)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_docs_page_prints_what_it_shows():
    namespace, checked = run_page("gamma.md")
    assert checked == 2
    # the paper's example: pygamma-agreement's best-alignment disorder, to its float32
    (case,) = [c for c in RECORDED if c["name"] == "AlexPaulSuzan"]
    assert float(namespace["result"].observed_disorder) == pytest.approx(
        case["best_alignment_disorder"], rel=FLOAT32)


def test_large_offsets_keep_their_differences():
    # offsets near 2**62: through float64 as they are, a 1-long span would have length 0
    base = 2**62
    units = [("doc-1", "ann-1", base, base + 4, "X"), ("doc-1", "ann-2", base + 1, base + 4, "X"),
             ("doc-1", "ann-1", base + 10, base + 11, "Y")]
    table = xr_agreement.from_spans(units, lengths={"doc-1": base + 20})
    small = xr_agreement.from_spans([(d, a, s - base, e - base, c) for d, a, s, e, c in units],
                                    lengths={"doc-1": 20})
    # the observed side reads them relative to the document's first start, exactly
    big_arrays, small_arrays = span_arrays(table), span_arrays(small)
    order = np.arange(3)
    for big, little in zip(gamma_api._local_offsets(big_arrays, order),
                           gamma_api._local_offsets(small_arrays, order)):
        np.testing.assert_array_equal(big, little)
    # the sampler cannot: the first start, 2**62, is one of its gaps
    with pytest.raises(ValueError, match="float64 cannot hold units"):
        xr_agreement.gamma(table, n_samples=3, seed=0)
    wide = xr_agreement.from_spans([("doc-1", "ann-1", 0, 4, "X"),
                                    ("doc-1", "ann-2", base, base + 1, "X")])
    with pytest.raises(ValueError, match=r"annotator 'ann-2'.*too short for float64"):
        xr_agreement.gamma(wide, n_samples=3, seed=0)


def test_sampled_continua_come_in_batches(monkeypatch):
    rng = random.Random(11)
    units, annotators = random_units(rng, 3, 12)
    table = table_of(units, annotators)
    whole = xr_agreement.gamma(table, n_samples=40, seed=3)
    monkeypatch.setattr(gamma_api, "SAMPLE_BATCH_UNITS", 20)  # about one continuum a batch
    batched = xr_agreement.gamma(table, n_samples=40, seed=3)
    assert int(batched.n_samples) == 40
    # the same draws in the same order: the same disorders
    np.testing.assert_allclose(batched.sampled_disorder, whole.sampled_disorder, rtol=1e-12)


def test_a_crowded_region_is_refused_not_enumerated_forever():
    # every annotator marks 300 nearly identical spans of one stretch: the candidate sets
    # would number 300**2 per unit
    records = [("doc-1", f"ann-{a}", i % 11, 40 + i // 11, f"label-{i % 4}")
               for a in range(3) for i in range(300)]
    table = xr_agreement.from_spans(records)
    with pytest.raises(ValueError, match=r"in document 'doc-1', around offsets .* units "
                                         r"overlap that one unit"):
        xr_agreement.gamma(table, n_samples=2, seed=0)


def test_a_milp_past_its_time_limit_is_refused(monkeypatch):
    from xr_agreement.spans.alignment import milp

    rng = random.Random(5)
    units, annotators = random_units(rng, 3, 30, width=20)
    monkeypatch.setattr(gamma_api, "MAX_STATES", 0)  # to the MILP
    monkeypatch.setattr(milp, "TIME_LIMIT", 0.0)
    with pytest.raises(ValueError, match=r"was not found within 0 s"):
        xr_agreement.gamma(table_of(units, annotators), n_samples=2, seed=0)


def test_a_crowded_block_is_not_run_interpreted():
    from xr_agreement._core.jit import INTERPRETED_MAX_WORK

    # 240 units in one document: every pair could be a partner, so the estimate of the
    # enumeration's steps must say "compile" (interpreted, a crowded block takes minutes)
    n = 240
    block_end = np.full(n, n, dtype=np.int64)
    work = gamma_kernels._candidates_work(np.zeros(n, np.int64), np.zeros(n), np.ones(n),
                                          np.zeros(n, np.int64), block_end, 3)
    assert work > INTERPRETED_MAX_WORK
    # 40 documents of 20 units: small blocks stay interpreted
    block_end = np.repeat(np.arange(20, 801, 20), 20)
    assert gamma_kernels._candidates_work(np.zeros(800, np.int64), np.zeros(800),
                                          np.ones(800), np.zeros(800, np.int64),
                                          block_end, 3) <= INTERPRETED_MAX_WORK
