"""A file shown in place: Markdown rendered, diffs highlighted, anything else as text."""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Markdown, Static

from pto_tui.tui.file_text import read_text


def file_view(path: Path, text: str | None = None) -> Static | Markdown:
    text = read_text(path) if text is None else text
    if path.suffix.lower() in (".md", ".markdown"):
        return Markdown(text)
    if path.suffix in (".diff", ".patch"):
        return Static(Syntax(text or "(empty)", "diff", theme="ansi_dark", word_wrap=False))
    return Static(Text(text))


class DocumentScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="doc.back"),
        Binding("j", "scroll('down')", "Down", show=False, id="doc.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="doc.up"),
        Binding("g", "scroll('home')", "Top", show=False, id="doc.top"),
        Binding("G", "scroll('end')", "End", show=False, id="doc.end"),
    ]

    def __init__(self, path: Path, title: str = "") -> None:
        super().__init__()
        self.path = path
        self.doc_title = title or path.name

    def compose(self) -> ComposeResult:
        yield Static(Text(self.doc_title, style="bold"), classes="topbar")
        with VerticalScroll(id="doc-body"):
            yield file_view(self.path)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#doc-body").focus()

    def action_scroll(self, where: str) -> None:
        body = self.query_one("#doc-body", VerticalScroll)
        {"down": body.scroll_down, "up": body.scroll_up, "home": body.scroll_home,
         "end": body.scroll_end}[where]()
