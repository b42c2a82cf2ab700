"""The tools' structured arguments and their conversion to the core's records.

The same fields the CLI's flags give (`round start --kernel ... --check KEY=NOTE`),
checked the same way: an unknown checklist key is refused, durations are microseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from pto_tui.core.errors import InputError
from pto_tui.core.numbers import duration_problem, tflops_problem
from pto_tui.core.project.config import operator_folder
from pto_tui.core.rounds.records import ChecklistItem, Measurement, PreEdit
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, HARDWARE_CHECKLIST

if TYPE_CHECKING:
    from pto_tui.core.campaign.campaign import Campaign


class PreEditAnswers(BaseModel):
    """The Pre-Edit answers of a round (docs/workflow.md §10: four questions, bottleneck class,
    hardware checklist, one hypothesis)."""

    model_config = ConfigDict(extra="forbid")  # an answer under another name is refused, not lost

    kernel: str = Field("", description="target operator and current configuration")
    bottleneck: str = Field(
        "",
        description="bottleneck class (the `classes` tool lists them; empty: not answered yet)",
        json_schema_extra={"enum": ["", *BOTTLENECK_CLASSES]},
    )
    evidence: str = Field("", description="what shows the bottleneck (profiling, costmodel, numbers)")
    hypothesis: str = Field("", description="the one hypothesis this round tests")
    why_ascend: str = Field("", description="why the change should help on Ascend")
    expected_metric: str = Field("", description="which metric should improve")
    main_risk: str = Field("", description="the main risk")
    correctness_plan: str = Field("", description="how correctness is assured")
    checklist: dict[str, str] = Field(
        default_factory=dict,
        description="hardware checklist: key -> note, all 8 keys (see `classes`)",
        json_schema_extra={
            "properties": {key: {"type": "string"} for key in HARDWARE_CHECKLIST},
            "additionalProperties": False,
        },
    )
    scope: list[str] = Field(
        default_factory=list,
        description="path patterns (as in .gitignore) or parameters the hypothesis will change",
    )
    bottleneck_recheck: str = Field("", description="three-round rule: the re-checked bottleneck")
    new_direction: str = Field("", description="three-round rule: the new direction")

    def to_record(self) -> PreEdit:
        unknown = [key for key in self.checklist if key not in HARDWARE_CHECKLIST]
        if unknown:
            raise InputError(
                f"unknown checklist item(s): {', '.join(unknown)}; known: {', '.join(HARDWARE_CHECKLIST)}",
                key="pre_edit.checklist",
            )
        return PreEdit(
            kernel=self.kernel,
            bottleneck=self.bottleneck,
            evidence=self.evidence,
            hypothesis=self.hypothesis,
            why_ascend=self.why_ascend,
            expected_metric=self.expected_metric,
            main_risk=self.main_risk,
            correctness_plan=self.correctness_plan,
            checklist={key: ChecklistItem(ticked=True, note=note) for key, note in self.checklist.items()},
            scope=list(self.scope),
            bottleneck_recheck=self.bottleneck_recheck,
            new_direction=self.new_direction,
        )


class MeasurementInput(BaseModel):
    """Build, correctness and benchmark numbers measured elsewhere (`round measure`)."""

    model_config = ConfigDict(extra="forbid")

    build: str = Field(description="ok or failed", json_schema_extra={"enum": ["ok", "failed"]})
    correctness: str = Field(
        "skip",
        description="pass, fail or skip (not run: then no numbers)",
        json_schema_extra={"enum": ["pass", "fail", "skip"]},
    )
    samples_us: list[float] = Field(default_factory=list, description="benchmark durations, microseconds")
    reference_us: list[float] = Field(default_factory=list, description="the report's baseline durations")
    tflops: float | None = None
    reports: list[str] = Field(
        default_factory=list,
        description="result files of benchmark runs (report.json, report.csv) on this machine, one per "
        "run, read and checked as a run's: their durations are the samples (give them instead of "
        "samples_us); a relative path is below the workspace's operator folder",
    )
    problem: str = ""

    def to_record(
        self, campaign: Campaign | None = None, within: Callable[[Path, str], Path] | None = None
    ) -> Measurement:
        """The measurement; with the campaign, the `reports` are read and give the numbers.
        within checks each report's path first (the server's roots)."""
        measurement = self._given()
        if campaign is None or not measurement.reports:
            return measurement
        from pto_tui.backends.report_files import with_reports

        config = campaign.config
        base = campaign.layout.workspace / operator_folder(config)
        if within is not None:
            for report in measurement.reports:
                within(base / Path(report).expanduser(), "reports")  # an absolute path stays
        return with_reports(config, measurement, base)

    def _given(self) -> Measurement:
        if self.build not in ("ok", "failed"):
            raise InputError(f"build: expected ok or failed, got {self.build!r}", key="build")
        if self.correctness not in ("pass", "fail", "skip"):
            raise InputError(
                f"correctness: expected pass, fail or skip, got {self.correctness!r}", key="correctness"
            )
        for key, values in (("samples_us", self.samples_us), ("reference_us", self.reference_us)):
            for index, value in enumerate(values):
                problem = duration_problem(f"{key}[{index}]", value)
                if problem:
                    raise InputError(f"{problem} (durations are microseconds)", key=f"{key}[{index}]")
        problem = tflops_problem("tflops", self.tflops) if self.tflops is not None else None
        if problem:
            raise InputError(problem, key="tflops")
        return Measurement(
            build=self.build,
            correctness="" if self.correctness == "skip" else self.correctness,
            samples_us=list(self.samples_us),
            reference_us=list(self.reference_us),
            tflops=self.tflops,
            reports=list(self.reports),
            problem=self.problem,
        )
