"""Run a docs page's examples: each ```python block in turn, in one namespace, its printed
output compared with the ```text block that follows it (trailing spaces aside)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def run_page(name: str) -> tuple[dict, int]:
    """(the namespace the page's code leaves, the number of outputs checked)."""
    blocks = re.findall(r"```(python|text)\n(.*?)```", (DOCS / name).read_text(encoding="utf-8"),
                        re.S)
    namespace, checked = {}, 0
    for (kind, code), following in zip(blocks, blocks[1:] + [("", "")]):
        if kind != "python":
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)
        if following[0] == "text":
            shown = [line.rstrip() for line in following[1].splitlines()]
            assert [line.rstrip() for line in printed.getvalue().splitlines()] == shown
            checked += 1
    return namespace, checked
