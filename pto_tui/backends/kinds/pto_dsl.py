"""PTO-DSL at run time: the build runs the operator's JIT wrapper; a benchmark run writes a
report.json (runner or flat schema) under the results folder, and only a report written by
this very run is read; a runner report whose variant_reports hold a variant outside the
tolerance counts as a correctness failure. Its environment round probes the pto dialect,
torch_npu and ptoas (numpy for the demo operator)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from pto_tui.backends.kinds.backend import Backend, BenchOutcome, ended
from pto_tui.backends.kinds.printed_result import run_outcome
from pto_tui.backends.kinds.spec import KindRuntime
from pto_tui.backends.probes import CANN, NPU_SMI, PYTHON, TORCH_NPU
from pto_tui.core.project.config import CaseConfig, ProjectConfig, Scalar, Target
from pto_tui.core.project.limits import BENCHMARK
from pto_tui.core.reports.fields import tflops_from
from pto_tui.core.reports.parsers import ReportError, parse_report_json
from pto_tui.core.rules.workload import case_timing, timing_findings
from pto_tui.core.vocabulary import OperatorKind, TargetMode
from pto_tui.jobs.model import NEEDS_NPU
from pto_tui.jobs.probes import Probe


class DslBackend(Backend):
    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        site = self.site
        if site.config.result.printed:  # a standalone example's own script, read as it prints
            command = site.render(site.config.commands.benchmark, parameters)
            out = await site.run(step, command, parameters=parameters, timeout=await site.limit(BENCHMARK),
                                 needs=NEEDS_NPU)
            checked = bool(site.config.commands.correctness.strip())
            return run_outcome(out, site.config.result, self.flops, checked)
        results = site.config.commands.results or "bench/results"
        clock = await site.run(f"{step}: clock", "date +%s.%N", quiet=True)
        started = clock.text.strip() or "0"
        command = site.render(site.config.commands.benchmark, parameters)
        out = await site.run(step, command, parameters=parameters, timeout=await site.limit(BENCHMARK),
                             needs=NEEDS_NPU)
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
            why = "" if out.ok else f" (benchmark {ended(out)})"
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


def report_outcome(config: ProjectConfig, text: str, path: str, flops: float | None) -> BenchOutcome:
    """A report.json given by hand, judged as a run's."""
    return dsl_report_outcome(text, path, config.case, flops)


def _npu_probes(_target: Target) -> list[Probe]:
    return [
        PYTHON,
        CANN,
        NPU_SMI,
        Probe("pto dialect", "python3 -c 'import mlir.ir; from mlir.dialects import pto; print(\"ok\")'"),
        TORCH_NPU,
        Probe("ptoas", "ptoas --version", "ptoas"),
    ]


def _demo_probes(_target: Target) -> list[Probe]:
    return [PYTHON, Probe("numpy (demo)", "python3 -c 'import numpy; print(numpy.__version__)'", "numpy")]


PTO_DSL = KindRuntime(
    kind=OperatorKind.PTO_DSL,
    backend=DslBackend,
    probes={TargetMode.NPU: _npu_probes, TargetMode.DEMO: _demo_probes},
    report_outcome=report_outcome,
    needs_reference=True,
)
