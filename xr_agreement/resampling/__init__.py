"""Bootstrap confidence intervals for agreement coefficients (the semantics, for users:
``docs/intervals.md``).

* :func:`check_options` validates the keywords before any work.
* :class:`TableStatistic`, the protocol every family implements (MLA's
  :class:`xr_agreement.mla.MLAStatistic`, alpha, the kappa family, ``versus``): a per-item
  table ``T`` (N x F, :meth:`~TableStatistic.item_tables`) and its finish
  (:meth:`~TableStatistic.finish_sums`); an item resample with counts ``W`` (R x N) is
  ``finish_sums(W @ T)``, the item jackknife ``finish_sums(total - row)``.
  :class:`RecomputedStatistic` recomputes any function of a DataArray instead.
* :func:`bootstrap`, the one driver: eager, block by block on dask input, or deferred.
* :mod:`.draws` (the resamples), :mod:`.intervals` (percentile and BCa bounds) and
  :mod:`.fast` (every speed trick, each with the gain it buys).
"""

from .draws import BlockedResampler, annotator_resample_counts, item_resample_counts
from .driver import CI_METHODS, UNITS, bootstrap, check_options, deferred_bootstrap, lazy_intervals
from .intervals import RESAMPLE_DIM, add_intervals, interval_bounds, interval_variables
from .statistics import RecomputedStatistic, TableStatistic, WeightedStatistic

__all__ = ["bootstrap", "check_options", "deferred_bootstrap", "lazy_intervals", "UNITS",
           "CI_METHODS", "RESAMPLE_DIM", "add_intervals", "interval_bounds",
           "interval_variables", "WeightedStatistic", "RecomputedStatistic", "TableStatistic",
           "BlockedResampler", "item_resample_counts", "annotator_resample_counts"]
