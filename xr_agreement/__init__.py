"""xr_agreement: inter-annotator agreement on xarray, from the Multi-Label Agreement
framework to Krippendorff's alpha, with labeled results.

``import xr_agreement`` registers the ``.agreement`` accessor on ``xarray.DataArray``.
"""

from . import accessor as _accessor  # noqa: F401  (registers da.agreement)
from . import datasets, resampling
from . import plot  # matplotlib itself is imported on first use
from .alpha import alpha
from .compare import am, augmented_kappa, boot_f1, masi
from .diagnostics import annotators, confusions, disagreements
from .io import AnnotationFileError, from_long, from_sets, read_annotations
from .judge import versus
from .kappa import brennan_prediger, cohen, conger, fleiss, gwet, one_hot, percent
from .mla import mla
from .report import JudgeReport, Report, judge_report, report
from .simulate import analytic_flip, prevalence_sensitivity, simulate, table4

__all__ = [
    "alpha",
    "am",
    "analytic_flip",
    "annotators",
    "augmented_kappa",
    "boot_f1",
    "AnnotationFileError",
    "JudgeReport",
    "Report",
    "brennan_prediger",
    "cohen",
    "confusions",
    "conger",
    "datasets",
    "disagreements",
    "fleiss",
    "from_long",
    "from_sets",
    "gwet",
    "judge_report",
    "masi",
    "mla",
    "one_hot",
    "percent",
    "plot",
    "prevalence_sensitivity",
    "read_annotations",
    "report",
    "resampling",
    "simulate",
    "table4",
    "versus",
]

try:
    from importlib.metadata import version as _version

    __version__ = _version("xr-agreement")
except Exception:  # pragma: no cover - not installed
    __version__ = "0+unknown"
