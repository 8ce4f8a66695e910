"""The classic chance-corrected agreement coefficients: Cohen's kappa (pairwise, with the Byrt
prevalence and bias indices), Fleiss' kappa, Conger's kappa, Gwet's AC1/AC2, Brennan-Prediger
and percent agreement, with Gwet's analytic standard errors.

Two kinds of input are accepted:

- single-label ratings, dims ``item`` x ``annotator``; values are category codes, strings or
  numbers, NaN/None missing. The overall coefficient uses every category (with ``weights=``);
  ``category_*`` variables give the category-vs-rest (binary) coefficient of each category.
- multi-label binary decisions, dims ``item`` x ``annotator`` x ``label`` (0/1, NaN missing).
  Each label is a binary rating problem; its coefficient is reported over the ``label`` dim in
  place of ``category``, and the overall coefficient pools the labels:
  ``(mean_j P_o,j - mean_j P_e,j) / (1 - mean_j P_e,j)`` over labels with a pairable item (on
  complete data Fleiss, AC1 and Brennan-Prediger pooled this way equal
  :func:`xr_agreement.mla` with baselines F, AC1 and PB).

A ``label`` dim (name given by ``label=``) marks multi-label input; without it the array is
read as single-label ratings and any further dim (a ``round``) is carried through.

Dask input gives a lazy result: nothing is computed until asked (``.compute()``), the sums over
items run chunk by chunk with dask's tree reductions, and a multi-label value other than 0/1/NaN
(or a rating outside declared ``categories``) is reported when computed. One exception: for
single-label ratings without declared ``categories`` the set of categories must be known to
shape the result, so the distinct ratings are computed first (one pass over the ratings;
declare ``categories=`` to avoid it). Bootstrap intervals (``ci=``) are lazy too: item
resampling from an int seed runs block by block (each item block adds its part of every
replicate's sums, a tree adds the blocks; BCa's item jackknife is a second pass), while
annotator resampling (``"annotator"``, ``"both"``) and a ``numpy.random.Generator`` seed
gather the one-hot ratings into one task when computed (memory as on numpy).

Two kinds of interval: ``ci_lower``/``ci_upper`` are the analytic (Gwet's t-based, or normal
for Cohen's) limits at level ``confidence``; with ``ci=`` each coefficient variable ``V`` also
gains bootstrap bounds ``V_lower``/``V_upper`` (:mod:`xr_agreement.bootstrap`). Item
resampling needs no resampled array: every sum over items that a coefficient uses is a
column of a per-item table (Gwet's per-item terms; for Cohen's kappa the pairs' contingency
tables), so a batch of replicates is one matrix product of the resampling counts with that
table, finished like the point values (:class:`KappaStatistic`).

Missing ratings follow Gwet's generalized formulas (Gwet 2014, *Handbook of Inter-Rater
Reliability*, 4th ed., ch. 2-5): items with no rating are dropped, observed agreement averages
the items with at least two ratings, category propensities average the items with at least one.
The standard errors are Gwet's variances conditional on the raters (his linearized per-item
terms, with ``n - 1`` degrees of freedom for the t-based confidence interval); Cohen's uses the
asymptotic standard error of Fleiss, Cohen & Everitt (1969) with normal limits.
"""

from __future__ import annotations

import operator
from functools import partial, reduce
from statistics import NormalDist

import numpy as np
import pandas as pd
import xarray as xr

from . import bootstrap as _bootstrap
from ._categorical import (MISSING_CODE, declared_categories, encode_ratings,
                           observed_categories)
from ._stats import _is_dask
from ._validate import check_annotators, check_dataarray, check_dims, describe_position

# internal dim names; user dims cannot collide with them (checked)
_CAT = "_category"
_CAT2 = "_category_other"
_OUTCOME = "_outcome"
_ROW = "_row"
_COL = "_col"
_POOL = "_pool"

# |1 - P_e| below this is treated as 0: P_e = 1 arises from sums of products of proportions that
# are 0 or 1, so a genuine 1 - P_e is at least of the order 1 / (number of ratings)**2.
_ZERO_GAP = 1e-12

METHOD_NAMES = {
    "fleiss": "Fleiss' kappa (Scott's pi for two annotators), Gwet's generalized form",
    "conger": "Conger's kappa (Cohen's kappa generalized to several annotators)",
    "gwet": "Gwet's AC1 (AC2 with weights)",
    "brennan_prediger": "Brennan-Prediger coefficient (PABAK for two categories)",
    "percent": "percent agreement (no chance correction)",
}

REASONS = {
    "no_pairs": "no item has ratings from two annotators: observed agreement is 0/0",
    "gap": "chance agreement P_e is 1 (a single category in use): the coefficient is 0/0",
    "q": "fewer than 2 categories: Gwet's chance agreement T_w / (q (q - 1)) is undefined",
    "se": "standard error undefined: fewer than 2 rated items",
    "no_common": "no item rated by both annotators",
}

# long_name, symbol, description
VARIABLES = {
    "coefficient": (
        "agreement coefficient",
        "kappa",
        "(P_o - P_e) / (1 - P_e); NaN with the reason in undefined_reason",
    ),
    "observed": (
        "observed agreement",
        "P_o",
        "weighted share of agreeing annotator pairs, averaged over items with at least two "
        "ratings (Gwet's p_a); on multi-label input the mean over labels",
    ),
    "expected": (
        "chance agreement",
        "P_e",
        "agreement expected by chance under the coefficient's model; on multi-label input the "
        "mean over labels",
    ),
    "se": (
        "standard error",
        "se",
        "Gwet's (2014) analytic standard error conditional on the annotators, from linearized "
        "per-item terms; times sqrt(1 - n / population_size) when a population size is given",
    ),
    "ci_lower": (
        "lower confidence limit",
        "CI_lo",
        "coefficient - t(n - 1) quantile * se (Gwet's t-based interval)",
    ),
    "ci_upper": (
        "upper confidence limit",
        "CI_hi",
        "coefficient + t(n - 1) quantile * se, capped at 1",
    ),
    "category_coefficient": (
        "category-vs-rest coefficient",
        "kappa_k",
        "the coefficient of the binary problem 'category k or not' (identity weights: a "
        "binary split has no order); on multi-label input the coefficient of each label "
        "(its 0/1 problem, with the given weights)",
    ),
    "category_observed": ("category-vs-rest observed agreement", "P_o,k", "P_o of that problem"),
    "category_expected": ("category-vs-rest chance agreement", "P_e,k", "P_e of that problem"),
    "category_se": (
        "category-vs-rest standard error",
        "se_k",
        "Gwet's standard error of the category-vs-rest coefficient",
    ),
    "n_rated_items": ("rated items", "n", "items with at least one rating"),
    "n_pairable_items": ("pairable items", "n''", "items with at least two ratings"),
    "undefined_reason": (
        "why a value is undefined",
        "",
        "empty where coefficient and se are defined, else why they are NaN",
    ),
}

COHEN_VARIABLES = {
    "coefficient": (
        "Cohen's kappa",
        "kappa",
        "(P_o - P_e) / (1 - P_e) for each annotator pair on the items both rated; the diagonal "
        "is an annotator against itself (1 unless P_e = 1)",
    ),
    "observed": ("observed agreement", "P_o", "weighted share of agreeing items of the pair"),
    "expected": (
        "chance agreement",
        "P_e",
        "sum_kl w_kl p_k+ p_+l from the two annotators' own marginals",
    ),
    "se": (
        "asymptotic standard error",
        "ASE",
        "Fleiss, Cohen & Everitt (1969) standard error (statsmodels std_kappa, SAS ASE); on "
        "multi-label input the delta-method equivalent for the pooled coefficient",
    ),
    "ci_lower": ("lower confidence limit", "CI_lo", "coefficient - z * se (normal limits)"),
    "ci_upper": ("upper confidence limit", "CI_hi", "coefficient + z * se, capped at 1"),
    "n_common_items": ("items rated by both", "n_ab", "the pairwise-complete items of the pair"),
    "pabak": (
        "prevalence- and bias-adjusted kappa",
        "PABAK",
        "(P_o - T_w / q**2) / (1 - T_w / q**2): Brennan-Prediger for the pair, 2 P_o - 1 for "
        "two categories (Byrt, Bishop & Carlin 1993)",
    ),
    "bias_adjusted_kappa": (
        "bias-adjusted kappa",
        "BAK",
        "kappa with the pair's pooled marginals, i.e. Scott's pi (Byrt et al. 1993)",
    ),
    "category_coefficient": (
        "category-vs-rest Cohen's kappa",
        "kappa_k",
        "Cohen's kappa of the 2x2 table 'category k or not'; on multi-label input the kappa "
        "of each label",
    ),
    "category_se": ("category-vs-rest ASE", "ASE_k", "ASE of category_coefficient"),
    "prevalence_index": (
        "prevalence index",
        "PI_k",
        "(a - d) / n of the category-vs-rest 2x2 table: share where both chose the category "
        "minus share where neither did (Byrt et al. 1993)",
    ),
    "bias_index": (
        "bias index",
        "BI_k",
        "(b - c) / n: annotator_1's share of the category minus annotator_2's (Byrt et al. "
        "1993); for two categories kappa = (PABAK - PI**2 + BI**2) / (1 - PI**2 + BI**2)",
    ),
    "mean_coefficient": (
        "mean pairwise Cohen's kappa",
        "kappa_Light",
        "Light's kappa: mean of coefficient over the distinct annotator pairs where it is defined",
    ),
    "n_pairs": ("annotator pairs averaged", "n_pairs", "pairs in mean_coefficient"),
    "undefined_reason": (
        "why a value is undefined",
        "",
        "empty where coefficient and se are defined, else why they are NaN",
    ),
}


# --------------------------------------------------------------------------- public API


def fleiss(
    da,
    weights=None,
    *,
    categories=None,
    confidence=0.95,
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    ci=None,
    n_resamples=1000,
    resample="item",
    method="percentile",
    seed=None,
    return_replicates=False,
    progress=None,
) -> xr.Dataset:
    """Fleiss' kappa in Gwet's generalized form (Scott's pi for two annotators).

    Chance agreement ``P_e = sum_kl w_kl pi_k pi_l`` with ``pi_k`` the mean over rated items of
    the share of the item's ratings in category ``k``.

    Parameters
    ----------
    da : xarray.DataArray
        Single-label ratings (dims ``item``, ``annotator``) or multi-label 0/1 decisions (dims
        ``item``, ``annotator``, ``label``); NaN/None missing. Other dims are carried through.
    weights : None, "identity", "linear", "quadratic" or (q, q) array
        Agreement weights (1 on the diagonal, in [0, 1]). Linear and quadratic weights use the
        category values when they are numbers and their ranks otherwise (as irrCAC does).
    categories : sequence, optional
        All possible categories in order (single-label only); unused ones then still count
        (they matter for weights, Brennan-Prediger and AC1).
    confidence : float in (0, 1)
        Level of ``ci_lower``/``ci_upper``.
    population_size : int, optional
        Number of items in the population, for the finite-population correction of ``se``.
    item, annotator, label : str
        Names of the dims playing these roles; ``label`` marks multi-label input when present.
    ci : float, optional
        Confidence level (e.g. 0.95) of *bootstrap* intervals, independent of the analytic
        ``ci_lower``/``ci_upper`` (whose level is ``confidence``). Each of ``coefficient``,
        ``observed``, ``expected``, ``category_coefficient``, ``category_observed`` and
        ``category_expected`` then gains ``<name>_lower`` and ``<name>_upper`` (same dims);
        the Dataset attrs record ``ci_level``, ``ci_method``, ``ci_n_resamples`` and
        ``ci_resampling_unit``. See :mod:`xr_agreement.bootstrap` for the semantics.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item", "annotator", "both"}, default "item"
        The resampled unit. Chance agreement is recomputed in every replicate; the category
        set (or label set) stays that of the data. An annotator drawn twice counts as two
        distinct raters with identical ratings (their pair agrees; under Conger each copy
        has its own marginals).
    method : {"percentile", "bca"}, default "percentile"
        Percentile or bias-corrected and accelerated interval.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling; the same seed gives the same intervals.
    return_replicates : bool, default False
        Add ``<name>_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        Show a tqdm progress bar; by default only in interactive sessions.

    Returns
    -------
    xarray.Dataset
        ``coefficient``, ``observed``, ``expected``, ``se``, ``ci_lower``, ``ci_upper``,
        ``n_rated_items``, ``n_pairable_items``, ``undefined_reason``; over ``category`` (or
        ``label``): ``category_coefficient``, ``category_observed``, ``category_expected``,
        ``category_se``; with ``ci`` the bootstrap bounds listed above. With dask input
        everything is lazy (see the module docstring).

    Raises
    ------
    ValueError
        A dim is missing, fewer than 2 annotators, a rating outside declared ``categories``
        or a multi-label value other than 0/1/NaN (each named with its coordinates), bad
        weights, ``confidence`` outside (0, 1), ``population_size`` below the sample size.

    Notes
    -----
    Undefined values are NaN and ``undefined_reason`` says why: no item with two ratings
    (0/0 observed agreement), chance agreement 1 (every rating in one category: 0/0), fewer
    than two categories for AC1, fewer than two rated items for ``se``. irrCAC instead
    returns a value near 1 for AC1 and Brennan-Prediger with one category and replaces a zero
    standard error by 1e-15; otherwise the numbers agree with irrCAC to rounding.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]],
    ...     dims=("item", "annotator"), coords={"annotator": ["A", "B", "C"]})
    >>> result = xr_agreement.fleiss(ratings)
    >>> round(float(result.coefficient), 6)
    0.563636
    >>> result.category_coefficient.round(3).to_series().to_dict()
    {'G': 0.76, 'N': 0.55, 'P': 0.467}

    Bootstrap intervals over items next to Gwet's analytic (t-based) interval:

    >>> boot = xr_agreement.fleiss(ratings, ci=0.9, n_resamples=200, seed=0)
    >>> bool(boot.coefficient_lower < boot.coefficient < boot.coefficient_upper)
    True
    >>> boot.attrs["ci_method"], float(boot.ci_lower) < float(boot.coefficient)
    ('percentile', True)
    """
    return _coefficient(
        da, "fleiss", weights, categories, confidence, population_size, item, annotator, label,
        _bootstrap_options(locals()),
    )


def conger(
    da,
    weights=None,
    *,
    categories=None,
    confidence=0.95,
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    ci=None,
    n_resamples=1000,
    resample="item",
    method="percentile",
    seed=None,
    return_replicates=False,
    progress=None,
) -> xr.Dataset:
    """Conger's kappa: chance agreement from each annotator's own marginals, averaged over
    annotator pairs (Cohen's kappa for two annotators on complete data).

    ``P_e = sum_kl w_kl (mean_g p_gk * mean_g p_gl - s2_kl / r)`` with ``p_gk`` the share of
    annotator ``g``'s ratings in category ``k`` and ``s2_kl`` their covariance over the ``r``
    annotators (Gwet 2014). Annotators without any rating are left out of ``r``. Parameters
    and returns as in :func:`fleiss`.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]], dims=("item", "annotator"))
    >>> round(float(xr_agreement.conger(ratings).coefficient), 6)
    0.567568
    """
    return _coefficient(
        da, "conger", weights, categories, confidence, population_size, item, annotator, label,
        _bootstrap_options(locals()),
    )


def gwet(
    da,
    weights=None,
    *,
    categories=None,
    confidence=0.95,
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    ci=None,
    n_resamples=1000,
    resample="item",
    method="percentile",
    seed=None,
    return_replicates=False,
    progress=None,
) -> xr.Dataset:
    """Gwet's AC1 (AC2 with weights).

    ``P_e = T_w / (q (q - 1)) * sum_k pi_k (1 - pi_k)``, ``T_w`` the sum of the weights and
    ``q`` the number of categories. Parameters and returns as in :func:`fleiss`.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]], dims=("item", "annotator"))
    >>> round(float(xr_agreement.gwet(ratings).coefficient), 6)
    0.616
    """
    return _coefficient(
        da, "gwet", weights, categories, confidence, population_size, item, annotator, label,
        _bootstrap_options(locals()),
    )


def brennan_prediger(
    da,
    weights=None,
    *,
    categories=None,
    confidence=0.95,
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    ci=None,
    n_resamples=1000,
    resample="item",
    method="percentile",
    seed=None,
    return_replicates=False,
    progress=None,
) -> xr.Dataset:
    """Brennan-Prediger coefficient: chance agreement ``T_w / q**2`` (``1 / q`` unweighted),
    PABAK for two categories. Parameters and returns as in :func:`fleiss`.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]], dims=("item", "annotator"))
    >>> round(float(xr_agreement.brennan_prediger(ratings).coefficient), 6)
    0.6
    """
    return _coefficient(
        da,
        "brennan_prediger",
        weights,
        categories,
        confidence,
        population_size,
        item,
        annotator,
        label,
        _bootstrap_options(locals()),
    )


def percent(
    da,
    weights=None,
    *,
    categories=None,
    confidence=0.95,
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    ci=None,
    n_resamples=1000,
    resample="item",
    method="percentile",
    seed=None,
    return_replicates=False,
    progress=None,
) -> xr.Dataset:
    """Percent (raw) agreement: Gwet's ``p_a`` with no chance correction (``expected`` = 0).
    Parameters and returns as in :func:`fleiss`.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]], dims=("item", "annotator"))
    >>> round(float(xr_agreement.percent(ratings).coefficient), 6)
    0.733333
    """
    return _coefficient(
        da, "percent", weights, categories, confidence, population_size, item, annotator, label,
        _bootstrap_options(locals()),
    )


def one_hot(da, categories=None, *, label="label") -> xr.DataArray:
    """Single-label ratings as multi-label binary decisions (one label per category).

    A missing rating (NaN/None) becomes NaN across the whole vector, so it stays missing.

    Parameters
    ----------
    da : xarray.DataArray
        Ratings: category codes, strings or numbers; NaN/None missing.
    categories : sequence, optional
        All categories, in order (default: the sorted distinct ratings).
    label : str
        Name of the new dim, whose coordinate holds the categories.

    Returns
    -------
    xarray.DataArray
        float 0/1/NaN with the dims of ``da`` plus ``label``.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> da = xr.DataArray([["a", "b"], ["b", None]], dims=("item", "annotator"))
    >>> xr_agreement.one_hot(da).sel(item=1).values
    array([[ 0.,  1.],
           [nan, nan]])
    """
    check_dataarray(da, "ratings")
    if label in da.dims:
        raise ValueError(f"dim {label!r} already exists in {list(da.dims)}; pass label=...")
    codes, cats = _encode(da, categories)  # lazy on dask input (see the module docstring)
    onehot = codes == xr.DataArray(np.arange(len(cats)), dims=label)
    out = onehot.astype(np.float64).where(codes != MISSING_CODE)
    out = out.assign_coords({label: cats})
    out.name = da.name
    out.attrs = {
        "long_name": "one-hot decisions",
        "description": "1 where the rating is the label's category, NaN where missing",
    }
    return out


def cohen(
    da,
    weights=None,
    *,
    categories=None,
    confidence=0.95,
    item="item",
    annotator="annotator",
    label="label",
    ci=None,
    n_resamples=1000,
    resample="item",
    method="percentile",
    seed=None,
    return_replicates=False,
    progress=None,
) -> xr.Dataset:
    """Cohen's kappa of every annotator pair, with the Byrt prevalence and bias indices.

    Each pair uses the items both annotators rated (pairwise-complete). The standard error is
    the asymptotic one of Fleiss, Cohen & Everitt (1969), the ``ASE`` used for confidence
    limits (statsmodels ``std_kappa``), with normal limits.

    Parameters
    ----------
    da : xarray.DataArray
        Single-label ratings (dims ``item``, ``annotator``) or multi-label 0/1 decisions (with
        a ``label`` dim; each label a 2x2 problem, pooled as in :func:`fleiss`).
    weights : None, "identity", "linear", "quadratic" or (q, q) array
        Agreement weights, as in :func:`fleiss`.
    categories : sequence, optional
        All possible categories in order (single-label only).
    confidence : float in (0, 1)
        Level of ``ci_lower``/``ci_upper``.
    item, annotator, label : str
        Names of the dims playing these roles.
    ci, n_resamples, resample, method, seed, return_replicates, progress
        Bootstrap intervals as in :func:`fleiss` (``<name>_lower``/``<name>_upper``,
        separate from the analytic ``ci_lower``/``ci_upper``), the categories those of the
        data in every replicate. With
        ``resample="item"`` every pair- and category-level value but ``se``, ``ci_*`` and
        ``category_se`` gets an interval. Resampling annotators scrambles the pairs, so
        then only ``mean_coefficient`` (Light's kappa, a copied annotator's self-pair
        counting as a pair that agrees) gets one.

    Returns
    -------
    xarray.Dataset
        Over ``annotator_1`` x ``annotator_2``: ``coefficient``, ``observed``, ``expected``,
        ``se``, ``ci_lower``, ``ci_upper``, ``n_common_items``, ``pabak``,
        ``bias_adjusted_kappa``, ``undefined_reason``; over pairs and ``category`` (or
        ``label``): ``category_coefficient``, ``category_se``, ``prevalence_index``,
        ``bias_index``; ``mean_coefficient`` (Light's kappa) and ``n_pairs``.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]],
    ...     dims=("item", "annotator"), coords={"annotator": ["A", "B", "C"]})
    >>> result = xr_agreement.cohen(ratings)
    >>> round(float(result.coefficient.sel(annotator_1="A", annotator_2="B")), 6)
    0.491525
    >>> result.bias_index.sel(annotator_1="A", annotator_2="B").values
    array([ 0.1,  0. , -0.1])
    """
    _check_confidence(confidence)
    options = _check_bootstrap(_bootstrap_options(locals()))
    data = _prepare(da, weights, categories, item, annotator, label)
    out, category_dim = _cohen_values(data, confidence)
    result = xr.Dataset(out)
    result = _name_categories(result, data, category_dim)
    _attach_attrs(result, COHEN_VARIABLES)
    result.attrs = _dataset_attrs(data, "Cohen's kappa (pairwise)", confidence)
    result.attrs["missing_data"] = "pairwise-complete items for each annotator pair"
    if options is None:
        return result
    if options["resample"] == "item":
        variables = _interval_variables(result)
    else:
        variables = ["mean_coefficient"]
    statistic = KappaStatistic(data, _cohen_columns, _cohen_point, variables)
    return _kappa_intervals(statistic, result, options)


def _cohen_columns(data) -> dict:
    """The per-item terms whose sums over items :func:`cohen` uses (a tuple: factors whose
    product is the term): the pairs' contingency tables and, on multi-label input, the
    pooled coefficient's terms (see :func:`_cohen_pooled`)."""
    ind, annotator, label = data["indicator"], data["annotator"], data["label"]
    x1 = ind.rename({annotator: "annotator_1"})
    x2 = ind.rename({annotator: "annotator_2"})
    # contingency table of every pair: T[a1, a2, row, col] = items rated row by a1, col by a2
    columns = {"table": (x1.rename({_CAT: _ROW}), x2.rename({_CAT: _COL}))}
    if data["multi_label"]:
        m1 = data["rated"].rename({annotator: "annotator_1"}).astype(np.float64)
        m2 = data["rated"].rename({annotator: "annotator_2"}).astype(np.float64)
        both = m1 * m2  # item rated by both annotators on the label
        columns.update({
            "both": both,
            "marginal_1": (x1, m2),
            "marginal_2": (m1, x2),
            "agreement": xr.dot(x1, data["weights"], x2.rename({_CAT: _CAT2}),
                                dim=[_CAT, _CAT2]),
            "common": both.max(label) > 0,
        })
    return columns


def _cohen_point(data, sums) -> dict:
    """:func:`cohen`'s values from column sums (bootstrap replicates; no confidence level)."""
    return _cohen_values(data, 0.95, sums)[0]


def _cohen_values(data, confidence, sums=None):
    """Every value of :func:`cohen` from :func:`_prepare`'s output, and the category dim.

    Given ``sums`` (weighted sums over items of :func:`_cohen_columns`, dims resample, ...)
    the values on item-resampled data (a pair's contingency table is a sum over items),
    except the pooled multi-label ``se``, then NaN (its per-item terms are not formed).
    """
    w, item, label = data["weights"], data["item"], data["label"]
    columns = None
    if sums is None:
        columns = _cohen_columns(data)
        sums = _column_sums(columns, item)
    table = sums["table"]
    w_rc = w.rename({_CAT: _ROW, _CAT2: _COL})
    q = w.sizes[_CAT]
    bp_expected = float(w.sum()) / q**2
    if data["multi_label"]:
        overall = _cohen_pooled(sums, w, item, label, columns)
        used = overall["used"]
        per_label = _cohen_table(table, w_rc)
        pi = (per_label["row"] + per_label["col"].rename({_COL: _ROW})) / 2
        scott_expected = _mean_over(
            xr.dot(pi, w_rc, pi.rename({_ROW: _COL}), dim=[_ROW, _COL]), used, label
        )
        # per label: the 2x2 table itself, category "1" in the first row/column
        binary = table.isel({_ROW: [1, 0], _COL: [1, 0]}).drop_vars([_ROW, _COL], errors="ignore")
        category_dim = label
    else:
        overall = _cohen_table(table, w_rc)
        pi = (overall["row"] + overall["col"].rename({_COL: _ROW})) / 2
        scott_expected = xr.dot(pi, w_rc, pi.rename({_ROW: _COL}), dim=[_ROW, _COL])
        binary = _binary_tables(table)
        category_dim = "category"
    coefficient, observed, expected, se = (
        overall[k] for k in ("coefficient", "observed", "expected", "se")
    )
    n_common = overall["n"]
    if data["multi_label"]:
        per_cat = per_label  # each label's own 2x2 problem, with the given weights
    else:  # category-vs-rest: a binary split has no order, so identity weights
        per_cat = _cohen_table(binary, xr.DataArray(np.eye(2), dims=(_ROW, _COL)))
    n_cat = per_cat["n"].where(per_cat["n"] > 0)
    prevalence_index = (binary.isel({_ROW: 0, _COL: 0}) - binary.isel({_ROW: 1, _COL: 1})) / n_cat
    bias_index = (binary.isel({_ROW: 0, _COL: 1}) - binary.isel({_ROW: 1, _COL: 0})) / n_cat
    pabak = _safe_ratio(observed - bp_expected, xr.full_like(observed, 1 - bp_expected))
    bias_adjusted = _safe_ratio(observed - scott_expected, 1 - scott_expected)

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    reason = xr.where(
        n_common == 0, REASONS["no_common"], xr.where(coefficient.isnull(), REASONS["gap"], "")
    )
    pair_dims = ("annotator_1", "annotator_2")
    n_annotators = table.sizes["annotator_1"]
    distinct = xr.DataArray(np.triu(np.ones((n_annotators, n_annotators), bool), 1), dims=pair_dims)
    defined = coefficient.notnull() & distinct
    n_pairs = defined.sum(pair_dims)
    out = {
        "coefficient": coefficient,
        "observed": observed,
        "expected": expected,
        "se": se,
        "ci_lower": coefficient - z * se,
        "ci_upper": np.minimum(coefficient + z * se, 1.0),
        "n_common_items": n_common,
        "pabak": pabak,
        "bias_adjusted_kappa": bias_adjusted,
        "category_coefficient": per_cat["coefficient"],
        "category_se": per_cat["se"],
        "prevalence_index": prevalence_index,
        "bias_index": bias_index,
        "mean_coefficient": coefficient.where(defined).sum(pair_dims) / n_pairs.where(n_pairs > 0),
        "n_pairs": n_pairs,
        "undefined_reason": reason,
    }
    return out, category_dim


# --------------------------------------------------------------------------- preparation


def _check_confidence(confidence):
    if not (isinstance(confidence, (int, float, np.floating)) and 0 < confidence < 1):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")


def _prepare(da, weights, categories, item, annotator, label):
    """Validated indicator array (dims *extra, [label], item, annotator, _category), the rated
    mask and the weight matrix (dims _category, _category_other)."""
    check_dataarray(da, "ratings")
    reserved = {_CAT, _CAT2, _OUTCOME, _ROW, _COL, _POOL, "annotator_1", "annotator_2"}
    clash = reserved & set(da.dims)
    if clash:
        raise ValueError(f"dims {sorted(clash)} are reserved for outputs; rename them")
    multi_label = label in da.dims
    if multi_label:
        check_dims(da, item=item, annotator=annotator, label=label)
        check_annotators(da, annotator)
        if "category" in da.dims:
            raise ValueError("dim 'category' is reserved for outputs; rename it")
        if categories is not None:
            raise ValueError(
                "categories= applies to single-label ratings; multi-label input "
                f"(dim {label!r}) has the categories 0 and 1"
            )
        if da.dtype.kind not in "biuf":
            raise TypeError(
                f"multi-label decisions must be 0/1 (bool, int or float, NaN "
                f"missing); got dtype {da.dtype}"
            )
        coords = [
            (d, da[d].values if d in da.coords else np.arange(da.sizes[d])) for d in da.dims
        ]
        if _is_dask(da.data):
            # checked block by block when computed (the graph is built without computing)
            decisions = da.copy(
                data=da.data.map_blocks(_check_decisions, coords=coords, dtype=da.dtype)
            )
        else:
            decisions = da.copy(data=_check_decisions(np.asarray(da.values), coords))
        cats = np.array([0, 1])
        rated = decisions.notnull()
        ind = xr.concat([decisions == 0, decisions == 1], dim=_CAT).astype(np.float64)
    else:
        check_dims(da, item=item, annotator=annotator)
        check_annotators(da, annotator)
        if "category" in da.dims:
            raise ValueError("dim 'category' is reserved for outputs; rename it")
        codes_da, cats = _encode(da, categories)
        if len(cats) == 0:
            raise ValueError("every rating is missing: there is nothing to compare")
        rated = codes_da != MISSING_CODE
        ind = (codes_da == xr.DataArray(np.arange(len(cats)), dims=_CAT)).astype(np.float64)
    w, weights_name = _weight_matrix(weights, cats)
    extra = [d for d in ind.dims if d not in (item, annotator, _CAT)]
    ind = ind.transpose(*extra, item, annotator, _CAT)
    return {
        "indicator": ind,
        "rated": rated.transpose(*extra, item, annotator),
        "weights": xr.DataArray(w, dims=(_CAT, _CAT2)),
        "weights_name": weights_name,
        "categories": cats,
        "multi_label": multi_label,
        "item": item,
        "annotator": annotator,
        "label": label,
        "da": da,
    }


def _check_decisions(block, coords, block_info=None):
    """``block`` of multi-label decisions unchanged, or an error naming the first value other
    than 0/1/NaN by its coordinates (``coords``: (dim, values) of the whole array; dask's
    ``block_info`` locates a block in it)."""
    values = np.asarray(block)
    bad = (values != 0) & (values != 1)
    if values.dtype.kind == "f":
        bad &= ~np.isnan(values)
    if bad.any():
        if block_info and 0 in block_info:
            location = block_info[0]["array-location"]
            coords = [(d, v[a:b]) for (d, v), (a, b) in zip(coords, location)]
        raise ValueError(describe_position(values, coords))
    return block


def _encode(da, categories):
    """Category codes of single-label ratings as a DataArray (``MISSING_CODE`` where
    missing) and the categories. Dask input stays lazy when ``categories`` is declared;
    otherwise the distinct ratings are computed first (one pass over the ratings), the
    codes then lazily, block by block."""
    if not _is_dask(da.data):
        codes, cats = encode_ratings(da, categories)
        return xr.DataArray(codes, dims=da.dims, coords=da.coords), cats
    import dask

    if da.dtype.kind == "c":
        raise TypeError(f"ratings must be numbers, codes or strings, got dtype {da.dtype}")
    if categories is None:
        blocks = da.data.to_delayed().ravel()
        parts = dask.compute(*[dask.delayed(_distinct_ratings)(b) for b in blocks])
        cats = observed_categories(set().union(*parts), da.dtype)
    else:
        cats = declared_categories(categories)
    coords = {d: da[d].values for d in da.dims if d in da.coords}
    codes = da.data.map_blocks(
        _encode_block, categories=cats, dims=da.dims, coords=coords, dtype=np.int64
    )
    return xr.DataArray(codes, dims=da.dims, coords=da.coords), cats


def _distinct_ratings(block) -> set:
    flat = np.asarray(block).ravel()
    return set(flat[~pd.isna(flat)].tolist())


def _encode_block(block, categories, dims, coords, block_info=None):
    """Codes of one block; a rating outside ``categories`` is named by its coordinates in the
    whole array (``coords``, located with dask's ``block_info``)."""
    if block_info and 0 in block_info:
        location = block_info[0]["array-location"]
        coords = {d: coords[d][a:b] for d, (a, b) in zip(dims, location) if d in coords}
    located = xr.DataArray(block, dims=dims, coords=coords)
    return encode_ratings(located, categories)[0]


def _weight_matrix(weights, cats):
    """Agreement weights (q, q) for the categories: identity, linear, quadratic or given."""
    q = len(cats)
    if weights is None or (isinstance(weights, str) and weights == "identity"):
        return np.eye(q), "identity"
    if isinstance(weights, str):
        if weights not in ("linear", "quadratic"):
            raise ValueError(
                f"unknown weights {weights!r}; use None, 'identity', 'linear', "
                "'quadratic' or a (q, q) matrix"
            )
        if q < 2:
            return np.eye(q), weights
        numeric = np.asarray(cats).dtype.kind in "biuf"
        scores = np.asarray(cats, np.float64) if numeric else np.arange(1.0, q + 1)
        distance = np.abs(scores[:, None] - scores[None, :]) / (scores.max() - scores.min())
        return (1 - distance if weights == "linear" else 1 - distance**2), weights
    matrix = np.asarray(weights, dtype=np.float64)
    if matrix.shape != (q, q):
        raise ValueError(
            f"weights matrix must be ({q}, {q}) for the categories "
            f"{list(cats)}; got shape {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)) or matrix.min() < 0 or matrix.max() > 1:
        raise ValueError("weights must be finite numbers in [0, 1]")
    if not np.all(np.diag(matrix) == 1):
        raise ValueError(
            f"weights must be 1 on the diagonal (full agreement); got {np.diag(matrix).tolist()}"
        )
    return matrix, "custom"


# --------------------------------------------------------------------------- Gwet family


def _item_sum(values, item, item_weights):
    """Sum over items, item ``i`` counted ``item_weights[..., i]`` times when given (dims
    resample, item): the sum over an item-resampled array, without building it."""
    if item_weights is None:
        return values.sum(item, skipna=False)
    return xr.dot(values.astype(np.float64), item_weights, dim=item)


def _column_sums(columns: dict, item, item_weights=None) -> dict:
    """:func:`_item_sum` of each per-item column; a column given as a tuple of factors (its
    per-item term is their product) is summed without forming that product."""
    sums = {}
    for name, column in columns.items():
        if not isinstance(column, tuple):
            sums[name] = _item_sum(column, item, item_weights)
        else:
            weights = () if item_weights is None else (item_weights,)
            sums[name] = xr.dot(*column, *weights, dim=item)
    return sums


def _problem_columns(ind, w, method, annotator) -> dict:
    """The per-item terms of Gwet's formulas for indicator ``ind`` (dims ..., item,
    annotator, _category; 0/1, no NaN; every leading dim is a separate problem) whose sums
    over items the point values use (see :func:`_problem_terms`)."""
    # the indicator has no NaN: skipna=False avoids NaN-aware (slow) reductions
    counts = ind.sum(annotator, skipna=False)  # r_ik
    raters = counts.sum(_CAT, skipna=False)  # r_i
    pairable = raters >= 2
    weighted_counts = xr.dot(w, counts.rename({_CAT: _CAT2}), dim=_CAT2)  # r*_ik
    pair_den = np.maximum(raters * (raters - 1), 1)
    columns = {
        "rated_item": raters >= 1,
        "pairable": pairable,
        "item_observed": (xr.dot(counts, weighted_counts - 1, dim=_CAT) / pair_den).where(
            pairable, 0.0
        ),
        "share": counts / np.maximum(raters, 1),  # r_ik / r_i (0 on unrated items)
    }
    if method == "conger":
        columns["rated"] = ind.sum(_CAT, skipna=False)  # epsilon_ig
        columns["indicator"] = ind
    return columns


def _problem_terms(sums, w, method, annotator, columns=None):
    """Per-problem quantities of Gwet's formulas from ``sums``, the sums over items of
    :func:`_problem_columns` (weighted sums, with a ``resample`` dim, give the values on
    item-resampled data: Gwet's statistics are sums of per-item terms). The per-item terms,
    needed only for the standard error, come with the per-item ``columns`` (else None)."""
    q = w.sizes[_CAT]
    n, n_pairable = sums["rated_item"], sums["pairable"]
    observed = sums["item_observed"] / n_pairable.where(n_pairable > 0)
    pi = sums["share"] / n.where(n > 0)
    share = None if columns is None else columns["share"]
    total_weight = float(w.sum())
    item_expected = None
    if method == "fleiss":
        pi_other = pi.rename({_CAT: _CAT2})
        expected = xr.dot(w, pi, pi_other, dim=[_CAT, _CAT2])
        if share is not None:
            # asymmetric weights enter through (w + w') / 2, as in Gwet's variance
            pi_w = xr.dot(w, pi_other, dim=_CAT2) + xr.dot(w, pi, dim=_CAT).rename({_CAT2: _CAT})
            item_expected = xr.dot(share, pi_w / 2, dim=_CAT)
    elif method == "gwet":
        scale = total_weight / (q * (q - 1)) if q >= 2 else np.nan
        expected = scale * xr.dot(pi, 1 - pi, dim=_CAT)
        if share is not None:
            item_expected = scale * xr.dot(share, 1 - pi, dim=_CAT)
    elif method == "brennan_prediger":
        expected = xr.full_like(observed, total_weight / q**2)
        item_expected = expected
    elif method == "percent":
        expected = xr.zeros_like(observed)
        item_expected = expected
    elif method == "conger":
        expected, item_expected = _conger_terms(sums, w, annotator, columns)
    else:  # pragma: no cover - internal
        raise ValueError(method)
    per_item = columns or {}
    return {
        "observed": observed,
        "expected": expected,
        "item_observed": per_item.get("item_observed"),
        "item_expected": item_expected,
        "rated_item": per_item.get("rated_item"),
        "pairable": per_item.get("pairable"),
        "n": n,
        "n_pairable": n_pairable,
        "q": q,
    }


def _conger_terms(sums, w, annotator, columns=None):
    """Conger's chance agreement and, given the per-item ``columns``, Gwet's per-item
    chance terms (Gwet 2014, ch. 5).

    Gwet's ``lambda_ig = (n / n_g) sum_kl (r pbar_k - p_gk) w_kl (delta_igl - (eps_ig - n_g /
    n) p_gl)`` summed over annotators is ``sum_g B_g,code(i,g) - sum_g eps_ig C_g + sum_g D_g``
    with small (annotator x category) factors, so no (item x annotator x category x category)
    array is formed.
    """
    n, n_g = sums["rated_item"], sums["rated"]
    active = n_g > 0  # annotators without any rating are left out
    r = active.sum(annotator)
    p_gk = sums["indicator"] / n_g.where(active)
    p_mean = p_gk.sum(annotator) / r
    p_other = p_gk.rename({_CAT: _CAT2})
    mean_other = p_mean.rename({_CAT: _CAT2})
    cross = xr.dot(p_gk.fillna(0.0), p_other.fillna(0.0), dim=annotator)
    s2 = (cross - r * p_mean * mean_other) / (r - 1).where(r > 1)
    expected = (w * (p_mean * mean_other - s2 / r)).sum([_CAT, _CAT2], skipna=False)
    if columns is None:  # per-item terms serve the standard error only
        return expected, None
    ind, rated = columns["indicator"], columns["rated"]
    factor = (n / n_g.where(active)) * xr.dot(r * p_mean - p_gk, w, dim=_CAT)
    factor = factor.rename({_CAT2: _CAT}).where(active, 0.0)  # B_gl
    c_g = xr.dot(factor, p_gk.fillna(0.0), dim=_CAT)
    d_g = (n_g / n) * c_g
    lam = (
        xr.dot(ind, factor, dim=[annotator, _CAT])
        - xr.dot(rated, c_g, dim=annotator)
        + d_g.sum(annotator)
    )
    item_expected = lam / (r * (r - 1)).where(r > 1)
    return expected, item_expected


def _pool_mean(values, used):
    """Mean over the pooled problems (dim _POOL) that have a pairable item."""
    if used is None or _POOL not in values.dims:
        return values
    return _mean_over(values, used, _POOL)


def _gwet_finish(terms, method, item, confidence, population_size, pooled, point_only=False):
    """Coefficient, its standard error and limits from :func:`_problem_terms`, pooling the
    problems along _POOL when ``pooled``; only coefficient, observed and expected with
    ``point_only`` (bootstrap replicates)."""
    from scipy import stats  # imported here so that ``import xr_agreement`` stays light

    observed_j, expected_j = terms["observed"], terms["expected"]
    n_j, n2_j = terms["n"], terms["n_pairable"]
    used = n2_j > 0 if pooled else None
    observed = _pool_mean(observed_j, used)
    expected = _pool_mean(expected_j, used)
    gap = 1 - expected
    gap = gap.where(np.abs(gap) > _ZERO_GAP)
    coefficient = (observed - expected) / gap
    if point_only:
        return {"coefficient": coefficient, "observed": observed, "expected": expected}
    rated_j, pairable_j = terms["rated_item"], terms["pairable"]
    rated_any = rated_j.any(_POOL) if pooled else rated_j
    n = rated_any.sum(item)
    # Gwet's linearized per-item terms, rescaled from each problem's n'' (or n) to the pooled n
    obs_term = ((n / n2_j.where(n2_j > 0)) * (terms["item_observed"] - expected_j)).where(
        pairable_j, 0.0
    )
    if method in ("fleiss", "gwet", "conger"):
        exp_term = ((n / n_j.where(n_j > 0)) * (terms["item_expected"] - expected_j)).where(
            rated_j, 0.0
        )
    else:  # fixed chance agreement: no sampling variation
        exp_term = xr.zeros_like(obs_term)
    obs_term = _pool_mean(obs_term, used)
    exp_term = _pool_mean(exp_term, used)
    item_coefficient = obs_term / gap - 2 * (1 - coefficient) * exp_term / gap
    spread = ((item_coefficient - coefficient) ** 2).where(rated_any, 0.0).sum(item)
    finite = 1.0 if population_size is None else 1 - n / population_size
    variance = finite * spread / (n * (n - 1)).where(n > 1)
    se = np.sqrt(variance).where(coefficient.notnull())
    t = xr.apply_ufunc(
        lambda dof: stats.t.ppf(0.5 + confidence / 2, dof),
        (n - 1).where(n > 1).astype(np.float64),
        dask="parallelized",
        output_dtypes=[np.float64],
    )
    n2 = pairable_j.any(_POOL).sum(item) if pooled else n2_j
    reason = xr.where(observed.isnull(), REASONS["no_pairs"], "")
    if method == "gwet" and terms["q"] < 2:
        reason = xr.where(reason == "", REASONS["q"], reason)
    reason = xr.where((reason == "") & coefficient.isnull(), REASONS["gap"], reason)
    reason = xr.where((reason == "") & se.isnull(), REASONS["se"], reason)
    return {
        "coefficient": coefficient,
        "observed": observed,
        "expected": expected,
        "se": se,
        "ci_lower": coefficient - t * se,
        "ci_upper": np.minimum(coefficient + t * se, 1.0),
        "n_rated_items": n,
        "n_pairable_items": n2,
        "undefined_reason": reason,
    }


def _check_population(population_size, n_items):
    if population_size is not None and not (
        isinstance(population_size, (int, float, np.integer, np.floating))
        and population_size >= n_items
    ):
        raise ValueError(
            f"population_size must be a number of items at least the sample's {n_items}, "
            f"got {population_size!r}"
        )


_BINARY_IDENTITY = xr.DataArray(np.eye(2), dims=(_CAT, _CAT2))


def _gwet_columns(data, method) -> dict:
    """The per-item columns (:func:`_problem_columns`) of a Gwet-family coefficient, named
    ``"overall/<column>"`` and, for single-label ratings, ``"category/<column>"`` (the
    category-vs-rest problems; on multi-label input the labels' problems are the overall
    one's constituents)."""
    ind, w, annotator = data["indicator"], data["weights"], data["annotator"]
    problems = {"overall": (ind, w)}
    if not data["multi_label"]:
        # category-vs-rest: the category's own indicator against all other ratings
        vs_rest = xr.concat([ind, data["rated"].astype(np.float64) - ind], dim=_OUTCOME)
        vs_rest = vs_rest.rename({_CAT: "category", _OUTCOME: _CAT})
        problems["category"] = (vs_rest, _BINARY_IDENTITY)
    return {
        f"{problem}/{name}": column
        for problem, (indicator, weights) in problems.items()
        for name, column in _problem_columns(indicator, weights, method, annotator).items()
    }


def _problem_part(columns: dict, problem: str):
    """The entries of ``problem`` among ``"<problem>/<name>"`` keys, by name."""
    if columns is None:
        return None
    prefix = f"{problem}/"
    return {key[len(prefix):]: v for key, v in columns.items() if key.startswith(prefix)}


def _gwet_values(data, method, confidence, population_size, sums=None):
    """Overall and per-category (or per-label) values of a Gwet-family coefficient from
    :func:`_prepare`'s output and the category dim. Given ``sums`` (the weighted sums over
    items of :func:`_gwet_columns`, dims resample, ...) point estimates only: the values on
    item-resampled data."""
    w, item, annotator, label = data["weights"], data["item"], data["annotator"], data["label"]
    columns = None
    if sums is None:
        columns = _gwet_columns(data, method)
        sums = _column_sums(columns, item)
    finish = {
        "method": method,
        "item": item,
        "confidence": confidence,
        "population_size": population_size,
        "point_only": columns is None,
    }
    terms = _problem_terms(_problem_part(sums, "overall"), w, method, annotator,
                           _problem_part(columns, "overall"))
    if data["multi_label"]:
        # each label is a binary problem; pooled over labels for the overall coefficient
        terms = {
            k: (v.rename({label: _POOL}) if isinstance(v, xr.DataArray) and label in v.dims else v)
            for k, v in terms.items()
        }
        overall = _gwet_finish(terms, pooled=True, **finish)
        # the labels' own binary problems (the pooled constituents, same weights)
        per_cat = _gwet_finish(terms, pooled=False, **finish)
        per_cat = {
            k: v.rename({_POOL: label}) if _POOL in v.dims else v for k, v in per_cat.items()
        }
        category_dim = label
    else:
        overall = _gwet_finish(terms, pooled=False, **finish)
        per_cat_terms = _problem_terms(_problem_part(sums, "category"), _BINARY_IDENTITY,
                                       method, annotator, _problem_part(columns, "category"))
        per_cat = _gwet_finish(per_cat_terms, pooled=False, **finish)
        category_dim = "category"
    out = dict(overall)
    for key in ("coefficient", "observed", "expected", "se"):
        if key in per_cat:
            out[f"category_{key}"] = per_cat[key]
    return out, category_dim


def _coefficient(da, method, weights, categories, confidence, population_size, item,
                 annotator, label, bootstrap_options):
    _check_confidence(confidence)
    _check_population(population_size, da.sizes.get(item, 0) if hasattr(da, "sizes") else 0)
    options = _check_bootstrap(bootstrap_options)
    data = _prepare(da, weights, categories, item, annotator, label)
    out, category_dim = _gwet_values(data, method, confidence, population_size)
    result = xr.Dataset(out)
    result = _name_categories(result, data, category_dim)
    _attach_attrs(result, VARIABLES)
    result.attrs = _dataset_attrs(data, METHOD_NAMES[method], confidence)
    if method == "gwet":
        result.attrs["coefficient_name"] = "AC1" if data["weights_name"] == "identity" else "AC2"
    if options is None:
        return result
    statistic = KappaStatistic(data, partial(_gwet_columns, method=method),
                               partial(_gwet_point, method=method), _interval_variables(result))
    return _kappa_intervals(statistic, result, options)


def _gwet_point(data, sums, method) -> dict:
    """A Gwet-family coefficient's values from column sums (bootstrap replicates)."""
    return _gwet_values(data, method, 0.95, None, sums)[0]


# --------------------------------------------------------------------------- bootstrap

_BOOTSTRAP_KEYS = ("ci", "n_resamples", "resample", "method", "seed", "return_replicates",
                   "progress")
# analytic uncertainty: an interval for a standard error or a confidence limit means little
_NO_INTERVAL = ("se", "ci_lower", "ci_upper", "category_se")


def _bootstrap_options(arguments: dict) -> dict:
    """The bootstrap keywords among a public function's ``locals()``."""
    return {key: arguments[key] for key in _BOOTSTRAP_KEYS}


def _check_bootstrap(options: dict):
    """Validated keywords for :func:`xr_agreement.bootstrap.bootstrap`, None without ``ci``."""
    if options["ci"] is None:
        return None
    ci, n_resamples, resample, method = _bootstrap.check_options(
        options["ci"],
        options["n_resamples"],
        options["resample"],
        options["method"],
        options["seed"],
        options["progress"],
    )
    return {
        "ci": ci,
        "n_resamples": n_resamples,
        "resample": resample,
        "method": method,
        "seed": options["seed"],
        "return_replicates": bool(options["return_replicates"]),
        "progress": options["progress"],
    }


def _interval_variables(result: xr.Dataset) -> list[str]:
    return [
        name
        for name, var in result.data_vars.items()
        if var.dtype.kind == "f" and name not in _NO_INTERVAL
    ]


def _kappa_intervals(statistic: KappaStatistic, result, options) -> xr.Dataset:
    """``result`` with bootstrap intervals; lazy on dask input.

    Item resampling from an int seed runs block by block (the statistic's tables stay
    chunked along items); annotator resampling and a Generator seed need every item at once,
    so one task gathers the indicator arrays when computed."""
    data = statistic.data
    item = data["item"]
    seeded = not isinstance(options["seed"], np.random.Generator)
    if statistic.is_lazy and not (options["resample"] == "item" and seeded):
        arrays = {key: data[key] for key in ("indicator", "rated")}
        # the task gets the arrays in memory; the input array only lends dims and coords
        light = dict(data, da=data["da"].isel({item: slice(0, 0)}))
        return _bootstrap.deferred_bootstrap(
            lambda computed: KappaStatistic(dict(light, **computed), statistic.columns,
                                            statistic.values, statistic.variables),
            arrays, result, variables=statistic.variables, item=item, **options)
    return _bootstrap.bootstrap(statistic, result, variables=statistic.variables, item=item,
                                **options)


class KappaStatistic(_bootstrap.TableStatistic):
    """A coefficient of this module on resamples, for :func:`xr_agreement.bootstrap.bootstrap`.

    ``columns(data)`` gives the per-item terms whose sums over items the coefficient's point
    values use (:func:`_gwet_columns`, :func:`_cohen_columns`), ``values(data, sums)`` the
    variables from those sums (weighted sums, with a ``resample`` dim, give the values on
    item-resampled data). Item resampling is therefore ``values(W @ T)`` with each column
    flattened into a per-item table ``T`` (numpy, or dask chunked along items: then block by
    block). Annotator counts select the annotators (a copy is one more rater with the same
    ratings) and each such replicate is evaluated on its own from its columns.
    """

    def __init__(self, data: dict, columns, values, variables: list[str]):
        annotator = data["annotator"]
        data = dict(data)
        for key in ("indicator", "rated"):
            array = data[key]
            # copies of an annotator must not meet as duplicate coordinate labels
            on_annotator = [name for name, c in array.coords.items() if annotator in c.dims]
            data[key] = array.drop_vars(on_annotator)
        self.data = data
        self.columns = columns
        self.values = values
        self.variables = variables
        self.n_items = data["indicator"].sizes[data["item"]]
        self.n_annotators = data["indicator"].sizes[annotator]
        self._tables = None
        self.layout = None  # {column: (dims, shape) beyond the item dim}, set with the tables

    @property
    def is_lazy(self) -> bool:
        return _is_dask(self.data["indicator"].data)

    def item_tables(self) -> dict:
        if self._tables is None:
            item = self.data["item"]
            self._tables, self.layout = {}, {}
            for name, column in self.columns(self.data).items():
                if isinstance(column, tuple):
                    column = reduce(operator.mul, column)
                column = column.astype(np.float64).transpose(item, ...)
                dims, shape = column.dims[1:], column.shape[1:]
                self.layout[name] = (dims, shape)
                table = column.data
                if _is_dask(table):  # items keep their chunks
                    table = table.rechunk({axis: -1 for axis in range(1, table.ndim)})
                self._tables[name] = table.reshape(self.n_items, int(np.prod(shape)))
        return self._tables

    def drop_tables(self) -> None:
        self.item_tables()  # the layout is needed to finish
        self._tables = None
        self.data = {k: v for k, v in self.data.items() if k not in ("indicator", "rated", "da")}

    def finish_sums(self, sums: dict) -> xr.Dataset:
        rows = len(next(iter(sums.values())))
        arrays = {}
        for name, (dims, shape) in self.layout.items():
            arrays[name] = xr.DataArray(np.asarray(sums[name]).reshape(rows, *shape),
                                        dims=(_bootstrap.RESAMPLE_DIM, *dims))
        return self._dataset(self.values(self.data, arrays), rows)

    def _dataset(self, values: dict, rows: int) -> xr.Dataset:
        return xr.Dataset({
            name: values[name]
            if _bootstrap.RESAMPLE_DIM in values[name].dims
            else values[name].expand_dims({_bootstrap.RESAMPLE_DIM: rows})
            for name in self.variables
        })

    def _evaluate(self, data: dict, item_counts) -> xr.Dataset:
        item = data["item"]
        weights = None
        if item_counts is not None:
            weights = xr.DataArray(np.asarray(item_counts, np.float64),
                                   dims=(_bootstrap.RESAMPLE_DIM, item))
        sums = _column_sums(self.columns(data), item, weights)
        return self._dataset(self.values(data, sums), 1 if weights is None else len(weights))

    def replicates(self, item_counts, annotator_counts):
        if annotator_counts is None:
            if item_counts is None:  # the estimate, as the coefficient computes it
                return [self._evaluate(self.data, None)]
            return super().replicates(item_counts, None)
        annotator = self.data["annotator"]
        out = []
        for r, counts in enumerate(np.asarray(annotator_counts, np.int64)):
            chosen = {annotator: np.repeat(np.arange(self.n_annotators), counts)}
            data = dict(
                self.data,
                indicator=self.data["indicator"].isel(chosen),
                rated=self.data["rated"].isel(chosen),
            )
            rows = None if item_counts is None else item_counts[r : r + 1]
            out.append(self._evaluate(data, rows))
        return out

    def finish(self, batches) -> xr.Dataset:
        if isinstance(batches[0], dict):  # column sums of item replicates
            return super().finish(batches)
        results = [dataset for batch in batches for dataset in batch]
        return xr.concat(results, dim=_bootstrap.RESAMPLE_DIM, coords="minimal",
                         compat="override")


# --------------------------------------------------------------------------- Cohen


def _cohen_table(table, w):
    """Cohen's kappa and the Fleiss-Cohen-Everitt ASE of contingency tables (dims ..., _row,
    _col) with agreement weights ``w`` (dims _row, _col)."""
    n = table.sum([_ROW, _COL])
    p = table / n.where(n > 0)
    # sums with skipna=False: a pair without common items must stay NaN, not 0
    row = p.sum(_COL, skipna=False)
    col = p.sum(_ROW, skipna=False)
    observed = (w * p).sum([_ROW, _COL], skipna=False)
    expected = xr.dot(w, row, col, dim=[_ROW, _COL])
    gap = (1 - expected).where(np.abs(1 - expected) > _ZERO_GAP)
    kappa = (observed - expected) / gap
    w_row = xr.dot(w, col, dim=_COL)  # wbar_k. = sum_l w_kl p_+l
    w_col = xr.dot(w, row, dim=_ROW)  # wbar_.l = sum_k w_kl p_k+
    spread = (p * (w - (w_row + w_col) * (1 - kappa)) ** 2).sum([_ROW, _COL], skipna=False)
    variance = (spread - (kappa - expected * (1 - kappa)) ** 2) / (gap**2 * n)
    # clip: rounding can leave a tiny negative variance when it is 0
    return {
        "coefficient": kappa,
        "observed": observed,
        "expected": expected,
        "se": np.sqrt(variance.clip(min=0)),
        "n": n,
        "row": row,
        "col": col,
    }


def _binary_tables(table):
    """Category-vs-rest 2x2 tables (dims ..., category, _row, _col) from q x q tables."""
    q = table.sizes[_ROW]
    diag = xr.DataArray(np.eye(q), dims=(_ROW, _COL))
    both = (table * diag).sum(_COL).rename({_ROW: "category"})
    first = table.sum(_COL).rename({_ROW: "category"})
    second = table.sum(_ROW).rename({_COL: "category"})
    n = table.sum([_ROW, _COL])
    cells = [[both, first - both], [second - both, n - first - second + both]]
    rows = [xr.concat(r, dim=_COL) for r in cells]
    return xr.concat(rows, dim=_ROW).drop_vars([_ROW, _COL], errors="ignore")


def _mean_over(values, used, dim):
    """Mean over ``dim`` of the entries where ``used``; NaN when none is."""
    return values.where(used).sum(dim) / used.sum(dim).where(used.any(dim))


def _cohen_pooled(sums, w, item, label, columns=None):
    """Cohen's kappa pooled over labels, ``(mean P_o,j - mean P_e,j) / (1 - mean P_e,j)``
    over the labels the pair shares an item on, from the sums over items of
    :func:`_cohen_columns`, and, given the per-item ``columns``, its delta-method standard
    error from per-item influence terms (for a single label: the Fleiss-Cohen-Everitt ASE;
    else NaN)."""
    n_j = sums["both"]
    used = n_j > 0
    marg1 = sums["marginal_1"] / n_j.where(used)
    marg2 = sums["marginal_2"] / n_j.where(used)
    observed_j = sums["agreement"] / n_j.where(used)
    expected_j = xr.dot(w, marg1, marg2.rename({_CAT: _CAT2}), dim=[_CAT, _CAT2])
    n = sums["common"]
    observed = _mean_over(observed_j, used, label)
    expected = _mean_over(expected_j, used, label)
    gap = (1 - expected).where(np.abs(1 - expected) > _ZERO_GAP)
    kappa = (observed - expected) / gap
    values = {
        "coefficient": kappa,
        "observed": observed,
        "expected": expected,
        "n": n,
        "used": used,
    }
    if columns is None:
        values["se"] = xr.full_like(kappa, np.nan)
        return values
    (x1, m2), (m1, x2) = columns["marginal_1"], columns["marginal_2"]
    both, per_item_agreement = columns["both"], columns["agreement"]
    # derivative of P_e,j with respect to the item: sum_kl w_kl (x1_ik p2_l + p1_k x2_il)
    w_marg2 = xr.dot(w, marg2.rename({_CAT: _CAT2}), dim=_CAT2).fillna(0.0)
    w_marg1 = xr.dot(w, marg1, dim=_CAT).rename({_CAT2: _CAT}).fillna(0.0)
    item_expected = xr.dot(x1, w_marg2, dim=_CAT) * m2 + xr.dot(x2, w_marg1, dim=_CAT) * m1
    scale = n / n_j.where(used)
    obs_term = _mean_over(scale * (per_item_agreement - observed_j * both), used, label)
    exp_term = _mean_over(scale * (item_expected - 2 * expected_j * both), used, label)
    influence = (obs_term - (1 - kappa) * exp_term) / gap
    variance = (influence**2).sum(item) / (n.where(n > 0) ** 2)
    values["se"] = np.sqrt(variance)
    return values


def _safe_ratio(numerator, denominator):
    return numerator / denominator.where(np.abs(denominator) > _ZERO_GAP)


# --------------------------------------------------------------------------- output


def _name_categories(result, data, category_dim):
    """Category (or label) coordinates, annotator coordinates on the pair dims, and a dim
    order that reads naturally: *extra, annotator_1, annotator_2, category."""
    ends = ("annotator_1", "annotator_2", category_dim)
    order = [d for d in data["da"].dims if d in result.dims and d not in ends]
    order += [d for d in ends if d in result.dims]
    result = result.transpose(*order, ...)
    if category_dim == "category" and "category" in result.dims:
        result = result.assign_coords(category=np.asarray(data["categories"]))
    elif category_dim != "category" and data["label"] in data["da"].coords:
        da = data["da"]
        label = data["label"]
        result = result.assign_coords({label: da[label]})
        for name, coord in da.coords.items():
            if name not in result.coords and coord.dims == (label,):
                result = result.assign_coords({name: coord})
    annotator = data["annotator"]
    da = data["da"]
    if "annotator_1" in result.dims and annotator in da.coords:
        values = da[annotator].values
        result = result.assign_coords(annotator_1=values, annotator_2=values)
    return result


def _attach_attrs(result, variables):
    for name, (long_name, symbol, description) in variables.items():
        if name in result:
            result[name].attrs = {
                "long_name": long_name,
                "symbol": symbol,
                "description": description,
            }


def _dataset_attrs(data, method_name, confidence):
    da = data["da"]
    return {
        "coefficient_name": method_name,
        "input": "multi-label binary (label by label, pooled)"
        if data["multi_label"]
        else "single-label ratings",
        "categories": [
            c.item() if isinstance(c, np.generic) else c
            for c in np.asarray(data["categories"]).tolist()
        ],
        "weights": data["weights_name"],
        "confidence": confidence,
        "n_items": da.sizes[data["item"]],
        "n_annotators": da.sizes[data["annotator"]],
        "missing_data": "Gwet's generalized formulas: items without ratings dropped, observed "
        "agreement over items with at least two ratings",
        "reference": "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; Byrt, Bishop & "
        "Carlin (1993)",
    }
