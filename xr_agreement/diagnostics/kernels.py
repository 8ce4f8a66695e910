"""numba kernels of the diagnostics: one pass over a block of decisions (G, N, n, k) each.

Decisions are 0/1 (any integer dtype) or 0/1/NaN (float). Both kernels visit, per item and
label, only the positive and the missing decisions when they build pair terms, so their cost
grows with the number of 1s and NaNs, not with the number of annotator pairs. They return
the number of values that are not 0, 1 (or NaN): the caller raises, naming the first one.
"""

from __future__ import annotations

import numpy as np

from .._core.jit import njit


@njit(nogil=True, cache=True)
def _state(value):
    """0: said 0, 1: said 1, 2: no decision (NaN), 3: invalid."""
    if value == 0:
        return 0
    if value == 1:
        return 1
    if value != value:
        return 2
    return 3


@njit(nogil=True, cache=True)
def _add_stats(out, m, x, sign):
    """``out[m] += sign * (1, x, x^2)``: one cell's (count, sum of 1s, sum of squares)."""
    out[m, 0] += sign
    out[m, 1] += sign * x
    out[m, 2] += sign * x * x


@njit(nogil=True, cache=True)
def _leave_one_out(base, without, l, positive, n_pos, negative, n_neg, missing, n_miss):
    """Add one (item, label) cell to the leave-one-out label counts: ``base`` (deciders, 3)
    shared by every annotator, ``without`` (n, k, deciders, 3) each annotator's
    differences (see :func:`annotator_counts`); ``positive[:n_pos]``, ``negative[:n_neg]``
    and ``missing[:n_miss]`` are the cell's annotators who said 1, said 0, did not
    decide. The indices of deciders stay at most the cell's deciders, so a deciders axis
    one longer than the most deciders of any cell holds every term. Used by
    :func:`sparse_annotator_counts`; :func:`annotator_counts` repeats these lines inline
    (calling this made it ~20% slower at (20000, 10, 50), measured)."""
    m = n_pos + n_neg
    x = n_pos
    if m == 0:  # nobody decided: the same cell without anyone
        _add_stats(base, 0, 0, 1)
    elif n_miss <= m:  # base: r said 0
        _add_stats(base, m - 1, x, 1)
        for a in range(n_pos):
            _add_stats(without[positive[a], l], m - 1, x, -1)
            _add_stats(without[positive[a], l], m - 1, x - 1, 1)
        for a in range(n_miss):
            _add_stats(without[missing[a], l], m - 1, x, -1)
            _add_stats(without[missing[a], l], m, x, 1)
    else:  # base: r did not decide
        _add_stats(base, m, x, 1)
        for a in range(n_pos):
            _add_stats(without[positive[a], l], m, x, -1)
            _add_stats(without[positive[a], l], m - 1, x - 1, 1)
        for a in range(n_neg):
            _add_stats(without[negative[a], l], m, x, -1)
            _add_stats(without[negative[a], l], m - 1, x, 1)


@njit(nogil=True, cache=True, work=lambda values, *_: values.size * values.shape[2])
def annotator_counts(values, pos_pos, pos_miss, miss_miss, without_base, without,
                     items_annotated, complement_cells, complement_positive,
                     complement_decided):
    """Add the annotator-level counts of ``values`` (G, N, n, k) to the accumulators.

    Per group g and label l: ``pos_pos[g, l, r, s]`` items where r and s both said 1,
    ``pos_miss[g, l, r, s]`` r said 1 and s did not decide, ``miss_miss[g, l, r, s]`` neither
    decided (diagonals: r's 1s, r's missing decisions). ``items_annotated[g, r]``: items r
    decided at least one label of. A cell with fewer deciders than non-deciders adds to
    the pair counts through its deciders alone: the rest is left in ``complement_cells``
    (G, k), ``complement_positive`` and ``complement_decided`` (G, k, n) for
    :func:`add_complements`, so the cost follows the smaller side in crowd designs too.

    The corpus without annotator r, as MLA's label counts: over the (item, label) cells,
    with m' deciders and x' ones once r is left out, ``(count, sum x', sum x'^2)`` by m'
    is ``without_base[g, l, m'] + without[g, r, l, m']`` (the base is shared by every r).
    A cell with m deciders and x ones is m - 1, x - 1 without r if r said 1, m - 1, x if r
    said 0 and m, x if r did not decide. Each cell adds to the base the term of the more
    common case (r said 0 when most decided, r did not decide otherwise) and to
    ``without`` the differences of the others, so a cell costs its 1s and the fewer of its
    deciders and non-deciders, and the accumulators stay (n, k, n, 3): no (m, x) table per
    annotator.
    """
    G, N, n, k = values.shape
    positive = np.empty(n, np.int64)
    negative = np.empty(n, np.int64)
    missing = np.empty(n, np.int64)
    invalid = 0
    for g in range(G):
        for i in range(N):
            for r in range(n):
                for l in range(k):
                    if values[g, i, r, l] == values[g, i, r, l]:
                        items_annotated[g, r] += 1
                        break
            for l in range(k):
                n_pos = 0
                n_neg = 0
                n_miss = 0
                for r in range(n):
                    state = _state(values[g, i, r, l])
                    if state == 1:
                        positive[n_pos] = r
                        n_pos += 1
                    elif state == 0:
                        negative[n_neg] = r
                        n_neg += 1
                    elif state == 2:
                        missing[n_miss] = r
                        n_miss += 1
                    else:
                        invalid += 1
                m = n - n_miss
                x = n_pos
                base = without_base[g, l]
                if m == 0:  # nobody decided: the same cell without anyone
                    _add_stats(base, 0, 0, 1)
                elif n_miss <= m:  # base: r said 0
                    _add_stats(base, m - 1, x, 1)
                    for a in range(n_pos):
                        _add_stats(without[g, positive[a], l], m - 1, x, -1)
                        _add_stats(without[g, positive[a], l], m - 1, x - 1, 1)
                    for a in range(n_miss):
                        _add_stats(without[g, missing[a], l], m - 1, x, -1)
                        _add_stats(without[g, missing[a], l], m, x, 1)
                else:  # base: r did not decide
                    _add_stats(base, m, x, 1)
                    for a in range(n_pos):
                        _add_stats(without[g, positive[a], l], m, x, -1)
                        _add_stats(without[g, positive[a], l], m - 1, x - 1, 1)
                    for a in range(n_neg):
                        _add_stats(without[g, negative[a], l], m, x, -1)
                        _add_stats(without[g, negative[a], l], m - 1, x, 1)
                for a in range(n_pos):
                    r = positive[a]
                    for b in range(n_pos):
                        pos_pos[g, l, r, positive[b]] += 1
                if n_miss <= m:
                    for a in range(n_pos):
                        r = positive[a]
                        for b in range(n_miss):
                            pos_miss[g, l, r, missing[b]] += 1
                    for a in range(n_miss):
                        r = missing[a]
                        for b in range(n_miss):
                            miss_miss[g, l, r, missing[b]] += 1
                else:
                    # fewer deciders: count their pairs, and the complements by annotator
                    # (x_r (1 - d_s) = x_r - x_r d_s, (1 - d_r)(1 - d_s) = 1 - d_r - d_s +
                    # d_r d_s), which add_complements folds in
                    complement_cells[g, l] += 1
                    for a in range(n_pos):
                        r = positive[a]
                        complement_positive[g, l, r] += 1
                        complement_decided[g, l, r] += 1
                        for b in range(n_pos):
                            pos_miss[g, l, r, positive[b]] -= 1
                            miss_miss[g, l, r, positive[b]] += 1
                        for b in range(n_neg):
                            pos_miss[g, l, r, negative[b]] -= 1
                            miss_miss[g, l, r, negative[b]] += 1
                    for a in range(n_neg):
                        r = negative[a]
                        complement_decided[g, l, r] += 1
                        for b in range(n_pos):
                            miss_miss[g, l, r, positive[b]] += 1
                        for b in range(n_neg):
                            miss_miss[g, l, r, negative[b]] += 1
    return invalid


def add_complements(pos_miss, miss_miss, complement_cells, complement_positive,
                    complement_decided):
    """Fold into ``pos_miss`` and ``miss_miss`` (G, k, n, n) the per-annotator terms of the
    cells :func:`annotator_counts` counted through their deciders (plain numpy)."""
    pos_miss += complement_positive[..., :, None]
    miss_miss += (complement_cells[..., None, None] - complement_decided[..., :, None]
                  - complement_decided[..., None, :])


@njit(nogil=True, cache=True, work=lambda values, *_: values.size * values.shape[3])
def confusion_counts(values, co_selection, substitution, n_disagreeing_pairs, scratch):
    """Add the label x other_label counts of ``values`` (G, N, n, k) to the accumulators
    (G, k, k), float64.

    Per item, with x the 1s and d the decided mask (annotators r, labels a, b):
    ``P[a, b] = sum_r x_ra d_rb`` (= N_a - sum_r x_ra (1 - d_rb)), ``C[a, b] = sum_r x_ra
    x_rb`` and ``E[a, b] = sum_r d_ra d_rb``; then over ordered pairs r != s
    co_selection += P * P.T - C, substitution += U * U.T with U = P - C, and
    n_disagreeing_pairs += P * (E - P) (the r = s terms of the last two are 0).
    ``scratch`` is (3, k, k) float64 of zeros, left zero.
    """
    G, N, n, k = values.shape
    R = scratch[0]  # sum_r x_ra (1 - d_rb)
    C = scratch[1]
    MM = scratch[2]  # sum_r (1 - d_ra)(1 - d_rb)
    positives = np.empty(k, np.int64)
    missing = np.empty(k, np.int64)
    n_pos_label = np.empty(k, np.float64)
    n_miss_label = np.empty(k, np.float64)
    invalid = 0
    for g in range(G):
        for i in range(N):
            n_pos_label[:] = 0.0
            n_miss_label[:] = 0.0
            for r in range(n):
                n_pos = 0
                n_miss = 0
                for l in range(k):
                    state = _state(values[g, i, r, l])
                    if state == 1:
                        positives[n_pos] = l
                        n_pos += 1
                    elif state == 2:
                        missing[n_miss] = l
                        n_miss += 1
                    elif state == 3:
                        invalid += 1
                for p in range(n_pos):
                    a = positives[p]
                    n_pos_label[a] += 1.0
                    for q in range(n_pos):
                        C[a, positives[q]] += 1.0
                    for q in range(n_miss):
                        R[a, missing[q]] += 1.0
                for p in range(n_miss):
                    a = missing[p]
                    n_miss_label[a] += 1.0
                    for q in range(n_miss):
                        MM[a, missing[q]] += 1.0
            for a in range(k):
                na = n_pos_label[a]
                if na == 0.0:  # then P[a, b] = 0 for every b: see below
                    continue
                for b in range(k):
                    p_ab = na - R[a, b]
                    if p_ab == 0.0:  # every term has the factor P[a, b] (C[a, b] <= P[a, b])
                        continue
                    p_ba = n_pos_label[b] - R[b, a]
                    u_ab = p_ab - C[a, b]
                    u_ba = p_ba - C[b, a]
                    e_ab = n - n_miss_label[a] - n_miss_label[b] + MM[a, b]
                    co_selection[g, a, b] += p_ab * p_ba - C[a, b]
                    substitution[g, a, b] += u_ab * u_ba
                    n_disagreeing_pairs[g, a, b] += p_ab * (e_ab - p_ab)
            # reset the scratch entries this item touched (the same sparse loops)
            for r in range(n):
                n_pos = 0
                n_miss = 0
                for l in range(k):
                    state = _state(values[g, i, r, l])
                    if state == 1:
                        positives[n_pos] = l
                        n_pos += 1
                    elif state == 2:
                        missing[n_miss] = l
                        n_miss += 1
                for p in range(n_pos):
                    for q in range(n_pos):
                        C[positives[p], positives[q]] = 0.0
                    for q in range(n_miss):
                        R[positives[p], missing[q]] = 0.0
                for p in range(n_miss):
                    for q in range(n_miss):
                        MM[missing[p], missing[q]] = 0.0
    return invalid


# --------------------------------------------------------------------------- complete designs
# Integer (and bool) input has no missing decisions: the pair terms then need only the 1s, in
# loops over labels that numba vectorizes (labels are the contiguous axis).


@njit(nogil=True, cache=True, work=lambda values, *_: values.size * values.shape[2])
def complete_pair_products(values, pos_pos):
    """``pos_pos[g, r, s, l] += sum_i x_irl x_isl`` for r <= s (the upper triangle) of integer
    decisions (G, N, n, k); returns the number of values other than 0 and 1."""
    G, N, n, k = values.shape
    invalid = 0
    for g in range(G):
        for i in range(N):
            for r in range(n):
                for l in range(k):
                    invalid += (values[g, i, r, l] != 0) & (values[g, i, r, l] != 1)
                for s in range(r, n):
                    for l in range(k):
                        pos_pos[g, r, s, l] += values[g, i, r, l] * values[g, i, s, l]
    return invalid


@njit(nogil=True, cache=True, work=lambda values, *_: values.size * values.shape[3])
def complete_confusion_counts(values, co_selection, substitution, disagreeing):
    """:func:`confusion_counts` for integer decisions (G, N, n, k), where nothing is
    missing: ``P[a, b] = N_a`` (the 1s on a) and ``E = n``, so per item ``co_selection +=
    N_a N_b - C[a, b]``, ``substitution += (N_a - C[a, b]) (N_b - C[a, b])`` and
    ``disagreeing[a] += N_a (n - N_a)`` (the same for every b), with C[a, b] = sum_r x_ra
    x_rb. Accumulators int64. Returns the number of values other than 0 and 1.

    Narrow lanes throughout, as in :func:`complete_pair_bytes`: C (at most n <= 255) is
    summed in uint8, row x_r added to C[a] for each label a with x_ra = 1, over rows padded
    to a multiple of 32 labels (no scalar remainder), and the pass over C that updates both
    sums works in int32 (a term is at most n^2; AVX2 has no int64 multiply), the sums
    kept in int32 over blocks of items short enough not to overflow and added to the int64
    accumulators after each block. Callers pass n <= 255 (else :func:`confusion_counts`
    on float input).

    Only the labels chosen in a row (then in an item) are visited: a label a with N_a = 0
    has C[a, b] = 0 and adds nothing to either sum. Their indices are gathered without a
    branch (``ones[m] = l; m += x_l``), so sparse rows cost no mispredictions. Against
    the dense products over every label, one thread: (10^5, 10, 50) 0.85x the time at
    prevalence 0.2, 0.55x at 0.05, (10^5, 3, 31) at 0.1 0.35x, 1.05-1.2x at 0.5 (n = 5);
    interpreted, the bundled example's call 17 -> 3 ms. (On values other than 0 and 1 the
    sums mean nothing: the callers refuse such input by the returned count.)
    """
    G, N, n, k = values.shape
    padded = (k + 31) // 32 * 32
    counts = np.empty(k, np.int32)
    x = np.zeros(padded, np.uint8)
    ones = np.empty(k, np.int64)  # the labels chosen in a row, then in an item
    C = np.zeros((k, padded), np.uint8)
    block_co = np.zeros((k, k), np.int32)
    block_sub = np.zeros((k, k), np.int32)
    block = max(1, 2147483647 // max(1, n * n))  # a block's sums stay below 2^31
    invalid = 0
    for g in range(G):
        for b0 in range(0, N, block):
            b1 = min(b0 + block, N)
            for i in range(b0, b1):
                counts[:] = 0
                for r in range(n):
                    source = values[g, i, r]
                    m = 0
                    for l in range(k):
                        v = source[l]
                        invalid += (v != 0) & (v != 1)
                        counts[l] += np.int32(v)
                        x[l] = np.uint8(v)
                        ones[m] = l
                        m += v == 1
                    for q in range(m):
                        row = C[ones[q]]
                        for b in range(padded):
                            row[b] = np.uint8(row[b] + x[b])
                m = 0
                for a in range(k):
                    ones[m] = a
                    m += counts[a] > 0
                for q in range(m):
                    a = ones[q]
                    na = counts[a]
                    disagreeing[g, a] += na * (n - na)
                    row = C[a]
                    co = block_co[a]
                    sub = block_sub[a]
                    for b in range(k):
                        c = np.int32(row[b])
                        nb = counts[b]
                        co[b] = np.int32(co[b] + np.int32(na * nb - c))
                        sub[b] = np.int32(sub[b] + np.int32((na - c) * (nb - c)))
                    for b in range(padded):
                        row[b] = 0
            for a in range(k):
                for b in range(k):
                    co_selection[g, a, b] += block_co[a, b]
                    substitution[g, a, b] += block_sub[a, b]
                    block_co[a, b] = 0
                    block_sub[a, b] = 0
    return invalid


@njit(nogil=True, cache=True, work=lambda values, *_: values.size * values.shape[2])
def complete_pair_bytes(values, pos_pos):
    """:func:`complete_pair_products` for uint8 decisions (bool viewed as uint8), 2-3x
    faster on one thread at (10^5, 10, 50). Two things make it so:

    - the products ``x_r & x_s`` are summed in uint8, 32 to a vector register instead of 4
      for int64, over blocks of 255 items (a sum of at most 255 ones), then flushed to
      ``pos_pos`` (int64);
    - each item's rows are first copied into rows padded to a multiple of 32 labels, so the
      label loops have no scalar remainder (with 50 labels that remainder was most of the
      time).

    Returns the OR of all values: anything but 0 or 1 means a value other than 0 and 1.
    """
    G, N, n, k = values.shape
    padded = (k + 31) // 32 * 32
    rows = np.zeros((n, padded), np.uint8)
    block = np.zeros((n, n, padded), np.uint8)
    seen = np.zeros(padded, np.uint8)
    for g in range(G):
        for b0 in range(0, N, 255):
            b1 = min(b0 + 255, N)
            for i in range(b0, b1):
                item = values[g, i]
                for r in range(n):
                    source = item[r]
                    row = rows[r]
                    for l in range(k):
                        row[l] = source[l]
                for r in range(n):
                    row = rows[r]
                    for l in range(padded):
                        seen[l] |= row[l]
                    for s in range(r, n):
                        other = rows[s]
                        out = block[r, s]
                        for l in range(padded):
                            out[l] = np.uint8(out[l] + np.uint8(row[l] & other[l]))
            for r in range(n):
                for s in range(r, n):
                    for l in range(k):
                        pos_pos[g, r, s, l] += block[r, s, l]
                        block[r, s, l] = 0
    combined = 0
    for l in range(k):
        combined |= np.int64(seen[l])
    return combined


# --------------------------------------------------------------------------- sparse pairs
# Crowd designs: thousands of annotators, a few on each item. The pair counts are kept only
# for the pairs who decided an item together (found from each item's deciders), so their
# memory follows those pairs, not n^2 (:func:`.counts.sparse_sums`).


@njit(nogil=True, cache=True)
def _item_deciders(item, who):
    """The annotators who decided at least one label of ``item`` (n, k), in order, into
    ``who``; returns how many."""
    n, k = item.shape
    d = 0
    for r in range(n):
        for l in range(k):
            if item[r, l] == item[r, l]:
                who[d] = r
                d += 1
                break
    return d


@njit(nogil=True, cache=True)
def item_deciders(values, n_deciders):
    """``n_deciders[g, i]``: the annotators who decided at least one label of item i in
    ``values`` (G, N, n, k) float (a value that is not NaN; validated later). Stops at an
    annotator's first decision, so a design where most decide costs little more than
    reading one label each."""
    G, N, n, k = values.shape
    who = np.empty(n, np.int64)
    for g in range(G):
        for i in range(N):
            n_deciders[g, i] = _item_deciders(values[g, i], who)


@njit(nogil=True, cache=True)
def item_pair_keys(values, keys):
    """Into ``keys``, item after item, the key ``(g n + r) n + s`` of every pair r < s who
    both decided some label of the item, in the order :func:`sparse_annotator_counts`
    visits them (``len(keys)`` = sum over items of d (d - 1) / 2, d from
    :func:`item_deciders`)."""
    G, N, n, k = values.shape
    who = np.empty(n, np.int64)
    position = 0
    for g in range(G):
        for i in range(N):
            d = _item_deciders(values[g, i], who)
            for a in range(d):
                for b in range(a + 1, d):
                    keys[position] = (g * n + who[a]) * n + who[b]
                    position += 1


@njit(nogil=True, cache=True)
def sparse_annotator_counts(values, pair_of, pair_counts, without_base, without,
                            items_annotated, decided, positives):
    """The counts of :func:`annotator_counts` with the pair terms kept per pair who decided
    an item together, for validated ``values`` (G, N, n, k) float.

    ``pair_of`` gives, for each pair visited in the order of :func:`item_pair_keys`, its
    row in ``pair_counts`` (P, k, 4): over the items' label cells both of the pair (r < s)
    decided, the cells, those where both said 1, r's 1s and s's 1s. ``without_base`` (G,
    k, M, 3) and ``without`` (G, n, k, M, 3) are the leave-one-out label counts of
    :func:`annotator_counts`, M one more than the most deciders of any cell (or item);
    ``items_annotated`` (G, n); ``decided`` and ``positives`` (G, n, k): each annotator's
    decisions and 1s per label. Returns the number of values other than 0, 1 and NaN (the
    counts then mean nothing: the caller raises).
    """
    G, N, n, k = values.shape
    who = np.empty(n, np.int64)
    positive = np.empty(n, np.int64)
    negative = np.empty(n, np.int64)
    missing = np.empty(n, np.int64)
    visited = 0
    invalid = 0
    for g in range(G):
        for i in range(N):
            item = values[g, i]
            d = _item_deciders(item, who)
            for a in range(d):
                r = who[a]
                items_annotated[g, r] += 1
                for b in range(a + 1, d):
                    s = who[b]
                    counts = pair_counts[pair_of[visited]]
                    visited += 1
                    for l in range(k):
                        x_r = item[r, l]
                        x_s = item[s, l]
                        if x_r == x_r and x_s == x_s:
                            counts[l, 0] += 1
                            counts[l, 1] += (x_r == 1) & (x_s == 1)
                            counts[l, 2] += x_r == 1
                            counts[l, 3] += x_s == 1
            for l in range(k):
                n_pos = 0
                n_neg = 0
                n_miss = 0
                for r in range(n):
                    state = _state(item[r, l])
                    if state == 1:
                        positive[n_pos] = r
                        n_pos += 1
                        positives[g, r, l] += 1
                        decided[g, r, l] += 1
                    elif state == 0:
                        negative[n_neg] = r
                        n_neg += 1
                        decided[g, r, l] += 1
                    elif state == 2:
                        missing[n_miss] = r
                        n_miss += 1
                    else:
                        invalid += 1
                _leave_one_out(without_base[g, l], without[g], l, positive, n_pos, negative,
                               n_neg, missing, n_miss)
    return invalid
