"""Attrs that every store accepts: netCDF (the scipy, netCDF4 and h5netcdf engines) and zarr.

A netCDF attribute is a string, a number or a 1-D array of numbers. No engine writes a dict,
and the scipy engine fails on a list of strings after it has started the file (leaving one
that does not open). The results and readers therefore keep structured values (dicts, lists
of texts, nested lists) as JSON text, as ``json.dumps`` writes it (a dict with its keys
sorted); ``json.loads`` gives the value back.
"""

from __future__ import annotations

import json
import math
from numbers import Number

import numpy as np


def json_attr(value) -> str:
    """``value`` (dicts, lists and tuples of texts and numbers, nested) as JSON text: the
    keys of a dict sorted (as text), numpy scalars and arrays as Python numbers and lists.

    >>> json_attr({"cancelled": {"2": 1}, "draft": {}})
    '{"cancelled": {"2": 1}, "draft": {}}'
    >>> json.loads(json_attr(["F", "AC1"]))
    ['F', 'AC1']
    """
    return _ENCODER.encode(json_safe(value))


# one encoder: json.dumps with options builds a new one each call (3 of its 5 us on a list of
# three baselines)
_ENCODER = json.JSONEncoder(sort_keys=True)


def storable(value):
    """``value`` itself where every store accepts it (a string, a number other than a
    boolean, a non-empty 1-D list or array of such numbers), else its :func:`json_attr`."""
    if isinstance(value, str) or _is_number(value):
        return value
    if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) == 1 and len(value) \
            and all(_is_number(v) for v in value):
        return value
    return json_attr(value)


def storable_attrs(attrs: dict) -> dict:
    """``attrs`` with every value :func:`storable`."""
    return {name: storable(value) for name, value in attrs.items()}


def from_json_attr(value, default=None):
    """A structured attr made by :func:`json_attr`, back as the value (a dict or list set by
    hand is taken as it is); ``default`` for None. Text that is not JSON is returned as it
    is (the span readers' ``notes`` are one sentence)."""
    if value is None:
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _is_number(value) -> bool:
    return isinstance(value, (Number, np.number)) and not isinstance(value, (bool, np.bool_))


def json_safe(value):
    """``value`` as JSON can hold it: dicts with text keys, lists (tuples, numpy arrays),
    Python numbers (numpy scalars), None for a non-finite float, text for anything else (a
    timestamp). The one converter of the package's JSON: attrs here, the reports' JSON and
    the command line's records."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
