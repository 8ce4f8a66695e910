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
kernel pass, see :func:`.finish_kernels.gwet_constants`); ``ci_method="percentile"`` or
``"bca"`` gives bootstrap intervals through :mod:`xr_agreement.resampling`, from per-item
coincidence contributions where the number of distinct values allows.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .._core.categorical import EXACT_INTEGERS
from .._core.student_t import t_quantile
from .._core.threads import item_runs
from .._core.dataset import (dataset, dimension_coordinates, input_coordinates,
                             reasons_as_coordinates,
                             InputCoordinates, Layout, variable)
from .._core.validate import (CoordinateValues, _check_confidence, _check_population, check_annotators,
                              check_binary_dtype, check_dataarray, check_dims)
from ..mla import hamming_counts
from ..resampling.driver import bootstrap, check_options
from ..resampling.statistics import RecomputedStatistic
from .blocks import (_finish_se, _finish_totals, _label_set_names, _merge_counts, _Plan, _plan,
                     _ranked_block_sums, _se_block_sums, _set_bits, _set_block_counts,
                     _single_block_counts, _with_moments)
from .counts import _undefined_reasons, COINCIDENCE_LIMIT, REASON_TEXT
from . import finish_kernels as _finish
from .variance import _standard_error_limits
from .dask import _dask_alpha
from .distances import _metric_name, MULTI_LABEL_METRICS, SINGLE_LABEL_METRICS
from .intervals import _coincidence_statistic, HAMMING_INTERVAL_VARIABLES, INTERVAL_VARIABLES


CI_METHODS = ("analytic", "percentile", "bca")


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
    "alpha_se": (
        "standard error of alpha",
        "se",
        ("Gwet's (2014) analytic standard error of alpha conditional on the annotators, from "
        "his linearized per-item terms over the pairable items (distances held fixed: for "
        "'ordinal' the ranks of the observed frequencies); times sqrt(1 - n / "
        "population_size) when a population size is given; NaN with alpha or with fewer "
        "than 2 pairable items"),
    ),
    "alpha_lower": (
        "lower confidence limit of alpha",
        "CI_lo",
        ("alpha - t(n - 1) quantile * alpha_se, n the pairable items (Gwet's t-based "
         "interval at ci_level)"),
    ),
    "alpha_upper": (
        "upper confidence limit of alpha",
        "CI_hi",
        "alpha + t(n - 1) quantile * alpha_se, capped at 1",
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
    "undefined_reason": (
        "why alpha is undefined",
        "",
        ('"" where alpha is defined, else why it is NaN: "no pairable values" or "expected '
         'disagreement is 0: all pairable values are equal"'),
    ),
    "coincidence": (
        "coincidence matrix",
        "o_ck",
        ("sum over pairable items of (n_ic n_ik - [c = k] n_ic) / (m_i - 1): ordered pairs of "
        "ratings on the same item, each item weighted 1 / (m_i - 1); rows sum to n_c"),
    ),
    "category_n_pairable_values": (
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
    # not label_weight, which is MLA's 1 - A_e,j: the two would clash in one Dataset
    "label_alpha_weight": (
        "label weight in alpha",
        "w_j",
        ("(n_j / mean n_j) D_e,j, so that alpha = sum_j w_j alpha_j / sum_j w_j (the paper's eq. "
        "6 for alpha); on complete data M / (M - 1) times the MLA F-baseline weight 1 - A_e,j; "
        "0 for a label without variation"),
    ),
    "label_n_pairable_values": (
        "label pairable decisions",
        "n_j",
        "decisions on the label in (item, label) cells with at least two decisions",
    ),
    "label_undefined_reason": (
        "why label alpha is undefined",
        "",
        ('"" where label_alpha is defined, else why it is NaN: "no pairable values" or '
         '"expected disagreement is 0: all pairable values are equal"'),
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
    ci: float | None = 0.95,
    ci_method: str = "analytic",
    population_size=None,
    n_resamples: int = 1000,
    resample: str = "item",
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
    ci : float in (0, 1) or None, default 0.95
        Level of the interval; None: no interval and no standard error (one pass over the
        ratings instead of two). The attrs record ``ci_level`` and ``ci_method``.
    ci_method : {"analytic", "percentile", "bca"}, default "analytic"
        "analytic" (single-label metrics): Gwet's standard error ``alpha_se`` and t-based
        limits ``alpha_lower``, ``alpha_upper``. Label sets have no analytic interval: their
        result says so in ``attrs["ci_note"]``. "percentile" or "bca": bootstrap intervals
        instead (no
        ``alpha_se``): ``alpha``, ``observed_disagreement`` and ``expected_disagreement``
        (for "hamming" also the label-level ``label_alpha``,
        ``label_observed_disagreement``, ``label_expected_disagreement``,
        ``label_alpha_weight``) gain ``V_lower`` and ``V_upper``; the attrs also record
        ``ci_n_resamples`` and ``ci_resampling_unit``. See :mod:`xr_agreement.resampling`
        for the semantics.
    population_size : int, optional
        Number of items in the population, for the finite-population factor of
        ``alpha_se``.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item", "annotator", "both"}, default "item"
        The resampled unit; an annotator drawn twice counts as two raters (their pair
        is compared like any other). Expected disagreement, the ordinal ranks and the
        pairable values are recomputed in every replicate.
    seed : int or numpy.random.Generator, optional
        The same seed gives the same intervals on numpy and dask input.
    return_replicates : bool, default False
        Add ``V_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        A tqdm progress bar; by default when stderr is a terminal or in a notebook.

    Returns
    -------
    xarray.Dataset
        ``alpha``, ``observed_disagreement``, ``expected_disagreement``,
        ``n_pairable_values``, ``n_pairable_items`` and ``undefined_reason`` (text, ""
        where alpha is defined). For nominal-type metrics ("nominal", "ordinal",
        callables) with at most 256 distinct values also ``coincidence`` (dims
        ``category``, ``paired_category``) and ``category_n_pairable_values`` (on dask
        input only with ``categories=``); for label sets the categories are text, the JSON
        list of the set's labels in label order (``'["a", "b"]'``, ``'[]'`` for the empty
        set; ``json.loads`` gives the list), which every store (netCDF, zarr) accepts. For
        "hamming" also ``label_alpha``, ``label_observed_disagreement``,
        ``label_expected_disagreement``, ``label_alpha_weight``, ``label_n_pairable_values``
        and ``label_undefined_reason`` over ``label``. For single-label metrics with
        ``ci_method="analytic"`` also ``alpha_se``, ``alpha_lower`` and ``alpha_upper``
        (Gwet's analytic standard error and t-based limits, see Notes). Each variable has
        ``long_name`` and ``description`` attrs, the paper's values a ``symbol``.

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

    Numpy and dask run the same functions (:mod:`xr_agreement.alpha.blocks`): a block of
    items is counted (its distinct values or label sets with their pairable counts, items
    by number of ratings, agreeing pairs, observed distance sums), blocks are merged
    (distinct values united, counts added) and alpha is finished from the totals. On
    numpy the whole array is one block; on dask every item chunk is one (annotator and
    label merged into single chunks, extra dims keep their chunks), a tree of merges gives
    the totals and the result is lazy. "hamming" sums per-chunk label counts. "ordinal"
    (ranks of the total frequencies) and ``alpha_se`` (Gwet's per-item terms given the
    totals) read the blocks once more each, with the small totals as input; except nominal
    ``alpha_se`` on a long numpy corpus with at most 16 distinct values, which follows
    exactly from moments summed in the counting pass. On dask
    ``coincidence`` and ``category_n_pairable_values`` are returned only with
    ``categories=`` (their size is otherwise known only from the data). The merged totals
    hold one count per distinct value or label set: small for categories, as many as the
    ratings for continuous data. Integer counts are exact; float distance sums are added
    in another order than on numpy (differences at rounding level, about 1e-13 on a
    million items). Values are checked block by block: on dask an invalid one raises at
    compute time, naming its position. Bootstrap intervals hold the per-item table of the
    bootstrap in memory (see :mod:`xr_agreement.resampling`).

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

    >>> [round(float(result[v]), 5) for v in ("alpha_se", "alpha_lower", "alpha_upper")]
    [0.18508, 0.15951, 0.99685]

    The same on dask input, chunked along ``item``: lazy, computed block by block:

    >>> lazy = ratings.chunk({"item": 4}).agreement.alpha("nominal")
    >>> round(float(lazy.alpha), 6), round(float(lazy.alpha_se), 5)
    (0.578182, 0.18508)

    Label sets of the MLA paper's worked example:

    >>> ex = xr_agreement.datasets.bias_example()
    >>> round(float(ex.agreement.alpha("masi").alpha), 4)
    0.272
    >>> hamming = ex.agreement.alpha("hamming")
    >>> round(float(hamming.alpha), 4), float(hamming.n_pairable_values)
    (0.296, 12.0)

    Whole label sets compared ("nominal", the default): a category is a label set, written
    as the JSON list of its labels:

    >>> sets = xr.DataArray([[[1, 0], [1, 0]], [[1, 1], [0, 1]], [[0, 0], [0, 0]]],
    ...                     dims=("item", "annotator", "label"), coords={"label": ["a", "b"]})
    >>> nominal = sets.agreement.alpha()
    >>> nominal.category.values.tolist()
    ['[]', '["a"]', '["b"]', '["a", "b"]']
    >>> nominal.coincidence.sel(category='["a", "b"]').values
    array([0., 0., 1., 0.])
    """
    check_dataarray(da, "annotations")
    multi_label = label is not None and label in da.dims
    if multi_label:
        check_dims(da, item=item, annotator=annotator, label=label)
    else:
        check_dims(da, item=item, annotator=annotator)
    check_annotators(da, annotator)
    name = _metric_name(metric, multi_label, label)
    analytic = _check_intervals(ci, ci_method, multi_label, name)
    _check_population(population_size, da.shape[da.dims.index(item)])
    bootstrapped = ci is not None and ci_method.lower() != "analytic"
    if bootstrapped:
        ci, n_resamples, resample, ci_method = check_options(
            ci, n_resamples, resample, ci_method, seed, progress
        )
    if multi_label:
        if categories is not None:
            raise ValueError("categories= applies to single-label ratings; this array has the "
                             f"label dim {label!r}")
        check_binary_dtype(da)
    if name == "nominal" and not multi_label and not bootstrapped and categories is None:
        # described as it is built
        result = _small_alpha(da, item, annotator, ci if analytic else None, population_size)
        if result is not None:
            return result
    options = dict(item=item, annotator=annotator, label=label if multi_label else None,
                   categories=categories, ci=ci if analytic else None,
                   population_size=population_size)
    if name == "hamming":
        result = _hamming_alpha(da, item, annotator, label)
    elif _is_dask(da.data):
        result = _dask_alpha(da, metric, name, multi_label, **options)
    else:
        result = _numpy_alpha(da, metric, name, multi_label, **options)
    _describe(result, da, metric, name, multi_label, item, annotator, label)
    if analytic:
        result.attrs.update(ci_level=float(ci), ci_method="analytic")
    elif ci is not None and ci_method.lower() == "analytic":  # label sets: none exists
        result.attrs["ci_note"] = (f"metric {name!r} on label sets has no analytic interval; "
                                   "ci_method='percentile' or 'bca' gives bootstrap intervals")
    if not bootstrapped:
        return result
    return _bootstrap_intervals(
        da, result, metric, name, multi_label,
        item=item, annotator=annotator, label=label, categories=categories, ci=ci,
        n_resamples=n_resamples, resample=resample, ci_method=ci_method, seed=seed,
        return_replicates=return_replicates, progress=progress,
    )


def _check_intervals(ci, ci_method, multi_label, name) -> bool:
    """Whether ``ci=``, ``ci_method=`` ask for Gwet's analytic interval (single-label
    only); bad values raise naming the keyword."""
    if ci is not None:
        _check_confidence(ci, "ci")
    if not isinstance(ci_method, str) or ci_method.lower() not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {list(CI_METHODS)}, got {ci_method!r}")
    if ci is None or ci_method.lower() != "analytic":
        return False
    # label sets have no analytic interval: the result says so in attrs["ci_note"]
    return not multi_label


def _variable_attrs(hamming: bool) -> dict:
    """Each variable's attrs (from :data:`VARIABLES`, the Hamming descriptions if
    ``hamming``), made once: a Variable's attrs setter copies them."""
    attrs = {}
    for var, (long_name, symbol, description) in VARIABLES.items():
        if hamming:
            description = HAMMING_DESCRIPTIONS.get(var, description)
        attrs[var] = {"long_name": long_name, **({"symbol": symbol} if symbol else {}),
                      "description": description}
    return attrs


_VARIABLE_ATTRS = {False: _variable_attrs(False), True: _variable_attrs(True)}


def _describe(result, da, metric, name, multi_label, item, annotator, label):
    """The variables' and the Dataset's attrs."""
    described = _VARIABLE_ATTRS[name == "hamming"]
    # on the Variables themselves: result[var] would build a DataArray for each
    for var, result_variable in result.variables.items():
        attrs = described.get(var)
        if attrs is not None:
            result_variable.attrs = attrs  # (copied by the setter)
    result.attrs = _dataset_attrs(da, metric, name, multi_label, item, annotator,
                                  label)  # (copied by the setter)


def _dataset_attrs(da, metric, name, multi_label, item, annotator, label) -> dict:
    """The attrs of :func:`alpha`'s Dataset (without an interval's: :func:`alpha` adds
    them). Shared between results (made once): copy it to change it."""
    definitions = MULTI_LABEL_METRICS if multi_label else SINGLE_LABEL_METRICS
    sizes = dict(zip(da.dims, da.shape))  # (da.sizes builds a mapping on every read)
    definition = definitions[name] if name in definitions else (
        f"user-supplied distance {getattr(metric, '__name__', repr(metric))}")
    return _attrs(name, definition, sizes[item], sizes[annotator],
                  sizes[label] if multi_label else None, None)


@functools.lru_cache(maxsize=256)
def _attrs(name, definition, n_items, n_annotators, n_labels, ci_level) -> dict:
    """The Dataset's attrs, with ``ci_level`` and ``ci_method`` of Gwet's interval given
    ``ci_level`` (the small-call path's), made once per arguments: shared, copy to change."""
    return {
        "metric": name,
        "metric_definition": definition,
        "n_items": n_items,
        "n_annotators": n_annotators,
        **({"n_labels": n_labels} if n_labels is not None else {}),
        "missing_data": "missing ratings left out; items with fewer than 2 ratings are not "
        "pairable (Krippendorff's pairable values)",
        "reference": "Krippendorff, Content Analysis (2004/2019), ch. 12; Passonneau (2006) "
        "for MASI; Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., for alpha_se",
        **({} if ci_level is None else {"ci_level": float(ci_level), "ci_method": "analytic"}),
    }


def _numpy_alpha(da, metric, name, multi_label, *, item, annotator, label, categories, ci,
                 population_size) -> xr.Dataset:
    """:func:`alpha` of an in-memory array: the block functions of :mod:`.blocks` on the
    whole array as one block (counted on the thread pool)."""
    roles = (item, annotator, label) if multi_label else (item, annotator)
    plan, delta = _plan(da, metric, name, multi_label, label, categories, ci,
                        population_size, parallel=True)
    extra = [d for d in da.dims if d not in roles]
    order = (*extra, *roles)
    shape = tuple(da.sizes[d] for d in extra)
    # a transposed view of the data: DataArray.transpose would rebuild every coordinate
    values = np.asarray(da.data).transpose([da.dims.index(d) for d in order])
    block = {"coords": CoordinateValues(da, order), "plan": plan}
    count = _set_block_counts if multi_label else _single_block_counts
    stats = count(values, delta, **block)
    ratings = stats.pop("ratings", None)  # the coded array, for the second passes
    totals = _merge_counts([stats])
    ranked = None
    if name == "ordinal" and not multi_label:
        ranked = _ranked_block_sums(values, totals, ratings=ratings, **block)
    finished = _finish_totals(totals, ranked, delta, plan=plan, shape=shape)
    if plan.ci is not None and not multi_label:
        squares = finished["se_inputs"].get("squares")  # nominal: from the counting pass
        if squares is None:
            squares = _se_block_sums(values, finished, ratings=ratings, **block)
        finished.update(_finish_se(finished, squares, plan=plan, shape=shape))
    finished.pop("se_inputs", None)
    categories = None
    if "coincidence" in finished:
        category = totals["values"] if plan.categories is None else plan.categories
        if multi_label:
            category = _label_set_names(_set_bits(category, plan.n_labels), plan.label_values)
        elif plan.categories is None and name != "callable" and da.dtype.kind in "biuf":
            category = _input_dtype(category, da.dtype)
        if plan.categories is None and not multi_label:
            category = _keep_seen(category, totals["seen"], finished)
        categories = dimension_coordinates({"category": category, "paired_category": category})
    return _result_dataset(finished, input_coordinates(da, extra), extra, categories)


# --- the small-call path ------------------------------------------------------------------

# Up to this many ratings (all groups) of numbers, nominal alpha takes the small-call path
# (:func:`_small_alpha`). Below it the general path counts in one run of items
# (``item_runs`` is 1 up to 4,096 items) and takes the standard error's second pass, not
# the counting pass's moments (``blocks._with_moments`` needs over 70,000 ratings): both
# paths run the same kernels in the same order. (Both are checked on each call too.)
SMALL_RATINGS = 1 << 13


# What ``blocks._with_moments`` reads of the general path's plan for nominal alpha with
# Gwet's interval.
_NOMINAL_SE_PLAN = _Plan("nominal", "nominal", False, ci=0.95, parallel=True)


def _small_alpha(da, item, annotator, ci, population_size) -> xr.Dataset | None:
    """:func:`alpha`'s result (attrs and all, ``ci=None`` or Gwet's interval at ``ci``)
    for nominal alpha of a small numpy array of integral numbers (no declared categories),
    or None where the general path must run.

    One compiled call (:func:`.finish_kernels.small_nominal`: the general path's kernels,
    counting then finishing, with no Python between them) and the Dataset built once: at
    50 items x 5 annotators with Gwet's interval (bench_kappa case 4) the whole call took
    69 us instead of 271 us through :func:`_numpy_alpha` (min of 1,500 calls, alternating
    with the peers; 45-50 us in a loop of its own, 37 us since the results' small
    coordinates are made once, ``_core.dataset.dimension_coordinates``, 27 us since the
    Dataset is built from a kept layout, :func:`_small_layout`)."""
    data = da.data
    if (not isinstance(data, np.ndarray) or data.dtype.kind not in "biuf"
            or data.size > SMALL_RATINGS):
        return None
    dims = da.dims
    extra = dims[:-2]
    if dims[-2:] != (item, annotator):  # a transposed view, as in _numpy_alpha
        extra = tuple(d for d in dims if d not in (item, annotator))
        data = data.transpose([dims.index(d) for d in (*extra, item, annotator)])
    shape = data.shape[:-2]
    N, n = data.shape[-2:]
    # the general path counts in one run of items and (with moments for at least one value,
    # then for all) takes the second pass: else it is the one to run
    if item_runs(N) > 1 or (ci is not None and _with_moments(_NOMINAL_SE_PLAN, 1, N, n)):
        return None
    values = np.ascontiguousarray(data, dtype=np.float64).reshape((-1,) + data.shape[-2:])
    population = math.nan if population_size is None else float(population_size)
    # the t quantile of the interval for all N items pairable, the usual case: the kernel
    # then computes the limits too (a second kernel call and the quantile after it cost
    # 7-8 us of the 50-item call above)
    t = _t_quantile(N - 1, ci) if ci is not None else math.nan
    ok, n_seen, limited, value_counts, seen, coincidence, integers, floats, category = (
        _finish.small_nominal(values, ci is not None, population, COINCIDENCE_LIMIT,
                              EXACT_INTEGERS, N - 1, t))
    if not ok:
        return None
    V = value_counts.shape[1]
    alpha_value = floats[0].reshape(shape)
    finished = {"alpha": alpha_value, "observed_disagreement": floats[1].reshape(shape),
                "expected_disagreement": floats[2].reshape(shape),
                "n_pairable_values": integers[0].reshape(shape),
                "n_pairable_items": integers[1].reshape(shape),
                "undefined_reason": REASON_TEXT[integers[3]].reshape(shape),
                "coincidence": coincidence.reshape(shape + (V, V)),
                "category_n_pairable_values": value_counts.reshape(shape + (V,))}
    if limited:
        finished.update(alpha_se=floats[5].reshape(shape), alpha_lower=floats[6].reshape(shape),
                        alpha_upper=floats[7].reshape(shape))
    elif ci is not None:
        se, lower, upper = _standard_error_limits(alpha_value, floats[4].reshape(shape),
                                                  (integers[1] - 1).reshape(shape), ci)
        finished.update(alpha_se=se, alpha_lower=lower, alpha_upper=upper)
    category = _input_dtype(category, da.dtype)
    if n_seen < V:
        category = _keep_seen(category, seen, finished)
    attrs = _attrs("nominal", SINGLE_LABEL_METRICS["nominal"], N, n, None, ci)
    coordinates = input_coordinates(da, extra)
    if extra or coordinates.variables:  # the input's coordinates are part of the structure
        return _result_dataset(finished, coordinates, extra,
                               dimension_coordinates({"category": category,
                                                      "paired_category": category}), attrs)
    return _small_layout(tuple(finished), category.dtype.str, category.tobytes()).dataset(
        finished, attrs)


@functools.lru_cache(maxsize=64)
def _small_layout(names: tuple, category_dtype: str, category_bytes: bytes) -> Layout:
    """The structure of :func:`_small_alpha`'s result without extra dims or input
    coordinates, with the variables ``names`` and these category values: made once (see
    :class:`.._core.dataset.Layout`), from a result of zeros built as any other."""
    category = np.frombuffer(category_bytes, np.dtype(category_dtype))
    V = category.size
    shapes = {"coincidence": (V, V), "category_n_pairable_values": (V,)}
    return Layout(_result_dataset(
        {name: np.zeros(shapes.get(name, ())) for name in names}, InputCoordinates({}, {}), (),
        dimension_coordinates({"category": category, "paired_category": category}), {}))


@functools.lru_cache(maxsize=256)
def _t_quantile(dof: int, confidence: float) -> float:
    """The t quantile of Gwet's limits at ``dof`` degrees of freedom (NaN below 1), as
    :func:`.variance._standard_error_limits` computes it."""
    return float(t_quantile(float(dof), confidence)) if dof >= 1 else math.nan


def _input_dtype(category, dtype):
    """Category values of numeric ratings in the input's dtype (booleans as int64), as
    ``encode_ratings`` gives them."""
    return np.asarray(category).astype(dtype if dtype.kind in "iuf" else np.int64,
                                       copy=False)


def _keep_seen(category, seen, finished):
    """The categories some rating has (integral ratings are counted over a whole range of
    values), and ``finished``'s coincidence and margins cut to them (in place)."""
    kept = seen.sum(axis=0) > 0
    if kept.all():
        return np.asarray(category)
    finished["coincidence"] = finished["coincidence"][..., kept, :][..., kept]
    finished["category_n_pairable_values"] = finished["category_n_pairable_values"][..., kept]
    return np.asarray(category)[kept]


_CORE_DIMS = {"coincidence": ("category", "paired_category"),
              "category_n_pairable_values": ("category",)}


def _result_dataset(finished, coordinates, extra, categories, attrs=None) -> xr.Dataset:
    """The Dataset of the ``finished`` arrays over the ``extra`` dims, on the input's
    ``coordinates`` of those dims; given the Dataset's ``attrs``, the variables get theirs
    too (as from :func:`_describe`)."""
    described = _VARIABLE_ATTRS[False] if attrs is not None else {}
    return dataset({var: variable((*extra, *_CORE_DIMS.get(var, ())), value,
                                  described.get(var))
                    for var, value in finished.items()}, coordinates,
                   attrs, coords_after=categories)


def _bootstrap_intervals(da, result, metric, name, multi_label, *, item, annotator, label,
                         categories, ci, n_resamples, resample, ci_method, seed,
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
                # ci=None: the replicates need no analytic standard error
                return alpha(resampled, metric, ci=None, **keywords)[variables]

            statistic = RecomputedStatistic(recompute, data, item=item, annotator=annotator)
        return statistic

    options = dict(ci=ci, n_resamples=n_resamples, resample=resample, ci_method=ci_method,
                   seed=seed, return_replicates=return_replicates, progress=progress)
    # on dask input the driver runs block by block (a lazy coincidence table) or in one task
    return bootstrap(make_statistic({"da": da}), result, variables=variables, item=item,
                     rebuild=(make_statistic, {"da": da}), **options)


# --- multi-label decisions ----------------------------------------------------------------


def _hamming_alpha(da, item, annotator, label):
    return hamming_alpha_from_counts(hamming_counts(da, item, annotator, label), item, label)


def hamming_alpha_from_counts(counts: xr.Dataset, item: str, label: str) -> xr.Dataset:
    """Hamming alpha (the variables of :func:`alpha` with ``metric="hamming"``, without
    attrs) from the additive counts of :func:`xr_agreement.mla.hamming_counts`; any count
    Dataset of that layout will do (the spans family sums its counts over documents)."""
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
            "label_alpha_weight": (ratio(values, mean_values) * label_expected).fillna(0),
            "label_n_pairable_values": values,
            "label_undefined_reason": _reasons(values, expected_sum),
        }
    )
    result["undefined_reason"] = _reasons(total_values, total_expected)
    return reasons_as_coordinates(result)


def _reasons(pairable: xr.DataArray, expected_sum: xr.DataArray) -> xr.DataArray:
    """:func:`.counts._undefined_reasons` of (possibly dask-backed) DataArrays."""
    return xr.apply_ufunc(_undefined_reasons, pairable, expected_sum, dask="parallelized",
                          output_dtypes=[REASON_TEXT.dtype])
