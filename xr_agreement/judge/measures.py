"""The measures of :func:`xr_agreement.versus`: cell counts, contingency tables, averages."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from .._core.arrays import divide

AVERAGES = {
    "micro": "the measure on the table pooled over items and labels",
    "macro": "unweighted mean of the label values, labels where it is undefined (NaN) left "
    "out (scikit-learn's average='macro' with zero_division=np.nan)",
    "weighted_macro": "mean of the label values weighted by the label's reference positives "
    "(support), labels where it is undefined left out (scikit-learn's average='weighted')",
    "exemplar": "the measure on each item's table over labels, then the mean over items, items "
    "where it is undefined left out (scikit-learn's average='samples')",
}


HUMAN_BASELINES = ["F", "AC1"]


# long_name, symbol, description of the per-label counts
COUNTS = {
    "label_true_positives": (
        "true positives",
        "TP",
        "cells where the judge said 1 and the reference is 1",
    ),
    "label_false_positives": (
        "false positives",
        "FP",
        "cells where the judge said 1 and the reference is 0",
    ),
    "label_false_negatives": (
        "false negatives",
        "FN",
        "cells where the judge said 0 and the reference is 1",
    ),
    "label_true_negatives": (
        "true negatives",
        "TN",
        "cells where the judge said 0 and the reference is 0",
    ),
    "label_abstentions_on_positive": (
        "abstentions where the reference is 1",
        "A_1",
        "cells where the judge abstained and the reference is 1 (an FN under abstain='disagree')",
    ),
    "label_abstentions_on_negative": (
        "abstentions where the reference is 0",
        "A_0",
        "cells where the judge abstained and the reference is 0 (an FP under abstain='disagree')",
    ),
    "label_ties": (
        "reference ties",
        "N_tie",
        (
            "cells where the reference humans present split evenly (before the tie rule); 0 when "
            "the reference is a single annotator"
        ),
    ),
    "label_no_reference": (
        "cells without reference",
        "N_noref",
        "cells where no reference human made a decision (all NaN); never compared",
    ),
    "label_judge_missing": (
        "judge missing decisions",
        "N_miss",
        (
            "cells where the judge's value is NaN while the abstention marker is another value: "
            "not asked, never compared, not counted in coverage"
        ),
    ),
}


MEASURES = {
    "accuracy": ("accuracy", "Acc", "(TP + TN) / n"),
    "precision": ("precision", "P", "TP / (TP + FP): share of the judge's 1s that are right"),
    "recall": ("recall", "R", "TP / (reference positives): share of the reference 1s found"),
    "f1": ("F1 score", "F_1", "2 TP / (judge positives + reference positives)"),
    "specificity": ("specificity", "Spec", "TN / (reference negatives)"),
    "kappa": (
        "Cohen's kappa",
        "kappa",
        "(p_o - p_e) / (1 - p_e) with p_e from the judge's and the reference's own margins",
    ),
    "phi": (
        "phi coefficient (Matthews correlation)",
        "phi",
        (
            "(TP TN - FP FN) / sqrt(product of the four margins): equals MCC and Pearson's r of "
            "the two 0/1 vectors; Gorodkin's multiclass MCC under abstain='category'"
        ),
    ),
    "judge_positive_rate": ("judge positive rate", "p_J", "judge positives / n"),
    "reference_positive_rate": ("reference positive rate", "p_R", "reference positives / n"),
    "kappa_phi_gap": (
        "kappa-phi gap",
        "phi - kappa",
        (
            "phi - kappa: 0 exactly when the judge's and the reference's positive rates are equal "
            "(2 x 2 tables), growing with the positive-rate drift; kappa never exceeds phi in size"
        ),
    ),
    "positive_rate_drift": (
        "positive-rate drift",
        "p_J - p_R",
        (
            "judge positive rate - reference positive rate: > 0 the judge says 1 more often than "
            "the reference, < 0 less often"
        ),
    ),
}


def _check_marker(abstain_value) -> bool:
    """Whether the abstention marker is NaN; 0 and 1 cannot be markers."""
    try:
        is_nan = math.isnan(abstain_value)
    except TypeError:
        raise TypeError(f"abstain_value must be a number or NaN, got {abstain_value!r}") from None
    if not is_nan and abstain_value in (0, 1):
        raise ValueError(
            f"abstain_value must differ from the decisions 0 and 1, got {abstain_value!r}"
        )
    return is_nan


def _coverage(counts: xr.DataArray) -> xr.DataArray:
    decided = counts.sel(count=["tp", "fp", "fn", "tn"]).sum("count")
    total = decided + counts.sel(count=["ap", "an"]).sum("count")
    return divide(decided, total).astype(np.float64)


def table_measures(counts: np.ndarray, mode: str) -> np.ndarray:
    """Every measure (in ``MEASURES`` order, then the support) of tables whose last axis holds
    ``tp, fp, fn, tn, ap, an``, under an abstention mode; 0/0 is NaN.

    >>> table_measures(np.array([3, 1, 2, 2, 1, 1]), "exclude")[:3]  # accuracy, P, R
    array([0.625, 0.75 , 0.6  ])
    """
    tp, fp, fn, tn, ap, an = np.moveaxis(np.asarray(counts, np.float64), -1, 0)
    if mode == "exclude":
        ap = an = np.zeros_like(tp)
    elif mode == "disagree":
        fp, fn = fp + an, fn + ap
        ap = an = np.zeros_like(tp)
    n = tp + fp + fn + tn + ap + an
    judge_yes, judge_no, judge_abstained = tp + fp, fn + tn, ap + an
    reference_yes, reference_no = tp + fn + ap, fp + tn + an
    # kappa and phi share the numerator n (tp + tn) - sum_k p_k t_k
    chance = judge_yes * reference_yes + judge_no * reference_no
    covariance = n * (tp + tn) - chance
    phi_denominator = np.sqrt(
        (n * n - judge_yes**2 - judge_no**2 - judge_abstained**2)
        * (n * n - reference_yes**2 - reference_no**2)
    )
    kappa = divide(covariance, n * n - chance)
    phi = divide(covariance, phi_denominator)
    values = {
        "accuracy": divide(tp + tn, n),
        "precision": divide(tp, judge_yes),
        "recall": divide(tp, reference_yes),
        "f1": divide(2 * tp, judge_yes + reference_yes),
        "specificity": divide(tn, reference_no),
        "kappa": kappa,
        "phi": phi,
        "judge_positive_rate": divide(judge_yes, n),
        "reference_positive_rate": divide(reference_yes, n),
        "kappa_phi_gap": phi - kappa,
        "positive_rate_drift": divide(judge_yes - reference_yes, n),
    }
    return np.stack([values[name] for name in MEASURES] + [reference_yes], axis=-1)


def _table_measures(counts: xr.DataArray, mode: str) -> xr.DataArray:
    if counts.chunks is not None:
        counts = counts.chunk({"count": -1})
    return xr.apply_ufunc(
        table_measures,
        counts,
        kwargs={"mode": mode},
        input_core_dims=[["count"]],
        output_core_dims=[["measure"]],
        dask="parallelized",
        output_dtypes=[np.float64],
        dask_gufunc_kwargs={"output_sizes": {"measure": len(MEASURES) + 1}},
    ).assign_coords(measure=[*MEASURES, "support"])


def _nan_mean(values: xr.DataArray, dim: str, weights=None) -> xr.DataArray:
    """Mean over ``dim`` leaving NaN out; NaN when nothing (or zero weight) is left."""
    defined = values.notnull()
    weights = defined.astype(np.float64) if weights is None else weights.where(defined, 0.0)
    return divide((values.fillna(0) * weights).sum(dim), weights.sum(dim)).astype(np.float64)


def cell_counts(judge_values: xr.DataArray, reference_values: xr.DataArray, abstain_value):
    """Six 0/1 counts per cell along a ``count`` dim: ``tp, fp, fn, tn`` (judge decisions)
    and ``ap, an`` (abstentions where the reference is 1 / 0); all 0 where the reference is
    NaN or the judge's decision is missing.

    Every result of :func:`versus` is a sum of these over items and / or labels, so a
    bootstrap resamples this array along ``item`` and calls :func:`measures_from_counts`.
    """
    if _check_marker(abstain_value):
        abstained = judge_values.isnull()
    else:
        abstained = judge_values == abstain_value
    judge_yes, judge_no = judge_values == 1, judge_values == 0
    reference_yes, reference_no = reference_values == 1, reference_values == 0
    cells = {
        "tp": judge_yes & reference_yes,
        "fp": judge_yes & reference_no,
        "fn": judge_no & reference_yes,
        "tn": judge_no & reference_no,
        "ap": abstained & reference_yes,
        "an": abstained & reference_no,
    }
    # one "count" dim so that the measures are finished in a few array operations
    return xr.concat(list(cells.values()), dim="count", coords="minimal").assign_coords(
        count=list(cells)
    )


def measures_from_counts(counts: xr.DataArray, modes: list[str], *, item: str, label: str):
    """(label measures, measures along ``average``) from :func:`cell_counts`, each with a
    ``measure`` dim, and an ``abstain`` dim when several modes are given."""
    by_label = counts.sum(item)
    by_item = counts.sum(label)
    pooled = by_label.sum(label)
    per_mode = [_measures(by_label, by_item, pooled, mode, item, label) for mode in modes]
    if len(modes) == 1:
        return per_mode[0]
    return tuple(
        xr.concat([m[k] for m in per_mode], dim="abstain", coords="minimal").assign_coords(
            abstain=modes
        )
        for k in range(2)
    )


def _measures(by_label, by_item, pooled, mode, item, label):
    """(label measures, measures along ``average``), each with a ``measure`` dim."""
    exemplar = _nan_mean(_table_measures(by_item, mode).sel(measure=list(MEASURES)), item)
    return _assemble(by_label, pooled, exemplar, mode, label)


def _assemble(by_label, pooled, exemplar, mode, label):
    """(label measures, measures along ``average``) from the label and pooled tables and
    the exemplar average (computed by the caller: plain or bootstrap-weighted)."""
    label_values = _table_measures(by_label, mode)
    support = label_values.sel(measure="support", drop=True)
    label_values = label_values.sel(measure=list(MEASURES))
    averaged = [
        _table_measures(pooled, mode).sel(measure=list(MEASURES)),
        _nan_mean(label_values, label),
        _nan_mean(label_values, label, support),
        exemplar,
    ]
    averaged = xr.concat(averaged, dim="average", coords="minimal").assign_coords(
        average=list(AVERAGES)
    )
    return label_values, averaged
