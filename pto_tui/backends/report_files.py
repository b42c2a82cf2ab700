"""Result files given by hand (`baseline --report FILE`, `round measure --report FILE`, the
MCP tools' `reports`): read and judged by the parsers a run uses, so the numbers recorded
are the file's, never numbers typed beside it.

Each file is one benchmark run: its duration (the case's own variant's, for a report of
several) is one sample, its baseline one reference. A file that cannot be read, that the
parsers refuse, or that ran another workload is refused, naming the file; a file whose
correctness failed is recorded as a failed correctness check, without numbers.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pto_tui.backends.kinds.backend import BenchOutcome
from pto_tui.backends.kinds.registry import runtime_kind
from pto_tui.backends.loop import case_flops
from pto_tui.core.errors import InputError, read_utf8
from pto_tui.core.operators.case_strings import CaseStringError
from pto_tui.core.project.config import ProjectConfig
from pto_tui.core.reports.fields import tflops_at_median
from pto_tui.core.rounds.records import Measurement
from pto_tui.core.rules.rule import refuse


def with_reports(config: ProjectConfig, measurement: Measurement, base: Path) -> Measurement:
    """`measurement` with its samples, references, TFLOPS and correctness read from its
    `reports` (relative paths below `base`). Unchanged when it names no report."""
    if not measurement.reports:
        return measurement
    if measurement.samples_us or measurement.reference_us:
        raise InputError(
            "the durations are read from the report(s): give --report without --samples/--reference",
            key="samples",
        )
    if measurement.build == "failed":
        raise InputError("a failed build wrote no benchmark report: give --report only after a build ok")
    outcomes = [report_outcome(config, path, base) for path in measurement.reports]
    read = replace(measurement, reports=[o.report for o in outcomes])  # each as resolved, not as typed
    failed = next((o for o in outcomes if o.correct is False), None)
    if failed is not None:
        return _failed(read, failed)
    if read.correctness == "fail":  # a separate check failed: no numbers may be recorded
        return read
    samples = [o.duration_us for o in outcomes if o.duration_us is not None]
    timed = [o for o in outcomes if o.tflops is not None and o.duration_us is not None]
    return replace(
        read,
        correctness="pass",
        samples_us=samples,
        reference_us=[o.reference_us for o in outcomes if o.reference_us is not None],
        tflops=read.tflops if read.tflops is not None or not timed else _median_tflops(samples, timed[-1]),
    )


def _median_tflops(samples: list[float], run: BenchOutcome) -> float:
    assert run.duration_us is not None and run.tflops is not None
    return tflops_at_median(samples, run.duration_us, run.tflops)


def _failed(measurement: Measurement, outcome: BenchOutcome) -> Measurement:
    """A report whose correctness failed: the check failed, and no numbers are kept (unless
    the person said it passed: then the two contradict each other and nothing is recorded)."""
    if measurement.correctness == "pass":
        raise InputError(
            f"correctness pass was given, but the report says otherwise: {outcome.problem}",
            file=outcome.report,
            key="correctness",
        )
    return replace(measurement, correctness="fail", problem=measurement.problem or outcome.problem)


def report_outcome(config: ProjectConfig, given: str, base: Path) -> BenchOutcome:
    """One result file judged as a run's would be; refused (InputError, RuleViolation) when
    it holds no valid run of the case."""
    path = Path(given).expanduser()
    path = (path if path.is_absolute() else base / path).resolve()
    try:
        text = read_utf8(path)
    except OSError as error:
        raise InputError(f"cannot read the report: {error.strerror or error}", file=path) from None
    try:
        flops = case_flops(config.case, config.operator)
    except CaseStringError:  # the reader says so, naming the field, as a run's would
        flops = None
    outcome = runtime_kind(config.operator.kind).report_outcome(config, text, str(path), flops)
    if outcome.correct is not False and (outcome.problem or outcome.duration_us is None):
        refuse(outcome.findings, file=path)
        problem = outcome.problem or "the report holds no timing"
        raise InputError(problem) if str(path) in problem else InputError(problem, file=path)
    return outcome
