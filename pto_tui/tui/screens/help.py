"""`?`: this app's keys by pane (the focused pane first), then those that work everywhere."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pto_tui.tui.actions import Action

NAVIGATION = Text.assemble(
    ("Moving around\n", "bold underline"),
    ("1-5", "bold"), " switch panes while no text field has the focus; ",
    ("F1-F5", "bold"), " or ", ("alt+1-5", "bold"), " from anywhere, a field included\n",
    ("esc", "bold"), " goes back one level: out of a field to its pane, out of a sub-screen to "
    "where it was opened; never to another pane\n",
    ("q", "bold"), " goes back from a sub-screen and quits only from a pane (asking when a job "
    "runs or a form holds a draft); in a field or a form's screen it is a letter\n",
    ("tab", "bold"), " moves between fields, leaving their text as it is · ",
    ("ctrl+p", "bold"), " every action · keys remap by id in keys.toml",
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help.close"),
        Binding("j,down", "scroll('down')", "Down", show=False, id="help.down"),
        Binding("k,up", "scroll('up')", "Up", show=False, id="help.up"),
    ]

    def __init__(self, actions: Sequence[Action]) -> None:
        super().__init__()
        self.actions = list(actions)

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, padding=(0, 1), expand=False)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("action")
        table.add_column("id", style="dim", no_wrap=True)
        group = None
        for action in self.actions:
            if action.group != group:
                if group is not None:
                    table.add_row("", "", "")
                table.add_row(Text(action.group, style="bold underline"), "", "")
                group = action.group
            table.add_row(action.key_text, action.title, ", ".join(action.ids))
        first = self.actions[0].group if self.actions else ""
        with VerticalScroll(id="help-body"):
            yield Static(Text(f"Keys, by pane ({first} first)  ·  j/k scroll, esc closes",
                              style="bold"), id="help-title")
            yield Static(table, id="help-table")
            yield Static(NAVIGATION, id="help-navigation")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        body.scroll_down() if where == "down" else body.scroll_up()

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
