"""Bootstrap confidence intervals for agreement coefficients.

The pieces, usable by every coefficient function:

* :func:`check_options` validates the keywords (``ci``, ``n_resamples``, ``resample``,
  ``method``, ``seed``, ``progress``) before any work.
* A *weighted statistic* (:class:`WeightedStatistic`) evaluates a coefficient with item ``i``
  counted ``W[r, i]`` times and annotator ``a`` counted ``c[r, a]`` times, for a batch of
  replicates ``r`` at once. :class:`RecomputedStatistic` does so for any function of a
  DataArray by building the resampled array (simple, slow); :class:`MLAStatistic` does it
  for :func:`xr_agreement.mla` from per-item sufficient statistics (fast, see below).
* :func:`bootstrap` draws the resamples, evaluates the statistic, and attaches
  ``V_lower``/``V_upper`` (and on request ``V_replicates``) to a result Dataset.

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
``seed``, item resamples are NumPy's own draws, ``rng.integers(0, N, (n_resamples, N))``
(what :func:`scipy.stats.bootstrap` draws from that generator, so its intervals can be
reproduced exactly), and the generator is advanced as NumPy would advance it; this stream
can only be drawn in order, so it is slower and on dask input the per-item table is
gathered. Annotators are drawn with ``Generator.integers`` in both cases.

Speed
-----
The Hamming statistics of MLA are sums over items of per-(item, label) terms in ``x`` (the
positives) and ``m`` (the deciders). For item resampling the label count table of every
replicate is therefore one matrix product: the multinomial resampling counts ``W`` (R x N)
times a per-item table of cell counts, ``x`` and ``x (m - x)`` for each (label, m) that
occurs (cell-count columns that are equal, such as all of them on complete data, are
kept once). Everything else is finished on those small tables in one call of
:func:`xr_agreement.mla.finish_counts` with a ``resample`` dim.

With an int seed the counts are streamed (:func:`_stream_item_blocks`): each worker thread
takes up to 256 replicates and walks the blocks of items, drawing a block's counts (numba)
into a small buffer and multiplying them with the block's rows of the table straight away,
with BLAS single-threaded meanwhile (threadpoolctl; :data:`SINGLE_THREADED_BLAS`), so no
large array of counts is ever held and the threads do not wait on each other. Where the
table's values are small (at most 23: complete decisions of up to 9 annotators, or missing
data with a label nobody skipped), two replicates share a row of counts,
``W_a + 2**12 W_b``, and the product is taken over sub-blocks of items small enough that
both halves of every sum stay exact in float32 (:func:`replicate_pairing`): half the rows for the same
products. The table's column of ones gives each replicate's draws per sub-block, which must
stay within the bound and add up to the replicate's known total; a pair that fails either
check is multiplied again unpaired, so the sums are exact in every case. For complete
integer decisions the table comes from one pass over the data that also gives the point
estimate's counts (the data are read once, as by a plain call). With a Generator seed the
counts come from NumPy's PCG64 stream stepped in numba, in parallel segments from
jumped-ahead states, counted row by row (two-way resampling also draws whole rows).
Annotator resampling recounts ``x`` and ``m`` once per distinct multiset of drawn
annotators. BCa adds the item jackknife: one finishing per distinct item row, so on large
corpora it costs far more than the percentile interval.

What this costs against one plain :func:`xr_agreement.mla` call, which reads the
``N n k`` decisions once: ``R`` item resamples take ``R N`` random draws and a product
of ``R / 2`` rows of counts with the ``N x (2k + 1)`` table, neither depending on ``n``,
so the ratio falls as ``1 / n``. Measured on two cores (load average under 1) at
``N = 10**5``, ``k = 50``, with an int seed (``benchmarks/bench_bootstrap.py``, run to run
variation about 10%): 1000 resamples cost 24 to 26 times a plain call with ``n = 5``
annotators (0.12 s against 5 ms; the draws alone about 5.5 times, the products 11), 28 to
31 with ``n = 3``, about 35 with ``n = 2`` (the plain call reads less, the bootstrap does
the same work), 21 to 24 with ``n = 10`` (table values up to 25: not paired) and 11 with
``n = 20``. A Generator seed (NumPy's stream) costs about four times as much.

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
from .driver import METHODS, UNITS, bootstrap, check_options, deferred_bootstrap, lazy_intervals
from .intervals import RESAMPLE_DIM, add_intervals, interval_bounds, interval_variables
from .statistics import RecomputedStatistic, TableStatistic, WeightedStatistic, distinct_rows

__all__ = ["bootstrap", "check_options", "deferred_bootstrap", "lazy_intervals", "UNITS",
           "METHODS", "RESAMPLE_DIM", "add_intervals", "interval_bounds", "interval_variables",
           "WeightedStatistic", "RecomputedStatistic", "TableStatistic", "distinct_rows",
           "BlockedResampler", "item_resample_counts", "annotator_resample_counts"]
