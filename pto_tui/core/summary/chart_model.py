"""What the summary chart shows, decided without drawing (docs/workflow.md §19).

Pure functions over round records, so every choice is testable on its own:

- which rounds are charted: closed rounds only (an open round has no result yet); a
  round whose verdict runs/closed.log does not vouch for is drawn as `unverified`, never
  as the verdict its files claim, and counted apart (`core/rounds/counts.py`);
- a round's charted duration: its median when the build did not fail and correctness
  did not fail. A failed build or a failed correctness check has no valid number (a
  wrong result's speed means nothing), so such a round is drawn as a red cross on the
  bottom edge of the speedup panel and a hatched red stub in the duration panel;
- speedup = iter-000 median / round median; the frontier is the best (lowest) median
  of the baseline and the kept rounds so far (rounds pto-tui measured, as `frontier_of`);
- milestones: kept rounds that lower the frontier, the biggest gains when there are
  many;
- the x axis: with more than FOLD_ABOVE charted rounds only the key rounds get their
  own slot (baseline, every kept round, the final best: always, however many, as the
  workflow asks); every run of other rounds (neutral / failure / inconclusive) of
  MIN_FOLD_RUN or more (2 or more when the axis would still be wider than MAX_SLOTS) is
  folded into one or two representatives: the first failure of the run (the typical
  failure) and the fastest correct round of the run (the near miss), each labelled with
  the run it stands for. The figure widens with the kept rounds (chart.py);
- units: us, or ms when the largest duration is 10 ms or more (as format_duration);
- log scale on the duration panel when the largest / smallest duration exceeds
  LOG_RATIO: beyond that the fastest bars would be too short to read on a linear axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.project.modes import CYCLES, MICROSECONDS
from pto_tui.core.rounds.counts import UNVERIFIED, verdict_counts
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.summary.chart_scales import Units, choose_units, use_log_scale
from pto_tui.core.vocabulary import Verdict

BASELINE = "baseline"
FOLD_ABOVE = 10  # docs/workflow.md §19: more than 10 rounds -> only key rounds on the axis
MIN_FOLD_RUN = 3  # shorter runs stay unfolded (folding 2 rounds into 2 saves nothing)
MAX_SLOTS = 24  # if wider than this, runs of 2 are folded too (kept rounds never are)
MAX_MILESTONES = 6  # labels beyond this overlap; the biggest gains are labelled


@dataclass(frozen=True)
class ChartRound:
    """One closed round as the chart sees it."""

    number: int
    verdict: str  # "baseline", a Verdict value, or "unverified"
    phase: str
    label: str  # short hypothesis (raw text; the drawing cleans it for the font)
    median_us: float | None  # None: no valid measurement
    speedup: float | None  # initial median / this median
    frontier_us: float  # best median so far, this round included
    frontier_speedup: float
    reason: str = ""  # why the round has no valid measurement, when it has none
    changes: str = ""  # parameter / file summary (an ASCII fallback label)

    @property
    def is_key(self) -> bool:
        return self.verdict in (BASELINE, Verdict.KEPT.value)


@dataclass(frozen=True)
class AxisSlot:
    """One x position: a round, or the representative of a folded run of rounds."""

    shown: int  # the round drawn at this position
    covers: tuple[int, ...]  # the rounds this slot stands for (just `shown` when not folded)
    label: str  # x tick label

    @property
    def folded(self) -> bool:
        return len(self.covers) > 1


@dataclass
class ChartModel:
    operator: str
    rounds: list[ChartRound]
    slots: list[AxisSlot]
    milestones: list[int]  # round numbers labelled on the speedup panel
    phases: list[str]  # phase order (colours follow it)
    units: Units
    log_scale: bool
    torch: TorchBaseline | None
    initial_us: float
    best: ChartRound
    counts: dict[str, int]
    header: str
    footer: str
    conclusion: str
    open_rounds: list[int] = field(default_factory=list)
    simulated: bool = False  # timings from pto-isa's CPU simulation (a cpu-sim target)
    sample_unit: str = MICROSECONDS  # CYCLES: perf_sim cycles (a perf-sim target), no torch_npu

    def round(self, number: int) -> ChartRound:
        return next(r for r in self.rounds if r.number == number)


# ---------------------------------------------------------------- per round


def valid_median(record: Round) -> float | None:
    """The round's duration if it can be trusted: measured, built, not incorrect."""
    m = record.measurement
    if m.build == "failed" or m.correctness == "fail":
        return None
    return m.median_us


def _verdict_text(record: Round) -> str:
    if record.is_baseline:
        return BASELINE
    if record.unverified:
        return UNVERIFIED
    verdict = record.effective_verdict()
    # a closed non-baseline round without a verdict cannot be drawn honestly as a result
    return verdict.value if verdict else Verdict.INCONCLUSIVE.value


def _no_data_reason(record: Round) -> str:
    m = record.measurement
    if m.build == "failed":
        return "build failed"
    if m.correctness == "fail":
        return "incorrect"
    return "no data"


def _changes_text(record: Round) -> str:
    params = record.changes.parameters
    if params:
        return ", ".join(f"{p.name}={p.new}" for p in params)
    return ", ".join(record.changes.files)


def chart_rounds(rounds: Sequence[Round]) -> list[ChartRound]:
    """Closed rounds in order, with speedups and the frontier. Raises InputError when
    there is nothing to chart or no baseline measurement to compare against."""
    closed = sorted((r for r in rounds if r.is_closed), key=lambda r: r.number)
    if not closed:
        raise InputError(
            "no closed rounds yet: nothing to chart",
            hint="record the baseline with `pto-tui baseline` first",
        )
    baseline = closed[0] if closed[0].is_baseline else None
    initial = valid_median(baseline) if baseline else None
    if initial is None:
        raise InputError(
            "no baseline measurement (iter-000): every speedup is relative to it",
            hint="record the baseline with `pto-tui baseline`",
        )
    out: list[ChartRound] = []
    best = initial
    for record in closed:
        verdict = _verdict_text(record)
        median = valid_median(record)
        if verdict == Verdict.KEPT.value and median is not None and record.leads:
            best = min(best, median)  # a round pto-tui did not measure never leads
        out.append(
            ChartRound(
                number=record.number,
                verdict=verdict,
                phase=record.phase,
                label=record.short_hypothesis(40),
                median_us=median,
                speedup=(initial / median) if median else None,
                frontier_us=best,
                frontier_speedup=initial / best,
                reason="" if median is not None else _no_data_reason(record),
                changes=_changes_text(record),
            )
        )
    return out


def milestones(rounds: Sequence[ChartRound], limit: int = MAX_MILESTONES) -> list[int]:
    """Kept rounds that lower the frontier; with more than `limit`, the biggest gains
    (and always the final best)."""
    gains: list[tuple[float, int]] = []
    previous = rounds[0].frontier_us if rounds else 0.0
    for r in rounds:
        if r.verdict == Verdict.KEPT.value and r.frontier_us < previous:
            gains.append((previous / r.frontier_us, r.number))
        previous = r.frontier_us
    if len(gains) <= limit:
        return [n for _gain, n in gains]
    final = gains[-1]
    chosen = {n for _gain, n in sorted(gains[:-1], reverse=True)[: limit - 1]} | {final[1]}
    return sorted(chosen)


def best_round(rounds: Sequence[ChartRound]) -> ChartRound:
    """The final best: the first round that reached the final frontier."""
    final = rounds[-1].frontier_us
    return next(r for r in rounds if r.is_key and r.median_us == final)


# ---------------------------------------------------------------- the x axis


def _representatives(run: Sequence[ChartRound]) -> list[int]:
    """One or two rounds standing for a folded run: the typical failure, the near miss."""
    reps: list[int] = []
    failure = next((r for r in run if r.verdict == Verdict.FAILURE.value), None)
    if failure is not None:
        reps.append(failure.number)
    measured = [r for r in run if r.median_us is not None]
    if measured:
        near = min(measured, key=lambda r: r.median_us or 0.0)
        if near.number not in reps:
            reps.append(near.number)
    if not reps:
        reps.append(run[0].number)
    return sorted(reps)


def fold_label(shown: int, first: int, last: int, count: int) -> str:
    return f"{shown}\nof {first}-{last}\n({count} folded)"


def _slots(rounds: Sequence[ChartRound], min_run: int, key: set[int]) -> list[AxisSlot]:
    slots: list[AxisSlot] = []
    run: list[ChartRound] = []

    def flush() -> None:
        if len(run) < min_run:
            slots.extend(AxisSlot(r.number, (r.number,), str(r.number)) for r in run)
        else:
            covers = tuple(r.number for r in run)
            first, last = covers[0], covers[-1]
            slots.extend(
                AxisSlot(n, covers, fold_label(n, first, last, len(covers))) for n in _representatives(run)
            )
        run.clear()

    for r in rounds:
        if r.number in key:
            flush()
            slots.append(AxisSlot(r.number, (r.number,), str(r.number)))
        else:
            run.append(r)
    flush()
    return slots


def axis_slots(rounds: Sequence[ChartRound], fold_above: int = FOLD_ABOVE) -> list[AxisSlot]:
    """Every charted round belongs to exactly one slot; folding only above `fold_above`."""
    if len(rounds) <= fold_above:
        return [AxisSlot(r.number, (r.number,), str(r.number)) for r in rounds]
    best = best_round(rounds).number
    key = {r.number for r in rounds if r.is_key} | {best}
    slots = _slots(rounds, MIN_FOLD_RUN, key)
    if len(slots) > MAX_SLOTS:
        slots = _slots(rounds, 2, key)
    return slots


# ---------------------------------------------------------------- scales and texts


NOT_COMPARABLE = "torch_npu: not comparable with perf_sim cycles"


def torch_comparison(torch: TorchBaseline | None, best_us: float) -> str:
    if torch is None:
        return "torch_npu not measured"
    ratio = torch.avg_us / best_us
    if ratio >= 1:
        return f"{ratio:.2f}x faster than {torch.label}"
    return f"{1 / ratio:.2f}x slower than {torch.label}"


def conclusion_text(
    initial_us: float, best: ChartRound, torch: TorchBaseline | None, best_label: str, unverified: int = 0,
    sample_unit: str = MICROSECONDS,
) -> str:
    """The key conclusion, one sentence (chart footer and report); `unverified`: the rounds
    whose verdicts the history does not vouch for, said after it."""
    if best.verdict == BASELINE:
        text = (
            f"no round beat the initial PTO version; the best is still iter-000 "
            f"({format_duration(initial_us, sample_unit)})"
        )
    else:
        text = (
            f"{round_name(best.number)} ({best_label}) brings PTO from "
            f"{format_duration(initial_us, sample_unit)} to {format_duration(best.median_us, sample_unit)}, "
            f"{initial_us / (best.median_us or 1):.2f}x over the initial version"
        )
    if torch is not None:
        text += f"; {torch_comparison(torch, best.median_us or initial_us)}"
    if unverified:
        text += (f"; {unverified} round{'s' if unverified != 1 else ''} unverified (the history "
                 "does not vouch for their verdicts: `pto-tui verify`), not counted as results")
    return "Conclusion: " + text + "."


def header_text(operator: str, counts: dict[str, int], speedup: float, comparison: str, n: int) -> str:
    """n: the closed rounds after the baseline (one without a verdict is in no count)."""
    verdicts = ", ".join(f"{k} {v}" for k, v in counts.items() if v or k != "inconclusive")
    return (
        f"{n} round{'s' if n != 1 else ''} after the baseline  |  {verdicts}  |  "
        f"final speedup {speedup:.2f}x  |  {comparison}"
    )


def footer_text(
    initial_us: float, best: ChartRound, torch: TorchBaseline | None, sample_unit: str = MICROSECONDS
) -> str:
    if sample_unit == CYCLES:
        ref = NOT_COMPARABLE
    elif torch is not None:
        ref = (
            f"{torch.label}: avg {format_duration(torch.avg_us)} "
            f"(min {format_duration(torch.min_us)}, max {format_duration(torch.max_us)})"
        )
    else:
        ref = "torch_npu: not measured"
    return (
        f"{ref}   |   PTO initial (iter-000): {format_duration(initial_us, sample_unit)}   |   "
        f"PTO best ({round_name(best.number)}): {format_duration(best.median_us, sample_unit)}"
    )


def phase_order(rounds: Sequence[ChartRound], configured: Sequence[str]) -> list[str]:
    """The phases met in the rounds: in the configured order, then any other in order met."""
    met = {r.phase for r in rounds if r.phase}
    order = [p for p in configured if p in met]
    for r in rounds:
        if r.phase and r.phase not in order:
            order.append(r.phase)
    return order


def build_model(
    rounds: Sequence[Round],
    torch: TorchBaseline | None,
    phases: Sequence[str],
    operator: str,
    fold_above: int = FOLD_ABOVE,
) -> ChartModel:
    charted = chart_rounds(rounds)
    unit = CYCLES if any(r.measurement.in_cycles for r in rounds if r.is_closed) else MICROSECONDS
    torch = None if unit == CYCLES else torch  # cycles never compare with torch_npu's microseconds
    slots = axis_slots(charted, fold_above)
    best = best_round(charted)
    initial = charted[0].median_us or 0.0
    shown = {s.shown for s in slots}
    values = [r.median_us for r in charted if r.number in shown and r.median_us is not None]
    if torch is not None:
        values.append(torch.avg_us)
    counts = verdict_counts(rounds)
    comparison = NOT_COMPARABLE if unit == CYCLES else torch_comparison(torch, best.median_us or initial)
    return ChartModel(
        operator=operator,
        rounds=charted,
        slots=slots,
        milestones=[n for n in milestones(charted) if n in shown],
        phases=phase_order(charted, phases),
        units=choose_units(values, unit),
        log_scale=use_log_scale(values),
        torch=torch,
        initial_us=initial,
        best=best,
        counts=counts,
        header=header_text(operator, counts, initial / (best.median_us or initial), comparison,
                           len(charted) - 1),
        footer=footer_text(initial, best, torch, unit),
        conclusion=conclusion_text(initial, best, torch, best.label, counts.get(UNVERIFIED, 0), unit),
        open_rounds=sorted(r.number for r in rounds if not r.is_closed),
        simulated=any(r.simulated for r in rounds if r.is_closed),
        sample_unit=unit,
    )
