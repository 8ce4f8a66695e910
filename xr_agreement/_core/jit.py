"""``njit``: numba's, loaded on first need, with compiled kernels cached outside the package.

**Small calls before numba is needed run interpreted.** Loading numba costs about a second in
every new process (importing it about 0.3 s, setting up its CPU target about 0.4 s, then some
40 ms for each kernel loaded from the cache), while a small input takes a kernel a few
milliseconds as plain Python: the report on the bundled example spends about 0.1 s in its
kernels run that way. So :func:`njit` returns a :class:`Kernel`, which runs the function's
Python source as written (what numba's ``NUMBA_DISABLE_JIT`` does) as long as

- numba has not been needed yet in this process,
- the call's work is at most :data:`INTERPRETED_MAX_WORK` steps: the elements of its arrays,
  or what the kernel's ``work=`` option says for a kernel whose cost is not linear in them
  (a sum over pairs of annotators, of values, of label sets), and
- the process has spent less than :data:`INTERPRETED_BUDGET` seconds in interpreted calls;

from the first call that fails one of these on, numba is imported and every call runs
compiled (a kernel called from an interpreted kernel is interpreted with it). The kernels
are written so that both ways give the same numbers: integer sums stay in range by design,
float sums run in the same order (``tests/test_jit.py`` runs the families both ways and
compares). Floating-point warnings are silenced in interpreted calls, as compiled code raises
none. ``XR_AGREEMENT_JIT=always`` (read at import; :func:`set_mode` later) compiles from the
first call, ``never`` interprets every call (to debug a kernel in Python; slow on large
input), ``auto`` (the default) is the rule above.

**The cache.** numba's ``cache=True`` writes compiled code next to the source, into
``__pycache__``. For an installed package that is ``site-packages/xr_agreement/**/__pycache__``,
files pip never recorded: uninstalling (``pip install -e .`` after ``pip install .`` does)
leaves the folders, and an ``xr_agreement`` folder without ``__init__.py`` in site-packages is
a namespace package that shadows the editable install in every process not started in the
checkout. So every kernel is compiled with numba's cache pointed at a per-user folder,
``<user cache>/xr_agreement/numba`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows), or at
``$XR_AGREEMENT_CACHE_DIR`` when set. A ``NUMBA_CACHE_DIR`` the user set wins, as numba
documents. numba picks a function's cache folder when the function is decorated, from
``numba.config.CACHE_DIR``, and a kernel is decorated when it is first compiled (so the
variables are read then); the folder is set for the duration of the decoration only, so
other libraries' kernels are not touched. Cache entries are keyed by the source file's path
and content, so copies of the package never share (or corrupt) each other's entries. A kernel
that calls the package's kernels or functions of other files is cached in a subfolder named by
the content of those files (:func:`_callees_digest`): numba looks at the caller's file only,
and would otherwise run a cached caller with an edited callee's old code.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
import time

import numpy as np

# A call is interpreted only if its work (by default the elements of its array arguments) is
# at most this many steps: a kernel's Python source takes roughly 0.1-1 us per step, so no
# single interpreted call takes more than some 20 ms.
INTERPRETED_MAX_WORK = 20_000


# Seconds of interpreted calls per process after which every call is compiled (many small
# calls, as a bootstrap of a small corpus makes, are then faster compiled).
INTERPRETED_BUDGET = 0.3


MODES = ("auto", "always", "never")


_lock = threading.RLock()


_local = threading.local()  # .depth: interpreted kernel calls running in this thread


_state = {"mode": "auto", "compiled": False, "interpreted_seconds": 0.0,
          "extensions": False}


# True once every call runs compiled (mode "always", or numba loaded under "auto"): the one
# check on the hot path of a compiled call.
_ALL_COMPILED = False


def set_mode(mode: str) -> None:
    """How kernels run from now on: ``"auto"`` (the rule of the module's docstring),
    ``"always"`` compiled or ``"never"`` (interpreted). The first mode is read from
    ``$XR_AGREEMENT_JIT`` at import."""
    global _ALL_COMPILED
    value = str(mode).strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"XR_AGREEMENT_JIT={mode!r}: expected one of {', '.join(MODES)}")
    with _lock:
        _state["mode"] = value
        _ALL_COMPILED = value == "always" or (value == "auto" and _state["compiled"])


def mode() -> str:
    """The mode set by :func:`set_mode` (or ``$XR_AGREEMENT_JIT``)."""
    return _state["mode"]


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


def multiply_u16(a, b):
    """``(a * b) mod 2**16`` of two uint16 values, as uint16: in a compiled kernel one 16-bit
    multiply, which vectorizes sixteen to a register.

    numba computes integer arithmetic in 64 bits: ``np.uint16(x) * np.uint16(x)`` is an
    int64, and LLVM, which narrows an addition truncated back to 16 bits, keeps such a
    product in 64-bit lanes, four to a register (with the widening and packing around it).
    In mla's ``count_bytes`` the squares of the per-label sums were then half of the pass; at
    (10^6, 5, 100) uint8 this product (with the fused row pass there) took the pass from
    87-113 to 57-65 ns an item in one thread. Its numba implementation is registered when
    numba is first loaded (:func:`_register_extensions`); interpreted, the same value, and
    the same refusal of arguments that are not uint16. A kernel using it is cached per
    content of this file too (:func:`_callees_digest`).
    """
    if not (isinstance(a, np.uint16) and isinstance(b, np.uint16)):
        raise TypeError(f"multiply_u16 takes two numpy.uint16 values, got "
                        f"{type(a).__name__} and {type(b).__name__}")
    return np.uint16((int(a) * int(b)) & 0xFFFF)


def _register_extensions():
    """numba's implementation of :func:`multiply_u16` (an LLVM ``mul`` on i16), once."""
    if _state["extensions"]:
        return
    from numba import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def _mul_i16(typingctx, a, b):
        if a != types.uint16 or b != types.uint16:
            return None

        def codegen(context, builder, signature, args):
            return builder.mul(args[0], args[1])

        return types.uint16(types.uint16, types.uint16), codegen

    @overload(multiply_u16)
    def _multiply_u16(a, b):
        if a == types.uint16 and b == types.uint16:
            return lambda a, b: _mul_i16(a, b)
        return None

    _state["extensions"] = True


def _compile(function, options):
    """numba's dispatcher of ``function``, its cache in :func:`cache_dir`."""
    import numba
    from numba.core import config

    global _ALL_COMPILED
    with _lock:
        _register_extensions()
        _state["compiled"] = True
        _ALL_COMPILED = _state["mode"] != "never"
        if not options.get("cache"):
            return numba.njit(**options)(function)
        folder = config.CACHE_DIR or cache_dir()
        digest = _callees_digest(function)
        if digest:
            folder = os.path.join(folder, f"with-callees-{digest}")
        elif config.CACHE_DIR:  # the user's folder, as numba documents
            return numba.njit(**options)(function)
        previous, config.CACHE_DIR = config.CACHE_DIR, folder
        try:
            return numba.njit(**options)(function)
        finally:
            config.CACHE_DIR = previous


def _callees_digest(function) -> str:
    """A digest of the source files of the kernels and functions ``function`` calls that
    live in other files (and theirs, recursively), or "" if there are none.

    numba's cache keys a compiled kernel to its own source file only, yet compiles the
    kernels it calls into it: after an edit or upgrade of a callee's file alone, the cached
    caller would run the old callee, a wrong number without an error. A kernel with callees
    elsewhere is therefore cached in a folder of its own per content of those files."""
    own = function.__code__.co_filename
    files, seen, stack = set(), set(), [function]
    while stack:
        current = stack.pop()
        for callee in _globals_called(current):
            source = getattr(callee, "py_func", callee)
            if source in seen:
                continue
            seen.add(source)
            filename = source.__code__.co_filename
            if filename != own:
                files.add(filename)
            if isinstance(callee, Kernel):
                stack.append(source)
    if not files:
        return ""
    import hashlib

    digest = hashlib.sha256()
    for filename in sorted(files):
        with open(filename, "rb") as source:
            digest.update(filename.encode() + b"\0" + source.read() + b"\0")
    return digest.hexdigest()[:16]


# The package's folder: numba compiles numpy's and the standard library's functions from its
# own implementations, so only the package's functions are callees whose source matters.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _globals_called(function) -> list:
    """The package's kernels and Python functions a function's code names as globals,
    directly or as attributes of a module it names (``_kernels.count``)."""
    names = set(function.__code__.co_names)
    for constant in function.__code__.co_consts:  # nested functions' code
        if hasattr(constant, "co_names"):
            names.update(constant.co_names)
    found = []
    for name in names:
        value = function.__globals__.get(name)
        candidates = [value]
        if type(value) is type(sys):  # a module: the names read from it
            candidates = [getattr(value, attribute, None) for attribute in names]
        for candidate in candidates:
            source = getattr(candidate, "py_func", candidate)
            code = getattr(source, "__code__", None)
            if code is not None and os.path.abspath(code.co_filename).startswith(_PACKAGE):
                found.append(candidate)
    return found


def _interpret(kernel, args) -> bool:
    """Whether a call made outside any interpreted kernel runs interpreted (see the
    module's docstring)."""
    chosen = _state["mode"]
    if chosen != "auto":
        return chosen == "never"
    if _state["compiled"] or _state["interpreted_seconds"] >= INTERPRETED_BUDGET:
        return False
    if kernel.work is not None:
        return kernel.work(*args) <= INTERPRETED_MAX_WORK
    elements = 0
    for argument in args:
        if isinstance(argument, np.ndarray):
            elements += argument.size
    return elements <= INTERPRETED_MAX_WORK


class Kernel:
    """A numba kernel that is compiled (or loaded from the cache) when a call first needs
    it, and runs as plain Python before (see the module's docstring). ``py_func`` is the
    function, ``dispatcher`` numba's compiled version, ``work`` the optional estimate of a
    call's steps (a function of the call's arguments).

    Not a drop-in numba dispatcher: calls take positional arguments only, and reading
    ``dispatcher`` (or the two attributes numba reads, below) imports numba and compiles
    every later call in the process. numba compiles and inlines ``py_func`` as it is then:
    patch it only under ``set_mode("never")``. Kernels pickle by module and name, so only
    module-level kernels unpickle (all of the package's are)."""

    def __init__(self, function, options):
        functools.update_wrapper(self, function)
        self.py_func = function
        self.work = options.pop("work", None)
        self.options = options
        self._dispatcher = None

    @property
    def dispatcher(self):
        if self._dispatcher is None:
            with _lock:
                if self._dispatcher is None:
                    self._dispatcher = _compile(self.py_func, self.options)
        return self._dispatcher

    def runs_interpreted(self, *args) -> bool:
        """Whether a call with ``args``, made now from this thread, would run interpreted:
        for a caller that prepares arguments only a compiled call profits from. The rule
        counts elements, so arguments with more of them never turn a compiled answer into
        an interpreted call (another thread may still load numba or change the mode in
        between: the call then runs compiled, or interpreted, with the other arguments)."""
        if getattr(_local, "depth", 0):
            return True
        if _ALL_COMPILED and self._dispatcher is not None:
            return False
        return _interpret(self, args)

    def __call__(self, *args):
        if getattr(_local, "depth", 0):
            # inside an interpreted kernel: interpreted with it, its time counted there
            return self.py_func(*args)
        if _ALL_COMPILED and self._dispatcher is not None:
            return self._dispatcher(*args)
        if not _interpret(self, args):
            return self.dispatcher(*args)
        _local.depth = 1
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                return self.py_func(*args)
        finally:
            _local.depth = 0
            # unlocked: threads may add a little past the budget, which is approximate
            _state["interpreted_seconds"] += time.perf_counter() - start

    # What numba reads of a global it finds in a kernel it compiles (checked with numba
    # 0.68): the callee's type (``typeof`` reads ``_numba_type_``) and options (the inliner
    # reads ``targetoptions["inline"]`` and ``py_func``); both are the dispatcher's.
    @property
    def _numba_type_(self):
        return self.dispatcher._numba_type_

    @property
    def targetoptions(self):
        return self.dispatcher.targetoptions

    def __reduce__(self):  # pickled by name, as functions are (dask ships tasks so)
        return _kernel_named, (self.__module__, self.__qualname__)

    def __repr__(self):
        return f"<xr_agreement kernel {self.__module__}.{self.__qualname__}>"


def _kernel_named(module: str, qualname: str) -> Kernel:
    return functools.reduce(getattr, qualname.split("."), importlib.import_module(module))


def njit(function=None, **options):
    """``numba.njit`` (same options; ``@njit`` or ``@njit(...)``) as a :class:`Kernel`:
    compiled on first need, cached in :func:`cache_dir`, small calls interpreted before.
    ``work=`` (not numba's) estimates a call's steps from its arguments, for a kernel whose
    cost is not linear in the elements of its arrays."""
    if function is None:
        return lambda f: njit(f, **options)
    return Kernel(function, options)


set_mode(os.environ.get("XR_AGREEMENT_JIT", "auto"))
