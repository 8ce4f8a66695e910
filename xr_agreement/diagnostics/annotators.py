"""Who disagrees with whom: :func:`annotators`, the pair matrices and leave-one-out
coefficients, from one pass of additive counts (:mod:`.counts`) finished by MLA's own
:func:`xr_agreement.mla.finish_counts`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, divide
from .._core.attrs import json_attr
from .._core.validate import check_annotators, check_binary_dtype, check_dataarray, check_dims
from .._core.dataset import without_reasons
from ..mla import finish_counts, kept_coords, mla, parse_baselines
from .counts import block_sums, finish_lazily, sparse_sums
from .variables import ANNOTATOR_VARIABLES, attach_attrs

PAIR_DIMS = ("annotator_1", "annotator_2")
# "auto": the pair counts counts.sparse_pairs_cheaper chooses; tests set "dense" or "sparse"
PAIR_COUNTS = "auto"
INTERVAL_VARIABLES = ["agreement", "pair_observed", "pair_agreement", "annotator_observed",
                      "agreement_without"]


def _coefficients(label_counts, names):
    """MLA's corpus coefficient (B, *lead) of label counts (*lead, label, deciders, stat)."""
    lead = label_counts.shape[:-3]
    dummy = np.zeros((*lead, 1), np.int64)  # the corpus value needs no item counts
    return finish_counts(label_counts, dummy, dummy, names)["agreement"]


# the pair coefficients are finished this many (pair, label) entries at a time: the
# finishing's temporaries are tens of floats per entry, 250 MB at once for 400 annotators
PAIR_BLOCK = 1 << 16


def _pair_coefficients(pair_counts, names):
    """:func:`_coefficients` of the pair label counts (*extra, r, s, label, 3, 3), a block
    of rows r at a time (each pair's value is computed on its own, so blocks change no
    value): (B, *extra, r, s)."""
    n = pair_counts.shape[-5]
    per_row = max(1, int(np.prod(pair_counts.shape[:-5])) * n * pair_counts.shape[-3])
    rows = max(1, PAIR_BLOCK // per_row)
    if rows >= n:
        return _coefficients(pair_counts, names)
    return np.concatenate([_coefficients(pair_counts[..., r:r + rows, :, :, :, :], names)
                           for r in range(0, n, rows)], axis=-2)


def _pair_label_counts(pos_pos, pos_miss, miss_miss, n_items):
    """Label counts (*extra, r, s, label, 3, 3) of every annotator pair: only the cells
    both decided (m = 2) matter to the coefficient."""
    positives = np.diagonal(pos_pos, axis1=-2, axis2=-1)  # (*extra, label, r)
    missing = np.diagonal(miss_miss, axis1=-2, axis2=-1)
    both = n_items - missing[..., :, None] - missing[..., None, :] + miss_miss
    # sum_i x_r d_s: r's 1s where s decided
    one_decided = positives[..., :, None] - pos_miss
    agreeing = both - one_decided - np.swapaxes(one_decided, -1, -2) + 2 * pos_pos
    counts = np.zeros((*both.shape, 3, 3), np.int64)
    counts[..., 2, 0] = both
    counts[..., 2, 1] = one_decided + np.swapaxes(one_decided, -1, -2)
    counts[..., 2, 2] = counts[..., 2, 1] + 2 * pos_pos
    # (*extra, label, r, s, ...) -> (*extra, r, s, label, ...)
    counts = np.moveaxis(counts, -5, -3)
    return counts, np.moveaxis(both, -3, -1), np.moveaxis(agreeing, -3, -1)


def _without_label_counts(without_base, without):
    """Label counts (*extra, r, label, n, 3) of the corpus without annotator r: the part
    every annotator shares plus r's own (:func:`.kernels.annotator_counts`)."""
    return np.expand_dims(without_base, -4) + without


def _complete_without_label_counts(pos_pos, n_items):
    """:func:`_without_label_counts` of a complete design from the products of 1s alone:
    without r every cell has n - 1 deciders, ``sum x' = T - x_r`` and ``sum x'^2 =
    sum x^2 - 2 sum_s x_r x_s + x_r`` (x_r in {0, 1})."""
    n = pos_pos.shape[-1]
    positives = np.diagonal(pos_pos, axis1=-2, axis2=-1)  # (*extra, label, r)
    with_r = pos_pos.sum(-1)  # sum_i x_r x over the label
    squares = pos_pos.sum((-2, -1))[..., None]  # sum_i x^2
    counts = np.zeros((*positives.shape, n, 3), np.int64)
    counts[..., n - 1, 0] = n_items
    counts[..., n - 1, 1] = positives.sum(-1, keepdims=True) - positives
    counts[..., n - 1, 2] = squares - 2 * with_r + positives
    return np.moveaxis(counts, -3, -4)  # (*extra, r, label, n, 3)


def _finish(sums, n_items, names):
    """Every annotator-level value from the summed counts (numpy arrays)."""
    if "without" not in sums:  # a complete design: nothing missing
        n = sums["pos_pos"].shape[-1]
        zeros = np.zeros_like(sums["pos_pos"])
        sums = dict(sums, pos_miss=zeros, miss_miss=zeros,
                    items_annotated=np.full(sums["pos_pos"].shape[:-3] + (n,), n_items,
                                            np.int64))
        without_counts = _complete_without_label_counts(sums["pos_pos"], n_items)
    else:
        n = sums["items_annotated"].shape[-1]
        without_counts = None
    pair_counts, shared, agreeing = _pair_label_counts(
        sums["pos_pos"], sums["pos_miss"], sums["miss_miss"], n_items)
    shared_total = shared.sum(-1)
    agreeing_total = agreeing.sum(-1)
    diagonal = np.eye(n, dtype=bool)
    pair_observed = divide(agreeing_total, shared_total)
    pair_observed[..., diagonal] = np.nan
    pair_agreement = _pair_coefficients(pair_counts, names)
    pair_agreement[..., diagonal] = np.nan
    off = ~diagonal
    annotator_observed = divide((agreeing_total * off).sum(-1), (shared_total * off).sum(-1))
    if n > 2:
        if without_counts is None:
            without_counts = _without_label_counts(sums["without_base"], sums["without"])
        without = _coefficients(without_counts, names)
    else:
        without = np.full((len(names), *annotator_observed.shape), np.nan)
    positives = np.diagonal(sums["pos_pos"], axis1=-2, axis2=-1)
    decided = n_items - np.diagonal(sums["miss_miss"], axis1=-2, axis2=-1)
    return {
        "pair_n_pairable_values": shared_total,
        "pair_observed": pair_observed,
        "pair_agreement": pair_agreement,
        "annotator_observed": annotator_observed,
        "agreement_without": without,
        "annotator_prevalence": np.swapaxes(divide(positives, decided), -1, -2),
        "n_items_annotated": sums["items_annotated"],
    }


def _sparse_pair_coefficients(label_counts, names):
    """:func:`_coefficients` of the label counts (P, label, 3, 3) of the pairs who decided
    an item together, PAIR_BLOCK (pair, label) entries at a time: (B, P)."""
    P, k = label_counts.shape[:2]
    rows = max(1, PAIR_BLOCK // max(1, k))
    if P == 0:
        return np.empty((len(names), 0))
    return np.concatenate([_coefficients(label_counts[p:p + rows], names)
                           for p in range(0, P, rows)], axis=-1)


def _finish_sparse(sums, names, matrices=True):
    """:func:`_finish` of :func:`.counts.sparse_sums`: the pair matrices are filled from the
    pairs who decided an item together and, elsewhere, with the value of a pair that shares
    no cell (the coefficient of zero counts, NaN today), as the dense counts give them.
    Without ``matrices``, "pair_table" instead: (group, r, s) positions of the pairs r < s
    sharing a decided cell and their pairable values, observed agreement and coefficients
    (B, P)."""
    G, n, k = sums["decided"].shape
    keys = sums["pair_keys"]
    g, r, s = keys // (n * n), keys // n % n, keys % n
    counts = sums["pair_counts"]
    both, pos_pos, ones = counts[..., 0], counts[..., 1], counts[..., 2] + counts[..., 3]
    label_counts = np.zeros((len(keys), k, 3, 3), np.int64)
    label_counts[..., 2, 0] = both
    label_counts[..., 2, 1] = ones
    label_counts[..., 2, 2] = ones + 2 * pos_pos
    shared = both.sum(-1)
    agreeing = (both - ones + 2 * pos_pos).sum(-1)
    coefficients = _sparse_pair_coefficients(label_counts, names)
    if matrices:
        no_cell = _coefficients(np.zeros((1, k, 3, 3), np.int64), names)[:, 0]
        pair_n = np.zeros((G, n, n), np.int64)
        pair_n[g, r, s] = pair_n[g, s, r] = shared
        diagonal = np.arange(n)
        pair_n[:, diagonal, diagonal] = sums["decided"].sum(-1)
        pair_observed = np.full((G, n, n), np.nan)
        pair_observed[g, r, s] = pair_observed[g, s, r] = divide(agreeing, shared)
        pair_agreement = np.empty((len(names), G, n, n))
        pair_agreement[...] = no_cell[:, None, None, None]
        pair_agreement[:, g, r, s] = pair_agreement[:, g, s, r] = coefficients
        pair_agreement[:, :, diagonal, diagonal] = np.nan
        pairs = {"pair_n_pairable_values": pair_n, "pair_observed": pair_observed,
                 "pair_agreement": pair_agreement}
    else:
        kept = shared > 0
        pairs = {"pair_table": {"group": g[kept], "annotator_1": r[kept],
                                "annotator_2": s[kept], "pair_n_pairable_values": shared[kept],
                                "pair_observed": divide(agreeing[kept], shared[kept]),
                                "pair_agreement": coefficients[:, kept]}}
    # pooled over the annotator's pairs: integer sums, so the order of adding is no matter
    agreeing_with = np.zeros((G, n), np.int64)
    shared_with = np.zeros((G, n), np.int64)
    for one in (r, s):
        np.add.at(agreeing_with, (g, one), agreeing)
        np.add.at(shared_with, (g, one), shared)
    if n > 2:
        without_counts = _without_label_counts(sums["without_base"], sums["without"])
        without = _coefficients(without_counts, names)
    else:
        without = np.full((len(names), G, n), np.nan)
    return {
        **pairs,
        "annotator_observed": divide(agreeing_with, shared_with),
        "agreement_without": without,
        "annotator_prevalence": divide(sums["positives"], sums["decided"]),
        "n_items_annotated": sums["items_annotated"],
    }


def _specs(extra_shape, n, k, n_baselines):
    """(shape, dtype) of each output of :func:`_finish`, for dask."""
    pair, one = (*extra_shape, n, n), (*extra_shape, n)
    return {
        "pair_n_pairable_values": (pair, np.int64),
        "pair_observed": (pair, np.float64),
        "pair_agreement": ((n_baselines, *pair), np.float64),
        "annotator_observed": (one, np.float64),
        "agreement_without": ((n_baselines, *one), np.float64),
        "annotator_prevalence": ((*one, k), np.float64),
        "n_items_annotated": (one, np.int64),
    }


def _point(da, names, single, item, annotator, label, pair_matrices=True) -> xr.Dataset:
    """The point values of :func:`annotators`; without ``pair_matrices`` (no extra dims) the
    pair values over a ``pair`` dim instead (:func:`pair_table`)."""
    corpus = without_reasons(mla(da, names if not single else names[0], item=item,
                                 annotator=annotator, label=label))
    n_items = da.sizes[item]
    n = da.sizes[annotator]
    # crowd designs (many annotators, few on each item): pair counts only for the pairs
    # who decided an item together, where that is cheaper (counts.sparse_pairs_cheaper)
    sparse = None if _is_dask(da.data) or PAIR_COUNTS == "dense" else sparse_sums(
        da, item, annotator, label, force=PAIR_COUNTS == "sparse")
    if sparse is not None:
        sums, extra = sparse
        extra_shape = tuple(da.sizes[d] for d in extra)
        finished = _finish_sparse(sums, names, pair_matrices)
        table = finished.pop("pair_table", None)
        values = {name: value.reshape(value.shape[:1] + extra_shape + value.shape[2:])
                  if name in ("pair_agreement", "agreement_without") else
                  value.reshape(extra_shape + value.shape[1:])
                  for name, value in finished.items()}
    else:
        sums, extra = block_sums(da, "annotators", item, annotator, label)
        specs = _specs(tuple(da.sizes[d] for d in extra), n, da.sizes[label], len(names))
        values = finish_lazily(lambda totals: _finish(totals, n_items, names), sums, specs)
        if not pair_matrices:
            matrices = {name: values[name] for name in (
                "pair_n_pairable_values", "pair_observed", "pair_agreement")}
            if _is_dask(matrices["pair_observed"]):
                import dask

                (matrices,) = dask.compute(matrices)  # one pass over the blocks for all three
            table = _matrices_to_table(matrices)
    lead = ("baseline",) if not single else ()
    coefficient = slice(None) if not single else 0  # one baseline: no baseline dim
    if pair_matrices:
        pairs = {
            "pair_n_pairable_values": ((*extra, *PAIR_DIMS), values["pair_n_pairable_values"]),
            "pair_observed": ((*extra, *PAIR_DIMS), values["pair_observed"]),
            "pair_agreement": ((*lead, *extra, *PAIR_DIMS),
                               values["pair_agreement"][coefficient]),
        }
    else:
        pairs = {"pair_n_pairable_values": ("pair", table["pair_n_pairable_values"]),
                 "pair_observed": ("pair", table["pair_observed"]),
                 "pair_agreement": ((*lead, "pair"), table["pair_agreement"][coefficient])}
    result = xr.Dataset(
        {
            "agreement": corpus["agreement"],
            **pairs,
            "annotator_observed": ((*extra, annotator), values["annotator_observed"]),
            "agreement_without": ((*lead, *extra, annotator),
                                  values["agreement_without"][coefficient]),
            "annotator_prevalence": ((*extra, annotator, label),
                                     values["annotator_prevalence"]),
            "label_prevalence": corpus["label_prevalence"],
            "n_items_annotated": ((*extra, annotator), values["n_items_annotated"]),
        },
        coords=kept_coords(da, (*extra, annotator, label)),
    )
    if not pair_matrices:  # positions: the annotator coordinate names them
        result = result.assign_coords(annotator_1=("pair", table["annotator_1"]),
                                      annotator_2=("pair", table["annotator_2"]))
    elif annotator in da.coords:
        ids = da[annotator].values
        result = result.assign_coords(annotator_1=ids, annotator_2=ids)
    if not single:
        result = result.assign_coords(baseline=names)
    result = result.transpose(*lead, *extra, ...)
    attach_attrs(result, ANNOTATOR_VARIABLES)
    result.attrs = {
        "n_items": n_items,
        "n_annotators": n,
        "n_labels": da.sizes[label],
        "baseline": names[0] if single else json_attr(names),  # JSON: every store takes it
        "missing_data": "NaN decisions excluded; pair values over the (item, label) cells "
        "both annotators decided; coefficients by mla's pairable-values weighting",
        "reference": "Menzner & Leidner, Multi-Label Agreement (2026)",
    }
    return result


def _matrices_to_table(matrices):
    """The pair table of :func:`_finish_sparse` from the pair matrices of one group."""
    shared = matrices["pair_n_pairable_values"]
    r, s = np.nonzero(np.triu(shared > 0, 1))
    return {"group": np.zeros(len(r), np.int64), "annotator_1": r, "annotator_2": s,
            "pair_n_pairable_values": shared[r, s],
            "pair_observed": matrices["pair_observed"][r, s],
            "pair_agreement": matrices["pair_agreement"][:, r, s]}


def pair_table(da: xr.DataArray, baseline: str = "F", *, item: str = "item",
               annotator: str = "annotator", label: str = "label") -> xr.Dataset:
    """:func:`annotators` of a corpus without extra dims, with the pair values over a
    ``pair`` dim listing the pairs r < s who share a decided (item, label) cell (coords
    ``annotator_1``, ``annotator_2``: positions along ``annotator``) instead of the
    annotator_1 x annotator_2 matrices, whose other entries are the diagonal and the pairs
    sharing no cell (0 pairable values, NaN). On a crowd design its memory follows those pairs, not n^2; the
    report's annotator facts come from it.

    Examples
    --------
    >>> import xr_agreement
    >>> from xr_agreement.diagnostics.annotators import pair_table
    >>> table = pair_table(xr_agreement.datasets.bias_example())
    >>> table.annotator_1.values, table.annotator_2.values
    (array([0, 0, 1]), array([1, 2, 2]))
    >>> table.pair_agreement.round(3).values
    array([0.034, 0.216, 0.385])
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    if len(da.dims) != 3:
        raise ValueError(f"pair_table() takes (item, annotator, label) alone; got {da.dims}")
    names, single = parse_baselines(baseline)
    if not single:
        raise ValueError(f"pair_table() takes one baseline; got {baseline!r}")
    return _point(da, names, single, item, annotator, label, pair_matrices=False)


def annotators(
    da: xr.DataArray,
    baseline: str | Sequence[str] = "F",
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    ci: float | None = None,
    n_resamples: int = 1000,
    resample: str = "item",
    ci_method: str = "percentile",
    seed=None,
    progress: bool | None = None,
) -> xr.Dataset:
    """Who disagrees with whom: annotator pairs, leave-one-out coefficients and each
    annotator's prevalence per label.

    Parameters
    ----------
    da : xarray.DataArray
        Decisions with dims ``item``, ``annotator`` and ``label``; values 0/1 (bool, integer
        or float), NaN where a decision was not made. Extra dims are carried.
    baseline : str or list of str, default "F"
        As in :func:`xr_agreement.mla`; a list or "all" adds a ``baseline`` dim to the
        coefficients (``agreement``, ``pair_agreement``, ``agreement_without``).
    item, annotator, label : str
        Names of the dims that play these roles.
    ci : float, optional
        Confidence level of item-bootstrap intervals for ``agreement``, ``pair_observed``,
        ``pair_agreement``, ``annotator_observed`` and ``agreement_without``
        (``<v>_lower`` / ``<v>_upper``; attrs ``ci_level``, ``ci_method``,
        ``ci_n_resamples``, ``ci_resampling_unit``). Items are resampled and every value is
        recomputed on each resample (through :class:`xr_agreement.resampling.RecomputedStatistic`,
        so it costs ``n_resamples`` calls); annotators are not resampled, since the values
        belong to named annotators. Dask input is loaded into memory for intervals (the
        result is then in memory too).
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item"}, default "item"
        The resampled unit; only "item" is accepted here.
    ci_method : {"percentile", "bca"}, default "percentile"
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
    progress : bool, optional
        Show a progress bar; by default when stderr is a terminal or in a notebook.

    Returns
    -------
    xarray.Dataset
        ``agreement`` (the corpus coefficient of :func:`~xr_agreement.mla`); over
        ``annotator_1`` x ``annotator_2`` (carrying the annotator coordinate):
        ``pair_n_pairable_values``, ``pair_observed``, ``pair_agreement``; over
        ``annotator``: ``annotator_observed``, ``agreement_without``, ``n_items_annotated``;
        ``annotator_prevalence`` (annotator x label) beside ``label_prevalence``. With
        several baselines ``attrs["baseline"]`` is JSON text of their list (as in
        :func:`~xr_agreement.mla`; ``json.loads`` reads it back).

    Raises
    ------
    ValueError
        A dim is missing or empty, fewer than 2 annotators, a value other than 0/1/NaN (the
        message names it and its coordinates), an unknown baseline, a bad ``ci=`` option.
    TypeError
        A non-numeric dtype.

    Notes
    -----
    One pass over the decisions counts, per label, the items where two annotators both
    said 1, where one said 1 and the other did not decide, where neither decided, and,
    for the corpus without each annotator, MLA's label counts by number of deciders
    (memory O(n^2 k) for n annotators and k labels);
    every pair and leave-one-out coefficient is MLA's finishing of these counts, identical
    to calling :func:`~xr_agreement.mla` on the sub-array (no loop over pairs in Python).
    In a crowd design (many annotators, a few on each item; numpy input with missing
    decisions) the pairs are counted only where two annotators decided an item together,
    and the leave-one-out counts only up to the most deciders an item has, whenever those
    pair visits are fewer than the n (n - 1) / 2 pairs: memory O(P k + n k) for P such
    pairs, beside the result's own n x n matrices, with the same values bit for bit.
    Dask input is counted item block by item block, lazily: the result holds dask arrays
    and nothing is computed until it is.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = xr_agreement.annotators(ex)
    >>> float(result.agreement.round(3)), result.agreement_without.round(3).values
    (0.232, array([0.385, 0.216, 0.034]))
    >>> float(result.pair_agreement.sel(annotator_1=1, annotator_2=2).round(3))
    0.034
    >>> result.pair_observed.sel(annotator_1=2, annotator_2=3).item() * 124
    116.0
    >>> result.annotator_observed.values * 248
    array([224., 226., 230.])
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    names, single = parse_baselines(baseline)
    if ci is None:
        return _point(da, names, single, item, annotator, label)
    # the bootstrap loads only when intervals are asked for (the report uses the point values)
    from ..resampling import RecomputedStatistic, bootstrap, check_options

    ci, n_resamples, resample, ci_method = check_options(
        ci, n_resamples, resample, ci_method, seed, progress)
    if resample != "item":
        raise ValueError(
            f"annotators() resamples items only (its values belong to named annotators); got "
            f"resample={resample!r}")
    data = da.compute() if _is_dask(da.data) else da
    result = _point(data, names, single, item, annotator, label)

    def recompute(resampled):
        return _point(resampled, names, single, item, annotator, label)[INTERVAL_VARIABLES]

    statistic = RecomputedStatistic(recompute, data, item=item, annotator=annotator)
    result = bootstrap(statistic, result, ci=ci, n_resamples=n_resamples, resample=resample,
                       ci_method=ci_method, seed=seed, progress=progress,
                       variables=INTERVAL_VARIABLES, item=item)
    note = ("items resampled, annotators kept (the values belong to named annotators); "
            "every interval variable recomputed on each resample")
    result.attrs["ci_note"] = "; ".join(filter(None, [note, result.attrs.get("ci_note")]))
    return result
