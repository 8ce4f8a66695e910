"""Kernels of unitizing alpha: sweeps over sorted unit boundaries, never over positions.

Every kernel reads units grouped and sorted by the caller (see :mod:`.api`): ``group`` holds
the first row of each group in ``start``/``end`` (``group[g]`` to ``group[g + 1]``), units of
one group do not overlap and are sorted by start.
"""

from __future__ import annotations

import numpy as np

from ..._core.jit import njit


def _pair_work(group, start, end, n_annotators, *rest):
    # every unit is swept once per other annotator
    return start.size * max(1, n_annotators)


@njit(cache=True, work=_pair_work)
def observed_2004(group, start, end, n_annotators, n_labels):
    """Per label, the sum over annotator pairs of Krippendorff's distances between the
    annotators' segments of that label (DKPro's ``calculateObservedCategoryDisagreement``
    before its normalisation): ``(b1 - b2)**2 + (e1 - e2)**2`` for every two overlapping
    units, ``l**2`` for a unit that overlaps no unit of the other annotator (it lies in a
    gap), nothing for gaps against gaps or a unit against a gap it does not lie in.

    ``group`` indexes (label, annotator) groups as ``label * n_annotators + annotator``.
    """
    totals = np.zeros(n_labels, dtype=np.float64)
    for label in range(n_labels):
        for a1 in range(n_annotators):
            g1 = label * n_annotators + a1
            for a2 in range(a1 + 1, n_annotators):
                g2 = label * n_annotators + a2
                totals[label] += _pair_distance(start, end, group[g1], group[g1 + 1],
                                                group[g2], group[g2 + 1])
    return totals


@njit(cache=True)
def _pair_distance(start, end, first1, stop1, first2, stop2):
    """Two annotators' units of one label, each sorted and non-overlapping: a two-pointer
    walk finds every overlapping pair in O(n1 + n2)."""
    total = 0.0
    i, j = first1, first2
    # whether the current unit of each side has met an overlapping unit of the other side
    met1 = False
    met2 = False
    while i < stop1 and j < stop2:
        s1, e1, s2, e2 = start[i], end[i], start[j], end[j]
        if e1 <= s2:  # unit i ends before unit j: no later unit of side 2 can reach it
            if not met1:
                total += float(e1 - s1) * float(e1 - s1)
            i += 1
            met1 = False
        elif e2 <= s1:
            if not met2:
                total += float(e2 - s2) * float(e2 - s2)
            j += 1
            met2 = False
        else:
            db = float(s1 - s2)
            de = float(e1 - e2)
            total += db * db + de * de
            met1 = True
            met2 = True
            if e1 <= e2:
                i += 1
                met1 = False
            else:
                j += 1
                met2 = False
    while i < stop1:
        if not met1:
            total += float(end[i] - start[i]) * float(end[i] - start[i])
        i += 1
        met1 = False
    while j < stop2:
        if not met2:
            total += float(end[j] - start[j]) * float(end[j] - start[j])
        j += 1
        met2 = False
    return total


def _gaps_work(group, start, end, n_annotators, n_labels, document_start, document_end):
    # every document is visited once per label and annotator
    return start.size + n_labels * n_annotators * document_start.size


@njit(cache=True, work=_gaps_work)
def gaps_2004(group, start, end, n_annotators, n_labels, document_start, document_end):
    """The gaps of every (label, annotator) segmentation: the stretches of each document that
    no unit of that label by that annotator covers. A gap ends at a document's boundary.

    Returns the gap lengths (int64) and ``gap_group`` (first gap of each label, as
    ``group`` indexes units). Documents and units are in continuum order."""
    n_documents = document_start.size
    n_gaps = n_labels * n_annotators * n_documents + start.size  # an upper bound
    lengths = np.empty(n_gaps, dtype=np.int64)
    gap_group = np.zeros(n_labels + 1, dtype=np.int64)
    count = 0
    for label in range(n_labels):
        for annotator in range(n_annotators):
            g = label * n_annotators + annotator
            row, stop = group[g], group[g + 1]
            for d in range(n_documents):
                position = document_start[d]
                while row < stop and start[row] < document_end[d]:
                    if start[row] > position:
                        lengths[count] = start[row] - position
                        count += 1
                    position = end[row]
                    row += 1
                if document_end[d] > position:
                    lengths[count] = document_end[d] - position
                    count += 1
        gap_group[label + 1] = count
    return lengths[:count], gap_group


@njit(cache=True)
def expected_2004(label_group, start, end, gap_lengths, gap_group, n_labels):
    """Per label, the numerator of Krippendorff's expected disagreement (DKPro's
    ``calculateExpectedCategoryDisagreement`` before ``2 / L`` and its denominator):

        sum over units u of the label [ (N - 1) (2 l**3 - 3 l**2 + l) / 3
                                        + l**2 sum over gaps g with g >= l of (g - l + 1) ]

    with ``N`` the label's units and ``l`` the unit's length; also ``sum l (l - 1)``.
    The gaps of each label are sorted here, so each unit's sum over gaps is a binary search
    and two suffix sums: O((units + gaps) log gaps) per label."""
    numerator = np.zeros(n_labels, dtype=np.float64)
    squared = np.zeros(n_labels, dtype=np.float64)
    for label in range(n_labels):
        first, stop = label_group[label], label_group[label + 1]
        n_units = stop - first
        gaps = np.sort(gap_lengths[gap_group[label]:gap_group[label + 1]])
        n_gaps = gaps.size
        # suffix sums: gaps_from[k] = sum of gaps[k:], as float (sums of lengths can be large)
        gaps_from = np.zeros(n_gaps + 1, dtype=np.float64)
        for k in range(n_gaps - 1, -1, -1):
            gaps_from[k] = gaps_from[k + 1] + float(gaps[k])
        for row in range(first, stop):
            length = float(end[row] - start[row])
            squared[label] += length * (length - 1.0)
            term = (n_units - 1.0) * (2.0 * length ** 3 - 3.0 * length ** 2 + length) / 3.0
            k = np.searchsorted(gaps, end[row] - start[row])  # first gap >= l
            fitting = n_gaps - k
            term += length * length * (gaps_from[k] - (length - 1.0) * fitting)
            numerator[label] += term
    return numerator, squared


def _coincidence_work(group, start, end, tag, n_tags):
    return start.size * max(1, group.size - 1)


@njit(cache=True, work=_coincidence_work)
def coincidences_2016(group, start, end, tag, n_tags):
    """Observed coincidences of Krippendorff et al. (2016) between every two annotators'
    tilings of the continuum: ``o[c, k] = 1 / (m - 1) sum over ordered pairs of annotators
    of sum |s1 & s2|`` over a segment ``s1`` tagged ``c`` of the first and ``s2`` tagged
    ``k`` of the second. ``group`` indexes annotators; each annotator's segments (units and
    gaps, tag ``n_tags - 1`` for a gap) tile the continuum in order, so a merge walk visits
    every intersecting pair once."""
    n_annotators = group.size - 1
    observed = np.zeros((n_tags, n_tags), dtype=np.float64)
    for a1 in range(n_annotators):
        for a2 in range(a1 + 1, n_annotators):
            i, stop1 = group[a1], group[a1 + 1]
            j, stop2 = group[a2], group[a2 + 1]
            while i < stop1 and j < stop2:
                low = max(start[i], start[j])
                high = min(end[i], end[j])
                if high > low:
                    observed[tag[i], tag[j]] += high - low
                    observed[tag[j], tag[i]] += high - low
                if end[i] <= end[j]:
                    i += 1
                else:
                    j += 1
    if n_annotators > 1:
        observed /= n_annotators - 1
    return observed


@njit(cache=True)
def tiling_2016(group, start, end, label, document_start, document_end, n_labels):
    """Each annotator's segmentation of the continuum: its units (tagged with their label)
    and the gaps between them (tag ``n_labels``), in order. ``group`` indexes annotators;
    an annotator's units are sorted by start and do not overlap. Gaps are not cut at
    documents' boundaries: this coefficient counts a gap by its length alone.

    Returns the segments' starts, ends, tags, and their first row per annotator."""
    n_annotators = group.size - 1
    begin = document_start[0] if document_start.size else 0.0
    finish = document_end[-1] if document_end.size else 0.0
    size = 2 * start.size + n_annotators
    segment_start = np.empty(size, dtype=np.float64)
    segment_end = np.empty(size, dtype=np.float64)
    segment_tag = np.empty(size, dtype=np.int64)
    segment_group = np.zeros(n_annotators + 1, dtype=np.int64)
    count = 0
    for annotator in range(n_annotators):
        position = begin
        for row in range(group[annotator], group[annotator + 1]):
            if start[row] > position:
                segment_start[count] = position
                segment_end[count] = start[row]
                segment_tag[count] = n_labels
                count += 1
            segment_start[count] = start[row]
            segment_end[count] = end[row]
            segment_tag[count] = label[row]
            count += 1
            position = end[row]
        if finish > position:
            segment_start[count] = position
            segment_end[count] = finish
            segment_tag[count] = n_labels
            count += 1
        segment_group[annotator + 1] = count
    return segment_start[:count], segment_end[:count], segment_tag[:count], segment_group
