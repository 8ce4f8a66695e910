"""Sphinx configuration of the xr-agreement documentation.

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (warnings are errors).
The notebooks in ``notebooks/`` are copied in and rendered with their outputs (executed when
they have none); a screenshot of the HTML report of the bundled example is taken with headless
Chromium when it is installed.
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

import sphinx_autosummary_accessors

import xr_agreement

HERE = Path(__file__).parent
ROOT = HERE.parent

project = "xr-agreement"
author = "xr-agreement developers"
release = xr_agreement.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx_autosummary_accessors",
    "myst_nb",
]
templates_path = [sphinx_autosummary_accessors.templates_path]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
autosummary_generate = True
autodoc_typehints = "none"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
nb_execution_mode = "auto"
nb_execution_timeout = 300
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "misc.highlighting_failure"]
# the theme of xarray's own documentation: wide pages for the tables and code, the API
# reference in the sidebar
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_title = "xr-agreement"
html_static_path = ["_static"]
html_css_files = ["custom.css"]


def copy_notebooks():
    target = HERE / "notebooks"
    target.mkdir(exist_ok=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy(notebook, target / notebook.name)


def report_screenshot():
    """The bundled example's HTML report, as a PNG taken by headless Chromium."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise RuntimeError("the docs build needs Chromium for the report screenshot "
                           "(apt-get install chromium)")
    report = xr_agreement.datasets.bias_example().agreement.report()
    (HERE / "_static").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        page.write_text(report.to_html(), encoding="utf-8")
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={folder}/profile", "--hide-scrollbars",
             "--window-size=1100,1600", f"--screenshot={HERE / '_static' / 'report.png'}",
             page.as_uri()],
            check=True, capture_output=True, timeout=120,
        )


copy_notebooks()
report_screenshot()
