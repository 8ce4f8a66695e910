"""Render the built documentation in headless Chromium and check what a reader sees.

    python docs/check_site.py docs/_build/html [--screenshots FOLDER]

For the index, the installation page and one API page (``xr_agreement.mla``, and the
accessor's ``DataArray.agreement.mla``): the page renders (``--dump-dom`` prints the DOM after
load), shows the theme's navigation and the text it must show, no table runs past the
page's column at 1280 pixels (measured in the page by a script, on a copy of it), and a
screenshot of it is a real rendering (a blank page is a few kilobytes). Exits 1 naming each failure. .ci/run runs it
after the build; ``--screenshots`` keeps the PNGs to look at.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# page -> texts its rendered DOM must hold
PAGES = {
    "index.html": ["xr-agreement", "How reliable are your annotations?", "Installation",
                   "API reference", "bd-sidebar"],
    "install.html": ["pip install", "Supported versions", "Extras", "pydata-sphinx-theme"],
    "generated/xr_agreement.mla.html": ["Multi-Label Agreement of binary multi-label decisions",
                                        "Parameters", "baseline", "Examples"],
    "generated/xarray.DataArray.agreement.mla.html": [
        "Multi-Label Agreement of binary multi-label decisions", "The accessor form of"],
    "api.html": ["Multi-Label Agreement of binary multi-label decisions"],
}
# a summary no API table may show any more: the accessor's old first line
REFUSED = {"api.html": ["Call xr_agreement."]}
OVERFLOW_PROBE = """<script>
window.addEventListener("load", () => {
  const wide = [...document.querySelectorAll("article table")].filter(
    (table) => table.getBoundingClientRect().right
      > table.closest("article").getBoundingClientRect().right + 1);
  document.body.setAttribute("data-overflowing-tables", String(wide.length));
});
</script>"""
SMALLEST_SCREENSHOT = 20_000  # bytes: a rendered page of text, not a blank one

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def chromium() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("check_site: Chromium is needed (apt-get install chromium)")
    return browser


def check(site: Path, screenshots: Path) -> list[str]:
    failures = []
    browser = chromium()
    with tempfile.TemporaryDirectory() as profile:
        for page, texts in PAGES.items():
            path = site / page
            if not path.is_file():
                failures.append(f"{page}: not built")
                continue
            # a copy beside the page (its links resolve) with a script that counts the
            # tables wider than their column once laid out at the screenshot's width
            probe = path.with_name(f".check_site_{path.name}")
            probe.write_text(path.read_text(encoding="utf-8").replace(
                "</body>", OVERFLOW_PROBE + "</body>"), encoding="utf-8")
            try:
                dom = subprocess.run(
                    [browser, *FLAGS, f"--user-data-dir={profile}/dom", "--window-size=1280,1000",
                     "--dump-dom", probe.resolve().as_uri()],
                    check=True, capture_output=True, text=True, timeout=120).stdout
            finally:
                probe.unlink()
            overflowing = re.search(r'data-overflowing-tables="(\d+)"', dom)
            if overflowing is None:
                failures.append(f"{page}: the layout probe did not run")
            elif int(overflowing.group(1)):
                failures.append(f"{page}: {overflowing.group(1)} table(s) wider than the column")
            # the text a reader sees (tags out: a link splits "Call xr_agreement.mla()")
            shown = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", dom)).split())
            shown = re.sub(r" ([.,)])", r"\1", shown)
            failures += [f"{page}: does not show {text!r}" for text in texts
                         if text not in dom and text not in shown]
            failures += [f"{page}: shows {text!r}" for text in REFUSED.get(page, [])
                         if text in shown]
            png = screenshots / (page.replace("/", "_").removesuffix(".html") + ".png")
            subprocess.run(
                [browser, *FLAGS, f"--user-data-dir={profile}/shot", "--window-size=1280,1000",
                 f"--screenshot={png}", path.resolve().as_uri()],
                check=True, capture_output=True, timeout=120)
            if not png.is_file() or png.stat().st_size < SMALLEST_SCREENSHOT:
                failures.append(f"{page}: the screenshot is blank or missing")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path, help="the built HTML folder")
    parser.add_argument("--screenshots", type=Path, default=None,
                        help="keep the screenshots in this folder")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        screenshots = args.screenshots or Path(folder)
        screenshots.mkdir(parents=True, exist_ok=True)
        failures = check(args.site, screenshots)
    for failure in failures:
        print(f"check_site: {failure}", file=sys.stderr)
    if not failures:
        print(f"check_site: {len(PAGES)} pages render as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
