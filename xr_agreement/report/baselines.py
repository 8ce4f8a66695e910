"""The baselines a report computes: the pre-specified primary model and the sensitivity
baselines (shared by the label-set report and the span report)."""

from __future__ import annotations

from ..mla import BASELINES, parse_baselines

# the default sensitivity analysis; when the primary is one of them, the other baselines
DEFAULT_SENSITIVITY = ("AC1", "PB")


def _baseline_list(baseline, sensitivity) -> list[str]:
    primary, single = parse_baselines(baseline)
    if not single:
        raise ValueError(f"baseline is the one pre-specified primary model, got {baseline!r}; "
                         "put the others in sensitivity=")
    if sensitivity is DEFAULT_SENSITIVITY:
        others = [b for b in BASELINES if b != primary[0]]
    elif sensitivity is None:
        others = []
    elif isinstance(sensitivity, str):
        others = parse_baselines(sensitivity)[0]
    else:
        others = parse_baselines(list(sensitivity))[0] if len(sensitivity) else []
    if primary[0] in others:
        raise ValueError(f"the primary baseline {primary[0]!r} is also in sensitivity="
                         f"{sensitivity!r}")
    return primary + others
