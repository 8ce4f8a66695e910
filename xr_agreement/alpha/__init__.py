"""Krippendorff's alpha: :func:`alpha` on single-label ratings and multi-label label sets."""

from .api import HAMMING_DESCRIPTIONS, VARIABLES, alpha
from .distances import MULTI_LABEL_METRICS, SINGLE_LABEL_METRICS

__all__ = ["alpha", "VARIABLES", "HAMMING_DESCRIPTIONS", "SINGLE_LABEL_METRICS",
           "MULTI_LABEL_METRICS"]
