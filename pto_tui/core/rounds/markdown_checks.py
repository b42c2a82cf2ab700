"""What is wrong with a round written by hand, named by file and line: a verdict its
numbers do not bear out, notes.md disagreeing with the round's ITERATIONS.md row, notes
that hold no round, and what the workflow's rules say of what its files show."""

from __future__ import annotations

import math
import re
from pathlib import Path

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.markdown_notes import Bullet, Notes
from pto_tui.core.rounds.markdown_read import TableRow, durations_in, parse_duration_us
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.reruns import parse_rerun_title
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, PRE_EDIT_FIELDS, Verdict

# a verdict that says something about the numbers: without readable numbers it was not measured
_MEASURED_WORDS = (Verdict.KEPT, Verdict.NEUTRAL)


def where(path: Path, line: int | None = None) -> str:
    return f"{path}:{line}" if line is not None else str(path)


def correctness_word(text: str) -> str:
    lowered = text.strip().lower()
    if lowered.startswith(("pass", "yes", "✓", "ok", "通过", "正确")):
        return "pass"
    return "fail" if lowered.startswith(("fail", "no", "✗", "失败", "错误", "不通过")) else ""


def unmeasured_verdict(record: Round, iterations: Path, row: TableRow | None) -> str:
    """Why the row's kept or neutral cannot be taken (its PTO time cannot be read, or is
    not a duration): the round is then recorded by hand, unmeasured; "" when it can."""
    if record.verdict not in _MEASURED_WORDS or row is None:
        return ""
    samples = record.measurement.samples_us
    if samples and all(math.isfinite(s) and s > 0 for s in samples):
        return ""
    return (
        f"{iterations}:{row.line}: result {record.verdict.value!r} without a readable PTO time "
        f"({row.pto!r}): recorded by hand, unmeasured (no verdict)"
    )


def contradicted_kept(records: list[Round], iterations: Path) -> list[str]:
    """Kept rounds whose own table numbers are not faster than the best before them (the
    baseline or an earlier kept round): the table's word is not taken, the round is
    recorded by hand with no verdict, and each is listed. `records` in round order."""
    found = []
    best: float | None = None
    for record in records:
        median = record.measurement.median_us
        if record.is_baseline or record.verdict is Verdict.KEPT:
            if record.verdict is Verdict.KEPT and median is not None and best is not None and median >= best:
                found.append(
                    f"{iterations}: {round_name(record.number)} says kept, but its PTO time "
                    f"{median:g} us is not faster than the best before it ({best:g} us): no verdict taken"
                )
                record.verdict, record.verdict_reason = None, "recorded by hand: kept, but not faster"
                continue
            if median is not None:
                best = median if best is None else min(best, median)
    return found


def notes_problems(path: Path, notes: Notes) -> list[str]:
    """A notes.md that holds no round: empty, not text, or without the workflow's sections."""
    data = path.read_bytes()
    if not data.strip():
        return [f"{path}: empty: nothing of the round is recorded in it"]
    if b"\0" in data:
        return [f"{path}: not text (binary data): nothing of it is read"]
    if not {"Pre-Edit", "Post-Run"} & set(notes.sections):
        return [f"{path}: no '## Pre-Edit' or '## Post-Run' section: the round's notes are not read"]
    return []


def _safe_duration(text: str) -> float | None:
    try:
        return parse_duration_us(text)
    except ValueError:
        found = durations_in(text)
        return found[0] if found else None


def same_hypothesis(title: str, full: str) -> bool:
    """The table's short hypothesis may abbreviate the notes' one, never contradict it:
    each number the table names is in the notes, and they share a word (or one holds
    the other)."""
    a, b = title.lower(), full.lower()
    if a in b or b in a:
        return True
    if not set(re.findall(r"\d+", a)) <= set(re.findall(r"\d+", b)):
        return False
    words = {w for w in re.findall(r"[a-z_]{4,}", a)}
    return bool(words & set(re.findall(r"[a-z_]{4,}", b))) or not words


def conflicts(row: TableRow, notes: Notes, iterations: Path) -> list[str]:
    """Where notes.md and the round's ITERATIONS.md row disagree (the row is used for the
    verdict and the numbers, notes.md for the Pre-Edit answers)."""
    found: list[str] = []

    def differ(what: str, table: str, bullet: Bullet | None, note: str) -> None:
        line = bullet.line if bullet is not None else None
        found.append(
            f"{iterations}:{row.line} and {where(notes.path, line)}: {what} differs: "
            f"table {table!r}, notes.md {note!r}"
        )

    hypothesis = notes.value("Pre-Edit", "hypothesis")
    titled = row.hypothesis not in ("", "-", "baseline")
    # a rerun's row names the round it reruns first: the rest is the hypothesis
    short = parse_rerun_title(row.hypothesis)[1]
    if hypothesis and titled and not same_hypothesis(short, hypothesis.value):
        differ("hypothesis", row.hypothesis, hypothesis, hypothesis.value)
    result = notes.value("Post-Run", "result")
    said = result.value.lower().split()[0] if result and result.value.strip() else ""
    if said and row.result.strip() and said != row.result.lower().split()[0]:
        differ("result", row.result, result, result.value if result else "")
    correct = notes.value("Post-Run", "correctness")
    if correct and correct.value and correctness_word(correct.value) != correctness_word(row.correct):
        differ("correctness", row.correct, correct, correct.value)
    perf = notes.value("Post-Run", "performance")
    table_pto = _safe_duration(row.pto)
    noted = durations_in(perf.value) if perf else []
    # the line may name other times too (before → after, the torch_npu time): it agrees
    # when one of them is the table's
    if table_pto is not None and noted and all(abs(n - table_pto) > 0.005 * table_pto for n in noted):
        differ("PTO time", row.pto, perf, perf.value if perf else "")
    return found


def rule_findings(record: Round) -> list[str]:
    """What the workflow's rules say about a round written by hand: pto-tui did not see it
    happen, so only what its files show can be checked."""
    where_ = f"runs/{round_name(record.number)}"
    found = [f"{where_} was written by hand: pto-tui did not run or check it (run `pto-tui import`)"]
    if record.number == 0:
        return found
    pre = record.pre_edit
    missing = [label for key, label in PRE_EDIT_FIELDS if not pre.field_value(key).strip()]
    if missing:
        found.append(f"[pre-edit-complete] {where_}/notes.md: Pre-Edit missing {', '.join(missing)}")
    if pre.bottleneck and pre.bottleneck not in BOTTLENECK_CLASSES:
        found.append(f"[bottleneck-class] {where_}/notes.md: {pre.bottleneck!r} is not a bottleneck class")
    m = record.measurement
    if record.verdict is Verdict.KEPT and m.correctness != "pass":
        found.append(f"[correctness-before-performance] {where_}: kept without a passing correctness check")
    if record.verdict is Verdict.KEPT and len(m.samples_us) < 2:
        found.append(f"[honest-verdict] {where_}: kept from {len(m.samples_us)} measurement(s), not repeated")
    return found
