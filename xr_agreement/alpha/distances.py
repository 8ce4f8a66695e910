"""Alpha's distance metrics: names, definitions and distance tables."""

from __future__ import annotations

import functools

import numpy as np

from .._core.arrays import _plain
from . import kernels as _kernels


SINGLE_LABEL_METRICS = {
    "nominal": "0 if the two values are equal, else 1",
    "ordinal": "Krippendorff's rank metric (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)**2 with n_g "
    "the pairable frequencies of the values in rank order",
    "interval": "(v_c - v_k)**2",
    "ratio": "((v_c - v_k) / (v_c + v_k))**2, 0 where v_c + v_k = 0; values must be >= 0",
}


MULTI_LABEL_METRICS = {
    "hamming": "share of labels on which the two label vectors differ (normalized Hamming); "
    "additive over labels, missing decisions allowed per cell",
    "jaccard": "1 - |s & t| / |s | t|; 0 for two empty sets",
    "masi": "1 - J(s, t) M(s, t) with Jaccard J and M = 1, 2/3, 1/3, 0 for identical, subset, "
    "overlapping, disjoint sets (Passonneau 2006); 0 for two empty sets",
    "masi_rounded": "MASI with M = 0.67 and 0.33 in place of 2/3 and 1/3, as nltk's "
    "masi_distance computed it before nltk PR #3695 (2026)",
    "nominal": "0 if the two label sets are equal, else 1",
}


SET_METRIC_IDS = {
    "jaccard": _kernels.DELTA_JACCARD,
    "masi": _kernels.DELTA_MASI,
    "masi_rounded": _kernels.DELTA_MASI_ROUNDED,
}


# A callable distance is evaluated on every pair of distinct values: V**2 Python calls.
CALLABLE_LIMIT = 5000


def _metric_name(metric, multi_label: bool, label) -> str:
    if callable(metric):
        return "callable"
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a name or a callable, got {type(metric).__name__}")
    key = metric.lower()
    allowed = MULTI_LABEL_METRICS if multi_label else SINGLE_LABEL_METRICS
    if key not in allowed:
        kind = (f"multi-label data (with label dim {label!r})" if multi_label
                else "single-label ratings (no label dim)")
        other = SINGLE_LABEL_METRICS if multi_label else MULTI_LABEL_METRICS
        hint = ""
        if key in other:
            hint = (" (it applies to single-label ratings)" if multi_label
                    else f" (it needs a label dim; none named {label!r} was found)")
        raise ValueError(f"unknown metric {metric!r} for {kind}{hint}; use one of "
                         f"{list(allowed)} or a callable")
    return key


def _callable_delta(metric, values: list) -> np.ndarray:
    if len(values) > CALLABLE_LIMIT:
        raise ValueError(f"a callable metric is evaluated on every pair of the {len(values)} "
                         f"distinct values (limit {CALLABLE_LIMIT}); use a built-in metric")
    delta = np.empty((len(values), len(values)))
    for c, left in enumerate(values):
        for k, right in enumerate(values):
            delta[c, k] = metric(left, right)
    if not np.isfinite(delta).all():
        c, k = np.argwhere(~np.isfinite(delta))[0]
        raise ValueError(f"metric returned {delta[c, k]} for ({values[c]!r}, {values[k]!r})")
    return delta


def _value_distances(metric, name, values):
    """(V, V) distances between the values for the metric (None for ordinal: its ranks
    come from each replicate's frequencies)."""
    delta = None
    if name == "nominal":
        delta = 1.0 - np.eye(len(values))
    elif name in ("interval", "ratio"):
        numbers = np.asarray(values, np.float64)
        difference = numbers[:, None] - numbers[None, :]
        if name == "interval":
            delta = difference**2
        else:
            sums = numbers[:, None] + numbers[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                delta = np.where(sums > 0, (difference / sums) ** 2, 0.0)
    elif name == "callable":
        delta = _callable_delta(metric, [_plain(v) for v in values])
    return delta


def _set_distance_table(name: str, n_labels: int) -> np.ndarray:
    """Jaccard / MASI distance for every (|s|, |t|, |s & t|), shaped
    ((k + 1) * (k + 1), k + 1) as the kernels index it; impossible cells are 0."""
    k1 = n_labels + 1
    size_s, size_t, common = np.meshgrid(np.arange(k1), np.arange(k1), np.arange(k1),
                                         indexing="ij")
    union = size_s + size_t - common
    with np.errstate(divide="ignore", invalid="ignore"):
        similarity = np.where(union > 0, common / np.maximum(union, 1), 1.0)
    if name == "jaccard":
        weight = np.ones_like(similarity)
    else:
        subset, overlap = (0.67, 0.33) if name == "masi_rounded" else (2.0 / 3.0, 1.0 / 3.0)
        weight = np.select(
            [(size_s == size_t) & (common == size_s), common == np.minimum(size_s, size_t),
             common > 0],
            [1.0, subset, overlap], 0.0)
    distance = np.where(union > 0, 1.0 - similarity * weight, 0.0)
    return np.ascontiguousarray(distance.reshape(k1 * k1, k1))


@functools.lru_cache(maxsize=8)
def _cached_set_table(name: str, n_labels: int) -> np.ndarray:
    return _set_distance_table(name, n_labels)
