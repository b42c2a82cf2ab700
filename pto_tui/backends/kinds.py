"""The two operator backends behind one interface: build, check, benchmark once.

PTO-DSL: the build runs the operator's JIT wrapper; a benchmark run writes a
report.json (runner or flat schema) under the results folder, and only a report
written by this very run is read; a runner report whose variant_reports hold a variant
outside the tolerance counts as a correctness failure. PTO-tile-lib: cmake/make build; the binary prints
`test success`/`test failed` (its exit code is 0 either way) and appends to
report.csv, of which only the rows written by this run count.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from pto_tui.backends.site import OperatorSite
from pto_tui.core.project.config import Scalar
from pto_tui.core.reports.parsers import (
    ReportError,
    count_csv_rows,
    parse_report_csv,
    parse_report_json,
    parse_tilelib_output,
)
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

    async def build(self, parameters: Mapping[str, Scalar]) -> tuple[bool, str]:
        """(ok, problem). A build is ok when its command exits 0."""
        command = self.site.render(self.site.config.commands.build, parameters)
        out = await self.site.run("build", command, parameters=parameters, timeout=BUILD_TIMEOUT)
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
        try:
            result = parse_report_json(text, path, self.flops)
        except ReportError as error:
            return BenchOutcome(problem=error.render(), report=path)
        # a variant outside the tolerance fails the run even when the report's aggregate passes:
        # the detail names it, and a kept round must not hide a wrong shape
        correct = result.correct and not result.failing_variants
        return BenchOutcome(
            correct=correct,
            duration_us=result.duration_us,
            reference_us=result.reference_us,
            tflops=result.tflops,
            problem="" if correct else result.detail,
            report=path,
        )


class TileLibBackend(Backend):
    kind = OperatorKind.PTO_TILE_LIB

    def _correct_from_output(self, text: str, exit_ok: bool) -> bool:
        return bool(parse_tilelib_output(text).correct)

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        site = self.site
        csv_rel = site.config.commands.results or "build/report.csv"
        before = await site.read_text(csv_rel, f"{step}: read report.csv")
        skip = count_csv_rows(before or "")
        command = site.render(site.config.commands.benchmark, parameters)
        out = await site.run(step, command, parameters=parameters, timeout=BENCH_TIMEOUT)
        verdict = parse_tilelib_output(out.text)
        if verdict.no_case_matched:
            return BenchOutcome(problem="no case matched the binary's compiled cases (--cases)")
        if verdict.correct is None:
            return BenchOutcome(
                problem="no 'test success' or 'test failed' line in the output ("
                + _exit_text(out.tail(), out.record.exit_code)
                + ")"
            )
        if not verdict.correct:
            return BenchOutcome(correct=False, problem=f"test failed (max diff {verdict.max_diff or '?'})")
        after = await site.read_text(csv_rel, f"{step}: read report.csv")
        if after is None:
            return BenchOutcome(correct=True, problem=f"{csv_rel} was not written")
        try:
            rows = parse_report_csv(after, csv_rel, skip_rows=skip)
        except ReportError as error:
            return BenchOutcome(correct=True, problem=error.render(), report=csv_rel)
        if not rows:
            return BenchOutcome(correct=True, problem=f"{csv_rel} has no rows written by this run")
        if not all(row.ok for row in rows):
            return BenchOutcome(correct=False, problem="report.csv marks the result NOK", report=csv_rel)
        duration = sum(row.duration_us for row in rows)
        tflops_values = [row.tflops for row in rows if row.tflops is not None]
        return BenchOutcome(
            correct=True,
            duration_us=duration,
            tflops=tflops_values[0] if len(rows) == 1 and tflops_values else None,
            report=csv_rel,
        )


def backend_for(site: OperatorSite, flops: float | None = None) -> Backend:
    if site.config.operator.kind is OperatorKind.PTO_DSL:
        return DslBackend(site, flops)
    return TileLibBackend(site, flops)
