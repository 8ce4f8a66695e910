"""The span table (xr_agreement.from_spans): what it keeps, what it refuses, and the
``.agreement`` attribute of Datasets (span tables get the accessor, results keep their
variable)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement.spans import from_spans, span_arrays

RECORDS = [
    ("doc-1", "ann", 0, 7, "LOC"),
    ("doc-1", "bob", 0, 7, "LOC"),
    ("doc-1", "bob", 2, 5, "PER"),  # nested inside bob's LOC, another label
    ("doc-2", "ann", 10, 18, "ORG"),
]


def test_the_table_keeps_every_span_in_order_with_its_ids():
    table = from_spans(RECORDS, lengths={"doc-1": 20, "doc-2": 30, "doc-3": 5},
                       annotated=[("doc-1", "ann"), ("doc-1", "bob"), ("doc-2", "ann"),
                                  ("doc-3", "ann"), ("doc-3", "bob")])
    assert table.sizes == {"span": 4, "document": 3, "annotator": 2, "label": 3}
    back = list(zip(table.document.values, table.annotator.values, table.start.values,
                    table.end.values, table.label.values))
    assert back == RECORDS
    assert list(table.document_id.values) == ["doc-1", "doc-2", "doc-3"]
    assert table.length.sel(document_id="doc-3").item() == 5
    # doc-2 was never seen by bob: not annotated; doc-3 read by both, nothing marked
    assert not table.annotated.sel(document_id="doc-2", annotator_id="bob").item()
    assert table.annotated.sel(document_id="doc-3").values.all()
    arrays = span_arrays(table)
    assert list(arrays.document_ids[arrays.document]) == [r[0] for r in RECORDS]
    assert list(arrays.label_ids[arrays.label]) == [r[4] for r in RECORDS]


def test_defaults_lengths_from_the_largest_end_and_annotated_from_the_spans():
    table = from_spans(pd.DataFrame(RECORDS, columns=["document", "annotator", "start",
                                                      "end", "label"]))
    assert dict(zip(table.document_id.values, table.length.values)) == {"doc-1": 7,
                                                                        "doc-2": 18}
    assert table.annotated.values.tolist() == [[True, True], [True, False]]


def test_records_are_not_modified_and_a_frame_keeps_its_index():
    frame = pd.DataFrame(RECORDS, columns=["document", "annotator", "start", "end", "label"],
                         index=[10, 11, 12, 13])
    before = frame.copy()
    from_spans(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_real_offsets_and_labels_universe_and_texts():
    table = from_spans([("talk", "a", 0.5, 2.25, "speech"), ("talk", "b", 0.0, 2.0, "speech")],
                       labels=["speech", "music"])
    assert table.start.dtype == np.float64 and table.attrs["offsets"] == "real"
    assert list(table.label_id.values) == ["speech", "music"]
    text = from_spans([("d", "a", 0, 7, "LOC")], texts={"d": "Nairobi is far"})
    assert text.length.item() == 14 and text.text.item() == "Nairobi is far"


def test_ids_follow_the_readers_rule():
    # a whole float is its int; 1 and "1" are one id when text ids are present
    table = from_spans([(1.0, "a", 0, 2, "x"), (1, "b", 0, 2, "x"), ("2", "a", 0, 1, "x"),
                        (2, "b", 0, 1, "x")])
    assert list(table.document_id.values) == ["1", "2"]


@pytest.mark.parametrize("records, kwargs, message", [
    ([("d", "a", 3, 3, "L")], {}, "start must be less than end"),
    ([("d", "a", 5, 2, "L")], {}, "start must be less than end"),
    ([("d", "a", -1, 2, "L")], {}, "negative"),
    ([("d", "a", 0, 9, "L")], {"lengths": {"d": 8}}, "past the document's length"),
    ([("d", "a", 0, 2, "L"), ("d", "a", 0, 2, "L")], {}, "same span as span 0"),
    ([("d", None, 0, 2, "L")], {}, "annotator of span 0"),
    ([("d", "a", 0, 2, True)], {}, "label of span 0"),
    ([("d", "a", 0, 2, float("nan"))], {}, "label of span 0"),
    ([("d", "a", 0, "x", "L")], {}, "end offsets must be numbers"),
    ([("d", "a", 0, float("inf"), "L")], {}, "finite"),
    ([("d", "a", 0, 2, "L")], {"labels": ["M"]}, "not one of the labels"),
    ([("d", "a", 0, 2, "L")], {"annotated": [("d", "b")]}, "does not list the pair"),
    ([("d", "a", 0, 2, "L")], {"annotated": [("d", "a"), ("e", "a")]}, "'e' holds no span"),
    ([("d", "a", 0, 2, "L")], {"lengths": {"e": 3}}, "no length for the document 'd'"),
    ([("d", "a", 0, 2)], {}, "must be (document, annotator, start, end, label)"),
    ([("d", "a", 0, 4, "L")], {"texts": {"d": "abc"}}, "past the document's length 3"),
    ([("d", "a", 0, 2, "L")], {"lengths": {"d": 4}, "texts": {"d": "abc"}}, "text has 3"),
])
def test_bad_records_are_refused_naming_the_span(records, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        from_spans(records, **kwargs)


def test_a_frame_without_the_columns_is_refused_naming_them():
    with pytest.raises(ValueError, match=r"lack the columns \['label'\]"):
        from_spans(pd.DataFrame({"document": ["d"], "annotator": ["a"], "start": [0],
                                 "end": [1]}))


def test_results_keep_their_agreement_variable_beside_the_span_accessor():
    result = xr_agreement.datasets.bias_example().agreement.mla()
    assert isinstance(result.agreement, xr.DataArray)
    assert float(result.agreement) == pytest.approx(0.232, abs=5e-4)
    result["agreement"] = result.agreement * 0 + 2  # no stale cached value
    assert float(result.agreement) == 2
    table = from_spans(RECORDS)
    assert type(table.agreement).__name__ == "SpanTableAccessor"
    with pytest.raises(AttributeError):
        xr.Dataset({"other": 1}).agreement
    assert xr.Dataset(attrs={"agreement": "x"}).agreement == "x"


def test_span_arrays_refuses_a_dataset_that_is_not_a_span_table():
    with pytest.raises(TypeError, match="expected a span table"):
        span_arrays(xr.Dataset({"start": ("span", [0])}))
    broken = from_spans(RECORDS).assign_coords(label=("span", ["LOC", "LOC", "XXX", "ORG"]))
    with pytest.raises(ValueError, match="span 2 has label 'XXX'"):
        span_arrays(broken)


def test_integer_offsets_past_2_to_the_53_are_kept_exactly():
    # through float64 the end 2**53 + 3 would become 2**53 + 4 and the table "real"
    base = 2**53
    table = from_spans([("d", "a", base + 2, base + 3, "X"), ("d", "b", base + 2, base + 5,
                                                               "X")],
                       lengths={"d": base + 8})
    assert table.start.dtype == np.int64 and table.attrs["offsets"] == "integer"
    assert table.start.values.tolist() == [base + 2, base + 2]
    assert table.end.values.tolist() == [base + 3, base + 5]
    assert int(table.length.sel(document_id="d")) == base + 8
    with pytest.raises(ValueError, match="beyond the 64-bit"):
        from_spans([("d", "a", 0, 2**64, "X")])


def test_spans_of_a_pair_later_marked_not_annotated_are_refused_by_every_measure():
    # marking bob's d1 as not annotated after from_spans left his spans there: span_f1
    # counted them (pair F1 4/3 > 1) and the disagreements put them in a reader's place
    table = from_spans([("d1", "ann", 0, 5, "X"), ("d1", "bob", 0, 5, "X"),
                        ("d1", "cy", 6, 8, "X"), ("d2", "ann", 0, 3, "X"),
                        ("d2", "bob", 0, 3, "X"), ("d2", "cy", 0, 3, "X")],
                       lengths={"d1": 10, "d2": 5})
    table.annotated.loc[dict(document_id="d1", annotator_id="bob")] = False
    message = r"span 1 \(document 'd1', annotator 'bob', .*start 0, end 5, .*not annotated"
    with pytest.raises(ValueError, match=message):
        span_arrays(table)
    for measure in (lambda t: xr_agreement.spans.span_f1(t, "overlap"),
                    xr_agreement.spans.span_disagreements, xr_agreement.spans.unitizing_alpha,
                    xr_agreement.span_mla):
        with pytest.raises(ValueError, match=message):
            measure(table)
    # dropping the pair's spans too is the way: then bob is missing on d1
    kept = table.isel(span=[0, 2, 3, 4, 5])
    f1 = xr_agreement.spans.span_f1(kept)
    assert int(f1.pair_n_documents.sel(annotator_1="ann", annotator_2="bob")) == 1
    assert float(f1.pair_f1.sel(annotator_1="ann", annotator_2="bob")) == 1.0


def test_a_length_cut_below_a_span_is_refused_by_every_measure():
    # unitizing laid the span [0, 5) of a document cut to 4 across the next document
    table = from_spans([("d1", "ann", 0, 5, "X"), ("d1", "bob", 2, 5, "X"),
                        ("d2", "ann", 0, 3, "X"), ("d2", "bob", 1, 3, "X")],
                       lengths={"d1": 10, "d2": 5})
    table["length"][:] = [4, 5]
    message = r"span 0 \(document 'd1', .*end 5, document length 4\) ends past"
    for measure in (span_arrays, xr_agreement.spans.unitizing_alpha,
                    xr_agreement.spans.span_f1, xr_agreement.spans.span_disagreements,
                    xr_agreement.span_mla):
        with pytest.raises(ValueError, match=message):
            measure(table)
    table["length"][:] = [10, 5]
    table["start"][1] = 6  # start after end
    with pytest.raises(ValueError, match=r"span 1 .* does not end after it starts"):
        span_arrays(table)


def test_integer_ids_past_int64_are_kept():
    # a 64-bit unsigned hash as a document id raised OverflowError from numpy
    big = 2**64 - 1
    table = from_spans([(big, "a", 0, 3, "X"), (big, "b", 0, 2, "X"), (7, "a", 0, 1, "X")],
                       lengths={big: 4, 7: 2}, annotated=[(big, "a"), (big, "b"), (7, "a"),
                                                          (7, "b")])
    assert table.document_id.values.tolist() == [big, 7]
    assert int(table.length.sel(document_id=big)) == 4
    f1 = xr_agreement.spans.span_f1(table, "overlap")
    assert f1.document_f1.values.tolist()[0] == 1.0  # [0, 3) and [0, 2) overlap
    assert f1.document_f1.values.tolist()[1] == 0.0  # on 7 b marked nothing: 0 of 1 span


def test_a_missing_offset_in_a_nullable_integer_column_is_refused_naming_the_span():
    # pandas' Int64 with <NA> raised TypeError from int() instead of naming the span
    frame = pd.DataFrame({"document": ["d", "d"], "annotator": ["a", "b"],
                          "start": pd.array([0, 1], dtype="Int64"),
                          "end": pd.array([3, None], dtype="Int64"), "label": ["X", "X"]})
    with pytest.raises(ValueError, match="end of span 1 must be a finite number"):
        from_spans(frame)
    frame["end"] = pd.array([3, 2**53 + 1], dtype="Int64")
    assert from_spans(frame).end.values.tolist() == [3, 2**53 + 1]
