"""Asked before quitting or closing a project while work runs: keep it, stop it, or stay.

The question names what runs (the step and each job), so nothing is stopped silently.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from pto_tui.jobs.model import JobRecord

KEEP, STOP, STAY = "keep", "stop", "stay"


def describe_job(record: JobRecord) -> str:
    """e.g. 'iter-003 run' (job 20261201-…) on local."""
    return f"{record.name or record.command[:40]!r} ({record.id}) on {record.target}"


def leave_question(verb: str, running: list[str]) -> Text:
    text = Text()
    for line in running:
        text.append(f"● {line} is running\n", style="bold")
    text.append(f"\nBefore you {verb}:\n")
    text.append("  k", style="bold")
    text.append("  keep it running in the background\n"
                "     (re-attached with its log when the project opens again)\n")
    text.append("  s", style="bold")
    text.append("  stop it (TERM, then KILL; an open round stays open)\n")
    text.append("  esc", style="bold")
    text.append(f" cancel: do not {verb}\n")
    return text


class LeaveScreen(ModalScreen[str]):
    BINDINGS = [
        Binding("k", "choose('keep')", "Keep running", id="leave.keep"),
        Binding("s", "choose('stop')", "Stop it", id="leave.stop"),
        Binding("escape,c", "choose('stay')", "Cancel", id="leave.cancel"),
    ]

    def __init__(self, verb: str, running: list[str]) -> None:
        super().__init__()
        self.verb = verb
        self.running = running

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-body"):
            yield Static(Text(f"{self.verb.capitalize()}?", style="bold"), id="leave-title")
            yield Static(leave_question(self.verb, self.running), id="leave-text")
            with Horizontal(id="leave-buttons"):
                yield Button("k keep running", id="leave-keep", variant="primary")
                yield Button("s stop it", id="leave-stop", variant="error")
                yield Button("esc cancel", id="leave-stay")

    def on_mount(self) -> None:
        self.query_one("#leave-stay", Button).focus()  # enter on its own leaves nothing

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "leave-stay").removeprefix("leave-"))

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
