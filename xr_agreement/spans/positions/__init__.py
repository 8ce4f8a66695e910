"""Position-level span agreement: every position of every document a 0/1 decision per
label (:func:`span_positions`), and MLA and Hamming alpha on them computed from the span
boundaries by a sweep (:func:`span_mla`, :func:`span_alpha`), with intervals that resample
documents."""

from .api import span_alpha, span_mla, span_positions

__all__ = ["span_positions", "span_mla", "span_alpha"]
