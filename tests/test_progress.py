"""Progress bars (``_core.progress``): shown when a person watches (stderr a terminal, or an
interactive session), quiet otherwise, ``progress=`` / ``--progress`` override; over the
bootstrap, the command line's stages and dask computes."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr

import numpy as np
import pytest
import xarray as xr

import xr_agreement
from xr_agreement import cli
from xr_agreement._core import progress


@pytest.fixture(autouse=True)
def _no_delay(monkeypatch):
    """The small inputs here take less than the bars' delay: shown at once."""
    monkeypatch.setattr(progress, "DELAY", 0)


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


def decisions(seed=0, n_items=30):
    rng = np.random.default_rng(seed)
    values = (rng.random((n_items, 4, 5)) < 0.3).astype(float)
    values[rng.random(values.shape) < 0.05] = np.nan
    return xr.DataArray(values, dims=("item", "annotator", "label"),
                        coords={"item": [f"doc-{i}" for i in range(n_items)],
                                "annotator": list("abcd"), "label": list("vwxyz")})


@pytest.mark.parametrize("stream, given, shown", [
    (Terminal(), None, True), (io.StringIO(), None, False),
    (Terminal(), False, False), (io.StringIO(), True, True),
])
def test_a_bar_is_wanted_when_a_person_watches_or_when_asked(stream, given, shown):
    with redirect_stderr(stream):
        assert progress.wanted(given) is shown


def test_the_bootstrap_shows_its_bar_on_a_terminal_by_default():
    da = decisions()
    terminal, log = Terminal(), io.StringIO()
    with redirect_stderr(terminal):
        on_terminal = xr_agreement.mla(da, ci=0.9, n_resamples=20, seed=0)
    with redirect_stderr(log):
        in_log = xr_agreement.mla(da, ci=0.9, n_resamples=20, seed=0)
    assert "20/20" in terminal.getvalue() and "bootstrap" in terminal.getvalue()
    assert log.getvalue() == ""
    xr.testing.assert_identical(on_terminal, in_log)  # the bar changes nothing else


@pytest.mark.parametrize("arguments, stream, shown", [
    ([], Terminal(), True), ([], io.StringIO(), False),
    (["--progress", "no"], Terminal(), False), (["--progress", "yes"], io.StringIO(), True),
])
def test_the_command_line_shows_its_stages(arguments, stream, shown, capsys, tmp_path):
    output = tmp_path / "report.md"
    with redirect_stderr(stream):
        assert cli.main(["report", "--format", "markdown", "-o", str(output),
                         *arguments]) == 0
    bar = stream.getvalue()
    if shown:
        assert "xr-agreement report" in bar and "3/3" in bar and "4/3" not in bar
    else:
        assert bar == ""
    assert output.read_text(encoding="utf-8").startswith("# Multi-label agreement report")
    assert capsys.readouterr().out == ""  # the bar never reaches standard output


def test_the_command_line_bar_covers_the_bootstrap_too(tmp_path):
    stream = Terminal()
    with redirect_stderr(stream):
        assert cli.main(["report", "--ci", "0.9", "--seed", "1", "-o",
                         str(tmp_path / "r.txt")]) == 0
    assert "bootstrap" in stream.getvalue() and "xr-agreement report" in stream.getvalue()


def test_stages_count_each_stage_once():
    stream = io.StringIO()
    with redirect_stderr(stream):
        with progress.stages(["a", "b"], True, "job") as step:
            step("a")
            step("a")
            step("b")
            step("b")
    assert "2/2" in stream.getvalue() and "3/2" not in stream.getvalue()


def test_dask_computes_show_dask_bar_when_wanted():
    lazy = decisions().chunk({"item": 10})
    shown, quiet = Terminal(), io.StringIO()
    with redirect_stderr(shown):
        with progress.dask_progress(None, lazy=True):
            xr_agreement.mla(lazy).compute()
    with redirect_stderr(quiet):
        with progress.dask_progress(None, lazy=True):
            xr_agreement.mla(lazy).compute()
    assert "Completed" in shown.getvalue() and quiet.getvalue() == ""


def test_a_bad_progress_value_is_refused():
    with pytest.raises(ValueError, match="progress must be None, True or False, got 'yes'"):
        xr_agreement.mla(decisions(), ci=0.9, progress="yes")


def test_the_report_on_dask_input_shows_the_computes():
    da = decisions()
    lazy, eager = Terminal(), Terminal()
    with redirect_stderr(lazy):
        on_dask = xr_agreement.report(da.chunk({"item": 10}))
    with redirect_stderr(eager):
        on_numpy = xr_agreement.report(da)
    assert "Completed" in lazy.getvalue()
    assert "Completed" not in eager.getvalue()  # nothing lazy to compute
    assert str(on_dask) == str(on_numpy)
    with redirect_stderr(quiet := io.StringIO()):
        xr_agreement.report(da.chunk({"item": 10}))
    assert quiet.getvalue() == ""


def test_a_default_bar_waits_for_work_that_takes_time(monkeypatch):
    """On a terminal, work done within the delay leaves no bar; progress=True shows one."""
    monkeypatch.setattr(progress, "DELAY", 60)
    quick, asked = Terminal(), Terminal()
    with redirect_stderr(quick):
        assert cli.main(["report", "-o", os.devnull]) == 0
    with redirect_stderr(asked):
        assert cli.main(["report", "-o", os.devnull, "--progress", "yes"]) == 0
    assert quick.getvalue() == ""
    assert "3/3" in asked.getvalue()
