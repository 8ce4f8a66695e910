"""What to do next: who disagrees with whom (:func:`annotators`), which labels are swapped
for each other (:func:`confusions`) and which (item, label) cells to adjudicate
(:func:`disagreements`)."""

from .annotators import annotators
from .confusions import confusions
from .disagreements import disagreements
from .variables import ANNOTATOR_VARIABLES, CONFUSION_VARIABLES

__all__ = ["annotators", "confusions", "disagreements", "ANNOTATOR_VARIABLES",
           "CONFUSION_VARIABLES"]
