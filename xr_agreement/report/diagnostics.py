"""The report's "Annotators" and "Labels confused with each other" sections: the facts
(plain Python, kept in ``Report.design`` so a report restored from JSON renders them too),
the section blocks and the pair heat map."""

from __future__ import annotations

import numpy as np

from .._core.arrays import _plain
from .._core.safe_text import visible
from ..diagnostics import confusions
from ..diagnostics.annotators import pair_table

# substitutions named in the report
N_SUBSTITUTIONS = 5
# above this many annotators the text tables show a few of them (the JSON keeps all)
MAX_ANNOTATORS_LISTED = 20
# of whom: this many by the largest gain without them, then by the lowest observed agreement
N_BY_GAIN = 5
N_LISTED = 10
# the normal quantile of the 95% Wilson bound that orders the substitutions
WILSON_Z = 1.959963984540054
# up to this many annotators the facts hold the full pair matrices (n^2 entries each, 10^6
# at 1,000, as JSON lists); beyond, "pairs" lists only the pairs who share a decided cell
# (the other entries are NaN): a crowd design's thousands of workers share few pairs
MAX_PAIR_MATRIX_ANNOTATORS = 1000
# heat maps: largest side in inches, and the most annotators given tick labels
MAX_FIGURE_SIDE = 12.0
MAX_TICK_LABELS = 40
# a heat map of the "pairs" facts (thousands of annotators) shows blocks of annotators, at
# most this many a side: a panel of MAX_FIGURE_SIDE inches has about as many pixels, and
# matplotlib's image of the full n x n matrix took 0.9 GB at 4,000
MAX_HEAT_MAP_BLOCKS = 500


def _rate_lower_bound(count: float, pairs: float) -> float:
    """Lower end of the 95% Wilson interval of count / pairs: orders rates by how many
    pairs support them (1 of 1 gives 0.21, 90 of 100 gives 0.83)."""
    z2 = WILSON_Z ** 2
    rate = count / pairs
    centre = rate + z2 / (2 * pairs)
    spread = WILSON_Z * np.sqrt(rate * (1 - rate) / pairs + z2 / (4 * pairs ** 2))
    return (centre - spread) / (1 + z2 / pairs)


def _numbers(values) -> list:
    """Floats as a nested list, NaN as None (JSON has no NaN)."""
    array = np.asarray(values, dtype=float)
    return np.where(np.isnan(array), None, array).tolist()


def _pair_matrix_lists(n, first, second, values) -> list:
    """The symmetric n x n matrix of the pairs' values as nested lists, None elsewhere."""
    matrix = [[None] * n for _ in range(n)]
    for r, s, value in zip(first, second, _numbers(values)):
        matrix[r][s] = matrix[s][r] = value
    return matrix


def _pair_lookup(facts, name):
    """(r, s) -> the value of a pair variable of the annotator facts ("pair_observed" or
    "pair_agreement"), None where undefined: from the full matrices or from the "pairs"
    list of a report with many annotators."""
    if "pairs" not in facts:
        matrix = facts[name]
        return lambda r, s: matrix[r][s]
    pairs, found = facts["pairs"], {}
    for r, s, value in zip(pairs["annotator_1"], pairs["annotator_2"], pairs[name]):
        found[r, s] = found[s, r] = value
    return lambda r, s: found.get((r, s))


def diagnostic_facts(da, baseline, item, annotator, label) -> dict:
    """{"annotators": ..., "confusions": ...} for :class:`~xr_agreement.report.Report`'s
    design; the primary baseline's coefficients. The pair values are the full matrices
    ("pair_observed", "pair_agreement") up to MAX_PAIR_MATRIX_ANNOTATORS annotators, else
    "pairs": {"annotator_1", "annotator_2" (positions in "ids"), "pair_observed",
    "pair_agreement"} over the pairs who share a decided cell."""
    dims = {"item": item, "annotator": annotator, "label": label}
    ds = pair_table(da, baseline, **dims).compute()
    drift = (ds.annotator_prevalence - ds.label_prevalence).transpose(annotator, label)
    magnitude = np.abs(drift.values)
    rows = []
    for r, ident in enumerate(ds[annotator].values):
        defined = np.isfinite(magnitude[r])
        if defined.any():
            j = int(np.nanargmax(np.where(defined, magnitude[r], -1)))
            largest = {"label": _plain(ds[label].values[j]),
                       "annotator_prevalence": float(ds.annotator_prevalence.transpose(
                           annotator, label).values[r, j]),
                       "label_prevalence": float(ds.label_prevalence.values[j])}
        else:
            largest = None
        rows.append({"annotator": _plain(ident),
                     "n_items_annotated": int(ds.n_items_annotated.values[r]),
                     "annotator_observed": _numbers(ds.annotator_observed.values[r]),
                     "agreement_without": _numbers(ds.agreement_without.values[r]),
                     "largest_drift": largest})
    ids = [_plain(v) for v in ds[annotator].values]
    first, second = ds.annotator_1.values.tolist(), ds.annotator_2.values.tolist()
    if len(ids) <= MAX_PAIR_MATRIX_ANNOTATORS:
        pair_facts = {name: _pair_matrix_lists(len(ids), first, second, ds[name].values)
                      for name in ("pair_observed", "pair_agreement")}
    else:
        pair_facts = {"pairs": {"annotator_1": first, "annotator_2": second,
                           "pair_observed": _numbers(ds.pair_observed.values),
                           "pair_agreement": _numbers(ds.pair_agreement.values)}}
    table = confusions(da, **dims).compute()
    rate = table.substitution_rate.values
    count = table.substitution.values
    pairs = table.n_disagreeing_pairs.values
    candidates = [(a, b) for a, b in zip(*np.nonzero(count > 0))]
    # a rate from one pair must not outrank a slightly lower one from a hundred
    candidates.sort(key=lambda ab: (-_rate_lower_bound(count[ab], pairs[ab]), -count[ab]))
    labels = table[label].values
    top = [{"label": _plain(labels[a]), "other_label": _plain(labels[b]),
            "substitution": float(count[a, b]),
            "n_disagreeing_pairs": float(pairs[a, b]),
            "substitution_rate": float(rate[a, b])}
           for a, b in candidates[:N_SUBSTITUTIONS]]
    return {
        "annotators": {
            "baseline": baseline,
            "agreement": _numbers(ds.agreement.values),
            "ids": ids,
            **pair_facts,
            "rows": rows,
        },
        "confusions": top,
    }


def _value(fmt, value):
    return fmt(float("nan") if value is None else value)


def _listed_annotators(rows, corpus) -> list[int]:
    """Positions of the annotators the text tables show: all of them up to
    MAX_ANNOTATORS_LISTED; beyond, N_BY_GAIN by the largest gain in the coefficient without
    them, then the lowest observed agreement with the others, N_LISTED in all."""
    if len(rows) <= MAX_ANNOTATORS_LISTED:
        return list(range(len(rows)))

    def known(value):
        return value is not None and np.isfinite(value)

    gains = [r for r, row in enumerate(rows)
             if known(row["agreement_without"]) and known(corpus)]
    gains.sort(key=lambda r: -(rows[r]["agreement_without"] - corpus))
    listed = gains[:N_BY_GAIN]
    observed = [r for r, row in enumerate(rows)
                if known(row["annotator_observed"]) and r not in listed]
    observed.sort(key=lambda r: rows[r]["annotator_observed"])
    listed += observed[:N_LISTED - len(listed)]
    return listed or list(range(N_LISTED))


def annotators_section(f, number: int):
    """Pair matrix, each annotator's observed agreement and agreement without them, and
    their largest prevalence drift; None for a report without these facts."""
    facts = f.d.get("annotators")
    if not facts:
        return None
    fmt, rep = f.fmt, f.rep
    corpus = facts["agreement"]
    listed = _listed_annotators(facts["rows"], corpus)
    rows, largest_gain = [], None
    for row in (facts["rows"][r] for r in listed):
        without = row["agreement_without"]
        gain = None if without is None or corpus is None else without - corpus
        if gain is not None and (largest_gain is None or gain > largest_gain[1]):
            largest_gain = (row["annotator"], gain)
        drift = row["largest_drift"]
        drift_text = "-" if drift is None else (
            f"{rep.label_name(drift['label'])}: {fmt(drift['annotator_prevalence'])} vs "
            f"{fmt(drift['label_prevalence'])}")
        rows.append([str(row["annotator"]), str(row["n_items_annotated"]),
                     _value(fmt, row["annotator_observed"]), _value(fmt, without),
                     "-" if gain is None else f"{gain:+.{f.s['digits']}f}", drift_text])
    ids = [str(v) for v in facts["ids"]]
    coefficient = _pair_lookup(facts, "pair_agreement")
    pair_rows = [[ids[r]] + [_value(fmt, coefficient(r, s)) for s in listed]
                 for r in listed]
    text = (f"Each annotator against the others: observed agreement over all their "
            f"(item, label) comparisons with every other annotator, and the corpus "
            f"coefficient under {facts['baseline']} recomputed without them (now "
            f"{_value(fmt, corpus)}). Prevalence drift: the label on which the annotator's "
            "share of 1s differs most from the pooled prevalence.")
    if largest_gain is not None and largest_gain[1] > 0:
        text += (f" Leaving out annotator {largest_gain[0]} raises agreement most "
                 f"({largest_gain[1]:+.{f.s['digits']}f}): the first annotator to talk to.")
    blocks = [("p", text)]
    if len(listed) < len(ids):
        blocks.append(("p", f"{len(ids)} annotators: listed here are the {len(listed)} most "
                       f"worth talking to (up to {N_BY_GAIN} whose removal raises the "
                       "coefficient most, then those with the lowest observed agreement with "
                       f"the others); {len(ids) - len(listed)} are left out of these tables. "
                       "The JSON report and xr_agreement.annotators() hold every annotator."))
    return f"{number}. Annotators", [
        *blocks,
        ("table", ["annotator", "items annotated", "A_o with the others",
                   f"A_ml without ({facts['baseline']})", "change", "largest prevalence drift "
                   "(annotator vs pool)"], rows, None),
        ("p", f"Pairwise coefficients A_ml ({facts['baseline']}) of each annotator pair alone "
         "(rows x columns; the heat map in the HTML report shows observed agreement and "
         "this coefficient)."),
        ("table", ["annotator", *(ids[r] for r in listed)], pair_rows, None),
        ("figures", ("pairs",)),
    ]


def confusions_section(f, number: int):
    """The top substitutions with their rates; None for a report without these facts."""
    top = f.d.get("confusions")
    if top is None:
        return None
    title = f"{number}. Labels confused with each other"
    if not top:
        return title, [("p", "No label was chosen by one annotator where another chose a "
                        "different label on the same item (no substitutions).")]
    fmt, rep = f.fmt, f.rep
    rows = [[rep.label_name(entry["label"]), rep.label_name(entry["other_label"]),
             f"{entry['substitution']:g}", f"{entry['n_disagreeing_pairs']:g}",
             fmt(entry["substitution_rate"])] for entry in top]
    return title, [
        ("p", "Over items and ordered pairs of annotators who both decided both labels: how "
         "often one selected label a and not b while the other selected b and not a, out of "
         "the pairs where the first selected a and the second did not (the share of a's "
         "disagreements where b was chosen instead). High rates point at codebook entries to "
         "rewrite; xr_agreement.confusions() gives the full tables. Ordered by the lower end "
         "of the rate's 95% Wilson interval over the disagreeing pairs, which weighs a rate "
         "by the pairs behind it (1 of 1 ranks below 90 of 100), then by the substitution "
         "count."),
        ("table", ["label a", "chosen instead (b)", "substitutions", "disagreeing pairs on a",
                   "substitution rate"], rows, None),
    ]


def _block_means(pairs, name, n, block):
    """The pairs' values (both orders) averaged over blocks of ``block`` x ``block``
    annotators, NaN where a block has no pair with a value: (ceil(n / block),) * 2."""
    values = np.array(pairs[name], dtype=float)
    defined = np.isfinite(values)
    first = np.asarray(pairs["annotator_1"], np.int64)[defined] // block
    second = np.asarray(pairs["annotator_2"], np.int64)[defined] // block
    side = -(-n // block)
    sums, counts = np.zeros((side, side)), np.zeros((side, side))
    for rows, columns in ((first, second), (second, first)):
        np.add.at(sums, (rows, columns), values[defined])
        np.add.at(counts, (rows, columns), 1)
    with np.errstate(invalid="ignore"):
        return sums / counts


def pair_heat_map(facts):
    """matplotlib Figure: pair observed agreement and pair coefficient side by side."""
    import matplotlib.pyplot as plt

    ids = [visible(str(v)) for v in facts["ids"]]  # drawn as the text report shows them
    panels = (("pair_observed", "observed agreement A_o"),
              ("pair_agreement", f"A_ml ({facts['baseline']})"))
    # capped: the figure's pixels grow with its area (400 annotators uncapped: gigabytes)
    size = min(max(3.0, 0.45 * len(ids) + 1.5), MAX_FIGURE_SIDE)
    figure, axes = plt.subplots(1, 2, figsize=(2 * size + 1, size), constrained_layout=True)
    block = -(-len(ids) // MAX_HEAT_MAP_BLOCKS) if "pairs" in facts else 1
    for ax, (name, caption) in zip(axes, panels):
        if "pairs" in facts:
            values = _block_means(facts["pairs"], name, len(ids), block)
        else:
            values = np.array(facts[name], dtype=float)
        image = ax.imshow(values, cmap="viridis", vmin=np.nanmin(values) if np.isfinite(
            values).any() else 0, vmax=1)
        if len(ids) <= MAX_TICK_LABELS:
            ax.set_xticks(range(len(ids)), ids, rotation=90)
            ax.set_yticks(range(len(ids)), ids)
        elif block > 1:
            ax.set_xlabel(f"annotators (of {len(ids)}, in the order of the JSON ids) in blocks "
                          f"of {block}: each cell the mean over the block's pairs with a value")
        else:  # unreadable at this size: positions only
            ax.set_xlabel(f"annotator (of {len(ids)}, in the order of the JSON ids)")
        ax.set_title(caption)
        figure.colorbar(image, ax=ax, shrink=0.8)
    return figure
