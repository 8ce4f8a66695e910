"""Position-level MLA from spans, side by side in one run:

1. ``span_mla(table)`` from the span table (the sweep over span boundaries; positions never
   built), against
2. ``mla`` on the materialised uint8 position array (``span_positions(table)``, 10^8
   decisions at full size), and
3. ``np.count_nonzero`` on that array: the time merely to read it once (the memory-read
   limit, as in bench_mla.py and bench_table.py).

Corpus: 10^4 documents x 2,000 characters x 5 annotators x 10 labels. Each document holds 3
entities per label (4-30 characters); each annotator marks each one with probability 0.8,
its boundaries moved by up to 2 characters, and adds a stray span now and then. String ids
everywhere. Times are medians of ``--repeats`` calls after a warm-up call (numba compilation
excluded); peak memory is tracemalloc's peak of one more call (NumPy's allocations; the
kernels allocate only O(annotators) scratch). The values of (1) and (2) are checked equal.

Run: ``python benchmarks/bench_spans.py [--quick] [--repeats 5]`` (``--quick``: 10^3
documents).
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np
import pandas as pd

import corpora  # noqa: F401  (kernels compiled from the first call, as in every benchmark)
import xr_agreement


def span_records(n_documents: int, length: int, n_annotators: int, n_labels: int,
                 seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    per_document = 3 * n_labels
    entities = n_documents * per_document
    document = np.repeat(np.arange(n_documents), per_document)
    label = np.tile(np.repeat(np.arange(n_labels), 3), n_documents)
    size = rng.integers(4, 31, entities)
    start = rng.integers(0, length - 32, entities)
    frames = []
    for a in range(n_annotators):
        marked = rng.random(entities) < 0.8
        s = np.clip(start + rng.integers(-2, 3, entities), 0, length - 1)
        e = np.clip(start + size + rng.integers(-2, 3, entities), s + 1, length)
        frames.append(pd.DataFrame({"document": document[marked], "annotator": a,
                                    "start": s[marked], "end": e[marked],
                                    "label": label[marked]}))
        stray = rng.random(entities) < 0.05
        s = rng.integers(0, length - 10, entities)
        frames.append(pd.DataFrame({"document": document[stray], "annotator": a,
                                    "start": s[stray], "end": s[stray] + 8,
                                    "label": rng.integers(0, n_labels, entities)[stray]}))
    frame = pd.concat(frames, ignore_index=True)
    frame = frame.drop_duplicates(["document", "annotator", "label", "start", "end"])
    frame["document"] = [f"doc-{d:07d}" for d in frame["document"]]
    frame["annotator"] = [f"ann-{a}" for a in frame["annotator"]]
    frame["label"] = [f"label-{j:03d}" for j in frame["label"]]
    return frame.reset_index(drop=True)


def median_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_bytes(function) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n_documents, length, n_annotators, n_labels = (10**3 if args.quick else 10**4), 2000, 5, 10
    records = span_records(n_documents, length, n_annotators, n_labels)
    documents = [f"doc-{d:07d}" for d in range(n_documents)]
    table = xr_agreement.from_spans(
        records, lengths=dict.fromkeys(documents, length),
        annotated=[(d, f"ann-{a}") for d in documents for a in range(n_annotators)])
    positions = xr_agreement.span_positions(table)
    raw = positions.values
    print(f"{n_documents} documents x {length} characters x {n_annotators} annotators x "
          f"{n_labels} labels: {table.sizes['span']} spans, {raw.size / 1e6:.0f} million "
          f"decisions ({raw.nbytes / 1e6:.0f} MB uint8 when materialised)")

    def from_spans_sweep():
        return xr_agreement.span_mla(table)

    def on_positions():
        return xr_agreement.mla(positions, item="position")

    sweep, full = from_spans_sweep(), on_positions()  # warm-up (compile or load the cache)
    for name in ("agreement", "observed", "alpha_hamming"):
        assert abs(float(sweep[name]) - float(full[name])) < 1e-12, name
    np.testing.assert_allclose(sweep.label_agreement.values, full.label_agreement.values,
                               rtol=0, atol=1e-12)
    xr_agreement.span_positions(table.isel(span=slice(0, 10)))

    read = median_time(lambda: np.count_nonzero(raw), args.repeats)
    sweep_time = median_time(from_spans_sweep, args.repeats)
    mla_time = median_time(on_positions, args.repeats)
    build_time = median_time(lambda: xr_agreement.span_positions(table), 1)
    sweep_peak = peak_bytes(from_spans_sweep)
    mla_peak = peak_bytes(on_positions)
    build_peak = peak_bytes(lambda: xr_agreement.span_positions(table))

    rows = [
        ("span_mla(table): sweep, positions never built", sweep_time, sweep_peak),
        ("mla(span_positions(table)): on the uint8 array", mla_time, mla_peak),
        ("np.count_nonzero(array): one read of it", read, 0),
        ("span_positions(table): building the array", build_time, build_peak),
    ]
    print(f"{'':50s} {'time':>10s} {'peak memory':>12s}")
    for text, seconds, peak in rows:
        print(f"{text:50s} {seconds * 1e3:8.1f} ms {peak / 1e6:9.1f} MB")
    print(f"ratio mla on the array / span_mla              {mla_time / sweep_time:8.2f}x")
    print(f"ratio memory read / span_mla                   {read / sweep_time:8.2f}x")
    print(f"ratio (building + mla) / span_mla              "
          f"{(build_time + mla_time) / sweep_time:8.2f}x")
    span_bytes = sum(table[v].nbytes for v in ("start", "end", "document", "annotator",
                                                  "label"))
    print(f"span_mla peak / the span table's span columns   {sweep_peak / span_bytes:8.2f}x "
          f"({span_bytes / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
