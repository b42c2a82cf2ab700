"""Predicted against measured change ([target] predict = "perf-sim"): a round of an npu or
cpu-sim target records the perf_sim cycles of its configuration beside its measurement;
set against another round's (the round it was based on, the frontier, any round), the
cycles' change is what perf_sim predicted and the medians' change what was measured. Pure.

A change is after / before - 1: negative is fewer cycles, or faster. The two agree when
they point the same way; a change of exactly zero on either side (a comment-only round, say)
points nowhere and is not judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Measurement, Round

AGREES, DISAGREES = "same direction", "opposite directions"


@dataclass(frozen=True)
class PredictedChange:
    """One round's predicted and measured change against a reference round."""

    round: int
    against: int
    cycles_before: int | None  # perf_sim's cycles of the reference's configuration
    cycles_after: int | None
    predicted: float | None  # cycles_after / cycles_before - 1; None without both
    measured: float | None  # median after / median before - 1; None without both
    # why a side has no cycles (its prediction_problem, or "not recorded"), "" when both do
    missing: str = ""

    @property
    def agrees(self) -> bool | None:
        """Whether perf_sim's change points the way the measured one did (None: either is
        missing or exactly zero)."""
        if not self.predicted or not self.measured:
            return None
        return (self.predicted < 0) == (self.measured < 0)

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round, "against": self.against,
            "cycles_before": self.cycles_before, "cycles_after": self.cycles_after,
            "predicted_change": self.predicted, "measured_change": self.measured,
            "agrees": self.agrees, "missing": self.missing or None,
        }


def _change(after: float | None, before: float | None) -> float | None:
    return after / before - 1 if after is not None and before else None


def _why_none(record: Round) -> str:
    m = record.measurement
    if m.predicted_cycles is not None:
        return ""
    return f"{round_name(record.number)}: {m.prediction_problem or 'no perf_sim cycles recorded'}"


def predicts(m: Measurement) -> bool:
    """The measurement carries a prediction, or says why it has none."""
    return m.predicted_cycles is not None or bool(m.prediction_problem)


def predicted_change(record: Round, reference: Round) -> PredictedChange | None:
    """`record` against `reference`; None when neither was measured with a prediction (a
    project that does not predict)."""
    if not predicts(record.measurement) and not predicts(reference.measurement):
        return None
    before, after = reference.measurement.predicted_cycles, record.measurement.predicted_cycles
    missing = "; ".join(why for why in (_why_none(reference), _why_none(record)) if why)
    return PredictedChange(
        record.number, reference.number, before, after,
        _change(after, before),
        _change(record.measurement.median_us, reference.measurement.median_us),
        missing,
    )


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


# the round table's column of a project that predicts, and what it means
PREDICTED_COLUMN = "perf_sim/meas"
PREDICTED_NOTE = (
    "perf_sim/meas: the change perf_sim's cycles predicted against the round each round was "
    "based on, beside the measured change of the medians (negative is fewer cycles, or faster)."
)


def change_pair(predicted: float | None, measured: float | None) -> str:
    """A table's cell: "-8.2% / -5.1%" (predicted / measured), "-" without a prediction."""
    if predicted is None:
        return "-"
    return f"{percent(predicted)} / {percent(measured)}"


def change_cell(change: PredictedChange | None) -> str:
    """`change_pair` of a round's predicted change ("-" without one)."""
    if change is None:
        return "-"
    return change_pair(change.predicted, change.measured)


def change_line(change: PredictedChange) -> str:
    """One line for `diff` and the round comparison: the cycles, both changes, whether they
    agree, or why there is no prediction."""
    if change.predicted is None:
        return f"perf_sim prediction: none ({change.missing})"
    agrees = {True: AGREES, False: DISAGREES, None: "not judged: a change of zero"}[change.agrees]
    return (
        f"perf_sim prediction: {change.cycles_before} -> {change.cycles_after} cycles "
        f"({percent(change.predicted)}); measured {percent(change.measured)}: {agrees}"
    )


def prediction_review(rounds: Sequence[Round]) -> list[PredictedChange]:
    """`suggest --review`'s perf_sim part: each closed round after the baseline against the
    round it was based on, where either carries a prediction record."""
    by_number = {r.number: r for r in rounds}
    changes = []
    for record in sorted(rounds, key=lambda r: r.number):
        based = by_number.get(record.changes.based_on) if record.changes.based_on is not None else None
        if record.is_closed and not record.is_baseline and based is not None:
            change = predicted_change(record, based)
            if change is not None:
                changes.append(change)
    return changes


def review_summary(changes: Sequence[PredictedChange]) -> dict[str, object]:
    """How often perf_sim's change pointed the way the measured one did (JSON)."""
    judged = [c.agrees for c in changes if c.agrees is not None]
    return {"agreed": sum(1 for a in judged if a), "judged": len(judged),
            "rounds": [c.to_dict() for c in changes]}


def review_text(changes: Sequence[PredictedChange]) -> str:
    """The perf_sim part of `suggest --review`, "" when no round carries a prediction."""
    if not changes:
        return ""
    judged = [c.agrees for c in changes if c.agrees is not None]
    lines = [f"perf_sim prediction ([target] predict): the measured change went the predicted way in "
             f"{sum(1 for a in judged if a)} of {len(judged)} judged round(s)"]
    lines += [f"  {round_name(c.round)} against {round_name(c.against)}: "
              + change_line(c).removeprefix("perf_sim prediction: ") for c in changes]
    return "\n".join(lines) + "\n"
