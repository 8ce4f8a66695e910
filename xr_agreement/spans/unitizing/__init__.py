"""Krippendorff's alpha for unitizing (1995/2004 per label, as DKPro Statistics; 2016 from
coincidences)."""

from .api import unitizing_alpha

__all__ = ["unitizing_alpha"]
