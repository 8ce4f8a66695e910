"""Gamma (Mathet et al. 2015): xr_agreement against pygamma-agreement, side by side.

    PYTHONPATH=. python benchmarks/bench_gamma.py [--quick] [--repeats N] [--exact-peer]
        [--pygamma-python PATH] [--save-peer FILE | --load-peer FILE]

(``--save-peer`` keeps pygamma-agreement's results as JSON, ``--load-peer`` reads them back
instead of running it again: minutes saved when only our side changed.)

The setting of issue 32: one document, 3 annotators ("ann-1".."ann-3"), 4 labels, N units
per annotator, N in {500, 5,000} (``--quick``: 50 only). A seeded reference segmentation of
N entity spans (2-12 tokens, gaps of 3-40 tokens, labels at random); each annotator keeps
each reference span with probability 0.9, moves each boundary by -2..2 tokens and changes
the label with probability 0.05. Integer offsets. Dissimilarity: positional + categorical
(0/1), alpha = beta = 1, Delta_empty = 1 (``CombinedCategoricalDissimilarity(alpha=1,
beta=1, delta_empty=1)``, which scales both parts by Delta_empty; with 1 that is the plain
sum, as ours with ``empty_cost=1``); 30 sampled continua for the expected disorder.

Rows per size:

1. pygamma-agreement's fast gamma (``compute_gamma(fast=True, n_samples=30)``) and, with
   ``--exact-peer``, its exact gamma (``fast=False``; at the smallest size only: ~20 min at
   500). Each run ONCE (they are slow), after a warm-up call on a small continuum (its
   numba code compiled), in one subprocess of ``--pygamma-python`` that imports it once
   (its import compiles numba code for 14-30 s: printed for information) and returns JSON.
2. Ours: ``from_spans(records, lengths=...).agreement.gamma(n_samples=30, seed=0)`` with the
   exact alignment, and ``from_spans`` itself on the same records (the "plain read": the
   data into the table); medians of ``--repeats`` calls in alternation (bench_table's
   ``side_by_side``) after a warm-up call, kernels compiled (corpora.py).
   Target: pygamma fast / ours >= 100x at 500 and at 5,000 units per annotator (PASS /
   MISS); ours / from_spans for information.
3. The values side by side: observed disorder (ours is the exact minimum, so it is asserted
   <= pygamma's + 1e-6 relative; equal to its exact one when that ran, to its float32
   precision), expected disorder with standard errors, gamma. gamma is asserted within 4
   combined standard errors of pygamma's (ours: ``expected_disorder_se``; pygamma's: the
   spread of its chance alignments' disorders), plus the gap between the two observed
   disorders over the expected one (fast gamma's approximation, not sampling).

Measured here (2 shared cores; pygamma-agreement 0.5.9 with GLPK, import 11-14 s):

    units/annotator  pygamma exact  pygamma fast  ours (exact)  from_spans  fast / ours
    500                    440 s        11.5 s        64-71 ms     13-29 ms    162-180x
    5,000                    -         176 s       514-542 ms     64-86 ms    325-343x

and, with the same pygamma results (``--load-peer``) on an idle machine, ours 32.8 ms at 500
(351x) and 334 ms at 5,000 (528x); from_spans 8.5 and 42 ms.

gamma 0.7588 (pygamma exact 0.7590, fast 0.7591) at 500, 0.7685 (fast 0.7689) at 5,000;
the observed disorders equal to 1e-7 (pygamma's float32).

pygamma-agreement is the optional extra ``gamma-peer``; it need not share our interpreter
(``--pygamma-python``; default: this interpreter if it has pygamma_agreement, else
/tmp/pg-venv/bin/python if present). Without it its rows are skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

import corpora  # noqa: F401  (kernels compiled from the first call, as in every benchmark)
import xr_agreement
from bench_table import side_by_side

ANNOTATORS = ("ann-1", "ann-2", "ann-3")
LABELS = ("PER", "ORG", "LOC", "MISC")
DOCUMENT = "doc-1"
N_SAMPLES = 30
TARGET = 100.0
FALLBACK_PYGAMMA_PYTHON = "/tmp/pg-venv/bin/python"


def span_records(n_units: int, seed: int = 0):
    """(records, document length): annotators who mostly agree on N entity spans, each
    missing a tenth of them, boundaries moved by up to 2 tokens, a 20th of the labels
    changed."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 13, n_units)
    gaps = rng.integers(3, 41, n_units)
    starts = np.cumsum(gaps) + np.concatenate([[0], np.cumsum(sizes)[:-1]])
    ends = starts + sizes
    labels = rng.integers(0, len(LABELS), n_units)
    length = int(ends[-1] + 20)
    records = []
    for annotator in ANNOTATORS:
        kept = rng.random(n_units) < 0.9
        start = np.maximum(starts + rng.integers(-2, 3, n_units), 0)
        end = np.maximum(ends + rng.integers(-2, 3, n_units), start + 1)
        # a changed label is another label, never the same one drawn again
        changed = rng.random(n_units) < 0.05
        label = np.where(changed, (labels + rng.integers(1, len(LABELS), n_units))
                         % len(LABELS), labels)
        records += [(DOCUMENT, annotator, int(s), int(e), LABELS[k])
                    for s, e, k in zip(start[kept], end[kept], label[kept])]
    return records, length


# Run by --pygamma-python with a job on stdin (JSON), the results written as JSON to the
# job's "out" file (not stdout: GLPK logs there), progress on stderr. Self-contained: that
# interpreter need not have xr_agreement or this directory.
PYGAMMA_WORKER = r"""
import json, logging, sys, time
# without a solver named CBC it warns "Using GLPK" once per alignment: said once below
logging.basicConfig(level=logging.ERROR)
started = time.perf_counter()
import cvxpy
import numpy as np
from pyannote.core import Segment
from pygamma_agreement import CombinedCategoricalDissimilarity, Continuum
import_seconds = time.perf_counter() - started
job = json.load(sys.stdin)
print(f"  pygamma-agreement imported in {import_seconds:.1f} s", file=sys.stderr, flush=True)


def continuum_of(units):
    continuum = Continuum()
    for annotator, start, end, label in units:
        continuum.add(annotator, Segment(start, end), label)
    return continuum


def gamma(units, fast, n_samples, seed):
    np.random.seed(seed)  # its statistical sampler draws from numpy's global generator
    started = time.perf_counter()
    dissimilarity = CombinedCategoricalDissimilarity(**job["dissimilarity"])
    continuum = continuum_of(units)
    built = time.perf_counter() - started
    started = time.perf_counter()
    results = continuum.compute_gamma(dissimilarity, n_samples=n_samples, fast=fast)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "build_seconds": built, "gamma": float(results.gamma),
            "observed_disorder": float(results.observed_disorder),
            "expected_disorder": float(results.expected_disorder),
            "chance_disorders": [float(a.disorder) for a in results.chance_alignments]}


warm = {}
for fast in sorted({run["fast"] for run in job["runs"]}):
    started = time.perf_counter()
    gamma(job["warm_units"], fast, 2, 0)
    warm["fast" if fast else "exact"] = time.perf_counter() - started
runs = []
for run in job["runs"]:
    kind = "fast" if run["fast"] else "exact"
    print(f"  pygamma-agreement {kind} gamma, {run['n_units']:,} units per annotator ...",
          file=sys.stderr, flush=True)
    result = gamma(run["units"], run["fast"], run["n_samples"], run["seed"])
    print(f"    {result['seconds']:.1f} s", file=sys.stderr, flush=True)
    runs.append(dict(result, n_units=run["n_units"], fast=run["fast"]))
with open(job["out"], "w") as out:
    json.dump({"import_seconds": import_seconds, "warm_seconds": warm, "runs": runs,
               "solvers": cvxpy.installed_solvers()}, out)
"""


def has_pygamma(python: str) -> bool:
    # a venv's python is a link to the base interpreter: compare paths, not what they link to
    if os.path.abspath(python) == sys.executable:
        return importlib.util.find_spec("pygamma_agreement") is not None
    probe = ("import importlib.util, sys; "
             "sys.exit(importlib.util.find_spec('pygamma_agreement') is None)")
    try:
        return subprocess.run([python, "-c", probe], capture_output=True).returncode == 0
    except OSError:
        return False


def pygamma_python(given: str | None) -> str | None:
    """The interpreter that runs pygamma-agreement, or None (its rows skipped)."""
    if given is not None:
        return given if has_pygamma(given) else None
    if importlib.util.find_spec("pygamma_agreement") is not None:
        return sys.executable
    if os.path.exists(FALLBACK_PYGAMMA_PYTHON) and has_pygamma(FALLBACK_PYGAMMA_PYTHON):
        return FALLBACK_PYGAMMA_PYTHON
    return None


def run_pygamma(python: str, corpora_by_size: dict, exact_sizes) -> dict | None:
    """pygamma-agreement's runs, all in one subprocess (one import), as its JSON."""
    runs = []
    for n_units, (records, _) in corpora_by_size.items():
        units = [(a, s, e, label) for _, a, s, e, label in records]
        if n_units in exact_sizes:
            runs.append({"n_units": n_units, "fast": False, "units": units,
                         "n_samples": N_SAMPLES, "seed": 0})
        runs.append({"n_units": n_units, "fast": True, "units": units,
                     "n_samples": N_SAMPLES, "seed": 0})
    small, _ = span_records(20, seed=1)
    print(f"pygamma-agreement in {python} (one process; each run once, it is slow):",
          flush=True)
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, "pygamma.json")
        job = {"dissimilarity": {"alpha": 1.0, "beta": 1.0, "delta_empty": 1.0},
               "warm_units": [(a, s, e, label) for _, a, s, e, label in small],
               "runs": runs, "out": out}
        # its stdout is GLPK's log of every MIP it solves: dropped; stderr is its progress
        done = subprocess.run([python, "-c", PYGAMMA_WORKER], input=json.dumps(job), text=True,
                              stdout=subprocess.DEVNULL)
        if done.returncode != 0 or not os.path.exists(out):
            print(f"  pygamma-agreement failed (exit {done.returncode}): its rows skipped")
            return None
        with open(out) as file:
            return json.load(file)


def peer_runs(out: dict) -> dict:
    """pygamma's JSON: its import and warm-up printed, its runs as {(n, fast): run}."""
    print(f"  pygamma-agreement: import {out['import_seconds']:.1f} s (numba compilation, in "
          "every new process); warm-up on 20 units per annotator " + ", ".join(
              f"{kind} {seconds:.1f} s" for kind, seconds in out["warm_seconds"].items())
          + f"; cvxpy's solvers {', '.join(out['solvers'])}")
    return {(run["n_units"], run["fast"]): run for run in out["runs"]}


def ours_gamma(table):
    """The table's gamma, or None while the accessor has none (issue 32 in progress)."""
    method = getattr(table.agreement, "gamma", None)
    if method is None:
        return None
    return lambda: method(positional_weight=1.0, categorical_weight=1.0, empty_cost=1.0,
                          n_samples=N_SAMPLES, seed=0)


def row(text: str, value: str, note: str = ""):
    print(f"  {text:<50} {value:>14}   {note}".rstrip())


def standard_error(disorders) -> float:
    disorders = np.asarray(disorders, dtype=float)
    if disorders.size < 2:
        return float("nan")
    return float(disorders.std(ddof=1) / math.sqrt(disorders.size))


def size_rows(n_units: int, records, length: int, repeats: int, peer: dict | None):
    print(f"\n{n_units:,} units per annotator x {len(ANNOTATORS)} annotators, "
          f"{len(records):,} spans, 1 document of {length:,} tokens, {len(LABELS)} labels")
    lengths = {DOCUMENT: length}
    table = xr_agreement.from_spans(records, lengths=lengths)
    compute = ours_gamma(table)
    functions = {"from_spans": lambda: xr_agreement.from_spans(records, lengths=lengths)}
    if compute is not None:
        functions["gamma"] = compute
    times = side_by_side(functions, repeats)
    runs = {}
    if peer is None:
        row("pygamma-agreement", "not run", "(pygamma-agreement not installed)")
    else:
        runs = {name: peer[(n_units, fast)] for name, fast in (("exact", False), ("fast", True))
                if (n_units, fast) in peer}
        if not runs:
            row("pygamma-agreement", "not run", "(no results for this size)")
        for name, run in runs.items():
            row(f"pygamma-agreement {name} gamma (once)", f"{run['seconds']:.2f} s",
                f"(its Continuum built in {run['build_seconds']:.2f} s, not counted)")
    row(f"ours: from_spans (the plain read; median of {repeats})",
        f"{times['from_spans'] * 1e3:.2f} ms")
    if compute is None:
        print("  xr_agreement gamma: not available")
    else:
        row(f"ours: gamma, exact alignment (median of {repeats})",
            f"{times['gamma'] * 1e3:.2f} ms",
            f"ours / from_spans {times['gamma'] / times['from_spans']:.2f}x")
        for name, run in runs.items():
            ratio = run["seconds"] / times["gamma"]
            row(f"pygamma {name} / ours", f"{ratio:,.0f}x", "" if name == "exact" else
                f"target >= {TARGET:.0f}x: {'PASS' if ratio >= TARGET else 'MISS'}")
    for name, run in runs.items():
        print(f"  pygamma {name}: gamma {run['gamma']:.6f}, observed "
              f"{run['observed_disorder']:.6f}, expected {run['expected_disorder']:.6f} +- "
              f"{standard_error(run['chance_disorders']):.6f} "
              f"(n_samples {len(run['chance_disorders'])})")
    if compute is not None:
        values_rows(compute(), runs)


def values_rows(result, runs: dict):
    """Ours beside pygamma's values, and the checks of the values."""
    observed = float(result.observed_disorder)
    expected = float(result.expected_disorder)
    expected_se = float(result.expected_disorder_se)
    gamma = float(result.gamma)
    gamma_se = observed / expected**2 * expected_se  # delta method: gamma = 1 - Do / De
    print(f"  ours: gamma {gamma:.6f}, observed {observed:.6f}, expected {expected:.6f} "
          f"+- {expected_se:.6f} (n_samples {int(result.n_samples)})")
    for name, peer in runs.items():
        peer_se = standard_error(peer["chance_disorders"])
        # ours is the exact minimum; pygamma's disorders are float32
        print(f"    observed: ours / pygamma {name} - 1 = "
              f"{observed / peer['observed_disorder'] - 1:+.2e}")
        assert observed <= peer["observed_disorder"] * (1 + 1e-6), (observed, name, peer)
        if name == "exact":
            assert abs(observed - peer["observed_disorder"]) <= 1e-5 * observed, (observed, peer)
        peer_gamma_se = peer["observed_disorder"] / peer["expected_disorder"]**2 * peer_se
        combined = math.hypot(gamma_se, peer_gamma_se)
        approximation = max(peer["observed_disorder"] - observed, 0) / peer["expected_disorder"]
        allowed = 4 * combined + approximation
        print(f"    gamma: ours - pygamma {name} = {gamma - peer['gamma']:+.6f}, allowed "
              f"+-{allowed:.6f} (4 combined se {4 * combined:.6f} + observed gap "
              f"{approximation:.6f})")
        assert abs(gamma - peer["gamma"]) <= allowed, (gamma, name, peer["gamma"], allowed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 units per annotator only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--exact-peer", action="store_true",
                        help="also pygamma-agreement's exact gamma at the smallest size "
                             "(~20 min at 500 units)")
    parser.add_argument("--pygamma-python", default=None,
                        help="the Python that has pygamma-agreement (default: this one if it "
                             f"has it, else {FALLBACK_PYGAMMA_PYTHON} if present)")
    parser.add_argument("--save-peer", metavar="FILE",
                        help="write pygamma-agreement's results (JSON) to FILE")
    parser.add_argument("--load-peer", metavar="FILE",
                        help="read pygamma-agreement's results from FILE (a --save-peer of "
                             "the same sizes) instead of running it")
    args = parser.parse_args()
    sizes = (50,) if args.quick else (500, 5_000)
    corpora_by_size = {n: span_records(n) for n in sizes}
    out = None
    if args.load_peer:
        with open(args.load_peer) as file:
            out = json.load(file)
        print(f"pygamma-agreement's results read from {args.load_peer}")
    elif (python := pygamma_python(args.pygamma_python)) is None:
        print("pygamma-agreement not installed: its rows skipped")
    else:
        # before ours, not beside: 2 cores, and its runs take minutes
        exact_sizes = (min(sizes),) if args.exact_peer else ()
        out = run_pygamma(python, corpora_by_size, exact_sizes)
        if out is not None and args.save_peer:
            with open(args.save_peer, "w") as file:
                json.dump(out, file)
    peer = None if out is None else peer_runs(out)
    for n_units, (records, length) in corpora_by_size.items():
        size_rows(n_units, records, length, args.repeats, peer)
