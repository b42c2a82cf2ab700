"""Round records to and from round.toml's tables (TOML has no null: empty values are left out)."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from pto_tui.core.operators.workload_read import WorkloadRead
from pto_tui.core.rounds.records import (
    OPEN,
    Amendment,
    Changes,
    ChecklistItem,
    EnvironmentNotes,
    Measurement,
    ParamChange,
    PreEdit,
    Round,
)
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS, ChangeKind, Verdict

if TYPE_CHECKING:
    from pto_tui.core.reports.perf_sim import PipeBusy


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
        "snapshot": dict(ch.parameter_values),
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
        "workload_reads": [asdict(r) for r in m.workload_reads],
        "frontier_samples_us": list(m.frontier_samples_us),
        "frontier_round": m.frontier_round,
        "unit": m.unit,
        "pipes": [asdict(p) for p in m.pipes],
        "placements": list(m.placements),
        "predicted_cycles": m.predicted_cycles,
        "prediction_problem": m.prediction_problem,
    }


def _environment_to_dict(env: EnvironmentNotes) -> dict[str, Any]:
    return {
        "versions": dict(env.versions),
        "build_outcome": env.build_outcome,
        "first_valid_result": env.first_valid_result,
        "problems": list(env.problems),
        "probes": dict(env.probes),
        "passed": env.passed,
        **({"at": env.at} if env.at else {}),
        **({"declared_by": env.declared_by} if env.declared_by else {}),
        **({"declared_reason": env.declared_reason} if env.declared_reason else {}),
    }


def round_to_dict(record: Round, *, complete: bool = False) -> dict[str, Any]:
    """The record as round.toml's tables (empty values left out: TOML has no null); with
    `complete`, every field, an empty one as its empty value or null (the JSON outputs,
    docs/json/round.schema.json)."""
    data: dict[str, Any] = {
        "number": record.number,
        "status": record.status,
        "phase": record.phase,
        "opened_at": record.opened_at,
        "closed_at": record.closed_at,
        "title": record.title,
        "imported": record.imported or None,
        "as_written": dict(record.as_written),
        "notes_sha": record.notes_sha,
        "base_snapshot": record.base_snapshot,
        "snapshot": record.snapshot,
        "stability": record.stability,
        "verdict": record.verdict.value if record.verdict else None,
        "verdict_reason": record.verdict_reason,
        "verdict_rule": record.verdict_rule,
        "flags": list(record.flags),
        "held_for_review": record.held_for_review or None,
        "review_confirmation": record.review_confirmation,
        "analysis": record.analysis,
        "next": record.next,
        "rerun_of": record.rerun_of,
        "group": record.group,
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
    if record.environment_attempts:
        data["environment_attempts"] = [_environment_to_dict(e) for e in record.environment_attempts]
    if complete:
        return _completed(data, record)
    # checklist items with ticked=False must survive: keep the checklist table as is
    checklist = data["pre_edit"].pop("checklist")
    cleaned = _drop_empty(data)
    if checklist:
        cleaned.setdefault("pre_edit", {})["checklist"] = checklist
    if record.environment is not None:
        cleaned.setdefault("environment", {})["passed"] = record.environment.passed
    return cleaned


def _completed(data: dict[str, Any], record: Round) -> dict[str, Any]:
    """round_to_dict's data with every field: booleans as booleans, no environment as null."""
    data["imported"] = record.imported
    data["held_for_review"] = record.held_for_review
    data.setdefault("environment", None)
    data.setdefault("environment_attempts", [])
    for change in data["changes"]["parameters"]:
        change.setdefault("old", None)  # a parameter the round set that had no value before
    for env in (data["environment"], *data["environment_attempts"]):
        if env is not None:
            env.setdefault("at", "")
            env.setdefault("declared_by", "")
            env.setdefault("declared_reason", "")
    return data


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
        parameter_values=dict(ch_data.get("snapshot", {})),
        based_on=ch_data.get("based_on"),
        bug_fix=str(ch_data.get("bug_fix", "")),
        risk_justification=str(ch_data.get("risk_justification", "")),
        high_risk=[str(h) for h in ch_data.get("high_risk", [])],
        tolerance_approval=str(ch_data.get("tolerance_approval", "")),
        discipline_approval=str(ch_data.get("discipline_approval", "")),
    )


def _finite(value: Any, key: str) -> float:
    """A number of the record: TOML has nan and inf, a record never holds them (JSON
    output could not carry them)."""
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{key} is {number}, not a finite number")
    return number


def _whole(value: Any, key: str) -> int:
    """A count of the record (cycles): a whole number, not below zero."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key} is {value!r}, not a whole number of 0 or more")
    return value


def _pipes(items: list[dict[str, Any]]) -> list[PipeBusy]:
    if not items:
        return []
    # imported here: only rounds measured by perf_sim have pipes
    from pto_tui.core.reports.perf_sim import PipeBusy

    return [PipeBusy(str(p["name"]), int(p["busy_cycles"]), _finite(p["share"], "measurement.pipes.share"))
            for p in items]


def _measurement_from_dict(m_data: dict[str, Any]) -> Measurement:
    return Measurement(
        build=str(m_data.get("build", "")),
        correctness=str(m_data.get("correctness", "")),
        samples_us=[_finite(s, "measurement.samples_us") for s in m_data.get("samples_us", [])],
        reference_us=[_finite(s, "measurement.reference_us") for s in m_data.get("reference_us", [])],
        tflops=_finite(m_data["tflops"], "measurement.tflops") if "tflops" in m_data else None,
        reports=[str(r) for r in m_data.get("reports", [])],
        problem=str(m_data.get("problem", "")),
        fingerprint=str(m_data.get("fingerprint", "")),
        target_mode=str(m_data.get("target_mode", "")),
        workload_reads=[
            WorkloadRead(str(r["name"]), str(r["file"]), int(r["line"]), str(r.get("text", "")))
            for r in m_data.get("workload_reads", [])
        ],
        frontier_samples_us=[
            _finite(s, "measurement.frontier_samples_us") for s in m_data.get("frontier_samples_us", [])
        ],
        frontier_round=int(m_data["frontier_round"]) if "frontier_round" in m_data else None,
        unit=str(m_data.get("unit", "")),
        pipes=_pipes(m_data.get("pipes", [])),
        placements=[str(p) for p in m_data.get("placements", [])],
        predicted_cycles=_whole(m_data["predicted_cycles"], "measurement.predicted_cycles")
        if "predicted_cycles" in m_data else None,
        prediction_problem=str(m_data.get("prediction_problem", "")),
    )


def _environment_from_dict(env_data: dict[str, Any]) -> EnvironmentNotes:
    return EnvironmentNotes(
        versions={str(k): str(v) for k, v in env_data.get("versions", {}).items()},
        build_outcome=str(env_data.get("build_outcome", "")),
        first_valid_result=str(env_data.get("first_valid_result", "")),
        problems=[str(p) for p in env_data.get("problems", [])],
        probes={str(k): bool(v) for k, v in env_data.get("probes", {}).items()},
        passed=bool(env_data.get("passed", False)),
        at=str(env_data.get("at", "")),
        declared_by=str(env_data.get("declared_by", "")),
        declared_reason=str(env_data.get("declared_reason", "")),
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
        verdict_rule=str(data.get("verdict_rule", "")),
        flags=[str(f) for f in data.get("flags", [])],
        held_for_review=bool(data.get("held_for_review", False)),
        review_confirmation=str(data.get("review_confirmation", "")),
        analysis=str(data.get("analysis", "")),
        next=str(data.get("next", "")),
        rerun_of=int(data["rerun_of"]) if data.get("rerun_of") is not None else None,
        group=str(data.get("group", "")),
        base_snapshot=str(data.get("base_snapshot", "")),
        snapshot=str(data.get("snapshot", "")),
        environment=environment,
        environment_attempts=[_environment_from_dict(e) for e in data.get("environment_attempts", [])],
        amendments=[
            Amendment(**{k: str(v) for k, v in a.items()}) for a in data.get("amendments", [])
        ],
        imported=bool(data.get("imported", False)),
        as_written={str(k): str(v) for k, v in data.get("as_written", {}).items()},
        notes_sha=str(data.get("notes_sha", "")),
        protected_hashes={str(k): str(v) for k, v in data.get("protected_hashes", {}).items()},
        tolerances={str(k): _finite(v, f"tolerances.{k}") for k, v in data.get("tolerances", {}).items()},
        discipline={str(k): _finite(v, f"discipline.{k}") for k, v in data.get("discipline", {}).items()},
    )
