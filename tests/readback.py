"""Decisions read back from a decision DataArray cell by cell, for tests that compare a
reader's result with what was annotated by hand."""

from __future__ import annotations

import numpy as np


def decisions(da, name_of=lambda who: who) -> dict:
    """{(item, name_of(annotator)): set of chosen labels} over the cells with a decision; a
    cell decided on some labels only is an error (the tests' readers decide whole rows)."""
    out = {}
    for item in da["item"].values.tolist():
        for who in da["annotator"].values.tolist():
            row = da.sel(item=item, annotator=who).values
            if np.isnan(row).all():
                continue
            assert not np.isnan(row).any(), (item, who)
            out[(item, name_of(who))] = {str(label) for label, v in
                                         zip(da["label"].values.tolist(), row) if v == 1}
    return out
