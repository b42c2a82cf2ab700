"""The campaign at a glance: best so far, baseline, counts, recent failures, rule states.
Pure functions over round records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.project.config import ProjectConfig
from pto_tui.core.project.layout import MAX_ROUND_GAP, round_name
from pto_tui.core.project.modes import CYCLES, DEFAULT_MODE, mode_spec, sample_unit_of
from pto_tui.core.rounds.counts import UNVERIFIED, counted_as, verdict_counts
from pto_tui.core.rounds.durations import format_duration, unit_label
from pto_tui.core.rounds.ledger import LedgerProblems
from pto_tui.core.rounds.records import CLOSED, Round, TorchBaseline
from pto_tui.core.rules.sequence import rounds_without_gain, three_round_rule_applies
from pto_tui.core.vocabulary import TargetMode, Verdict


@dataclass
class CampaignStatus:
    operator: str
    kind: str
    case: str
    target: str
    environment_passed: bool
    baseline_us: float | None
    baseline_stability: str  # stable | noisy ("" before the baseline)
    torch: TorchBaseline | None
    frontier_round: int | None
    frontier_us: float | None
    speedup_vs_initial: float | None
    speedup_vs_torch: float | None
    open_round: int | None
    counts: dict[str, int]
    recent_failures: list[tuple[int, str, str]]  # (round, hypothesis, reason)
    rounds_without_gain: int
    three_round_rule: bool
    problems: LedgerProblems
    warnings: list[str] = field(default_factory=list)
    # closed rounds that no longer match runs/closed.log: round -> what differs
    tampered: dict[int, list[str]] = field(default_factory=dict)
    # rounds after the baseline whose verdict the history does not vouch for (counted apart)
    unverified: list[int] = field(default_factory=list)
    target_mode: TargetMode = DEFAULT_MODE
    # faster rounds the frontier passes over (not measured by pto-tui), said in words
    frontier_passed_over: list[str] = field(default_factory=list)
    # the environment round's probes given by hand: the surface (cli | mcp | tui), "" = run
    environment_declared_by: str = ""
    environment_declared_reason: str = ""
    # runs/closed.log's chain against its anchor (History.to_json), None before a read
    history: dict[str, Any] | None = None
    # what baseline_us and frontier_us count: "" microseconds or CYCLES (a perf-sim target)
    sample_unit: str = ""
    predict: str = ""  # [target] predict: "perf-sim" when each round records perf_sim's cycles

    @property
    def simulated(self) -> bool:
        return mode_spec(self.target_mode).simulated

    def to_json(self) -> dict[str, Any]:
        torch = self.torch.__dict__ if self.torch else None
        return {
            "operator": self.operator,
            "kind": self.kind,
            "case": self.case,
            "target": self.target,
            "target_mode": self.target_mode.value,
            "simulated": self.simulated,
            "unit": unit_label(self.sample_unit),
            "predict": self.predict,
            "environment_passed": self.environment_passed,
            "environment_declared_by": self.environment_declared_by,
            "environment_declared_reason": self.environment_declared_reason,
            "baseline_us": self.baseline_us,
            "baseline_stability": self.baseline_stability,
            "torch_baseline": torch,
            "frontier_round": self.frontier_round,
            "frontier_us": self.frontier_us,
            "frontier_passed_over": self.frontier_passed_over,
            "speedup_vs_initial": self.speedup_vs_initial,
            "speedup_vs_torch": self.speedup_vs_torch,
            "open_round": self.open_round,
            "counts": self.counts,
            "recent_failures": [
                {"round": n, "hypothesis": h, "reason": r} for n, h, r in self.recent_failures
            ],
            "rounds_without_gain": self.rounds_without_gain,
            "three_round_rule": self.three_round_rule,
            "missing_rounds": self.problems.missing,
            "unreadable_rounds": self.problems.unreadable,
            "tampered_rounds": {str(n): why for n, why in self.tampered.items()},
            "unverified_rounds": list(self.unverified),
            "notices": self.problems.notices,
            "history": self.history,
        }


def _contenders(rounds: list[Round]) -> list[tuple[float, Round]]:
    """The closed kept rounds and the baseline, with their medians."""
    # the verdict first: a median is computed only for the kept rounds and the baseline;
    # plain attributes before the calls (this runs at every write, over every round)
    kept = [
        r
        for r in rounds
        if r.status == CLOSED
        and (
            r.number == 0
            or ((r.verdict is Verdict.KEPT or r.amendments) and r.effective_verdict() is Verdict.KEPT)
        )
    ]
    return [(m, r) for r in kept if (m := r.measurement.median_us) is not None]


def frontier_of(rounds: list[Round]) -> Round | None:
    """The best so far: the fastest kept round, else the baseline; only rounds pto-tui
    measured (or a person adopted with a recorded confirmation) lead."""
    leading = [(m, r) for m, r in _contenders(rounds) if r.leads]
    return min(leading, key=lambda pair: pair[0], default=(0.0, None))[1]


def passed_over(rounds: list[Round], frontier: Round | None) -> list[str]:
    """Why the frontier is not a faster round: one sentence per round that was not
    measured here and so does not lead."""
    best = frontier.measurement.median_us if frontier is not None else None
    out = []
    for median, r in _contenders(rounds):
        if r.leads or (best is not None and median >= best):
            continue
        how = "closed by hand (not in runs/closed.log)" if r.unlogged else (
            "its verdict is not vouched for by runs/closed.log (`pto-tui verify`)" if r.unverified
            else "written by hand or imported, not measured by pto-tui")
        out.append(
            f"{round_name(r.number)} ({format_duration(median, r.sample_unit)}) is not the frontier: {how}; "
            "measure its change again in a new round, or adopt it with "
            f"`pto-tui round confirm {r.number} --reason ...`"
        )
    return out


def with_missing(missing: list[int], on_disk: list[int], last_round: int) -> list[int]:
    """The gaps in the numbering (`missing`, below the highest folder on disk) and the
    rounds numbered up to `last_round` whose folders are gone past the highest one; a
    `last_round` too far past them to be rounds lost is not listed (see last_round_notice)."""
    after = (max(on_disk) + 1) if on_disk else 1
    if last_round_notice(on_disk, last_round):
        return sorted(missing)
    return sorted(set(missing) | set(range(after, last_round + 1)))


def last_round_notice(on_disk: list[int], last_round: int) -> str:
    """Why state.last_round cannot be believed ("" when it can): more than MAX_ROUND_GAP
    past the highest round folder, it was set by hand, not by lost rounds."""
    highest = max(on_disk) if on_disk else 0
    if last_round - highest <= MAX_ROUND_GAP:
        return ""
    return (f"project.toml [state] last_round = {last_round} is far past the last round folder "
            f"({round_name(highest)}): not counted as missing rounds; the next round is numbered after it")


def summarize(
    config: ProjectConfig, rounds: list[Round], torch: TorchBaseline | None, problems: LedgerProblems
) -> CampaignStatus:
    baseline = next((r for r in rounds if r.is_baseline), None)
    frontier = frontier_of(rounds)
    base_us = baseline.measurement.median_us if baseline and baseline.is_closed else None
    best_us = frontier.measurement.median_us if frontier else None
    # what they count: the baseline's record says (the mode's unit before it is measured)
    unit = baseline.sample_unit if baseline and baseline.is_closed else sample_unit_of(config.target.mode)
    # failures only: neutral and inconclusive are not; nor a failure nothing vouches for
    failures = [(r.number, r.short_hypothesis(), r.verdict_reason)
                for r in rounds if counted_as(r) == Verdict.FAILURE.value]
    open_round = next((r.number for r in rounds if not r.is_closed and not r.is_baseline), None)
    environment = baseline.environment if baseline else None
    return CampaignStatus(
        operator=config.operator.name,
        kind=config.operator.kind.value,
        case=case_text(config.case, config.operator),
        target=config.target.label,
        target_mode=config.target.mode,
        environment_passed=bool(environment and environment.passed),
        environment_declared_by=environment.declared_by if environment else "",
        environment_declared_reason=environment.declared_reason if environment else "",
        baseline_us=base_us,
        baseline_stability=baseline.stability if baseline and baseline.is_closed else "",
        torch=torch,
        frontier_round=frontier.number if frontier else None,
        frontier_us=best_us,
        speedup_vs_initial=(base_us / best_us) if base_us and best_us else None,
        # cycles never compare with torch_npu's microseconds
        speedup_vs_torch=(torch.avg_us / best_us) if torch and best_us and unit != CYCLES else None,
        open_round=open_round,
        counts=verdict_counts(rounds),
        recent_failures=failures[-5:][::-1],
        rounds_without_gain=rounds_without_gain(rounds),
        three_round_rule=three_round_rule_applies(rounds),
        problems=problems,
        tampered={r.number: list(r.tampered) for r in rounds if r.tampered},
        unverified=[r.number for r in rounds if counted_as(r) == UNVERIFIED],
        frontier_passed_over=passed_over(rounds, frontier),
        sample_unit=unit,
        predict=config.target.predict,
    )
