"""The bootstrap driver: :func:`bootstrap` (numpy), :func:`lazy_intervals` and
:func:`deferred_bootstrap` (dask), and the checks of the bootstrap keywords.

See :mod:`xr_agreement.resampling` for the semantics.
"""

from __future__ import annotations

import os
import queue
import sys
import threading

import numpy as np
import xarray as xr

from .._core.threads import _pool_map, _single_threaded_blas
from .draws import annotator_resample_counts, batch_rows, BlockedResampler, item_resample_counts
from .intervals import (_bound_attrs, _interval_attrs, _replicate_attrs, acceleration,
                        add_intervals, interval_bounds, interval_variables, JackknifeMoments,
                        RESAMPLE_DIM)
from .statistics import _add_all, jackknife_accelerations, WeightedStatistic


UNITS = ("item", "annotator", "both")


METHODS = ("percentile", "bca")


# Replicates per batch when item blocks are streamed (see :func:`bootstrap`).
STREAM_ROWS = 256


# --------------------------------------------------------------------------- options


def check_options(ci, n_resamples, resample, method, seed, progress) -> tuple:
    """Validated bootstrap keywords: ``(ci, n_resamples, resample, method)``.

    >>> check_options(0.95, 1000, "item", "BCa", 0, None)
    (0.95, 1000, 'item', 'bca')
    >>> check_options(95, 1000, "item", "bca", 0, None)
    Traceback (most recent call last):
    ...
    ValueError: ci is the confidence level, a number strictly between 0 and 1 (e.g. 0.95); got 95
    """
    if isinstance(ci, bool) or not isinstance(ci, (int, float, np.floating)) or not 0 < ci < 1:
        raise ValueError(
            "ci is the confidence level, a number strictly between 0 and 1 (e.g. 0.95); "
            f"got {ci!r}"
        )
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or (
        n_resamples < 2
    ):
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}")
    if resample not in UNITS:
        raise ValueError(f"resample must be one of {list(UNITS)}, got {resample!r}")
    if not isinstance(method, str) or method.lower() not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    if not (
        seed is None
        or isinstance(seed, (np.random.Generator, np.random.SeedSequence))
        or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool))
    ):
        raise TypeError(
            f"seed must be None, an int or a numpy.random.Generator, got {type(seed).__name__}"
        )
    if progress not in (None, True, False):
        raise ValueError(f"progress must be None, True or False, got {progress!r}")
    return float(ci), int(n_resamples), resample, method.lower()


def _interactive() -> bool:
    """True in a Python prompt or a Jupyter/IPython session."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipython = sys.modules.get("IPython")
    return bool(ipython and getattr(ipython, "get_ipython", lambda: None)())


def _progress_bar(total: int, progress, description: str):
    """A tqdm bar, or None. ``progress=None`` shows one only in interactive sessions."""
    show = _interactive() if progress is None else progress
    if not show:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            raise ImportError(
                "progress=True needs tqdm: pip install tqdm (or xr-agreement[progress])"
            ) from None
        return None
    return tqdm(total=total, desc=description, unit="resample")


def bootstrap(
    statistic: WeightedStatistic,
    result: xr.Dataset,
    *,
    ci: float,
    n_resamples: int = 1000,
    resample: str = "item",
    method: str = "percentile",
    seed=None,
    return_replicates: bool = False,
    progress: bool | None = None,
    variables: list[str] | None = None,
    item: str = "item",
) -> xr.Dataset:
    """``result`` with bootstrap confidence bounds for ``variables`` (default
    :func:`interval_variables`), see the module docstring for the semantics.

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
    """
    ci, n_resamples, resample, method = check_options(
        ci, n_resamples, resample, method, seed, progress
    )
    if variables is None:
        variables = interval_variables(result, item)
    if isinstance(seed, np.random.Generator):
        rng, resampler = seed, None
    else:
        resampler = BlockedResampler(seed, statistic.n_items, n_resamples)
        rng = resampler.annotator_rng
    if resampler is not None and getattr(statistic, "is_lazy", False):
        if not statistic.lazy_units(resample):
            raise ValueError(f"{type(statistic).__name__} on dask input resamples items "
                             f"only; got resample={resample!r}")
        annotator_counts = None
        if resample in ("annotator", "both"):
            annotator_counts = annotator_resample_counts(rng, statistic.n_annotators,
                                                         n_resamples)
        return lazy_intervals(statistic, result, resampler, annotator_counts, variables=variables,
                              ci=ci, method=method, resample=resample,
                              return_replicates=return_replicates)
    bar = _progress_bar(n_resamples, progress, f"bootstrap ({resample})")
    try:
        batches = []
        annotator_counts = None
        if resample in ("annotator", "both"):
            annotator_counts = annotator_resample_counts(
                rng, statistic.n_annotators, n_resamples
            )
        if resample == "annotator":
            step = max(1, min(n_resamples, 100))
            for start in range(0, n_resamples, step):
                batches.append(
                    statistic.replicates(None, annotator_counts[start : start + step])
                )
                if bar is not None:
                    bar.update(len(annotator_counts[start : start + step]))
        elif resampler is not None and annotator_counts is None and hasattr(statistic,
                                                                            "block_sums"):
            batches = _stream_item_blocks(statistic, resampler, bar)
        else:
            step = batch_rows(statistic.n_items, n_resamples)
            if resampler is None:
                draws = item_resample_counts(rng, statistic.n_items, n_resamples, step,
                                             reuse=True)
            else:
                draws = resampler.batches(step)
            for start, counts in draws:
                rows = len(counts)
                chosen = None
                if annotator_counts is not None:
                    chosen = annotator_counts[start : start + rows]
                batches.append(statistic.replicates(counts, chosen))
                if bar is not None:
                    bar.update(rows)
        replicates = statistic.finish(batches)
        estimate = statistic.finish([statistic.replicates(None, None)]).isel(
            {RESAMPLE_DIM: 0}
        )
        accelerations = None
        if method == "bca":
            units = ["item", "annotator"] if resample == "both" else [resample]
            accelerations = jackknife_accelerations(statistic, units, estimate, variables,
                                                    result)
    finally:
        if bar is not None:
            bar.close()
    return add_intervals(
        result,
        estimate,
        replicates,
        variables=variables,
        ci=ci,
        method=method,
        resample=resample,
        accelerations=accelerations,
        return_replicates=return_replicates,
    )


def _stream_item_blocks(statistic, resampler: BlockedResampler, bar=None) -> list:
    """Item-resampling batches of ``statistic`` (for its :meth:`finish`), streamed: each
    thread of the pool takes a range of at most :data:`STREAM_ROWS` replicates and walks the
    item blocks, drawing a block's counts into its own small buffer and multiplying them with
    the block's rows of the tables straight away. No large array of counts is ever held.
    BLAS runs single-threaded meanwhile: the threads already fill the cores, and BLAS
    threads spin-waiting between products would slow the draws.

    A statistic with a ``pairing()`` (MLA, see :func:`replicate_pairing`) gets the counts
    of two replicates per row, and a pair whose split is not certain to be exact is
    multiplied again from its unpaired counts (drawn again: the resampler gives any
    replicate's counts on their own)."""
    n_resamples, n_items = resampler.n_resamples, statistic.n_items
    workers = max(1, min(n_resamples, os.cpu_count() or 1))
    step = min(STREAM_ROWS, -(-n_resamples // workers))
    size = min(resampler.block_size, n_items)
    statistic.prepare()
    pairing = statistic.pairing() if hasattr(statistic, "pairing") else None
    buffers = queue.SimpleQueue()
    for _ in range(workers):
        buffers.put(np.empty(((step + 1) // 2 if pairing else step, size), np.float32))
    lock = threading.Lock()

    def block(start, rows, i0, i1, buffer):
        if not pairing:
            counts = resampler.counts(start, rows, i0, i1, buffer[:rows, : i1 - i0],
                                      threads=False)
            return statistic.block_sums(counts, i0, i1, resampler.max_draws(i0, i1))
        scale = 2 ** pairing[0]
        counts = resampler.counts(start, rows, i0, i1, buffer[: (rows + 1) // 2, : i1 - i0],
                                  threads=False, pair_scale=scale)
        draws = resampler.block_totals[start : start + rows, i0 // resampler.block_size]
        sums, unsure = statistic.pair_sums(counts, i0, i1, rows, draws)
        for pair in unsure:
            pair_rows = slice(2 * pair, min(2 * pair + 2, rows))
            alone = resampler.counts(start + pair_rows.start, pair_rows.stop - pair_rows.start,
                                     i0, i1, threads=False)
            sums[pair_rows] = statistic.block_sums(alone, i0, i1,
                                                   resampler.max_draws(i0, i1))
        return sums

    def run(start):
        rows = min(step, n_resamples - start)
        buffer = buffers.get()
        try:
            sums = None
            for i0 in range(0, n_items, resampler.block_size):
                part = block(start, rows, i0, min(n_items, i0 + resampler.block_size), buffer)
                sums = part if sums is None else _add_all(sums, part)
        finally:
            buffers.put(buffer)
        if bar is not None:
            with lock:
                bar.update(rows)
        return statistic.from_sums(sums)

    if workers == 1:  # one thread of ours: BLAS may use the cores itself
        return [run(start) for start in range(0, n_resamples, step)]
    with _single_threaded_blas():
        return _pool_map(run, range(0, n_resamples, step))


# --------------------------------------------------------------------------- dask


def lazy_intervals(statistic, result, resampler, annotator_counts, *, variables, ci, method,
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
    if method == "bca":
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
                               variables, ci, method, resample, return_replicates,
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
            if method == "bca":
                parts = []
                if moments is not None:
                    item_part = JackknifeMoments(point)
                    item_part.sums = [np.asarray(v, float) for v in moments[name]]
                    parts.append(item_part)
                if name in annotator_moments:
                    parts.append(annotator_moments[name])
                accel = acceleration(parts)
            lower, upper = interval_bounds(point, reps, ci, method, accel=accel)
            out[name] = (lower.reshape(shape), upper.reshape(shape),
                         np.moveaxis(reps, -1, 0) if return_replicates else None)
        return out

    finished = dask.delayed(finish, pure=True)(totals, moments,
                                               dask_key_name=f"bootstrap-intervals-{token}")
    return _with_lazy_bounds(result, variables, finished, ci=ci, method=method,
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
    ci, method = options["ci"], options.get("method", "percentile")
    resample = options.get("resample", "item")
    n_resamples = options.get("n_resamples", 1000)
    return _with_lazy_bounds(result, variables, finished, ci=ci, method=method,
                             resample=resample, n_resamples=n_resamples,
                             return_replicates=return_replicates)


def _with_lazy_bounds(result, variables, finished, *, ci, method, resample, n_resamples,
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
            attrs = _bound_attrs(template, name, side, level, method, resample, n_resamples)
            new[f"{name}_{side}"] = xr.Variable(template.dims, data, attrs)
        if return_replicates:
            data = dask.array.from_delayed(finished[name][2], (n_resamples, *template.shape),
                                           float)
            new[f"{name}_replicates"] = xr.Variable((RESAMPLE_DIM, *template.dims), data,
                                                    _replicate_attrs(template, name, resample))
    out = result.assign(new)
    if return_replicates:
        out = out.assign_coords({RESAMPLE_DIM: np.arange(n_resamples)})
    out.attrs.update(_interval_attrs(ci, method, n_resamples, resample))
    return out
