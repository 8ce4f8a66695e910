"""Bootstrap intervals of alpha from per-item coincidence contributions."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from ..resampling.intervals import RESAMPLE_DIM
from ..resampling.statistics import TableStatistic
from .counts import _alpha_terms, _coded, _extra_frame
from .distances import _value_distances


# --- bootstrap intervals ---------------------------------------------------------------

# The coincidence route of the bootstrap keeps an (items x groups * V * V) table of per-item
# coincidence contributions: used up to this many table entries, else the recomputing route.
BOOTSTRAP_TABLE_LIMIT = 1 << 24


INTERVAL_VARIABLES = ("alpha", "observed_disagreement", "expected_disagreement")


HAMMING_INTERVAL_VARIABLES = INTERVAL_VARIABLES + (
    "label_alpha", "label_observed_disagreement", "label_expected_disagreement",
    "label_alpha_weight")


def _coincidence_table(codes, n_values, weights) -> np.ndarray:
    """(N, G V V) per-item coincidence contributions of codes (G, N, n) (-1 missing), the
    annotators counted ``weights`` times."""
    G, N, _ = codes.shape
    V = n_values
    present = codes >= 0
    index = (np.arange(G * N).reshape(G, N, 1) * V + np.where(present, codes, 0))
    counts = np.bincount(index[present], np.broadcast_to(weights, codes.shape)[present],
                         minlength=G * N * V).reshape(G, N, V)
    m = counts.sum(axis=-1)
    scale = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    table = counts[..., :, None] * counts[..., None, :]
    table[..., np.arange(V), np.arange(V)] -= counts
    table *= scale[..., None, None]
    return np.ascontiguousarray(table.transpose(1, 0, 2, 3).reshape(N, G * V * V))


def _coincidence_block_table(block, categories, coords, block_info=None) -> np.ndarray:
    """:func:`_coincidence_table` of a dask block (item axis first, then the extra axes,
    annotator) coded with the declared categories; ``coords`` (dim, values) of the whole
    array in that order name a rating that is not one of them."""
    location = block_info[0]["array-location"] if block_info else [
        (0, size) for size in np.shape(block)]
    ratings = xr.DataArray(
        np.asarray(block), dims=[dim for dim, _ in coords],
        coords={dim: values[start:stop] for (dim, values), (start, stop) in
                zip(coords, location)},
    )
    ratings = ratings.transpose(*ratings.dims[1:-1], ratings.dims[0], ratings.dims[-1])
    N, n = ratings.shape[-2:]
    codes = _coded(ratings, categories).values.astype(np.int64).reshape(-1, N, n)
    return _coincidence_table(codes, len(categories), np.ones(n))


class CoincidenceStatistic(TableStatistic):
    """Single-label alpha on resamples from per-item coincidence contributions.

    Item ``i`` with category counts ``R_i`` (annotator ``a`` counted ``c_a`` times) adds
    ``(R_i R_i' - diag R_i) / (m_i - 1)`` to the coincidence matrix, so an item resample's
    coincidence matrices are the resampling counts ``W`` (R x N) times the (N x V * V) table
    of these contributions: one matrix product per batch. Every replicate is then finished
    from its own matrix (margins ``n_c``, and for "ordinal" the mid-ranks of its own
    frequencies), like :func:`alpha` finishes the full data. ``codes`` may be None with a
    lazy (dask) ``table`` given instead: item resampling then runs block by block.
    """

    def __init__(self, codes, n_values, delta, ordinal, extra, extra_shape, coords,
                 table=None, n_annotators=None):
        self.codes = codes  # (G, N, n) int64, -1 missing
        self.n_values = n_values
        self.delta = delta  # (V, V), ignored for ordinal
        self.ordinal = ordinal
        self.extra, self.extra_shape, self.coords = extra, extra_shape, coords
        if codes is not None:
            self.n_items, self.n_annotators = codes.shape[1:]
        else:
            self.n_items, self.n_annotators = table.shape[0], n_annotators
        self._ones = table

    def _table(self, weights):
        return _coincidence_table(self.codes, self.n_values, weights)

    @property
    def is_lazy(self) -> bool:
        return self.codes is None and _is_dask(self._ones)

    def item_tables(self) -> dict:
        if self._ones is None:
            self._ones = self._table(np.ones(self.n_annotators))
        return {"coincidence": self._ones}

    def drop_tables(self) -> None:
        self.codes = self._ones = None

    def finish_sums(self, sums: dict) -> xr.Dataset:
        return self._finish_coincidence(sums["coincidence"])

    def replicates(self, item_counts, annotator_counts):
        if annotator_counts is None:
            return super().replicates(item_counts, None)
        rows = []
        for r, weights in enumerate(np.asarray(annotator_counts, np.float64)):
            table = self._table(weights)
            rows.append(table.sum(axis=0) if item_counts is None
                        else item_counts[r].astype(np.float64) @ table)
        return {"coincidence": np.stack(rows)}

    def _finish_coincidence(self, coincidence) -> xr.Dataset:

        V = self.n_values
        R = coincidence.shape[0]
        coincidence = coincidence.reshape((R, -1, V, V))
        margins = coincidence.sum(axis=-1)
        # the margins are sums of integers: round away the float error of the weights
        margins = np.rint(margins)
        total = margins.sum(axis=-1)
        if self.ordinal:
            ranks = np.cumsum(margins, axis=-1) - margins / 2.0
            delta = (ranks[..., :, None] - ranks[..., None, :]) ** 2
        else:
            delta = self.delta
        observed_sum = (coincidence * delta).sum(axis=(-2, -1))
        expected_sum = (np.einsum("...c,...ck,...k->...", margins, delta, margins)
                        - (margins * np.diagonal(delta, axis1=-2, axis2=-1)).sum(axis=-1))
        value, observed, expected = _alpha_terms(observed_sum, expected_sum, total)
        dims = (RESAMPLE_DIM, *self.extra)
        shape = (R, *self.extra_shape)
        out = xr.Dataset(
            {name: (dims, values.reshape(shape)) for name, values in
             zip(INTERVAL_VARIABLES, (value, observed, expected))},
            coords=self.coords,
        )
        return out.assign_coords({RESAMPLE_DIM: np.arange(R)})


def _coincidence_statistic(da, metric, name, item, annotator, categories):
    """A :class:`CoincidenceStatistic` for single-label ``da``, or None when the table
    would be too large (many distinct values) or the ratings need the general route."""
    extra, coords = _extra_frame(da, (item, annotator))
    ordered = da.transpose(*extra, item, annotator)
    if _is_dask(ordered.data):
        return _lazy_coincidence_statistic(ordered, metric, name, item, annotator, categories,
                                           extra, coords)
    if ordered.dtype.kind == "O" and categories is None and name != "nominal":
        try:
            ordered = ordered.astype(np.float64)
        except (TypeError, ValueError):
            return None
    ratings = _coded(ordered, categories)
    codes = ratings.values.astype(np.int64)
    used = np.unique(codes[codes >= 0])
    V = used.size
    G, N = codes.shape[:2]
    if V == 0 or N * G * V * V > BOOTSTRAP_TABLE_LIMIT:
        return None
    compact = np.full(len(ratings.categories) + 1, -1, np.int64)
    compact[used] = np.arange(V)
    codes = compact[codes]  # -1 stays -1 (the last entry)
    values = [ratings.categories[c] for c in used]
    return CoincidenceStatistic(codes, V, _value_distances(metric, name, values),
                                name == "ordinal", extra,
                                tuple(ordered.sizes[d] for d in extra), coords)


def _lazy_coincidence_statistic(ordered, metric, name, item, annotator, categories, extra,
                                coords):
    """A :class:`CoincidenceStatistic` whose table is a dask array built block by block
    from the declared categories; None without them (their number, hence the table's
    width, is only known from the data) or when the table would be too large."""
    import dask.array
    from dask.base import tokenize

    if categories is None:
        return None
    values = list(categories)
    V = len(values)
    G = int(np.prod([ordered.sizes[d] for d in extra]))
    N, n = ordered.sizes[item], ordered.sizes[annotator]
    if V == 0 or N * G * V * V > BOOTSTRAP_TABLE_LIMIT:
        return None
    if name in ("interval", "ratio"):
        values = [float(v) for v in values]  # checked numeric by alpha() already
    data = ordered.data
    nd = data.ndim
    # the item axis first, everything else in one chunk
    data = dask.array.moveaxis(data, nd - 2, 0).rechunk({i: -1 for i in range(1, nd)})
    moved = [ordered.dims[nd - 2], *ordered.dims[: nd - 2], ordered.dims[-1]]
    block_coords = [(dim, np.asarray(ordered[dim].values)) for dim in moved]
    declared = np.asarray(list(categories), dtype=object)
    table = data.map_blocks(
        _coincidence_block_table, declared, block_coords, dtype=np.float64,
        drop_axis=list(range(2, nd)), chunks=(data.chunks[0], (G * V * V,)),
        name="bootstrap-coincidence-table-" + tokenize(data, declared, moved),
    )
    return CoincidenceStatistic(None, V, _value_distances(metric, name, values),
                                name == "ordinal", extra,
                                tuple(ordered.sizes[d] for d in extra), coords, table=table,
                                n_annotators=n)
