"""The target a new project gets: `new --target`'s text (`local`, `ssh:ALIAS`, `slurm`,
`slurm:ALIAS`), and the target's mode (and its predictor, [target] predict) checked against
the operator before anything is written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.perf_sim_build import case_entry
from pto_tui.core.project.config import Target
from pto_tui.core.project.modes import DEFAULT_MODE, DEMO_MODE, MODES, PREDICTOR, mode_spec
from pto_tui.core.vocabulary import OperatorKind, TargetKind


def parse_target(choice: str, work_dir: str = "", env_setup: str = "", npu: int = 0) -> Target:
    """"local", "ssh:ALIAS" with the remote work directory, or "slurm" / "slurm:ALIAS" (a
    cluster whose login node is this machine, or the SSH host ALIAS)."""
    kind, _, host = choice.partition(":")
    if choice in ("", "local", "slurm") or (kind in ("ssh", "slurm") and host):
        if host and not work_dir:
            raise InputError(f"a {kind} target on a host needs the remote work directory (--work-dir)")
        return Target(kind=TargetKind(kind or "local"), host=host, work_dir=work_dir if host else "",
                      env_setup=env_setup, npu_id=npu)
    raise InputError(f"target must be 'local', 'ssh:ALIAS', 'slurm' or 'slurm:ALIAS', got {choice!r}")


def answered_target(
    target: Target, own_build: bool, kind: OperatorKind, candidate: Candidate | None, source: Path
) -> Target:
    """The target as answered; a demo operator runs in the demo mode. The operator must
    build in the target's mode (a cpu-sim target needs its CMake to offer pto-isa's CPU
    simulation), unless the user gives the build (`own_build`)."""
    if candidate is not None and candidate.demo:
        return replace(target, mode=DEMO_MODE)
    problem = "" if own_build or not source.is_dir() else source_kind(kind).mode_problem(source, target.mode)
    if problem:
        raise InputError(
            problem, hint=f"use --mode {DEFAULT_MODE.value}, or give the build with --command build=..."
        )
    return target


def check_perf_sim(spec: NewProject) -> None:
    """A perf-sim target, or one that predicts with perf_sim ([target] predict), needs
    pto-isa's perf_sim in the operator's checkout and a driver for the case: refused before
    anything is written, naming what is missing."""
    mode, predict = spec.target.mode, spec.target.predict
    if predict and predict != PREDICTOR:
        raise InputError(f"unknown predictor {predict!r}; expected {PREDICTOR}", key="predict")
    if predict and not mode_spec(mode).predictable:
        predictable = " and ".join(m.value for m, each in MODES.items() if each.predictable)
        raise InputError(f"--predict {predict} is for the {predictable} modes, not {mode.value}",
                         key="predict", hint="leave --predict out")
    if not (mode_spec(mode).perf_sim or predict) or not spec.source.is_dir():
        return
    entry = case_entry(spec.case, spec.operator)
    problem = source_kind(spec.operator.kind).perf_sim_problem(spec.source, entry)
    if problem and predict:
        raise InputError(f"--predict {predict}: {problem}", key="predict", hint="leave --predict out")
    if problem:
        raise InputError(problem, hint="use another --mode (cpu-sim or npu)")
