"""Brute-force oracle for gamma (Mathet, Widlöcher & Métivier 2015), for tests only.

Plain Python over tiny continua (<= ~8 units for plain enumeration; the memoised search
copes with ~15). No numba, no solver. Written from the definitions; where the paper and
pygamma-agreement (the reference implementation, 0.5.9) could be read two ways, the choice
below is pygamma's, settled by running pygamma as a black box on tiny continua (the
``probe_*`` continua of tests/data/gamma/pygamma_values.json; its implementation was not the
source, except the sampler's code, read because its docstring leaves the details open,
and the constructor of ``CombinedCategoricalDissimilarity``, for the Delta of its parts).

Sources:

- Mathet, Widlöcher & Métivier, "The unified and holistic method gamma for inter-annotator
  agreement measure and alignment", Computational Linguistics 41(3): 437-479, 2015
  (units, unitary alignments, alignments, disorders, Delta_empty, expected disorder by
  sampling, gamma = 1 - observed / expected). Only its abstract was reachable here; its
  definitions are taken as pygamma's docs restate them ("a rehash of" the paper), and the
  few points marked "paper, not re-read" are from memory of it, each checked on pygamma.
- pygamma-agreement docs, ``docs/source/principles.rst`` (dissimilarity formulas, disorder
  of a unitary alignment as the average over its unit couples, gamma), its
  ``StatisticalContinuumSampler`` docstring and sampling description (normal laws for the
  number of units per annotator, the gaps and the durations; categories by frequency), and
  its tests ``tests/test_alignement.py`` (the liza / pierrot / hadrien continuum, best
  alignment disorder 0.43478875578596043 with Delta_empty 0.5, alpha 3, a category matrix).

Definitions (``n`` annotators; ``Delta`` = ``empty_cost``; units ``(annotator, start, end,
category)`` with ``end > start``; pygamma refuses zero-length units and keeps one copy of an
annotator's duplicated unit, its units being a set, while the oracle takes units as given):

- positional:  d_pos(u, v) = ((|s_u - s_v| + |e_u - e_v|) / ((e_u - s_u) + (e_v - s_v)))**2
  * Delta  (pygamma docs; pygamma's values carry the factor Delta: Delta = 0.5 halves them).
- categorical: d_cat(u, v) = dist(cat_u, cat_v) * Delta, dist 0/1 by default or a matrix
  entry (paper and pygamma docs). pygamma 0.5.9 multiplies by the Delta its categorical
  dissimilarity was built with: a ``PrecomputedCategoricalDissimilarity(..., delta_empty=D)``
  gives dist * D (its own test value needs it), but the default one inside
  ``CombinedCategoricalDissimilarity(delta_empty=D)`` keeps 1 (D = 2, two categories, same
  positions: best disorder 1.0, not 2.0). ``categorical_empty_cost`` sets that factor
  (default: Delta); the forms agree at Delta = 1.
- combined:    d(u, v) = alpha * d_pos(u, v) + beta * d_cat(u, v); d(u, empty) = Delta and
  d(empty, empty) = Delta (pygamma: 4 annotators, one unit pair plus two lone units gives
  2.8354 = (p + 5) / 6 + 2, i.e. the empty-empty couples cost Delta too). So a unit alone in
  its unitary alignment costs exactly Delta whatever n, which fits the paper's pruning of
  unitary alignments by their disorder (section 5.1.1, cited by pygamma's docs: one is worth
  keeping only if it costs less than its units left alone; paper, not re-read).
- unitary alignment a (at most one unit per annotator, the others empty):
  delta(a) = (1 / C(n, 2)) * sum over the C(n, 2) annotator pairs {i, j} of d(a_i, a_j).
- alignment A (a partition of all units into unitary alignments):
  delta(A) = sum of delta(a) over a in A, divided by the mean number of units per annotator
  x = (number of units) / n  (paper, not re-read; pygamma's docs say "mean of its
  unitary alignments' disorders", but pygamma: two annotators, 3 + 2 units, gives
  (p + 1) / 2.5, three unitary alignments over 2.5, so x it is).
- observed disorder: min over all alignments of delta(A).
- expected disorder: mean of the observed disorders of continua sampled as pygamma's
  ``StatisticalContinuumSampler`` samples them (``sample_continuum`` below); gamma =
  1 - observed / expected, and 1 when the observed disorder is 0 (pygamma's convention).
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import NamedTuple

import numpy as np


class Unit(NamedTuple):
    annotator: str
    start: float
    end: float
    category: str


class Dissimilarity:
    """The combined dissimilarity with its parameters.

    ``categories`` orders the rows of ``matrix`` (pygamma orders them alphabetically);
    without a matrix the categorical distance is 0 for equal categories and 1 otherwise.
    ``categorical_empty_cost`` is the Delta multiplying it (None: ``empty_cost``, the paper's;
    1.0 reproduces pygamma's default ``CombinedCategoricalDissimilarity``).
    """

    def __init__(self, alpha=1.0, beta=1.0, empty_cost=1.0, matrix=None, categories=None,
                 categorical_empty_cost=None):
        self.alpha = alpha
        self.beta = beta
        self.empty_cost = empty_cost
        self.matrix = None if matrix is None else [list(row) for row in matrix]
        self.index = None if categories is None else {c: i for i, c in enumerate(categories)}
        self.categorical_empty_cost = (empty_cost if categorical_empty_cost is None
                                       else categorical_empty_cost)

    def positional(self, u, v):
        ratio = (abs(u.start - v.start) + abs(u.end - v.end)) / (
            (u.end - u.start) + (v.end - v.start))
        return ratio * ratio * self.empty_cost

    def categorical(self, u, v):
        if self.matrix is None:
            dist = 0.0 if u.category == v.category else 1.0
        else:
            dist = self.matrix[self.index[u.category]][self.index[v.category]]
        return dist * self.categorical_empty_cost

    def __call__(self, u, v):
        """d(u, v); ``None`` is the empty unit."""
        if u is None or v is None:
            return self.empty_cost
        return self.alpha * self.positional(u, v) + self.beta * self.categorical(u, v)


def unitary_disorder(members, annotators, dissim):
    """delta of the unitary alignment holding ``members`` (units of distinct annotators)."""
    by_annotator = {u.annotator: u for u in members}
    if len(by_annotator) != len(members):
        raise ValueError("a unitary alignment holds at most one unit per annotator")
    slots = [by_annotator.get(a) for a in annotators]
    pairs = list(itertools.combinations(slots, 2))
    return sum(dissim(u, v) for u, v in pairs) / len(pairs)


def alignments(units):
    """Every partition of ``units`` into unitary alignments (blocks with at most one unit per
    annotator), each as a list of tuples of units. Plain enumeration: the oracle of the oracle.
    """
    units = list(units)
    if not units:
        yield []
        return
    first, rest = units[0], units[1:]
    for partition in alignments(rest):
        # ``first`` alone, or added to a block that has no unit of its annotator
        yield [(first,)] + partition
        for i, block in enumerate(partition):
            if all(u.annotator != first.annotator for u in block):
                yield partition[:i] + [(first,) + block] + partition[i + 1:]


def alignment_disorder(partition, annotators, n_units, dissim):
    """delta(A): the unitary disorders summed, over the mean number of units per annotator."""
    total = sum(unitary_disorder(block, annotators, dissim) for block in partition)
    return total / (n_units / len(annotators))


def best_alignment_enumerated(units, annotators, dissim):
    """(disorder, partition) of the best alignment by enumerating every partition."""
    units = list(units)
    best = None
    for partition in alignments(units):
        value = alignment_disorder(partition, annotators, len(units), dissim)
        if best is None or value < best[0]:
            best = (value, partition)
    return best


def best_alignment(units, annotators, dissim):
    """(disorder, partition) of the best alignment, exactly: the minimum over all partitions,
    found by a memoised search over the set of units not yet aligned (the first of them is
    aligned with none or one remaining unit of each other annotator). Same minimum as
    ``best_alignment_enumerated``, fast enough for the sampled continua of ``gamma``.
    """
    units = list(units)
    annotators = list(annotators)
    if not units:
        return 0.0, []

    @lru_cache(maxsize=None)
    def search(remaining):
        if not remaining:
            return 0.0, ()
        first, rest = remaining[0], remaining[1:]
        others = [a for a in annotators if a != units[first].annotator]
        choices = [[None] + [i for i in rest if units[i].annotator == a] for a in others]
        best = None
        for picked in itertools.product(*choices):
            block = (first,) + tuple(i for i in picked if i is not None)
            cost = unitary_disorder([units[i] for i in block], annotators, dissim)
            left = tuple(i for i in rest if i not in block)
            sub_cost, sub_blocks = search(left)
            if best is None or cost + sub_cost < best[0]:
                best = (cost + sub_cost, (block,) + sub_blocks)
        return best

    total, blocks = search(tuple(range(len(units))))
    partition = [tuple(units[i] for i in block) for block in blocks]
    return total / (len(units) / len(annotators)), partition


# --------------------------------------------------------------------------------------
# expected disorder: pygamma-agreement's statistical sampler
# --------------------------------------------------------------------------------------

MIN_DURATION = 1e-6  # pyannote's segment precision: shorter sampled units are drawn again


def sampler_parameters(units, annotators):
    """Means and population standard deviations the sampler draws from (pygamma's
    ``StatisticalContinuumSampler.init_sampling``): units per annotator (all annotators,
    zeros included); gaps: a 0, then per annotator the start of each unit minus the end of
    the previous one in (start, end, category) order, and the start of its first unit when
    above 0; durations of all units; categories (sorted) with their frequencies.
    """
    per_annotator = {a: sorted((u for u in units if u.annotator == a),
                               key=lambda u: (u.start, u.end, u.category)) for a in annotators}
    counts = [len(per_annotator[a]) for a in annotators]
    gaps = [0.0]
    for a in annotators:
        own = per_annotator[a]
        gaps.extend(v.start - u.end for u, v in zip(own, own[1:]))
    for a in annotators:
        if per_annotator[a] and per_annotator[a][0].start > 0:
            gaps.append(per_annotator[a][0].start)
    durations = [u.end - u.start for u in units]
    categories = sorted({u.category for u in units})
    weights = [sum(u.category == c for u in units) / len(units) for c in categories]
    return {
        "count": (float(np.mean(counts)), float(np.std(counts))),
        "gap": (float(np.mean(gaps)), float(np.std(gaps))),
        "duration": (float(np.mean(durations)), float(np.std(durations))),
        "categories": categories,
        "weights": weights,
    }


def sample_continuum(params, annotators, rng):
    """One random continuum: per annotator in order, |int(N(count))| units (at least one for
    the first annotator that would otherwise leave the continuum empty), each placed a gap
    N(gap) after the end of the previous one (from 0), lasting |N(duration)|, with a
    category drawn by frequency.
    """
    units = []
    for a in annotators:
        n = abs(int(rng.normal(*params["count"])))
        if not units:
            n = max(1, n)
        last = 0.0
        for _ in range(n):
            start = last + rng.normal(*params["gap"])
            end = start + abs(rng.normal(*params["duration"]))
            while end - start < MIN_DURATION:
                end = start + abs(rng.normal(*params["duration"]))
            category = params["categories"][rng.choice(len(params["categories"]),
                                                       p=params["weights"])]
            units.append(Unit(a, start, end, category))
            last = end
    return units


def gamma(units, annotators, dissim, n_samples=30, seed=0):
    """dict with gamma, observed and expected disorder, the expected disorder's standard
    error and the sampled disorders, ``n_samples`` continua drawn with ``seed``."""
    units = list(units)
    observed, partition = best_alignment(units, annotators, dissim)
    rng = np.random.default_rng(seed)
    params = sampler_parameters(units, annotators)
    sampled = [best_alignment(sample_continuum(params, annotators, rng), annotators, dissim)[0]
               for _ in range(n_samples)]
    expected = float(np.mean(sampled))
    return {
        "gamma": 1.0 if observed == 0 else 1.0 - observed / expected,
        "observed_disorder": observed,
        "expected_disorder": expected,
        "expected_disorder_se": float(np.std(sampled, ddof=1) / np.sqrt(len(sampled))),
        "sampled_disorders": sampled,
        "best_alignment": partition,
    }
