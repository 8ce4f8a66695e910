"""The judge-validation report (:func:`xr_agreement.versus`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from ..judge import ABSTAIN_MODES, AVERAGES, COUNTS, versus
from .render import (_ci_label, _dataset_from_dict, _Format, _json_safe, _plain, _render_html,
                     _RenderedReport)


# --------------------------------------------------------------------------------------
# the judge-validation report (xr_agreement.versus)
# --------------------------------------------------------------------------------------


JUDGE_JSON_FORMAT = "xr-agreement-judge-report/1"


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
    seed=None,
    digits: int = 3,
    title: str | None = None,
    notes: Sequence[str] = (),
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    **ci_options,
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
        with ``seed`` and ``**ci_options`` (``n_resamples``, ``method``).
    seed : int or numpy.random.Generator, optional
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
    if ci is None and ci_options:
        raise ValueError(f"{sorted(ci_options)} only apply with ci=<level>")
    interval_options = {} if ci is None else {"ci": ci, "seed": seed, **ci_options}
    result = versus(
        da, judge, reference, abstain="all", abstain_value=abstain_value, tie=tie,
        item=item, annotator=annotator, label=label, **interval_options,
    ).compute()
    settings = {
        "judge": _plain(judge),
        "abstain": abstain,
        "ci": ci,
        "seed": seed if isinstance(seed, (int, np.integer, type(None))) else repr(seed),
        "ci_options": {k: _plain(v) for k, v in ci_options.items()},
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


def _build_judge_document(rep: JudgeReport) -> list:
    ds, s = rep.result, rep.settings
    fmt = _Format(s["digits"])
    label_dim = s["dims"]["label"]
    mode = s["abstain"]
    primary = ds.sel(abstain=mode)
    has_ci = "kappa_lower" in ds
    ci_label = _ci_label(s)
    labels = [_plain(v) for v in ds[label_dim].values]
    doc = []

    def value(name, where=None, source=primary):
        data = source[name]
        return float(data.sel(where)) if where else float(data)

    def with_interval(name, where=None):
        text = fmt(value(name, where))
        if has_ci and f"{name}_lower" in primary:
            text += (f" [{fmt(value(name + '_lower', where))}, "
                     f"{fmt(value(name + '_upper', where))}]")
        return text

    micro = {"average": "micro"}
    humans = {b: float(ds.human_agreement.sel(baseline=b)) for b in ("F", "AC1")}
    counts = {name: int(ds[name].sum()) for name in COUNTS}
    decided = sum(counts[n] for n in ("true_positives", "false_positives", "false_negatives",
                                      "true_negatives"))
    abstained = counts["abstentions_on_positive"] + counts["abstentions_on_negative"]
    compared = decided + abstained

    # ---- headline ---------------------------------------------------------------------
    headline = (f"Judge {s['judge']!r} against the {ds.attrs['reference']}, abstentions "
                f"'{mode}': kappa = {with_interval('kappa', micro)}, F1 = "
                f"{with_interval('f1', micro)} (micro: pooled over items and labels), "
                f"coverage = {fmt(float(ds.coverage))} ({decided} of {compared} compared "
                f"cells decided). Human-human ceiling A_ml = {fmt(humans['F'])} (F), "
                f"{fmt(humans['AC1'])} (AC1). N = {ds.attrs['n_items']} items, k = "
                f"{ds.attrs['n_labels']} labels, {ds.attrs['n_humans']} humans"
                + (f", {ci_label} from {ds.attrs['ci_n_resamples']} item resamples."
                   if has_ci else "."))
    doc.append(("__title__", [("p", s["title"] or "Judge validation report"), ("p", headline)]
                + [("p", note) for note in s.get("notes", [])]))

    # ---- 1. scale, reference, ties --------------------------------------------------------
    statements = [
        (f"Judgment scale: {ds.attrs['judgment_scale']}, 1 = criterion met; k = "
        f"{len(labels)} labels: {', '.join(map(str, labels))}."),
        f"Reference: {ds.attrs['reference']} ({ds.attrs['n_humans']} humans other than the "
        "judge); " + ds.attrs["missing_data"] + ".",
        (f"Tie handling: tie='{ds.attrs['tie']}' ({ds.attrs['tie_definition']}); "
        f"{counts['ties']} tied (item, label) cells."),
        (f"Cells without any reference decision (not compared): {counts['no_reference']}; "
        f"judge decisions missing (not asked, not compared): {counts['judge_missing']}."),
        f"Undefined values: {ds.attrs['zero_division']}.",
    ]
    section = [("list", statements)]
    doc.append(("1. Judgment scale, reference and ties", section))

    # ---- 2. abstentions ------------------------------------------------------------------
    marker = ds.attrs["abstain_value"]
    rows = []
    for m in ABSTAIN_MODES:
        source = ds.sel(abstain=m)
        rows.append([m + (" (primary)" if m == mode else "")]
                    + [fmt(value(name, micro, source)) for name in
                       ("accuracy", "precision", "recall", "f1", "kappa", "phi")])
    doc.append(("2. Abstentions and coverage", [
        ("p", (f"Abstention marker: {marker}. The judge abstained on {abstained} of {compared} "
         f"compared cells (coverage {fmt(float(ds.coverage))}: {decided} decided); coverage "
         f"is the same in every mode and must be read with 'exclude'. Primary mode: "
         f"abstain='{mode}'.")),
        ("list", [f"{m}: {d}" for m, d in ABSTAIN_MODES.items()]),
        ("table", ["abstain", "Acc", "P", "R", "F1", "kappa", "phi"], rows,
         "The three abstention modes side by side (micro: pooled over items and labels)."),
    ]))

    # ---- 3. confusion matrix ----------------------------------------------------------------
    matrix = [
        ["judge 1", str(counts["true_positives"]), str(counts["false_positives"])],
        ["judge 0", str(counts["false_negatives"]), str(counts["true_negatives"])],
        ["judge abstained", str(counts["abstentions_on_positive"]),
         str(counts["abstentions_on_negative"])],
    ]
    label_rows = []
    for j in labels:
        where = {label_dim: j}
        label_rows.append([str(j)] + [str(int(ds[n].sel(where))) for n in (
            "true_positives", "false_positives", "false_negatives", "true_negatives",
            "abstentions_on_positive", "abstentions_on_negative", "ties")]
            + [fmt(float(ds.label_coverage.sel(where)))])
    doc.append(("3. Confusion matrix", [
        ("table", ["", "reference 1", "reference 0"], matrix,
         "Pooled over items and labels (cells, each an (item, label) decision)."),
        ("table", [label_dim, "TP", "FP", "FN", "TN", "A_1", "A_0", "ties", "coverage"],
         label_rows, "Per label: A_1 / A_0 are abstentions where the reference is 1 / 0."),
    ]))

    # ---- 4. coefficients by aggregation level -------------------------------------------------
    averages = list(AVERAGES)
    rows = []
    for name, caption in _JUDGE_COLUMNS.items():
        rows.append([caption] + [with_interval(name, {"average": a}) for a in averages])
    rows.append(["coverage", fmt(float(ds.coverage)), "", "", ""])
    doc.append((f"4. Coefficients by aggregation level (abstain='{mode}')", [
        ("table", ["measure"] + averages, rows,
         f"Intervals: {ci_label}." if has_ci else None),
        ("list", [f"{k}: {v}" for k, v in AVERAGES.items()]),
        ("p", ("On binary data phi = MCC = Pearson's r (= Spearman's rho = Kendall's tau-b) of "
         "the two 0/1 vectors: one number, not corroborating evidence. kappa = phi exactly "
         "when the judge's and the reference's positive rates agree; the gap phi - kappa "
         "reads as the judge's positive-rate drift p_J - p_R.")),
    ]))

    # ---- 5. per label, next to the human ceiling -------------------------------------------
    header = [label_dim] + [_JUDGE_COLUMNS[n] for n in ("accuracy", "precision", "recall",
                                                        "f1", "specificity", "kappa", "phi")]
    if has_ci:
        header.append(f"kappa {ci_label}")
    header += ["p_J - p_R", "human A_j (F)", "human A_j (AC1)"]
    rows = []
    for j in labels:
        where = {label_dim: j}
        row = [str(j)] + [fmt(value("label_" + n, where)) for n in (
            "accuracy", "precision", "recall", "f1", "specificity", "kappa", "phi")]
        if has_ci:
            row.append(f"[{fmt(value('label_kappa_lower', where))}, "
                       f"{fmt(value('label_kappa_upper', where))}]")
        row += [fmt(value("label_positive_rate_drift", where))]
        row += [fmt(float(ds.human_label_agreement.sel(baseline=b, **where)))
                for b in ("F", "AC1")]
        rows.append(row)
    doc.append((f"5. Per label, next to the human ceiling (abstain='{mode}')", [
        ("table", header, rows, None),
    ]))

    # ---- 6. human ceiling ----------------------------------------------------------------------
    rows = []
    for b in ("F", "AC1"):
        row = [b, fmt(humans[b])]
        if has_ci and "human_agreement_lower" in ds:
            row.append(f"[{fmt(float(ds.human_agreement_lower.sel(baseline=b)))}, "
                       f"{fmt(float(ds.human_agreement_upper.sel(baseline=b)))}]")
        rows.append(row)
    doc.append(("6. Human-human ceiling", [
        ("p", ds.human_agreement.attrs["description"] + "."),
        ("table", ["baseline", "A_ml"] + ([ci_label] if has_ci and
                                           "human_agreement_lower" in ds else []), rows, None),
    ]))

    # ---- 7. uncertainty -----------------------------------------------------------------------
    if has_ci:
        text = (f"Intervals: {ci_label}, {ds.attrs['ci_method']} bootstrap, "
                f"{ds.attrs['ci_n_resamples']} item resamples"
                + (f", seed={s['seed']}" if s["seed"] is not None else "")
                + "; the judge's, the reference's and the humans' values of an item move "
                "together.")
    else:
        text = ("No confidence intervals were computed (pass ci=0.95). Judge validation "
                "should report intervals from an item bootstrap.")
    doc.append(("7. Uncertainty", [("p", text)]))
    return doc
