"""The structured record of one round (runs/iter-XXX/round.toml) as dataclasses.

The Markdown files (notes.md, ITERATIONS.md) are rendered from these records, so
nothing depends on parsing prose. round.toml is written by pto-tui only.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from pto_tui.core.project.config import CPU_SIM, Scalar
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, PRE_EDIT_FIELDS, ChangeKind, Verdict

OPEN = "open"
CLOSED = "closed"


@dataclass
class ChecklistItem:
    ticked: bool = False
    note: str = ""


@dataclass
class PreEdit:
    kernel: str = ""
    bottleneck: str = ""  # one of BOTTLENECK_CLASSES
    evidence: str = ""
    hypothesis: str = ""
    why_ascend: str = ""
    expected_metric: str = ""
    main_risk: str = ""
    correctness_plan: str = ""  # the fourth question: how correctness is assured
    checklist: dict[str, ChecklistItem] = field(default_factory=dict)
    scope: list[str] = field(default_factory=list)  # files/parameters the hypothesis declares
    bottleneck_recheck: str = ""  # three-round rule: the re-checked bottleneck reasoning
    new_direction: str = ""  # three-round rule: the new direction taken

    def field_value(self, key: str) -> str:
        return str(getattr(self, key))


@dataclass
class ParamChange:
    name: str
    old: Scalar | None
    new: Scalar


@dataclass
class Changes:
    kind: ChangeKind | None = None
    files: list[str] = field(default_factory=list)  # relative to the project root
    description: str = ""
    parameters: list[ParamChange] = field(default_factory=list)
    snapshot: dict[str, Scalar] = field(default_factory=dict)  # full parameter snapshot
    based_on: int | None = None
    bug_fix: str = ""  # reason, when a protected file is changed as a declared bug fix
    risk_justification: str = ""  # written justification for a high-risk change
    high_risk: list[str] = field(default_factory=list)  # what the detector found
    tolerance_approval: str = ""  # explicit approval (who, why) of a loosened tolerance
    discipline_approval: str = ""  # the reason the verdict rules ([discipline]) changed


@dataclass
class Measurement:
    build: str = ""  # ok | failed | "" (not run)
    correctness: str = ""  # pass | fail | "" (not run)
    samples_us: list[float] = field(default_factory=list)  # PTO duration per repeat
    reference_us: list[float] = field(default_factory=list)  # the report's baseline column
    tflops: float | None = None
    reports: list[str] = field(default_factory=list)  # result files the numbers came from
    problem: str = ""  # why the build/correctness/benchmark failed
    fingerprint: str = ""  # workload fingerprint at measurement time
    target_mode: str = ""  # the target's mode when measured: npu | cpu-sim | demo ("" = before modes)

    @property
    def median_us(self) -> float | None:
        valid = valid_samples(self.samples_us)
        return statistics.median(valid) if valid else None

    @property
    def reference_median_us(self) -> float | None:
        valid = valid_samples(self.reference_us)
        return statistics.median(valid) if valid else None


@dataclass
class Amendment:
    """A correction kept beside the original record: who, when, why, what."""

    who: str
    when: str
    why: str
    field: str
    old: str
    new: str


@dataclass
class EnvironmentNotes:
    """The environment round's extra record (WORKFLOW.md step 6), kept on iter-000."""

    versions: dict[str, str] = field(default_factory=dict)
    build_outcome: str = ""
    first_valid_result: str = ""
    problems: list[str] = field(default_factory=list)
    probes: dict[str, bool] = field(default_factory=dict)  # probe name -> passed
    passed: bool = False


@dataclass
class Round:
    number: int
    status: str = OPEN
    phase: str = ""
    opened_at: str = ""
    closed_at: str = ""
    title: str = ""  # short hypothesis title for tables and charts
    pre_edit: PreEdit = field(default_factory=PreEdit)
    changes: Changes = field(default_factory=Changes)
    measurement: Measurement = field(default_factory=Measurement)
    stability: str = ""  # stable | noisy
    verdict: Verdict | None = None
    verdict_reason: str = ""
    flags: list[str] = field(default_factory=list)  # e.g. "review: gain above 10x"
    held_for_review: bool = False  # the numbers keep it, the speedup needs a person's word
    review_confirmation: str = ""  # who, when and why the held round was confirmed
    analysis: str = ""
    next: str = ""
    base_snapshot: str = ""  # workspace snapshot the round's diff is taken against
    snapshot: str = ""  # workspace snapshot at close (what was measured)
    environment: EnvironmentNotes | None = None
    amendments: list[Amendment] = field(default_factory=list)
    imported: bool = False  # read from hand-written Markdown
    notes_sha: str = ""  # sha256 of the notes.md pto-tui last wrote ("" = never wrote it)
    # protected files' hashes this round accepted (baseline, or a declared bug fix)
    protected_hashes: dict[str, str] = field(default_factory=dict)
    tolerances: dict[str, float] = field(default_factory=dict)  # in force when measured
    discipline: dict[str, float] = field(default_factory=dict)  # [discipline] in force at close
    # not written to round.toml: set on reading when the record no longer matches
    # runs/closed.log (what differs); the record then is the round as it was closed
    tampered: list[str] = field(default_factory=list)

    @property
    def is_baseline(self) -> bool:
        return self.number == 0

    @property
    def is_closed(self) -> bool:
        return self.status == CLOSED

    @property
    def simulated(self) -> bool:
        """Its timings come from a CPU simulation, not an NPU."""
        return self.measurement.target_mode == CPU_SIM

    def short_hypothesis(self, limit: int = 60) -> str:
        text = self.title or self.pre_edit.hypothesis or ("baseline" if self.is_baseline else "")
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def effective_verdict(self) -> Verdict | None:
        """The verdict after amendments (the original stays in `verdict`)."""
        verdict = self.verdict
        for amendment in self.amendments:
            if amendment.field == "verdict":
                verdict = Verdict(amendment.new)
        return verdict


def verdict_label(record: Round) -> str:
    """The verdict as shown and written: a kept verdict from simulated timings says so."""
    verdict = record.effective_verdict()
    if verdict is None:
        return ""
    return f"{verdict.value} (simulated)" if verdict is Verdict.KEPT and record.simulated else verdict.value


def valid_samples(samples: list[float]) -> list[float]:
    """Durations that can be measurements: finite and positive."""
    return [s for s in samples if isinstance(s, int | float) and math.isfinite(s) and s > 0]


# ---------------------------------------------------------------- TOML mapping


def _drop_empty(data: dict[str, Any]) -> dict[str, Any]:
    """TOML has no null: leave out None and empty values."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if value is None or value == "" or value == [] or value == {}:
            continue
        if isinstance(value, dict):
            value = _drop_empty(value)
            if not value:
                continue
        out[key] = value
    return out


def _pre_edit_to_dict(pre: PreEdit) -> dict[str, Any]:
    return {
        **{key: pre.field_value(key) for key, _label in PRE_EDIT_FIELDS},
        "correctness_plan": pre.correctness_plan,
        "scope": list(pre.scope),
        "bottleneck_recheck": pre.bottleneck_recheck,
        "new_direction": pre.new_direction,
        "checklist": {
            key: {"ticked": item.ticked, "note": item.note} for key, item in pre.checklist.items()
        },
    }


def _changes_to_dict(ch: Changes) -> dict[str, Any]:
    return {
        "kind": ch.kind.value if ch.kind else None,
        "files": list(ch.files),
        "description": ch.description,
        "based_on": ch.based_on,
        "bug_fix": ch.bug_fix,
        "risk_justification": ch.risk_justification,
        "high_risk": list(ch.high_risk),
        "tolerance_approval": ch.tolerance_approval,
        "discipline_approval": ch.discipline_approval,
        "snapshot": dict(ch.snapshot),
        "parameters": [
            _drop_empty({"name": p.name, "old": p.old, "new": p.new}) for p in ch.parameters
        ],
    }


def _measurement_to_dict(m: Measurement) -> dict[str, Any]:
    return {
        "build": m.build,
        "correctness": m.correctness,
        "samples_us": list(m.samples_us),
        "reference_us": list(m.reference_us),
        "tflops": m.tflops,
        "reports": list(m.reports),
        "problem": m.problem,
        "fingerprint": m.fingerprint,
        "target_mode": m.target_mode,
    }


def _environment_to_dict(env: EnvironmentNotes) -> dict[str, Any]:
    return {
        "versions": dict(env.versions),
        "build_outcome": env.build_outcome,
        "first_valid_result": env.first_valid_result,
        "problems": list(env.problems),
        "probes": dict(env.probes),
        "passed": env.passed,
    }


def round_to_dict(record: Round) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": record.number,
        "status": record.status,
        "phase": record.phase,
        "opened_at": record.opened_at,
        "closed_at": record.closed_at,
        "title": record.title,
        "imported": record.imported or None,
        "notes_sha": record.notes_sha,
        "base_snapshot": record.base_snapshot,
        "snapshot": record.snapshot,
        "stability": record.stability,
        "verdict": record.verdict.value if record.verdict else None,
        "verdict_reason": record.verdict_reason,
        "flags": list(record.flags),
        "held_for_review": record.held_for_review or None,
        "review_confirmation": record.review_confirmation,
        "analysis": record.analysis,
        "next": record.next,
        "pre_edit": _pre_edit_to_dict(record.pre_edit),
        "changes": _changes_to_dict(record.changes),
        "measurement": _measurement_to_dict(record.measurement),
        "amendments": [a.__dict__.copy() for a in record.amendments],
        "protected_hashes": dict(record.protected_hashes),
        "tolerances": dict(record.tolerances),
        "discipline": dict(record.discipline),
    }
    if record.environment is not None:
        data["environment"] = _environment_to_dict(record.environment)
    # checklist items with ticked=False must survive: keep the checklist table as is
    checklist = data["pre_edit"].pop("checklist")
    cleaned = _drop_empty(data)
    if checklist:
        cleaned.setdefault("pre_edit", {})["checklist"] = checklist
    if record.environment is not None:
        cleaned.setdefault("environment", {})["passed"] = record.environment.passed
    return cleaned


def _pre_edit_from_dict(pre_data: dict[str, Any]) -> PreEdit:
    checklist = {
        key: ChecklistItem(ticked=bool(item.get("ticked", False)), note=str(item.get("note", "")))
        for key, item in pre_data.get("checklist", {}).items()
    }
    return PreEdit(
        **{key: str(pre_data.get(key, "")) for key, _label in PRE_EDIT_FIELDS},
        correctness_plan=str(pre_data.get("correctness_plan", "")),
        checklist=checklist,
        scope=[str(s) for s in pre_data.get("scope", [])],
        bottleneck_recheck=str(pre_data.get("bottleneck_recheck", "")),
        new_direction=str(pre_data.get("new_direction", "")),
    )


def _changes_from_dict(ch_data: dict[str, Any]) -> Changes:
    kind = ch_data.get("kind")
    return Changes(
        kind=ChangeKind(kind) if kind else None,
        files=[str(f) for f in ch_data.get("files", [])],
        description=str(ch_data.get("description", "")),
        parameters=[
            ParamChange(name=str(p["name"]), old=p.get("old"), new=p["new"])
            for p in ch_data.get("parameters", [])
        ],
        snapshot=dict(ch_data.get("snapshot", {})),
        based_on=ch_data.get("based_on"),
        bug_fix=str(ch_data.get("bug_fix", "")),
        risk_justification=str(ch_data.get("risk_justification", "")),
        high_risk=[str(h) for h in ch_data.get("high_risk", [])],
        tolerance_approval=str(ch_data.get("tolerance_approval", "")),
        discipline_approval=str(ch_data.get("discipline_approval", "")),
    )


def _measurement_from_dict(m_data: dict[str, Any]) -> Measurement:
    return Measurement(
        build=str(m_data.get("build", "")),
        correctness=str(m_data.get("correctness", "")),
        samples_us=[float(s) for s in m_data.get("samples_us", [])],
        reference_us=[float(s) for s in m_data.get("reference_us", [])],
        tflops=float(m_data["tflops"]) if "tflops" in m_data else None,
        reports=[str(r) for r in m_data.get("reports", [])],
        problem=str(m_data.get("problem", "")),
        fingerprint=str(m_data.get("fingerprint", "")),
        target_mode=str(m_data.get("target_mode", "")),
    )


def _environment_from_dict(env_data: dict[str, Any]) -> EnvironmentNotes:
    return EnvironmentNotes(
        versions={str(k): str(v) for k, v in env_data.get("versions", {}).items()},
        build_outcome=str(env_data.get("build_outcome", "")),
        first_valid_result=str(env_data.get("first_valid_result", "")),
        problems=[str(p) for p in env_data.get("problems", [])],
        probes={str(k): bool(v) for k, v in env_data.get("probes", {}).items()},
        passed=bool(env_data.get("passed", False)),
    )


def round_from_dict(data: dict[str, Any]) -> Round:
    """Inverse of round_to_dict. Raises KeyError/ValueError/TypeError on bad data;
    the ledger turns those into errors naming the file."""
    # the parts are read in this order so that bad data raises the same error as always
    pre = _pre_edit_from_dict(data.get("pre_edit", {}))
    changes = _changes_from_dict(data.get("changes", {}))
    measurement = _measurement_from_dict(data.get("measurement", {}))
    env_data = data.get("environment")
    environment = _environment_from_dict(env_data) if env_data is not None else None
    verdict = data.get("verdict")
    return Round(
        number=int(data["number"]),
        status=str(data.get("status", OPEN)),
        phase=str(data.get("phase", "")),
        opened_at=str(data.get("opened_at", "")),
        closed_at=str(data.get("closed_at", "")),
        title=str(data.get("title", "")),
        pre_edit=pre,
        changes=changes,
        measurement=measurement,
        stability=str(data.get("stability", "")),
        verdict=Verdict(verdict) if verdict else None,
        verdict_reason=str(data.get("verdict_reason", "")),
        flags=[str(f) for f in data.get("flags", [])],
        held_for_review=bool(data.get("held_for_review", False)),
        review_confirmation=str(data.get("review_confirmation", "")),
        analysis=str(data.get("analysis", "")),
        next=str(data.get("next", "")),
        base_snapshot=str(data.get("base_snapshot", "")),
        snapshot=str(data.get("snapshot", "")),
        environment=environment,
        amendments=[
            Amendment(**{k: str(v) for k, v in a.items()}) for a in data.get("amendments", [])
        ],
        imported=bool(data.get("imported", False)),
        notes_sha=str(data.get("notes_sha", "")),
        protected_hashes={str(k): str(v) for k, v in data.get("protected_hashes", {}).items()},
        tolerances={str(k): float(v) for k, v in data.get("tolerances", {}).items()},
        discipline={str(k): float(v) for k, v in data.get("discipline", {}).items()},
    )


def checklist_complete(pre: PreEdit) -> list[str]:
    """Checklist keys that are not ticked with a note."""
    return [
        key
        for key in HARDWARE_CHECKLIST
        if not (
            pre.checklist.get(key) and pre.checklist[key].ticked and pre.checklist[key].note.strip()
        )
    ]
