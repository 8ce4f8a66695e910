"""Speed of span F1 and the disputed regions against building the span table, in one run.

A simulated NER corpus: documents of 2,000 characters, 5 annotators, 10 labels; per document
some 20 gold entities (lengths 2-30, some nested in others), which each annotator marks with
probability 0.9, with its bounds shifted by one character in 20% of the cases, its label
swapped in 5%, plus 1 spurious span on average; one annotator in ten skips a document. The
reference is ``from_spans`` on the same records (the table every measure starts from): the
ratios say what each measure costs relative to reading the data in. Times are medians of
three runs (numba is not used by these measures).

Run: ``python benchmarks/bench_spans_units.py [--quick]`` (``--quick``: 10x fewer documents).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import xr_agreement
from xr_agreement.spans import span_disagreements, span_f1


def median_time(function, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def corpus(n_documents, length=2000, n_annotators=5, n_labels=10, seed=0):
    rng = np.random.default_rng(seed)
    labels = [f"L{j}" for j in range(n_labels)]
    annotators = [f"annotator-{a}" for a in range(n_annotators)]
    records, annotated = [], []
    for d in range(n_documents):
        doc = f"doc-{d:06d}"
        n_gold = int(rng.poisson(20))
        starts = rng.integers(0, length - 31, n_gold)
        ends = starts + rng.integers(2, 31, n_gold)
        gold_labels = rng.integers(0, n_labels, n_gold)
        for a in annotators:
            if rng.random() < 0.1:
                continue
            annotated.append((doc, a))
            mine = set()
            for s, e, lab in zip(starts, ends, gold_labels):
                if rng.random() > 0.9:
                    continue
                if rng.random() < 0.2:
                    s, e = s + rng.integers(-1, 2), e + rng.integers(-1, 2)
                    s = max(s, 0)
                if rng.random() < 0.05:
                    lab = rng.integers(0, n_labels)
                mine.add((int(s), int(max(e, s + 1)), labels[int(lab)]))
            for _ in range(int(rng.poisson(1))):
                s = int(rng.integers(0, length - 10))
                mine.add((s, s + int(rng.integers(1, 10)), labels[int(rng.integers(n_labels))]))
            records.extend((doc, a, s, e, lab) for s, e, lab in sorted(mine))
    lengths = {f"doc-{d:06d}": length for d in range(n_documents)}
    return records, lengths, annotated, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for n_documents in ([100, 1000] if args.quick else [1000, 10_000]):
        records, lengths, annotated, labels = corpus(n_documents)
        table = xr_agreement.from_spans(records, lengths, annotated, labels=labels)
        build = median_time(lambda: xr_agreement.from_spans(records, lengths, annotated,
                                                            labels=labels))
        times = {
            "span_f1 exact": median_time(lambda: span_f1(table, "exact")),
            "span_f1 overlap": median_time(lambda: span_f1(table, "overlap")),
            "span_disagreements": median_time(lambda: span_disagreements(table)),
        }
        n_regions = len(span_disagreements(table))
        print(f"{n_documents} documents, {table.sizes['span']} spans, {n_regions} disputed "
              f"regions: from_spans {build:.3f} s")
        for name, seconds in times.items():
            print(f"  {name:20s} {seconds:8.3f} s   {seconds / build:6.2f} x from_spans")


if __name__ == "__main__":
    main()
