"""The reports' renderers: text, markdown, HTML and JSON of one document model."""

from __future__ import annotations

import html
import json
import math
import textwrap

import numpy as np
import xarray as xr

from .._core.attrs import json_safe as _json_safe
from .._core.dataset import reasons_as_coordinates
from .._core.safe_text import markdown_text, visible


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


# --------------------------------------------------------------------------------------
# what both reports share
# --------------------------------------------------------------------------------------


class _RenderedReport:
    """What both reports share: text and markdown renderings of their document, and JSON
    with a format tag checked on reading."""

    _json_format = None  # the "format" entry of to_dict / to_json
    _json_formats_read = ()  # earlier formats from_json still reads (their entries a subset)
    _kind = None  # what the format error calls it

    def __str__(self) -> str:
        return _render_text(self._document())

    __repr__ = __str__

    def to_markdown(self) -> str:
        """The report as GitHub-flavoured markdown."""
        return _render_markdown(self._document())

    def to_json(self, indent: int | None = 1) -> str:
        """The report as JSON (strict: NaN is written as null); see :meth:`to_dict`."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def _json_data(cls, text: str) -> dict:
        data = json.loads(text)
        found = data.get("format")
        if found != cls._json_format and found not in cls._json_formats_read:
            family, _, version = str(found).rpartition("/")
            ours = cls._json_format.rpartition("/")[2]
            if family == cls._json_format.rpartition("/")[0]:
                if version.isdigit() and int(version) > int(ours):
                    raise ValueError(
                        f"this {cls._kind} was written in format {found!r}, by a later "
                        f"version; this version reads {cls._json_format!r}: update "
                        "xr_agreement or recompute the report from the annotations")
                # format 1 used the variable names from before docs/vocabulary.md; format 2
                # of the report had no summary block and no reading facts
                raise ValueError(
                    f"this {cls._kind} was written in format {found!r}, by an earlier version "
                    f"(other variable names or entries); this version reads "
                    f"{cls._json_format!r}: recompute the report from the annotations")
            raise ValueError(f"not an {cls._kind} (format {found!r})")
        return data


# --------------------------------------------------------------------------------------
# JSON helpers
# --------------------------------------------------------------------------------------


def _restore_numbers(data):
    """Lists that mix numbers and None (NaN written as null) back to float with NaN."""
    array = np.array(data, dtype=object)
    flat = array.ravel().tolist()
    if any(v is None for v in flat) and all(
        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in flat
    ):
        return np.array([np.nan if v is None else v for v in flat], float).reshape(array.shape)
    return data


def _dataset_from_dict(data: dict) -> xr.Dataset:
    """A result Dataset from its ``to_dict()`` in a report's JSON. Reasons written by a
    release before issue 31 are among the data variables; they become coordinates, as
    today's results have them (text among the data variables fails ``result * 2``)."""
    for group in ("coords", "data_vars"):
        for variable in data.get(group, {}).values():
            variable["data"] = _restore_numbers(variable["data"])
    return reasons_as_coordinates(xr.Dataset.from_dict(data))


# --------------------------------------------------------------------------------------
# formatting values for the documents (sections of paragraphs, lists and tables)
# --------------------------------------------------------------------------------------


class _Format:
    def __init__(self, digits: int):
        self.digits = digits

    def __call__(self, value) -> str:
        if value is None:
            return "-"
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        if isinstance(value, (int, np.integer)):
            return str(int(value))
        value = float(value)
        if math.isnan(value):
            return "NaN"
        text = f"{value:.{self.digits}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text


def _ci_label(settings) -> str:
    return f"{100 * float(settings['ci']):g}% CI" if settings.get("ci") else "CI"


def _interval_keywords(ci, *, progress=None, **options) -> dict:
    """The bootstrap keywords a report passes on: ``ci`` and the options given (None: the
    statistic's default). Without ``ci`` the options must be left unset (``progress``
    aside), and nothing is passed."""
    given = {name: value for name, value in options.items() if value is not None}
    if ci is None:
        given.pop("seed", None)
        if given:
            raise ValueError(f"{sorted(given)} only apply with ci=<level>")
        return {}
    return {"ci": ci, **given, **({} if progress is None else {"progress": progress})}


def _interval_settings(ci, seed, options: dict) -> dict:
    """The interval entries of a report's settings (JSON-safe; None: the default)."""
    return {
        "ci": ci,
        "seed": seed if isinstance(seed, (int, np.integer, type(None))) else repr(seed),
        **{name: _plain(value) for name, value in options.items()},
    }


# --------------------------------------------------------------------------------------
# renderers
# --------------------------------------------------------------------------------------


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return text == "NaN"


def _text_table(header, rows) -> list[str]:
    header = [visible(c) for c in header]
    rows = [[visible(c) for c in row] for row in rows]
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]

    def line(cells):
        return "  ".join(c.rjust(w) if _is_number(c) else c.ljust(w)
                         for c, w in zip(cells, widths)).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


def _wrap(text: str, **options) -> list[str]:
    # control characters shown as escapes before wrapping: textwrap would turn a newline or
    # tab into a space, and pass ESC, BEL and bidi overrides to the terminal raw
    return textwrap.wrap(visible(text), 92, **options)


def _render_text(doc) -> str:
    """The document as plain text for a terminal: every text passes :func:`visible`."""
    out = []
    for title, blocks in doc:
        if title == "__title__":
            heading = visible(blocks[0][1])
            out += [heading, "=" * len(heading), ""]
            for block in blocks[1:]:
                out += _wrap(block[1]) + [""]
            continue
        out += [visible(title), "-" * len(visible(title))]
        for block in blocks:
            if block[0] == "p":
                out += _wrap(block[1])
            elif block[0] == "list":
                for entry in block[1]:
                    out += _wrap(entry, initial_indent="* ", subsequent_indent="  ")
            elif block[0] == "table":
                out += _text_table(block[1], block[2])
                if block[3]:
                    out += _wrap(block[3])
            else:
                continue
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _markdown_cell(text: str) -> str:
    return markdown_text(text)


def _markdown_line(text: str) -> str:
    return markdown_text(text, line_start=True)


def _render_markdown(doc) -> str:
    """The document as markdown: every text passes :func:`markdown_text`, so a label, id or
    title from the input shows as itself (no HTML, link or emphasis of its own) and stays on
    its line."""
    out = []
    for title, blocks in doc:
        if title == "__title__":
            out += [f"# {markdown_text(blocks[0][1])}", ""]
            for block in blocks[1:]:
                out += [_markdown_line(block[1]), ""]
            continue
        out += [f"## {markdown_text(title)}", ""]
        for block in blocks:
            if block[0] == "p":
                out.append(_markdown_line(block[1]))
            elif block[0] == "list":
                out += [f"- {_markdown_line(entry)}" for entry in block[1]]
            elif block[0] == "table":
                header, rows = block[1], block[2]
                out.append("| " + " | ".join(map(_markdown_cell, header)) + " |")
                out.append("|" + "|".join(
                    "---:" if rows and _is_number(rows[0][i]) else "---"
                    for i in range(len(header))) + "|")
                out += ["| " + " | ".join(map(_markdown_cell, r)) + " |" for r in rows]
                if block[3]:
                    out += ["", f"*{markdown_text(block[3])}*"]
            else:
                continue
            out.append("")
    return "\n".join(out).rstrip() + "\n"


_CSS = """
.xra-report{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:14px;
 line-height:1.45;max-width:1100px;color:#1f2328}
.xra-report h1{font-size:20px;margin:0 0 6px}
.xra-report h2{font-size:16px;margin:18px 0 6px;border-bottom:1px solid #d0d7de}
.xra-report table{border-collapse:collapse;margin:6px 0;font-size:13px}
.xra-report th,.xra-report td{border:1px solid #d0d7de;padding:3px 8px}
.xra-report th{background:#f6f8fa;text-align:left}
.xra-report td.num{text-align:right;font-variant-numeric:tabular-nums}
.xra-report caption{caption-side:bottom;text-align:left;font-style:italic;color:#57606a}
.xra-report .headline{background:#f6f8fa;border-left:4px solid #0969da;padding:6px 10px}
.xra-report figure{display:inline-block;margin:6px 12px 6px 0}
.xra-report img{max-width:100%}
"""


def _render_html(doc, figures: dict[str, str], standalone: bool,
                 document_title: str = "Multi-label agreement report") -> str:
    def e(text: str) -> str:
        # tags and entities escaped; control characters shown as in the text report
        return visible(html.escape(text))

    out = ['<div class="xra-report">']
    for title, blocks in doc:
        if title == "__title__":
            out += [f"<h1>{e(blocks[0][1])}</h1>",
                    f'<p class="headline">{e(blocks[1][1])}</p>']
            out += [f"<p>{e(block[1])}</p>" for block in blocks[2:]]
            continue
        out.append(f"<section><h2>{e(title)}</h2>")
        for block in blocks:
            if block[0] == "p":
                out.append(f"<p>{e(block[1])}</p>")
            elif block[0] == "list":
                out.append("<ul>" + "".join(f"<li>{e(x)}</li>" for x in block[1]) + "</ul>")
            elif block[0] == "table":
                header, rows, caption = block[1], block[2], block[3]
                cells = ["<table>"]
                if caption:
                    cells.append(f"<caption>{e(caption)}</caption>")
                cells.append("<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header)
                             + "</tr></thead><tbody>")
                for row in rows:
                    cells.append("<tr>" + "".join(
                        f'<td class="num">{e(c)}</td>' if _is_number(c) else f"<td>{e(c)}</td>"
                        for c in row) + "</tr>")
                out.append("".join(cells) + "</tbody></table>")
            elif block[0] == "figures" and figures:
                captions = {"labels": "Label-wise coefficients (primary baseline), sorted; "
                            "marker size = weight; bars = interval when computed",
                            "items": "Item-level agreement, hardest items named",
                            "baselines": "Baseline sensitivity per label",
                            "pairs": "Annotator pairs: observed agreement and coefficient"}
                kinds = block[1] if len(block) > 1 else ("labels", "items", "baselines")
                for kind, png in ((k, figures[k]) for k in kinds if k in figures):
                    out.append(f'<figure><img alt="{e(captions[kind])}" '
                               f'src="data:image/png;base64,{png}"><figcaption>'
                               f"{e(captions[kind])}</figcaption></figure>")
        out.append("</section>")
    out.append("</div>")
    body = "\n".join(out)
    if not standalone:
        return f"<style>{_CSS}</style>\n{body}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(document_title)}</title><style>{_CSS}</style></head>"
            f"<body>\n{body}\n</body></html>\n")
