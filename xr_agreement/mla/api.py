"""Multi-Label Agreement (Menzner & Leidner): observed Hamming agreement, three baselines,
corpus / item / label levels, the eq. 6 weights, the conditional minimum, Hamming alpha.

Everything is finished here with xarray arithmetic on the small count arrays of
:func:`xr_agreement.mla.counts.hamming_counts`; nothing in this module touches the raw decisions.

Missing decisions (NaN) follow Krippendorff's pairable-values weighting: for label ``j`` only
cells (item, label) with at least two decisions count, ``n_j`` is the number of such decisions,
and corpus values are ``n_j``-weighted averages of label values. On complete data ``n_j`` is the
same for every label and the paper's formulas come back exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import xarray as xr

from .._core.validate import check_annotators, check_binary_dtype, check_dataarray, check_dims
from .._core.dataset import input_coordinates
from .counts import count_arrays
from .finish import finish_counts
from .variables import assemble, parse_baselines


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
    ci_method: str = "percentile",
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
        the user guide on intervals (docs/intervals.md) for the semantics.
    n_resamples : int, default 1000
        Number of bootstrap resamples.
    resample : {"item", "annotator", "both"}, default "item"
        The resampled unit: items (the usual design), annotators (an annotator drawn twice
        counts as two distinct raters), or both (two-way bootstrap). The baseline is
        recomputed in every replicate; the label universe stays fixed.
    ci_method : {"percentile", "bca"}, default "percentile"
        Percentile or bias-corrected and accelerated (jackknife acceleration over the
        resampled unit) intervals.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Seed of the resampling; the same seed gives the same intervals on numpy and dask
        input. An int draws item resamples from block-seeded streams (fast, any chunking);
        a Generator draws them as ``rng.integers(0, N, (n_resamples, N))``, as
        :func:`scipy.stats.bootstrap` does (see :mod:`xr_agreement.resampling`).
    return_replicates : bool, default False
        Add ``V_replicates`` with a ``resample`` dim for each interval variable.
    progress : bool, optional
        Show a tqdm progress bar; by default when stderr is a terminal or in a notebook.

    Returns
    -------
    xarray.Dataset
        Corpus level: ``agreement``, ``observed``, ``expected``, ``minimum``,
        ``observed_minimum``, ``raw_prevalence``, ``alpha_hamming``, ``n_pairable_items``,
        ``n_missing_decisions``. Over ``item``: ``item_observed``, ``item_agreement``. Over
        ``label``: ``label_observed``, ``label_expected``, ``label_agreement``,
        ``label_weight``, ``label_observed_minimum``, ``label_prevalence``,
        ``label_positive_agreement``, ``label_negative_agreement``, ``label_n_pairable_values``. Each
        variable's attrs give ``long_name``, ``description`` and the paper's ``symbol``.
        The Dataset's attrs ``baseline`` and ``baseline_definition`` name the baseline; with
        several baselines they are JSON text (a list, ``json.loads`` reads it back), which
        every store (netCDF, zarr) accepts.

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
    >>> import json
    >>> json.loads(result.attrs["baseline"])
    ['F', 'AC1', 'PB']
    """
    check_dataarray(da)
    check_dims(da, item=item, annotator=annotator, label=label)
    check_binary_dtype(da)
    check_annotators(da, annotator)
    names, single = parse_baselines(baseline)
    counts = statistic = None
    if ci is not None:
        # the bootstrap (and scipy) load only when an interval is asked for
        from ..resampling.driver import check_options
        from .intervals import mla_intervals, MLAStatistic

        ci, n_resamples, resample, ci_method = check_options(
            ci, n_resamples, resample, ci_method, seed, progress
        )
        statistic = MLAStatistic(da, names, single, item=item,
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
        coords=input_coordinates(da, (*extra, item, label)),
        n_annotators=da.sizes[annotator],
        reasons=True,
    )
    if ci is None:
        return result
    return mla_intervals(
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
        ci_method=ci_method,
        seed=seed,
        return_replicates=return_replicates,
        progress=progress,
        statistic=statistic,
    )
