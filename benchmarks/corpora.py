"""Benchmark inputs shaped like real corpora: string ids on every dim (document ids,
annotator names, label names), as pandas indexes, the way a reader builds them.

Importing this module also makes every kernel call of the benchmark compiled: the
benchmarks time numba's kernels, and their small warm-up calls would otherwise run
interpreted (xr_agreement/_core/jit.py) and leave numba's loading to the first timed run.
Fresh processes started by a benchmark (bench_table's start-up rows) keep the default."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from xr_agreement._core import jit

jit.set_mode("always")

ID_FORMATS = {"item": "doc-{:07d}", "annotator": "ann-{}", "label": "label-{:03d}"}


def with_string_ids(values: np.ndarray, dims) -> xr.DataArray:
    """``values`` as a DataArray over ``dims`` with a string id on every position."""
    coords = {d: pd.Index([ID_FORMATS[d].format(i) for i in range(size)])
              for d, size in zip(dims, values.shape)}
    return xr.DataArray(values, dims=dims, coords=coords)
