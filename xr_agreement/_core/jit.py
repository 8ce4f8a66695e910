"""``njit``: numba's, with compiled kernels cached outside the package.

numba's ``cache=True`` writes compiled code next to the source, into ``__pycache__``. For an
installed package that is ``site-packages/xr_agreement/**/__pycache__``, files pip never
recorded: uninstalling (``pip install -e .`` after ``pip install .`` does) leaves the folders,
and an ``xr_agreement`` folder without ``__init__.py`` in site-packages is a namespace package
that shadows the editable install in every process not started in the checkout.

So every kernel of the package is compiled through :func:`njit`, which points numba's cache at
a per-user folder, ``<user cache>/xr_agreement/numba`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on
Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows), or at
``$XR_AGREEMENT_CACHE_DIR`` when set. A ``NUMBA_CACHE_DIR`` the user set wins, as numba
documents. numba picks a function's cache folder when the function is decorated, from
``numba.config.CACHE_DIR``; :func:`njit` sets that for the duration of the decoration only,
so other libraries' kernels are not touched. Cache entries are keyed by the source file's
path and content, so copies of the package never share (or corrupt) each other's entries.
"""

from __future__ import annotations

import os
import sys
import threading

import numba
from numba.core import config

_lock = threading.Lock()


def cache_dir() -> str:
    """The folder compiled kernels are cached in (when the user did not set NUMBA_CACHE_DIR)."""
    given = os.environ.get("XR_AGREEMENT_CACHE_DIR")
    if given:
        return given
    if sys.platform == "win32":
        root = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
    elif sys.platform == "darwin":
        root = os.path.expanduser("~/Library/Caches")
    else:
        root = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(root, "xr_agreement", "numba")


def njit(function=None, **options):
    """``numba.njit`` (same options; ``@njit`` or ``@njit(...)``), cached in :func:`cache_dir`."""
    if function is None:
        return lambda f: njit(f, **options)
    if not options.get("cache") or config.CACHE_DIR:
        return numba.njit(**options)(function)
    with _lock:
        previous, config.CACHE_DIR = config.CACHE_DIR, cache_dir()
        try:
            return numba.njit(**options)(function)
        finally:
            config.CACHE_DIR = previous
