"""xr_agreement: inter-annotator agreement on xarray, from the Multi-Label Agreement
framework to Krippendorff's alpha, with labeled results.

``import xr_agreement`` registers the ``.agreement`` accessor on ``xarray.DataArray``.
"""

from . import accessor as _accessor  # noqa: F401  (registers da.agreement)
from . import datasets
from .io import from_long, from_sets
from .judge import versus
from .mla import mla

__all__ = ["datasets", "from_long", "from_sets", "mla", "versus"]

try:
    from importlib.metadata import version as _version

    __version__ = _version("xr-agreement")
except Exception:  # pragma: no cover - not installed
    __version__ = "0+unknown"
