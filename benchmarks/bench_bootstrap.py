"""Bootstrap intervals of MLA: 1000 item resamples against one plain ``mla()`` call.

    python benchmarks/bench_bootstrap.py                  # N = 10**5 items, n = 5, k = 50
    python benchmarks/bench_bootstrap.py --items 20000    # a smaller corpus

The issue's target: 1000 item resamples (percentile intervals for every corpus and label
coefficient) cost at most 30 times one plain ``mla()`` call on the same data. The plain
call reads the N n k decisions once; the bootstrap's product costs 2 R N (2k + 1) float32
operations and its draws R N random numbers, neither depending on n: the ratio falls as
1 / n, and the "floor" line shows what the product alone costs at full BLAS speed (about
20x at n = 5 on two quiet cores, with the draws, the table and the finishing 55-65x in
all, so 30x is out of reach there; about 38x at ``--annotators 10``, 22x at
``--annotators 20``). Resampling is a weighted sum of per-item statistics (multinomial
counts W times an N x F table, float32 matrix products over blocks of items and batches of
replicates), finished in one call with a ``resample`` dim, not 1000 recomputations. The
"seed=Generator" line times NumPy's own stream (what scipy draws) instead of the
block-seeded draws.

Timings are the best of several runs after a warm-up run (numba compilation excluded), the
two calls alternating so that both meet the same spells of load; the breakdown times the
stages of one bootstrap separately. On a shared machine the ratio still moves with the load
(the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import xarray as xr

import xr_agreement
from xr_agreement import bootstrap


def best_of(function, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def main(n_items=10**5, n_annotators=5, n_labels=50, n_resamples=1000, seed=0):
    rng = np.random.default_rng(seed)
    prevalence = rng.uniform(0.02, 0.4, n_labels)
    latent = rng.random((n_items, 1, n_labels)) < prevalence
    flips = rng.random((n_items, n_annotators, n_labels)) < 0.1
    da = xr.DataArray((latent ^ flips).astype(np.int8), dims=("item", "annotator", "label"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"N = {n_items} items, n = {n_annotators} annotators, k = {n_labels} labels, "
          f"{n_resamples} item resamples")

    xr_agreement.mla(da)
    xr_agreement.mla(da, ci=0.95, n_resamples=20, seed=seed)
    # alternate the two so that both see the same spells of load; keep the best of each
    plain, with_ci = [], []
    for _ in range(3):
        plain.append(best_of(lambda: xr_agreement.mla(da), repeats=5))
        with_ci.append(best_of(lambda: xr_agreement.mla(da, ci=0.95, n_resamples=n_resamples,
                                                       seed=seed), repeats=1))
    plain, with_ci = min(plain), min(with_ci)
    print(f"plain mla():                 {plain:8.3f} s")
    print(f"mla(ci=0.95), percentile:    {with_ci:8.3f} s   ratio {with_ci / plain:5.1f} "
          "(target <= 30)")

    # where the time goes, one run of the same stages as mla(ci=...)
    statistic = bootstrap.MLAStatistic(da, ["F"], True, item="item", annotator="annotator",
                                       label="label")
    t_table, _ = timed(lambda: statistic._table(np.ones(n_annotators, np.int64)))
    # the streamed path of mla(ci=..., seed=int): item blocks x batches of replicates
    resampler = bootstrap.BlockedResampler(seed, n_items, n_resamples)
    step, size = min(n_resamples, bootstrap.STREAM_ROWS), resampler.block_size
    buffer = np.empty((step, min(size, n_items)), np.float32)
    t_draw = t_product = 0.0
    parts = []
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        sums = 0.0
        for i0 in range(0, n_items, size):
            i1 = min(n_items, i0 + size)
            elapsed, counts = timed(lambda: resampler.counts(start, rows, i0, i1,
                                                             buffer[:rows, : i1 - i0]))
            t_draw += elapsed
            elapsed, part = timed(lambda: statistic.block_sums(
                counts, i0, i1, resampler.max_draws(i0, i1)))
            t_product += elapsed
            sums = sums + part
        parts.append(statistic.from_sums(sums))
    t_finish, _ = timed(lambda: statistic.finish(parts))
    columns = statistic._table(np.ones(n_annotators, np.int64))["table"].shape[1]
    print(f"  per-item table (N x {columns}):   {t_table:8.3f} s")
    print(f"  resampling counts W ({n_resamples} x N): {t_draw:8.3f} s")
    print(f"  W @ table:                   {t_product:8.3f} s")
    print(f"  finish (resample dim):       {t_finish:8.3f} s")
    # the floor of this design: the product alone, at the machine's float32 BLAS speed
    counts = np.ones((step, n_items), np.float32)
    table = np.ones((n_items, columns), np.float32)
    floor = best_of(lambda: counts @ table) * n_resamples / step
    print(f"  floor: float32 BLAS product (1000 x N) @ (N x {columns}) alone: {floor:6.3f} s"
          f" = {floor / plain:5.1f} x plain")

    numpy_stream = best_of(lambda: xr_agreement.mla(
        da, ci=0.95, n_resamples=n_resamples, seed=np.random.default_rng(seed)), repeats=2)
    print(f"mla(ci=0.95), seed=Generator:{numpy_stream:8.3f} s   ratio "
          f"{numpy_stream / plain:5.1f} (NumPy's rng.integers stream, as scipy draws it)")

    bca = best_of(lambda: xr_agreement.mla(da, ci=0.95, n_resamples=n_resamples, seed=seed,
                                          method="bca"), repeats=1)
    print(f"mla(ci=0.95), BCa:           {bca:8.3f} s   ratio {bca / plain:5.1f} "
          f"(adds the item jackknife: {n_items} leave-one-out values)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10**5)
    parser.add_argument("--annotators", type=int, default=5)
    parser.add_argument("--labels", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    main(args.items, args.annotators, args.labels, args.resamples)
