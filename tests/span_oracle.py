"""Independent oracles for the span family, written from the definitions only (not from the
code in ``xr_agreement/spans``): plain Python loops over positions, annotator pairs and spans,
exact rational arithmetic where the definition is a ratio of sums.

Sources, per section below:

- positions and MLA: Menzner & Leidner, "Multi-Label Agreement" sections 3.1-3.4 (observed
  Hamming agreement, pooled prevalence, baselines F / AC1 / PB, eq. 5 and 6), with the
  project's missing-data rule (docs/missing_data.md: a cell counts when at least two
  annotators decided it; each cell weighs its number of deciders ``m``; pairs within a cell
  weigh ``1 / (m - 1)``).
- span F1: Hripcsak & Rothschild (2005), "Agreement, the F-measure, and reliability in
  information retrieval", JAMIA 12(3): between two annotators, F1 = 2 TP / (|A| + |B|)
  (one annotator read as the reference; F1 is symmetric); ``overlap`` matches are one to
  one, so TP is the size of a maximum matching (found here by exhaustive search).
- unitizing alpha: Krippendorff (1995), "On the reliability of unitizing continuous data",
  Sociological Methodology 25: 47-76, and Content Analysis, 2nd ed. (2004), section 12.4
  (pp. 251-256): per category, the observed disagreement summed over ordered coder pairs and
  all pairs of their segments, the expected disagreement over all placements, as DKPro
  Statistics ``KrippendorffAlphaUnitizingAgreement`` documents them.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

NAN = float("nan")


# --------------------------------------------------------------------------------------
# random span corpora
# --------------------------------------------------------------------------------------

ANNOTATOR_NAMES = ["ann", "bob", "chloé", "dev-4", "Émile_5"]
LABEL_NAMES = ["PER", "LOC", "ORG", "name.first"]


class Corpus:
    """A span corpus as plain Python: what the oracles loop over and what from_spans reads.

    ``spans`` holds ``(document, annotator, start, end, label)`` tuples; ``lengths`` maps
    document -> length; ``annotated`` is a set of (document, annotator); ``labels`` the
    label universe in order; ``annotators`` and ``documents`` in order.
    """

    def __init__(self, documents, annotators, labels, lengths, annotated, spans):
        self.documents = list(documents)
        self.annotators = list(annotators)
        self.labels = list(labels)
        self.lengths = dict(lengths)
        self.annotated = set(annotated)
        self.spans = list(spans)

    def table(self):
        from xr_agreement import from_spans

        # the annotated pairs in document then annotator order, so that ids keep this order
        pairs = [(d, a) for d in self.documents for a in self.annotators
                 if (d, a) in self.annotated]
        return from_spans(list(self.spans), lengths=self.lengths, annotated=pairs,
                          labels=self.labels)

    def deciders(self, document):
        """Annotators who annotated the document, in annotator order."""
        return [a for a in self.annotators if (document, a) in self.annotated]

    def spans_of(self, document, annotator, label):
        return [(s, e) for d, a, s, e, lab in self.spans
                if d == document and a == annotator and lab == label]


def random_corpus(rng: np.random.Generator, *, unitizing=False, n_documents=None,
                  n_annotators=None, n_labels=None, all_annotated=False) -> Corpus:
    """A random corpus with the cases that matter.

    2-5 annotators, 1-4 used labels plus one declared label nobody uses, documents of
    lengths 0..60: an empty document, a document every annotator read and nobody marked,
    a document nobody annotated, an annotator who skipped a document; spans copied from a
    shared reference with moved boundaries (so annotators partly agree), nested, overlapping,
    touching and same-position spans of different labels. With ``unitizing`` one
    annotator's spans of one label never overlap (the unitizing definitions need it; they
    may touch). ``all_annotated`` makes every annotator annotate every document.
    """
    n_annotators = n_annotators or int(rng.integers(2, 6))
    n_labels = n_labels or int(rng.integers(1, 5))
    n_documents = n_documents or int(rng.integers(3, 7))
    annotators = ANNOTATOR_NAMES[:n_annotators]
    used_labels = LABEL_NAMES[:n_labels]
    labels = [*used_labels, "UNUSED"]
    documents = [f"doc-{i:02d}" for i in range(n_documents)]
    lengths = {d: int(rng.integers(1, 61)) for d in documents}
    annotated = {(d, a) for d in documents for a in annotators}
    silent = set()  # documents read by everyone and marked by nobody
    if not all_annotated:
        lengths[documents[0]] = 0  # empty document
        if n_documents >= 3:
            silent.add(documents[1])
        if n_documents >= 4:
            annotated -= {(documents[2], a) for a in annotators}  # nobody annotated it
        # an annotator who skipped a document (the last one)
        annotated.discard((documents[-1], annotators[-1]))
        if n_annotators >= 3 and n_documents >= 5:
            annotated.discard((documents[-2], annotators[0]))
    spans = set()
    for d in documents:
        length = lengths[d]
        if length == 0 or d in silent:
            continue
        reference = []
        for _ in range(int(rng.integers(1, 5))):
            start = int(rng.integers(0, length))
            end = int(rng.integers(start + 1, min(length, start + 15) + 1))
            label = used_labels[int(rng.integers(len(used_labels)))]
            reference.append((start, end, label))
            shape = rng.random()
            other = used_labels[int(rng.integers(len(used_labels)))]
            if shape < 0.2 and end - start >= 3:  # nested, another label
                reference.append((start + 1, end - 1, other))
            elif shape < 0.4:  # same position, another label
                reference.append((start, end, other))
            elif shape < 0.6 and end < length:  # touching
                reference.append((end, min(length, end + int(rng.integers(1, 6))), label))
            elif shape < 0.8 and end - start >= 2 and end + 1 < length:  # overlapping
                reference.append((end - 1, min(length, end + int(rng.integers(2, 6))), other))
        for a in annotators:
            if (d, a) not in annotated:
                continue
            own = []
            for start, end, label in reference:
                if rng.random() < 0.25:
                    continue
                if rng.random() < 0.35:  # moved boundaries
                    start = int(np.clip(start + rng.integers(-2, 3), 0, length - 1))
                    end = int(np.clip(end + rng.integers(-2, 3), start + 1, length))
                if rng.random() < 0.1 and len(used_labels) > 1:  # another label
                    label = used_labels[int(rng.integers(len(used_labels)))]
                own.append((start, end, label))
            for _ in range(int(rng.integers(0, 3))):  # an annotator's own extra spans
                start = int(rng.integers(0, length))
                end = int(rng.integers(start + 1, min(length, start + 10) + 1))
                own.append((start, end, used_labels[int(rng.integers(len(used_labels)))]))
            if unitizing:
                own = _without_same_label_overlap(own)
            for start, end, label in own:
                spans.add((d, a, start, end, label))
    # a stable order that is not sorted by position (the measures must not rely on order)
    spans = sorted(spans, key=lambda s: (s[0], s[1], s[4], s[2], s[3]))
    order = rng.permutation(len(spans))
    return Corpus(documents, annotators, labels, lengths, annotated,
                  [spans[i] for i in order])


def _without_same_label_overlap(own):
    kept = []
    for start, end, label in own:
        if all(not (s < end and start < e) for s, e, lab in kept if lab == label):
            kept.append((start, end, label))
    return kept


# --------------------------------------------------------------------------------------
# positions and MLA (Menzner & Leidner 3.1-3.4; docs/missing_data.md)
# --------------------------------------------------------------------------------------

def position_decisions(corpus: Corpus) -> dict:
    """``{(document, offset, annotator, label): 0, 1 or NaN}`` for every position of every
    document: 1 where one of the annotator's spans of the label covers the offset, 0 where
    it does not and the annotator annotated the document, NaN where they did not."""
    decisions = {}
    for d in corpus.documents:
        for p in range(corpus.lengths[d]):
            for a in corpus.annotators:
                for label in corpus.labels:
                    if (d, a) not in corpus.annotated:
                        decisions[(d, p, a, label)] = NAN
                        continue
                    covered = any(s <= p < e for s, e in corpus.spans_of(d, a, label))
                    decisions[(d, p, a, label)] = 1 if covered else 0
    return decisions


def chance_agreement(p, baseline):
    if baseline == "F":
        return p * p + (1 - p) * (1 - p)
    if baseline == "AC1":
        return 2 * p * (1 - p)
    if baseline == "PB":
        return Fraction(1, 2)
    raise ValueError(baseline)


def mla_oracle(corpus: Corpus, baseline="F") -> dict:
    """Position-level MLA from plain loops, in exact fractions.

    Each position of a document is an item; its deciders are the annotators who annotated
    the document. A (position, label) cell counts when it has at least two deciders. Per
    label: ``n_j`` = deciders summed over counted cells; ``A_o,j`` = the cells' shares of
    agreeing annotator pairs (explicit loop over c < c'), each cell weighted by its number
    of deciders; ``p_j`` = positives / ``n_j``; ``A_e,j`` from the baseline. Corpus values are
    the ``n_j``-weighted means (on complete data: the paper's plain means over labels).
    """
    decisions = position_decisions(corpus)
    out = {"label": {}}
    totals = {"n": 0, "observed": 0, "expected": 0, "positives": 0, "do": 0, "de": 0}
    for label in corpus.labels:
        n_j = 0
        agreeing_weighted = Fraction(0)
        positives = 0
        for d in corpus.documents:
            deciders = corpus.deciders(d)
            m = len(deciders)
            if m < 2:
                continue  # no pair on this document's cells
            for p in range(corpus.lengths[d]):
                values = [decisions[(d, p, a, label)] for a in deciders]
                pairs = agree = 0
                for c, c2 in itertools.combinations(range(m), 2):
                    pairs += 1
                    agree += values[c] == values[c2]
                n_j += m
                agreeing_weighted += m * Fraction(agree, pairs)
                positives += sum(values)
        if n_j == 0:
            out["label"][label] = {"label_n_pairable_values": 0}
            continue
        observed = agreeing_weighted / n_j
        prevalence = Fraction(positives, n_j)
        expected = chance_agreement(prevalence, baseline)
        weight = 1 - expected
        agreement = (observed - expected) / weight if weight != 0 else NAN
        # Krippendorff's D_e for one binary label: values drawn without replacement
        de = Fraction(2 * positives * (n_j - positives), n_j * (n_j - 1))
        out["label"][label] = {
            "label_n_pairable_values": n_j,
            "label_observed": observed,
            "label_expected": expected,
            "label_agreement": agreement,
            "label_weight": weight,
            "label_prevalence": prevalence,
        }
        totals["n"] += n_j
        totals["observed"] += n_j * observed
        totals["expected"] += n_j * expected
        totals["positives"] += positives
        totals["do"] += n_j * (1 - observed)
        totals["de"] += n_j * de
    n = totals["n"]
    observed = totals["observed"] / n
    expected = totals["expected"] / n
    out["observed"] = observed
    out["expected"] = expected
    out["agreement"] = (observed - expected) / (1 - expected) if expected != 1 else NAN
    out["raw_prevalence"] = Fraction(totals["positives"], n)
    out["alpha_hamming"] = 1 - totals["do"] / totals["de"] if totals["de"] != 0 else NAN
    return out


# --------------------------------------------------------------------------------------
# span F1 (Hripcsak & Rothschild 2005)
# --------------------------------------------------------------------------------------

def overlaps(first, second) -> bool:
    """Half-open spans share at least one position (touching spans do not)."""
    return first[0] < second[1] and second[0] < first[1]


def maximum_matching_size(spans_a, spans_b) -> int:
    """The largest number of one-to-one pairs (a, b) that overlap: every matching tried."""
    best = 0

    def extend(i, used, size):
        nonlocal best
        if size + (len(spans_a) - i) <= best:
            return  # cannot beat the best found
        if i == len(spans_a):
            best = max(best, size)
            return
        for k, b in enumerate(spans_b):
            if k not in used and overlaps(spans_a[i], b):
                extend(i + 1, used | {k}, size + 1)
        extend(i + 1, used, size)  # spans_a[i] left unmatched

    extend(0, frozenset(), 0)
    return best


def f1_counts(corpus: Corpus, a, b, label, match) -> tuple[int, int, int]:
    """(TP, |A|, |B|) of annotators a and b on one label, on the documents both annotated."""
    tp = size_a = size_b = 0
    for d in corpus.documents:
        if (d, a) not in corpus.annotated or (d, b) not in corpus.annotated:
            continue
        spans_a = corpus.spans_of(d, a, label)
        spans_b = corpus.spans_of(d, b, label)
        size_a += len(spans_a)
        size_b += len(spans_b)
        if match == "exact":
            tp += sum(1 for s in spans_a if s in spans_b)
        else:
            tp += maximum_matching_size(spans_a, spans_b)
    return tp, size_a, size_b


def f1(tp, size_a, size_b):
    return Fraction(2 * tp, size_a + size_b) if size_a + size_b else NAN


def span_f1_oracle(corpus: Corpus, match="exact") -> dict:
    """``label_pair_f1[label][(a, b)]``, ``pair_f1[(a, b)]`` (micro: counts summed over labels)
    and ``pair_macro_f1[(a, b)]`` (mean over the labels where the pair's F1 is defined),
    for every ordered pair a != b."""
    label_pair, pair, macro = {}, {}, {}
    for a, b in itertools.permutations(corpus.annotators, 2):
        tp_sum = size_sum = 0
        defined = []
        for label in corpus.labels:
            tp, size_a, size_b = f1_counts(corpus, a, b, label, match)
            value = f1(tp, size_a, size_b)
            label_pair.setdefault(label, {})[(a, b)] = value
            if size_a + size_b:
                defined.append(value)
            tp_sum += tp
            size_sum += size_a + size_b
        pair[(a, b)] = Fraction(2 * tp_sum, size_sum) if size_sum else NAN
        macro[(a, b)] = sum(defined) / len(defined) if defined else NAN
    return {"label_pair_f1": label_pair, "pair_f1": pair, "pair_macro_f1": macro}


# --------------------------------------------------------------------------------------
# Krippendorff's unitizing alpha (1995; 2004 section 12.4)
# --------------------------------------------------------------------------------------

def segments(units, length):
    """The continuum [0, length) cut into one coder's units and the gaps between them:
    ``(begin, length, is_unit)``. Touching units stay two units (no gap between them)."""
    out = []
    position = 0
    for begin, end in sorted(units):
        if begin < position:
            raise ValueError("units of one coder and category overlap")
        if begin > position:
            out.append((position, begin - position, False))
        out.append((begin, end - begin, True))
        position = end
    if position < length:
        out.append((position, length - position, False))
    return out


def unit_distance(first, second) -> int:
    """Krippendorff's squared distance between two segments of two coders (2004, p. 252):
    two overlapping units: the squared differences of their begins and of their ends; a
    unit inside the other coder's gap: the unit's length squared; anything else 0."""
    b1, l1, unit1 = first
    b2, l2, unit2 = second
    if unit1 and unit2 and -l1 < b1 - b2 < l2:
        return (b1 - b2) ** 2 + ((b1 + l1) - (b2 + l2)) ** 2
    if unit1 and not unit2 and b2 <= b1 and b1 + l1 <= b2 + l2:
        return l1 * l1
    if unit2 and not unit1 and b1 <= b2 and b2 + l2 <= b1 + l1:
        return l2 * l2
    return 0


def unitizing_oracle(units_by_coder: dict, length: int) -> tuple[Fraction, Fraction]:
    """(D_o, D_e) of one category on one continuum [0, length), exactly.

    ``units_by_coder`` maps every coder (those without a unit too) to their units
    ``[(begin, end), ...]`` of the category.

    D_o = sum over ordered coder pairs i != j, segments g of i and h of j, of
    delta(g, h), / (m (m - 1) L^2).
    D_e = (2 / L) sum over units u of every coder [(N - 1)(2 l^3 - 3 l^2 + l) / 3
    + l^2 sum over gaps G of every coder with G >= l of (G - l + 1)]
    / (m L (m L - 1) - sum over units l (l - 1)), N the number of units of all coders.
    """
    m = len(units_by_coder)
    L = length
    cut = {coder: segments(units, L) for coder, units in units_by_coder.items()}
    total = 0
    for i, j in itertools.permutations(cut, 2):
        for g in cut[i]:
            for h in cut[j]:
                total += unit_distance(g, h)
    observed = Fraction(total, m * (m - 1) * L * L)

    unit_lengths = [l for segs in cut.values() for _, l, is_unit in segs if is_unit]
    gap_lengths = [l for segs in cut.values() for _, l, is_unit in segs if not is_unit]
    n_units = len(unit_lengths)
    numerator = Fraction(0)
    for l in unit_lengths:
        numerator += Fraction((n_units - 1) * (2 * l**3 - 3 * l**2 + l), 3)
        numerator += l * l * sum(g - l + 1 for g in gap_lengths if g >= l)
    numerator *= Fraction(2, L)
    denominator = m * L * (m * L - 1) - sum(l * (l - 1) for l in unit_lengths)
    expected = numerator / denominator
    return observed, expected
