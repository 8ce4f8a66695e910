"""The output variables of :func:`~xr_agreement.spans.span_f1`, as data: long_name, symbol,
description."""

from __future__ import annotations

REFERENCE = ("Hripcsak, G. & Rothschild, A. S. (2005). Agreement, the F-measure, and "
             "reliability in information retrieval. Journal of the American Medical "
             "Informatics Association 12(3), 296-298. doi:10.1197/jamia.M1733")

MATCH_RULES = {
    "exact": "two spans match when they have the same document, start, end and label",
    "overlap": ("two spans match when they have the same document and label and share at "
                "least one position (touching spans, [a, b) and [b, c), do not); each span is "
                "matched at most once: a maximum matching (the largest number of matched "
                "pairs), ties broken by the largest total overlap"),
}

_F1 = "2 n_matched / n_spans (Hripcsak & Rothschild's pairwise F-measure, symmetric)"

# name: (long_name, symbol, description)
VARIABLES = {
    "label_pair_f1": (
        "span F1 per label and annotator pair", "F_j,ab",
        f"{_F1} over the label's spans on the documents both annotators annotated; NaN on the "
        "diagonal and where the pair has no span of the label there (0/0)"),
    "label_pair_n_matched": (
        "matched span pairs per label and annotator pair", "",
        "pairs of one span of each annotator that match (see attrs['matching']), on the "
        "documents both annotated; 0 on the diagonal"),
    "label_pair_n_spans": (
        "spans per label and annotator pair", "",
        "spans of the label by either annotator of the pair on the documents both annotated "
        "(the first's plus the second's); 0 on the diagonal"),
    "label_pair_undefined_reason": (
        "why the label pair F1 is undefined", "",
        "why `label_pair_f1` is NaN; empty where it is defined"),
    "pair_f1": (
        "span F1 per annotator pair (micro over labels)", "F_ab",
        f"{_F1} with the counts summed over labels; NaN on the diagonal and where the pair "
        "has no span on the documents both annotated"),
    "pair_macro_f1": (
        "span F1 per annotator pair (macro over labels)", "",
        "mean of label_pair_f1 over the labels where it is defined; NaN where none is"),
    "pair_n_matched": (
        "matched span pairs per annotator pair", "", "label_pair_n_matched summed over labels"),
    "pair_n_spans": (
        "spans per annotator pair", "", "label_pair_n_spans summed over labels"),
    "pair_n_documents": (
        "documents both annotated", "",
        "documents both annotators of the pair annotated (the only ones counted for the "
        "pair); on the diagonal the documents the annotator annotated"),
    "pair_undefined_reason": (
        "why the pair F1 is undefined", "",
        "why `pair_f1` and `pair_macro_f1` are NaN; empty where they are defined"),
    "label_f1": (
        "span F1 per label (micro over pairs)", "F_j",
        "2 label_n_matched / label_n_spans: the label's counts summed over the annotator "
        "pairs; NaN where no pair has a span of the label"),
    "label_n_matched": (
        "matched span pairs per label", "",
        "label_pair_n_matched summed over the annotator pairs (each unordered pair once)"),
    "label_n_spans": (
        "spans per label, over pairs", "",
        "label_pair_n_spans summed over the annotator pairs (each unordered pair once): a "
        "span counts once for every other annotator who annotated its document"),
    "label_undefined_reason": (
        "why the label F1 is undefined", "", "why `label_f1` is NaN; empty where defined"),
    "f1": (
        "span F1 (micro over pairs and labels)", "F",
        "2 n_matched / n_spans with the counts summed over annotator pairs and labels; NaN "
        "where no pair has a span (0/0)"),
    "macro_f1": (
        "span F1 (macro over labels)", "",
        "mean of label_f1 over the labels where it is defined"),
    "mean_pair_f1": (
        "span F1, mean over annotator pairs", "",
        "mean of pair_f1 over the unordered annotator pairs where it is defined: the average "
        "pairwise F-measure of Hripcsak & Rothschild (2005) for more than two annotators "
        "(each pair weighs the same, where f1 weighs pairs by their spans)"),
    "n_matched": ("matched span pairs", "", "label_n_matched summed over labels"),
    "n_spans": ("spans, over pairs", "", "label_n_spans summed over labels"),
    "undefined_reason": (
        "why the F1 is undefined", "",
        "why `f1`, `macro_f1` and `mean_pair_f1` are NaN; empty where they are defined"),
    "document_f1": (
        "span F1 per document (micro over pairs and labels)", "F_d",
        "2 document_n_matched / document_n_spans: the document's counts summed over the "
        "annotator pairs who both annotated it and over labels; NaN where fewer than two "
        "annotators annotated it or none of them marked a span (0/0)"),
    "document_n_matched": (
        "matched span pairs per document", "",
        "matched pairs in the document, summed over annotator pairs and labels"),
    "document_n_spans": (
        "spans per document, over pairs", "",
        "spans in the document, each counted once for every other annotator who annotated "
        "it"),
    "document_undefined_reason": (
        "why the document F1 is undefined", "",
        "why `document_f1` is NaN; empty where it is defined"),
}

# why an F1 is NaN
SAME_ANNOTATOR = "an annotator with itself"
NO_SHARED_DOCUMENT = "the two annotators annotated no document in common"
NO_SPANS = "no span on the documents both annotated: F1 is 0/0"
NO_LABEL_SPANS = "no span of the label on the documents both annotated: F1 is 0/0"
NO_PAIR = "no two annotators annotated the same document"
NO_SPANS_ANYWHERE = "no span on any document two annotators annotated: F1 is 0/0"
NO_LABEL_SPANS_ANYWHERE = ("no span of the label on any document two annotators annotated: "
                           "F1 is 0/0")
FEWER_THAN_TWO = "fewer than two annotators annotated the document"
NO_DOCUMENT_SPANS = "no annotator marked a span in the document: F1 is 0/0"
