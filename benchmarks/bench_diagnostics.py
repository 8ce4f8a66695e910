"""Speed of the diagnostics against one ``mla()`` call on the same array, in one run:

- ``annotators()`` / ``mla()`` (target <= 5): pair matrices and leave-one-out coefficients
  (the ``mla()`` call ``annotators()`` makes for the corpus value is included);
- ``confusions()`` / ``mla()`` (target <= 20): the label x other_label tables;
- ``disagreements()`` / ``mla()`` for information (at prevalence 0.2 nearly every one of
  the 5 * 10^6 cells is disputed: a table of 4.5 * 10^6 rows).

At (N, n, k) = (10^5, 10, 50), prevalence 0.2, string coordinates on every dim: float
decisions with about 5% missing (NaN), then complete uint8 decisions. Times are medians of several repeats after a warm-up call
(numba compilation excluded).

Run: ``python benchmarks/bench_diagnostics.py [--quick]`` (``--quick``: 10x fewer items).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import xarray as xr

import xr_agreement


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


if __name__ == "__main__":
    main()
