"""Small display helpers shared by panes (text only: no files, no Textual)."""

from __future__ import annotations

from rich.text import Text

from pto_tui.core.errors import PtoError, RuleViolation
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.counts import UNVERIFIED
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import timing_text
from pto_tui.core.rules.registry import fixes_of, for_front
from pto_tui.core.vocabulary import Verdict

# Verdict colours, and a mark before the word. Light enough that each stands 4.5:1 or more
# against the dark panes in colour and as the grey NO_COLOR turns it into (Textual's
# monochrome is the colour's luma): an ANSI red was dark grey on dark grey there.
KEPT_COLOUR = "#98e024"
NEUTRAL_COLOUR = "#8ab4ff"
FAILURE_COLOUR = "#ff8a8a"
INCONCLUSIVE_COLOUR = "#ffd75f"
OPEN_COLOUR = "#e38cff"
UNVERIFIED_COLOUR = "#ff9ce6"
VERDICT_STYLES: dict[str, str] = {
    Verdict.KEPT.value: f"bold {KEPT_COLOUR}",
    Verdict.NEUTRAL.value: NEUTRAL_COLOUR,
    Verdict.FAILURE.value: f"bold {FAILURE_COLOUR}",
    Verdict.INCONCLUSIVE.value: f"bold {INCONCLUSIVE_COLOUR}",
    "baseline": "bold",
    "open": f"bold {OPEN_COLOUR}",
    UNVERIFIED: f"bold {UNVERIFIED_COLOUR}",
}
VERDICT_MARKS: dict[str, str] = {
    Verdict.KEPT.value: "✓",
    Verdict.NEUTRAL.value: "=",
    Verdict.FAILURE.value: "✗",
    Verdict.INCONCLUSIVE.value: "?",
    "baseline": "■",
    "open": "…",
    UNVERIFIED: "!",
}

# job and step states are words; bad ends are bold too, so they stand out without colour
STATE_STYLES: dict[str, str] = {
    "succeeded": KEPT_COLOUR, "done": KEPT_COLOUR, "running": "cyan",
    "failed": f"bold {FAILURE_COLOUR}", "timed_out": f"bold {FAILURE_COLOUR}",
    "lost": f"bold {FAILURE_COLOUR}", "refused": f"bold {FAILURE_COLOUR}",
    "error": f"bold {FAILURE_COLOUR}", "cancelled": f"bold {INCONCLUSIVE_COLOUR}",
    "interrupted": f"bold {INCONCLUSIVE_COLOUR}",
}


def marked_verdict(word: str) -> str:
    """e.g. "✗ failure": readable without colour."""
    mark = VERDICT_MARKS.get(word)
    return f"{mark} {word}" if mark else word


def verdict_word(record: Round) -> str:
    if record.is_baseline:
        return "baseline"
    if not record.is_closed and record.verdict is None:
        return "open"  # (a preview of an open round carries the verdict it would close with)
    verdict = record.effective_verdict()
    return verdict.value if verdict else "-"


def verdict_text(record: Round) -> Text:
    word = verdict_word(record)
    suffix = "*" if record.amendments else ""
    text = Text(marked_verdict(word) + suffix, style=VERDICT_STYLES.get(word, ""))
    if word == "kept" and record.simulated:
        text.append(" (sim)", style="bold")  # kept from simulated timings
    if not record.is_closed and record.verdict is not None:
        text.append(" (when closed)", style="dim")
    return text


def speed(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def ratio(reference: float | None, value: float | None) -> float | None:
    return reference / value if reference and value else None


def duration(us: float | None, sample_unit: str = "") -> str:
    """A sample as text: "-" for none, cycles as cycles (a perf-sim project)."""
    return format_duration(us, sample_unit) if us is not None else "-"


def round_duration(record: Round) -> str:
    """A round's median, marked (sim) when measured in a CPU simulation."""
    median = record.measurement.median_us
    if median is None:
        return "-"
    return timing_text(median, record.simulated, sample_unit=record.sample_unit)


def iter_name(number: int | None) -> str:
    return round_name(number) if number is not None else "-"


def error_text(error: PtoError) -> str:
    """An error as this app says it: a rule's fix named by the field or key that gives it
    here, not by the command-line option, and how to answer each rule it names."""
    text = for_front(error.render(), "tui")
    if isinstance(error, RuleViolation):
        text += "".join(f"\n  fix: {fix}" for fix in fixes_of(error, "tui"))
    return text
