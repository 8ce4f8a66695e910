"""Krippendorff's alpha from pairable values, with missing data, on single-label ratings and
on multi-label label sets.

For every item with ``m_i >= 2`` ratings (the pairable items) and every ordered pair of
its ratings, alpha compares two distances:

- observed ``D_o = (1 / n..) sum_i sum_{a != b} delta(v_ia, v_ib) / (m_i - 1)``, the mean
  distance in the coincidence matrix;
- expected ``D_e = 1 / (n.. (n.. - 1)) sum_{u != w} delta(v_u, v_w)`` over all ordered pairs
  of distinct pairable values ``u, w`` of the corpus (pairs drawn without replacement);

``alpha = 1 - D_o / D_e``, where ``n..`` is the number of pairable values. Items with fewer
than two ratings are left out, which is how alpha handles missing data.

How each distance is computed without looping over all pairs of values:

- nominal: ``D_o`` from sum_c n_ic (n_ic - 1) per item, ``D_e`` from the pairable value
  counts ``n_c`` (one pass, integer counts);
- interval: ``sum_{a != b} (v_a - v_b)**2 = 2 m sum_a (v_a - mean)**2`` per item and the same
  identity over the pooled values: O(N n) time, O(V) memory however many distinct values;
- ordinal: Krippendorff's rank metric is the interval metric on mid-ranks
  ``r_c = sum_{g < c} n_g + n_c / 2`` of the pairable value frequencies, since
  ``sum_{g=c}^{k} n_g - (n_c + n_k) / 2 = r_k - r_c``;
- ratio and callables: pairs within each item, and ``D_e`` over pairs of *distinct* values
  weighted by their counts (O(V**2) time, O(V) memory; a callable is called V**2 times);
- Jaccard and MASI: label vectors are bit-packed and identical sets counted once; a
  distance depends only on ``(|s|, |t|, |s & t|)`` (a popcount, then a table look-up).
  ``D_o`` compares the sets within each item. ``D_e`` needs, over all pairs of pairable
  sets, the histogram of ``(|s|, |t|, |s & t|)``: for sparse sets it comes from the subsets
  of each distinct set (a pair sharing ``c`` labels shares ``C(c, r)`` subsets of size
  ``r``; binomial inversion gives the exact integer histogram, at a cost of
  ``sum_s 2**|s|``), otherwise from comparing every pair of distinct sets, weighted by
  their frequencies. Raw annotations are never compared pairwise across items;
- Hamming: additive over labels, from the per-label counts of
  :func:`xr_agreement._stats.hamming_counts` (missing cells allowed).

Uncertainty: single-label results carry Gwet's (2014) analytic standard error, from three
numbers per item (m_i, the within-item distance sum and sum_a sum_k n_k delta(c_a, k); one
kernel pass, see :func:`_gwet_alpha_variance`); ``ci=`` adds bootstrap intervals through
:mod:`xr_agreement.bootstrap`, from per-item coincidence contributions where the number of
distinct values allows.
"""

from __future__ import annotations

import functools
import math
import operator
import threading
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial

import numba
import numpy as np
import xarray as xr

from . import _kernels
from ._categorical import declared_categories, encode_ratings
from ._stats import _is_dask, hamming_counts
from ._validate import (
    check_annotators,
    check_binary_dtype,
    check_dataarray,
    check_dims,
    describe_position,
)
from .bootstrap import TableStatistic
from .kappa import _check_confidence, _check_population

# numba's parallel target (the threading layer) must not be entered from two threads at once
_PARALLEL_LOCK = threading.Lock()

SINGLE_LABEL_METRICS = {
    "nominal": "0 if the two values are equal, else 1",
    "ordinal": "Krippendorff's rank metric (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)**2 with n_g "
    "the pairable frequencies of the values in rank order",
    "interval": "(v_c - v_k)**2",
    "ratio": "((v_c - v_k) / (v_c + v_k))**2, 0 where v_c + v_k = 0; values must be >= 0",
}
MULTI_LABEL_METRICS = {
    "hamming": "share of labels on which the two label vectors differ (normalized Hamming); "
    "additive over labels, missing decisions allowed per cell",
    "jaccard": "1 - |s & t| / |s | t|; 0 for two empty sets",
    "masi": "1 - J(s, t) M(s, t) with Jaccard J and M = 1, 2/3, 1/3, 0 for identical, subset, "
    "overlapping, disjoint sets (Passonneau 2006); 0 for two empty sets",
    "masi_rounded": "MASI with M = 0.67 and 0.33 in place of 2/3 and 1/3, as nltk's "
    "masi_distance computed it before nltk PR #3695 (2026)",
    "nominal": "0 if the two label sets are equal, else 1",
}
SET_METRIC_IDS = {
    "jaccard": _kernels.DELTA_JACCARD,
    "masi": _kernels.DELTA_MASI,
    "masi_rounded": _kernels.DELTA_MASI_ROUNDED,
}

# Above this many distinct values the (V, V) coincidence matrix is not returned: its memory
# (times the item tasks below) would dominate, and nothing else needs it.
COINCIDENCE_LIMIT = 256
# Jaccard/MASI expected disagreement: a histogram of intersection sizes (one entry per
# subset of each distinct set) is used when it needs fewer than 1 / SUBSETS_PER_PAIR as many
# steps as comparing every pair of distinct sets.
SUBSETS_PER_PAIR = 4
# A callable distance is evaluated on every pair of distinct values: V**2 Python calls.
CALLABLE_LIMIT = 5000
# Fewer elements (or pairs) than this run on one thread.
PARALLEL_MIN_WORK = 1 << 21
# Integral ratings spanning at most this many integers are read as codes directly
# (interval and ratio; nominal and ordinal use COINCIDENCE_LIMIT).
INTEGER_SPAN_LIMIT = 1 << 12

VARIABLES = {
    "alpha": (
        "Krippendorff's alpha",
        "alpha",
        ("1 - D_o / D_e. NaN where D_e = 0 (every pairable value identical: there is no "
        "variation to be reliable about, 0/0) or where there are fewer than 2 pairable values"),
    ),
    "observed_disagreement": (
        "observed disagreement",
        "D_o",
        ("(1 / n..) sum_i sum_{a != b} delta(v_ia, v_ib) / (m_i - 1) over items with m_i >= 2 "
        "ratings: the mean distance in the coincidence matrix"),
    ),
    "expected_disagreement": (
        "expected disagreement",
        "D_e",
        ("mean distance over all ordered pairs of distinct pairable values (drawn without "
        "replacement): (1 / (n.. (n.. - 1))) sum_{c, k} n_c n_k delta_ck, with n_c (n_c - 1) "
        "pairs on the diagonal"),
    ),
    "se": (
        "standard error",
        "se",
        ("Gwet's (2014) analytic standard error of alpha conditional on the annotators, from "
        "his linearized per-item terms over the pairable items (distances held fixed: for "
        "'ordinal' the ranks of the observed frequencies); times sqrt(1 - n / "
        "population_size) when a population size is given; NaN with alpha or with fewer "
        "than 2 pairable items"),
    ),
    "ci_lower": (
        "lower confidence limit",
        "CI_lo",
        "alpha - t(n - 1) quantile * se, n the pairable items (Gwet's t-based interval)",
    ),
    "ci_upper": (
        "upper confidence limit",
        "CI_hi",
        "alpha + t(n - 1) quantile * se, capped at 1",
    ),
    "n_pairable_values": (
        "pairable values",
        "n..",
        "ratings on items with at least 2 ratings",
    ),
    "n_pairable_items": (
        "pairable items",
        "N_pairable",
        "items with at least 2 ratings",
    ),
    "coincidence": (
        "coincidence matrix",
        "o_ck",
        ("sum over pairable items of (n_ic n_ik - [c = k] n_ic) / (m_i - 1): ordered pairs of "
        "ratings on the same item, each item weighted 1 / (m_i - 1); rows sum to n_c"),
    ),
    "category_pairable_values": (
        "pairable values per category",
        "n_c",
        "ratings of the category on items with at least 2 ratings (the coincidence margins)",
    ),
    "label_alpha": (
        "label alpha",
        "alpha_j",
        ("binary alpha of the label, 1 - D_o,j / D_e,j; NaN where D_e,j = 0 (a label nobody or "
        "everybody selected among its pairable decisions, 0/0)"),
    ),
    "label_observed_disagreement": (
        "label observed disagreement",
        "D_o,j",
        "(1 / n_j) sum_i 2 x_ij (m_ij - x_ij) / (m_ij - 1) over cells with m_ij >= 2 decisions",
    ),
    "label_expected_disagreement": (
        "label expected disagreement",
        "D_e,j",
        ("2 p_j (1 - p_j) n_j / (n_j - 1): two pairable decisions on the label drawn without "
        "replacement differ"),
    ),
    "label_weight": (
        "label weight",
        "w_j",
        ("(n_j / mean n_j) D_e,j, so that alpha = sum_j w_j alpha_j / sum_j w_j (the paper's eq. "
        "6 for alpha); on complete data M / (M - 1) times the MLA F-baseline weight 1 - A_e,j; "
        "0 for a label without variation"),
    ),
    "label_pairable_values": (
        "label pairable decisions",
        "n_j",
        "decisions on the label in (item, label) cells with at least 2 decisions",
    ),
}

HAMMING_DESCRIPTIONS = {
    "observed_disagreement": "sum_j n_j D_o,j / sum_j n_j; with whole label vectors missing "
    "(or none) this is D_o of alpha on label vectors with the normalized Hamming distance",
    "expected_disagreement": "sum_j n_j D_e,j / sum_j n_j; with whole label vectors missing "
    "(or none) this is D_e of alpha on label vectors with the normalized Hamming distance",
    "n_pairable_values": "mean over labels of the pairable decisions n_j: the number of "
    "pairable label vectors when whole vectors are missing (or none)",
    "n_pairable_items": "items with at least one (item, label) cell of 2 or more decisions",
}


def alpha(
    da: xr.DataArray,
    metric: str | Callable = "nominal",
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str | None = "label",
    categories=None,
    confidence: float = 0.95,
    population_size=None,
    ci: float | None = None,
    n_resamples: int = 1000,
    resample: str = "item",
    method: str = "percentile",
    seed=None,
    return_replicates: bool = False,
    progress: bool | None = None,
) -> xr.Dataset:
    """Krippendorff's alpha with missing data, on single-label ratings or label sets.

    Parameters
    ----------
    da : xarray.DataArray
        Either single-label ratings with dims ``item`` and ``annotator`` (numbers, category
        codes or strings; NaN/None missing), or multi-label decisions with dims ``item``,
        ``annotator`` and ``label`` (0/1, NaN missing). The data is multi-label when it has
        the ``label`` dim. Any other dim (a ``round``, a ``task``) is carried into every
        output.
    metric : str or callable, default "nominal"
        The distance delta between two values. Single-label: "nominal", "ordinal"
        (Krippendorff's rank metric from the pairable value frequencies, not Gwet's),
        "interval", "ratio", or a callable ``f(value, value) -> float`` on category values.
        Multi-label: "hamming", "jaccard", "masi", "masi_rounded" (see Notes), "nominal"
        (whole label sets equal or not), or a callable ``f(set, set) -> float`` on two
        ``frozenset`` of label coordinate values. A callable must be symmetric.
    item, annotator, label : str
        Names of the dims that play these roles; ``label=None`` forces single-label data.
    categories : sequence, optional
        Single-label only: the declared values, in rank order for "ordinal" (required there
        for strings). Declared values that nobody used are kept in the coincidence matrix
        and change nothing else.
    confidence : float in (0, 1) or None, default 0.95
        Level of the analytic confidence limits ``ci_lower``/``ci_upper`` (single-label).
        None skips ``se`` and the limits (one pass over the ratings instead of two).
    population_size : int, optional
        Number of items in the population, for the finite-population factor of ``se``.
    ci : float, optional
        Confidence level of bootstrap intervals: ``alpha``, ``observed_disagreement`` and
        ``expected_disagreement`` (for "hamming" also the label-level ``label_alpha``,
        ``label_observed_disagreement``, ``label_expected_disagreement``,
        ``label_weight``) gain ``V_lower`` and ``V_upper``; the attrs record
        ``ci_level``, ``ci_method``, ``ci_n_resamples``, ``ci_resampling_unit``. See
        :mod:`xr_agreement.bootstrap` for the semantics.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item", "annotator", "both"}, default "item"
        The resampled unit; an annotator drawn twice counts as two raters (their pair
        is compared like any other). Expected disagreement, the ordinal ranks and the
        pairable values are recomputed in every replicate.
    method : {"percentile", "bca"}, default "percentile"
    seed : int or numpy.random.Generator, optional
        The same seed gives the same intervals on numpy and dask input.
    return_replicates : bool, default False
        Add ``V_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        A tqdm progress bar; by default only in interactive sessions.

    Returns
    -------
    xarray.Dataset
        ``alpha``, ``observed_disagreement``, ``expected_disagreement``,
        ``n_pairable_values``, ``n_pairable_items``. For nominal-type metrics ("nominal",
        "ordinal", callables) with at most 256 distinct values also ``coincidence`` (dims
        ``category``, ``paired_category``) and ``category_pairable_values`` (on dask
        input only with ``categories=``); for label sets the categories are ``frozenset``
        values. For "hamming" also ``label_alpha``,
        ``label_observed_disagreement``, ``label_expected_disagreement``,
        ``label_weight`` and ``label_pairable_values`` over ``label``. For single-label
        metrics also ``se``, ``ci_lower`` and ``ci_upper`` (Gwet's analytic standard
        error and t-based limits, see Notes). Each variable has ``long_name``,
        ``description`` and ``symbol`` attrs.

    Raises
    ------
    ValueError
        A dim is missing or empty, fewer than 2 annotators, an unknown metric, a decision
        other than 0/1/NaN, a label vector that is only partly missing (set metrics), a
        negative or infinite value where numbers are needed, an undeclared category.
    TypeError
        Strings for "interval" or "ratio", a non-numeric label dtype.

    Notes
    -----
    Undefined values are NaN, never a made-up number: if every pairable value is identical
    then D_e = 0 and alpha is NaN (the ``krippendorff`` package raises there, nltk returns
    1); without pairable values every output is NaN. A single pairable item is enough for
    alpha to be defined.

    With complete nominal data alpha differs from Fleiss' kappa only by the factor
    M / (M - 1) on the expected disagreement (M = n N values, pairs drawn without
    replacement): 1 - alpha = (1 - A_o) / (M / (M - 1) (1 - A_e)). In the textbook example
    below Fleiss' kappa is 0.563 (the chapter reports that number for alpha too) while alpha
    is 0.578182. The chapter's coincidence matrix counts ordered pairs without the
    1 / (m_i - 1) weight, so with 3 ratings per item its entries are twice these.

    MASI (Passonneau 2006) multiplies Jaccard by 1, 2/3, 1/3 or 0. nltk's ``masi_distance``
    used 0.67 and 0.33 until its PR #3695 (2026); "masi_rounded" reproduces such older
    numbers, "masi" is the exact definition (and what current nltk computes). Jaccard and
    MASI of two empty sets are taken as 0 (identical sets); nltk divides by zero there.

    "hamming" is additive over labels and accepts missing decisions per cell (Krippendorff's
    pairable-values weighting per label, as in :func:`xr_agreement.mla`, whose
    ``alpha_hamming`` it equals). The set metrics compare whole label sets: an annotation is
    either complete or entirely missing (all labels NaN).

    Standard errors (single-label metrics) follow Gwet (2014, ch. 6) and irrCAC's
    ``krippendorff()``: the variance conditional on the annotators from linearized
    per-item terms over the pairable items, ``n - 1`` degrees of freedom for the t limits
    (the upper one capped at 1), the finite-population factor ``1 - n_rated /
    population_size``; as for :func:`xr_agreement.fleiss`. Gwet writes alpha with agreement
    weights; irrCAC's "identity", "quadratic" and "ratio" weights are the nominal, interval
    and ratio metrics (equal standard errors). irrCAC's "ordinal" weights use rank
    distances of the categories, not Krippendorff's frequency-based rank metric: here
    "ordinal" is Gwet's variance with Krippendorff's distances taken as fixed (the ranks of
    the observed frequencies; their sampling variation is not propagated), which equals
    irrCAC given these distances as a weight matrix. Callables get the same treatment.

    Bootstrap: single-label metrics with a modest number of distinct values resample
    per-item coincidence contributions (a matrix product per batch of replicates); label
    sets, "hamming" and many distinct values recompute :func:`alpha` on each resampled
    array (slow for large data).

    Dask: the result is lazy and every metric is computed block by block (item chunks
    kept; annotator and label merged into single chunks; extra dims keep their chunks).
    "hamming" sums per-chunk label counts. The other metrics count each block's own
    distinct values (or label sets) with their pairable counts, items by number of
    ratings, agreeing pairs and observed distance sums; a tree of merges (distinct values
    united, counts added) gives the totals, from which alpha is finished. "ordinal" (ranks
    of the total frequencies) and ``se`` (Gwet's per-item terms given the totals) read the
    blocks once more each, with the small totals as input. ``coincidence`` and
    ``category_pairable_values`` are returned only with ``categories=`` (their size is
    otherwise known only from the data). The merged totals hold one count per distinct
    value or label set: small for categories, as many as the ratings for continuous data.
    Integer counts are exact; float distance sums are added in another order than on
    numpy (differences at rounding level, about 1e-13 on a million items). Values are
    checked block by block: an invalid one raises at compute time, naming its position.
    ``ci=`` holds the per-item table of the bootstrap in memory (see
    :mod:`xr_agreement.bootstrap`).

    Examples
    --------
    The textbook example (3 raters, 10 sentences, Positive/Neutral/Negative):

    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]],
    ...     dims=("item", "annotator"), coords={"item": range(1, 11), "annotator": list("ABC")},
    ... )
    >>> result = ratings.agreement.alpha("nominal")
    >>> round(float(result.alpha), 6)
    0.578182
    >>> result.coincidence.sel(category="P").values
    array([ 1.,  3., 11.])

    Gwet's standard error and 95% limits (irrCAC prints 0.18508, (0.15951, 0.99685)):

    >>> [round(float(result[v]), 5) for v in ("se", "ci_lower", "ci_upper")]
    [0.18508, 0.15951, 0.99685]

    The same on dask input, chunked along ``item``: lazy, computed block by block:

    >>> lazy = ratings.chunk({"item": 4}).agreement.alpha("nominal")
    >>> round(float(lazy.alpha), 6), round(float(lazy.se), 5)
    (0.578182, 0.18508)

    Label sets of the MLA paper's worked example:

    >>> ex = xr_agreement.datasets.bias_example()
    >>> round(float(ex.agreement.alpha("masi").alpha), 4)
    0.272
    >>> hamming = ex.agreement.alpha("hamming")
    >>> round(float(hamming.alpha), 4), float(hamming.n_pairable_values)
    (0.296, 12.0)
    """
    check_dataarray(da, "annotations")
    multi_label = label is not None and label in da.dims
    if multi_label:
        check_dims(da, item=item, annotator=annotator, label=label)
    else:
        check_dims(da, item=item, annotator=annotator)
    check_annotators(da, annotator)
    name = _metric_name(metric, multi_label, label)
    if confidence is not None:
        _check_confidence(confidence)
    _check_population(population_size, da.sizes[item])
    if ci is not None:
        from . import bootstrap as _bootstrap

        ci, n_resamples, resample, method = _bootstrap.check_options(
            ci, n_resamples, resample, method, seed, progress
        )
    if multi_label:
        if categories is not None:
            raise ValueError("categories= applies to single-label ratings; this array has the "
                             f"label dim {label!r}")
        check_binary_dtype(da)
        if name == "hamming":
            result = _hamming_alpha(da, item, annotator, label)
        elif _is_dask(da.data):
            result = _dask_alpha(da, metric, name, True, item=item, annotator=annotator,
                                 label=label, categories=None, confidence=None,
                                 population_size=None)
        else:
            result = _set_alpha(da, metric, name, item, annotator, label)
    elif _is_dask(da.data):
        result = _dask_alpha(da, metric, name, False, item=item, annotator=annotator,
                             label=None, categories=categories, confidence=confidence,
                             population_size=population_size)
    else:
        result = _single_label_alpha(da, metric, name, item, annotator, categories, confidence,
                                     population_size)
    for var, (long_name, symbol, description) in VARIABLES.items():
        if var in result:
            if name == "hamming":
                description = HAMMING_DESCRIPTIONS.get(var, description)
            result[var].attrs = {"long_name": long_name, "symbol": symbol,
                                 "description": description}
    definitions = MULTI_LABEL_METRICS if multi_label else SINGLE_LABEL_METRICS
    result.attrs = {
        "metric": name,
        "metric_definition": definitions.get(name, "user-supplied distance "
                                             f"{getattr(metric, '__name__', repr(metric))}"),
        "n_items": da.sizes[item],
        "n_annotators": da.sizes[annotator],
        **({"n_labels": da.sizes[label]} if multi_label else {}),
        "missing_data": "missing ratings left out; items with fewer than 2 ratings are not "
        "pairable (Krippendorff's pairable values)",
        "reference": "Krippendorff, Content Analysis (2004/2019), ch. 12; Passonneau (2006) "
        "for MASI; Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., for se",
    }
    if "se" in result:
        result.attrs["confidence"] = confidence
    if ci is None:
        return result
    return _bootstrap_intervals(
        da, result, metric, name, multi_label,
        item=item, annotator=annotator, label=label, categories=categories, ci=ci,
        n_resamples=n_resamples, resample=resample, method=method, seed=seed,
        return_replicates=return_replicates, progress=progress,
    )


def _metric_name(metric, multi_label: bool, label) -> str:
    if callable(metric):
        return "callable"
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a name or a callable, got {type(metric).__name__}")
    key = metric.lower()
    allowed = MULTI_LABEL_METRICS if multi_label else SINGLE_LABEL_METRICS
    if key not in allowed:
        kind = (f"multi-label data (with label dim {label!r})" if multi_label
                else "single-label ratings (no label dim)")
        other = SINGLE_LABEL_METRICS if multi_label else MULTI_LABEL_METRICS
        hint = ""
        if key in other:
            hint = (" (it applies to single-label ratings)" if multi_label
                    else f" (it needs a label dim; none named {label!r} was found)")
        raise ValueError(f"unknown metric {metric!r} for {kind}{hint}; use one of "
                         f"{list(allowed)} or a callable")
    return key


@contextmanager
def _threads_for(work: float):
    """Run a parallel kernel on numba's threads only when ``work`` (elements or pairs) is
    large: a small kernel is done before a busy machine schedules the second thread."""
    with _PARALLEL_LOCK:
        if work >= PARALLEL_MIN_WORK:
            yield
            return
        previous = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            yield
        finally:
            numba.set_num_threads(previous)


def _n_tasks(n_items: int, accumulator_size: int = 1) -> int:
    """Item runs per kernel call, each with accumulators of ``accumulator_size`` elements:
    a function of the data's shape only, so that float sums (and results) do not depend on
    the number of threads; fewer runs when the accumulators are large (many distinct
    values), so that their memory stays below about 2**20 elements."""
    by_memory = (1 << 20) // max(1, accumulator_size)
    return int(max(1, min(16, n_items // 4096, by_memory)))


def _extra_frame(da: xr.DataArray, roles) -> tuple[list[str], dict]:
    extra = [d for d in da.dims if d not in roles]
    coords = {}
    for cname, coord in da.coords.items():
        if set(coord.dims) <= set(extra):
            coords[cname] = coord
    return extra, coords


def _alpha_terms(observed_sum, expected_sum, pairable):
    """(alpha, D_o, D_e) from the numerators O = sum o_ck delta_ck and E = sum n_c n_k
    delta_ck and the number n of pairable values (arrays over groups); NaN with fewer than
    two pairable values, alpha NaN too when nothing could disagree (E = 0)."""
    n = np.asarray(pairable, np.float64)
    enough = n >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.where(enough, observed_sum / n, np.nan)
        expected = np.where(enough, expected_sum / (n * (n - 1)), np.nan)
        value = np.where(enough & (expected_sum > 0),
                         1.0 - (n - 1) * observed_sum / expected_sum, np.nan)
    return value, observed, expected


def _finish(observed_sum, expected_sum, pairable, pairable_items, extra, shape, coords):
    """alpha and its parts from the numerators O = sum o_ck delta_ck and
    E = sum n_c n_k delta_ck (arrays over groups)."""
    value, observed, expected = _alpha_terms(observed_sum, expected_sum, pairable)

    def grid(values):
        return xr.DataArray(np.asarray(values).reshape(shape), dims=extra)

    return xr.Dataset(
        {
            "alpha": grid(value),
            "observed_disagreement": grid(observed),
            "expected_disagreement": grid(expected),
            "n_pairable_values": grid(pairable),
            "n_pairable_items": grid(pairable_items),
        },
        coords=coords,
    )


class _Ratings:
    """Ratings as the kernels take them: ``values`` (G, N, n) and ``low``, so that a rating's
    code is ``value - low`` (-1 or NaN missing), and the value of each code."""

    def __init__(self, values, low, categories):
        self.values = values
        self.low = float(low)
        self.categories = categories


class _Counts:
    """The one-pass counts of :func:`_kernels.rating_counts`."""

    def __init__(self, ratings: _Ratings, with_coincidence: bool):
        groups, n_items = ratings.values.shape[:2]
        n_values = len(ratings.categories)
        accumulator_size = groups * n_values * (1 + n_values * with_coincidence)
        with _threads_for(ratings.values.size):
            (self.value_counts, self.seen, self.items_by_m, self.agreeing_by_m,
             self.coincidence, self.irregular) = _kernels.rating_counts(
                ratings.values, ratings.low, n_values, _n_tasks(n_items, accumulator_size),
                with_coincidence)
        m = np.arange(self.items_by_m.shape[1])
        self.pairable = (self.items_by_m * m).sum(axis=1)
        self.pairable_items = self.items_by_m[:, 2:].sum(axis=1)


def _nominal_sums(counts: _Counts):
    """O and E of the nominal metric from integer counts."""
    m = np.arange(counts.items_by_m.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        per_m = np.where(m >= 2, m * counts.items_by_m
                         - counts.agreeing_by_m / np.maximum(m - 1, 1), 0.0)
    observed_sum = per_m.sum(axis=1)
    n = counts.pairable
    expected_sum = n * n - (counts.value_counts * counts.value_counts).sum(axis=1)
    return observed_sum, expected_sum.astype(np.float64)


def _spread_sums(ratings: _Ratings, weights, counts: _Counts):
    """O and E of the interval metric on per-code ``weights`` (G, V)."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    observed_sum = _kernels.squared_spread(ratings.values, ratings.low, weights,
                                           _n_tasks(ratings.values.shape[1]))
    return observed_sum, _spread_expected(weights, counts)


def _spread_expected(weights, counts):
    """E of the interval metric on per-code ``weights`` (G, V), from the pooled values."""
    value_counts = counts.value_counts
    n = np.maximum(counts.pairable, 1).astype(np.float64)
    mean = (value_counts * weights).sum(axis=1) / n
    return 2 * counts.pairable * (value_counts * (weights - mean[:, None]) ** 2).sum(1)


_EMPTY_DELTA = np.zeros((1, 1))
_EMPTY_NUMBERS = np.zeros(1)
_EMPTY_PACKED = np.zeros((1, 1), np.uint64)
_EMPTY_SIZES = np.zeros(1, np.int64)


def _pair_sums(ratings: _Ratings, counts: _Counts, metric_id, delta=_EMPTY_DELTA,
               numbers=_EMPTY_NUMBERS, packed=_EMPTY_PACKED, sizes=_EMPTY_SIZES,
               expected=True):
    """O and E of a non-additive distance: pairs within items, pairs of distinct values."""
    observed_sum = _kernels.pair_observed(ratings.values, ratings.low, metric_id, delta,
                                          numbers, packed, sizes,
                                          _n_tasks(ratings.values.shape[1]))
    if not expected:
        return observed_sum, None
    return observed_sum, _pair_expected_sum(counts, metric_id, delta, numbers, packed, sizes)


def _pair_expected_sum(counts, metric_id, delta=_EMPTY_DELTA, numbers=_EMPTY_NUMBERS,
                       packed=_EMPTY_PACKED, sizes=_EMPTY_SIZES):
    """E of a non-additive distance from the pairable value counts (G, V)."""
    used = (counts.value_counts > 0).sum(axis=1).max(initial=0)
    with _threads_for(float(used) ** 2):
        expected_sum = _kernels.pair_expected(counts.value_counts, metric_id, delta, numbers,
                                              packed, sizes)
    if metric_id == _kernels.DELTA_MATRIX:
        # a callable may give delta(c, c) != 0: n_c (n_c - 1) pairs of equal values
        value_counts = counts.value_counts
        expected_sum = expected_sum + (value_counts * (value_counts - 1) * np.diag(delta)).sum(1)
    return expected_sum


def _callable_delta(metric, values: list) -> np.ndarray:
    if len(values) > CALLABLE_LIMIT:
        raise ValueError(f"a callable metric is evaluated on every pair of the {len(values)} "
                         f"distinct values (limit {CALLABLE_LIMIT}); use a built-in metric")
    delta = np.empty((len(values), len(values)))
    for c, left in enumerate(values):
        for k, right in enumerate(values):
            delta[c, k] = metric(left, right)
    if not np.isfinite(delta).all():
        c, k = np.argwhere(~np.isfinite(delta))[0]
        raise ValueError(f"metric returned {delta[c, k]} for ({values[c]!r}, {values[k]!r})")
    return delta


def _categorical_result(ratings: _Ratings, counts: _Counts, category_coord, metric, name,
                        extra, shape, coords):
    """nominal / ordinal / callable; adds the coincidence matrix when it was counted."""
    if name == "nominal":
        observed_sum, expected_sum = _nominal_sums(counts)
    elif name == "ordinal":
        # mid-ranks of the pairable value frequencies (see the module docstring)
        value_counts = counts.value_counts
        ranks = np.cumsum(value_counts, axis=1) - value_counts / 2.0
        observed_sum, expected_sum = _spread_sums(ratings, ranks, counts)
    else:
        values = [_plain(v) for v in ratings.categories]
        delta = _callable_delta(metric, values)
        observed_sum, expected_sum = _pair_sums(ratings, counts, _kernels.DELTA_MATRIX,
                                                delta=delta)
    result = _finish(observed_sum, expected_sum, counts.pairable, counts.pairable_items,
                     extra, shape, coords)
    if counts.coincidence.shape[-1]:
        n_values = len(ratings.categories)
        result["coincidence"] = xr.DataArray(
            counts.coincidence.reshape(shape + (n_values, n_values)),
            dims=(*extra, "category", "paired_category"),
            coords={"category": category_coord, "paired_category": category_coord},
        )
        result["category_pairable_values"] = xr.DataArray(
            counts.value_counts.reshape(shape + (n_values,)), dims=(*extra, "category"))
    return result


# --- single-label ratings -------------------------------------------------------------


def _coded(ordered: xr.DataArray, categories) -> _Ratings:
    """Integer codes (-1 missing) of ratings and the value of each code.

    Strings, objects and declared categories go through :func:`encode_ratings`; numbers
    through ``numpy.unique``, with the same result (sorted distinct values)."""
    values = np.asarray(ordered.values)
    if categories is not None or values.dtype.kind not in "biuf":
        codes, cats = encode_ratings(ordered, categories)
    else:
        if values.dtype.kind == "f":
            infinite = np.isinf(values)
            if infinite.any():
                raise ValueError(_describe_rating(ordered, infinite, "is not finite"))
            missing = np.isnan(values)
        else:
            missing = np.zeros(values.shape, bool)
        cats, inverse = np.unique(values[~missing], return_inverse=True)
        codes = np.full(values.shape, -1, np.int64)
        codes[~missing] = inverse.reshape(-1)
    codes = codes.astype(np.int32).reshape((-1,) + values.shape[-2:])
    return _Ratings(codes, 0, cats)


def _as_integers(ordered: xr.DataArray, span_limit: int) -> _Ratings | None:
    """Numeric ratings that may be integral within ``span_limit`` consecutive values: the
    kernels read them directly (code = value - lowest), with no coding pass. Whether they
    really are integral is checked by the counting pass (``_Counts.irregular``)."""
    values = np.asarray(ordered.values)
    if values.dtype.kind not in "biuf":
        return None
    values = np.ascontiguousarray(values, dtype=np.float64).reshape((-1,) + values.shape[-2:])
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN input
        low, high = np.nanmin(values), np.nanmax(values)
    if not (np.isfinite(low) and np.isfinite(high)) or high - low >= span_limit:
        return None
    span = int(high - low) + 1
    return _Ratings(values, low, low + np.arange(span, dtype=np.float64))


def _describe_rating(da: xr.DataArray, mask: np.ndarray, problem: str) -> str:
    position = np.unravel_index(int(np.argmax(mask)), mask.shape)
    where = ", ".join(
        f"{d}={_plain(da[d].values[p]) if d in da.coords else p!r}"
        for d, p in zip(da.dims, position)
    )
    return (f"rating {_plain(da.values[position])!r} at {where} {problem} "
            f"({int(mask.sum())} such rating(s))")


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _single_label_alpha(da, metric, name, item, annotator, categories, confidence=0.95,
                        population_size=None):
    extra, coords = _extra_frame(da, (item, annotator))
    ordered = da.transpose(*extra, item, annotator)
    shape = tuple(ordered.sizes[d] for d in extra)
    kind = ordered.dtype.kind
    numeric = name in ("interval", "ratio")
    if kind == "O" and name in ("ordinal", "interval", "ratio") and categories is None:
        try:  # numbers (and None) in an object array, as pandas often delivers them
            ordered = ordered.astype(np.float64)
            kind = "f"
        except (TypeError, ValueError):
            pass
    if numeric and kind not in "biuf" and categories is None:
        raise TypeError(f"metric {name!r} needs numeric ratings; got dtype {ordered.dtype}")
    if name == "ordinal" and kind not in "biuf" and categories is None:
        raise ValueError("metric 'ordinal' on non-numeric ratings needs their rank order: "
                         "pass categories=[lowest, ..., highest]")
    # integral numbers in a short range skip the coding pass; the rest is coded
    ratings = None
    if categories is None and name != "callable":
        ratings = _as_integers(ordered, INTEGER_SPAN_LIMIT if numeric else COINCIDENCE_LIMIT)
    with_coincidence = not numeric
    counts = None
    if ratings is not None:
        counts = _Counts(ratings, with_coincidence)
        if counts.irregular:
            ratings = counts = None
    integral = ratings is not None
    if not integral:
        ratings = _coded(ordered, categories)
        with_coincidence = with_coincidence and len(ratings.categories) <= COINCIDENCE_LIMIT
        counts = _Counts(ratings, with_coincidence)
    if numeric:
        try:
            numbers = np.asarray(ratings.categories, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"metric {name!r} needs numeric categories, got "
                            f"{list(ratings.categories)[:5]}") from None
        if name == "ratio" and (numbers[counts.seen.sum(axis=0) > 0] < 0).any():
            values = np.asarray(ordered.values, dtype=np.float64)
            raise ValueError(_describe_rating(ordered, values < 0, "is negative; the ratio "
                                              "metric needs values >= 0"))
        if name == "interval":
            weights = np.broadcast_to(numbers, counts.value_counts.shape)
            observed_sum, expected_sum = _spread_sums(ratings, weights, counts)
        else:
            observed_sum, expected_sum = _pair_sums(ratings, counts, _kernels.DELTA_RATIO,
                                                    numbers=numbers)
        result = _finish(observed_sum, expected_sum, counts.pairable, counts.pairable_items,
                         extra, shape, coords)
        scores = numbers if name == "interval" else None
        if confidence is None:
            return result
        return _with_standard_errors(result, ratings, counts, name, metric, numbers, scores,
                                     confidence, population_size)
    category_coord = np.asarray(ratings.categories)
    if integral:  # the input's dtype, like encode_ratings
        category_coord = category_coord.astype(ordered.dtype if kind in "iuf" else np.int64)
    result = _categorical_result(ratings, counts, category_coord, metric, name, extra, shape,
                                 coords)
    if integral and "coincidence" in result:
        # the integer path counts a whole range of values: keep those that occur
        seen = counts.seen.sum(axis=0) > 0
        result = result.isel(category=seen, paired_category=seen)
    if confidence is None:
        return result
    return _with_standard_errors(result, ratings, counts, name, metric, None, None, confidence,
                                 population_size)


# --- analytic standard errors (Gwet 2014) ----------------------------------------------


def _distance_rows(ratings: _Ratings, counts: _Counts, name, metric, numbers, scores,
                   delta=None):
    """The kernel's distance id and arrays, and ``rows[g, c] = sum_k n_k delta(c, k)``
    over the pairable values of group ``g`` (``delta``: a callable's distances, if known)."""
    known_delta = delta
    value_counts = counts.value_counts.astype(np.float64)
    G, V = value_counts.shape
    delta, no_numbers = _EMPTY_DELTA, _EMPTY_NUMBERS
    no_scores = np.zeros((1, 1))
    total = value_counts.sum(axis=1, keepdims=True)
    if name == "nominal":
        return _kernels.DELTA_NOMINAL, delta, no_numbers, no_scores, total - value_counts
    if name in ("interval", "ordinal"):
        if name == "ordinal":  # mid-ranks of the pairable frequencies
            scores = np.cumsum(value_counts, axis=1) - value_counts / 2.0
        scores = np.ascontiguousarray(np.broadcast_to(scores, (G, V)), dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (value_counts * scores).sum(axis=1, keepdims=True) / total
        mean = np.nan_to_num(mean)
        spread = (value_counts * (scores - mean) ** 2).sum(axis=1, keepdims=True)
        rows = total * (scores - mean) ** 2 + spread
        return _kernels.DELTA_SQUARED_SCORES, delta, no_numbers, scores, rows
    if name == "ratio":
        rows = np.zeros((G, V))
        for start in range(0, V, 256):  # (256, V) distances at a time
            left = numbers[start:start + 256, None]
            sums = left + numbers[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                block = np.where(sums > 0, ((left - numbers[None, :]) / sums) ** 2, 0.0)
            rows[:, start:start + 256] = value_counts @ block.T
        return _kernels.DELTA_RATIO, delta, np.ascontiguousarray(numbers, np.float64), \
            no_scores, rows
    delta = known_delta
    if delta is None:
        delta = _callable_delta(metric, [_plain(v) for v in ratings.categories])
    return _kernels.DELTA_MATRIX, delta, no_numbers, no_scores, value_counts @ delta.T


def _gwet_alpha_variance(terms: np.ndarray, rows, value_counts, rated_items, population_size):
    """Gwet's (2014, ch. 6) variance of alpha for one group, and its degrees of freedom.

    ``terms`` (N, 3) holds per item m_i, P_i = sum_{a != b} delta and e_i = sum_a rows[c_a].
    Gwet writes alpha with agreement weights w = 1 - s delta; his linearized per-item terms
    are free of the scale s, so they are written here with distances only:
    k_i = 1 + ((m_i - m̄)(1 - 1/n..) D_o - P_i / (m_i - 1)) / (m̄ T'),
    alpha' = 1 - D_o / T', e'_i = (m_i - e_i n.. / T) / m̄ and
    kx_i = k_i - 2 (1 - alpha') e'_i, with T = sum_c n_c rows_c, T' = T / n..**2 and
    D_o = sum_i P_i / (m_i - 1) / n..; var = (1 - f) sum_i (kx_i - alpha')**2 / (n (n - 1))
    over the n pairable items, f = rated items / population size."""
    m, pair_sums = terms[:, 0], terms[:, 1]
    pairable = m >= 2
    n = int(pairable.sum())
    if n < 2:
        return math.nan, n - 1
    expected = float((value_counts * rows).sum())
    constants = _gwet_constants(n, m[pairable].sum(),
                                (pair_sums[pairable] / (m[pairable] - 1)).sum(), expected)
    if constants is None:
        return math.nan, n - 1
    squares = _gwet_squares(terms, constants)
    return _gwet_variance(squares, n, rated_items, population_size), n - 1


def _gwet_constants(n_items, n_values, observed_sum, expected):
    """The corpus-level quantities of :func:`_gwet_alpha_variance` for one group
    (n.., m̄, D_o, T', T, alpha'), or None where the variance is undefined."""
    if n_items < 2 or not expected > 0:
        return None
    mean_m = n_values / n_items
    scaled_expected = expected / n_values**2
    observed = observed_sum / n_values
    return n_values, mean_m, observed, scaled_expected, expected, 1 - observed / scaled_expected


def _gwet_squares(terms: np.ndarray, constants) -> float:
    """sum over the pairable items in ``terms`` (N, 3) of (kx_i - alpha')**2: additive over
    item blocks, given the corpus-level ``constants``."""
    m, pair_sums, spread = terms[:, 0], terms[:, 1], terms[:, 2]
    pairable = m >= 2
    m, pair_sums, spread = m[pairable], pair_sums[pairable], spread[pairable]
    values, mean_m, observed, scaled_expected, expected, alpha_prime = constants
    k_i = 1 + ((m - mean_m) * (1 - 1 / values) * observed - pair_sums / (m - 1)) / (
        mean_m * scaled_expected)
    expected_i = (m - spread * values / expected) / mean_m
    linearized = k_i - 2 * (1 - alpha_prime) * expected_i
    return float(((linearized - alpha_prime) ** 2).sum())


def _gwet_variance(squares, n_items, rated_items, population_size):
    finite = 1.0 if population_size is None else 1 - rated_items / population_size
    return finite * squares / (n_items * (n_items - 1))


def _standard_error_limits(value, variance, dof, confidence):
    """se, ci_lower, ci_upper (arrays like ``value``) from Gwet's variance and dof."""
    from scipy import stats  # here, so that ``import xr_agreement`` stays light

    with np.errstate(invalid="ignore"):
        se = np.where(variance >= 0, np.sqrt(np.maximum(variance, 0)), np.nan)
    se = np.where(np.isnan(value), np.nan, se)
    t = np.full(np.shape(dof), np.nan)
    usable = np.asarray(dof) >= 1
    t[usable] = stats.t.ppf(0.5 + confidence / 2, np.asarray(dof)[usable])
    return se, value - t * se, np.minimum(value + t * se, 1.0)


def _with_standard_errors(result, ratings, counts, name, metric, numbers, scores, confidence,
                          population_size):
    """``result`` with ``se``, ``ci_lower``, ``ci_upper`` (Gwet's t-based limits)."""
    metric_id, delta, numbers, scores, rows = _distance_rows(ratings, counts, name, metric,
                                                             numbers, scores)
    terms = _kernels.item_pair_terms(ratings.values, ratings.low, metric_id, delta, numbers,
                                     scores, np.ascontiguousarray(rows))
    rated = (terms[..., 0] >= 1).sum(axis=1)
    G = terms.shape[0]
    variance = np.full(G, np.nan)
    dof = np.zeros(G, np.int64)
    for g in range(G):
        variance[g], dof[g] = _gwet_alpha_variance(terms[g], rows[g], counts.value_counts[g],
                                                   rated[g], population_size)
    shape = result["alpha"].shape
    value = result["alpha"].values
    se, lower, upper = _standard_error_limits(value, variance.reshape(shape), dof.reshape(shape),
                                              confidence)
    dims = result["alpha"].dims
    return result.assign(se=(dims, se), ci_lower=(dims, lower), ci_upper=(dims, upper))


# --- bootstrap intervals ---------------------------------------------------------------

# The coincidence route of the bootstrap keeps an (items x groups * V * V) table of per-item
# coincidence contributions: used up to this many table entries, else the recomputing route.
BOOTSTRAP_TABLE_LIMIT = 1 << 24
INTERVAL_VARIABLES = ("alpha", "observed_disagreement", "expected_disagreement")
HAMMING_INTERVAL_VARIABLES = INTERVAL_VARIABLES + (
    "label_alpha", "label_observed_disagreement", "label_expected_disagreement", "label_weight")


def _coincidence_table(codes, n_values, weights) -> np.ndarray:
    """(N, G V V) per-item coincidence contributions of codes (G, N, n) (-1 missing), the
    annotators counted ``weights`` times."""
    G, N, _ = codes.shape
    V = n_values
    present = codes >= 0
    index = (np.arange(G * N).reshape(G, N, 1) * V + np.where(present, codes, 0))
    counts = np.bincount(index[present], np.broadcast_to(weights, codes.shape)[present],
                         minlength=G * N * V).reshape(G, N, V)
    m = counts.sum(axis=-1)
    scale = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    table = counts[..., :, None] * counts[..., None, :]
    table[..., np.arange(V), np.arange(V)] -= counts
    table *= scale[..., None, None]
    return np.ascontiguousarray(table.transpose(1, 0, 2, 3).reshape(N, G * V * V))


def _coincidence_block_table(block, categories, coords, block_info=None) -> np.ndarray:
    """:func:`_coincidence_table` of a dask block (item axis first, then the extra axes,
    annotator) coded with the declared categories; ``coords`` (dim, values) of the whole
    array in that order name a rating that is not one of them."""
    location = block_info[0]["array-location"] if block_info else [
        (0, size) for size in np.shape(block)]
    ratings = xr.DataArray(
        np.asarray(block), dims=[dim for dim, _ in coords],
        coords={dim: values[start:stop] for (dim, values), (start, stop) in
                zip(coords, location)},
    )
    ratings = ratings.transpose(*ratings.dims[1:-1], ratings.dims[0], ratings.dims[-1])
    N, n = ratings.shape[-2:]
    codes = _coded(ratings, categories).values.astype(np.int64).reshape(-1, N, n)
    return _coincidence_table(codes, len(categories), np.ones(n))


class CoincidenceStatistic(TableStatistic):
    """Single-label alpha on resamples from per-item coincidence contributions.

    Item ``i`` with category counts ``R_i`` (annotator ``a`` counted ``c_a`` times) adds
    ``(R_i R_i' - diag R_i) / (m_i - 1)`` to the coincidence matrix, so an item resample's
    coincidence matrices are the resampling counts ``W`` (R x N) times the (N x V * V) table
    of these contributions: one matrix product per batch. Every replicate is then finished
    from its own matrix (margins ``n_c``, and for "ordinal" the mid-ranks of its own
    frequencies), like :func:`alpha` finishes the full data. ``codes`` may be None with a
    lazy (dask) ``table`` given instead: item resampling then runs block by block.
    """

    def __init__(self, codes, n_values, delta, ordinal, extra, extra_shape, coords,
                 table=None, n_annotators=None):
        self.codes = codes  # (G, N, n) int64, -1 missing
        self.n_values = n_values
        self.delta = delta  # (V, V), ignored for ordinal
        self.ordinal = ordinal
        self.extra, self.extra_shape, self.coords = extra, extra_shape, coords
        if codes is not None:
            self.n_items, self.n_annotators = codes.shape[1:]
        else:
            self.n_items, self.n_annotators = table.shape[0], n_annotators
        self._ones = table

    def _table(self, weights):
        return _coincidence_table(self.codes, self.n_values, weights)

    @property
    def is_lazy(self) -> bool:
        return self.codes is None and _is_dask(self._ones)

    def item_tables(self) -> dict:
        if self._ones is None:
            self._ones = self._table(np.ones(self.n_annotators))
        return {"coincidence": self._ones}

    def drop_tables(self) -> None:
        self.codes = self._ones = None

    def finish_sums(self, sums: dict) -> xr.Dataset:
        return self._finish_coincidence(sums["coincidence"])

    def replicates(self, item_counts, annotator_counts):
        if annotator_counts is None:
            return super().replicates(item_counts, None)
        rows = []
        for r, weights in enumerate(np.asarray(annotator_counts, np.float64)):
            table = self._table(weights)
            rows.append(table.sum(axis=0) if item_counts is None
                        else item_counts[r].astype(np.float64) @ table)
        return {"coincidence": np.stack(rows)}

    def _finish_coincidence(self, coincidence) -> xr.Dataset:
        from .bootstrap import RESAMPLE_DIM

        V = self.n_values
        R = coincidence.shape[0]
        coincidence = coincidence.reshape((R, -1, V, V))
        margins = coincidence.sum(axis=-1)
        # the margins are sums of integers: round away the float error of the weights
        margins = np.rint(margins)
        total = margins.sum(axis=-1)
        if self.ordinal:
            ranks = np.cumsum(margins, axis=-1) - margins / 2.0
            delta = (ranks[..., :, None] - ranks[..., None, :]) ** 2
        else:
            delta = self.delta
        observed_sum = (coincidence * delta).sum(axis=(-2, -1))
        expected_sum = (np.einsum("...c,...ck,...k->...", margins, delta, margins)
                        - (margins * np.diagonal(delta, axis1=-2, axis2=-1)).sum(axis=-1))
        value, observed, expected = _alpha_terms(observed_sum, expected_sum, total)
        dims = (RESAMPLE_DIM, *self.extra)
        shape = (R, *self.extra_shape)
        out = xr.Dataset(
            {name: (dims, values.reshape(shape)) for name, values in
             zip(INTERVAL_VARIABLES, (value, observed, expected))},
            coords=self.coords,
        )
        return out.assign_coords({RESAMPLE_DIM: np.arange(R)})


def _coincidence_statistic(da, metric, name, item, annotator, categories):
    """A :class:`CoincidenceStatistic` for single-label ``da``, or None when the table
    would be too large (many distinct values) or the ratings need the general route."""
    extra, coords = _extra_frame(da, (item, annotator))
    ordered = da.transpose(*extra, item, annotator)
    if _is_dask(ordered.data):
        return _lazy_coincidence_statistic(ordered, metric, name, item, annotator, categories,
                                           extra, coords)
    if ordered.dtype.kind == "O" and categories is None and name != "nominal":
        try:
            ordered = ordered.astype(np.float64)
        except (TypeError, ValueError):
            return None
    ratings = _coded(ordered, categories)
    codes = ratings.values.astype(np.int64)
    used = np.unique(codes[codes >= 0])
    V = used.size
    G, N = codes.shape[:2]
    if V == 0 or N * G * V * V > BOOTSTRAP_TABLE_LIMIT:
        return None
    compact = np.full(len(ratings.categories) + 1, -1, np.int64)
    compact[used] = np.arange(V)
    codes = compact[codes]  # -1 stays -1 (the last entry)
    values = [ratings.categories[c] for c in used]
    return CoincidenceStatistic(codes, V, _value_distances(metric, name, values),
                                name == "ordinal", extra,
                                tuple(ordered.sizes[d] for d in extra), coords)


def _lazy_coincidence_statistic(ordered, metric, name, item, annotator, categories, extra,
                                coords):
    """A :class:`CoincidenceStatistic` whose table is a dask array built block by block
    from the declared categories; None without them (their number, hence the table's
    width, is only known from the data) or when the table would be too large."""
    import dask.array
    from dask.base import tokenize

    if categories is None:
        return None
    values = list(categories)
    V = len(values)
    G = int(np.prod([ordered.sizes[d] for d in extra]))
    N, n = ordered.sizes[item], ordered.sizes[annotator]
    if V == 0 or N * G * V * V > BOOTSTRAP_TABLE_LIMIT:
        return None
    if name in ("interval", "ratio"):
        values = [float(v) for v in values]  # checked numeric by alpha() already
    data = ordered.data
    nd = data.ndim
    # the item axis first, everything else in one chunk
    data = dask.array.moveaxis(data, nd - 2, 0).rechunk({i: -1 for i in range(1, nd)})
    moved = [ordered.dims[nd - 2], *ordered.dims[: nd - 2], ordered.dims[-1]]
    block_coords = [(dim, np.asarray(ordered[dim].values)) for dim in moved]
    declared = np.asarray(list(categories), dtype=object)
    table = data.map_blocks(
        _coincidence_block_table, declared, block_coords, dtype=np.float64,
        drop_axis=list(range(2, nd)), chunks=(data.chunks[0], (G * V * V,)),
        name="bootstrap-coincidence-table-" + tokenize(data, declared, moved),
    )
    return CoincidenceStatistic(None, V, _value_distances(metric, name, values),
                                name == "ordinal", extra,
                                tuple(ordered.sizes[d] for d in extra), coords, table=table,
                                n_annotators=n)


def _value_distances(metric, name, values):
    """(V, V) distances between the values for the metric (None for ordinal: its ranks
    come from each replicate's frequencies)."""
    delta = None
    if name == "nominal":
        delta = 1.0 - np.eye(len(values))
    elif name in ("interval", "ratio"):
        numbers = np.asarray(values, np.float64)
        difference = numbers[:, None] - numbers[None, :]
        if name == "interval":
            delta = difference**2
        else:
            sums = numbers[:, None] + numbers[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                delta = np.where(sums > 0, (difference / sums) ** 2, 0.0)
    elif name == "callable":
        delta = _callable_delta(metric, [_plain(v) for v in values])
    return delta


def _bootstrap_intervals(da, result, metric, name, multi_label, *, item, annotator, label,
                         categories, ci, n_resamples, resample, method, seed,
                         return_replicates, progress):
    """``result`` with bootstrap intervals of alpha and its parts (see :func:`alpha`)."""
    from .bootstrap import RecomputedStatistic, bootstrap, deferred_bootstrap

    variables = list(HAMMING_INTERVAL_VARIABLES if name == "hamming" else INTERVAL_VARIABLES)

    def make_statistic(inputs):
        data = inputs["da"]
        statistic = None
        if not multi_label:
            statistic = _coincidence_statistic(data, metric, name, item, annotator, categories)
        if statistic is None:
            keywords = {"item": item, "annotator": annotator,
                        "label": label if multi_label else None, "categories": categories}

            def recompute(resampled):
                return alpha(resampled, metric, **keywords)[variables]

            statistic = RecomputedStatistic(recompute, data, item=item, annotator=annotator)
        return statistic

    options = dict(ci=ci, n_resamples=n_resamples, resample=resample, method=method, seed=seed,
                   return_replicates=return_replicates, progress=progress)
    if _is_dask(da.data):
        if resample == "item" and not multi_label and not isinstance(seed,
                                                                     np.random.Generator):
            statistic = make_statistic({"da": da})
            if getattr(statistic, "is_lazy", False):
                # the coincidence table stays lazy: the bootstrap runs block by block
                return bootstrap(statistic, result, variables=variables, item=item, **options)
        # lazy: one task gets the array in memory when computed and resamples it there
        return deferred_bootstrap(make_statistic, {"da": da}, result, variables=variables,
                                  item=item, **options)
    return bootstrap(make_statistic({"da": da}), result, variables=variables, item=item,
                     **options)


# --- multi-label decisions ----------------------------------------------------------------


def _hamming_alpha(da, item, annotator, label):
    counts = hamming_counts(da, item, annotator, label)
    table = counts.label_counts
    m = table["deciders"]
    pairable = m >= 2
    cells = table.sel(stat="cells", drop=True)
    positives = table.sel(stat="positives", drop=True)
    squares = table.sel(stat="positives_squared", drop=True)
    values = (m * cells).where(pairable, 0).sum("deciders")
    ones = positives.where(pairable, 0).sum("deciders")
    # sum_i 2 x (m - x) / (m - 1) = sum over ordered pairs of differing decisions, / (m - 1)
    observed_sum = (2 * (m * positives - squares) / np.maximum(m - 1, 1)).where(pairable, 0)
    observed_sum = observed_sum.sum("deciders")
    # ordered pairs of pairable decisions that differ: 2 x (n - x)
    expected_sum = (2 * ones * (values - ones)).astype(np.float64)

    def ratio(numerator, denominator):
        return numerator / denominator.where(denominator > 0)

    label_expected = ratio(expected_sum, values * (values - 1))
    total_values = values.sum(label)
    total_expected = (expected_sum / (values - 1).where(values >= 2)).fillna(0).sum(label)
    total_observed = observed_sum.sum(label)
    mean_values = total_values / counts.sizes[label]
    result = xr.Dataset(
        {
            "alpha": 1 - ratio(total_observed, total_expected),
            "observed_disagreement": ratio(total_observed, total_values),
            "expected_disagreement": ratio(total_expected, total_values),
            "n_pairable_values": mean_values.astype(np.float64),
            "n_pairable_items": (counts.item_pairs > 0).sum(item),
            "label_alpha": 1 - ratio(observed_sum * (values - 1), expected_sum),
            "label_observed_disagreement": ratio(observed_sum, values),
            "label_expected_disagreement": label_expected,
            "label_weight": (ratio(values, mean_values) * label_expected).fillna(0),
            "label_pairable_values": values,
        }
    )
    return result


def _coded_label_sets(values, name, bad_value, partial_vector, scope=""):
    """Label-set codes (G, N, n) int32 (-1 missing) of 0/1/NaN decisions ``values`` (G, N,
    n, k) and the distinct sets, bit-packed (V, words) uint64. A value other than 0, 1, NaN
    raises ``bad_value()``; a partly missing label vector raises an error naming the first
    one with ``partial_vector(position)`` (``scope`` says where they were counted)."""
    G, N, n, k = values.shape
    words = (k + 63) // 64
    packed = np.zeros((G, N, n, words), np.uint64)
    status = _kernels.pack_label_sets(values, packed)
    if (status == 3).any():
        raise ValueError(bad_value())
    if (status == 2).any():
        position = np.unravel_index(int(np.argmax(status == 2)), status.shape)
        raise ValueError(
            f"the label vector at {partial_vector(position)} is only partly missing "
            f"({int((status == 2).sum())} such vector(s){scope}); metric {name!r} compares "
            "whole label sets, so an annotation must be complete or entirely NaN. Use "
            "metric='hamming' for per-decision missing data."
        )
    present = status == 0
    rows = packed[present]
    if words == 1:
        distinct, inverse = np.unique(rows[:, 0], return_inverse=True)
        distinct = distinct[:, None]
    else:
        distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    codes = np.full(status.shape, -1, np.int32)
    codes[present] = inverse.reshape(-1)
    return codes, np.ascontiguousarray(distinct, dtype=np.uint64)


def _set_alpha(da, metric, name, item, annotator, label):
    extra, coords = _extra_frame(da, (item, annotator, label))
    ordered = da.transpose(*extra, item, annotator, label)
    shape = tuple(ordered.sizes[d] for d in extra)
    values = np.asarray(ordered.values)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    N, n, k = values.shape[-3:]
    words = (k + 63) // 64

    def bad_value():
        block_coords = [(d, ordered[d].values if d in ordered.coords
                         else np.arange(ordered.sizes[d])) for d in ordered.dims]
        return describe_position(values, block_coords)

    codes, distinct = _coded_label_sets(
        values.reshape((-1, N, n, k)), name, bad_value,
        lambda position: _describe_vector(ordered, position, extra, item, annotator, shape))
    bits = np.unpackbits(distinct.astype("<u8").view(np.uint8), axis=1, bitorder="little")[:, :k]
    sizes = bits.sum(axis=1).astype(np.int64)
    if name in SET_METRIC_IDS:
        ratings = _Ratings(codes, 0, np.arange(len(distinct)))
        counts = _Counts(ratings, False)
        if words == 1:  # distances looked up by (|s|, |t|, |s & t|)
            table = _set_distance_table(name, k)
            observed_sum, expected_sum = _pair_sums(
                ratings, counts, _kernels.DELTA_SET_TABLE, packed=distinct, sizes=sizes,
                delta=table, expected=False)
            expected_sum = _set_expected_sums(counts, distinct, sizes, table, k)
        else:
            observed_sum, expected_sum = _pair_sums(ratings, counts, SET_METRIC_IDS[name],
                                                    packed=distinct, sizes=sizes)
        return _finish(observed_sum, expected_sum, counts.pairable, counts.pairable_items,
                       extra, shape, coords)
    label_values = [_plain(v) for v in
                    (ordered[label].values if label in ordered.coords else np.arange(k))]
    label_sets = np.empty(len(distinct), dtype=object)
    label_sets[:] = [frozenset(label_values[j] for j in np.flatnonzero(row)) for row in bits]
    ratings = _Ratings(codes, 0, label_sets)
    counts = _Counts(ratings, len(label_sets) <= COINCIDENCE_LIMIT)
    return _categorical_result(ratings, counts, label_sets, metric, name, extra, shape, coords)


def _set_expected_sums(counts: _Counts, packed, sizes, table, n_labels):
    """E = sum over ordered pairs of pairable label sets of their distance, per group, for
    distinct sets ``packed`` (V, 1) uint64: from the histogram of (|s|, |t|, |s & t|) when the
    sets are sparse enough for its subset enumeration to beat comparing every pair of distinct
    sets (and its int64 binomial inversion cannot overflow), else pair by pair."""
    k1 = n_labels + 1
    out = np.zeros(counts.value_counts.shape[0])
    for g, value_counts in enumerate(counts.value_counts):
        used = value_counts > 0
        n_used = int(used.sum())
        if n_used < 2:
            continue
        largest = int(sizes[used].max())
        subsets = float(np.sum(2.0 ** sizes[used]))
        # |terms| of the inversion: C(r, c) * M[a, b, r] <= n**2 C(L, L / 2)**2, L + 1 of them
        bound = (float(value_counts.sum()) ** 2 * math.comb(largest, largest // 2) ** 2
                 * (largest + 1))
        if largest <= 24 and bound < 2.0**62 and subsets * SUBSETS_PER_PAIR < n_used**2 / 2:
            histogram = _kernels.intersection_histogram(
                np.ascontiguousarray(packed[:, 0]), sizes, value_counts, n_labels)
            out[g] = float((histogram * table.reshape(k1, k1, k1)).sum())
        else:
            with _threads_for(float(n_used) ** 2):
                out[g] = _kernels.pair_expected(
                    np.ascontiguousarray(value_counts[None, :]), _kernels.DELTA_SET_TABLE,
                    table, _EMPTY_NUMBERS, packed, sizes)[0]
    return out


def _set_distance_table(name: str, n_labels: int) -> np.ndarray:
    """Jaccard / MASI distance for every (|s|, |t|, |s & t|), shaped
    ((k + 1) * (k + 1), k + 1) as the kernels index it; impossible cells are 0."""
    k1 = n_labels + 1
    size_s, size_t, common = np.meshgrid(np.arange(k1), np.arange(k1), np.arange(k1),
                                         indexing="ij")
    union = size_s + size_t - common
    with np.errstate(divide="ignore", invalid="ignore"):
        similarity = np.where(union > 0, common / np.maximum(union, 1), 1.0)
    if name == "jaccard":
        weight = np.ones_like(similarity)
    else:
        subset, overlap = (0.67, 0.33) if name == "masi_rounded" else (2.0 / 3.0, 1.0 / 3.0)
        weight = np.select(
            [(size_s == size_t) & (common == size_s), common == np.minimum(size_s, size_t),
             common > 0],
            [1.0, subset, overlap], 0.0)
    distance = np.where(union > 0, 1.0 - similarity * weight, 0.0)
    return np.ascontiguousarray(distance.reshape(k1 * k1, k1))


def _describe_vector(ordered, position, extra, item, annotator, shape) -> str:
    group, i, a = position
    extra_position = np.unravel_index(group, shape) if shape else ()
    parts = []
    for dim, p in [*zip(extra, extra_position), (item, i), (annotator, a)]:
        value = _plain(ordered[dim].values[p]) if dim in ordered.coords else p
        parts.append(f"{dim}={value!r}")
    return ", ".join(parts)


# --- dask: per-block additive statistics ----------------------------------------------
# Every block (a run of items, all annotators and labels, a run of extra-dim values) is
# counted by one task: its own distinct values (or label sets) with their pairable counts,
# the items by number of ratings, the agreeing pairs and the observed distance sum, all
# additive once the distinct values of two blocks are merged. A tree of merges gives the
# totals of each extra-dim block, from which alpha is finished on small arrays. Ordinal
# distances (mid-ranks of the total frequencies) and Gwet's standard error need the totals
# in every block: a second (and for ordinal with se a third) pass over the blocks takes
# them as input, and its per-block sums are added the same way.

SPLIT_EVERY = 8  # blocks merged per task of the tree reductions
# Task names of the outputs where "alpha-<variable>" would not do: dask's key_split reads
# an 8-letter word starting with a-f ("expected", "category") as part of the token.
OUTPUT_TASKS = {"alpha": "alpha-coefficient",
                "expected_disagreement": "alpha-chance-disagreement",
                "category_pairable_values": "alpha-coincidence-margins"}


class _Totals:
    """Summed block statistics, with the attributes of :class:`_Counts` that the finishing
    functions read."""

    def __init__(self, stats: dict):
        self.value_counts = stats["value_counts"]
        self.items_by_m = stats["items_by_m"]
        self.agreeing_by_m = stats["agreeing_by_m"]
        m = np.arange(self.items_by_m.shape[1])
        self.pairable = (self.items_by_m * m).sum(axis=1)
        self.pairable_items = self.items_by_m[:, 2:].sum(axis=1)


class _DaskPlan:
    """What the tasks of a dask alpha need besides their block (small and picklable)."""

    def __init__(self, name, metric, multi_label, *, categories=None, numbers=None,
                 float_error=None, with_coincidence=False, n_labels=0, label_values=None,
                 confidence=None, population_size=None):
        self.name = name
        self.metric = metric
        self.multi_label = multi_label
        self.categories = categories  # declared values (object array) or None
        self.numbers = numbers  # declared values as numbers (interval, ratio)
        self.float_error = float_error  # (type, message) if object blocks must be numbers
        self.with_coincidence = with_coincidence
        self.n_labels = n_labels
        self.label_values = label_values
        self.confidence = confidence
        self.population_size = population_size


def _dask_plan(da, metric, name, multi_label, label, categories, confidence,
               population_size):
    """The plan and, for a callable on declared categories, its distances (one graph key,
    not a copy in every task), after the checks the numpy path makes from the dtype and
    the arguments (the values themselves are checked block by block, at compute time)."""
    if multi_label:
        k = da.sizes[label]
        label_values = None
        if name == "callable":
            label_values = [_plain(v) for v in (da[label].values if label in da.coords
                                                 else np.arange(k))]
        return _DaskPlan(name, metric, True, n_labels=k, label_values=label_values), None
    kind = da.dtype.kind
    numeric = name in ("interval", "ratio")
    if kind == "c":
        raise TypeError(f"ratings must be numbers, codes or strings, got dtype {da.dtype}")
    float_error = None
    if categories is None and name in ("ordinal", "interval", "ratio") and kind not in "biuf":
        if numeric:
            error = (TypeError, f"metric {name!r} needs numeric ratings; got dtype {da.dtype}")
        else:
            error = (ValueError, ("metric 'ordinal' on non-numeric ratings needs their "
                                  "rank order: pass categories=[lowest, ..., highest]"))
        if kind != "O":
            raise error[0](error[1])
        float_error = error  # numbers in an object array are fine: known block by block
    declared = numbers = delta = None
    if categories is not None:
        declared = declared_categories(categories)
        if numeric:
            try:
                numbers = np.asarray(declared, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"metric {name!r} needs numeric categories, got "
                                f"{list(declared)[:5]}") from None
        if name == "callable":
            delta = _callable_delta(metric, [_plain(v) for v in declared])
    with_coincidence = (declared is not None and not numeric
                        and len(declared) <= COINCIDENCE_LIMIT)
    plan = _DaskPlan(name, metric, False, categories=declared, numbers=numbers,
                     float_error=float_error, with_coincidence=with_coincidence,
                     confidence=confidence, population_size=population_size)
    return plan, delta


def _block_array(block, coords) -> xr.DataArray:
    """A block as a DataArray with its slice of every coordinate (for error messages)."""
    return xr.DataArray(block, dims=[d for d, _ in coords], coords=dict(coords))


def _empty_values(block, plan: _DaskPlan):
    if plan.multi_label:
        return np.zeros((0, (plan.n_labels + 63) // 64), np.uint64)
    return np.zeros(0, block.dtype if block.dtype.kind in "iuf" else object)


def _block_codes(block, coords, plan: _DaskPlan, values=None):
    """Codes (G, N, n) int32 of a block of single-label ratings (-1 missing) and the value
    of each code: the declared categories, the given ``values`` (the merged values of all
    blocks, in the later passes) or the block's own distinct ratings (first pass)."""
    G = int(np.prod(block.shape[:-2]))
    N, n = block.shape[-2:]
    if N == 0:
        kept = plan.categories if plan.categories is not None else values
        return np.zeros((G, 0, n), np.int32), (kept if kept is not None
                                               else _empty_values(block, plan))
    ratings = _block_array(block, coords)
    if plan.float_error is not None:
        try:  # numbers (and None) in an object array, as the numpy path reads them
            ratings = ratings.astype(np.float64)
        except (TypeError, ValueError):
            raise plan.float_error[0](plan.float_error[1]) from None
    if plan.categories is not None:
        return _coded(ratings, plan.categories).values.reshape(G, N, n), plan.categories
    if values is None:
        coded = _coded(ratings, None)
        return coded.values.reshape(G, N, n), coded.categories
    x = np.asarray(ratings.values)
    if x.dtype.kind in "biuf":
        present = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
        codes = np.full(x.shape, -1, np.int64)
        codes[present] = np.searchsorted(values, x[present])
    else:
        codes, _ = encode_ratings(ratings, values)
    return codes.astype(np.int32).reshape(G, N, n), values


@functools.lru_cache(maxsize=8)
def _cached_set_table(name: str, n_labels: int) -> np.ndarray:
    return _set_distance_table(name, n_labels)


def _single_block_counts(block, delta=None, *, coords, plan: _DaskPlan) -> dict:
    """The additive statistics of one block of single-label ratings (``delta``: a
    callable's distances between the declared categories)."""
    codes, values = _block_codes(block, coords, plan)
    G = codes.shape[0]
    V = len(values)
    value_counts, seen, items, agreeing, coincidence, _ = _kernels.rating_counts_serial(
        codes, 0.0, V, plan.with_coincidence)
    stats = {"values": None if plan.categories is not None else values,
             "value_counts": value_counts, "items_by_m": items, "agreeing_by_m": agreeing}
    if plan.with_coincidence:
        stats["coincidence"] = coincidence
    name = plan.name
    if name in ("interval", "ratio"):
        numbers = plan.numbers if plan.numbers is not None else np.asarray(values, np.float64)
        numbers = np.ascontiguousarray(numbers, dtype=np.float64)
        if name == "ratio" and (numbers[seen.sum(axis=0) > 0] < 0).any():
            ratings = _block_array(block, coords)
            negative = np.asarray(ratings.values, dtype=np.float64) < 0
            raise ValueError(_describe_rating(ratings, negative, "is negative; the ratio "
                                              "metric needs values >= 0"))
        if name == "interval":
            weights = np.ascontiguousarray(np.broadcast_to(numbers, (G, V)))
            stats["observed_sum"] = _kernels.squared_spread(codes, 0.0, weights, 1)
        else:
            stats["observed_sum"] = _kernels.pair_observed(
                codes, 0.0, _kernels.DELTA_RATIO, _EMPTY_DELTA, numbers, _EMPTY_PACKED,
                _EMPTY_SIZES, 1)
    elif name == "callable":
        if delta is None:
            delta = _callable_delta(plan.metric, [_plain(v) for v in values])
        stats["observed_sum"] = _kernels.pair_observed(
            codes, 0.0, _kernels.DELTA_MATRIX, delta, _EMPTY_NUMBERS, _EMPTY_PACKED,
            _EMPTY_SIZES, 1)
    return stats


def _set_sizes(packed, n_labels):
    bits = np.unpackbits(np.ascontiguousarray(packed).astype("<u8").view(np.uint8), axis=1,
                         bitorder="little")[:, :n_labels]
    return bits, bits.sum(axis=1).astype(np.int64)


def _label_sets(bits, label_values):
    label_sets = np.empty(len(bits), dtype=object)
    label_sets[:] = [frozenset(label_values[j] for j in np.flatnonzero(row)) for row in bits]
    return label_sets


def _set_block_counts(block, delta=None, *, coords, plan: _DaskPlan) -> dict:
    """The additive statistics of one block of multi-label decisions: the block's distinct
    label sets (bit-packed) with their pairable counts, and the observed distance sum."""
    values = np.asarray(block)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    extra_shape = values.shape[:-3]
    G = int(np.prod(extra_shape))
    N, n, k = values.shape[-3:]
    words = (k + 63) // 64

    def partial_vector(position):
        ordered = _block_array(block, coords)
        extra = list(ordered.dims[:-3])
        item, annotator = ordered.dims[-3:-1]
        return _describe_vector(ordered, position, extra, item, annotator, extra_shape)

    codes, distinct = _coded_label_sets(
        values.reshape(G, N, n, k), plan.name,
        lambda: describe_position(np.asarray(block), coords), partial_vector,
        scope=" in this block")
    value_counts, _, items, agreeing, _, _ = _kernels.rating_counts_serial(
        codes, 0.0, len(distinct), False)
    stats = {"values": distinct, "value_counts": value_counts, "items_by_m": items,
             "agreeing_by_m": agreeing}
    bits, sizes = _set_sizes(distinct, k)
    if plan.name in SET_METRIC_IDS:
        if words == 1:
            metric_id, delta = _kernels.DELTA_SET_TABLE, _cached_set_table(plan.name, k)
        else:
            metric_id, delta = SET_METRIC_IDS[plan.name], _EMPTY_DELTA
        stats["observed_sum"] = _kernels.pair_observed(codes, 0.0, metric_id, delta,
                                                       _EMPTY_NUMBERS, distinct, sizes, 1)
    elif plan.name == "callable":
        delta = _callable_delta(plan.metric, list(_label_sets(bits, plan.label_values)))
        stats["observed_sum"] = _kernels.pair_observed(
            codes, 0.0, _kernels.DELTA_MATRIX, delta, _EMPTY_NUMBERS, _EMPTY_PACKED,
            _EMPTY_SIZES, 1)
    return stats


def _union(arrays):
    """Sorted union of distinct values (1-D) or packed label sets (2-D uint64), and where
    each input's entries sit in it."""
    lengths = [len(a) for a in arrays]
    splits = np.cumsum(lengths)[:-1]
    if arrays[0].dtype == object:
        try:
            union = sorted(set().union(*(a.tolist() for a in arrays)))
        except TypeError as error:
            raise TypeError(f"ratings of mixed types cannot be ordered: {error}") from None
        position = {value: p for p, value in enumerate(union)}
        return (np.asarray(union, dtype=object),
                [np.array([position[v] for v in a.tolist()], np.int64) for a in arrays])
    joined = np.concatenate(arrays)
    if joined.ndim == 2 and joined.shape[1] == 1:
        union, inverse = np.unique(joined[:, 0], return_inverse=True)
        union = union[:, None]
    else:
        union, inverse = np.unique(joined, axis=0 if joined.ndim == 2 else None,
                                   return_inverse=True)
    return union, np.split(inverse.reshape(-1), splits)


def _merge_counts(parts) -> dict:
    """Block statistics of several blocks merged: value counts re-indexed to the union of
    the distinct values, everything else added."""
    first = parts[0]
    merged = {key: sum(p[key] for p in parts) for key in first
              if key not in ("values", "value_counts")}
    if first["values"] is None:  # declared categories: the same codes in every block
        merged["values"] = None
        merged["value_counts"] = sum(p["value_counts"] for p in parts)
        return merged
    used = [p for p in parts if len(p["values"])] or parts[:1]
    union, positions = _union([p["values"] for p in used])
    value_counts = np.zeros((first["items_by_m"].shape[0], len(union)), np.int64)
    for p, where in zip(used, positions):
        value_counts[:, where] += p["value_counts"]
    merged["values"] = union
    merged["value_counts"] = value_counts
    return merged


def _add_arrays(parts):
    return sum(parts[1:], parts[0])


def _ranked_block_sums(block, totals, *, coords, plan: _DaskPlan):
    """Ordinal: the block's observed distance sums on the mid-ranks of the total
    frequencies."""
    codes, _ = _block_codes(block, coords, plan, totals["values"])
    return _kernels.squared_spread(codes, 0.0, _ordinal_ranks(totals["value_counts"]), 1)


def _ordinal_ranks(value_counts):
    return np.ascontiguousarray(np.cumsum(value_counts, axis=1) - value_counts / 2.0)


def _finish_totals(totals, ranked_observed, delta, *, plan: _DaskPlan, shape, extra) -> dict:
    """alpha and its parts of one extra-dim block from the merged block statistics; for
    the standard error also what the second pass over the blocks needs."""
    counts = _Totals(totals)
    name = plan.name
    values = totals["values"] if plan.categories is None else plan.categories
    numbers = None
    if plan.multi_label:
        words = (plan.n_labels + 63) // 64
        if name in SET_METRIC_IDS:
            observed_sum = totals["observed_sum"]
            sizes = _set_sizes(values, plan.n_labels)[1]
            if words == 1:
                expected_sum = _set_expected_sums(
                    counts, values, sizes, _cached_set_table(name, plan.n_labels),
                    plan.n_labels)
            else:
                expected_sum = _pair_expected_sum(counts, SET_METRIC_IDS[name], packed=values,
                                                  sizes=sizes)
        elif name == "nominal":
            observed_sum, expected_sum = _nominal_sums(counts)
        else:
            bits = _set_sizes(values, plan.n_labels)[0]
            delta = _callable_delta(plan.metric, list(_label_sets(bits, plan.label_values)))
            observed_sum = totals["observed_sum"]
            expected_sum = _pair_expected_sum(counts, _kernels.DELTA_MATRIX, delta=delta)
    elif name == "nominal":
        observed_sum, expected_sum = _nominal_sums(counts)
    elif name == "ordinal":
        observed_sum = ranked_observed
        expected_sum = _spread_expected(_ordinal_ranks(counts.value_counts), counts)
    elif name in ("interval", "ratio"):
        numbers = plan.numbers if plan.numbers is not None else np.asarray(values, np.float64)
        numbers = np.ascontiguousarray(numbers, dtype=np.float64)
        observed_sum = totals["observed_sum"]
        if name == "interval":
            weights = np.ascontiguousarray(np.broadcast_to(numbers, counts.value_counts.shape))
            expected_sum = _spread_expected(weights, counts)
        else:
            expected_sum = _pair_expected_sum(counts, _kernels.DELTA_RATIO, numbers=numbers)
    else:
        if delta is None:
            delta = _callable_delta(plan.metric, [_plain(v) for v in values])
        observed_sum = totals["observed_sum"]
        expected_sum = _pair_expected_sum(counts, _kernels.DELTA_MATRIX, delta=delta)
    result = _finish(observed_sum, expected_sum, counts.pairable, counts.pairable_items,
                     extra, shape, {})
    out = {var: result[var].values for var in result.data_vars}
    if plan.with_coincidence:
        V = len(values)
        out["coincidence"] = totals["coincidence"].reshape(shape + (V, V))
        out["category_pairable_values"] = counts.value_counts.reshape(shape + (V,))
    if plan.confidence is not None:
        scores = numbers if name == "interval" else None
        # the distances need the category values only, not the ratings
        metric_id, delta, numbers, scores, rows = _distance_rows(
            _Ratings(None, 0, values), counts, name, plan.metric, numbers, scores, delta)
        rows = np.ascontiguousarray(rows)
        constants = [
            _gwet_constants(int(counts.pairable_items[g]), float(counts.pairable[g]),
                            float(observed_sum[g]),
                            float((counts.value_counts[g] * rows[g]).sum()))
            for g in range(len(rows))
        ]
        out["se_inputs"] = {
            "values": values, "metric_id": metric_id, "delta": delta, "numbers": numbers,
            "scores": scores, "rows": rows, "constants": constants,
            "rated_items": counts.items_by_m[:, 1:].sum(axis=1),
            "pairable_items": counts.pairable_items,
        }
    return out


def _se_block_sums(block, finished, *, coords, plan: _DaskPlan):
    """The block's sums of Gwet's squared linearized deviations, per group."""
    inputs = finished["se_inputs"]
    codes, _ = _block_codes(block, coords, plan, inputs["values"])
    terms = _kernels.item_pair_terms(codes, 0.0, inputs["metric_id"], inputs["delta"],
                                     inputs["numbers"], inputs["scores"], inputs["rows"])
    return np.array([0.0 if constants is None else _gwet_squares(terms[g], constants)
                     for g, constants in enumerate(inputs["constants"])])


def _finish_se(finished, squares, *, plan: _DaskPlan, shape) -> dict:
    inputs = finished["se_inputs"]
    n = inputs["pairable_items"]
    variance = np.array([
        math.nan if constants is None
        else _gwet_variance(squares[g], int(n[g]), inputs["rated_items"][g],
                            plan.population_size)
        for g, constants in enumerate(inputs["constants"])
    ])
    se, lower, upper = _standard_error_limits(finished["alpha"], variance.reshape(shape),
                                              (n - 1).reshape(shape), plan.confidence)
    return {"se": se, "ci_lower": lower, "ci_upper": upper}


def _dask_alpha(da, metric, name, multi_label, *, item, annotator, label, categories,
                confidence, population_size) -> xr.Dataset:
    """:func:`alpha` of a dask-backed array as a lazy Dataset (see the section comment).

    Task names: ``alpha-counts`` (one per block: the first pass), ``alpha-counts-partial``
    and ``alpha-counts-sum`` (the tree of merges), ``alpha-finish`` (per extra-dim block);
    for ordinal ``alpha-ranked`` (+ ``-partial``, ``-sum``), for the standard error
    ``alpha-se-terms`` (+ ``-partial``, ``-sum``) and ``alpha-standard-error``; the outputs
    are ``alpha-<variable>`` (or as in ``OUTPUT_TASKS``).
    """
    from dask.array import Array
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    roles = (item, annotator, label) if multi_label else (item, annotator)
    plan, declared_delta = _dask_plan(da, metric, name, multi_label, label, categories,
                                      confidence, population_size)
    extra, coords = _extra_frame(da, roles)
    ordered = da.transpose(*extra, *roles)
    n_extra = len(extra)
    data = ordered.data.rechunk({axis: -1 for axis in range(n_extra + 1, ordered.ndim)})
    dim_values = [(d, ordered[d].values) for d in ordered.dims]
    token = tokenize(data.name, name, metric, categories, confidence, population_size,
                     [(d, v) for d, v in dim_values])
    offsets = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in data.chunks]
    extra_blocks = list(np.ndindex(*data.numblocks[:n_extra]))
    n_item_blocks = data.numblocks[n_extra]
    core_tail = (0,) * (ordered.ndim - n_extra - 1)

    def block_coords(index):
        return [(dim, values[offsets[axis][i]:offsets[axis][i + 1]])
                for axis, ((dim, values), i) in enumerate(zip(dim_values, index + core_tail))]

    def extra_shape(e):
        return tuple(data.chunks[axis][i] for axis, i in enumerate(e))

    layers, dependencies = {}, {}

    def add_layer(prefix, tasks, depends_on):
        name_ = f"{prefix}-{token}"
        layers[name_] = tasks
        dependencies[name_] = set(depends_on)
        return name_

    distances = None
    if declared_delta is not None:
        distances = add_layer("alpha-distances", {(f"alpha-distances-{token}",):
                                                  declared_delta}, [])

    def block_pass(prefix, function, per_extra=None):
        """One task per block; ``per_extra``: the layer whose (name, *e) key it also takes
        (else the declared distances, if any)."""
        layer = f"{prefix}-{token}"
        tasks = {}
        shared = per_extra if per_extra is not None else distances
        for e in extra_blocks:
            for i in range(n_item_blocks):
                index = (*e, i)
                arguments = [(data.name, *index, *core_tail)]
                if shared is not None:
                    arguments.append((shared, *(e if per_extra is not None else ())))
                tasks[(layer, *index)] = (
                    partial(function, coords=block_coords(index), plan=plan), *arguments)
        return add_layer(prefix, tasks, [data.name] + ([shared] if shared else []))

    def tree(prefix, leaves, combine):
        """Per extra-dim block, the leaves combined ``SPLIT_EVERY`` at a time."""
        partial_layer, total_layer = f"{prefix}-partial-{token}", f"{prefix}-sum-{token}"
        partial_tasks, total_tasks = {}, {}
        for e in extra_blocks:
            keys = [(leaves, *e, i) for i in range(n_item_blocks)]
            level = 0
            while len(keys) > SPLIT_EVERY:
                merged = []
                for start in range(0, len(keys), SPLIT_EVERY):
                    key = (partial_layer, level, *e, start // SPLIT_EVERY)
                    partial_tasks[key] = (combine, keys[start:start + SPLIT_EVERY])
                    merged.append(key)
                keys, level = merged, level + 1
            total_tasks[(total_layer, *e)] = (combine, keys)
        add_layer(f"{prefix}-partial", partial_tasks, [leaves])
        return add_layer(f"{prefix}-sum", total_tasks, [leaves, partial_layer])

    counts = block_pass("alpha-counts",
                        _set_block_counts if multi_label else _single_block_counts)
    totals = tree("alpha-counts", counts, _merge_counts)
    ranked_sum = None
    if name == "ordinal" and not multi_label:
        ranked = block_pass("alpha-ranked", _ranked_block_sums, per_extra=totals)
        ranked_sum = tree("alpha-ranked", ranked, _add_arrays)
    finish_tasks = {
        ("alpha-finish-" + token, *e): (
            partial(_finish_totals, plan=plan, shape=extra_shape(e), extra=extra),
            (totals, *e), None if ranked_sum is None else (ranked_sum, *e),
            None if distances is None else (distances,))
        for e in extra_blocks
    }
    finished = add_layer("alpha-finish", finish_tasks,
                         [layer for layer in (totals, ranked_sum, distances) if layer])
    sources = {var: finished for var in ("alpha", "observed_disagreement",
                                         "expected_disagreement", "n_pairable_values",
                                         "n_pairable_items")}
    if plan.with_coincidence:
        sources.update(coincidence=finished, category_pairable_values=finished)
    if plan.confidence is not None and not multi_label:
        terms = block_pass("alpha-se-terms", _se_block_sums, per_extra=finished)
        squares = tree("alpha-se-terms", terms, _add_arrays)
        se_tasks = {
            ("alpha-standard-error-" + token, *e): (partial(_finish_se, plan=plan, shape=extra_shape(e)),
                                        (finished, *e), (squares, *e))
            for e in extra_blocks
        }
        se = add_layer("alpha-standard-error", se_tasks, [finished, squares])
        sources.update(se=se, ci_lower=se, ci_upper=se)

    graph = HighLevelGraph.from_collections(counts, layers[counts], dependencies=[data])
    all_layers = {**graph.layers, **layers}
    all_dependencies = {**graph.dependencies, **dependencies}
    V = len(plan.categories) if plan.with_coincidence else 0
    core = {"coincidence": (("category", "paired_category"), ((V,), (V,))),
            "category_pairable_values": (("category",), ((V,),))}
    integer = ("n_pairable_values", "n_pairable_items", "category_pairable_values")
    outputs = {}
    for var, source in sources.items():
        core_dims, core_chunks = core.get(var, ((), ()))
        output = f"{OUTPUT_TASKS.get(var, 'alpha-' + var.replace('_', '-'))}-{token}"
        all_layers[output] = {
            (output, *e, *(0,) * len(core_dims)): (operator.getitem, (source, *e), var)
            for e in extra_blocks
        }
        all_dependencies[output] = {source}
        outputs[var] = ((*extra, *core_dims), (output, core_chunks))
    graph = HighLevelGraph(all_layers, all_dependencies)
    variables = {
        var: (dims, Array(graph, output, chunks=data.chunks[:n_extra] + core_chunks,
                          dtype=np.int64 if var in integer else np.float64))
        for var, (dims, (output, core_chunks)) in outputs.items()
    }
    result = xr.Dataset(variables, coords=coords)
    if plan.with_coincidence:
        category_coord = np.asarray(plan.categories)
        result = result.assign_coords(category=category_coord, paired_category=category_coord)
    return result
