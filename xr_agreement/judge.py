"""Judge validation: one annotator (an LLM judge, a model, a trainee) against a human reference
on binary multi-label decisions (dims item x annotator x label, one rubric criterion per label).

Every number is finished from six counts per (item, label) cell, each 0 or 1: the judge said 1
or 0 or abstained, and the reference is 1 or 0. Summed over items they give the per-label
tables, summed over labels the per-item tables (exemplar averaging), summed over both the
pooled table (micro averaging). Nothing loops over items in Python, so numpy and dask inputs
go through the same xarray arithmetic.

With counts ``tp, fp, fn, tn`` (decisions the judge made) and ``ap, an`` (abstentions where
the reference is 1 / 0) the three abstention modes use these tables:

- ``exclude``:  ``tp, fp, fn, tn`` (abstentions dropped);
- ``disagree``: ``tp, fp + an, fn + ap, tn`` (an abstention is an error);
- ``category``: the 3 x 2 table with the abstention row (``ap, an``) kept as a third judge
  category that never matches the reference.

On a table with judge margins ``(J1, J0, Ja)``, reference margins ``(R1, R0)`` and ``n`` cells,
Cohen's kappa and phi share one numerator, ``n (tp + tn) - (J1 R1 + J0 R0)``; kappa divides it
by ``n**2 - (J1 R1 + J0 R0)``, phi by ``sqrt((n**2 - J1**2 - J0**2 - Ja**2) (n**2 - R1**2 -
R0**2))`` (Gorodkin's multiclass MCC, which is the 2 x 2 phi / MCC when ``Ja = 0``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import xarray as xr

from . import bootstrap as _bootstrap
from ._validate import _plain, check_binary_dtype, check_dataarray, check_dims
from .mla import mla

ABSTAIN_MODES = {
    "exclude": "abstentions dropped: how good is the judge when it answers?",
    "disagree": "an abstention counts as an error (fp where the reference is 0, fn where it "
    "is 1): how often does the judge give the right answer on every case it was asked?",
    "category": "an abstention is a third category that never matches the reference: "
    "precision over the judge's answers, recall / specificity / accuracy over every case, "
    "kappa and phi (Gorodkin's multiclass MCC) on the 3 x 2 table",
}
TIE_RULES = {
    "exclude": "cells where the reference humans split evenly are dropped",
    "positive": "an even split counts as reference 1",
    "negative": "an even split counts as reference 0",
}
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
# dims the result adds
RESULT_DIMS = ("average", "abstain", "reference", "baseline", "count", "measure")

ZERO_DIVISION = (
    "0/0 is NaN (like scikit-learn's zero_division=np.nan), never 0 or 1: precision without "
    "judge positives, recall without reference positives, kappa when both sides use one "
    "category only, phi when either side does (scikit-learn's matthews_corrcoef returns 0 "
    "there)"
)

# long_name, symbol, description of every output variable
COUNTS = {
    "true_positives": (
        "true positives",
        "TP",
        "cells where the judge said 1 and the reference is 1",
    ),
    "false_positives": (
        "false positives",
        "FP",
        "cells where the judge said 1 and the reference is 0",
    ),
    "false_negatives": (
        "false negatives",
        "FN",
        "cells where the judge said 0 and the reference is 1",
    ),
    "true_negatives": (
        "true negatives",
        "TN",
        "cells where the judge said 0 and the reference is 0",
    ),
    "abstentions_on_positive": (
        "abstentions where the reference is 1",
        "A_1",
        "cells where the judge abstained and the reference is 1 (an FN under abstain='disagree')",
    ),
    "abstentions_on_negative": (
        "abstentions where the reference is 0",
        "A_0",
        "cells where the judge abstained and the reference is 0 (an FP under abstain='disagree')",
    ),
    "ties": (
        "reference ties",
        "N_tie",
        (
            "cells where the reference humans present split evenly (before the tie rule); 0 when "
            "the reference is a single annotator"
        ),
    ),
    "no_reference": (
        "cells without reference",
        "N_noref",
        "cells where no reference human made a decision (all NaN); never compared",
    ),
    "judge_missing": (
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
TABLE_SIZE = "n is the number of cells in the table of the abstention mode"


def versus(
    da: xr.DataArray,
    judge,
    reference="majority",
    *,
    abstain: str = "exclude",
    abstain_value=np.nan,
    tie: str = "exclude",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    ci: float | None = None,
    n_resamples: int = 1000,
    resample: str = "item",
    method: str = "percentile",
    seed=None,
    return_replicates: bool = False,
    progress: bool | None = None,
) -> xr.Dataset:
    """One annotator (an LLM judge) against a human reference, label by label and aggregated.

    Parameters
    ----------
    da : xarray.DataArray
        Binary decisions with dims ``item``, ``annotator`` and ``label``; the humans' values
        are 0/1 or NaN (missing), the judge's 0/1 or ``abstain_value``. Other dims are
        carried through.
    judge : annotator coordinate value
        The annotator compared with the others (its position if the dim has no coordinate).
    reference : "majority", "each", an annotator or a list of annotators, default "majority"
        "majority": per item and label the majority of the non-judge annotators who decided
        (NaN decisions left out). "each": every non-judge annotator in turn, along a new
        ``reference`` dim. Annotator name(s): the majority of the named annotators (one name:
        that annotator). The words "majority" and "each" win over annotators so named; pass
        them in a list to mean the annotator.
    abstain : {"exclude", "disagree", "category", "all"}, default "exclude"
        How a judge abstention is scored (see Notes); "all" adds an ``abstain`` dim with the
        three side by side.
    abstain_value : float or int, default NaN
        The judge's "cannot assess" marker. With NaN (the default) every NaN of the judge is an
        abstention; with another value (e.g. -1 or 2) that value is, and a judge NaN is a
        missing decision (not compared, not in coverage).
    tie : {"exclude", "positive", "negative"}, default "exclude"
        Reference value where the humans present split evenly; the count is in ``ties``.
    item, annotator, label : str
        Names of the dims that play these roles.
    ci : float, optional
        Confidence level (e.g. 0.95) of bootstrap intervals, items resampled (see
        :mod:`xr_agreement.bootstrap`): every floating-point variable ``V`` (measures,
        coverage, human agreement) gains ``V_lower`` and ``V_upper``; counts get none. The
        judge's and the humans' values are recomputed on the same resamples, the reference
        (majority, ties) of an item moves with it.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item"}, default "item"
        The resampled unit; only items (the judge is one fixed annotator).
    method : {"percentile", "bca"}, default "percentile"
        Percentile or bias-corrected and accelerated intervals.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling; the same seed gives the same intervals.
    return_replicates : bool, default False
        Add ``V_replicates`` (with a ``resample`` dim) for each interval variable.
    progress : bool, optional
        Show a tqdm progress bar; by default only in interactive sessions.

    Returns
    -------
    xarray.Dataset
        Over ``label``: the counts ``true_positives``, ``false_positives``,
        ``false_negatives``, ``true_negatives`` (of the judge's decisions),
        ``abstentions_on_positive``, ``abstentions_on_negative``, ``ties``,
        ``no_reference``, ``judge_missing``, ``label_coverage`` and the measures
        ``label_accuracy``, ``label_precision``, ``label_recall``, ``label_f1``,
        ``label_specificity``, ``label_kappa``, ``label_phi``,
        ``label_judge_positive_rate``, ``label_reference_positive_rate``,
        ``label_kappa_phi_gap``, ``label_positive_rate_drift``. The same measures without the
        ``label_`` prefix along an ``average`` dim ("micro", "macro", "weighted_macro",
        "exemplar"), ``coverage`` pooled, and the humans' own agreement among themselves
        (:func:`xr_agreement.mla` with baselines F and AC1): ``human_agreement`` and
        ``human_label_agreement``.

    Raises
    ------
    ValueError
        A dim is missing or empty; the judge or a reference annotator is not found, or a
        reference is the judge; no human left; an unknown mode; a human value other than
        0/1/NaN or a judge value other than 0/1/marker (the message names the value and its
        coordinates).
    TypeError
        A non-numeric dtype.

    Notes
    -----
    Abstention modes answer different questions: "exclude" how good the judge is when it
    answers, "disagree" how often it is right on everything it was asked, "category" keeps
    abstaining visible as its own kind of answer. ``label_coverage`` / ``coverage`` (share
    of compared cells the judge decided) is the same in every mode and must be read with
    "exclude". The binary identities (phi = MCC = Pearson, kappa = phi when the positive
    rates agree) hold within a table; abstentions change the table, hence the numbers.

    0/0 is NaN, never 0 or 1 (scikit-learn's ``zero_division=np.nan``); averages leave NaN
    values out like scikit-learn does, and are NaN when nothing is left. Human agreement is
    computed on all items and labels of ``da`` over the non-judge annotators, NaN when fewer
    than two.

    Examples
    --------
    >>> import numpy as np, xarray as xr, xr_agreement
    >>> decisions = xr.DataArray(
    ...     [[[1, 0], [1, 0], [1, 0]],
    ...      [[0, 1], [0, 1], [1, 1]],
    ...      [[1, 1], [1, 0], [np.nan, 1]],
    ...      [[0, 0], [0, 0], [0, 0]]],
    ...     dims=("item", "annotator", "label"),
    ...     coords={"annotator": ["ann", "bob", "llm"], "label": ["clear", "correct"]},
    ... )
    >>> result = decisions.agreement.versus("llm", reference="ann")
    >>> result.true_positives.values, result.false_positives.values
    (array([1, 2]), array([1, 0]))
    >>> result.label_coverage.values
    array([0.75, 1.  ])
    >>> result.accuracy.sel(average="micro").item()  # 6 right of 7 answers
    0.857142...
    >>> xr_agreement.versus(decisions, "llm", reference="ann", abstain="disagree").accuracy.sel(
    ...     average="micro").item()  # 6 right of 8 cases
    0.75
    >>> with_ci = decisions.agreement.versus("llm", reference="ann", ci=0.9, seed=0)
    >>> with_ci.accuracy_lower.dims, with_ci.attrs["ci_resampling_unit"]
    (('average',), 'item')
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    for dim in RESULT_DIMS:
        if dim in da.dims:
            raise ValueError(
                f"dim {dim!r} is used by the result; rename it first (da.rename({dim}=...))"
            )
    modes = _parse_choice("abstain", abstain, ABSTAIN_MODES, allow_all=True)
    if ci is not None:
        ci, n_resamples, resample, method = _bootstrap.check_options(
            ci, n_resamples, resample, method, seed, progress
        )
        if resample != "item":
            raise ValueError(
                f"versus resamples items only (the judge is one fixed annotator); got "
                f"resample={resample!r}"
            )
    tie_rule = _parse_choice("tie", tie, TIE_RULES)[0]
    marker_is_nan = _check_marker(abstain_value)
    judge_position = _annotator_position(da, annotator, judge)
    human_positions = [p for p in range(da.sizes[annotator]) if p != judge_position]
    if not human_positions:
        raise ValueError(f"dim {annotator!r} has only the judge {judge!r}; no human to compare")
    each = isinstance(reference, str) and reference == "each"
    if isinstance(reference, str) and reference in ("majority", "each"):
        panel_positions = human_positions
    else:
        panel_positions = _reference_positions(da, annotator, reference, judge_position)

    judge_values = da.isel({annotator: judge_position}, drop=True)
    humans = da.isel({annotator: human_positions})
    judge_values = _checked(judge_values, "judge", abstain_value, marker_is_nan)
    humans = _checked(humans, "human", abstain_value, True)
    # the panel comes from the validated humans so that dask blocks are checked on compute
    panel = humans.isel({annotator: [human_positions.index(p) for p in panel_positions]})

    if each:
        reference_values = panel.rename({annotator: "reference"})
        if "reference" not in reference_values.coords:
            reference_values = reference_values.assign_coords(reference=panel_positions)
        ties = xr.zeros_like(reference_values, dtype=bool)
        no_reference = reference_values.isnull()
    else:
        reference_values, ties, no_reference = _majority(panel, annotator, tie_rule)
    if marker_is_nan:
        judge_missing = xr.zeros_like(judge_values, dtype=bool)
    else:
        judge_missing = judge_values.isnull()

    counts = cell_counts(judge_values, reference_values, abstain_value)
    by_label = counts.sum(item)
    pooled = by_label.sum(label)

    data = {
        "true_positives": by_label.sel(count="tp", drop=True),
        "false_positives": by_label.sel(count="fp", drop=True),
        "false_negatives": by_label.sel(count="fn", drop=True),
        "true_negatives": by_label.sel(count="tn", drop=True),
        "abstentions_on_positive": by_label.sel(count="ap", drop=True),
        "abstentions_on_negative": by_label.sel(count="an", drop=True),
        "ties": ties.sum(item),
        "no_reference": no_reference.sum(item),
        "judge_missing": judge_missing.sum(item),
        "label_coverage": _coverage(by_label),
        "coverage": _coverage(pooled),
    }
    label_measures, averaged = measures_from_counts(counts, modes, item=item, label=label)
    for name in MEASURES:
        data["label_" + name] = label_measures.sel(measure=name, drop=True)
        data[name] = averaged.sel(measure=name, drop=True)
    data.update(_human_agreement(humans, item, annotator, label))

    result = xr.Dataset(data)
    _describe(result, modes, tie_rule)
    result.attrs = {
        "judge": _plain(judge),
        "reference": "each annotator in turn"
        if each
        else f"majority of {_annotator_names(da, annotator, panel_positions)}"
        if len(panel_positions) > 1
        else f"annotator {_annotator_names(da, annotator, panel_positions)[0]!r}",
        "reference_annotators": _annotator_names(da, annotator, panel_positions),
        "n_items": da.sizes[item],
        "n_labels": da.sizes[label],
        "n_humans": len(human_positions),
        "judgment_scale": "binary (0/1) per label",
        "abstain": modes[0] if len(modes) == 1 else modes,
        "abstain_definition": ABSTAIN_MODES[modes[0]]
        if len(modes) == 1
        else [ABSTAIN_MODES[m] for m in modes],
        "abstain_value": "NaN" if marker_is_nan else _plain(abstain_value),
        "tie": tie_rule,
        "tie_definition": TIE_RULES[tie_rule],
        "missing_data": "human NaN decisions are left out of the majority (the majority of "
        "the humans present); a cell without any human decision is not compared",
        "zero_division": ZERO_DIVISION,
        "average_definition": [f"{k}: {v}" for k, v in AVERAGES.items()],
    }
    if ci is None:
        return result
    variables = [
        name
        for name in _bootstrap.interval_variables(result, item)
        # one human: no human agreement to resample
        if humans.sizes[annotator] >= 2 or not name.startswith("human_")
    ]
    options = dict(ci=ci, n_resamples=n_resamples, resample=resample, method=method, seed=seed,
                   return_replicates=return_replicates, progress=progress)

    def make_statistic(arrays):
        return VersusStatistic(arrays["counts"], modes, arrays["humans"], item=item,
                               annotator=annotator, label=label)

    arrays = {"counts": counts, "humans": humans}
    lazy = _is_dask(counts.data) or _is_dask(humans.data)
    if lazy and not isinstance(seed, np.random.Generator):
        # lazy tables: the bootstrap runs block by block
        return _bootstrap.bootstrap(make_statistic(arrays), result, variables=variables,
                                    item=item, **options)
    if lazy:
        # NumPy's stream is drawn in order: one task gets the per-item counts in memory
        return _bootstrap.deferred_bootstrap(make_statistic, arrays, result,
                                             variables=variables, item=item, **options)
    return _bootstrap.bootstrap(make_statistic(arrays), result, variables=variables, item=item,
                                **options)


def _flat(data, n_items: int, dtype):
    """(N, ...) array -> (N, F), numpy or dask (all but the item axis in one chunk)."""
    if _is_dask(data):
        data = data.rechunk({i: -1 for i in range(1, data.ndim)})
    return data.reshape(n_items, -1).astype(dtype)


def _in_memory(template: xr.DataArray) -> xr.DataArray:
    """A numpy DataArray with the dims, shape and in-memory coords of ``template`` (its
    values are never read: the finishing task must not carry the input's graph; dask
    coords, such as a chunked ``label_name``, are left out)."""
    coords = {name: coord.variable for name, coord in template.coords.items()
              if not _is_dask(coord.data)}
    return xr.DataArray(np.zeros(template.shape), dims=template.dims, coords=coords)


def _parse_choice(name: str, value, choices: dict, allow_all: bool = False) -> list[str]:
    if allow_all and value == "all":
        return list(choices)
    if not isinstance(value, str) or value not in choices:
        options = list(choices) + (["all"] if allow_all else [])
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return [value]


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


def _annotator_names(da: xr.DataArray, annotator: str, positions) -> list:
    if annotator in da.coords:
        return [_plain(v) for v in np.asarray(da[annotator].values)[positions]]
    return list(positions)


def _annotator_position(da: xr.DataArray, annotator: str, name) -> int:
    if annotator in da.coords:
        names = np.asarray(da[annotator].values)
        matches = np.flatnonzero(names == name)
        if matches.size == 0:
            raise ValueError(
                f"annotator {name!r} not found in dim {annotator!r}; it has "
                f"{[_plain(v) for v in names]}"
            )
        if matches.size > 1:
            raise ValueError(f"annotator {name!r} occurs {matches.size} times in dim {annotator!r}")
        return int(matches[0])
    if isinstance(name, (int, np.integer)) and 0 <= name < da.sizes[annotator]:
        return int(name)
    raise ValueError(
        f"dim {annotator!r} has no coordinate; name the annotator by its position "
        f"0..{da.sizes[annotator] - 1}, got {name!r}"
    )


def _reference_positions(da, annotator, reference, judge_position) -> list[int]:
    names = (
        list(reference)
        if isinstance(reference, Sequence) and not isinstance(reference, str)
        else [reference]
    )
    if not names:
        raise ValueError("reference must be 'majority', 'each' or annotator name(s), got []")
    positions = [_annotator_position(da, annotator, n) for n in names]
    if judge_position in positions:
        raise ValueError(f"the judge cannot be its own reference (reference={reference!r})")
    if len(set(positions)) != len(positions):
        raise ValueError(f"reference names an annotator twice: {reference!r}")
    return positions


def _checked(values: xr.DataArray, role: str, marker, marker_is_nan: bool) -> xr.DataArray:
    """``values`` after checking them: humans 0, 1 or NaN; the judge 0, 1, the marker (and
    NaN, meaning missing). Numpy values are checked now; dask blocks when they are computed
    (the returned array carries the check)."""
    data = values.data
    allowed = (
        "0, 1 or NaN (missing)"
        if role == "human"
        else (
            "0, 1 or NaN (abstained)" if marker_is_nan else f"0, 1, {marker!r} (abstained) or NaN"
        )
    )

    def bad_mask(block):
        block = np.asarray(block)
        bad = (block != 0) & (block != 1)
        if block.dtype.kind == "f":
            bad &= ~np.isnan(block)
        if role == "judge" and not marker_is_nan:
            bad &= block != marker
        return bad

    if _is_dask(data):
        import dask.array

        def check(block):
            bad = bad_mask(block)
            if bad.any():
                raise ValueError(
                    f"{role} decisions must be {allowed}; found "
                    f"{_plain(block[bad][0])!r} ({int(bad.sum())} such value(s) in a block)"
                )
            return block

        return values.copy(data=dask.array.map_blocks(check, data, dtype=data.dtype))
    bad = bad_mask(data)
    if bad.any():
        position = np.unravel_index(int(np.argmax(bad)), bad.shape)
        where = ", ".join(
            f"{dim}={_plain(values[dim].values[p]) if dim in values.coords else p!r}"
            for dim, p in zip(values.dims, position)
        )
        hint = (
            " (humans cannot abstain: mark a missing decision with NaN)" if role == "human" else ""
        )
        raise ValueError(
            f"{role} decisions must be {allowed}; found {_plain(np.asarray(data)[position])!r} "
            f"at {where}{hint} ({int(bad.sum())} such value(s))"
        )
    return values


def _is_dask(data) -> bool:
    return type(data).__module__.startswith("dask")


def _majority(panel: xr.DataArray, annotator: str, tie_rule: str):
    """Reference 1/0 per cell (NaN: no human decided, or an excluded tie), the tie mask and
    the mask of cells without any human decision."""
    present = panel.notnull().sum(annotator)
    positives = (panel == 1).sum(annotator)
    ties = (2 * positives == present) & (present > 0)
    reference = xr.where(2 * positives > present, 1.0, 0.0).where(present > 0)
    if tie_rule == "exclude":
        reference = reference.where(~ties)
    elif tie_rule == "positive":
        reference = xr.where(ties, 1.0, reference)
    return reference, ties, present == 0


def _safe_divide(numerator, denominator):
    return (numerator / denominator.where(denominator != 0)).astype(np.float64)


def _coverage(counts: xr.DataArray) -> xr.DataArray:
    decided = counts.sel(count=["tp", "fp", "fn", "tn"]).sum("count")
    return _safe_divide(decided, decided + counts.sel(count=["ap", "an"]).sum("count"))


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator with 0/0 (and x/0) as NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            denominator != 0, numerator / np.where(denominator != 0, denominator, 1), np.nan
        )


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
    kappa = _divide(covariance, n * n - chance)
    phi = _divide(covariance, phi_denominator)
    values = {
        "accuracy": _divide(tp + tn, n),
        "precision": _divide(tp, judge_yes),
        "recall": _divide(tp, reference_yes),
        "f1": _divide(2 * tp, judge_yes + reference_yes),
        "specificity": _divide(tn, reference_no),
        "kappa": kappa,
        "phi": phi,
        "judge_positive_rate": _divide(judge_yes, n),
        "reference_positive_rate": _divide(reference_yes, n),
        "kappa_phi_gap": phi - kappa,
        "positive_rate_drift": _divide(judge_yes - reference_yes, n),
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
    return _safe_divide((values.fillna(0) * weights).sum(dim), weights.sum(dim))


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


def _human_agreement(humans: xr.DataArray, item, annotator, label) -> dict[str, xr.DataArray]:
    if humans.sizes[annotator] >= 2:
        result = mla(humans, baseline=HUMAN_BASELINES, item=item, annotator=annotator, label=label)
        return {
            "human_agreement": result.agreement,
            "human_label_agreement": result.label_agreement,
        }
    # one human: no agreement among humans to report
    template = humans.isel({annotator: 0, item: 0}, drop=True).astype(np.float64)
    label_values = xr.concat([template * np.nan] * 2, dim="baseline").assign_coords(
        baseline=HUMAN_BASELINES
    )
    return {
        "human_agreement": label_values.isel({label: 0}, drop=True),
        "human_label_agreement": label_values,
    }


def _describe(result: xr.Dataset, modes: list[str], tie_rule: str) -> None:
    for name, (long_name, symbol, description) in COUNTS.items():
        result[name].attrs = {"long_name": long_name, "symbol": symbol, "description": description}
    result["label_coverage"].attrs = {
        "long_name": "label coverage",
        "symbol": "cov_j",
        "description": "share of the label's compared cells (reference defined) the judge "
        "decided rather than abstained on; the same in every abstention mode",
    }
    result["coverage"].attrs = {
        "long_name": "coverage",
        "symbol": "cov",
        "description": "share of all compared cells the judge decided rather than abstained on",
    }
    for name, (long_name, symbol, description) in MEASURES.items():
        result["label_" + name].attrs = {
            "long_name": f"label {long_name}",
            "symbol": f"{symbol},j",
            "description": f"{description} on the label's table ({TABLE_SIZE})",
        }
        result[name].attrs = {
            "long_name": long_name,
            "symbol": symbol,
            "description": f"{description}, averaged along 'average' ({TABLE_SIZE}): "
            + "; ".join(f"{k}: {v}" for k, v in AVERAGES.items()),
        }
        if len(modes) == 1:
            result["label_" + name].attrs["abstain"] = modes[0]
            result[name].attrs["abstain"] = modes[0]
    result["human_agreement"].attrs = {
        "long_name": "human-human multi-label agreement",
        "symbol": "A_ml",
        "description": "xr_agreement.mla among the non-judge annotators on all items and "
        "labels, baselines F and AC1: the ceiling a judge is read against; NaN with one human",
    }
    result["human_label_agreement"].attrs = {
        "long_name": "human-human label agreement",
        "symbol": "A_j",
        "description": "label agreement of xr_agreement.mla among the non-judge annotators "
        "(NaN where undefined, see mla)",
    }


class VersusStatistic(_bootstrap.TableStatistic):
    """:func:`versus` on item resamples, from per-item tables.

    Every table of :func:`versus` is a sum over items of the 0/1 cell counts, so the label
    tables of a batch of replicates are one matrix product: the resampling counts ``W``
    (R x N) times the per-item counts (N x labels x 6). The exemplar average is the
    ``W``-weighted mean of the per-item measures (undefined items left out), and the human
    agreement comes from the per-item table of :class:`xr_agreement.bootstrap.MLAStatistic`
    on the same ``W``. On dask input the tables stay lazy, chunked like the items, and the
    bootstrap runs block by block (:class:`xr_agreement.bootstrap.TableStatistic`).
    """

    def __init__(self, counts: xr.DataArray, modes: list[str], humans: xr.DataArray, *,
                 item: str, annotator: str, label: str):
        self.item, self.label, self.modes = item, label, modes
        extra = [d for d in counts.dims if d not in (item, label, "count")]
        counts = counts.transpose(item, *extra, label, "count")
        if _is_dask(counts.data):
            counts = counts.chunk({d: -1 for d in counts.dims if d != item})
        self.n_items = counts.sizes[item]
        self.n_annotators = humans.sizes[annotator]
        # (extra..., label, count) without item: the shape of one replicate's label tables
        self.template = _in_memory(counts.isel({item: 0}, drop=True))
        self.tables = {"cells": _flat(counts.data, self.n_items, np.float64)}
        by_item = counts.sum(label)
        for m, mode in enumerate(modes):
            values = _table_measures(by_item, mode).sel(measure=list(MEASURES))
            self.measure_template = _in_memory(values.isel({item: 0}, drop=True))
            # (N, G) measures with NaN as 0, and defined 0/1
            self.tables[f"values {m}"] = _flat(values.fillna(0.0).data, self.n_items,
                                               np.float64)
            self.tables[f"defined {m}"] = _flat(values.notnull().data, self.n_items,
                                                np.float64)
        self.human = None
        if humans.sizes[annotator] >= 2:
            self.human = _bootstrap.MLAStatistic(
                humans, HUMAN_BASELINES, False, item=item, annotator=annotator, label=label,
            )
            self.tables["human"], self.human_entry = self.human.item_table()
            self.human = self.human.finisher()

    def item_tables(self) -> dict:
        return self.tables

    def drop_tables(self) -> None:
        self.tables = {name: None for name in self.tables}

    def finish_sums(self, sums: dict) -> xr.Dataset:
        # counts are exact: integers far below 2**53
        exemplar = []
        for m in range(len(self.modes)):
            total = sums[f"defined {m}"]
            with np.errstate(divide="ignore", invalid="ignore"):
                exemplar.append(np.where(total > 0, sums[f"values {m}"] / total, np.nan))
        human = None
        if self.human is not None:
            human = self.human._label_counts(self.human_entry,
                                             np.rint(sums["human"]).astype(np.int64))
        return self._finish_parts([(np.rint(sums["cells"]), exemplar, human)])

    def _finish_parts(self, batches) -> xr.Dataset:
        """The Dataset from batches of (label tables, exemplar values per mode, human label
        counts)."""
        tables = np.concatenate([b[0] for b in batches])
        R = len(tables)
        dims = (_bootstrap.RESAMPLE_DIM, *self.template.dims)
        by_label = xr.DataArray(
            tables.reshape((R,) + self.template.shape), dims=dims,
            coords=self.template.coords,
        )
        pooled = by_label.sum(self.label)
        per_mode = []
        for m, mode in enumerate(self.modes):
            exemplar = np.concatenate([b[1][m] for b in batches])
            exemplar = xr.DataArray(
                exemplar.reshape((R,) + self.measure_template.shape),
                dims=(_bootstrap.RESAMPLE_DIM, *self.measure_template.dims),
                coords=self.measure_template.coords,
            )
            per_mode.append(_assemble(by_label, pooled, exemplar, mode, self.label))
        if len(self.modes) == 1:
            label_measures, averaged = per_mode[0]
        else:
            label_measures, averaged = (
                xr.concat([p[k] for p in per_mode], dim="abstain", coords="minimal")
                .assign_coords(abstain=self.modes)
                for k in range(2)
            )
        data = {"label_coverage": _coverage(by_label), "coverage": _coverage(pooled)}
        for name in MEASURES:
            data["label_" + name] = label_measures.sel(measure=name, drop=True)
            data[name] = averaged.sel(measure=name, drop=True)
        if self.human is not None:
            human = self.human.finish([b[2] for b in batches])
            data["human_agreement"] = human.agreement
            data["human_label_agreement"] = human.label_agreement
        return xr.Dataset(data).assign_coords({_bootstrap.RESAMPLE_DIM: np.arange(R)})
