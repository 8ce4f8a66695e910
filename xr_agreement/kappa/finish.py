"""The Gwet family's values from the counting passes (:mod:`.counts`): small tables to
coefficients, standard errors and limits.

- Single-label ratings: counted per composition (each item's counts r_i1..r_iq, one id),
  every sum over items, the standard error's squares included, a sum over the compositions
  seen; in larger designs, the counts per number of ratings ``m`` (sums of r_ik and
  r_ik r_il: exact integers) and a second pass over the ratings for the standard error. The
  category-vs-rest problems from the same compositions, or a histogram of their states.
- Multi-label decisions: every label is a binary problem whose values, standard error
  included, follow from the histogram of its states (items by ``m`` raters and ``x`` 1s):
  the standard error's sum of squared per-item terms is a sum over states, exact, with no
  second pass. The pooled coefficient's per-item term sums the labels' terms of the item, so
  its standard error takes a second pass over the states.
- Conger's per-item chance term depends on who rated what, so his standard errors take a
  pass over the ratings (:func:`.kernels.single_label_spread`,
  :func:`.kernels.conger_binary_spread`).

The work runs in four steps: ``count`` (the first pass, additive over items), ``plan``
(the point values and the constants of the standard error's pass, from the counts),
``spread`` (the second pass, additive over items) and ``final``. On numpy input they run
in a row (:func:`.values.counted_values`); on dask input the passes run block by block
(:mod:`.lazy`). Arrays have a leading group axis (G: the extra dims flattened) and, for
binary problems, a problem axis (the labels, or the categories against the rest).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._core.arrays import _is_dask
from . import counts as _counts
from . import formulas as _formulas
from .gwet import (_BINARY_IDENTITY, _count_columns, _flat, _gwet_error, _gwet_point, _reasons,
                   _nan_where_not, _problem_terms)

# chance agreement varies with the sample (and enters the per-item terms) for these
_VARYING = ("fleiss", "gwet", "conger")


# Up to this many annotators the states and compositions are laid out for every m = 0..n;
# above, for the numbers of ratings items have (crowd designs: thousands of annotators, a
# few on each item; a gold item rated by all adds its m, not every m up to it), found by a
# pass over the ratings (on dask a first reduction in the graph, which every block's count
# then takes: its tables must all have one shape).
FEW_ANNOTATORS = 32


def settings(data, method, confidence, population_size, with_error) -> dict:
    """What every step needs besides the arrays (small, picklable): the layout of the
    states (``with_seen``; None on dask until the graph has found which m occur)."""
    multi_label = data["multi_label"]
    array = data["decisions"] if multi_label else data["codes"]
    n = array.shape[2]
    setting = {"method": method, "confidence": confidence,
               "population_size": population_size, "with_error": with_error,
               "multi_label": multi_label, "n_annotators": n, "weights": data["weights"],
               "n_items": array.shape[1], "seen": None}
    complete = multi_label and array.dtype.kind in "bui"  # m = n on every item
    if complete:
        return with_seen(setting, np.arange(n + 1) == n)
    if n <= FEW_ANNOTATORS:
        return with_seen(setting, np.ones(n + 1, bool))
    if _is_dask(array):
        return setting  # found in the graph (lazy.lazy_values)
    return with_seen(setting, _counts.ratings_seen(array, multi_label))


def with_seen(setting, seen) -> dict:
    """``setting`` with the layout of the states for the numbers of ratings ``seen`` (bool,
    m = 0..n): ``side`` (one more than the most ratings of an item: the base of the
    compositions), ``offsets`` and ``n_states`` (:func:`.counts.state_offsets`)."""
    seen = np.asarray(seen, bool)
    side, offsets, n_states = _state_layout(seen.tobytes())
    return dict(setting, seen=seen, side=side, offsets=offsets, n_states=n_states)


@functools.lru_cache(maxsize=128)
def _state_layout(seen: bytes) -> tuple:
    """(side, offsets, n_states) of :func:`with_seen` for the bytes of ``seen``: made once
    per layout (some 10 us of a small call). The kernels only read ``offsets``."""
    seen = np.frombuffer(seen, bool)
    side = int(np.flatnonzero(seen)[-1]) + 1 if seen.any() else 1
    offsets, n_states = _counts.state_offsets(seen[:side])
    return side, offsets, n_states


def shaped(values, data):
    """``final``'s values with the extra dims unflattened, and their dims."""
    extra, extra_shape = data["extra"], data["extra_shape"]
    overall, category = values
    category_dims = (*extra, data["label"] if data["multi_label"] else "category")
    out = {  # arrays' own reshape (numpy's function costs a small call some 10 us)
        "overall": {k: v.reshape(extra_shape) for k, v in overall.items()},
        "category": {k: v.reshape((*extra_shape, v.shape[-1])) for k, v in category.items()},
    }
    return out, {"overall": extra, "category": category_dims}


# --------------------------------------------------------------------------- the steps


def count(array, setting, with_state=False):
    """The first pass over one block of items (additive tables); ``with_state``: and the
    multi-label states (G, N, L) for the standard error's pass (else it counts them again:
    on dask, one block at a time)."""
    conger = setting["method"] == "conger"
    side, offsets, n_states = setting["side"], setting["offsets"], setting["n_states"]
    if setting["multi_label"]:
        tables, state = _counts.binary_tables(array, offsets, n_states, conger)
        return (tables, state) if with_state else tables
    if with_state:
        return count(array, setting), None
    q = setting["weights"].shape[0]
    n, n_ratings = setting["n_annotators"], setting["n_items"] * setting["n_annotators"]
    if _counts.by_patterns(side, q, n_ratings):
        if conger and _counts.by_rating_vectors(q, n, setting["n_items"]):
            # his standard error too from the tables: a sum over the rating vectors seen
            vectors = _counts.rating_vectors(array, q)
            patterns, annotators = _counts.from_rating_vectors(vectors, q, n, side)
            return {"patterns": patterns, "annotators": annotators, "vectors": vectors}
        patterns, annotators = _counts.pattern_histogram(array, q, side, conger)
        return {"patterns": patterns, "annotators": annotators}
    return _counts.single_label_tables(array, q, offsets, n_states, conger)


def planned(tables, setting) -> dict:
    """Point values and the standard error's constants from the summed tables (divisions
    by zero give NaN: the caller silences numpy's warnings, see :func:`quiet`)."""
    if setting["multi_label"]:
        return _multi_label_plan(tables, setting)
    return _single_label_plan(tables, setting)


def spread(array, plan, setting, state=None) -> dict:
    """The standard error's pass over one block of items (additive sums); ``state``: the
    block's multi-label states, if kept from the first pass."""
    method = setting["method"]
    out = {}
    if setting["multi_label"]:
        binary = plan["binary"]
        if method == "conger":
            out["category"], out["overall"] = _conger_pass(array, binary)
        else:
            if state is None:
                state = _counts.binary_tables(array, setting["offsets"], setting["n_states"],
                                              False)[1]
            out["overall"] = _counts.pooled_spread(state, binary["pooled_table"],
                                                   binary["rated_state"],
                                                   binary["pooled_kappa"])
        return out
    if "overall_spread" in plan:  # a sum over the compositions seen (the plan's)
        return out
    G = array.shape[0]
    if method == "conger":  # the category-vs-rest problems' sums in the same pass
        binary_constants, binary_chance = plan["binary"]["conger"][:2]
    else:
        binary_constants, binary_chance = np.zeros((G, 0, 6)), np.zeros((G, 0, 0, 2))
    out["overall"], category = _counts.single_label_spread(
        array, setting["weights"], *plan["spread"], binary_constants, binary_chance)
    if method == "conger":
        out["category"] = category
    return out


def final(plan, spreads, setting) -> tuple[dict, dict]:
    """(overall values, per-category or per-label values) from the plan and the summed
    spreads (None: no standard error); numpy's warnings silenced by the caller."""
    spreads = spreads or {}
    method, confidence, size = (setting["method"], setting["confidence"],
                                setting["population_size"])
    binary = plan["binary"]
    category_spread = spreads.get("category", binary.get("spread"))
    if category_spread is None or not setting["with_error"]:
        category_spread = np.full(binary["n"].shape, np.nan)
    category = _gwet_error(binary["point"], binary["n"], binary["n_pairable"],
                           category_spread, method, 2, confidence, size, limits=False)
    # each category's or label's own reason (a binary problem: two categories), beside its
    # coefficient: the corpus reason, a coordinate on every variable, is not theirs
    category["undefined_reason"] = _reasons(binary["point"]["observed"],
                                            category["coefficient"], category["coefficient_se"],
                                            False)
    overall_point, n, n2 = plan["overall"]
    overall_spread = spreads.get("overall", plan.get("overall_spread"))
    if overall_spread is None or not setting["with_error"]:
        overall_spread = np.full(n.shape, np.nan)
    overall = _gwet_error(overall_point, n, n2, overall_spread, method, plan["q"],
                          confidence, size)
    return overall, category


def quiet(step):
    """``step`` with numpy's warnings on division by zero silenced (the steps make NaN
    where a value is undefined, and say why in ``undefined_reason``)."""
    def run(*args):
        with np.errstate(divide="ignore", invalid="ignore"):
            return step(*args)

    return run


# --------------------------------------------------------------------------- single-label


def _single_label_plan(tables, setting):
    if "patterns" in tables:
        return _composition_plan(tables, setting)
    method, w = setting["method"], setting["weights"]
    q = w.shape[0]
    by_m = tables["by_m"]
    m = np.arange(setting["side"])
    # sum_i sum_k r_ik (sum_l w_kl r_il - 1) over the items with m ratings, divided by
    # m (m - 1) once per m
    agreeing = np.einsum("kl,gmkl->gm", w, tables["products"]) - m * by_m
    sums = {
        "rated_item": by_m[:, 1:].sum(axis=1),
        "pairable": by_m[:, 2:].sum(axis=1),
        "item_observed": (agreeing[:, 2:] / (m[2:] * (m[2:] - 1))).sum(axis=1),
        "share": (tables["sums"][:, 1:] / m[1:, None]).sum(axis=1),
    }
    # category k against the rest: category 0 of the binary problem is k
    columns = _state_columns(setting["offsets"], x_category=0, w=_BINARY_IDENTITY)
    histogram = tables["histogram"]
    G = sums["rated_item"].shape[0]
    if method == "conger":
        annotators = tables["annotators"].astype(np.float64)  # (G, n, q)
        rated = annotators.sum(axis=-1)
        sums.update(indicator=annotators, rated=rated)
    terms = _problem_terms(sums, w, method, with_chance=True)
    point = _gwet_point(terms, pooled=False)
    n_rated, n_pairable = sums["rated_item"], sums["pairable"]
    plan = {"overall": (point, n_rated, n_pairable), "q": q}
    if method == "conger":
        plan["spread"] = _conger_pass_constants(terms)
        chosen = np.moveaxis(annotators, -1, 1)  # (G, q, n)
        binary_sums = _binary_sums(histogram, columns)
        binary_sums.update(indicator=np.stack([chosen, rated[:, None] - chosen], axis=-1),
                           rated=np.broadcast_to(rated[:, None], chosen.shape))
    else:
        constants = np.stack([point["coefficient"], point["gap"], point["expected"],
                              terms["values"][:, 6], np.full(G, float(method in _VARYING)),
                              np.zeros(G)], axis=-1)
        chance = terms["chance"] if terms["chance"] is not None else np.zeros((G, q))
        plan["spread"] = (np.ascontiguousarray(constants), np.ascontiguousarray(chance),
                          np.zeros((G, 0, q)))
        binary_sums = _binary_sums(histogram, columns)
    plan["binary"] = _binary_plan(binary_sums, columns, histogram, _BINARY_IDENTITY, setting)
    return plan


def _conger_pass_constants(terms):
    """The overall problem's constants of Conger's standard-error pass over single-label
    ratings (:func:`.kernels.single_label_spread`) from its terms (G groups)."""
    values = terms["values"]
    G, q = values.shape[0], terms["q"]
    table, constant, scale = terms["conger"]
    constants = np.zeros((G, 6))
    constants[:, :4] = values[:, [3, 2, 1, 6]]  # kappa, 1 - P_e, P_e, n / n''
    constants[:, 4] = 1
    constants[:, 5] = scale
    chance = np.zeros((G, q))
    chance[:, 0] = constant
    return constants, chance, np.ascontiguousarray(table, np.float64)


def _composition_plan(tables, setting):
    """:func:`_single_label_plan` from the items per composition, in one compiled call
    (:func:`.formulas.composition_values`)."""
    method, w = setting["method"], setting["weights"]
    q = w.shape[0]
    patterns = tables["patterns"]
    G = patterns.shape[0]
    if method == "conger":
        annotators = tables["annotators"].astype(np.float64)  # (G, A, q)
        rated = annotators.sum(axis=-1)
    else:
        annotators, rated = np.zeros((G, 0, q)), np.zeros((G, 0))
    A = annotators.shape[1]
    counts = np.empty((G, 2), np.int64)
    overall, overall_spread = np.empty((G, 7)), np.empty(G)
    category, category_spread = np.empty((G, q, 7)), np.empty((G, q))
    table, category_table = np.empty((G, A, q)), np.empty((G, q, A, 2))
    with_error = bool(setting["with_error"])
    _formulas.composition_values(patterns, setting["side"], w, _formulas.METHODS[method],
                                 with_error, rated, annotators, counts, overall,
                                 overall_spread, table, category, category_spread,
                                 category_table)
    n, n_pairable = counts[:, 0], counts[:, 1]
    plan = {"overall": (_values_point(overall), n, n_pairable), "q": q}
    category_n = np.repeat(n[:, None], q, axis=1)  # the same items for every problem
    category_n_pairable = np.repeat(n_pairable[:, None], q, axis=1)
    binary = {"point": _values_point(category), "n": category_n,
              "n_pairable": category_n_pairable, "w": _BINARY_IDENTITY}
    if method == "conger":
        plan["spread"] = _conger_pass_constants(
            {"values": overall, "q": q, "conger": (table, overall[:, 4], overall[:, 5])})
        binary_terms = {"conger": (category_table, category[..., 4], category[..., 5])}
        binary["conger"] = _conger_constants(binary_terms, binary["point"], None, category_n,
                                             category_n_pairable, None)
        if with_error and "vectors" in tables:
            plan["overall_spread"], binary["spread"] = _vector_spreads(
                tables["vectors"], w, plan["spread"], binary["conger"])
    elif with_error:
        plan["overall_spread"] = overall_spread
        binary["spread"] = category_spread
    plan["binary"] = binary
    return plan


def _vector_spreads(vectors, w, constants, binary_constants):
    """Conger's standard-error sums (overall (G,), category-vs-rest (G, q)) from the items
    per rating vector (:func:`.counts.rating_vectors`): his pass over the distinct vectors,
    each counted as many times as items have it (at 10^5 x 5 x 3, 1,024 vectors instead of
    10^5 items: the pass's 3.8 ms became a few us)."""
    G = vectors.shape[0]
    q = w.shape[0]
    ids = np.flatnonzero(vectors.any(axis=0))
    n = constants[2].shape[1]  # Conger's annotator table (G, n, q)
    codes = np.ascontiguousarray(np.broadcast_to(_counts.vector_codes(ids, q, n),
                                                 (G, ids.size, n)))
    multiplicity = np.ascontiguousarray(vectors[:, ids], np.float64)
    return _counts.single_label_spread(codes, w, *constants, *binary_constants[:2],
                                       multiplicity)


def _values_point(values):
    """The point values of :mod:`.formulas`' rows of 7 (..., 7)."""
    return {"coefficient": values[..., 3], "observed": values[..., 0],
            "expected": values[..., 1], "gap": values[..., 2]}


def _state_spread(histogram, columns, terms, varies):
    """Sum over items of (t_i / (1 - P_e) - kappa)**2 from the items per state (or
    composition) ``histogram`` (..., S) and each state's ``columns``: exact, no pass over
    the ratings (:func:`.formulas.state_spread`)."""
    shape = terms["coefficient"].shape
    S = histogram.shape[-1]
    spread = np.empty(shape)
    _formulas.state_spread(_flat(histogram, shape, S), *_state_arguments(columns, terms),
                           varies, spread.reshape(-1))
    return spread


def _per_state(columns, terms, kappa, scale_observed, scale_expected, varies):
    """The linearized per-item term of each problem at each state (..., S), before the
    division by 1 - P_e and without Conger's chance part (:func:`.formulas.state_term`)."""
    shape = terms["coefficient"].shape
    m, observed, share, chance, _ = _state_arguments(columns, terms)
    out = np.empty((*shape, m.shape[0]))
    _formulas.state_terms(m, observed, share, chance, _flat(terms["expected"], shape),
                          _flat(kappa, shape), _flat(scale_observed, shape),
                          _flat(scale_expected, shape), varies,
                          out.reshape(math.prod(shape), m.shape[0]))
    return out


def _state_arguments(columns, terms):
    """The states' columns and the problems' chance terms as :mod:`.formulas`' state
    kernels take them: ``m`` (S,), observed (K, S), shares (K, S, q), chance (P, q) and the
    problems' values (P, 7)."""
    m = np.ascontiguousarray(columns["m"], np.int64)
    S = m.shape[0]
    share = columns["share"]
    q = share.shape[-1]
    values = terms["values"]
    chance = terms.get("chance")
    chance = (np.zeros((values.shape[0], q)) if chance is None
              else np.ascontiguousarray(chance, np.float64).reshape(values.shape[0], q))
    observed = np.asarray(columns["observed"], np.float64)
    K = 1 if observed.ndim == 1 else observed.shape[0]  # columns per problem of a group
    return (m, np.ascontiguousarray(observed).reshape(K, S),
            np.ascontiguousarray(share, np.float64).reshape(K, S, q), chance, values)


# --------------------------------------------------------------------------- binary problems


def _state_columns(offsets, x_category, w):
    """Per state of a binary problem (``offsets[m] + x``, see :func:`.counts.state_offsets`):
    ``m``, the per-item observed agreement ``observed`` (0 where m < 2) and the two
    categories' shares ``share`` (S, 2) (0 where m = 0; ``x`` counts category
    ``x_category``)."""
    seen = np.flatnonzero(offsets >= 0)
    m = np.repeat(seen, seen + 1)
    x = np.concatenate([np.arange(k + 1) for k in seen]) if seen.size else m
    other = m - x
    r = np.stack([other, x] if x_category == 1 else [x, other], axis=-1)
    _, observed, share = _count_columns(r, w)
    return {"m": m, "observed": observed, "share": share}


def _binary_sums(histogram, columns) -> dict:
    """The sums over items of :func:`.gwet._problem_columns` from the histogram of states
    (G, P, S)."""
    m = columns["m"]
    return {
        "rated_item": histogram[..., m >= 1].sum(axis=-1),
        "pairable": histogram[..., m >= 2].sum(axis=-1),
        "item_observed": (histogram * columns["observed"]).sum(axis=-1),
        "share": np.einsum("...s,...sk->...k", histogram, columns["share"]),
    }


def _binary_plan(sums, columns, histogram, w, setting, pooled=None) -> dict:
    """Each binary problem's point values (G, P) and standard-error sums where the histogram
    gives them; with ``pooled`` (the items rated and pairable on some problem: multi-label
    input) the pooled coefficient's point values and its pass's table of per-state terms."""
    method = setting["method"]
    terms = _problem_terms(sums, w, method, with_chance=True)
    point = _gwet_point(terms, pooled=False)
    n, n2 = sums["rated_item"], sums["pairable"]
    plan = {"point": point, "n": n, "n_pairable": n2, "w": w}
    pooled_point = None
    if pooled is not None:
        pooled_point = _gwet_point(terms, pooled=True)
        plan["pooled_point"] = pooled_point
    if method == "conger":
        plan["conger"] = _conger_constants(terms, point, pooled_point, n, n2, pooled)
        return plan
    if not setting["with_error"]:
        return plan
    varies = method in _VARYING
    plan["spread"] = _state_spread(histogram, columns, terms, varies)
    if pooled is not None:
        weight, scale_observed, scale_expected = _pooled_scales(n, n2, pooled[0])
        # the labels' terms scaled to the pooled n; the chance part with the pooled kappa
        kappa = np.broadcast_to(pooled_point["coefficient"][:, None], n.shape)
        term = _per_state(columns, terms, kappa, scale_observed, scale_expected, varies)
        table = weight[..., None] * term / pooled_point["gap"][:, None, None]
        plan["pooled_table"] = np.ascontiguousarray(np.where(np.isnan(table), 0.0, table))
        plan["rated_state"] = columns["m"] >= 1
        plan["pooled_kappa"] = np.ascontiguousarray(pooled_point["coefficient"], np.float64)
    return plan


def _pooled_scales(n, n2, rated_items):
    """Per label (G, P), the factors of its part in the pooled coefficient's per-item term:
    its weight in the mean over the used labels (1 / their number, 0 if unused), n / n''_j
    and n / n_j, n the items rated on some label (``rated_items`` (G,))."""
    used = n2 > 0
    rated = rated_items[:, None]
    weight = used / _nan_where_not(used.sum(axis=-1), used.any(axis=-1))[:, None]
    return weight, rated / _nan_where_not(n2, used), rated / _nan_where_not(n, n > 0)


def _conger_constants(terms, point, pooled_point, n, n2, pooled):
    """The constants of Conger's standard-error pass over binary problems (see
    :func:`.kernels.conger_binary_spread`)."""
    G, P = n.shape
    table, constant, scale = terms["conger"]
    constants = np.stack([point["coefficient"], point["gap"], point["expected"],
                          n / _nan_where_not(n2, n2 > 0), constant, scale], axis=-1)
    pooled_constants = np.zeros((G, P, 5))
    if pooled is not None:
        for column, scale in enumerate(_pooled_scales(n, n2, pooled[0])):
            pooled_constants[..., column] = scale
        pooled_constants[:, 0, 3] = pooled_point["coefficient"]
        pooled_constants[:, 0, 4] = pooled_point["gap"]
    return (np.ascontiguousarray(constants), np.ascontiguousarray(table, np.float64),
            pooled_constants, pooled is not None)


def _conger_pass(decisions, binary):
    """Conger's standard-error sums of the labels and the pooled coefficient over a block
    of multi-label decisions."""
    constants, table, pooled_constants, pooled = binary["conger"]
    return _counts.conger_binary_spread(decisions, constants.shape[1], binary["w"],
                                        constants, table, pooled_constants, pooled)


# --------------------------------------------------------------------------- multi-label


def _multi_label_plan(tables, setting):
    w = setting["weights"]
    histogram = tables["histogram"]
    columns = _state_columns(setting["offsets"], x_category=1, w=w)
    sums = _binary_sums(histogram, columns)
    if setting["method"] == "conger":
        annotators = tables["annotators"].astype(np.float64)  # (G, L, n, 2)
        sums.update(indicator=annotators, rated=annotators.sum(axis=-1))
    pooled = (tables["rated_items"], tables["pairable_items"])
    binary = _binary_plan(sums, columns, histogram, w, setting, pooled)
    return {"overall": (binary["pooled_point"], *pooled), "q": 2, "binary": binary}
