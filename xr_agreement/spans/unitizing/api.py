"""Krippendorff's alpha for unitizing: the per-label coefficient of Krippendorff (1995, 2004)
that DKPro Statistics and INCEpTION compute, and the coincidence-based coefficient of
Krippendorff, Mathet, Bouvry & Widlöcher (2016).

**The continuum.** Both coefficients take one continuum that every annotator segmented.
The documents that every annotator of the table annotated are laid end to end, in the
table's order, each shifted by the lengths of the documents before it: one continuum whose
length is the sum of theirs. A document that some annotator did not annotate is left out
(counted in ``n_documents_left_out``): "never saw it" is not "marked nothing", and the
coefficients have no place for a missing segmentation. A gap (a stretch no unit of the
annotator covers) ends at a document's boundary: a unit cannot be placed across two
documents, so Krippendorff's expected disagreement, which places every unit in every gap
it fits, does not place it there, and the result does not depend on the documents' order.
On one document this is DKPro's continuum exactly. (The 2016 coefficient counts gaps by
their length alone, so the cut changes nothing there.)

**Speed.** Nothing walks the positions. Per label and annotator pair, the observed
disagreement is a two-pointer walk over the two annotators' sorted units (every pair of
overlapping units, and every unit that overlaps none: it lies in a gap); the expected one
sorts the label's gaps once and finds, for each unit, the gaps it fits in by binary search
with suffix sums (DKPro walks every position and every gap for every unit).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import xarray as xr

from ..._core.dataset import dataset, variable
from ..table import CONTINUUM_COUNTS, span_arrays
from . import kernels

METHODS = ("krippendorff2004", "krippendorff2016")

# the category of the 2016 coincidence matrices that stands for the gaps between units
GAP = "(gap)"

REFERENCES = {
    "krippendorff2004": (
        "Krippendorff, K. (1995). On the reliability of unitizing continuous data. "
        "Sociological Methodology 25, 47-76; Krippendorff, K. (2004). Content Analysis: An "
        "Introduction to Its Methodology, 2nd ed., section 12.4; as DKPro Statistics "
        "(KrippendorffAlphaUnitizingAgreement) computes it"),
    "krippendorff2016": (
        "Krippendorff, K., Mathet, Y., Bouvry, S. & Widlöcher, A. (2016). On the reliability "
        "of unitizing textual continua: Further developments. Quality & Quantity 50, "
        "2347-2364; as the krippendorff-unitized-alpha package computes it with the gaps "
        "given exactly"),
}

MISSING_DATA = ("documents that every annotator annotated form the continuum (end to end, "
                "in the table's order); a document some annotator did not annotate is left "
                "out (n_documents_left_out)")

# long_name, symbol, description
VARIABLES_2004 = {
    "alpha": (
        "unitizing alpha", "alpha_U",
        "1 - sum of label_observed_disagreement / sum of label_expected_disagreement over "
        "the labels (DKPro's corpus value: the ratio of the labels' mean disagreements); "
        "NaN where the expected disagreement is 0 (see undefined_reason)"),
    "observed_disagreement": (
        "observed disagreement", "D_o",
        "mean of label_observed_disagreement over the labels someone used (as DKPro)"),
    "expected_disagreement": (
        "expected disagreement", "D_e",
        "mean of label_expected_disagreement over the labels someone used (as DKPro)"),
    "label_alpha": (
        "unitizing alpha of the label", "alpha_U,c",
        "1 - D_o,c / D_e,c: the annotators' units of this label against its gaps; NaN where "
        "D_e,c = 0 (see label_undefined_reason)"),
    "label_observed_disagreement": (
        "observed disagreement of the label", "D_o,c",
        "2 / (m (m - 1) L**2) times the sum, over annotator pairs, of (b - b')**2 + "
        "(e - e')**2 for every two overlapping units and l**2 for a unit lying in the other "
        "annotator's gap (m annotators, L the continuum's length)"),
    "label_expected_disagreement": (
        "expected disagreement of the label", "D_e,c",
        "(2 / L) sum over units [(N_c - 1)(2 l**3 - 3 l**2 + l) / 3 + l**2 sum over gaps "
        "g >= l of (g - l + 1)] / (m L (m L - 1) - sum over units of l (l - 1)): the "
        "distance expected if the units were placed at random in the gaps"),
    "label_n_units": (
        "units of the label", "",
        "units of the label, all annotators, in the documents that entered"),
    "undefined_reason": (
        "why alpha is undefined", "", "empty where alpha is defined"),
    "label_undefined_reason": (
        "why label_alpha is undefined", "", "empty where label_alpha is defined"),
}

VARIABLES_2016 = {
    "alpha": (
        "unitizing alpha (coincidences)", "_u alpha",
        "1 - observed_disagreement / expected_disagreement, from the coincidences of units' "
        "labels and gaps over every pair of annotators (the package's result); NaN where "
        "the expected disagreement is 0 (see undefined_reason)"),
    "observed_disagreement": (
        "observed disagreement", "_u D_o",
        "1 - sum of the diagonal of coincidence / l.. (l.. = m L, the coincidences' total)"),
    "expected_disagreement": (
        "expected disagreement", "_u D_e",
        "1 - sum of the diagonal of expected_coincidence / l.."),
    "coincidence": (
        "observed coincidences", "l_ck",
        "1 / (m - 1) times the length that, over ordered pairs of annotators, a segment "
        f"labelled c (a unit's label, or {GAP!r}) of one meets a segment labelled k of the "
        "other (the package's observed_coincidence_matrix_)"),
    "expected_coincidence": (
        "expected coincidences", "e_ck",
        "l.. (l_c. l_.k - [c = k] sum over segments of c of l**2 (of l for gaps)) / "
        "(l..**2 - sum over all segments of l**2 (of l for gaps)) (the package's "
        "expected_coincidence_matrix_)"),
    "label_n_units": (
        "units of the label", "",
        "units of the label, all annotators, in the documents that entered"),
    "undefined_reason": (
        "why alpha is undefined", "", "empty where alpha is defined"),
}

COUNTS = {
    **CONTINUUM_COUNTS,
    "continuum_length": ("length of the continuum", "L",
                         "sum of the lengths of the documents in the continuum, in the "
                         "offsets' unit (characters, tokens, seconds)"),
}


class Continuum(NamedTuple):
    """The units of the documents every annotator annotated, shifted onto one continuum."""

    label: np.ndarray
    annotator: np.ndarray
    start: np.ndarray
    end: np.ndarray
    document_start: np.ndarray  # where each document of the continuum begins
    document_end: np.ndarray
    length: float
    n_documents: int
    n_documents_left_out: int


def unitizing_alpha(table: xr.Dataset, method: str = "krippendorff2004") -> xr.Dataset:
    """Krippendorff's alpha for unitizing: how reliably annotators mark the same stretches
    of a continuum (characters, tokens, seconds) with the same labels.

    Parameters
    ----------
    table : xarray.Dataset
        A span table (:func:`xr_agreement.from_spans` or ``read_spans``).
    method : {"krippendorff2004", "krippendorff2016"}
        ``"krippendorff2004"`` (default): the per-label coefficient of Krippendorff (1995;
        2004, section 12.4) as DKPro Statistics and INCEpTION compute it. For each label,
        every annotator's units of that label and the gaps between them are compared with
        every other annotator's: two overlapping units cost the squared differences of their
        starts and ends, a unit lying in the other's gap its squared length; the expected
        disagreement places the units at random in the gaps. Units of different labels may
        overlap (nested entities); an annotator's units of one label may not.
        ``"krippendorff2016"``: the coincidence-based coefficient of Krippendorff, Mathet,
        Bouvry & Widlöcher (2016), ``_u alpha``, as the ``krippendorff-unitized-alpha``
        package computes it with the gaps given exactly: the labels of units and the gaps
        form one nominal coincidence matrix over every pair of annotators. Each annotator's
        units may not overlap at all (a segmentation of the continuum).

    Returns
    -------
    xarray.Dataset
        For ``"krippendorff2004"``: ``alpha``, ``observed_disagreement``,
        ``expected_disagreement``, ``undefined_reason``, and over ``label``:
        ``label_alpha``, ``label_observed_disagreement``, ``label_expected_disagreement``,
        ``label_undefined_reason``, ``label_n_units``. For ``"krippendorff2016"``:
        ``alpha``, ``observed_disagreement``, ``expected_disagreement``,
        ``undefined_reason``, ``coincidence`` and ``expected_coincidence`` over
        (``category``, ``paired_category``) (the labels and ``"(gap)"``),
        ``label_n_units``. Both: ``n_documents``, ``n_documents_left_out``, ``n_units``,
        ``continuum_length``. Every variable's attrs give its ``long_name``, ``symbol``
        and ``description``; the Dataset's ``reference``, ``method`` and ``missing_data``
        say what was computed and how documents some annotator did not annotate were
        treated (left out; see the module's docstring for how documents form one
        continuum).

    Raises
    ------
    ValueError
        An unknown method; an annotator's units of one label that overlap (for
        ``"krippendorff2016"``: any two of an annotator's units that overlap), named by
        document, annotator, labels and offsets; real (non-integer) offsets with
        ``"krippendorff2004"``, whose expected disagreement counts positions.

    Examples
    --------
    Krippendorff (2004, p. 254), as DKPro's test reproduces it: two observers, the continuum
    150-450, labels ``c`` and ``k``.

    >>> import xr_agreement
    >>> records = [("text", "i", 225, 295, "c"), ("text", "i", 370, 400, "c"),
    ...            ("text", "j", 220, 300, "c"), ("text", "j", 355, 375, "c"),
    ...            ("text", "j", 400, 420, "c"),
    ...            ("text", "i", 180, 240, "k"), ("text", "i", 300, 350, "k"),
    ...            ("text", "j", 180, 240, "k"), ("text", "j", 300, 350, "k")]
    >>> # offsets from 150: the continuum is [0, 300)
    >>> table = xr_agreement.from_spans([(d, a, s - 150, e - 150, c) for d, a, s, e, c in records],
    ...                                 lengths={"text": 300})
    >>> result = unitizing_alpha(table)
    >>> round(float(result.alpha), 4)  # the book: 0.8591 (DKPro's test allows 0.0005)
    0.8587
    >>> result.label_alpha.round(4).values.tolist()
    [0.7286, 1.0]

    The 2016 coefficient takes each annotator's units as one segmentation (here ``k`` and
    ``c`` overlap, so it refuses that table); on two annotators who agree on a person and
    disagree on the label and start of a second entity:

    >>> table = xr_agreement.from_spans(
    ...     [("d", "ann", 0, 4, "PER"), ("d", "ann", 10, 14, "LOC"),
    ...      ("d", "bob", 0, 4, "PER"), ("d", "bob", 9, 14, "ORG")], lengths={"d": 20})
    >>> result = unitizing_alpha(table, "krippendorff2016")
    >>> round(float(result.alpha), 4)
    0.6108
    >>> result.coincidence.sel(category="LOC").values.tolist()
    [0.0, 0.0, 4.0, 0.0]
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got "
                         f"{method!r}")
    arrays = span_arrays(table)
    _check_overlaps(arrays, within_label=method == "krippendorff2004")
    if method == "krippendorff2004" and arrays.start.dtype.kind == "f":
        raise ValueError(
            "unitizing_alpha(method='krippendorff2004') counts positions (its expected "
            "disagreement counts the places a unit fits in a gap), but this table's offsets "
            "are real numbers: give them in whole units (e.g. milliseconds), or use "
            "method='krippendorff2016', which takes real lengths")
    continuum = _continuum(arrays)
    if method == "krippendorff2004":
        return _alpha_2004(arrays, continuum)
    return _alpha_2016(arrays, continuum)


def _check_overlaps(arrays, within_label: bool) -> None:
    """Refuse two units of one annotator (and, ``within_label``, one label) that overlap in
    a document: sorted by start, a group's units are disjoint exactly when each starts at
    or after the end of the one before it."""
    keys = (arrays.start, arrays.label, arrays.annotator, arrays.document) if within_label \
        else (arrays.start, arrays.annotator, arrays.document)
    order = np.lexsort(keys)
    if order.size < 2:
        return
    same = np.ones(order.size - 1, dtype=bool)
    for key in keys[1:]:
        same &= key[order[1:]] == key[order[:-1]]
    clash = np.flatnonzero(same & (arrays.start[order[1:]] < arrays.end[order[:-1]]))
    if not clash.size:
        return
    first, second = order[clash[0]], order[clash[0] + 1]

    def plain(value):  # ids of an object array (e.g. float ids) are Python values already
        return value.item() if isinstance(value, np.generic) else value

    def unit(row):
        return (f"[{plain(arrays.start[row])!r}, {plain(arrays.end[row])!r}) labelled "
                f"{plain(arrays.label_ids[arrays.label[row]])!r}")

    where = (f"document {plain(arrays.document_ids[arrays.document[first]])!r}, annotator "
             f"{plain(arrays.annotator_ids[arrays.annotator[first]])!r}")
    if within_label:
        raise ValueError(
            f"{where}: the units {unit(first)} and {unit(second)} overlap; Krippendorff's "
            f"unitizing alpha takes an annotator's units of one label as a segmentation "
            f"(they may touch, not overlap). Merge them, or keep one")
    raise ValueError(
        f"{where}: the units {unit(first)} and {unit(second)} overlap; "
        f"method='krippendorff2016' takes each annotator's units as one segmentation of the "
        f"continuum (no two overlap, whatever their labels). method='krippendorff2004' "
        f"compares each label apart and allows units of different labels to overlap")


def _continuum(arrays) -> Continuum:
    n_documents, n_annotators = arrays.annotated.shape
    entered = arrays.annotated.all(axis=1) if n_annotators else np.zeros(n_documents, bool)
    lengths = np.where(entered, arrays.lengths, 0)
    shift = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if n_documents else lengths
    rows = entered[arrays.document] if arrays.document.size else np.zeros(0, bool)
    offset = shift[arrays.document[rows]].astype(arrays.start.dtype)
    kept = np.flatnonzero(entered)
    return Continuum(
        arrays.label[rows], arrays.annotator[rows],
        arrays.start[rows] + offset, arrays.end[rows] + offset,
        shift[kept].astype(arrays.start.dtype),
        (shift[kept] + lengths[kept]).astype(arrays.start.dtype),
        lengths.sum().item() if n_documents else 0, int(kept.size),
        int(n_documents - kept.size))


def _groups(keys: np.ndarray, n_groups: int) -> np.ndarray:
    """First row of each group of sorted ``keys`` (0 .. n_groups - 1), and the end."""
    return np.searchsorted(keys, np.arange(n_groups + 1)).astype(np.int64)


def _alpha_2004(arrays, continuum: Continuum) -> xr.Dataset:
    n_labels, n_annotators = arrays.label_ids.size, arrays.annotator_ids.size
    order = np.lexsort((continuum.start, continuum.annotator, continuum.label))
    start = np.ascontiguousarray(continuum.start[order], dtype=np.int64)
    end = np.ascontiguousarray(continuum.end[order], dtype=np.int64)
    key = continuum.label[order] * n_annotators + continuum.annotator[order]
    group = _groups(key, n_labels * n_annotators)
    label_group = group[::n_annotators] if n_annotators else np.zeros(n_labels + 1, np.int64)
    label_n_units = np.diff(label_group)
    length, m = np.float64(continuum.length), np.float64(n_annotators)

    observed_sum = kernels.observed_2004(group, start, end, n_annotators, n_labels)
    gaps, gap_group = kernels.gaps_2004(group, start, end, n_annotators, n_labels,
                                        continuum.document_start.astype(np.int64),
                                        continuum.document_end.astype(np.int64))
    numerator, squared = kernels.expected_2004(np.ascontiguousarray(label_group), start, end,
                                               gaps, gap_group, n_labels)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = 2.0 * observed_sum / (m * (m - 1.0) * length * length)
        expected = numerator * (2.0 / length) / (m * length * (m * length - 1.0) - squared)
    reason, label_reason = _reasons_2004(m, continuum, label_n_units)
    if reason:
        observed = expected = label_alpha = np.full(n_labels, np.nan)
        observed_mean = expected_mean = alpha = np.nan
    else:
        used = label_n_units > 0
        # a label nobody used has nothing to disagree on: 0 and 0, no weight in alpha
        observed = np.where(used, observed, 0.0)
        expected = np.where(used, expected, 0.0)
        label_reason[used & ~(expected > 0)] = (
            "expected disagreement is 0: no unit of this label fits anywhere else")
        defined = label_reason == ""
        label_alpha = np.full(n_labels, np.nan)
        label_alpha[defined] = 1.0 - observed[defined] / expected[defined]
        # DKPro's corpus value: the labels' mean disagreements (over the labels used)
        observed_mean, expected_mean = observed[used].mean(), expected[used].mean()
        if expected_mean > 0:
            alpha = 1.0 - observed_mean / expected_mean
        else:
            alpha = np.nan
            reason = "expected disagreement is 0: no unit fits anywhere else in the continuum"

    values = {
        "alpha": ((), np.float64(alpha)),
        "observed_disagreement": ((), np.float64(observed_mean)),
        "expected_disagreement": ((), np.float64(expected_mean)),
        "undefined_reason": ((), np.array(reason, dtype=object)),
        "label_alpha": (("label",), label_alpha),
        "label_observed_disagreement": (("label",), observed),
        "label_expected_disagreement": (("label",), expected),
        "label_undefined_reason": (("label",), label_reason),
        "label_n_units": (("label",), label_n_units.astype(np.int64)),
    }
    return _result(values, VARIABLES_2004, arrays, continuum, "krippendorff2004")


def _reasons_2004(m, continuum, label_n_units):
    """Why alpha (corpus, labels) is NaN before anything is divided."""
    label_reason = np.full(label_n_units.size, "", dtype=object)
    if m < 2:
        reason = "fewer than 2 annotators"
    elif continuum.n_documents == 0:
        reason = "no document was annotated by every annotator"
    elif continuum.length < 2:
        reason = "the continuum is shorter than 2 positions"
    elif not label_n_units.any():
        reason = "no annotator marked a unit in the documents every annotator annotated"
    else:
        reason = ""
    if reason:
        label_reason[:] = reason
    else:
        label_reason[label_n_units == 0] = "no annotator marked a unit of this label"
    return reason, label_reason


def _alpha_2016(arrays, continuum: Continuum) -> xr.Dataset:
    n_labels, n_annotators = arrays.label_ids.size, arrays.annotator_ids.size
    if GAP in set(map(str, arrays.label_ids.tolist())):
        raise ValueError(f"a label is named {GAP!r}, the name the coincidence matrices give "
                         f"the gaps between units: rename that label")
    order = np.lexsort((continuum.start, continuum.annotator))
    start = np.ascontiguousarray(continuum.start[order], dtype=np.float64)
    end = np.ascontiguousarray(continuum.end[order], dtype=np.float64)
    label = np.ascontiguousarray(continuum.label[order], dtype=np.int64)
    group = _groups(continuum.annotator[order], n_annotators)
    segment_start, segment_end, segment_tag, segment_group = kernels.tiling_2016(
        group, start, end, label, continuum.document_start.astype(np.float64),
        continuum.document_end.astype(np.float64), n_labels)
    n_tags = n_labels + 1
    observed = kernels.coincidences_2016(segment_group, segment_start, segment_end,
                                         segment_tag, n_tags)
    lengths = segment_end - segment_start
    # what a segment subtracts: l**2 for a unit, l for a gap (the paper counts a gap as
    # that many one-position stretches)
    own = np.bincount(segment_tag, weights=np.where(segment_tag == n_labels, lengths,
                                                    lengths * lengths), minlength=n_tags)
    total = observed.sum()
    margin = observed.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = total * (np.outer(margin, margin) - np.diag(own)) / (total * total
                                                                          - own.sum())
        observed_disagreement = 1.0 - np.trace(observed) / total
        expected_disagreement = 1.0 - np.trace(expected) / total
    if n_annotators < 2:
        reason = "fewer than 2 annotators"
    elif continuum.n_documents == 0:
        reason = "no document was annotated by every annotator"
    elif not continuum.length > 0:
        reason = "the continuum is empty"
    elif not expected_disagreement > 0:
        reason = ("expected disagreement is 0: every annotator's segmentation is one label "
                  "(or gaps) throughout")
    else:
        reason = ""
    if reason:
        observed_disagreement = expected_disagreement = alpha = np.nan
        if n_annotators < 2 or continuum.n_documents == 0:
            observed = np.full_like(observed, np.nan)
            expected = np.full_like(expected, np.nan)
    else:
        alpha = 1.0 - observed_disagreement / expected_disagreement
    values = {
        "alpha": ((), np.float64(alpha)),
        "observed_disagreement": ((), np.float64(observed_disagreement)),
        "expected_disagreement": ((), np.float64(expected_disagreement)),
        "undefined_reason": ((), np.array(reason, dtype=object)),
        "coincidence": (("category", "paired_category"), observed),
        "expected_coincidence": (("category", "paired_category"), expected),
        "label_n_units": (("label",), np.bincount(label, minlength=n_labels).astype(np.int64)),
    }
    categories = np.array([*arrays.label_ids.tolist(), GAP], dtype=object)
    return _result(values, VARIABLES_2016, arrays, continuum, "krippendorff2016",
                   categories=categories)


def _result(values, names, arrays, continuum, method, categories=None) -> xr.Dataset:
    counts = {
        "n_documents": ((), np.int64(continuum.n_documents)),
        "n_documents_left_out": ((), np.int64(continuum.n_documents_left_out)),
        "n_units": ((), np.int64(continuum.label.size)),
        # a float: a length in the offsets' unit (positions, or seconds), not a count
        "continuum_length": ((), np.float64(continuum.length)),
    }
    described = {**names, **COUNTS}
    variables = {}
    for name, (dims, data) in {**values, **counts}.items():
        long_name, symbol, description = described[name]
        attrs = {"long_name": long_name, "description": description}
        if symbol:
            attrs["symbol"] = symbol
        variables[name] = variable(dims, np.asarray(data), attrs)
    coords = {"label": arrays.label_ids}
    if categories is not None:
        coords.update(category=categories, paired_category=categories)
    attrs = {"method": method, "reference": REFERENCES[method], "missing_data": MISSING_DATA,
             "n_annotators": int(arrays.annotator_ids.size),
             "n_labels": int(arrays.label_ids.size)}
    return dataset(variables, new_coords=coords, attrs=attrs)
