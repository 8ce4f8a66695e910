"""The Gwet family on dask input: the steps of :mod:`.finish` as a graph, nothing computed.

With many annotators (``finish.FEW_ANNOTATORS``) one ``kappa-seen`` task per block finds
which numbers of ratings its items have, a tree joins them, and they set the tables'
layout. One
``kappa-count`` task per block of items runs the first pass, a tree of
``kappa-count-sum`` tasks adds the tables, one ``kappa-plan`` task finishes the point values,
one ``kappa-spread`` task per block runs the standard error's pass with the plan, a tree adds
those, and one ``kappa-final`` task gives the values, each sliced out as a lazy array. The
ratings arrive chunked along the items only (``encode._prepare``).
"""

from __future__ import annotations

import numpy as np

from . import counts as _counts
from . import finish as _finish


def tree_sum(parts, name):
    """The sum of delayed dicts (or tuples) of arrays, added pairwise in their order: a tree
    of depth log2, so that no task receives every block's tables."""
    import dask

    add = dask.delayed(_add_tables, pure=True)
    level = 0
    while len(parts) > 1:
        parts = [add(parts[i], parts[i + 1], dask_key_name=f"{name}-{level}-{i}")
                 if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
        level += 1
    return parts[0]


def _add_tables(first, second):
    if isinstance(first, dict):
        return {key: first[key] + second[key] for key in first}
    if isinstance(first, tuple):
        return tuple(a + b for a, b in zip(first, second))
    return first | second if first.dtype == bool else first + second


def lazy_values(array, setting):
    """``finish.final``'s values as dask arrays (shapes and dtypes from the same steps run on
    no items)."""
    import dask
    import dask.array as da

    token = dask.base.tokenize(array, setting["method"], setting["confidence"],
                               setting["population_size"], setting["with_error"],
                               setting["weights"])
    blocks = array.to_delayed().ravel()
    template_setting = setting
    if setting["seen"] is None:  # which numbers of ratings occur: a reduction over the blocks
        seen = tree_sum([dask.delayed(_counts.ratings_seen, pure=True)(
            block, setting["multi_label"], dask_key_name=f"kappa-seen-{token}-{b}")
            for b, block in enumerate(blocks)], f"kappa-seen-sum-{token}")
        setting = dask.delayed(_finish.with_seen, pure=True)(
            setting, seen, dask_key_name=f"kappa-setting-{token}")
        # shapes only: the values' shapes do not depend on the layout of the states
        few = np.arange(template_setting["n_annotators"] + 1) < 3
        template_setting = _finish.with_seen(template_setting, few)
    count = dask.delayed(_finish.count, pure=True)
    tables = tree_sum([count(block, setting, dask_key_name=f"kappa-count-{token}-{b}")
                        for b, block in enumerate(blocks)], f"kappa-count-sum-{token}")
    plan = dask.delayed(_finish.quiet(_finish.planned), pure=True)(tables, setting,
                                                    dask_key_name=f"kappa-plan-{token}")
    spreads = None
    if template_setting["with_error"]:
        spread = dask.delayed(_finish.spread, pure=True)
        spreads = tree_sum([spread(block, plan, setting,
                                    dask_key_name=f"kappa-spread-{token}-{b}")
                             for b, block in enumerate(blocks)], f"kappa-spread-sum-{token}")
    values = dask.delayed(_finish.quiet(_final), pure=True)(plan, spreads, setting,
                                             dask_key_name=f"kappa-final-{token}")
    # the shapes and dtypes of the values: the same steps on no items
    empty = np.zeros((array.shape[0], 0, *array.shape[2:]), array.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        template_plan = _finish.planned(_finish.count(empty, template_setting),
                                        template_setting)
        template = _final(template_plan, None, template_setting)
    out = []
    for level, level_values in enumerate(template):
        out.append({name: da.from_delayed(values[level][name], shape=np.shape(value),
                                          dtype=np.asarray(value).dtype)
                    for name, value in level_values.items()})
    return tuple(out)


def _final(plan, spreads, setting):
    """``finish.final`` with every value an array (the reasons' texts have one width for a
    coefficient and its weights, whatever the values: ``gwet._reasons``)."""
    overall, category = _finish.final(plan, spreads, setting)
    return ({k: np.asarray(v) for k, v in overall.items()},
            {k: np.asarray(v) for k, v in category.items()})
