"""The span report through the command line against the classification report, on Label
Studio exports of the same size (issue 29: "a Label Studio NER export of a few hundred tasks
through the CLI in about the time of the classification report").

Two exports in Label Studio's JSON format (https://labelstud.io/guide/export), written to a
temporary directory: ``--tasks`` tasks of about 60 words, each annotated by ``--annotators``
users (about 5% of the annotations cancelled); the NER export holds ``labels`` regions
(about 8 per annotation, 4 labels, annotators agreeing on most entities and shifting or
dropping some), the classification export ``choices`` of a multiple-choice control (4
labels). ``xr-agreement report FILE --labels config.xml`` runs on each:

- cold: ``python -m xr_agreement.cli`` in a fresh process (imports, numba compilation or
  cache loading, reading, computing, rendering), best of ``--repeat``;
- warm: ``xr_agreement.cli.main`` called again in this process (reading, computing and
  rendering only), best of ``--repeat``.

Run from the repository root so that ``python -m`` takes this checkout's package:
``python benchmarks/bench_spans_cli.py --tasks 300``.

Measured on 2 shared cores, 300 tasks x 3 annotators (5,365 spans), text report, best of 3,
with the span family and readers of their branches (before the merge): on an idle machine
cold 1.90 s for the span report against 1.10 s for the classification report (ratio 1.72),
warm 0.212 s against 0.038 s; under load (about 2.5) cold 2.00 s against 1.73 s. Of the
cold difference, about 0.4 s is the first span_mla call (loading its numba kernels) and
0.5 s reading (the span reader's imports and its check of every region); of the warm span
run, reading takes about 0.2 s, the measures 0.14 s (the disputed regions half of it) and
rendering 0.04 s.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

LABELS = ("PER", "ORG", "LOC", "MISC")
WORDS = ("the", "of", "and", "met", "in", "a", "report", "said", "on", "for", "with", "city",
         "company", "minister", "river", "team", "new", "old", "north", "south")


def _task_text(rng, n_words=60):
    words = [str(rng.choice(WORDS)) for _ in range(n_words)]
    # entities: capitalised words at random places, one to three words long
    entities, position = [], 0
    while position < n_words - 3:
        position += int(rng.integers(3, 10))
        if position >= n_words - 3:
            break
        length = int(rng.integers(1, 4))
        for k in range(position, position + length):
            words[k] = words[k].capitalize() + "x"
        entities.append((position, position + length, str(rng.choice(LABELS))))
        position += length
    offsets, at = [], 0
    for word in words:
        offsets.append((at, at + len(word)))
        at += len(word) + 1
    return " ".join(words), [(offsets[a][0], offsets[b - 1][1], label)
                             for a, b, label in entities]


def write_exports(folder, n_tasks=300, n_annotators=3, seed=0):
    """(ner.json, ner_config.xml, choices.json, choices_config.xml) in ``folder``."""
    rng = np.random.default_rng(seed)
    ner, choices, number = [], [], 0
    for task in range(1, n_tasks + 1):
        text, entities = _task_text(rng)
        ner_annotations, choice_annotations = [], []
        for user in range(1, n_annotators + 1):
            number += 1
            cancelled = bool(rng.random() < 0.05)
            regions = []
            for start, end, label in entities:
                draw = rng.random()
                if draw < 0.08:
                    continue  # missed
                if draw < 0.14:
                    label = str(rng.choice(LABELS))  # another type
                elif draw < 0.20:
                    start = min(end - 1, start + 1)  # a shifted boundary
                regions.append({"id": f"r{number}-{len(regions)}", "from_name": "label",
                                "to_name": "text", "type": "labels", "origin": "manual",
                                "value": {"start": start, "end": end,
                                          "text": text[start:end], "labels": [label]}})
            ner_annotations.append({"id": number, "completed_by": user, "task": task,
                                    "was_cancelled": cancelled,
                                    "result": [] if cancelled else regions})
            chosen = [label for label in LABELS if rng.random() < 0.35] or [LABELS[0]]
            choice_annotations.append({
                "id": number, "completed_by": user, "task": task, "was_cancelled": cancelled,
                "result": [] if cancelled else [{
                    "id": f"c{number}", "from_name": "topic", "to_name": "text",
                    "type": "choices", "origin": "manual", "value": {"choices": chosen}}]})
        common = {"id": task, "data": {"text": text}, "drafts": [], "predictions": []}
        ner.append({**common, "annotations": ner_annotations})
        choices.append({**common, "annotations": choice_annotations})
    labels = "".join(f'<Label value="{label}"/>' for label in LABELS)
    options = "".join(f'<Choice value="{label}"/>' for label in LABELS)
    files = {
        "ner.json": json.dumps(ner),
        "ner_config.xml": f'<View><Labels name="label" toName="text">{labels}</Labels>'
                          '<Text name="text" value="$text"/></View>',
        "choices.json": json.dumps(choices),
        "choices_config.xml": '<View><Text name="text" value="$text"/><Choices name="topic" '
                              f'toName="text" choice="multiple">{options}</Choices></View>',
    }
    paths = []
    for name, content in files.items():
        path = os.path.join(folder, name)
        with open(path, "w") as stream:
            stream.write(content)
        paths.append(path)
    return paths


def cold(arguments, repeat) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "xr_agreement.cli", *arguments],
                              capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    return best


def warm(arguments, repeat) -> float:
    from xr_agreement.cli import main

    best = np.inf
    for _ in range(repeat + 1):  # the first call compiles and imports
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(arguments)
        best = min(best, time.perf_counter() - start)
        if code != 0:
            raise SystemExit(f"exit code {code} for {arguments}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--format", default="text", choices=["text", "markdown", "json",
                                                             "html"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        ner, ner_config, choices, choices_config = write_exports(folder, args.tasks,
                                                                 args.annotators)
        runs = {
            "span report (NER export)": ["report", ner, "--spans", "--labels", ner_config,
                                         "--format", args.format],
            "classification report (Choices)": ["report", choices, "--labels",
                                                choices_config, "--format", args.format],
        }
        times = {name: (cold(arguments, args.repeat), warm(arguments, args.repeat))
                 for name, arguments in runs.items()}
    print(f"{args.tasks} tasks x {args.annotators} annotators, Label Studio JSON, "
          f"{args.format} report, best of {args.repeat}")
    print(f"{'':34}{'cold (new process)':>20}{'warm (in process)':>20}")
    for name, (c, w) in times.items():
        print(f"{name:34}{c:>19.2f}s{w:>19.3f}s")
    (span_cold, span_warm), (class_cold, class_warm) = times.values()
    print(f"{'ratio span / classification':34}{span_cold / class_cold:>20.2f}"
          f"{span_warm / class_warm:>20.2f}")


if __name__ == "__main__":
    main()
