"""PTO-tile-lib at run time: a cmake/make build; the binary prints `test success`/`test
failed` (its exit code is 0 either way) and appends to report.csv, of which only the rows
written by this run count: one per case of the case string, the sample being the case
under tuning's; or, for a driver that writes no report.csv, the time and verdict it prints
([result], printed_result.py). Its environment round probes Bisheng, CANN and the NPU; on a cpu-sim
target the compiler of the CPU simulation; on a perf-sim target that and the perf_sim
driver's compiler (PerfSimBackend, perf_sim.py); for the demo operator g++. With [target]
predict, an npu or cpu-sim build also builds the perf_sim driver alongside, run once after
the benchmark runs for the round's predicted cycles (`predict`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from pto_tui.backends.kinds.backend import Backend, BenchOutcome, Prediction, build_failure, ended
from pto_tui.backends.kinds.perf_sim import (
    NO_CORRECTNESS,
    PERF_SIM_REPORT,
    PREDICTION_RUN,
    PREDICTION_STEP,
    build_alongside,
    build_failed,
    derived_driver,
    perf_sim_build,
    perf_sim_run,
)
from pto_tui.backends.kinds.printed_result import printed_outcome, run_outcome, run_verdict
from pto_tui.backends.kinds.spec import KindRuntime
from pto_tui.backends.probes import CANN, CANN_FIX, CMAKE, NPU_SMI, PYTHON, cpu_sim_probes, perf_sim_probes
from pto_tui.backends.site import StepOutput, StepTimedOut
from pto_tui.core.operators.case_strings import CaseStringError, ParsedCase, case_under_tuning, parsed_cases
from pto_tui.core.operators.perf_sim_build import Driver
from pto_tui.core.operators.tilelib_build import (
    GENERATED_HEADER,
    GENERATED_JSON,
    generated_rows,
    knob_in_generated,
)
from pto_tui.core.operators.tilelib_knobs import resolve_knobs
from pto_tui.core.project.config import ProjectConfig, Scalar, Target
from pto_tui.core.project.limits import BENCHMARK, CORRECTNESS
from pto_tui.core.project.modes import PREDICTOR, mode_spec
from pto_tui.core.reports.fields import tflops_from
from pto_tui.core.reports.parsers import (
    ReportError,
    file_state,
    parse_report_csv,
    parse_tilelib_output,
    rows_after_state,
    sample_row,
)
from pto_tui.core.vocabulary import OperatorKind, TargetMode
from pto_tui.jobs.model import NEEDS_NPU
from pto_tui.jobs.probes import Probe

REPORT_BEFORE = "report_before"  # the job record's note: report.csv's state before the run


class TileLibBackend(Backend):
    """The binary's verdict is its output, one `test success`/`test failed` per case, never its
    exit code alone (0 on a failed test; non-zero is a failure too). A run's rows in report.csv
    must be one per case of the case string, named as main.cpp names them; the sample is the
    row of the case under tuning (with several cases, the one `[case] name` names)."""

    def _cases(self) -> tuple[tuple[ParsedCase, ...] | None, str]:
        """The case string's cases by the operator's format (None: no spec or no format) and
        the name of the case under tuning. Raises CaseStringError naming the field."""
        case = self.site.config.case
        cases = parsed_cases(case, self.site.config.operator)
        return cases, case_under_tuning(cases, case.name).name if cases else case.name

    # [target] predict: why this backend's build has no driver to predict with (None: it did
    # not build one, as a resumed run whose build an earlier run made); the driver it built
    driver_problem: str | None = None
    driver: Driver | None = None

    @property
    def predicting(self) -> bool:
        return self.site.config.target.predict == PREDICTOR

    async def build(self, parameters: Mapping[str, Scalar], step: str = "build") -> tuple[bool, str]:
        try:
            self._cases()  # a case string the operator cannot take fails before a long build
        except CaseStringError as error:
            return False, error.render()
        if self.predicting:
            ok, problem = await self._build_predicting(parameters, step)
        else:
            ok, problem = await super().build(parameters, step)
        if ok:
            problem = await self._knobs_not_reached(parameters)
        return not problem, problem

    async def _build_predicting(self, parameters: Mapping[str, Scalar], step: str) -> tuple[bool, str]:
        """The project's build with the perf_sim driver of the sources built alongside; a
        driver that cannot be derived or built leaves the round without a prediction, never
        fails it (the build is the project's)."""
        driver, why = derived_driver(self.site)
        if driver is None:
            self.driver_problem = why
            return await super().build(parameters, step)
        out, self.driver_problem = await build_alongside(self.site, parameters, step, driver)
        if build_failed(out):
            return False, "build failed: " + build_failure(out)
        self.driver = None if self.driver_problem else driver
        return True, ""

    async def predict(self, parameters: Mapping[str, Scalar]) -> Prediction | None:
        if not self.predicting:
            return None
        if self.driver_problem:
            return Prediction(problem=self.driver_problem)
        try:
            outcome = await perf_sim_run(self.site, PREDICTION_STEP, parameters, self.driver, PREDICTION_RUN)
        except StepTimedOut as error:
            return Prediction(problem=error.render())
        if not outcome.valid or outcome.duration_us is None:
            return Prediction(problem=outcome.problem or "the perf_sim run gave no cycles")
        return Prediction(round(outcome.duration_us), outcome.pipes)

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
        limit = await self.site.limit(CORRECTNESS)
        out = await self.site.run("correctness", command, parameters=parameters, timeout=limit,
                                  needs=NEEDS_NPU)
        result = self.site.config.result
        correct, problem = run_verdict(out, result) if result.printed else tilelib_verdict(out, None)
        return (True, "") if correct else (False, "correctness check failed: " + problem)

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        site = self.site
        if site.config.result.printed:  # timed and judged by what the run prints ([result])
            command = site.render(site.config.commands.benchmark, parameters)
            out = await site.run(step, command, parameters=parameters, timeout=await site.limit(BENCHMARK),
                                 needs=NEEDS_NPU)
            checked = bool(site.config.commands.correctness.strip())
            return run_outcome(out, site.config.result, self.flops, checked)
        csv_rel = site.config.commands.results or "build/report.csv"
        try:
            cases, under = self._cases()
        except CaseStringError as error:
            return BenchOutcome(problem=error.render())
        before = file_state(await site.read_text(csv_rel, f"{step}: read report.csv"))
        command = site.render(site.config.commands.benchmark, parameters)
        # the file's state before the run goes into the job's record: a run resumed later
        # (this job adopted) tells the job's rows by it, not by the file as it is by then
        out = await site.run(step, command, parameters=parameters, timeout=await site.limit(BENCHMARK),
                             notes={REPORT_BEFORE: before}, needs=NEEDS_NPU)
        before = out.record.notes.get(REPORT_BEFORE, before)
        correct, problem = tilelib_verdict(out, len(cases) if cases else None)
        if not correct:
            return BenchOutcome(correct=correct, problem=problem)
        after = await site.read_text(csv_rel, f"{step}: read report.csv")
        if after is None:
            return BenchOutcome(correct=True, problem=f"{csv_rel} was not written")
        expected = [case.name for case in cases] if cases else None
        try:
            rows = rows_after_state(before, after, csv_rel)
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


class PerfSimBackend(TileLibBackend):
    """The perf-sim mode (perf_sim.py): built for and checked in the CPU simulation as in
    cpu-sim, with the perf_sim driver of the sources as they are built alongside (a failure
    of either quoted by the compiler's first error); a benchmark run's sample is the
    driver's Total cycles."""

    async def build(self, parameters: Mapping[str, Scalar], step: str = "build") -> tuple[bool, str]:
        try:
            self._cases()  # a case string the operator cannot take fails before a long build
        except CaseStringError as error:
            return False, error.render()
        self.driver, problem = await perf_sim_build(self.site, parameters, step)
        problem = problem or await self._knobs_not_reached(parameters)
        return not problem, problem

    async def correctness(self, parameters: Mapping[str, Scalar]) -> tuple[bool | None, str]:
        if not self.site.config.commands.correctness.strip():
            return False, NO_CORRECTNESS
        return await super().correctness(parameters)

    async def benchmark(self, step: str, parameters: Mapping[str, Scalar]) -> BenchOutcome:
        return await perf_sim_run(self.site, step, parameters, self.driver)


def tilelib_verdict(out: StepOutput, cases: int | None) -> tuple[bool | None, str]:
    """(correct, problem) of one run of a tile-lib binary from its output: True only with a
    `test success` per case, no `test failed` and exit code 0; None when it cannot be told."""
    verdict = parse_tilelib_output("\n".join(out.stdout + out.stderr))  # the WARN goes to stderr
    exited = ended(out)
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


def report_outcome(config: ProjectConfig, text: str, path: str, flops: float | None) -> BenchOutcome:
    """report.csv given by hand: the binary appends to it on every run, so it must hold one
    row of the case under tuning (a run's own rows), whose result column is its verdict.
    A perf-sim project's samples are cycles, which no report.csv holds: refused."""
    if mode_spec(config.target.mode).perf_sim:
        return BenchOutcome(problem=PERF_SIM_REPORT, report=path)
    if config.result.printed:  # the run's saved output, read as [result] reads a run's
        return printed_outcome(text, f"the output saved in {path}", True, config.result, flops, path)
    try:
        cases = parsed_cases(config.case, config.operator)
        under = case_under_tuning(cases, config.case.name).name if cases else config.case.name
        row = sample_row(parse_report_csv(text, path), None, under, path)
    except (ReportError, CaseStringError) as error:
        return BenchOutcome(problem=error.render(), report=path)
    if not row.ok:
        return BenchOutcome(correct=False, problem=f"report.csv marks {row.case} NOK", report=path)
    return BenchOutcome(
        correct=True,
        duration_us=row.duration_us,
        tflops=tflops_from(row.duration_us, flops) if flops else row.tflops,
        report=path,
    )


# without an NPU, the CPU simulation or the cycle model run the operator instead
_NO_NPU = "; without an NPU, make the project with --mode cpu-sim or --mode perf-sim"


def _npu_probes(_target: Target) -> list[Probe]:
    return [
        Probe("bisheng", "bisheng --version", "bisheng", checks="the Bisheng compiler is on PATH",
              fix=CANN_FIX + _NO_NPU),
        replace(CANN, fix=CANN.fix + _NO_NPU),
        replace(NPU_SMI, fix=NPU_SMI.fix + _NO_NPU),
        CMAKE,
        PYTHON,
    ]


def _demo_probes(_target: Target) -> list[Probe]:
    return [Probe("g++ (demo, instead of Bisheng)", "g++ --version", "g++"), CMAKE, PYTHON]


PTO_TILE_LIB = KindRuntime(
    kind=OperatorKind.PTO_TILE_LIB,
    backend=TileLibBackend,
    probes={
        TargetMode.NPU: _npu_probes,
        TargetMode.CPU_SIM: cpu_sim_probes,
        TargetMode.PERF_SIM: perf_sim_probes,
        TargetMode.DEMO: _demo_probes,
    },
    report_outcome=report_outcome,
    mode_backends={TargetMode.PERF_SIM: PerfSimBackend},
)
