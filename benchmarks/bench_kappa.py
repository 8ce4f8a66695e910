"""The classic kappas: xr_agreement against statsmodels and scikit-learn, small and large.

    python benchmarks/bench_kappa.py [--repeats 7]

Ratings with string ids on every dim, 3 categories, 5% missing (the peers get the complete
items only, the one form they accept; their values are checked against ours on those items):

1. Fleiss' kappa against ``statsmodels.stats.inter_rater.fleiss_kappa`` (after its
   ``aggregate_raters``), 5 annotators;
2. Cohen's kappa of one pair against ``sklearn.metrics.cohen_kappa_score``.

each on 50 items (a pilot study) and on 100,000 items. Ours computes more than the peer (the
standard error, its limits, per-category values; Cohen's kappa: every pair of the 5
annotators, with Byrt's indices). Times are medians of ``--repeats`` calls after a warm-up.
"""

from __future__ import annotations

import argparse

import numpy as np

import xr_agreement
from bench_table import median_time
from corpora import with_string_ids


def ratings(n_items, n_annotators=5, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    values = np.where(rng.random((n_items, n_annotators)) < 0.7, truth[:, None],
                      rng.integers(0, 3, (n_items, n_annotators))).astype(np.float64)
    values[rng.random(values.shape) < 0.05] = np.nan
    return values


def rows(n_items: int, repeats: int):
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    values = ratings(n_items)
    complete = values[~np.isnan(values).any(axis=1)].astype(int)
    da = with_string_ids(values, ("item", "annotator"))
    complete_da = with_string_ids(complete.astype(np.float64), ("item", "annotator"))
    ours = median_time(lambda: xr_agreement.fleiss(da), repeats)
    theirs = median_time(lambda: fleiss_kappa(aggregate_raters(complete)[0]), repeats)
    value = float(xr_agreement.fleiss(complete_da).coefficient)
    assert abs(value - fleiss_kappa(aggregate_raters(complete)[0])) < 1e-12
    print(f"{n_items:,} items x 5 annotators")
    print(f"  fleiss: ours {ours * 1e3:8.2f} ms, statsmodels {theirs * 1e3:8.2f} ms: "
          f"statsmodels / ours {theirs / ours:.2f}x")
    ours = median_time(lambda: xr_agreement.cohen(da), repeats)
    theirs = median_time(lambda: cohen_kappa_score(complete[:, 0], complete[:, 1]), repeats)
    value = float(xr_agreement.cohen(complete_da).pair_coefficient[0, 1])
    assert abs(value - cohen_kappa_score(complete[:, 0], complete[:, 1])) < 1e-12
    print(f"  cohen:  ours {ours * 1e3:8.2f} ms (all 10 pairs), scikit-learn {theirs * 1e3:8.2f}"
          f" ms (one pair): scikit-learn / ours {theirs / ours:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    for size in (50, 100_000):
        rows(size, args.repeats)
