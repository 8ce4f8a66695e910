"""Gwet's per-item terms and the Gwet family's coefficients and variances.

The family is computed on plain arrays (numpy, or dask through numpy's dispatch) in one fixed
axis order, and labeled only where it leaves: as xarray operations its ~100 small steps cost
50 ms on a 50-item input (alignment and bookkeeping in every step), as numpy about 2 ms. Axes:
``(*lead, item, annotator, category)`` for the indicator, where ``lead`` are the extra dims (on
multi-label input the label dim last of them) and, for the category-vs-rest problems, the
category; sums over items drop the item axis and, on item-resampled data, gain a leading
resample axis.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .encode import _CAT, _ZERO_GAP, REASONS


def _layout(dims, trailing, data, resampled=True) -> tuple[tuple, tuple]:
    """(prefix, lead) of an array with ``dims`` whose last dims are ``trailing``: the
    resample dim if there is one (on sums over items that may be item-resampled:
    ``resampled``), then the other dims, the label dim last of them on multi-label input.
    The one rule of the axis order."""
    from ..resampling.intervals import RESAMPLE_DIM

    prefix = (RESAMPLE_DIM,) if resampled and RESAMPLE_DIM in dims else ()
    lead = [d for d in dims if d not in prefix and d not in trailing]
    if data["multi_label"]:
        lead = [d for d in lead if d != data["label"]] + [data["label"]]
    return prefix, tuple(lead)


def _canonical(data):
    """(lead dims, indicator (*lead, item, annotator, _category) and rated (*lead, item,
    annotator) arrays) of :func:`_prepare`'s output (see :func:`_layout`)."""
    item, annotator = data["item"], data["annotator"]
    ind = data["indicator"]
    _, lead = _layout(ind.dims, (item, annotator, _CAT), data, resampled=False)
    return (lead, ind.transpose(*lead, item, annotator, _CAT).data,
            data["rated"].transpose(*lead, item, annotator).data)


def _problem_columns(ind, w, method) -> dict:
    """The per-item terms of Gwet's formulas for indicator ``ind`` (*lead, item, annotator,
    category; 0/1, no NaN; every lead entry is a separate problem) whose sums over items the
    point values use (see :func:`_problem_terms`)."""
    counts = ind.sum(axis=-2)  # r_ik
    raters = counts.sum(axis=-1)  # r_i
    pairable = raters >= 2
    weighted_counts = np.einsum("...l,kl->...k", counts, w)  # r*_ik = sum_l w_kl r_il
    pair_den = np.maximum(raters * (raters - 1), 1)
    columns = {
        "rated_item": raters >= 1,
        "pairable": pairable,
        "item_observed": np.where(pairable, (counts * (weighted_counts - 1)).sum(axis=-1)
                                  / pair_den, 0.0),
        "share": counts / np.maximum(raters, 1)[..., None],  # r_ik / r_i (0 on unrated items)
    }
    if method == "conger":
        columns["rated"] = ind.sum(axis=-1)  # epsilon_ig
        columns["indicator"] = ind
    return columns


# the axes of each column after the problem's lead and item axes (None: the annotator dim)
_COLUMN_DIMS = {"rated_item": (), "pairable": (), "item_observed": (), "share": (_CAT,),
                "rated": (None,), "indicator": (None, _CAT)}


def _column_dims(name, annotator) -> tuple:
    return tuple(annotator if d is None else d for d in _COLUMN_DIMS[name])


def _nan_where_not(values, condition):
    """``values`` where ``condition``, else NaN (as float)."""
    return np.where(condition, values, np.nan)


def _problem_terms(sums, w, method, columns=None):
    """Per-problem quantities of Gwet's formulas from ``sums``, the sums over items of
    :func:`_problem_columns` (weighted sums, with a leading resample axis, give the values on
    item-resampled data: Gwet's statistics are sums of per-item terms). The per-item terms,
    needed only for the standard error, come with the per-item ``columns`` (else None)."""
    q = w.shape[0]
    n, n_pairable = sums["rated_item"], sums["pairable"]
    observed = sums["item_observed"] / _nan_where_not(n_pairable, n_pairable > 0)
    pi = sums["share"] / _nan_where_not(n, n > 0)[..., None]
    share = None if columns is None else columns["share"]
    total_weight = float(w.sum())
    item_expected = None
    if method == "fleiss":
        expected = np.einsum("kl,...k,...l->...", w, pi, pi)
        if share is not None:
            # asymmetric weights enter through (w + w') / 2, as in Gwet's variance
            pi_w = np.einsum("kl,...l->...k", w, pi) + np.einsum("kl,...k->...l", w, pi)
            item_expected = np.einsum("...ik,...k->...i", share, pi_w / 2)
    elif method == "gwet":
        scale = total_weight / (q * (q - 1)) if q >= 2 else np.nan
        expected = scale * (pi * (1 - pi)).sum(axis=-1)
        if share is not None:
            item_expected = scale * np.einsum("...ik,...k->...i", share, 1 - pi)
    elif method == "brennan_prediger":
        expected = np.full_like(observed, total_weight / q**2)
    elif method == "percent":
        expected = np.zeros_like(observed)
    elif method == "conger":
        expected, item_expected = _conger_terms(sums, w, columns)
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


def _conger_terms(sums, w, columns=None):
    """Conger's chance agreement and, given the per-item ``columns``, Gwet's per-item
    chance terms (Gwet 2014, ch. 5).

    Gwet's ``lambda_ig = (n / n_g) sum_kl (r pbar_k - p_gk) w_kl (delta_igl - (eps_ig - n_g /
    n) p_gl)`` summed over annotators is ``sum_g B_g,code(i,g) - sum_g eps_ig C_g + sum_g D_g``
    with small (annotator x category) factors, so no (item x annotator x category x category)
    array is formed.
    """
    n, n_g = sums["rated_item"], sums["rated"]  # (..., ), (..., annotator)
    active = n_g > 0  # annotators without any rating are left out
    r = active.sum(axis=-1)
    p_gk = sums["indicator"] / _nan_where_not(n_g, active)[..., None]
    p_mean = np.nansum(p_gk, axis=-2) / r[..., None]
    p_known = np.where(active[..., None], p_gk, 0.0)
    cross = np.einsum("...gk,...gl->...kl", p_known, p_known)
    r2 = r[..., None, None]
    mean_outer = p_mean[..., :, None] * p_mean[..., None, :]
    s2 = (cross - r2 * mean_outer) / _nan_where_not(r2 - 1, r2 > 1)
    expected = (w * (mean_outer - s2 / r2)).sum(axis=(-2, -1))
    if columns is None:  # per-item terms serve the standard error only
        return expected, None
    ind, rated = columns["indicator"], columns["rated"]
    factor = ((n[..., None] / _nan_where_not(n_g, active))[..., None]
              * np.einsum("...gk,kl->...gl", r[..., None, None] * p_mean[..., None, :] - p_gk, w))
    factor = np.where(active[..., None], factor, 0.0)  # B_gl
    c_g = np.einsum("...gl,...gl->...g", factor, p_known)
    d_g = (n_g / n[..., None]) * c_g
    lam = (
        np.einsum("...iak,...ak->...i", ind, factor)
        - np.einsum("...ia,...a->...i", rated, c_g)
        + np.nansum(d_g, axis=-1)[..., None]
    )
    item_expected = lam / _nan_where_not(r * (r - 1), r > 1)[..., None]
    return expected, item_expected


def _pool_mean(values, used, axis):
    """Mean over the pooled (label) ``axis`` of the entries where ``used`` (broadcast
    against ``values``); NaN values are left out, NaN when no entry is used."""
    total = np.nansum(np.where(used, values, np.nan), axis=axis)
    count = used.sum(axis=axis)
    return total / _nan_where_not(count, used.any(axis=axis))


def _t_quantile(level, dof):
    """Student's t quantile ``level`` at ``dof`` degrees of freedom (NaN stays NaN); block
    by block on dask."""
    from scipy import stats  # imported here so that ``import xr_agreement`` stays light

    if _is_dask(dof):
        return dof.map_blocks(lambda block: stats.t.ppf(level, block), dtype=np.float64)
    return stats.t.ppf(level, dof)


def _gwet_finish(terms, method, confidence, population_size, pooled, point_only=False,
                 limits=True):
    """Coefficient, its standard error and limits from :func:`_problem_terms`, pooling the
    problems along the last lead axis (the labels) when ``pooled``; only coefficient,
    observed and expected with ``point_only`` (bootstrap replicates), and no limits, counts
    or reasons without ``limits`` (the category and label levels report none)."""
    observed_j, expected_j = terms["observed"], terms["expected"]
    n_j, n2_j = terms["n"], terms["n_pairable"]
    used = n2_j > 0 if pooled else None
    observed = _pool_mean(observed_j, used, -1) if pooled else observed_j
    expected = _pool_mean(expected_j, used, -1) if pooled else expected_j
    gap = 1 - expected
    gap = _nan_where_not(gap, np.abs(gap) > _ZERO_GAP)
    coefficient = (observed - expected) / gap
    if point_only:
        return {"coefficient": coefficient, "observed": observed, "expected": expected}
    rated_j, pairable_j = terms["rated_item"], terms["pairable"]  # (..., item)
    rated_any = rated_j.any(axis=-2) if pooled else rated_j
    n = rated_any.sum(axis=-1)
    n_problem = n[..., None] if pooled else n  # n against each problem's (label's) own
    # Gwet's linearized per-item terms, rescaled from each problem's n'' (or n) to the pooled n
    obs_term = np.where(pairable_j, (n_problem / _nan_where_not(n2_j, n2_j > 0))[..., None]
                        * (terms["item_observed"] - expected_j[..., None]), 0.0)
    if method in ("fleiss", "gwet", "conger"):
        exp_term = np.where(rated_j, (n_problem / _nan_where_not(n_j, n_j > 0))[..., None]
                            * (terms["item_expected"] - expected_j[..., None]), 0.0)
    else:  # fixed chance agreement: no sampling variation
        exp_term = np.zeros_like(obs_term)
    if pooled:
        obs_term = _pool_mean(obs_term, used[..., None], -2)
        exp_term = _pool_mean(exp_term, used[..., None], -2)
    item_coefficient = (obs_term / gap[..., None]
                        - 2 * (1 - coefficient[..., None]) * exp_term / gap[..., None])
    spread = np.nansum(np.where(rated_any, (item_coefficient - coefficient[..., None]) ** 2,
                                0.0), axis=-1)
    finite = 1.0 if population_size is None else 1 - n / population_size
    variance = finite * spread / _nan_where_not(n * (n - 1), n > 1)
    se = np.where(np.isnan(coefficient), np.nan, np.sqrt(variance))
    if not limits:
        return {"coefficient": coefficient, "observed": observed, "expected": expected,
                "coefficient_se": se}
    t = _t_quantile(0.5 + confidence / 2, _nan_where_not(n - 1, n > 1).astype(np.float64))
    n2 = pairable_j.any(axis=-2).sum(axis=-1) if pooled else n2_j
    reason = np.where(np.isnan(observed), REASONS["no_pairs"], "")
    if method == "gwet" and terms["q"] < 2:
        reason = np.where(reason == "", REASONS["q"], reason)
    reason = np.where((reason == "") & np.isnan(coefficient), REASONS["gap"], reason)
    reason = np.where((reason == "") & np.isnan(se), REASONS["se"], reason)
    return {
        "coefficient": coefficient,
        "observed": observed,
        "expected": expected,
        "coefficient_se": se,
        "coefficient_lower": coefficient - t * se,
        "coefficient_upper": np.minimum(coefficient + t * se, 1.0),
        "n_rated_items": n,
        "n_pairable_items": n2,
        "undefined_reason": reason,
    }


_BINARY_IDENTITY = np.eye(2)


def _problems(data):
    """Each problem of a Gwet-family coefficient as (name, lead dims, indicator, weights):
    ``"overall"`` and, for single-label ratings, ``"category"`` (the category-vs-rest
    problems; on multi-label input the labels' problems are the overall one's
    constituents)."""
    lead, ind, rated = _canonical(data)
    problems = [("overall", lead, ind, np.asarray(data["weights"].values))]
    if not data["multi_label"]:
        # category-vs-rest: the category's own indicator against all other ratings, the
        # category axis moved before the items
        vs_rest = np.stack([ind, rated[..., None] - ind], axis=-1)
        vs_rest = np.moveaxis(vs_rest, -2, len(lead))
        problems.append(("category", (*lead, "category"), vs_rest, _BINARY_IDENTITY))
    return problems


def _gwet_columns(data, method) -> dict:
    """The per-item columns (:func:`_problem_columns`) of a Gwet-family coefficient as
    DataArrays (for the bootstrap's per-item tables), named ``"overall/<column>"`` and, for
    single-label ratings, ``"category/<column>"``."""
    item, annotator = data["item"], data["annotator"]
    columns = {}
    for problem, lead, ind, w in _problems(data):
        for name, column in _problem_columns(ind, w, method).items():
            dims = (*lead, item, *_column_dims(name, annotator))
            columns[f"{problem}/{name}"] = xr.DataArray(column, dims=dims)
    return columns


def _summed_problems(data, sums):
    """:func:`_problems` from the sums over items of their columns (DataArrays, with a
    resample dim on item-resampled data): (name, prefix dims, lead dims, weights, sums as
    arrays (*prefix, *lead, ...)). The lead dims are read from the sums, as the bootstrap may
    have let go of the ratings."""
    annotator = data["annotator"]
    weights = {"overall": np.asarray(data["weights"].values), "category": _BINARY_IDENTITY}
    problems = []
    for problem in ("overall", "category"):
        if f"{problem}/rated_item" not in sums:
            continue
        prefix, lead = _layout(sums[f"{problem}/rated_item"].dims, (), data)
        arrays = {name: sums[f"{problem}/{name}"].transpose(
                      *prefix, *lead, *_column_dims(name, annotator)).data
                  for name in _COLUMN_DIMS if f"{problem}/{name}" in sums}
        problems.append((problem, prefix, lead, weights[problem], arrays))
    return problems


def _gwet_values(data, method, confidence, population_size, sums=None):
    """Overall and per-category (or per-label) values of a Gwet-family coefficient from
    :func:`_prepare`'s output, as DataArrays, and the category dim. Given ``sums`` (the
    weighted sums over items of :func:`_gwet_columns`, dims resample, ...) point estimates
    only: the values on item-resampled data."""
    point_only = sums is not None
    finish = dict(method=method, confidence=confidence, population_size=population_size,
                  point_only=point_only)
    values, dims = {}, {}
    with np.errstate(divide="ignore", invalid="ignore"):
        if point_only:
            problems = [(problem, prefix, lead, w, problem_sums, None)
                        for problem, prefix, lead, w, problem_sums
                        in _summed_problems(data, sums)]
        else:
            problems = []
            for problem, lead, ind, w in _problems(data):
                columns = _problem_columns(ind, w, method)
                problem_sums = {name: column.sum(axis=len(lead))  # the item axis
                                for name, column in columns.items()}
                problems.append((problem, (), lead, w, problem_sums, columns))
        for problem, prefix, lead, w, problem_sums, columns in problems:
            terms = _problem_terms(problem_sums, w, method, columns)
            if problem == "overall" and data["multi_label"]:
                # each label is a binary problem; pooled over labels for the overall coefficient
                values["overall"] = _gwet_finish(terms, pooled=True, **finish)
                dims["overall"] = (*prefix, *lead[:-1])
                # the labels' own binary problems (the pooled constituents, same weights)
                values["category"] = _gwet_finish(terms, pooled=False, limits=False, **finish)
                dims["category"] = (*prefix, *lead)
            else:
                values[problem] = _gwet_finish(terms, pooled=False,
                                               limits=problem == "overall", **finish)
                dims[problem] = (*prefix, *lead)
    out = {name: xr.DataArray(value, dims=dims["overall"])
           for name, value in values["overall"].items()}
    level = "label" if data["multi_label"] else "category"  # the level prefix of the names
    for key in ("coefficient", "observed", "expected", "coefficient_se"):
        if key in values["category"]:
            out[f"{level}_{key}"] = xr.DataArray(values["category"][key],
                                                 dims=dims["category"])
    return out, data["label"] if data["multi_label"] else "category"


def _gwet_point(data, sums, method) -> dict:
    """A Gwet-family coefficient's values from column sums (bootstrap replicates)."""
    return _gwet_values(data, method, 0.95, None, sums)[0]
