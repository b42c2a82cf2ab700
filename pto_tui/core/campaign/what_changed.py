"""What changed in a round against a reference round: parameters, the duration with its
noise, TFLOPS, perf_sim's predicted change where the project predicts, and the round's
patch (`pto-tui diff`, the TUI's round comparison).

The reference is the round it was based on (`previous`), the frontier (the best of the
other rounds, as a verdict closing now would see it), or any round by number. The change
is judged by the verdict's own rule (`rules.verdict`): the estimated gain with its
bounds, against the noise floor, with the discipline the round closed under (the
project's current one for an open round).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pto_tui.core.campaign.context import CampaignContext
from pto_tui.core.campaign.status import frontier_of
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.prediction import PredictedChange, predicted_change
from pto_tui.core.rounds.records import Round, valid_samples
from pto_tui.core.rules.comparison import compare
from pto_tui.core.rules.verdict import exact_comparison, judge_exact, judge_gain, sample_stats
from pto_tui.core.vocabulary import Verdict

PREVIOUS = "previous"
FRONTIER = "frontier"


@dataclass(frozen=True)
class ParamDiff:
    name: str
    before: Scalar | None  # None: the parameter is not in that round's parameter values
    after: Scalar | None


@dataclass(frozen=True)
class Side:
    """One round's duration samples, summed up."""

    round: int
    median_us: float | None
    runs: int
    spread: float | None  # (max - min) / median; None without valid samples
    stability: str  # stable | noisy | "" (no valid samples)


@dataclass(frozen=True)
class DurationDelta:
    before: Side
    after: Side
    delta: float | None  # after / before - 1: negative is faster
    speedup: float | None  # before / after
    noise_floor: float
    max_spread: float
    confidence: float
    gain: float | None = None  # the verdict rule's estimate of the gain (0.05: 5% faster)
    low: float | None = None  # its bounds; None: too few runs to bound it
    high: float | None = None
    judged: str = ""  # beyond the noise floor | within the noise floor | slower | undecided
    # `before` is the runs of the reference's build the round took alternately with its own
    # ([discipline] interleave), as its verdict compared; not the reference's stored runs
    interleaved: bool = False
    unit: str = ""  # what the samples count: "" microseconds, or "cycles" (perf-sim)

    def bounds_text(self) -> str:
        """The verdict rule's view of the change, in words."""
        if self.gain is None:
            return ""
        if self.low is None or self.high is None:
            bounds = f"too few runs for {self.confidence:.0%} bounds"
        else:
            bounds = f"{self.confidence:.0%} bounds {self.low:+.1%} to {self.high:+.1%}"
        against = f", against {round_name(self.before.round)}'s interleaved runs" if self.interleaved else ""
        return f"gain {self.gain:+.1%} ({bounds}) against the noise floor {self.noise_floor:.1%}{against}"


@dataclass
class RoundDiff:
    round: int
    against: int
    against_how: str  # previous | frontier | round
    parameters: list[ParamDiff] = field(default_factory=list)
    duration: DurationDelta | None = None
    tflops_before: float | None = None
    tflops_after: float | None = None
    tflops_delta: float | None = None  # after / before - 1
    patch: str = ""  # the round's patch.diff
    patch_against: int | None = None  # the round the patch is taken against (its base)
    verdict: str = ""
    verdict_reason: str = ""
    # [target] predict: perf_sim's predicted change beside the measured one (None: neither
    # round was measured with a prediction)
    prediction: PredictedChange | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["prediction"] = self.prediction.to_dict() if self.prediction is not None else None
        return {"schema_version": 2, **data}


def reference_round(rounds: list[Round], record: Round, against: str = PREVIOUS) -> tuple[Round, str]:
    """The round to compare `record` with, and how it was chosen."""
    others = [r for r in rounds if r.number != record.number]
    if against == PREVIOUS:
        number = record.changes.based_on
        if number is None:
            raise InputError(
                f"{round_name(record.number)} does not record the round it was based on",
                hint="use --against frontier or --against N",
            )
        how = PREVIOUS
    elif against == FRONTIER:
        frontier = frontier_of(others)
        if frontier is None:
            raise InputError("there is no frontier yet: the baseline is not recorded")
        return frontier, FRONTIER
    else:
        try:
            number = int(against)
        except ValueError:
            raise InputError(
                f"--against expects previous, frontier or a round number, got {against!r}"
            ) from None
        how = "round"
    found = next((r for r in rounds if r.number == number), None)
    if found is None:
        raise InputError(f"no round {number} to compare {round_name(record.number)} with")
    return found, how


def _side(number: int, samples: list[float], max_spread: float) -> Side:
    valid = valid_samples(samples)
    if not valid:
        return Side(number, None, len(samples), None, "")
    stats = sample_stats(valid)
    stability = "noisy" if stats.spread > max_spread else "stable"
    return Side(number, stats.median, stats.n, stats.spread, stability)


def duration_delta(
    record: Round, reference: Round, noise_floor: float, max_spread: float, confidence: float
) -> DurationDelta:
    """The duration of `record` against `reference`, judged as the verdict rule would: against
    the reference's runs `record` took interleaved with its own, when it took them."""
    m = record.measurement
    interleaved = bool(m.frontier_samples_us) and m.frontier_round == reference.number
    theirs = m.frontier_samples_us if interleaved else reference.measurement.samples_us
    before = _side(reference.number, theirs, max_spread)
    after = _side(record.number, m.samples_us, max_spread)
    if before.median_us is None or after.median_us is None:
        return DurationDelta(before, after, None, None, noise_floor, max_spread, confidence,
                             interleaved=interleaved, unit=m.unit)
    speedup = before.median_us / after.median_us
    delta = after.median_us / before.median_us - 1
    mine, other = valid_samples(m.samples_us), valid_samples(theirs)
    exact = exact_comparison(mine, other, confidence)  # identical repeats: no noise
    c = exact or compare(mine, other, confidence)
    verdict, _reason = judge_exact(c, noise_floor) if exact else judge_gain(c, noise_floor)
    if verdict is None:
        judged = "undecided"
    elif verdict is Verdict.KEPT:
        judged = "beyond the noise floor"
    else:
        judged = "slower" if c.high is not None and c.high < 0 else "within the noise floor"
    return DurationDelta(before, after, delta, speedup, noise_floor, max_spread, confidence,
                         c.estimate, c.low, c.high, judged, interleaved, m.unit)


def parameter_diffs(record: Round, reference: Round) -> list[ParamDiff]:
    """Parameters whose value differs between the two rounds' full snapshots."""
    before, after = reference.changes.parameter_values, record.changes.parameter_values
    names = sorted(set(before) | set(after))
    return [ParamDiff(n, before.get(n), after.get(n)) for n in names if before.get(n) != after.get(n)]


def what_changed(
    record: Round,
    reference: Round,
    *,
    patch: str,
    noise_floor: float,
    max_spread: float,
    confidence: float,
    against_how: str = "round",
) -> RoundDiff:
    """What changed from `reference` to `record` (a pure function of the two records and
    the round's patch text)."""
    t_before, t_after = reference.measurement.tflops, record.measurement.tflops
    verdict = record.effective_verdict()
    return RoundDiff(
        round=record.number,
        against=reference.number,
        against_how=against_how,
        parameters=parameter_diffs(record, reference),
        duration=duration_delta(record, reference, noise_floor, max_spread, confidence),
        tflops_before=t_before,
        tflops_after=t_after,
        tflops_delta=(t_after / t_before - 1) if t_before and t_after is not None else None,
        patch=patch,
        patch_against=record.changes.based_on,
        verdict=verdict.value if verdict else "",
        verdict_reason=record.verdict_reason,
        prediction=predicted_change(record, reference),
    )


def round_diff(campaign: CampaignContext, number: int, against: str = PREVIOUS) -> RoundDiff:
    """`what_changed` for round `number` of a campaign, its patch read from patch.diff."""
    record = campaign.reads.round(number)
    rounds, campaign.problems = campaign.reads.current()
    reference, how = reference_round(rounds, record, against)
    patch_file = campaign.layout.round_dir(number) / "patch.diff"
    patch = patch_file.read_text(encoding="utf-8", errors="replace") if patch_file.is_file() else ""
    discipline = campaign.config.discipline
    return what_changed(
        record,
        reference,
        patch=patch,
        noise_floor=record.discipline.get("noise_floor", discipline.noise_floor),
        max_spread=record.discipline.get("max_spread", discipline.max_spread),
        confidence=record.discipline.get("confidence", discipline.confidence),
        against_how=how,
    )
