"""The same workload, checked on what a run says it ran: the shape in a benchmark report
must be the case's shape. A harness file changed to run a smaller problem (a case parser
returning S//4) would otherwise show up as a huge "gain" on an unchanged fingerprint."""

from __future__ import annotations

from collections.abc import Mapping

from pto_tui.core.rules.gates import SAME_WORKLOAD


def reported_shape_mismatch(
    shape: Mapping[str, object], dtype: str, reported: object
) -> str:
    """Why the report's own `variant` (shape fields, dtype) is not the case, or "" when it
    is or when the report names none of the case's fields (nothing to compare)."""
    if not isinstance(reported, Mapping):
        return ""
    wanted: dict[str, object] = dict(shape)
    if dtype:
        wanted["dtype"] = dtype
    common = [key for key in wanted if key in reported]
    if not any(key in shape for key in common):
        return ""
    if all(str(reported[key]) == str(wanted[key]) for key in common):
        return ""
    ran = ",".join(f"{key}={reported[key]}" for key in common)
    case = ",".join(f"{key}={wanted[key]}" for key in common)
    return (
        f"the report says it ran {ran}, but the case is {case}: a different workload "
        f"(rule {SAME_WORKLOAD}), the run is invalid"
    )
