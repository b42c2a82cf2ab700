"""One round opened from the table: its notes rendered, its patch highlighted, its logs."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from pto_tui.core.layout import ProjectLayout
from pto_tui.core.records import Round
from pto_tui.tui.format import duration, iter_name, verdict_text
from pto_tui.tui.screens.document import DocumentScreen, file_view

# files of a round folder that are records, not logs
RECORD_FILES = {"notes.md", "patch.diff", "files.txt", "round.toml"}


class RoundScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="round.back"),
        Binding("n", "tab('notes')", "Notes", id="round.notes"),
        Binding("d", "tab('patch')", "Diff", id="round.diff"),
        Binding("l", "tab('logs')", "Logs", id="round.logs"),
        Binding("j", "scroll('down')", "Down", show=False, id="round.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="round.up"),
    ]

    def __init__(self, record: Round, layout: ProjectLayout, jobs: list[Path]) -> None:
        super().__init__()
        self.record = record
        self.folder = layout.round_dir(record.number)
        self.jobs = jobs

    def compose(self) -> ComposeResult:
        r = self.record
        head = Text.assemble(
            (iter_name(r.number), "bold"), "  ", verdict_text(r), "  ",
            duration(r.measurement.median_us), "  ", r.short_hypothesis(60),
        )
        yield Static(head, classes="topbar")
        with TabbedContent(initial="notes"):
            with TabPane("Notes", id="notes"), VerticalScroll(classes="round-body"):
                yield file_view(self.folder / "notes.md")
            with TabPane("Patch", id="patch"), VerticalScroll(classes="round-body"):
                yield file_view(self.folder / "patch.diff")
            with TabPane("Logs", id="logs"):
                yield OptionList(*self._log_options(), id="round-logs")
        yield Footer()

    def _log_options(self) -> list[Option]:
        options = []
        if self.folder.is_dir():
            for path in sorted(self.folder.rglob("*")):
                if path.is_file() and path.name not in RECORD_FILES:
                    options.append(Option(str(path.relative_to(self.folder)), id=str(path)))
        for path in self.jobs:
            options.append(Option(f"job {path.parent.name}", id=str(path)))
        if not options:
            options.append(Option("no logs recorded for this round", disabled=True))
        return options

    def action_tab(self, name: str) -> None:
        self.query_one(TabbedContent).active = name

    def action_scroll(self, where: str) -> None:
        pane = self.query_one(TabbedContent).active_pane
        if pane is None:
            return
        for body in pane.query(VerticalScroll):
            body.scroll_down() if where == "down" else body.scroll_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.app.push_screen(DocumentScreen(Path(event.option.id)))
