"""Krippendorff's alpha: xr_agreement against the krippendorff package and nltk.

    python benchmarks/bench_alpha.py            # prints timings and speed ratios

1. alpha nominal, 20 annotators x 10**6 items, 5 categories, 5% missing ratings, against
   ``krippendorff.alpha(level_of_measurement="nominal")``.
2. alpha MASI, 20,000 items x 5 annotators x 31 labels (sparse label sets, 5% missing
   annotations), against nltk's ``AnnotationTask(data, distance=masi_distance).alpha()``.
   nltk is timed on a subset of the items and scaled linearly to the full size (it says so
   in the output). Linear scaling flatters nltk: its expected disagreement loops over all
   pairs of distinct label sets and it re-copies the pooled frequency table for every item,
   both of which grow faster than linearly.

Our timings are the best of 5 runs after one warm-up run (numba compilation excluded), on the
package's thread pool (one thread per core). krippendorff: best of 2 runs.
"""

from __future__ import annotations

import time

import numpy as np

import xr_agreement
from corpora import with_string_ids


def best_of(function, repeats=5):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def nominal_benchmark(n_items=10**6, n_annotators=20, missing=0.05, seed=0):
    import krippendorff

    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, n_items)
    ratings = np.where(rng.random((n_items, n_annotators)) < 0.7, truth[:, None],
                       rng.integers(0, 5, (n_items, n_annotators))).astype(np.float64)
    ratings[rng.random(ratings.shape) < missing] = np.nan
    da = with_string_ids(ratings, ("item", "annotator"))
    da[:100].agreement.alpha("nominal")  # compile
    # like for like: krippendorff computes alpha only, so skip our analytic se here
    ours, result = best_of(
        lambda: float(da.agreement.alpha("nominal", ci=None).alpha))
    with_se, _ = best_of(lambda: float(da.agreement.alpha("nominal").alpha))
    reliability_data = np.ascontiguousarray(ratings.T)  # krippendorff: raters x units
    theirs, theirs_value = best_of(
        lambda: krippendorff.alpha(reliability_data=reliability_data,
                                   level_of_measurement="nominal"), repeats=2)
    print(f"alpha nominal, {n_annotators} annotators x {n_items:,} items, "
          f"{missing:.0%} missing")
    print(f"  xr_agreement  {ours:8.3f} s   alpha = {result:.15f}")
    print(f"  xr_agreement  {with_se:8.3f} s with Gwet's analytic se and limits")
    print(f"  krippendorff  {theirs:8.3f} s (best of 2)   alpha = {theirs_value:.15f}")
    print(f"  |difference| = {abs(result - theirs_value):.1e}; speed ratio {theirs / ours:.0f}x")
    return theirs / ours


def label_sets(n_items, n_annotators, n_labels, missing, seed):
    """Sparse label sets around a per-item 'true' set of 1-3 labels with skewed prevalence:
    each annotator keeps a true label with probability 0.8 and adds others at random."""
    rng = np.random.default_rng(seed)
    prevalence = 1.0 / np.arange(1, n_labels + 1) ** 0.8
    prevalence /= prevalence.sum()
    truth = np.zeros((n_items, n_labels), bool)
    sizes = rng.integers(1, 4, n_items)
    for i in range(n_items):
        truth[i, rng.choice(n_labels, sizes[i], replace=False, p=prevalence)] = True
    keep = rng.random((n_items, n_annotators, n_labels)) < 0.8
    extra = rng.random((n_items, n_annotators, n_labels)) < 0.3 * prevalence
    decisions = (truth[:, None, :] & keep) | extra
    # an annotation selects at least one label (nltk's MASI divides by zero on two empty sets)
    empty = ~decisions.any(axis=2)
    decisions[empty] = np.broadcast_to(truth[:, None, :], decisions.shape)[empty]
    decisions = decisions.astype(np.float64)
    decisions[rng.random((n_items, n_annotators)) < missing] = np.nan
    return decisions


def nltk_triples(decisions):
    triples = []
    for i in range(decisions.shape[0]):
        for a in range(decisions.shape[1]):
            vector = decisions[i, a]
            if not np.isnan(vector).any():
                triples.append((a, i, frozenset(np.flatnonzero(vector == 1).tolist())))
    return triples


def masi_benchmark(n_items=20_000, n_annotators=5, n_labels=31, missing=0.05, subset=10_000,
                   seed=0):
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance

    decisions = label_sets(n_items, n_annotators, n_labels, missing, seed)
    da = with_string_ids(decisions, ("item", "annotator", "label"))
    da[:50].agreement.alpha("masi")  # compile
    ours, result = best_of(lambda: float(da.agreement.alpha("masi").alpha))
    n_sets = len({row.tobytes() for row in decisions.reshape(-1, n_labels)
                  if not np.isnan(row).any()})
    print(f"alpha MASI, {n_items:,} items x {n_annotators} annotators x {n_labels} labels, "
          f"{missing:.0%} missing annotations, {n_sets:,} distinct label sets")
    print(f"  xr_agreement  {ours:8.3f} s   alpha = {result:.15f}")
    # nltk on the first `subset` items, checked against us on the same subset
    start = time.perf_counter()
    subset_value = AnnotationTask(nltk_triples(decisions[:subset]), distance=masi_distance).alpha()
    nltk_subset = time.perf_counter() - start
    ours_subset = float(da[:subset].agreement.alpha("masi").alpha)
    scaled = nltk_subset * n_items / subset
    print(f"  nltk          {nltk_subset:8.3f} s on the first {subset:,} items "
          f"(alpha {subset_value:.15f}, ours {ours_subset:.15f}, "
          f"|difference| {abs(subset_value - ours_subset):.1e})")
    print(f"  nltk scaled linearly to {n_items:,} items: {scaled:8.1f} s "
          "(an underestimate: nltk's cost grows faster than linearly)")
    print(f"  speed ratio {scaled / ours:.0f}x")
    return scaled / ours


if __name__ == "__main__":
    print(f"xr_agreement {xr_agreement.__version__}")
    nominal_ratio = nominal_benchmark()
    print()
    masi_ratio = masi_benchmark()
    print()
    print(f"ratios: nominal vs krippendorff {nominal_ratio:.0f}x (target >= 20x); "
          f"MASI vs nltk {masi_ratio:.0f}x (target >= 1000x)")
