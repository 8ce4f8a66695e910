"""Span exports of the annotation tools -> span tables (:func:`xr_agreement.from_spans`).

``reading.py`` holds :func:`read_spans` (which reader, by ``tool=`` or by content); one
module per tool format: ``label_studio.py``, ``doccano.py``, ``prodigy.py``, ``brat.py``,
``conll.py``. Each says what its tool means by "no decision", as the classification readers
do.
"""


def read_spans(path, tool=None, control=None, labels=None):
    """Read a span export; see :func:`xr_agreement.io.spans.reading.read_spans`."""
    from .reading import read_spans as _read_spans

    return _read_spans(path, tool=tool, control=control, labels=labels)


__all__ = ["read_spans"]
