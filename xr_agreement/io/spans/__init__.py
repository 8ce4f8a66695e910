"""Span exports of the annotation tools -> span tables (:func:`xr_agreement.from_spans`).

``reading.py`` holds :func:`read_spans` (which reader, by ``tool=`` or by content); one
module per tool format: ``label_studio.py``, ``doccano.py``, ``prodigy.py``, ``brat.py``,
``conll.py``. Each says what its tool means by "no decision", as the classification readers
do.
"""

from .reading import read_spans

__all__ = ["read_spans"]
