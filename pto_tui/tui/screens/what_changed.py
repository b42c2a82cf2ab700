"""What changed in one round against a reference round: the parameters, the duration
before and after (one unit) with each side's spread and the noise limit, perf_sim's predicted
change beside the measured one ([target] predict), TFLOPS, and the round's patch. The same
core call as `pto-tui diff N [--against frontier]`, run off the event loop; `f` switches
the reference between the round it was based on and the frontier.
"""

from __future__ import annotations

import asyncio

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from pto_tui.core.campaign.what_changed import FRONTIER, PREVIOUS, DurationDelta, RoundDiff, Side, round_diff
from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.prediction import change_line
from pto_tui.core.rounds.render import format_tflops
from pto_tui.tui.format import iter_name, marked_verdict
from pto_tui.tui.session import Session

# how the reference was chosen, short: the title fits 80 columns with the `f` hint
HOW = {PREVIOUS: "previous: its base", FRONTIER: "the frontier", "round": "chosen"}


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _value(value: object) -> str:
    return "(unset)" if value is None else str(value)


def what_changed_title(number: int, against: str, diff: RoundDiff | None) -> Text:
    """e.g. 'what changed in iter-004 against iter-001 (previous: its base)'; the
    reference is named by how it is chosen until the core has found it."""
    text = Text(f"what changed in {iter_name(number)} ", style="bold")
    if diff is None:
        text.append(f"against the {against}")
    else:
        text.append(f"against {iter_name(diff.against)} ({HOW[diff.against_how]})")
    other = FRONTIER if against == PREVIOUS else PREVIOUS
    text.append(f"   f: {other}", style="dim")
    return text


def _section(title: str) -> Text:
    return Text(f"\n{title}", style="bold underline")


def _parameters(diff: RoundDiff) -> Text:
    """name  before → after, one line a parameter (names padded to one column)."""
    if not diff.parameters:
        return Text("  none differ", style="dim")
    width = max(len(p.name) for p in diff.parameters)
    text = Text(f"  {'':<{width}}  {iter_name(diff.against)} → {iter_name(diff.round)}\n",
                style="dim")
    for p in diff.parameters:
        text.append(f"  {p.name:<{width}}  ", style="bold")
        text.append(f"{_value(p.before)} → {_value(p.after)}\n")
    text.rstrip()
    return text


def _side_line(side: Side, median: str) -> Text:
    text = Text(f"  {iter_name(side.round)}  ")
    if side.median_us is None:
        text.append("no valid samples", style="dim")
        return text
    text.append(median, style="bold")
    text.append(f"  {side.runs} run(s), spread {_percent(side.spread)} ({side.stability})")
    return text


def _duration(d: DurationDelta) -> list[RenderableType]:
    before, after = format_durations([d.before.median_us, d.after.median_us], d.unit)
    lines: list[RenderableType] = [_side_line(d.before, before), _side_line(d.after, after)]
    if d.delta is not None and d.speedup is not None:
        delta = Text(f"  delta {d.delta:+.1%} ({d.speedup:.2f}x)  ")
        if d.judged:
            beyond = d.judged == "beyond the noise floor"
            delta.append(d.judged, style="bold green" if beyond else "bold yellow")
        lines.append(delta)
    if d.bounds_text():
        lines.append(Text(f"  {d.bounds_text()}", style="dim"))
    return lines


def _tflops(diff: RoundDiff) -> Text:
    shown = [format_tflops(t) for t in (diff.tflops_before, diff.tflops_after)]
    text = Text(f"  {shown[0]} → {shown[1]}")
    if diff.tflops_delta is not None:
        text.append(f"  ({diff.tflops_delta:+.1%})")
    return text


def _patch(diff: RoundDiff) -> list[RenderableType]:
    base = iter_name(diff.patch_against) if diff.patch_against is not None else "its base"
    if not diff.patch.strip():
        return [_section("Patch"), Text(f"  none: no file changed against {base}", style="dim")]
    head = Text(f"  the round's patch.diff, against {base}", style="dim")
    body = Syntax(diff.patch.rstrip("\n"), "diff", theme="ansi_dark", word_wrap=True)
    return [_section("Patch"), head, body]


def what_changed_body(diff: RoundDiff) -> Group:
    parts: list[RenderableType] = []
    if diff.verdict:
        parts.append(Text.assemble(("verdict ", "bold"), marked_verdict(diff.verdict),
                                   f" — {diff.verdict_reason}"))
    parts += [_section("Parameters"), _parameters(diff)]
    if diff.duration is not None:
        parts += [_section("Duration (median)"), *_duration(diff.duration)]
    if diff.prediction is not None:
        parts += [_section("Predicted (perf_sim) against measured"),
                  Text("  " + change_line(diff.prediction).removeprefix("perf_sim prediction: "))]
    if diff.tflops_before is not None or diff.tflops_after is not None:
        parts += [_section("TFLOPS"), _tflops(diff)]
    parts += _patch(diff)
    return Group(*parts)


class WhatChangedScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="changed.back"),
        Binding("f", "toggle_reference", "Previous / frontier", id="changed.reference"),
        Binding("j", "scroll('down')", "Down", show=False, id="changed.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="changed.up"),
    ]

    def __init__(self, session: Session, number: int, against: str = PREVIOUS) -> None:
        super().__init__()
        self.session = session
        self.number = number
        self.against = against
        self.diff: RoundDiff | None = None
        self.problem = ""  # why there is nothing to show (the baseline has no reference)

    def compose(self) -> ComposeResult:
        yield Static(id="changed-title", classes="topbar")
        with VerticalScroll(id="changed-body"):
            yield Static(id="changed-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#changed-body").focus()
        self.load()

    @work(exclusive=True, group="what-changed", exit_on_error=False)
    async def load(self) -> None:
        """The core reads the records and patch.diff: in a thread, not on the event loop."""
        self.diff, self.problem = None, ""
        self._draw(loading=True)
        try:
            self.diff = await asyncio.to_thread(
                round_diff, self.session.campaign, self.number, self.against)
        except PtoError as error:
            # the command line's hint (--against ...) is not this screen's: f is
            self.problem = error.message
        self._draw()

    def _draw(self, loading: bool = False) -> None:
        self.query_one("#changed-title", Static).update(
            what_changed_title(self.number, self.against, self.diff))
        body: RenderableType
        if self.diff is not None:
            body = what_changed_body(self.diff)
        elif self.problem:
            body = Text(f"nothing to compare: {self.problem}", style="bold yellow")
            body.append(f"\nf compares with the {FRONTIER if self.against == PREVIOUS else PREVIOUS}"
                        " instead", style="dim")
        else:
            body = Text("reading the rounds…" if loading else "", style="dim")
        self.query_one("#changed-text", Static).update(body)

    def action_toggle_reference(self) -> None:
        self.against = FRONTIER if self.against == PREVIOUS else PREVIOUS
        self.load()

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#changed-body", VerticalScroll)
        body.scroll_down() if where == "down" else body.scroll_up()
