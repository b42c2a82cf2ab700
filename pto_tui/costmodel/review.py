"""`suggest --review`: the closed rounds that changed a ranked knob, with the costmodel's
prediction for each change (the I/O around core's review)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pto_tui.core.cycles.review import KnobChange, KnobReview, review
from pto_tui.core.project.config import ProjectConfig
from pto_tui.core.rounds.records import Round
from pto_tui.costmodel.cache import CostmodelCache
from pto_tui.costmodel.engine import Engine
from pto_tui.costmodel.suggest import base_values, costed, plan_of, require_plans


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _numbers(values: Mapping[str, object]) -> dict[str, int]:
    return {k: n for k, v in values.items() if (n := _whole(v)) is not None}


async def review_rounds(folder: Path, config: ProjectConfig, rounds: Sequence[Round],
                        engine: Engine, cache: CostmodelCache | None) -> list[KnobReview]:
    """Each closed round's change of a knob the plan ranks: the knob at its old and new
    value, the other parameters as the round had them (its parameter values), measured against
    the median of the round it was based on."""
    plans = require_plans(folder, config)
    by_number = {r.number: r for r in rounds}
    changes: list[KnobChange] = []
    for r in rounds:
        if not r.is_closed or r.is_baseline:
            continue
        based = by_number.get(r.changes.based_on) if r.changes.based_on is not None else None
        for p in r.changes.parameters:
            old, new = _whole(p.old), _whole(p.new)
            plan = plan_of(plans, p.name)
            if plan is None or old is None or new is None:
                continue
            base = {**base_values(config), **_numbers(r.changes.parameter_values)}
            found = {c.value: c for c in
                     await costed(plan, p.name, [old, new], base, engine, cache)}
            refused = "; ".join(f"{p.name}={v}: {found[v].refused}" for v in (old, new)
                                if found[v].refused)
            changes.append(KnobChange(
                r.number, p.name, old, new,
                based.measurement.median_us if based else None, r.measurement.median_us,
                found[old].per_unit, found[new].per_unit, refused))
    return review(changes)
