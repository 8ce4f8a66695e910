"""Every MLA value from the additive counts (:func:`finish_counts`), numpy or dask."""

from __future__ import annotations

import numpy as np

from .._core.arrays import divide
from . import kernels as _kernels


def _over_m(values):
    """Sum over the last (deciders) axis; a view when it has length 1 (numpy reduces a
    length-1 axis one outer element at a time)."""
    if values.shape[-1] == 1:
        return values[..., 0]
    return values.sum(-1)


def _item_values(agreeing, pairs, gaps):
    """Item observed agreement (*extra, N) and coefficients (B, *extra, N) in one numba pass."""
    lead, N = pairs.shape[:-1], pairs.shape[-1]
    G = int(np.prod(lead))
    observed = np.empty((G, N))
    agreement = np.empty((gaps.shape[0], G, N))
    _kernels.item_values(
        agreeing.reshape(G, N), pairs.reshape(G, N),
        np.ascontiguousarray(gaps, dtype=np.float64).reshape(-1, G), observed, agreement,
    )
    return observed.reshape(pairs.shape), agreement.reshape((gaps.shape[0], *pairs.shape))


def _label_sums(label_counts, m):
    """:func:`_kernels.label_sums` over any leading axes (numpy): the per-label sums of
    :func:`finish_counts` in one pass instead of some thirty small array operations (at
    (1000, 5, 50) these took a third of the call)."""
    lead = label_counts.shape[:-3]
    k, M = label_counts.shape[-3:-1]
    G = int(np.prod(lead))
    sums = np.empty((G, k, 6), np.int64)
    disagreement = np.empty((G, k))
    _kernels.label_sums(np.ascontiguousarray(label_counts, np.int64).reshape(G, k, M, 3),
                        np.ascontiguousarray(m, np.int64), sums, disagreement)
    sums = sums.reshape(lead + (k, 6))
    return (*(sums[..., c] for c in range(6)), disagreement.reshape(lead + (k,)))


def _nan_as_zero(values):
    """NaN -> 0 (labels without pairable decisions contribute nothing), numpy or dask."""
    return np.where(np.isnan(values), 0.0, values)


def _max_disagreement(cells, positives):
    """:func:`_kernels.max_disagreement` over any leading axes, numpy or dask."""

    def kernel(cells_block, positives_block):
        out = _kernels.max_disagreement(
            np.ascontiguousarray(cells_block.reshape(-1, cells_block.shape[-1]), np.int64),
            np.ascontiguousarray(positives_block.reshape(-1), np.int64),
        )
        return out.reshape(positives_block.shape)

    if isinstance(cells, np.ndarray):
        return kernel(cells, positives)
    import dask.array

    # blockwise rather than map_blocks: map_blocks aligns arrays of different ndim from the
    # right, which would pair the label axis of ``positives`` with the deciders axis
    outer = tuple(range(positives.ndim))
    return dask.array.blockwise(
        kernel, outer, cells, (*outer, positives.ndim), positives, outer,
        dtype=np.float64, concatenate=True, token="max-disagreement",
    )


def _baseline_terms(name: str, p):
    """(A_e,j, 1 - A_e,j), the latter computed directly so that it is exactly 0 when it
    should be."""
    if name == "F":
        return p**2 + (1 - p) ** 2, 2 * p * (1 - p)
    if name == "AC1":
        return 2 * p * (1 - p), p**2 + (1 - p) ** 2
    half = np.where(np.isnan(p), np.nan, 0.5)
    return half, half


def finish_counts(label_counts, item_agreeing, item_pairs, baselines) -> dict:
    """Every MLA value from the additive counts, as numpy or dask arrays.

    ``label_counts`` has axes (*extra, label, deciders, stat), the item arrays (*extra,
    item). Returns {name: array}; baseline-dependent values get a leading baseline axis.
    """
    n_annotators = label_counts.shape[-2] - 1
    m = np.arange(n_annotators + 1)
    # the cells by m, every m in place, for _max_disagreement
    all_cells = label_counts[..., 0] * (m >= 2)
    if isinstance(label_counts, np.ndarray) and label_counts.size:
        # numbers of deciders no cell has add nothing to any sum: leave them out (on
        # complete data all but m = n; the bootstrap finishes many replicates at once)
        occurs = label_counts[..., 0].reshape(-1, n_annotators + 1).any(axis=0)
        if not occurs.all():
            m, label_counts = m[occurs], label_counts[..., occurs, :]
    if isinstance(label_counts, np.ndarray):
        (n_j, positives_j, positive_pairs, positive_total, negative_pairs, negative_total,
         disagreement) = _label_sums(label_counts, m)
    else:
        pairable = m >= 2
        inverse = np.where(pairable, 1.0 / np.maximum(m - 1, 1), 0.0)
        cells = label_counts[..., 0] * pairable
        positives = label_counts[..., 1] * pairable
        squares = label_counts[..., 2] * pairable
        n_j = _over_m(m * cells)
        positives_j = _over_m(positives)
        # sum_i 2 x (m - x) / (m - 1) = n_j D_o,j
        disagreement = _over_m(2 * (m * positives - squares) * inverse)
        positive_pairs = _over_m(squares - positives)
        positive_total = _over_m((m - 1) * positives)
        negative_pairs = _over_m(m * m * cells - 2 * m * positives + squares - m * cells
                                 + positives)
        negative_total = _over_m((m - 1) * (m * cells - positives))
    total_values = n_j.sum(-1)
    p_j = divide(positives_j, n_j)
    # coefficients are computed as 1 - D / (1 - A_e): equal to (A_o - A_e) / (1 - A_e), and
    # exactly 1 when nothing disagrees
    label_disagreement = divide(disagreement, n_j)
    label_observed = 1 - label_disagreement
    max_disagreement = _max_disagreement(all_cells, positives_j)
    observed_disagreement = divide(disagreement.sum(-1), total_values)
    observed = 1 - observed_disagreement
    maximum_disagreement = divide(2 * max_disagreement.sum(-1), total_values)
    observed_minimum = 1 - maximum_disagreement
    # Krippendorff: D_e,j from pairable values drawn without replacement
    expected_disagreement = _nan_as_zero(
        divide(2 * positives_j * (n_j - positives_j), n_j - 1)
    )

    dependent = {key: [] for key in ("agreement", "expected", "minimum", "gap",
                                     "label_expected", "label_agreement", "label_weight")}
    for name in baselines:
        label_expected, label_gap = _baseline_terms(name, p_j)
        expected = divide(_nan_as_zero(n_j * label_expected).sum(-1), total_values)
        gap = divide(_nan_as_zero(n_j * label_gap).sum(-1), total_values)
        dependent["gap"].append(gap)
        dependent["agreement"].append(1 - divide(observed_disagreement, gap))
        dependent["expected"].append(expected)
        dependent["minimum"].append(1 - divide(maximum_disagreement, gap))
        dependent["label_expected"].append(label_expected)
        dependent["label_agreement"].append(1 - divide(label_disagreement, label_gap))
        dependent["label_weight"].append(_nan_as_zero(label_gap))
    stack = _stack if isinstance(p_j, np.ndarray) else _dask_stack
    n_items = item_pairs.shape[-1]
    values = {key: stack(arrays) for key, arrays in dependent.items()}
    gaps = values.pop("gap")
    if isinstance(item_pairs, np.ndarray):
        item_observed, values["item_agreement"] = _item_values(item_agreeing, item_pairs, gaps)
    else:
        item_observed = divide(item_agreeing, item_pairs)
        item_disagreement = 1 - item_observed  # exactly 0 where every pair agrees
        values["item_agreement"] = 1 - divide(item_disagreement, gaps[..., None])
    values.update(
        observed=observed,
        observed_minimum=observed_minimum,
        raw_prevalence=divide(positives_j.sum(-1), total_values),
        alpha_hamming=1 - divide(disagreement.sum(-1), expected_disagreement.sum(-1)),
        n_pairable_items=(item_pairs > 0).sum(-1),
        n_missing_decisions=n_items * n_annotators * n_j.shape[-1]
        - _over_m(m * label_counts[..., 0]).sum(-1),
        item_observed=item_observed,
        label_observed=label_observed,
        label_observed_minimum=1 - divide(2 * max_disagreement, n_j),
        label_prevalence=p_j,
        label_positive_agreement=divide(positive_pairs, positive_total),
        label_negative_agreement=divide(negative_pairs, negative_total),
        label_n_pairable_values=n_j,
    )
    return values


def _stack(arrays):
    """np.stack, without its checks for the usual single baseline (a view)."""
    if len(arrays) == 1:
        return np.asarray(arrays[0])[np.newaxis]
    return np.stack(arrays)


def _dask_stack(arrays):
    import dask.array

    return dask.array.stack(arrays)
