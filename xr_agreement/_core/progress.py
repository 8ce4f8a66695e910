"""Progress bars for work that takes seconds: one rule for when to show them.

``progress=None`` (every default) shows a bar when a person is watching: standard error is a
terminal, or the code runs in an interactive Python or a Jupyter/IPython session (where
``tqdm.auto`` draws a widget), and the work takes over a second (:data:`DELAY`). Output
piped to a file or a CI log stays quiet. ``True`` and
``False`` override. Bars are tqdm's (the ``progress`` extra); without tqdm a default bar is
silently left out and ``progress=True`` says what to install. Dask computes get dask's own
bar (:func:`dask_progress`), written to standard error as tqdm's are.
"""

from __future__ import annotations

import contextlib
import sys


def _interactive() -> bool:
    """True in a Python prompt or a Jupyter/IPython session."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipython = sys.modules.get("IPython")
    return bool(ipython and getattr(ipython, "get_ipython", lambda: None)())


def _stderr_is_a_terminal() -> bool:
    stream = sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def wanted(progress: bool | None) -> bool:
    """Whether to show a bar: ``progress`` if given, else whether a person is watching
    (standard error a terminal, or an interactive session)."""
    if progress is not None:
        return bool(progress)
    return _stderr_is_a_terminal() or _interactive()


def check_progress(progress) -> None:
    """``progress=`` must be None, True or False (a typo such as "yes" is refused)."""
    if progress not in (None, True, False):
        raise ValueError(f"progress must be None, True or False, got {progress!r}")


# Seconds before a bar appears: work done sooner leaves no bar behind (a command on a small
# file would print one line of bar on every run); ``progress=True`` shows it at once.
DELAY = 1.0


def progress_bar(total: int, progress: bool | None, description: str, unit: str = "it"):
    """A tqdm bar over ``total`` steps (``update(n)``, ``close()``), or None when no bar is
    wanted (:func:`wanted`), or when tqdm is missing and ``progress`` was not True. A bar
    shown by default appears after :data:`DELAY` seconds of work."""
    if not wanted(progress):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            raise ImportError(
                "progress=True needs tqdm: pip install tqdm (or xr-agreement[progress])"
            ) from None
        return None
    return tqdm(total=total, desc=description, unit=unit, file=sys.stderr,
                delay=0 if progress else DELAY)


@contextlib.contextmanager
def stages(names: list[str], progress: bool | None, description: str):
    """A bar over the named stages of a long job; ``step(name)`` starts the next one.

    >>> with stages(["reading", "computing"], False, "report") as step:
    ...     step("reading")
    ...     step("computing")
    """
    bar = progress_bar(len(names), progress, description, unit="step")
    current = [None]

    def step(name: str):
        """Start stage ``name`` (the one running: nothing changes)."""
        if bar is None or name == current[0]:
            return
        # drawn by the update, when tqdm allows (after the delay): refresh=True would draw
        # the bar at once
        bar.set_postfix_str(name, refresh=False)
        bar.update(0 if current[0] is None else 1)
        current[0] = name

    try:
        yield step
        if bar is not None and current[0] is not None:
            bar.update(1)
    finally:
        if bar is not None:
            bar.close()


@contextlib.contextmanager
def dask_progress(progress: bool | None, lazy: bool):
    """Dask's progress bar over the computes inside the block, when the input is ``lazy``
    (dask) and a bar is wanted; dask's local schedulers only (a distributed client has its
    dashboard)."""
    if not (lazy and wanted(progress)):
        yield
        return
    from dask.diagnostics import ProgressBar

    with ProgressBar(out=sys.stderr):
        yield
