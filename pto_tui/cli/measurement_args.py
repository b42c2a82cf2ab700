"""Build, correctness and benchmark numbers given on the command line
(`pto-tui baseline --build ...` and `pto-tui round measure`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from pto_tui.core.errors import InputError
from pto_tui.core.numbers import NUMBER_TEXT, duration_problem, tflops_problem
from pto_tui.core.rounds.records import Measurement

if TYPE_CHECKING:
    from pto_tui.core.campaign.campaign import Campaign


def add_measurement_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--build", choices=("ok", "failed"), required=required,
                   help="whether the build succeeded (failed: no numbers may be recorded)")
    p.add_argument(
        "--correctness",
        choices=("pass", "fail", "skip"),
        default="skip",
        help="skip = not run (no numbers may then be recorded)",
    )
    p.add_argument("--samples", default="", help="benchmark durations, comma separated, one per repeat")
    p.add_argument("--reference", default="", help="the report's baseline (reference) durations")
    p.add_argument("--unit", choices=("us", "ms"), default="us", help="unit of the durations")
    p.add_argument("--tflops", type=float, help="throughput at the median run, if known (positive)")
    p.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FILE",
        help="a result file of one benchmark run (report.json, report.csv), read and checked as a "
        "run's: its duration is the sample (repeat for several runs; instead of --samples)",
    )
    p.add_argument("--problem", default="", help="what went wrong, when something did")


def measurement_from_args(args: argparse.Namespace, campaign: Campaign | None = None) -> Measurement:
    """The measurement given by the flags; with the campaign, the --report files are read
    (paths relative to the current directory) and give the numbers."""
    measurement = Measurement(
        build=args.build or ("ok" if args.report else ""),  # a report exists only after a build
        correctness="" if args.correctness == "skip" else args.correctness,
        samples_us=_durations_us(args.samples, args.unit, "--samples"),
        reference_us=_durations_us(args.reference, args.unit, "--reference"),
        tflops=_tflops(args.tflops),
        reports=list(args.report),
        problem=args.problem,
    )
    if campaign is None or not measurement.reports:
        return measurement
    from pto_tui.backends.report_files import with_reports

    return with_reports(campaign.config, measurement, Path.cwd())


def _durations_us(text: str, unit: str, what: str) -> list[float]:
    """Comma-separated durations in `unit`, as microseconds."""
    if not text.strip():
        return []
    scale = 1000.0 if unit == "ms" else 1.0
    values = []
    for part in text.split(","):
        if not NUMBER_TEXT.fullmatch(part.strip()):
            raise InputError(f"{what}: {part.strip()!r} is not a number")
        value = float(part) * scale
        problem = duration_problem("in microseconds it", value)
        if problem:
            raise InputError(f"{what}: {part.strip()} {unit} is not a measured duration: {problem}")
        values.append(value)
    return values


def _tflops(value: float | None) -> float | None:
    problem = tflops_problem("--tflops", value) if value is not None else None
    if problem:
        raise InputError(problem)
    return value
