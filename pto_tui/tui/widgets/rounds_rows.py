"""What the iteration table shows of a round, and how it filters and sorts (no widgets)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from pto_tui.core.rounds.counts import UNVERIFIED
from pto_tui.core.rounds.records import Round
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, Verdict
from pto_tui.tui.format import (
    FAILURE_COLOUR,
    VERDICT_STYLES,
    iter_name,
    marked_verdict,
    verdict_text,
    verdict_word,
)

COLUMNS = ("", "", "iter", "verdict", "duration", "TFLOPS", "x init", "x torch", "hypothesis",
           "class", "phase")
COMPARE_MARK = "▶"
PIN_MARK = "◆"
FRONTIER_NOW = "★"
FRONTIER_STEP = "↑"
RERUN_MARK = "↻"
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


def verdict_cell(record: Round, tampered: bool | None = None) -> Text:
    """The verdict, with a visible mark when the closed record was changed by hand (the
    round is shown and counted as it was closed), and the word when nothing vouches for
    its verdict (counted apart). `tampered`: the campaign's word for it (status names an
    ITERATIONS.md row edited or removed too), else the record's own marks."""
    text = verdict_text(record)
    if record.unverified and record.is_closed:
        text.append(f" {UNVERIFIED}", style=VERDICT_STYLES[UNVERIFIED])
    if record.tampered if tampered is None else tampered:
        text.append(" !tampered", style=f"bold {FAILURE_COLOUR}")
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
