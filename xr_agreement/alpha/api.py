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
  :func:`xr_agreement.mla.counts.hamming_counts` (missing cells allowed).

Uncertainty: single-label results carry Gwet's (2014) analytic standard error, from three
numbers per item (m_i, the within-item distance sum and sum_a sum_k n_k delta(c_a, k); one
kernel pass, see :func:`_gwet_alpha_variance`); ``ci=`` adds bootstrap intervals through
:mod:`xr_agreement.resampling`, from per-item coincidence contributions where the number of
distinct values allows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, _plain
from .._core.validate import (_check_confidence, _check_population, check_annotators,
                              check_binary_dtype, check_dataarray, check_dims, describe_position)
from ..mla import hamming_counts
from ..resampling.driver import bootstrap, check_options, deferred_bootstrap
from ..resampling.statistics import RecomputedStatistic
from . import kernels as _kernels
from .counts import (_as_integers, _categorical_result, _coded, _coded_label_sets, _Counts,
                     _describe_rating, _describe_vector, _extra_frame, _finish, _pair_sums,
                     _Ratings, _set_expected_sums, _spread_sums, COINCIDENCE_LIMIT,
                     INTEGER_SPAN_LIMIT)
from .dask import _dask_alpha
from .distances import (_metric_name, _set_distance_table, MULTI_LABEL_METRICS, SET_METRIC_IDS,
                        SINGLE_LABEL_METRICS)
from .intervals import _coincidence_statistic, HAMMING_INTERVAL_VARIABLES, INTERVAL_VARIABLES
from .variance import _with_standard_errors


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
        :mod:`xr_agreement.resampling` for the semantics.
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
    :mod:`xr_agreement.resampling`).

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

        ci, n_resamples, resample, method = check_options(
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


def _bootstrap_intervals(da, result, metric, name, multi_label, *, item, annotator, label,
                         categories, ci, n_resamples, resample, method, seed,
                         return_replicates, progress):
    """``result`` with bootstrap intervals of alpha and its parts (see :func:`alpha`)."""

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
