"""What the discovery of an operator's knobs found: the tunables, the values derived from
them (shown as derived, never offered on their own) and the candidates left out with the
reason (host-only, profiling, workload, set at run time, overridden, unused)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pto_tui.core.project.config import Tunable


@dataclass(frozen=True)
class Derived:
    """A value the source computes from other knobs: it follows them."""

    name: str
    expr: str  # as written, e.g. "kFaCvFifoSize / 2"
    where: str = ""

    def describe(self) -> str:
        return f"{self.name} = {self.expr}"

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "expr": self.expr, "where": self.where}


@dataclass(frozen=True)
class LeftOut:
    """A candidate knob that is no tunable, and why."""

    name: str
    reason: str
    where: str = ""

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "reason": self.reason, "where": self.where}


@dataclass(frozen=True)
class KnobReport:
    tunables: tuple[Tunable, ...] = ()
    derived: tuple[Derived, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    workload: tuple[Tunable, ...] = field(default=())  # knobs the case sets (not tunable)

    def short(self) -> str:
        """The tunables with their values, then the derived ones: the scan's line."""
        text = ", ".join(f"{t.name}={t.value}" for t in self.tunables) or "none found"
        if self.derived:
            text += "; derived: " + ", ".join(d.describe() for d in self.derived)
        return text


def unique(tunables: list[Tunable]) -> list[Tunable]:
    """First finding of each name wins."""
    seen: dict[str, Tunable] = {}
    for tunable in tunables:
        seen.setdefault(tunable.name, tunable)
    return list(seen.values())
