"""Gwet's per-item terms and the Gwet family's coefficients and variances."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .encode import _CAT, _CAT2, _OUTCOME, _POOL, _ZERO_GAP, REASONS


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
        "coefficient_se": se,
        "coefficient_lower": coefficient - t * se,
        "coefficient_upper": np.minimum(coefficient + t * se, 1.0),
        "n_rated_items": n,
        "n_pairable_items": n2,
        "undefined_reason": reason,
    }


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
    level = "label" if data["multi_label"] else "category"  # the level prefix of the names
    for key in ("coefficient", "observed", "expected", "coefficient_se"):
        if key in per_cat:
            out[f"{level}_{key}"] = per_cat[key]
    return out, category_dim


def _gwet_point(data, sums, method) -> dict:
    """A Gwet-family coefficient's values from column sums (bootstrap replicates)."""
    return _gwet_values(data, method, 0.95, None, sums)[0]


def _mean_over(values, used, dim):
    """Mean over ``dim`` of the entries where ``used``; NaN when none is."""
    return values.where(used).sum(dim) / used.sum(dim).where(used.any(dim))
