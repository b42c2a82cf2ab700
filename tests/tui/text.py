"""What a widget shows, as plain text (for assertions)."""

from __future__ import annotations

from rich.console import Console
from textual.widgets import Static


def static_text(widget: Static, width: int = 200) -> str:
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(widget.content)
    return console.export_text()
