"""Predicted against measured: did the costmodel's guidance hold once rounds ran? Pure.

For a round that changed a ranked knob from `old` to `new`, the costmodel predicted the
ratio of cycles per unit of work (new / old: below 1 predicts faster); the rounds
measured the speedup (median of the base round / median of the round: above 1 is
faster). The guidance held when both point the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pto_tui.core.project.layout import round_name

HELD, NOT_HELD, MIXED, UNKNOWN = "held", "did not hold", "mixed", "no prediction"


@dataclass(frozen=True)
class KnobChange:
    """One closed round's change of a ranked knob, with its numbers."""

    round: int
    knob: str
    old: int
    new: int
    before_us: float | None  # median of the round it was based on
    after_us: float | None  # median of the round
    predicted_old: float | None  # cycles per unit of work at old (None: refused)
    predicted_new: float | None
    refused: str = ""  # why the costmodel gave no number


@dataclass(frozen=True)
class ChangeReview:
    change: KnobChange
    predicted_ratio: float | None  # new / old cycles per unit of work
    measured_speedup: float | None  # before / after
    held: bool | None  # None: no prediction, no measurement, or one of them flat

    def to_dict(self) -> dict[str, object]:
        c = self.change
        return {"round": c.round, "knob": c.knob, "old": c.old, "new": c.new,
                "predicted_cycles_per_unit": {"old": c.predicted_old, "new": c.predicted_new},
                "predicted_ratio": self.predicted_ratio, "before_us": c.before_us,
                "after_us": c.after_us, "measured_speedup": self.measured_speedup,
                "held": self.held, "refused": c.refused or None}


@dataclass(frozen=True)
class KnobReview:
    knob: str
    rounds: tuple[ChangeReview, ...]

    @property
    def verdict(self) -> str:
        judged = [r.held for r in self.rounds if r.held is not None]
        if not judged:
            return UNKNOWN
        if all(judged):
            return HELD
        return NOT_HELD if not any(judged) else MIXED

    def to_dict(self) -> dict[str, object]:
        return {"knob": self.knob, "verdict": self.verdict,
                "held": sum(1 for r in self.rounds if r.held),
                "judged": sum(1 for r in self.rounds if r.held is not None),
                "rounds": [r.to_dict() for r in self.rounds]}


def review_change(change: KnobChange) -> ChangeReview:
    old, new = change.predicted_old, change.predicted_new
    ratio = new / old if old and new is not None else None
    before, after = change.before_us, change.after_us
    speedup = before / after if before and after else None
    held = None
    if ratio is not None and speedup is not None and ratio != 1 and speedup != 1:
        held = (ratio < 1) == (speedup > 1)
    return ChangeReview(change, ratio, speedup, held)


def review(changes: Sequence[KnobChange]) -> list[KnobReview]:
    """Per knob (in the order first changed), its rounds' predictions against measurements."""
    by_knob: dict[str, list[ChangeReview]] = {}
    for change in sorted(changes, key=lambda c: c.round):
        by_knob.setdefault(change.knob, []).append(review_change(change))
    return [KnobReview(knob, tuple(rows)) for knob, rows in by_knob.items()]


def review_text(reviews: Sequence[KnobReview]) -> str:
    if not reviews:
        return "no closed round changed a knob the costmodel ranks\n"
    lines: list[str] = []
    for k in reviews:
        lines.append(f"{k.knob}: guidance {k.verdict}")
        for r in k.rounds:
            c = r.change
            predicted = f"{r.predicted_ratio:.3g}x cycles/unit" if r.predicted_ratio is not None \
                else f"no prediction ({c.refused or 'refused'})"
            measured = f"{r.measured_speedup:.3g}x speedup" if r.measured_speedup is not None \
                else "not measured"
            mark = {True: "held", False: "did not hold", None: "-"}[r.held]
            lines.append(f"  {round_name(c.round)} {c.knob} {c.old} -> {c.new}: predicted "
                         f"{predicted}, measured {measured}: {mark}")
    return "\n".join(lines) + "\n"
