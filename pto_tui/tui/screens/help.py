"""`?`: the keys of the focused pane (and the screen and app around it)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "space": "space",
    "escape": "esc",
    "enter": "enter",
    "exclamation_mark": "!",
    "greater_than_sign": ">",
    "less_than_sign": "<",
}


def describe_key(key: str) -> str:
    return _NAMES.get(key, key)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, bindings: dict[str, ActiveBinding], where: str) -> None:
        super().__init__()
        self.bindings = bindings
        self.where = where

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=False, padding=(0, 1), expand=False)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("action")
        table.add_column("id", style="dim", no_wrap=True)
        groups: dict[str, list[tuple[str, Binding, bool]]] = {}
        for key, active in self.bindings.items():
            owner = active.node.__class__.__name__
            groups.setdefault(owner, []).append((key, active.binding, active.enabled))
        for owner, rows in groups.items():
            table.add_row(Text(owner, style="underline"), "", "")
            for key, binding, enabled in rows:
                action = binding.description or binding.action
                table.add_row(
                    describe_key(key),
                    Text(action, style="" if enabled else "dim"),
                    binding.id or "",
                )
        with VerticalScroll(id="help-body"):
            yield Static(Text(f"Keys here ({self.where})", style="bold"), id="help-title")
            yield Static(table)
            yield Static(
                Text(
                    "tab/shift+tab move between panes and fields · digits jump to panes · "
                    "ctrl+p every action · keys remap in keys.toml by id",
                    style="dim",
                )
            )

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
