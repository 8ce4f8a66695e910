"""Earlier multi-label agreement measures that the MLA paper compares with (section 2.1 and
the end of section 3.7), implemented from their original definitions.

=========================  ==========================================================
:func:`augmented_kappa`    Rosenberg & Binkowski (2004): each annotation is one unit of
                           weight split evenly over the selected labels; Cohen's kappa on
                           these weights, averaged over annotator pairs.
:func:`boot_f1`            Marchal et al. (2022): F1 (Dice) overlap of the selected labels
                           per item, chance-corrected with a bootstrapped chance term.
:func:`masi`               Passonneau (2006): Jaccard x monotonicity weight, reported
                           directly (not chance-corrected), averaged over items and pairs.
:func:`am`                 Bhowmick et al. (2008): kappa over every unordered pair of
                           labels, whose value per item is (0, 0), (1, 1) or mixed.
=========================  ==========================================================

All four take complete 0/1 decisions (dims ``item``, ``annotator``, ``label``; any other dim
is carried through) and return a Dataset whose ``coefficient`` is the measure. Which
aggregation over annotator pairs reproduces the paper's worked-example values is recorded in
``docs/comparison_measures.md``.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import _plain
from .._core.validate import (check_annotators, check_binary_dtype, check_dataarray, check_dims,
                              describe_position)
from . import kernels as _kernels


REFERENCES = {
    "augmented_kappa": "Rosenberg & Binkowski (2004), Augmenting the kappa statistic to "
    "determine interannotator reliability for multiply labeled data points, HLT-NAACL",
    "boot_f1": "Marchal, Scholman, Yung & Demberg (2022), Establishing annotation quality "
    "in multi-label annotations, COLING",
    "masi": "Passonneau (2006), Measuring agreement on set-valued items (MASI) for semantic "
    "and pragmatic annotation, LREC",
    "am": "Bhowmick, Basu & Mitra (2008), An agreement measure for determining "
    "inter-annotator reliability of human judgements on affective text, COLING workshop",
}


# --- shared plumbing ------------------------------------------------------------------


def _decisions(da, item, annotator, label, measure):
    """Validated decisions as float64 numpy (*extra, item, annotator, label) + extra dims."""
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    extra = [d for d in da.dims if d not in (item, annotator, label)]
    ordered = da.transpose(*extra, item, annotator, label)
    raw = np.asarray(ordered.values)
    values = raw.astype(np.float64)
    coords = [(d, np.asarray(ordered[d].values)) for d in ordered.dims]
    if np.isnan(values).any():
        position = np.unravel_index(int(np.argmax(np.isnan(values))), values.shape)
        where = ", ".join(f"{d}={_plain(c[p])!r}" for (d, c), p in zip(coords, position))
        raise ValueError(
            f"{measure} needs complete decisions; found a missing (NaN) decision at {where} "
            f"({int(np.isnan(values).sum())} in all). Use mla() for missing data."
        )
    if ((values != 0) & (values != 1)).any():
        raise ValueError(describe_position(raw, coords))
    return values, extra


def _pairs(n):
    first, second = np.triu_indices(n, k=1)
    return first, second


PAIR_DIMS = ("annotator_1", "annotator_2")


def _pair_matrix(values, n):
    """Values (..., pair) of the unordered pairs a < b (in :func:`_pairs` order) as a
    symmetric (..., n, n) matrix over ``annotator_1`` x ``annotator_2``, NaN on the
    diagonal."""
    first, second = _pairs(n)
    matrix = np.full((*values.shape[:-1], n, n), np.nan)
    matrix[..., first, second] = values
    matrix[..., second, first] = values
    return matrix


def _finish(data, da, item, annotator, label, measure, variables):
    """Wrap {name: (dims, numpy values)} into a Dataset: the input's coordinates along the
    dims that remain, annotator names on ``annotator_1`` x ``annotator_2``, attrs on every
    variable. A value given over ``pair`` (the unordered pairs) becomes the symmetric pair
    matrix."""
    n_annotators = da.sizes[annotator]
    arrays = {}
    for name, (dims, values) in data.items():
        if dims and dims[-1] == "pair":
            dims, values = (*dims[:-1], *PAIR_DIMS), _pair_matrix(values, n_annotators)
        arrays[name] = xr.DataArray(values, dims=dims)
    result = xr.Dataset(arrays)
    for name, coord in da.coords.items():
        if set(coord.dims) <= set(result.dims):
            result = result.assign_coords({name: coord})
    if PAIR_DIMS[0] in result.dims:
        annotators = np.asarray(da[annotator].values)
        result = result.assign_coords(annotator_1=annotators, annotator_2=annotators)
    for name, (long_name, symbol, description) in variables.items():
        result[name].attrs = {"long_name": long_name, "symbol": symbol, "description": description}
    result.attrs = {
        "measure": measure,
        "n_items": da.sizes[item],
        "n_annotators": n_annotators,
        "n_labels": da.sizes[label],
        "reference": REFERENCES[measure],
    }
    return result


def _intersections(values):
    """Label-set intersection sizes (..., item, annotator, annotator) and set sizes
    (..., item, annotator) of 0/1 values (..., item, annotator, label)."""
    return values @ np.swapaxes(values, -1, -2), values.sum(-1)


def _kappa(observed, expected):
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = 1 - expected
        return np.where(gap != 0, (observed - expected) / np.where(gap != 0, gap, 1), np.nan)


# --- augmented kappa ------------------------------------------------------------------


def augmented_kappa(
    da: xr.DataArray, *, item: str = "item", annotator: str = "annotator", label: str = "label"
) -> xr.Dataset:
    """Augmented kappa of Rosenberg & Binkowski (2004) for multiply labelled items.

    An annotation with s selected labels counts as one unit of weight split evenly, 1/s per
    label (their p = 0.5 case, no primary label). For annotators a and b, observed agreement
    is the mean over items of sum_j w_a,j w_b,j (the chance that one label drawn from each
    annotation coincides) and expected agreement sum_j wbar_a,j wbar_b,j from each
    annotator's own mean weights, as in Cohen's kappa; the coefficient is the mean of the
    pairwise kappas. An empty annotation carries no weight.

    Parameters
    ----------
    da : xarray.DataArray
        Complete 0/1 decisions with dims ``item``, ``annotator``, ``label``; other dims are
        carried through.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    xarray.Dataset
        ``coefficient`` (mean pairwise kappa over the unordered annotator pairs),
        ``pair_coefficient``, ``pair_observed`` and ``pair_expected`` over
        ``annotator_1`` x ``annotator_2`` (symmetric, NaN on the diagonal; coords the
        annotators). NaN for a pair whose expected agreement is 1.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = ex.agreement.augmented_kappa()
    >>> round(float(result.coefficient), 3)
    0.253
    >>> round(float(result.pair_coefficient.sel(annotator_1=1, annotator_2=2)), 3)
    0.199
    """
    values, extra = _decisions(da, item, annotator, label, "augmented_kappa")
    sizes = values.sum(-1, keepdims=True)
    weights = np.divide(values, sizes, out=np.zeros_like(values), where=sizes > 0)
    n_items = values.shape[-3]
    # (..., n, n): mean over items of sum_j w_a,j w_b,j
    flat = np.swapaxes(weights, -3, -2).reshape(*weights.shape[:-3], weights.shape[-2], -1)
    observed_matrix = flat @ np.swapaxes(flat, -1, -2) / n_items
    mean_weights = weights.mean(-3)
    expected_matrix = mean_weights @ np.swapaxes(mean_weights, -1, -2)
    first, second = _pairs(values.shape[-2])
    observed = observed_matrix[..., first, second]
    expected = expected_matrix[..., first, second]
    pair_kappa = _kappa(observed, expected)
    with np.errstate(invalid="ignore"):
        coefficient = pair_kappa.mean(-1)
    data = {
        "coefficient": (extra, coefficient),
        "pair_coefficient": ((*extra, "pair"), pair_kappa),
        "pair_observed": ((*extra, "pair"), observed),
        "pair_expected": ((*extra, "pair"), expected),
    }
    variables = {
        "coefficient": (
            "augmented kappa",
            "kappa_aug",
            (
                "mean over annotator pairs of (P_o - P_e) / (1 - P_e) with label weights 1/s "
                "(Rosenberg & Binkowski 2004)"
            ),
        ),
        "pair_coefficient": ("pairwise augmented kappa", "kappa_ab", "kappa of one pair"),
        "pair_observed": (
            "pairwise observed agreement",
            "P_o,ab",
            "mean over items of sum_j w_a,j w_b,j",
        ),
        "pair_expected": (
            "pairwise expected agreement",
            "P_e,ab",
            "sum_j wbar_a,j wbar_b,j with each annotator's mean label weights",
        ),
    }
    return _finish(data, da, item, annotator, label, "augmented_kappa", variables)


# --- MASI -----------------------------------------------------------------------------


def _masi_per_item_pair(values):
    """MASI similarity (..., item, pair) of the label sets of every annotator pair."""
    intersection, sizes = _intersections(values)
    first, second = _pairs(values.shape[-2])
    inter = intersection[..., first, second]
    size_a = sizes[..., first]
    size_b = sizes[..., second]
    union = size_a + size_b - inter
    identical = (inter == size_a) & (inter == size_b)
    subset = inter == np.minimum(size_a, size_b)
    monotonicity = np.where(
        identical, 1.0, np.where(subset, 2 / 3, np.where(inter > 0, 1 / 3, 0.0))
    )
    jaccard = np.divide(inter, union, out=np.ones_like(inter), where=union > 0)
    # two empty sets are identical: MASI 1
    return jaccard * monotonicity


def masi(
    da: xr.DataArray, *, item: str = "item", annotator: str = "annotator", label: str = "label"
) -> xr.Dataset:
    """MASI similarity (Passonneau 2006), reported directly, not chance-corrected.

    For two label sets A and B, MASI = J * M with the Jaccard index J = ``|A & B| / |A | B|``
    and the monotonicity weight M = 1 if A = B, 2/3 if one contains the other, 1/3 if they
    overlap otherwise, 0 if disjoint. Two empty sets are identical (MASI 1). The
    coefficient averages over items and annotator pairs.

    Parameters
    ----------
    da : xarray.DataArray
        Complete 0/1 decisions with dims ``item``, ``annotator``, ``label``.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    xarray.Dataset
        ``coefficient`` (mean over items and unordered annotator pairs), ``item_masi``
        (mean over pairs per item), ``pair_masi`` (mean over items per pair, over
        ``annotator_1`` x ``annotator_2``: symmetric, NaN on the diagonal).

    Notes
    -----
    The MLA paper reports MASI = 0.509 for its worked example; this average gives 0.331.
    ``docs/comparison_measures.md`` lists the aggregations tried and their values.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = ex.agreement.masi()
    >>> round(float(result.coefficient), 3)
    0.331
    >>> result.item_masi.round(3).values.tolist()
    [1.0, 0.148, 0.074, 0.101]
    """
    values, extra = _decisions(da, item, annotator, label, "masi")
    similarity = _masi_per_item_pair(values)
    data = {
        "coefficient": (extra, similarity.mean((-2, -1))),
        "item_masi": ((*extra, item), similarity.mean(-1)),
        "pair_masi": ((*extra, "pair"), similarity.mean(-2)),
    }
    variables = {
        "coefficient": (
            "MASI similarity",
            "MASI",
            (
                "mean over items and annotator pairs of J * M (Passonneau 2006); not "
                "chance-corrected"
            ),
        ),
        "item_masi": ("item MASI", "MASI_i", "mean over annotator pairs on the item"),
        "pair_masi": ("pairwise MASI", "MASI_ab", "mean over items for one annotator pair"),
    }
    return _finish(data, da, item, annotator, label, "masi", variables)


# --- boot-F1 --------------------------------------------------------------------------


def _pair_f1(values, first, second):
    """Mean over items of the F1 overlap ``2 |A & B| / (|A| + |B|)`` of each annotator pair,
    from values (..., item, annotator, label); an item that neither annotator labelled
    counts as full agreement (F1 = 1). Returns (..., pair)."""
    intersection, sizes = _intersections(values)
    overlap = intersection[..., first, second]
    total = sizes[..., first] + sizes[..., second]
    f1 = np.divide(2 * overlap, total, out=np.ones_like(overlap), where=total > 0)
    return f1.mean(-2)


def _exact_f1_chance(prevalence, first, second):
    """Limit of the bootstrap chance term: the expected F1 of one item when annotator a
    selects label j independently with probability p_a,j (prevalence (..., n, k))."""
    lead = prevalence.shape[:-2]
    k = prevalence.shape[-1]
    p_first = np.ascontiguousarray(prevalence[..., first, :].reshape(-1, k))
    p_second = np.ascontiguousarray(prevalence[..., second, :].reshape(-1, k))
    return _kernels.expected_f1_independent(p_first, p_second).reshape(*lead, first.size)


def _random_f1_chance(values, prevalence, first, second, n_chance_runs, seed):
    """The chance term of boot-F1: the mean of :func:`_pair_f1` over ``n_chance_runs``
    random annotations, each decision redrawn with the annotator's share on the label."""
    rng = np.random.default_rng(seed)
    shape = (*values.shape[:-3], first.size)
    total = np.zeros(shape)
    count = np.zeros(shape)
    # bounded memory: a few million random draws per block
    per_run = max(values.size, 1)
    block = int(max(1, min(n_chance_runs, 4_000_000 // per_run)))
    done = 0
    while done < n_chance_runs:
        b = min(block, n_chance_runs - done)
        draws = (rng.random((b, *values.shape)) < prevalence[..., None, :, :]).astype(
            np.float64
        )
        runs = _pair_f1(draws, first, second)
        total += np.nansum(runs, axis=0)
        count += np.isfinite(runs).sum(0)
        done += b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def boot_f1(
    da: xr.DataArray,
    n_chance_runs: int | None = 1000,
    seed=None,
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> xr.Dataset:
    """Bootstrapped chance-adjusted F1 agreement (Marchal et al. 2022).

    Observed agreement of annotators a and b is the mean over items of the F1 (Dice)
    overlap ``2 |A & B| / (|A| + |B|)`` of their selected labels; jointly unselected labels
    play no part and items neither annotator labelled are left out. The chance term is the
    same statistic on random annotations: each run redraws every annotator's decision on
    every item and label with replacement from that annotator's decisions on that label.
    Adjusted agreement (F1_o - F1_c) / (1 - F1_c) is averaged over annotator pairs.

    Parameters
    ----------
    da : xarray.DataArray
        Complete 0/1 decisions with dims ``item``, ``annotator``, ``label``.
    n_chance_runs : int or None, default 1000
        Random chance runs B behind the chance term (the paper's bootstrap runs). ``None``
        uses the exact limit B -> infinity (the expectation of the resampled statistic,
        computed by dynamic programming over labels).
    seed : int, numpy.random.Generator or None
        Seed of the chance runs.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    xarray.Dataset
        ``coefficient`` (mean adjusted F1 over the unordered annotator pairs), and over
        ``annotator_1`` x ``annotator_2`` (symmetric, NaN on the diagonal):
        ``pair_coefficient``, ``pair_observed`` (F1_o), ``pair_chance`` (F1_c). Attrs
        ``n_chance_runs`` (``"exact"`` for ``None``).

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = ex.agreement.boot_f1(n_chance_runs=None)
    >>> round(float(result.coefficient), 3)
    0.362
    >>> result.pair_observed.round(3).values.tolist()
    [[nan, 0.361, 0.5], [0.361, nan, 0.561], [0.5, 0.561, nan]]
    """
    values, extra = _decisions(da, item, annotator, label, "boot_f1")
    if n_chance_runs is not None and (
        isinstance(n_chance_runs, bool)
        or not isinstance(n_chance_runs, (int, np.integer))
        or n_chance_runs < 1
    ):
        raise ValueError(
            f"n_chance_runs must be a positive integer or None, got {n_chance_runs!r}"
        )
    first, second = _pairs(values.shape[-2])
    observed = _pair_f1(values, first, second)
    prevalence = values.mean(-3)  # (..., n, k)
    if n_chance_runs is None:
        chance = _exact_f1_chance(prevalence, first, second)
    else:
        chance = _random_f1_chance(values, prevalence, first, second, n_chance_runs, seed)
    pair_adjusted = _kappa(observed, chance)
    data = {
        "coefficient": (extra, pair_adjusted.mean(-1)),
        "pair_coefficient": ((*extra, "pair"), pair_adjusted),
        "pair_observed": ((*extra, "pair"), observed),
        "pair_chance": ((*extra, "pair"), chance),
    }
    variables = {
        "coefficient": (
            "boot-F1",
            "F1_boot",
            "mean over annotator pairs of (F1_o - F1_c) / (1 - F1_c) (Marchal et al. 2022)",
        ),
        "pair_coefficient": ("pairwise boot-F1", "F1_boot,ab", "adjusted F1 of one pair"),
        "pair_observed": (
            "pairwise observed F1",
            "F1_o,ab",
            "mean over items (not both empty) of 2 |A & B| / (|A| + |B|)",
        ),
        "pair_chance": (
            "pairwise chance F1",
            "F1_c,ab",
            "mean of the observed statistic over the random chance runs"
            if n_chance_runs
            else "exact expectation of the observed statistic under resampling (B -> infinity)",
        ),
    }
    result = _finish(data, da, item, annotator, label, "boot_f1", variables)
    result.attrs["n_chance_runs"] = "exact" if n_chance_runs is None else int(n_chance_runs)
    return result


# --- A_m ------------------------------------------------------------------------------


def am(
    da: xr.DataArray, *, item: str = "item", annotator: str = "annotator", label: str = "label"
) -> xr.Dataset:
    """The A_m coefficient of Bhowmick et al. (2008).

    Every unordered pair of labels (j, l) is a nominal variable whose value for an
    annotation is (0, 0), (1, 1) or mixed. For annotators a, b and label pair (j, l),
    P_o is the share of items on which the two give the same value and P_e = sum_v
    P_a(v) P_b(v) uses each annotator's own marginal distribution over the three values.
    A_m = (sum P_o - sum P_e) / (sum (1 - P_e)), the sums running over annotator pairs and
    label pairs: the kappa of the pooled agreements.

    Parameters
    ----------
    da : xarray.DataArray
        Complete 0/1 decisions with dims ``item``, ``annotator``, ``label``.
    item, annotator, label : str
        Names of the dims that play these roles.

    Returns
    -------
    xarray.Dataset
        ``coefficient`` (A_m), ``observed`` and ``expected`` (the means of P_o and P_e).
        NaN when every P_e is 1 (no variation at all).

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> round(float(ex.agreement.am().coefficient), 3)
    0.281
    """
    values, extra = _decisions(da, item, annotator, label, "am")
    N, n, k = values.shape[-3:]
    if k < 2:
        raise ValueError(f"A_m needs at least 2 labels (pairs of labels); dim {label!r} has {k}")
    lead = values.shape[:-3]
    sums = _kernels.label_pair_agreement(
        np.ascontiguousarray(values.reshape(-1, N, n, k), dtype=np.uint8)
    ).reshape(*lead, 2)
    sum_observed, sum_expected = sums[..., 0], sums[..., 1]
    count = n * (n - 1) / 2 * k * (k - 1) / 2
    gap = count - sum_expected
    with np.errstate(invalid="ignore", divide="ignore"):
        coefficient = np.where(
            gap > 0, (sum_observed - sum_expected) / np.where(gap > 0, gap, 1), np.nan
        )
    data = {
        "coefficient": (extra, coefficient),
        "observed": (extra, sum_observed / count),
        "expected": (extra, sum_expected / count),
    }
    variables = {
        "coefficient": (
            "A_m",
            "A_m",
            (
                "(sum P_o - sum P_e) / sum (1 - P_e) over annotator pairs and label pairs "
                "(Bhowmick et al. 2008)"
            ),
        ),
        "observed": (
            "observed label-pair agreement",
            "P_o",
            (
                "mean over annotator pairs and label pairs of the share of items with the same "
                "value (both set, both unset, mixed)"
            ),
        ),
        "expected": (
            "expected label-pair agreement",
            "P_e",
            "mean over annotator pairs and label pairs of sum_v P_a(v) P_b(v)",
        ),
    }
    return _finish(data, da, item, annotator, label, "am", variables)
