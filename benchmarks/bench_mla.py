"""Speed of the full ``mla(baseline="all")``, in one run, as ratios:

1. against ``np.count_nonzero`` on the same uint8 array at (N, n, k) = (10^6, 5, 100): the
   time it takes merely to read the array once (the memory-read limit);
2. against ``ml-agreement`` (the paper's own package) at (1000, 5, 50), computing the same
   quantities there: corpus coefficient and minimum for the three baselines, and the
   label-wise coefficients.

Inputs carry string ids on every dim (benchmarks/corpora.py).
Run: ``python benchmarks/bench_mla.py [--quick]`` (``--quick``: 10x smaller first case).
Times are the best of several repeats after a warm-up call (numba compilation excluded).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import xarray as xr

import xr_agreement
from corpora import with_string_ids


def best_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def decisions(shape, prevalence, seed) -> xr.DataArray:
    rng = np.random.default_rng(seed)
    values = (rng.random(shape, dtype=np.float32) < prevalence).astype(np.uint8)
    return with_string_ids(values, ("item", "annotator", "label"))


def against_memory_read(n_items: int, repeats: int) -> None:
    da = decisions((n_items, 5, 100), 0.2, seed=0)
    raw = da.values
    xr_agreement.mla(da.isel(item=slice(0, 1000)), baseline="all")  # compile / load cache
    read = best_time(lambda: np.count_nonzero(raw), repeats)
    full = best_time(lambda: xr_agreement.mla(da, baseline="all"), repeats)
    print(f"(N, n, k) = ({n_items}, 5, 100), {raw.nbytes / 1e6:.0f} MB uint8")
    print(f"  np.count_nonzero         {read * 1e3:9.1f} ms")
    print(f"  mla(baseline='all')      {full * 1e3:9.1f} ms")
    print(f"  ratio mla / memory read  {full / read:9.2f}x")


def against_ml_agreement(repeats: int) -> None:
    import ml_agreement

    da = decisions((1000, 5, 50), 0.2, seed=1)
    # ml-agreement wants data[annotator][item][label] as nested lists
    nested = da.transpose("annotator", "item", "label").values.astype(int).tolist()

    def peer():
        for method in ("k", "ac1", "pabak"):
            ml_agreement.calculate_total_multi_label_agreement(nested, method)
            ml_agreement.calculate_minimum_prevalence_agreement(nested, method)
            for label in range(50):
                ml_agreement.calculate_label_agreement(nested, label, method)
        ml_agreement.calculate_raw_prevalence(nested)

    ours = best_time(lambda: xr_agreement.mla(da, baseline="all"), max(repeats, 20))
    theirs = best_time(peer, 1)
    print("(N, n, k) = (1000, 5, 50)")
    print(f"  ml-agreement             {theirs * 1e3:9.1f} ms")
    print(f"  mla(baseline='all')      {ours * 1e3:9.3f} ms")
    print(f"  speed-up                 {theirs / ours:9.0f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10x smaller first case")
    args = parser.parse_args()
    against_memory_read(10**5 if args.quick else 10**6, repeats=5)
    against_ml_agreement(repeats=5)
