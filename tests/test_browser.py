"""The HTML report as a real browser renders it (headless Chromium from the system packages;
.ci/run installs it)."""

import shutil
import subprocess

import pytest

import xr_agreement


def chromium() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("Chromium is needed for this test: apt-get install chromium")
    return browser


def test_report_html_renders_the_paper_numbers(tmp_path):
    report = xr_agreement.datasets.bias_example().agreement.report(labels_fixed=True)
    page = tmp_path / "report.html"
    page.write_text(report.to_html(), encoding="utf-8")
    # --dump-dom prints the DOM after the page has loaded and rendered
    rendered = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         page.as_uri()],
        check=True, capture_output=True, text=True, timeout=120,
    ).stdout
    assert "<table" in rendered and "<img" in rendered
    # Table 2 (both universes), eq. 8 floors, Table 3 row of label 14
    for number in ("0.914", "0.232", "0.903", "0.828", "0.849", "0.758", "0.646", "0.515",
                   "0.576", "-0.344", "0.830", "0.699", "Faulty Analogy Bias"):
        assert number in rendered, number
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", f"--user-data-dir={tmp_path / 'profile2'}",
         "--window-size=1000,1400", f"--screenshot={screenshot}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    assert screenshot.stat().st_size > 10_000  # a real rendering, not a blank page
