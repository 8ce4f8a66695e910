"""The classic chance-corrected coefficients: Cohen, Fleiss, Conger, Gwet, Brennan-Prediger,
percent agreement (see :mod:`xr_agreement.kappa.api`)."""

from .api import (COHEN_VARIABLES, METHOD_NAMES, VARIABLES, brennan_prediger, cohen, conger,
                  fleiss, gwet, one_hot, percent)

__all__ = ["cohen", "fleiss", "conger", "gwet", "brennan_prediger", "percent", "one_hot",
           "VARIABLES", "COHEN_VARIABLES", "METHOD_NAMES"]
