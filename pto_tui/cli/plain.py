"""Plain console output for the read commands that print lines (`status`): the one piece
of rich markup they use, `[bold]…[/]`, without importing rich (a third of a read
command's start-up). Bold on a terminal; plain text in a pipe or a file, as rich does."""

from __future__ import annotations

import sys
from typing import Protocol, TextIO

_BOLD, _END = "[bold]", "[/]"


class Printer(Protocol):
    """What the read commands print through: rich's Console or PlainConsole."""

    def print(self, text: str = "", *, markup: bool = True, highlight: bool = False) -> None: ...


class PlainConsole:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.bold = self.stream.isatty()

    def print(self, text: str = "", *, markup: bool = True, highlight: bool = False) -> None:
        if markup:
            on, off = ("\x1b[1m", "\x1b[0m") if self.bold else ("", "")
            text = text.replace(_BOLD, on).replace(_END, off)
        self.stream.write(text + "\n")
