"""The tools' data: the same JSON the CLI prints with --json (schemas in docs/json/),
built from the same core calls."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.scaffold import NewProject, merge_tunables
from pto_tui.core.costmodel.results import CycleResult, best_result
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.scan import ScanResult
from pto_tui.core.operators.tunables import discover
from pto_tui.core.project.config import Tunable
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.lock import last_writer
from pto_tui.core.rounds.export import export_rows
from pto_tui.core.rounds.record_toml import round_to_dict
from pto_tui.core.rules.rule import Finding


def status(campaign: Campaign) -> dict[str, Any]:
    return {**campaign.status().to_json(), "commands": asdict(campaign.config.commands),
            "last_write": last_write(campaign.layout)}


def last_write(layout: ProjectLayout) -> dict[str, Any] | None:
    """Who took the write lock last (what the terminal application names when it
    reloads after another process's write); None before the first write."""
    holder = last_writer(layout.state_dir)
    if holder is None:
        return None
    return {"pid": holder.pid, "host": holder.host, "command": holder.command,
            "since": holder.since, "described": holder.describe()}


def rounds(campaign: Campaign) -> dict[str, Any]:
    records = campaign.rounds()
    st = campaign.status(records)
    return {
        "rounds": [
            {**asdict(row), "tampered": st.tampered.get(row.round, [])}
            for row in export_rows(records, st.torch)
        ],
        "missing": st.problems.missing,
        "unreadable": st.problems.unreadable,
        "notices": st.problems.notices,
    }


def show(campaign: Campaign, number: int) -> dict[str, Any]:
    record = campaign.round(number)
    folder = campaign.layout.round_dir(number)
    # the campaign's marks: an ITERATIONS.md row edited or removed too
    tampered = campaign.status(campaign.current_rounds()).tampered.get(number, record.tampered)
    return {"record": round_to_dict(record), "folder": str(folder), "tampered": tampered}


def findings(found: list[Finding]) -> list[dict[str, str]]:
    return [{"rule": f.rule, "message": f.message} for f in found]


def _tunable(t: Tunable) -> dict[str, object]:
    return {
        "name": t.name,
        "kind": t.kind,
        "value": t.value,
        "default": t.default,
        "allowed": list(t.allowed),
        "file": t.where.split(":", 1)[0],
        "where": t.where,
    }


def _candidate(c: Candidate) -> dict[str, object]:
    data = c.to_json()
    data["tunables"] = [_tunable(t) for t in merge_tunables(discover(c.path), c)]
    return data


def scan(result: ScanResult) -> dict[str, Any]:
    return {
        "root": str(result.root),
        "candidates": [_candidate(c) for c in result.candidates],
        "skipped": [s.to_json() for s in result.skipped],
        "warnings": result.warnings,
    }


def new(root: object, spec: NewProject, candidate: Candidate | None) -> dict[str, Any]:
    return {
        "project": str(root),
        "operator": spec.operator.name,
        "kind": spec.operator.kind.value,
        "classification": candidate.to_json() if candidate else None,
        "tunables": [t.name for t in spec.tunables],
        "workload_knobs": dict(spec.case.knobs),
        "cases": list(spec.cases),
        "case": spec.case.name,
        "repository": spec.operator.repository,
        "path": spec.operator.path,
        "family": spec.operator.family,
        "commands": spec.commands,
        "command_origins": spec.origins,
    }


def costmodel(results: list[CycleResult]) -> dict[str, Any]:
    best = best_result(results)
    return {
        "results": [r.to_dict() for r in results],
        "best": best.label if best else None,
        "failed": sum(not r.ok for r in results),
        "stamp": results[0].stamp.to_dict() if results else None,
    }


def phases(campaign: Campaign) -> dict[str, Any]:
    """The phases and the current one (phase.schema.json)."""
    names = list(campaign.config.phases)
    current = campaign.project.document.get("phases", {}).get("current") or names[0]
    return {"phases": names, "current": str(current)}
