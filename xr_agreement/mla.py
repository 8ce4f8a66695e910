"""Multi-Label Agreement (Menzner & Leidner): observed Hamming agreement, three baselines,
corpus / item / label levels, the eq. 6 weights, the conditional minimum, Hamming alpha.

Everything is finished here with xarray arithmetic on the small count arrays of
:func:`xr_agreement._stats.hamming_counts`; nothing in this module touches the raw decisions.

Missing decisions (NaN) follow Krippendorff's pairable-values weighting: for label ``j`` only
cells (item, label) with at least two decisions count, ``n_j`` is the number of such decisions,
and corpus values are ``n_j``-weighted averages of label values. On complete data ``n_j`` is the
same for every label and the paper's formulas come back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from . import _kernels
from ._stats import count_arrays, kept_coords
from ._validate import (
    check_annotators,
    check_binary_dtype,
    check_dataarray,
    check_dims,
)

BASELINES = {
    "F": "pooled-marginal (Fleiss/Scott-type): A_e,j = p_j^2 + (1 - p_j)^2",
    "AC1": "Gwet AC1: A_e,j = 2 p_j (1 - p_j)",
    "PB": "fixed (PABAK / Brennan-Prediger): A_e,j = 0.5",
}
ALIASES = {
    "f": "F",
    "kappa": "F",
    "fleiss": "F",
    "scott": "F",
    "ac1": "AC1",
    "gwet": "AC1",
    "pb": "PB",
    "pabak": "PB",
    "bp": "PB",
}

# long_name, symbol, description for every output variable
VARIABLES = {
    "agreement": (
        "multi-label agreement",
        "A_ml",
        "(A_o - A_e) / (1 - A_e) (paper eq. 5); NaN when 1 - A_e = 0 (e.g. every label "
        "constant under F)",
    ),
    "observed": (
        "observed Hamming agreement",
        "A_o",
        "mean pairwise Hamming agreement (paper eq. 2); with missing decisions the "
        "pairable-value-weighted mean of label_observed",
    ),
    "expected": (
        "expected agreement",
        "A_e",
        "baseline agreement, the (pairable-value-weighted) mean of label_expected",
    ),
    "minimum": (
        "minimum feasible agreement coefficient",
        "A_ml,min",
        "(A_o,min - A_e) / (1 - A_e): the lowest value the coefficient can take with the "
        "observed number of positives per label (paper section 3.5)",
    ),
    "observed_minimum": (
        "minimum feasible observed agreement",
        "A_o,min",
        "lowest observed agreement reachable by moving positive decisions between items "
        "while keeping each label's total (paper eq. 7, averaged over labels)",
    ),
    "raw_prevalence": (
        "raw prevalence",
        "p_r",
        "share of positive decisions over all labels (the mean of prevalence on complete "
        "data)",
    ),
    "alpha_hamming": (
        "Krippendorff's alpha, normalized Hamming distance",
        "alpha_H",
        "1 - D_o / D_e with D_e from pairable values drawn without replacement (paper "
        "section 3.4: D_e scaled by M / (M - 1)); NaN when D_e = 0",
    ),
    "n_pairable_items": (
        "pairable items",
        "N_pairable",
        "items with at least one (annotator pair, label) comparison",
    ),
    "n_missing_decisions": (
        "missing decisions",
        "N_missing",
        "number of (item, annotator, label) decisions that were not made (NaN)",
    ),
    "item_observed": (
        "item observed agreement",
        "A_o,i",
        "agreeing share of the (annotator pair, label) comparisons on the item (paper eq. "
        "1); NaN for an item with no pair of decisions",
    ),
    "item_agreement": (
        "item agreement",
        "A_ml,i",
        "(A_o,i - A_e) / (1 - A_e) with the corpus baseline: a diagnostic relative to the "
        "corpus, not an independent reliability estimate",
    ),
    "label_observed": (
        "label observed agreement",
        "A_o,j",
        "share of agreeing annotator pairs on the label (1 - D_o,j with missing data)",
    ),
    "label_expected": ("label expected agreement", "A_e,j", "baseline agreement of the label"),
    "label_agreement": (
        "label agreement",
        "A_j",
        "(A_o,j - A_e,j) / (1 - A_e,j); NaN where 1 - A_e,j = 0 (under F: a label nobody "
        "or everybody selected, 0/0)",
    ),
    "label_weight": (
        "label weight",
        "w_j",
        "1 - A_e,j, the label's weight in the corpus coefficient (paper eq. 6); with missing "
        "decisions eq. 6 holds with weights label_pairable_values * label_weight; 0 for a "
        "label without pairable decisions",
    ),
    "label_observed_minimum": (
        "label minimum feasible observed agreement",
        "A_o,min,j",
        "lowest observed agreement of the label given its number of positives (paper eq. 7)",
    ),
    "prevalence": (
        "label prevalence",
        "p_j",
        "share of positive decisions among the label's pairable decisions",
    ),
    "positive_agreement": (
        "positive specific agreement",
        "p_pos,j",
        "sum_i x(x - 1) / sum_i x(m - 1): agreement on the label's positive decisions; NaN "
        "without positives",
    ),
    "negative_agreement": (
        "negative specific agreement",
        "p_neg,j",
        "the same with m - x in place of x: agreement on the label's negative decisions",
    ),
    "label_pairable_values": (
        "label pairable decisions",
        "n_j",
        "decisions on the label in (item, label) cells with at least two decisions",
    ),
}

# label-level variables whose names do not start with "label_"
LABEL_LEVEL = {"prevalence", "positive_agreement", "negative_agreement"}

BASELINE_DEPENDENT = {
    "agreement",
    "expected",
    "minimum",
    "item_agreement",
    "label_agreement",
    "label_expected",
    "label_weight",
}


def parse_baselines(baseline) -> tuple[list[str], bool]:
    """Canonical baseline names and whether a single one was asked for.

    >>> parse_baselines("kappa")
    (['F'], True)
    >>> parse_baselines("all")
    (['F', 'AC1', 'PB'], False)
    """
    if isinstance(baseline, str):
        if baseline.lower() == "all":
            return list(BASELINES), False
        names, single = [baseline], True
    elif isinstance(baseline, Sequence) and baseline:
        names, single = list(baseline), False
    else:
        raise ValueError(f"baseline must be a name, a list of names or 'all', got {baseline!r}")
    canonical = []
    for name in names:
        key = ALIASES.get(str(name).lower())
        if key is None:
            raise ValueError(
                f"unknown baseline {name!r}; use one of {list(BASELINES)} (aliases: "
                f"{sorted(ALIASES)}) or 'all'"
            )
        if key in canonical:
            raise ValueError(f"baseline {name!r} given twice (as {key!r})")
        canonical.append(key)
    return canonical, single


def mla(
    da: xr.DataArray,
    baseline: str | Sequence[str] = "F",
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    ci: float | None = None,
    n_resamples: int = 1000,
    resample: str = "item",
    method: str = "percentile",
    seed=None,
    return_replicates: bool = False,
    progress: bool | None = None,
) -> xr.Dataset:
    """Multi-Label Agreement of binary multi-label decisions.

    Parameters
    ----------
    da : xarray.DataArray
        Decisions with dims ``item``, ``annotator`` and ``label`` in any order; values 0/1
        (bool, integer or float). NaN (float) marks a decision that was not made. Any other
        dim (a ``round``, a ``task``) is carried into every output.
    baseline : str or list of str, default "F"
        The chance model: "F" (pooled marginal; aliases "kappa", "fleiss", "scott"), "AC1"
        (alias "gwet") or "PB" (fixed 0.5; aliases "pabak", "bp"); case-insensitive. A list,
        or "all", adds a ``baseline`` dim to the baseline-dependent variables.
    item, annotator, label : str
        Names of the dims that play these roles.
    ci : float, optional
        Confidence level (e.g. 0.95) of bootstrap intervals. Each corpus- and label-level
        coefficient variable ``V`` then gains ``V_lower`` and ``V_upper`` (same dims); the
        Dataset attrs record ``ci_level``, ``ci_method``, ``ci_n_resamples`` and
        ``ci_resampling_unit``. Item-level values and counts get no interval. See
        :mod:`xr_agreement.bootstrap` for the semantics.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item", "annotator", "both"}, default "item"
        The resampled unit: items (the usual design), annotators (an annotator drawn twice
        counts as two distinct raters), or both (two-way bootstrap). The baseline is
        recomputed in every replicate; the label universe stays fixed.
    method : {"percentile", "bca"}, default "percentile"
        Percentile or bias-corrected and accelerated (jackknife acceleration over the
        resampled unit) intervals.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of the resampling; the same seed gives the same intervals on numpy and dask
        input. An int draws item resamples from block-seeded streams (fast, any chunking);
        a Generator draws them as ``rng.integers(0, N, (n_resamples, N))``, as
        :func:`scipy.stats.bootstrap` does (see :mod:`xr_agreement.bootstrap`).
    return_replicates : bool, default False
        Add ``V_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        Show a tqdm progress bar; by default only in interactive sessions.

    Returns
    -------
    xarray.Dataset
        Corpus level: ``agreement``, ``observed``, ``expected``, ``minimum``,
        ``observed_minimum``, ``raw_prevalence``, ``alpha_hamming``, ``n_pairable_items``,
        ``n_missing_decisions``. Over ``item``: ``item_observed``, ``item_agreement``. Over
        ``label``: ``label_observed``, ``label_expected``, ``label_agreement``,
        ``label_weight``, ``label_observed_minimum``, ``prevalence``,
        ``positive_agreement``, ``negative_agreement``, ``label_pairable_values``. Each
        variable's attrs give ``long_name``, ``description`` and the paper's ``symbol``.

    Raises
    ------
    ValueError
        A dim is missing or empty, fewer than 2 annotators, a value other than 0/1/NaN
        (the message names the value and its coordinates), an unknown baseline.
    TypeError
        A non-numeric dtype.

    Notes
    -----
    Undefined values are NaN, never a made-up number: under F a label with prevalence 0 or
    1 has ``label_agreement`` NaN (0/0) and ``label_weight`` 0; if every label is constant
    the corpus coefficient is NaN too. With dask input the result is lazy and invalid
    values are reported when it is computed.

    Examples
    --------
    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = ex.agreement.mla(baseline="all")
    >>> result.agreement.round(4).values
    array([0.232 , 0.9031, 0.828 ])
    >>> float(result.observed_minimum) * 93
    79.0...
    >>> result.label_agreement.sel(baseline="F", label=14).item()
    1.0
    >>> result.item_observed.values * 93
    array([93., 83., 85., 79.])
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    names, single = parse_baselines(baseline)
    counts = statistic = None
    if ci is not None:
        from . import bootstrap as _bootstrap

        ci, n_resamples, resample, method = _bootstrap.check_options(
            ci, n_resamples, resample, method, seed, progress
        )
        statistic = _bootstrap.MLAStatistic(da, names, single, item=item,
                                            annotator=annotator, label=label)
        # complete integer decisions: the bootstrap's table pass counts them too
        counts = statistic.point_counts()
    if counts is None:
        counts = count_arrays(da, item, annotator, label)
    label_counts, item_counts, extra = counts
    values = finish_counts(label_counts, item_counts[..., 0], item_counts[..., 1], names)
    result = assemble(
        values,
        names,
        single,
        extra=extra,
        item=item,
        label=label,
        coords=kept_coords(da, (*extra, item, label)),
        n_annotators=da.sizes[annotator],
    )
    if ci is None:
        return result
    return _bootstrap.mla_intervals(
        da,
        result,
        names,
        single,
        item=item,
        annotator=annotator,
        label=label,
        ci=ci,
        n_resamples=n_resamples,
        resample=resample,
        method=method,
        seed=seed,
        return_replicates=return_replicates,
        progress=progress,
        statistic=statistic,
    )


def mla_from_counts(
    counts: xr.Dataset,
    baselines: list[str],
    single: bool,
    *,
    item: str,
    label: str,
    n_annotators: int,
) -> xr.Dataset:
    """Finish :func:`mla` from the additive counts of :func:`_stats.hamming_counts` (for
    callers that build or resample the counts themselves)."""
    table = counts.label_counts
    extra = [d for d in table.dims if d not in (label, "deciders", "stat")]
    table = table.transpose(*extra, label, "deciders", "stat")
    agreeing = counts.item_agreeing_pairs.transpose(*extra, item)
    pairs = counts.item_pairs.transpose(*extra, item)
    values = finish_counts(table.data, agreeing.data, pairs.data, baselines)
    coords = {
        name: coord.variable
        for name, coord in counts.coords.items()
        if name not in ("deciders", "stat")
    }
    return assemble(
        values,
        baselines,
        single,
        extra=extra,
        item=item,
        label=label,
        coords=coords,
        n_annotators=n_annotators,
    )


def _over_m(values):
    """Sum over the last (deciders) axis; a view when it has length 1 (numpy reduces a
    length-1 axis one outer element at a time)."""
    if values.shape[-1] == 1:
        return values[..., 0]
    return values.sum(-1)


def _divide(numerator, denominator):
    """numerator / denominator, NaN where the denominator is 0 (quietly, numpy or dask)."""
    if isinstance(numerator, np.ndarray) and isinstance(denominator, np.ndarray):
        shape = np.broadcast_shapes(numerator.shape, denominator.shape)
        out = np.full(shape, np.nan)
        return np.divide(numerator, denominator, out=out, where=denominator != 0)
    return numerator / np.where(denominator == 0, np.nan, denominator)


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
    pairable = m >= 2
    inverse = np.where(pairable, 1.0 / np.maximum(m - 1, 1), 0.0)
    cells = label_counts[..., 0] * pairable
    positives = label_counts[..., 1] * pairable
    squares = label_counts[..., 2] * pairable
    n_j = _over_m(m * cells)
    total_values = n_j.sum(-1)
    positives_j = _over_m(positives)
    # sum_i 2 x (m - x) / (m - 1) = n_j D_o,j
    disagreement = _over_m(2 * (m * positives - squares) * inverse)
    p_j = _divide(positives_j, n_j)
    # coefficients are computed as 1 - D / (1 - A_e): equal to (A_o - A_e) / (1 - A_e), and
    # exactly 1 when nothing disagrees
    label_disagreement = _divide(disagreement, n_j)
    label_observed = 1 - label_disagreement
    max_disagreement = _max_disagreement(all_cells, positives_j)
    observed_disagreement = _divide(disagreement.sum(-1), total_values)
    observed = 1 - observed_disagreement
    maximum_disagreement = _divide(2 * max_disagreement.sum(-1), total_values)
    observed_minimum = 1 - maximum_disagreement
    # Krippendorff: D_e,j from pairable values drawn without replacement
    expected_disagreement = _nan_as_zero(
        _divide(2 * positives_j * (n_j - positives_j), n_j - 1)
    )

    dependent = {key: [] for key in ("agreement", "expected", "minimum", "gap",
                                     "label_expected", "label_agreement", "label_weight")}
    for name in baselines:
        label_expected, label_gap = _baseline_terms(name, p_j)
        expected = _divide(_nan_as_zero(n_j * label_expected).sum(-1), total_values)
        gap = _divide(_nan_as_zero(n_j * label_gap).sum(-1), total_values)
        dependent["gap"].append(gap)
        dependent["agreement"].append(1 - _divide(observed_disagreement, gap))
        dependent["expected"].append(expected)
        dependent["minimum"].append(1 - _divide(maximum_disagreement, gap))
        dependent["label_expected"].append(label_expected)
        dependent["label_agreement"].append(1 - _divide(label_disagreement, label_gap))
        dependent["label_weight"].append(_nan_as_zero(label_gap))
    stack = np.stack if isinstance(p_j, np.ndarray) else _dask_stack
    n_items = item_pairs.shape[-1]
    values = {key: stack(arrays) for key, arrays in dependent.items()}
    gaps = values.pop("gap")
    if isinstance(item_pairs, np.ndarray):
        item_observed, values["item_agreement"] = _item_values(item_agreeing, item_pairs, gaps)
    else:
        item_observed = _divide(item_agreeing, item_pairs)
        item_disagreement = 1 - item_observed  # exactly 0 where every pair agrees
        values["item_agreement"] = 1 - _divide(item_disagreement, gaps[..., None])
    values.update(
        observed=observed,
        observed_minimum=observed_minimum,
        raw_prevalence=_divide(positives_j.sum(-1), total_values),
        alpha_hamming=1 - _divide(disagreement.sum(-1), expected_disagreement.sum(-1)),
        n_pairable_items=(item_pairs > 0).sum(-1),
        n_missing_decisions=n_items * n_annotators * n_j.shape[-1]
        - _over_m(m * label_counts[..., 0]).sum(-1),
        item_observed=item_observed,
        label_observed=label_observed,
        label_observed_minimum=1 - _divide(2 * max_disagreement, n_j),
        prevalence=p_j,
        positive_agreement=_divide(_over_m(squares - positives), _over_m((m - 1) * positives)),
        negative_agreement=_divide(
            _over_m(m * m * cells - 2 * m * positives + squares - m * cells + positives),
            _over_m((m - 1) * (m * cells - positives)),
        ),
        label_pairable_values=n_j,
    )
    return values


def _dask_stack(arrays):
    import dask.array

    return dask.array.stack(arrays)


def assemble(values, baselines, single, *, extra, item, label, coords, n_annotators):
    """Labeled Dataset from :func:`finish_counts` arrays, with attrs on every variable."""
    variables = {}
    for name, (long_name, symbol, description) in VARIABLES.items():
        array = values[name]
        if name.startswith("item_"):
            dims = (*extra, item)
        elif name.startswith("label_") or name in LABEL_LEVEL:
            dims = (*extra, label)
        else:
            dims = tuple(extra)
        attrs = {"long_name": long_name, "symbol": symbol, "description": description}
        if name in BASELINE_DEPENDENT:
            if single:
                array = array[0]
                attrs["baseline"] = baselines[0]
            else:
                dims = ("baseline", *dims)
        variables[name] = xr.Variable(dims, array, attrs)
    if not single:
        coords = dict(coords, baseline=list(baselines))
    item_size = values["item_observed"].shape[-1]
    label_size = values["prevalence"].shape[-1]
    return xr.Dataset(
        variables,
        coords=coords,
        attrs={
            "n_items": item_size,
            "n_annotators": n_annotators,
            "n_labels": label_size,
            "baseline": baselines[0] if single else list(baselines),
            "baseline_definition": BASELINES[baselines[0]]
            if single
            else [BASELINES[b] for b in baselines],
            "missing_data": "NaN decisions excluded; pairable-values weighting (cells with at "
            "least 2 decisions, corpus values weighted by label_pairable_values)",
            "reference": "Menzner & Leidner, Multi-Label Agreement (2026)",
        },
    )

