"""Cohen's kappa: pairwise contingency tables, Byrt's indices, pooled multi-label values.

Computed on plain arrays like the Gwet family (:mod:`.gwet`): pair-level arrays have the axes
``(*lead, annotator_1, annotator_2)``, with a leading resample axis on item-resampled data
and, on multi-label input, the label last of the lead axes.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import xarray as xr

from .._core.arrays import divide
from .encode import _CAT, _COL, _ROW, _ZERO_GAP, REASONS
from .gwet import _canonical, _layout, _nan_where_not, _pool_mean

_PAIR = ("annotator_1", "annotator_2")

# the axes of each column's sum over items after (*lead, annotator_1, annotator_2)
_SUM_DIMS = {"table": (_ROW, _COL), "both": (), "marginal_1": (_CAT,), "marginal_2": (_CAT,),
             "agreement": (), "common": ()}


def _per_item(data):
    """(lead dims, weights (q, q), the per-item terms of :func:`cohen` as arrays): the
    indicator (*lead, item, annotator, category) and rated (*lead, item, annotator) as
    float and, on multi-label input, ``both`` and ``agreement`` (*lead, item, annotator_1,
    annotator_2) and ``common`` (the same without the label)."""
    lead, ind, rated = _canonical(data)
    w = data["weights"]
    terms = {"indicator": ind, "rated": rated.astype(np.float64)}
    if data["multi_label"]:
        rated = terms["rated"]
        both = rated[..., :, None] * rated[..., None, :]  # item rated by both on the label
        terms.update(both=both,
                     agreement=np.einsum("...iak,kl,...ibl->...iab", ind, w, ind),
                     common=both.max(axis=len(lead) - 1) > 0)
    return lead, w, terms


def _cohen_columns(data) -> dict:
    """The per-item terms whose sums over items :func:`cohen` uses, as DataArrays for the
    bootstrap's per-item tables (a tuple: factors whose product is the term): the pairs'
    contingency tables and, on multi-label input, the pooled coefficient's terms (see
    :func:`_cohen_pooled`)."""
    item = data["item"]
    lead, _, terms = _per_item(data)
    ind, rated = terms["indicator"], terms["rated"]

    def labeled(array, *dims, lead=lead):
        return xr.DataArray(array, dims=(*lead, item, *dims))

    # contingency table of every pair: T[a1, a2, row, col] = items rated row by a1, col by a2
    columns = {"table": (labeled(ind, "annotator_1", _ROW), labeled(ind, "annotator_2", _COL))}
    if data["multi_label"]:
        columns.update({
            "both": labeled(terms["both"], *_PAIR),
            "marginal_1": (labeled(ind, "annotator_1", _CAT), labeled(rated, "annotator_2")),
            "marginal_2": (labeled(rated, "annotator_1"), labeled(ind, "annotator_2", _CAT)),
            "agreement": labeled(terms["agreement"], *_PAIR),
            "common": labeled(terms["common"], *_PAIR, lead=lead[:-1]),
        })
    return columns


def _item_sums(data):
    """The sums over items of :func:`_cohen_columns` as arrays (*lead, annotator_1,
    annotator_2, ...), and the per-item terms the pooled standard error needs."""
    lead, _, terms = _per_item(data)
    ind = terms["indicator"]
    sums = {"table": _pair_tables(ind)}
    per_item = None
    if data["multi_label"]:
        rated = terms["rated"]
        sums.update({
            "both": terms["both"].sum(axis=-3),
            "marginal_1": np.einsum("...iak,...ib->...abk", ind, rated),
            "marginal_2": np.einsum("...ia,...ibk->...abk", rated, ind),
            "agreement": terms["agreement"].sum(axis=-3),
            "common": terms["common"].sum(axis=-3),
        })
        per_item = terms
    return lead, sums, per_item


def _pair_tables(ind):
    """T[..., a1, a2, row, col] = sum over items of ind[..., i, a1, row] ind[..., i, a2, col]:
    one matrix product over the items (BLAS; numpy's einsum took 160 ms for it at 100,000
    items x 5 annotators x 3 categories, the product 5 ms)."""
    *lead, N, n, q = ind.shape
    flat = ind.reshape(*lead, N, n * q)
    product = np.swapaxes(flat, -1, -2) @ flat
    return np.moveaxis(product.reshape(*lead, n, q, n, q), -3, -2)


def _given_sums(data, sums):
    """Weighted sums over items (DataArrays from the bootstrap, with a resample dim on
    item-resampled data) as arrays (*prefix, *lead, annotator_1, annotator_2, ...)."""
    prefix, lead = _layout(sums["table"].dims, (*_PAIR, _ROW, _COL), data)
    arrays = {}
    for name, column in sums.items():
        column_lead = lead[:-1] if name == "common" else lead
        arrays[name] = column.transpose(*prefix, *column_lead, *_PAIR, *_SUM_DIMS[name]).data
    return prefix, lead, arrays


def _cohen_point(data, sums) -> dict:
    """:func:`cohen`'s values from column sums (bootstrap replicates; no confidence level)."""
    return _cohen_values(data, 0.95, None, sums)[0]


def _cohen_values(data, confidence, population_size=None, sums=None):
    """Every value of :func:`cohen` from :func:`_prepare`'s output, as DataArrays, and the
    category dim.

    Given ``sums`` (weighted sums over items of :func:`_cohen_columns`, dims resample, ...)
    the values on item-resampled data (a pair's contingency table is a sum over items),
    except the pooled multi-label standard error, then NaN (its per-item terms are not
    formed). ``population_size`` scales the variances by ``1 - n / population_size``.
    """
    w = data["weights"]
    multi_label = data["multi_label"]
    with np.errstate(divide="ignore", invalid="ignore"):
        if sums is None:
            prefix = ()
            lead, arrays, per_item = _item_sums(data)
        else:
            prefix, lead, arrays = _given_sums(data, sums)
            per_item = None
        values = _pair_values(arrays, per_item, w, multi_label, confidence, population_size)
    pair_lead = (*prefix, *(lead[:-1] if multi_label else lead))
    if multi_label:
        category_dims = (*prefix, *lead, *_PAIR)
        category_dim = data["label"]
    else:
        category_dims = (*prefix, *lead, *_PAIR, "category")
        category_dim = "category"
    level = "pair_label" if multi_label else "pair_category"  # the names' prefixes
    out = {}
    for name, value in values.items():
        if name.startswith("category_"):
            out[level + name[len("category"):]] = xr.DataArray(value, dims=category_dims)
        elif name.startswith("pair_"):
            out[name] = xr.DataArray(value, dims=(*pair_lead, *_PAIR))
        else:
            out[name] = xr.DataArray(value, dims=pair_lead)
    order = ["pair_coefficient", "pair_observed", "pair_expected", "pair_coefficient_se",
             "pair_coefficient_lower", "pair_coefficient_upper", "pair_n_pairable_items",
             "pair_pabak", "pair_bias_adjusted_kappa", f"{level}_coefficient",
             f"{level}_coefficient_se", f"{level}_prevalence_index", f"{level}_bias_index",
             "pair_undefined_reason", "coefficient", "n_pairs", "undefined_reason"]
    return {name: out[name] for name in order}, category_dim


def _pair_values(sums, per_item, w, multi_label, confidence, population_size):
    """The values of :func:`_cohen_values` as arrays (see there), named ``pair_*``,
    ``category_*`` (per category, or per label on multi-label input) and corpus-level."""
    table = sums["table"]
    q = w.shape[0]
    bp_expected = float(w.sum()) / q**2
    if multi_label:
        overall = _cohen_pooled(sums, w, per_item, population_size)
        per_label = _cohen_table(table, w, population_size)
        pi = (per_label["row"] + per_label["col"]) / 2
        scott_expected = _pool_mean(np.einsum("rc,...r,...c->...", w, pi, pi),
                                    overall["used"], -3)
        # per label: the 2x2 table itself, category "1" in the first row/column
        binary = table[..., ::-1, ::-1]
        per_cat = per_label  # each label's own 2x2 problem, with the given weights
    else:
        overall = _cohen_table(table, w, population_size)
        pi = (overall["row"] + overall["col"]) / 2
        scott_expected = np.einsum("rc,...r,...c->...", w, pi, pi)
        binary = _binary_tables(table)
        # category-vs-rest: a binary split has no order, so identity weights
        per_cat = _cohen_table(binary, np.eye(2), population_size)
    coefficient, observed, expected, se = (
        overall[k] for k in ("coefficient", "observed", "expected", "se")
    )
    n_common = overall["n"]
    n_cat = _nan_where_not(per_cat["n"], per_cat["n"] > 0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    n_annotators = table.shape[-3]
    distinct = np.triu(np.ones((n_annotators, n_annotators), bool), 1)
    defined = ~np.isnan(coefficient) & distinct
    n_pairs = defined.sum(axis=(-2, -1))
    return {
        "pair_coefficient": coefficient,
        "pair_observed": observed,
        "pair_expected": expected,
        "pair_coefficient_se": se,
        "pair_coefficient_lower": coefficient - z * se,
        "pair_coefficient_upper": np.minimum(coefficient + z * se, 1.0),
        "pair_n_pairable_items": n_common,
        "pair_pabak": divide(observed - bp_expected, np.full_like(observed, 1 - bp_expected),
                             tolerance=_ZERO_GAP),
        "pair_bias_adjusted_kappa": divide(observed - scott_expected, 1 - scott_expected,
                                           tolerance=_ZERO_GAP),
        "category_coefficient": per_cat["coefficient"],
        "category_coefficient_se": per_cat["se"],
        "category_prevalence_index": (binary[..., 0, 0] - binary[..., 1, 1]) / n_cat,
        "category_bias_index": (binary[..., 0, 1] - binary[..., 1, 0]) / n_cat,
        "pair_undefined_reason": np.where(n_common == 0, REASONS["no_common"],
                                          np.where(np.isnan(coefficient), REASONS["gap"], "")),
        "coefficient": np.nansum(np.where(defined, coefficient, np.nan), axis=(-2, -1))
        / _nan_where_not(n_pairs, n_pairs > 0),
        "n_pairs": n_pairs,
        "undefined_reason": np.where(n_pairs == 0, REASONS["no_defined_pair"], ""),
    }


# --------------------------------------------------------------------------- Cohen


def _cohen_table(table, w, population_size=None):
    """Cohen's kappa and the Fleiss-Cohen-Everitt ASE of contingency tables (..., row, col)
    with agreement weights ``w`` (row, col); the variance times ``1 - n / population_size``
    when given (Gwet's finite-population correction)."""
    n = table.sum(axis=(-2, -1))
    p = table / _nan_where_not(n, n > 0)[..., None, None]
    # plain sums: a pair without common items must stay NaN, not 0
    row = p.sum(axis=-1)
    col = p.sum(axis=-2)
    observed = (w * p).sum(axis=(-2, -1))
    expected = np.einsum("rc,...r,...c->...", w, row, col)
    gap = _nan_where_not(1 - expected, np.abs(1 - expected) > _ZERO_GAP)
    kappa = (observed - expected) / gap
    w_row = np.einsum("rc,...c->...r", w, col)  # wbar_k. = sum_l w_kl p_+l
    w_col = np.einsum("rc,...r->...c", w, row)  # wbar_.l = sum_k w_kl p_k+
    spread = (p * (w - (w_row[..., :, None] + w_col[..., None, :])
                   * (1 - kappa)[..., None, None]) ** 2).sum(axis=(-2, -1))
    variance = _finite(
        (spread - (kappa - expected * (1 - kappa)) ** 2) / (gap**2 * n), n, population_size)
    # clip: rounding can leave a tiny negative variance when it is 0
    return {
        "coefficient": kappa,
        "observed": observed,
        "expected": expected,
        "se": np.sqrt(np.clip(variance, 0, None)),
        "n": n,
        "row": row,
        "col": col,
    }


def _binary_tables(table):
    """Category-vs-rest 2x2 tables (..., category, row, col) from q x q tables (..., row,
    col)."""
    both = np.diagonal(table, axis1=-2, axis2=-1)
    first = table.sum(axis=-1)
    second = table.sum(axis=-2)
    n = table.sum(axis=(-2, -1))[..., None]
    return np.stack([np.stack([both, first - both], axis=-1),
                     np.stack([second - both, n - first - second + both], axis=-1)], axis=-2)


def _cohen_pooled(sums, w, per_item=None, population_size=None):
    """Cohen's kappa pooled over labels (the axis before the pair axes),
    ``(mean P_o,j - mean P_e,j) / (1 - mean P_e,j)`` over the labels the pair shares an item
    on, from the sums over items of :func:`_cohen_columns`, and, given the ``per_item``
    terms, its delta-method standard error from per-item influence terms (for a single
    label: the Fleiss-Cohen-Everitt ASE; else NaN)."""
    n_j = sums["both"]
    used = n_j > 0
    known = _nan_where_not(n_j, used)
    marg1 = sums["marginal_1"] / known[..., None]
    marg2 = sums["marginal_2"] / known[..., None]
    observed_j = sums["agreement"] / known
    expected_j = np.einsum("kl,...k,...l->...", w, marg1, marg2)
    n = sums["common"]
    observed = _pool_mean(observed_j, used, -3)
    expected = _pool_mean(expected_j, used, -3)
    gap = _nan_where_not(1 - expected, np.abs(1 - expected) > _ZERO_GAP)
    kappa = (observed - expected) / gap
    values = {
        "coefficient": kappa,
        "observed": observed,
        "expected": expected,
        "n": n,
        "used": used,
    }
    if per_item is None:
        values["se"] = np.full_like(kappa, np.nan)
        return values
    ind, rated = per_item["indicator"], per_item["rated"]  # (..., label, item, annotator, ...)
    both, item_agreement = per_item["both"], per_item["agreement"]
    # derivative of P_e,j with respect to the item: sum_kl w_kl (x1_ik p2_l + p1_k x2_il)
    w_marg2 = np.einsum("kl,...l->...k", w, marg2)
    w_marg2 = np.where(np.isnan(w_marg2), 0.0, w_marg2)
    w_marg1 = np.einsum("kl,...k->...l", w, marg1)
    w_marg1 = np.where(np.isnan(w_marg1), 0.0, w_marg1)
    item_expected = (np.einsum("...iak,...abk->...iab", ind, w_marg2) * rated[..., None, :]
                     + np.einsum("...ibk,...abk->...iab", ind, w_marg1) * rated[..., :, None])

    def per_pair(array):  # (..., label, a1, a2) against (..., label, item, a1, a2)
        return array[..., None, :, :]

    scale = per_pair(n[..., None, :, :] / known)
    obs_term = _pool_mean(scale * (item_agreement - per_pair(observed_j) * both),
                          per_pair(used), -4)
    exp_term = _pool_mean(scale * (item_expected - 2 * per_pair(expected_j) * both),
                          per_pair(used), -4)
    influence = (obs_term - per_pair(1 - kappa) * exp_term) / per_pair(gap)
    variance = _finite(np.nansum(influence**2, axis=-3) / _nan_where_not(n, n > 0) ** 2, n,
                       population_size)
    values["se"] = np.sqrt(variance)
    return values


def _finite(variance, n, population_size):
    """``variance`` times Gwet's finite-population factor ``1 - n / population_size``."""
    return variance if population_size is None else variance * (1 - n / population_size)
