"""Numba kernels of the Gwet family (Fleiss, Conger, Gwet's AC1/AC2, Brennan-Prediger,
percent): one counting pass, one pass for the standard error. No xarray in this module.

Every coefficient of the family is a function of per-item category counts ``r_ik`` (Conger's
also of each annotator's own ratings), and its standard error a sum over items of squared
per-item terms that need the coefficient first. So the first pass counts, the finishing
works on small tables, and a second pass (only for the standard error) sums the squares.

Layouts
-------
``codes``      (G, N, n) int32: G = product of the extra dims, N items, n annotators; -1 a
               missing rating, else the category's index 0..q-1.
``decisions``  (G, N, n, L): multi-label 0/1 decisions of L labels (bool, ints, or float with
               NaN missing), each label a binary problem.
``state``      a binary problem's count on one item, ``offsets[m] + x``: ``m`` annotators
               rated it, ``x`` of them chose the problem's category 1 (on multi-label input
               the label; for a category-vs-rest problem, the category). Every term of the
               family's formulas except Conger's per-annotator ones is a function of it.
               The states of each m that occurs follow one another (``offsets[m]``, -1
               for an m no item has): m + 1 of them, x = 0..m.
``histogram``  (G, P, S) int64: items per state of each binary problem (additive).
"""

from __future__ import annotations

import numpy as np

from .._core.jit import njit
from .formulas import agreeing_pairs


# --- reading ratings -----------------------------------------------------------------


@njit(cache=True, nogil=True)
def code_ratings(values, low, span, codes, start, stop):
    """Codes of integral ratings ``values[start:stop]`` (flat float64, NaN missing) into
    ``codes``: ``value - low`` when that is an integer in 0..span-1, else -1 (unmatched if
    the rating is not NaN). Returns (per-code totals (span,) int64, unmatched).

    Flat and branch-free, so that it vectorizes; the totals of a few codes are counted by
    comparing every code with each (a scatter ``totals[code] += 1`` waits on the previous
    one with the same code: it took 4x as long at 3 codes)."""
    present = 0
    # loops over range(size) of slices: no negative-index checks, so they vectorize (over
    # range(start, stop) the pass took 5x as long)
    source, target = values[start:stop], codes[start:stop]
    for e in range(source.size):
        v = source[e]
        offset = (v if v == v else low - 1.0) - low
        c = np.int32(min(max(offset, -1.0), float(span)))
        matched = (c >= 0) & (c < span) & (c == offset)
        target[e] = c if matched else -1
        present += v == v
    totals = np.zeros(span, np.int64)
    if span <= 16:
        for c in range(span):
            total = 0
            for e in range(target.size):
                total += target[e] == c
            totals[c] = total
    else:
        for e in range(target.size):
            if target[e] >= 0:
                totals[target[e]] += 1
    return totals, present - totals.sum()


# The overall single-label problem's per-item terms depend on the item's counts r_i1..r_iq
# only; with few annotators and categories every such composition gets an id,
# sum_k r_ik (n + 1)**k = sum over the item's ratings of (n + 1)**code, and one pass counts
# the items per id. Every sum over items, the standard error's squares included, is then
# a sum over the ids seen: no second pass. At 10^5 items x 5 annotators x 3 categories the
# counting and the standard error's passes took 2.6 and 2.6 ms, this pass ~0.3 ms.
PATTERN_LIMIT = 1 << 16


@njit(cache=True, nogil=True)
def pattern_histogram(codes, powers, size, q, with_annotators, i0, i1):
    """Items per pattern id of items i0..i1 of ``codes`` (G, N, n): (G, size) int64, an
    item's id sum_a powers[a, code_a + 1] (``powers[a, 0] = 0``: a missing rating). A
    composition (see :data:`PATTERN_LIMIT`): ``powers[a, c + 1] = side**c`` for every
    annotator; a rating vector (who rated what, :func:`.counts.rating_vectors`):
    ``powers[a, c] = c (q + 1)**a``. With ``with_annotators`` (Conger) also each
    annotator's ratings per category, (G, n, q) int64, in the same pass (else empty)."""
    G, N, n = codes.shape
    histogram = np.zeros((G, size), np.int64)
    annotators = np.zeros((G, n if with_annotators else 0, q), np.int64)
    for g in range(G):
        block = codes[g, i0:i1]
        counted = histogram[g]
        for i in range(block.shape[0]):
            p = 0
            for a in range(n):
                p += powers[a, block[i, a] + 1]
            counted[p] += 1
        if with_annotators:  # per annotator down the items: one count at a time per cell
            own = annotators[g]
            for i in range(block.shape[0]):
                for a in range(n):
                    c = block[i, a]
                    if c >= 0:
                        own[a, c] += 1
    return histogram, annotators


@njit(cache=True, nogil=True)
def count_not_binary(flat):
    """How many of ``flat``'s values are neither 0, 1 nor NaN."""
    bad = 0
    for v in flat:
        bad += (v != 0) & (v != 1) & (v == v)
    return bad


# --- single-label ratings: the counting pass ------------------------------------------


@njit(cache=True, nogil=True,  # work: per item its ratings and the q x q products
      work=lambda codes, q, offsets, n_states, with_annotators, i0, i1: codes.shape[0] * (
          (i1 - i0) * (codes.shape[2] + q * q) + q * n_states))
def single_label_counts(codes, q, offsets, n_states, with_annotators, i0, i1):
    """The counts of items i0..i1 (G, N, n) int32 codes with q categories.

    ``offsets`` (side,): where each m's states start (side: one more than the most ratings
    an item has). Returns, per group: ``by_m`` (G, side) int64, items with m ratings;
    ``sums`` (G, side, q) int64, the sum of r_ik over the items with m ratings;
    ``products`` (G, side, q, q) int64, the sum of r_ik r_il over them; ``histogram`` (G,
    q, n_states) int64, the items per state offsets[m] + r_ik of each
    category-vs-rest problem; and, if
    ``with_annotators`` (Conger), ``annotators`` (G, n, q) int64, each annotator's ratings
    per category (else empty). Integer sums, exact; the finishing divides by m once per m.
    """
    G, N, n = codes.shape
    side = offsets.size
    by_m = np.zeros((G, side), np.int64)
    sums = np.zeros((G, side, q), np.int64)
    products = np.zeros((G, side, q, q), np.int64)
    histogram = np.zeros((G, q, n_states), np.int64)
    annotators = np.zeros((G, n if with_annotators else 0, q), np.int64)
    r = np.zeros(q, np.int64)
    for g in range(G):
        for i in range(i0, i1):
            r[:] = 0
            m = 0
            for a in range(n):
                c = codes[g, i, a]
                if c >= 0:
                    r[c] += 1
                    m += 1
                    if with_annotators:
                        annotators[g, a, c] += 1
            by_m[g, m] += 1
            for k in range(q):
                histogram[g, k, offsets[m] + r[k]] += 1
            if m == 0:
                continue
            for k in range(q):
                rk = r[k]
                if rk == 0:
                    continue
                sums[g, m, k] += rk
                for l in range(q):
                    products[g, m, k, l] += rk * r[l]
    return by_m, sums, products, histogram, annotators


# --- single-label ratings: the standard error's pass ----------------------------------


@njit(cache=True, nogil=True,  # work: per item its ratings against each category, q x q
      work=lambda codes, w, *rest: codes.shape[0] * (rest[-1] - rest[-2]) * (
          codes.shape[2] * (w.shape[0] + 2) + w.shape[0] * w.shape[0]))
def single_label_spread(codes, w, constants, chance, annotator_chance, binary_constants,
                        binary_chance, multiplicity, i0, i1):
    """The standard error's pass over single-label codes, items i0..i1: per group (G,) the
    sum over the rated items of (t_i - kappa)**2, t_i Gwet's linearized per-item term of
    the overall (q-category) coefficient, and for Conger per category-vs-rest problem (G, q)
    the same sum of that problem's terms (else zeros).

    ``constants`` (G, 6): kappa, 1 - P_e, P_e, n / n'' (items rated over items pairable),
    whether the chance agreement varies with the sample (1, else 0: Brennan-Prediger and
    percent) and Conger's 1 / (r (r - 1)) (0 for the other coefficients). The per-item
    chance term is sum_k (r_ik / r_i) chance[g, k] (Fleiss, Gwet) or, for Conger,
    (sum over the item's raters of annotator_chance[g, a, code] + chance[g, 0]) / (r (r - 1))
    (Gwet's lambda_i; see ``formulas._conger_chance``). Conger's category-vs-rest problems:
    ``binary_constants`` (G, q, 6) as for :func:`conger_binary_spread`, ``binary_chance``
    (G, q, n, 2) his per-annotator terms (category 0: the problem's category); empty for
    the other coefficients (their category-vs-rest sums come from the histogram of states).
    ``multiplicity`` (G, N): how many items each row of ``codes`` stands for (the distinct
    rating vectors of :func:`.counts.rating_vectors`), or (0, 0): one each.
    """
    G, N, n = codes.shape
    q = w.shape[0]
    spread = np.zeros(G)
    binary_spread = np.zeros((G, q))
    vs_rest = binary_constants.shape[1] > 0
    r = np.zeros(q, np.int64)
    lam_k = np.zeros(q)
    # Conger's category-vs-rest constants, per group: an annotator's term in problem k is
    # rest[a, k] (rated another category) or rest[a, k] + own[a, k] (rated k)
    rest = np.zeros((n, q))
    own = np.zeros((n, q))
    pair_share = np.zeros(n + 1)  # 1 / (m (m - 1)): no division per item
    for m in range(2, n + 1):
        pair_share[m] = 1.0 / (m * (m - 1))
    # each category-vs-rest problem's constants, per group, as plain vectors
    kappa_k = np.zeros(q)
    inverse_gap_k = np.zeros(q)
    expected_k = np.zeros(q)
    scale_k = np.zeros(q)
    constant_k = np.zeros(q)
    conger_k = np.zeros(q)
    for g in range(G):
        kappa = constants[g, 0]
        gap = constants[g, 1]
        expected = constants[g, 2]
        scale = constants[g, 3]
        varies = constants[g, 4] != 0.0
        conger_scale = constants[g, 5]
        conger = conger_scale != 0.0
        if vs_rest:
            for a in range(n):
                for k in range(q):
                    rest[a, k] = binary_chance[g, k, a, 1]
                    own[a, k] = binary_chance[g, k, a, 0] - binary_chance[g, k, a, 1]
            for k in range(q):
                kappa_k[k] = binary_constants[g, k, 0]
                inverse_gap_k[k] = 1.0 / binary_constants[g, k, 1]
                expected_k[k] = binary_constants[g, k, 2]
                scale_k[k] = binary_constants[g, k, 3]
                constant_k[k] = binary_constants[g, k, 4]
                conger_k[k] = binary_constants[g, k, 5]
        chance_g = annotator_chance[g]
        total = 0.0
        block = codes[g, i0:i1]
        weighted = multiplicity.shape[0] > 0
        for i in range(block.shape[0]):
            row = block[i]
            weight = multiplicity[g, i0 + i] if weighted else 1.0
            if weight == 0:
                continue
            # counts by comparing every rating with each category: no branch on the rating
            # and no chain of increments of one count (an item's ratings mostly agree)
            m = 0
            for k in range(q):
                count = 0
                for a in range(n):
                    count += row[a] == k
                r[k] = count
                m += count
            if m == 0:
                continue
            lam = 0.0
            if conger:
                lam_k[:] = 0.0
                for a in range(n):
                    c = row[a]
                    rated = c >= 0
                    c = max(c, 0)
                    lam += rated * chance_g[a, c]
                    if vs_rest:
                        for k in range(q):
                            lam_k[k] += rated * rest[a, k]
                        lam_k[c] += rated * own[a, c]
            observed_term = 0.0
            if m >= 2:
                observed_term = scale * (agreeing_pairs(r, w) * pair_share[m] - expected)
            expected_term = 0.0
            if varies:
                if conger:
                    item_expected = (lam + chance[g, 0]) * conger_scale
                else:
                    item_expected = 0.0
                    for k in range(q):
                        item_expected += r[k] * chance[g, k]
                    item_expected /= m
                expected_term = item_expected - expected
            term = (observed_term - 2 * (1 - kappa) * expected_term) / gap - kappa
            if term == term:  # NaN terms are left out, as numpy's nansum did
                total += weight * term * term
            if vs_rest:
                share = pair_share[m]
                for k in range(q):
                    observed = 0.0
                    if m >= 2:
                        others = m - r[k]
                        observed = ((r[k] * (r[k] - 1) + others * (others - 1)) * share
                                    - expected_k[k])
                    chance_term = (lam_k[k] + constant_k[k]) * conger_k[k] - expected_k[k]
                    binary_term = ((scale_k[k] * observed
                                    - 2 * (1 - kappa_k[k]) * chance_term) * inverse_gap_k[k]
                                   - kappa_k[k])
                    if binary_term == binary_term:
                        binary_spread[g, k] += weight * binary_term * binary_term
        spread[g] += total
    return spread, binary_spread


# --- binary problems (multi-label input) ----------------------------------------------


@njit(cache=True, nogil=True)
def binary_states(decisions, offsets, n_states, state, i0, i1):
    """States (see the module's layouts) of items i0..i1 of multi-label ``decisions`` (G, N,
    n, L) into ``state`` (G, N, L) (``offsets``: where each m's states start). Returns
    (histogram (G, L, n_states) int64, items with a decision on some label
    (G,) int64, items with two on some label (G,) int64)."""
    G, N, n, L = decisions.shape
    histogram = np.zeros((G, L, n_states), np.int64)
    rated_items = np.zeros(G, np.int64)
    pairable_items = np.zeros(G, np.int64)
    x = np.zeros(L, np.int64)
    m = np.zeros(L, np.int64)
    for g in range(G):
        for i in range(i0, i1):
            x[:] = 0
            m[:] = 0
            for a in range(n):
                row = decisions[g, i, a]
                for j in range(L):
                    v = row[j]
                    x[j] += v == 1
                    m[j] += v == v
            most = 0
            for j in range(L):
                s = offsets[m[j]] + x[j]
                state[g, i, j] = s
                histogram[g, j, s] += 1
                most = max(most, m[j])
            rated_items[g] += most >= 1
            pairable_items[g] += most >= 2
    return histogram, rated_items, pairable_items


# Items per block whose per-state counts are kept in uint16 lanes before they are added to
# the int64 histogram.
STATE_BLOCK = 65535


@njit(cache=True, nogil=True)
def complete_binary_states(decisions, base, n_states, state, i0, i1):
    """:func:`binary_states` of integer ``decisions`` (uint8 view; no missing decision, so
    every item has m = n on every label), fewer than 256 annotators: ``state`` (uint8)
    gets x only, the state less its offset ``base`` (the states of m = n). Returns the
    histogram and the number of labels with a decision other than 0/1 (uint8 input is
    checked here, in the pass that reads it: a pass of numpy's max took 0.5 ms at
    (5 10^4, 5, 50), a fifth of an MLA call). Each item's x per
    label is
    summed in uint8 lanes and counted per value of x by comparing in uint16 lanes, flushed
    to int64 every :data:`STATE_BLOCK` items (at (5 10^4, 5, 50) a scatter
    ``histogram[j, x] += 1`` per label took 4.0 ms, these lanes 1.8)."""
    G, N, n, L = decisions.shape
    side = n + 1
    histogram = np.zeros((G, L, n_states), np.int64)
    by_x = np.zeros((side, L), np.uint16)
    x = np.zeros(L, np.uint8)
    seen = np.zeros(L, np.uint8)  # every byte ORed: above 1 if some decision is not 0/1
    for g in range(G):
        block = decisions[g, i0:i1]
        target = state[g, i0:i1]
        filled = 0
        for i in range(block.shape[0]):
            x[:] = 0
            for a in range(n):
                row = block[i, a]
                for j in range(L):
                    x[j] += row[j]
                    seen[j] |= row[j]
            out = target[i]
            for j in range(L):
                out[j] = x[j]
            for v in range(side):
                value = np.uint8(v)  # compared in 8-bit lanes, not 64
                counted = by_x[v]
                for j in range(L):
                    counted[j] += np.uint16(x[j] == value)
            filled += 1
            if filled == STATE_BLOCK or i == block.shape[0] - 1:
                for v in range(side):
                    for j in range(L):
                        histogram[g, j, base + v] += by_x[v, j]
                by_x[:] = 0
                filled = 0
    not_binary = 0
    for j in range(L):
        not_binary += seen[j] > 1
    return histogram, np.int64(not_binary)


@njit(cache=True, nogil=True)
def pooled_spread(state, offset, table, rated_state, all_rated, kappa, i0, i1):
    """Per group, the sum over items i0..i1 rated on some label of (T_i - kappa)**2 with
    T_i = sum_j table[g, j, state[g, i, j] + offset] (the pooled coefficient's per-item
    term, each label's part looked up by its state; see ``finish._binary_plan``).
    ``rated_state[s]``: whether state s has a rating; ``all_rated``: every item is rated
    (complete decisions), no lookup needed."""
    G, N, L = state.shape
    spread = np.zeros(G)
    for g in range(G):
        total = 0.0
        block = state[g, i0:i1]
        terms = table[g]
        for i in range(block.shape[0]):
            term = 0.0
            rated = all_rated
            row = block[i]
            if all_rated:
                for j in range(L):  # (in int64: a uint8 state plus the offset may pass 255)
                    term += terms[j, np.int64(row[j]) + offset]
            else:
                for j in range(L):
                    s = np.int64(row[j]) + offset
                    term += terms[j, s]
                    rated |= rated_state[s]
            if rated:
                deviation = term - kappa[g]
                total += deviation * deviation
        spread[g] += total
    return spread


@njit(cache=True, nogil=True)
def binary_annotator_counts(decisions, i0, i1):
    """Conger's marginals of multi-label ``decisions`` (G, N, n, L), items i0..i1: (G, L, n,
    2) int64, each annotator's decisions 0 and 1 on each label."""
    G, N, n, L = decisions.shape
    counts = np.zeros((G, L, n, 2), np.int64)
    for g in range(G):
        for i in range(i0, i1):
            for a in range(n):
                row = decisions[g, i, a]
                for j in range(L):
                    v = row[j]
                    if v == 1:
                        counts[g, j, a, 1] += 1
                    elif v == 0:
                        counts[g, j, a, 0] += 1
    return counts


@njit(cache=True, nogil=True,  # work: every decision, then every label's terms
      work=lambda decisions, *rest: decisions.shape[0] * (rest[-1] - rest[-2])
      * decisions.shape[3] * (decisions.shape[2] + 8))
def conger_binary_spread(decisions, n_problems, w, constants, annotator_chance,
                         pooled_constants, pooled, i0, i1):
    """Conger's standard-error sums of the labels of multi-label ``decisions`` (G, N, n, P),
    items i0..i1: per label (G, P) the sum over its rated items of (t_ij - kappa_j)**2 and,
    if ``pooled``, per group (G,) the sum over items rated on some label of
    (T_i - kappa)**2, T_i the pooled coefficient's per-item term (the mean over the used
    labels of theirs).

    ``w`` (2, 2) the weights. ``constants`` (G, P, 6): kappa_j, 1 - P_e,j, P_e,j,
    n_j / n''_j, Conger's constant D_j and 1 / (r_j (r_j - 1)); ``annotator_chance`` (G, P,
    n, 2) his per-annotator terms (see ``formulas._conger_chance``). ``pooled_constants`` (G,
    P, 5): the label's weight in the mean (1 / the number of used labels, 0 if unused),
    n / n''_j and n / n_j, n the items rated on some label; columns 3 and 4 of label 0 hold
    the pooled coefficient's kappa and 1 - P_e.
    """
    G, n = decisions.shape[0], decisions.shape[2]
    P = n_problems
    spread = np.zeros((G, P))
    pooled_spread = np.zeros(G)
    x = np.zeros(P, np.int64)
    m = np.zeros(P, np.int64)
    lam = np.zeros(P)
    for g in range(G):
        kappa_pooled = pooled_constants[g, 0, 3]
        gap_pooled = pooled_constants[g, 0, 4]
        block = decisions[g, i0:i1]
        for i in range(block.shape[0]):
            x[:] = 0
            m[:] = 0
            lam[:] = 0.0
            for a in range(n):
                row = block[i, a]
                for j in range(P):
                    v = row[j]
                    if v == 1:
                        x[j] += 1
                        m[j] += 1
                        lam[j] += annotator_chance[g, j, a, 1]
                    elif v == 0:
                        m[j] += 1
                        lam[j] += annotator_chance[g, j, a, 0]
            term_pooled = 0.0
            rated_any = False
            for j in range(P):
                mj = m[j]
                if mj == 0:
                    continue
                rated_any = True
                constant = constants[g, j]
                kappa = constant[0]
                expected = constant[2]
                observed = 0.0
                if mj >= 2:
                    xj = x[j]
                    r0 = mj - xj
                    agreeing = (r0 * (w[0, 0] * r0 + w[0, 1] * xj - 1)
                                + xj * (w[1, 0] * r0 + w[1, 1] * xj - 1))
                    observed = agreeing / (mj * (mj - 1)) - expected
                chance = (lam[j] + constant[4]) * constant[5] - expected
                term = (constant[3] * observed - 2 * (1 - kappa) * chance) / constant[1] - kappa
                if term == term:
                    spread[g, j] += term * term
                if pooled:
                    part = pooled_constants[g, j, 0] * (
                        pooled_constants[g, j, 1] * observed
                        - 2 * (1 - kappa_pooled) * pooled_constants[g, j, 2] * chance
                    ) / gap_pooled
                    if part == part:
                        term_pooled += part
            if pooled and rated_any:
                deviation = term_pooled - kappa_pooled
                pooled_spread[g] += deviation * deviation
    return spread, pooled_spread
