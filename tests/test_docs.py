"""What the documentation shows of the API: the accessor methods' summaries (the line an API
table prints) are their functions' own, and the installation page names what pyproject.toml
declares. The built site itself is rendered and checked by ``docs/check_site.py`` after the
build (.ci/run)."""

from __future__ import annotations

import inspect
import re
import tomllib
from pathlib import Path

import xarray as xr

import xr_agreement
from xr_agreement.accessor import SpanTableAccessor

ROOT = Path(__file__).resolve().parent.parent


def summary(docstring: str) -> str:
    """The first paragraph of a docstring, as one line (what autosummary's table shows)."""
    return " ".join(inspect.cleandoc(docstring).split("\n\n")[0].split())


def accessor_methods():
    """(accessor method, the public function it calls) of both accessors."""
    pairs = []
    for name, method in inspect.getmembers(type(xr.DataArray([0]).agreement),
                                           inspect.isfunction):
        if not name.startswith("_"):
            pairs.append((method, getattr(xr_agreement, name)))
    spans = {"positions": "span_positions", "mla": "span_mla", "alpha": "span_alpha",
             "report": "span_report", "disagreements": "span_disagreements"}
    for name, method in inspect.getmembers(SpanTableAccessor, inspect.isfunction):
        if not name.startswith("_"):
            pairs.append((method, getattr(xr_agreement, spans.get(name, name))))
    return pairs


def test_accessor_summaries_are_the_functions_own():
    pairs = accessor_methods()
    assert len(pairs) > 20
    for method, function in pairs:
        assert summary(method.__doc__) == summary(function.__doc__), method.__qualname__
        # and the page says where the method comes from, and keeps the rest but the examples
        # (they run once, in the function's doctest)
        assert f":func:`xr_agreement.{function.__name__}`" in method.__doc__
        assert "Examples\n" not in method.__doc__
        if "Parameters\n" in function.__doc__:
            assert "Parameters\n" in method.__doc__


def test_the_installation_page_names_every_extra_and_the_supported_versions():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert "pip install" in page
    for extra in project["optional-dependencies"]:
        assert re.search(rf"\b{re.escape(extra)}\b", page), extra
    python = project["requires-python"].lstrip(">=")
    assert f"Python {python}" in page
    for requirement in project["dependencies"]:
        name, version = re.match(r"([A-Za-z0-9_-]+)>=(\S+)", requirement).groups()
        assert f"{name} {version}" in page, requirement
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "\ninstall\n" in index
