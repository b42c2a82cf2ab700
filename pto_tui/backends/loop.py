"""The measured part of the loop (docs/workflow.md §8, §9): baseline and rounds, end to end.

A round run: record the changes (files and diff as they are now) -> sync -> build ->
correctness -> only then the benchmark, repeated per the project's discipline -> (with
[target] predict) one perf_sim run of the same build, its cycles recorded beside the
measurement -> verdict -> records. After the minimum of runs, a round measures on while its verdict is
undecided, up to the discipline's max_repeats; with `interleave` on, in pairs with runs of
the frontier's own build on the same target (`interleave.py`). A step past its limit
([limits]) is stopped and fails the round ("build timed out after 1800 s"). A cancelled or
lost step raises and leaves the round open with nothing half-written: measurements are recorded only once
every step has finished (each run's sample is kept in the round's sample journal as it
ends, so none is lost).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TypeVar

from pto_tui.backends.interleave import Interleave, interleaved_frontier
from pto_tui.backends.kinds.backend import Backend
from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.runs import HeldFinish, RunPlan, benchmark_runs, build_step, prediction_step
from pto_tui.backends.sample_journal import SampleJournal
from pto_tui.backends.site import EventSink, OperatorSite, StepTimedOut
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.opening import check_baseline_may_run
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest
from pto_tui.core.operators.case_strings import attention_dims
from pto_tui.core.project.config import CaseConfig, OperatorConfig, ProjectConfig, Scalar
from pto_tui.core.project.modes import mode_spec
from pto_tui.core.reports.parsers import attention_flops
from pto_tui.core.rounds.prediction import predicts
from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.jobs.runner import JobRunner


def case_flops(case: CaseConfig, operator: OperatorConfig | None = None) -> float | None:
    """FLOPs of an attention-shaped case (docs/formats.md §5), None when the shape says nothing.

    The shape is `[case.shape]`, or, without one, the fields of the case string by the
    operator's declared format (a spec that does not fit it raises, naming the field)."""
    dims = attention_dims(case, operator)
    if not {"sq", "skv", "d"} <= set(dims):
        return None
    b, n = dims.get("b", 1), dims.get("n", 1)
    return attention_flops(b, n, dims["sq"], dims["skv"], dims["d"], case.causal)


SiteT = TypeVar("SiteT", bound=OperatorSite)

CONFIRMATION_RUNS = 2  # a deterministic metric's run and its confirmation


def run_plan(config: ProjectConfig, undecided: Callable[[Measurement], str | None] | None = None) -> RunPlan:
    """The discipline's plan. A benchmark command that takes {warmup} warms up inside each
    run, so pto-tui adds no untimed runs of its own; nor does a deterministic metric (a
    cycle model has no cold state), which stops after a run and its confirmation agree."""
    d = config.discipline
    deterministic = mode_spec(config.target.mode).deterministic
    warmup = 0 if deterministic or "{warmup}" in config.commands.benchmark else d.warmup
    confirm = min(CONFIRMATION_RUNS, d.repeats) if deterministic else 0
    if undecided is None:
        return RunPlan(d.repeats, d.repeats, warmup, confirm=confirm)
    return RunPlan(d.repeats, max(d.repeats, d.max_repeats), warmup, undecided, confirm)


async def measure(
    backend: Backend,
    parameters: dict[str, Scalar],
    plan: RunPlan,
    journal: Callable[[Measurement], None] | None = None,
    so_far: Measurement | None = None,
    frontier: Interleave | None = None,
) -> Measurement:
    """Build, correctness, then the plan's benchmark runs; stops at the first failure. A
    measured round of a project that predicts ([target] predict) then runs the perf_sim
    driver once for its prediction (a prediction that fails is recorded, never fails it).
    `journal` is given the measurement so far as each step ends. `so_far` is what a run
    of the same round that pto-tui left had measured (its journal): the build, correctness
    and benchmark runs it holds are not run again. With `frontier` the benchmark runs
    alternate with the frontier's (`interleave`)."""
    m = copy.deepcopy(so_far) if so_far is not None else Measurement()
    keep = journal or (lambda _m: None)
    if m.build != "ok":
        ok, problem = await build_step(backend, parameters)
        m.build = "ok" if ok else "failed"
        if not ok:
            m.problem = problem
            return m
        keep(m)
    if m.correctness != "pass":
        with HeldFinish(backend.site, "correctness") as finish:
            try:
                passed, problem = await backend.correctness(parameters)
            except StepTimedOut as error:  # no verdict on the numbers: the round is invalid
                m.problem = error.render()
                return m
            finish.release(problem if passed is False else "")
        if passed is False:
            m.correctness, m.problem = "fail", problem
            return m
        if passed:
            m.correctness = "pass"
            keep(m)
    if frontier is None:
        await benchmark_runs(backend, parameters, plan, m, keep)
    else:
        await frontier.runs(backend, parameters, plan, m, keep)
    if m.samples_us and not m.problem and not predicts(m):
        await prediction_step(backend, parameters, m)
        keep(m)
    return m


def undecided_after(campaign: Campaign, number: int) -> Callable[[Measurement], str | None]:
    """Why round `number` would close inconclusive with a measurement so far, and more
    runs could still decide it (None when they could not): the rule its close applies."""

    def why(m: Measurement) -> str | None:
        result = campaign.judge_measurement(number, m)
        return None if result.settled else result.pending

    return why


def site_for(campaign: Campaign, runner: JobRunner, on_event: EventSink | None = None) -> OperatorSite:
    return pin_to_baseline(OperatorSite(campaign.layout, campaign.config, runner, on_event), campaign)


def pin_to_baseline(site: SiteT, campaign: Campaign) -> SiteT:
    """With [target.slurm] same_node, NPU steps run on the node the baseline ran on."""
    baseline = campaign.baseline_record()
    nodes = baseline.measurement.nodes if baseline is not None and baseline.is_closed else []
    if site.same_node and nodes:
        site.pinned_node = nodes[0]
    return site


async def run_round(
    campaign: Campaign,
    runner: JobRunner,
    on_event: EventSink | None = None,
    *,
    close: bool = True,
    analysis: str = "",
    next_step: str = "",
) -> Round:
    """Run the open round end to end and close it with its verdict. With close=False the
    measurements are recorded and the round stays open, so Analysis and Next can be written
    (Campaign.preview shows the verdict it would get) before Campaign.close_round."""
    record = campaign.open_round()
    with campaign.running(record.number, "round run"):  # no other writer, no second build
        if record.group and record.snapshot:  # an explore round: its own files, not another's
            campaign.snapshots.restore(record.snapshot)
        record = campaign.record_changes(ChangesRequest(record.number))  # files and diff as measured
        campaign.preflight(record)
        site = site_for(campaign, runner, on_event)
        site.for_round(record.number)
        flops = case_flops(campaign.config.case, campaign.config.operator)
        frontier = await interleaved_frontier(campaign, site, flops)  # its files, before any run
        await site.sync()
        backend = backend_for(site, flops)
        plan = run_plan(campaign.config, undecided_after(campaign, record.number))
        journal = SampleJournal.begin(campaign.layout, record.number, plan.repeats)
        measurement = await measure(backend, dict(record.changes.parameter_values), plan, journal.write,
                                    frontier=frontier)
        measured = campaign.record_measurement(measurement, record.number)
        journal.finished()
        if not close:
            return measured
        return campaign.close_round(CloseRequest(record.number, analysis=analysis, next_step=next_step))


async def run_baseline(campaign: Campaign, runner: JobRunner, on_event: EventSink | None = None) -> Round:
    """Measure the unmodified operator and record it as iter-000 (refused before any run
    while the environment round has not passed, or once the baseline is recorded)."""
    check_baseline_may_run(campaign.baseline_record())
    with campaign.running(0, "baseline"):
        site = site_for(campaign, runner, on_event)
        site.for_round(0)
        await site.sync()
        backend = backend_for(site, case_flops(campaign.config.case, campaign.config.operator))
        parameters = {name: t.value for name, t in campaign.config.tunables.items()}
        plan = run_plan(campaign.config)  # nothing to compare with: the minimum of runs
        journal = SampleJournal.begin(campaign.layout, 0, plan.repeats)
        measurement = await measure(backend, parameters, plan, journal.write)
        baseline = campaign.record_baseline(measurement)  # refuses an invalid run, naming why
        journal.finished()
        return baseline


def planned_steps(config: ProjectConfig) -> int:
    """The steps a round's (or the baseline's) run plans, for a progress total: the build,
    the correctness check when the project has a command for it, the untimed warm-ups and
    the timed runs (each twice when the frontier is measured alternately). More runs may
    follow while the verdict is undecided."""
    plan = run_plan(config)
    timed = plan.confirm or plan.repeats
    twice = 2 if config.discipline.interleave else 1
    return 1 + bool(config.commands.correctness.strip()) + plan.warmup + timed * twice
