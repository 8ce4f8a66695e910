"""The classic chance-corrected agreement coefficients: Cohen's kappa (pairwise, with the Byrt
prevalence and bias indices), Fleiss' kappa, Conger's kappa, Gwet's AC1/AC2, Brennan-Prediger
and percent agreement, with Gwet's analytic standard errors.

Two kinds of input are accepted:

- single-label ratings, dims ``item`` x ``annotator``; values are category codes, strings or
  numbers, NaN/None missing. The overall coefficient uses every category (with ``weights=``);
  ``category_*`` variables give the category-vs-rest (binary) coefficient of each category.
- multi-label binary decisions, dims ``item`` x ``annotator`` x ``label`` (0/1, NaN missing).
  Each label is a binary rating problem; its coefficient is reported over the ``label`` dim
  (``label_*`` variables in place of ``category_*``), and the overall coefficient pools the
  labels:
  ``(mean_j P_o,j - mean_j P_e,j) / (1 - mean_j P_e,j)`` over labels with a pairable item (on
  complete data Fleiss, AC1 and Brennan-Prediger pooled this way equal
  :func:`xr_agreement.mla` with baselines F, AC1 and PB).

A ``label`` dim (name given by ``label=``) marks multi-label input; without it the array is
read as single-label ratings and any further dim (a ``round``) is carried through.

Dask input gives a lazy result: nothing is computed until asked (``.compute()``), the counting
passes run one task per block of items, their tables added by a tree (``kappa/lazy.py``,
``kappa/cohen.py``), and a multi-label value other than 0/1/NaN
(or a rating outside declared ``categories``) is reported when computed. One exception: for
single-label ratings without declared ``categories`` the set of categories must be known to
shape the result, so the distinct ratings are computed first (one pass over the ratings;
declare ``categories=`` to avoid it). Bootstrap intervals are lazy too: item
resampling from an int seed runs block by block (each item block adds its part of every
replicate's sums, a tree adds the blocks; BCa's item jackknife is a second pass), while
annotator resampling (``"annotator"``, ``"both"``) and a ``numpy.random.Generator`` seed
gather the one-hot ratings into one task when computed (memory as on numpy).

Intervals at level ``ci=`` (None: none), one method per call (``ci_method=``, recorded in the
Dataset's attrs): ``"analytic"`` (the default) gives the standard error ``coefficient_se`` and
the bounds ``coefficient_lower``/``coefficient_upper`` (Gwet's t-based limits, normal ones for
Cohen's); ``"percentile"`` or ``"bca"`` give each coefficient variable ``V`` bootstrap bounds
``V_lower``/``V_upper`` (:mod:`xr_agreement.resampling`) and no analytic values. Item
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

from functools import partial

import numpy as np
import xarray as xr

from .._core.attrs import json_attr
from .._core.categorical import MISSING_CODE
from .._core.dataset import (dataset, dimension_coordinates, input_coordinates, InputCoordinates,
                             renamed_coordinates, variable)
from .._core.validate import _check_confidence, _check_population, check_dataarray
from .cohen import _cohen_columns, _cohen_point, _cohen_values
from .encode import _encode, _one_hot, _prepare, REASONS
from .gwet import _gwet_columns
from .values import _gwet_replicate, _gwet_values
from ..resampling.intervals import interval_variables
from .intervals import (_bootstrap_options, _check_bootstrap, _kappa_intervals,
                        KappaStatistic)


METHOD_NAMES = {
    "fleiss": "Fleiss' kappa (Scott's pi for two annotators), Gwet's generalized form",
    "conger": "Conger's kappa (Cohen's kappa generalized to several annotators)",
    "gwet": "Gwet's AC1 (AC2 with weights)",
    "brennan_prediger": "Brennan-Prediger coefficient (PABAK for two categories)",
    "percent": "percent agreement (no chance correction)",
}


# long_name, symbol, description
_LEVEL_VARIABLES = {  # the coefficient of one category (prefix category_) or label (label_)
    "coefficient": (
        "{level} coefficient",
        "kappa_{k}",
        "the coefficient of {problem}",
    ),
    "observed": ("{level} observed agreement", "P_o,{k}", "P_o of {problem}"),
    "expected": ("{level} chance agreement", "P_e,{k}", "P_e of {problem}"),
    "coefficient_se": (
        "{level} standard error",
        "se_{k}",
        "Gwet's analytic standard error of {prefix}_coefficient (ci_method='analytic')",
    ),
    "undefined_reason": (
        "why the {level} coefficient is undefined",
        "",
        "empty where {prefix}_coefficient (and its standard error, when asked for) is "
        "defined, else why it is NaN",
    ),
}

_LEVELS = {
    "category": {
        "level": "category-vs-rest",
        "k": "k",
        "prefix": "category",
        "problem": "the binary problem 'category k or not' on single-label ratings (identity "
        "weights: a binary split has no order)",
    },
    "label": {
        "level": "label",
        "k": "j",
        "prefix": "label",
        "problem": "label j's 0/1 problem on multi-label input (with the given weights)",
    },
}


def _level_variables(templates, levels=_LEVELS, outer=""):
    """``templates`` (name: (long_name, symbol, description) with ``{level}``-style fields)
    for each level, named ``<outer><level>_<name>``."""
    return {
        f"{outer}{level}_{name}": tuple(part.format(**fields) for part in entry)
        for level, fields in levels.items()
        for name, entry in templates.items()
    }


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
    "coefficient_se": (
        "standard error of the coefficient",
        "se",
        "Gwet's (2014) analytic standard error conditional on the annotators, from linearized "
        "per-item terms; times sqrt(1 - n / population_size) when a population size is given",
    ),
    "coefficient_lower": (
        "lower bound of the coefficient",
        "CI_lo",
        "coefficient - t(n - 1) quantile * coefficient_se (Gwet's t-based interval at "
        "attrs['ci_level'])",
    ),
    "coefficient_upper": (
        "upper bound of the coefficient",
        "CI_hi",
        "coefficient + t(n - 1) quantile * coefficient_se, capped at 1",
    ),
    **_level_variables(_LEVEL_VARIABLES),
    "n_rated_items": ("rated items", "n", "items with at least one rating"),
    "n_pairable_items": ("pairable items", "n''", "items with at least two ratings"),
    "undefined_reason": (
        "why the coefficient is undefined",
        "",
        "empty where coefficient (and coefficient_se, when asked for) is defined, else why it "
        "is NaN",
    ),
}

_PAIR_LEVEL_VARIABLES = {  # per pair and category (pair_category_) or label (pair_label_)
    "coefficient": (
        "{level} Cohen's kappa",
        "kappa_{k}",
        "Cohen's kappa of {problem}",
    ),
    "coefficient_se": (
        "{level} ASE",
        "ASE_{k}",
        "asymptotic standard error of pair_{prefix}_coefficient (ci_method='analytic')",
    ),
    "prevalence_index": (
        "{level} prevalence index",
        "PI_{k}",
        "(a - d) / n of the pair's 2x2 table of {problem}: share where both chose 1 minus "
        "share where neither did (Byrt et al. 1993)",
    ),
    "bias_index": (
        "{level} bias index",
        "BI_{k}",
        "(b - c) / n of the pair's 2x2 table: annotator_1's share of 1 minus annotator_2's "
        "(Byrt et al. 1993); for two categories kappa = (PABAK - PI**2 + BI**2) / "
        "(1 - PI**2 + BI**2)",
    ),
}

COHEN_VARIABLES = {
    "pair_coefficient": (
        "Cohen's kappa of the pair",
        "kappa",
        "(P_o - P_e) / (1 - P_e) for each annotator pair on the items both rated; the diagonal "
        "is an annotator against itself (1 unless P_e = 1)",
    ),
    "pair_observed": ("observed agreement of the pair", "P_o",
                      "weighted share of agreeing items of the pair"),
    "pair_expected": (
        "chance agreement of the pair",
        "P_e",
        "sum_kl w_kl p_k+ p_+l from the two annotators' own marginals",
    ),
    "pair_coefficient_se": (
        "asymptotic standard error of the pair's kappa",
        "ASE",
        "Fleiss, Cohen & Everitt (1969) standard error (statsmodels std_kappa, SAS ASE); on "
        "multi-label input the delta-method equivalent for the pooled coefficient; times "
        "sqrt(1 - n / population_size) when a population size is given",
    ),
    "pair_coefficient_lower": ("lower bound of the pair's kappa", "CI_lo",
                               "pair_coefficient - z * pair_coefficient_se (normal limits at "
                               "attrs['ci_level'])"),
    "pair_coefficient_upper": ("upper bound of the pair's kappa", "CI_hi",
                               "pair_coefficient + z * pair_coefficient_se, capped at 1"),
    "pair_n_pairable_items": ("items rated by both", "n_ab",
                              "the pairwise-complete items of the pair"),
    "pair_pabak": (
        "prevalence- and bias-adjusted kappa of the pair",
        "PABAK",
        "(P_o - T_w / q**2) / (1 - T_w / q**2): Brennan-Prediger for the pair, 2 P_o - 1 for "
        "two categories (Byrt, Bishop & Carlin 1993)",
    ),
    "pair_bias_adjusted_kappa": (
        "bias-adjusted kappa of the pair",
        "BAK",
        "kappa with the pair's pooled marginals, i.e. Scott's pi (Byrt et al. 1993)",
    ),
    **_level_variables(_PAIR_LEVEL_VARIABLES, outer="pair_"),
    "pair_undefined_reason": (
        "why the pair's kappa is undefined",
        "",
        "empty where pair_coefficient (and pair_coefficient_se, when asked for) is defined, "
        "else why it is NaN",
    ),
    "coefficient": (
        "mean pairwise Cohen's kappa",
        "kappa_Light",
        "Light's kappa: mean of pair_coefficient over the distinct annotator pairs where it is "
        "defined",
    ),
    "n_pairs": ("annotator pairs averaged", "", "distinct annotator pairs in coefficient"),
    "undefined_reason": (
        "why the mean kappa is undefined",
        "",
        "empty where coefficient is defined, else why it is NaN",
    ),
}

CI_METHODS = ("analytic", "percentile", "bca")


# --------------------------------------------------------------------------- public API


def fleiss(
    da,
    weights=None,
    *,
    categories=None,
    ci=0.95,
    ci_method="analytic",
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    n_resamples=1000,
    resample="item",
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
    ci : float in (0, 1) or None, default 0.95
        Interval level; None for no interval and no standard error.
    ci_method : {"analytic", "percentile", "bca"}, default "analytic"
        ``"analytic"``: Gwet's standard errors ``coefficient_se`` (and ``<level>_coefficient_se``)
        and his t-based bounds ``coefficient_lower``/``coefficient_upper``. ``"percentile"``
        or ``"bca"``: bootstrap bounds ``<name>_lower``/``<name>_upper`` (same dims) of each of
        ``coefficient``, ``observed``, ``expected`` and their ``category_``/``label_``
        versions, and no analytic values. The Dataset attrs record ``ci_level`` and
        ``ci_method`` (and for the bootstrap ``ci_n_resamples``, ``ci_resampling_unit``; see
        :mod:`xr_agreement.resampling` for its semantics).
    population_size : int, optional
        Number of items in the population, for the finite-population correction of the
        standard errors (the variance times ``1 - n / population_size``).
    item, annotator, label : str
        Names of the dims playing these roles; ``label`` marks multi-label input when present.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item", "annotator", "both"}, default "item"
        The resampled unit. Chance agreement is recomputed in every replicate; the category
        set (or label set) stays that of the data. An annotator drawn twice counts as two
        distinct raters with identical ratings (their pair agrees; under Conger each copy
        has its own marginals).
    seed : int or numpy.random.Generator, optional
        Seed of the resampling; the same seed gives the same intervals.
    return_replicates : bool, default False
        Add ``<name>_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        Show a tqdm progress bar; by default when stderr is a terminal or in a notebook.

    Returns
    -------
    xarray.Dataset
        ``coefficient``, ``observed``, ``expected``, ``n_rated_items``, ``n_pairable_items``,
        ``undefined_reason``; over ``category``: ``category_coefficient``,
        ``category_observed``, ``category_expected``, ``category_undefined_reason`` (on
        multi-label input ``label_...`` over ``label``); the reasons are coordinates; the interval
        variables of ``ci_method`` listed above. With dask input everything is lazy (see the
        module docstring). The attrs' ``categories`` are JSON text (every store takes it):
        ``json.loads(result.attrs["categories"])`` is the list.

    Raises
    ------
    ValueError
        A dim is missing, fewer than 2 annotators, a rating outside declared ``categories``
        or a multi-label value other than 0/1/NaN (each named with its coordinates), bad
        weights, ``ci`` outside (0, 1), an unknown ``ci_method``, ``population_size`` below
        the sample size.

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
    >>> result.attrs["ci_method"], bool(result.coefficient_lower < result.coefficient)
    ('analytic', True)

    Bootstrap intervals over items instead of Gwet's analytic (t-based) interval:

    >>> boot = xr_agreement.fleiss(ratings, ci=0.9, ci_method="percentile", n_resamples=200,
    ...                            seed=0)
    >>> bool(boot.coefficient_lower < boot.coefficient < boot.coefficient_upper)
    True
    >>> boot.attrs["ci_method"], "coefficient_se" in boot
    ('percentile', False)
    """
    return _coefficient(
        da, "fleiss", weights, categories, population_size, item, annotator, label,
        _intervals(locals()),
    )


def conger(
    da,
    weights=None,
    *,
    categories=None,
    ci=0.95,
    ci_method="analytic",
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    n_resamples=1000,
    resample="item",
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
        da, "conger", weights, categories, population_size, item, annotator, label,
        _intervals(locals()),
    )


def gwet(
    da,
    weights=None,
    *,
    categories=None,
    ci=0.95,
    ci_method="analytic",
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    n_resamples=1000,
    resample="item",
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
        da, "gwet", weights, categories, population_size, item, annotator, label,
        _intervals(locals()),
    )


def brennan_prediger(
    da,
    weights=None,
    *,
    categories=None,
    ci=0.95,
    ci_method="analytic",
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    n_resamples=1000,
    resample="item",
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
        population_size,
        item,
        annotator,
        label,
        _intervals(locals()),
    )


def percent(
    da,
    weights=None,
    *,
    categories=None,
    ci=0.95,
    ci_method="analytic",
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    n_resamples=1000,
    resample="item",
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
        da, "percent", weights, categories, population_size, item, annotator, label,
        _intervals(locals()),
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
    ci=0.95,
    ci_method="analytic",
    population_size=None,
    item="item",
    annotator="annotator",
    label="label",
    n_resamples=1000,
    resample="item",
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
    ci : float in (0, 1) or None, default 0.95
        Interval level; None for no interval and no standard error.
    ci_method : {"analytic", "percentile", "bca"}, default "analytic"
        ``"analytic"``: the ASEs ``pair_coefficient_se``, ``pair_category_coefficient_se``
        and the normal bounds ``pair_coefficient_lower``/``pair_coefficient_upper``. A
        bootstrap method: bounds ``<name>_lower``/``<name>_upper`` as in :func:`fleiss` (the
        categories those of the data in every replicate) and no analytic values; with
        ``resample="item"`` every pair- and category-level value gets an interval.
        Resampling annotators scrambles the pairs, so then only ``coefficient`` (Light's
        kappa, a copied annotator's self-pair counting as a pair that agrees) gets one.
    population_size : int, optional
        Number of items in the population: each variance times ``1 - n / population_size``
        with ``n`` the items it is computed from (Gwet's finite-population correction).
    item, annotator, label : str
        Names of the dims playing these roles.
    n_resamples, resample, seed, return_replicates, progress
        The bootstrap, as in :func:`fleiss`.

    Returns
    -------
    xarray.Dataset
        Over ``annotator_1`` x ``annotator_2``: ``pair_coefficient``, ``pair_observed``,
        ``pair_expected``, ``pair_n_pairable_items``, ``pair_pabak``,
        ``pair_bias_adjusted_kappa``, ``pair_undefined_reason``; over pairs and ``category``:
        ``pair_category_coefficient``, ``pair_category_prevalence_index``,
        ``pair_category_bias_index`` (``pair_label_*`` over ``label`` on multi-label input);
        ``coefficient`` (Light's kappa), ``n_pairs`` and ``undefined_reason``; the interval
        variables of ``ci_method`` listed above. The attrs' ``categories`` are JSON text
        (every store takes it): ``json.loads(result.attrs["categories"])`` is the list.

    Examples
    --------
    >>> import xarray as xr, xr_agreement
    >>> ratings = xr.DataArray(
    ...     [list(r) for r in ["PPP", "PPN", "NNN", "PPP", "NPN", "GGG", "PNP", "NNN", "PPP",
    ...                        "GPG"]],
    ...     dims=("item", "annotator"), coords={"annotator": ["A", "B", "C"]})
    >>> result = xr_agreement.cohen(ratings)
    >>> round(float(result.pair_coefficient.sel(annotator_1="A", annotator_2="B")), 6)
    0.491525
    >>> result.pair_category_bias_index.sel(annotator_1="A", annotator_2="B").values
    array([ 0.1,  0. , -0.1])
    >>> round(float(result.coefficient), 6), int(result.n_pairs)
    (0.563371, 3)
    """
    intervals = _intervals(locals())
    _check_population(population_size, da.sizes.get(item, 0) if hasattr(da, "sizes") else 0)
    data = _prepare(da, weights, categories, item, annotator, label)
    out, category_dim = _cohen_values(data, intervals[0] or 0.95, population_size)
    result = _finish(out, data, category_dim, intervals, COHEN_VARIABLES,
                     "Cohen's kappa (pairwise)")
    result.attrs["missing_data"] = "pairwise-complete items for each annotator pair"
    options = intervals[2]
    if options is None:
        return result
    if options["resample"] == "item":
        variables = interval_variables(result, item)
    else:
        variables = ["coefficient"]
    statistic = KappaStatistic(_one_hot(data), _cohen_columns, _cohen_point, variables)
    return _kappa_intervals(statistic, result, options)


def _coefficient(da, method, weights, categories, population_size, item, annotator, label,
                 intervals):
    _check_population(population_size, da.sizes.get(item, 0) if hasattr(da, "sizes") else 0)
    data = _prepare(da, weights, categories, item, annotator, label)
    analytic = intervals[0] is not None and intervals[1] == "analytic"
    out, category_dim = _gwet_values(data, method, intervals[0] or 0.95, population_size,
                                     with_error=analytic)
    result = _finish(out, data, category_dim, intervals, VARIABLES, METHOD_NAMES[method])
    if method == "gwet":
        result.attrs["coefficient_name"] = "AC1" if data["weights_name"] == "identity" else "AC2"
    options = intervals[2]
    if options is None:
        return result
    statistic = KappaStatistic(_one_hot(data), partial(_gwet_columns, method=method),
                               partial(_gwet_replicate, method=method),
                               interval_variables(result, item))
    return _kappa_intervals(statistic, result, options)


def _intervals(arguments: dict) -> tuple:
    """``(ci, ci_method, bootstrap options)`` from a public function's ``locals()``: the
    validated level (None without interval), the method, and the bootstrap's validated
    keywords (None unless a bootstrap method is asked for)."""
    ci, ci_method = arguments["ci"], arguments["ci_method"]
    if not isinstance(ci_method, str) or ci_method.lower() not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {list(CI_METHODS)}, got {ci_method!r}")
    ci_method = ci_method.lower()
    if ci is None:
        return None, ci_method, None
    if ci_method == "analytic":
        _check_confidence(ci, "ci")
        return ci, ci_method, None
    return ci, ci_method, _check_bootstrap(_bootstrap_options(dict(arguments,
                                                                   ci_method=ci_method)))


def _finish(out, data, category_dim, intervals, variables, method_name):
    """The Dataset of ``out`` (``(dims, array)`` by name): the analytic standard errors and
    bounds only with ``ci_method="analytic"``, coordinates, variable and Dataset attrs, in
    one step (the values come from plain arrays, with dims and no coordinates)."""
    ci, ci_method = intervals[0], intervals[1]
    analytic = ci is not None and ci_method == "analytic"
    if not analytic:
        out = {name: value for name, value in out.items()
               if not name.endswith(("_se", "_lower", "_upper"))}
        for name in [name for name in out if name.endswith("undefined_reason")]:
            # the standard error's reason concerns a value not returned
            value_dims, reasons = out[name]
            out[name] = (value_dims, np.where(reasons == REASONS["se"], "", reasons))
    da = data["da"]
    dims = {d for value_dims, _ in out.values() for d in value_dims}
    # a dim order that reads naturally: *extra (as in the input), annotator_1, annotator_2,
    # category
    ends = ("annotator_1", "annotator_2", category_dim)
    order = [d for d in da.dims if d in dims and d not in ends]
    order += [d for d in ends if d in dims]
    result_variables = {}
    for name, (value_dims, values) in out.items():
        target = [d for d in order if d in value_dims]
        if list(value_dims) != target:
            values = values.transpose([value_dims.index(d) for d in target])
        result_variables[name] = variable(target, values, _described(variables).get(name))
    attrs = _dataset_attrs(data, method_name)
    if analytic:
        attrs.update(ci_level=float(ci), ci_method="analytic")
    return dataset(result_variables, _result_coordinates(data, dims, category_dim), attrs,
                   variables_first=True)


def _described(variables) -> dict:
    """name -> attrs of a table of described variables (:data:`VARIABLES`,
    :data:`COHEN_VARIABLES`), made once per table."""
    kept = _DESCRIBED.get(id(variables))
    if kept is None or kept[0] is not variables:
        kept = (variables, {name: dict(zip(("long_name", "symbol", "description"), described))
                            for name, described in variables.items()})
        _DESCRIBED[id(variables)] = kept
    return kept[1]


_DESCRIBED: dict = {}


def _result_coordinates(data, dims, category_dim) -> list:
    """The input's coordinates on the result's dims other than item and annotator (extra
    dims, labels, scalars; indexes as they are), and the categories and the annotators of
    the pair dims (two sources for :func:`dataset`)."""
    da, annotator = data["da"], data["annotator"]
    kept = input_coordinates(da, dims - {data["item"], annotator})
    new = {}
    if category_dim == "category" and "category" in dims:
        new["category"] = np.asarray(data["categories"])
    pairs = InputCoordinates({}, {})
    if "annotator_1" in dims and annotator in da.coords:
        pairs = renamed_coordinates(da, annotator, ("annotator_1", "annotator_2"))
        if not pairs.variables:  # a coordinate without an index: its values
            values = da[annotator].values
            new.update(annotator_1=values, annotator_2=values)
    return [kept, dimension_coordinates(new), pairs]


# --------------------------------------------------------------------------- output


def _dataset_attrs(data, method_name):
    da = data["da"]
    return {
        "coefficient_name": method_name,
        "input": "multi-label binary (label by label, pooled)"
        if data["multi_label"]
        else "single-label ratings",
        "categories": json_attr(data["categories"]),  # JSON text: every store takes it
        "weights": data["weights_name"],
        "n_items": da.sizes[data["item"]],
        "n_annotators": da.sizes[data["annotator"]],
        "missing_data": "Gwet's generalized formulas: items without ratings dropped, observed "
        "agreement over items with at least two ratings",
        "reference": "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; Byrt, Bishop & "
        "Carlin (1993)",
    }
