"""The interface every operator kind's backend implements: build, check, benchmark once
(each kind's in `backends/kinds/<kind>.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pto_tui.backends.site import OperatorSite, StepOutput
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.limits import BUILD, CORRECTNESS
from pto_tui.core.reports.compiler import first_compiler_error
from pto_tui.core.reports.perf_sim import PipeBusy
from pto_tui.core.rules.rule import Finding
from pto_tui.jobs.model import NEEDS_BUILD, NEEDS_NPU


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
    pipes: tuple[PipeBusy, ...] = ()  # a perf_sim run's per-pipe busy cycles (its sample is cycles)

    @property
    def valid(self) -> bool:
        return not self.problem and self.correct is not None and self.duration_us is not None


@dataclass(frozen=True)
class Prediction:
    """perf_sim's cycles of a round's configuration, recorded beside its measurement
    ([target] predict): the count and its pipes, or why there is none."""

    cycles: int | None = None
    pipes: tuple[PipeBusy, ...] = ()
    problem: str = ""


def exit_text(output_tail: str, code: int | None, signal: str | None = None) -> str:
    """How a command ended (its exit code, or the signal that killed it: a crashed binary's
    SEGV), with the last lines of its output."""
    tail = output_tail.strip().splitlines()[-3:]
    how = f"killed by signal {signal}" if signal and code is None else f"exit code {code}"
    return how + (": " + " | ".join(tail) if tail else "")


def ended(out: StepOutput, tail: str | None = None) -> str:
    """How a step's command ended, with the end of its output (or of `tail`)."""
    return exit_text(out.tail() if tail is None else tail, out.record.exit_code, out.record.signal)


def build_failure(out: StepOutput) -> str:
    """Why a build failed: the compiler's first `error:` line (make's last line says only
    that a target failed), else how the command ended."""
    # compilers write errors to stderr; make's own chatter goes to stdout
    first = first_compiler_error("\n".join(out.stderr + out.stdout))
    if first:
        return f"{first} (exit code {out.record.exit_code})"
    return ended(out)


class Backend:
    """Build and benchmark an operator on its site."""

    def __init__(self, site: OperatorSite, flops: float | None = None) -> None:
        self.site = site
        self.flops = flops

    async def build(self, parameters: Mapping[str, Scalar], step: str = "build") -> tuple[bool, str]:
        """(ok, problem). A build is ok when its command exits 0."""
        command = self.site.render(self.site.config.commands.build, parameters)
        out = await self.site.run(step, command, parameters=parameters, timeout=await self.site.limit(BUILD),
                                  needs=NEEDS_BUILD)
        if out.ok:
            return True, ""
        return False, "build failed: " + build_failure(out)

    async def correctness(self, parameters: Mapping[str, Scalar]) -> tuple[bool | None, str]:
        """A separate correctness command when the project has one: exit 0 passes.
        (None, "") when there is none: the first benchmark run's check counts instead."""
        template = self.site.config.commands.correctness
        if not template:
            return None, ""
        command = self.site.render(template, parameters)
        limit = await self.site.limit(CORRECTNESS)
        out = await self.site.run("correctness", command, parameters=parameters, timeout=limit,
                                  needs=NEEDS_NPU)
        passed = self._correct_from_output(out.text, out.ok)
        if passed:
            return True, ""
        return False, "correctness check failed: " + ended(out)

    def _correct_from_output(self, text: str, exit_ok: bool) -> bool:
        return exit_ok

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        raise NotImplementedError

    async def predict(self, parameters: Mapping[str, Scalar]) -> Prediction | None:
        """perf_sim's cycles of the configuration just measured; None: this backend does not
        predict (the project's [target] predict is off, or its kind has no predictor)."""
        return None
