"""A round's benchmark runs: warm-ups, then timed runs while the plan wants more.

A step's 'finished' event is held until the backend has judged the run (HeldFinish), so
its label says what happened. The minimum of runs is the discipline's `repeats`; after
it a round measures on while its verdict is undecided, up to `max_repeats` (RunPlan).
A run that fails clears the round's numbers: a round whose run fails has none that count.
A deterministic metric (the perf-sim mode's cycles, `ModeSpec.deterministic`) stops after a
run and its confirmation when the two are equal, whatever `repeats` says: more equal runs
tell nothing more. Two that differ show it is not deterministic here: the usual plan goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from pto_tui.backends.kinds.backend import Backend, BenchOutcome
from pto_tui.backends.kinds.perf_sim import PREDICTION_STEP
from pto_tui.backends.site import OperatorSite, StepEvent, StepTimedOut
from pto_tui.core.project.config import Scalar
from pto_tui.core.reports.fields import tflops_at_median
from pto_tui.core.rounds.records import Measurement
from pto_tui.core.rules.verdict import is_constant
from pto_tui.jobs.model import JobState, LogLine


class HeldFinish:
    """Holds back one step's 'finished' event until the backend has judged the run, so its
    label says what happened: the job's exit code alone says 'succeeded' for a tile-lib
    binary that printed 'test failed' (it exits 0), or for a run whose results are invalid.
    A run judged failed is shown as failed, with the reason as the record's error; the job's
    own record on disk is left as the job ended."""

    def __init__(self, site: OperatorSite, step: str) -> None:
        self.site, self.step = site, step
        self.sink = site.on_event
        self.held: StepEvent | None = None

    def __enter__(self) -> HeldFinish:
        self.site.on_event = self._filter
        return self

    def _filter(self, event: StepEvent) -> None:
        if event.step == self.step and event.kind == "finished":
            self.held = event
        else:
            self.sink(event)

    def release(self, problem: str = "") -> None:
        """Emit the held event, as failed when `problem` says why the run failed."""
        event, self.held = self.held, None
        if event is None:
            return
        record = event.record
        if problem and record is not None and record.state is JobState.SUCCEEDED:
            event = replace(event, record=record.evolve(state=JobState.FAILED, error=problem))
        self.sink(event)

    def __exit__(self, *exc: object) -> None:
        self.site.on_event = self.sink
        self.release()  # an interrupted step is shown as the job ended


@dataclass(frozen=True)
class RunPlan:
    """How many benchmark runs a step takes (the project's [discipline])."""

    repeats: int  # timed runs, at least
    max_repeats: int  # timed runs while `undecided` says more could decide, at most
    warmup: int = 0  # untimed runs before the first timed one
    # why the verdict is still open after these runs (None: decided, or nothing to decide)
    undecided: Callable[[Measurement], str | None] = lambda _m: None
    # a deterministic metric: this many equal runs settle it (0: not deterministic)
    confirm: int = 0

    def step(self, index: int) -> str:
        """The step name of timed run `index` (0-based): the same for a run resumed later."""
        if index < self.confirm:
            planned = self.confirm
        else:
            planned = self.repeats if index < self.repeats else self.max_repeats
        return f"benchmark {index + 1}/{planned}"


def say(site: OperatorSite, text: str, step: str = "benchmark") -> None:
    """pto-tui's own word in the run's log: what it builds, why it measures on."""
    site.on_event(StepEvent(step, "line", line=LogLine("meta", text, time.time())))


def more_runs(plan: RunPlan, m: Measurement, tell: Callable[[str], None]) -> bool:
    """Whether another timed run is due: below the minimum, or undecided within the budget;
    never after the confirmation runs of a deterministic metric agreed."""
    runs = len(m.samples_us)
    if plan.confirm and runs >= plan.confirm and is_constant(m.samples_us):
        tell(f"{runs} runs: identical ({m.samples_us[0]:g} each): a deterministic metric, confirmed")
        return False
    if plan.confirm and runs == plan.confirm:
        tell(f"{runs} runs differ ({', '.join(f'{v:g}' for v in m.samples_us)}): not deterministic here; "
             f"measuring {plan.repeats} at least")
    if runs < plan.repeats:
        return True
    if runs >= plan.max_repeats:
        return False
    why = plan.undecided(m)
    if why is not None:
        tell(f"{runs} runs: {why}; measuring up to {plan.max_repeats}")
    return why is not None


async def benchmark_runs(
    backend: Backend,
    parameters: dict[str, Scalar],
    plan: RunPlan,
    m: Measurement,
    keep: Callable[[Measurement], None],
) -> None:
    """The timed runs not yet in `m`, each kept as it ends, after the plan's warm-up runs
    (again on a resumed run: the target is cold); a failed run clears them. A run whose job
    an earlier run left (adopted) is taken before the warm-ups: they would overwrite the
    result files it left (a tile-lib run's build/report.csv)."""
    warmed = plan.warmup == 0
    while more_runs(plan, m, lambda text: say(backend.site, text)):
        index = len(m.samples_us)
        step = plan.step(index)
        if not warmed and not backend.site.adopts(step):
            for warm in range(plan.warmup):
                outcome = await one_run(backend, warm_up_step(warm, plan), parameters)
                if not take_warm_up(outcome, warm, m):
                    return
            warmed = True
        backend.site.last_placement = ""
        if not take_run(await one_run(backend, step, parameters), index, m):
            return
        note_placement(m, backend.site.last_placement)
        keep(m)


def take_run(outcome: BenchOutcome, index: int, m: Measurement) -> bool:
    """Timed run `index` of the round into `m`; False when it failed (the problem in `m`,
    and no numbers kept: a round whose run fails has none that count)."""
    if outcome.report:
        m.reports.append(outcome.report)
    if outcome.correct is False:
        m.correctness, m.problem = "fail", outcome.problem
        _clear_runs(m)
        return False
    if not outcome.valid:
        m.problem = f"benchmark run {index + 1}: {outcome.problem}"
        _clear_runs(m)
        return False
    m.correctness = "pass"
    assert outcome.duration_us is not None
    m.samples_us.append(outcome.duration_us)
    if outcome.pipes:
        m.pipes = list(outcome.pipes)
    if outcome.reference_us is not None:
        m.reference_us.append(outcome.reference_us)
    if outcome.tflops is not None:
        m.tflops = tflops_at_median(m.samples_us, outcome.duration_us, outcome.tflops)
    return True


def note_placement(m: Measurement, placement: str) -> None:
    """Where the timed run just taken ran, when a scheduler said (one per run, or none)."""
    if placement and len(m.placements) < len(m.samples_us):
        m.placements.append(placement)


def _clear_runs(m: Measurement) -> None:
    m.samples_us, m.reference_us, m.pipes, m.placements = [], [], [], []
    m.frontier_samples_us, m.frontier_round = [], None


async def one_run(backend: Backend, step: str, parameters: dict[str, Scalar]) -> BenchOutcome:
    with HeldFinish(backend.site, step) as finish:
        outcome = await benchmark_step(backend, step, parameters)
        finish.release("" if outcome.valid and outcome.correct else outcome.problem or "invalid result")
    return outcome


async def benchmark_step(backend: Backend, step: str, parameters: dict[str, Scalar]) -> BenchOutcome:
    """One benchmark run; a run past its limit ([limits]) is a failed run that says so."""
    try:
        return await backend.benchmark(step, parameters)
    except StepTimedOut as error:
        return BenchOutcome(problem=error.after)


async def build_step(
    backend: Backend, parameters: dict[str, Scalar], step: str = "build"
) -> tuple[bool, str]:
    """(ok, problem) of a build; one past its limit failed: "build timed out after 1800 s"."""
    try:
        return await backend.build(parameters, step)
    except StepTimedOut as error:
        return False, error.render()


async def prediction_step(backend: Backend, parameters: dict[str, Scalar], m: Measurement) -> None:
    """perf_sim's cycles of the configuration just measured, into `m` beside its samples
    ([target] predict; nothing when the backend does not predict). A prediction that fails
    says why in `m.prediction_problem` and leaves the measurement as it was."""
    prediction = await backend.predict(parameters)
    if prediction is None:
        return
    if prediction.cycles is None:
        m.prediction_problem = prediction.problem or "no perf_sim cycles"
        say(backend.site, f"perf_sim prediction: none ({m.prediction_problem})", PREDICTION_STEP)
        return
    m.predicted_cycles, m.prediction_problem = prediction.cycles, ""
    if prediction.pipes:
        m.pipes = list(prediction.pipes)
    say(backend.site, f"perf_sim prediction: {prediction.cycles} cycles", PREDICTION_STEP)


def warm_up_step(index: int, plan: RunPlan) -> str:
    return f"warm-up {index + 1}/{plan.warmup}"


def take_warm_up(outcome: BenchOutcome, index: int, m: Measurement) -> bool:
    """Untimed run `index` (its numbers dropped); False (the problem in `m`) when it failed:
    a benchmark that cannot run warm cannot be timed either."""
    if outcome.valid and outcome.correct is not False:
        return True
    m.problem = f"warm-up run {index + 1}: {outcome.problem or 'invalid result'}"
    if outcome.correct is False:
        m.correctness = "fail"
    _clear_runs(m)
    return False
