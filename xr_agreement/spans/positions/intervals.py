"""Bootstrap intervals of position-level span agreement, resampling **documents**.

Positions inside a document are not independent (one annotator's reading of a passage covers
many of them at once), so resampling positions gives intervals far too narrow
(``tests/test_spans_positions.py`` measures the coverage of both). Per-document counts are
additive: a replicate that draws document ``d`` ``w_d`` times has the label counts
``sum_d w_d T_d`` (``T`` the table of :func:`.counts.document_table`), one matrix product
per batch of replicates; the coefficient is then finished from them as on the whole table.
Intervals come from the resampling layer (percentile, BCa with the document jackknife).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ...resampling.draws import batch_rows, item_resample_counts
from ...resampling.intervals import (JackknifeMoments, RESAMPLE_DIM, acceleration,
                                     add_intervals)

# documents of the leave-one-out jackknife finished at once (BCa)
JACKKNIFE_BATCH = 1024

NOTE = ("documents resampled with replacement (positions inside a document are not "
        "independent); the baseline is recomputed in every replicate; the label universe "
        "and the annotators stay fixed")


def _weighted_sums(weights: np.ndarray, table: np.ndarray) -> np.ndarray:
    """(R, F) int64 exact ``weights @ table`` for integer weights (R, D) and table (D, F):
    a float64 product while every sum stays below 2**53, else an integer one."""
    largest = float(np.abs(table).max(initial=0)) * float(np.abs(weights).sum(axis=1).max(
        initial=0))
    if largest < 2.0**53:
        return np.rint(weights.astype(np.float64) @ table.astype(np.float64)).astype(np.int64)
    return weights.astype(np.int64) @ table


def document_bootstrap(result: xr.Dataset, table: np.ndarray, finish, *, variables,
                       ci: float, n_resamples: int, ci_method: str, seed,
                       return_replicates: bool, n_pairable_documents: int | None = None
                       ) -> xr.Dataset:
    """``result`` with document-bootstrap bounds ``V_lower``, ``V_upper`` of ``variables``.

    ``table`` (D, F) int64 holds each document's counts; ``finish(sums)`` turns (R, F) sums of
    its rows into a Dataset with a ``resample`` dim of length R holding ``variables``. The
    replicates draw D documents with replacement, ``rng.integers(0, D, (n_resamples, D))``
    with ``rng = numpy.random.default_rng(seed)`` (or ``seed`` itself if a Generator), as
    :func:`scipy.stats.bootstrap` draws.

    With fewer than 2 ``n_pairable_documents`` (documents that hold a comparison: two
    annotators annotated them) the bounds are NaN and ``ci_undefined_reason`` says why: every
    replicate would repeat the one document, and the interval would have width 0, a
    certainty the data cannot give.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    n_documents = table.shape[0]
    parts = []
    for _, counts in item_resample_counts(rng, n_documents, n_resamples,
                                          batch_rows(n_documents, n_resamples)):
        parts.append(_weighted_sums(counts, table))
    replicates = finish(np.concatenate(parts))
    totals = table.sum(axis=0)
    estimate = finish(totals[None]).isel({RESAMPLE_DIM: 0})
    accelerations = None
    if ci_method == "bca":
        moments = {name: JackknifeMoments(estimate[name].transpose(*result[name].dims).values)
                   for name in variables}
        for start in range(0, n_documents, JACKKNIFE_BATCH):
            left_out = finish(totals[None] - table[start:start + JACKKNIFE_BATCH])
            for name in variables:
                dims = (*result[name].dims, RESAMPLE_DIM)
                moments[name].add(left_out[name].transpose(*dims).values)
        accelerations = {name: acceleration([moments[name]]) for name in variables}
    out = add_intervals(result, estimate, replicates, variables=variables, ci=ci,
                        ci_method=ci_method, resample="document", accelerations=accelerations,
                        return_replicates=return_replicates)
    out.attrs["ci_note"] = NOTE
    if n_pairable_documents is not None and n_pairable_documents < 2:
        for name in variables:
            for side in ("lower", "upper"):
                out[f"{name}_{side}"][...] = np.nan
        out.attrs["ci_undefined_reason"] = (
            f"{n_pairable_documents} document(s) annotated by two or more annotators: "
            f"resampling documents needs at least 2 (with one, every replicate repeats it "
            f"and the interval would have width 0)")
    return out
