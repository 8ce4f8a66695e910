"""span_disagreements against an oracle over positions: every position's decisions per
(annotator, label) from the spans, written out; a region is a maximal run of positions
where the annotators who annotated the document differ. Hand-built cases and random
continua with nested, overlapping and touching spans, empty documents, annotators who did
not annotate a document."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import xr_agreement
from xr_agreement.spans import span_disagreements

FIXED = ["document", "start", "end", "text", "n_annotators", "labels", "disagreement"]


def oracle_regions(docs, anns, labels, lengths, annotated, spans):
    """{(document, start, end): (disagreement, labels disputed)} from the positions."""
    out = {}
    for d in docs:
        readers = [a for a in anns if (d, a) in annotated]
        if len(readers) < 2:
            continue
        run, score, disputed_labels = None, 0, set()
        for p in range(lengths[d] + 1):
            differs, pair_count, here = False, 0, set()
            if p < lengths[d]:
                for label in labels:
                    covering = [a for a in readers if any(
                        dd == d and aa == a and ll == label and s <= p < e
                        for dd, aa, s, e, ll in spans)]
                    x = len(covering)
                    if 0 < x < len(readers):
                        differs = True
                        here.add(label)
                        pair_count += x * (len(readers) - x)
            if differs:
                if run is None:
                    run, score, disputed_labels = p, 0, set()
                score += pair_count
                disputed_labels |= here
            elif run is not None:
                out[d, run, p] = (score, disputed_labels)
                run = None
    return out


def random_case(rng):
    anns = [f"annotator {i}" for i in range(int(rng.integers(2, 5)))]
    labels = ["PER", "LOC", "ORG", "UNUSED"]
    docs = [f"d{i}" for i in range(int(rng.integers(2, 6)))]
    lengths = {d: int(rng.integers(0, 50)) for d in docs}
    lengths[docs[-1]] = 0
    annotated = {(d, a) for d in docs for a in anns if rng.random() < 0.8}
    spans = []
    for d, a in sorted(annotated):
        for _ in range(int(rng.integers(0, 6)) if lengths[d] else 0):
            here = [(s, e, ll) for (dd, _, s, e, ll) in spans if dd == d]
            if here and rng.random() < 0.5:  # someone's span again: agreement
                s, e, label = here[int(rng.integers(0, len(here)))]
            else:
                s = int(rng.integers(0, lengths[d]))
                e = int(rng.integers(s + 1, min(lengths[d], s + 15) + 1))
                label = labels[int(rng.integers(0, 3))]
            if (d, a, s, e, label) not in spans:
                spans.append((d, a, s, e, label))
    return docs, anns, labels, lengths, annotated, spans


def marks(spans, d, a, start, end, labels):
    """What a wrote over [start, end): its overlapping spans, formatted, in order of start,
    end and the label universe."""
    mine = sorted(((s, e, ll) for dd, aa, s, e, ll in spans
                   if dd == d and aa == a and s < end and start < e),
                  key=lambda span: (span[0], span[1], labels.index(span[2])))
    return "; ".join(f"{ll} [{s},{e})" for s, e, ll in mine)


@pytest.mark.parametrize("seed", range(12))
def test_regions_against_the_positions(seed):
    docs, anns, labels, lengths, annotated, spans = random_case(np.random.default_rng(seed))
    texts = {d: "".join(chr(97 + (i * 7 + len(d)) % 26) for i in range(lengths[d]))
             for d in docs}
    table = xr_agreement.from_spans(spans, lengths, sorted(annotated), labels=labels,
                                    texts=texts)
    before = table.copy(deep=True)
    got = span_disagreements(table)
    assert table.identical(before)
    anns = [str(a) for a in table.annotator_id.values]  # the table's order
    assert list(got.columns) == FIXED + anns
    want = oracle_regions(docs, anns, labels, lengths, annotated, spans)
    keys = list(zip(got.document, got.start, got.end))
    assert sorted(keys) == sorted(want), seed
    # regions never overlap and every disputed position is inside one (the keys are equal
    # to the oracle's maximal runs); sorted most disputed first, then document, start
    order = sorted(keys, key=lambda k: (-want[k][0], docs.index(k[0]), k[1]))
    assert keys == order
    for row in got.itertuples(index=False):
        key = (row.document, row.start, row.end)
        assert row.disagreement == want[key][0]
        assert set(row.labels) == want[key][1]
        assert row.text == texts[row.document][row.start:row.end]
        readers = [a for a in anns if (row.document, a) in annotated]
        assert row.n_annotators == len(readers)
        for a in anns:
            value = got.loc[keys.index(key), a]
            if a in readers:
                assert value == marks(spans, row.document, a, row.start, row.end, labels), (key, a)
            else:
                assert isinstance(value, float) and math.isnan(value), (key, a)
    assert table.agreement.disagreements().equals(got)
    top = span_disagreements(table, top=2)
    pd.testing.assert_frame_equal(top, got.head(2))


def test_hand_built_regions():
    text = "Kofi Annan visited Nairobi for the United Nations in May."
    spans = [
        # both: PER, agreed; ann nests a first name inside it
        ("d1", "ann", 0, 10, "PER"), ("d1", "bob", 0, 10, "PER"), ("d1", "ann", 0, 4, "NAME"),
        # touching spans of one label, [19,26) by ann and [26,30) by bob: one region [19,30)
        ("d1", "ann", 19, 26, "LOC"), ("d1", "bob", 26, 30, "LOC"),
        # same position, different labels: ORG vs LOC over the same characters
        ("d1", "ann", 31, 49, "ORG"), ("d1", "bob", 31, 49, "LOC"),
        # d2: cy never read it, ann marked nothing, bob marked one span
        ("d2", "bob", 2, 5, "PER"),
    ]
    annotated = [("d1", "ann"), ("d1", "bob"), ("d2", "ann"), ("d2", "bob"), ("d1", "cy")]
    table = xr_agreement.from_spans(spans, {"d1": len(text), "d2": 8}, annotated,
                                    texts={"d1": text})
    got = span_disagreements(table)
    assert list(got.columns) == FIXED + ["ann", "bob", "cy"]
    rows = {(r.document, r.start, r.end): r for r in got.itertuples(index=False)}
    # cy read d1 and marked nothing: everything anyone marked is disputed there
    assert set(rows) == {("d1", 0, 10), ("d1", 19, 30), ("d1", 31, 49), ("d2", 2, 5)}
    # [0, 4): NAME by ann only (pairs ann-bob, ann-cy), PER by ann and bob (ann-cy, bob-cy):
    # 4 pair-labels; [4, 10): PER only: 2
    assert rows["d1", 0, 10].disagreement == 4 * 4 + 6 * 2
    assert rows["d1", 0, 10].labels == ("PER", "NAME")
    assert rows["d1", 19, 30].text == "Nairobi for"
    assert got.set_index(["document", "start"]).loc[("d1", 19), "ann"] == "LOC [19,26)"
    assert got.set_index(["document", "start"]).loc[("d1", 19), "bob"] == "LOC [26,30)"
    assert got.set_index(["document", "start"]).loc[("d1", 19), "cy"] == ""
    # ORG vs LOC on the same 18 characters, with cy silent: each label has 1 of 3 -> 2 pairs
    assert rows["d1", 31, 49].disagreement == 18 * (2 + 2)
    assert rows["d2", 2, 5].text == ""  # no text known for d2
    d2 = got[got.document == "d2"].iloc[0]
    assert d2["ann"] == "" and d2["bob"] == "PER [2,5)" and math.isnan(d2["cy"])
    assert d2["n_annotators"] == 2
    assert list(got.disagreement) == sorted(got.disagreement, reverse=True)


def test_agreement_and_single_readers_give_no_region():
    spans = [(d, a, s, e, ll) for a in ("ann", "bob")
             for d, s, e, ll in [("d1", 0, 9, "ORG"), ("d1", 2, 5, "PER"), ("d1", 2, 5, "LOC"),
                                 ("d1", 9, 12, "ORG")]]
    spans.append(("d2", "ann", 0, 4, "PER"))  # only ann read d2
    table = xr_agreement.from_spans(spans, {"d1": 20, "d2": 6, "d3": 3},
                                    [("d1", "ann"), ("d1", "bob"), ("d2", "ann"),
                                     ("d3", "ann"), ("d3", "bob")])
    got = span_disagreements(table)
    assert len(got) == 0 and list(got.columns) == FIXED + ["ann", "bob"]
    # a nested span inside an agreed one, marked by one annotator only: exactly its extent
    spans.append(("d1", "bob", 3, 4, "ORG"))  # nested in bob's own ORG [0, 9): no change
    assert len(span_disagreements(xr_agreement.from_spans(spans))) == 0


def test_real_offsets_and_odd_text_keep_the_shape():
    spans = [("clip", "ann", 0.5, 2.25, "speech"), ("clip", "bob", 1.0, 2.25, "speech"),
             ("clip", "bob", 3.0, 4.5, "music")]
    table = xr_agreement.from_spans(spans, {"clip": 5.0})
    got = span_disagreements(table)
    assert list(got.columns) == FIXED + ["ann", "bob"]
    assert list(zip(got.start, got.end)) == [(3.0, 4.5), (0.5, 1.0)]
    assert list(got.disagreement) == [1.5, 0.5]
    assert got.text.tolist() == ["", ""]
    assert got.loc[1, "ann"] == "speech [0.5,2.25)"
    # text with newlines, commas, quotes and ids that look like markup: one row, as given
    text = 'a,"b"\n<c>;\td'
    odd = xr_agreement.from_spans([("doc,1\n", "<b>", 0, 5, 'L"1'), ("doc,1\n", "x;y", 2, 8,
                                                                      'L"1')],
                                  texts={"doc,1\n": text + "....."})
    got = span_disagreements(odd)
    assert got.shape == (2, len(FIXED) + 2)
    # [0, 2) by <b> alone, [2, 5) by both, [5, 8) by x;y alone: the longer region first
    assert list(zip(got.start, got.end)) == [(5, 8), (0, 2)]
    assert got.text.tolist() == [text[5:8], text[0:2]]
    assert got.document.tolist() == ["doc,1\n", "doc,1\n"]
    assert got.loc[got.start == 0, "<b>"].item() == 'L"1 [0,5)'


def test_refusals():
    table = xr_agreement.from_spans([("d", "text", 0, 2, "X"), ("d", "b", 1, 2, "X")])
    with pytest.raises(ValueError, match="annotator 'text'"):
        span_disagreements(table)
    fine = xr_agreement.from_spans([("d", "a", 0, 2, "X"), ("d", "b", 1, 2, "X")])
    for top in (-1, 1.5, True):
        with pytest.raises(ValueError, match="top"):
            span_disagreements(fine, top=top)
    assert len(span_disagreements(fine, top=0)) == 0


def test_number_ids_name_the_annotator_columns():
    # annotators 1, 2, 3 (numbers, as some exports give them): columns 1, 2, 3 after the
    # fixed ones; 3 never read document 7
    spans = [(7, 1, 0, 4, 10), (7, 2, 0, 3, 10), (8, 3, 5, 6, 11)]
    table = xr_agreement.from_spans(spans, {7: 9, 8: 9},
                                    [(7, 1), (7, 2), (8, 1), (8, 3)])
    got = span_disagreements(table)
    assert list(got.columns) == FIXED + [1, 2, 3]
    assert list(zip(got.document, got.start, got.end)) == [(7, 3, 4), (8, 5, 6)]
    # over [3, 4) annotator 2 marked nothing (its [0, 3) ends where the region begins)
    assert got.loc[0, 1] == "10 [0,4)" and got.loc[0, 2] == ""
    assert math.isnan(got.loc[0, 3]) and got.loc[1, 1] == "" and math.isnan(got.loc[1, 2])
    assert got.labels.tolist() == [(10,), (11,)]
