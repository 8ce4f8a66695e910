"""Kernels of gamma: the dissimilarity, the candidate unitary alignments and the best
alignment by dynamic programming along the continuum.

Units arrive sorted by start (then end) within blocks (a document, or one sampled
continuum); ``block_end[i]`` is the row after the last unit of unit ``i``'s block. No unitary
alignment crosses a block.

**Which unitary alignments can be in a best alignment** (``P = C(n, 2)`` annotator pairs,
``Delta`` the cost of an empty slot). Taking a unit ``u`` out of a unitary alignment ``a`` of
``k`` units, and leaving it alone (which costs ``Delta``), changes the disorder by
``((k - 1 + P) Delta - S_u) / P``, where ``S_u`` is the sum of ``u``'s dissimilarities to the
other units of ``a``. So an ``a`` with ``S_u > (k - 1 + P) Delta`` for some member is never in
a best alignment: a split is strictly better. Every pair in a kept ``a`` then has a
dissimilarity of at most ``(n - 1 + P) Delta`` (the ``pair_limit``), and the positional part
alone bounds how far apart two such units start: ``|s_u - s_v| <= reach (l_u + l_v)`` with
``reach = sqrt(pair_limit / (positional_weight Delta))``. :func:`candidates` scans, for each
unit, the units that start within that reach, and keeps the cliques that pass the test.

**The best alignment.** A unitary alignment is listed under its first unit (in sorted
order). Walking the units in order, the next unit not yet aligned is either left alone or
aligned by one of its own candidates, whose other units must all still be free; so the state
after deciding unit ``i`` is the set of later units already taken, a bit mask relative to
``i`` (a candidate reaches at most :data:`MAX_SPAN` rows ahead). :func:`best_alignment`
keeps, per step, the cheapest cost of each reachable mask (NER-like data and sampled continua
keep a handful); it is exact, as the search over all partitions it replaces. A block where a
candidate reaches further, or a step holds more than ``max_states`` masks, is skipped and
solved by the caller as a set-partitioning MILP instead (:mod:`.milp`), that block alone.
"""

from __future__ import annotations

import numpy as np

from ..._core.jit import njit

# a candidate's units lie within this many rows of its first (the DP's masks are int64)
MAX_SPAN = 62


@njit(cache=True)
def dissimilarity(s1, e1, c1, s2, e2, c2, positional_weight, categorical_weight, empty_cost,
                  categorical):
    """Combined dissimilarity of two units (Mathet et al. 2015, section 4): the squared
    positional distance ``((|s1 - s2| + |e1 - e2|) / (l1 + l2))**2`` and the categorical
    one ``categorical[c1, c2]``, each times ``empty_cost``, weighted and summed."""
    ratio = (abs(s1 - s2) + abs(e1 - e2)) / ((e1 - s1) + (e2 - s2))
    return (positional_weight * ratio * ratio + categorical_weight * categorical[c1, c2]) \
        * empty_cost


@njit(cache=True)
def _grow(values, size):
    """``values`` in an array at least twice as long (its tail uninitialised)."""
    out = np.empty(max(2 * values.size, size), dtype=values.dtype)
    out[:values.size] = values
    return out




def _candidates_work(annotator, start, end, category, block_end, n_annotators, *rest):
    # bounded by every pair of units of a block, times the other annotators: small only
    # where the blocks are (a crowded block would take minutes interpreted)
    return int(np.sum(block_end - np.arange(start.size))) * max(1, n_annotators - 1)


@njit(cache=True, work=_candidates_work)
def candidates(annotator, start, end, category, block_end, n_annotators, positional_weight,
               categorical_weight, empty_cost, categorical, max_length, max_candidates,
               max_tried):
    """The unitary alignments of two or more units that may be in a best alignment.

    Returns ``(first, members, cost, widest, stopped_at)``: the candidates of unit ``i`` (those whose
    first unit is ``i``) are rows ``first[i]`` to ``first[i + 1]`` of ``members`` (one column
    per annotator, flat: the unit's row, or -1 for an empty slot) and ``cost`` (the unitary
    disorder: the mean dissimilarity over the ``C(n, 2)`` slot pairs, an empty slot costing
    ``empty_cost`` against anything); ``widest`` is the largest distance in rows from a
    candidate's first unit to its last. ``max_length[i]`` is the longest unit of ``i``'s block.
    ``stopped_at`` is -1, or the unit at which more than ``max_candidates`` candidates were
    kept or more than ``max_tried`` sets of units tried (a region where so many units of
    every annotator lie within reach of one another that the enumeration would not end in
    reasonable time and memory); the rest is then not meaningful.
    """
    n_units = start.size
    n = n_annotators
    pairs = n * (n - 1) / 2.0
    pair_limit = (n - 1 + pairs) * empty_cost
    reach = np.sqrt(pair_limit / (positional_weight * empty_cost))
    first = np.zeros(n_units + 1, dtype=np.int64)
    # members flat, n slots a row (-1: empty), reshaped by the caller
    cost = np.empty(max(16, 2 * n_units), dtype=np.float64)
    members = np.full(cost.size * n, -1, dtype=np.int64)
    count = 0
    widest = 0
    partner = np.empty(16, dtype=np.int64)
    partner_d = np.empty(16, dtype=np.float64)
    chosen = np.empty(n, dtype=np.int64)  # positions in partner[]
    resume = np.empty(n + 1, dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    unit = np.empty(n, dtype=np.int64)
    tried = 0
    for i in range(n_units):
        first[i] = count
        # partners: later units of other annotators within the reach and the pair limit
        n_partners = 0
        limit = reach * ((end[i] - start[i]) + max_length[i])
        for j in range(i + 1, block_end[i]):
            if start[j] - start[i] > limit:
                break
            if annotator[j] == annotator[i]:
                continue
            d = dissimilarity(start[i], end[i], category[i], start[j], end[j], category[j],
                              positional_weight, categorical_weight, empty_cost, categorical)
            if d <= pair_limit:
                if n_partners == partner.size:
                    partner = _grow(partner, n_partners + 1)
                    partner_d = _grow(partner_d, n_partners + 1)
                partner[n_partners] = j
                partner_d[n_partners] = d
                n_partners += 1
        # every set of partners of distinct annotators, pairwise within the limit
        used[:] = False
        used[annotator[i]] = True
        depth = 0
        resume[0] = 0
        while True:
            p = resume[depth]
            found = False
            while p < n_partners:
                j = partner[p]
                ok = not used[annotator[j]]
                if ok:
                    for q in range(depth):
                        other = partner[chosen[q]]
                        if dissimilarity(start[j], end[j], category[j], start[other],
                                         end[other], category[other], positional_weight,
                                         categorical_weight, empty_cost,
                                         categorical) > pair_limit:
                            ok = False
                            break
                if ok:
                    found = True
                    break
                p += 1
            if not found:
                if depth == 0:
                    break
                depth -= 1
                used[annotator[partner[chosen[depth]]]] = False
                resume[depth] = chosen[depth] + 1
                continue
            chosen[depth] = p
            used[annotator[partner[p]]] = True
            depth += 1
            resume[depth] = p + 1
            tried += 1
            if tried > max_tried or count > max_candidates:
                return first, members[:count * n], cost[:count], widest, i
            # the set {i} + chosen[:depth]: keep it if no member is better left alone
            size = depth + 1
            unit[0] = i
            for q in range(depth):
                unit[q + 1] = partner[chosen[q]]
            total = 0.0
            keep = True
            for a in range(size):
                own = 0.0
                for b in range(size):
                    if b == a:
                        continue
                    if a == 0:
                        own += partner_d[chosen[b - 1]]
                    elif b == 0:
                        own += partner_d[chosen[a - 1]]
                    else:
                        u, v = unit[a], unit[b]
                        own += dissimilarity(start[u], end[u], category[u], start[v], end[v],
                                             category[v], positional_weight,
                                             categorical_weight, empty_cost, categorical)
                if own > (size - 1 + pairs) * empty_cost:
                    keep = False
                    break
                total += own
            if not keep:
                continue
            empty = n - size
            disorder = (total / 2.0 + (size * empty + empty * (empty - 1) / 2.0)
                        * empty_cost) / pairs
            if count == cost.size:
                cost = _grow(cost, count + 1)
                members = _grow(members, cost.size * n)
                members[count * n:] = -1
            for q in range(size):
                members[count * n + annotator[unit[q]]] = unit[q]
                widest = max(widest, unit[q] - i)
            cost[count] = disorder
            count += 1
    first[n_units] = count
    return first, members[:count * n], cost[:count], widest, -1


def _best_work(first, members, cost, *rest):
    return first.size + 4 * cost.size


@njit(cache=True, work=_best_work)
def best_alignment(first, members, cost, empty_cost, max_states, skip, block_first,
                   block_end):
    """The minimum total unitary disorder over all alignments of the units ``0 .. n - 1``,
    but those of the blocks it skips (left to the MILP).

    ``skip`` (bool per unit, whole blocks) says which to skip from the start; a block where
    a step holds more than ``max_states`` masks is skipped too: the walk goes back to the
    block's first unit (where one state is left) and passes over it. ``block_first[i]`` and
    ``block_end[i]`` bound unit ``i``'s block. Returns ``(skipped, choice)``: the units
    skipped in the end, and ``choice[i]``: the candidate row that aligned unit ``i`` first,
    -1 for a unit left alone, -2 for one aligned by an earlier unit's candidate, -3 for a
    unit skipped.
    """
    n_units = first.size - 1
    # every state of every step, for the way back: mask, cost, parent state, choice
    capacity = 4 * n_units + 16
    mask = np.zeros(capacity, dtype=np.int64)
    total = np.zeros(capacity, dtype=np.float64)
    parent = np.full(capacity, -1, dtype=np.int64)
    made_by = np.full(capacity, -2, dtype=np.int64)
    step = np.zeros(n_units + 2, dtype=np.int64)
    choice = np.full(n_units, -2, dtype=np.int64)
    step[0], step[1] = 0, 1  # step 0: one state, nothing taken
    new_mask = np.empty(16, dtype=np.int64)
    new_total = np.empty(16, dtype=np.float64)
    new_parent = np.empty(16, dtype=np.int64)
    new_by = np.empty(16, dtype=np.int64)
    skip = skip.copy()
    i = 0
    while i < n_units:
        made = 0
        for s in range(step[i], step[i + 1]):
            if skip[i] or mask[s] & 1:  # unit i skipped or already taken
                options = 1
            else:
                options = 1 + first[i + 1] - first[i]
            if made + options > new_mask.size:
                new_mask = _grow(new_mask, made + options)
                new_total = _grow(new_total, made + options)
                new_parent = _grow(new_parent, made + options)
                new_by = _grow(new_by, made + options)
            if skip[i] or mask[s] & 1:
                new_mask[made], new_total[made] = mask[s] >> 1, total[s]
                new_parent[made], new_by[made] = s, -3 if skip[i] else -2
                made += 1
                continue
            new_mask[made], new_total[made] = mask[s] >> 1, total[s] + empty_cost
            new_parent[made], new_by[made] = s, -1
            made += 1
            for c in range(first[i], first[i + 1]):
                bits = 0
                for m in members[c]:
                    if m > i:
                        bits |= 1 << (m - i)
                if bits & mask[s]:
                    continue
                new_mask[made], new_total[made] = (mask[s] | bits) >> 1, total[s] + cost[c]
                new_parent[made], new_by[made] = s, c
                made += 1
        # one state per mask: the cheapest (the first of equals, in a stable order)
        order = np.argsort(new_mask[:made], kind="mergesort")
        kept = 0
        base = step[i + 1]
        for r in range(made):
            o = order[r]
            if kept and mask[base + kept - 1] == new_mask[o]:
                if new_total[o] < total[base + kept - 1]:
                    total[base + kept - 1] = new_total[o]
                    parent[base + kept - 1] = new_parent[o]
                    made_by[base + kept - 1] = new_by[o]
                continue
            if base + kept == mask.size:
                mask = _grow(mask, base + kept + 1)
                total = _grow(total, base + kept + 1)
                parent = _grow(parent, base + kept + 1)
                made_by = _grow(made_by, base + kept + 1)
            mask[base + kept] = new_mask[o]
            total[base + kept] = new_total[o]
            parent[base + kept] = new_parent[o]
            made_by[base + kept] = new_by[o]
            kept += 1
        if kept > max_states and not skip[i]:
            skip[block_first[i]:block_end[i]] = True
            i = block_first[i]  # its states are the block start's one state, still there
            continue
        step[i + 2] = base + kept
        i += 1
    # the last step holds one state, nothing taken
    s = step[n_units]
    for i in range(n_units - 1, -1, -1):
        choice[i] = made_by[s]
        s = parent[s]
    return skip, choice
