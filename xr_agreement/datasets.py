"""Bundled example data."""

from __future__ import annotations

import numpy as np
import xarray as xr

# Names the paper gives (Table 1) for the bias types that were selected at least once; the
# other types of the 31-type taxonomy are not named in the paper.
BIAS_NAMES = {
    2: "Ambiguous Attribution Bias",
    3: "Anecdotal Evidence Bias",
    5: "Cherry Picking Bias",
    14: "Faulty Analogy Bias",
    17: "Intergroup Bias",
    21: "Opinionated Bias",
    22: "Political Bias",
    23: "Projection Bias",
    27: "Speculation Bias",
    29: "Unsubstantiated Claims Bias",
    31: "Word Choice Bias",
}

# Table 1 of the paper: 1-based bias types selected per sentence (rows) and annotator.
BIAS_SELECTIONS = [
    [[14], [14], [14]],
    [[22, 23], [27, 29, 31], [29, 31]],
    [[2, 5, 22], [3], [2]],
    [[17, 21, 22, 31], [2, 17, 22, 23, 29], [2, 21, 23, 31]],
]


def bias_example() -> xr.DataArray:
    """The worked example of the MLA paper (section 3.7, Table 1).

    Four news sentences, three annotators, a pre-specified taxonomy of 31 bias types.

    Returns
    -------
    xarray.DataArray
        uint8 decisions with dims ``item`` (sentences 1-4), ``annotator`` (1-3) and ``label``
        (bias types 1-31, the paper's 1-based indices) and a ``label_name`` coordinate.

    Examples
    --------
    >>> from xr_agreement.datasets import bias_example
    >>> ex = bias_example()
    >>> ex.sizes
    Frozen({'item': 4, 'annotator': 3, 'label': 31})
    >>> int(ex.sum())
    28
    >>> ex.sel(item=1, label=14).values
    array([1, 1, 1], dtype=uint8)
    """
    labels = np.arange(1, 32)
    values = np.zeros((4, 3, 31), np.uint8)
    for i, row in enumerate(BIAS_SELECTIONS):
        for a, selected in enumerate(row):
            values[i, a, np.asarray(selected) - 1] = 1
    return xr.DataArray(
        values,
        dims=("item", "annotator", "label"),
        coords={
            "item": [1, 2, 3, 4],
            "annotator": [1, 2, 3],
            "label": labels,
            "label_name": ("label", [BIAS_NAMES.get(j, f"bias type {j}") for j in labels]),
        },
        name="decision",
        attrs={
            "long_name": "bias type selected",
            "description": "Worked example of Menzner & Leidner, Multi-Label Agreement, "
            "section 3.7, Table 1: 4 sentences, 3 annotators, 31 bias types",
            "reference": "Menzner & Leidner (2026), Multi-Label Agreement, section 3.7, Table 1",
        },
    )
