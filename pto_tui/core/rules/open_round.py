"""A valid record: the open round's record checked again at every step (changes,
measure, run, close): the gates `round start` and `round changes` applied, and the
values a hand edit could break, each finding naming the field; and a measurement's
numbers and outcomes, as given. Pure functions over records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from pto_tui.core.numbers import duration_problem, tflops_problem
from pto_tui.core.project.config import Tunable
from pto_tui.core.rounds.records import OPEN, Measurement, Round
from pto_tui.core.rules.pre_edit import pre_edit_findings
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.workspace.snapshots import snapshot_id_problem

VALID_RECORD = Rule(
    "valid-record",
    refuses="a step on an open round whose round.toml holds values no step could have "
    "written (a status, a base round, a snapshot id, a knob or value, a measurement that "
    "cannot be), and a measurement whose numbers or outcomes cannot be",
    fix="restore the field of round.toml the finding names (or give a measurement of "
    "finite, positive numbers and known outcomes)",
    steps=("changes", "measure", "run", "close"),
)

# What a measurement's outcome fields may hold ("" = not run).
BUILD_OUTCOMES = ("", "ok", "failed")
CORRECTNESS_OUTCOMES = ("", "pass", "fail")


def measurement_value_findings(m: Measurement, where: str = "measurement") -> list[Finding]:
    """Numbers that cannot be measurements (NaN, infinite, zero, negative, absurd) and
    outcomes that are not outcomes, each naming its field."""
    findings: list[Finding] = []
    if m.build not in BUILD_OUTCOMES:
        findings.append(VALID_RECORD.finding(f"{where}.build {m.build!r} is not one of ok, failed"))
    if m.correctness not in CORRECTNESS_OUTCOMES:
        findings.append(
            VALID_RECORD.finding(f"{where}.correctness {m.correctness!r} is not one of pass, fail")
        )
    for key, values in (("samples_us", m.samples_us), ("reference_us", m.reference_us),
                        ("frontier_samples_us", m.frontier_samples_us)):
        problem = next(
            (p for i, v in enumerate(values) if (p := duration_problem(f"{where}.{key}[{i}]", v))), None
        )
        if problem:
            findings.append(VALID_RECORD.finding(problem))
    if m.tflops is not None:
        problem = tflops_problem(f"{where}.tflops", m.tflops)
        if problem:
            findings.append(VALID_RECORD.finding(problem))
    return findings


def open_record_findings(
    record: Round, rounds: Sequence[Round], tunables: Mapping[str, Tunable], file: str = "round.toml"
) -> list[Finding]:
    """Everything `round start` and `round changes` checked, checked again on an open
    round's record as it is now: round.toml may have been edited by hand since. Each
    finding names the field of round.toml."""
    findings = [
        replace(f, message=f"{file} [pre_edit]: {f.message}") for f in pre_edit_findings(record.pre_edit)
    ]
    if record.status != OPEN:
        findings.append(VALID_RECORD.finding(f"{file} status {record.status!r} is not 'open' or 'closed'"))
    based_on = record.changes.based_on
    closed = {r.number for r in rounds if r.is_closed}
    if based_on is None or based_on not in closed or based_on >= record.number:
        findings.append(
            VALID_RECORD.finding(
                f"{file} changes.based_on = {based_on!r} is not a closed round before this one",
            )
        )
    for key in ("base_snapshot", "snapshot"):
        snap = str(getattr(record, key))
        problem = snapshot_id_problem(snap) if snap else None
        if problem:
            findings.append(VALID_RECORD.finding(f"{file} {key}: {problem}"))
    if not record.base_snapshot and any(r.number == based_on and r.snapshot for r in rounds):
        findings.append(VALID_RECORD.finding(f"{file} base_snapshot is missing"))
    for where, values in (
        ("changes.snapshot", dict(record.changes.parameter_values)),
        ("changes.parameters", {p.name: p.new for p in record.changes.parameters}),
    ):
        for name, value in values.items():
            tunable = tunables.get(name)
            if tunable is None:
                findings.append(
                    VALID_RECORD.finding(f"{file} {where}: {name!r} is not a tunable of this project")
                )
            elif tunable.allowed and value not in tunable.allowed:
                findings.append(
                    VALID_RECORD.finding(
                        f"{file} {where}: {name} = {value!r} is not one of its allowed values "
                        + ", ".join(str(v) for v in tunable.allowed),
                    )
                )
    findings += measurement_value_findings(record.measurement, f"{file} measurement")
    return findings
