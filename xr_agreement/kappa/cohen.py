"""Cohen's kappa: pairwise contingency tables, Byrt's indices, pooled multi-label values.

Computed on plain arrays: pair-level arrays have the axes
``(*lead, annotator_1, annotator_2)``, with a leading resample axis on item-resampled data
and, on multi-label input, the label last of the lead axes.

Every pair's table comes from one counting pass over the ratings (:mod:`.pair_kernels`):
single-label codes or multi-label decisions, in item runs on the thread pool (numpy) or one
task per item block (dask); the pooled multi-label standard error from a second pass. The
bootstrap's per-item columns (:func:`_cohen_columns`) still come from the one-hot indicator.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask, divide, kernel_input
from .._core.threads import _in_threads
from . import pair_kernels as _kernels
from .counts import _added, _runs
from .lazy import tree_sum
from .encode import _CAT, _COL, _ROW, _ZERO_GAP, REASONS
from .gwet import _canonical, _layout, _nan_where_not, _pool_mean
from .pair_kernels import shift_pairs

_PAIR = ("annotator_1", "annotator_2")

# the axes of each column's sum over items after (*lead, annotator_1, annotator_2)
_SUM_DIMS = {"table": (_ROW, _COL), "both": (), "marginal_1": (_CAT,), "marginal_2": (_CAT,),
             "agreement": (), "common": ()}


def _per_item(data):
    """(lead dims, weights (q, q), the per-item terms of :func:`cohen` as arrays): the
    indicator (*lead, item, annotator, category) and rated (*lead, item, annotator) as
    float and, on multi-label input, ``both`` and ``agreement`` (*lead, item, annotator_1,
    annotator_2) and ``common`` (the same without the label)."""
    lead, ind, rated = _canonical(data)
    w = data["weights"]
    terms = {"indicator": ind, "rated": rated.astype(np.float64)}
    if data["multi_label"]:
        rated = terms["rated"]
        both = rated[..., :, None] * rated[..., None, :]  # item rated by both on the label
        terms.update(both=both,
                     agreement=np.einsum("...iak,kl,...ibl->...iab", ind, w, ind),
                     common=both.max(axis=len(lead) - 1) > 0)
    return lead, w, terms


def _cohen_columns(data) -> dict:
    """The per-item terms whose sums over items :func:`cohen` uses, as DataArrays for the
    bootstrap's per-item tables (a tuple: factors whose product is the term): the pairs'
    contingency tables and, on multi-label input, the pooled coefficient's terms (see
    :func:`_cohen_pooled`)."""
    item = data["item"]
    lead, _, terms = _per_item(data)
    ind, rated = terms["indicator"], terms["rated"]

    def labeled(array, *dims, lead=lead):
        return xr.DataArray(array, dims=(*lead, item, *dims))

    # contingency table of every pair: T[a1, a2, row, col] = items rated row by a1, col by a2
    columns = {"table": (labeled(ind, "annotator_1", _ROW), labeled(ind, "annotator_2", _COL))}
    if data["multi_label"]:
        columns.update({
            "both": labeled(terms["both"], *_PAIR),
            "marginal_1": (labeled(ind, "annotator_1", _CAT), labeled(rated, "annotator_2")),
            "marginal_2": (labeled(rated, "annotator_1"), labeled(ind, "annotator_2", _CAT)),
            "agreement": labeled(terms["agreement"], *_PAIR),
            "common": labeled(terms["common"], *_PAIR, lead=lead[:-1]),
        })
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


def _count(array, q, runs):
    """The counting pass over numpy ``array`` in ``runs`` item runs on the thread pool, their
    counts added in order: single-label ``(cells,)`` (see :func:`code_pair_tables`);
    integer decisions ``(products, items)`` (:func:`label_pair_complete`, the number of
    items); float decisions ``(counts, common)`` (:func:`label_pair_missing`)."""
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

        def run(i0, i1):
            products = np.zeros((G, P, L), np.int64)
            _kernels.label_pair_complete(array, i0, i1, products)
            return products, np.int64(i1 - i0)
    return _added(_in_threads(run, N, runs))


def _bytes(array):
    """Complete decisions as the byte kernels read them: C-contiguous uint8 (copied only
    from another dtype or layout)."""
    return np.ascontiguousarray(array, dtype=np.uint8)


def _sums(counts, multi_label, n, lead_shape, w):
    """The sums over items of :func:`_cohen_columns` (float arrays, see :func:`_given_sums`)
    from :func:`_count`'s counts."""
    first, second = shift_pairs(n)
    diagonal = np.arange(n)
    if not multi_label:
        (cells,) = counts
        q = w.shape[0]
        # (G, a, r, b, c) with b >= a -> (G, a, b, r, c), the mirror's cells added
        table = cells.reshape(-1, n, q, n, q).transpose(0, 1, 3, 2, 4).astype(np.float64)
        mirror = table.transpose(0, 2, 1, 4, 3).copy()
        mirror[:, diagonal, diagonal] = 0
        return {"table": (table + mirror).reshape(*lead_shape, n, n, q, q)}

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
        "both": table.sum(axis=(-2, -1)),
        "marginal_1": table.sum(axis=-1),
        "marginal_2": table.sum(axis=-2),
        "agreement": np.einsum("...kl,kl->...", table, w),
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

    The pooled terms of :func:`_pooled_terms` on the planned pairs only, with every label
    used and ``n_items`` items on each (some 40 small numpy steps there, 0.6 ms at (5
    annotators, 50 labels), this a tenth of it: the 2x2 cells as separate arrays, as
    reductions over axes of two cost more than the additions)."""
    L, n = sums["table"].shape[-5:-3]
    table = sums["table"].reshape(-1, L, n, n, 4)[:, :, first, second] / n_items
    p00, p01, p10, p11 = (table[..., k] for k in range(4))  # (G, L, pairs)
    row0, row1, col0, col1 = p00 + p01, p10 + p11, p00 + p10, p01 + p11  # m1_j, m2_j
    observed = w[0, 0] * p00 + w[0, 1] * p01 + w[1, 0] * p10 + w[1, 1] * p11  # P_o,j
    w_col0, w_col1 = w[0, 0] * col0 + w[0, 1] * col1, w[1, 0] * col0 + w[1, 1] * col1
    expected = row0 * w_col0 + row1 * w_col1  # P_e,j
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled_expected = expected.sum(axis=1) / L
        gap = 1 - pooled_expected
        gap = np.where(np.abs(gap) > _ZERO_GAP, gap, np.nan)
        kappa = (observed.sum(axis=1) / L - pooled_expected) / gap
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


def _influence_squares(array, plan, runs):
    """The sums over items of the squared influence terms of the planned pairs (G, pairs)
    over numpy ``array``, in ``runs`` item runs added in order."""
    array = kernel_input(array)
    G, N = array.shape[:2]
    first, second = plan["first"], plan["second"]
    if "coefficients" in plan:
        array = _bytes(array)
        if array.shape[3] < 8:  # zero labels up to 8 (they add nothing to any sum)
            padded = np.zeros((*array.shape[:3], 8), np.uint8)
            padded[..., :array.shape[3]] = array
            array = padded

        def kernel(i0, i1, out):
            _kernels.complete_influence(array, first, second, plan["coefficients"],
                                        plan["ones"], i0, i1, out)
    else:
        def kernel(i0, i1, out):
            _kernels.pooled_influence(array, plan["missing"], plan["group"], first, second,
                                      plan["table"], i0, i1, out)

    def run(i0, i1):
        out = np.zeros((G, first.size))
        kernel(i0, i1, out)
        return (out,)

    return _added(_in_threads(run, N, runs))


def _pair_squares(squares, plan, shape):
    """:func:`_influence_squares`' sums as (*shape, n, n)."""
    first, second = plan["first"], plan["second"]
    n = shape[-1]
    full = np.empty((squares.shape[0], n, n))
    full[:, first, second] = squares
    if first.size < n * n:  # a <= b: the mirror's term is the pair's
        full[:, second, first] = squares
    return full.reshape(shape)


def _counted_values(array, lead_shape, w, multi_label, confidence, population_size):
    """The values of :func:`_pair_values` from the kernels' passes over numpy ``array``."""
    N, n = array.shape[1:3]
    runs = _runs(N)
    sums = _sums(_count(array, w.shape[0], runs), multi_label, n, lead_shape, w)
    squares = None
    if multi_label:
        plan = _influence_plan(sums, w, N)
        squares = _pair_squares(_influence_squares(array, plan, runs)[0], plan,
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
    return _cohen_values(data, 0.95, None, sums)[0]


def _cohen_values(data, confidence, population_size=None, sums=None):
    """Every value of :func:`cohen` from :func:`_prepare`'s output, as DataArrays, and the
    category dim.

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
        compute = _dask_values if _is_dask(array) else _counted_values
        values = compute(array, lead_shape, w, multi_label, confidence, population_size)
    else:
        prefix, lead, arrays = _given_sums(data, sums)
        values = _pair_values(arrays, None, w, multi_label, confidence, population_size)
    pair_lead = (*prefix, *(lead[:-1] if multi_label else lead))
    if multi_label:
        category_dims = (*prefix, *lead, *_PAIR)
        category_dim = data["label"]
    else:
        category_dims = (*prefix, *lead, *_PAIR, "category")
        category_dim = "category"
    level = "pair_label" if multi_label else "pair_category"  # the names' prefixes
    out = {}
    for name, value in values.items():
        if name.startswith("category_"):
            out[level + name[len("category"):]] = _labeled(value, category_dims)
        elif name.startswith("pair_"):
            out[name] = _labeled(value, (*pair_lead, *_PAIR))
        else:
            out[name] = _labeled(value, pair_lead)
    order = ["pair_coefficient", "pair_observed", "pair_expected", "pair_coefficient_se",
             "pair_coefficient_lower", "pair_coefficient_upper", "pair_n_pairable_items",
             "pair_pabak", "pair_bias_adjusted_kappa", f"{level}_coefficient",
             f"{level}_coefficient_se", f"{level}_prevalence_index", f"{level}_bias_index",
             "pair_undefined_reason", "coefficient", "n_pairs", "undefined_reason"]
    return {name: out[name] for name in order}, category_dim


def _labeled(value, dims):
    """``value`` as a DataArray with ``dims`` and no coordinates, built directly: the general
    constructor checks what is given here by construction, at some 20 us a variable."""
    value = value if _is_dask(value) else np.asarray(value)
    return xr.DataArray(xr.Variable(dims, value, fastpath=True), coords={}, indexes={},
                        fastpath=True)


def _pair_values(sums, squares, w, multi_label, confidence, population_size):
    """The values of :func:`_cohen_values` as arrays (see there), named ``pair_*``,
    ``category_*`` (per category, or per label on multi-label input) and corpus-level;
    ``squares``: the sums over items of the pooled multi-label coefficient's squared
    influence terms (see :func:`_cohen_pooled`), or None."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _pair_arrays(sums, squares, w, multi_label, confidence, population_size)


def _pair_arrays(sums, squares, w, multi_label, confidence, population_size):
    table = sums["table"]
    q = w.shape[0]
    bp_expected = float(w.sum()) / q**2
    if multi_label:
        overall = _cohen_pooled(sums, w, squares, population_size)
        per_label = _cohen_table(table, w, population_size)
        pi = (per_label["row"] + per_label["col"]) / 2
        scott_expected = _pool_mean(np.einsum("rc,...r,...c->...", w, pi, pi),
                                    overall["used"], -3)
        # per label: the 2x2 table itself, category "1" in the first row/column
        binary = table[..., ::-1, ::-1]
        per_cat = per_label  # each label's own 2x2 problem, with the given weights
    else:
        overall = _cohen_table(table, w, population_size)
        pi = (overall["row"] + overall["col"]) / 2
        scott_expected = ((pi @ w) * pi).sum(axis=-1)
        binary = _vs_rest_tables(table)
        # category-vs-rest: a binary split has no order, so identity weights
        per_cat = _cohen_table(binary, np.eye(2), population_size)
    coefficient, observed, expected, se = (
        overall[k] for k in ("coefficient", "observed", "expected", "se")
    )
    n_common = overall["n"]
    n_cat = _nan_where_not(per_cat["n"], per_cat["n"] > 0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    n_annotators = table.shape[-3]
    distinct = np.triu(np.ones((n_annotators, n_annotators), bool), 1)
    defined = ~np.isnan(coefficient) & distinct
    n_pairs = defined.sum(axis=(-2, -1))
    return {
        "pair_coefficient": coefficient,
        "pair_observed": observed,
        "pair_expected": expected,
        "pair_coefficient_se": se,
        "pair_coefficient_lower": coefficient - z * se,
        "pair_coefficient_upper": np.minimum(coefficient + z * se, 1.0),
        "pair_n_pairable_items": n_common,
        "pair_pabak": divide(observed - bp_expected, np.full_like(observed, 1 - bp_expected),
                             tolerance=_ZERO_GAP),
        "pair_bias_adjusted_kappa": divide(observed - scott_expected, 1 - scott_expected,
                                           tolerance=_ZERO_GAP),
        "category_coefficient": per_cat["coefficient"],
        "category_coefficient_se": per_cat["se"],
        "category_prevalence_index": (binary[..., 0, 0] - binary[..., 1, 1]) / n_cat,
        "category_bias_index": (binary[..., 0, 1] - binary[..., 1, 0]) / n_cat,
        "pair_undefined_reason": np.where(n_common == 0, REASONS["no_common"],
                                          np.where(np.isnan(coefficient), REASONS["gap"], "")),
        "coefficient": np.nansum(np.where(defined, coefficient, np.nan), axis=(-2, -1))
        / _nan_where_not(n_pairs, n_pairs > 0),
        "n_pairs": n_pairs,
        "undefined_reason": np.where(n_pairs == 0, REASONS["no_defined_pair"], ""),
    }


# --------------------------------------------------------------------------- Cohen


def _cohen_table(table, w, population_size=None):
    """Cohen's kappa and the Fleiss-Cohen-Everitt ASE of contingency tables (..., row, col)
    with agreement weights ``w`` (row, col); the variance times ``1 - n / population_size``
    when given (Gwet's finite-population correction)."""
    n = table.sum(axis=(-2, -1))
    p = table / _nan_where_not(n, n > 0)[..., None, None]
    # plain sums: a pair without common items must stay NaN, not 0
    row = p.sum(axis=-1)
    col = p.sum(axis=-2)
    observed = (w * p).sum(axis=(-2, -1))
    # matrix products, not einsum: a tenth of the per-call cost on small tables
    w_row = col @ w.T  # wbar_k. = sum_l w_kl p_+l
    w_col = row @ w  # wbar_.l = sum_k w_kl p_k+
    expected = (row * w_row).sum(axis=-1)
    gap = _nan_where_not(1 - expected, np.abs(1 - expected) > _ZERO_GAP)
    kappa = (observed - expected) / gap
    spread = (p * (w - (w_row[..., :, None] + w_col[..., None, :])
                   * (1 - kappa)[..., None, None]) ** 2).sum(axis=(-2, -1))
    variance = _finite(
        (spread - (kappa - expected * (1 - kappa)) ** 2) / (gap**2 * n), n, population_size)
    # clip: rounding can leave a tiny negative variance when it is 0
    return {
        "coefficient": kappa,
        "observed": observed,
        "expected": expected,
        "se": np.sqrt(np.clip(variance, 0, None)),
        "n": n,
        "row": row,
        "col": col,
    }


def _vs_rest_tables(table):
    """Category-vs-rest 2x2 tables (..., category, row, col) from q x q tables (..., row,
    col)."""
    both = np.diagonal(table, axis1=-2, axis2=-1)
    first = table.sum(axis=-1)
    second = table.sum(axis=-2)
    n = table.sum(axis=(-2, -1))[..., None]
    return np.stack([np.stack([both, first - both], axis=-1),
                     np.stack([second - both, n - first - second + both], axis=-1)], axis=-2)


def _pooled_terms(sums, w):
    """Per (label, pair) and per pair terms of the pooled kappa from the sums over items of
    :func:`_cohen_columns` (see :func:`_cohen_pooled`)."""
    n_j = sums["both"]
    used = n_j > 0
    known = _nan_where_not(n_j, used)
    marg1 = sums["marginal_1"] / known[..., None]
    marg2 = sums["marginal_2"] / known[..., None]
    observed_j = sums["agreement"] / known
    expected_j = np.einsum("kl,...k,...l->...", w, marg1, marg2)
    observed = _pool_mean(observed_j, used, -3)
    expected = _pool_mean(expected_j, used, -3)
    gap = _nan_where_not(1 - expected, np.abs(1 - expected) > _ZERO_GAP)
    return {"used": used, "known": known, "marginal_1": marg1, "marginal_2": marg2,
            "observed_j": observed_j, "expected_j": expected_j, "observed": observed,
            "expected": expected, "gap": gap, "coefficient": (observed - expected) / gap,
            "n": sums["common"]}


def _cohen_pooled(sums, w, squares=None, population_size=None):
    """Cohen's kappa pooled over labels (the axis before the pair axes),
    ``(mean P_o,j - mean P_e,j) / (1 - mean P_e,j)`` over the labels the pair shares an item
    on, from the sums over items of :func:`_cohen_columns`, and, given ``squares`` (the sums
    over items of the squared influence terms, see :func:`_influence_lookup`), its
    delta-method standard error (for a single label: the Fleiss-Cohen-Everitt ASE; else NaN,
    and NaN where the coefficient is)."""
    terms = _pooled_terms(sums, w)
    kappa, n = terms["coefficient"], terms["n"]
    values = {name: terms[name] for name in ("coefficient", "observed", "expected", "n", "used")}
    if squares is None:
        values["se"] = np.full_like(kappa, np.nan)
        return values
    variance = _finite(squares / _nan_where_not(n, n > 0) ** 2, n, population_size)
    values["se"] = np.where(np.isnan(kappa), np.nan, np.sqrt(variance))
    return values


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


def _finite(variance, n, population_size):
    """``variance`` times Gwet's finite-population factor ``1 - n / population_size``."""
    return variance if population_size is None else variance * (1 - n / population_size)
