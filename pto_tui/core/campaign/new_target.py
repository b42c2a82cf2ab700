"""A new project's target, checked against its operator before anything is written: the
operator builds in the target's mode, and a target measured or predicted by pto-isa's
perf_sim has perf_sim in its checkout and a driver for the case."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.perf_sim_build import case_entry
from pto_tui.core.project.config import Target
from pto_tui.core.project.modes import DEFAULT_MODE, DEMO_MODE, MODES, PREDICTOR, mode_spec
from pto_tui.core.vocabulary import OperatorKind


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


def answered_target(
    target: Target, commands: Mapping[str, str], kind: OperatorKind, candidate: Candidate | None, source: Path
) -> Target:
    """The target as answered; a demo operator runs in the demo mode. The operator must
    build in the target's mode (a cpu-sim target needs its CMake to offer pto-isa's CPU
    simulation), unless the user gives the build (`commands`)."""
    if candidate is not None and candidate.demo:
        return replace(target, mode=DEMO_MODE)
    own_build = "build" in commands
    problem = "" if own_build or not source.is_dir() else source_kind(kind).mode_problem(source, target.mode)
    if problem:
        raise InputError(
            problem, hint=f"use --mode {DEFAULT_MODE.value}, or give the build with --command build=..."
        )
    return target
