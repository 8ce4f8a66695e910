"""Speed of the diagnostics against one ``mla()`` call on the same array, in one run:

- ``annotators()`` / ``mla()`` (target <= 5): pair matrices and leave-one-out coefficients
  (the ``mla()`` call ``annotators()`` makes for the corpus value is included);
- ``confusions()`` / ``mla()`` (target <= 20): the label x other_label tables;
- ``disagreements()`` / ``mla()`` for information (at prevalence 0.2 nearly every one of
  the 5 * 10^6 cells is disputed: a table of 4.5 * 10^6 rows).

At (N, n, k) = (10^5, 10, 50), prevalence 0.2, string coordinates on every dim: float
decisions with about 5% missing (NaN), then complete uint8 decisions. Times are medians of several repeats after a warm-up call
(numba compilation excluded).

Then crowd designs, (N, n, k) = (2000, 400, 5) and (2000, 4000, 5) with 3 annotators per
item (the rest NaN): time ratios and the peak of traced allocations (``tracemalloc``). The
sparse pair counts (``counts.sparse_sums``) keep only the ~6,000 pairs who shared an item,
so the peak is the result's own n x n matrices; the dense counts (shown beside at n = 400)
grow with n^2 k. The whole ``report`` command on such a table: ``bench_crowd_report.py``.

Run: ``python benchmarks/bench_diagnostics.py [--quick]`` (``--quick``: 10x fewer items).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc

import numpy as np
import xarray as xr

import xr_agreement
import xr_agreement.diagnostics.annotators  # noqa: F401 (PAIR_COUNTS, set below)
from xr_agreement._core import jit

jit.set_mode("always")  # time the compiled kernels (small warm-up calls would run interpreted)


TARGETS = {"annotators": 5, "confusions": 20}


def median_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def decisions(shape, prevalence=0.2, missing=0.05, seed=0) -> xr.DataArray:
    rng = np.random.default_rng(seed)
    values = (rng.random(shape, dtype=np.float32) < prevalence).astype(np.float64)
    values[rng.random(shape, dtype=np.float32) < missing] = np.nan
    N, n, k = shape
    return xr.DataArray(values, dims=("item", "annotator", "label"), coords={
        "item": [f"item-{i:06d}" for i in range(N)],
        "annotator": [f"annotator-{a:02d}" for a in range(n)],
        "label": [f"label-{j:02d}" for j in range(k)]})


def crowd(n_items=2000, n_annotators=400, n_labels=5, per_item=3, seed=0) -> xr.DataArray:
    rng = np.random.default_rng(seed)
    values = np.full((n_items, n_annotators, n_labels), np.nan)
    for i in range(n_items):
        who = rng.choice(n_annotators, per_item, replace=False)
        values[i, who] = rng.random((per_item, n_labels)) < 0.2
    return xr.DataArray(values, dims=("item", "annotator", "label"), coords={
        "item": [f"task-{i:05d}" for i in range(n_items)],
        "annotator": [f"worker-{a:03d}" for a in range(n_annotators)],
        "label": [f"label-{j}" for j in range(n_labels)]})


def peak_mib(function) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n_items = 10_000 if args.quick else 100_000
    missing = decisions((n_items, 10, 50))
    complete = decisions((n_items, 10, 50), missing=0).astype(np.uint8)
    for da, caption, functions in (
            (missing, "float64 with ~5% NaN", ("annotators", "confusions", "disagreements")),
            (complete, "uint8, complete", ("annotators", "confusions"))):
        small = da.isel(item=slice(0, 200))
        for name in ("mla", *functions):
            getattr(xr_agreement, name)(small)  # compile / load the numba cache
        base = median_time(lambda: xr_agreement.mla(da), args.repeats)
        print(f"(N, n, k) = ({n_items}, 10, 50), {caption}, string coordinates")
        print(f"  {'mla()':<16} {base * 1e3:9.1f} ms")
        for name in functions:
            function = getattr(xr_agreement, name)
            elapsed = median_time(lambda: function(da), args.repeats)
            target = TARGETS.get(name)
            goal = f"(target <= {target})" if target else ""
            print(f"  {name + '()':<16} {elapsed * 1e3:9.1f} ms  ratio {elapsed / base:6.2f}x "
                  f"{goal}")
    annotators_module = sys.modules["xr_agreement.diagnostics.annotators"]
    for n_annotators in (400, 4000):
        da = crowd(n_annotators=n_annotators)
        for name in ("mla", "annotators", "confusions"):
            getattr(xr_agreement, name)(da.isel(item=slice(0, 50)))
        base = median_time(lambda: xr_agreement.mla(da), args.repeats)
        print(f"(N, n, k) = (2000, {n_annotators}, 5), 3 annotators per item, float64 with NaN")
        peak = peak_mib(lambda: xr_agreement.mla(da))
        print(f"  {'mla()':<16} {base * 1e3:9.1f} ms  peak {peak:7.1f} MiB")
        runs = [("annotators", "auto"), ("confusions", "auto")]
        if n_annotators <= 400:  # the dense counts beside (gigabytes at 4,000)
            runs.insert(1, ("annotators", "dense"))
        for name, pair_counts in runs:
            function = getattr(xr_agreement, name)
            annotators_module.PAIR_COUNTS = pair_counts
            elapsed = median_time(lambda: function(da), args.repeats)
            caption = f"{name}(){' dense' if pair_counts == 'dense' else ''}"
            print(f"  {caption:<16} {elapsed * 1e3:9.1f} ms  peak "
                  f"{peak_mib(lambda: function(da)):7.1f} MiB  ratio {elapsed / base:6.2f}x")
            annotators_module.PAIR_COUNTS = "auto"


if __name__ == "__main__":
    main()
