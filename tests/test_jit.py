"""Kernels run interpreted before numba is needed (``_core/jit.py``): both ways must give the
same numbers, and the rule that picks the way must hold in a fresh process."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xr_agreement
from xr_agreement._core import jit
from xr_agreement.mla import kernels as mla_kernels


def _ids(prefix, n):
    return pd.Index([f"{prefix}-{i:03d}" for i in range(n)])


def _decisions(seed=0, shape=(40, 4, 9), missing=0.1, dtype=np.float64):
    rng = np.random.default_rng(seed)
    values = (rng.random(shape) < 0.3).astype(np.float64)
    if missing:
        values[rng.random(shape) < missing] = np.nan
    values = values.astype(dtype)
    return xr.DataArray(values, dims=("item", "annotator", "label"),
                        coords={"item": _ids("doc", shape[0]), "annotator": _ids("ann", shape[1]),
                                "label": _ids("label", shape[2])})


def _ratings(seed=1, shape=(50, 5), missing=0.15):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 6, shape).astype(np.float64)
    values[rng.random(shape) < missing] = np.nan
    return xr.DataArray(values, dims=("item", "annotator"),
                        coords={"item": _ids("doc", shape[0]), "annotator": _ids("ann", shape[1])})


def _label_sets(seed=2):
    # whole label vectors present or missing, as the set metrics require
    values = _decisions(seed, missing=0).values.copy()
    values[np.random.default_rng(seed).random(values.shape[:2]) < 0.1] = np.nan
    return _decisions(seed, missing=0).copy(data=values)


def _spans(seed=3):
    rng = np.random.default_rng(seed)
    records = [(f"doc-{d}", f"ann-{a}", int(s), int(s + rng.integers(1, 9)),
                f"label-{rng.integers(3)}")
               for d in range(4) for a in range(3) for s in np.unique(rng.integers(0, 60, 8))]
    return xr_agreement.from_spans(records, lengths={f"doc-{d}": 80 for d in range(4)})


CASES = {
    "mla, float with NaN, all baselines": lambda: xr_agreement.mla(_decisions(), baseline="all"),
    "mla, complete uint8": lambda: xr_agreement.mla(_decisions(missing=0, dtype=np.uint8),
                                                    baseline="all"),
    "mla, item bootstrap": lambda: xr_agreement.mla(_decisions(), ci=0.9, n_resamples=40,
                                                    seed=3),
    "mla, annotator bootstrap": lambda: xr_agreement.mla(
        _decisions(missing=0, dtype=np.uint8), ci=0.9, n_resamples=40, resample="annotator",
        seed=4),
    "alpha nominal": lambda: xr_agreement.alpha(_ratings(), "nominal"),
    "alpha interval": lambda: xr_agreement.alpha(_ratings(), "interval"),
    "alpha ordinal": lambda: xr_agreement.alpha(_ratings(), "ordinal"),
    "alpha ratio": lambda: xr_agreement.alpha(_ratings(), "ratio"),
    "alpha nominal, bootstrap": lambda: xr_agreement.alpha(_ratings(), "nominal",
                                                           ci_method="percentile",
                                                           n_resamples=30, seed=5),
    "alpha hamming": lambda: xr_agreement.alpha(_decisions(), "hamming"),
    "alpha masi": lambda: xr_agreement.alpha(_label_sets(), "masi"),
    "alpha jaccard": lambda: xr_agreement.alpha(_label_sets(), "jaccard"),
    "annotators": lambda: xr_agreement.annotators(_decisions()),
    "annotators, complete uint8": lambda: xr_agreement.annotators(
        _decisions(missing=0, dtype=np.uint8)),
    "confusions": lambda: xr_agreement.confusions(_decisions()),
    "confusions, complete uint8": lambda: xr_agreement.confusions(
        _decisions(missing=0, dtype=np.uint8)),
    "am": lambda: xr_agreement.am(_decisions(missing=0)),
    "boot_f1": lambda: xr_agreement.boot_f1(_decisions(missing=0), n_chance_runs=None),
    "fleiss": lambda: xr_agreement.fleiss(_ratings()),
    "gamma, alignment and sampled continua": lambda: xr_agreement.gamma(
        _spans(), n_samples=12, seed=7, return_alignment=True),
    # dtypes numba has no kernels for, converted before any kernel is called
    "mla, float16": lambda: xr_agreement.mla(_decisions(dtype=np.float16)),
    "mla, big-endian float": lambda: xr_agreement.mla(_decisions(dtype=">f8")),
    "mla, big-endian int, bootstrap": lambda: xr_agreement.mla(
        _decisions(missing=0, dtype=">i8"), ci=0.9, n_resamples=20, seed=6),
    "annotators, float16": lambda: xr_agreement.annotators(_decisions(dtype=np.float16)),
    "confusions, big-endian": lambda: xr_agreement.confusions(_decisions(dtype=">f4")),
    "alpha masi, big-endian": lambda: xr_agreement.alpha(
        _label_sets().astype(">f8"), "masi"),
    "alpha hamming, float16": lambda: xr_agreement.alpha(_decisions(dtype=np.float16),
                                                         "hamming"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_interpreted_and_compiled_kernels_give_the_same_numbers(case, set_mode):
    set_mode("always")
    compiled = CASES[case]()
    set_mode("never")
    interpreted = CASES[case]()
    xr.testing.assert_identical(interpreted, compiled)


def test_an_interpreted_kernel_runs_its_python_source(monkeypatch, set_mode):
    # a kernel that is called interpreted must not reach numba's dispatcher at all
    values = np.array([[[[1, 0, 1], [1, 1, 0]]]], np.uint8)  # (G, N, n, k) = (1, 1, 2, 3)
    calls = []
    original = mla_kernels.count_bytes.py_func

    def spy(*args):
        calls.append(True)
        return original(*args)

    monkeypatch.setattr(mla_kernels.count_bytes, "py_func", spy)
    set_mode("never")
    label_counts = np.zeros((1, 3, 3, 3), np.int64)
    item_counts = np.zeros((1, 1, 2), np.int64)
    mla_kernels.count_bytes(values, values.reshape(-1), label_counts, item_counts, np.uint16)
    assert calls == [True]
    # label 0: both chose it; label 1: one of two; label 2: one of two
    np.testing.assert_array_equal(label_counts[0, :, 2, 1], [2, 1, 1])
    np.testing.assert_array_equal(item_counts[0, 0], [1, 3])  # 1 agreeing pair of 3


def test_the_rule_interprets_small_calls_until_numba_is_needed(set_mode, monkeypatch):
    # set_mode before monkeypatch: the mode is restored after the real state is back
    from xr_agreement.alpha import kernels as alpha_kernels

    monkeypatch.setattr(jit, "_state", dict(jit._state, mode="auto", compiled=False,
                                            interpreted_seconds=0.0))
    small = np.zeros(jit.INTERPRETED_MAX_WORK)
    large = np.zeros(jit.INTERPRETED_MAX_WORK + 1)
    kernel = mla_kernels.count_bytes  # work: the elements of its arrays
    assert jit._interpret(kernel, (small, 3, 0.5))
    assert not jit._interpret(kernel, (large,))
    assert not jit._interpret(kernel, (small[:10], small))  # a call's arrays count together
    # a kernel whose cost is not linear in its arrays says so: 5,000 ratings of 200 items
    # by 25 annotators are 125,000 pairs of ratings
    ratings = np.zeros((1, 200, 25))
    assert jit._interpret(kernel, (ratings,))
    assert not jit._interpret(alpha_kernels.pair_observed, (ratings, 0.0, 0, None, None, None,
                                                            None, 1))
    jit._state["interpreted_seconds"] = jit.INTERPRETED_BUDGET
    assert not jit._interpret(kernel, (small[:10],))  # the budget is spent
    jit._state.update(compiled=True, interpreted_seconds=0.0)
    assert not jit._interpret(kernel, (small[:10],))  # numba is loaded: compile
    set_mode("never")
    assert jit._interpret(kernel, (large,))


def _total(x):
    return x.sum()


def test_runs_interpreted_says_what_a_call_then_does(set_mode, monkeypatch):
    """The answer a caller gets before a call (mla's uint8 count asks it) is how the call
    runs: under the rule before numba is loaded, inside an interpreted kernel, per mode.
    An interpreted call adds its time to the process's budget; a compiled one does not."""
    kernel = jit.njit(_total, cache=False)
    monkeypatch.setattr(jit, "_state", dict(jit._state, mode="auto", compiled=False,
                                            interpreted_seconds=0.0))
    small = np.ones(10)
    assert kernel.runs_interpreted(small)
    assert kernel(small) == 10 and jit._state["interpreted_seconds"] > 0
    jit._local.depth = 1  # as inside an interpreted kernel
    try:
        assert kernel.runs_interpreted(np.ones(jit.INTERPRETED_MAX_WORK + 1))
    finally:
        jit._local.depth = 0
    set_mode("always")
    assert not kernel.runs_interpreted(small)
    spent = jit._state["interpreted_seconds"]
    assert kernel(small) == 10 and jit._state["interpreted_seconds"] == spent
    set_mode("never")
    assert kernel.runs_interpreted(np.ones(jit.INTERPRETED_MAX_WORK + 1))


def _add_one_if_not_negative(x):
    if x < 0:
        raise ValueError("negative")
    return x + 1


_inner_kernel = jit.njit(_add_one_if_not_negative)


def test_a_kernel_called_by_an_interpreted_kernel_runs_with_it(set_mode, monkeypatch):
    """Only the outer call asks the rule and is timed; an error inside closes it."""
    outer = jit.njit(lambda x: _inner_kernel(x) * 2)
    asked = []
    rule = jit._interpret
    monkeypatch.setattr(jit, "_interpret", lambda kernel, args: asked.append(kernel)
                        or rule(kernel, args))
    monkeypatch.setattr(jit, "_state", dict(jit._state, mode="auto", compiled=False,
                                            interpreted_seconds=0.0))
    set_mode("never")
    assert outer(np.int64(3)) == 8
    assert asked == [outer] and jit._state["interpreted_seconds"] > 0
    assert _inner_kernel._dispatcher is None
    with pytest.raises(ValueError, match="negative"):
        outer(np.int64(-1))
    assert asked == [outer, outer]
    assert _inner_kernel(np.int64(1)) == 2 and asked[-1] is _inner_kernel  # at the top again


def test_the_tests_above_leave_the_compiled_path_as_they_found_it():
    """(They patch the rule's state; the mode fixture restores the mode after it.)"""
    if jit.mode() == "auto" and jit._state["compiled"]:
        assert jit._ALL_COMPILED


def test_a_bad_mode_is_refused(set_mode):
    with pytest.raises(ValueError, match="XR_AGREEMENT_JIT='sometimes'.*auto, always, never"):
        set_mode("sometimes")
    done = subprocess.run([sys.executable, "-c", "import xr_agreement.mla"], text=True,
                          capture_output=True, env={**os.environ, "XR_AGREEMENT_JIT": "Sometimes"})
    assert done.returncode != 0 and "XR_AGREEMENT_JIT='Sometimes'" in done.stderr


def test_a_kernel_pickles_by_name():
    assert pickle.loads(pickle.dumps(mla_kernels.count_bytes)) is mla_kernels.count_bytes


FRESH = """
import contextlib, io, json, sys
import numpy as np
import xarray as xr
import xr_agreement
from xr_agreement.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["report"])
after_report = "numba" in sys.modules
example = xr_agreement.datasets.bias_example()
tiled = np.tile(example.values, (750, 1, 1))  # (3000, 3, 31): the example 750 times
large = xr.DataArray(tiled, dims=example.dims, coords={"label": example.label.values})
value = float(xr_agreement.mla(large, baseline="F").agreement)
print(json.dumps([after_report, "numba" in sys.modules, value]))
"""


def test_a_fresh_process_reports_without_numba_and_compiles_large_input(monkeypatch):
    monkeypatch.delenv("XR_AGREEMENT_JIT", raising=False)
    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    numba_after_report, numba_after_large, value = json.loads(done.stdout)
    assert not numba_after_report
    assert numba_after_large
    # the worked example 750 times over: the same prevalences and pair agreements, so its
    # A_ml (0.232 in the paper)
    example = xr_agreement.datasets.bias_example()
    assert value == pytest.approx(float(xr_agreement.mla(example, baseline="F").agreement),
                                  rel=1e-12)


@jit.njit(cache=False)
def _products(a, b, out):
    for i in range(a.size):
        out[i] = jit.multiply_u16(a[i], b[i])


def test_multiply_u16_compiled_and_interpreted():
    """The 16-bit product of count_bytes' squares is (a * b) mod 2**16 compiled (one i16
    multiply) and interpreted, wrapping where the product needs more than 16 bits."""
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.integers(0, 2**16, 500), [0, 255, 256, 300, 65535]]).astype(np.uint16)
    b = np.concatenate([rng.integers(0, 2**16, 500), [7, 255, 256, 300, 65535]]).astype(np.uint16)
    expected = np.array([(int(x) * int(y)) % 2**16 for x, y in zip(a, b)], np.uint16)
    before = jit.mode()
    try:
        for mode in ("always", "never"):
            jit.set_mode(mode)
            out = np.zeros(a.size, np.uint16)
            _products(a, b, out)
            np.testing.assert_array_equal(out, expected, err_msg=mode)
    finally:
        jit.set_mode(before)


_CALLER = """
from xr_agreement._core.jit import njit
from callee import plus


@njit(cache=True)
def twice(x):
    return plus(x) * 2
"""

_RUN_CALLER = """
import sys
sys.path.insert(0, {folder!r})
from xr_agreement._core import jit
jit._PACKAGE = {folder!r}  # the two modules stand for two files of the package
jit.set_mode("always")
import caller
print(caller.twice(3))
"""


def test_a_cached_kernel_is_compiled_again_when_a_kernel_it_calls_changes(tmp_path):
    """numba keys a cached kernel to its own file: a callee in another file, edited (or
    upgraded) alone, must not leave the caller running the old callee's code."""
    (tmp_path / "caller.py").write_text(_CALLER)
    callee = tmp_path / "callee.py"
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    environment["XR_AGREEMENT_CACHE_DIR"] = str(tmp_path / "cache")
    run = [sys.executable, "-c", _RUN_CALLER.format(folder=str(tmp_path))]
    outputs = []
    for step in (1, 2):
        callee.write_text("from xr_agreement._core.jit import njit\n\n\n@njit(cache=True)\n"
                          f"def plus(x):\n    return x + {step}\n")
        outputs.append(subprocess.run(run, env=environment, capture_output=True, text=True,
                                      check=True).stdout.strip())
    assert outputs == ["8", "10"]
    assert any((tmp_path / "cache").glob("with-callees-*"))  # the caller's own folder
