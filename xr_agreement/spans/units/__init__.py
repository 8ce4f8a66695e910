"""Span F1 between annotators (:func:`span_f1`): spans as units, matched exactly or by
overlap, the standard of the NER literature (Hripcsak & Rothschild 2005)."""

from .api import span_f1

__all__ = ["span_f1"]
