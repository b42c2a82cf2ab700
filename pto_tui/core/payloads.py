"""The JSON the CLI prints with --json and the MCP tools return as their data, built once
for both (schemas in docs/json/)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pto_tui.core.project.config import Tunable
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.lock import last_writer
from pto_tui.core.rounds.export import ExportRow, export_rows
from pto_tui.core.rounds.prediction import PredictedChange, review_summary
from pto_tui.core.rounds.record_toml import round_to_dict
from pto_tui.core.rounds.records import Round, verdict_rule_of
from pto_tui.core.rules.rule import Finding

if TYPE_CHECKING:  # types only: a read command loads neither project creation nor drawing
    from pto_tui.core.campaign.campaign import Campaign
    from pto_tui.core.campaign.plan import NewProject
    from pto_tui.core.campaign.status import CampaignStatus
    from pto_tui.core.cycles.results import CycleResult
    from pto_tui.core.cycles.review import KnobReview
    from pto_tui.core.operators.candidate import Candidate
    from pto_tui.core.operators.scan import ScanResult
    from pto_tui.core.summary.campaign_report import ReportResult
    from pto_tui.core.summary.chart import ChartResult


def round_json(record: Round) -> dict[str, Any]:
    """A round record as the JSON outputs give it: every field (round.schema.json)."""
    return round_to_dict(record, complete=True)


def status(campaign: Campaign, unfinished: list[dict[str, Any]]) -> dict[str, Any]:
    """`status`, with the unfinished measurements (the sample journals, read by the caller:
    `backends.sample_journal.unfinished_of`)."""
    return status_of(campaign.status(), asdict(campaign.config.commands), campaign.layout, unfinished)


def status_of(
    st: CampaignStatus,
    commands: dict[str, Any],
    layout: ProjectLayout,
    unfinished: list[dict[str, Any]],
) -> dict[str, Any]:
    return {**st.to_json(), "commands": commands, "unfinished_measurements": unfinished,
            "last_write": last_write(layout)}


def last_write(layout: ProjectLayout) -> dict[str, Any] | None:
    """Who took the write lock last (what the terminal application names when it
    reloads after another process's write); None before the first write."""
    holder = last_writer(layout.state_dir)
    if holder is None:
        return None
    return {"pid": holder.pid, "host": holder.host, "command": holder.command,
            "since": holder.since, "described": holder.describe()}


def rounds(campaign: Campaign) -> dict[str, Any]:
    records = campaign.current_rounds()  # only read here: no copies of a thousand records
    st = campaign.status(records)
    return rounds_of(export_rows(records, st.torch), st)


def rounds_of(rows: list[ExportRow], st: CampaignStatus) -> dict[str, Any]:
    names = [f.name for f in fields(ExportRow)]  # the row's fields are plain values, lists, dicts
    return {
        "rounds": [
            {**{n: getattr(row, n) for n in names}, "tampered": st.tampered.get(row.round, [])}
            for row in rows
        ],
        "missing": st.problems.missing,
        "unreadable": st.problems.unreadable,
        "notices": st.problems.notices,
    }


def show(campaign: Campaign, number: int) -> dict[str, Any]:
    # the campaign's marks: an ITERATIONS.md row edited or removed too
    record, tampered, reruns = campaign.shown_round(number)
    return shown(record, campaign.layout.round_dir(number), tampered, reruns)


def shown(record: Round, folder: Path, tampered: list[str], reruns: list[int]) -> dict[str, Any]:
    """One round (`show N`): its record, folder and marks, and the reruns linked to it."""
    return {
        "record": round_json(record),
        "folder": str(folder),
        "tampered": tampered,
        "rerun_of": record.rerun_of,
        "reruns": reruns,
        "verdict_rule": verdict_rule_of(record),
    }


def findings(found: list[Finding]) -> list[dict[str, str]]:
    return [{"rule": f.rule, "message": f.message} for f in found]


def gates(found: list[Finding]) -> dict[str, Any]:
    """What still blocks a round (`round gates`): each finding, and whether it may start."""
    return {"findings": findings(found), "may_start": not found}


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
    from pto_tui.core.operators.operator_knobs import operator_knobs

    data = c.to_json()
    knobs = operator_knobs(c)
    data["tunables"] = [_tunable(t) for t in knobs.tunables]
    data["derived"] = [d.to_json() for d in knobs.derived]
    data["left_out"] = [item.to_json() for item in knobs.left_out]
    data["workload_knobs"] = [_tunable(t) for t in knobs.workload]
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
        "derived": [d.to_json() for d in spec.derived],
        "shared_kernel": spec.shared_kernel,
        "related": list(spec.operator.related),
        "left_out": [item.to_json() for item in spec.left_out],
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
    from pto_tui.core.cycles.results import best_result  # the cycle payloads only

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


def chart(result: ChartResult) -> dict[str, Any]:
    """The chart written (`chart`): its files and what its x axis shows."""
    model = result.model
    return {
        "png": str(result.png),
        "svg": str(result.svg) if result.svg else None,
        "x_axis": [{"round": s.shown, "covers": list(s.covers)} for s in model.slots],
        "milestones": model.milestones,
        "units": model.units.name,
        "log_scale": model.log_scale,
        "best_round": model.best.number,
    }


def report(result: ReportResult) -> dict[str, Any]:
    """The campaign report written (`report`), and its chart."""
    return {"report": str(result.path), "chart": str(result.chart), "chart_drawn": result.chart_drawn}


def explore_payload(group: str, knob: str, base: int, slots: int, closed: list[Round],
                    interrupted: dict[int, str]) -> dict[str, Any]:
    """`pto-tui explore --json`: the group, its rounds as closed, and those left open."""
    return {
        "group": group,
        "knob": knob,
        "based_on": base,
        "slots": slots,
        "rounds": [round_json(r) for r in closed],
        "interrupted": [{"round": n, "why": why} for n, why in sorted(interrupted.items())],
    }


def suggest_review(
    reviews: Sequence[KnobReview], predicted: Sequence[PredictedChange], problem: str = ""
) -> dict[str, Any]:
    """`suggest --review`: the costmodel's predictions per ranked knob against the measured
    rounds, and perf_sim's recorded ones ([target] predict; null in a project without any);
    `costmodel_problem` says why the knobs were not reviewed when the predictions were."""
    return {
        "review": [k.to_dict() for k in reviews],
        "perf_sim": review_summary(predicted) if predicted else None,
        **({"costmodel_problem": problem} if problem else {}),
    }
