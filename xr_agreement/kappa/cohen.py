"""Cohen's kappa: pairwise contingency tables, Byrt's indices, pooled multi-label values."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import xarray as xr

from .._core.arrays import divide
from .encode import _CAT, _CAT2, _COL, _ROW, _ZERO_GAP, REASONS
from .gwet import _column_sums, _mean_over


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
    return _cohen_values(data, 0.95, None, sums)[0]


def _cohen_values(data, confidence, population_size=None, sums=None):
    """Every value of :func:`cohen` from :func:`_prepare`'s output, and the category dim.

    Given ``sums`` (weighted sums over items of :func:`_cohen_columns`, dims resample, ...)
    the values on item-resampled data (a pair's contingency table is a sum over items),
    except the pooled multi-label standard error, then NaN (its per-item terms are not
    formed). ``population_size`` scales the variances by ``1 - n / population_size``.
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
        overall = _cohen_pooled(sums, w, item, label, columns, population_size)
        used = overall["used"]
        per_label = _cohen_table(table, w_rc, population_size)
        pi = (per_label["row"] + per_label["col"].rename({_COL: _ROW})) / 2
        scott_expected = _mean_over(
            xr.dot(pi, w_rc, pi.rename({_ROW: _COL}), dim=[_ROW, _COL]), used, label
        )
        # per label: the 2x2 table itself, category "1" in the first row/column
        binary = table.isel({_ROW: [1, 0], _COL: [1, 0]}).drop_vars([_ROW, _COL], errors="ignore")
        category_dim = label
    else:
        overall = _cohen_table(table, w_rc, population_size)
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
        per_cat = _cohen_table(binary, xr.DataArray(np.eye(2), dims=(_ROW, _COL)),
                               population_size)
    n_cat = per_cat["n"].where(per_cat["n"] > 0)
    prevalence_index = (binary.isel({_ROW: 0, _COL: 0}) - binary.isel({_ROW: 1, _COL: 1})) / n_cat
    bias_index = (binary.isel({_ROW: 0, _COL: 1}) - binary.isel({_ROW: 1, _COL: 0})) / n_cat
    pabak = divide(observed - bp_expected, xr.full_like(observed, 1 - bp_expected),
                   tolerance=_ZERO_GAP)
    bias_adjusted = divide(observed - scott_expected, 1 - scott_expected, tolerance=_ZERO_GAP)

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    reason = xr.where(
        n_common == 0, REASONS["no_common"], xr.where(coefficient.isnull(), REASONS["gap"], "")
    )
    pair_dims = ("annotator_1", "annotator_2")
    n_annotators = table.sizes["annotator_1"]
    distinct = xr.DataArray(np.triu(np.ones((n_annotators, n_annotators), bool), 1), dims=pair_dims)
    defined = coefficient.notnull() & distinct
    n_pairs = defined.sum(pair_dims)
    level = "pair_label" if data["multi_label"] else "pair_category"  # the names' prefixes
    out = {
        "pair_coefficient": coefficient,
        "pair_observed": observed,
        "pair_expected": expected,
        "pair_coefficient_se": se,
        "pair_coefficient_lower": coefficient - z * se,
        "pair_coefficient_upper": np.minimum(coefficient + z * se, 1.0),
        "pair_n_pairable_items": n_common,
        "pair_pabak": pabak,
        "pair_bias_adjusted_kappa": bias_adjusted,
        f"{level}_coefficient": per_cat["coefficient"],
        f"{level}_coefficient_se": per_cat["se"],
        f"{level}_prevalence_index": prevalence_index,
        f"{level}_bias_index": bias_index,
        "pair_undefined_reason": reason,
        "coefficient": coefficient.where(defined).sum(pair_dims) / n_pairs.where(n_pairs > 0),
        "n_pairs": n_pairs,
        "undefined_reason": xr.where(n_pairs == 0, REASONS["no_defined_pair"], ""),
    }
    return out, category_dim


# --------------------------------------------------------------------------- Cohen


def _cohen_table(table, w, population_size=None):
    """Cohen's kappa and the Fleiss-Cohen-Everitt ASE of contingency tables (dims ..., _row,
    _col) with agreement weights ``w`` (dims _row, _col); the variance times ``1 - n /
    population_size`` when given (Gwet's finite-population correction)."""
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
    variance = _finite(
        (spread - (kappa - expected * (1 - kappa)) ** 2) / (gap**2 * n), n, population_size)
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


def _cohen_pooled(sums, w, item, label, columns=None, population_size=None):
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
    variance = _finite((influence**2).sum(item) / (n.where(n > 0) ** 2), n, population_size)
    values["se"] = np.sqrt(variance)
    return values


def _finite(variance, n, population_size):
    """``variance`` times Gwet's finite-population factor ``1 - n / population_size``."""
    return variance if population_size is None else variance * (1 - n / population_size)
