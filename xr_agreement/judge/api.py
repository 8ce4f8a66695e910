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

from collections.abc import Sequence

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, _plain
from .._core.attrs import json_attr
from .._core.validate import check_binary_dtype, check_dataarray, check_dims
from .._core.dataset import without_reasons
from ..mla import mla
from ..resampling.driver import bootstrap, check_options
from ..resampling.intervals import interval_variables
from .intervals import VersusStatistic
from .measures import (_check_marker, _coverage, AVERAGES, cell_counts, COUNTS, HUMAN_BASELINES,
                       MEASURES, measures_from_counts)


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


# dims the result adds
RESULT_DIMS = ("average", "abstain", "reference", "baseline", "count", "measure")

ZERO_DIVISION = (
    "0/0 is NaN (like scikit-learn's zero_division=np.nan), never 0 or 1: precision without "
    "judge positives, recall without reference positives, kappa when both sides use one "
    "category only, phi when either side does (scikit-learn's matthews_corrcoef returns 0 "
    "there)"
)


TABLE_SIZE = "n is the number of cells in the table of the abstention mode"

# attrs["reference"]: the definitions versus follows
REFERENCE = (
    "Cohen (1960), A coefficient of agreement for nominal scales (kappa); Matthews (1975), "
    "Comparison of the predicted and observed secondary structure of T4 phage lysozyme "
    "(phi / MCC); Gorodkin (2004), Comparing two K-category assignments by a K-category "
    "correlation coefficient (phi under abstain='category'); precision, recall, F1 and the "
    "averages as defined by scikit-learn (Pedregosa et al. 2011), zero_division=np.nan; "
    "human ceiling: Menzner & Leidner, Multi-Label Agreement (2026)"
)

# the humans' own agreement: not resampled with a single human
HUMAN_VARIABLES = ("human_agreement", "label_human_agreement")


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
    ci_method: str = "percentile",
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
        Reference value where the humans present split evenly; the count is in
        ``label_ties``.
    item, annotator, label : str
        Names of the dims that play these roles.
    ci : float, optional
        Confidence level (e.g. 0.95) of bootstrap intervals, items resampled (see
        :mod:`xr_agreement.resampling`): every floating-point variable ``V`` (measures,
        coverage, human agreement) gains ``V_lower`` and ``V_upper``; counts get none. The
        judge's and the humans' values are recomputed on the same resamples, the reference
        (majority, ties) of an item moves with it.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item"}, default "item"
        The resampled unit; only items (the judge is one fixed annotator).
    ci_method : {"percentile", "bca"}, default "percentile"
        Percentile or bias-corrected and accelerated intervals.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling; the same seed gives the same intervals.
    return_replicates : bool, default False
        Add ``V_replicates`` (with a ``resample`` dim) for each interval variable.
    progress : bool, optional
        Show a tqdm progress bar; by default when stderr is a terminal or in a notebook.

    Returns
    -------
    xarray.Dataset
        Over ``label``: the counts ``label_true_positives``, ``label_false_positives``,
        ``label_false_negatives``, ``label_true_negatives`` (of the judge's decisions),
        ``label_abstentions_on_positive``, ``label_abstentions_on_negative``,
        ``label_ties``, ``label_no_reference``, ``label_judge_missing``,
        ``label_coverage`` and the measures ``label_accuracy``, ``label_precision``,
        ``label_recall``, ``label_f1``, ``label_specificity``, ``label_kappa``,
        ``label_phi``, ``label_judge_positive_rate``, ``label_reference_positive_rate``,
        ``label_kappa_phi_gap``, ``label_positive_rate_drift``. The same measures without the
        ``label_`` prefix along an ``average`` dim ("micro", "macro", "weighted_macro",
        "exemplar"), ``coverage`` pooled, and the humans' own agreement among themselves
        (:func:`xr_agreement.mla` with baselines F and AC1): ``human_agreement`` and
        ``label_human_agreement``. ``attrs["reference"]`` cites the definitions followed;
        ``attrs["reference_rule"]`` says what the reference is (e.g. "majority of ['ann',
        'bob']") and ``attrs["reference_annotators"]`` lists them. Lists in the attrs
        (``reference_annotators``, ``average_definition``, ``abstain`` with
        ``abstain="all"``) are JSON text, which every store accepts:
        ``json.loads(result.attrs["reference_annotators"])`` is the list.

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
    >>> result.label_true_positives.values, result.label_false_positives.values
    (array([1, 2]), array([1, 0]))
    >>> result.label_coverage.values
    array([0.75, 1.  ])
    >>> result.attrs["reference_rule"]
    "annotator 'ann'"
    >>> result.accuracy.sel(average="micro").item()  # 6 right of 7 answers
    0.857142...
    >>> xr_agreement.versus(decisions, "llm", reference="ann", abstain="disagree").accuracy.sel(
    ...     average="micro").item()  # 6 right of 8 cases
    0.75
    >>> with_ci = decisions.agreement.versus("llm", reference="ann", ci=0.9, seed=0)
    >>> with_ci.accuracy_lower.dims, with_ci.attrs["ci_resampling_unit"]
    (('average',), 'item')
    """
    modes, tie_rule, marker_is_nan = _checked_options(da, abstain, tie, abstain_value,
                                                      item=item, annotator=annotator,
                                                      label=label)
    if ci is not None:
        ci, n_resamples, resample, ci_method = _checked_ci_options(
            ci, n_resamples, resample, ci_method, seed, progress)
    judge_position, human_positions, panel_positions, each = _roles(da, annotator, judge,
                                                                     reference)
    judge_values = _checked(da.isel({annotator: judge_position}, drop=True), "judge",
                            abstain_value, marker_is_nan)
    humans = _checked(da.isel({annotator: human_positions}), "human", abstain_value, True)
    # the panel comes from the validated humans so that dask blocks are checked on compute
    panel = humans.isel({annotator: [human_positions.index(p) for p in panel_positions]})
    reference_values, ties, no_reference = _reference_values(panel, annotator,
                                                             panel_positions, each, tie_rule)
    if marker_is_nan:
        judge_missing = xr.zeros_like(judge_values, dtype=bool)
    else:
        judge_missing = judge_values.isnull()

    counts = cell_counts(judge_values, reference_values, abstain_value)
    data = _count_variables(counts, ties, no_reference, judge_missing, item=item, label=label)
    label_measures, averaged = measures_from_counts(counts, modes, item=item, label=label)
    for name in MEASURES:
        data["label_" + name] = label_measures.sel(measure=name, drop=True)
        data[name] = averaged.sel(measure=name, drop=True)
    data.update(_human_agreement(humans, item, annotator, label))

    result = xr.Dataset(data)
    _describe(result, modes)
    reference_names = _annotator_names(da, annotator, panel_positions)
    result.attrs = _result_attrs(
        judge, reference_names, each, modes, tie_rule,
        "NaN" if marker_is_nan else _plain(abstain_value),
        n_items=da.sizes[item], n_labels=da.sizes[label], n_humans=len(human_positions),
    )
    if ci is None:
        return result
    return _with_intervals(
        result, counts, humans, modes, item=item, annotator=annotator, label=label,
        ci=ci, n_resamples=n_resamples, resample=resample, ci_method=ci_method, seed=seed,
        return_replicates=return_replicates, progress=progress,
    )


def _checked_options(da, abstain, tie, abstain_value, *, item, annotator, label):
    """The abstention modes, the tie rule and whether the marker is NaN, after checking the
    input array and the keywords."""
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    for dim in RESULT_DIMS:
        if dim in da.dims:
            raise ValueError(
                f"dim {dim!r} is used by the result; rename it first (da.rename({dim}=...))"
            )
    modes = _parse_choice("abstain", abstain, ABSTAIN_MODES, allow_all=True)
    tie_rule = _parse_choice("tie", tie, TIE_RULES)[0]
    return modes, tie_rule, _check_marker(abstain_value)


def _checked_ci_options(ci, n_resamples, resample, ci_method, seed, progress):
    ci, n_resamples, resample, ci_method = check_options(
        ci, n_resamples, resample, ci_method, seed, progress
    )
    if resample != "item":
        raise ValueError(
            f"versus resamples items only (the judge is one fixed annotator); got "
            f"resample={resample!r}"
        )
    return ci, n_resamples, resample, ci_method


def _roles(da, annotator, judge, reference):
    """Positions along ``annotator`` of the judge, the humans and the reference panel, and
    whether the reference is "each"."""
    judge_position = _annotator_position(da, annotator, judge)
    human_positions = [p for p in range(da.sizes[annotator]) if p != judge_position]
    if not human_positions:
        raise ValueError(f"dim {annotator!r} has only the judge {judge!r}; no human to compare")
    each = isinstance(reference, str) and reference == "each"
    if isinstance(reference, str) and reference in ("majority", "each"):
        panel_positions = human_positions
    else:
        panel_positions = _reference_positions(da, annotator, reference, judge_position)
    return judge_position, human_positions, panel_positions, each


def _reference_values(panel, annotator, panel_positions, each, tie_rule):
    """(reference 1/0/NaN per cell, tie mask, mask of cells without reference); with "each"
    along a ``reference`` dim, one annotator after the other."""
    if not each:
        return _majority(panel, annotator, tie_rule)
    reference_values = panel.rename({annotator: "reference"})
    if "reference" not in reference_values.coords:
        reference_values = reference_values.assign_coords(reference=panel_positions)
    return (reference_values, xr.zeros_like(reference_values, dtype=bool),
            reference_values.isnull())


def _count_variables(counts, ties, no_reference, judge_missing, *, item, label) -> dict:
    """The per-label counts and the coverage, from :func:`cell_counts` and the masks."""
    by_label = counts.sum(item)
    cells = {"tp": "true_positives", "fp": "false_positives", "fn": "false_negatives",
             "tn": "true_negatives", "ap": "abstentions_on_positive",
             "an": "abstentions_on_negative"}
    data = {f"label_{name}": by_label.sel(count=cell, drop=True)
            for cell, name in cells.items()}
    data.update({
        "label_ties": ties.sum(item),
        "label_no_reference": no_reference.sum(item),
        "label_judge_missing": judge_missing.sum(item),
        "label_coverage": _coverage(by_label),
        "coverage": _coverage(by_label.sum(label)),
    })
    return data


def _result_attrs(judge, reference_names, each, modes, tie_rule, marker, *, n_items, n_labels,
                  n_humans) -> dict:
    if each:
        rule = "each annotator in turn"
    elif len(reference_names) > 1:
        rule = f"majority of {reference_names}"
    else:
        rule = f"annotator {reference_names[0]!r}"
    single = len(modes) == 1
    return {
        "judge": _plain(judge),
        "reference": REFERENCE,
        "reference_rule": rule,
        # lists as JSON text: every store (netCDF, zarr) takes it
        "reference_annotators": json_attr(reference_names),
        "n_items": n_items,
        "n_labels": n_labels,
        "n_humans": n_humans,
        "judgment_scale": "binary (0/1) per label",
        "abstain": modes[0] if single else json_attr(modes),
        "abstain_definition": ABSTAIN_MODES[modes[0]] if single
        else json_attr([ABSTAIN_MODES[m] for m in modes]),
        "abstain_value": marker,
        "tie": tie_rule,
        "tie_definition": TIE_RULES[tie_rule],
        "missing_data": "human NaN decisions are left out of the majority (the majority of "
        "the humans present); a cell without any human decision is not compared",
        "zero_division": ZERO_DIVISION,
        "average_definition": json_attr([f"{k}: {v}" for k, v in AVERAGES.items()]),
    }


def _with_intervals(result, counts, humans, modes, *, item, annotator, label, **options):
    """``result`` with the item-bootstrap bounds of its floating-point variables."""
    variables = [
        name
        for name in interval_variables(result, item)
        # one human: no human agreement to resample
        if humans.sizes[annotator] >= 2 or name not in HUMAN_VARIABLES
    ]

    def make_statistic(arrays):
        return VersusStatistic(arrays["counts"], modes, arrays["humans"], item=item,
                               annotator=annotator, label=label)

    arrays = {"counts": counts, "humans": humans}
    return bootstrap(make_statistic(arrays), result, variables=variables, item=item,
                     rebuild=(make_statistic, arrays), **options)


def _parse_choice(name: str, value, choices: dict, allow_all: bool = False) -> list[str]:
    if allow_all and value == "all":
        return list(choices)
    if not isinstance(value, str) or value not in choices:
        options = list(choices) + (["all"] if allow_all else [])
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return [value]


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


def _human_agreement(humans: xr.DataArray, item, annotator, label) -> dict[str, xr.DataArray]:
    if humans.sizes[annotator] >= 2:
        result = without_reasons(mla(humans, baseline=HUMAN_BASELINES, item=item,
                                     annotator=annotator, label=label))
        return {
            "human_agreement": result.agreement,
            "label_human_agreement": result.label_agreement,
        }
    # one human: no agreement among humans to report
    template = humans.isel({annotator: 0, item: 0}, drop=True).astype(np.float64)
    label_values = xr.concat([template * np.nan] * 2, dim="baseline").assign_coords(
        baseline=HUMAN_BASELINES
    )
    return {
        "human_agreement": label_values.isel({label: 0}, drop=True),
        "label_human_agreement": label_values,
    }


def _describe(result: xr.Dataset, modes: list[str]) -> None:
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
    result["label_human_agreement"].attrs = {
        "long_name": "human-human label agreement",
        "symbol": "A_j",
        "description": "label agreement of xr_agreement.mla among the non-judge annotators "
        "(NaN where undefined, see mla)",
    }
