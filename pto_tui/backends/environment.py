"""The environment round (docs/workflow.md §6): probes per operator kind, each a job whose
log is kept, recorded as iter-000's environment notes. Tuning stays locked until it passes.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from pto_tui.backends.environment_checks import (
    BUILD_STEP,
    FIRST_RESULT_STEP,
    FULL_BUILD,
    JOB_LABEL,
    ONE_VALID_RESULT,
    SYNC_VERSION,
    TARGET_REACHABLE,
    TARGET_VERSION,
    WORK_DIR_EXISTS,
    WORKSPACE_UPLOADED,
    probe_step,
    problem_line,
)
from pto_tui.backends.kinds import backend_for
from pto_tui.backends.loop import case_flops, site_for
from pto_tui.backends.runs import HeldFinish
from pto_tui.backends.site import EventSink, OperatorSite, StepInterrupted
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import PtoError
from pto_tui.core.operators.script_imports import command_scripts, third_party_imports
from pto_tui.core.project.config import CPU_SIM, DEMO, ProjectConfig, Target, operator_folder
from pto_tui.core.rounds.records import EnvironmentNotes
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.jobs.runner import JobRunner

PROBE_TIMEOUT = 120.0


@dataclass(frozen=True)
class Probe:
    name: str
    command: str
    version_of: str = ""  # record the first output line as this tool's version


def probes_for(config: ProjectConfig, operator: Path | None = None) -> list[Probe]:
    """Version and presence probes for the operator's kind and the target's mode, then the
    third-party Python modules the operator's scripts import (read from its folder in the
    local workspace). A demo operator checks the CPU toolchain instead of Bisheng, CANN and
    the NPU; a cpu-sim target the compiler its build uses (said so in the probe names)."""
    kind, mode = config.operator.kind, config.target.mode
    if mode == DEMO:
        probes = _demo_probes(kind)
    elif mode == CPU_SIM:
        probes = _cpu_sim_probes(config.target)
    elif kind is OperatorKind.PTO_DSL:
        probes = [PYTHON, *_DSL_NPU]
    else:
        probes = [*_TILE_LIB_NPU, PYTHON]
    if operator is not None:
        probes += _module_probes(config, operator)
    return probes


PYTHON = Probe("python", "command -v python3 && python3 --version", "python")
CMAKE = Probe("cmake", "cmake --version", "cmake")
_DSL_NPU = [
    Probe("pto dialect", "python3 -c 'import mlir.ir; from mlir.dialects import pto; print(\"ok\")'"),
    Probe(
        "torch_npu",
        "python3 -c 'import torch, torch_npu; print(torch.__version__, torch.npu.is_available())'",
        "torch",
    ),
    Probe("ptoas", "ptoas --version", "ptoas"),
]
_TILE_LIB_NPU = [
    Probe("bisheng", "bisheng --version", "bisheng"),
    Probe(
        "CANN",
        'home="${ASCEND_TOOLKIT_HOME:-$ASCEND_HOME_PATH}"; test -n "$home" && echo "$home"',
        "CANN",
    ),
    Probe("ACL runtime / NPU", "npu-smi info", "npu-smi"),
    CMAKE,
]
# a C++20 program compiled, linked and run with the build's compiler and flags
_COMPILE = (
    'd=$(mktemp -d) && printf \'#include <cstdio>\\nint main() {{ std::puts("ok"); }}\\n\' > "$d/probe.cpp"'
    ' && {compiler} -std=c++20 {flags} "$d/probe.cpp" -o "$d/probe" && "$d/probe"; s=$?; rm -rf "$d"; exit $s'
)


def _demo_probes(kind: OperatorKind) -> list[Probe]:
    if kind is OperatorKind.PTO_DSL:
        return [PYTHON, Probe("numpy (demo)", "python3 -c 'import numpy; print(numpy.__version__)'", "numpy")]
    return [Probe("g++ (demo, instead of Bisheng)", "g++ --version", "g++"), CMAKE, PYTHON]


def _cpu_sim_probes(target: Target) -> list[Probe]:
    compiler = shlex.quote(target.compiler)
    flags = " ".join(shlex.quote(f) for f in shlex.split(target.cxx_flags))
    what = target.compiler + (f" {target.cxx_flags}" if target.cxx_flags else "")
    return [
        Probe(f"{target.compiler} (cpu-sim, instead of Bisheng)", f"{compiler} --version", target.compiler),
        Probe(f"C++20 compile, link, run ({what})", _COMPILE.format(compiler=compiler, flags=flags)),
        CMAKE,
        PYTHON,
    ]


def _module_probes(config: ProjectConfig, operator: Path) -> list[Probe]:
    commands = (config.commands.build, config.commands.benchmark, config.commands.correctness)
    scripts = [s for c in commands for s in command_scripts(c, operator)]
    probes = []
    for module, where in third_party_imports(scripts).items():
        check = f"import {module}; print(getattr({module}, '__version__', 'ok'))"
        name = f"python module {module} ({where} imports it)"
        probes.append(Probe(name, f"python3 -c {shlex.quote(check)}", module))
    return probes


async def _probe(site: OperatorSite, probe: Probe, notes: EnvironmentNotes, cwd: str = "") -> bool:
    try:
        out = await site.run(probe_step(probe.name), probe.command, cwd=cwd, timeout=PROBE_TIMEOUT)
    except StepInterrupted as error:
        notes.problems.append(error.render())
        return False
    ok = out.ok
    if ok and probe.version_of and out.stdout:
        # the last line carries the version for `command -v x && x --version` probes
        line = out.stdout[-1] if probe.name in (PYTHON.name, TARGET_REACHABLE) else out.stdout[0]
        notes.versions[probe.version_of] = line.strip()
    if not ok:
        notes.problems.append(problem_line(probe.name, out.failure(3)))
    return ok


async def run_environment(
    campaign: Campaign, runner: JobRunner, on_event: EventSink | None = None
) -> EnvironmentNotes:
    """Probe the target, upload the workspace, build once and get one valid result."""
    with campaign.running(0, "environment round"):  # it builds in the workspace
        return await _environment(campaign, runner, on_event)


async def _environment(
    campaign: Campaign, runner: JobRunner, on_event: EventSink | None
) -> EnvironmentNotes:
    config = campaign.config
    site = site_for(campaign, runner, on_event)
    site.for_round(0, JOB_LABEL)
    notes = EnvironmentNotes()
    # from "/": the work dir may not exist before the first upload
    reach = await _probe(site, Probe(TARGET_REACHABLE, "echo ok; uname -srm", TARGET_VERSION), notes, cwd="/")
    notes.probes[TARGET_REACHABLE] = reach
    if reach:
        try:
            notes.versions[SYNC_VERSION] = await site.sync()
            notes.probes[WORKSPACE_UPLOADED] = True
        except PtoError as error:
            notes.probes[WORKSPACE_UPLOADED] = False
            notes.problems.append(f"workspace upload: {error.render()}")
        where = f"test -d {site.subdir} && echo present"
        notes.probes[WORK_DIR_EXISTS] = await _probe(site, Probe(WORK_DIR_EXISTS, where), notes)
        operator = site.layout.workspace / operator_folder(config)
        for probe in probes_for(config, operator if operator.is_dir() else None):
            notes.probes[probe.name] = await _probe(site, probe, notes)
        await _first_result(campaign, site, notes)
    notes.passed = bool(notes.probes) and all(notes.probes.values())
    campaign.record_environment(notes)
    return notes


async def _first_result(campaign: Campaign, site: OperatorSite, notes: EnvironmentNotes) -> None:
    """One full build and one valid result (for DSL: baseline and PTO both ok)."""
    backend = backend_for(site, case_flops(campaign.config.case, campaign.config.operator))
    parameters = {name: t.value for name, t in campaign.config.tunables.items()}
    ok, problem = await backend.build(parameters, BUILD_STEP)
    notes.build_outcome = "build succeeded" if ok else problem
    notes.probes[FULL_BUILD] = ok
    if not ok:
        notes.problems.append(problem)
        return
    with HeldFinish(site, FIRST_RESULT_STEP) as finish:
        outcome = await backend.benchmark(FIRST_RESULT_STEP, parameters)
        valid = outcome.valid and bool(outcome.correct)
        no_baseline = campaign.config.operator.kind is OperatorKind.PTO_DSL and outcome.reference_us is None
        if valid and no_baseline:
            valid = False
            why = outcome.reference_problem or "baseline.benchmark not ok"
            notes.problems.append(f"report.json has no benchmarked baseline ({why})")
        finish.release("" if valid else outcome.problem or "; ".join(notes.problems[-1:]))
    notes.probes[ONE_VALID_RESULT] = valid
    if valid:
        notes.first_valid_result = f"{site.target.label}:{site.subdir}/{outcome.report}"
    elif outcome.problem:
        notes.problems.append(problem_line(FIRST_RESULT_STEP, outcome.problem))
