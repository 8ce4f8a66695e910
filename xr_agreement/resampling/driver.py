"""The bootstrap driver: :func:`bootstrap`, which chooses between the eager run, the
block-by-block run on dask input (:func:`lazy_intervals`) and the deferred one
(:func:`deferred_bootstrap`), and the checks of the bootstrap keywords.

The semantics are in ``docs/intervals.md``.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .._core.progress import check_progress, progress_bar
from .._core.validate import _check_confidence
from .draws import annotator_resample_counts, batch_rows, BlockedResampler, item_resample_counts
from .fast import stream_item_blocks
from .intervals import (_bound_attrs, _interval_attrs, _replicate_attrs, acceleration,
                        add_intervals, interval_bounds, interval_variables, JackknifeMoments,
                        RESAMPLE_DIM)
from .statistics import jackknife_accelerations, WeightedStatistic


UNITS = ("item", "annotator", "both")


CI_METHODS = ("percentile", "bca")


# --------------------------------------------------------------------------- options


def check_options(ci, n_resamples, resample, ci_method, seed, progress) -> tuple:
    """Validated bootstrap keywords: ``(ci, n_resamples, resample, ci_method)``.

    >>> check_options(0.95, 1000, "item", "BCa", 0, None)
    (0.95, 1000, 'item', 'bca')
    >>> check_options(95, 1000, "item", "bca", 0, None)
    Traceback (most recent call last):
    ...
    ValueError: ci must be a number in (0, 1), got 95 (the confidence level, e.g. 0.95)
    """
    _check_confidence(ci)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or (
        n_resamples < 2
    ):
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}")
    if resample not in UNITS:
        raise ValueError(f"resample must be one of {list(UNITS)}, got {resample!r}")
    if not isinstance(ci_method, str) or ci_method.lower() not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {list(CI_METHODS)}, got {ci_method!r}")
    if not (
        seed is None
        or isinstance(seed, (np.random.Generator, np.random.SeedSequence))
        or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool))
    ):
        raise TypeError(
            f"seed must be None, an int or a numpy.random.Generator, got {type(seed).__name__}"
        )
    check_progress(progress)
    return float(ci), int(n_resamples), resample, ci_method.lower()


def bootstrap(
    statistic: WeightedStatistic,
    result: xr.Dataset,
    *,
    ci: float,
    n_resamples: int = 1000,
    resample: str = "item",
    ci_method: str = "percentile",
    seed=None,
    return_replicates: bool = False,
    progress: bool | None = None,
    variables: list[str] | None = None,
    item: str = "item",
    rebuild=None,
) -> xr.Dataset:
    """``result`` with bootstrap confidence bounds for ``variables`` (default
    :func:`interval_variables`); the semantics are in ``docs/intervals.md``.

    The one place that chooses how the bootstrap runs. In memory: eagerly. On dask input
    (a lazy ``statistic``, or dask arrays among the inputs of ``rebuild``): block by block
    (:func:`lazy_intervals`) when the statistic can (``statistic.is_lazy``, an int seed and
    a unit of ``statistic.lazy_units``); otherwise deferred (:func:`deferred_bootstrap`):
    ``rebuild = (make_statistic, inputs)`` rebuilds the statistic in memory inside one
    task. Nothing is computed on dask input until the result is.

    Examples
    --------
    A statistic without special structure, through :class:`RecomputedStatistic`:

    >>> import xarray as xr
    >>> from xr_agreement.resampling import RecomputedStatistic
    >>> def share_of_ones(da):
    ...     return xr.Dataset({"share": da.mean(("item", "annotator"))})
    >>> da = xr.DataArray(np.random.default_rng(0).integers(0, 2, (40, 3)),
    ...                   dims=("item", "annotator"))
    >>> statistic = RecomputedStatistic(share_of_ones, da, item="item", annotator="annotator")
    >>> out = bootstrap(statistic, share_of_ones(da), ci=0.9, n_resamples=200, seed=1)
    >>> bool(out.share_lower < out.share < out.share_upper)
    True

    Through a coefficient function:

    >>> import xr_agreement
    >>> ex = xr_agreement.datasets.bias_example()
    >>> result = ex.agreement.mla(ci=0.9, n_resamples=200, seed=0)
    >>> bool(result.agreement_lower <= result.agreement <= result.agreement_upper)
    True
    >>> result.label_agreement_upper.dims
    ('label',)
    >>> result.attrs["ci_method"], result.attrs["ci_resampling_unit"]
    ('percentile', 'item')
    """
    ci, n_resamples, resample, ci_method = check_options(
        ci, n_resamples, resample, ci_method, seed, progress
    )
    if RESAMPLE_DIM in result.dims:  # else a clash of sizes deep inside, or duplicate dims
        raise ValueError(
            f"the input has a dim {RESAMPLE_DIM!r}, the name the bootstrap gives its "
            f"replicates; rename it first (e.g. da.rename({RESAMPLE_DIM}='draw'))")
    if variables is None:
        variables = interval_variables(result, item)
    options = dict(ci=ci, n_resamples=n_resamples, resample=resample, ci_method=ci_method,
                   seed=seed, return_replicates=return_replicates, progress=progress)
    blockwise = getattr(statistic, "is_lazy", False)
    gathered = rebuild is not None and any(
        _is_dask(getattr(value, "data", value)) for value in rebuild[1].values())
    if blockwise or gathered:
        if blockwise and not isinstance(seed, np.random.Generator) and statistic.lazy_units(
                resample):
            resampler = BlockedResampler(seed, statistic.n_items, n_resamples)
            annotator_counts = None
            if resample in ("annotator", "both"):
                annotator_counts = annotator_resample_counts(
                    resampler.annotator_rng, statistic.n_annotators, n_resamples)
            return lazy_intervals(statistic, result, resampler, annotator_counts,
                                  variables=variables, ci=ci, ci_method=ci_method,
                                  resample=resample, return_replicates=return_replicates)
        if rebuild is None:
            raise ValueError(f"{type(statistic).__name__} on dask input resamples items from "
                             f"an int seed only; got resample={resample!r}, seed={seed!r}")
        return deferred_bootstrap(*rebuild, result, variables=variables, item=item, **options)
    return _eager(statistic, result, variables, **options)


def _eager(statistic, result, variables, *, ci, n_resamples, resample, ci_method, seed,
           return_replicates, progress) -> xr.Dataset:
    """:func:`bootstrap` in memory."""
    if isinstance(seed, np.random.Generator):
        rng, resampler = seed, None
    else:
        resampler = BlockedResampler(seed, statistic.n_items, n_resamples)
        rng = resampler.annotator_rng
    bar = progress_bar(n_resamples, progress, f"bootstrap ({resample})", unit="resample")
    try:
        annotator_counts = None
        if resample in ("annotator", "both"):
            annotator_counts = annotator_resample_counts(rng, statistic.n_annotators,
                                                         n_resamples)
        if resample == "annotator":
            draws = ((start, None) for start in range(0, n_resamples, 100))
        elif resampler is not None and annotator_counts is None and hasattr(statistic,
                                                                            "block_sums"):
            draws = None
        elif resampler is None:
            draws = item_resample_counts(rng, statistic.n_items, n_resamples,
                                         batch_rows(statistic.n_items, n_resamples),
                                         reuse=True)
        else:
            draws = resampler.batches(batch_rows(statistic.n_items, n_resamples))
        if draws is None:
            batches = stream_item_blocks(statistic, resampler, bar)
        else:
            batches = []
            for start, counts in draws:
                rows = 100 if counts is None else len(counts)
                chosen = None
                if annotator_counts is not None:
                    chosen = annotator_counts[start : start + rows]
                batches.append(statistic.replicates(counts, chosen))
                if bar is not None:
                    bar.update(len(chosen) if chosen is not None else rows)
        replicates = statistic.finish(batches)
        estimate = statistic.finish([statistic.replicates(None, None)]).isel(
            {RESAMPLE_DIM: 0}
        )
        accelerations = None
        if ci_method == "bca":
            units = ["item", "annotator"] if resample == "both" else [resample]
            accelerations = jackknife_accelerations(statistic, units, estimate, variables,
                                                    result)
    finally:
        if bar is not None:
            bar.close()
    return add_intervals(result, estimate, replicates, variables=variables, ci=ci,
                         ci_method=ci_method, resample=resample, accelerations=accelerations,
                         return_replicates=return_replicates)


# --------------------------------------------------------------------------- dask


def lazy_intervals(statistic, result, resampler, annotator_counts, *, variables, ci, ci_method,
                   resample, return_replicates) -> xr.Dataset:
    """:func:`bootstrap` on dask input, lazily and block by block.

    Every item block adds its part of the replicates' label counts (the seeded counts of its
    own items, :meth:`BlockedResampler.counts`), of the estimate and, for BCa with annotator
    resampling, of the leave-one-annotator-out values; a tree reduction sums them and one
    small task finishes the intervals. The item jackknife of BCa is a second pass over the
    blocks, given the totals, whose additive moment sums are reduced the same way. Nothing
    is computed here; the bounds are dask arrays of the result's shapes.
    """
    import dask
    import dask.array

    jack_units = []
    if ci_method == "bca":
        jack_units = ["item", "annotator"] if resample == "both" else [resample]
    loo_annotators = None
    if "annotator" in jack_units:
        loo_annotators = np.ones((statistic.n_annotators, statistic.n_annotators), np.int64)
        np.fill_diagonal(loo_annotators, 0)
    item_counts = resample != "annotator"
    n_resamples = resampler.n_resamples
    templates = {name: (result[name].dims, result[name].shape) for name in variables}
    # every key of this bootstrap derives from the result's own variables (their graph
    # names carry the data and the coefficient's options) and the bootstrap's options
    token = dask.base.tokenize(type(statistic).__name__, [result[v].data for v in variables],
                               variables, ci, ci_method, resample, return_replicates,
                               resampler.key, resampler.block_totals, annotator_counts)
    if annotator_counts is not None:
        annotator_counts = dask.delayed(annotator_counts, pure=True,
                                        name=f"bootstrap-annotators-{token}")
    totals = statistic.lazy_totals(resampler if item_counts else None, annotator_counts,
                                   loo_annotators, token)
    moments = None
    if "item" in jack_units:
        moments = statistic.lazy_item_jackknife(totals, n_resamples, templates, token)
    finisher = statistic.finisher()

    def finish(totals, moments):
        replicates = finisher.finish([finisher.total_rows(totals, 0, n_resamples)])
        estimate = finisher.finish(
            [finisher.total_rows(totals, n_resamples, n_resamples + 1)]).isel({RESAMPLE_DIM: 0})
        annotator_moments = {}
        if loo_annotators is not None:
            loo = finisher.finish([finisher.total_rows(totals, n_resamples + 1, None)])
            for name in variables:
                dims = templates[name][0]
                gathered = JackknifeMoments(estimate[name].transpose(*dims).values)
                gathered.add(loo[name].transpose(*dims, RESAMPLE_DIM).values)
                annotator_moments[name] = gathered
        out = {}
        for name in variables:
            dims, shape = templates[name]
            point = estimate[name].transpose(*dims).values
            reps = replicates[name].transpose(*dims, RESAMPLE_DIM).values
            accel = None
            if ci_method == "bca":
                parts = []
                if moments is not None:
                    item_part = JackknifeMoments(point)
                    item_part.sums = [np.asarray(v, float) for v in moments[name]]
                    parts.append(item_part)
                if name in annotator_moments:
                    parts.append(annotator_moments[name])
                accel = acceleration(parts)
            lower, upper = interval_bounds(point, reps, ci, ci_method, accel=accel)
            out[name] = (lower.reshape(shape), upper.reshape(shape),
                         np.moveaxis(reps, -1, 0) if return_replicates else None)
        return out

    finished = dask.delayed(finish, pure=True)(totals, moments,
                                               dask_key_name=f"bootstrap-intervals-{token}")
    return _with_lazy_bounds(result, variables, finished, ci=ci, ci_method=ci_method,
                             resample=resample, n_resamples=n_resamples,
                             return_replicates=return_replicates)


def deferred_bootstrap(make_statistic, inputs, result: xr.Dataset, *, variables: list[str],
                       item: str = "item", **options) -> xr.Dataset:
    """:func:`bootstrap` for dask input whose statistic has no block-by-block form, lazily.

    One task receives ``inputs`` in memory (dask collections among them are computed and
    gathered, so the per-item tables they hold must fit in memory), builds the statistic
    with ``make_statistic(inputs)`` and runs :func:`bootstrap`; the bounds of ``result``
    are dask arrays until computed. With a ``numpy.random.Generator`` as seed, the draws
    are those of the generator's state when the graph was built; the caller's generator is
    advanced when the task runs in the same process (threaded scheduler), a copy of it
    otherwise.
    """
    import dask
    import dask.array

    templates = {name: (result[name].dims, result[name].shape) for name in variables}
    skeleton = xr.Dataset(
        {name: xr.Variable(dims, np.zeros(shape), result[name].attrs)
         for name, (dims, shape) in templates.items()}
    )
    return_replicates = bool(options.get("return_replicates", False))

    def run(inputs):
        out = bootstrap(make_statistic(inputs), skeleton, variables=variables, item=item,
                        **options)
        arrays = {}
        for name, (dims, _) in templates.items():
            arrays[name] = (out[f"{name}_lower"].transpose(*dims).values,
                            out[f"{name}_upper"].transpose(*dims).values,
                            out[f"{name}_replicates"].transpose(RESAMPLE_DIM, *dims).values
                            if return_replicates else None)
        return arrays

    seed = options.get("seed")
    # the result's variables carry the data and the coefficient's options in their names
    token = dask.base.tokenize(inputs, [result[v].data for v in variables], variables, sorted(
        (k, v) for k, v in options.items() if k != "seed"),
        seed if not isinstance(seed, np.random.Generator) else id(seed))
    finished = dask.delayed(run, pure=True)(inputs, dask_key_name=f"bootstrap-{token}")
    ci, ci_method = options["ci"], options.get("ci_method", "percentile")
    resample = options.get("resample", "item")
    n_resamples = options.get("n_resamples", 1000)
    return _with_lazy_bounds(result, variables, finished, ci=ci, ci_method=ci_method,
                             resample=resample, n_resamples=n_resamples,
                             return_replicates=return_replicates)


def _with_lazy_bounds(result, variables, finished, *, ci, ci_method, resample, n_resamples,
                      return_replicates) -> xr.Dataset:
    """``result`` with ``V_lower``, ``V_upper`` (and ``V_replicates``) as dask arrays taken
    from the delayed ``finished`` ({name: (lower, upper, replicates)})."""
    import dask.array

    level = f"{100 * ci:g}%"
    new = {}
    for name in variables:
        template = result[name]
        for position, side in enumerate(("lower", "upper")):
            data = dask.array.from_delayed(finished[name][position], template.shape, float)
            attrs = _bound_attrs(template, name, side, level, ci_method, resample, n_resamples)
            new[f"{name}_{side}"] = xr.Variable(template.dims, data, attrs)
        if return_replicates:
            data = dask.array.from_delayed(finished[name][2], (n_resamples, *template.shape),
                                           float)
            new[f"{name}_replicates"] = xr.Variable((RESAMPLE_DIM, *template.dims), data,
                                                    _replicate_attrs(template, name, resample))
    out = result.assign(new)
    if return_replicates:
        out = out.assign_coords({RESAMPLE_DIM: np.arange(n_resamples)})
    out.attrs.update(_interval_attrs(ci, ci_method, n_resamples, resample))
    return out
