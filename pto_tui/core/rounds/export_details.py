"""The Markdown export's second half: the torch_npu baseline and every field of every round
(its Pre-Edit answers, changes, measurement, verdict, environment round, analysis, next
step, amendments, and for an imported round its words kept as written), so that what a
project's Markdown and records hold can be read, and checked, in one file."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.records import EnvironmentNotes, Round, TorchBaseline
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS


def _one_line(text: str) -> str:
    return " / ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _items(pairs: Iterable[tuple[str, object]]) -> list[str]:
    """`- Label: value` for each pair with a value (lists and tables written out)."""
    lines = []
    for label, value in pairs:
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list | tuple):
            value = "; ".join(str(v) for v in value)
        if value not in (None, ""):
            lines.append(f"- {label}: {_one_line(str(value))}")
    return lines


def torch_details(torch: TorchBaseline | None) -> list[str]:
    if torch is None:
        return ["## torch_npu baseline", "", "Not measured.", ""]
    return ["## torch_npu baseline", "", *_items((
        ("Reference", torch.label),
        ("avg", format_duration(torch.avg_us)),
        ("min", format_duration(torch.min_us)),
        ("max", format_duration(torch.max_us)),
        ("TFLOPS", f"{torch.tflops:g}" if torch.tflops is not None else ""),
        ("Warm-up runs", torch.warmup or ""),
        ("Timed runs", torch.runs or ""),
        ("Measured at", torch.measured_at),
        ("As written", torch.note),
    )), ""]


def _environment(env: EnvironmentNotes, title: str) -> list[str]:
    declared = f"given by hand via {env.declared_by}" if env.declared_by else ""
    return [f"**{title}**", "", *_items((
        ("Passed", "yes" if env.passed else "no"),
        ("Versions", env.versions),
        ("Build outcome", env.build_outcome),
        ("First valid result", env.first_valid_result),
        ("Problems", env.problems),
        ("Probes", {k: "ok" if v else "failed" for k, v in env.probes.items()}),
        ("Declared", f"{declared}: {env.declared_reason}" if env.declared_reason else declared),
        ("At", env.at),
    )), ""]


def _pre_edit(record: Round) -> list[str]:
    pre = record.pre_edit
    pairs: list[tuple[str, object]] = [(label, pre.field_value(key)) for key, label in PRE_EDIT_FIELDS]
    pairs += [
        ("How correctness is assured", pre.correctness_plan),
        ("Scope", list(pre.scope)),
        ("Hardware checklist", {k: item.note for k, item in pre.checklist.items() if item.ticked}),
        ("Bottleneck re-checked", pre.bottleneck_recheck),
        ("New direction", pre.new_direction),
    ]
    return ["**Pre-Edit**", "", *_items(pairs), ""]


def _changes(record: Round) -> list[str]:
    ch = record.changes
    return ["**Changes**", "", *_items((
        ("Kind", ch.kind.value if ch.kind else ""),
        ("Files", list(ch.files)),
        ("What changed", ch.description),
        ("Parameters", [f"{p.name} {p.old}→{p.new}" for p in ch.parameters]),
        ("Parameter snapshot", dict(ch.parameter_values)),
        ("Based on", round_name(ch.based_on) if ch.based_on is not None else ""),
        ("High risk", list(ch.high_risk)),
        ("Justification", ch.risk_justification),
        ("Bug fix", ch.bug_fix),
        ("Tolerance approval", ch.tolerance_approval),
        ("Discipline approval", ch.discipline_approval),
    )), ""]


def _post_run(record: Round) -> list[str]:
    m = record.measurement
    unit = m.unit
    verdict = record.effective_verdict()
    shown = "baseline" if record.is_baseline else (verdict.value if verdict else record.status)
    return ["**Post-Run**", "", *_items((
        ("Build", m.build),
        ("Correctness", m.correctness),
        ("Samples", [format_duration(s, unit) for s in m.samples_us]),
        ("Reference", [format_duration(s) for s in m.reference_us]),
        ("TFLOPS", f"{m.tflops:g}" if m.tflops is not None else ""),
        ("Stability", record.stability),
        ("Result", shown),
        ("Reason", record.verdict_reason),
        ("Flags", list(record.flags)),
        ("Problem", m.problem),
        ("Result files", list(m.reports)),
    )), ""]


def round_details(record: Round) -> list[str]:
    title = record.title or record.pre_edit.hypothesis
    lines = [f"### {round_name(record.number)}" + (f" · {_one_line(title)}" if title else ""), ""]
    lines += _items((
        ("Status", record.status + (" (imported from hand-written Markdown)" if record.imported else "")),
        ("Phase", record.phase),
        ("Rerun of", round_name(record.rerun_of) if record.rerun_of is not None else ""),
        ("Opened", record.opened_at),
        ("Closed", record.closed_at),
    ))
    lines += ["", *_pre_edit(record), *_changes(record), *_post_run(record)]
    for env in record.environment_attempts:
        lines += _environment(env, "Environment round (earlier attempt)")
    if record.environment is not None:
        lines += _environment(record.environment, "Environment round")
    for title_, text in (("Analysis", record.analysis), ("Next", record.next)):
        if text:
            lines += [f"**{title_}**", "", text.strip(), ""]
    if record.amendments:
        lines += ["**Amendments**", "", *(f"- {a.field}: {a.old} → {a.new} ({a.who}, {a.when}: {a.why})"
                                          for a in record.amendments), ""]
    if record.review_confirmation:
        lines += ["**Confirmed**", "", record.review_confirmation, ""]
    if record.as_written:
        lines += ["**As written by hand**", "", *_items(record.as_written.items()), ""]
    return lines


def details_markdown(records: Sequence[Round], torch: TorchBaseline | None) -> str:
    lines = torch_details(torch) + ["## Rounds in detail", ""]
    for record in sorted(records, key=lambda r: r.number):
        lines += round_details(record)
    return "\n".join(lines).rstrip() + "\n"
