"""Multi-Label Agreement (Menzner & Leidner): observed Hamming agreement, three baselines,
corpus / item / label levels, the eq. 6 weights, the conditional minimum, Hamming alpha.

Everything is finished here with xarray arithmetic on the small count arrays of
:func:`xr_agreement._stats.hamming_counts`; nothing in this module touches the raw decisions.

Missing decisions (NaN) follow Krippendorff's pairable-values weighting: for label ``j`` only
cells (item, label) with at least two decisions count, ``n_j`` is the number of such decisions,
and corpus values are ``n_j``-weighted averages of label values. On complete data ``n_j`` is the
same for every label and the paper's formulas come back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from . import _kernels
from ._stats import hamming_counts
from ._validate import (
    check_annotators,
    check_binary_dtype,
    check_dataarray,
    check_dims,
)

BASELINES = {
    "F": "pooled-marginal (Fleiss/Scott-type): A_e,j = p_j^2 + (1 - p_j)^2",
    "AC1": "Gwet AC1: A_e,j = 2 p_j (1 - p_j)",
    "PB": "fixed (PABAK / Brennan-Prediger): A_e,j = 0.5",
}
ALIASES = {
    "f": "F",
    "kappa": "F",
    "fleiss": "F",
    "scott": "F",
    "ac1": "AC1",
    "gwet": "AC1",
    "pb": "PB",
    "pabak": "PB",
    "bp": "PB",
}

# long_name, symbol, description for every output variable
VARIABLES = {
    "agreement": (
        "multi-label agreement",
        "A_ml",
        "(A_o - A_e) / (1 - A_e) (paper eq. 5); NaN when 1 - A_e = 0 (e.g. every label "
        "constant under F)",
    ),
    "observed": (
        "observed Hamming agreement",
        "A_o",
        "mean pairwise Hamming agreement (paper eq. 2); with missing decisions the "
        "pairable-value-weighted mean of label_observed",
    ),
    "expected": (
        "expected agreement",
        "A_e",
        "baseline agreement, the (pairable-value-weighted) mean of label_expected",
    ),
    "minimum": (
        "minimum feasible agreement coefficient",
        "A_ml,min",
        "(A_o,min - A_e) / (1 - A_e): the lowest value the coefficient can take with the "
        "observed number of positives per label (paper section 3.5)",
    ),
    "observed_minimum": (
        "minimum feasible observed agreement",
        "A_o,min",
        "lowest observed agreement reachable by moving positive decisions between items "
        "while keeping each label's total (paper eq. 7, averaged over labels)",
    ),
    "raw_prevalence": (
        "raw prevalence",
        "p_r",
        "share of positive decisions over all labels (the mean of prevalence on complete "
        "data)",
    ),
    "alpha_hamming": (
        "Krippendorff's alpha, normalized Hamming distance",
        "alpha_H",
        "1 - D_o / D_e with D_e from pairable values drawn without replacement (paper "
        "section 3.4: D_e scaled by M / (M - 1)); NaN when D_e = 0",
    ),
    "n_pairable_items": (
        "pairable items",
        "N_pairable",
        "items with at least one (annotator pair, label) comparison",
    ),
    "n_missing_decisions": (
        "missing decisions",
        "N_missing",
        "number of (item, annotator, label) decisions that were not made (NaN)",
    ),
    "item_observed": (
        "item observed agreement",
        "A_o,i",
        "agreeing share of the (annotator pair, label) comparisons on the item (paper eq. "
        "1); NaN for an item with no pair of decisions",
    ),
    "item_agreement": (
        "item agreement",
        "A_ml,i",
        "(A_o,i - A_e) / (1 - A_e) with the corpus baseline: a diagnostic relative to the "
        "corpus, not an independent reliability estimate",
    ),
    "label_observed": (
        "label observed agreement",
        "A_o,j",
        "share of agreeing annotator pairs on the label (1 - D_o,j with missing data)",
    ),
    "label_expected": ("label expected agreement", "A_e,j", "baseline agreement of the label"),
    "label_agreement": (
        "label agreement",
        "A_j",
        "(A_o,j - A_e,j) / (1 - A_e,j); NaN where 1 - A_e,j = 0 (under F: a label nobody "
        "or everybody selected, 0/0)",
    ),
    "label_weight": (
        "label weight",
        "w_j",
        "weight of the label in the corpus coefficient (paper eq. 6): (n_j / mean n_j) * "
        "(1 - A_e,j), which is 1 - A_e,j on complete data; 0 for a label without pairable "
        "decisions",
    ),
    "label_observed_minimum": (
        "label minimum feasible observed agreement",
        "A_o,min,j",
        "lowest observed agreement of the label given its number of positives (paper eq. 7)",
    ),
    "prevalence": (
        "label prevalence",
        "p_j",
        "share of positive decisions among the label's pairable decisions",
    ),
    "positive_agreement": (
        "positive specific agreement",
        "p_pos,j",
        "sum_i x(x - 1) / sum_i x(m - 1): agreement on the label's positive decisions; NaN "
        "without positives",
    ),
    "negative_agreement": (
        "negative specific agreement",
        "p_neg,j",
        "the same with m - x in place of x: agreement on the label's negative decisions",
    ),
    "label_pairable_values": (
        "label pairable decisions",
        "n_j",
        "decisions on the label in (item, label) cells with at least two decisions",
    ),
}

BASELINE_DEPENDENT = {
    "agreement",
    "expected",
    "minimum",
    "item_agreement",
    "label_agreement",
    "label_expected",
    "label_weight",
}


def parse_baselines(baseline) -> tuple[list[str], bool]:
    """Canonical baseline names and whether a single one was asked for.

    >>> parse_baselines("kappa")
    (['F'], True)
    >>> parse_baselines("all")
    (['F', 'AC1', 'PB'], False)
    """
    if isinstance(baseline, str):
        if baseline.lower() == "all":
            return list(BASELINES), False
        names, single = [baseline], True
    elif isinstance(baseline, Sequence) and baseline:
        names, single = list(baseline), False
    else:
        raise ValueError(f"baseline must be a name, a list of names or 'all', got {baseline!r}")
    canonical = []
    for name in names:
        key = ALIASES.get(str(name).lower())
        if key is None:
            raise ValueError(
                f"unknown baseline {name!r}; use one of {list(BASELINES)} (aliases: "
                f"{sorted(ALIASES)}) or 'all'"
            )
        if key in canonical:
            raise ValueError(f"baseline {name!r} given twice (as {key!r})")
        canonical.append(key)
    return canonical, single


def mla(
    da: xr.DataArray,
    baseline: str | Sequence[str] = "F",
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> xr.Dataset:
    """Multi-Label Agreement of binary multi-label decisions.

    Parameters
    ----------
    da : xarray.DataArray
        Decisions with dims ``item``, ``annotator`` and ``label`` in any order; values 0/1
        (bool, integer or float). NaN (float) marks a decision that was not made. Any other
        dim (a ``round``, a ``task``) is carried into every output.
    baseline : str or list of str, default "F"
        The chance model: "F" (pooled marginal; aliases "kappa", "fleiss", "scott"), "AC1"
        (alias "gwet") or "PB" (fixed 0.5; aliases "pabak", "bp"); case-insensitive. A list,
        or "all", adds a ``baseline`` dim to the baseline-dependent variables.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    xarray.Dataset
        Corpus level: ``agreement``, ``observed``, ``expected``, ``minimum``,
        ``observed_minimum``, ``raw_prevalence``, ``alpha_hamming``, ``n_pairable_items``,
        ``n_missing_decisions``. Over ``item``: ``item_observed``, ``item_agreement``. Over
        ``label``: ``label_observed``, ``label_expected``, ``label_agreement``,
        ``label_weight``, ``label_observed_minimum``, ``prevalence``,
        ``positive_agreement``, ``negative_agreement``, ``label_pairable_values``. Each
        variable's attrs give ``long_name``, ``description`` and the paper's ``symbol``.

    Raises
    ------
    ValueError
        A dim is missing or empty, fewer than 2 annotators, a value other than 0/1/NaN
        (the message names the value and its coordinates), an unknown baseline.
    TypeError
        A non-numeric dtype.

    Notes
    -----
    Undefined values are NaN, never a made-up number: under F a label with prevalence 0 or
    1 has ``label_agreement`` NaN (0/0) and ``label_weight`` 0; if every label is constant
    the corpus coefficient is NaN too. With dask input the result is lazy and invalid
    values are reported when it is computed.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = ex.agreement.mla(baseline="all")
    >>> result.agreement.round(4).values
    array([0.232 , 0.9031, 0.828 ])
    >>> float(result.observed_minimum) * 93
    79.0...
    >>> result.label_agreement.sel(baseline="F", label=14).item()
    1.0
    >>> result.item_observed.values * 93
    array([93., 83., 85., 79.])
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    names, single = parse_baselines(baseline)
    counts = hamming_counts(da, item, annotator, label)
    return mla_from_counts(
        counts, names, single, item=item, label=label, n_annotators=da.sizes[annotator]
    )


def _label_sums(counts: xr.Dataset, label: str) -> dict[str, xr.DataArray]:
    """Per-label sums over pairable cells (m >= 2) of the quantities every statistic uses."""
    table = counts.label_counts
    m = table["deciders"]
    pairable = m >= 2
    cells = table.sel(stat="cells", drop=True)
    positives = table.sel(stat="positives", drop=True)
    squares = table.sel(stat="positives_squared", drop=True)
    inverse = xr.where(pairable, 1.0 / np.maximum(m - 1, 1), 0.0)

    def over_m(term):
        return term.where(pairable, 0).sum("deciders")

    return {
        "values": over_m(m * cells),
        "positives": over_m(positives),
        # sum_i 2 x (m - x) / (m - 1): n_j D_o,j
        "disagreement": (2 * (m * positives - squares) * inverse).sum("deciders"),
        "pos_num": over_m(squares - positives),
        "pos_den": over_m((m - 1) * positives),
        "neg_num": over_m(m * m * cells - 2 * m * positives + squares - m * cells + positives),
        "neg_den": over_m((m - 1) * (m * cells - positives)),
        "cells": cells.where(pairable, 0),
        "all_decisions": (m * cells).sum("deciders"),
    }


def _max_disagreement(cells: xr.DataArray, positives: xr.DataArray, label: str):
    def kernel(cells_block, positives_block):
        lead = positives_block.shape
        out = _kernels.max_disagreement(
            np.ascontiguousarray(cells_block.reshape(-1, cells_block.shape[-1]), np.int64),
            np.ascontiguousarray(positives_block.reshape(-1), np.int64),
        )
        return out.reshape(lead)

    return xr.apply_ufunc(
        kernel,
        cells,
        positives,
        input_core_dims=[["deciders"], []],
        dask="parallelized",
        output_dtypes=[np.float64],
    )


def _safe_divide(numerator, denominator):
    return (numerator / denominator.where(denominator != 0)).astype(np.float64)


def _baseline_terms(name: str, p: xr.DataArray) -> tuple[xr.DataArray, xr.DataArray]:
    """(A_e,j, 1 - A_e,j), the latter computed directly so that it is exactly 0 when it
    should be."""
    if name == "F":
        return p**2 + (1 - p) ** 2, 2 * p * (1 - p)
    if name == "AC1":
        return 2 * p * (1 - p), p**2 + (1 - p) ** 2
    half = xr.full_like(p, 0.5).where(p.notnull())
    return half, half


def mla_from_counts(
    counts: xr.Dataset,
    baselines: list[str],
    single: bool,
    *,
    item: str,
    label: str,
    n_annotators: int,
) -> xr.Dataset:
    """Finish :func:`mla` from the additive counts of :func:`_stats.hamming_counts`."""
    sums = _label_sums(counts, label)
    n_j = sums["values"]
    total_values = n_j.sum(label)
    p_j = _safe_divide(sums["positives"], n_j)
    label_observed = 1 - _safe_divide(sums["disagreement"], n_j)
    observed = 1 - _safe_divide(sums["disagreement"].sum(label), total_values)
    max_disagreement = _max_disagreement(sums["cells"], sums["positives"], label)
    label_observed_minimum = 1 - _safe_divide(2 * max_disagreement, n_j)
    observed_minimum = 1 - _safe_divide(2 * max_disagreement.sum(label), total_values)
    item_observed = _safe_divide(counts.item_agreeing_pairs, counts.item_pairs)

    # Krippendorff: D_e,j from pairable values without replacement
    expected_disagreement = _safe_divide(
        2 * sums["positives"] * (n_j - sums["positives"]), n_j - 1
    ).fillna(0)
    alpha_hamming = 1 - _safe_divide(
        sums["disagreement"].sum(label), expected_disagreement.sum(label)
    )

    per_baseline = []
    for name in baselines:
        label_expected, label_gap = _baseline_terms(name, p_j)
        expected = _safe_divide((n_j * label_expected).fillna(0).sum(label), total_values)
        gap = _safe_divide((n_j * label_gap).fillna(0).sum(label), total_values)
        mean_values = total_values / counts.sizes[label]
        per_baseline.append(
            {
                "agreement": _safe_divide(observed - expected, gap),
                "expected": expected,
                "minimum": _safe_divide(observed_minimum - expected, gap),
                "item_agreement": _safe_divide(item_observed - expected, gap),
                "label_expected": label_expected,
                "label_agreement": _safe_divide(label_observed - label_expected, label_gap),
                "label_weight": (_safe_divide(n_j, mean_values) * label_gap).fillna(0),
            }
        )
    if single:
        dependent = per_baseline[0]
    else:
        dependent = {
            key: xr.concat([b[key] for b in per_baseline], dim="baseline", coords="minimal")
            .assign_coords(baseline=baselines)
            for key in per_baseline[0]
        }

    n_items = counts.sizes[item]
    n_labels = counts.sizes[label]
    data = {
        "agreement": dependent["agreement"],
        "observed": observed,
        "expected": dependent["expected"],
        "minimum": dependent["minimum"],
        "observed_minimum": observed_minimum,
        "raw_prevalence": _safe_divide(sums["positives"].sum(label), total_values),
        "alpha_hamming": alpha_hamming,
        "n_pairable_items": (counts.item_pairs > 0).sum(item),
        "n_missing_decisions": n_items * n_annotators * n_labels
        - sums["all_decisions"].sum(label),
        "item_observed": item_observed,
        "item_agreement": dependent["item_agreement"],
        "label_observed": label_observed,
        "label_expected": dependent["label_expected"],
        "label_agreement": dependent["label_agreement"],
        "label_weight": dependent["label_weight"],
        "label_observed_minimum": label_observed_minimum,
        "prevalence": p_j,
        "positive_agreement": _safe_divide(sums["pos_num"], sums["pos_den"]),
        "negative_agreement": _safe_divide(sums["neg_num"], sums["neg_den"]),
        "label_pairable_values": n_j,
    }
    result = xr.Dataset(data)
    for name, (long_name, symbol, description) in VARIABLES.items():
        result[name].attrs = {"long_name": long_name, "symbol": symbol, "description": description}
        if name in BASELINE_DEPENDENT and single:
            result[name].attrs["baseline"] = baselines[0]
    result.attrs = {
        "n_items": n_items,
        "n_annotators": n_annotators,
        "n_labels": n_labels,
        "baseline": baselines[0] if single else list(baselines),
        "baseline_definition": BASELINES[baselines[0]]
        if single
        else [BASELINES[b] for b in baselines],
        "missing_data": "NaN decisions excluded; pairable-values weighting (cells with at "
        "least 2 decisions, corpus values weighted by label_pairable_values)",
        "reference": "Menzner & Leidner, Multi-Label Agreement (2026)",
    }
    return result
