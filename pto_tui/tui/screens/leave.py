"""Asked before quitting or closing a project while work runs or a form holds a draft:
keep the work running, stop it, or stay; a draft is always kept, and the question says so.

The question names what runs (the step and each job) and each draft, so nothing is
stopped or left behind silently.
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


def _drafts_text(drafts: list[str]) -> Text:
    text = Text()
    for line in drafts:
        text.append(f"● {line} (typed, not submitted)\n", style="bold")
    text.append("  kept in .pto-tui/drafts/: back in its form when the project opens again\n",
                style="dim")
    return text


def leave_question(verb: str, running: list[str], drafts: list[str] | None = None) -> Text:
    text = Text()
    for line in running:
        text.append(f"● {line} is running\n", style="bold")
    if drafts:
        text.append_text(_drafts_text(drafts))
    text.append(f"\nBefore you {verb}:\n")
    if running:
        text.append("  k", style="bold")
        text.append("  keep it running in the background\n"
                    "     (re-attached with its log when the project opens again)\n")
        text.append("  s", style="bold")
        text.append("  stop it (TERM, then KILL; an open round stays open)\n")
    else:
        text.append("  y", style="bold")
        text.append(f"  {verb}, keeping the draft{'s' if len(drafts or []) > 1 else ''}\n")
    text.append("  esc", style="bold")
    text.append(f" cancel: do not {verb}\n")
    return text


class LeaveScreen(ModalScreen[str]):
    BINDINGS = [
        Binding("k", "choose('keep')", "Keep running", id="leave.keep"),
        Binding("s", "choose('stop')", "Stop it", id="leave.stop"),
        Binding("y", "choose('leave')", "Leave", id="leave.yes"),
        Binding("escape,c,q", "choose('stay')", "Cancel", id="leave.cancel"),
    ]

    def __init__(self, verb: str, running: list[str], drafts: list[str] | None = None) -> None:
        super().__init__()
        self.verb = verb
        self.running = running
        self.drafts = drafts or []

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-body"):
            yield Static(Text(f"{self.verb.capitalize()}?", style="bold"), id="leave-title")
            yield Static(leave_question(self.verb, self.running, self.drafts), id="leave-text")
            with Horizontal(id="leave-buttons"):
                if self.running:
                    yield Button("k keep running", id="leave-keep", variant="primary")
                    yield Button("s stop it", id="leave-stop", variant="error")
                else:
                    yield Button(f"y {self.verb}", id="leave-leave", variant="primary")
                yield Button("esc cancel", id="leave-stay")

    def on_mount(self) -> None:
        self.query_one("#leave-stay", Button).focus()  # enter on its own leaves nothing

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose((event.button.id or "leave-stay").removeprefix("leave-"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """k and s while work runs, y when only drafts are left."""
        if action == "choose" and parameters and parameters[0] != STAY:
            return (parameters[0] != "leave") == bool(self.running)
        return True

    def action_choose(self, choice: str) -> None:
        self.dismiss(KEEP if choice == "leave" else choice)
