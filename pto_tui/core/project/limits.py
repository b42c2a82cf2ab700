"""How long a step may run ([limits]): the seconds set there, or a limit derived from the
baseline's own time. Pure: numbers in, numbers and words out.

The rule: a step kind (build, correctness, benchmark run) set to 0 may run for the larger
of its floor and LIMIT_FACTOR times the longest successful run of that step the baseline
made (the environment round's and iter-000's jobs); before there is a baseline, the floor.
A step over its limit is stopped (its process tree killed) and fails "timed out after N s".
"""

from __future__ import annotations

from collections.abc import Mapping

BUILD = "build"
CORRECTNESS = "correctness"
BENCHMARK = "benchmark"  # each benchmark or warm-up run, the environment round's first result
STEP_KINDS = (BUILD, CORRECTNESS, BENCHMARK)

# a limit before there is a baseline, and the least a derived one is: a cold build of a
# large kernel takes many minutes, a run of a CPU simulation a few
FLOORS: Mapping[str, float] = {BUILD: 1800.0, CORRECTNESS: 600.0, BENCHMARK: 600.0}
# how many times the baseline's own time a step may take before it counts as hung
LIMIT_FACTOR = 10.0
# the longest limit [limits] takes: a week
MAX_LIMIT = 7 * 24 * 3600.0


def step_limit(kind: str, configured: float, baseline_seconds: float | None) -> float:
    """The seconds a step of `kind` may run: `configured` when set (above 0), else the
    larger of the kind's floor and LIMIT_FACTOR times the baseline's own time (the floor
    alone when the baseline has none)."""
    if configured > 0:
        return configured
    floor = FLOORS[kind]
    if baseline_seconds is None:
        return floor
    return max(floor, LIMIT_FACTOR * baseline_seconds)


def seconds_text(seconds: float) -> str:
    """Seconds as a person reads them: "600", "2.5", "1234567" (never "1.23e+06")."""
    return f"{seconds:.1f}".removesuffix(".0")


def timed_out_text(seconds: float) -> str:
    """How a step over its limit ended: "timed out after 600 s"."""
    return f"timed out after {seconds_text(seconds)} s"


def timed_out(problem: str) -> bool:
    """Whether a step's problem says it ran past its limit (timed_out_text's words)."""
    return "timed out after " in problem


def silence_text(seconds: float, limit: float | None = None) -> str:
    """What a running step that prints nothing is shown with: "no output for 45 s"
    (and the limit it is stopped at, when it has one: "... · limit 600 s")."""
    text = f"no output for {seconds:.0f} s"
    return f"{text} · limit {seconds_text(limit)} s" if limit else text


def derived_text(kind: str) -> str:
    """The rule for one step kind in words, for the key reference: "the larger of 1800 s
    and 10x the baseline's longest build (1800 s before there is a baseline)"."""
    floor = seconds_text(FLOORS[kind])
    what = {BUILD: "build", CORRECTNESS: "correctness run", BENCHMARK: "benchmark run"}[kind]
    return (
        f"the larger of {floor} s and {seconds_text(LIMIT_FACTOR)}x the baseline's longest "
        f"{what} ({floor} s before there is a baseline)"
    )
