"""Threads shared by every family: one thread-safety story for the whole package.

Two kinds of parallelism meet in this package; each has one rule, and this module holds
the only code that applies them.

1. **The pool of Python threads** (:func:`_pool_map`, :func:`_in_threads`): one
   persistent ``ThreadPoolExecutor`` per process (``os.cpu_count()`` threads named
   ``xr-agreement*``), started on first use. It runs numba kernels compiled with
   ``nogil=True`` (never with ``parallel=True``: the package does not use numba's
   threading layer) on disjoint ranges, each writing only its own rows or returning its
   own accumulators, summed afterwards in a fixed order, so results do not depend on the
   number of threads. This is how every family uses several cores (MLA's counts and
   tables, alpha's counting pass and sums over value pairs, the bootstrap's draws and
   streamed products): plain threads are safe from any calling thread, dask's workers
   included, and do not spin-wait on a busy machine as numba's threading layer does. A
   call from one of the pool's own threads (a nested task) runs serially in that thread
   instead of waiting on the pool, which could deadlock.
2. **BLAS threads** (:func:`_single_threaded_blas`): while the bootstrap streams its
   products in the pool's threads (:mod:`xr_agreement.resampling.fast`), BLAS runs
   single-threaded, or its own threads would spin-wait against the pool's. The limit is
   process-wide (OpenBLAS has one pool): the first bootstrap to enter sets it, the last to
   leave restores it, and only if it still holds the 1 set here; all changes are made from
   one dedicated thread through threadpoolctl. :data:`SINGLE_THREADED_BLAS` = False leaves
   BLAS alone.
"""

from __future__ import annotations

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np


_POOL = []


def _thread_pool() -> ThreadPoolExecutor:
    """One pool for the process, started on first use (starting threads per call costs ms)."""
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="xr-agreement"))
    return _POOL[0]


# Streaming item resamples (numpy input, int seed) runs the products in worker threads with
# BLAS limited to one thread (process-wide, see _single_threaded_blas); False leaves BLAS
# alone (slower: its threads then compete with the workers for the cores).
SINGLE_THREADED_BLAS = True


@contextlib.contextmanager
def _single_threaded_blas():
    """Context in which BLAS libraries (numpy's and any other loaded) run single-threaded,
    unless :data:`SINGLE_THREADED_BLAS` is False.

    The limit is process-wide (OpenBLAS has one pool), so it is shared: the first bootstrap
    to enter sets it, the last to leave restores each library's thread count, and only if
    it still holds the 1 set here (anyone who changed it meanwhile keeps their value). Both
    changes are made from one dedicated thread through threadpoolctl, which lets only the
    thread that first changed OpenBLAS's pool change it again until that thread lets go:
    ours lets go after restoring, and while another thread holds the pool (inside its own
    ``threadpool_limits``), nothing here changes it."""
    if not SINGLE_THREADED_BLAS:
        yield
        return
    with _BLAS_LOCK:
        if _BLAS_STATE["depth"] == 0:
            _BLAS_STATE["saved"] = _blas_thread().submit(_limit_blas).result()
        _BLAS_STATE["depth"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["depth"] -= 1
            if _BLAS_STATE["depth"] == 0:
                _blas_thread().submit(_restore_blas, _BLAS_STATE.pop("saved")).result()


def _blas_controllers() -> list:
    """threadpoolctl's controllers of the loaded BLAS libraries (found once: it takes ms)."""
    if _BLAS_STATE.get("controllers") is None:
        from threadpoolctl import ThreadpoolController

        _BLAS_STATE["controllers"] = [lib for lib in ThreadpoolController().lib_controllers
                                      if lib.user_api == "blas"]
    return _BLAS_STATE["controllers"]


def _limit_blas() -> list:
    saved = [(lib, lib.num_threads) for lib in _blas_controllers()]
    for lib, _ in saved:
        lib.set_num_threads(1)
    return saved


def _restore_blas(saved: list) -> None:
    for lib, threads in saved:
        if lib.num_threads == 1 and threads != 1:
            lib.set_num_threads(threads)
    from threadpoolctl import OpenBLASController

    # let go of OpenBLAS's pool (threadpoolctl 3.6 and later): only the thread that holds it
    # can change it, and this one is done
    release = getattr(OpenBLASController, "clear_controlling_thread", None)
    if release is not None:
        release()


def _blas_thread():
    """The one thread that changes BLAS thread counts (see :func:`_single_threaded_blas`)."""
    if _BLAS_STATE.get("thread") is None:
        _BLAS_STATE["thread"] = ThreadPoolExecutor(1, thread_name_prefix="xr-agreement-blas")
    return _BLAS_STATE["thread"]


_BLAS_LOCK = threading.Lock()


_BLAS_STATE = {"depth": 0}


def _pool_map(function, *iterables) -> list:
    """``list(map(function, *iterables))`` in the process's persistent thread pool, or in
    the calling thread if that is one of the pool's own (waiting there for the pool's
    other threads could deadlock)."""
    if threading.current_thread().name.startswith("xr-agreement"):
        return list(map(function, *iterables))
    return list(_thread_pool().map(function, *iterables))


def _in_threads(task, size: int, parts: int) -> list:
    """``task(start, stop)`` for ``parts`` consecutive ranges of ``range(size)``, in the
    process's persistent thread pool (the kernels called here release the GIL); one part
    runs in the calling thread."""
    if parts <= 1:
        return [task(0, size)]
    bounds = np.linspace(0, size, parts + 1).astype(np.int64)
    return _pool_map(task, bounds[:-1], bounds[1:])


def item_runs(n_items: int, accumulator_size: int = 1) -> int:
    """Item runs per kernel call, each with accumulators of ``accumulator_size`` elements:
    a function of the data's shape only, so that float sums (and results) do not depend on
    the number of threads; about 4,096 items or more each, at most 16, fewer when the
    accumulators are large, so that their memory stays below about 2**20 elements. Alpha's
    counting pass and the kappa family's passes run this many."""
    by_memory = (1 << 20) // max(1, accumulator_size)
    return int(max(1, min(16, n_items // 4096, by_memory)))
