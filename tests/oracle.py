"""Independent reference implementation ("oracle") of Multi-Label Agreement.

Written directly from Menzner & Leidner, "Multi-Label Agreement: A Flexible
Framework for Inter-Annotator Reliability", sections 3.1-3.5, and from the
project's missing-data contract.  It deliberately uses plain Python loops over
items and annotator pairs (c < c') so that every line can be checked against
the paper; speed is irrelevant.

Array convention everywhere: ``values[i, c, j]`` = decision of annotator ``c``
on item ``i`` for label ``j`` (0/1; NaN = decision not made, missing-data
functions only).

Equation numbers refer to the paper:
  (1) A_o,i = 1/h sum_{c<c'} s_H(L_ci, L_c'i)            item observed agreement
  (2) A_o   = 1/N sum_i A_o,i                              corpus observed agreement
      A_o,j = 1/(N h) sum_i sum_{c<c'} 1(l_cij == l_c'ij) label observed agreement
      p_j   = sum_i sum_c l_cij / (n N)                    pooled prevalence
      A_e,j^(F) = p^2 + (1-p)^2, (3) A_e,j^(AC1) = 2p(1-p), (4) A_e,j^(PB) = 0.5
      A_e = 1/k sum_j A_e,j
  (5) A_ml = (A_o - A_e) / (1 - A_e)
  (6) A_ml = sum_{j in J} (1 - A_e,j) A_j / sum_{j in J} (1 - A_e,j)
  3.4 alpha_H = 1 - D_o / (M/(M-1) D_e^inf), D_e^inf = 1/k sum_j 2 p_j (1 - p_j), M = nN
  (7) A_o,min,j = ((N - t) f(m) + t f(m+1)) / (N C(n,2)), f(x) = C(x,2) + C(n-x,2)
"""

from __future__ import annotations

import itertools
import math

import numpy as np

NAN = float("nan")

BASELINES = ("F", "AC1", "PB")

# Names accepted by the API (case-insensitive) -> canonical baseline.
BASELINE_ALIASES = {
    "f": "F",
    "kappa": "F",
    "fleiss": "F",
    "scott": "F",
    "ac1": "AC1",
    "gwet": "AC1",
    "pb": "PB",
    "pabak": "PB",
    "bp": "PB",
}

CORPUS_KEYS = (
    "agreement",
    "observed",
    "expected",
    "minimum",
    "observed_minimum",
    "raw_prevalence",
    "alpha_hamming",
)
ITEM_KEYS = ("item_observed", "item_agreement")
LABEL_KEYS = (
    "label_observed",
    "label_expected",
    "label_agreement",
    "label_weight",
    "label_observed_minimum",
    "label_prevalence",
    "label_positive_agreement",
    "label_negative_agreement",
)
ALL_KEYS = CORPUS_KEYS + ITEM_KEYS + LABEL_KEYS

# Variables that depend on the chosen baseline (get a `baseline` dim for lists).
BASELINE_DEPENDENT = (
    "agreement",
    "expected",
    "minimum",
    "item_agreement",
    "label_agreement",
    "label_expected",
    "label_weight",
)


def canonical_baseline(name: str) -> str:
    return BASELINE_ALIASES[name.lower()]


def chance_agreement(p: float, baseline: str) -> float:
    """A_e,j for one binary label with pooled prevalence p (paper 3.2)."""
    baseline = canonical_baseline(baseline)
    if baseline == "F":
        return p**2 + (1.0 - p) ** 2
    if baseline == "AC1":
        return 2.0 * p * (1.0 - p)
    return 0.5


def normalize(a_o: float, a_e: float) -> float:
    """(A_o - A_e) / (1 - A_e); NaN when the denominator is 0 (undefined)."""
    den = 1.0 - a_e
    if den == 0.0:
        return NAN
    return (a_o - a_e) / den


def ratio(num: float, den: float) -> float:
    return NAN if den == 0 else num / den


def comb2(x: int) -> int:
    return x * (x - 1) // 2


# ---------------------------------------------------------------------------
# complete data
# ---------------------------------------------------------------------------


def hamming_agreement(u, v) -> float:
    """s_H = 1 - d_H, d_H = (1/k) * #labels where the two vectors differ (3.1)."""
    k = len(u)
    differing = sum(1 for j in range(k) if u[j] != v[j])
    return 1.0 - differing / k


def annotator_pairs(n: int):
    """All unordered pairs c < c'."""
    return [(c, d) for c in range(n) for d in range(c + 1, n)]


def min_label_agreement_eq7(T: int, N: int, n: int) -> float:
    """Paper eq. (7): smallest A_o,j given T positives spread over N items."""
    h = comb2(n)

    def f(x):
        return comb2(x) + comb2(n - x)

    m = T // N
    t = T - m * N
    total = (N - t) * f(m)
    if t > 0:
        total += t * f(m + 1)
    return total / (N * h)


def min_label_agreement_bruteforce(T: int, N: int, n: int) -> float:
    """Minimum of A_o,j over every assignment of item counts x_i in 0..n with
    sum_i x_i = T (exhaustive; tiny cases only)."""
    h = comb2(n)
    best = math.inf
    for xs in itertools.product(range(n + 1), repeat=N):
        if sum(xs) != T:
            continue
        agreeing_pairs = sum(comb2(x) + comb2(n - x) for x in xs)
        best = min(best, agreeing_pairs / (N * h))
    return best


def oracle_mla(values, baseline: str = "F") -> dict:
    """All MLA quantities for complete 0/1 data ``values[item, annotator, label]``."""
    v = np.asarray(values, dtype=float)
    N, n, k = v.shape
    pairs = annotator_pairs(n)
    h = len(pairs)  # = C(n, 2)

    # (1) item-level observed agreement: mean pairwise Hamming agreement.
    item_observed = np.empty(N)
    for i in range(N):
        s = 0.0
        for c, d in pairs:
            s += hamming_agreement(v[i, c, :], v[i, d, :])
        item_observed[i] = s / h
    # (2) corpus observed agreement.
    observed = sum(item_observed) / N

    # label-level observed agreement A_o,j and pooled prevalence p_j.
    label_observed = np.empty(k)
    prevalence = np.empty(k)
    positive_agreement = np.empty(k)
    negative_agreement = np.empty(k)
    for j in range(k):
        agree = 0
        for i in range(N):
            for c, d in pairs:
                if v[i, c, j] == v[i, d, j]:
                    agree += 1
        label_observed[j] = agree / (N * h)
        positives = sum(v[i, c, j] for i in range(N) for c in range(n))
        prevalence[j] = positives / (n * N)

        # Specific agreement.  Over ordered pairs (c, c'), c != c':
        #   sum_i x(x-1) = #(both positive),  sum_i x(n-1) = #(c positive),
        # and the same with "negative" for negative agreement.
        both_pos = first_pos = both_neg = first_neg = 0
        for i in range(N):
            for c in range(n):
                for d in range(n):
                    if c == d:
                        continue
                    if v[i, c, j] == 1:
                        first_pos += 1
                        if v[i, d, j] == 1:
                            both_pos += 1
                    else:
                        first_neg += 1
                        if v[i, d, j] == 0:
                            both_neg += 1
        positive_agreement[j] = ratio(both_pos, first_pos)
        negative_agreement[j] = ratio(both_neg, first_neg)

    # (3)/(4) chance terms.
    label_expected = np.array([chance_agreement(p, baseline) for p in prevalence])
    expected = sum(label_expected) / k
    label_weight = 1.0 - label_expected
    label_agreement = np.array(
        [normalize(label_observed[j], label_expected[j]) for j in range(k)]
    )
    # (5) corpus coefficient; item-level values keep the CORPUS baseline.
    agreement = normalize(observed, expected)
    item_agreement = np.array([normalize(a, expected) for a in item_observed])

    # (7) conditional minimum.
    label_observed_minimum = np.empty(k)
    for j in range(k):
        T = int(round(sum(v[i, c, j] for i in range(N) for c in range(n))))
        label_observed_minimum[j] = min_label_agreement_eq7(T, N, n)
    observed_minimum = sum(label_observed_minimum) / k
    minimum = normalize(observed_minimum, expected)

    raw_prevalence = sum(prevalence) / k

    # 3.4 Hamming alpha with the finite-sample expected disagreement.
    M = n * N
    D_o = 1.0 - observed
    D_e_inf = sum(2.0 * p * (1.0 - p) for p in prevalence) / k
    D_e_alpha = M / (M - 1) * D_e_inf
    alpha_hamming = NAN if D_e_alpha == 0 else 1.0 - D_o / D_e_alpha

    return dict(
        agreement=agreement,
        observed=observed,
        expected=expected,
        minimum=minimum,
        observed_minimum=observed_minimum,
        raw_prevalence=raw_prevalence,
        alpha_hamming=alpha_hamming,
        item_observed=item_observed,
        item_agreement=item_agreement,
        label_observed=label_observed,
        label_expected=label_expected,
        label_agreement=label_agreement,
        label_weight=label_weight,
        label_observed_minimum=label_observed_minimum,
        label_prevalence=prevalence,
        label_positive_agreement=positive_agreement,
        label_negative_agreement=negative_agreement,
    )


def oracle_observed_minimum_bruteforce(values) -> tuple[float, np.ndarray]:
    """Complete data: (A_o,min, per-label minima) by exhaustive search over
    item counts with each label's total T_j fixed (independent of eq. 7)."""
    v = np.asarray(values, dtype=float)
    N, n, k = v.shape
    per_label = np.array(
        [
            min_label_agreement_bruteforce(int(round(v[:, :, j].sum())), N, n)
            for j in range(k)
        ]
    )
    return float(per_label.mean()), per_label


# ---------------------------------------------------------------------------
# missing data (NaN = decision not made)
# ---------------------------------------------------------------------------


def decided_annotators(v, i, j):
    n = v.shape[1]
    return [c for c in range(n) if not math.isnan(v[i, c, j])]


def oracle_mla_missing(values, baseline: str = "F", minimum_method: str = "greedy") -> dict:
    """MLA with missing decisions, following the project's contract.

    Per label j only *pairable* cells (item i with m_ij >= 2 decisions) count:
      n_j   = sum_i m_ij
      p_j   = (positives in pairable cells) / n_j
      D_o,j = (1/n_j) sum_i 1/(m_ij - 1) * #ordered disagreeing pairs in cell
            = (1/n_j) sum_i 2 x_ij (m_ij - x_ij) / (m_ij - 1)
      A_o,j = 1 - D_o,j
    Corpus A_o and A_e are n_j-weighted means of the label values.
    item_observed: agreeing (pair, label) comparisons / comparisons, counting
    only pairs c < c' where both decided the label.
    alpha: D_e,j = 2 n1 n0 / (n_j (n_j - 1)); alpha = 1 - sum n_j D_o,j / sum n_j D_e,j.

    observed_minimum: exhaustive search (minimum_method="bruteforce", tiny
    inputs) or the exact greedy allocation (default, see
    observed_minimum_missing_greedy).

    Keys not fixed by the contract for missing data (raw_prevalence, specific
    agreement) are given their natural extensions: raw_prevalence = mean_j p_j
    (paper's definition), positive/negative agreement over ordered pairs of
    decided annotators (m_ij in place of n).
    """
    v = np.asarray(values, dtype=float)
    N, n, k = v.shape
    pairs = annotator_pairs(n)

    # item level
    item_observed = np.empty(N)
    for i in range(N):
        agree = comparisons = 0
        for j in range(k):
            for c, d in pairs:
                if math.isnan(v[i, c, j]) or math.isnan(v[i, d, j]):
                    continue
                comparisons += 1
                if v[i, c, j] == v[i, d, j]:
                    agree += 1
        item_observed[i] = ratio(agree, comparisons)

    n_j = np.zeros(k)
    prevalence = np.full(k, NAN)
    label_observed = np.full(k, NAN)
    D_e_alpha_j = np.full(k, NAN)
    positive_agreement = np.full(k, NAN)
    negative_agreement = np.full(k, NAN)
    for j in range(k):
        nj = 0
        positives = 0
        disagreement = 0.0
        both_pos = first_pos = both_neg = first_neg = 0
        for i in range(N):
            decided = decided_annotators(v, i, j)
            m = len(decided)
            if m < 2:
                continue  # not pairable
            nj += m
            positives += sum(v[i, c, j] for c in decided)
            ordered_disagreeing = 0
            for c in decided:
                for d in decided:
                    if c == d:
                        continue
                    if v[i, c, j] != v[i, d, j]:
                        ordered_disagreeing += 1
                    if v[i, c, j] == 1:
                        first_pos += 1
                        both_pos += v[i, d, j] == 1
                    else:
                        first_neg += 1
                        both_neg += v[i, d, j] == 0
            disagreement += ordered_disagreeing / (m - 1)
        n_j[j] = nj
        if nj == 0:
            continue
        prevalence[j] = positives / nj
        label_observed[j] = 1.0 - disagreement / nj
        n1 = positives
        n0 = nj - positives
        D_e_alpha_j[j] = 2.0 * n1 * n0 / (nj * (nj - 1))
        positive_agreement[j] = ratio(both_pos, first_pos)
        negative_agreement[j] = ratio(both_neg, first_neg)

    label_expected = np.array(
        [NAN if math.isnan(p) else chance_agreement(p, baseline) for p in prevalence]
    )
    label_weight = 1.0 - label_expected
    label_agreement = np.array(
        [
            NAN if math.isnan(label_observed[j]) else normalize(label_observed[j], label_expected[j])
            for j in range(k)
        ]
    )

    used = [j for j in range(k) if n_j[j] > 0]
    total = sum(n_j[j] for j in used)
    observed = sum(n_j[j] * label_observed[j] for j in used) / total
    expected = sum(n_j[j] * label_expected[j] for j in used) / total
    agreement = normalize(observed, expected)
    item_agreement = np.array(
        [NAN if math.isnan(a) else normalize(a, expected) for a in item_observed]
    )

    D_o_sum = sum(n_j[j] * (1.0 - label_observed[j]) for j in used)
    D_e_sum = sum(n_j[j] * D_e_alpha_j[j] for j in used)
    alpha_hamming = NAN if D_e_sum == 0 else 1.0 - D_o_sum / D_e_sum

    if minimum_method == "bruteforce":
        observed_minimum, label_observed_minimum = observed_minimum_missing_bruteforce(v)
    else:
        observed_minimum, label_observed_minimum = observed_minimum_missing_greedy(v)
    minimum = normalize(observed_minimum, expected)

    raw_prevalence = float(np.mean([prevalence[j] for j in used]))

    return dict(
        agreement=agreement,
        observed=observed,
        expected=expected,
        minimum=minimum,
        observed_minimum=observed_minimum,
        raw_prevalence=raw_prevalence,
        alpha_hamming=alpha_hamming,
        item_observed=item_observed,
        item_agreement=item_agreement,
        label_observed=label_observed,
        label_expected=label_expected,
        label_agreement=label_agreement,
        label_weight=label_weight,
        label_observed_minimum=label_observed_minimum,
        label_prevalence=prevalence,
        label_positive_agreement=positive_agreement,
        label_negative_agreement=negative_agreement,
        n_j=n_j,
    )


def _label_cells(v, j):
    """m_ij for the pairable cells of label j, and T_j (pairable positives)."""
    N = v.shape[0]
    ms = []
    T = 0
    for i in range(N):
        decided = decided_annotators(v, i, j)
        if len(decided) >= 2:
            ms.append(len(decided))
            T += int(round(sum(v[i, c, j] for c in decided)))
    return ms, T


def _label_observed_from_counts(xs, ms) -> float:
    nj = sum(ms)
    dis = sum(2 * x * (m - x) / (m - 1) for x, m in zip(xs, ms))
    return 1.0 - dis / nj


def observed_minimum_missing_bruteforce(values, max_assignments: int = 2_000_000):
    """Minimum of the n_j-weighted corpus A_o over every reassignment of the
    positives within each label (T_j and the m_ij of the pairable cells fixed,
    0 <= x_ij <= m_ij), by exhaustive joint enumeration over all labels.

    Returns (corpus minimum, per-label minima of A_o,j).  Tiny inputs only.
    """
    v = np.asarray(values, dtype=float)
    k = v.shape[2]
    feasible = []  # per label: list of candidate x vectors
    cells = []
    for j in range(k):
        ms, T = _label_cells(v, j)
        cells.append(ms)
        cand = [
            xs
            for xs in itertools.product(*[range(m + 1) for m in ms])
            if sum(xs) == T
        ]
        feasible.append(cand)

    per_label = np.full(k, NAN)
    for j in range(k):
        if cells[j]:
            per_label[j] = min(_label_observed_from_counts(xs, cells[j]) for xs in feasible[j])

    used = [j for j in range(k) if cells[j]]
    weights = [sum(cells[j]) for j in used]
    n_combos = 1
    for j in used:
        n_combos *= len(feasible[j])
    if n_combos > max_assignments:
        raise ValueError("input too large for brute force")
    best = math.inf
    for combo in itertools.product(*[feasible[j] for j in used]):
        num = sum(
            w * _label_observed_from_counts(xs, cells[j])
            for w, xs, j in zip(weights, combo, used)
        )
        best = min(best, num / sum(weights))
    return best, per_label


def observed_minimum_missing_greedy(values):
    """Same quantity as observed_minimum_missing_bruteforce, for any size.

    Minimizing A_o,j means maximizing sum_i g(x_i; m_i) with
    g(x; m) = 2 x (m - x) / (m - 1), which is concave in x (its increments
    2 (m - 2x - 1) / (m - 1) decrease).  For a separable concave objective
    under sum_i x_i = T and 0 <= x_i <= m_i, handing out the T positives one
    at a time to the cell with the largest increment is optimal.  The corpus
    objective is a positively weighted sum over labels, so labels separate.
    Checked against the brute force in the tests.
    """
    v = np.asarray(values, dtype=float)
    k = v.shape[2]
    per_label = np.full(k, NAN)
    weights = np.zeros(k)
    for j in range(k):
        ms, T = _label_cells(v, j)
        if not ms:
            continue
        xs = [0] * len(ms)
        for _ in range(T):
            best_cell, best_gain = None, -math.inf
            for idx, m in enumerate(ms):
                if xs[idx] < m:
                    gain = 2 * (m - 2 * xs[idx] - 1) / (m - 1)
                    if gain > best_gain:
                        best_cell, best_gain = idx, gain
            xs[best_cell] += 1
        per_label[j] = _label_observed_from_counts(xs, ms)
        weights[j] = sum(ms)
    used = weights > 0
    corpus = float(np.sum(weights[used] * per_label[used]) / np.sum(weights[used]))
    return corpus, per_label


def oracle_alpha_vectors(values) -> float:
    """Krippendorff's alpha (2011, pairable-values form) on whole label vectors
    with normalized Hamming distance d(u, v) = (1/k) #{j: u_j != v_j}.

    A value is the vector of one annotator on one item; it is present only if
    the annotator decided every label of that item (whole-vector missingness:
    any NaN in a vector makes it absent).  Units (items) with m_u < 2 values are
    dropped; n.. = total number of pairable values.
      D_o = 1/n.. sum_u 1/(m_u - 1) sum_{ordered pairs c != c' in u} d
      D_e = 1/(n.. (n.. - 1)) sum_{ordered pairs of distinct pairable values} d
      alpha = 1 - D_o / D_e
    """
    v = np.asarray(values, dtype=float)
    N, n, k = v.shape

    def d(a, b):
        return sum(1 for j in range(k) if a[j] != b[j]) / k

    units = []
    for i in range(N):
        vecs = [v[i, c, :] for c in range(n) if not np.isnan(v[i, c, :]).any()]
        if len(vecs) >= 2:
            units.append(vecs)
    pairable = [vec for unit in units for vec in unit]
    n_dd = len(pairable)
    if n_dd < 2:
        return NAN

    D_o = 0.0
    for unit in units:
        m = len(unit)
        s = 0.0
        for a in range(m):
            for b in range(m):
                if a != b:
                    s += d(unit[a], unit[b])
        D_o += s / (m - 1)
    D_o /= n_dd

    D_e = 0.0
    for a in range(n_dd):
        for b in range(n_dd):
            if a != b:
                D_e += d(pairable[a], pairable[b])
    D_e /= n_dd * (n_dd - 1)
    if D_e == 0:
        return NAN
    return 1.0 - D_o / D_e
