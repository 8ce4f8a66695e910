"""Guards on label cells, shared by every reader: a cell that looks like JSON or a Python
list is parsed or refused, never taken as one label named like a list.

Functions take ``where``, a callable ``where(message, row, column)`` that returns the
reader's located error, so that the message names the file, the row and the column.
"""

from __future__ import annotations

import ast
import json
import math

import numpy as np

# separators people join labels with; a label made of other labels joined by one of these
# (when it is not the separator in use) is refused
SEPARATORS = (",", ";", "|", "#", "+")


def joined_labels(value, labels, sep_in_use) -> tuple[str, list[str]] | None:
    """``(separator, parts)`` when the label ``value`` is other labels of ``labels`` joined by
    a separator other than ``sep_in_use`` ("x, y" beside "x" and "y"), else None. The one
    test behind the joined-label guard of the table reader and of the tool readers."""
    if not isinstance(value, str):
        return None
    for sep in SEPARATORS:
        if sep == sep_in_use or sep not in value:
            continue
        parts = [p.strip() for p in value.split(sep)]
        if all(p in labels for p in parts):
            return sep, parts
    return None


def blank(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def label_text(value, where, row=None, column=None) -> str:
    """One label as text; a value that is itself a list, an object or JSON text is refused
    (it would silently become one label named like a list)."""
    if isinstance(value, bool) or value is None:
        raise where(f"a label must be text, got {value!r}", row, column)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple, dict)):
        raise where(f"a label must be text, got a nested {type(value).__name__} {value!r}",
                    row, column)
    text = str(value).strip()
    if text[:1] in "[{" or text.startswith("('"):
        raise where(f"the label {text!r} looks like JSON or a Python list, not one label "
                    "name; export the labels as a list", row, column)
    if not text:
        raise where("an empty label", row, column)
    return text


def cell_labels(cell, sep: str, where, row=None, column=None) -> list[str]:
    """The labels of a text cell: a JSON list or a Python list repr is parsed, a JSON object
    refused, other text split at ``sep``; blank = no label."""
    if isinstance(cell, (list, tuple, np.ndarray)):
        return [label_text(v, where, row, column) for v in cell if not blank(v)]
    if blank(cell):
        return []
    if not isinstance(cell, str):
        return [label_text(cell, where, row, column)]
    text = cell.strip()
    if text.startswith("{"):
        raise where(f"the cell {text[:60]!r} is a JSON object, not a label list; choose the "
                    "reader of the tool that wrote it (--from)", row, column)
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            try:
                parsed = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                raise where(f"the cell {text[:60]!r} looks like a list but cannot be parsed",
                            row, column) from None
        if not isinstance(parsed, (list, tuple)):
            raise where(f"the cell {text[:60]!r} is not a list of labels", row, column)
        return [label_text(v, where, row, column) for v in parsed if not blank(v)]
    return [label_text(part, where, row, column) for part in text.split(sep) if part.strip()]
