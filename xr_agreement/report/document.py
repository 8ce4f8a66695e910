"""The reliability report of the MLA paper's section 5, in one call.

:func:`report` computes :func:`xr_agreement.mla` under the primary baseline and the
sensitivity baselines, on the declared label universe and (when some labels were never used)
on the used labels too, gathers the design facts the checklist asks for, and returns a
:class:`Report` that renders as HTML (Jupyter), markdown, plain text and JSON.

The report states every checklist item (label universe, meaning of joint omissions, baseline
model, diagnostics, uncertainty) and missing-data handling. It gives no verbal scale
("good", "poor") unless asked (``landis_koch=True``): the paper argues against universal
cut-offs, and the feasible floor next to each coefficient shows why.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .._core.attrs import from_json_attr
from .._core.progress import dask_progress
from .._core.validate import _check_confidence, check_dataarray, check_dims
from ..mla import BASELINES
from ..mla import api as _mla_api  # mla() looked up when called (tests replace it)
from .baselines import _baseline_list, DEFAULT_SENSITIVITY
from .diagnostics import annotators_section, confusions_section, diagnostic_facts, pair_heat_map
from .render import (_ci_label, _dataset_from_dict, _Format, _interval_keywords,
                     _interval_settings, _json_safe, _plain, _render_html, _RenderedReport)

# 4: "pairs" in place of the pair matrices above 1,000 annotators (diagnostic_facts); 3,
# always the matrices and no "reading_notes", is a case of 4 and still read
JSON_FORMAT, JSON_FORMATS_READ = "xr-agreement-report/4", ("xr-agreement-report/3",)



# Landis & Koch (1977): lower bounds of the verbal bands. Opt-in only.
LANDIS_KOCH = ((0.81, "almost perfect"), (0.61, "substantial"), (0.41, "moderate"),
               (0.21, "fair"), (0.0, "slight"), (-math.inf, "poor"))


def landis_koch(value: float) -> str:
    """The Landis-Koch band of a coefficient ("" for NaN).

    >>> landis_koch(0.232), landis_koch(0.903), landis_koch(-0.1)
    ('fair', 'almost perfect', 'poor')
    """
    if value is None or not np.isfinite(value):
        return ""
    rounded = round(float(value), 2)
    return next(name for bound, name in LANDIS_KOCH if rounded >= bound)


def report(
    da: xr.DataArray,
    baseline: str = "F",
    sensitivity: Sequence[str] | str | None = DEFAULT_SENSITIVITY,
    *,
    ci: float | None = None,
    n_resamples: int | None = None,
    resample: str | None = None,
    ci_method: str | None = None,
    seed=None,
    progress: bool | None = None,
    labels_fixed: bool | None = None,
    all_labels_considered: bool | None = None,
    joint_omissions: str | None = None,
    n_lowest: int = 5,
    n_hardest: int = 5,
    landis_koch: bool = False,
    digits: int = 3,
    title: str | None = None,
    notes: Sequence[str] = (),
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> Report:
    """The reliability report of the MLA paper's section 5 for multi-label decisions.

    Parameters
    ----------
    da : xarray.DataArray
        0/1 decisions with dims ``item``, ``annotator``, ``label`` (NaN = not made) and no
        other dim. Its ``label`` dim is the declared label universe; a ``label_name``
        coordinate, when present, names the labels.
    baseline : str, default "F"
        The pre-specified primary chance model: "F", "AC1" or "PB" (aliases as in
        :func:`xr_agreement.mla`).
    sensitivity : str or sequence of str or None, default ("AC1", "PB")
        Baselines reported as a sensitivity analysis. Left at its default with another
        primary baseline, the two baselines other than the primary.
    ci : float, optional
        Confidence level (e.g. 0.95) of bootstrap intervals from ``mla(..., ci=ci, ...)``
        with the options below; the intervals are shown wherever the result holds
        ``V_lower`` and ``V_upper``. Raises NotImplementedError if this installation's
        ``mla`` has no ``ci``.
    n_resamples : int, optional
        Bootstrap resamples (``mla``'s default, 1000, when unset); only with ``ci``.
    resample : {"item", "annotator", "both"}, optional
        The resampled unit ("item" when unset); only with ``ci``.
    ci_method : {"percentile", "bca"}, optional
        The bootstrap interval ("percentile" when unset); only with ``ci``.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling (used with ``ci``).
    progress : bool, optional
        Show progress bars (by default when stderr is a terminal or in a notebook).
    labels_fixed : bool, optional
        Whether the label inventory was fixed before annotation. Stated in the report; None
        says it was not stated.
    all_labels_considered : bool, optional
        Whether every annotator was expected to consider every label.
    joint_omissions : str, optional
        The analyst's statement of what a joint omission means in this task (e.g. "absence
        of a defect was certified"); the report adds the observed share of joint omissions.
    n_lowest, n_hardest : int
        How many labels with the lowest agreement and hardest items to name.
    landis_koch : bool, default False
        Add the Landis-Koch verbal band next to coefficients (opt-in).
    digits : int, default 3
        Decimals in the text, markdown and HTML renderings (JSON keeps full precision).
    title : str, optional
    notes : sequence of str
        Further statements printed under the headline (e.g. how the data were prepared).
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    Report
        ``.result`` (the mla Dataset on the declared universe, with a ``baseline`` dim:
        primary first), ``.used_result`` (the same on the labels used at least once, None
        when all were used), ``.design`` and ``.settings`` (dicts; the design also holds
        the facts of the sections "Annotators" and "Labels confused with each other", from
        :func:`xr_agreement.annotators` and :func:`xr_agreement.confusions` under the
        primary baseline); renders with ``str()``,
        ``.to_markdown()``, ``._repr_html_()``, ``.to_json()``; ``.plot()`` draws figures.

    Raises
    ------
    ValueError
        Extra dims, single-label ratings (no ``label`` dim: use
        :func:`xr_agreement.single_label_report`), an unknown or repeated baseline, a
        bootstrap option without ``ci``, or any input error of ``mla``.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> rep = ex.agreement.report(labels_fixed=True)
    >>> rep.result.agreement.round(3).values
    array([0.232, 0.903, 0.828])
    >>> rep.used_result.agreement.round(3).values
    array([0.232, 0.646, 0.515])
    >>> rep.design["unused_labels"][:5]
    [1, 4, 6, 7, 8]
    >>> print(rep.to_markdown().splitlines()[0])
    # Multi-label agreement report
    """
    check_dataarray(da)
    if label not in da.dims and set(da.dims) == {item, annotator}:
        raise ValueError("report() is the multi-label report of 0/1 decisions (item, annotator,"
                         " label); ratings with dims (item, annotator) get the single-label "
                         "report: xr_agreement.single_label_report(ratings)")
    check_dims(da, item=item, annotator=annotator, label=label)
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    if extra:
        raise ValueError(f"report() describes one corpus; the array has extra dims {extra}: "
                         f"select one value first (e.g. da.sel({extra[0]}=...)) or loop")
    baselines = _baseline_list(baseline, sensitivity)
    for name, value in (("n_lowest", n_lowest), ("n_hardest", n_hardest), ("digits", digits)):
        if not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    options = {"n_resamples": n_resamples, "resample": resample, "ci_method": ci_method}
    mla_options = _ci_keywords(ci, seed, progress, options)
    dims = {"item": item, "annotator": annotator, "label": label}

    with dask_progress(progress, _is_dask(da.data)):  # dask input: its computes shown
        result, used_result, design = _computed(da, baselines, dims, mla_options, n_hardest)
    settings = {
        "baseline": baselines[0],
        "sensitivity": baselines[1:],
        **_interval_settings(ci, seed, options),
        "labels_fixed": labels_fixed,
        "all_labels_considered": all_labels_considered,
        "joint_omissions": joint_omissions,
        "n_lowest": int(n_lowest),
        "n_hardest": int(n_hardest),
        "landis_koch": bool(landis_koch),
        "digits": int(digits),
        "title": title,
        "notes": [notes] if isinstance(notes, str) else list(notes),
        "dims": dims,
    }
    return Report(result, used_result, design, settings)


def _computed(da, baselines, dims, mla_options, n_hardest):
    """The report's results on the declared and on the used labels, and its design."""
    item, annotator, label = dims["item"], dims["annotator"], dims["label"]
    result = _mla_api.mla(da, baselines, **dims, **mla_options).compute()
    selected = (da == 1).any([item, annotator]).compute()
    used_labels = da[label].values[selected.values].tolist()
    unused_labels = da[label].values[~selected.values].tolist()
    used_result = None
    if unused_labels and used_labels:
        used_result = _mla_api.mla(da.isel({label: selected.values}), baselines, **dims,
                                   **mla_options).compute()
    design = _design(da, result, item, annotator, label, used_labels, unused_labels, n_hardest)
    design.update(diagnostic_facts(da, baselines[0], item, annotator, label))
    return result, used_result, design


def _ci_keywords(ci, seed, progress, options) -> dict:
    keywords = _interval_keywords(ci, seed=seed, progress=progress, **options)
    if ci is None:
        return keywords
    _check_confidence(ci)
    parameters = inspect.signature(_mla_api.mla).parameters
    if "ci" not in parameters and not any(p.kind is inspect.Parameter.VAR_KEYWORD
                                          for p in parameters.values()):
        raise NotImplementedError(
            "confidence intervals need xr_agreement.mla(..., ci=...), which this "
            "installation does not provide yet; leave ci unset"
        )
    return keywords


def _design(da, result, item, annotator, label, used_labels, unused_labels, n_hardest):
    """Facts about the design that the Dataset does not hold."""
    decided = da.notnull()
    positives = (da == 1).sum(annotator)
    deciders = decided.sum(annotator)
    per_item = decided.any(label).sum(annotator).compute().values
    # agreeing (annotator pair, label) comparisons: joint selections and joint omissions
    joint_selections = int((positives * (positives - 1) // 2).sum().compute())
    omitted = deciders - positives
    joint_omissions = int((omitted * (omitted - 1) // 2).sum().compute())

    names = _label_names(da, label)
    order = result.item_observed.fillna(np.inf).values.argsort(kind="stable")
    defined = np.isfinite(result.item_observed.values)
    hardest = []
    disputed = ((positives > 0) & (positives < deciders)).compute()
    for position in order[:n_hardest]:
        if not defined[position] or result.item_observed.values[position] == 1:
            break  # undefined or perfect agreement: nothing hard left
        row = disputed.isel({item: position})
        hardest.append({
            "item": _plain(da[item].values[position]),
            "disputed_labels": [_plain(v) for v in da[label].values[row.values]],
        })
    n_decisions = int(np.prod([da.sizes[d] for d in (item, annotator, label)]))
    # items an annotation tool's export left with fewer than two annotators' decisions
    single = [_plain(v) for v, n in zip(da[item].values, per_item) if n < 2]
    return {
        "reader": da.attrs.get("reader"),
        "dropped": from_json_attr(da.attrs.get("dropped")) or {},
        "reading_notes": [str(n) for n in from_json_attr(da.attrs.get("notes")) or []],
        "items_with_fewer_than_two_annotators": single,
        "n_items": int(da.sizes[item]),
        "n_annotators": int(da.sizes[annotator]),
        "annotators_per_item": {"min": int(per_item.min()), "median": float(
            np.median(per_item)), "max": int(per_item.max())},
        "n_labels": int(da.sizes[label]),
        "n_labels_used": len(used_labels),
        "used_labels": [_plain(v) for v in used_labels],
        "unused_labels": [_plain(v) for v in unused_labels],
        "label_names": {str(k): v for k, v in names.items()} if names else None,
        "n_decisions": n_decisions,
        "n_missing_decisions": int(result.n_missing_decisions),
        "n_items_unpairable": int(da.sizes[item] - int(result.n_pairable_items)),
        "joint_selection_pairs": joint_selections,
        "joint_omission_pairs": joint_omissions,
        "hardest_items": hardest,
    }


def _label_names(da, label) -> dict | None:
    for name in (f"{label}_name", "label_name"):
        if name in da.coords and da[name].dims == (label,):
            return {_plain(k): str(v) for k, v in zip(da[label].values, da[name].values)}
    return None


class Report(_RenderedReport):
    """A reliability report: the Datasets it was built from and their renderings.

    Build it with :func:`report` (or ``da.agreement.report``), or restore one with
    :meth:`from_json`.

    Attributes
    ----------
    result : xarray.Dataset
        :func:`xr_agreement.mla` on the declared label universe, ``baseline`` dim with the
        primary baseline first.
    used_result : xarray.Dataset or None
        The same on the labels used at least once (the paper's Table 2), None when every
        declared label was used.
    design : dict
        N, annotators, annotators per item, k, used and unused labels, missing decisions,
        joint omissions and selections, hardest items with their disputed labels; under
        "annotators" and "confusions" the facts of sections 7 and 8 (from
        :func:`xr_agreement.annotators` and :func:`xr_agreement.confusions`).
    settings : dict
        The choices the report was made with (baselines, ci, labels_fixed, ...).
    """

    _json_format, _json_formats_read = JSON_FORMAT, JSON_FORMATS_READ
    _kind = "xr-agreement report"

    def __init__(self, result: xr.Dataset, used_result: xr.Dataset | None, design: dict,
                 settings: dict):
        self.result, self.used_result = result, used_result
        self.design, self.settings = design, settings

    # ---- access -----------------------------------------------------------------------
    @property
    def baselines(self) -> list[str]:
        return [self.settings["baseline"], *self.settings["sensitivity"]]

    def lowest_labels(self) -> list:
        """Used labels with the lowest primary-baseline agreement (NaN left out), lowest
        first."""
        label = self.settings["dims"]["label"]
        values = self.result.label_agreement.sel(baseline=self.baselines[0])
        values = values.sel({label: self.design["used_labels"]}) if self.design[
            "used_labels"] else values
        values = values.dropna(label)
        order = values.values.argsort(kind="stable")[: self.settings["n_lowest"]]
        return [_plain(v) for v in values[label].values[order]]

    def label_name(self, value) -> str:
        names = self.design.get("label_names") or {}
        name = names.get(str(value))
        return f"{value} ({name})" if name and name != str(value) else str(value)

    # ---- renderings -------------------------------------------------------------------
    def to_html(self, figures: bool = True) -> str:
        """The report as one self-contained HTML document (inline CSS, figures as base64
        PNG when matplotlib is installed)."""
        return _render_html(self._document(), self._figures_png() if figures else {},
                            standalone=True)

    def _repr_html_(self) -> str:
        return _render_html(self._document(), self._figures_png(), standalone=False)

    def to_dict(self) -> dict:
        """Plain-Python form of the report: settings, design and the Datasets in xarray's
        ``to_dict`` layout (variables keyed by their Dataset names; NaN as None)."""
        return _json_safe({
            "summary": self.summary(),
            "format": JSON_FORMAT,
            "settings": self.settings,
            "design": self.design,
            "lowest_labels": self.lowest_labels(),
            "results": {
                "declared": self.result.to_dict(data="list"),
                "used_labels": None if self.used_result is None
                else self.used_result.to_dict(data="list"),
            },
        })

    def summary(self) -> dict:
        """The headline numbers as one flat dict (the JSON report's first entry):
        ``agreement``, ``minimum``, ``agreement_lower`` and ``agreement_upper`` per baseline
        (None without intervals), ``N``, ``n``, ``k``, ``observed`` (A_o), ``p_r`` (the raw
        prevalence), and how the annotations were read (``reader``, ``dropped``)."""
        ds, d = self.result, self.design
        out = {name: {b: float(ds[name].sel(baseline=b)) if name in ds else None
                      for b in self.baselines}
               for name in ("agreement", "minimum", "agreement_lower", "agreement_upper")}
        return {**out, "N": d["n_items"], "n": d["n_annotators"], "k": d["n_labels"],
                "observed": float(ds.observed), "p_r": float(ds.raw_prevalence),
                "reader": d.get("reader"), "dropped": d.get("dropped") or {}}

    @classmethod
    def from_json(cls, text: str) -> Report:
        """Restore a Report from :meth:`to_json` output; its Datasets equal the originals."""
        data = cls._json_data(text)
        results = data["results"]
        used = results["used_labels"]
        return cls(_dataset_from_dict(results["declared"]),
                   None if used is None else _dataset_from_dict(used),
                   data["design"], data["settings"])

    # ---- figures ----------------------------------------------------------------------
    def plot(self, kind: str = "all", **kwargs):
        """Figures of the report (matplotlib; see :mod:`xr_agreement.plot`).

        Parameters
        ----------
        kind : {"all", "labels", "items", "baselines"}
            "labels": label-wise coefficients sorted, interval bars, sized by weight;
            "items": the item-level distribution with the hardest items named;
            "baselines": F vs AC1 vs PB per label; "all": the three side by side.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from .. import plot as _plot

        return _plot.plot_report(self, kind=kind, **kwargs)

    def _figures_png(self) -> dict[str, str]:
        try:
            from .. import plot as _plot

            figures = {kind: _plot.figure_png(self.plot(kind))
                       for kind in ("labels", "items", "baselines")}
            if self.design.get("annotators"):
                figures["pairs"] = _plot.figure_png(pair_heat_map(self.design["annotators"]))
            return figures
        except ImportError:
            return {}

    # ---- the document -----------------------------------------------------------------
    def _document(self) -> list:
        return _build_document(self)


def _values(ds, name, baseline=None, **where):
    if name not in ds:
        return None
    data = ds[name]
    if baseline is not None and "baseline" in data.dims:
        data = data.sel(baseline=baseline)
    return data.sel(where) if where else data


def _interval(ds, name, fmt, baseline=None, **where) -> str | None:
    lower = _values(ds, f"{name}_lower", baseline, **where)
    upper = _values(ds, f"{name}_upper", baseline, **where)
    if lower is None or upper is None:
        return None
    return f"[{fmt(float(lower))}, {fmt(float(upper))}]"


def _label_floor(ds, baseline, label_dim) -> xr.DataArray:
    """Label-wise floor of the coefficient: (A_o,min,j - A_e,j) / (1 - A_e,j)."""
    expected = ds.label_expected.sel(baseline=baseline)
    gap = 1 - expected
    return (ds.label_observed_minimum - expected) / gap.where(gap != 0)


def _yes_no(value, yes, no, unknown):
    return unknown if value is None else (yes if value else no)


class _Facts:
    """What every section of the document reads: the report, its settings, design and
    result, the formatter, and the corpus coefficients and floors per baseline."""

    def __init__(self, rep: Report):
        self.rep = rep
        self.s, self.d, self.ds = rep.settings, rep.design, rep.result
        self.fmt = _Format(self.s["digits"])
        self.label_dim, self.item_dim = self.s["dims"]["label"], self.s["dims"]["item"]
        self.primary, self.baselines = rep.baselines[0], rep.baselines
        self.has_ci = "agreement_lower" in self.ds
        self.lk = self.s["landis_koch"]
        self.coefficient = {b: float(self.ds.agreement.sel(baseline=b)) for b in self.baselines}
        self.floors = {b: float(self.ds.minimum.sel(baseline=b)) for b in self.baselines}


def _build_document(rep: Report) -> list:
    facts = _Facts(rep)
    return [_headline(facts), _universe_section(facts), _omissions_section(facts),
            _baseline_section(facts), _diagnostics_section(facts), _missing_section(facts),
            _uncertainty_section(facts)] + [
        section for section in (annotators_section(facts, 7), confusions_section(facts, 8))
        if section is not None]


def _section(title, *blocks):
    return (title, [b for b in blocks if b is not None])


def _headline(f: _Facts):
    s, d, ds, fmt, primary = f.s, f.d, f.ds, f.fmt, f.primary
    headline = (f"Primary coefficient A_ml^({primary}) = {fmt(f.coefficient[primary])} "
                f"(feasible floor {fmt(f.floors[primary])})")
    if f.has_ci:
        headline += f", {_ci_label(s)} {_interval(ds, 'agreement', fmt, primary)}"
    if len(f.baselines) > 1:
        headline += "; sensitivity: " + ", ".join(
            f"{b} {fmt(f.coefficient[b])} (floor {fmt(f.floors[b])})" for b in f.baselines[1:])
    headline += (f". N = {d['n_items']} items, n = {d['n_annotators']} annotators, "
                 f"k = {d['n_labels']} labels, A_o = {fmt(float(ds.observed))}.")
    undefined = [b for b in f.baselines if math.isnan(f.coefficient[b])]
    if undefined:
        headline += (f" Undefined (NaN) under {', '.join(undefined)}: no chance disagreement "
                     "to normalise by (1 - A_e = 0, e.g. every label constant under F).")
    return ("__title__", [("p", s["title"] or "Multi-label agreement report"),
                          ("p", headline)]
            + [("p", note) for note in s.get("notes", [])] + _reading(f))


def _reading(f: _Facts) -> list:
    """How an annotation tool's export was read: the reader, what it dropped and why, what
    it noted (``attrs["notes"]``, e.g. doccano's empty member files), and the items left
    with fewer than two annotators."""
    reader, dropped = f.d.get("reader"), f.d.get("dropped") or {}
    if reader is None:
        return []
    text = f"Read with the {reader!r} reader. "
    if dropped:
        text += "Annotations left out, per reason (per annotator): " + "; ".join(
            f"{reason} {sum(per.values())} ("
            + ", ".join(f"{who}: {n}" for who, n in per.items()) + ")"
            for reason, per in dropped.items()) + "."
        text += (" A left-out annotation is no decision (missing), not an empty label set"
                 + ("; a superseded one was replaced by the same annotator's later "
                    "annotation of the item." if "superseded" in dropped else "."))
    else:
        text += "No annotation was left out."
    for note in f.d.get("reading_notes") or []:
        text += " " + note.rstrip(".") + "."
    single = f.d.get("items_with_fewer_than_two_annotators") or []
    if single:
        shown = ", ".join(map(str, single[:10])) + (", ..." if len(single) > 10 else "")
        text += (f" {len(single)} item(s) have fewer than two annotators' decisions and "
                 f"contribute no pair: {shown}.")
    return [("p", text)]


def _universe_section(f: _Facts):
    s, d, rep = f.s, f.d, f.rep
    unused = d["unused_labels"]
    statements = [
        "Label inventory fixed before annotation: " + _yes_no(
            s["labels_fixed"], "yes.", "no (the values depend on which labels are included).",
            "not stated (pass labels_fixed=True/False; command line: --labels-fixed yes|no)."),
        "Every annotator expected to consider every label: " + _yes_no(
            s["all_labels_considered"], "yes.", "no.",
            "not stated (pass all_labels_considered=True/False; command line: "
            "--all-labels-considered yes|no)."),
        (f"Declared universe: k = {d['n_labels']} labels, of which {d['n_labels_used']} were "
         f"selected at least once."),
    ]
    blocks = [("list", statements)]
    if unused:
        blocks.append(("p", f"Never selected ({len(unused)}): "
                       + ", ".join(rep.label_name(v) for v in unused) + "."))
    if rep.used_result is not None:
        blocks += _universe_comparison(f)
    elif not unused:
        blocks.append(("p", "Every declared label was selected at least once."))
    return _section("1. Label universe", *blocks)


def _universe_comparison(f: _Facts) -> list:
    """Table 2 of the paper: the declared universe against the used labels."""
    d, ds, fmt, baselines = f.d, f.ds, f.fmt, f.baselines
    used = f.rep.used_result
    header = ["label universe", "A_o"] + [f"A_ml ({b})" for b in baselines] + ["A_o,min"]
    rows = []
    for caption, source in ((f"all {d['n_labels']} declared labels", ds),
                            (f"{d['n_labels_used']} used labels", used)):
        rows.append([caption, fmt(float(source.observed))]
                    + [fmt(float(source.agreement.sel(baseline=b))) for b in baselines]
                    + [fmt(float(source.observed_minimum))])
    before = {b: float(ds.agreement.sel(baseline=b)) for b in baselines}
    after = {b: float(used.agreement.sel(baseline=b)) for b in baselines}
    changed = [b for b in baselines if not np.isclose(before[b], after[b], atol=1e-12,
                                                      equal_nan=True)]
    kept = [b for b in baselines if b not in changed]
    moves = " and ".join(f"{b} (from {fmt(before[b])} to {fmt(after[b])})" for b in changed)
    note = (f"Removing the {len(d['unused_labels'])} never-selected labels "
            + (f"leaves {', '.join(kept)} unchanged" if kept else "")
            + (" (constant labels have weight 1 - A_e,j = 0 under F)" if "F" in kept else "")
            + (" and " if kept and changed else "")
            + (f"changes {moves}" if changed else "")
            + ". Neither universe is automatically correct: the full inventory fits when "
            "annotators genuinely considered every label; removing labels after the fact "
            "changes the estimand. Never-selected labels should not be removed only "
            "because they lower or raise a preferred summary.")
    return [("table", header, rows, ("Effect of the declared label universe "
             "(cf. the paper's Table 2).")), ("p", note)]


def _omissions_section(f: _Facts):
    s, d = f.s, f.d
    omitted, selected = d["joint_omission_pairs"], d["joint_selection_pairs"]
    agreeing = omitted + selected
    share = omitted / agreeing if agreeing else float("nan")
    blocks = [("p", ("Hamming agreement counts a joint omission (two annotators both leaving "
               "a label unselected) as agreement, like a joint selection. Of the "
               f"{agreeing} agreeing (annotator pair, label) comparisons, {omitted} "
               f"({100 * share:.1f}%) are joint omissions and "
               f"{selected} joint selections; raw prevalence p_r = "
               f"{f.fmt(float(f.ds.raw_prevalence))}."))]
    if s["joint_omissions"]:
        blocks.append(("p", f"Analyst's statement: {s['joint_omissions']}"))
    else:
        blocks.append(("p", ("Meaning of joint omissions in this task: not stated (pass "
                             "joint_omissions='...'; command line: --joint-omissions TEXT). "
                             "Use the Hamming coefficient when a joint absence is "
                             "informative; if overlap among selected labels is the focus, "
                             "report a set distance (Jaccard, MASI) as well.")))
    return _section("2. Meaning of joint omissions", *blocks)


def _baseline_section(f: _Facts):
    ds, fmt, primary, baselines = f.ds, f.fmt, f.primary, f.baselines
    header = ["baseline", "role", "A_e", "A_ml", "floor A_ml,min"]
    if f.has_ci:
        header.append(_ci_label(f.s))
    if f.lk:
        header.append("Landis-Koch (opt-in)")
    rows = []
    for b in baselines:
        row = [b, "primary" if b == primary else "sensitivity",
               fmt(float(ds.expected.sel(baseline=b))), fmt(f.coefficient[b]),
               fmt(f.floors[b])]
        if f.has_ci:
            row.append(_interval(ds, "agreement", fmt, b) or "-")
        if f.lk:
            row.append(landis_koch(f.coefficient[b]))
        rows.append(row)
    blocks = [
        ("p", f"Pre-specified primary model: {primary}, {BASELINES[primary]}."),
        ("list", [f"{b}: {BASELINES[b]}" for b in baselines]),
        ("table", header, rows, ("Corpus coefficients with their feasible floor (the lowest "
         "value reachable with the observed number of positives per label).")),
        ("p", "The baselines are different models of chance, not interchangeable estimates of "
         "one quantity." + ("" if len(baselines) > 1 else
                            " No sensitivity baseline was requested; the paper recommends "
                            "at least one.")),
    ]
    if f.lk:
        blocks.append(("p", ("Landis-Koch bands are shown on request only; universal cut-offs "
                       "ignore the floor and the baseline.")))
    return _section("3. Baseline model", *blocks)


def _diagnostics_section(f: _Facts):
    d, ds, fmt, primary, rep = f.d, f.ds, f.fmt, f.primary, f.rep
    label_header, label_rows = _label_table(rep, fmt)
    blocks = [
        ("table", ["quantity", "value"], _design_rows(f), None),
        ("p", ((f"Label-wise statistics for the {d['n_labels_used']} labels selected at "
                "least once (cf. the paper's Table 3)." if d["used_labels"] else
                "No label was selected anywhere; label-wise statistics of every declared "
                "label.")
         + " w_j is the label's weight in the corpus "
         f"coefficient under {primary} (paper eq. 6); NaN marks an undefined value (0/0).")),
        ("table", label_header, label_rows, None),
    ]
    lowest = rep.lowest_labels()
    if lowest:
        values = ds.label_agreement.sel(baseline=primary)
        blocks.append(("p", f"Labels with the lowest agreement under {primary}: " + "; ".join(
            f"{rep.label_name(v)}: {fmt(float(values.sel({f.label_dim: v})))}" for v in lowest)
            + "."))
    blocks += _hardest_items(f)
    blocks.append(("figures",))
    return _section("4. Diagnostics", *blocks)


def _design_rows(f: _Facts) -> list:
    d, ds, fmt = f.d, f.ds, f.fmt
    per_item = d["annotators_per_item"]
    if per_item["min"] == per_item["max"]:
        per_item_text = f"{per_item['min']} (every item)"
    else:
        per_item_text = (f"{per_item['min']}-{per_item['max']} (median "
                         f"{per_item['median']:g})")
    rows = [
        ["N (items)", str(d["n_items"])],
        ["n (annotators)", str(d["n_annotators"])],
        ["annotators per item", per_item_text],
        ["k (labels)", str(d["n_labels"])],
        ["A_o (observed agreement)", fmt(float(ds.observed))],
        ["p_r (raw prevalence)", fmt(float(ds.raw_prevalence))],
        ["A_o,min (floor of A_o given the prevalences)", fmt(float(ds.observed_minimum))],
        ["alpha_H (Krippendorff, Hamming distance)", fmt(float(ds.alpha_hamming))],
    ]
    if f.has_ci:
        for name, caption in (("observed", "A_o"), ("alpha_hamming", "alpha_H")):
            interval = _interval(ds, name, fmt)
            if interval:
                rows.append([f"{caption} {_ci_label(f.s)}", interval])
    return rows


def _hardest_items(f: _Facts) -> list:
    hardest = f.d["hardest_items"]
    if not hardest:
        return []
    fmt, item_dim, primary = f.fmt, f.item_dim, f.primary
    observed = f.ds.item_observed
    item_coefficient = f.ds.item_agreement.sel(baseline=primary)
    rows = []
    for entry in hardest:
        where = {item_dim: entry["item"]}
        rows.append([str(entry["item"]), fmt(float(observed.sel(where))),
                     fmt(float(item_coefficient.sel(where))),
                     ", ".join(map(str, entry["disputed_labels"])) or "-"])
    return [
        ("p", ("Hardest items (lowest item agreement). Item values identify difficult "
         "examples; reliability conclusions need an adequate number of items "
         f"(here N = {f.d['n_items']}).")),
        ("table", [item_dim, "A_o,i", f"A_ml,i ({primary})", "labels in dispute"], rows,
         None),
    ]


def _missing_section(f: _Facts):
    d = f.d
    if d["n_missing_decisions"] == 0:
        text = ("Complete design: every annotator made every decision on every item; no "
                "missing data.")
    else:
        text = (f"{d['n_missing_decisions']} of {d['n_decisions']} decisions "
                f"({100 * d['n_missing_decisions'] / d['n_decisions']:.1f}%) were not made "
                "(a missing annotation is not an omission). Handling: "
                f"{f.ds.attrs.get('missing_data', 'pairable values only')}. "
                f"Items without any pair of decisions: {d['n_items_unpairable']}.")
    return _section("5. Missing data", ("p", text))


def _uncertainty_section(f: _Facts):
    s = f.s
    if f.has_ci:
        described = {k: v for k, v in f.ds.attrs.items() if k not in _CORE_ATTRS}
        given = [f"{name}={s[name]!r}" for name in ("n_resamples", "resample", "ci_method")
                 if s.get(name) is not None]
        text = (f"Intervals: {_ci_label(s)} from mla(..., ci={s['ci']}"
                + (f", seed={s['seed']}" if s["seed"] is not None else "")
                + "".join(f", {option}" for option in given) + ")"
                + ("; " + "; ".join(f"{k} = {v}" for k, v in described.items())
                   if described else "") + ".")
    else:
        text = ("No confidence intervals were computed (pass ci=0.95, command line --ci 0.95). "
                "Substantive studies should report intervals from a bootstrap that respects "
                "the item and annotator structure.")
    return _section("6. Uncertainty", ("p", text))


_CORE_ATTRS = {"n_items", "n_annotators", "n_labels", "baseline", "baseline_definition",
               "missing_data", "reference"}


def _label_table(rep: Report, fmt) -> tuple[list, list]:
    ds, s, d = rep.result, rep.settings, rep.design
    label_dim, primary = s["dims"]["label"], rep.baselines[0]
    labels = d["used_labels"] or ds[label_dim].values.tolist()
    missing = d["n_missing_decisions"] > 0
    has_ci = "label_agreement_lower" in ds
    header = [label_dim, "p_j", "A_o,j"] + [f"A_j ({b})" for b in rep.baselines]
    if has_ci:
        header.append(f"{primary} {_ci_label(s)}")
    header += [f"w_j ({primary})", "A_o,min,j", f"floor ({primary})", "p_pos", "p_neg"]
    if missing:
        header.append("n_j")
    if s["landis_koch"]:
        header.append("Landis-Koch (opt-in)")
    # one selection per variable, then plain numpy: k can be in the thousands
    where = {label_dim: labels}
    column = {
        "p": ds.label_prevalence.sel(where).values,
        "observed": ds.label_observed.sel(where).values,
        "weight": ds.label_weight.sel(baseline=primary, **where).values,
        "observed_minimum": ds.label_observed_minimum.sel(where).values,
        "floor": _label_floor(ds, primary, label_dim).sel(where).values,
        "positive": ds.label_positive_agreement.sel(where).values,
        "negative": ds.label_negative_agreement.sel(where).values,
        "n_j": ds.label_n_pairable_values.sel(where).values,
    }
    coefficient = {b: ds.label_agreement.sel(baseline=b, **where).values for b in rep.baselines}
    if has_ci:
        lower = ds.label_agreement_lower.sel(baseline=primary, **where).values
        upper = ds.label_agreement_upper.sel(baseline=primary, **where).values
    rows = []
    for position, value in enumerate(labels):
        row = [rep.label_name(value), fmt(column["p"][position]),
               fmt(column["observed"][position])]
        row += [fmt(coefficient[b][position]) for b in rep.baselines]
        if has_ci:
            row.append(f"[{fmt(lower[position])}, {fmt(upper[position])}]")
        row += [fmt(column[name][position])
                for name in ("weight", "observed_minimum", "floor", "positive", "negative")]
        if missing:
            row.append(fmt(_plain(column["n_j"][position])))
        if s["landis_koch"]:
            row.append(landis_koch(coefficient[primary][position]))
        rows.append(row)
    return header, rows
