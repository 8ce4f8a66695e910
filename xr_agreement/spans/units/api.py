"""Span F1 between annotators: :func:`span_f1`.

Counts first (matched pairs and spans per label and annotator pair, per document), then the
F1 values from them. Matching:

- ``exact``: a span of one annotator and one of the other with the same document, label,
  start and end (an annotator holds a span at most once: the table refuses doubles), found
  by one join of the spans on those four keys;
- ``overlap``: spans of the same document and label that share a position, each matched at
  most once. The spans of a (document, label) are cut into clusters (maximal chains of
  overlapping spans of any annotator): two overlapping spans are always in one cluster, so
  a maximum matching is the union of the clusters' maximum matchings. A cluster where each
  annotator has one span needs no search (a pair matches when its two spans overlap: one
  join); the others are solved pair by pair with ``scipy.optimize.linear_sum_assignment``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import xarray as xr

from ..._core.dataset import reasons_as_coordinates
from ..table import span_arrays
from . import variables as v

MATCHES = tuple(v.MATCH_RULES)


def _exact_matches(frame: pd.DataFrame) -> pd.DataFrame:
    """(document, label, first, second) of every matched pair, first < second (codes)."""
    pairs = frame.merge(frame, on=["document", "label", "start", "end"])
    pairs = pairs[pairs.annotator_x < pairs.annotator_y]
    return pd.DataFrame({"document": pairs.document.to_numpy(),
                         "label": pairs.label.to_numpy(),
                         "first": pairs.annotator_x.to_numpy(),
                         "second": pairs.annotator_y.to_numpy()})


def _clusters(frame: pd.DataFrame) -> np.ndarray:
    """Cluster number of each span of ``frame`` (sorted by document, label, start): a new
    cluster starts at a new (document, label) or at a span starting at or after the largest
    end so far (so touching spans fall apart, as they share no position)."""
    group = frame.document.to_numpy() * (frame.label.max() + 1) + frame.label.to_numpy()
    reach = pd.Series(frame.end.to_numpy()).groupby(group).cummax()
    previous = reach.groupby(group).shift(1).to_numpy()
    new = np.isnan(previous) | (frame.start.to_numpy() >= previous)
    new[0] = True
    return np.cumsum(new) - 1


def _maximum_matching(first: np.ndarray, second: np.ndarray) -> int:
    """Size of a maximum one-to-one matching between two annotators' spans (rows of
    (start, end)) where an edge is a positive overlap; among maximum matchings the
    assignment maximises the total overlap (the rule attrs['matching'] states; the count
    does not depend on it)."""
    overlap = (np.minimum(first[:, None, 1], second[None, :, 1])
               - np.maximum(first[:, None, 0], second[None, :, 0]))
    edge = overlap > 0
    if not edge.any():
        return 0
    if len(first) == 1 or len(second) == 1:
        return 1
    from scipy.optimize import linear_sum_assignment  # scipy loads only when needed

    # weight 1 per matched pair plus its overlap scaled below 1 in total: every matching
    # with more pairs outweighs every matching with fewer, whatever the overlaps
    share = np.where(edge, overlap, 0).astype(np.float64)
    weight = np.where(edge, 1.0 + share / (2.0 * share.sum()), 0.0)
    rows, columns = linear_sum_assignment(weight, maximize=True)
    return int(edge[rows, columns].sum())


def _overlap_matches(frame: pd.DataFrame) -> pd.DataFrame:
    """(document, label, first, second) of every matched pair, first < second."""
    frame = frame.sort_values(["document", "label", "start", "end"], kind="stable")
    frame = frame.reset_index(drop=True)
    frame["cluster"] = _clusters(frame)
    size = frame.groupby("cluster").annotator.transform("size")
    distinct = frame.groupby("cluster").annotator.transform("nunique")
    frame = frame[distinct >= 2]  # a cluster of one annotator matches nothing
    simple = (size == distinct)[frame.index]
    out = []
    # one span per annotator: a pair matches when its two spans overlap
    one = frame[simple.to_numpy()]
    pairs = one.merge(one, on="cluster")
    pairs = pairs[(pairs.annotator_x < pairs.annotator_y)
                  & (pairs.start_x < pairs.end_y) & (pairs.start_y < pairs.end_x)]
    out.append(pd.DataFrame({"document": pairs.document_x.to_numpy(),
                             "label": pairs.label_x.to_numpy(),
                             "first": pairs.annotator_x.to_numpy(),
                             "second": pairs.annotator_y.to_numpy(),
                             "count": np.ones(len(pairs), np.int64)}))
    # an annotator with several spans in the cluster: a matching per pair (plain arrays:
    # pandas' selection per cluster cost 1 ms a cluster, most of the call)
    rows = []
    several = frame[~simple.to_numpy()].sort_values(["cluster", "annotator"], kind="stable")
    cluster, annotator = several.cluster.to_numpy(), several.annotator.to_numpy()
    document, label = several.document.to_numpy(), several.label.to_numpy()
    bounds = np.column_stack([several.start.to_numpy(), several.end.to_numpy()])
    cuts = np.flatnonzero(np.diff(cluster)) + 1
    starts = np.r_[0, cuts] if len(cluster) else np.zeros(0, np.int64)
    for first, last in zip(starts, np.r_[cuts, len(cluster)]):
        who = annotator[first:last]
        edges = np.r_[0, np.flatnonzero(np.diff(who)) + 1, len(who)]
        sides = {int(who[edges[k]]): bounds[first + edges[k]:first + edges[k + 1]]
                 for k in range(len(edges) - 1)}
        for a, b in itertools.combinations(sorted(sides), 2):
            count = _maximum_matching(sides[a], sides[b])
            if count:
                rows.append((int(document[first]), int(label[first]), a, b, count))
    out.append(pd.DataFrame(rows, columns=["document", "label", "first", "second", "count"],
                            dtype=np.int64))
    return pd.concat(out, ignore_index=True)


def _ratio(matched, spans):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(spans > 0, 2.0 * matched / np.maximum(spans, 1), np.nan)


def _nan_mean(values, axis):
    defined = ~np.isnan(values)
    count = defined.sum(axis=axis)
    total = np.where(defined, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def span_f1(table: xr.Dataset, match: str = "exact") -> xr.Dataset:
    """Pairwise F1 between annotators over spans, per label, per pair, per document.

    For a pair of annotators and a label, only the documents both annotated count. Their
    spans of the label are matched one to one (``match``); F1 is ``2 n_matched /
    n_spans`` with ``n_spans`` the spans of both annotators there: Hripcsak & Rothschild's
    (2005) F-measure between two annotators, which is symmetric (either may be taken as the
    reference). Where a pair has no span at all the F1 is 0/0: NaN, with the reason beside
    it (never 1.0). Coarser values are micro averages (counts summed) and macro averages
    (means of the defined label values).

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``).
    match : {"exact", "overlap"}
        ``"exact"``: same document, start, end and label. ``"overlap"``: same document and
        label and at least one shared position (touching spans do not overlap), each span
        matched at most once by a maximum matching (most matched pairs; ties by the
        largest total overlap).

    Returns
    -------
    xarray.Dataset
        Dims ``label``, ``annotator_1``, ``annotator_2`` and ``document`` (with the ids as
        coordinates). ``label_pair_f1``, ``label_pair_n_matched``, ``label_pair_n_spans``
        (label x pair); ``pair_f1`` (micro over labels), ``pair_macro_f1``,
        ``pair_n_matched``, ``pair_n_spans``, ``pair_n_documents``; ``label_f1``,
        ``label_n_matched``, ``label_n_spans`` (micro over pairs); ``f1`` (micro over pairs
        and labels), ``macro_f1`` (mean of the defined ``label_f1``), ``mean_pair_f1``
        (mean of the defined ``pair_f1``, each unordered pair once), ``n_matched``,
        ``n_spans``; ``document_f1``, ``document_n_matched``, ``document_n_spans`` (micro
        over pairs and labels in each document); an ``<level>_undefined_reason`` beside
        each F1 (empty where defined). Pair matrices are symmetric with NaN (F1) or 0
        (matched and spans) on the diagonal (``pair_n_documents`` holds there the
        documents the annotator annotated). Corpus and label sums take each unordered pair once.
        Attrs: ``match``, ``matching`` (the rule), ``reference``, ``missing_data``,
        ``n_documents``, ``n_annotators``, ``n_labels``.

    Raises
    ------
    ValueError
        ``match`` is not ``"exact"`` or ``"overlap"``; the table is not a span table.

    Examples
    --------
    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 7, "LOC"), ("d1", "bob", 0, 7, "LOC"),
    ...      ("d1", "ann", 12, 30, "ORG"), ("d1", "bob", 14, 30, "ORG")],
    ...     lengths={"d1": 40})
    >>> exact = xr_agreement.spans.span_f1(table, "exact")
    >>> float(exact.f1), float(exact.pair_f1.sel(annotator_1="ann", annotator_2="bob"))
    (0.5, 0.5)
    >>> float(xr_agreement.spans.span_f1(table, "overlap").f1)
    1.0
    >>> exact.label_f1.to_series().to_dict()
    {'LOC': 1.0, 'ORG': 0.0}
    """
    if match not in MATCHES:
        raise ValueError(f"match must be one of {MATCHES}, got {match!r}")
    arrays = span_arrays(table)
    n_documents, n_annotators = arrays.annotated.shape
    n_labels = len(arrays.label_ids)
    annotated = arrays.annotated

    frame = pd.DataFrame({"document": arrays.document, "annotator": arrays.annotator,
                          "label": arrays.label, "start": arrays.start, "end": arrays.end})
    if len(frame) == 0:
        matches = pd.DataFrame({k: np.zeros(0, np.int64)
                                for k in ("document", "label", "first", "second", "count")})
    elif match == "exact":
        matches = _exact_matches(frame)
        matches["count"] = 1
    else:
        matches = _overlap_matches(frame)

    # matched pairs per label and pair (symmetric), per document
    label_pair_n_matched = np.zeros((n_labels, n_annotators, n_annotators), np.int64)
    count = matches["count"].to_numpy(np.int64)
    first, second = matches["first"].to_numpy(np.int64), matches["second"].to_numpy(np.int64)
    label = matches["label"].to_numpy(np.int64)
    np.add.at(label_pair_n_matched, (label, first, second), count)
    label_pair_n_matched += label_pair_n_matched.transpose(0, 2, 1)
    document_n_matched = np.bincount(matches["document"].to_numpy(np.int64), weights=count,
                                     minlength=n_documents).astype(np.int64)

    # spans per label and pair: a span of a on document d counts for each b who annotated d
    counted = np.zeros((n_labels, n_annotators, n_annotators), np.int64)
    np.add.at(counted, (arrays.label, arrays.annotator),
              annotated[arrays.document].astype(np.int64))
    label_pair_n_spans = counted + counted.transpose(0, 2, 1)
    diagonal = np.eye(n_annotators, dtype=bool)
    label_pair_n_spans[:, diagonal] = 0
    label_pair_n_matched[:, diagonal] = 0
    n_readers = annotated.sum(axis=1)
    document_n_spans = np.bincount(arrays.document, weights=n_readers[arrays.document] - 1,
                                   minlength=n_documents).astype(np.int64)
    pair_n_documents = annotated.T.astype(np.int64) @ annotated.astype(np.int64)

    label_pair_f1 = _ratio(label_pair_n_matched, label_pair_n_spans)
    pair_n_matched = label_pair_n_matched.sum(axis=0)
    pair_n_spans = label_pair_n_spans.sum(axis=0)
    pair_f1 = _ratio(pair_n_matched, pair_n_spans)
    pair_macro_f1 = _nan_mean(label_pair_f1, axis=0)
    upper = np.triu(np.ones((n_annotators, n_annotators), bool), k=1)
    label_n_matched = label_pair_n_matched[:, upper].sum(axis=1)
    label_n_spans = label_pair_n_spans[:, upper].sum(axis=1)
    label_f1 = _ratio(label_n_matched, label_n_spans)
    n_matched, n_spans = label_n_matched.sum(), label_n_spans.sum()
    f1 = _ratio(n_matched, n_spans)
    macro_f1 = _nan_mean(label_f1, axis=0)
    mean_pair_f1 = _nan_mean(pair_f1[upper], axis=0)
    document_f1 = _ratio(document_n_matched, document_n_spans)

    # why each NaN
    shared = pair_n_documents > 0
    pair_reason = np.where(diagonal, v.SAME_ANNOTATOR, np.where(
        ~shared, v.NO_SHARED_DOCUMENT, np.where(pair_n_spans == 0, v.NO_SPANS, "")))
    label_pair_reason = np.where(
        diagonal, v.SAME_ANNOTATOR, np.where(~shared, v.NO_SHARED_DOCUMENT, np.where(
            label_pair_n_spans == 0, v.NO_LABEL_SPANS, "")))
    any_pair = bool((shared & ~diagonal).any())
    label_reason = np.where(label_n_spans == 0, v.NO_LABEL_SPANS_ANYWHERE if any_pair
                            else v.NO_PAIR, "")
    reason = "" if n_spans > 0 else (v.NO_SPANS_ANYWHERE if any_pair else v.NO_PAIR)
    document_reason = np.where(n_readers < 2, v.FEWER_THAN_TWO, np.where(
        document_n_spans == 0, v.NO_DOCUMENT_SPANS, ""))

    pair, label_pair = ("annotator_1", "annotator_2"), ("label", "annotator_1", "annotator_2")
    values = {
        "label_pair_f1": (label_pair, label_pair_f1),
        "label_pair_n_matched": (label_pair, label_pair_n_matched),
        "label_pair_n_spans": (label_pair, label_pair_n_spans),
        "label_pair_undefined_reason": (label_pair, label_pair_reason),
        "pair_f1": (pair, pair_f1),
        "pair_macro_f1": (pair, pair_macro_f1),
        "pair_n_matched": (pair, pair_n_matched),
        "pair_n_spans": (pair, pair_n_spans),
        "pair_n_documents": (pair, pair_n_documents),
        "pair_undefined_reason": (pair, pair_reason),
        "label_f1": ("label", label_f1),
        "label_n_matched": ("label", label_n_matched),
        "label_n_spans": ("label", label_n_spans),
        "label_undefined_reason": ("label", label_reason),
        "f1": ((), f1),
        "macro_f1": ((), macro_f1),
        "mean_pair_f1": ((), mean_pair_f1),
        "n_matched": ((), np.int64(n_matched)),
        "n_spans": ((), np.int64(n_spans)),
        "undefined_reason": ((), np.array(reason)),
        "document_f1": ("document", document_f1),
        "document_n_matched": ("document", document_n_matched),
        "document_n_spans": ("document", document_n_spans),
        "document_undefined_reason": ("document", document_reason),
    }
    data_vars = {}
    for name, (dims, value) in values.items():
        long_name, symbol, description = v.VARIABLES[name]
        attrs = {"long_name": long_name, "description": description}
        if symbol:
            attrs["symbol"] = symbol
        data_vars[name] = xr.Variable(dims, np.asarray(value), attrs)
    coords = {
        "annotator_1": ("annotator_1", arrays.annotator_ids),
        "annotator_2": ("annotator_2", arrays.annotator_ids),
        "label": ("label", arrays.label_ids),
        "document": ("document", arrays.document_ids),
    }
    attrs = {
        "match": match,
        "matching": v.MATCH_RULES[match],
        "reference": v.REFERENCE,
        "missing_data": ("each annotator pair is counted on the documents both annotated "
                         "only; a document an annotator did not annotate adds nothing to "
                         "that annotator's pairs"),
        "n_documents": n_documents,
        "n_annotators": n_annotators,
        "n_labels": n_labels,
    }
    return reasons_as_coordinates(xr.Dataset(data_vars, coords=coords, attrs=attrs))
