"""One annotator (an LLM judge) against a human reference: :func:`versus`."""

from .api import ABSTAIN_MODES, RESULT_DIMS, TIE_RULES, ZERO_DIVISION, versus
from .measures import AVERAGES, COUNTS, HUMAN_BASELINES, MEASURES, cell_counts, table_measures

__all__ = ["versus", "ABSTAIN_MODES", "TIE_RULES", "RESULT_DIMS", "ZERO_DIVISION", "AVERAGES",
           "COUNTS", "HUMAN_BASELINES", "MEASURES", "cell_counts", "table_measures"]
