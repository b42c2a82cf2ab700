"""Change tunable parameters in a form: current value, allowed values, new value."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from pto_tui.core.project.config import Scalar, Tunable
from pto_tui.tui.compact import make_compact
from pto_tui.tui.forms import FORM


def coerce(text: str, like: Scalar) -> Scalar:
    """Typed like the current value, so 256 stays an integer (core checks allowed values)."""
    text = text.strip()
    if isinstance(like, bool):
        return text.lower() in ("1", "true", "yes", "on")
    if isinstance(like, int):
        try:
            return int(text)
        except ValueError:
            return text
    if isinstance(like, float):
        try:
            return float(text)
        except ValueError:
            return text
    return text


class ParamScreen(Screen[dict[str, Scalar] | None]):
    """Returns {name: new value} for the parameters that changed, or None."""

    BINDINGS = [
        Binding("ctrl+s", "submit", "Record", id="params.submit"),
        Binding("escape", "cancel", "Cancel", id="params.cancel"),
    ]

    def __init__(self, tunables: Mapping[str, Tunable]) -> None:
        super().__init__()
        self.tunables = tunables

    def compose(self) -> ComposeResult:
        yield Static(Text("Change parameters (ctrl+s records the changes, esc cancels)",
                          style="bold"), classes="topbar")
        with VerticalScroll(id="params-body", classes=FORM, can_focus=False):
            if not self.tunables:
                yield Static("this project has no tunable parameters")
            for name, t in self.tunables.items():
                with Horizontal(classes="param-row"):
                    yield Label(Text.assemble((name, "bold"), f" = {t.value}"),
                                classes="param-name")
                    if t.allowed:
                        yield Select([(str(v), str(v)) for v in t.allowed],
                                     value=str(t.value) if t.value in t.allowed else Select.BLANK,
                                     id=f"param-{name}", classes="param-value")
                    else:
                        yield Input(str(t.value), id=f"param-{name}", classes="param-value")
                    yield Label(Text(f"{t.kind} {t.where}", style="dim"), classes="param-where")
            yield Button("Record parameter changes (ctrl+s)", id="params-submit",
                         variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        make_compact(self)

    def changed(self) -> dict[str, Scalar]:
        out: dict[str, Scalar] = {}
        for name, t in self.tunables.items():
            widget = self.query_one(f"#param-{name}")
            raw = widget.value if isinstance(widget, Input | Select) else None
            if raw is None or raw is Select.BLANK:
                continue
            value = coerce(str(raw), t.value)
            if value != t.value:
                out[name] = value
        return out

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "params-submit":
            self.action_submit()

    def action_submit(self) -> None:
        changes = self.changed()
        if not changes:
            self.app.notify("no parameter differs from its current value", title="parameters")
            return
        self.dismiss(changes)

    def action_cancel(self) -> None:
        self.dismiss(None)
