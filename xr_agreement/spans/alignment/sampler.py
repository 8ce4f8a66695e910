"""Random continua for gamma's expected disorder: the statistical sampler of Mathet et al.
(2015, section 5.2) as pygamma-agreement's ``StatisticalContinuumSampler`` implements it.

From the observed continuum it takes, over all annotators, the mean and (population)
standard deviation of the number of units per annotator, of the gaps (a 0, the distance
from each unit's start to the end of the same annotator's previous unit, which is negative
where they overlap, and each annotator's first start when above 0) and of the durations,
and the frequency of each label. On a table of several documents, the units per annotator
are counted over all of them, and the gaps are taken within each document (each starting
at 0, the stretch after an annotator's last unit uncounted, as pygamma leaves it
uncounted on its one continuum), so the laws do not depend on the documents' order. A sampled continuum gives each annotator in turn
``|int(N(count))|`` units (at least one for the first annotator if nothing was drawn before
it), laid one after the other from 0: each starts a gap ``N(gap)`` after the end of the
previous one and lasts ``|N(duration)|`` (drawn again while shorter than
:data:`MIN_DURATION`), with a label drawn by frequency.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# a sampled unit shorter than this is drawn again (pygamma's segments are no shorter); on
# a continuum whose own units are shorter, half the shortest (so the redraws end)
MIN_DURATION = 1e-6


class SamplerParameters(NamedTuple):
    count: tuple[float, float]
    gap: tuple[float, float]
    duration: tuple[float, float]
    label_weights: np.ndarray  # over the table's labels; 0 for a label no unit has
    min_duration: float


def parameters(document, annotator, start, end, label, n_annotators: int,
               n_labels: int) -> SamplerParameters:
    """The sampler's laws from the units of the documents that entered (offsets as the
    table has them: differences of integer offsets are taken exactly)."""
    order = np.lexsort((end, start, document, annotator))
    document, annotator = document[order], annotator[order]
    start, end = start[order], end[order]
    counts = np.bincount(annotator, minlength=n_annotators)
    same = (annotator[1:] == annotator[:-1]) & (document[1:] == document[:-1])
    gaps = (start[1:] - end[:-1])[same].astype(np.float64)
    firsts = np.flatnonzero(np.r_[True, ~same]) if annotator.size else np.zeros(0, np.int64)
    first_starts = start[firsts]
    gaps = np.concatenate([[0.0], gaps, first_starts[first_starts > 0].astype(np.float64)])
    durations = (end - start).astype(np.float64)
    weights = np.bincount(label, minlength=n_labels) / max(label.size, 1)
    return SamplerParameters(
        (float(counts.mean()), float(counts.std())), (float(gaps.mean()), float(gaps.std())),
        (float(durations.mean()), float(durations.std())), weights,
        min(MIN_DURATION, float(durations.min()) / 2) if durations.size else MIN_DURATION)


def sample(params: SamplerParameters, n_annotators: int, n_continua: int,
           rng: np.random.Generator):
    """``n_continua`` continua as blocks of one array of units: ``(block, annotator, start,
    end, label)``, in the order drawn."""
    blocks, annotators, starts, ends, labels = [], [], [], [], []
    for b in range(n_continua):
        drawn = 0
        for a in range(n_annotators):
            n = abs(int(rng.normal(*params.count)))
            if drawn == 0:
                n = max(1, n)
            if n == 0:
                continue
            gaps = rng.normal(*params.gap, size=n)
            durations = np.abs(rng.normal(*params.duration, size=n))
            short = durations < params.min_duration
            while short.any():
                durations[short] = np.abs(rng.normal(*params.duration, size=int(short.sum())))
                short = durations < params.min_duration
            ends_here = np.cumsum(gaps + durations)
            starts_here = ends_here - durations
            if not (ends_here > starts_here).all():
                raise ValueError(
                    f"gamma's sampled continua reach offsets (about {np.abs(ends_here).max():g}"
                    f") where float64 cannot hold units {params.duration[0]:g} long: the "
                    f"gaps are huge beside the units (an annotator's first start above 0 "
                    f"counts as a gap, as in pygamma-agreement). Give offsets from the "
                    f"start of each document's text, not from far before it")
            starts.append(starts_here)
            ends.append(ends_here)
            labels.append(rng.choice(params.label_weights.size, size=n,
                                     p=params.label_weights))
            annotators.append(np.full(n, a, dtype=np.int64))
            blocks.append(np.full(n, b, dtype=np.int64))
            drawn += n
    return (np.concatenate(blocks), np.concatenate(annotators), np.concatenate(starts),
            np.concatenate(ends), np.concatenate(labels).astype(np.int64))
