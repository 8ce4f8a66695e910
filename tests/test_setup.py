"""The package as pip installs it: compiled kernels must not be cached inside it.

A cache folder left in site-packages after ``pip uninstall`` turns ``xr_agreement`` into an
empty namespace package that shadows a later editable install (see xr_agreement/_core/jit.py).
Here a copy of the package stands in a folder named site-packages, a fresh process imports it
from there (not from the checkout) and runs MLA, which compiles and caches its kernels.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "xr_agreement"

RUN = """
import xr_agreement
print(xr_agreement.__file__)
print(float(xr_agreement.datasets.bias_example().agreement.mla(baseline="F").agreement))
"""


def _cache_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc")]


def test_kernels_are_cached_outside_an_installed_package(tmp_path):
    site = tmp_path / "site-packages"
    shutil.copytree(PACKAGE, site / "xr_agreement",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "user-cache"
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XR_AGREEMENT_CACHE_DIR")}
    # compiled from the first call: a call this small would otherwise run interpreted
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(cache), XR_AGREEMENT_JIT="always")
    done = subprocess.run([sys.executable, "-c", RUN], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    imported, agreement = done.stdout.split()
    assert Path(imported).is_relative_to(site)  # the copy ran, not the checkout
    assert abs(float(agreement) - 0.232) < 5e-4  # the paper's A_ml under F
    assert not _cache_files(site), "numba cache files written into the installed package"
    assert _cache_files(cache / "xr_agreement" / "numba")



LAZY = """
import contextlib, io, json, sys, types
import xr_agreement
heavy = ("numba", "scipy", "xr_agreement.mla", "xr_agreement.alpha", "xr_agreement.kappa",
         "xr_agreement.resampling", "xr_agreement.judge", "matplotlib")
# the report's diagnostics sections need that family: allowed, not listed
after_import = [m for m in heavy if m in sys.modules]
from xr_agreement.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["report"])
after_report = [m for m in heavy if m in sys.modules]
import xr_agreement.mla.api, xr_agreement.report.document, xr_agreement.simulate
import xr_agreement.alpha.api
functions = {n: isinstance(getattr(xr_agreement, n), types.FunctionType)
             for n in ("mla", "alpha", "report", "simulate")}
print(json.dumps([after_import, after_report, functions]))
"""


def test_import_is_light_and_the_report_loads_only_mla():
    # a fresh process: this one has long since imported everything
    env = {k: v for k, v in os.environ.items() if k != "XR_AGREEMENT_JIT"}
    done = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    after_import, after_report, functions = json.loads(done.stdout)
    assert after_import == []
    # the bundled example is small: its kernels run interpreted and numba is not loaded
    # (_core/jit.py); MLA is, and scipy only as dask's, when dask is installed; no other
    # family, no bootstrap, no matplotlib
    assert set(after_report) <= {"scipy", "xr_agreement.mla"}, after_report
    # importing a subpackage named like a function leaves the function in place
    assert functions == {"mla": True, "alpha": True, "report": True, "simulate": True}
