"""Benchmark inputs shaped like real corpora: string ids on every dim (document ids,
annotator names, label names), as pandas indexes, the way a reader builds them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

ID_FORMATS = {"item": "doc-{:07d}", "annotator": "ann-{}", "label": "label-{:03d}"}


def with_string_ids(values: np.ndarray, dims) -> xr.DataArray:
    """``values`` as a DataArray over ``dims`` with a string id on every position."""
    coords = {d: pd.Index([ID_FORMATS[d].format(i) for i in range(size)])
              for d, size in zip(dims, values.shape)}
    return xr.DataArray(values, dims=dims, coords=coords)
