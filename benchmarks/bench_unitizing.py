"""Unitizing alpha: xr_agreement against krippendorff-unitized-alpha, side by side.

    python benchmarks/bench_unitizing.py [--repeats 5] [--full]

1. The 2016 coefficient (``method="krippendorff2016"``) against the package (pure Python,
   quadratic in the units) on one continuum segmented by 3 annotators into 500 units each
   (3 labels, gaps between), values checked equal; targets: ours at least 300x faster at
   500 units, under 0.1 s at 5,000 (the package at 5,000 takes minutes: ``--full`` runs it).
   The per-label 2004 coefficient on the same data beside it.
2. Krippendorff's (1995) example stretched to a continuum of 1.2 million positions (DKPro's
   test does so; its algorithm walks every position): target well under a second.

Times are medians of ``--repeats`` calls after a warm-up call (numba compiled, kernels
cached); the table is built once, outside the timing, as the package's input is.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import xr_agreement
from bench_table import median_time
from xr_agreement.spans.unitizing import unitizing_alpha

LABELS = ("claim", "premise", "evidence")


def segmentations(n_units: int, n_annotators: int = 3, seed: int = 0):
    """Annotators who mostly agree: a shared segmentation, each annotator's boundaries
    moved by a few positions and a tenth of the labels changed."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 40, n_units)
    gaps = rng.integers(1, 30, n_units)
    starts = np.cumsum(gaps + np.concatenate([[0], sizes[:-1]]))
    labels = rng.integers(0, len(LABELS), n_units)
    length = int(starts[-1] + sizes[-1] + 10)
    records = []
    for a in range(n_annotators):
        moved = rng.integers(-2, 3, n_units)
        begin = np.maximum(starts + moved, np.concatenate([[0], starts[:-1] + sizes[:-1]]))
        end = np.maximum(starts + sizes + rng.integers(-2, 1, n_units), begin + 1)
        label = np.where(rng.random(n_units) < 0.1, rng.integers(0, len(LABELS), n_units),
                         labels)
        records += [("continuum", f"annotator-{a}", int(b), int(e), LABELS[k])
                    for b, e, k in zip(begin, end, label)]
    return records, length


def peer_input(records, length):
    from krippendorff_unitized_alpha.krippendorffs_unitized_alpha import EMPTY_TAG, Segment

    data = {}
    for _, annotator, start, end, label in sorted(records, key=lambda r: (r[1], r[2])):
        segments = data.setdefault(annotator, [])
        position = segments[-1].end if segments else 0
        if start > position:
            segments.append(Segment(EMPTY_TAG, position, start))
        segments.append(Segment(label, start, end))
    for segments in data.values():
        if segments[-1].end < length:
            segments.append(Segment(EMPTY_TAG, segments[-1].end, length))
    return data


def units_rows(n_units: int, repeats: int, run_peer: bool):
    records, length = segmentations(n_units)
    table = xr_agreement.from_spans(records, lengths={"continuum": length})
    ours = median_time(lambda: unitizing_alpha(table, "krippendorff2016"), repeats)
    per_label = median_time(lambda: unitizing_alpha(table), repeats)
    value = float(unitizing_alpha(table, "krippendorff2016").alpha)
    print(f"{n_units:,} units per annotator x 3 annotators ({length:,} positions)")
    print(f"  ours, krippendorff2016: {ours * 1e3:9.2f} ms   (alpha {value:.6f})")
    print(f"  ours, krippendorff2004: {per_label * 1e3:9.2f} ms   (per label, DKPro's)")
    try:
        from krippendorff_unitized_alpha.krippendorffs_unitized_alpha import \
            KrippendorffUnitizedAlpha
    except ImportError:
        print("  krippendorff-unitized-alpha is not installed: no side-by-side")
        return
    if not run_peer:
        print("  krippendorff-unitized-alpha: not run at this size (--full runs it; minutes)")
        return
    data = peer_input(records, length)
    started = time.perf_counter()
    theirs_value = KrippendorffUnitizedAlpha(data).result
    theirs = time.perf_counter() - started  # one call: it is slow enough to time alone
    assert abs(theirs_value - value) < 1e-9, (theirs_value, value)
    print(f"  krippendorff-unitized-alpha: {theirs * 1e3:9.1f} ms (one call, same alpha): "
          f"package / ours {theirs / ours:,.0f}x   target >= 300x at 500 units")


# Krippendorff (1995, p. 57) as DKPro's Krippendorff1995Test writes it:
# (begin, length, observer, label) on a continuum of 24
KRIPPENDORFF_1995 = [
    (2, 8, 0, "A"), (14, 6, 0, "A"), (4, 4, 1, "A"), (15, 2, 1, "A"),
    (0, 18, 0, "B"), (0, 2, 1, "B"), (2, 1, 1, "B"), (3, 1, 1, "B"), (4, 1, 1, "B"),
    (5, 1, 1, "B"), (6, 3, 1, "B"), (9, 1, 1, "B"),
    (2, 6, 0, "C"), (10, 2, 0, "C"), (14, 4, 0, "C"), (20, 2, 0, "C"), (0, 2, 1, "C"),
    (4, 4, 1, "C"), (10, 4, 1, "C"), (16, 2, 1, "C"), (20, 2, 1, "C"),
    (0, 2, 0, "D"), (2, 8, 0, "D"), (10, 4, 0, "D"), (14, 6, 0, "D"), (20, 4, 0, "D"),
    (0, 4, 1, "D"), (4, 4, 1, "D"), (8, 7, 1, "D"), (15, 2, 1, "D"), (17, 7, 1, "D"),
]


def stretched_row(repeats: int):
    stretch = 50_000
    table = xr_agreement.from_spans(
        [("example", f"observer-{r}", b * stretch, (b + n) * stretch, label)
         for b, n, r, label in KRIPPENDORFF_1995], lengths={"example": 24 * stretch})
    seconds = median_time(lambda: unitizing_alpha(table), repeats)
    result = unitizing_alpha(table)
    print(f"Krippendorff (1995) p. 57 stretched to {int(result.continuum_length):,} "
          f"positions: {seconds * 1e3:.2f} ms   target well under 1 s")
    print("  label_alpha " + ", ".join(
        f"{label} {value:.3f}" for label, value in
        zip(result.label.values.tolist(), result.label_alpha.values.tolist())))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--full", action="store_true",
                        help="also run the package at 5,000 units (several minutes)")
    args = parser.parse_args()
    units_rows(500, args.repeats, run_peer=True)
    units_rows(5_000, args.repeats, run_peer=args.full)
    stretched_row(args.repeats)
