"""Bootstrap intervals of MLA: 1000 item resamples against one plain ``mla()`` call.

    python benchmarks/bench_bootstrap.py                  # N = 10**5 items, n = 5, k = 50
    python benchmarks/bench_bootstrap.py --annotators 3   # fewer annotators: a cheaper plain call

The issue's target: 1000 item resamples (percentile intervals for every corpus and label
coefficient) cost at most 30 times one plain ``mla()`` call on the same data. The plain
call reads the N n k decisions once. The bootstrap reads them once too (its per-item table
and the point estimate come from one pass), then, per pair of replicates, draws 2 N random
indices and multiplies one row of counts (two replicates, the second scaled by 2**12) with
the N x (2k + 1) table in float32, sub-block by sub-block: neither depends on n, so the
ratio falls as 1 / n. The breakdown times the stages of one bootstrap: the streamed draws
and products run in the worker threads with single-threaded BLAS, and the lines "draws
alone" and "products alone" time each half of that stream on its own, on the same threads.

Timings are the best of several runs after a warm-up run (numba compilation excluded), the
two calls alternating so that both meet the same spells of load. On a shared machine the
ratio still moves with the load (the load average is printed): run it a few times. The
speed tricks and what each buys on this benchmark: :mod:`xr_agreement.resampling.fast`.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import xr_agreement
from corpora import with_string_ids
from xr_agreement._core.threads import _pool_map, _single_threaded_blas
from xr_agreement.mla import MLAStatistic
from xr_agreement.resampling.draws import BLOCK_ITEMS, BlockedResampler
from xr_agreement.resampling.fast import STREAM_ROWS, stream_item_blocks


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
    da = with_string_ids((latent ^ flips).astype(np.int8), ("item", "annotator", "label"))
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

    # where the time goes: the stages of mla(ci=...), one at a time
    statistic = MLAStatistic(da, ["F"], True, item="item", annotator="annotator",
                             label="label")
    t_table, _ = timed(statistic.prepare)
    resampler = BlockedResampler(seed, n_items, n_resamples)
    t_stream = best_of(lambda: stream_item_blocks(statistic, resampler), 3)
    batches = stream_item_blocks(statistic, resampler)
    t_finish = best_of(lambda: statistic.finish(batches), 3)
    shift, _, size = statistic.pairing() or (0, 0, BLOCK_ITEMS)
    workers = os.cpu_count() or 1
    step = min(STREAM_ROWS, -(-n_resamples // workers))
    block = min(resampler.block_size, n_items)
    table = statistic._table(np.ones(n_annotators, np.int64))["table"]

    def each_range(work):
        with _single_threaded_blas():
            _pool_map(work, range(0, n_resamples, step))

    def draws(start):
        buffer = np.empty(((step + 1) // 2 if shift else step, block), np.float32)
        rows = min(step, n_resamples - start)
        for i0 in range(0, n_items, block):
            i1 = min(n_items, i0 + block)
            out = buffer[: (rows + 1) // 2 if shift else rows, : i1 - i0]
            resampler.counts(start, rows, i0, i1, out, threads=False,
                             pair_scale=2**shift if shift else 0)

    def products(start):
        rows = min(step, n_resamples - start)
        counts = np.ones(((rows + 1) // 2 if shift else rows, block), np.float32)
        for i0 in range(0, n_items, block):
            i1 = min(n_items, i0 + block)
            if not shift:  # unpaired: one product per block
                np.matmul(counts[:, : i1 - i0], table[i0:i1])
                continue
            n_sub = (i1 - i0) // size
            np.matmul(counts[:, : n_sub * size].reshape(len(counts), n_sub, size)
                      .transpose(1, 0, 2), table[i0 : i0 + n_sub * size]
                      .reshape(n_sub, size, -1))
            if n_sub * size < i1 - i0:  # the tail sub-block
                np.matmul(counts[:, n_sub * size : i1 - i0], table[i0 + n_sub * size : i1])

    t_draws = best_of(lambda: each_range(draws), 3)
    t_products = best_of(lambda: each_range(products), 3)
    columns = table.shape[1]
    print(f"  per-item table (N x {columns}) and point counts: {t_table:6.3f} s")
    print(f"  streamed draws and products ({'pairs of replicates' if shift else 'unpaired'}, "
          f"{workers} threads): {t_stream:6.3f} s")
    print(f"    draws alone:               {t_draws:8.3f} s = {t_draws / plain:5.1f} x plain")
    print(f"    products alone:            {t_products:8.3f} s = {t_products / plain:5.1f} x "
          "plain")
    print(f"  finish (resample dim):       {t_finish:8.3f} s")

    numpy_stream = best_of(lambda: xr_agreement.mla(
        da, ci=0.95, n_resamples=n_resamples, seed=np.random.default_rng(seed)), repeats=2)
    print(f"mla(ci=0.95), seed=Generator:{numpy_stream:8.3f} s   ratio "
          f"{numpy_stream / plain:5.1f} (rng.integers itself, as scipy draws)")

    bca = best_of(lambda: xr_agreement.mla(da, ci=0.95, n_resamples=n_resamples, seed=seed,
                                          ci_method="bca"), repeats=1)
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
