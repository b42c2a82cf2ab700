"""How long the baseline's own steps took, read from its job records: a step limit that
[limits] leaves at 0 is a multiple of it (core/project/limits.py says the rule)."""

from __future__ import annotations

from pathlib import Path

from pto_tui.backends.environment_checks import BUILD_STEP, FIRST_RESULT_STEP, JOB_LABEL
from pto_tui.core.project.layout import round_name
from pto_tui.core.project.limits import BENCHMARK, BUILD, CORRECTNESS
from pto_tui.jobs.model import JobState, list_records

# the labels of the baseline's jobs: the environment round's ("iter-000 environment build")
# and iter-000's own ("iter-000 benchmark 2/5"), the longer first
BASELINE_LABELS = (JOB_LABEL, round_name(0))
# the steps that run as benchmark runs, by the start of their names
BENCHMARK_STEPS = ("benchmark ", "warm-up ")


def step_kind(step: str) -> str | None:
    """The limit a step of the loop runs under, by its name: a build, the correctness
    command, or a benchmark run (timed, warm-up, the environment round's first result);
    None for any other step (a probe, a helper such as "benchmark 1/5: clock")."""
    if ":" in step:
        return None
    if step == BUILD_STEP:
        return BUILD
    if step == CORRECTNESS:
        return CORRECTNESS
    if step == FIRST_RESULT_STEP or step.startswith(BENCHMARK_STEPS):
        return BENCHMARK
    return None


def baseline_step(name: str) -> str | None:
    """The step of a job of the baseline by its name ("iter-000 environment build":
    "build"), None for a job of another round's."""
    for label in BASELINE_LABELS:
        if name.startswith(f"{label} "):
            return name[len(label) + 1:]
    return None


def baseline_step_seconds(log_dir: Path) -> dict[str, float]:
    """The longest successful run of each kind of step among the baseline's jobs (round 0:
    the environment round and iter-000) under `log_dir`; a kind it never ran is absent."""
    longest: dict[str, float] = {}
    for record in list_records(log_dir):
        if record.round_number != 0 or record.state is not JobState.SUCCEEDED:
            continue
        step = baseline_step(record.name)
        kind = step_kind(step) if step is not None else None
        seconds = record.duration
        if kind is not None and seconds is not None:
            longest[kind] = max(seconds, longest.get(kind, 0.0))
    return longest
