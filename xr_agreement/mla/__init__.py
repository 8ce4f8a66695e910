"""Multi-Label Agreement (Menzner & Leidner): :func:`mla` and its counts, finishing and
bootstrap."""

from .api import mla
from .counts import count_arrays, hamming_counts, kept_coords
from .finish import finish_counts
from .variables import (ALIASES, BASELINE_DEPENDENT, BASELINES, VARIABLES,
                        assemble, parse_baselines)

__all__ = ["mla", "VARIABLES", "BASELINES", "ALIASES", "BASELINE_DEPENDENT",
           "parse_baselines", "assemble", "finish_counts", "count_arrays", "hamming_counts",
           "kept_coords", "MLAStatistic", "mla_intervals"]


def __getattr__(name):
    # the bootstrap statistic loads the resampling layer (and scipy): only when asked for
    if name in ("MLAStatistic", "mla_intervals"):
        from . import intervals

        return getattr(intervals, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
