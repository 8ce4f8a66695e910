"""The Gwet family's values as the public functions take them: from the counting passes
(:mod:`.finish` on numpy input, :mod:`.lazy` on dask input), or, for the bootstrap, from
the sums over items of its per-item tables (:mod:`.gwet`)."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .._core.arrays import _is_dask
from .finish import count, final, planned, settings, shaped, spread
from .gwet import _gwet_point, _problem_terms, _summed_problems


def counted_values(data, method, confidence, population_size, with_error=True):
    """``({"overall": values, "category": values}, {"overall": dims, "category": dims})``
    of a Gwet-family coefficient (see :func:`_gwet_values`); without ``with_error``
    no standard-error pass (its values are NaN)."""
    multi_label = data["multi_label"]
    array = data["decisions"] if multi_label else data["codes"]
    setting = settings(data, method, confidence, population_size, with_error)
    if _is_dask(array):
        from .lazy import lazy_values

        values = lazy_values(array, setting)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            tables, state = count(array, setting, with_state=True)
            if multi_label and tables.get("not_binary") and data.get("refuse"):
                data["refuse"]()  # uint8 decisions are checked by the counting pass
            plan = planned(tables, setting)
            spreads = spread(array, plan, setting, state) if with_error else None
            values = final(plan, spreads, setting)
    return shaped(values, data)



def _gwet_values(data, method, confidence, population_size, sums=None, with_error=True):
    """Overall and per-category (or per-label) values of a Gwet-family coefficient from
    :func:`_prepare`'s output, as ``(dims, array)`` by name, and the category dim: from the
    counting passes (:mod:`.finish`), or, given ``sums`` (the weighted sums over items of
    :func:`_gwet_columns`, dims resample, ...), the point estimates on item-resampled data.
    Without ``with_error`` no standard error is computed (its values are NaN)."""
    if sums is None:
        values, dims = counted_values(data, method, confidence, population_size, with_error)
    else:
        values, dims = {}, {}
        with np.errstate(divide="ignore", invalid="ignore"):
            for problem, prefix, lead, w, problem_sums in _summed_problems(data, sums):
                terms = _problem_terms(problem_sums, w, method)
                if problem == "overall" and data["multi_label"]:
                    # each label is a binary problem; pooled for the overall coefficient
                    values["overall"] = _gwet_point(terms, pooled=True)
                    dims["overall"] = (*prefix, *lead[:-1])
                    values["category"] = _gwet_point(terms, pooled=False)
                    dims["category"] = (*prefix, *lead)
                else:
                    values[problem] = _gwet_point(terms, pooled=False)
                    dims[problem] = (*prefix, *lead)
    out = {name: (dims["overall"], value)
           for name, value in values["overall"].items() if name != "gap"}
    level = "label" if data["multi_label"] else "category"  # the level prefix of the names
    for key in ("coefficient", "observed", "expected", "coefficient_se", "undefined_reason"):
        if key in values["category"]:
            out[f"{level}_{key}"] = (dims["category"], values["category"][key])
    return out, data["label"] if data["multi_label"] else "category"


def _gwet_replicate(data, sums, method) -> dict:
    """A Gwet-family coefficient's values from column sums (bootstrap replicates)."""
    return {name: xr.DataArray(value, dims=dims)
            for name, (dims, value) in _gwet_values(data, method, 0.95, None, sums)[0].items()}
