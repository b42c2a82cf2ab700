"""Render the workflow's Markdown files from round records (docs/formats.md §8, §9)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pto_tui.core.project.layout import round_name
from pto_tui.core.project.modes import CYCLES, recorded_mode
from pto_tui.core.rounds.durations import duration_in, format_duration
from pto_tui.core.rounds.interleaved import interleaved_text
from pto_tui.core.rounds.placements import placements_text
from pto_tui.core.rounds.records import (
    Changes,
    EnvironmentNotes,
    Measurement,
    PreEdit,
    Round,
    TorchBaseline,
    verdict_label,
)
from pto_tui.core.rounds.render_cycles import CYCLES_NOTE, cycles_text, perf_sim_bullets
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, PRE_EDIT_FIELDS

ITERATIONS_TITLE = "# 迭代记录"
SIMULATED_NOTE = (
    "Timings marked (sim) were measured in pto-isa's CPU simulation (a cpu-sim target): "
    "the host's wall-clock time of a multi-threaded simulation of the kernel, noisy, not NPU "
    "time and not a ranking of variants on the NPU (a variant faster here may be slower there). "
    "Cycle counts that decide come from the perf-sim mode."
)
TABLE_HEADER = "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |"
TABLE_RULE = "|------|------------|---------|----------|-----|---------|--------|"
PARAM_ROUND_HEADER = "# 本轮为调参类迭代"
PARAM_CHANGES_HEADER = "# 参数变更："
NO_SOURCE_CHANGE = (
    "# no source file changed in this round (parameter / environment-variable tuning)"
)

_CHANGE_KIND_ZH = {
    "code": "代码修改",
    "template parameter": "模板参数调整",
    "environment variable": "环境变量",
    "build config": "构建配置",
}


def format_tflops(value: float | None) -> str:
    """TFLOPS to two decimals, or to three significant digits below 0.1 (a CPU simulation
    reaches 0.0000852), never in exponent form."""
    if value is None:
        return "-"
    if value == 0 or abs(value) >= 0.1:
        return f"{value:.2f}"
    return f"{value:.{2 - math.floor(math.log10(abs(value)))}f}"


def _cell(text: str) -> str:
    """Table cells cannot hold newlines or pipes."""
    return " ".join(text.replace("|", "/").split()) or "-"


def changes_summary(record: Round) -> str:
    ch = record.changes
    if record.is_baseline:
        return "-"
    if ch.parameters:
        return ", ".join(f"{p.name} {p.old}→{p.new}" for p in ch.parameters)
    if ch.description:
        return ch.description
    if ch.files:
        return ", ".join(ch.files)
    return "-"


def timing_text(us: float | None, simulated: bool, unit: str | None = None, sample_unit: str = "") -> str:
    """A sample (in `unit` when a column shares one), marked when it was measured in a
    CPU simulation; cycles say what they are themselves."""
    text = format_duration(us, sample_unit) if unit is None else duration_in(us, unit)
    return f"{text} (sim)" if simulated and us is not None and sample_unit != CYCLES else text


def iterations_row(record: Round, named: bool = False) -> str:
    """The round's ITERATIONS.md row; `named`: its Iter cell as people write it (iter-003),
    for a hand-written table whose rows do so."""
    m = record.measurement
    result = "baseline" if record.is_baseline else (verdict_label(record) or "open")
    if record.flags:
        result += " (flagged)"
    cells = [
        round_name(record.number) if named else str(record.number),
        record.short_hypothesis(),
        changes_summary(record),
        format_duration(m.reference_median_us),
        timing_text(m.median_us, record.simulated, sample_unit=m.unit),
        m.correctness or "-",
        result,
    ]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def torch_section(baseline: TorchBaseline | None) -> list[str]:
    lines = ["## torch_npu baseline", ""]
    if baseline is None:
        return [*lines, "Not measured yet.", ""]
    tflops = f"{baseline.tflops:.3f}" if baseline.tflops is not None else "-"
    lines += [
        f"Reference: {baseline.label}"
        + (f" ({baseline.warmup} warm-up, {baseline.runs} timed runs)" if baseline.runs else ""),
        "",
        "| avg | min | max | TFLOPS |",
        "|-----|-----|-----|--------|",
        f"| {format_duration(baseline.avg_us)} | {format_duration(baseline.min_us)} "
        f"| {format_duration(baseline.max_us)} | {tflops} |",
        "",
    ]
    return lines


def iterations_head(baseline: TorchBaseline | None, simulated: bool, cycles: bool = False) -> list[str]:
    """ITERATIONS.md down to the table's rule line (`simulated`: a closed round has CPU
    timings; `cycles`: perf_sim cycles)."""
    lines = [
        ITERATIONS_TITLE,
        "",
        "One line per round, appended when the round closes. iter-0 is the baseline.",
        "Details of each round are in `runs/iter-XXX/` (files.txt, patch.diff, notes.md).",
        "",
        *torch_section(baseline),
        "## Rounds",
        "",
        TABLE_HEADER,
        TABLE_RULE,
    ]
    if cycles or simulated:
        lines[5:5] = [CYCLES_NOTE if cycles else SIMULATED_NOTE, ""]
    return lines


def render_iterations(rounds: Sequence[Round], baseline: TorchBaseline | None) -> str:
    closed = [r for r in sorted(rounds, key=lambda r: r.number) if r.is_closed]
    cycles = any(r.measurement.in_cycles for r in closed)
    lines = iterations_head(baseline, any(r.simulated for r in closed), cycles)
    lines += [iterations_row(r) for r in closed]
    return "\n".join(lines) + "\n"


def patched_iterations(current: str, record: Round, baseline: TorchBaseline | None) -> str | None:
    """ITERATIONS.md as render_iterations gave it (`current`) after only `record` changed:
    its row rewritten in place, or appended when it is the newest closed round; None when
    more than that row would change (the whole file is rendered then)."""
    above = current.split("\n" + TABLE_RULE + "\n", 1)[0]
    simulated, cycles = SIMULATED_NOTE in above, CYCLES_NOTE in above
    noted = cycles if record.measurement.in_cycles else simulated or cycles or not record.simulated
    if record.is_closed and not noted:  # the note the record needs is not there yet
        return None
    head = "\n".join(iterations_head(baseline, simulated, cycles)) + "\n"
    if not current.startswith(head) or not current.endswith("\n"):
        return None
    rows = current[len(head):].splitlines()
    numbers = [_row_number(row) for row in rows]
    if None in numbers:
        return None
    if record.number in numbers:
        if not record.is_closed:
            return None
        rows[numbers.index(record.number)] = iterations_row(record)
    elif record.is_closed:
        if numbers and record.number < max(n for n in numbers if n is not None):
            return None
        rows.append(iterations_row(record))
    return head + "".join(row + "\n" for row in rows)


def _row_number(row: str) -> int | None:
    cell = row.split("|", 2)[1].strip() if row.startswith("|") and row.count("|") > 2 else ""
    return int(cell) if cell.isdigit() else None


def render_files_txt(record: Round) -> str:
    if record.changes.files:
        return "\n".join(record.changes.files) + "\n"
    if record.changes.parameters or (record.changes.kind and record.changes.kind.is_parameter):
        return NO_SOURCE_CHANGE + "\n"
    if record.is_baseline:
        return "# baseline: no change\n"
    return "# no file changed\n"


def render_param_block(record: Round) -> str:
    based = record.changes.based_on
    lines = [PARAM_ROUND_HEADER, PARAM_CHANGES_HEADER]
    for p in record.changes.parameters:
        lines.append(f"-  {p.name}={p.old if p.old is not None else ''}")
        lines.append(f"+  {p.name}={p.new}")
    lines.append(f"# 基于 {round_name(based if based is not None else 0)} 的配置")
    return "\n".join(lines) + "\n"


def render_patch(record: Round, diff_text: str) -> str:
    """patch.diff: the parameter block for parameter rounds (then any real diff), else the diff."""
    if record.changes.parameters:
        return render_param_block(record) + (("\n" + diff_text) if diff_text else "")
    return diff_text


def _bullet(label: str, value: str) -> str:
    value = value.strip()
    if "\n" in value:
        indented = "\n".join("  " + line for line in value.splitlines())
        return f"- **{label}**:\n{indented}"
    return f"- **{label}**: {value}"


def _values_text(values: Mapping[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "-"


def _pre_edit_lines(pre: PreEdit) -> list[str]:
    lines = ["## Pre-Edit", ""]
    for key, label in PRE_EDIT_FIELDS:
        lines.append(_bullet(label, pre.field_value(key)))
    if pre.correctness_plan:
        lines.append(_bullet("How correctness is assured", pre.correctness_plan))
    if pre.scope:
        lines.append(_bullet("Declared scope", ", ".join(pre.scope)))
    if pre.bottleneck_recheck or pre.new_direction:
        lines.append(_bullet("Bottleneck re-check (three-round rule)", pre.bottleneck_recheck))
        lines.append(_bullet("New direction", pre.new_direction))
    if pre.checklist:
        lines += ["", "Hardware checklist:", ""]
        for key, description in HARDWARE_CHECKLIST.items():
            item = pre.checklist.get(key)
            mark = "x" if item and item.ticked else " "
            note = f" — {item.note}" if item and item.note else ""
            lines.append(f"- [{mark}] {description.split(':')[0]}{note}")
    return lines


def _changes_lines(ch: Changes) -> list[str]:
    lines = ["## Changes", ""]
    kind = ch.kind.value if ch.kind else ""
    lines.append(
        _bullet(
            "修改类型 (change kind)", f"{_CHANGE_KIND_ZH.get(kind, '')} ({kind})" if kind else ""
        )
    )
    lines.append(_bullet("修改的文件 (files)", ", ".join(ch.files) or ("-" if ch.kind else "")))
    concrete = [f"{p.name}: {p.old} → {p.new}" for p in ch.parameters]
    if ch.description:
        concrete.insert(0, ch.description)
    lines.append(_bullet("具体变更 (changes)", "\n".join(concrete)))
    lines.append(
        _bullet(
            "基于哪一轮 (based on)", round_name(ch.based_on) if ch.based_on is not None else ""
        )
    )
    lines.append(_bullet("本轮完整参数快照 (parameter snapshot)", _values_text(ch.parameter_values)))
    if ch.high_risk:
        lines.append(_bullet("High-risk change", "; ".join(ch.high_risk)))
        lines.append(_bullet("Justification", ch.risk_justification))
    if ch.bug_fix:
        lines.append(_bullet("Bug fix of a protected file", ch.bug_fix))
    if ch.tolerance_approval:
        lines.append(_bullet("Tolerance change approved", ch.tolerance_approval))
    if ch.discipline_approval:
        lines.append(_bullet("Discipline change justified", ch.discipline_approval))
    return lines


def _performance_text(m: Measurement) -> str:
    if m.in_cycles:
        return cycles_text(m)
    perf = ""
    if m.median_us is not None:
        perf = f"baseline {format_duration(m.reference_median_us)} → pto {format_duration(m.median_us)}"
        perf += f" (median of {len(m.samples_us)} runs"
        if m.tflops is not None:
            perf += f", {m.tflops:.3f} TFLOPS"
        perf += ")"
        mode = recorded_mode(m.target_mode)
        if mode is not None and mode.simulated:
            perf += f"; simulated: {mode.timing_note}"
    if m.problem:
        perf = (perf + "; " if perf else "") + m.problem
    return perf


def _post_run_lines(record: Round) -> list[str]:
    lines = ["## Post-Run", ""]
    lines.append(_bullet("Correctness", record.measurement.correctness))
    lines.append(_bullet("Performance", _performance_text(record.measurement)))
    lines += [_bullet(label, text) for label, text in perf_sim_bullets(record.measurement)]
    lines += [_bullet("Interleaved frontier", text)] if (text := interleaved_text(record.measurement)) else []
    lines += [_bullet("Ran on", text)] if (text := placements_text(record.measurement)) else []
    lines.append(_bullet("Stability", record.stability))
    result = verdict_label(record)
    if record.verdict_reason:
        result += f" — {record.verdict_reason}"
    lines.append(_bullet("Result", result))
    lines += [_bullet("Verdict rule", record.verdict_rule)] if record.verdict_rule else []
    for flag in record.flags:
        lines.append(_bullet("Flag", flag))
    for a in record.amendments:
        lines.append(_bullet("Amendment", f"{a.when} by {a.who}: {a.field} {a.old} → {a.new} ({a.why})"))
    return lines


def _environment_lines(env: EnvironmentNotes) -> list[str]:
    lines = ["## Environment", ""]
    if env.declared_by:
        lines.append(_bullet("Declared", _declared_text(env)))
    lines.append(_bullet("Versions", "\n".join(f"{k}: {v}" for k, v in env.versions.items())))
    lines.append(_bullet("Build outcome", env.build_outcome))
    lines.append(_bullet("First valid result", env.first_valid_result))
    lines.append(_bullet("Problems met", "\n".join(env.problems) or "none"))
    probes = ", ".join(f"{k} {'ok' if v else 'FAILED'}" for k, v in env.probes.items())
    lines.append(_bullet("Probes", probes))
    return lines


def _declared_text(env: EnvironmentNotes) -> str:
    """Probes given by hand: who gave them and the reason they were accepted."""
    reason = f": {env.declared_reason}" if env.declared_reason else " (no reason given)"
    return f"the probes were given by hand via {env.declared_by}, not run on the target{reason}"


def render_notes(record: Round) -> str:
    """A round's notes.md: header, Pre-Edit, Changes, Post-Run, Environment, Analysis, Next."""
    lines = [f"# Iter {record.number}", ""]
    if record.phase:
        lines += [f"Phase: {record.phase}", ""]
    if record.rerun_of is not None:
        lines += [
            f"Rerun of: {round_name(record.rerun_of)} (inconclusive; the same change "
            "measured again)",
            "",
        ]
    if record.group:
        based = record.changes.based_on
        against = f"; judged against {round_name(based)}, its base" if based is not None else ""
        lines += [f"Explore group: {record.group} (rounds started together, one value each{against})", ""]
    lines += _pre_edit_lines(record.pre_edit)
    lines += ["", *_changes_lines(record.changes)]
    lines += ["", *_post_run_lines(record)]
    if record.environment is not None:
        lines += ["", *_environment_lines(record.environment)]
    if record.environment_attempts:
        lines += ["", "### Earlier environment attempts", ""]
        for n, env in enumerate(record.environment_attempts, 1):
            failed = ", ".join(k for k, ok in env.probes.items() if not ok) or "-"
            outcome = "passed" if env.passed else f"NOT passed (failed: {failed})"
            when = f" at {env.at}" if env.at else ""
            when += f", declared via {env.declared_by}" if env.declared_by else ""
            problems = "".join(f"; {p}" for p in env.problems)
            lines.append(f"- attempt {n}{when}: {outcome}{problems}")
    lines += ["", "## Analysis", "", record.analysis.strip(), "", "## Next", "", record.next.strip(), ""]
    return "\n".join(lines)
