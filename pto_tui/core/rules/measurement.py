"""Correctness before performance: timings count only after a successful build and a
passing correctness check, and a verdict needs both recorded; the baseline, the
reference of every speedup, needs them and valid samples."""

from __future__ import annotations

from collections.abc import Sequence

from pto_tui.core.rounds.records import Measurement
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.rules.verdict import invalid_sample_reason

CORRECTNESS_FIRST = Rule(
    "correctness-before-performance",
    refuses="timings recorded without a successful build and a passing correctness check, "
    "and a verdict asked for before the build and the correctness result are recorded",
    fix="record the build and the correctness result before any timing",
    steps=("measure", "run", "close"),
    cli="`round measure --build ok --correctness pass --samples ...` (`round run` does it in order)",
    mcp="`round_measure` measurement (`round_run` does it in order)",
)
VALID_BASELINE = Rule(
    "valid-baseline",
    refuses="a baseline without a successful build, a passing correctness check and "
    "valid samples (finite, positive durations)",
    fix="fix the build or the correctness of the unmodified operator and record the "
    "baseline again",
    steps=("baseline",),
    cli="`pto-tui baseline`",
    mcp="the `baseline` tool",
)


def measurement_findings(build: str, correctness: str, samples: Sequence[float]) -> list[Finding]:
    """Correctness before performance: numbers are only recorded after a passing check."""
    findings: list[Finding] = []
    if samples and build != "ok":
        findings.append(CORRECTNESS_FIRST.finding("performance recorded without a successful build"))
    if samples and correctness != "pass":
        findings.append(
            CORRECTNESS_FIRST.finding("performance recorded without a passing correctness step")
        )
    return findings


def verdict_input_findings(m: Measurement) -> list[Finding]:
    """What a verdict needs recorded first: the build, and after a build that passed, the
    correctness result (or the problem that kept the run from giving one)."""
    if not m.build:
        return [CORRECTNESS_FIRST.finding("no build recorded: record the measurement first")]
    if m.build == "ok" and not m.correctness and not m.problem:
        return [CORRECTNESS_FIRST.finding("the build passed but no correctness result is recorded")]
    return []


def baseline_findings(measurement: Measurement) -> list[Finding]:
    """The baseline is recorded only from a build that passed, a correctness check that
    passed and valid samples."""
    if measurement.build != "ok" or measurement.correctness != "pass":
        why = f" ({measurement.problem})" if measurement.problem else ""
        return [
            VALID_BASELINE.finding(
                f"the baseline needs a successful build and a passing correctness check{why}"
            )
        ]
    problem = invalid_sample_reason(measurement.samples_us)
    return [VALID_BASELINE.finding(f"the baseline needs valid samples: {problem}")] if problem else []
