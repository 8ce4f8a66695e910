"""xr_agreement: inter-annotator agreement on xarray, from the Multi-Label Agreement
framework to Krippendorff's alpha, with labeled results.

``import xr_agreement`` registers the ``.agreement`` accessor on ``xarray.DataArray``.
"""

import importlib as _importlib
import sys as _sys
import types as _types

from . import accessor as _accessor  # noqa: F401  (registers da.agreement)

# Public name -> the module that defines it. They are imported on first use, so that
# ``import xr_agreement`` does not load numba, scipy and every family (1.6 s -> see
# benchmarks/bench_table.py); a report that only needs MLA loads only MLA.
_SOURCES = {
    "datasets": ".datasets", "resampling": ".resampling", "plot": ".plot",
    "alpha": ".alpha",
    "am": ".compare", "augmented_kappa": ".compare", "boot_f1": ".compare", "masi": ".compare",
    "annotators": ".diagnostics", "confusions": ".diagnostics",
    "disagreements": ".diagnostics",
    "AnnotationFileError": ".io", "from_long": ".io", "from_sets": ".io",
    "read_annotations": ".io",
    "versus": ".judge",
    "brennan_prediger": ".kappa", "cohen": ".kappa", "conger": ".kappa", "fleiss": ".kappa",
    "gwet": ".kappa", "one_hot": ".kappa", "percent": ".kappa",
    "mla": ".mla",
    "from_spans": ".spans", "span_positions": ".spans", "span_mla": ".spans",
    "span_alpha": ".spans", "span_f1": ".spans", "unitizing_alpha": ".spans", "gamma": ".spans",
    "span_disagreements": ".spans", "read_spans": ".io", "span_report": ".report", "SpanReport": ".report",
    "single_label_report": ".report", "SingleLabelReport": ".report",
    "JudgeReport": ".report", "Report": ".report", "judge_report": ".report",
    "report": ".report",
    "analytic_flip": ".simulate", "prevalence_sensitivity": ".simulate",
    "simulate": ".simulate", "table4": ".simulate",
}


def __getattr__(name):
    if name == "__version__":  # read from the installed metadata on first use (60 ms)
        try:
            from importlib.metadata import version

            value = version("xr-agreement")
        except Exception:  # pragma: no cover - not installed
            value = "0+unknown"
        globals()[name] = value
        return value
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = _importlib.import_module(source, __name__)
    value = module if source == "." + name and not hasattr(module, name) else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():  # the public names and the module's dunders; not its private helpers
    return sorted({name for name in globals() if not name.startswith("_")
                   or name.startswith("__")} | set(_SOURCES) | {"__version__"})


class _Package(_types.ModuleType):
    """This package, where a function named like its subpackage (``mla``, ``alpha``,
    ``report``, ``simulate``) stays the function: importing ``xr_agreement.mla`` would
    otherwise record the subpackage as the attribute ``xr_agreement.mla``."""

    def __setattr__(self, name, value):
        if isinstance(value, _types.ModuleType) and name in _SOURCES and name not in (
                "datasets", "resampling", "plot"):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

__all__ = [
    "from_spans",
    "read_spans",
    "span_positions",
    "span_mla",
    "span_alpha",
    "span_f1",
    "unitizing_alpha",
    "gamma",
    "span_disagreements",
    "span_report",
    "SpanReport",
    "single_label_report",
    "SingleLabelReport",
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
