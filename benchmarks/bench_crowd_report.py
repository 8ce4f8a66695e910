"""Peak memory and time of the whole ``report`` command on a crowd table (issue 28, section 5).

A CSV ``task,worker,label`` as crowd-kit frames it: ``--tasks`` tasks, each answered by 3
workers drawn from ``--workers``, one of ``--labels`` labels per answer; string ids; about
5% of the tasks lost one answer (2 answers). The report's annotator section must cost memory
in proportion to the pairs that share tasks, not to workers^2.

Run from the repository root, so that ``python -m`` takes this checkout's package:
``python benchmarks/bench_crowd_report.py --workers 4000`` (writes the CSV to a temporary
directory, runs ``python -m xr_agreement.cli report FILE`` under ``/usr/bin/time -v``
and prints the peak RSS and the wall time; ``--format json`` or ``html`` for those
outputs); ``--write PATH`` only writes the CSV.

Measured on 2 shared cores (peak RSS, wall): 1,000 workers 1.24 GB 5.7 s before the
sparse pair counts, 0.37 GB 4.4 s after; 4,000 workers 8.76 GB 35 s, 0.57 GB 5.1 s.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def write_crowd_table(path, n_tasks=2000, n_workers=4000, n_labels=5, per_task=3,
                      lost=0.05, seed=0) -> None:
    rng = np.random.default_rng(seed)
    labels = [f"label-{j}" for j in range(n_labels)]
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["task", "worker", "label"])
        for t in range(n_tasks):
            workers = rng.choice(n_workers, per_task, replace=False)
            if rng.random() < lost:
                workers = workers[:-1]
            for w in workers:
                writer.writerow([f"task-{t:05d}", f"worker-{w:05d}",
                                 labels[rng.integers(n_labels)]])


def measure(path, extra=()) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of the report command on ``path``."""
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "xr_agreement.cli", "report",
               str(path), *extra]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    return peak_kib / 1024, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=4000)
    parser.add_argument("--labels", type=int, default=5)
    parser.add_argument("--write", help="only write the CSV to this path")
    parser.add_argument("--format", default="text", choices=["text", "json", "html"])
    args = parser.parse_args()
    if args.write:
        write_crowd_table(args.write, args.tasks, args.workers, args.labels)
        return
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, f"crowd_{args.workers}.csv")
        write_crowd_table(path, args.tasks, args.workers, args.labels)
        output = os.path.join(directory, f"report.{args.format}")
        peak, wall = measure(path, ["--format", args.format, "-o", output])
    print(f"{args.tasks} tasks x 3 answers, {args.workers} workers, {args.labels} labels, "
          f"{args.format} report: peak RSS {peak:.0f} MiB, {wall:.1f} s")


if __name__ == "__main__":
    main()
