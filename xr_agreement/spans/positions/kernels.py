"""Numba kernels of position-level span agreement: the sweep over span boundaries and the
filling of the position array. No xarray in this module.

Codes: ``group = document * n_labels + label``; positions are whole units of offset
(``start``, ``end`` half-open, in units).
"""

from __future__ import annotations

import numpy as np

from ..._core.jit import njit


@njit(cache=True, nogil=True)
def sweep(event_group, event_position, event_annotator, event_step, n_annotators, n_labels,
          document_label):
    """Per (document, label): the sums over its positions of ``x`` and ``x**2``, ``x`` the
    number of annotators whose spans of the label cover the position.

    The events (a span's start with step +1, its end with step -1) come sorted by group, then
    position. Between two consecutive event positions ``x`` is constant, so a run of
    ``run`` positions adds ``run * x`` and ``run * x**2``: the cost is in the events, not in
    the positions. ``cover[a]`` counts the spans of annotator ``a`` open at the current
    position; ``x`` counts the annotators with ``cover[a] > 0``, so an annotator's
    overlapping or touching spans of one label cover a position once. The order of events
    at one position does not matter: ``x`` is read only when the position moves on.

    Writes ``document_label[document, label] = (sum x, sum x**2)`` for the groups that have
    events (others keep what they hold). Returns the number of groups whose coverage did not
    close (a span ending before it starts; 0 for a valid table).
    """
    cover = np.zeros(n_annotators, np.int64)
    n_events = event_group.shape[0]
    unclosed = 0
    i = 0
    while i < n_events:
        group = event_group[i]
        x = 0
        previous = event_position[i]
        positives = 0
        squares = 0
        while i < n_events and event_group[i] == group:
            position = event_position[i]
            if position > previous:
                run = position - previous
                positives += run * x
                squares += run * x * x
                previous = position
            a = event_annotator[i]
            before = cover[a]
            cover[a] = before + event_step[i]
            if before == 0 and cover[a] > 0:
                x += 1
            elif before > 0 and cover[a] == 0:
                x -= 1
            i += 1
        if x != 0:
            unclosed += 1
            cover[:] = 0
        document_label[group // n_labels, group % n_labels, 0] = positives
        document_label[group // n_labels, group % n_labels, 1] = squares
    return unclosed


@njit(cache=True, nogil=True)
def fill_positions(values, document_start, document, annotator, label, start, end):
    """Set ``values[document_start[d] + p, a, j] = 1`` for every position ``p`` of every
    span (d, a, j, start, end); ``values`` (positions, annotators, labels) holds 0 (or NaN
    for unannotated documents, which hold no span) elsewhere."""
    for s in range(document.shape[0]):
        base = document_start[document[s]]
        a = annotator[s]
        j = label[s]
        for p in range(base + start[s], base + end[s]):
            values[p, a, j] = 1
