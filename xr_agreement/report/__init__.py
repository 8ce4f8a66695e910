"""The paper's reporting checklist: :func:`report` (MLA) and :func:`judge_report`
(:func:`xr_agreement.versus`), one document model rendered as text, markdown, HTML, JSON."""

from .document import Report, landis_koch, report
from .judge import JudgeReport, judge_report

__all__ = ["report", "Report", "judge_report", "JudgeReport", "landis_koch"]
