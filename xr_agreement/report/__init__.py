"""The paper's reporting checklist: :func:`report` (MLA), :func:`judge_report`
(:func:`xr_agreement.versus`), :func:`span_report` (span tables) and
:func:`single_label_report` (single-label ratings), one document model
rendered as text, markdown, HTML, JSON."""

from .document import Report, landis_koch, report

# the judge report (and with it the judge family and the kappas), the span report (the
# span family) and the single-label report (the kappas and alpha) load on first use
_LAZY = {"JudgeReport": ".judge", "judge_report": ".judge",
         "SpanReport": ".spans", "span_report": ".spans",
         "SingleLabelReport": ".single", "single_label_report": ".single"}


def __getattr__(name):
    source = _LAZY.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(source, __name__), name)


__all__ = ["report", "Report", "judge_report", "JudgeReport", "span_report", "SpanReport",
           "single_label_report", "SingleLabelReport", "landis_koch"]
