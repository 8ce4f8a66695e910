"""The Gwet family's formulas on small tables: Gwet's (2014) per-item terms of items with
given category counts (:func:`_count_columns`), the point values from their sums over items
(:func:`_problem_terms`, :func:`_gwet_point`, Conger's chance agreement), the standard error
and limits from the sum of squared per-item deviations (:func:`_gwet_error`).

The counting passes (:mod:`.finish`) give those sums from tables of counts; the bootstrap
gives them as weighted sums of the one-hot per-item columns (:func:`_gwet_columns`, axes
``(*lead, item, annotator, category)``, ``lead`` the extra dims with the label last on
multi-label input; sums over items drop the item axis and, on item-resampled data, gain a
leading resample axis).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

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


def _count_columns(counts, w):
    """Gwet's per-item terms of items with category counts ``counts`` (..., q): the raters
    r_i, the observed agreement sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1)) with r*_ik =
    sum_l w_kl r_il (0 where r_i < 2) and the shares r_ik / r_i (0 where r_i = 0). The one
    place of these formulas: the bootstrap's per-item columns, the compositions and the
    binary problems' states all take them from here."""
    raters = counts.sum(axis=-1)
    weighted = counts @ w.T
    observed = np.where(raters >= 2, (counts * (weighted - 1)).sum(axis=-1)
                        / np.maximum(raters * (raters - 1), 1), 0.0)
    return raters, observed, counts / np.maximum(raters, 1)[..., None]


def _problem_columns(ind, w, method) -> dict:
    """The per-item terms of Gwet's formulas for indicator ``ind`` (*lead, item, annotator,
    category; 0/1, no NaN; every lead entry is a separate problem) whose sums over items the
    point values use (see :func:`_problem_terms`)."""
    raters, observed, share = _count_columns(ind.sum(axis=-2), w)  # from r_ik
    columns = {"rated_item": raters >= 1, "pairable": raters >= 2, "item_observed": observed,
               "share": share}
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


def _problem_terms(sums, w, method, with_chance=False):
    """Per-problem point quantities of Gwet's formulas from ``sums``, the sums over items
    of :func:`_problem_columns` (weighted sums, with a leading resample axis, give the values
    on item-resampled data: Gwet's statistics are sums of per-item terms). With
    ``with_chance``, also what the per-item chance term of the standard error needs:
    ``chance`` (..., q), the c_k of sum_k (r_ik / r_i) c_k (Fleiss, Gwet), or for Conger
    ``conger`` (his per-annotator table, constant and scale: :func:`_conger_chance`)."""
    q = w.shape[0]
    n, n_pairable = sums["rated_item"], sums["pairable"]
    observed = sums["item_observed"] / _nan_where_not(n_pairable, n_pairable > 0)
    pi = sums["share"] / _nan_where_not(n, n > 0)[..., None]
    total_weight = float(w.sum())
    chance = conger = None
    if method == "fleiss":
        expected = np.einsum("kl,...k,...l->...", w, pi, pi)
        # asymmetric weights enter through (w + w') / 2, as in Gwet's variance
        chance = (np.einsum("kl,...l->...k", w, pi) + np.einsum("kl,...k->...l", w, pi)) / 2
    elif method == "gwet":
        scale = total_weight / (q * (q - 1)) if q >= 2 else np.nan
        expected = scale * (pi * (1 - pi)).sum(axis=-1)
        chance = scale * (1 - pi)
    elif method == "brennan_prediger":
        expected = np.full_like(observed, total_weight / q**2)
    elif method == "percent":
        expected = np.zeros_like(observed)
    elif method == "conger":
        expected, conger = _conger_chance(sums, w, with_chance)
    else:  # pragma: no cover - internal
        raise ValueError(method)
    terms = {"observed": observed, "expected": expected, "n": n, "n_pairable": n_pairable,
             "q": q}
    if with_chance:
        terms.update(chance=chance, conger=conger)
    return terms


def _conger_chance(sums, w, with_chance=True):
    """Conger's chance agreement and, with ``with_chance``, what Gwet's per-item chance
    terms need (Gwet 2014, ch. 5): ``(annotator table (..., annotator, q), constant D,
    scale)`` with lambda_i / (r (r - 1)) = (sum over the item's raters g of table[g,
    code(i, g)] + D) * scale.

    Gwet's ``lambda_ig = (n / n_g) sum_kl (r pbar_k - p_gk) w_kl (delta_igl - (eps_ig - n_g /
    n) p_gl)`` summed over annotators is ``sum_g B_g,code(i,g) - sum_g eps_ig C_g + sum_g D_g``
    with small (annotator x category) factors: table = B - C, D = sum_g D_g.
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
    if not with_chance:
        return expected, None
    factor = ((n[..., None] / _nan_where_not(n_g, active))[..., None]
              * np.einsum("...gk,kl->...gl", r[..., None, None] * p_mean[..., None, :] - p_gk, w))
    factor = np.where(active[..., None], factor, 0.0)  # B_gl
    c_g = np.einsum("...gl,...gl->...g", factor, p_known)
    d_g = (n_g / n[..., None]) * c_g
    table = factor - c_g[..., None]
    constant = np.nansum(d_g, axis=-1)
    scale = 1 / _nan_where_not(r * (r - 1), r > 1)
    return expected, (table, constant, scale)


def _pool_mean(values, used, axis):
    """Mean over the pooled (label) ``axis`` of the entries where ``used`` (broadcast
    against ``values``); NaN values are left out, NaN when no entry is used."""
    total = np.nansum(np.where(used, values, np.nan), axis=axis)
    count = used.sum(axis=axis)
    return total / _nan_where_not(count, used.any(axis=axis))


def _t_quantile(level, dof):
    """Student's t quantile ``level`` at ``dof`` degrees of freedom (NaN stays NaN), from
    scipy.special's ufunc: ``scipy.stats.t.ppf`` costs some 60 us a call in argument
    handling, a fifth of a small call."""
    from scipy import special  # imported here so that ``import xr_agreement`` stays light

    return special.stdtrit(dof, level)


def _gwet_point(terms, pooled):
    """Observed and chance agreement, 1 - P_e (NaN where 0) and the coefficient from
    :func:`_problem_terms`, the problems (labels, the last lead axis) pooled when
    ``pooled``: ``(mean_j P_o,j - mean_j P_e,j) / (1 - mean_j P_e,j)`` over the labels with
    a pairable item."""
    observed, expected = terms["observed"], terms["expected"]
    if pooled:
        used = terms["n_pairable"] > 0
        observed = _pool_mean(observed, used, -1)
        expected = _pool_mean(expected, used, -1)
    gap = 1 - expected
    gap = _nan_where_not(gap, np.abs(gap) > _ZERO_GAP)
    return {"coefficient": (observed - expected) / gap, "observed": observed,
            "expected": expected, "gap": gap}


def _gwet_error(point, n, n_pairable, spread, method, q, confidence, population_size,
                limits=True):
    """``point`` (:func:`_gwet_point`) with Gwet's standard error from ``spread``, the sum
    over the ``n`` rated items of the squared deviations of his linearized per-item terms
    from the coefficient (the standard error's pass), and, with ``limits``, the t-based
    limits, the counts and why a value is undefined (the category and label levels report
    none)."""
    coefficient = point["coefficient"]
    finite = 1.0 if population_size is None else 1 - n / population_size
    variance = finite * spread / _nan_where_not(n * (n - 1), n > 1)
    se = np.where(np.isnan(coefficient), np.nan, np.sqrt(variance))
    values = {"coefficient": coefficient, "observed": point["observed"],
              "expected": point["expected"], "coefficient_se": se}
    if not limits:
        return values
    t = _t_quantile(0.5 + confidence / 2, _nan_where_not(n - 1, n > 1).astype(np.float64))
    reason = np.where(np.isnan(point["observed"]), REASONS["no_pairs"], "")
    if method == "gwet" and q < 2:
        reason = np.where(reason == "", REASONS["q"], reason)
    reason = np.where((reason == "") & np.isnan(coefficient), REASONS["gap"], reason)
    reason = np.where((reason == "") & np.isnan(se), REASONS["se"], reason)
    return dict(values, coefficient_lower=coefficient - t * se,
                coefficient_upper=np.minimum(coefficient + t * se, 1.0),
                n_rated_items=n, n_pairable_items=n_pairable, undefined_reason=reason)


_BINARY_IDENTITY = np.eye(2)


def _problems(data):
    """Each problem of a Gwet-family coefficient as (name, lead dims, indicator, weights):
    ``"overall"`` and, for single-label ratings, ``"category"`` (the category-vs-rest
    problems; on multi-label input the labels' problems are the overall one's
    constituents)."""
    lead, ind, rated = _canonical(data)
    problems = [("overall", lead, ind, data["weights"])]
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
    weights = {"overall": data["weights"], "category": _BINARY_IDENTITY}
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
