"""Text from the input made safe for where the outputs go: a terminal, markdown, a spreadsheet.

Ids, labels, label names and file names come from the annotation files, which may be careless
or hostile. The renderers and the command line pass every such text through one of these
rules (docs/report.md and docs/next_steps.md state them):

- :func:`visible`: control characters (C0 and C1, DEL, Unicode line and paragraph separators)
  and bidirectional embeddings, overrides and isolates are shown as escapes (``\\x1b``,
  ``\\u202e``), so an ESC, BEL or OSC sequence in a label never reaches a terminal raw and a
  right-to-left override cannot reorder what is shown. For text meant for people only: files
  meant for machines (JSON, a CSV written with ``--output``) keep the exact strings.
- :func:`markdown_text`: markdown and HTML markup shown as text (``<``, ``&``, links, emphasis,
  code, a block marker at the start of a line), then :func:`visible`.
- :func:`spreadsheet_cell`: the OWASP "CSV Injection" rule for text cells, a ``'`` before a
  cell that a spreadsheet would run as a formula.
- :func:`json_text`: JSON written with ``ensure_ascii=False`` keeps non-ASCII text readable;
  the characters :func:`visible` escapes and JSON leaves raw are written as ``\\uXXXX``.
- :func:`join_ids` / :func:`split_ids`: several ids in one cell, separated by ``;``, with
  ``\\`` and ``;`` inside an id escaped by ``\\`` so that the cell splits back exactly.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, line and paragraph separators (U+2028, U+2029), the
# bidirectional embeddings and overrides (U+202A-U+202E) and isolates (U+2066-U+2069); the
# marks LRM, RLM and ALM stay, as right-to-left text needs them
_BEYOND_C0 = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_INVISIBLE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
# what json.dumps(ensure_ascii=False) leaves raw (it escapes the C0 controls only)
_RAW_IN_JSON = re.compile(f"[{_BEYOND_C0}]")


def _escape(match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with control characters and bidi overrides shown as escapes.

    Examples
    --------
    >>> visible("ok\\x1b]8;;http://x\\x07link\\u202e")
    'ok\\\\x1b]8;;http://x\\\\x07link\\\\u202e'
    >>> visible("caf\\u00e9 \\u05e9\\u05dc\\u05d5\\u05dd")  # printable text is kept
    'café שלום'
    """
    return _INVISIBLE.sub(_escape, text)


def json_text(text: str) -> str:
    """JSON text of ``json.dumps(..., ensure_ascii=False)`` with the characters it leaves raw
    that :func:`visible` escapes (DEL, C1, separators, bidi) written as ``\\uXXXX``: the same
    strings once parsed, nothing a terminal acts on.

    Examples
    --------
    >>> import json
    >>> json_text(json.dumps(["café", "\\x1b", "\\u202e"], ensure_ascii=False))
    '["café", "\\\\u001b", "\\\\u202e"]'
    """
    return _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


# the characters markdown (CommonMark, GitHub) reads as markup inside a line, backslash among
# them, so that an escape written by the input cannot undo ours. Brackets are markup only where
# they make a link or image: "](" (inline) and "][" or "]:" (references); "[" at the start of a
# line below, which could begin a reference definition. Intervals such as [0.1, 0.2] stay.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*|~]|\](?=[(\[:]))")
# "_" opens or closes emphasis only next to a non-alphanumeric character: A_ml stays as is
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# what starts a block at the start of a line: heading, quote (already &gt;), list item,
# setext underline, ordered list
_BLOCK_START = re.compile(r"^(\s*)([#+=\[-]|\d+[.)])")


def markdown_text(text: str, *, line_start: bool = False) -> str:
    """``text`` shown as itself in markdown: HTML tags, entities, links, images, emphasis and
    code spans are escaped, control characters shown by :func:`visible` (a newline too, so the
    text stays on its line). ``line_start``: the text begins a line (a paragraph or a list
    entry), where ``#``, ``-``, ``+``, ``=`` or ``1.`` would start a block.

    Examples
    --------
    >>> markdown_text("<script>alert(1)</script> [x](javascript:alert(1)) a|b")
    '&lt;script&gt;alert(1)&lt;/script&gt; [x\\\\](javascript:alert(1)) a\\\\|b'
    >>> markdown_text("A_o,min and _x_ on\\ntwo lines")
    'A_o,min and \\\\_x\\\\_ on\\\\x0atwo lines'
    >>> markdown_text("# not a heading", line_start=True)
    '\\\\# not a heading'
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _UNDERSCORE.sub(r"\\_", _MARKDOWN_PUNCTUATION.sub(r"\\\1", text))
    if line_start:
        text = _BLOCK_START.sub(r"\1\\\2", text)
    return visible(text)


# OWASP "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection): a cell that
# begins with = + - @, tab or carriage return is run as a formula; OWASP ASVS 1.2.10 adds the
# null character. A cell that begins with ' is prefixed too, so that removing one leading '
# always gives the text back (a spreadsheet shows the text after the first ').
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\x00", "'")


def spreadsheet_cell(value):
    """A text cell with a ``'`` in front when it begins with a formula character (or with
    ``'``); other values (numbers written by us) unchanged.

    Examples
    --------
    >>> spreadsheet_cell("=HYPERLINK(\\"http://x\\")"), spreadsheet_cell("-0.5")
    ('\\'=HYPERLINK("http://x")', "'-0.5")
    >>> spreadsheet_cell(-0.5), spreadsheet_cell("doc-1")
    (-0.5, 'doc-1')
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def join_ids(ids, separator: str = ";") -> str:
    """Ids joined by ``separator``, a ``\\`` or ``separator`` inside an id escaped by ``\\``.

    Examples
    --------
    >>> join_ids(["a;b", "c\\\\d", 3])
    'a\\\\;b;c\\\\\\\\d;3'
    >>> split_ids(join_ids(["a;b", "c\\\\d", "3", ""]))
    ['a;b', 'c\\\\d', '3', '']
    """
    return separator.join(str(i).replace("\\", "\\\\").replace(separator, "\\" + separator)
                          for i in ids)


def split_ids(cell: str, separator: str = ";") -> list[str]:
    """The ids of a :func:`join_ids` cell, as text (an empty cell: no id)."""
    if cell == "":
        return []
    ids, current, escaped = [], [], False
    for character in cell:
        if escaped:
            current.append(character)
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == separator:
            ids.append("".join(current))
            current = []
        else:
            current.append(character)
    ids.append("".join(current))
    return ids
