"""Cohen's kappa: pairwise contingency tables, Byrt's indices, pooled multi-label values.

Computed on plain arrays: pair-level arrays have the axes
``(*lead, annotator_1, annotator_2)``, with a leading resample axis on item-resampled data
and, on multi-label input, the label last of the lead axes.

Every pair's table comes from one counting pass over the ratings (:mod:`.pair_kernels`):
single-label codes or multi-label decisions, in item runs on the thread pool (numpy) or one
task per item block (dask); the pooled multi-label standard error from a second pass. The
bootstrap's per-item columns (:func:`_cohen_columns`) still come from the one-hot indicator.
Every value from the sums (counted, dask's, or a replicate's) in one kernel call over the
pair tables (:mod:`.pair_values`, through :func:`_pair_values`).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, kernel_input
from .._core.threads import _in_threads
from . import pair_kernels as _kernels
from . import pair_values as _values
from .counts import _added, _runs
from .lazy import tree_sum
from .encode import _COL, _ROW, _ZERO_GAP, REASONS
from .gwet import _canonical, _layout
from .pair_kernels import shift_pairs

_PAIR = ("annotator_1", "annotator_2")

# the axes of each column's sum over items after (*lead, annotator_1, annotator_2)
_SUM_DIMS = {"table": (_ROW, _COL), "common": ()}


def _cohen_columns(data) -> dict:
    """The per-item terms whose sums over items :func:`cohen`'s values use
    (:func:`_pair_values`), as DataArrays for the bootstrap's per-item tables (a tuple:
    factors whose product is the term): the pairs' contingency tables and, on multi-label
    input, ``common``, whether both annotators decided some label on the item."""
    item = data["item"]
    lead, ind, rated = _canonical(data)

    def labeled(array, *dims, lead=lead):
        return xr.DataArray(array, dims=(*lead, item, *dims))

    # contingency table of every pair: T[a1, a2, row, col] = items rated row by a1, col by a2
    columns = {"table": (labeled(ind, "annotator_1", _ROW), labeled(ind, "annotator_2", _COL))}
    if data["multi_label"]:
        both = rated[..., :, None] & rated[..., None, :]  # decided by both on the label
        columns["common"] = labeled(both.any(axis=len(lead) - 1), *_PAIR, lead=lead[:-1])
    return columns


# --------------------------------------------------------------------------- counting


def _kernel_input(data):
    """(lead dims, lead shape, ratings as the kernels read them): single-label codes (G, N,
    n) int32 or multi-label decisions (G, N, n, L) from :func:`.encode._prepare`, numpy, or
    dask in item chunks."""
    array = data["decisions" if data["multi_label"] else "codes"]
    lead, lead_shape = tuple(data["lead"]), tuple(data["lead_shape"])
    if _is_dask(array):
        return lead, lead_shape, array.rechunk({axis: -1 for axis in range(array.ndim)
                                                if axis != 1})
    return lead, lead_shape, kernel_input(array)


def _count(array, q, runs, refuse=None, bits=None):
    """The counting pass over numpy ``array`` in ``runs`` item runs on the thread pool, their
    counts added in order: single-label ``(cells,)`` (see :func:`code_pair_tables`);
    integer decisions ``(products, items)`` (:func:`label_pair_complete`, the number of
    items); float decisions ``(counts, common)`` (:func:`label_pair_missing`). ``refuse``:
    called if a decision is not 0/1 (uint8 decisions are checked in this pass,
    :func:`.encode._checked_decisions`). ``bits``: None, or on integer decisions (G, N, n,
    W) uint64 that the pass fills with the decisions as bits (:func:`_bit_words`)."""
    array = kernel_input(array)
    G, N, n = array.shape[:3]
    P = n * (n + 1) // 2
    if array.ndim == 3:
        def run(i0, i1):
            cells = np.zeros((G, (n * q) ** 2), np.int64)
            _kernels.code_pair_tables(array, q, i0, i1, cells)
            return (cells,)
    elif array.dtype.kind == "f":
        L = array.shape[3]

        def run(i0, i1):
            counts, common = np.zeros((G, 4, P, L), np.int64), np.zeros((G, P), np.int64)
            _kernels.label_pair_missing(array, i0, i1, counts, common)
            return counts, common
    else:
        L = array.shape[3]
        array = _bytes(array)
        words = np.empty((0, 0, 0, 0), np.uint64) if bits is None else bits
        masks = _kernels.bit_masks(L, -(-L // 64))

        def run(i0, i1):
            products = np.zeros((G, P, L), np.int64)
            not_binary = _kernels.label_pair_complete(array, masks, i0, i1, products, words)
            return products, np.int64(i1 - i0), np.int64(not_binary)

        products, items, not_binary = _added(_in_threads(run, N, runs))
        if not_binary and refuse is not None:
            refuse()
        return products, items
    return _added(_in_threads(run, N, runs))


def _bit_words(array):
    """Empty words for :func:`_count` to fill with multi-label ``array``'s decisions as
    bits, (G, N, n, W) uint64, W words of 64 labels (:func:`.pair_kernels._pack_row`), or
    None where it does not count integer decisions. The standard error's pass reads these
    instead of the bytes (see :func:`.pair_kernels.complete_influence`)."""
    if array.dtype.kind == "f":
        return None
    G, N, n, L = array.shape
    return np.empty((G, N, n, -(-L // 64)), np.uint64)


def _bytes(array):
    """Complete decisions as the byte kernels read them: C-contiguous uint8 (copied only
    from another dtype or layout)."""
    return np.ascontiguousarray(array, dtype=np.uint8)


def _sums(counts, multi_label, n, lead_shape, w):
    """The sums over items of :func:`_cohen_columns` (float arrays, ``common`` int64; see
    :func:`_given_sums`) from :func:`_count`'s counts."""
    if not multi_label:
        (cells,) = counts
        q = w.shape[0]
        table = np.empty((cells.shape[0], n, n, q, q))
        _values.pair_tables(cells, table)
        return {"table": table.reshape(*lead_shape, n, n, q, q)}
    first, second = shift_pairs(n)
    diagonal = np.arange(n)

    def symmetric(upper, lower=None):  # (G, P, ...) -> (G, n, n, ...)
        full = np.empty((upper.shape[0], n, n, *upper.shape[2:]), np.float64)
        full[:, first, second] = upper
        full[:, second, first] = upper if lower is None else lower
        return full

    if len(counts[0].shape) == 3:  # complete: x_a x_b summed, and the items
        products, items = counts
        both_one = symmetric(products)
        ones = both_one[:, diagonal, diagonal]  # (G, n, L): each annotator's 1s
        said_first, said_second = ones[:, :, None], ones[:, None, :]
        decided_both = np.full_like(both_one, float(items))
        common = np.full(both_one.shape[:3], float(items) if both_one.shape[3] else 0.0)
    else:
        counts, common = counts
        both_one = symmetric(counts[:, 0])
        said_first = symmetric(counts[:, 1], counts[:, 2])
        said_second = symmetric(counts[:, 2], counts[:, 1])
        decided_both = symmetric(counts[:, 3])
        common = symmetric(common)
    table = np.stack([decided_both - said_first - said_second + both_one,
                      said_second - both_one, said_first - both_one, both_one], axis=-1)
    # (G, a1, a2, label, row col) -> (*extra, label, a1, a2, row, col)
    table = np.moveaxis(table, 3, 1).reshape(*lead_shape, n, n, 2, 2)
    return {
        "table": table,
        "both": table.sum(axis=(-2, -1)),  # the items both decided a label on
        # a count of items (int64, as a sum of booleans: no interval is drawn for it)
        "common": common.astype(np.int64).reshape(*lead_shape[:-1], n, n),
    }


# The pooled standard error's lookups of one extra-dims value stay below this many bytes
# (within a core's L2 cache), which sets the labels per lookup.
LOOKUP_BYTES = 1 << 19


def _influence_plan(sums, w, n_items):
    """How :func:`_influence_squares` runs, from the sums: ``first``, ``second`` (the pairs:
    a <= b with symmetric weights, a pair's term then its mirror's; else every ordered
    pair) and either, on complete decisions, the ``coefficients`` and ``ones`` of
    :func:`complete_influence`, or the ``missing``, ``group`` and ``table`` of
    :func:`pooled_influence` (1 to 4 labels a lookup, 1 to 2 where decisions are missing,
    as many as keep the lookups within :data:`LOOKUP_BYTES`)."""
    L, n = sums["table"].shape[-5:-3]
    if np.array_equal(w, w.T):
        first, second = shift_pairs(n)
    else:
        first, second = (np.repeat(np.arange(n), n), np.tile(np.arange(n), n))
    plan = {"first": first, "second": second}
    diagonal = np.arange(n)
    missing = bool((sums["both"][..., diagonal, diagonal] < n_items).any())
    if not missing and n_items and L and n_items * L < 2**31:  # int32 sums
        plan["coefficients"] = _complete_coefficients(sums, w, first, second, n_items)
        # (G, n, L) int32, zero past L: the kernel reads rows of at least 8 labels
        ones = sums["table"][..., diagonal, diagonal, 1, 1].reshape(-1, L, n)
        plan["ones"] = np.zeros((ones.shape[0], n, max(L, 8)), np.int32)
        plan["ones"][..., :L] = np.swapaxes(ones, 1, 2)
        return plan
    lookup = _influence_lookup(sums, w).reshape(-1, L, n, n, 2, 2)
    lookup = np.moveaxis(lookup[:, :, first, second], 2, 1)  # (G, pairs, L, 2, 2)
    states = 3 if missing else 2
    group = 1
    for size in range(min(L, 2 if missing else 4), 0, -1):
        group = size
        if first.size * -(-L // size) * states ** (2 * size) * 8 <= LOOKUP_BYTES:
            break
    plan.update(missing=missing, group=group, table=_group_lookup(lookup, states, group))
    return plan


def _complete_coefficients(sums, w, first, second, n_items):
    """(G, pairs, 5): the coefficients of :func:`complete_influence`. On complete decisions
    every label is used and shared by every item, so a label's share (see
    :func:`_influence_lookup`) is K (w_rs - P_o,j - (1 - kappa)(m2_j[r] + m1_j[s] -
    2 P_e,j)) with K = 1 / (L (1 - P_e)), and m2_j[1] - m2_j[0] = (w_10 - w_00) + rho S_bj /
    N (rho = w_11 - w_01 - w_10 + w_00; m1 alike): summed over the labels, the term is
    affine in A, B, n11 and the dot products with S.

    The labels' proportions, P_o,j and P_e,j and the pooled coefficient are those of the
    values' kernel (:func:`_pooled_terms`), on the planned pairs."""
    L, n = sums["table"].shape[-5:-3]
    terms = _pooled_terms(sums, w)

    def planned(values):  # (..., L, n, n) -> (G, L, pairs)
        return values.reshape(-1, L, n, n)[:, :, first, second]

    row0, row1 = planned(terms["marginal_1"][..., 0]), planned(terms["marginal_1"][..., 1])
    col0, col1 = planned(terms["marginal_2"][..., 0]), planned(terms["marginal_2"][..., 1])
    observed, expected = planned(terms["observed_j"]), planned(terms["expected_j"])
    w_col0 = w[0, 0] * col0 + w[0, 1] * col1
    gap = terms["gap"].reshape(-1, n, n)[:, first, second]
    kappa = terms["coefficient"].reshape(-1, n, n)[:, first, second]
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = 1 / (L * gap)
        rho = w[1, 1] - w[0, 1] - w[1, 0] + w[0, 0]
        # the share of r = s = 0 summed over the labels, over K
        shifted = (w_col0 + w[0, 0] * row0 + w[1, 0] * row1 - 2 * expected).sum(axis=1)
        constant = L * w[0, 0] - observed.sum(axis=1) - (1 - kappa) * shifted
        return np.stack([scale * constant,
                         scale * rho,
                         scale * kappa * (w[1, 0] - w[0, 0]),
                         scale * kappa * (w[0, 1] - w[0, 0]),
                         -scale * (1 - kappa) * rho / n_items], axis=-1)


def _group_lookup(lookup, states, group):
    """``table`` of :func:`pooled_influence` from per-label lookups (G, pairs, L, 2, 2):
    entry (g, p, k, da S^group + db) the sum over the group's labels of their lookups at
    the states whose base-S digits are da and db."""
    G, P, L = lookup.shape[:3]
    K = -(-L // group)
    padded = np.zeros((G, P, group * K, states, states))
    if states == 3:  # state 0: a missing decision, no share
        padded[:, :, :L, 1:, 1:] = lookup
    else:
        padded[:, :, :L] = lookup
    padded = padded.reshape(G, P, group, K, states, states)
    side = states ** group
    number = np.arange(side * side)
    table = np.zeros((G, P, K, side * side))
    for t in range(group):
        power = states ** (group - 1 - t)
        table = table + padded[:, :, t][..., (number // side // power) % states,
                                        (number % side // power) % states]
    return table


# The complete pass's byte tables (64 KB per extra-dims value at up to 64 labels and 8
# annotators) are built for at most this many bytes at a time: extra-dims values beyond go
# in further passes.
TABLE_BYTES = 1 << 24


def _influence_squares(array, plan, runs, bits=None):
    """The sums over items of the squared influence terms of the planned pairs (G, pairs)
    over numpy ``array``, in ``runs`` item runs added in order; on complete decisions from
    their ``bits`` (:func:`_bit_words`, packed here when None)."""
    array = kernel_input(array)
    G, N = array.shape[:2]
    first, second = plan["first"], plan["second"]
    if "coefficients" not in plan:
        def lookup_pass(i0, i1, out):
            _kernels.pooled_influence(array, plan["missing"], plan["group"], first, second,
                                      plan["table"], i0, i1, out)

        return _added(_in_threads(lambda i0, i1: _run(lookup_pass, G, first.size, i0, i1),
                                  N, runs))
    n, L = array.shape[2:]
    W, C = -(-L // 64), -(-n // 8)
    if bits is None:
        array = _bytes(array)
        bits = np.empty((G, N, n, W), np.uint64)
        masks = _kernels.bit_masks(L, W)
        _in_threads(lambda i0, i1: _kernels.pack_bits(array, masks, i0, i1, bits), N, runs)
    # one word of bits and one chunk of sums: the kernel with those as constants
    complete = _kernels.complete_influence_short if W == C == 1 else _kernels.complete_influence
    step = max(1, TABLE_BYTES // (C * W * 8 * 1024 * 8))
    squares = np.zeros((G, first.size))
    for g0 in range(0, G, step):
        g1 = min(G, g0 + step)
        part, coefficients = bits[g0:g1], plan["coefficients"][g0:g1]
        tables = _kernels.byte_tables(plan["ones"][g0:g1], W, C)

        def kernel(i0, i1, out, part=part, coefficients=coefficients, tables=tables):
            complete(part, L, first, second, coefficients, tables, i0, i1, out)

        squares[g0:g1] = _added(_in_threads(
            lambda i0, i1, kernel=kernel, size=g1 - g0: _run(kernel, size, first.size, i0, i1),
            N, runs))[0]
    return (squares,)


def _run(kernel, G, pairs, i0, i1):
    """One item run of :func:`_influence_squares`: ``kernel`` into zeros (G, pairs)."""
    out = np.zeros((G, pairs))
    kernel(i0, i1, out)
    return (out,)


def _pair_squares(squares, plan, shape):
    """:func:`_influence_squares`' sums as (*shape, n, n)."""
    first, second = plan["first"], plan["second"]
    n = shape[-1]
    full = np.empty((squares.shape[0], n, n))
    full[:, first, second] = squares
    if first.size < n * n:  # a <= b: the mirror's term is the pair's
        full[:, second, first] = squares
    return full.reshape(shape)


def _counted_values(array, lead_shape, w, multi_label, confidence, population_size,
                    refuse=None):
    """The values of :func:`_pair_values` from the kernels' passes over numpy ``array``
    (``refuse``: see :func:`_count`)."""
    N, n = array.shape[1:3]
    runs = _runs(N)
    bits = _bit_words(array) if multi_label else None
    sums = _sums(_count(array, w.shape[0], runs, refuse, bits), multi_label, n, lead_shape, w)
    squares = None
    if multi_label:
        plan = _influence_plan(sums, w, N)
        squares = _pair_squares(_influence_squares(array, plan, runs, bits)[0], plan,
                                (*lead_shape[:-1], n, n))
    return _pair_values(sums, squares, w, multi_label, confidence, population_size)


def _dask_values(array, lead_shape, w, multi_label, confidence, population_size):
    """:func:`_counted_values` on dask ``array`` (chunked along items), lazily: a counting
    task per item block, their counts tree-summed; on multi-label input the influence pass
    a second task per block, with the lookups from the sums; the values from the sums."""
    import dask
    import dask.array
    from dask import delayed

    N, n = array.shape[1:3]
    q = w.shape[0]
    token = dask.base.tokenize(array, w, multi_label, confidence, population_size)
    blocks = list(array.to_delayed().ravel())
    counts = tree_sum([delayed(_count, pure=True)(block, q, 1) for block in blocks],
                      f"cohen-count-sum-{token}")
    sums = delayed(_sums, pure=True)(counts, multi_label, n, lead_shape, w)
    squares = None
    if multi_label:
        plan = delayed(_influence_plan, pure=True)(sums, w, N)
        squares = tree_sum([delayed(_influence_squares, pure=True)(block, plan, 1)
                            for block in blocks], f"cohen-influence-sum-{token}")
        squares = delayed(_pair_squares, pure=True)(squares[0], plan, (*lead_shape[:-1], n, n))
    values = delayed(_pair_values, pure=True)(sums, squares, w, multi_label, confidence,
                                              population_size)
    # shapes and dtypes: the same steps on no items
    none = np.zeros((array.shape[0], 0, *array.shape[2:]), array.dtype)
    meta_sums = _sums(_count(none, q, 1), multi_label, n, lead_shape, w)
    meta_squares = np.zeros((*lead_shape[:-1], n, n)) if multi_label else None
    meta = _pair_values(meta_sums, meta_squares, w, multi_label, confidence, population_size)
    return {name: dask.array.from_delayed(values[name], value.shape, dtype=value.dtype)
            for name, value in meta.items()}


def _given_sums(data, sums):
    """Weighted sums over items (DataArrays from the bootstrap, with a resample dim on
    item-resampled data) as arrays (*prefix, *lead, annotator_1, annotator_2, ...)."""
    prefix, lead = _layout(sums["table"].dims, (*_PAIR, _ROW, _COL), data)
    arrays = {}
    for name, column in sums.items():
        column_lead = lead[:-1] if name == "common" else lead
        arrays[name] = column.transpose(*prefix, *column_lead, *_PAIR, *_SUM_DIMS[name]).data
    return prefix, lead, arrays


def _cohen_point(data, sums) -> dict:
    """:func:`cohen`'s values from column sums (bootstrap replicates; no confidence level)."""
    return {name: xr.DataArray(value, dims=dims)
            for name, (dims, value) in _cohen_values(data, 0.95, None, sums)[0].items()}


# the variables of cohen in their order, each with the dims it has ("pair": the pair lead
# and the pairs, "category": with the categories or labels, "corpus": the pair lead) and its
# public name on single- and on multi-label input
_ORDER = tuple(
    (name, dims, name.replace("category_", "pair_category_", 1) if dims == "category" else name,
     name.replace("category_", "pair_label_", 1) if dims == "category" else name)
    for name, dims in (
        ("pair_coefficient", "pair"), ("pair_observed", "pair"), ("pair_expected", "pair"),
        ("pair_coefficient_se", "pair"), ("pair_coefficient_lower", "pair"),
        ("pair_coefficient_upper", "pair"), ("pair_n_pairable_items", "pair"),
        ("pair_pabak", "pair"), ("pair_bias_adjusted_kappa", "pair"),
        ("category_coefficient", "category"), ("category_coefficient_se", "category"),
        ("category_prevalence_index", "category"), ("category_bias_index", "category"),
        ("pair_undefined_reason", "pair"), ("coefficient", "corpus"), ("n_pairs", "corpus"),
        ("undefined_reason", "corpus")))


def _cohen_values(data, confidence, population_size=None, sums=None):
    """Every value of :func:`cohen` from :func:`_prepare`'s output, as ``(dims, array)`` by
    name, and the category dim.

    Without ``sums``, from the kernels' counting passes over the ratings. Given ``sums``
    (weighted sums over items of :func:`_cohen_columns`, dims resample, ...) the values on
    item-resampled data (a pair's contingency table is a sum over items), except the pooled
    multi-label standard error, then NaN (its per-item terms are not formed).
    ``population_size`` scales the variances by ``1 - n / population_size``.
    """
    w = data["weights"]
    multi_label = data["multi_label"]
    if sums is None:
        prefix = ()
        lead, lead_shape, array = _kernel_input(data)
        if _is_dask(array):  # (blocks checked as they are computed)
            values = _dask_values(array, lead_shape, w, multi_label, confidence,
                                  population_size)
        else:
            values = _counted_values(array, lead_shape, w, multi_label, confidence,
                                     population_size, data.get("refuse"))
    else:
        prefix, lead, arrays = _given_sums(data, sums)
        values = _pair_values(arrays, None, w, multi_label, confidence, population_size)
    pair_lead = (*prefix, *(lead[:-1] if multi_label else lead))
    dims = {"pair": (*pair_lead, *_PAIR), "corpus": pair_lead}
    if multi_label:
        dims["category"] = (*prefix, *lead, *_PAIR)
        category_dim = data["label"]
    else:
        dims["category"] = (*prefix, *lead, *_PAIR, "category")
        category_dim = "category"
    public = 3 if multi_label else 2
    return ({entry[public]: (dims[entry[1]], values[entry[0]]) for entry in _ORDER},
            category_dim)


# the reasons of undefined values by the codes of .pair_values
_PAIR_REASONS = np.array(["", REASONS["no_common"], REASONS["gap"]])
_CORPUS_REASONS = np.array(["", REASONS["no_defined_pair"]])
assert (_values.DEFINED, _values.NO_COMMON, _values.UNIT_EXPECTED,
        _values.NO_DEFINED_PAIR) == (0, 1, 2, 1)


def _pair_values(sums, squares, w, multi_label, confidence, population_size):
    """The values of :func:`_cohen_values` as arrays (see there), named ``pair_*``,
    ``category_*`` (per category, or per label on multi-label input) and corpus-level, from
    the sums over items of :func:`_cohen_columns` (of them the tables and, on multi-label
    input, ``common``) in one kernel call (:mod:`.pair_values`; every path comes here);
    ``squares``: the sums over items of the pooled multi-label coefficient's squared
    influence terms (see :func:`_influence_lookup`), or None (its standard error NaN)."""
    table = sums["table"]
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    population = np.nan if population_size is None else float(population_size)
    w = np.ascontiguousarray(w, np.float64)
    if multi_label:
        L, n = table.shape[-5:-3]
        lead = table.shape[:-5]
        category_shape = (*lead, L, n, n)
    else:
        n, q = table.shape[-3], table.shape[-1]
        lead = table.shape[:-4]
        category_shape = (*lead, n, n, q)
    G = math.prod(lead)
    pair_out = np.empty((len(_values.PAIR_ROWS), *lead, n, n))
    category_out = np.empty((len(_values.CATEGORY_ROWS), *category_shape))
    pair_reasons = np.empty((*lead, n, n), np.int64)
    corpus_out = np.empty(lead)
    corpus_counts = np.empty((2, *lead), np.int64)
    flat_table = np.ascontiguousarray(table, np.float64).reshape(G, *table.shape[len(lead):])
    outputs = (pair_out.reshape(-1, G, n, n),
               category_out.reshape(len(category_out), G, *category_shape[len(lead):]),
               pair_reasons.reshape(G, n, n), corpus_out.reshape(G),
               corpus_counts.reshape(2, G))
    if multi_label:
        common = sums["common"]
        # no squares: NaN squares give the NaN standard error
        squares = np.full(common.shape, np.nan) if squares is None else squares
        _values.multi_label_values(
            flat_table, np.ascontiguousarray(common, np.float64).reshape(G, n, n),
            np.ascontiguousarray(squares, np.float64).reshape(G, n, n), w, z, population,
            _ZERO_GAP, *outputs)
    else:
        _values.single_label_values(flat_table, w, z, population, _ZERO_GAP, *outputs)
    # rows by index: iterating over an array builds its rows slower
    values = {name: pair_out[i] for i, name in enumerate(_values.PAIR_ROWS)}
    values.update({name: category_out[i] for i, name in enumerate(_values.CATEGORY_ROWS)})
    if multi_label:  # the items as counted (an int64 count, or a weighted sum)
        values["pair_n_pairable_items"] = sums["common"]
    values["pair_undefined_reason"] = _PAIR_REASONS[pair_reasons]
    values["coefficient"] = corpus_out
    values["n_pairs"] = corpus_counts[0]
    # an array also when 0-d (indexing with a 0-d index gives a str of its own width)
    values["undefined_reason"] = _CORPUS_REASONS[corpus_counts[1, ..., None]][..., 0]
    return values


# --------------------------------------------------------------------------- Cohen


def _pooled_terms(sums, w):
    """Per (label, pair) and per pair terms of the pooled kappa from the sums over items of
    :func:`_cohen_columns` (their tables and ``common``), by the kernel of the values
    (:func:`.pair_values.pooled_terms`): the labels' items ``known`` (NaN where 0, the
    label then not ``used``), row and column proportions ``marginal_1``, ``marginal_2``
    (..., 2), ``observed_j``, ``expected_j``; the pair's pooled ``observed``, ``expected``,
    ``gap`` (1 - P_e, NaN where 0) and ``coefficient``; ``n`` the common items."""
    table = sums["table"]
    L, n = table.shape[-5:-3]
    lead = table.shape[:-5]
    G = math.prod(lead)
    label_out = np.empty((len(_values.LABEL_TERM_ROWS), *lead, L, n, n))
    pooled_out = np.empty((len(_values.POOLED_TERM_ROWS), *lead, n, n))
    _values.pooled_terms(np.ascontiguousarray(table, np.float64).reshape(G, L, n, n, 2, 2),
                         np.ascontiguousarray(w, np.float64), _ZERO_GAP,
                         label_out.reshape(-1, G, L, n, n), pooled_out.reshape(-1, G, n, n))
    known = label_out[0]
    terms = {"used": known > 0, "known": known,
             "marginal_1": np.stack([label_out[1], label_out[2]], axis=-1),
             "marginal_2": np.stack([label_out[3], label_out[4]], axis=-1),
             "observed_j": label_out[5], "expected_j": label_out[6]}
    terms.update(zip(_values.POOLED_TERM_ROWS, pooled_out))
    terms["n"] = sums["common"]
    return terms


def _influence_lookup(sums, w):
    """c[..., label, a1, a2, r, s]: the share of a label in the influence term of an item on
    which a1 decided r and a2 decided s (0 on the labels the pair shares no item on).

    The pooled coefficient's delta method: the term of item i is
    ``(o_i - (1 - kappa) e_i) / (1 - P_e)`` with o_i (e_i) the mean over the used labels of
    ``n / n_j (x - P_o,j b_ij)`` (of ``n / n_j (y - 2 P_e,j b_ij)``), where b_ij = 1 if both
    decided label j on the item, x = w_rs the item's agreement, and y = sum_l w_rl p2_l +
    sum_k w_ks p1_k the derivative of P_e,j. Every part is 0 unless both decided, so the
    term is a sum over labels of these shares, and its square summed over items is the
    variance times n^2.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = _pooled_terms(sums, w)
        used = terms["used"]
        w_marg2 = np.nan_to_num(np.einsum("kl,...l->...k", w, terms["marginal_2"]), nan=0.0)
        w_marg1 = np.nan_to_num(np.einsum("kl,...k->...l", w, terms["marginal_1"]), nan=0.0)
        n_used = used.sum(axis=-3)[..., None, :, :]
        scale = terms["n"][..., None, :, :] / terms["known"] / n_used
        pair = (1 - terms["coefficient"])[..., None, :, :, None, None]
        share = (scale[..., None, None]
                 * ((w - terms["observed_j"][..., None, None])
                    - pair * (w_marg2[..., :, None] + w_marg1[..., None, :]
                              - 2 * terms["expected_j"][..., None, None]))
                 / terms["gap"][..., None, :, :, None, None])
    return np.where(used[..., None, None], share, 0.0)

