"""Every MLA value from the additive counts (:func:`finish_counts`), numpy or dask.

One implementation: the label- and corpus-level values come from one numba pass over the
(small) label counts, :func:`_kernels.label_values`; on dask input that pass runs once per
block of the extra dims (``map_blocks`` on the summed counts), its outputs packed side by
side and sliced back out as dask arrays. The item-level values, as long as the corpus, are
computed where the item counts are (numba on numpy, blockwise array arithmetic on dask).
"""

from __future__ import annotations

import math
import numpy as np

from .._core.arrays import divide
from . import kernels as _kernels

BASELINE_IDS = {"F": _kernels.BASELINE_F, "AC1": _kernels.BASELINE_AC1,
                "PB": _kernels.BASELINE_PB}

# the names of the columns of label_values' outputs
LABEL_COLUMNS = ("label_n_pairable_values", "label_prevalence", "label_observed",
                 "label_observed_minimum", "label_positive_agreement",
                 "label_negative_agreement")
LABEL_BASELINE_COLUMNS = ("label_expected", "label_agreement", "label_weight")
CORPUS_COLUMNS = ("observed", "observed_minimum", "raw_prevalence", "alpha_hamming",
                  "n_decided")
CORPUS_BASELINE_COLUMNS = ("agreement", "expected", "minimum", "gap")


def _item_values(agreeing, pairs, gaps):
    """Item observed agreement (*extra, N) and coefficients (B, *extra, N) in one numba pass."""
    lead, N = pairs.shape[:-1], pairs.shape[-1]
    G = math.prod(lead)
    observed = np.empty((G, N))
    agreement = np.empty((gaps.shape[0], G, N))
    _kernels.item_values(
        agreeing.reshape(G, N), pairs.reshape(G, N),
        np.ascontiguousarray(gaps, dtype=np.float64).reshape(-1, G), observed, agreement,
    )
    return observed.reshape(pairs.shape), agreement.reshape((gaps.shape[0], *pairs.shape))


def label_values(label_counts: np.ndarray, baselines) -> dict:
    """The label- and corpus-level values of numpy ``label_counts`` (*extra, label,
    deciders, stat): {name: array}, baseline-dependent ones with a leading baseline axis,
    plus ``gap`` (1 - A_e, for the item values) and ``n_decided``."""
    lead = label_counts.shape[:-3]
    k, M = label_counts.shape[-3:-1]
    n_deciders = M - 1
    G = math.prod(lead)
    counts = np.ascontiguousarray(label_counts, np.int64).reshape(G, k, M, 3)
    m = np.arange(M)
    if G > 1 and counts.size:
        # numbers of deciders no cell has add nothing to any sum: leave them out (on
        # complete data all but m = n; the bootstrap finishes many replicates at once).
        # Not for one block, whose pass over them is shorter than the leaving out.
        occurs = counts[..., 0].reshape(-1, M).any(axis=0)
        if not occurs.all():
            m, counts = m[occurs], np.ascontiguousarray(counts[:, :, occurs])
    B = len(baselines)
    # one output after the other along the first axis: each is a contiguous block, passed
    # to the kernel as (column, G, k) and read back as (column, *lead, k)
    label_out = np.empty((len(LABEL_COLUMNS), *lead, k))
    label_baseline_out = np.empty((len(LABEL_BASELINE_COLUMNS), B, *lead, k))
    corpus_out = np.empty((len(CORPUS_COLUMNS), *lead))
    corpus_baseline_out = np.empty((len(CORPUS_BASELINE_COLUMNS), B, *lead))
    _kernels.label_values(counts, m, n_deciders,
                          np.array([BASELINE_IDS[b] for b in baselines], np.int64),
                          label_out.reshape(label_out.shape[0], G, k),
                          label_baseline_out.reshape(label_baseline_out.shape[0], B, G, k),
                          corpus_out.reshape(corpus_out.shape[0], G),
                          corpus_baseline_out.reshape(corpus_baseline_out.shape[0], B, G))
    values = dict(zip(LABEL_COLUMNS, label_out))
    values.update(zip(CORPUS_COLUMNS, corpus_out))
    # the baseline-dependent ones keep their leading baseline axis
    values.update(zip(LABEL_BASELINE_COLUMNS, label_baseline_out))
    values.update(zip(CORPUS_BASELINE_COLUMNS, corpus_baseline_out))
    # counts stay integers (exact in float64 up to 2^53)
    values["label_n_pairable_values"] = values["label_n_pairable_values"].astype(np.int64)
    values["n_decided"] = values["n_decided"].astype(np.int64)
    return values


def _packed_label_values(label_counts, baselines, layout):
    """:func:`label_values` of one block, its outputs side by side in one float64 array
    (*extra, width) in the order of ``layout`` (name -> trailing shape)."""
    lead = label_counts.shape[:-3]
    values = label_values(label_counts, baselines)
    columns = []
    for name, trailing in layout.items():
        value = values[name]
        if name in CORPUS_BASELINE_COLUMNS or name in LABEL_BASELINE_COLUMNS:
            value = np.moveaxis(value, 0, len(lead))  # the baseline axis after the extra ones
        columns.append(value.reshape(lead + (math.prod(trailing),)))
    return np.concatenate(columns, axis=-1).astype(np.float64)


def _lazy_label_values(label_counts, baselines) -> dict:
    """:func:`label_values` of dask ``label_counts``: one task per block of the extra dims
    (their chunks are kept), whose outputs are packed side by side and sliced back out
    lazily."""
    import dask.array

    nd = label_counts.ndim
    lead = tuple(label_counts.shape[:-3])
    k = label_counts.shape[-3]
    B = len(baselines)
    layout = {**{name: (k,) for name in LABEL_COLUMNS},
              **{name: (B, k) for name in LABEL_BASELINE_COLUMNS},
              **{name: () for name in CORPUS_COLUMNS},
              **{name: (B,) for name in CORPUS_BASELINE_COLUMNS}}
    width = sum(math.prod(trailing) for trailing in layout.values())
    counts = label_counts.rechunk({nd - 3: -1, nd - 2: -1, nd - 1: -1})
    packed = dask.array.map_blocks(
        _packed_label_values, counts, list(baselines), layout, dtype=np.float64,
        drop_axis=[nd - 3, nd - 2, nd - 1], new_axis=[nd - 3],
        chunks=(*counts.chunks[:-3], (width,)), token="label-values")
    values, start = {}, 0
    for name, trailing in layout.items():
        size = math.prod(trailing)
        value = packed[..., start:start + size].reshape(lead + trailing)
        start += size
        if trailing[:1] == (B,) and (name in CORPUS_BASELINE_COLUMNS
                                     or name in LABEL_BASELINE_COLUMNS):
            value = dask.array.moveaxis(value, len(lead), 0)
        if name in ("label_n_pairable_values", "n_decided"):
            value = value.astype(np.int64)  # exact: counts below 2^53
        values[name] = value
    return values


def finish_counts(label_counts, item_agreeing, item_pairs, baselines) -> dict:
    """Every MLA value from the additive counts, as numpy or dask arrays.

    ``label_counts`` has axes (*extra, label, deciders, stat), the item arrays (*extra,
    item). Returns {name: array}; baseline-dependent values get a leading baseline axis.
    """
    n_annotators = label_counts.shape[-2] - 1
    n_labels = label_counts.shape[-3]
    if isinstance(label_counts, np.ndarray):
        values = label_values(label_counts, baselines)
    else:
        values = _lazy_label_values(label_counts, baselines)
    gaps = values.pop("gap")
    n_decided = values.pop("n_decided")
    n_items = item_pairs.shape[-1]
    if isinstance(item_pairs, np.ndarray):
        item_observed, values["item_agreement"] = _item_values(item_agreeing, item_pairs, gaps)
    else:
        item_observed = divide(item_agreeing, item_pairs)
        item_disagreement = 1 - item_observed  # exactly 0 where every pair agrees
        values["item_agreement"] = 1 - divide(item_disagreement, gaps[..., None])
    values.update(
        n_pairable_items=(item_pairs > 0).sum(-1),
        n_missing_decisions=n_items * n_annotators * n_labels - n_decided,
        item_observed=item_observed,
    )
    return values
