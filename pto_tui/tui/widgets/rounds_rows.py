"""What the iteration table shows of a round (its columns and cells), and how it filters and
sorts (no widgets)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text

from pto_tui.core.project.modes import CYCLES
from pto_tui.core.rounds.counts import UNVERIFIED
from pto_tui.core.rounds.durations import duration_unit
from pto_tui.core.rounds.prediction import PREDICTED_COLUMN, change_cell, predicted_change, predicts
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import format_tflops, timing_text
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, Verdict
from pto_tui.tui.format import (
    FAILURE_COLOUR,
    VERDICT_STYLES,
    iter_name,
    marked_verdict,
    ratio,
    speed,
    verdict_text,
    verdict_word,
)
from pto_tui.tui.session import LoadedProject

COLUMNS = ("", "", "iter", "verdict", "duration", "TFLOPS", "x init", "x torch", "hypothesis",
           "class", "phase")
# a project that predicts ([target] predict): perf_sim's change against the round each round
# was based on, beside the measured change, after the duration
PREDICTED_HEADER = PREDICTED_COLUMN


def columns_for(predicting: bool) -> tuple[str, ...]:
    """The table's columns: the prediction's after the duration when the project predicts."""
    if not predicting:
        return COLUMNS
    at = COLUMNS.index("duration") + 1
    return (*COLUMNS[:at], PREDICTED_HEADER, *COLUMNS[at:])
COMPARE_MARK = "▶"
PIN_MARK = "◆"
FRONTIER_NOW = "★"
FRONTIER_STEP = "↑"
RERUN_MARK = "↻"
# the frontier's cells, one of each for every row (a table cell is never changed in place)
FRONT_CELLS = {mark: Text(mark, style="dark_orange") for mark in (FRONTIER_NOW, FRONTIER_STEP, "")}
# one line under the table: every mark it shows (marks, not colours: NO_COLOR keeps them);
# the tampered and simulated marks only when a round has them (80 columns hold the rest)
LEGEND = (
    (FRONTIER_STEP, "frontier step"), (FRONTIER_NOW, "frontier"), ("*", "amended"),
    (COMPARE_MARK, "marked"), (PIN_MARK, "reference"),
)
TAMPERED_LEGEND = ("!", "tampered")
SIMULATED_LEGEND = ("(sim)", "simulated")
RERUN_LEGEND = (RERUN_MARK, "rerun")


def legend_text(tampered: bool = False, simulated: bool = False, rerun: bool = False) -> Text:
    items = [*LEGEND, *([TAMPERED_LEGEND] if tampered else []),
             *([SIMULATED_LEGEND] if simulated else []), *([RERUN_LEGEND] if rerun else [])]
    text = Text(no_wrap=True, overflow="ellipsis")
    for mark, meaning in items:
        text.append(mark, style="bold")
        text.append(f" {meaning}  ", style="dim")
    text.rstrip()
    return text


SORTS: tuple[tuple[str, Callable[[Round], object]], ...] = (
    ("iter", lambda r: r.number),
    ("duration", lambda r: (r.measurement.median_us is None, r.measurement.median_us or 0.0)),
    ("verdict", verdict_word),
    ("class", lambda r: r.pre_edit.bottleneck),
    ("phase", lambda r: r.phase),
)


def hypothesis_cell(record: Round, limit: int = 40) -> str:
    """The short hypothesis; a rerun names the round it measures again first (its title
    already does: "rerun of iter-002: …"; the mark says it without reading)."""
    if record.rerun_of is None:
        return record.short_hypothesis(limit)
    return f"{RERUN_MARK} {record.short_hypothesis(limit - 2)}"


def matches(record: Round, query: str) -> bool:
    """Filter terms, all must hold: `verdict:kept`, `class:tile`, `phase:fine`, or free text."""
    for term in query.lower().split():
        field, sep, value = term.partition(":")
        if sep and field in ("verdict", "v"):
            if not verdict_word(record).startswith(value):
                return False
        elif sep and field in ("class", "c"):
            if value not in record.pre_edit.bottleneck.lower():
                return False
        elif sep and field in ("phase", "p"):
            if value not in record.phase.lower():
                return False
        else:
            haystack = " ".join(
                (record.title, record.pre_edit.hypothesis, record.pre_edit.bottleneck,
                 verdict_word(record), record.phase, record.verdict_reason, str(record.number))
            ).lower()
            if term not in haystack:
                return False
    return True


VERDICT_WORDS = (*(v.value for v in Verdict), "baseline", "open", UNVERIFIED)


def filter_problem(query: str) -> str:
    """Why a filter can match no round whatever the rounds are ("" when it can): a
    verdict or bottleneck class no word of pto-tui's starts with or contains."""
    for term in query.lower().split():
        field, sep, value = term.partition(":")
        if not sep:
            continue
        if field in ("verdict", "v") and not any(w.startswith(value) for w in VERDICT_WORDS):
            return f"no verdict starts with '{value}' ({', '.join(VERDICT_WORDS)})"
        if field in ("class", "c") and not any(value in name.lower() for name in BOTTLENECK_CLASSES):
            return f"no bottleneck class contains '{value}'"
    return ""


# one cell per look of a verdict, shared by the rows that show it (as FRONT_CELLS): a
# table cell is never changed in place, and 10,000 rows need not hold 10,000 of them
_VERDICT_CELLS: dict[tuple[object, ...], Text] = {}


def verdict_cell(record: Round, tampered: bool | None = None) -> Text:
    """The verdict, with a visible mark when the closed record was changed by hand (the
    round is shown and counted as it was closed), and the word when nothing vouches for
    its verdict (counted apart). `tampered`: the campaign's word for it (status names an
    ITERATIONS.md row edited or removed too), else the record's own marks."""
    marked = record.tampered if tampered is None else tampered
    word = verdict_word(record)
    # everything verdict_text and the marks below look at
    look = (word, bool(record.amendments), word == "kept" and record.simulated,
            not record.is_closed and record.verdict is not None,
            record.unverified and record.is_closed, bool(marked))
    known = _VERDICT_CELLS.get(look)
    if known is not None:
        return known
    text = verdict_text(record)
    if record.unverified and record.is_closed:
        text.append(f" {UNVERIFIED}", style=VERDICT_STYLES[UNVERIFIED])
    if marked:
        text.append(" !tampered", style=f"bold {FAILURE_COLOUR}")
    _VERDICT_CELLS[look] = text
    return text


def verdict_text_style(verdict: str) -> str:
    return VERDICT_STYLES.get(verdict, "")


def counts_text(counts: dict[str, int], shown: int, total: int, sort: str, query: str,
                marked: list[int], pinned: int | None) -> Text:
    """The line under the table: each verdict's count, what is shown and how, the marks;
    then why a filter matches nothing, when it cannot match anything."""
    text = Text()
    for verdict, count in counts.items():
        text.append(f"{marked_verdict(verdict)} {count}", style=verdict_text_style(verdict))
        text.append("  ")
    text.append(f"│ {shown}/{total} shown, sort {sort}", style="dim")
    if query:
        text.append(f", filter '{query}'", style="dim")
    if marked:
        text.append("  marked " + " ".join(iter_name(n) for n in marked), style="cyan")
    if pinned is not None:
        text.append(f"  reference {iter_name(pinned)}", style="magenta")
    problem = filter_problem(query)
    if problem:  # the empty table says why
        text.append(f"\n{problem}", style="bold yellow")
    return text


@dataclass(frozen=True)
class PreparedCells:
    """Every round's cells but the marks' (which change with a key), made off the event
    loop as the project loads: a fill of 10,000 rows, or `G` during one, only adds them."""

    loaded: LoadedProject
    predicting: bool
    cells: dict[int, list[str | Text]]


def prepare_cells(loaded: LoadedProject) -> PreparedCells:
    predicting = any(predicts(r.measurement) for r in loaded.rounds)
    shown = shown_cells(loaded, predicting)
    return PreparedCells(loaded, predicting, {r.number: shown(r) for r in loaded.rounds})


def row_cells(
    loaded: LoadedProject, predicting: bool, mark_cell: Callable[[int], Text],
    prepared: PreparedCells | None = None,
) -> Callable[[Round], list[str | Text]]:
    """A row's cells in the table's columns (`columns_for(predicting)`); `mark_cell` draws
    the marks' cell of a round; the others are taken from `prepared` when made for this
    load."""
    if prepared is not None and prepared.loaded is loaded and prepared.predicting == predicting:
        made = prepared.cells
        return lambda r: [mark_cell(r.number), *made[r.number]]
    shown = shown_cells(loaded, predicting)
    return lambda r: [mark_cell(r.number), *shown(r)]


def shown_cells(loaded: LoadedProject, predicting: bool) -> Callable[[Round], list[str | Text]]:
    """A row's cells but the marks' one."""
    st = loaded.status
    cycles = st.sample_unit == CYCLES  # perf_sim cycles: no torch_npu comparison
    torch_us = st.torch.avg_us if st.torch and not cycles else None
    steps = {r.number for r in loaded.rounds
             if r.is_closed and r.leads and (r.is_baseline or verdict_word(r) == "kept")}
    # one unit for the column, from all rounds (a filter does not change it)
    unit = duration_unit([r.measurement.median_us for r in loaded.rounds], st.sample_unit)
    by_number: dict[int | None, Round] = {r.number: r for r in loaded.rounds}

    def cells(r: Round) -> list[str | Text]:
        median = r.measurement.median_us
        front = FRONT_CELLS[FRONTIER_NOW if r.number == st.frontier_round else (
            FRONTIER_STEP if r.number in steps else "")]
        based = by_number.get(r.changes.based_on)
        predicted = [change_cell(predicted_change(r, based) if based else None)] if predicting else []
        return [
            front, str(r.number),
            verdict_cell(r, r.number in st.tampered),
            timing_text(median, r.simulated, unit, r.sample_unit), *predicted,
            format_tflops(r.measurement.tflops), speed(ratio(st.baseline_us, median)),
            speed(ratio(torch_us, median)), hypothesis_cell(r),
            r.pre_edit.bottleneck or "-", r.phase or "-",
        ]

    return cells
