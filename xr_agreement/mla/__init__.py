"""Multi-Label Agreement (Menzner & Leidner): :func:`mla` and its counts, finishing and
bootstrap."""

from .api import mla
from .counts import count_arrays, hamming_counts, kept_coords
from .finish import finish_counts
from .intervals import MLAStatistic, mla_intervals
from .variables import (ALIASES, BASELINE_DEPENDENT, BASELINES, VARIABLES,
                        assemble, parse_baselines)

__all__ = ["mla", "VARIABLES", "BASELINES", "ALIASES", "BASELINE_DEPENDENT",
           "parse_baselines", "assemble", "finish_counts", "count_arrays", "hamming_counts",
           "kept_coords", "MLAStatistic", "mla_intervals"]
