"""One job's log, read back from its file into the log pane (search, errors, stderr)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.model import JobRecord, LogLine
from pto_tui.tui.widgets.log_pane import LogPane


async def log_lines(path: Path) -> AsyncIterator[LogLine]:
    lines = await asyncio.to_thread(lambda: list(read_log(path)))
    for line in lines:
        yield line


def job_summary(record: JobRecord) -> Text:
    text = Text.assemble((record.name or record.id, "bold"), "  ", record.state.value)
    if record.exit_code is not None:
        text.append(f", exit {record.exit_code}")
    if record.duration is not None:
        text.append(f", {record.duration:.1f}s")
    return text


class JobLogScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "back", "Back", id="joblog.back"),
    ]

    def __init__(self, record: JobRecord) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        yield Static(job_summary(self.record), classes="topbar")
        yield Static(Text(f"$ {self.record.command}", style="dim"), id="joblog-command")
        yield LogPane(id="joblog-log")
        yield Footer()

    def on_mount(self) -> None:
        pane = self.query_one(LogPane)
        pane.follow(log_lines(Path(self.record.log_path)), self.record.name or self.record.id)
        pane.set_state(self.record.state.value)
        pane.focus_default()

    def action_back(self) -> None:
        """esc or q (esc in the log with no search open comes here): back to where the log
        was opened."""
        self.app.pop_screen()
