"""Position-level span agreement: :func:`span_positions` (the decisions at every position),
:func:`span_mla` and :func:`span_alpha` (from the sweep's counts, never building positions).
"""

from __future__ import annotations

import os

import numpy as np
import xarray as xr

from ..._core.dataset import dimension_coordinates, is_reason
from ...alpha import HAMMING_DESCRIPTIONS, MULTI_LABEL_METRICS
from ...alpha import VARIABLES as ALPHA_VARIABLES
from ...alpha import alpha as _alpha
from ...alpha.api import hamming_alpha_from_counts
from ...mla import assemble, finish_counts, parse_baselines
from ...resampling.driver import check_options
from ...resampling.intervals import RESAMPLE_DIM, interval_variables
from . import kernels as _kernels
from .counts import (document_pairs, document_table, in_positions, label_counts_from_sums,
                     span_counts)
from .intervals import document_bootstrap

# the share of the machine's available memory span_positions may take
MEMORY_SHARE = 0.5

# the document level of span_mla, in place of MLA's item level (one value per position)
VARIABLES = {
    "document_observed": (
        "document observed agreement",
        "A_o,d",
        "agreeing share of the (annotator pair, label, position) comparisons in the document; "
        "NaN where fewer than two annotators annotated it (or it has no position)",
    ),
    "document_agreement": (
        "document agreement",
        "A_ml,d",
        "(A_o,d - A_e) / (1 - A_e) with the corpus baseline: a diagnostic relative to the "
        "corpus (which documents pull agreement down), not an independent reliability "
        "estimate",
    ),
}
RENAMED = {"item_observed": "document_observed", "item_agreement": "document_agreement"}

UNANNOTATED = ("an annotator who did not annotate a document made no decision there "
               "(missing, NaN): its positions count only the annotators who annotated it "
               "(Krippendorff's pairable values); a document annotated by fewer than two "
               "annotators adds no comparison")


def _available_bytes() -> int | None:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # not on this platform
        return None


def _check_size(n_positions: int, n_annotators: int, n_labels: int, itemsize: int,
                per_position: int = 0) -> None:
    """Refuse an array that would not fit; ``per_position`` the bytes of each position's
    coordinates and work arrays (they outweigh a uint8 array of few labels: counting the
    decisions alone let the process be killed for memory instead of raising)."""
    size = n_positions * (n_annotators * n_labels * itemsize + per_position)
    available = _available_bytes()
    if available is not None and size > MEMORY_SHARE * available:
        raise MemoryError(
            f"the position array and its coordinates would take {size / 2**30:.3g} GiB "
            f"({n_positions} positions x {n_annotators} annotators x {n_labels} labels, "
            f"{itemsize} byte(s) each, and {per_position} bytes of coordinates), more "
            f"than {MEMORY_SHARE:.0%} of the {available / 2**30:.3g} GiB available. span_mla "
            f"(table.agreement.mla()) and span_alpha with metric='hamming' compute from the "
            f"span boundaries and never build it; or use a coarser unit=")


def span_positions(table: xr.Dataset, unit=None) -> xr.DataArray:
    """The 0/1 decision of each annotator per label at every position of every document.

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``).
    unit : number, optional
        The offset of one position. Integer offsets (characters, tokens): one position per
        unit of offset by default (``unit`` None or 1). Real offsets (seconds): required,
        e.g. ``unit=0.01``; every start, end and length must be a whole number of units
        (to 1e-9 relative, and at most 1e-3 of a unit).

    Returns
    -------
    xarray.DataArray
        Dims (``position``, ``annotator``, ``label``): documents one after the other, each
        with ``length / unit`` positions. 1 where a span of the annotator with that label
        covers the position (overlapping or touching spans of one label cover it once), 0
        elsewhere, NaN where the annotator did not annotate the document; dtype uint8 when
        no value is missing, else float64. Coordinates ``annotator`` and ``label`` (the
        ids), and over ``position``: ``document`` (its id) and ``offset`` (the position's
        start offset). Every family then applies, with ``item="position"``.

    Raises
    ------
    ValueError
        Real offsets without ``unit``, an offset that is not a whole number of units (the
        message names the span or document), a span of a pair marked as not annotated.
    MemoryError
        The array would take more than half of the available memory (the message says how
        much; :func:`span_mla` never builds it).

    Examples
    --------
    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 3, "LOC"), ("d1", "bob", 1, 3, "LOC")], lengths={"d1": 4})
    >>> positions = xr_agreement.span_positions(table)
    >>> positions.sel(label="LOC").T.values
    array([[1, 1, 1, 0],
           [0, 1, 1, 0]], dtype=uint8)
    >>> positions.offset.values
    array([0, 1, 2, 3])
    >>> round(float(positions.agreement.mla(item="position").observed), 4)
    0.75
    """
    arrays, unit, start, end, lengths = in_positions(table, unit)
    n_documents, n_annotators = arrays.annotated.shape
    n_labels = len(arrays.label_ids)
    complete = bool(arrays.annotated.all())
    dtype = np.dtype(np.uint8 if complete else np.float64)
    n_positions = int(lengths.sum())
    # per position: its document (int64), offsets (arange, offset, offset * unit: 3 x 8),
    # the document id coordinate, the not-annotated mask (a bool per annotator)
    per_position = 32 + arrays.document_ids.dtype.itemsize + n_annotators
    _check_size(n_positions, n_annotators, n_labels, dtype.itemsize, per_position)
    document_start = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    position_document = np.repeat(np.arange(n_documents), lengths)
    values = np.zeros((n_positions, n_annotators, n_labels), dtype)
    if not complete:
        values[~arrays.annotated[position_document]] = np.nan
    _kernels.fill_positions(values, document_start, arrays.document, arrays.annotator,
                            arrays.label, start, end)
    offset = np.arange(n_positions, dtype=np.int64) - document_start[position_document]
    offset = offset * unit  # int stays int, a real unit gives real offsets
    positions = xr.DataArray(
        values, dims=("position", "annotator", "label"),
        coords={"document": ("position", arrays.document_ids[position_document]),
                "offset": ("position", offset),
                "annotator": arrays.annotator_ids, "label": arrays.label_ids},
        name="decisions",
        attrs={"long_name": "decision", "description": "1 where a span of the annotator with "
               "the label covers the position, 0 where none does, NaN where the annotator "
               "did not annotate the document", "unit": unit})
    positions.offset.attrs.update(long_name="offset", description="the position's start "
                                  f"offset in the document (positions are units of {unit})")
    positions.document.attrs.update(long_name="document", description="the document the "
                                    "position lies in")
    return positions


def _n_pairable_documents(counts) -> int:
    """Documents that hold a comparison: a position and two annotators who annotated it."""
    return int(((counts.deciders >= 2) & (counts.lengths > 0)).sum())


def _swept_counts(table, unit):
    """The sweep's counts of ``table``: (counts, the per-document table and its numbers of
    deciders, the corpus label counts (label, deciders, stat) that mla's one pass gives)."""
    counts = span_counts(table, unit)
    n_labels, n_annotators = _check_sizes(counts)
    rows, m_values = document_table(counts)
    label_counts = label_counts_from_sums(rows.sum(axis=0)[None], m_values, n_labels,
                                          n_annotators)[0]
    return counts, rows, m_values, label_counts


def _check_sizes(counts) -> tuple[int, int]:
    """(labels, annotators) of the table, refused below 1 label or 2 annotators (as
    :func:`xr_agreement.mla` refuses such decisions)."""
    n_labels = counts.document_label.shape[1]
    n_annotators = counts.arrays.annotated.shape[1]
    if n_annotators < 2:
        raise ValueError(f"span agreement needs at least 2 annotators; the table has "
                         f"{n_annotators} ({[str(a) for a in counts.arrays.annotator_ids]})")
    if n_labels < 1:
        raise ValueError("the span table has no label (no span and no labels=): pass "
                         "labels= to from_spans, the label universe the annotators chose from")
    return n_labels, n_annotators


def _attrs(counts, what: str) -> dict:
    n_documents = len(counts.lengths)
    annotated = counts.arrays.annotated
    return {
        "level": "position",
        "level_note": f"{what} at every position (one per unit of offset) of every "
        "document, computed from the span boundaries (the positions are never built): "
        "span agreement, not agreement on whole spans",
        "unit": counts.unit,
        "n_items": counts.n_positions,
        "n_positions": counts.n_positions,
        "n_documents": n_documents,
        "n_unannotated_pairs": int((~annotated).sum()),
        "unannotated": UNANNOTATED,
    }


def _document_coords(counts, *dims):
    arrays = counts.arrays
    ids = {"document": arrays.document_ids, "label": arrays.label_ids}
    return dimension_coordinates({dim: ids[dim] for dim in dims})


def _finish_mla(counts, label_counts, agreeing, pairs, names, single, coords):
    """The MLA Dataset (document level in place of the item level) from label counts
    (k, n + 1, 3) and per-document comparisons (D,)."""
    n_annotators = counts.arrays.annotated.shape[1]
    n_labels = label_counts.shape[-3]
    values = finish_counts(label_counts, agreeing, pairs, names)
    # positions, not documents, are MLA's items
    positions_missing = int((counts.lengths * (n_annotators - counts.deciders)).sum())
    values["n_missing_decisions"] = np.full(values["n_missing_decisions"].shape,
                                            n_labels * positions_missing)
    pairable = int(counts.lengths[counts.deciders >= 2].sum()) if n_labels else 0
    values["n_pairable_items"] = np.full(values["n_pairable_items"].shape, pairable)
    result = assemble(values, names, single, extra=[], item="document", label="label",
                      coords=coords, n_annotators=n_annotators, reasons=True)
    result = result.rename_vars(RENAMED)
    for name, (long_name, symbol, description) in VARIABLES.items():
        kept = {k: v for k, v in result[name].attrs.items() if k == "baseline"}
        result[name].attrs = {"long_name": long_name, "symbol": symbol,
                              "description": description, **kept}
    return result


def span_mla(table: xr.Dataset, baseline="F", *, unit=None, ci=None, n_resamples=1000,
             ci_method="percentile", seed=None, return_replicates=False,
             progress=None) -> xr.Dataset:
    """Multi-Label Agreement at every position of a span table, from the span boundaries.

    Every position (character, token, or ``unit`` of time) of every document is an item on
    which each annotator decides 0/1 per label: nested and overlapping spans of different
    labels are several labels at one position. The counts come from a sweep over the sorted
    start and end events of each (document, label) (O(spans log spans)); the positions are
    never built, and the values equal :func:`xr_agreement.mla` on
    ``span_positions(table, unit)`` (``item="position"``) on every corpus- and label-level
    variable.

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``).
    baseline : str or list of str, default "F"
        As for :func:`xr_agreement.mla`: "F", "AC1", "PB", a list of them, or "all".
    unit : number, optional
        The offset of one position (see :func:`span_positions`); required for real offsets.
    ci : float, optional
        Confidence level of bootstrap intervals that resample **documents** (positions of
        one document are not independent): every corpus- and label-level coefficient ``V``
        gains ``V_lower`` and ``V_upper``; attrs ``ci_resampling_unit`` is "document".
        Fewer than 2 documents annotated by two or more annotators: NaN bounds, and attrs
        ``ci_undefined_reason`` says why (the interval would have width 0).
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    ci_method : {"percentile", "bca"}, default "percentile"
        Percentile or BCa intervals (acceleration from the leave-one-document-out
        jackknife).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng``; the replicates draw
        ``rng.integers(0, n_documents, (n_resamples, n_documents))``.
    return_replicates : bool, default False
        Add ``V_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        Accepted for the common bootstrap signature; the document bootstrap is short and
        shows no bar.

    Returns
    -------
    xarray.Dataset
        The variables of :func:`xr_agreement.mla` at the corpus and label level, with
        ``n_pairable_items`` and ``n_missing_decisions`` counted in positions (x labels);
        in place of the item level the document level ``document_observed`` and
        ``document_agreement`` over ``document``. Attrs: ``level`` ("position"), ``unit``,
        ``n_positions`` (also ``n_items``), ``n_documents``, and how unannotated documents
        were treated (``unannotated``: missing, left out of the pairs). With several
        baselines ``baseline`` and ``baseline_definition`` are JSON text of their lists
        (as in :func:`xr_agreement.mla`; ``json.loads`` reads them back).

    Raises
    ------
    ValueError
        Not a span table, real offsets without ``unit`` or offsets that are not whole
        units, an unknown baseline, bad bootstrap options.

    Examples
    --------
    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 5, "PER"), ("d1", "bob", 0, 4, "PER"), ("d1", "bob", 6, 9, "LOC"),
    ...      ("d2", "ann", 2, 8, "LOC")],
    ...     lengths={"d1": 10, "d2": 8},
    ...     annotated=[("d1", "ann"), ("d1", "bob"), ("d2", "ann"), ("d2", "bob")])
    >>> result = xr_agreement.span_mla(table)
    >>> round(float(result.observed), 4), result.attrs["n_positions"]
    (0.7222, 18)
    >>> result.document_observed.values
    array([0.8  , 0.625])
    >>> positions = xr_agreement.span_positions(table)
    >>> round(float(positions.agreement.mla(item="position").agreement), 10) == round(
    ...     float(result.agreement), 10)
    True
    """
    names, single = parse_baselines(baseline)
    if ci is not None:
        ci, n_resamples, _, ci_method = check_options(ci, n_resamples, "item", ci_method,
                                                      seed, progress)
    counts, rows, m_values, label_counts = _swept_counts(table, unit)
    n_labels, n_annotators = label_counts.shape[0], label_counts.shape[1] - 1
    agreeing, pairs = document_pairs(counts)
    result = _finish_mla(counts, label_counts, agreeing, pairs, names, single,
                         _document_coords(counts, "document", "label"))
    result.attrs.update(_attrs(counts, "Multi-Label Agreement"))
    if ci is None:
        return result

    def finish(sums):
        R = sums.shape[0]
        replicate_counts = label_counts_from_sums(sums, m_values, n_labels, n_annotators)
        dummy = np.zeros((R, 1), np.int64)  # document values are not bootstrapped
        coords = [_document_coords(counts, "label"),
                  dimension_coordinates({RESAMPLE_DIM: np.arange(R)})]
        values = finish_counts(replicate_counts, dummy, dummy, names)
        return assemble(values, names, single, extra=[RESAMPLE_DIM], item="document",
                        label="label", coords=coords, n_annotators=n_annotators)

    return document_bootstrap(result, rows, finish,
                              variables=interval_variables(result, "document"), ci=ci,
                              n_resamples=n_resamples, ci_method=ci_method, seed=seed,
                              return_replicates=return_replicates,
                              n_pairable_documents=_n_pairable_documents(counts))


def _hamming_from_label_counts(label_counts, counts, extra_dims=(), extra_coords=None):
    """:func:`hamming_alpha_from_counts` of label counts (*extra, k, n + 1, 3)."""
    n_annotators = counts.arrays.annotated.shape[1]
    lead = label_counts.shape[:-3]
    dims = (*extra_dims, "label", "deciders", "stat")
    coords = {"label": counts.arrays.label_ids, "deciders": np.arange(n_annotators + 1),
              "stat": ["cells", "positives", "positives_squared"], **(extra_coords or {})}
    pairs = np.zeros((*lead, 1), np.int64)  # n_pairable_items is set apart
    data = xr.Dataset({"label_counts": (dims, label_counts),
                       "item_pairs": ((*extra_dims, "document"), pairs)}, coords=coords)
    return hamming_alpha_from_counts(data, "document", "label")


def span_alpha(table: xr.Dataset, metric="hamming", *, unit=None, ci=None, n_resamples=1000,
               ci_method="percentile", seed=None, progress=None) -> xr.Dataset:
    """Krippendorff's alpha at every position of a span table.

    "hamming" (the default) is computed from the sweep's counts, as :func:`span_mla` is, and
    equals :func:`xr_agreement.alpha` with ``metric="hamming"`` on
    ``span_positions(table, unit)`` (``item="position"``). The other metrics compare whole
    label sets ("jaccard", "masi", "masi_rounded", "nominal"): they build the position
    array (:func:`span_positions`, with its memory guard) and call
    :func:`xr_agreement.alpha` on it.

    Parameters
    ----------
    table : xarray.Dataset
        A span table.
    metric : str, default "hamming"
        "hamming", or a label-set metric of :func:`xr_agreement.alpha`.
    unit : number, optional
        The offset of one position (see :func:`span_positions`).
    ci : float, optional
        Confidence level of intervals that resample documents (metric "hamming" only):
        ``alpha``, its disagreements and the label-level values gain ``V_lower`` and
        ``V_upper`` (NaN, with attrs ``ci_undefined_reason``, from fewer than 2 documents
        annotated by two or more annotators).
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    ci_method : {"percentile", "bca"}, default "percentile"
        The bootstrap interval.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of the document draws.
    progress : bool, optional
        Accepted for the common bootstrap signature (no bar is shown).

    Returns
    -------
    xarray.Dataset
        The variables of :func:`xr_agreement.alpha` for the metric; for "hamming"
        ``n_pairable_items`` counts positions. Attrs as :func:`span_mla`'s (``level``,
        ``unit``, ``n_positions``, ``unannotated``).

    Raises
    ------
    ValueError
        As :func:`span_mla`; ``ci`` with a metric other than "hamming" (intervals over
        positions would be far too narrow, and the document bootstrap needs additive
        counts).
    MemoryError
        A set metric whose position array would not fit in memory.

    Examples
    --------
    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 5, "PER"), ("d1", "bob", 0, 4, "PER"), ("d1", "bob", 6, 9, "LOC")],
    ...     lengths={"d1": 10})
    >>> result = xr_agreement.span_alpha(table)
    >>> round(float(result.alpha), 4)
    0.4933
    >>> round(float(xr_agreement.span_alpha(table, "jaccard").alpha), 4)
    0.3821
    """
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a name, got {type(metric).__name__} {metric!r}")
    if metric != "hamming":
        if metric not in MULTI_LABEL_METRICS:
            raise ValueError(f"unknown metric {metric!r}; use 'hamming' or one of "
                             f"{sorted(set(MULTI_LABEL_METRICS) - {'hamming'})}")
        if ci is not None:
            raise ValueError(f"ci= with metric {metric!r}: intervals need the document "
                             f"bootstrap, which runs on the additive counts of "
                             f"metric='hamming' only (resampling positions would give "
                             f"intervals far too narrow)")
        counts_attrs = _attrs(span_counts(table, unit), f"Krippendorff's alpha ({metric})")
        positions = span_positions(table, unit)
        result = _alpha(positions, metric, item="position", ci=None)
        result.attrs.update(counts_attrs)
        return result
    if ci is not None:
        ci, n_resamples, _, ci_method = check_options(ci, n_resamples, "item", ci_method,
                                                      seed, progress)
    counts, rows, m_values, label_counts = _swept_counts(table, unit)
    n_labels, n_annotators = label_counts.shape[0], label_counts.shape[1] - 1
    result = _hamming_from_label_counts(label_counts, counts)
    pairable = int(counts.lengths[counts.deciders >= 2].sum()) if n_labels else 0
    result["n_pairable_items"] = ((), np.int64(pairable))
    for name in [*result.data_vars, *(name for name in result.coords if is_reason(name))]:
        long_name, symbol, description = ALPHA_VARIABLES[name]
        description = HAMMING_DESCRIPTIONS.get(name, description)
        result[name].attrs = {"long_name": long_name, **({"symbol": symbol} if symbol else {}),
                              "description": description}
    result["n_pairable_items"].attrs["description"] = (
        "positions with at least one (position, label) cell of 2 or more decisions")
    result.attrs = {"metric": "hamming", "metric_definition": MULTI_LABEL_METRICS["hamming"],
                    "n_annotators": n_annotators, "n_labels": n_labels,
                    **_attrs(counts, "Krippendorff's alpha (hamming)"),
                    "missing_data": "missing decisions left out per (position, label) cell "
                    "(Krippendorff's pairable values)",
                    "reference": "Krippendorff, Content Analysis (2004/2019), ch. 12"}
    if ci is None:
        return result
    variables = ["alpha", "observed_disagreement", "expected_disagreement", "label_alpha",
                 "label_observed_disagreement", "label_expected_disagreement",
                 "label_alpha_weight"]

    def finish(sums):
        R = sums.shape[0]
        replicate_counts = label_counts_from_sums(sums, m_values, n_labels, n_annotators)
        return _hamming_from_label_counts(replicate_counts, counts, (RESAMPLE_DIM,),
                                          {RESAMPLE_DIM: np.arange(R)})[variables]

    return document_bootstrap(result, rows, finish, variables=variables, ci=ci,
                              n_resamples=n_resamples, ci_method=ci_method, seed=seed,
                              return_replicates=False,
                              n_pairable_documents=_n_pairable_documents(counts))
