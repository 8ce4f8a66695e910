"""The best alignment as a set-partitioning MILP, for inputs the dynamic programme of
:mod:`.kernels` declines (a candidate reaching too far along the continuum, or too many
states at one step).

Every candidate unitary alignment and every unit alone is a column; each unit is covered
exactly once; the cost is the sum of the chosen columns' unitary disorders. scipy's HiGHS
(:func:`scipy.optimize.milp`) solves it to optimality: relative gap 0, and the costs
scaled so that the largest is :data:`SCALE` (HiGHS also stops at an absolute gap of 1e-6,
which scipy does not let us set: scaled, that is 1e-12 of the largest cost). The total is
summed from the chosen columns' own costs, not taken from the solver's objective. A solve
longer than :data:`TIME_LIMIT` seconds is refused with an error rather than left to run.
"""

from __future__ import annotations

import numpy as np

SCALE = 1e6
TIME_LIMIT = 60.0


def best_alignment_milp(first: np.ndarray, members: np.ndarray, cost: np.ndarray,
                        empty_cost: float) -> np.ndarray:
    """``choice`` as :func:`.kernels.best_alignment` gives it: per unit the candidate row
    that aligned it (at its first unit), -1 alone, -2 aligned by an earlier unit."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    n_units, n_candidates = first.size - 1, cost.size
    candidate_of, slot = np.nonzero(members >= 0)
    unit_of = members[candidate_of, slot]
    rows = np.concatenate([unit_of, np.arange(n_units)])
    columns = np.concatenate([candidate_of, n_candidates + np.arange(n_units)])
    cover = coo_array((np.ones(rows.size), (rows, columns)),
                      shape=(n_units, n_candidates + n_units)).tocsr()
    objective = np.concatenate([cost, np.full(n_units, float(empty_cost))])
    objective *= SCALE / objective.max()
    solved = milp(objective, constraints=LinearConstraint(cover, 1.0, 1.0),
                  integrality=np.ones(objective.size), bounds=Bounds(0.0, 1.0),
                  options={"mip_rel_gap": 0.0, "time_limit": TIME_LIMIT})
    if solved.status == 1:  # the time limit
        raise ValueError(
            f"gamma: the exact best alignment of {n_units} units ({n_candidates:,} candidate "
            f"unitary alignments) was not found within {TIME_LIMIT:g} s. That many "
            f"candidates arise where long units of one annotator overlap many units of the "
            f"others; split the labels into separate tables, or merge repeated spans")
    if solved.status != 0 or solved.x is None:
        raise RuntimeError(f"the best alignment's MILP was not solved: {solved.message}")
    taken = solved.x > 0.5
    choice = np.full(n_units, -2, dtype=np.int64)
    choice[taken[n_candidates:]] = -1
    for c in np.flatnonzero(taken[:n_candidates]):
        units = members[c][members[c] >= 0]
        choice[units.min()] = c
    return choice
