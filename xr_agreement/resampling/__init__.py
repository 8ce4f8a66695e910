"""Bootstrap confidence intervals for agreement coefficients.

The pieces, usable by every coefficient function:

* :func:`check_options` validates the keywords (``ci``, ``n_resamples``, ``resample``,
  ``ci_method``, ``seed``, ``progress``) before any work.
* The protocol every family implements, :class:`TableStatistic`: a per-item table ``T``
  (:meth:`~TableStatistic.item_tables`, N x F) and its finish
  (:meth:`~TableStatistic.finish_sums`): an item resample with counts ``W`` (R x N) is
  ``finish_sums(W @ T)``, the item jackknife ``finish_sums(total - row)``, and on dask
  input (tables chunked along items) both run block by block. MLA
  (:class:`xr_agreement.mla.MLAStatistic`), alpha, the kappa family and ``versus``
  implement it; a family may override :meth:`~WeightedStatistic.replicates` for annotator
  resampling. :class:`RecomputedStatistic` is the fallback for statistics without a table
  (any function of a DataArray, recomputed on each resampled array: simple, slow).
* :func:`bootstrap` draws the resamples, evaluates the statistic, and attaches
  ``V_lower``/``V_upper`` (and on request ``V_replicates``) to a result Dataset. It is the
  one place that chooses between the eager run, the block-by-block run on dask input and
  the deferred one (one task gathers the inputs).
* :mod:`.fast` holds every speed trick, each with the gain it buys.

Resampling units
----------------
``"item"``
    Items are drawn with replacement, ``N`` of ``N``: the usual design, for inference to
    other items rated by the same annotators. Items are drawn jointly across extra dims (a
    ``round``, a ``task``), so paired comparisons stay paired.
``"annotator"``
    Annotators are drawn with replacement, ``n`` of ``n``. An annotator drawn twice counts
    as two distinct raters who made the same decisions: the pair of copies is compared like
    any other pair (and agrees perfectly). This is what resampling raters as units means,
    but it pulls resampled observed agreement above the estimate, the more so the fewer the
    annotators (with 3 to 5 annotators most resamples contain a copy): annotator intervals
    for agreement then lie above the estimate, and BCa can be undefined (NaN, as in scipy)
    when no replicate falls below it. Prefer item resampling unless the annotators are a
    sample from a larger pool of many raters.
``"both"``
    The two-way bootstrap: items and annotators are drawn independently in each replicate
    (annotator draws for all replicates first, then item draws).

In every replicate the whole coefficient is recomputed, including its chance baseline (the
pooled prevalences under F and AC1). The label universe is fixed: a label that no resampled
item carries stays in the result, with the value its definition gives (for instance NaN
label agreement under F, and weight 0 in the corpus coefficient).

Intervals
---------
``"percentile"`` takes the ``(1 - ci)/2`` and ``(1 + ci)/2`` quantiles of the replicates
(linear interpolation, as :func:`numpy.quantile`). ``"bca"`` is Efron's bias-corrected and
accelerated interval: the bias correction from the share of replicates below the estimate,
the acceleration from the leave-one-out jackknife over the resampled unit (for ``"both"``
over items and over annotators, combined as for several samples, Efron & Tibshirani 1993
eq. 15.36); the formulas are those of :func:`scipy.stats.bootstrap`, which gives the same
interval for the same statistic and resamples. The acceleration is taken as 0 where the
jackknife values do not vary (beyond rounding: a spread below ``1e-12`` times the estimate,
at least 1 in scale), and replicates within that distance of the estimate count as ties
(half below), so that sums added in another order (dask blocks) give the same interval.
Replicates (and jackknife values) in which a value is undefined (NaN) are left out of its
interval; an undefined estimate gets NaN bounds.

Resamples
---------
With an int (or None, or a ``numpy.random.SeedSequence``) as ``seed``, item resamples come
from :class:`BlockedResampler`: exactly multinomial (``N`` draws with replacement from ``N``
items), drawn in blocks of items from counter-seeded streams, so that the counts of any range
of items can be made on its own. The same seed gives the same resamples on numpy and on dask
input, whatever the chunks and the number of threads: the same MLA replicates (exact integer
sums), and the same replicates of other coefficients up to float rounding (about 1e-15,
from the order of their sums). With a ``numpy.random.Generator`` as
``seed``, item resamples are NumPy's own draws through its public API,
``rng.integers(0, N, (rows, N))`` a few rows at a time: the same stream as
``rng.integers(0, N, (n_resamples, N))``, what :func:`scipy.stats.bootstrap` draws from that
generator (so its intervals can be reproduced exactly), and the generator is left where
that call leaves it; this stream can only be drawn in order, so it is slower and on dask
input the per-item table is gathered. Annotators are drawn with ``Generator.integers`` in
both cases.

Speed
-----
The tricks and what each buys are listed in :mod:`xr_agreement.resampling.fast`. Against
one plain :func:`xr_agreement.mla` call, which reads the ``N n k`` decisions once, ``R`` item
resamples take ``R N`` random draws and a product of ``R / 2`` rows of counts with the
``N x (2k + 1)`` table, neither depending on ``n``, so the ratio falls as ``1 / n``
(``benchmarks/bench_bootstrap.py``). A Generator seed (NumPy's ``rng.integers``, drawn in
order) costs several times as much as an int seed. BCa adds the item jackknife: one
finishing per item, so on large corpora it costs far more than the percentile interval.

Examples
--------
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

from .draws import BlockedResampler, annotator_resample_counts, item_resample_counts
from .driver import CI_METHODS, UNITS, bootstrap, check_options, deferred_bootstrap, lazy_intervals
from .intervals import RESAMPLE_DIM, add_intervals, interval_bounds, interval_variables
from .statistics import RecomputedStatistic, TableStatistic, WeightedStatistic

__all__ = ["bootstrap", "check_options", "deferred_bootstrap", "lazy_intervals", "UNITS",
           "CI_METHODS", "RESAMPLE_DIM", "add_intervals", "interval_bounds",
           "interval_variables", "WeightedStatistic", "RecomputedStatistic", "TableStatistic",
           "BlockedResampler", "item_resample_counts", "annotator_resample_counts"]
