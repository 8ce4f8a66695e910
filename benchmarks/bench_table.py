"""The speed table of the project, measured in one run on realistic inputs.

    python benchmarks/bench_table.py [--repeats 7] [--quick]

Every row is a ratio measured side by side in this run (absolute times on a shared 2-core
machine are noisy; ratios much less). Inputs carry string ids on every dim (``doc-0000042``,
``ann-3``, ``label-017``), as corpora do, built through pandas as a reader would. Times are
medians after a warm-up call of ours (numba compilation excluded; kernels come from the
on-disk cache): of ``--repeats`` calls, or where a peer's call takes seconds, of a few of the
peer's calls (``max(2, repeats // 2)``; ml-agreement's 2) and many of ours. A peer's calls
and ours are taken in alternation (:func:`side_by_side`): this machine has slow and fast
phases of up to 2x (krippendorff's call here took 1.1 s in one run and 2.1 s in the next),
which a peer timed before ours would put into the ratio. Peers: ``ml-agreement`` (the paper's package), ``krippendorff``,
``nltk``; each computes what we compare against, and the values are checked to agree.

Rows (target in brackets):

1. ``mla(baseline="all")``, (10^6, 5, 100) uint8, no coordinates / np.count_nonzero [~1.1x]
2. the same with string coordinates / np.count_nonzero [<= 1.2x]
3. ``mla(baseline="F")``, (1000, 5, 50), p = 0.1, string coordinates: time per call
   [<= 0.4 ms] and ml-agreement / ours [>= 15,000x]
4. ``alpha(metric="nominal")`` as called by default (with Gwet's analytic se), 10^6 items x
   20 annotators, 5% missing: krippendorff / ours [>= 20x]
5. the same with ``ci=None`` (alpha only): krippendorff / ours [>= 40x]
6. ``alpha(metric="masi")``, (300, 5, 31), p = 0.1: nltk / ours [>= 1,500x]
7. ``import xr_agreement`` and ``xr-agreement report`` in a fresh process, warm caches
   (compiled kernels and bytecode), the report as the README's first command installs the
   package (the core dependencies, no dask) [<= 1.0 s / <= 1.3 s]; beside them ``import
   xarray`` and, for information, the report with dask installed and xarray's first
   DataArray alone there (it imports dask.array, 0.4-0.6 s here)
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import xarray as xr

import xr_agreement
from corpora import with_string_ids


def side_by_side(functions: dict, rounds: int, calls: dict | None = None,
                 warm: tuple | None = None) -> dict:
    """The median time of each of ``functions`` (name -> function), measured in alternation:
    after one warm-up call of each named in ``warm`` (default all), every round calls each
    function ``calls[name]`` times (default once), one function after the other, so that a
    phase of the machine weighs on all of them alike. The order is shuffled each round (a
    fixed seed): a call right after a large one finds the caches cold, and in a fixed order
    the same function always paid for it (Fleiss' kappa after scikit-learn's call took 1.3x
    as long as the same code in another place)."""
    calls = calls or {}
    times = {name: [] for name in functions}
    for name in functions if warm is None else warm:
        functions[name]()
    order = list(functions)
    shuffle = random.Random(0).shuffle
    for _ in range(rounds):
        shuffle(order)
        for name in order:
            function = functions[name]
            for _ in range(calls.get(name, 1)):
                start = time.perf_counter()
                function()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(spent) for name, spent in times.items()}


def median_time(function, repeats: int) -> float:
    """The median time of ``repeats`` calls after a warm-up call (bench_kappa uses it)."""
    return side_by_side({"function": function}, repeats)["function"]


def binary(shape, prevalence, seed) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random(shape, dtype=np.float32) < prevalence).astype(np.uint8)


def row(text: str, value: str, target: str):
    print(f"  {text:<62} {value:>14}   target {target}")


def mla_rows(repeats: int, quick: bool):
    n_items = 10**5 if quick else 10**6
    raw = binary((n_items, 5, 100), 0.2, seed=0)
    plain = xr.DataArray(raw, dims=("item", "annotator", "label"))
    labelled = with_string_ids(raw, ("item", "annotator", "label"))
    times = side_by_side({"read": lambda: np.count_nonzero(raw),
                          "no_coords": lambda: xr_agreement.mla(plain, baseline="all"),
                          "coords": lambda: xr_agreement.mla(labelled, baseline="all")},
                         repeats)
    read, no_coords, coords = times["read"], times["no_coords"], times["coords"]
    print(f"1-2. mla(baseline='all'), ({n_items:,}, 5, 100) uint8; np.count_nonzero "
          f"{read * 1e3:.1f} ms")
    row("no coordinates / memory read", f"{no_coords / read:.2f}x", "~1.1x")
    row("string coordinates / memory read", f"{coords / read:.2f}x", "<= 1.2x")

    import ml_agreement

    small = with_string_ids(binary((1000, 5, 50), 0.1, seed=1), ("item", "annotator", "label"))
    nested = small.transpose("annotator", "item", "label").values.astype(int).tolist()
    # a call of the peer takes seconds (pure Python: no warm-up)
    times = side_by_side(
        {"ours": lambda: xr_agreement.mla(small, baseline="F"),
         "peer": lambda: ml_agreement.calculate_total_multi_label_agreement(nested, "k")},
        2, {"ours": max(repeats, 100)}, warm=("ours",))
    ours, peer = times["ours"], times["peer"]
    theirs = ml_agreement.calculate_total_multi_label_agreement(nested, "k")
    value = float(xr_agreement.mla(small, baseline="F").agreement)
    assert abs(value - theirs) < 1e-9, (value, theirs)
    print("3. mla(baseline='F'), (1000, 5, 50), p = 0.1, string coordinates")
    row("time per call", f"{ours * 1e3:.3f} ms", "<= 0.4 ms")
    row(f"ml-agreement ({peer:.2f} s) / ours", f"{peer / ours:,.0f}x", ">= 15,000x")


def alpha_rows(repeats: int, quick: bool):
    import krippendorff

    n_items = 10**5 if quick else 10**6
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 5, n_items)
    ratings = np.where(rng.random((n_items, 20)) < 0.7, truth[:, None],
                       rng.integers(0, 5, (n_items, 20))).astype(np.float64)
    ratings[rng.random(ratings.shape) < 0.05] = np.nan
    da = with_string_ids(ratings, ("item", "annotator"))
    reliability_data = np.ascontiguousarray(ratings.T)
    # a call of the peer takes seconds: a few rounds, ours several times in each
    rounds = max(2, repeats // 2)
    per_round = max(1, 2 * repeats // rounds)
    times = side_by_side(
        {"theirs": lambda: krippendorff.alpha(reliability_data=reliability_data,
                                              level_of_measurement="nominal"),
         "default": lambda: xr_agreement.alpha(da, "nominal"),
         "alpha_only": lambda: xr_agreement.alpha(da, "nominal", ci=None)},
        rounds, {"default": per_round, "alpha_only": per_round})
    theirs, default, alpha_only = times["theirs"], times["default"], times["alpha_only"]
    ours_value = float(xr_agreement.alpha(da, "nominal", ci=None).alpha)
    peer_value = krippendorff.alpha(reliability_data=reliability_data,
                                    level_of_measurement="nominal")
    assert abs(ours_value - peer_value) < 1e-9, (ours_value, peer_value)
    print(f"4-5. alpha nominal, {n_items:,} items x 20 annotators, 5% missing; krippendorff "
          f"{theirs:.2f} s")
    row(f"default, with analytic se ({default * 1e3:.0f} ms): krippendorff / ours",
        f"{theirs / default:.1f}x", ">= 20x")
    row(f"ci=None ({alpha_only * 1e3:.0f} ms): krippendorff / ours",
        f"{theirs / alpha_only:.1f}x", ">= 40x")


def masi_row(repeats: int):
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance

    rng = np.random.default_rng(2)
    decisions = (rng.random((300, 5, 31)) < 0.1).astype(np.float64)
    empty = ~decisions.astype(bool).any(axis=2)  # nltk's MASI divides by zero on two empty sets
    decisions[empty, 0] = 1.0
    da = with_string_ids(decisions, ("item", "annotator", "label"))
    triples = [(a, i, frozenset(np.flatnonzero(decisions[i, a]).tolist()))
               for i in range(300) for a in range(5)]
    rounds = max(2, repeats // 2)
    times = side_by_side({"peer": lambda: AnnotationTask(triples, distance=masi_distance).alpha(),
                          "ours": lambda: xr_agreement.alpha(da, "masi")},
                         rounds, {"ours": max(repeats, 50)})
    ours, peer = times["ours"], times["peer"]
    peer_value = AnnotationTask(triples, distance=masi_distance).alpha()
    assert abs(float(xr_agreement.alpha(da, "masi").alpha) - peer_value) < 1e-9
    print("6. alpha MASI, (300, 5, 31), p = 0.1")
    row(f"ours {ours * 1e3:.2f} ms; nltk ({peer:.2f} s) / ours", f"{peer / ours:,.0f}x",
        ">= 1,500x")


def startup_rows(repeats: int):
    # bytecode cached as after ``pip install`` (which compiles it): with
    # PYTHONDONTWRITEBYTECODE set, every fresh process would compile our modules anew
    # (0.1-0.2 s here), a cost no installed package has
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def fresh(code: str):
        return lambda: subprocess.run([sys.executable, "-c", code], check=True,
                                      capture_output=True, env=environment)

    report = "from xr_agreement.cli import main; main(['report'])"
    fresh(report)()  # the kernel cache warm
    times = side_by_side({
        "xarray": fresh("import xarray"),
        # xarray imports dask.array (and with it much of scipy) at the first DataArray it
        # builds when dask is installed: a cost of every xarray program, ours included
        "first_array": fresh("import numpy, xarray; xarray.DataArray(numpy.zeros(1))"),
        "package": fresh("import xr_agreement"),
        # as after the README's first command (pip install . : the core dependencies only):
        # the modules of the extras (dask, plot, io, progress) made unimportable
        "core_only": fresh("import sys; sys.modules.update(dict.fromkeys(("
                         "'dask', 'distributed', 'zarr', 'matplotlib', 'pyarrow', 'tqdm'"
                         "))); " + report),
        "report": fresh(report),
    }, repeats)
    print(f"7. fresh processes, warm caches; import xarray alone {times['xarray']:.2f} s")
    row("import xr_agreement", f"{times['package']:.2f} s", "<= 1.0 s")
    row("xr-agreement report, installed as the README's first command does",
        f"{times['core_only']:.2f} s", "<= 1.3 s")
    print(f"  with dask installed (the test extra): the report {times['report']:.2f} s, of "
          f"which xarray with its first DataArray alone {times['first_array']:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="10x smaller large cases")
    args = parser.parse_args()
    print(f"xr_agreement {xr_agreement.__version__}, xarray {xr.__version__}, "
          f"pandas {pd.__version__}, numpy {np.__version__}")
    mla_rows(args.repeats, args.quick)
    alpha_rows(args.repeats, args.quick)
    masi_row(args.repeats)
    startup_rows(args.repeats)
