"""The paper's reporting checklist: :func:`report` (MLA) and :func:`judge_report`
(:func:`xr_agreement.versus`), one document model rendered as text, markdown, HTML, JSON."""

from .document import Report, landis_koch, report


def __getattr__(name):
    # the judge report (and with it the judge family and the kappas) loads on first use
    if name in ("JudgeReport", "judge_report"):
        from . import judge

        return getattr(judge, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["report", "Report", "judge_report", "JudgeReport", "landis_koch"]
