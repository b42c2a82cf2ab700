"""Tools that write the campaign: the environment round, the baselines and a round's
life-cycle (start, changes, measure, run, close).

Each opens the campaign for the one call (each write in it takes the project lock) and
calls the same Campaign methods and backend services as the CLI, so the same rules refuse. Long steps
(env, torch_baseline, baseline, round_run) send progress notifications per step.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult

from pto_tui.backends.environment import run_environment
from pto_tui.backends.loop import run_baseline, run_round
from pto_tui.backends.reference import run_reference
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Scalar
from pto_tui.core.rounds.record_toml import round_to_dict
from pto_tui.core.rounds.records import EnvironmentNotes, TorchBaseline
from pto_tui.core.vocabulary import ChangeKind, Verdict
from pto_tui.mcp.envelope import ok
from pto_tui.mcp.inputs import MeasurementInput, PreEditAnswers
from pto_tui.mcp.progress import ProgressRelay, with_runner
from pto_tui.mcp.projects import Projects, guarded


def _relay(ctx: Context) -> ProgressRelay:
    async def notify(progress: float, total: float | None, message: str) -> None:
        await ctx.report_progress(progress, total, message)

    return ProgressRelay(notify)


async def _service(
    campaign: Campaign, ctx: Context, service: Any, **options: Any
) -> tuple[Any, ProgressRelay]:
    """Run a backend service on the campaign with progress notifications."""
    relay = _relay(ctx)
    try:
        result = await with_runner(
            campaign.layout, lambda runner: service(campaign, runner, relay, **options)
        )
    finally:
        await relay.drain()
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
    @guarded
    async def env(
        ctx: Context,
        project: str = "",
        probes: dict[str, bool] | None = None,
        declare_environment: str = "",
    ) -> CallToolResult:
        """The environment round (docs/workflow.md §6): run the probes on the target, or
        record results given as probes {name: passed}. Tuning stays locked until it passes;
        probes given by hand pass only with declare_environment, the reason (recorded)."""
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
                return ok({"environment_passed": notes.passed, **notes.__dict__}, campaign.warnings)
            notes, relay = await _service(campaign, ctx, run_environment)
            data = {"environment_passed": notes.passed, **notes.__dict__}  # env.schema.json
            return ok(data, campaign.warnings, steps=relay.steps)

    @guarded
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
    ) -> CallToolResult:
        """The torch_npu reference: measured on the target, or given (avg/min/max in us)."""
        given = [avg_us, min_us, max_us]
        with projects.campaign(project, write=True, command="torch-baseline") as campaign:
            if avg_us is None or min_us is None or max_us is None:
                if any(v is not None for v in given):
                    raise InputError(
                        "give all of avg_us, min_us and max_us, or none to measure on the target"
                    )
                measured, relay = await _service(campaign, ctx, run_reference)
                return ok(measured.__dict__, campaign.warnings, steps=relay.steps)
            baseline = TorchBaseline(avg_us, min_us, max_us, tflops, label=label, warmup=warmup, runs=runs)
            if not (0 < min_us <= avg_us <= max_us):
                raise InputError("expected 0 < min <= avg <= max")
            campaign.set_torch_baseline(baseline)
            return ok(baseline.__dict__, campaign.warnings)

    @guarded
    async def baseline(
        ctx: Context, project: str = "", measurement: MeasurementInput | None = None, analysis: str = ""
    ) -> CallToolResult:
        """iter-000, the initial PTO measurement: measured on the target, or given."""
        with projects.campaign(project, write=True, command="baseline") as campaign:
            if measurement is None:
                record, relay = await _service(campaign, ctx, run_baseline)
                return ok(round_to_dict(record), campaign.warnings, steps=relay.steps)
            given = measurement.to_record(campaign, projects.within)
            record = campaign.record_baseline(given, analysis=analysis)
            return ok(round_to_dict(record), campaign.warnings)

    for tool in (env, torch_baseline, baseline):
        server.add_tool(tool)


def _register_round(server: MCPServer, projects: Projects) -> None:
    """Long on purpose: one short tool per closure, each bound to `projects`; the
    tools read best side by side."""

    @guarded
    def round_start(
        pre_edit: PreEditAnswers,
        project: str = "",
        title: str = "",
        phase: str | None = None,
        based_on: int | None = None,
        restore: bool = False,
    ) -> CallToolResult:
        """Open the next round with its Pre-Edit answers; refused until every gate passes."""
        pre = pre_edit.to_record()
        with projects.campaign(project, write=True, command="round start") as campaign:
            request = StartRequest(pre, phase=phase, based_on=based_on, title=title, restore=restore)
            record = campaign.start_round(request)
            return ok(round_to_dict(record), campaign.warnings)

    @guarded
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
    ) -> CallToolResult:
        """Record the open round's changes: the files edited in the workspace (detected),
        the tunables set (parameters), the justification of a high-risk change."""
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
            return ok(round_to_dict(record), campaign.warnings)

    @guarded
    def round_measure(
        measurement: MeasurementInput, project: str = "", number: int | None = None
    ) -> CallToolResult:
        """Record build, correctness and benchmark samples measured elsewhere."""
        with projects.campaign(project, write=True, command="round measure") as campaign:
            record = campaign.record_measurement(measurement.to_record(campaign, projects.within), number)
            return ok(round_to_dict(record), campaign.warnings)

    @guarded
    async def round_run(
        ctx: Context, project: str = "", analysis: str = "", next_step: str = "", close: bool = True
    ) -> CallToolResult:
        """Run the open round on the target: sync, build, correctness, then the benchmark
        repeats; the verdict comes from the measurements and the round closes (close=false:
        it stays open for `round_close`)."""
        with projects.campaign(project, write=True, command="round run") as campaign:
            options = {"close": close, "analysis": analysis, "next_step": next_step}
            record, relay = await _service(campaign, ctx, run_round, **options)
            if not close:
                record = campaign.preview(record.number)
            return ok(round_to_dict(record), campaign.warnings, steps=relay.steps)

    @guarded
    def round_close(
        project: str = "",
        number: int | None = None,
        analysis: str = "",
        next_step: str = "",
        verdict: str = "",
    ) -> CallToolResult:
        """Close the round with the verdict its measurements give; a claimed verdict the
        numbers do not support is refused."""
        with projects.campaign(project, write=True, command="round close") as campaign:
            claimed = _enum(Verdict, verdict, "verdict")
            record = campaign.close_round(CloseRequest(number, analysis, next_step, claimed))
            return ok(round_to_dict(record), campaign.warnings)

    for tool in (round_start, round_changes, round_measure, round_run, round_close):
        server.add_tool(tool)
