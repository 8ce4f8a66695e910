"""Random continua for gamma's expected disorder: the statistical sampler of Mathet et al.
(2015, section 5.2) as pygamma-agreement's ``StatisticalContinuumSampler`` implements it.

From the observed continuum it takes, over all annotators, the mean and (population)
standard deviation of the number of units per annotator, of the gaps (a 0, the distance
from each unit's start to the end of the same annotator's previous unit, which is negative
where they overlap, and each annotator's first start when above 0) and of the durations,
and the frequency of each label. A sampled continuum gives each annotator in turn
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


def parameters(annotator, start, end, durations, label, n_annotators: int,
               n_labels: int) -> SamplerParameters:
    """The sampler's laws from the units of one continuum (offsets already laid end to
    end; ``durations`` given apart, exact where the offsets are too large for float64)."""
    order = np.lexsort((end, start, annotator))
    annotator, start, end = annotator[order], start[order], end[order]
    counts = np.bincount(annotator, minlength=n_annotators)
    same = annotator[1:] == annotator[:-1]
    gaps = (start[1:] - end[:-1])[same]
    firsts = np.flatnonzero(np.r_[True, ~same]) if annotator.size else np.zeros(0, np.int64)
    first_starts = start[firsts]
    gaps = np.concatenate([[0.0], gaps, first_starts[first_starts > 0]]).astype(np.float64)
    durations = np.asarray(durations, dtype=np.float64)
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
            starts.append(ends_here - durations)
            ends.append(ends_here)
            labels.append(rng.choice(params.label_weights.size, size=n,
                                     p=params.label_weights))
            annotators.append(np.full(n, a, dtype=np.int64))
            blocks.append(np.full(n, b, dtype=np.int64))
            drawn += n
    return (np.concatenate(blocks), np.concatenate(annotators), np.concatenate(starts),
            np.concatenate(ends), np.concatenate(labels).astype(np.int64))
