"""Reading large annotation files (issue 31, part 3): our reader beside pandas' on the same file.

    python benchmarks/bench_read.py [--repeats N] [--quick] [--per-row]

Builds in a temporary folder one corpus of 10^5 items x 5 annotators x 50 labels (string ids
``doc-0000042``, ``ann-3``, ``label-017``; each label chosen with probability 0.07, 5% of
the annotations choosing none, a blank cell) in three files: the "sets" CSV (about 26 MB,
labels joined by ";"), the "long" CSV (one row per chosen label, no value column: the
complete design) and JSON lines (a list of labels per record), with the labels file. Each
is read by pandas (``read_csv``; ``read_json(lines=True)`` for JSON lines) and by
``xr_agreement.read_annotations`` with the labels file, in alternation (bench_table's
``side_by_side``: the machine is shared, and its slow phases weigh on both alike); then
``xr-agreement report votes.csv --labels labels.txt`` runs end to end in a fresh process.
The three readings are checked to give the same DataArray.

Rows and targets (ratios of medians; PASS/MISS judged on the unrounded ratio):

1. the sets CSV: ours / ``pandas.read_csv`` [<= 5x] (before: about 16 s, 100-300x);
2. the long CSV, the JSON lines and a ratings CSV (layout "single": one category per row,
   the first label each annotation chose): ours / pandas, for information;
3. the report end to end, and ``--per-row``: the per-row reader once (what the whole-column
   path replaced; about 15-30 s here);
4. the annotation-tool readers (issue 31, part 3): the same items and annotators written as
   a Label Studio JSON export (one array of tasks, a ``choices`` result per annotation), a
   Prodigy ``db-out`` JSONL (a choice task per line, every option listed) and an Argilla v2
   JSONL (``label.responses`` lists), multi-choice as each tool writes it, the labels
   restricted to the corpus' first 10 (Prodigy repeats every option on every line); each
   read by ``read_annotations`` (the tool detected) beside the plain parse of the same file
   (``json.load``; ``json.loads`` per line, the garbage collector on as by default)
   [<= 3x] (before: Label Studio 5.3x, Prodigy 3.6x, Argilla 4.6x; after: 1.3x, 1.4x,
   1.9x).

``--tools``: only the rows of 4; ``--no-tools``: without them.

``--quick``: 10^4 items, a smoke test whose ratios are not judged.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import xarray as xr

import xr_agreement
from bench_table import side_by_side
from xr_agreement.io import files, vectorised

TARGET = 5.0
TOOL_TARGET = 3.0
TOOL_LABELS = 10


def build(folder: str, n_items: int, n_annotators=5, n_labels=50, seed=0) -> dict:
    """The corpus in three layouts and the labels file; returns name -> path."""
    rng = np.random.default_rng(seed)
    labels = [f"label-{j:03d}" for j in range(n_labels)]
    chosen = rng.random((n_items, n_annotators, n_labels)) < 0.07
    chosen[rng.random((n_items, n_annotators)) < 0.05] = False
    chosen[~chosen.any(axis=(1, 2)), 0, 0] = True  # every item in the long file too
    paths = {name: os.path.join(folder, name) for name in
             ("votes.csv", "long.csv", "votes.jsonl", "ratings.csv", "labels.txt")}
    with open(paths["labels.txt"], "w") as handle:
        handle.write("\n".join(labels) + "\n")
    sets, long, records = ["item,annotator,labels"], ["item,annotator,label"], []
    ratings = ["item,annotator,rating"]
    for i in range(n_items):
        item = f"doc-{i:07d}"
        for a in range(n_annotators):
            cell = [labels[j] for j in np.flatnonzero(chosen[i, a])]
            sets.append(f"{item},ann-{a},{';'.join(cell)}")
            long.extend(f"{item},ann-{a},{label}" for label in cell)
            records.append(json.dumps({"item": item, "annotator": f"ann-{a}", "labels": cell}))
            if cell:  # single-label ratings: the first label chosen, none a missing rating
                ratings.append(f"{item},ann-{a},{cell[0]}")
    for name, lines in (("votes.csv", sets), ("long.csv", long), ("votes.jsonl", records),
                        ("ratings.csv", ratings)):
        with open(paths[name], "w") as handle:
            handle.write("\n".join(lines) + "\n")
    return paths


def build_tools(folder: str, n_items: int, n_annotators=5, seed=0) -> dict:
    """The corpus of :func:`build` (its first TOOL_LABELS labels) as three tools' exports."""
    rng = np.random.default_rng(seed)
    labels = [f"label-{j:03d}" for j in range(50)]
    chosen = rng.random((n_items, n_annotators, 50)) < 0.07
    chosen[rng.random((n_items, n_annotators)) < 0.05] = False
    labels, chosen = labels[:TOOL_LABELS], chosen[:, :, :TOOL_LABELS]
    paths = {name: os.path.join(folder, name) for name in
             ("label_studio.json", "prodigy.jsonl", "argilla.jsonl")}
    options = [{"id": label, "text": label} for label in labels]
    stamp = "2026-01-05T10:00:00.000000Z"
    with open(paths["label_studio.json"], "w") as ls, \
            open(paths["prodigy.jsonl"], "w") as prodigy, \
            open(paths["argilla.jsonl"], "w") as argilla:
        ls.write("[")
        for i in range(n_items):
            cells = [[labels[j] for j in np.flatnonzero(chosen[i, a])]
                     for a in range(n_annotators)]
            annotations = [{"id": i * n_annotators + a + 1, "completed_by": a + 1, "result": [
                {"id": f"r{i}-{a}", "from_name": "label", "to_name": "text",
                 "type": "choices", "value": {"choices": cell}, "origin": "manual"}]
                if cell else [], "was_cancelled": False, "ground_truth": False,
                "created_at": stamp, "updated_at": stamp, "lead_time": 3.5, "project": 1,
                "task": i + 1} for a, cell in enumerate(cells)]
            ls.write(("," if i else "") + json.dumps(
                {"id": i + 1, "annotations": annotations, "drafts": [], "predictions": [],
                 "data": {"text": f"doc-{i:07d}"}, "meta": {}, "created_at": stamp,
                 "updated_at": stamp, "project": 1}))
            for a, cell in enumerate(cells):
                prodigy.write(json.dumps(
                    {"text": f"doc-{i:07d}", "_input_hash": 1000003 * i - 7, "_task_hash":
                     i * 31 + a, "options": options, "_view_id": "choice",
                     "config": {"choice_style": "multiple"}, "accept": cell,
                     "answer": "accept", "_timestamp": 1767600000 + i,
                     "_annotator_id": f"corpus-ann-{a}", "_session_id": f"corpus-ann-{a}"})
                    + "\n")
            argilla.write(json.dumps(
                {"id": f"doc-{i:07d}", "status": "completed", "_server_id": f"s-{i}",
                 "text": f"doc-{i:07d}", "label.responses": cells,
                 "label.responses.users": [f"ann-{a}" for a in range(n_annotators)],
                 "label.responses.status": ["submitted"] * n_annotators}) + "\n")
        ls.write("]")
    return paths


def plain_json(path: str):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def plain_lines(path: str):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def tool_rows(folder: str, n_items: int, repeats: int, judged: bool):
    paths = build_tools(folder, n_items)
    sizes = {n: os.path.getsize(p) / 1e6 for n, p in paths.items()}
    print(f"{n_items:,} items x 5 annotators x {TOOL_LABELS} labels: " + ", ".join(
        f"{n} {size:.0f} MB" for n, size in sizes.items()))
    for name, tool, plain in (("label_studio.json", "label-studio", plain_json),
                              ("prodigy.jsonl", "prodigy", plain_lines),
                              ("argilla.jsonl", "argilla", plain_lines)):
        path = paths[name]

        def ours(path=path, tool=tool):
            da = xr_agreement.read_annotations(path)
            assert da.attrs["reader"] == tool, da.attrs["reader"]
            return da

        times = side_by_side({"plain": lambda path=path, plain=plain: plain(path),
                              "ours": ours}, repeats)
        print(f"4. {name}: plain parse {seconds(times['plain'])}, "
              f"read_annotations {seconds(times['ours'])}")
        row("read_annotations / plain parse", times["ours"] / times["plain"], TOOL_TARGET,
            judged)


def row(text: str, ratio: float, target: float | None, judged: bool):
    mark = "" if target is None else ("PASS" if ratio <= target else "MISS") if judged \
        else "(quick)"
    target_text = f"<= {target:g}x" if target else "info"
    print(f"  {text:<52} {ratio:>7.2f}x   target {target_text:<8} {mark}")


def seconds(value: float) -> str:
    return f"{value * 1e3:.0f} ms" if value < 1 else f"{value:.2f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="10^4 items")
    parser.add_argument("--per-row", action="store_true",
                        help="time the per-row reader once too (slow)")
    parser.add_argument("--tools", action="store_true", help="only the tool readers' rows")
    parser.add_argument("--no-tools", action="store_true", help="without the tool rows")
    args = parser.parse_args()
    n_items = 10**4 if args.quick else 10**5
    print(f"xr_agreement {xr_agreement.__version__}, pandas {pd.__version__}, numpy "
          f"{np.__version__}, pyarrow "
          f"{'installed' if vectorised.arrow_strings() else 'absent'}")
    if args.tools:
        with tempfile.TemporaryDirectory() as folder:
            tool_rows(folder, n_items, args.repeats, not args.quick)
        return
    with tempfile.TemporaryDirectory() as folder:
        paths = build(folder, n_items)
        labels = paths["labels.txt"]
        sizes = {n: os.path.getsize(p) / 1e6 for n, p in paths.items()}
        print(f"{n_items:,} items x 5 annotators x 50 labels: sets CSV {sizes['votes.csv']:.1f}"
              f" MB, long CSV {sizes['long.csv']:.1f} MB, JSON lines "
              f"{sizes['votes.jsonl']:.1f} MB")
        cases = [("1. sets CSV", paths["votes.csv"], lambda p: pd.read_csv(p), {}, TARGET),
                 ("2. long CSV", paths["long.csv"], lambda p: pd.read_csv(p),
                  {"layout": "long"}, None),
                 ("2. JSON lines", paths["votes.jsonl"],
                  lambda p: pd.read_json(p, lines=True), {}, None),
                 ("2. ratings CSV (layout single)", paths["ratings.csv"],
                  lambda p: pd.read_csv(p), {"layout": "single"}, None)]
        results = []
        for name, path, theirs, options, target in cases:
            def ours(path=path, options=options):
                return xr_agreement.read_annotations(path, labels=labels, **options)

            times = side_by_side({"pandas": lambda path=path, theirs=theirs: theirs(path),
                                  "ours": ours}, args.repeats)
            if options.get("layout") != "single":  # the same decisions in three layouts
                results.append(ours())
            print(f"{name}: pandas {seconds(times['pandas'])}, ours {seconds(times['ours'])}")
            row("ours / pandas", times["ours"] / times["pandas"], target, not args.quick)
        for other in results[1:]:
            xr.testing.assert_identical(other, results[0])
        report = ("from xr_agreement.cli import main; import sys; "
                  "sys.exit(main(['report', sys.argv[1], '--labels', sys.argv[2]]))")

        def end_to_end():
            subprocess.run([sys.executable, "-c", report, paths["votes.csv"], labels],
                           check=True, capture_output=True)

        read_csv = lambda: pd.read_csv(paths["votes.csv"])  # noqa: E731
        times = side_by_side({"report": end_to_end, "pandas": read_csv},
                             max(2, args.repeats // 2), {"pandas": 3})
        print(f"3. xr-agreement report votes.csv --labels labels.txt, fresh process: "
              f"{seconds(times['report'])} (before: about 16 s)")
        row("report end to end / pandas.read_csv", times["report"] / times["pandas"], None,
            not args.quick)
        if args.per_row:
            def fallback(*_args, **_kwargs):
                raise vectorised.Fallback

            files.sets_decisions, files.quote_free_table = fallback, lambda *_args: None
            start = time.perf_counter()
            per_row = xr_agreement.read_annotations(paths["votes.csv"], labels=labels)
            spent = time.perf_counter() - start
            xr.testing.assert_identical(per_row, results[0])
            print(f"   the per-row reader on the sets CSV, once: {seconds(spent)}")
    if not args.no_tools:
        with tempfile.TemporaryDirectory() as folder:
            tool_rows(folder, n_items, args.repeats, not args.quick)


if __name__ == "__main__":
    main()
