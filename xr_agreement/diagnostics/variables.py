"""Output variables of the diagnostics, declared as data: name -> (long_name, symbol,
description), as every family declares its own (see ``mla/variables.py``)."""

from __future__ import annotations

import xarray as xr

ANNOTATOR_VARIABLES = {
    "agreement": (
        "multi-label agreement",
        "A_ml",
        "the corpus coefficient, as mla() gives it with the same baseline",
    ),
    "pair_n_pairable_values": (
        "pairable decisions of the pair",
        "n_rs",
        "(item, label) cells both annotators decided; on the diagonal the cells the annotator "
        "decided",
    ),
    "pair_observed": (
        "observed agreement of the pair",
        "A_o,rs",
        "share of the (item, label) cells both annotators decided on which their 0/1 values "
        "are equal; NaN on the diagonal and where the two share no cell",
    ),
    "pair_agreement": (
        "multi-label agreement of the pair",
        "A_ml,rs",
        "mla() of the two annotators alone, with the same baseline; NaN on the diagonal and "
        "where mla is undefined",
    ),
    "annotator_observed": (
        "observed agreement of the annotator with the others",
        "A_o,r",
        "agreeing (item, label) comparisons of the annotator with every other annotator, "
        "over all such comparisons (pooled, not a mean of pair_observed); NaN without any",
    ),
    "agreement_without": (
        "multi-label agreement without the annotator",
        "A_ml,-r",
        "mla() of the corpus with this annotator left out, same baseline (NaN when fewer "
        "than 2 annotators remain or mla is undefined); the annotator whose removal raises "
        "agreement most is the first to talk to",
    ),
    "annotator_prevalence": (
        "annotator prevalence",
        "p_rj",
        "the annotator's 1s on the label over the items where they decided it (NaN if "
        "none); compare with label_prevalence for drift",
    ),
    "label_prevalence": (
        "label prevalence",
        "p_j",
        "the pooled prevalence, as mla() reports it",
    ),
    "n_items_annotated": (
        "items annotated",
        "N_r",
        "items on which the annotator decided at least one label",
    ),
}

CONFUSION_VARIABLES = {
    "co_selection": (
        "co-selection count",
        "S_ab",
        "over items and ordered pairs (r, s) of different annotators who both decided labels "
        "a and b on the item: the number where r selected a and s selected b",
    ),
    "substitution": (
        "substitution count",
        "W_ab",
        "the same pairs where r selected a and not b while s selected b and not a (a swapped "
        "for b); 0 on the diagonal",
    ),
    "n_disagreeing_pairs": (
        "disagreeing pairs on the label",
        "D_ab",
        "the same pairs (both decided a and b) where r selected a and s did not",
    ),
    "substitution_rate": (
        "substitution rate",
        "W_ab / D_ab",
        "substitution / n_disagreeing_pairs: the share of a's disagreements in which the "
        "other annotator chose b instead; NaN on the diagonal and where no pair disagrees",
    ),
}


def attach_attrs(result: xr.Dataset, variables: dict) -> xr.Dataset:
    for name, (long_name, symbol, description) in variables.items():
        if name in result:
            result[name].attrs = {"long_name": long_name, "symbol": symbol,
                                  "description": description}
    return result
