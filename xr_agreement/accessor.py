"""The ``.agreement`` accessor on DataArrays: one line per method, each delegating to the
public function of the same name with its real signature (``help(da.agreement.mla)`` and an
IDE show the keywords; the docstrings are the functions' own, without their examples).

The families are imported when a method is first used, not when ``xr_agreement`` is: the
import stays light (numba, scipy and the families' modules load on demand).
"""

from __future__ import annotations

import importlib
import math
import types

import xarray as xr


class _Family:
    """A family's package, imported on first attribute access."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute):
        return getattr(importlib.import_module(self._name, __package__), attribute)


_alpha, _compare, _diagnostics, _judge, _kappa, _mla, _report, _spans = (
    _Family(f".{name}")
    for name in ("alpha", "compare", "diagnostics", "judge", "kappa", "mla", "report",
                 "spans"))


class _documented:
    """Give the accessor method the docstring of ``family.<name>`` (Examples left out: they
    run once, in the function's own doctest), read when the method is first looked up."""

    def __init__(self, family: _Family, on: str = "DataArray", name: str | None = None):
        self._family, self._on, self._name = family, on, name

    def __call__(self, method):
        self._method = method
        return self

    def __get__(self, instance, owner=None):
        method = self._method
        if method.__doc__ is None:
            function = getattr(self._family, self._name or method.__name__)
            method.__doc__ = _accessor_doc(function, self._on)
        return method if instance is None else types.MethodType(method, instance)


def _accessor_doc(function, on: str) -> str:
    """``function``'s docstring without its Examples, its own summary line first (the line
    an API table shows), then where the method comes from."""
    head = (function.__doc__ or "").split("    Examples\n    --------")[0].rstrip()
    summary, _, rest = head.partition("\n\n")
    note = f"The accessor form of :func:`xr_agreement.{function.__name__}`, on this {on}."
    return f"{summary}\n\n    {note}\n\n{rest}\n" if rest else f"{summary}\n\n    {note}\n"


@xr.register_dataarray_accessor("agreement")
class AgreementAccessor:
    """Agreement statistics on a DataArray of annotations (``da.agreement.<method>``)."""

    def __init__(self, obj: xr.DataArray):
        self._obj = obj

    @_documented(_mla)
    def mla(
        self, baseline="F", *, item="item", annotator="annotator", label="label", ci=None,
        n_resamples=1000, resample="item", ci_method="percentile", seed=None,
        return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _mla.mla(
            self._obj, baseline, item=item, annotator=annotator, label=label, ci=ci,
            n_resamples=n_resamples, resample=resample, ci_method=ci_method, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_alpha)
    def alpha(
        self, metric="nominal", *, item="item", annotator="annotator", label="label",
        categories=None, ci=0.95, ci_method="analytic", population_size=None, n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _alpha.alpha(
            self._obj, metric, item=item, annotator=annotator, label=label, categories=categories,
            ci=ci, ci_method=ci_method, population_size=population_size, n_resamples=n_resamples,
            resample=resample, seed=seed, return_replicates=return_replicates, progress=progress,
        )

    @_documented(_judge)
    def versus(
        self, judge, reference="majority", *, abstain="exclude", abstain_value=math.nan,
        tie="exclude", item="item", annotator="annotator", label="label", ci=None,
        n_resamples=1000, resample="item", ci_method="percentile", seed=None,
        return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _judge.versus(
            self._obj, judge, reference, abstain=abstain, abstain_value=abstain_value, tie=tie,
            item=item, annotator=annotator, label=label, ci=ci, n_resamples=n_resamples,
            resample=resample, ci_method=ci_method, seed=seed, return_replicates=return_replicates,
            progress=progress,
        )

    @_documented(_kappa)
    def cohen(
        self, weights=None, *, categories=None, ci=0.95, ci_method="analytic",
        population_size=None, item="item", annotator="annotator", label="label", n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _kappa.cohen(
            self._obj, weights, categories=categories, ci=ci, ci_method=ci_method,
            population_size=population_size, item=item, annotator=annotator, label=label,
            n_resamples=n_resamples, resample=resample, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_kappa)
    def fleiss(
        self, weights=None, *, categories=None, ci=0.95, ci_method="analytic",
        population_size=None, item="item", annotator="annotator", label="label", n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _kappa.fleiss(
            self._obj, weights, categories=categories, ci=ci, ci_method=ci_method,
            population_size=population_size, item=item, annotator=annotator, label=label,
            n_resamples=n_resamples, resample=resample, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_kappa)
    def conger(
        self, weights=None, *, categories=None, ci=0.95, ci_method="analytic",
        population_size=None, item="item", annotator="annotator", label="label", n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _kappa.conger(
            self._obj, weights, categories=categories, ci=ci, ci_method=ci_method,
            population_size=population_size, item=item, annotator=annotator, label=label,
            n_resamples=n_resamples, resample=resample, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_kappa)
    def gwet(
        self, weights=None, *, categories=None, ci=0.95, ci_method="analytic",
        population_size=None, item="item", annotator="annotator", label="label", n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _kappa.gwet(
            self._obj, weights, categories=categories, ci=ci, ci_method=ci_method,
            population_size=population_size, item=item, annotator=annotator, label=label,
            n_resamples=n_resamples, resample=resample, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_kappa)
    def brennan_prediger(
        self, weights=None, *, categories=None, ci=0.95, ci_method="analytic",
        population_size=None, item="item", annotator="annotator", label="label", n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _kappa.brennan_prediger(
            self._obj, weights, categories=categories, ci=ci, ci_method=ci_method,
            population_size=population_size, item=item, annotator=annotator, label=label,
            n_resamples=n_resamples, resample=resample, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_kappa)
    def percent(
        self, weights=None, *, categories=None, ci=0.95, ci_method="analytic",
        population_size=None, item="item", annotator="annotator", label="label", n_resamples=1000,
        resample="item", seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _kappa.percent(
            self._obj, weights, categories=categories, ci=ci, ci_method=ci_method,
            population_size=population_size, item=item, annotator=annotator, label=label,
            n_resamples=n_resamples, resample=resample, seed=seed,
            return_replicates=return_replicates, progress=progress,
        )

    @_documented(_kappa)
    def one_hot(self, categories=None, *, label="label") -> xr.DataArray:
        return _kappa.one_hot(self._obj, categories, label=label)

    @_documented(_report)
    def report(
        self, baseline="F", sensitivity=("AC1", "PB"), *, ci=None, n_resamples=None, resample=None,
        ci_method=None, seed=None, progress=None, labels_fixed=None, all_labels_considered=None,
        joint_omissions=None, n_lowest=5, n_hardest=5, landis_koch=False, digits=3, title=None,
        notes=(), item="item", annotator="annotator", label="label",
    ):
        return _report.report(
            self._obj, baseline, sensitivity, ci=ci, n_resamples=n_resamples, resample=resample,
            ci_method=ci_method, seed=seed, progress=progress, labels_fixed=labels_fixed,
            all_labels_considered=all_labels_considered, joint_omissions=joint_omissions,
            n_lowest=n_lowest, n_hardest=n_hardest, landis_koch=landis_koch, digits=digits,
            title=title, notes=notes, item=item, annotator=annotator, label=label,
        )

    @_documented(_report)
    def judge_report(
        self, judge, reference="majority", *, abstain="exclude", abstain_value=math.nan,
        tie="exclude", ci=None, n_resamples=None, resample=None, ci_method=None, seed=None,
        progress=None, digits=3, title=None, notes=(), item="item", annotator="annotator",
        label="label",
    ):
        return _report.judge_report(
            self._obj, judge, reference, abstain=abstain, abstain_value=abstain_value, tie=tie,
            ci=ci, n_resamples=n_resamples, resample=resample, ci_method=ci_method, seed=seed,
            progress=progress, digits=digits, title=title, notes=notes, item=item,
            annotator=annotator, label=label,
        )

    @_documented(_compare)
    def augmented_kappa(self, *, item="item", annotator="annotator", label="label") -> xr.Dataset:
        return _compare.augmented_kappa(self._obj, item=item, annotator=annotator, label=label)

    @_documented(_compare)
    def boot_f1(
        self, n_chance_runs=1000, seed=None, *, item="item", annotator="annotator", label="label",
    ) -> xr.Dataset:
        return _compare.boot_f1(
            self._obj, n_chance_runs, seed, item=item, annotator=annotator, label=label,
        )

    @_documented(_compare)
    def masi(self, *, item="item", annotator="annotator", label="label") -> xr.Dataset:
        return _compare.masi(self._obj, item=item, annotator=annotator, label=label)

    @_documented(_compare)
    def am(self, *, item="item", annotator="annotator", label="label") -> xr.Dataset:
        return _compare.am(self._obj, item=item, annotator=annotator, label=label)

    @_documented(_diagnostics)
    def annotators(
        self, baseline="F", *, item="item", annotator="annotator", label="label", ci=None,
        n_resamples=1000, resample="item", ci_method="percentile", seed=None, progress=None,
    ) -> xr.Dataset:
        return _diagnostics.annotators(
            self._obj, baseline, item=item, annotator=annotator, label=label, ci=ci,
            n_resamples=n_resamples, resample=resample, ci_method=ci_method, seed=seed,
            progress=progress,
        )

    @_documented(_diagnostics)
    def confusions(self, *, item="item", annotator="annotator", label="label") -> xr.Dataset:
        return _diagnostics.confusions(self._obj, item=item, annotator=annotator, label=label)

    @_documented(_diagnostics)
    def disagreements(self, *, item="item", annotator="annotator", label="label"):
        return _diagnostics.disagreements(self._obj, item=item, annotator=annotator, label=label)


def _span_table(obj):
    if not _spans_table_check(obj):
        raise TypeError(
            "the .agreement accessor of a Dataset works on span tables (made by "
            "xr_agreement.from_spans or xr_agreement.read_spans); this Dataset lacks "
            f"{sorted(set(_SPAN_TABLE_VARIABLES) - set(map(str, obj.variables)))}. For decisions "
            "(item x annotator x label), use the DataArray: ds['decisions'].agreement")
    return obj


class SpanTableAccessor:
    """Span agreement on a span table (``table.agreement.<method>``); see
    :func:`xr_agreement.from_spans`."""

    def __init__(self, obj: xr.Dataset):
        self._obj = obj

    @_documented(_spans, "span table", "span_positions")
    def positions(self, unit=None) -> xr.DataArray:
        return _spans.span_positions(_span_table(self._obj), unit)

    @_documented(_spans, "span table", "span_mla")
    def mla(
        self, baseline="F", *, unit=None, ci=None, n_resamples=1000, ci_method="percentile",
        seed=None, return_replicates=False, progress=None,
    ) -> xr.Dataset:
        return _spans.span_mla(
            _span_table(self._obj), baseline, unit=unit, ci=ci, n_resamples=n_resamples,
            ci_method=ci_method, seed=seed, return_replicates=return_replicates,
            progress=progress,
        )

    @_documented(_spans, "span table", "span_alpha")
    def alpha(
        self, metric="hamming", *, unit=None, ci=None, n_resamples=1000,
        ci_method="percentile", seed=None, progress=None,
    ) -> xr.Dataset:
        return _spans.span_alpha(
            _span_table(self._obj), metric, unit=unit, ci=ci, n_resamples=n_resamples,
            ci_method=ci_method, seed=seed, progress=progress,
        )

    @_documented(_spans, "span table")
    def span_f1(self, match="exact") -> xr.Dataset:
        return _spans.span_f1(_span_table(self._obj), match)

    @_documented(_spans, "span table")
    def unitizing_alpha(self, method="krippendorff2004") -> xr.Dataset:
        return _spans.unitizing_alpha(_span_table(self._obj), method)

    @_documented(_spans, "span table")
    def gamma(
        self, positional_weight=1.0, categorical_weight=1.0, empty_cost=1.0, n_samples=None,
        precision=None, seed=None, *, categorical_dissimilarity=None, return_alignment=False,
    ) -> xr.Dataset:
        return _spans.gamma(
            _span_table(self._obj), positional_weight, categorical_weight, empty_cost,
            n_samples, precision, seed, categorical_dissimilarity=categorical_dissimilarity,
            return_alignment=return_alignment,
        )

    @_documented(_spans, "span table", "span_disagreements")
    def disagreements(self, *, top=None):
        return _spans.span_disagreements(_span_table(self._obj), top=top)

    @_documented(_report, "span table", "span_report")
    def report(
        self, baseline="F", *, unit=None, ci=None, ci_method=None, n_resamples=None, seed=None,
        digits=3, title=None, notes=(),
    ):
        return _report.span_report(
            _span_table(self._obj), baseline, unit=unit, ci=ci, ci_method=ci_method,
            n_resamples=n_resamples, seed=seed, digits=digits, title=title, notes=notes,
        )


class _DatasetAgreement:
    """``Dataset.agreement``: the span-table accessor on a span table, and on any other
    Dataset what the name meant before (its variable, coordinate or attr ``agreement``).

    Not ``xr.register_dataset_accessor``: every MLA result holds the variable ``agreement``
    (``result.agreement``), which a registered accessor would hide; and xarray caches
    accessors per object, which would keep a stale variable after ``ds["agreement"] = ...``.
    This descriptor decides on every access and caches nothing."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return SpanTableAccessor
        if _spans_table_check(obj):
            return SpanTableAccessor(obj)
        return xr.Dataset.__getattr__(obj, "agreement")


def _spans_table_check(obj) -> bool:
    # the span table's own variables (spans/table.py REQUIRED), checked without importing
    # the spans family, so that result.agreement stays as cheap as a variable lookup
    return all(name in obj.variables for name in _SPAN_TABLE_VARIABLES)


_SPAN_TABLE_VARIABLES = ("start", "end", "length", "annotated", "document", "annotator",
                         "label", "document_id", "annotator_id", "label_id")

xr.Dataset.agreement = _DatasetAgreement()
