"""MLA's baselines and output variables, and :func:`assemble`, which labels the finished
arrays."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .._core.attrs import json_attr
from .._core.dataset import dataset, variable


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
        "1 - A_e,j, the label's weight in the corpus coefficient (paper eq. 6); with missing "
        "decisions eq. 6 holds with weights label_n_pairable_values * label_weight; 0 for a "
        "label without pairable decisions",
    ),
    "label_observed_minimum": (
        "label minimum feasible observed agreement",
        "A_o,min,j",
        "lowest observed agreement of the label given its number of positives (paper eq. 7)",
    ),
    "label_prevalence": (
        "label prevalence",
        "p_j",
        "share of positive decisions among the label's pairable decisions",
    ),
    "label_positive_agreement": (
        "positive specific agreement",
        "p_pos,j",
        "sum_i x(x - 1) / sum_i x(m - 1): agreement on the label's positive decisions; NaN "
        "without positives",
    ),
    "label_negative_agreement": (
        "negative specific agreement",
        "p_neg,j",
        "the same with m - x in place of x: agreement on the label's negative decisions",
    ),
    "label_n_pairable_values": (
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
    "undefined_reason",
    "label_undefined_reason",
}


# why a value is NaN (docs/vocabulary.md: undefined_reason); the two ways MLA can be 0/0
NO_PAIRABLE = "no pairable decisions (no cell with two or more decisions)"
NO_SPREAD = "expected agreement is 1 (under F: nobody or everybody selected the label)"
NO_SPREAD_ANY = "expected agreement is 1 on every label (under F: every label constant)"
REASON_VARIABLES = {
    "undefined_reason": (
        "why agreement is undefined",
        "",
        "why `agreement` is NaN: " + NO_PAIRABLE + "; or " + NO_SPREAD_ANY + "; empty where "
        "it is defined",
    ),
    "label_undefined_reason": (
        "why the label agreement is undefined",
        "",
        "why `label_agreement` is NaN: " + NO_PAIRABLE + "; or " + NO_SPREAD + "; empty "
        "where it is defined",
    ),
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


def assemble(values, baselines, single, *, extra, item, label, coords, n_annotators,
             reasons=False):
    """Labeled Dataset from :func:`finish_counts` arrays, with attrs on every variable (and
    the ``undefined_reason`` texts where ``reasons``)."""
    if reasons:
        values = {**values, **undefined_reasons(values)}
    variables = {}
    for name, dims, attrs, first in _layout(tuple(baselines), single, tuple(extra), item,
                                            label, reasons):
        array = values[name]
        # one baseline: its value alone (a 0-d array keeps the dtype, of the texts too)
        variables[name] = variable(dims, array[0, ...] if first else array, attrs)
    item_size = values["item_observed"].shape[-1]
    label_size = values["label_prevalence"].shape[-1]
    return dataset(
        variables,
        coords,
        new_coords=None if single else {"baseline": baselines},
        attrs={
            "n_items": item_size,
            "n_annotators": n_annotators,
            "n_labels": label_size,
            **_baseline_attrs(tuple(baselines), single),
            "missing_data": "NaN decisions excluded; pairable-values weighting (cells with at "
            "least 2 decisions, corpus values weighted by label_n_pairable_values)",
            "reference": "Menzner & Leidner, Multi-Label Agreement (2026)",
        },
    )


@lru_cache(maxsize=64)
def _baseline_attrs(baselines: tuple, single: bool) -> dict:
    """The attrs ``baseline`` and ``baseline_definition``: with several baselines JSON text
    of their lists, which every store accepts (_core.attrs). Made once per baselines (the
    JSON took 5 us, a twentieth of a small call); :func:`dataset` copies the attrs."""
    if single:
        return {"baseline": baselines[0], "baseline_definition": BASELINES[baselines[0]]}
    return {"baseline": json_attr(baselines),
            "baseline_definition": json_attr([BASELINES[b] for b in baselines])}


@lru_cache(maxsize=64)
def _layout(baselines: tuple, single: bool, extra: tuple, item: str, label: str,
            reasons: bool) -> tuple:
    """(name, dims, attrs, first) of every output variable, ``first`` where the variable
    keeps only its one baseline's value. The same for every call with these arguments, so
    made once (``variable`` copies the attrs)."""
    declared = {**VARIABLES, **(REASON_VARIABLES if reasons else {})}
    layout = []
    for name, (long_name, symbol, description) in declared.items():
        if name.startswith("item_"):
            dims = (*extra, item)
        elif name.startswith("label_"):
            dims = (*extra, label)
        else:
            dims = extra
        attrs = {"long_name": long_name, "description": description}
        if symbol:
            attrs["symbol"] = symbol
        first = name in BASELINE_DEPENDENT and single
        if first:
            attrs["baseline"] = baselines[0]
        elif name in BASELINE_DEPENDENT:
            dims = ("baseline", *dims)
        layout.append((name, dims, attrs, first))
    return tuple(layout)


def undefined_reasons(values) -> dict:
    """Why ``agreement`` and ``label_agreement`` are NaN, from :func:`finish_counts` arrays
    (``np.where`` dispatches to dask, so dask input stays lazy)."""
    label_pairable = values["label_n_pairable_values"]
    label_agreement = values["label_agreement"]  # (baseline, *extra, label)
    return {
        "undefined_reason": np.where(
            values["n_pairable_items"] == 0,
            NO_PAIRABLE,
            np.where(np.isnan(values["agreement"]), NO_SPREAD_ANY, ""),
        ),
        "label_undefined_reason": np.where(
            label_pairable == 0,
            NO_PAIRABLE,
            np.where(np.isnan(label_agreement), NO_SPREAD, ""),
        ),
    }
