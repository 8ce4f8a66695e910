"""The judge-validation report (:func:`xr_agreement.versus`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from ..judge import ABSTAIN_MODES, AVERAGES, COUNTS, HUMAN_BASELINES, versus
from .render import (_ci_label, _dataset_from_dict, _Format, _interval_keywords,
                     _interval_settings, _json_safe, _plain, _render_html, _RenderedReport)


# --------------------------------------------------------------------------------------
# the judge-validation report (xr_agreement.versus)
# --------------------------------------------------------------------------------------


JUDGE_JSON_FORMAT = "xr-agreement-judge-report/2"


# measures in the coefficient tables, with their column captions
_JUDGE_COLUMNS = {"accuracy": "Acc", "precision": "P", "recall": "R", "f1": "F1",
                  "specificity": "Spec", "kappa": "kappa", "phi": "phi (MCC)",
                  "kappa_phi_gap": "phi - kappa", "positive_rate_drift": "p_J - p_R"}


def judge_report(
    da: xr.DataArray,
    judge,
    reference="majority",
    *,
    abstain: str = "exclude",
    abstain_value=np.nan,
    tie: str = "exclude",
    ci: float | None = None,
    n_resamples: int | None = None,
    resample: str | None = None,
    ci_method: str | None = None,
    seed=None,
    progress: bool | None = None,
    digits: int = 3,
    title: str | None = None,
    notes: Sequence[str] = (),
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> JudgeReport:
    """The judge-validation checklist for one judge against a human reference.

    Runs :func:`xr_agreement.versus` with the three abstention modes side by side and
    states, next to every coefficient: the judgment scale, the reference and its tie rule
    with the number of ties, the abstention marker and mode, coverage, the confusion
    matrix, the aggregation level, and the human-human ceiling.

    Parameters
    ----------
    da : xarray.DataArray
        0/1 decisions with dims ``item``, ``annotator``, ``label`` and no other dim (see
        :func:`xr_agreement.versus`).
    judge, reference, abstain_value, tie
        As in :func:`xr_agreement.versus`; ``reference="each"`` is not supported here (one
        report per reference annotator instead).
    abstain : {"exclude", "disagree", "category"}, default "exclude"
        The primary abstention mode of the coefficient tables; the three modes are always
        shown side by side as well.
    ci : float, optional
        Confidence level of bootstrap intervals (items resampled), passed to ``versus``
        with the bootstrap options below.
    n_resamples : int, optional
        Bootstrap resamples (``versus``'s default, 1000, when unset); only with ``ci``.
    resample : {"item"}, optional
        The resampled unit (``versus`` resamples items only); only with ``ci``.
    ci_method : {"percentile", "bca"}, optional
        The bootstrap interval ("percentile" when unset); only with ``ci``.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling (used with ``ci``).
    progress : bool, optional
        Show progress bars (by default when stderr is a terminal or in a notebook).
    digits : int, default 3
        Decimals in the text, markdown and HTML renderings (JSON keeps full precision).
    title : str, optional
    notes : sequence of str
        Further statements printed under the headline.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    JudgeReport
        ``.result`` (the ``versus`` Dataset with an ``abstain`` dim) and ``.settings``;
        renders with ``str()``, ``.to_markdown()``, ``.to_html()``, ``.to_json()``.

    Raises
    ------
    ValueError
        ``reference="each"``, an unknown ``abstain``, extra dims, a bootstrap option
        without ``ci``, or any input error of ``versus``.

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
    >>> rep = decisions.agreement.judge_report("llm", reference="ann")
    >>> print(rep.to_markdown().splitlines()[0])
    # Judge validation report
    >>> rep.result.coverage.item()
    0.875
    """
    if isinstance(reference, str) and reference == "each":
        raise ValueError("judge_report compares with one reference; reference='each' is not "
                         "supported (make one report per annotator: reference='<name>')")
    modes = ABSTAIN_MODES
    if not isinstance(abstain, str) or abstain not in modes:
        raise ValueError(f"abstain must be one of {list(modes)}, got {abstain!r}")
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    if extra:
        raise ValueError(f"judge_report() describes one corpus; the array has extra dims "
                         f"{extra}: select one value first (e.g. da.sel({extra[0]}=...))")
    if not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ValueError(f"digits must be a non-negative integer, got {digits!r}")
    options = {"n_resamples": n_resamples, "resample": resample, "ci_method": ci_method}
    interval_options = _interval_keywords(ci, seed=seed, progress=progress, **options)
    result = versus(
        da, judge, reference, abstain="all", abstain_value=abstain_value, tie=tie,
        item=item, annotator=annotator, label=label, **interval_options,
    ).compute()
    settings = {
        "judge": _plain(judge),
        "abstain": abstain,
        **_interval_settings(ci, seed, options),
        "digits": int(digits),
        "title": title,
        "notes": [notes] if isinstance(notes, str) else list(notes),
        "dims": {"item": item, "annotator": annotator, "label": label},
    }
    return JudgeReport(result, settings)


class JudgeReport(_RenderedReport):
    """The judge-validation report: the :func:`xr_agreement.versus` Dataset (all three
    abstention modes) and its renderings. Build it with :func:`judge_report`, restore one
    with :meth:`from_json`.

    Attributes
    ----------
    result : xarray.Dataset
        ``versus(..., abstain="all")``, with intervals when ``ci`` was given.
    settings : dict
        The choices the report was made with (judge, primary abstention mode, ci, ...).
    """

    _json_format = JUDGE_JSON_FORMAT
    _kind = "xr-agreement judge report"

    def __init__(self, result: xr.Dataset, settings: dict):
        self.result, self.settings = result, settings

    def to_html(self) -> str:
        """The report as one self-contained HTML document (inline CSS)."""
        return _render_html(self._document(), {}, standalone=True,
                            document_title=self.settings["title"] or "Judge validation report")

    def _repr_html_(self) -> str:
        return _render_html(self._document(), {}, standalone=False)

    def to_dict(self) -> dict:
        """Plain-Python form: settings and the Dataset in xarray's ``to_dict`` layout (NaN
        as None)."""
        return _json_safe({"format": JUDGE_JSON_FORMAT, "settings": self.settings,
                           "result": self.result.to_dict(data="list")})

    @classmethod
    def from_json(cls, text: str) -> JudgeReport:
        """Restore a JudgeReport from :meth:`to_json` output."""
        data = cls._json_data(text)
        return cls(_dataset_from_dict(data["result"]), data["settings"])

    def _document(self) -> list:
        return _build_judge_document(self)


class _JudgeFacts:
    """What every section of the judge document reads: the result, the settings, the
    formatter, the primary mode's values and the pooled counts."""

    def __init__(self, rep: JudgeReport):
        ds, s = rep.result, rep.settings
        self.ds, self.s = ds, s
        self.fmt = _Format(s["digits"])
        self.label_dim = s["dims"]["label"]
        self.mode = s["abstain"]
        self.primary = ds.sel(abstain=self.mode)
        self.has_ci = "kappa_lower" in ds
        self.ci_label = _ci_label(s)
        self.labels = [_plain(v) for v in ds[self.label_dim].values]
        self.humans = {b: float(ds.human_agreement.sel(baseline=b)) for b in HUMAN_BASELINES}
        self.counts = {name: int(ds[name].sum()) for name in COUNTS}
        self.decided = sum(self.counts[f"label_{n}"] for n in _DECIDED)
        self.abstained = (self.counts["label_abstentions_on_positive"]
                          + self.counts["label_abstentions_on_negative"])
        self.compared = self.decided + self.abstained

    def value(self, name, where=None, source=None) -> float:
        data = (self.primary if source is None else source)[name]
        return float(data.sel(where)) if where else float(data)

    def with_interval(self, name, where=None) -> str:
        fmt = self.fmt
        text = fmt(self.value(name, where))
        if self.has_ci and f"{name}_lower" in self.primary:
            text += (f" [{fmt(self.value(name + '_lower', where))}, "
                     f"{fmt(self.value(name + '_upper', where))}]")
        return text


# the judge's decisions among the counts (cells of the 2 x 2 table)
_DECIDED = ("true_positives", "false_positives", "false_negatives", "true_negatives")

_MICRO = {"average": "micro"}


def _build_judge_document(rep: JudgeReport) -> list:
    facts = _JudgeFacts(rep)
    return [_judge_headline(facts), _scale_section(facts), _abstention_section(facts),
            _confusion_section(facts), _averages_section(facts), _per_label_section(facts),
            _ceiling_section(facts), _judge_uncertainty_section(facts)]


def _judge_headline(f: _JudgeFacts):
    ds, s, fmt = f.ds, f.s, f.fmt
    headline = (f"Judge {s['judge']!r} against the {ds.attrs['reference_rule']}, abstentions "
                f"'{f.mode}': kappa = {f.with_interval('kappa', _MICRO)}, F1 = "
                f"{f.with_interval('f1', _MICRO)} (micro: pooled over items and labels), "
                f"coverage = {fmt(float(ds.coverage))} ({f.decided} of {f.compared} compared "
                f"cells decided). Human-human ceiling A_ml = {fmt(f.humans['F'])} (F), "
                f"{fmt(f.humans['AC1'])} (AC1). N = {ds.attrs['n_items']} items, k = "
                f"{ds.attrs['n_labels']} labels, {ds.attrs['n_humans']} humans"
                + (f", {f.ci_label} from {ds.attrs['ci_n_resamples']} item resamples."
                   if f.has_ci else "."))
    return ("__title__", [("p", s["title"] or "Judge validation report"), ("p", headline)]
            + [("p", note) for note in s.get("notes", [])])


def _scale_section(f: _JudgeFacts):
    attrs, counts = f.ds.attrs, f.counts
    statements = [
        (f"Judgment scale: {attrs['judgment_scale']}, 1 = criterion met; k = "
         f"{len(f.labels)} labels: {', '.join(map(str, f.labels))}."),
        f"Reference: {attrs['reference_rule']} ({attrs['n_humans']} humans other than the "
        "judge); " + attrs["missing_data"] + ".",
        (f"Tie handling: tie='{attrs['tie']}' ({attrs['tie_definition']}); "
         f"{counts['label_ties']} tied (item, label) cells."),
        (f"Cells without any reference decision (not compared): "
         f"{counts['label_no_reference']}; judge decisions missing (not asked, not compared): "
         f"{counts['label_judge_missing']}."),
        f"Undefined values: {attrs['zero_division']}.",
        f"Definitions: {attrs['reference']}.",
    ]
    return ("1. Judgment scale, reference and ties", [("list", statements)])


def _abstention_section(f: _JudgeFacts):
    fmt = f.fmt
    rows = []
    for m in ABSTAIN_MODES:
        source = f.ds.sel(abstain=m)
        rows.append([m + (" (primary)" if m == f.mode else "")]
                    + [fmt(f.value(name, _MICRO, source)) for name in
                       ("accuracy", "precision", "recall", "f1", "kappa", "phi")])
    return ("2. Abstentions and coverage", [
        ("p", (f"Abstention marker: {f.ds.attrs['abstain_value']}. The judge abstained on "
               f"{f.abstained} of {f.compared} compared cells (coverage "
               f"{fmt(float(f.ds.coverage))}: {f.decided} decided); coverage is the same in "
               f"every mode and must be read with 'exclude'. Primary mode: "
               f"abstain='{f.mode}'.")),
        ("list", [f"{m}: {d}" for m, d in ABSTAIN_MODES.items()]),
        ("table", ["abstain", "Acc", "P", "R", "F1", "kappa", "phi"], rows,
         "The three abstention modes side by side (micro: pooled over items and labels)."),
    ])


def _confusion_section(f: _JudgeFacts):
    c = f.counts
    matrix = [
        ["judge 1", str(c["label_true_positives"]), str(c["label_false_positives"])],
        ["judge 0", str(c["label_false_negatives"]), str(c["label_true_negatives"])],
        ["judge abstained", str(c["label_abstentions_on_positive"]),
         str(c["label_abstentions_on_negative"])],
    ]
    columns = [f"label_{n}" for n in (*_DECIDED, "abstentions_on_positive",
                                      "abstentions_on_negative", "ties")]
    label_rows = []
    for j in f.labels:
        where = {f.label_dim: j}
        label_rows.append([str(j)] + [str(int(f.ds[n].sel(where))) for n in columns]
                          + [f.fmt(float(f.ds.label_coverage.sel(where)))])
    return ("3. Confusion matrix", [
        ("table", ["", "reference 1", "reference 0"], matrix,
         "Pooled over items and labels (cells, each an (item, label) decision)."),
        ("table", [f.label_dim, "TP", "FP", "FN", "TN", "A_1", "A_0", "ties", "coverage"],
         label_rows, "Per label: A_1 / A_0 are abstentions where the reference is 1 / 0."),
    ])


def _averages_section(f: _JudgeFacts):
    averages = list(AVERAGES)
    rows = [[caption] + [f.with_interval(name, {"average": a}) for a in averages]
            for name, caption in _JUDGE_COLUMNS.items()]
    rows.append(["coverage", f.fmt(float(f.ds.coverage)), "", "", ""])
    return (f"4. Coefficients by aggregation level (abstain='{f.mode}')", [
        ("table", ["measure"] + averages, rows,
         f"Intervals: {f.ci_label}." if f.has_ci else None),
        ("list", [f"{k}: {v}" for k, v in AVERAGES.items()]),
        ("p", ("On binary data phi = MCC = Pearson's r (= Spearman's rho = Kendall's tau-b) of "
         "the two 0/1 vectors: one number, not corroborating evidence. kappa = phi exactly "
         "when the judge's and the reference's positive rates agree; the gap phi - kappa "
         "reads as the judge's positive-rate drift p_J - p_R.")),
    ])


def _per_label_section(f: _JudgeFacts):
    fmt, measures = f.fmt, ("accuracy", "precision", "recall", "f1", "specificity", "kappa",
                            "phi")
    header = [f.label_dim] + [_JUDGE_COLUMNS[n] for n in measures]
    if f.has_ci:
        header.append(f"kappa {f.ci_label}")
    header += ["p_J - p_R", "human A_j (F)", "human A_j (AC1)"]
    rows = []
    for j in f.labels:
        where = {f.label_dim: j}
        row = [str(j)] + [fmt(f.value("label_" + n, where)) for n in measures]
        if f.has_ci:
            row.append(f"[{fmt(f.value('label_kappa_lower', where))}, "
                       f"{fmt(f.value('label_kappa_upper', where))}]")
        row += [fmt(f.value("label_positive_rate_drift", where))]
        row += [fmt(float(f.ds.label_human_agreement.sel(baseline=b, **where)))
                for b in HUMAN_BASELINES]
        rows.append(row)
    return (f"5. Per label, next to the human ceiling (abstain='{f.mode}')", [
        ("table", header, rows, None),
    ])


def _ceiling_section(f: _JudgeFacts):
    ds = f.ds
    bounds = f.has_ci and "human_agreement_lower" in ds
    rows = []
    for b in HUMAN_BASELINES:
        row = [b, f.fmt(f.humans[b])]
        if bounds:
            row.append(f"[{f.fmt(float(ds.human_agreement_lower.sel(baseline=b)))}, "
                       f"{f.fmt(float(ds.human_agreement_upper.sel(baseline=b)))}]")
        rows.append(row)
    return ("6. Human-human ceiling", [
        ("p", ds.human_agreement.attrs["description"] + "."),
        ("table", ["baseline", "A_ml"] + ([f.ci_label] if bounds else []), rows, None),
    ])


def _judge_uncertainty_section(f: _JudgeFacts):
    if f.has_ci:
        text = (f"Intervals: {f.ci_label}, {f.ds.attrs['ci_method']} bootstrap, "
                f"{f.ds.attrs['ci_n_resamples']} item resamples"
                + (f", seed={f.s['seed']}" if f.s["seed"] is not None else "")
                + "; the judge's, the reference's and the humans' values of an item move "
                "together.")
    else:
        text = ("No confidence intervals were computed (pass ci=0.95). Judge validation "
                "should report intervals from an item bootstrap.")
    return ("7. Uncertainty", [("p", text)])
