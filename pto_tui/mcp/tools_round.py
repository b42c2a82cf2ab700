"""Tools that write the campaign: the environment round, the baselines and a round's
life-cycle (start, changes, measure, run, close).

Each opens the campaign for the one call (each write in it takes the project lock) and
calls the same Campaign methods and backend services as the CLI, so the same rules refuse. Long steps
(env, torch_baseline, baseline, round_run) send progress notifications per step.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from pto_tui.backends.environment import run_environment
from pto_tui.backends.loop import planned_steps, run_baseline, run_round
from pto_tui.backends.reference import run_reference
from pto_tui.backends.resume import resume_round
from pto_tui.core import payloads
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.prefill import prefill as prefill_answers
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Scalar
from pto_tui.core.rounds.records import EnvironmentNotes, PreEdit, TorchBaseline
from pto_tui.core.vocabulary import ChangeKind, Verdict
from pto_tui.mcp.catalog import Answer, add
from pto_tui.mcp.inputs import MeasurementInput, PreEditAnswers
from pto_tui.mcp.progress import ProgressRelay, with_runner
from pto_tui.mcp.projects import Projects


def _relay(ctx: Context, total: float | None) -> ProgressRelay:
    async def notify(progress: float, total: float | None, message: str) -> None:
        await ctx.report_progress(progress, total, message)

    return ProgressRelay(notify, total)


async def _service(
    campaign: Campaign, ctx: Context, service: Any, total: float | None = None, **options: Any
) -> tuple[Any, ProgressRelay]:
    """Run a backend service on the campaign with progress notifications (`total`: the
    steps it plans, when known; its records, written at the end, are one more)."""
    relay = _relay(ctx, total + 1 if total is not None else None)
    try:
        result = await with_runner(
            campaign.layout, lambda runner: service(campaign, runner, relay, **options)
        )
    finally:
        await relay.drain()
    await relay.finish()
    return result, relay


def _enum(kind: type[ChangeKind] | type[Verdict], text: str, key: str) -> Any:
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        known = ", ".join(k.value for k in kind)
        raise InputError(f"{key}: unknown value {text!r}; one of {known}", key=key) from None


def register(server: MCPServer, projects: Projects) -> None:
    _register_fixed_points(server, projects)
    _register_round(server, projects)


def _register_fixed_points(server: MCPServer, projects: Projects) -> None:
    """Long on purpose: the three fixed points' tools (env, torch_baseline, baseline), one
    closure each bound to `projects`, read best side by side."""
    async def env(
        ctx: Context,
        project: str = "",
        probes: dict[str, bool] | None = None,
        declare_environment: str = "",
    ) -> Answer:
        """The environment round (docs/workflow.md §6): run the probes on the target, or
        record results given as probes {name: passed}. Tuning stays locked until it passes;
        it may be run again until it does (each attempt is kept). Probes given by hand pass
        only with declare_environment, the reason (recorded). The data has the versions,
        the build outcome and the first valid result."""
        if declare_environment and not probes:
            raise InputError(
                "declare_environment goes with the probes it declares", key="declare_environment"
            )
        with projects.campaign(project, write=True, command="env") as campaign:
            if probes:
                notes = EnvironmentNotes(
                    probes=dict(probes),
                    passed=all(probes.values()),
                    declared_by="mcp",
                    declared_reason=declare_environment,
                )
                campaign.record_environment(notes)
                return Answer({"environment_passed": notes.passed, **notes.__dict__}, campaign.warnings)
            notes, relay = await _service(campaign, ctx, run_environment)
            data = {"environment_passed": notes.passed, **notes.__dict__}  # env.schema.json
            return Answer(data, campaign.warnings, relay.steps)

    async def torch_baseline(
        ctx: Context,
        project: str = "",
        avg_us: float | None = None,
        min_us: float | None = None,
        max_us: float | None = None,
        tflops: float | None = None,
        warmup: int = 0,
        runs: int = 0,
        label: str = "torch_npu",
    ) -> Answer:
        """The torch_npu reference: measured on the target, or given (avg/min/max in us)."""
        given = [avg_us, min_us, max_us]
        with projects.campaign(project, write=True, command="torch-baseline") as campaign:
            if avg_us is None or min_us is None or max_us is None:
                if any(v is not None for v in given):
                    raise InputError(
                        "give all of avg_us, min_us and max_us, or none to measure on the target"
                    )
                measured, relay = await _service(campaign, ctx, run_reference)
                return Answer(measured.__dict__, campaign.warnings, relay.steps)
            baseline = TorchBaseline(avg_us, min_us, max_us, tflops, label=label, warmup=warmup, runs=runs)
            if not (0 < min_us <= avg_us <= max_us):
                raise InputError("expected 0 < min <= avg <= max")
            campaign.set_torch_baseline(baseline)
            return Answer(baseline.__dict__, campaign.warnings)

    async def baseline(
        ctx: Context, project: str = "", measurement: MeasurementInput | None = None, analysis: str = ""
    ) -> Answer:
        """iter-000, the initial PTO measurement: measured on the target, or given."""
        with projects.campaign(project, write=True, command="baseline") as campaign:
            if measurement is None:
                steps = planned_steps(campaign.config)
                record, relay = await _service(campaign, ctx, run_baseline, steps)
                return Answer(payloads.round_json(record), campaign.warnings, relay.steps)
            given = measurement.to_record(campaign, projects.within)
            record = campaign.record_baseline(given, analysis=analysis)
            return Answer(payloads.round_json(record), campaign.warnings)

    for tool in (env, torch_baseline, baseline):
        add(server, tool)


async def _start_answers(projects: Projects, project: str, pre: PreEdit, from_suggestion: str) -> str:
    """`round start --from-suggestion`: the suggestion's ranking first in the evidence, its
    knob in the scope; the title it gives."""
    from pto_tui.costmodel.suggest import pick_suggestion
    from pto_tui.mcp.tools_summary import project_engine

    layout, config, engine, cache = project_engine(projects, project)
    pick = await pick_suggestion(layout.workspace, config, engine, cache, from_suggestion)
    pre.evidence = pick.evidence + (f"\n{pre.evidence}" if pre.evidence.strip() else "")
    if pick.knob not in pre.scope:
        pre.scope.append(pick.knob)
    return f"{pick.knob} {pick.current} -> {pick.value} (costmodel)"


def _register_round(server: MCPServer, projects: Projects) -> None:
    """Long on purpose: one short tool per closure, each bound to `projects`; the
    tools read best side by side."""

    async def round_start(
        pre_edit: PreEditAnswers,
        project: str = "",
        title: str = "",
        phase: str | None = None,
        based_on: int | None = None,
        restore: bool = False,
        prefill: bool = False,
        prefill_round: int | None = None,
        from_suggestion: str = "",
    ) -> Answer:
        """Open the next round with its Pre-Edit answers; refused until every gate passes.
        prefill: the answers not given are drafted from the last closed round (or
        prefill_round): kernel, class, evidence, correctness plan, checklist notes; the
        hypothesis and the scope stay yours. from_suggestion: "KNOB" or "KNOB=VALUE", the
        costmodel's ranking as the evidence and the knob in the scope (the `suggest` tool).
        restore: put the base round's files back in the workspace first."""
        pre = pre_edit.to_record()
        if from_suggestion:
            title = title or await _start_answers(projects, project, pre, from_suggestion)
        with projects.campaign(project, write=True, command="round start") as campaign:
            if prefill or prefill_round is not None:
                pre = prefill_answers(campaign.current_rounds(), pre, prefill_round).pre_edit
            request = StartRequest(pre, phase=phase, based_on=based_on, title=title, restore=restore)
            record = campaign.start_round(request)
            return Answer(payloads.round_json(record), campaign.warnings)

    def round_changes(
        project: str = "",
        number: int | None = None,
        kind: str = "",
        description: str = "",
        parameters: dict[str, Scalar] | None = None,
        bug_fix: str = "",
        justify: str = "",
        approve_tolerance: str = "",
        approve_discipline: str = "",
    ) -> Answer:
        """Record the open round's changes: the files edited in the workspace (detected),
        the tunables set (parameters), the justification of a high-risk change (justify),
        a protected file's declared bug fix (bug_fix, with its reason)."""
        with projects.campaign(project, write=True, command="round changes") as campaign:
            request = ChangesRequest(
                number,
                kind=_enum(ChangeKind, kind, "kind"),
                description=description,
                parameters=dict(parameters or {}),
                bug_fix=bug_fix,
                risk_justification=justify,
                tolerance_approval=approve_tolerance,
                discipline_approval=approve_discipline,
            )
            record = campaign.record_changes(request)
            return Answer(payloads.round_json(record), campaign.warnings)

    def round_measure(measurement: MeasurementInput, project: str = "", number: int | None = None) -> Answer:
        """Record build, correctness and benchmark samples measured elsewhere."""
        with projects.campaign(project, write=True, command="round measure") as campaign:
            record = campaign.record_measurement(measurement.to_record(campaign, projects.within), number)
            return Answer(payloads.round_json(record), campaign.warnings)

    async def round_run(
        ctx: Context, project: str = "", analysis: str = "", next_step: str = "", close: bool = True,
        resume: bool = False,
    ) -> Answer:
        """Run the open round on the target: sync, build, correctness, then the benchmark
        repeats; the verdict comes from the measurements and the round closes (close=false:
        it stays open for `round_close`). Progress: one notification per step start and
        end, with the planned total. resume: go on from the round's unfinished run (`status`
        lists unfinished_measurements): what it recorded is not run again."""
        with projects.campaign(project, write=True, command="round run") as campaign:
            options = {"close": close, "analysis": analysis, "next_step": next_step}
            service = resume_round if resume else run_round
            steps = planned_steps(campaign.config)
            record, relay = await _service(campaign, ctx, service, steps, **options)
            if not close:
                record = campaign.preview(record.number)
            return Answer(payloads.round_json(record), campaign.warnings, relay.steps)

    def round_close(
        project: str = "",
        number: int | None = None,
        analysis: str = "",
        next_step: str = "",
        verdict: str = "",
    ) -> Answer:
        """Close the round with the verdict its measurements give; a claimed verdict the
        numbers do not support is refused. A large gain closes held for review (a success:
        held_for_review is true, a warning says so) until the user confirms it."""
        with projects.campaign(project, write=True, command="round close") as campaign:
            claimed = _enum(Verdict, verdict, "verdict")
            record = campaign.close_round(CloseRequest(number, analysis, next_step, claimed))
            return Answer(payloads.round_json(record), campaign.warnings)

    for tool in (round_start, round_changes, round_measure, round_run, round_close):
        add(server, tool)
