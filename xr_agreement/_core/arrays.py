"""Small array helpers shared across the package."""

from __future__ import annotations

import numpy as np


def _plain(value):
    """numpy scalars as plain Python values, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _is_dask(data) -> bool:
    return type(data).__module__.startswith("dask")
