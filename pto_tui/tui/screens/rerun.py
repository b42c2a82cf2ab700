"""Rerun an inconclusive round: asked first in a small modal naming what will happen, then
the same core call as `pto-tui round rerun N`, off the event loop.

A refusal (not inconclusive, the baseline, a round open, …) is the core's message with its
rule, as a notice. The round that reruns is a new round; the original is never touched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from pto_tui.core.campaign.requests import RerunRequest
from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.records import Round
from pto_tui.core.rules.history import rerun_findings
from pto_tui.core.rules.rule import refuse
from pto_tui.tui.format import iter_name, verdict_word
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import pto_app


def rerun_question(original: Round, next_number: int) -> Text:
    """e.g. 'iter-002 (inconclusive) measured again as iter-005 with the same change; …'."""
    name, new = iter_name(original.number), iter_name(next_number)
    text = Text()
    text.append(f"{name} ({verdict_word(original)})", style="bold")
    text.append(" measured again as ")
    text.append(new, style="bold")
    text.append(f" with the same change; {name} stays as it is.\n\n")
    based = iter_name(original.changes.based_on)
    text.append(f"{new} opens based on {based}, with {name}'s Pre-Edit answers, parameter "
                "values and files; r in the Run pane then runs it.", style="dim")
    return text


class RerunScreen(ModalScreen[bool]):
    """y reruns, n or esc does nothing."""

    DEFAULT_CSS = """
    RerunScreen { align: center middle; }
    #rerun-body {
        width: 90%; max-width: 76; height: auto;
        border: round $warning; background: $surface; padding: 0 1;
    }
    #rerun-buttons { height: auto; }
    #rerun-buttons Button { min-width: 0; margin-right: 2; }
    """
    BINDINGS = [
        Binding("y", "choose(True)", "Rerun", id="rerun.yes"),
        Binding("escape,n,q", "choose(False)", "Cancel", id="rerun.cancel"),
    ]

    def __init__(self, original: Round, next_number: int) -> None:
        super().__init__()
        self.original = original
        self.next_number = next_number

    def compose(self) -> ComposeResult:
        with Vertical(id="rerun-body"):
            yield Static(Text(f"Rerun {iter_name(self.original.number)}?", style="bold"),
                         id="rerun-title")
            yield Static(rerun_question(self.original, self.next_number), id="rerun-text")
            with Horizontal(id="rerun-buttons"):
                yield Button("y rerun", id="rerun-yes", compact=True)
                yield Button("n / esc cancel", id="rerun-no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#rerun-no", Button).focus()  # enter on its own starts nothing

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "rerun-yes")

    def action_choose(self, yes: bool) -> None:
        self.dismiss(yes)


def ask_rerun(node: DOMNode, session: Session, original: Round,
              started: Callable[[Round], None]) -> None:
    """Refuse at once what the record already refuses, else ask, then rerun in a thread;
    `started` gets the new open round."""
    app = pto_app(node)
    try:
        refuse(rerun_findings(original))
    except PtoError as error:
        app.report_error(error, title="rerun")
        return
    loaded = session.loaded
    numbers = [r.number for r in loaded.rounds] if loaded else [original.number]
    next_number = max(numbers) + 1

    async def rerun() -> None:
        try:
            record = await asyncio.to_thread(session.campaign.rerun_round, RerunRequest(original.number))
        except PtoError as error:
            app.report_error(error, title="rerun")
            return
        app.notify(f"{iter_name(record.number)} opened as a rerun of "
                   f"{iter_name(original.number)}: r in the Run pane runs it", title="rerun")
        started(record)

    def answered(yes: bool | None) -> None:
        if yes:
            node.run_worker(rerun(), group="rerun", exclusive=True, exit_on_error=False)

    app.push_screen(RerunScreen(original, next_number), answered)
