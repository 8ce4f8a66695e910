"""The Gwet family's values on small tables, the problems flattened for the compiled
formulas of :mod:`.formulas`: Gwet's (2014) per-item terms of items with given category
counts (:func:`_count_columns`), the point values from their sums over items
(:func:`_problem_terms`, :func:`_gwet_point`), the standard error, limits and reasons from
the sum of squared per-item deviations (:func:`_gwet_error`).

The counting passes (:mod:`.finish`) give those sums from tables of counts; the bootstrap
gives them as weighted sums of the one-hot per-item columns (:func:`_gwet_columns`, axes
``(*lead, item, annotator, category)``, ``lead`` the extra dims with the label last on
multi-label input; sums over items drop the item axis and, on item-resampled data, gain a
leading resample axis).
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .._core.student_t import t_quantile
from . import formulas as _formulas
from .encode import _CAT, REASONS


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
    """Gwet's per-item terms of items with category counts ``counts`` (..., q)
    (:func:`.formulas.item_terms`): the raters r_i (float), the observed agreement sum_k
    r_ik (r*_ik - 1) / (r_i (r_i - 1)) with r*_ik = sum_l w_kl r_il (0 where r_i < 2) and
    the shares r_ik / r_i (0 where r_i = 0)."""
    q = np.shape(counts)[-1]
    if _is_dask(counts):  # block by block (the bootstrap's per-item columns on dask input)
        counts = counts.rechunk({counts.ndim - 1: -1})
        columns = counts.map_blocks(_stacked_columns, w, dtype=np.float64,
                                    chunks=(*counts.chunks[:-1], (q + 2,)))
        return columns[..., 0], columns[..., 1], columns[..., 2:]
    columns = _stacked_columns(counts, w)
    return columns[..., 0], columns[..., 1], columns[..., 2:]


def _stacked_columns(counts, w):
    """:func:`_count_columns` of numpy ``counts`` (..., q) side by side: (..., q + 2)."""
    shape, q = counts.shape[:-1], counts.shape[-1]
    columns = np.empty((*shape, q + 2))
    flat = columns.reshape(math.prod(shape), q + 2)
    _formulas.item_columns(_flat(counts, shape, q), np.ascontiguousarray(w, np.float64),
                           flat[:, 0], flat[:, 1], flat[:, 2:])
    return columns


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


def _flat(values, shape, *tail):
    """``values`` as float64 of shape ``(*shape, *tail)`` (broadcast if need be), the
    problems on one axis: as :mod:`.formulas`' batched kernels take them."""
    if np.shape(values) != (*shape, *tail):
        values = np.broadcast_to(values, (*shape, *tail))
    return np.ascontiguousarray(values, np.float64).reshape(math.prod(shape), *tail)


def _problem_terms(sums, w, method, with_chance=False):
    """Per-problem point quantities of Gwet's formulas (:func:`.formulas.problem_values`)
    from ``sums``, the sums over items of :func:`_problem_columns` (weighted sums, with a
    leading resample axis, give the values on item-resampled data: Gwet's statistics are
    sums of per-item terms): ``observed``, ``expected``, ``gap`` (1 - P_e, NaN where 0),
    ``coefficient``, ``n``, ``n_pairable``, ``q`` and ``values`` (the kernel's (P, 7) table,
    problems flattened). With ``with_chance``, also what the per-item chance term of the
    standard error needs: ``chance`` (..., q), the c_k of sum_k (r_ik / r_i) c_k (Fleiss,
    Gwet), or for Conger ``conger`` (his per-annotator table, constant and scale)."""
    q = w.shape[0]
    n, n_pairable = sums["rated_item"], sums["pairable"]
    shape = np.shape(n)
    P = math.prod(shape)

    def flat(values, *tail):
        return _flat(values, shape, *tail)

    if method == "conger":
        A = sums["rated"].shape[-1]
        rated, indicator = flat(sums["rated"], A), flat(sums["indicator"], A, q)
    else:
        A = 0
        rated, indicator = np.zeros((P, 0)), np.zeros((P, 0, q))
    values = np.empty((P, 7))
    chance = np.empty((P, q))
    table = np.empty((P, A, q))
    _formulas.problem_values(flat(n), flat(n_pairable), flat(sums["item_observed"]),
                             flat(sums["share"], q), np.ascontiguousarray(w, np.float64),
                             _formulas.METHODS[method], rated, indicator, values, chance,
                             table)
    terms = {name: values[:, column].reshape(shape) for column, name in
             enumerate(("observed", "expected", "gap", "coefficient"))}
    terms.update(n=n, n_pairable=n_pairable, q=q, values=values)
    if with_chance:
        terms["chance"] = chance.reshape(*shape, q) if method in ("fleiss", "gwet") else None
        terms["conger"] = None
        if method == "conger":
            terms["conger"] = (table.reshape(*shape, A, q), values[:, 4].reshape(shape),
                               values[:, 5].reshape(shape))
    return terms


def _pool_mean(values, used, axis):
    """Mean over the pooled (label) ``axis`` of the entries where ``used`` (broadcast
    against ``values``); NaN values are left out, NaN when no entry is used."""
    total = np.nansum(np.where(used, values, np.nan), axis=axis)
    count = used.sum(axis=axis)
    return total / _nan_where_not(count, used.any(axis=axis))


def _gwet_point(terms, pooled):
    """Observed and chance agreement, 1 - P_e (NaN where 0) and the coefficient from
    :func:`_problem_terms`, the problems (labels, the last lead axis) pooled when
    ``pooled``: ``(mean_j P_o,j - mean_j P_e,j) / (1 - mean_j P_e,j)`` over the labels with
    a pairable item."""
    observed, expected = terms["observed"], terms["expected"]
    if not pooled:
        return {"coefficient": terms["coefficient"], "observed": observed,
                "expected": expected, "gap": terms["gap"]}
    used = terms["n_pairable"] > 0
    observed = _pool_mean(observed, used, -1)
    expected = _pool_mean(expected, used, -1)
    gap, coefficient = np.empty(observed.shape), np.empty(observed.shape)
    _formulas.points(np.ravel(observed), np.ravel(expected), gap.reshape(-1),
                     coefficient.reshape(-1))
    return {"coefficient": coefficient, "observed": observed, "expected": expected,
            "gap": gap}


def _gwet_error(point, n, n_pairable, spread, method, q, confidence, population_size,
                limits=True):
    """``point`` (:func:`_gwet_point`) with Gwet's standard error from ``spread``, the sum
    over the ``n`` rated items of the squared deviations of his linearized per-item terms
    from the coefficient (the standard error's pass), and, with ``limits``, the t-based
    limits, the counts and why a value is undefined (the category and label levels report
    none)."""
    coefficient = point["coefficient"]
    shape = np.shape(coefficient)
    se = np.empty(shape)
    _formulas.standard_errors(
        _flat(coefficient, shape), _flat(n, shape), _flat(spread, shape),
        0.0 if population_size is None else float(population_size), se.reshape(-1))
    values = {"coefficient": coefficient, "observed": point["observed"],
              "expected": point["expected"], "coefficient_se": se}
    if not limits:
        return values
    t = t_quantile(_nan_where_not(n - 1, n > 1).astype(np.float64), confidence)
    return dict(values, coefficient_lower=coefficient - t * se,
                coefficient_upper=np.minimum(coefficient + t * se, 1.0),
                n_rated_items=n, n_pairable_items=n_pairable,
                undefined_reason=_reasons(point["observed"], coefficient, se,
                                          method == "gwet" and q < 2))


def _reasons(observed, coefficient, se, too_few_categories):
    """Why each value is undefined (the first that applies: no pairable item, fewer than 2
    categories for AC1, P_e = 1, fewer than 2 rated items for the standard error; "" where
    defined), as text of the longest of those reasons' length. Chosen by index, the last
    assignment winning: string comparisons cost a small call some 15 us."""
    names = ("no_pairs", "q", "gap", "se") if too_few_categories else ("no_pairs", "gap", "se")
    texts = np.array(["", *(REASONS[name] for name in names)])
    index = np.zeros(np.shape(coefficient), np.intp)
    index[np.isnan(se)] = names.index("se") + 1
    index[np.isnan(coefficient)] = names.index("gap") + 1
    if too_few_categories:
        index[...] = names.index("q") + 1
    index[np.isnan(observed)] = names.index("no_pairs") + 1
    return texts[index.reshape(-1)].reshape(index.shape)  # an array of texts' dtype, 0-d too


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
