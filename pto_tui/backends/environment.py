"""The environment round (docs/workflow.md §6): the target kind's probes, the operator
kind's for the target's mode, each a job whose log is kept, recorded as iter-000's
environment notes. Tuning stays locked until it passes.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from pto_tui.backends.environment_checks import (
    BUILD_STEP,
    FIRST_PREDICTION,
    FIRST_RESULT_STEP,
    FULL_BUILD,
    JOB_LABEL,
    ONE_VALID_RESULT,
    SYNC_VERSION,
    WORK_DIR_EXISTS,
    WORKSPACE_UPLOADED,
    probe_step,
    problem_line,
)
from pto_tui.backends.kinds.backend import Backend
from pto_tui.backends.kinds.registry import backend_for, runtime_kind
from pto_tui.backends.loop import case_flops, site_for
from pto_tui.backends.probes import driver_probes
from pto_tui.backends.runs import HeldFinish, benchmark_step, build_step
from pto_tui.backends.site import EventSink, OperatorSite, StepInterrupted, StepTimedOut
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.opening import check_environment_may_run
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.operators.case_strings import check_case_given
from pto_tui.core.operators.script_imports import command_scripts, third_party_imports
from pto_tui.core.project.config import ProjectConfig, Scalar, operator_folder
from pto_tui.core.rounds.records import EnvironmentNotes
from pto_tui.jobs.probes import ENV_SETUP, Probe
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.targets import target_kind

PROBE_TIMEOUT = 120.0


def probes_for(
    config: ProjectConfig, operator: Path | None = None, workspace: Path | None = None
) -> list[Probe]:
    """The probes of the operator kind's toolchain in the target's mode (a demo operator
    checks the CPU toolchain instead of Bisheng, CANN and the NPU; a cpu-sim target the
    compiler its build uses, said so in the probe names; the perf_sim driver's compiler
    where the target predicts with it), then the third-party Python
    modules the operator's scripts import (read from its folder in the local workspace)."""
    kind, mode = config.operator.kind, config.target.mode
    toolchain = runtime_kind(kind).probes.get(mode)
    if toolchain is None:  # project.toml refuses such a mode: never reached from a project
        raise InputError(f"{kind.value} operators do not run in mode {mode.value!r}", key="target.mode")
    probes = toolchain(config.target)
    if config.target.predict:  # each round also builds and runs the perf_sim driver
        probes += driver_probes(config.target)
    if operator is not None:
        probes += _module_probes(config, operator, workspace)
    return probes


def _module_probes(config: ProjectConfig, operator: Path, workspace: Path | None) -> list[Probe]:
    commands = (config.commands.build, config.commands.benchmark, config.commands.correctness)
    scripts = [s for c in commands for s in command_scripts(c, operator)]
    probes = []
    for module, where in third_party_imports(scripts, workspace).items():
        check = f"import {module}; print(getattr({module}, '__version__', 'ok'))"
        name = f"python module {module} ({where} imports it)"
        probes.append(Probe(name, f"python3 -c {shlex.quote(check)}", module))
    return probes


async def _probe(site: OperatorSite, probe: Probe, notes: EnvironmentNotes, cwd: str = "") -> bool:
    try:
        out = await site.run(probe_step(probe.name), probe.command, cwd=cwd, timeout=PROBE_TIMEOUT,
                             env_setup=probe.env_setup, needs=probe.needs)
    except (StepInterrupted, StepTimedOut) as error:
        notes.problems.append(probe.failed(error.render()))
        return False
    ok = out.ok
    if ok and probe.version_of and out.stdout:
        notes.versions[probe.version_of] = out.stdout[probe.version_line].strip()
    if not ok:
        notes.problems.append(probe.failed(out.failure(3)))
    return ok


async def run_environment(
    campaign: Campaign, runner: JobRunner, on_event: EventSink | None = None
) -> EnvironmentNotes:
    """Probe the target, upload the workspace, build once and get one valid result
    (refused before any probe once the baseline has closed iter-000)."""
    check_environment_may_run(campaign.baseline_record())
    config = campaign.config
    for command in (config.commands.build, config.commands.correctness, config.commands.benchmark):
        check_case_given(config.operator, config.case, command)  # before any probe
    with campaign.running(0, "environment round"):  # it builds in the workspace
        return await _environment(campaign, runner, on_event)


async def _environment(
    campaign: Campaign, runner: JobRunner, on_event: EventSink | None
) -> EnvironmentNotes:
    config = campaign.config
    site = site_for(campaign, runner, on_event)
    site.for_round(0, JOB_LABEL)
    notes = EnvironmentNotes()
    # the target kind's own probes first, from "/": the work dir may not exist before the
    # first upload
    reach = True
    kind = target_kind(config.target.kind)
    set_up = [ENV_SETUP] if config.target.env_setup.strip() else []
    # the kind's probes that depend on the target's settings (Slurm's) after the set-up
    for probe in [*kind.probes, *set_up, *kind.target_probes(config.target)]:
        notes.probes[probe.name] = await _probe(site, probe, notes, cwd="/")
        reach = reach and notes.probes[probe.name]
    if not reach:
        notes.problems.append("the other checks were not run: every one runs on the target "
                              "after the checks above, which failed")
    else:
        try:
            notes.versions[SYNC_VERSION] = await site.sync()
            notes.probes[WORKSPACE_UPLOADED] = True
        except PtoError as error:
            notes.probes[WORKSPACE_UPLOADED] = False
            notes.problems.append(f"workspace upload: {error.render()}")
        where = f"test -d {site.subdir} && echo present"
        notes.probes[WORK_DIR_EXISTS] = await _probe(site, Probe(WORK_DIR_EXISTS, where), notes)
        operator = site.layout.workspace / operator_folder(config)
        for probe in probes_for(config, operator if operator.is_dir() else None, site.layout.workspace):
            notes.probes[probe.name] = await _probe(site, probe, notes)
        await _first_result(campaign, site, notes)
    notes.passed = bool(notes.probes) and all(notes.probes.values())
    campaign.record_environment(notes)
    return notes


async def _first_result(campaign: Campaign, site: OperatorSite, notes: EnvironmentNotes) -> None:
    """One full build and one valid result (for DSL: baseline and PTO both ok)."""
    backend = backend_for(site, case_flops(campaign.config.case, campaign.config.operator))
    parameters = {name: t.value for name, t in campaign.config.tunables.items()}
    ok, problem = await build_step(backend, parameters, BUILD_STEP)
    notes.build_outcome = "build succeeded" if ok else problem
    notes.probes[FULL_BUILD] = ok
    if not ok:
        notes.problems.append(problem)
        return
    with HeldFinish(site, FIRST_RESULT_STEP) as finish:
        outcome = await benchmark_step(backend, FIRST_RESULT_STEP, parameters)
        valid = outcome.valid and bool(outcome.correct)
        # a run read from what it prints ([result]) carries no reference of its own
        needs_reference = runtime_kind(campaign.config.operator.kind).needs_reference
        needs_reference = needs_reference and not campaign.config.result.printed
        no_baseline = needs_reference and outcome.reference_us is None
        if valid and no_baseline:
            valid = False
            why = outcome.reference_problem or "baseline.benchmark not ok"
            notes.problems.append(f"report.json has no benchmarked baseline ({why})")
        finish.release("" if valid else outcome.problem or "; ".join(notes.problems[-1:]))
    notes.probes[ONE_VALID_RESULT] = valid
    if valid:
        notes.first_valid_result = f"{site.target.label}:{site.subdir}/{outcome.report}"
        await _first_prediction(backend, parameters, notes)
    elif outcome.problem:
        notes.problems.append(problem_line(FIRST_RESULT_STEP, outcome.problem))


async def _first_prediction(backend: Backend, parameters: dict[str, Scalar], notes: EnvironmentNotes) -> None:
    """A target that predicts ([target] predict): the driver built alongside gives its
    cycles once, or the round says why every round would go without a prediction."""
    prediction = await backend.predict(parameters)
    if prediction is None:
        return
    notes.probes[FIRST_PREDICTION] = prediction.cycles is not None
    if prediction.cycles is None:
        notes.problems.append(problem_line(FIRST_PREDICTION, prediction.problem))
    else:
        notes.versions[FIRST_PREDICTION] = f"{prediction.cycles} cycles"
