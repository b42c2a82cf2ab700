"""What a widget shows, as plain text (for assertions)."""

from __future__ import annotations

import html
import re
from typing import Any

from rich.console import Console
from textual.app import App
from textual.widget import Widget
from textual.widgets import Static


def static_text(widget: Widget, width: int = 200) -> str:
    assert isinstance(widget, Static), f"{widget!r} is not a Static: it has no text of its own"
    console = Console(width=width, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(widget.content)
    return console.export_text()


def screen_text(app: App[Any]) -> list[str]:
    """The screen as painted, one string a row (from the app's SVG screenshot: every
    character where it is drawn, whatever widget drew it)."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for match in _TEXT.finditer(app.export_screenshot()):
        x, row, text = float(match[1]), int(match[2]), match[3]
        text = html.unescape(text).replace("\xa0", " ")
        if row >= height:
            continue
        start = round((x - _LEFT) / _CELL)
        for i, char in enumerate(text):
            if 0 <= start + i < width:
                rows[row][start + i] = char
    return ["".join(row).rstrip() for row in rows]


_LEFT, _CELL = 0.0, 12.2  # the x of the first column and the width of one in Rich's SVG
_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
                   r'clip-path="url\(#terminal-(?:\w+-)?line-(\d+)\)">([^<]*)</text>')
