"""Record pygamma-agreement's values on small continua, for tests/test_gamma_oracle.py.

Run in a separate environment (pygamma-agreement is no dependency of the project):

    python -m venv /tmp/pg-venv && /tmp/pg-venv/bin/pip install pygamma-agreement
    /tmp/pg-venv/bin/python tests/data/gamma/make_values.py

Writes tests/data/gamma/pygamma_values.json: per continuum its units (annotator, start, end,
category), the dissimilarity settings, pygamma's best-alignment disorder (float32 inside
pygamma) and its unitary alignments, and one ``compute_gamma`` run (statistical sampler,
``n_samples`` continua, numpy's global seed) with the sampled disorders.

Continua: pygamma's own test continuum (tests/test_alignement.py, a category matrix and
Delta_empty 0.5), its quickstart (docs/source/quickstart.rst), the paper's Alex / Paul /
Suzan example and other files of its tests/data, and small random continua.
"""

import json
import logging
import random
import sys
from pathlib import Path

import numpy as np
import pygamma_agreement as pa
from pyannote.core import Segment
from sortedcontainers import SortedSet

logging.disable(logging.WARNING)
HERE = Path(__file__).parent
N_SAMPLES = 30

# pygamma's tests/data files (annotator, category, start, end), copied here as records
PYGAMMA_FILES = {
    "AlexPaulSuzan": """Alex,1,2,9
Alex,2,11,17
Alex,5,24,30
Alex,6,32,36
Alex,6,36,44
Alex,7,44,60
Paul,1,2,9
Paul,3,11,17
Paul,5,19,25
Paul,6,32,44
Suzan,1,2,9
Suzan,4,11,17
Suzan,5,21,27
Suzan,6,32,36
Suzan,6,36,40
Suzan,6,40,44""",
    "example_figure10": """Joe,A,4,14
Joe,B,20,30
Jack,A,4,14
Jack,B,20,25
William,A,14,24
William,B,40,44""",
    "example_figure19": """Joe,A,0,20
Jack,A,0,5
Jack,A,5,10
Jack,A,10,15
Jack,A,15,20""",
    "annotation_dalton": """Joe,A,6,15
Joe,B,29,38
Joe,C,50,70
Jack,A,3,11
Jack,B,30,40
Jack,C,60,70
William,A,12,25
William,B,31,40
William,C,50,60
Averell,A,2,25
Averell,B,33,43
Averell,C,55,65""",
}


def from_records(text):
    units = []
    for line in text.split("\n"):
        annotator, category, start, end = line.split(",")
        units.append([annotator, float(start), float(end), category])
    return units


def continua():
    """(name, units, settings) with settings alpha, beta, empty_cost, categorical_empty_cost,
    matrix and its categories (alphabetical, as pygamma indexes them) or None."""
    liza = [["liza", 1, 5, "Carol"], ["liza", 6, 8, "Bob"], ["liza", 12, 18, "Carol"],
            ["liza", 7, 20, "Alice"], ["pierrot", 2, 6, "Carol"], ["pierrot", 7, 8, "Bob"],
            ["pierrot", 12, 18, "Alice"], ["pierrot", 8, 10, "Alice"],
            ["pierrot", 7, 19, "Jeremy"], ["hadrien", 1, 6, "Carol"],
            ["hadrien", 8, 10, "Alice"], ["hadrien", 7, 19, "Jeremy"],
            ["hadrien", 19, 20, "Alice"]]
    matrix = [[0, 0.5, 0.3, 0.7], [0.5, 0., 0.6, 0.4], [0.3, 0.6, 0., 0.7],
              [0.7, 0.4, 0.7, 0.]]
    yield "pygamma_test_alignment", liza, dict(
        alpha=3.0, beta=1.0, empty_cost=0.5, categorical_empty_cost=0.5, matrix=matrix,
        categories=sorted({u[3] for u in liza}))
    quickstart = [["Annotator1", 2.5, 4.3, "Maureen"], ["Annotator1", 4.6, 7.4, "Marvin"],
                  ["Annotator1", 8.2, 11.4, "Marvin"], ["Annotator1", 13.5, 16.0, "Robin"],
                  ["Annotator2", 2.3, 4.5, "Maureen"], ["Annotator2", 4.3, 7.2, "Marvin"],
                  ["Annotator2", 7.9, 11.2, "Robin"], ["Annotator2", 13.0, 16.1, "Maureen"],
                  ["Annotator3", 2.5, 4.3, "Maureen"], ["Annotator3", 4.6, 11.5, "Marvin"],
                  ["Annotator3", 13.1, 17.1, "Robin"]]
    yield "docs_quickstart", quickstart, dict(alpha=1.0, beta=2.0, empty_cost=1.0)
    yield "AlexPaulSuzan", from_records(PYGAMMA_FILES["AlexPaulSuzan"]), dict(
        alpha=3.0, beta=1.0, empty_cost=1.0)
    for name in ("example_figure10", "example_figure19", "annotation_dalton"):
        yield name, from_records(PYGAMMA_FILES[name]), dict(alpha=1.0, beta=1.0,
                                                             empty_cost=1.0)
    # the probes that settled the readings of the definitions (see tests/gamma_oracle.py):
    # empty-empty couples cost Delta; the default categorical part keeps Delta 1
    yield "probe_empty_pairs", [["a", 0, 10, "x"], ["b", 2, 10, "x"], ["c", 100, 110, "x"],
                                ["d", 200, 210, "x"]], dict(alpha=1.0, beta=1.0,
                                                            empty_cost=1.0)
    yield "probe_default_categorical", [["a", 0, 10, "x"], ["b", 0, 10, "y"]], dict(
        alpha=1.0, beta=1.0, empty_cost=2.0, categorical_empty_cost=1.0)
    yield "probe_mean_units", [["a", 0, 10, "x"], ["a", 20, 30, "x"], ["a", 40, 50, "x"],
                               ["b", 2, 10, "x"], ["b", 20, 30, "x"]], dict(
        alpha=1.0, beta=1.0, empty_cost=1.0)
    # two units 3.9 Delta apart are still aligned with 3 annotators (apart: 2 Delta; together
    # (3.9 + 2) Delta / 3 < 2 Delta): the pair threshold is (1 + C(n, 2)) Delta
    yield "probe_pair_threshold", [["a", 0, 10, "x"], ["b", 0, 10, "y"],
                                   ["c", 100, 110, "x"]], dict(alpha=1.0, beta=3.9,
                                                               empty_cost=1.0)
    rng = random.Random(20261203)
    for k, (n_annotators, n_units, settings) in enumerate([
            (2, 6, dict(alpha=1.0, beta=1.0, empty_cost=1.0)),
            (3, 7, dict(alpha=2.0, beta=1.0, empty_cost=1.0)),
            (3, 8, dict(alpha=1.0, beta=1.0, empty_cost=2.0, categorical_empty_cost=2.0)),
            (4, 8, dict(alpha=1.0, beta=0.5, empty_cost=1.0)),
            # pygamma's default combined dissimilarity: its categorical part keeps Delta 1
            (3, 7, dict(alpha=1.0, beta=1.0, empty_cost=0.5, categorical_empty_cost=1.0)),
    ]):
        annotators = [f"a{i}" for i in range(n_annotators)]
        units = [[annotators[i % n_annotators], 0, 0, ""] for i in range(n_units)]
        for u in units:
            u[1] = rng.randint(0, 30)
            u[2] = u[1] + rng.randint(1, 10)
            u[3] = rng.choice("XYZ")
        yield f"random_{k}", units, settings


def dissimilarity(settings):
    delta = settings["empty_cost"]
    cat_delta = settings.get("categorical_empty_cost", delta)
    if settings.get("matrix") is not None:
        cat = pa.PrecomputedCategoricalDissimilarity(
            SortedSet(settings["categories"]), np.array(settings["matrix"]),
            delta_empty=cat_delta)
    elif cat_delta == 1.0 and delta != 1.0:
        cat = None  # the default, whose categorical part keeps Delta 1
    else:
        cat = pa.AbsoluteCategoricalDissimilarity(delta_empty=cat_delta)
    return pa.CombinedCategoricalDissimilarity(alpha=settings["alpha"], beta=settings["beta"],
                                               delta_empty=delta, cat_dissim=cat)


def main():
    out = []
    for seed, (name, units, settings) in enumerate(continua(), start=1000):
        continuum = pa.Continuum()
        for annotator, start, end, category in units:
            continuum.add(annotator, Segment(start, end), category)
        best = continuum.get_best_alignment(dissimilarity(settings))
        np.random.seed(seed)
        result = continuum.compute_gamma(dissimilarity(settings), n_samples=N_SAMPLES)
        sampled = [float(a.disorder) for a in result.chance_alignments]
        out.append({
            "name": name,
            "units": units,
            "annotators": list(continuum.annotators),
            "settings": settings,
            "best_alignment_disorder": float(best.disorder),
            "best_alignment": [[[a, None if u is None else [u.segment.start, u.segment.end,
                                                          u.annotation]]
                                for a, u in ua.n_tuple] for ua in best.unitary_alignments],
            "gamma": {"seed": seed, "n_samples": N_SAMPLES, "sampler": "statistical",
                      "gamma": float(result.gamma),
                      "observed_disorder": float(result.observed_disorder),
                      "expected_disorder": float(result.expected_disorder),
                      "sampled_disorders": sampled},
        })
        print(name, out[-1]["best_alignment_disorder"], out[-1]["gamma"]["gamma"],
              file=sys.stderr)
    meta = {"pygamma_agreement": pa.__version__ if hasattr(pa, "__version__") else "0.5.9",
            "numpy": np.__version__, "continua": out}
    # one line per continuum: the file stays small and diffs by continuum
    lines = [json.dumps(c, separators=(",", ":")) for c in out]
    head = json.dumps({k: v for k, v in meta.items() if k != "continua"})[:-1]
    text = head + ', "continua": [\n' + ",\n".join(lines) + "\n]}\n"
    (HERE / "pygamma_values.json").write_text(text)


if __name__ == "__main__":
    main()
