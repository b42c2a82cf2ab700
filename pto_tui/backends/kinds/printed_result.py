"""A run judged and timed by what it prints ([result] in project.toml: pto-isa's `Average time:
X ms` drivers, a marker's own regular expressions; core/reports/printed.py reads them)."""

from __future__ import annotations

from pto_tui.backends.kinds.backend import BenchOutcome, ended
from pto_tui.backends.site import StepOutput
from pto_tui.core.project.config import ResultConfig
from pto_tui.core.reports.fields import tflops_from
from pto_tui.core.reports.printed import read_printed, verdict_of


def printed_outcome(text: str, ended: str, exit_ok: bool, result: ResultConfig, flops: float | None,
                    report: str = "", checked: bool = False) -> BenchOutcome:
    """One run's outcome from its output: failed on a failed line, undetermined without a
    pass/fail line (unless a correctness command of its own `checked` it: then a benchmark
    that only times is enough) or with a pass line but a failing exit, else timed by its
    time lines."""
    read = read_printed(text, result)
    if read.correct is False:
        return BenchOutcome(correct=False, problem=f"the run says it failed ({ended})", report=report)
    if read.correct is None and not checked:
        return BenchOutcome(problem=f"no pass/fail line in the output ({ended})", report=report)
    if not exit_ok:
        return BenchOutcome(problem=f"the run says it passed but failed: {ended}", report=report)
    if read.duration_us is None:
        return BenchOutcome(correct=True, problem=read.problem, report=report)
    tflops = tflops_from(read.duration_us, flops) if flops else None
    return BenchOutcome(correct=True, duration_us=read.duration_us, tflops=tflops, report=report)


def run_outcome(out: StepOutput, result: ResultConfig, flops: float | None, checked: bool) -> BenchOutcome:
    """The outcome of a benchmark job (stderr too: drivers print warnings there); `checked`:
    the project's correctness command judged the build."""
    how = ended(out)
    text = "\n".join(out.stdout + out.stderr)
    return printed_outcome(text, how, out.ok, result, flops, checked=checked)


def run_verdict(out: StepOutput, result: ResultConfig) -> tuple[bool | None, str]:
    """(correct, problem) of a correctness command judged by its pass/fail line."""
    how = ended(out)
    verdict = verdict_of("\n".join(out.stdout + out.stderr), result)
    if verdict is None:
        return None, f"no pass/fail line in the output ({how})"
    if verdict and not out.ok:
        return None, f"the run says it passed but failed: {how}"
    return verdict, "" if verdict else f"the run says it failed ({how})"
