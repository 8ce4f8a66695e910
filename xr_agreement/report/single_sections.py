"""The sections of the single-label report (:mod:`xr_agreement.report.single`) and the
constants both modules use: each section reads the report's results and facts and returns a
titled list of blocks for the renderers of :mod:`xr_agreement.report.render`. Every number
shown is a value of a result Dataset or a count of the facts; none is recomputed here."""

from __future__ import annotations

import math

import numpy as np

from .render import _Format, _plain

# the coefficients, in the order of the report: (public function, name shown)
COEFFICIENTS = (
    ("fleiss", "Fleiss' kappa"),
    ("conger", "Conger's kappa"),
    ("cohen", "Cohen's kappa, mean over pairs"),
    ("gwet", "Gwet's AC1"),
    ("brennan_prediger", "Brennan-Prediger"),
    ("percent", "percent agreement"),
    ("alpha", "Krippendorff's alpha (nominal)"),
)
# items named in lists (fewer than two ratings)
SHOWN_ITEMS = 10
# off-diagonal category pairs named under the confusion table
SHOWN_CONFUSIONS = 5
# above this many rows the pair table shows the pairs with the lowest kappa, the marginals
# table the annotators with the most ratings (the JSON keeps every pair and annotator)
MAX_PAIRS_LISTED = 45
MAX_ANNOTATORS_LISTED = 30
# above this many annotators Cohen's kappa per pair is not computed: its annotator x
# annotator tables grow as n^2 (at 1,000 crowd workers 1.2 GB and a 400 MB JSON report, at
# 5,000 out of memory), and Conger's kappa is Cohen's chance model over all annotators
MAX_PAIR_ANNOTATORS = 200
# the level of the functions' analytic intervals when the report is given no ci
DEFAULT_LEVEL = 0.95

# true with missing ratings too (section 1 says how many there are)
SINGLE_LABEL = ("These are single-label agreement coefficients: each rating is one category "
                "of a set of mutually exclusive categories, so the kappa family and nominal "
                "Krippendorff's alpha apply (multi-label decisions get the multi-label "
                "report, xr_agreement.report).")

# the coefficients' symbols in the headline and the tables
NAMES = dict(COEFFICIENTS)


def document(rep) -> list:
    f = _Facts(rep)
    return [_headline(f), _data_section(f), _coefficients_section(f), _categories_section(f),
            _confusion_section(f), _annotators_section(f), _uncertainty_section(f)]


class _Facts:
    """What every section reads: the report, its results, facts and settings, the
    formatter."""

    def __init__(self, rep):
        self.rep, self.r, self.u, self.s = rep, rep.results, rep.facts, rep.settings
        self.fmt = _Format(rep.settings["digits"])
        self.lk = rep.settings["landis_koch"]
        self.categories = list(rep.facts["categories"])
        self.analytic = rep.settings["ci_method"] == "analytic"

    def level(self) -> str:
        return f"{100 * float(self.s['level']):g}%"


def _why(ds, name="undefined_reason", **where) -> str:
    """The reason beside a value that can be NaN ("" where defined or not given)."""
    if name not in ds.variables:
        return ""
    value = ds[name].sel(where) if where else ds[name]
    return str(value.values)


def _number(ds, name, **where) -> float | None:
    if name not in ds.variables:
        return None
    value = ds[name].sel(where) if where else ds[name]
    return float(value)


def _count(n, thing: str, plural: str | None = None) -> str:
    return f"{n} " + (thing if n == 1 else plural or thing + "s")


def _names(values, shown=SHOWN_ITEMS) -> str:
    values = list(values)
    return ", ".join(map(str, values[:shown])) + (", ..." if len(values) > shown else "")


def _interval(f, ds, name, **where) -> str:
    lower, upper = _number(ds, f"{name}_lower", **where), _number(ds, f"{name}_upper",
                                                                   **where)
    if lower is None or upper is None:
        return "-"
    return f"[{f.fmt(lower)}, {f.fmt(upper)}]"


def _value_name(name) -> str:
    return "alpha" if name == "alpha" else "coefficient"


# --------------------------------------------------------------------------------------
# headline and reading
# --------------------------------------------------------------------------------------


def _headline(f: _Facts):
    u, fmt = f.u, f.fmt
    parts = []
    for name in ("fleiss", "alpha", "percent"):
        ds = f.r[name]
        value = _value_name(name)
        text = f"{NAMES[name]} = {fmt(float(ds[value]))}"
        interval = _interval(f, ds, value)
        if interval != "-":
            text += f" {interval}"
        reason = _why(ds)
        parts.append(text + (f" (undefined: {reason})" if reason else ""))
    headline = (f"{SINGLE_LABEL} " + "; ".join(parts)
                + (f" ({f.level()} intervals, {f.s['ci_method']})" if any(
                    f"{_value_name(n)}_lower" in f.r[n] for n in ("fleiss", "alpha"))
                   else "")
                + f". {_count(u['n_items'], 'item')}, {_count(u['n_annotators'], 'annotator')}, "
                f"{_count(len(u['categories']), 'category', 'categories')} "
                f"({len(u['categories_used'])} used), {_count(u['n_ratings'], 'rating')}.")
    return ("__title__", [("p", f.s["title"] or "Single-label agreement report"),
                          ("p", headline)]
            + [("p", note) for note in f.s.get("notes", [])] + _reading(f))


def _reading(f: _Facts) -> list:
    """Why the file was read as ratings, and what the reader left out or noted."""
    u = f.u
    text = ""
    if u.get("single_label"):
        text += ("Why these are single-label ratings: " + u["single_label"].rstrip(".")
                 + ". ")
    if u.get("reader") is not None:
        text += f"Read with the {u['reader']!r} reader. "
        dropped = u.get("dropped")
        if dropped:
            text += "Ratings left out, per reason: " + "; ".join(
                f"{reason} " + (f"{sum(per.values())} (" + ", ".join(
                    f"{who}: {n}" for who, n in per.items()) + ")" if isinstance(per, dict)
                                else str(per))
                for reason, per in dropped.items()) + ". A left-out rating is missing."
        elif dropped is not None:
            text += "No rating was left out."
    for note in u.get("reading_notes") or []:
        text = text.rstrip() + " " + note.rstrip(".") + "."
    return [("p", text.strip())] if text.strip() else []


# --------------------------------------------------------------------------------------
# 1. data
# --------------------------------------------------------------------------------------


def _data_section(f: _Facts):
    u = f.u
    per_item = u["ratings_per_item"]
    if per_item["min"] == per_item["max"]:
        spread = f"{per_item['min']} on every item"
    else:
        spread = f"{per_item['min']}-{per_item['max']} (median {per_item['median']:g})"
    declared = u["categories_declared"]
    if declared is None:
        categories = (f"Categories: {len(u['categories'])}, those the annotators used "
                      f"({_names(u['categories'], 30)}); none were declared, so a category "
                      "nobody chose is not counted (it changes Brennan-Prediger and AC1).")
    else:
        categories = (f"Categories: {len(declared)} declared ({_names(declared, 30)}), "
                      f"{len(u['categories_used'])} used.")
        if u["categories_unused"]:
            categories += (f" Declared but never used: {_names(u['categories_unused'], 30)}"
                           " (counted by every coefficient: it changes Brennan-Prediger "
                           "and AC1, not Fleiss' kappa).")
    n_cells = u["n_items"] * u["n_annotators"]
    statements = [
        f"Items: {u['n_items']}; annotators: {u['n_annotators']} "
        f"({_names(u['annotators'], 20)}).",
        categories,
        f"Ratings given: {u['n_ratings']} of {n_cells} (item, annotator) cells; missing: "
        f"{u['n_missing']} ({_share(u['n_missing'], n_cells)}). Ratings per item: "
        f"{spread}.",
    ]
    fewer = u["items_with_fewer_than_two_ratings"]
    if fewer:
        statements.append(
            f"Items with fewer than two ratings (no pair to compare; left out of observed "
            f"agreement): {len(fewer)} ({_names(fewer)}).")
    missing = f.r["fleiss"].attrs.get("missing_data")
    blocks = [("list", statements)]
    if u["n_missing"]:
        handling = [(who, f.r[name].attrs.get("missing_data", "").rstrip("."))
                    for who, name in (("the kappa family", "fleiss"),
                                      ("Cohen's kappa per pair", "cohen"),
                                      ("alpha", "alpha")) if name in f.r]
        blocks.append(("p", "A missing rating is no rating, not a category. Handling by "
                       + "; by ".join(f"{who}: {how}" for who, how in handling if how)
                       + "."))
    return ("1. Data", blocks)


def _share(n, total) -> str:
    return f"{100 * n / total:.1f}%" if total else "-"


# --------------------------------------------------------------------------------------
# 2. coefficients
# --------------------------------------------------------------------------------------


def _coefficients_section(f: _Facts):
    from .document import landis_koch

    fmt = f.fmt
    header = ["coefficient", "value", "P_o", "P_e", "se", f"{f.level()} interval"]
    if f.lk:
        header.append("Landis-Koch (opt-in)")
    rows, reasons = [], []
    for name, caption in COEFFICIENTS:
        if name not in f.r:  # Cohen's pairs above MAX_PAIR_ANNOTATORS: section 5 says why
            rows.append([caption] + ["-"] * (len(header) - 1))
            continue
        ds = f.r[name]
        value_name = _value_name(name)
        value = float(ds[value_name])
        observed = _number(ds, "observed")
        expected = _number(ds, "expected")
        se = _number(ds, f"{value_name}_se")
        row = [caption, fmt(value), fmt(observed), fmt(expected), fmt(se),
               _interval(f, ds, value_name)]
        if f.lk:  # bands of the kappa scale: percent agreement is not chance-corrected
            row.append("-" if name == "percent" else landis_koch(value))
        rows.append(row)
        reason = _why(ds)
        if reason:
            reasons.append(f"{caption}: {reason}")
    alpha = f.r["alpha"]
    cohen = f.r.get("cohen")
    blocks = [
        ("table", header, rows,
         "P_o: observed agreement, P_e: chance agreement of each coefficient's model; "
         "se: standard error. Cohen's row is the mean of the pairs' kappas (Light's kappa, "
         + (f"{int(cohen.n_pairs)} pairs; each pair's kappa, standard error and interval in "
            "section 5)." if cohen is not None else "not computed for this many annotators: "
            "section 5).")),
        ("p", f"Krippendorff's alpha = 1 - D_o / D_e with observed disagreement D_o = "
         f"{fmt(float(alpha.observed_disagreement))} and expected disagreement D_e = "
         f"{fmt(float(alpha.expected_disagreement))}, over "
         f"{int(alpha.n_pairable_values)} pairable ratings in "
         f"{int(alpha.n_pairable_items)} items (on complete data alpha differs from "
         "Fleiss' kappa only by the factor M / (M - 1) on D_e, M the ratings: alpha draws "
         "pairs without replacement)."),
        ("p", "Chance models: Fleiss' kappa, the pooled category shares; Conger's kappa, "
         "each annotator's own shares; AC1, the categories' variance (it stays high when "
         "one category dominates); Brennan-Prediger, uniform over the categories (1/q); "
         "percent agreement, none."),
    ]
    if reasons:
        blocks.append(("p", "Undefined (NaN): " + "; ".join(reasons) + "."))
    if f.lk:
        blocks.append(("p", "Landis-Koch bands are shown on request only; universal "
                       "cut-offs ignore the chance model and the prevalence. They are bands "
                       "of chance-corrected coefficients: percent agreement has none."))
    return ("2. Coefficients", blocks)


# --------------------------------------------------------------------------------------
# 3. categories
# --------------------------------------------------------------------------------------


def _categories_section(f: _Facts):
    fmt, u = f.fmt, f.u
    fleiss, gwet = f.r["fleiss"], f.r["gwet"]
    totals = np.asarray(u["ratings_per_annotator"], np.int64).reshape(
        len(u["annotators"]), len(f.categories)).sum(axis=0)
    with_se = "category_coefficient_se" in fleiss
    header = ["category", "ratings", "prevalence", "Fleiss kappa_k"] + (
        ["se"] if with_se else []) + ["AC1_k", "undefined"]
    rows = []
    for position, category in enumerate(f.categories):
        where = {"category": _coordinate(fleiss, "category", category)}
        reason = _why(fleiss, "category_undefined_reason", **where)
        rows.append([str(category), str(int(totals[position])),
                     fmt(totals[position] / u["n_ratings"] if u["n_ratings"] else math.nan),
                     fmt(_number(fleiss, "category_coefficient", **where))]
                    + ([fmt(_number(fleiss, "category_coefficient_se", **where))]
                       if with_se else [])
                    + [fmt(_number(gwet, "category_coefficient", **where)), reason])
    if not any(row[-1] for row in rows):
        header, rows = header[:-1], [row[:-1] for row in rows]
    blocks = [
        ("p", "Each category as its own binary problem ('this category or another'): "
         "prevalence is the category's share of the ratings; kappa_k is Fleiss' kappa and "
         "AC1_k Gwet's AC1 of that problem (the functions' category_coefficient). A low "
         "kappa_k names the category the annotators apply differently."),
        ("table", header, rows, None),
    ]
    if u["categories_unused"]:
        blocks.append(("p", "A category nobody chose is a constant binary problem ('another "
                       "category' everywhere): its kappa_k is undefined and its AC1_k is 1 "
                       "by construction, not agreement on it."))
    return ("3. Categories", blocks)


def _coordinate(ds, dim, value):
    """``value`` as the result's coordinate holds it (a restored report's categories are
    JSON numbers or text, as the coordinate is)."""
    for candidate in ds[dim].values:
        if _plain(candidate) == value or str(_plain(candidate)) == str(value):
            return candidate
    return value


# --------------------------------------------------------------------------------------
# 4. the confusion (coincidence) table
# --------------------------------------------------------------------------------------


def _confusion_section(f: _Facts):
    alpha, fmt = f.r["alpha"], f.fmt
    title = "4. Confusions between annotators"
    if "coincidence" not in alpha:
        return (title, [("p", "No coincidence table: alpha gives it for at most 256 "
                         "distinct categories.")])
    coincidence = alpha.coincidence
    categories = [_plain(c) for c in coincidence.category.values]
    matrix = coincidence.transpose("category", "paired_category").values
    rows = [[str(c)] + [fmt(v) for v in row] + [fmt(row.sum())]
            for c, row in zip(categories, matrix)]
    blocks = [
        ("p", "Krippendorff's coincidence table (alpha's coincidence): within each item, "
         "every ordered pair of two annotators' ratings, weighted 1 / (m_i - 1) for an item "
         "with m_i ratings, so that each pairable rating counts once. Row c, column k: how "
         "often one annotator rated c where another rated k; the diagonal is agreement, the "
         "table is symmetric."),
        ("table", ["rated \\ other rated"] + [str(c) for c in categories] + ["total"], rows,
         None),
    ]
    # the unordered off-diagonal pairs by their coincidences, largest first
    pairs = [(matrix[i, j], categories[i], categories[j])
             for i in range(len(categories)) for j in range(i + 1, len(categories))
             if matrix[i, j] > 0]
    pairs.sort(key=lambda pair: -pair[0])
    off_diagonal = float(matrix.sum() - np.trace(matrix))
    if pairs:
        blocks.append(("p", "Most frequent confusions: " + "; ".join(
            f"{a!s} rated where another annotator rated {b!s} (and the reverse): "
            f"{fmt(n)} each way ({_share(2 * n, off_diagonal)} of the disagreement)"
            for n, a, b in pairs[:SHOWN_CONFUSIONS]) + "."))
    else:
        blocks.append(("p", "No confusion: wherever two annotators rated an item, they "
                       "chose the same category."))
    return (title, blocks)


# --------------------------------------------------------------------------------------
# 5. pairs and annotators
# --------------------------------------------------------------------------------------


def _annotators_section(f: _Facts):
    if "cohen" not in f.r:
        n = int(f.u["n_annotators"])
        return ("5. Annotator pairs and annotators", [
            ("p", f"Cohen's kappa per pair is not computed for {n} annotators (above "
             f"{MAX_PAIR_ANNOTATORS}): {n * (n - 1) // 2} pairs, whose annotator x annotator "
             "tables grow as the square of the annotators. Conger's kappa (section 2) takes "
             "each annotator's own category shares as chance, as Cohen's does, over all "
             "annotators at once; xr_agreement.cohen gives every pair on request."),
        ] + _marginals(f))
    cohen, fmt = f.r["cohen"], f.fmt
    annotators = [_plain(v) for v in cohen.annotator_1.values]
    with_se = "pair_coefficient_se" in cohen
    with_interval = "pair_coefficient_lower" in cohen
    header = ["annotator_1", "annotator_2", "items both rated", "P_o", "kappa"] + (
        ["se"] if with_se else []) + ([f"{f.level()} interval"] if with_interval else [])
    # the pairs that share a rated item, in annotator order; the lowest kappas when many
    shared = cohen.pair_n_pairable_items.values
    kappa = cohen.pair_coefficient.values
    pairs = [(i, j) for i in range(len(annotators)) for j in range(i + 1, len(annotators))
             if shared[i, j] > 0]
    n_pairs = len(pairs)
    if n_pairs > MAX_PAIRS_LISTED:
        pairs = sorted(pairs, key=lambda p: np.inf if np.isnan(kappa[p]) else kappa[p])
        pairs = sorted(pairs[:MAX_PAIRS_LISTED])
    rows, reasons = [], []
    for i, j in pairs:
        where = {"annotator_1": cohen.annotator_1.values[i],
                 "annotator_2": cohen.annotator_2.values[j]}
        first, second = annotators[i], annotators[j]
        rows.append([str(first), str(second), str(int(shared[i, j])),
                     fmt(_number(cohen, "pair_observed", **where)), fmt(float(kappa[i, j]))]
                    + ([fmt(_number(cohen, "pair_coefficient_se", **where))]
                       if with_se else [])
                    + ([_interval(f, cohen, "pair_coefficient", **where)]
                       if with_interval else []))
        reason = _why(cohen, "pair_undefined_reason", **where)
        if reason:
            reasons.append(f"{first} and {second}: {reason}")
    blocks = [
        ("p", "Cohen's kappa of every annotator pair that rated an item in common, on the "
         "items both rated (chance from each annotator's own category shares)"
         + (f"; of the {n_pairs} such pairs, the {len(pairs)} with the lowest kappa (every "
            "pair: the JSON's results.cohen)." if n_pairs > len(pairs) else ".")),
        ("table", header, rows, None) if rows else ("p", "No two annotators rated an item "
                                                     "in common."),
    ]
    if reasons:
        blocks.append(("p", "Undefined (NaN): " + "; ".join(reasons) + "."))
    return ("5. Annotator pairs and annotators", blocks + _marginals(f))


def _marginals(f: _Facts) -> list:
    u = f.u
    counts = np.asarray(u["ratings_per_annotator"], np.int64).reshape(
        len(u["annotators"]), len(f.categories))
    shown = np.arange(len(u["annotators"]))
    if len(shown) > MAX_ANNOTATORS_LISTED:  # the most ratings first, then annotator order
        shown = np.sort(np.argsort(-counts.sum(axis=1), kind="stable")[
            :MAX_ANNOTATORS_LISTED])
    rows = [[str(u["annotators"][a])] + [str(int(n)) for n in counts[a]]
            + [str(int(counts[a].sum()))] for a in shown]
    rows.append(["all annotators"] + [str(int(n)) for n in counts.sum(axis=0)]
                + [str(int(counts.sum()))])
    return [
        ("p", "How often each annotator chose each category (the annotators' marginals): "
         "an annotator whose row departs from the others' favours or avoids a category. "
         "Conger's and Cohen's kappa take each annotator's own shares as chance, Fleiss' "
         "kappa the pooled shares: where the annotators' shares differ, Conger's kappa "
         "exceeds Fleiss'."
         + (f" The {len(shown)} annotators with the most ratings of {len(counts)} (every "
            "annotator: the JSON's facts.ratings_per_annotator)." if len(shown) < len(counts)
            else "")),
        ("table", ["annotator"] + [str(c) for c in f.categories] + ["ratings"], rows, None),
    ]
    return ("5. Annotator pairs and annotators", blocks)


# --------------------------------------------------------------------------------------
# 6. uncertainty
# --------------------------------------------------------------------------------------


def _uncertainty_section(f: _Facts):
    s = f.s
    level = f.level() + (" (the functions' default; pass ci= or --ci to change it)"
                         if s.get("ci") is None else "")
    if f.analytic:
        text = (f"Intervals at {level}, analytic: Gwet's standard errors (conditional on the "
                "annotators, Gwet 2014) with t-based limits for the kappa family and alpha; "
                "for Cohen's kappa per pair the asymptotic standard error of Fleiss, Cohen "
                "& Everitt (1969) with normal limits. The mean of the pairs' kappas has no "
                "analytic interval (a bootstrap gives one: ci_method='percentile').")
    else:
        attrs = f.r["fleiss"].attrs
        text = (f"Intervals at {level}: {s['ci_method']} bootstrap of "
                f"{attrs.get('ci_n_resamples', '')} resamples of "
                f"{attrs.get('ci_resampling_unit', 'item')}s"
                + (f", seed={s['seed']}" if s.get("seed") is not None else "")
                + ", for every coefficient; no standard errors (ci_method='analytic' gives "
                "them).")
    reasons = [f"{NAMES[name]}: {ds.attrs['ci_undefined_reason']}"
               for name, ds in f.r.items() if ds.attrs.get("ci_undefined_reason")]
    if reasons:
        text += " Intervals undefined (NaN): " + "; ".join(reasons) + "."
    return ("6. Uncertainty", [("p", text)])

