"""Student's t quantiles of the analytic intervals (Gwet's limits): one place for every
family."""

from __future__ import annotations

import functools


def t_quantile(dof, confidence):
    """The two-sided ``confidence`` quantile of Student's t at ``dof`` degrees of freedom
    (an array or a number; NaN gives NaN): ``scipy.special.stdtrit(dof, 0.5 + confidence /
    2)``. scipy.special's ufunc, not ``scipy.stats.t.ppf``, which spent some 60 us a call
    checking its arguments, a tenth of a small call."""
    return _special().stdtrit(dof, 0.5 + confidence / 2)


@functools.lru_cache(maxsize=1)
def _special():
    """scipy.special, imported on first use, so that ``import xr_agreement`` stays light."""
    from scipy import special

    return special
