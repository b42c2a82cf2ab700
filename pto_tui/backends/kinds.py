"""The two operator backends behind one interface: build, check, benchmark once.

PTO-DSL: the build runs the operator's JIT wrapper; a benchmark run writes a
report.json (runner or flat schema) under the results folder, and only a report
written by this very run is read; a runner report whose variant_reports hold a variant
outside the tolerance counts as a correctness failure. PTO-tile-lib: cmake/make build; the binary prints
`test success`/`test failed` (its exit code is 0 either way) and appends to
report.csv, of which only the rows written by this run count: one per case of the
case string, the sample being the case under tuning's.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from pto_tui.backends.site import OperatorSite, StepOutput
from pto_tui.core.operators.case_strings import CaseStringError, ParsedCase, case_under_tuning, parsed_cases
from pto_tui.core.operators.tilelib_build import (
    GENERATED_HEADER,
    GENERATED_JSON,
    generated_rows,
    knob_in_generated,
)
from pto_tui.core.operators.tilelib_knobs import resolve_knobs
from pto_tui.core.project.config import CaseConfig, Scalar
from pto_tui.core.reports.fields import tflops_from
from pto_tui.core.reports.parsers import (
    ReportError,
    parse_report_json,
    parse_tilelib_output,
    rows_of_this_run,
    sample_row,
)
from pto_tui.core.rules.rule import Finding
from pto_tui.core.rules.workload import case_timing, timing_findings
from pto_tui.core.vocabulary import OperatorKind

BUILD_TIMEOUT = 3600.0
BENCH_TIMEOUT = 3600.0


@dataclass(frozen=True)
class BenchOutcome:
    """One benchmark run: either numbers (with correctness) or the reason there are none."""

    correct: bool | None = None  # None: correctness could not be determined
    duration_us: float | None = None
    reference_us: float | None = None
    tflops: float | None = None
    problem: str = ""  # why the run failed or is invalid
    report: str = ""  # the result file the numbers came from
    reference_problem: str = ""  # why the report has no reference timing (e.g. a blocked baseline)
    # the rule the problem breaks, when it is one (a report of another workload): a report
    # given by hand is refused by it, a run's own makes the round invalid
    findings: tuple[Finding, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problem and self.correct is not None and self.duration_us is not None


def _exit_text(output_tail: str, code: int | None) -> str:
    tail = output_tail.strip().splitlines()[-3:]
    return f"exit code {code}" + (": " + " | ".join(tail) if tail else "")


class Backend:
    """Build and benchmark an operator on its site."""

    kind: OperatorKind

    def __init__(self, site: OperatorSite, flops: float | None = None) -> None:
        self.site = site
        self.flops = flops

    async def build(self, parameters: Mapping[str, Scalar], step: str = "build") -> tuple[bool, str]:
        """(ok, problem). A build is ok when its command exits 0."""
        command = self.site.render(self.site.config.commands.build, parameters)
        out = await self.site.run(step, command, parameters=parameters, timeout=BUILD_TIMEOUT)
        if out.ok:
            return True, ""
        return False, "build failed: " + _exit_text(out.tail(), out.record.exit_code)

    async def correctness(self, parameters: Mapping[str, Scalar]) -> tuple[bool | None, str]:
        """A separate correctness command when the project has one: exit 0 passes.
        (None, "") when there is none: the first benchmark run's check counts instead."""
        template = self.site.config.commands.correctness
        if not template:
            return None, ""
        command = self.site.render(template, parameters)
        out = await self.site.run("correctness", command, parameters=parameters, timeout=BENCH_TIMEOUT)
        passed = self._correct_from_output(out.text, out.ok)
        if passed:
            return True, ""
        return False, "correctness check failed: " + _exit_text(out.tail(), out.record.exit_code)

    def _correct_from_output(self, text: str, exit_ok: bool) -> bool:
        return exit_ok

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        raise NotImplementedError


class DslBackend(Backend):
    kind = OperatorKind.PTO_DSL

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        site = self.site
        results = site.config.commands.results or "bench/results"
        clock = await site.run(f"{step}: clock", "date +%s.%N", quiet=True)
        started = clock.text.strip() or "0"
        command = site.render(site.config.commands.benchmark, parameters)
        out = await site.run(step, command, parameters=parameters, timeout=BENCH_TIMEOUT)
        listing = await site.run(
            f"{step}: find report",
            f"find {shlex.quote(results)} -name report.json -newermt @{shlex.quote(started)}"
            " -printf '%T@ %p\\n' 2>/dev/null; true",
            quiet=True,
        )
        found = sorted(
            (line.split(" ", 1) for line in listing.stdout if " " in line),
            key=lambda pair: float(pair[0]),
        )
        if not found:
            why = "" if out.ok else f" (benchmark {_exit_text(out.tail(), out.record.exit_code)})"
            return BenchOutcome(problem=f"no report.json written by this run under {results}{why}")
        path = found[-1][1]
        text = await site.read_text(path, f"{step}: read report")
        if text is None:
            return BenchOutcome(problem=f"report {path} vanished before it could be read")
        return dsl_report_outcome(text, path, site.config.case, self.flops)


def dsl_report_outcome(text: str, path: str, case: CaseConfig, flops: float | None) -> BenchOutcome:
    """A report.json judged for the case: parsed, timed by the case's own variant, checked
    for the same workload; a run's and a report given by hand (`--report`) alike."""
    try:
        result = parse_report_json(text, path, flops)
    except ReportError as error:
        return BenchOutcome(problem=error.render(), report=path)
    timing = case_timing(case.shape, case.dtype, case.options, result, case.causal)
    if timing.problem or timing.median_us is None:
        return BenchOutcome(problem=timing.problem, report=path, findings=tuple(timing_findings(timing)))
    # a variant outside the tolerance fails the run even when the report's aggregate passes:
    # the detail names it, and a kept round must not hide a wrong shape
    correct = result.correct and not result.failing_variants
    return BenchOutcome(
        correct=correct,
        duration_us=timing.median_us,
        reference_us=timing.reference_us,
        tflops=tflops_from(timing.median_us, flops),
        problem="" if correct else result.detail,
        report=path,
        reference_problem=timing.reference_problem or _reference_problem(result.extra),
    )


def _reference_problem(extra: Mapping[str, object]) -> str:
    status = extra.get("baseline_status")
    if status in (None, "ok"):
        return ""
    if status == "absent":
        return "the report has no baseline.benchmark"
    reason = extra.get("baseline_reason")
    return f"baseline.benchmark.status is {status!r}" + (f": {reason}" if reason else "")


class TileLibBackend(Backend):
    """The binary's verdict is its output, one `test success`/`test failed` per case, never its
    exit code alone (0 on a failed test; non-zero is a failure too). A run's rows in report.csv
    must be one per case of the case string, named as main.cpp names them; the sample is the
    row of the case under tuning (with several cases, the one `[case] name` names)."""

    kind = OperatorKind.PTO_TILE_LIB

    def _cases(self) -> tuple[tuple[ParsedCase, ...] | None, str]:
        """The case string's cases by the operator's format (None: no spec or no format) and
        the name of the case under tuning. Raises CaseStringError naming the field."""
        case = self.site.config.case
        cases = parsed_cases(case, self.site.config.operator)
        return cases, case_under_tuning(cases, case.name).name if cases else case.name

    async def build(self, parameters: Mapping[str, Scalar], step: str = "build") -> tuple[bool, str]:
        try:
            self._cases()  # a case string the operator cannot take fails before a long build
        except CaseStringError as error:
            return False, error.render()
        ok, problem = await super().build(parameters, step)
        if ok:
            problem = await self._knobs_not_reached(parameters)
        return not problem, problem

    async def _knobs_not_reached(self, parameters: Mapping[str, Scalar]) -> str:
        """A knob that the case generator decides must show its value in the header the
        build generated, or the round would measure the old binary. "" when all did (or
        the build generated nothing that tells)."""
        source = self.site.workspace / self.site.subdir
        knobs = {k.name: k for k in resolve_knobs(source) if k.live and k.row_position is not None}
        wanted = {name: value for name, value in parameters.items() if name in knobs}
        if not wanted:
            return ""
        header = await self.site.read_text(f"build/{GENERATED_HEADER}", "build: read generated cases")
        listing = None
        if header is None or not generated_rows(header):  # the JSON only when the header cannot tell
            listing = await self.site.read_text(f"build/{GENERATED_JSON}", "build: read generated cases")
        missed = [
            f"{name}={value}"
            for name, value in wanted.items()
            if knob_in_generated(header, listing, knobs[name], value) is False
        ]
        if not missed:
            return ""
        return (
            f"build: {', '.join(missed)} did not reach build/{GENERATED_HEADER} (the build command "
            "must pass the knob to the case generator, e.g. --cases {case},{CUBE_S0},{TILE_S1})"
        )

    async def correctness(self, parameters: Mapping[str, Scalar]) -> tuple[bool | None, str]:
        """A separate correctness command, judged by its output like a benchmark run (it may
        check more cases than the case string, e.g. every compiled one: any number passes)."""
        template = self.site.config.commands.correctness
        if not template:
            return None, ""
        command = self.site.render(template, parameters)
        out = await self.site.run("correctness", command, parameters=parameters, timeout=BENCH_TIMEOUT)
        correct, problem = tilelib_verdict(out, None)
        return (True, "") if correct else (False, "correctness check failed: " + problem)

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        site = self.site
        csv_rel = site.config.commands.results or "build/report.csv"
        try:
            cases, under = self._cases()
        except CaseStringError as error:
            return BenchOutcome(problem=error.render())
        before = await site.read_text(csv_rel, f"{step}: read report.csv")
        command = site.render(site.config.commands.benchmark, parameters)
        out = await site.run(step, command, parameters=parameters, timeout=BENCH_TIMEOUT)
        correct, problem = tilelib_verdict(out, len(cases) if cases else None)
        if not correct:
            return BenchOutcome(correct=correct, problem=problem)
        after = await site.read_text(csv_rel, f"{step}: read report.csv")
        if after is None:
            return BenchOutcome(correct=True, problem=f"{csv_rel} was not written")
        expected = [case.name for case in cases] if cases else None
        try:
            rows = rows_of_this_run(before, after, csv_rel)
            row = sample_row(rows, expected, under, csv_rel)
        except ReportError as error:
            return BenchOutcome(correct=True, problem=error.render(), report=csv_rel)
        if not all(r.ok for r in rows):
            nok = ", ".join(r.case for r in rows if not r.ok)
            return BenchOutcome(correct=False, problem=f"report.csv marks {nok} NOK", report=csv_rel)
        return BenchOutcome(
            correct=True,
            duration_us=row.duration_us,
            # the case's FLOPs when known: the torch baseline's count (halved when causal, which
            # main.cpp's GOPS is not); the binary's own TFLOPS (NA without timestamps) otherwise
            tflops=tflops_from(row.duration_us, self.flops) if self.flops else row.tflops,
            report=csv_rel,
        )


def tilelib_verdict(out: StepOutput, cases: int | None) -> tuple[bool | None, str]:
    """(correct, problem) of one run of a tile-lib binary from its output: True only with a
    `test success` per case, no `test failed` and exit code 0; None when it cannot be told."""
    verdict = parse_tilelib_output("\n".join(out.stdout + out.stderr))  # the WARN goes to stderr
    exited = _exit_text(out.tail(), out.record.exit_code)
    if verdict.no_case_matched:
        return None, f"no case matched the binary's compiled cases (--cases): {exited}"
    if verdict.correct is None:
        return None, f"no 'test success' or 'test failed' line in the output ({exited})"
    if verdict.correct is False:
        return False, f"test failed (max diff {verdict.max_diff or '?'})"
    if not out.ok:
        return None, f"the binary printed 'test success' but failed: {exited}"
    if cases is not None and verdict.successes != cases:
        return None, (
            f"{verdict.successes} 'test success' line(s) for {cases} case(s) in the case string: "
            "each case prints one"
        )
    return True, ""


def backend_for(site: OperatorSite, flops: float | None = None) -> Backend:
    if site.config.operator.kind is OperatorKind.PTO_DSL:
        return DslBackend(site, flops)
    return TileLibBackend(site, flops)
