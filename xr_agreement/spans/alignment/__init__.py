"""Gamma (Mathet, Widlöcher & Métivier 2015): agreement from the best alignment of every
annotator's units."""

from .api import gamma

__all__ = ["gamma"]
