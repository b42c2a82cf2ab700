"""A round written by hand (runs/iter-XXX/ and its ITERATIONS.md row) as a record.

Used by `pto-tui import` (which then writes round.toml) and by the ledger when a round
folder has no round.toml (a round an agent added by hand after the import): read in
memory, never written. Every field the Markdown carries goes into the record; words pto-tui
keeps in its own form (a result word, the Post-Run performance line, prose in files.txt,
a label no field takes) are also kept as written (`Round.as_written`), and what no field
takes is listed by file and line, as is every conflict between notes.md and the table
(`markdown_checks`).
"""

from __future__ import annotations

import re

from pto_tui.core.errors import inside
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.rounds.markdown_changes import ChangesReader
from pto_tui.core.rounds.markdown_checks import (
    conflicts,
    correctness_word,
    notes_problems,
    unmeasured_verdict,
    where,
)
from pto_tui.core.rounds.markdown_labels import LABELS
from pto_tui.core.rounds.markdown_notes import Notes, parse_notes
from pto_tui.core.rounds.markdown_read import (
    TableRow,
    durations_in,
    parse_duration_us,
    tflops_in,
)
from pto_tui.core.rounds.records import CLOSED, EnvironmentNotes, Measurement, PreEdit, Round
from pto_tui.core.rounds.reruns import parse_rerun_title
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS, Verdict

VERDICT_WORDS = {
    "kept": Verdict.KEPT,
    "neutral": Verdict.NEUTRAL,
    "failure": Verdict.FAILURE,
    "failed": Verdict.FAILURE,
    "inconclusive": Verdict.INCONCLUSIVE,
    "保留": Verdict.KEPT,
    "中性": Verdict.NEUTRAL,
    "失败": Verdict.FAILURE,
    "不确定": Verdict.INCONCLUSIVE,
}
_PRE_EDIT_KEYS = (*(key for key, _label in PRE_EDIT_FIELDS), "correctness_plan")


def _notes_of(layout: ProjectLayout, number: int, problems: list[str]) -> Notes:
    path = layout.round_dir(number) / "notes.md"
    if not path.is_file():
        problems.append(f"{round_name(number)}: no notes.md")
        return Notes(path)
    if not inside(path, layout.root):  # a symlink to /etc/shadow is not the round's notes
        problems.append(f"{path}: leads outside the project; not read")
        return Notes(path)
    return parse_notes(path)


def round_from_markdown(
    layout: ProjectLayout, number: int, row: TableRow | None, problems: list[str]
) -> Round:
    """The record of a hand-written round; `problems` gets what could not be read."""
    folder = layout.round_dir(number)
    record = Round(number=number, imported=True, status=CLOSED if row else "open")
    if row is None:
        problems.append(
            f"{round_name(number)}: folder exists but ITERATIONS.md has no row for it; read as open"
        )
    notes = _notes_of(layout, number, problems)
    written = record.as_written
    record.pre_edit = pre_edit_from(notes)
    record.changes = ChangesReader(notes, folder, problems, written).read()
    record.analysis = notes.text("Analysis")
    record.next = notes.text("Next")
    stability = notes.value("Post-Run", "stability")
    record.stability = _stability(stability.value if stability else "")
    if stability and stability.value and stability.value.strip() != record.stability:
        written["Post-Run: " + stability.label] = stability.value
    if row is not None:
        _from_row(record, row, layout, problems)
        problems += conflicts(row, notes, layout.iterations)
    _performance_from_notes(record, notes)
    _post_run_words(record, notes)
    if number == 0 and "Environment" in notes.sections:
        record.environment = environment_from(notes, written)
    problems += notes_problems(notes.path, notes) if notes.path.is_file() else []
    problems += unread(notes, written)
    unmeasured = unmeasured_verdict(record, layout.iterations, row)
    if unmeasured:
        problems.append(unmeasured)
        record.verdict, record.verdict_reason = None, "recorded by hand, unmeasured"
    if not record.pre_edit.hypothesis and record.title:
        record.pre_edit.hypothesis = parse_rerun_title(record.title)[1]
    return record


def _stability(text: str) -> str:
    word = text.split()[0].lower() if text.strip() else ""
    return {"稳定": "stable", "噪声": "noisy", "波动": "noisy"}.get(word, word)


def _from_row(record: Round, row: TableRow, layout: ProjectLayout, problems: list[str]) -> None:
    """The title, numbers, correctness and verdict from the round's ITERATIONS.md row."""
    record.title = row.hypothesis if row.hypothesis != "-" else ""
    record.rerun_of = parse_rerun_title(record.title)[0]
    record.measurement = measurement_from(row, layout, problems, record.as_written)
    record.verdict = verdict_from(row, layout, problems) if record.number > 0 else None
    shown = "baseline" if record.is_baseline else (record.verdict.value if record.verdict else "")
    if row.result.strip() and row.result.strip() != shown:
        record.as_written["ITERATIONS.md: Result"] = row.result.strip()
    said = row.changes.strip()
    if not record.changes.parameters and not record.changes.description and said not in ("", "-"):
        record.changes.description = said
    elif said not in ("", "-") and not _says_the_parameters(said, record):
        record.as_written["ITERATIONS.md: Changes"] = said


def _says_the_parameters(cell: str, record: Round) -> bool:
    """The row's Changes cell says no more than the round's parameter changes
    ('DEMO_ATTN_BLOCK_KV=64' of DEMO_ATTN_BLOCK_KV 16→64) or its description."""
    if cell == record.changes.description:
        return True
    new = {p.name: str(p.new) for p in record.changes.parameters}
    pairs = re.findall(r"([A-Za-z_]\w*)\s*=\s*([^,，;；\s]+)", cell)
    rest = re.sub(r"([A-Za-z_]\w*)\s*=\s*([^,，;；\s]+)", "", cell).strip(" ,，;；")
    return bool(pairs) and not rest and all(new.get(name) == value for name, value in pairs)


def pre_edit_from(notes: Notes) -> PreEdit:
    pre = PreEdit()
    for key in _PRE_EDIT_KEYS:
        bullet = notes.value("Pre-Edit", key)
        if bullet is not None:
            setattr(pre, key, bullet.value)
    return pre


def measurement_from(
    row: TableRow, layout: ProjectLayout, problems: list[str], as_written: dict[str, str]
) -> Measurement:
    """Durations, TFLOPS and correctness from a round's row; a cell that holds more than a
    duration ('2.410 ms (torch_npu 1.284 ms)') gives its first duration and is kept as
    written; an unreadable duration is listed."""
    m = Measurement(tflops=tflops_in(row.pto))
    for column, text, target in (("PTO", row.pto, m.samples_us), ("Baseline", row.baseline, m.reference_us)):
        try:
            duration = parse_duration_us(text)
        except ValueError as error:
            duration = _leading_duration(text)
            if duration is None:
                problems.append(f"{layout.iterations}:{row.line}: {error}; not imported")
                continue
            as_written[f"ITERATIONS.md: {column}"] = text.strip()
        if duration is not None:
            target.append(duration)
    m.correctness = correctness_word(row.correct)
    if row.correct.strip() and row.correct.strip() != m.correctness:
        as_written["ITERATIONS.md: Correct"] = row.correct.strip()
    m.build = "ok" if m.correctness or m.samples_us else ""
    return m


_LEADING = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?\s*(?:us|µs|μs|ms))(?=[\s(（,，;；]|$)")


def _leading_duration(text: str) -> float | None:
    """The duration a cell starts with when more follows it ('2.410 ms (torch_npu 1.284 ms)')."""
    match = _LEADING.match(text)
    try:
        return parse_duration_us(match.group(1)) if match else None
    except ValueError:
        return None


def verdict_from(row: TableRow, layout: ProjectLayout, problems: list[str]) -> Verdict | None:
    word = row.result.lower().split()[0] if row.result.strip() else ""
    verdict = VERDICT_WORDS.get(word)
    if verdict is None:
        problems.append(f"{layout.iterations}:{row.line}: unknown result {row.result!r}; verdict left empty")
    return verdict


def _post_run_words(record: Round, notes: Notes) -> None:
    """notes.md's correctness and result in words the record does not hold as they are
    ('fail (max diff 3.1e-2)', 'kept' on the baseline) are kept as written."""
    verdict = "baseline" if record.is_baseline else (record.verdict.value if record.verdict else "")
    for key, recorded in (("correctness", record.measurement.correctness), ("result", verdict)):
        bullet = notes.value("Post-Run", key)
        if bullet is not None and bullet.value.strip() and bullet.value.strip() != recorded:
            record.as_written["Post-Run: " + bullet.label] = bullet.value


def _performance_from_notes(record: Round, notes: Notes) -> None:
    """The Post-Run performance line, kept as written; its TFLOPS when the row had none,
    and an open round's PTO time (it has no row)."""
    perf = notes.value("Post-Run", "performance")
    if perf is None or not perf.value:
        return
    record.as_written["Post-Run: " + perf.label] = perf.value
    if record.measurement.tflops is None:
        record.measurement.tflops = tflops_in(perf.value)
    found = durations_in(perf.value)
    if not record.measurement.samples_us and found and record.status != CLOSED:
        record.measurement.samples_us = [found[-1]]  # "3.21 ms → 4.90 ms": the round's is last


_VERSION = re.compile(r"^\s*([A-Za-z][\w.+-]*(?:\s+[A-Za-z][\w.+-]*)?)\s*[:=]?\s*v?(\d[\w.+-]*)\s*$")


def environment_from(notes: Notes, as_written: dict[str, str]) -> EnvironmentNotes:
    """The environment round's notes as written by hand (versions, build outcome, first
    valid result, problems): kept, never taken as a passed environment round, which only
    pto-tui's own probes (or a declaration with a reason) give."""
    env = EnvironmentNotes(declared_by="import")
    versions = notes.value("Environment", "versions")
    if versions is not None:  # the versions' words, beside the name=version table
        as_written["Environment: " + versions.label] = versions.value
    for part in re.split(r"[,，;；\n]", versions.value if versions else ""):
        if part.strip():
            match = _VERSION.match(part)
            name, version = (match.group(1), match.group(2)) if match else (part.strip(), "")
            env.versions[name.strip()] = version
    for key in ("build_outcome", "first_valid_result"):
        bullet = notes.value("Environment", key)
        setattr(env, key, bullet.value if bullet else "")
    problems = notes.value("Environment", "problems")
    env.problems = [p.strip() for p in re.split(r"[;；\n]", problems.value if problems else "") if p.strip()]
    return env


def unread(notes: Notes, as_written: dict[str, str]) -> list[str]:
    """What no field took: labels pto-tui has no field for, free lines in the sections that
    hold fields, sections it has no name for. Each is kept as written and listed."""
    found: list[str] = []
    for name, section in notes.sections.items():
        if name not in LABELS:
            continue
        for bullet in section.unknown:
            as_written[f"{name}: {bullet.label}"] = bullet.value
            found.append(f"{where(notes.path, bullet.line)}: {bullet.label!r} is no field pto-tui records; "
                         "kept as written")
        if section.lines:
            as_written[name] = section.text()
            lines = ", ".join(str(line) for line, _text in section.lines)
            found.append(f"{where(notes.path, section.lines[0][0])}: text in {name} that is no field "
                         f"(line {lines}); kept as written")
    for section in notes.other:
        if section.text() or section.fields or section.unknown:
            heading = section.heading or "(before the first section)"
            as_written[f"## {heading}"] = section.text()
            found.append(f"{where(notes.path, section.line)}: section {heading!r} is no part of the "
                         "workflow's notes; kept as written")
    return found
