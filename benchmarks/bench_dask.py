"""Larger-than-memory benchmark: MLA over a zarr store several times bigger than the memory
the run may use, against the in-memory numpy path on the largest array that fits.

    python benchmarks/bench_dask.py                      # 5.9 GiB store, 1 GiB memory limit
    python benchmarks/bench_dask.py --size-gib 8 --keep  # keep the store for another run

The store holds uint8 decisions (item x annotator x label = N x 5 x 200, 62.5 MiB chunks of
65536 items), written chunk by chunk from a pool of 4 random chunks, so writing stays cheap
and the numbers can be checked: the full store is the pool repeated R times, and every corpus
and label value (all additive counts scale by R) equals that of the in-memory subset, which is
the pool repeated too. Only ``alpha_hamming`` moves slightly (its expected disagreement draws
without replacement, n_j / (n_j - 1)).

Every case runs in a fresh subprocess. Peak memory is the larger of the total resident set of
that process and all its children (the LocalCluster nanny and worker), sampled every 20 ms,
and the sum of the kernel's ``ru_maxrss`` of the process and the cluster worker.

Cases:
  numpy          the largest array that fits the memory limit, loaded into RAM, then mla();
                 then (outside the peak measurement) the same array chunked, through dask
  dask-fit       the same subset through xr.open_zarr (threaded scheduler), for speed
  dask-threads   the whole store through xr.open_zarr, default threaded scheduler
  cluster        the whole store on a LocalCluster: 1 worker, 2 threads, memory_limit
  threads-ci     the whole store, mla(ci=0.95, n_resamples=200) through xr.open_zarr: every
                 block adds its part of the 200 replicates (opt in: --cases ...,threads-ci)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import psutil

# zarr v3 warns about string coordinates and consolidated metadata; neither matters here
warnings.filterwarnings("ignore", module="zarr")

N_ANNOTATORS = 5
N_LABELS = 200
CHUNK_ITEMS = 65536  # 65536 x 5 x 200 bytes = 62.5 MiB per chunk
POOL = 4  # distinct random chunks, written cyclically
BASELINES = ["F", "AC1", "PB"]
CORPUS = ["agreement", "observed", "expected", "minimum", "observed_minimum", "raw_prevalence"]
LABEL = ["label_observed", "label_agreement", "label_weight", "label_observed_minimum",
         "label_prevalence", "label_positive_agreement", "label_negative_agreement"]
GIB = 2**30
CI_RESAMPLES = 200  # threads-ci: item bootstrap of the whole store, block by block


def pool_chunk(index: int) -> np.ndarray:
    """Random decisions: per item and label a latent truth (label prevalences spread over
    0.5%..50%), each annotator flips it with probability 0.15."""
    rng = np.random.default_rng(1000 + index)
    label_rng = np.random.default_rng(7)
    thresholds = (label_rng.uniform(0.005, 0.5, N_LABELS) * 256).astype(np.uint8)
    truth = rng.integers(0, 256, (CHUNK_ITEMS, 1, N_LABELS), dtype=np.uint8) < thresholds
    flips = rng.integers(0, 256, (CHUNK_ITEMS, N_ANNOTATORS, N_LABELS), dtype=np.uint8) < 38
    return (truth ^ flips).view(np.uint8)


def write_store(path: str, n_chunks: int) -> float:
    """Write the store chunk by chunk (never more than the pool in memory); seconds taken."""
    import dask.array
    import xarray as xr
    import zarr
    from zarr.codecs import BloscCodec

    start = time.perf_counter()
    shape = (n_chunks * CHUNK_ITEMS, N_ANNOTATORS, N_LABELS)
    template = xr.Dataset(
        {"decisions": (("item", "annotator", "label"),
                       dask.array.zeros(shape, dtype=np.uint8, chunks=(CHUNK_ITEMS, -1, -1)))},
        coords={
            "annotator": [f"a{c}" for c in range(N_ANNOTATORS)],
            "label": [f"L{j:03d}" for j in range(N_LABELS)],
        },
        attrs={"n_chunks": n_chunks, "chunk_items": CHUNK_ITEMS, "pool": POOL},
    )
    compressor = BloscCodec(cname="lz4", clevel=5, shuffle="bitshuffle")
    template.to_zarr(
        path, mode="w", compute=False, consolidated=True,
        encoding={"decisions": {"chunks": (CHUNK_ITEMS, N_ANNOTATORS, N_LABELS),
                                "compressors": [compressor]}},
    )
    array = zarr.open_array(path, path="decisions", mode="r+")
    pool = [pool_chunk(p) for p in range(POOL)]
    for c in range(n_chunks):
        array[c * CHUNK_ITEMS : (c + 1) * CHUNK_ITEMS] = pool[c % POOL]
    return time.perf_counter() - start


def store_matches(path: str, n_chunks: int) -> bool:
    try:
        import zarr

        attrs = dict(zarr.open_group(path, mode="r").attrs)
    except (FileNotFoundError, ValueError, KeyError, OSError):
        return False
    except Exception as error:  # zarr raises its own errors for a missing/partial store
        print(f"not reusing {path}: {error!r}")
        return False
    return attrs == {"n_chunks": n_chunks, "chunk_items": CHUNK_ITEMS, "pool": POOL}


class PeakMemory:
    """Largest total RSS of this process and its children, sampled in a thread."""

    def __init__(self, interval=0.02):
        self.process = psutil.Process()
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _total(self):
        total = 0
        for p in [self.process, *self.process.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except psutil.Error:  # a child that just exited
                continue
        return total

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._total())
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._total())


def max_rss_self() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def summary(result) -> dict:
    """The numbers checked across cases (plain lists for JSON)."""
    out = {name: result[name].values.tolist() for name in CORPUS + LABEL + ["alpha_hamming"]}
    item = result["item_observed"]
    out["item_observed_first_chunks"] = item.values[: POOL * CHUNK_ITEMS : 4099].tolist()
    return out


def run_case(case: str, path: str, fit_chunks: int, limit_gib: float) -> dict:
    import xarray as xr

    import xr_agreement
    from xr_agreement._core import jit

    # compile / load the numba kernels outside the timings (compiled even for this small
    # warm-up input, which would otherwise run interpreted)
    jit.set_mode("always")
    xr_agreement.mla(xr.DataArray(np.zeros((4, 2, 2), np.uint8),
                                  dims=("item", "annotator", "label")))
    fit = slice(0, fit_chunks * CHUNK_ITEMS)
    record = {"case": case}
    with PeakMemory() as peak:
        start = time.perf_counter()
        if case == "numpy":
            # zarr decompresses straight into one numpy array (no dask, no second copy)
            decisions = xr.open_zarr(path, chunks=None)["decisions"].isel(item=fit).load()
            record["load_s"] = time.perf_counter() - start
            record["array_gib"] = decisions.nbytes / GIB
            result = xr_agreement.mla(decisions, BASELINES)
            record["compute_s"] = time.perf_counter() - start - record["load_s"]
        elif case in ("dask-fit", "dask-threads"):
            decisions = xr.open_zarr(path)["decisions"]
            if case == "dask-fit":
                decisions = decisions.isel(item=fit)
            record["array_gib"] = decisions.nbytes / GIB
            result = xr_agreement.mla(decisions, BASELINES).compute()
        elif case == "threads-ci":
            decisions = xr.open_zarr(path)["decisions"]
            record["array_gib"] = decisions.nbytes / GIB
            result = xr_agreement.mla(decisions, BASELINES, ci=0.95, n_resamples=CI_RESAMPLES,
                                      seed=0).compute()
            record["interval"] = [float(result.agreement_lower.sel(baseline="F")),
                                  float(result.agreement_upper.sel(baseline="F"))]
        elif case == "cluster":
            from distributed import Client, LocalCluster

            cluster = LocalCluster(
                n_workers=1, threads_per_worker=2, processes=True,
                memory_limit=f"{limit_gib}GiB", dashboard_address=None,
            )
            client = Client(cluster)
            client.run(lambda: __import__("xr_agreement"))  # import + load kernels
            record["cluster_start_s"] = time.perf_counter() - start
            start = time.perf_counter()
            decisions = xr.open_zarr(path)["decisions"]
            record["array_gib"] = decisions.nbytes / GIB
            result = xr_agreement.mla(decisions, BASELINES).compute()
            record["worker_max_rss_gib"] = [
                v / GIB for v in client.run(max_rss_self).values()
            ]
        else:
            raise ValueError(case)
        record["wall_s"] = time.perf_counter() - start
    record["process_max_rss_gib"] = max_rss_self() / GIB
    if case == "cluster":
        client.close()
        cluster.close()
    if case == "numpy":
        # dask on the same in-memory array: its overhead without zarr I/O (.chunk() itself,
        # which hashes the array, is left out)
        chunked = decisions.chunk(item=CHUNK_ITEMS)
        start = time.perf_counter()
        xr_agreement.mla(chunked, BASELINES).compute()
        record["dask_in_memory_s"] = time.perf_counter() - start
    # sampling can miss a short peak: take the kernel's per-process maxima into account
    record["peak_total_rss_gib"] = max(
        peak.peak / GIB, record["process_max_rss_gib"] + sum(record.get("worker_max_rss_gib", []))
    )
    record["gib_per_s"] = record["array_gib"] / record["wall_s"]
    record["values"] = summary(result)
    return record


def check(records: dict) -> list[str]:
    """Cross-case agreement of the numbers; returns the failures."""
    failures = []
    if "numpy" not in records:  # nothing to compare with (e.g. --cases threads-ci)
        return failures
    numpy_values = records["numpy"]["values"]
    for case, record in records.items():
        for name, expected in numpy_values.items():
            if case == "dask-fit" or name not in ("alpha_hamming",):
                rtol = 1e-12
            else:
                rtol = 1e-6  # alpha's n_j / (n_j - 1) moves with the number of values
            if not np.allclose(record["values"][name], expected, rtol=rtol, atol=1e-12,
                               equal_nan=True):
                failures.append(f"{case}: {name} differs from numpy")
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gib", type=float, default=6.0, help="store size (uncompressed)")
    parser.add_argument("--memory-limit-gib", type=float, default=1.0,
                        help="memory allowed to the cluster worker; the numpy case gets the "
                             "largest array that fits in it")
    parser.add_argument("--store", default="/tmp/xr_agreement_bench_dask.zarr")
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    parser.add_argument("--cases", default="numpy,dask-fit,dask-threads,cluster")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # internal: run one case
    parser.add_argument("--fit-chunks", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.case:
        record = run_case(args.case, args.store, args.fit_chunks, args.memory_limit_gib)
        print(json.dumps(record))
        return 0

    chunk_gib = CHUNK_ITEMS * N_ANNOTATORS * N_LABELS / GIB
    # whole pool cycles, so the full store and the subset repeat the pool exactly
    n_chunks = max(POOL, int(args.size_gib / chunk_gib) // POOL * POOL)
    # numpy: the array plus ~0.4 GiB of interpreter, numba, xarray and outputs must fit
    fit_chunks = max(POOL, int((args.memory_limit_gib - 0.4) / chunk_gib) // POOL * POOL)
    if store_matches(args.store, n_chunks):
        print(f"reusing {args.store}")
    else:
        shutil.rmtree(args.store, ignore_errors=True)
        seconds = write_store(args.store, n_chunks)
        print(f"wrote {n_chunks * chunk_gib:.2f} GiB to {args.store} in {seconds:.1f} s")
    on_disk = subprocess.run(["du", "-sb", args.store], capture_output=True, text=True, check=True)
    print(f"store: {n_chunks} chunks of {chunk_gib * 1024:.1f} MiB = {n_chunks * chunk_gib:.2f} "
          f"GiB uncompressed, {int(on_disk.stdout.split()[0]) / GIB:.2f} GiB on disk; "
          f"memory limit {args.memory_limit_gib} GiB; in-memory subset {fit_chunks} chunks")

    # the figures depend on what else runs: say how busy the machine was
    print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}")
    records = {}
    for case in args.cases.split(","):
        command = [sys.executable, os.path.abspath(__file__), "--case", case,
                   "--store", args.store, "--fit-chunks", str(fit_chunks),
                   "--memory-limit-gib", str(args.memory_limit_gib)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode:
            print(done.stderr)
            raise SystemExit(f"case {case} failed")
        records[case] = json.loads(done.stdout.strip().splitlines()[-1])

    print()
    print(f"{'case':<14}{'array GiB':>10}{'wall s':>9}{'GiB/s':>8}{'peak GiB':>10}"
          f"{'peak/array':>12}  notes")
    for case, r in records.items():
        notes = []
        if "load_s" in r:
            notes.append(f"load {r['load_s']:.1f} s + mla {r['compute_s']:.2f} s; the same "
                         f"array as dask chunks {r['dask_in_memory_s']:.2f} s")
        if "cluster_start_s" in r:
            notes.append(f"cluster start {r['cluster_start_s']:.1f} s excl.")
        if "interval" in r:
            notes.append(f"{CI_RESAMPLES} item resamples; F agreement 95% interval "
                         f"[{r['interval'][0]:.5f}, {r['interval'][1]:.5f}]")
        if "worker_max_rss_gib" in r:
            notes.append("worker max rss " + ", ".join(f"{v:.2f}" for v in r["worker_max_rss_gib"]))
        notes.append(f"own max rss {r['process_max_rss_gib']:.2f}")
        print(f"{case:<14}{r['array_gib']:>10.2f}{r['wall_s']:>9.1f}{r['gib_per_s']:>8.2f}"
              f"{r['peak_total_rss_gib']:>10.2f}{r['peak_total_rss_gib'] / r['array_gib']:>12.3f}"
              f"  {'; '.join(notes)}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    failures = check(records)
    print("numbers: " + ("identical across cases" if not failures else "; ".join(failures)))
    big = [r for c, r in records.items() if c in ("dask-threads", "cluster", "threads-ci")]
    acceptance = all(r["peak_total_rss_gib"] < r["array_gib"] / 4 for r in big)
    print(f"acceptance (peak < array / 4 for the larger-than-memory cases): "
          f"{'pass' if acceptance else 'FAIL'}")
    if not args.keep:
        shutil.rmtree(args.store, ignore_errors=True)
    return 0 if acceptance and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
