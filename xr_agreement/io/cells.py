"""Guards on label cells, shared by every reader: a cell that looks like JSON or a Python
list is parsed or refused, never taken as one label named like a list.

Functions take ``where``, a callable ``where(message, row, column)`` that returns the
reader's located error, so that the message names the file, the row and the column.
"""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata

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


def invisible(text: str) -> bool:
    """True for text of blanks and invisible format characters only (a zero-width space, a
    byte-order mark): no id and no label, however it is spelled."""
    stripped = text.strip()
    if not stripped:
        return True
    if stripped.isprintable():  # its first character is printable and no blank: visible
        return False
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in stripped)


def blank(value) -> bool:
    """An empty cell: None, NaN, or text of blanks and invisible characters only.

    >>> blank(" "), blank("\u200b"), blank("a"), blank(0)
    (True, True, False, False)
    """
    if type(value) is str:  # noqa: E721 - the common case first, exactly
        return invisible(value)
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and invisible(value)


def non_finite(value) -> bool:
    """True for a float NaN or infinity (Python's json reads NaN, Infinity and -Infinity)."""
    return isinstance(value, (float, np.floating)) and not math.isfinite(value)


# a JSON string, or one of the constants Python's json accepts beyond the standard
_STRING_OR_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class _Constant(Exception):
    pass


def _refuse_constant(name):
    raise _Constant(name)


def parse_json(text: str):
    """``json.loads`` for files people hand over: ``NaN``, ``Infinity`` and ``-Infinity``
    (not JSON, but Python's json module accepts them) and nesting too deep to parse raise
    json.JSONDecodeError, located where the text allows, never a NaN id or a
    RecursionError.

    >>> parse_json('{"id": 1}')
    {'id': 1}
    >>> parse_json('[1,\\n NaN]')
    Traceback (most recent call last):
    ...
    json.decoder.JSONDecodeError: NaN is not a number JSON allows (non-finite numbers cannot be ids or labels): line 2 column 2 (char 5)
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except _Constant as constant:
        position = next((m.start(1) for m in _STRING_OR_CONSTANT.finditer(text)
                         if m.group(1)), 0)
        raise json.JSONDecodeError(f"{constant} is not a number JSON allows (non-finite "
                                   "numbers cannot be ids or labels)", text, position) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # int(): "Exceeds the limit (4300 digits)"
        long_number = re.search(r"\d{4000,}", text)
        raise json.JSONDecodeError(f"a number too long to read ({error}); an id or label "
                                   "that long must be a JSON string", text,
                                   long_number.start() if long_number else 0) from None
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read (lists or objects inside each "
                                   "other thousands of levels deep)", text, 0) from None


def parse_list_text(text: str):
    """A cell's list as JSON (``["a", "b"]``) or as a Python literal (``['a', 'b']``, what
    ``str(list)`` writes); ValueError when it is neither (NaN, nesting too deep included).

    >>> parse_list_text("['a', 'b']")
    ['a', 'b']
    """
    try:
        return parse_json(text)
    except json.JSONDecodeError:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            raise ValueError(f"cannot parse {text[:60]!r}") from None


def label_text(value, where, row=None, column=None) -> str:
    """One label as text; a value that is itself a list, an object or JSON text is refused
    (it would silently become one label named like a list)."""
    if isinstance(value, bool) or value is None:
        raise where(f"a label must be text, got {value!r}", row, column)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if non_finite(value):
        raise where(f"a label must be text or a finite number, got {value!r}", row, column)
    if isinstance(value, (float, np.floating)) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple, dict, set, np.ndarray)):
        raise where(f"a label must be text, got a nested {type(value).__name__} {value!r}",
                    row, column)
    text = str(value).strip()
    if text[:1] in "[{" or text.startswith("('"):
        raise where(f"the label {text!r} looks like JSON or a Python list, not one label "
                    "name; export the labels as a list", row, column)
    if invisible(text):
        raise where("an empty label" + (f" ({text!r}: invisible characters only)" if text
                                        else ""), row, column)
    return text


class LabelTexts(dict):
    """:func:`label_text` once per distinct text value: a reader called it for every label
    of every record (3.0 million times for a Prodigy export of 3x10^5 lines), and a label
    recurs on every line. With :class:`tools._common.ScalarIds`, read_annotations of the
    2x10^4-item exports of benchmarks/bench_read.py (gc paused): Prodigy 3.9 -> 2.5 s,
    Argilla 1.44 -> 1.03 s. Only text is kept (``"1"``, never 1, 1.0 or
    True, which compare equal to one another): any other value is checked each time. A
    value refused is never kept, so the error names the first row where it occurs, as
    without the memo."""

    def __call__(self, value, where, row=None, column=None) -> str:
        if type(value) is str:  # noqa: E721 - exactly text
            text = self.get(value)
            if text is None:
                text = self[value] = label_text(value, where, row, column)
            return text
        return label_text(value, where, row, column)

    def many(self, values: list, where, row=None, column=None) -> list[str]:
        """:meth:`__call__` of each of ``values``, in one comprehension when every one is
        text already seen."""
        try:  # only text is kept: 1, True, a list find nothing (KeyError, TypeError)
            return [self[v] for v in values]
        except (KeyError, TypeError):
            return [self(v, where, row, column) for v in values]


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
            parsed = parse_list_text(text)
        except ValueError:
            raise where(f"the cell {text[:60]!r} looks like a list but cannot be parsed",
                        row, column) from None
        if not isinstance(parsed, (list, tuple)):
            raise where(f"the cell {text[:60]!r} is not a list of labels", row, column)
        return [label_text(v, where, row, column) for v in parsed if not blank(v)]
    return [label_text(part, where, row, column) for part in text.split(sep) if part.strip()]


_INTEGER = re.compile(r"^[+-]?\d+$")


def ids_as_coordinate(values: list) -> list:
    """Ids as coordinate values: text stripped of surrounding blanks, then integer text as
    int, each step taken only when it merges no two distinct ids ("01" and "1" stay the
    texts "01" and "1", " a" and "a" stay apart), so no coordinate value is ever repeated
    by the conversion."""
    distinct = list(dict.fromkeys(values))
    step = [v.strip() if isinstance(v, str) else v for v in distinct]
    if len(set(step)) != len(distinct):
        step = distinct
    if step and all(integer_like(v) for v in step):
        numbers = [int(v) for v in step]
        if len(set(numbers)) == len(step):
            step = numbers
    mapping = dict(zip(distinct, step))
    return [mapping[v] for v in values]


def integer_like(value) -> bool:
    """Integer text that fits in int64 (longer text stays text: int() refuses 4,300 digits
    and more, and a coordinate must fit), or an integer."""
    if isinstance(value, str):
        return (bool(_INTEGER.match(value)) and len(value.lstrip("+-")) <= 19
                and -2**63 <= int(value) < 2**63)
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def number_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (float, np.floating)) and value.is_integer():
        return str(int(value))
    return str(value)


def label_spelling(pool: list) -> dict | None:
    """How the distinct labels ``pool`` (used and declared) are spelled in the result, by the
    rule the ids follow (:func:`ids_as_coordinate`): value -> final value, or None when every
    label stays as it is. Numbers only (parquet, JSON lines) stay numbers; otherwise every
    label is text (1 and "1" are one label spelled two ways), made int only when every label
    is integer text and no two would merge ("01" and "1" are two labels)."""
    if all(not isinstance(v, str) for v in pool):
        return None
    as_text = {v: number_text(v) for v in pool}
    texts = set(as_text.values())
    if all(integer_like(t) for t in texts) and len({int(t) for t in texts}) == len(texts):
        return {v: int(t) for v, t in as_text.items()}
    if all(isinstance(v, str) for v in pool):
        return None  # text stays as it is
    return as_text


def unify_labels(used_per_row: list[list], universe: list | None):
    """The labels of each row and the declared universe spelled by :func:`label_spelling`."""
    pool = list(dict.fromkeys([v for row in used_per_row for v in row] + list(universe or [])))
    final = label_spelling(pool)
    if final is None:
        return used_per_row, universe
    used_per_row = [[final[v] for v in row] for row in used_per_row]
    universe = None if universe is None else [final[v] for v in universe]
    return used_per_row, universe
