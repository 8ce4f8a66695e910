"""Explicit resampling shared by the bootstrap tests: the oracle the fast replicates are
checked against."""

import numpy as np


def numpy_resamples(seed, n_items, n_annotators, n_resamples, unit):
    """Item and annotator index arrays drawn as xr_agreement.resampling documents for a
    Generator seed: annotators first (for "annotator" and "both"), then items, each as
    ``rng.integers(0, size, (R, size))``; None for a unit not resampled."""
    rng = np.random.default_rng(seed)
    annotators = items = None
    if unit in ("annotator", "both"):
        annotators = rng.integers(0, n_annotators, (n_resamples, n_annotators))
    if unit in ("item", "both"):
        items = rng.integers(0, n_items, (n_resamples, n_items))
    return items, annotators


def resampled(da, selection: dict):
    """``da`` at the drawn positions ``{dim: indices}``, with fresh coordinates on those
    dims: each copy of an item or annotator is a distinct unit (an annotator drawn twice
    is two raters)."""
    out = da.isel(selection)
    return out.assign_coords({dim: np.arange(out.sizes[dim]) for dim in selection})


def replicate_selections(items, annotators):
    """The ``{dim: indices}`` of each replicate, from :func:`numpy_resamples`."""
    n_resamples = len(items if items is not None else annotators)
    for r in range(n_resamples):
        selection = {}
        if items is not None:
            selection["item"] = items[r]
        if annotators is not None:
            selection["annotator"] = annotators[r]
        yield selection
