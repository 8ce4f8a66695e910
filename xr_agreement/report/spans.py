"""The span report: agreement on span annotations (named entities, segments, highlights) in
one call, rendered as text, markdown, HTML and JSON like the other reports.

:func:`span_report` runs the span family on a span table (:func:`xr_agreement.from_spans`
or ``read_spans``): position-level MLA (:func:`xr_agreement.span_mla`), span F1 with exact
and overlap matching (:func:`xr_agreement.span_f1`), Krippendorff's unitizing alpha
(:func:`xr_agreement.unitizing_alpha`), gamma (:func:`xr_agreement.gamma`) and the most
disputed regions
(:func:`xr_agreement.span_disagreements`), and states the units they were computed on and
how documents an annotator did not annotate were treated (missing, never "marked nothing").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import xarray as xr

from .._core.attrs import from_json_attr
from .baselines import _baseline_list, DEFAULT_SENSITIVITY
from .render import (_ci_label, _dataset_from_dict, _Format, _interval_keywords,
                     _interval_settings, _json_safe, _plain, _render_html, _RenderedReport)

SPAN_JSON_FORMAT = "xr-agreement-span-report/1"

# regions shown in the section of disagreements (the JSON keeps the same rows)
TOP_REGIONS = 10
# documents named in lists (not annotated by an annotator, lowest agreement)
SHOWN_DOCUMENTS = 10
# characters of a region's text shown in the table (the JSON keeps the whole text)
TEXT_WIDTH = 60
MATCHES = ("exact", "overlap")
GAMMA_SEED = 0

SPAN_AGREEMENT = ("These numbers are span agreement: agreement on which positions carry "
                  "which label and on the spans as units, not agreement on classifying "
                  "documents.")
UNANNOTATED = ("A document an annotator did not annotate is missing for that annotator (no "
               "decision, NaN), never read as 'marked nothing' (a document an annotator "
               "annotated without marking a span is a decision: 0 at every position). "
               "Positions: compared among the annotators who annotated the document; span "
               "F1: a pair counts only the documents both annotators annotated; unitizing "
               "alpha: {unitizing}; gamma: {gamma}; disagreements: such an annotator takes no part (shown "
               "as 'not annotated').")


def span_report(
    table: xr.Dataset,
    baseline: str = "F",
    *,
    unit=None,
    ci: float | None = None,
    ci_method: str | None = None,
    n_resamples: int | None = None,
    seed=None,
    digits: int = 3,
    title: str | None = None,
    notes: Sequence[str] = (),
) -> SpanReport:
    """The agreement report of a span table: units, position-level MLA, span F1, unitizing
    alpha, gamma and the most disputed regions.

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``). What a reader
        noted (attrs ``reader`` or ``tool``, ``dropped``, ``notes``) is stated in the report.
    baseline : str, default "F"
        The primary chance model of the position-level MLA: "F", "AC1" or "PB" (aliases as
        in :func:`xr_agreement.mla`); the other two are shown as a sensitivity analysis.
    unit : number, optional
        The offset of one position (see :func:`xr_agreement.span_positions`): required for
        real offsets (seconds), e.g. ``unit=0.01``.
    ci : float, optional
        Confidence level of bootstrap intervals of the position-level MLA, which resample
        documents (``span_mla(..., ci=ci, seed=seed)``).
    ci_method : {"percentile", "bca"}, optional
        The interval method (default: span_mla's, percentile); only with ``ci``.
    n_resamples : int, optional
        Bootstrap resamples (default: span_mla's, 1000); only with ``ci``.
    seed : int or numpy.random.Generator, optional
        Seed of the document bootstrap (used with ``ci``) and of gamma's sampled continua
        (its expected disorder; default 0, so that the report is the same every time).
    digits : int, default 3
        Decimals in the text, markdown and HTML renderings (JSON keeps full precision).
    title : str, optional
    notes : sequence of str
        Further statements printed under the headline.

    Returns
    -------
    SpanReport
        ``.mla`` (the :func:`xr_agreement.span_mla` Dataset, a ``baseline`` dim with the
        primary first), ``.f1`` (``{"exact": ..., "overlap": ...}``, the
        :func:`xr_agreement.span_f1` Datasets), ``.unitizing`` (the
        :func:`xr_agreement.unitizing_alpha` Dataset), ``.gamma`` (the
        :func:`xr_agreement.gamma` Dataset), ``.disagreements`` (the first
        regions of :func:`xr_agreement.span_disagreements`), ``.units`` (facts of the
        table) and ``.settings``; renders with ``str()``, ``.to_markdown()``,
        ``.to_html()``, ``.to_json()``.

    Raises
    ------
    ValueError
        Not a span table (TypeError), fewer than two annotators, an unknown baseline, a
        negative ``digits``, real offsets without ``unit``, or any input error of the span
        measures.

    Examples
    --------
    >>> import xr_agreement
    >>> table = xr_agreement.from_spans(
    ...     [("d1", "ann", 0, 5, "PER"), ("d1", "bob", 0, 5, "PER"), ("d1", "bob", 6, 9, "LOC"),
    ...      ("d2", "ann", 2, 8, "LOC"), ("d2", "bob", 2, 7, "LOC")],
    ...     lengths={"d1": 10, "d2": 8, "d3": 6},
    ...     annotated=[("d1", "ann"), ("d1", "bob"), ("d2", "ann"), ("d2", "bob"),
    ...                ("d3", "ann")])
    >>> rep = table.agreement.report()
    >>> print(rep.to_markdown().splitlines()[2].split(":")[0])
    These numbers are span agreement
    >>> rep.units["not_annotated"]
    {'bob': ['d3']}
    >>> float(rep.f1["exact"].f1)
    0.5
    """
    from ..spans import (gamma, span_arrays, span_disagreements, span_f1, span_mla,
                         unitizing_alpha)

    arrays = span_arrays(table)  # refuses what is not a span table
    if not isinstance(digits, (int, np.integer)) or isinstance(digits, bool) or digits < 0:
        raise ValueError(f"digits must be a non-negative integer, got {digits!r}")
    baselines = _baseline_list(baseline, DEFAULT_SENSITIVITY)
    mla = span_mla(table, baselines, unit=unit, **_interval_keywords(
        ci, seed=seed, ci_method=ci_method, n_resamples=n_resamples))
    f1 = {match: span_f1(table, match) for match in MATCHES}
    try:
        unitizing, unitizing_reason = unitizing_alpha(table), ""
    except ValueError as error:
        # the 2004 coefficient is undefined on this table (an annotator's overlapping units
        # of one label, real offsets): said in its section, the other views still stand
        unitizing, unitizing_reason = None, " ".join(str(error).split())
    # gamma's sampled continua: the report's seed, or 0 so that a report reads the same
    # every time it is made (a Generator: a stream of its own, after the bootstrap's)
    if isinstance(seed, np.random.Generator):
        gamma_seed = np.random.default_rng(seed.integers(2**63))
    else:
        gamma_seed = GAMMA_SEED if seed is None else seed
    try:
        alignment, gamma_reason = gamma(table, seed=gamma_seed), ""
    except ValueError as error:
        # gamma refuses a table it cannot align in bounded time and memory (a crowded
        # region): said in its section, the other views still stand
        alignment, gamma_reason = None, " ".join(str(error).split())
    disagreements = span_disagreements(table, top=TOP_REGIONS)
    settings = {
        "baseline": baselines[0],
        "sensitivity": baselines[1:],
        "unit": _plain(mla.attrs.get("unit", unit)),
        **_interval_settings(ci, seed, {}),
        "digits": int(digits),
        "title": title,
        "notes": [notes] if isinstance(notes, str) else [str(n) for n in notes],
        "unitizing_not_computed": unitizing_reason,
        "gamma_not_computed": gamma_reason,
    }
    return SpanReport(mla, f1, unitizing, pd.DataFrame(disagreements).reset_index(drop=True),
                      _units(table, arrays), settings, alignment)


def _units(table: xr.Dataset, arrays) -> dict:
    """Facts of the span table that the measures' Datasets do not hold (JSON-safe)."""
    documents = [_plain(v) for v in arrays.document_ids]
    annotators = [_plain(v) for v in arrays.annotator_ids]
    labels = [_plain(v) for v in arrays.label_ids]
    n_annotators, n_labels = len(annotators), len(labels)
    per_label = np.zeros((n_labels, n_annotators), np.int64)
    np.add.at(per_label, (arrays.label, arrays.annotator), 1)
    annotated = arrays.annotated
    # keyed by the annotator id as text, as JSON keys are (the same after from_json)
    not_annotated = {str(annotators[a]): [documents[d] for d in np.flatnonzero(
        ~annotated[:, a])] for a in range(n_annotators) if not annotated[:, a].all()}
    deciders = annotated.sum(axis=1)
    has_span = np.zeros(len(documents), bool)
    has_span[arrays.document] = True
    attrs = table.attrs
    reader = attrs.get("reader", attrs.get("tool"))
    # the readers' lists and dicts are JSON text (_core.attrs); some notes are one sentence
    reading_notes = from_json_attr(attrs.get("notes")) or []
    if isinstance(reading_notes, str):
        reading_notes = [reading_notes]
    dropped = from_json_attr(attrs.get("dropped"))
    return {
        "reader": None if reader is None else str(reader),
        # None: the reader keeps no count of what it dropped (its notes say it)
        "dropped": None if dropped is None else {
            str(reason): {str(k): int(v) for k, v in per.items()}
            for reason, per in dropped.items()},
        "reading_notes": [str(n) for n in reading_notes],
        "n_documents": len(documents),
        "n_annotators": n_annotators,
        "n_labels": n_labels,
        "n_spans": int(len(arrays.start)),
        "offsets": str(attrs.get("offsets", "real" if arrays.end.dtype.kind == "f"
                                 else "integer")),
        # a reader's "character" or "token"
        "offsets_unit": None if attrs.get("offsets_unit") is None else str(
            attrs["offsets_unit"]),
        "total_length": _plain(arrays.lengths.sum()),
        "annotators": annotators,
        "labels": labels,
        "spans_per_label": {"label": labels, "annotator": annotators,
                            "counts": per_label.tolist()},
        "documents_annotated": annotated.sum(axis=0).tolist(),  # in annotators' order
        "not_annotated": not_annotated,
        "documents_with_fewer_than_two_annotators": [
            documents[d] for d in np.flatnonzero(deciders < 2)],
        "documents_without_spans": [documents[d] for d in np.flatnonzero(
            ~has_span & (deciders > 0))],
        "n_overlapping_same_label": _overlapping_same_label(arrays),
    }


def _overlapping_same_label(arrays) -> int:
    """Spans that overlap or touch an earlier span of the same annotator and label in the
    document (positions count such a stretch once; the unit measures see each span)."""
    if not len(arrays.start):
        return 0
    frame = pd.DataFrame({"d": arrays.document, "a": arrays.annotator, "l": arrays.label,
                          "s": arrays.start, "e": arrays.end})
    frame = frame.sort_values(["d", "a", "l", "s", "e"], kind="stable")
    groups = frame.groupby(["d", "a", "l"], sort=False)
    reach = groups["e"].cummax()
    earlier = reach.groupby([frame["d"], frame["a"], frame["l"]], sort=False).shift()
    return int((frame["s"] <= earlier).sum())


class SpanReport(_RenderedReport):
    """The span report: the span measures' results and their renderings. Build it with
    :func:`span_report` (or ``table.agreement.report()``), restore one with
    :meth:`from_json`.

    Attributes
    ----------
    mla : xarray.Dataset
        :func:`xr_agreement.span_mla` under the primary and sensitivity baselines.
    f1 : dict
        ``{"exact": Dataset, "overlap": Dataset}`` of :func:`xr_agreement.span_f1`.
    unitizing : xarray.Dataset or None
        :func:`xr_agreement.unitizing_alpha` (Krippendorff 2004, per label); None where it
        is undefined on the table (``settings["unitizing_not_computed"]`` says why).
    gamma : xarray.Dataset or None
        :func:`xr_agreement.gamma` with its default parameters; None where gamma refused the
        table (``settings["gamma_not_computed"]`` says why) and in a report saved before
        gamma was part of it.
    disagreements : pandas.DataFrame
        The most disputed regions of :func:`xr_agreement.span_disagreements`.
    units : dict
        Facts of the span table (sizes, spans per label and annotator, documents not
        annotated, what a reader dropped or noted).
    settings : dict
        The choices the report was made with.
    """

    _json_format = SPAN_JSON_FORMAT
    _kind = "xr-agreement span report"

    def __init__(self, mla: xr.Dataset, f1: dict, unitizing: xr.Dataset,
                 disagreements: pd.DataFrame, units: dict, settings: dict,
                 gamma: xr.Dataset | None = None):
        self.mla, self.f1, self.unitizing, self.gamma = mla, f1, unitizing, gamma
        self.disagreements, self.units, self.settings = disagreements, units, settings

    def to_html(self) -> str:
        """The report as one self-contained HTML document (inline CSS)."""
        return _render_html(self._document(), {}, standalone=True,
                            document_title=self.settings["title"] or "Span agreement report")

    def _repr_html_(self) -> str:
        return _render_html(self._document(), {}, standalone=False)

    def to_dict(self) -> dict:
        """Plain-Python form: the summary, settings, units, each result Dataset in xarray's
        ``to_dict`` layout and the disputed regions as columns and rows (NaN as None)."""
        return _json_safe({
            "summary": self.summary(),
            "format": SPAN_JSON_FORMAT,
            "settings": self.settings,
            "units": self.units,
            "mla": self.mla.to_dict(data="list"),
            "f1": {match: ds.to_dict(data="list") for match, ds in self.f1.items()},
            "unitizing": None if self.unitizing is None else self.unitizing.to_dict(
                data="list"),
            "gamma": None if self.gamma is None else self.gamma.to_dict(data="list"),
            "disagreements": {"columns": [str(c) for c in self.disagreements.columns],
                              "rows": self.disagreements.to_numpy(dtype=object).tolist()},
        })

    def summary(self) -> dict:
        """The headline values: MLA per baseline, A_o, span F1 (micro, macro) per match,
        unitizing alpha, gamma and the sizes."""
        mla = self.mla
        return {
            "agreement": {str(b): float(mla.agreement.sel(baseline=b))
                          for b in mla.baseline.values},
            "observed": float(mla.observed),
            "f1": {match: float(ds.f1) for match, ds in self.f1.items()},
            "macro_f1": {match: float(ds.macro_f1) for match, ds in self.f1.items()},
            "unitizing_alpha": None if self.unitizing is None else float(self.unitizing.alpha),
            "gamma": None if self.gamma is None else float(self.gamma.gamma),
            **{name: self.units[name] for name in ("n_documents", "n_annotators", "n_labels",
                                                    "n_spans")},
            "n_positions": int(mla.attrs["n_positions"]),
        }

    @classmethod
    def from_json(cls, text: str) -> SpanReport:
        """Restore a SpanReport from :meth:`to_json` output."""
        data = cls._json_data(text)
        regions = data["disagreements"]
        return cls(_dataset_from_dict(data["mla"]),
                   {match: _dataset_from_dict(ds) for match, ds in data["f1"].items()},
                   None if data["unitizing"] is None else _dataset_from_dict(data["unitizing"]),
                   pd.DataFrame(regions["rows"], columns=regions["columns"]),
                   data["units"], data["settings"],
                   None if data.get("gamma") is None else _dataset_from_dict(data["gamma"]))

    def _document(self) -> list:
        facts = _Facts(self)
        return [_headline(facts), _units_section(facts), _positions_section(facts),
                _f1_section(facts), _unitizing_section(facts), _gamma_section(facts),
                _disagreements_section(facts), _uncertainty_section(facts)]


class _Facts:
    """What every section reads: the report, the formatter, the primary baseline."""

    def __init__(self, rep: SpanReport):
        self.rep, self.s, self.u = rep, rep.settings, rep.units
        self.fmt = _Format(rep.settings["digits"])
        self.primary = rep.settings["baseline"]
        self.mla = rep.mla
        self.main = rep.mla.sel(baseline=self.primary)
        self.has_ci = "agreement_lower" in rep.mla
        self.labels = [_plain(v) for v in rep.mla.label.values]

    def value(self, ds, name, **where) -> float:
        data = ds[name]
        return float(data.sel(where)) if where else float(data)

    def with_interval(self, ds, name, **where) -> str:
        text = self.fmt(self.value(ds, name, **where))
        if f"{name}_lower" in ds:
            text += (f" [{self.fmt(self.value(ds, name + '_lower', **where))}, "
                     f"{self.fmt(self.value(ds, name + '_upper', **where))}]")
        return text


def _why(ds, name="undefined_reason", **where) -> str:
    """The reason beside a value that can be NaN ("" where defined or not given)."""
    if ds is None or name not in ds:
        return ""
    value = ds[name].sel(where) if where else ds[name]
    return str(value.values)


def _with_why(fmt, value, reason) -> str:
    return fmt(value) + (f" ({reason})" if reason else "")


def _count(n, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def _names(values, shown=SHOWN_DOCUMENTS) -> str:
    values = list(values)
    return ", ".join(map(str, values[:shown])) + (", ..." if len(values) > shown else "")


def _headline(f: _Facts):
    fmt, u, rep = f.fmt, f.u, f.rep
    headline = (
        f"{SPAN_AGREEMENT} Position-level A_ml^({f.primary}) = "
        f"{f.with_interval(f.main, 'agreement')}"
        + (f" ({_ci_label(f.s)}, documents resampled)" if f.has_ci else "")
        + f", A_o = {fmt(float(f.mla.observed))}; span F1 exact = "
        f"{_with_why(fmt, float(rep.f1['exact'].f1), _why(rep.f1['exact']))}, overlap = "
        f"{_with_why(fmt, float(rep.f1['overlap'].f1), _why(rep.f1['overlap']))} "
        f"(micro); unitizing alpha = "
        + ("not computed" if rep.unitizing is None else
           _with_why(fmt, float(rep.unitizing.alpha), _why(rep.unitizing)))
        + ("; gamma = not computed" if rep.gamma is None and f.s.get("gamma_not_computed")
           else "" if rep.gamma is None else
           "; gamma = " + _with_why(fmt, float(rep.gamma.gamma), _why(rep.gamma))) + ". "
        f"{_count(u['n_documents'], 'document')} "
        f"({_count(f.mla.attrs['n_positions'], 'position')}), "
        f"{_count(u['n_annotators'], 'annotator')}, {_count(u['n_labels'], 'label')}, "
        f"{_count(u['n_spans'], 'span')}.")
    reason = str(f.main.undefined_reason.values) if "undefined_reason" in f.main else ""
    if reason:
        headline += f" A_ml^({f.primary}) is undefined: {reason}."
    return ("__title__", [("p", f.s["title"] or "Span agreement report"), ("p", headline)]
            + [("p", note) for note in f.s.get("notes", [])] + _reading(f))


def _reading(f: _Facts) -> list:
    u = f.u
    if u["reader"] is None:
        return []
    text = f"Read with the {u['reader']!r} span reader. "
    if u["dropped"]:
        text += "Left out, per reason (per annotator): " + "; ".join(
            f"{reason} {sum(per.values())} ("
            + ", ".join(f"{who}: {n}" for who, n in per.items()) + ")"
            for reason, per in u["dropped"].items()) + "."
    elif u["dropped"] is not None:  # a reader without the count says it in its notes
        text += "Nothing was left out."
    for note in u["reading_notes"]:
        text = text.rstrip() + " " + note.rstrip(".") + "."
    return [("p", text)]


def _units_section(f: _Facts):
    u, fmt, mla = f.u, f.fmt, f.mla
    unit = mla.attrs.get("unit", f.s.get("unit"))
    statements = [
        f"Documents: {u['n_documents']}, of total length {fmt(u['total_length'])} "
        f"({u['offsets']} offsets), that is {mla.attrs['n_positions']} positions of "
        + (f"one {u['offsets_unit']} each." if u.get("offsets_unit") and unit in (None, 1)
           else f"{fmt(unit if unit is not None else 1)} offset each."),
        f"Annotators: {u['n_annotators']} ({_names(u['annotators'])}).",
        f"Labels: {u['n_labels']} ({_names(u['labels'], 30)}); at every position each "
        "annotator decides 0/1 per label, so nested and overlapping spans of different "
        "labels are several labels at one position.",
        f"Spans: {u['n_spans']}.",
    ]
    if u["n_overlapping_same_label"]:
        statements.append(
            f"{u['n_overlapping_same_label']} span(s) overlap or touch an earlier span of "
            "the same annotator and label: at the positions such a stretch counts once; "
            "span F1 and unitizing alpha see every span.")
    unitizing = f.rep.unitizing
    missing = [UNANNOTATED.format(
        unitizing="not computed" if unitizing is None else
        unitizing.attrs.get("missing_data", "see its section").rstrip("."),
        gamma="not computed" if f.rep.gamma is None else
        f.rep.gamma.attrs.get("missing_data", "see its section").rstrip("."))]
    if u["not_annotated"]:
        missing.append("Not annotated: " + "; ".join(
            f"annotator {who} did not annotate {len(docs)} of {u['n_documents']} documents "
            f"({_names(docs)})" for who, docs in u["not_annotated"].items()) + ".")
    else:
        missing.append("Every annotator annotated every document.")
    fewer = u["documents_with_fewer_than_two_annotators"]
    if fewer:
        missing.append(f"Annotated by fewer than two annotators (no comparison): "
                       f"{len(fewer)} ({_names(fewer)}).")
    empty = u["documents_without_spans"]
    if empty:
        missing.append(f"Annotated but without any span (every position 0): {len(empty)} "
                       f"({_names(empty)}).")
    counts = u["spans_per_label"]
    rows = [[str(label)] + [str(n) for n in row] + [str(sum(row))]
            for label, row in zip(counts["label"], counts["counts"])]
    totals = np.array(counts["counts"], np.int64).reshape(len(counts["label"]), -1)
    rows.append(["all labels"] + [str(int(n)) for n in totals.sum(axis=0)]
                + [str(int(totals.sum()))])
    rows.append(["documents annotated"] + [str(n) for n in u["documents_annotated"]] + [""])
    return ("1. Units", [
        ("list", statements),
        ("p", " ".join(missing)),
        ("table", ["label"] + [str(a) for a in counts["annotator"]] + ["all annotators"],
         rows, "Spans per label and annotator."),
    ])


def _positions_section(f: _Facts):
    mla, main, fmt = f.mla, f.main, f.fmt
    baselines = [f.primary] + list(f.s["sensitivity"])
    rows = [[b + (" (primary)" if b == f.primary else ""),
             fmt(f.value(mla, "expected", baseline=b)),
             f.with_interval(mla.sel(baseline=b), "agreement"),
             fmt(f.value(mla, "minimum", baseline=b))] for b in baselines]
    # eq. 6 with missing decisions: A_ml = sum_j share_j A_j, share_j ∝ n_j w_j
    effective = (main.label_n_pairable_values * main.label_weight).values.astype(float)
    share = effective / effective.sum() if effective.sum() > 0 else effective * np.nan
    header = ["label", "p_j", "A_o,j", "A_e,j", f"A_j ({f.primary})", "w_j", "share"]
    label_rows = []
    for position, label in enumerate(f.labels):
        where = {"label": label}
        label_rows.append([
            str(label), fmt(f.value(main, "label_prevalence", **where)),
            fmt(f.value(main, "label_observed", **where)),
            fmt(f.value(main, "label_expected", **where)),
            f.with_interval(main, "label_agreement", **where),
            fmt(f.value(main, "label_weight", **where)), fmt(float(share[position]))])
    blocks = [
        ("p", f"{mla.attrs['level_note']}. Observed agreement A_o = "
         f"{fmt(float(mla.observed))} over {int(mla.n_pairable_items)} pairable positions; "
         f"alpha_H (Hamming) = {fmt(float(mla.alpha_hamming))}. Where most positions lie "
         "outside every span (the prevalence paradox of token-level kappa), the label-wise "
         "chance correction and the weights below (paper eq. 6) keep those easy agreements "
         "from dominating."),
        ("table", ["baseline", "A_e", "A_ml", "floor"], rows,
         "Primary baseline and sensitivity; floor: the lowest A_ml the label totals allow."),
        ("table", header, label_rows,
         "Per label under the primary baseline: A_ml = sum_j share_j A_j (eq. 6), "
         "w_j = 1 - A_e,j and share_j = n_j w_j / sum_l n_l w_l (n_j: pairable decisions)."),
    ]
    observed = mla.document_observed
    order = np.argsort(observed.fillna(np.inf).values, kind="stable")
    lowest = [(observed.document.values[i], float(observed.values[i]))
              for i in order[:5] if np.isfinite(observed.values[i])
              and observed.values[i] < 1]
    if lowest:
        blocks.append(("p", "Documents with the lowest observed agreement A_o,d: "
                       + ", ".join(f"{_plain(d)} ({fmt(v)})" for d, v in lowest) + "."))
    return ("2. Positions: multi-label agreement", blocks)


def _pair_rows(f: _Facts) -> list:
    exact = f.rep.f1["exact"]
    rows = []
    annotators = [_plain(v) for v in exact.annotator_1.values]
    for i, first in enumerate(annotators):
        for second in annotators[i + 1:]:
            where = {"annotator_1": first, "annotator_2": second}
            rows.append([str(first), str(second),
                         str(int(exact.pair_n_documents.sel(where)))]
                        + [f.fmt(float(f.rep.f1[m].pair_f1.sel(where))) for m in MATCHES])
    return rows


def _f1_section(f: _Facts):
    rep, fmt = f.rep, f.fmt
    overall = [[caption] + [fmt(float(rep.f1[m][name])) for m in MATCHES]
               for name, caption in (("f1", "micro F1"), ("macro_f1", "macro F1"))]
    reasons = [_why(rep.f1["exact"], "label_undefined_reason", label=label)
               for label in f.labels]  # the same for both matches: no span of the label
    label_rows = [[str(label)] + [fmt(float(rep.f1[m].label_f1.sel(label=label)))
                                  for m in MATCHES] + ([reason] if any(reasons) else [])
                  for label, reason in zip(f.labels, reasons)]
    rules = {m: rep.f1[m].attrs.get("matching", default) for m, default in (
        ("exact", "same document, start, end and label"),
        ("overlap", "same label and overlapping, matched one to one"))}
    return ("3. Spans as units: F1 between annotators", [
        ("p", "Pairwise F1 over spans, 2 x matched / spans (Hripcsak & Rothschild 2005), "
         "counted for each annotator pair only on the documents both annotated. "
         + " ".join(f"{m}: {rule.rstrip('.')}." for m, rule in rules.items())
         + " Micro pools the counts of every pair and label; macro averages the labels."),
        ("table", ["", *MATCHES], overall, None),
        ("table", ["label", *MATCHES] + (["undefined"] if any(reasons) else []),
         label_rows, "Per label (pairs pooled)."),
        ("table", ["annotator_1", "annotator_2", "documents", *MATCHES], _pair_rows(f),
         "Per annotator pair (labels pooled), on the documents both annotated."),
    ])


def _unitizing_section(f: _Facts):
    ds, fmt = f.rep.unitizing, f.fmt
    title = "4. Spans as units: Krippendorff's unitizing alpha"
    if ds is None:
        return (title, [("p", "Not computed: " + f.s["unitizing_not_computed"].rstrip(".")
                         + ". Krippendorff's 2004 coefficient needs each annotator's units "
                         "of one label to be disjoint, on integer offsets; the other views "
                         "above do not.")])
    reasons = [_why(ds, "label_undefined_reason", label=label) for label in f.labels]
    rows = []
    for label, reason in zip(f.labels, reasons):
        where = {"label": label}
        rows.append([str(label), fmt(f.value(ds, "label_alpha", **where)),
                     fmt(f.value(ds, "label_observed_disagreement", **where)),
                     fmt(f.value(ds, "label_expected_disagreement", **where))]
                    + ([reason] if any(reasons) else []))
    method = ds.attrs.get("method", "krippendorff2004")
    return (title, [
        ("p", f"Krippendorff's alpha for unitizing ({method}: the per-label coefficient of "
         "Krippendorff 1995/2004 that DKPro Statistics and INCEpTION compute): it compares "
         "where each annotator put the boundaries of each label's units and gaps. alpha = "
         f"{_with_why(fmt, float(ds.alpha), _why(ds))}, from the sums of the labels' "
         "disagreements."
         + (f" Missing data: {ds.attrs['missing_data'].rstrip('.')}" if "missing_data" in
            ds.attrs else "")
         + (f". Here {int(ds.n_documents_left_out)} document(s) left out, "
            f"{int(ds.n_documents)} in the continuum." if "n_documents_left_out" in ds
            else ".")),
        ("table", ["label", "alpha", "D_o", "D_e"] + (["undefined"] if any(reasons) else []),
         rows, None),
    ])


GAMMA_QUESTION = (
    "Gamma (Mathet, Widlöcher & Métivier 2015) aligns every annotator's units at once, "
    "positions and labels together, and answers: how much less disorder is there in the "
    "best alignment of the annotators' units than in units placed at random with the same "
    "statistics? 1 is the same units everywhere, 0 what chance gives, below 0 worse.")


def _gamma_section(f: _Facts):
    ds, fmt = f.rep.gamma, f.fmt
    title = "5. Spans as units: gamma"
    if ds is None:
        reason = f.s.get("gamma_not_computed") or "a report saved before gamma was part of it"
        return (title, [("p", f"Not computed: {reason.rstrip('.')}.")])
    attrs = ds.attrs
    rows = [
        ["gamma", _with_why(fmt, float(ds.gamma), _why(ds))],
        ["observed disorder (best alignment)", fmt(float(ds.observed_disorder))],
        ["expected disorder (sampled continua)",
         f"{fmt(float(ds.expected_disorder))} (standard error "
         f"{fmt(float(ds.expected_disorder_se))}, {int(ds.n_samples)} continua)"],
        ["unitary alignments", f"{int(ds.n_unitary_alignments)} for {int(ds.n_units)} units"],
    ]
    return (title, [
        ("p", GAMMA_QUESTION + " Dissimilarity: positional_weight "
         f"{fmt(attrs['positional_weight'])}, categorical_weight "
         f"{fmt(attrs['categorical_weight'])} (labels 0/1), empty_cost "
         f"{fmt(attrs['empty_cost'])} (the cost of a unit nobody else marked). The best "
         "alignment is exact; the expected disorder is sampled"
         + (f" (seed={attrs['seed']})" if attrs.get("seed") else "")
         + f". Missing data: {attrs.get('missing_data', '').rstrip('.')}; here "
         f"{int(ds.n_documents_left_out)} document(s) left out, {int(ds.n_documents)} "
         "aligned. The alignment itself, for adjudication: "
         "table.agreement.gamma(return_alignment=True)."),
        ("table", ["", "value"], rows, None),
    ])


def _cell(value, fmt) -> str:
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(map(str, value))
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "not annotated"  # the annotator columns' NaN: did not annotate the document
    if isinstance(value, (float, np.floating)):
        return fmt(value)
    text = str(_plain(value))
    return text if len(text) <= TEXT_WIDTH else text[:TEXT_WIDTH - 3] + "..."


def _disagreements_section(f: _Facts):
    regions = f.rep.disagreements
    if regions.empty:
        return ("6. Disagreements", [("p", "No disputed region: the annotators marked the "
                                      "same spans wherever two of them annotated.")])
    rows = [[_cell(v, f.fmt) for v in row] for row in regions.to_numpy(dtype=object).tolist()]
    return ("6. Disagreements", [
        ("p", f"The {len(regions)} most disputed regions, most disputed first (the full "
         "list: table.agreement.disagreements(), command line: xr-agreement disagreements "
         "FILE)."),
        ("table", [str(c) for c in regions.columns], rows, None),
    ])


def _uncertainty_section(f: _Facts):
    if f.has_ci:
        attrs = f.mla.attrs
        text = (f"Intervals of the position-level values: {_ci_label(f.s)}, "
                f"{attrs.get('ci_method', 'percentile')} bootstrap of "
                f"{attrs.get('ci_n_resamples', '')} resamples of documents"
                + (f", seed={f.s['seed']}" if f.s.get("seed") is not None else "")
                + ". Documents, not positions, are resampled: positions inside a document "
                "are not independent.")
        if attrs.get("ci_undefined_reason"):
            text += f" The intervals are undefined (NaN): {attrs['ci_undefined_reason']}."
    else:
        text = ("No confidence intervals were computed (pass ci=0.95, command line --ci "
                "0.95): they resample documents, as positions inside a document are not "
                "independent.")
    return ("7. Uncertainty", [("p", text)])
