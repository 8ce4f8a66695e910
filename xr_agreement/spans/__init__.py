"""Spans: agreement on annotations that make their own units (named entities, segments,
highlights, speaker turns).

The data is the span table (:func:`from_spans`, or ``read_spans`` from a tool's export).
Three views of it: positions (every character or token a 0/1 decision per label, so the MLA
framework applies; counted by a sweep over the span boundaries), units (span F1, unitizing
alpha, gamma) and disputed regions (the list to adjudicate).

The measures' modules load on first use (numba compiles only what a call needs).
"""

import importlib as _importlib

from .table import REQUIRED, from_spans, is_span_table, span_arrays

# public name -> module of this package
_SOURCES = {
    "span_positions": ".positions", "span_mla": ".positions", "span_alpha": ".positions",
    "span_f1": ".units", "span_disagreements": ".disputes",
    "unitizing_alpha": ".unitizing", "gamma": ".alignment",
}

__all__ = ["from_spans", "is_span_table", "span_arrays", "REQUIRED", *_SOURCES]


def __getattr__(name):
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_importlib.import_module(source, __name__), name)
