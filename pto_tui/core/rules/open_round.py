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
from pto_tui.core.rules.pre_edit import pre_edit_findings, scope_findings
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.rules.scope import outside_scope
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
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
CHANGES_RECORDED = Rule(
    "changes-recorded",
    refuses="measuring or closing a round whose workspace holds edits `round changes` did "
    "not record (made after it, or never recorded): the round's patch.diff and files.txt "
    "would not be the change its close snapshots, and the scope was never checked on them",
    fix="record the round's changes again, which checks them against the declared scope",
    steps=("measure", "close"),
    cli="`pto-tui round changes`",
    mcp="the `round_changes` tool",
    tui="Record changes in the Round pane",
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
    record: Round,
    rounds: Sequence[Round],
    tunables: Mapping[str, Tunable],
    file: str = "round.toml",
    *,
    phases: Sequence[str] = (),
    tunable_files: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Everything `round start` and `round changes` checked, checked again on an open
    round's record as it is now: round.toml may have been edited by hand since. Each
    finding names the field of round.toml. `phases`: the project's (none: not checked);
    `tunable_files`: where each tunable lives, relative to the project (a changed
    parameter is in scope by its name or by its file)."""
    findings = _form_findings(record, file, phases)
    if record.status != OPEN:
        findings.append(VALID_RECORD.finding(f"{file} status {record.status!r} is not 'open' or 'closed'"))
    findings += _base_findings(record, rounds, file)
    findings += _parameter_findings(record, tunables, file)
    findings += measurement_value_findings(record.measurement, f"{file} measurement")
    # last: a value no step could write is named as such first, not as a scope breach
    findings += [replace(f, message=f"{file} [changes] against [pre_edit] scope: {f.message}")
                 for f in recorded_scope_findings(record, tunable_files or {})]
    return findings


def _form_findings(record: Round, file: str, phases: Sequence[str]) -> list[Finding]:
    """The Pre-Edit form's gates, its checklist's keys and the round's phase."""
    findings = [
        replace(f, message=f"{file} [pre_edit]: {f.message}") for f in pre_edit_findings(record.pre_edit)
    ]
    unknown = [key for key in record.pre_edit.checklist if key not in HARDWARE_CHECKLIST]
    if unknown:
        findings.append(VALID_RECORD.finding(
            f"{file} pre_edit.checklist: {', '.join(map(repr, unknown))} is not a hardware "
            f"checklist item ({', '.join(HARDWARE_CHECKLIST)})"
        ))
    if phases and record.phase not in phases:
        findings.append(VALID_RECORD.finding(
            f"{file} phase {record.phase!r} is not a phase of this project ({', '.join(phases)})"
        ))
    return findings


def _base_findings(record: Round, rounds: Sequence[Round], file: str) -> list[Finding]:
    """The round it is based on, and the snapshot ids it names."""
    findings: list[Finding] = []
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
    return findings


def _parameter_findings(record: Round, tunables: Mapping[str, Tunable], file: str) -> list[Finding]:
    """Every parameter value a tunable's allowed one, and each change agreeing with the
    round's values."""
    findings: list[Finding] = []
    values_now = record.changes.parameter_values
    for where, values in (
        ("changes.snapshot", dict(values_now)),
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
    for p in record.changes.parameters:
        if p.name in values_now and values_now[p.name] != p.new:
            findings.append(VALID_RECORD.finding(
                f"{file} changes.parameters: {p.name} = {p.new!r} is not changes.snapshot's "
                f"{values_now[p.name]!r}"
            ))
    return findings


def recorded_scope_findings(record: Round, tunable_files: Mapping[str, str]) -> list[Finding]:
    """The changes `round changes` recorded stay inside the scope as the record declares it
    now: a scope narrowed by hand after them is refused as `round changes` would have
    refused the changes. A parameter is covered by its name or its file; a file that holds
    a covered parameter is explained by it."""
    scope = record.pre_edit.scope
    stray: list[str] = []
    explained: set[str] = set()
    for p in record.changes.parameters:
        where = tunable_files.get(p.name, "")
        if p.name in scope or (where and not outside_scope([where], [], scope)):
            explained.add(where)
        else:
            stray.append(p.name)
    stray += outside_scope([f for f in record.changes.files if f not in explained], [], scope)
    return scope_findings(stray, scope)


def changes_recorded_findings(
    round_dir: str, recorded_files: Sequence[str], files_now: Sequence[str],
    recorded_patch: str | None, patch_now: str,
) -> list[Finding]:
    """The workspace holds the changes `round changes` recorded, no more and no other:
    the files changed against the round's base and the patch as `round changes` would
    write it now agree with files.txt's list and patch.diff (`recorded_patch`; None when
    the round's changes were never recorded: then the workspace must hold none)."""
    if recorded_patch is None:
        if not files_now:
            return []
        return [CHANGES_RECORDED.finding_with_fix(
            f"the workspace changed since the round's base ({_listed(files_now)}), and the "
            f"round's changes were never recorded ({round_dir}/patch.diff is missing)"
        )]
    if sorted(recorded_files) == sorted(files_now) and recorded_patch == patch_now:
        return []
    added = sorted(set(files_now) - set(recorded_files))
    gone = sorted(set(recorded_files) - set(files_now))
    what = "; ".join(part for part in (
        f"changed since: {_listed(added)}" if added else "",
        f"changed back: {_listed(gone)}" if gone else "",
    ) if part) or "an edit made since, or either file edited by hand"
    if added:  # a file the build writes beside the sources is not an edit
        what += "; a file the build writes there belongs in project.toml [scope] generated"
    return [CHANGES_RECORDED.finding_with_fix(
        f"the workspace does not hold the change {round_dir}/patch.diff and "
        f"{round_dir}/round.toml [changes] recorded ({what})"
    )]


def _listed(files: Sequence[str], most: int = 5) -> str:
    shown = ", ".join(files[:most])
    return shown + (f" and {len(files) - most} more" if len(files) > most else "")
