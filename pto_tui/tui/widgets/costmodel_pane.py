"""Pane 5: the costmodel console: a query prompt, sweeps, a sortable result table.

Queries are parsed and validated by core (costmodel_query); they run through the
costmodel service with its cache, the same calls `pto-tui costmodel` makes.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import DataTable, Input, ProgressBar, Static

from pto_tui.core.cycles.query import DTYPE_ALIASES, DTYPE_SIZES, INSTRUCTIONS, Query
from pto_tui.core.cycles.results import (
    TABLE_COLUMNS,
    CycleResult,
    best_result,
    format_evidence,
    sort_results,
    table_rows,
)
from pto_tui.core.cycles.sweep import parse_query_text
from pto_tui.core.errors import PtoError
from pto_tui.core.paths import app_home
from pto_tui.costmodel.engine import ProgressFn
from pto_tui.tui.messages import AttachEvidence
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.widgets.pane import ProjectPane

HISTORY_FILE = "costmodel_history.txt"
HISTORY_SIZE = 200
DTYPE_WORDS = (*DTYPE_SIZES, *DTYPE_ALIASES)
FLAG_WORDS = ("-r", "-c", "--m", "--k", "--n")


def complete(value: str) -> str | None:
    """Complete the word being typed: an instruction first, then dtypes and flags."""
    if not value or value.endswith(" "):
        return None
    words = value.split(" ")
    word = words[-1]
    if len(words) == 1:
        choices: tuple[str, ...] = tuple(INSTRUCTIONS)
        word = word.upper()
    elif word.startswith("-"):
        choices = FLAG_WORDS
    else:
        choices = DTYPE_WORDS
    for choice in sorted(choices):
        if choice.startswith(word) and choice != word:
            return value[: len(value) - len(words[-1])] + choice
    return None


class QuerySuggester(Suggester):
    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value)


class QueryInput(Input):
    """The prompt: tab completes, up/down walk the history."""

    BINDINGS = [
        Binding("tab", "complete", "Complete", show=False, id="costmodel.complete"),
        Binding("up", "history(-1)", "Older", show=False, id="costmodel.older"),
        Binding("down", "history(1)", "Newer", show=False, id="costmodel.newer"),
    ]

    def __init__(self, history: list[str], **kwargs: Any) -> None:
        super().__init__(suggester=QuerySuggester(), **kwargs)
        self.history = history
        self.position = len(history)
        self._recalled = ""  # the text ↑/↓ put in: any other text starts from the newest

    def action_complete(self) -> None:
        suggestion = complete(self.value)
        if suggestion:
            self.value = suggestion + " "
            self.cursor_position = len(self.value)
        else:
            # tab never leaves the prompt (keys typed after it would run pane commands)
            self.app.notify("nothing to complete; esc leaves the prompt", title="costmodel")

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self.value != self._recalled:  # typed, edited or cleared: ↑ is the newest again
            self.position = len(self.history)
        self.position = max(0, min(len(self.history), self.position + step))
        self.value = self.history[self.position] if self.position < len(self.history) else ""
        self._recalled = self.value
        self.cursor_position = len(self.value)


def _history_path() -> Path:
    return app_home() / HISTORY_FILE


def load_history() -> list[str]:
    try:
        return _history_path().read_text(encoding="utf-8").splitlines()[-HISTORY_SIZE:]
    except OSError:
        return []


def save_history(history: list[str]) -> None:
    path = _history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(history[-HISTORY_SIZE:]) + "\n", encoding="utf-8")
    except OSError:
        pass  # history is a convenience; never block a query on it


class CostmodelPane(Vertical, ProjectPane, can_focus=True):
    """Focusable itself, so esc from the prompt lands here and the pane's keys work."""

    BINDINGS = [
        Binding("s", "sort", "Sort", id="costmodel.sort"),
        Binding("S", "reverse", "Reverse", show=False, id="costmodel.reverse"),
        Binding("a", "attach", "Attach to Evidence", id="costmodel.attach"),
        Binding("i", "focus_prompt", "Prompt", id="costmodel.prompt"),
    ]

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.results: list[CycleResult] = []
        self.sort_column = ""
        self.descending = False
        self.history = load_history()

    def compose(self) -> ComposeResult:
        yield Static(id="cm-status")
        yield QueryInput(self.history, id="cm-query",
                         placeholder="e.g. TMATMUL half half float --m 128 --k 64 --n 128")
        yield Static(id="cm-prompt")
        yield ProgressBar(id="cm-progress", show_eta=False, classes="hidden")
        table: DataTable[str | Text] = DataTable(id="cm-results", cursor_type="row")
        yield table
        yield Static(id="cm-summary")

    def on_mount(self) -> None:
        self._status()
        table = self.query_one("#cm-results", DataTable)
        table.add_column("", key="best")
        for column in TABLE_COLUMNS:
            table.add_column(column.replace("_", " "), key=column)

    def show_loaded(self, loaded: LoadedProject) -> None:
        self._status()

    def focus_default(self) -> None:
        self.query_one("#cm-query").focus()

    def action_focus_prompt(self) -> None:
        self.focus_default()

    def _status(self) -> None:
        cm = self.session.campaign.config.costmodel
        text = Text.assemble(("costmodel ", "bold"), f"engine {cm.engine}")
        where = cm.tool if cm.engine == "external" else cm.pto_isa
        text.append(f" ({Path(where).name})" if where else " (not configured: set [costmodel] "
                    "in project.toml)", style="dim" if where else "yellow")
        text.append("  tab completes, ↑↓ history, lists/ranges sweep (16:256:x2)", style="dim")
        self.query_one("#cm-status", Static).update(text)

    # ------------------------------------------------------------ validation

    def _parse(self, text: str) -> list[Query] | None:
        prompt = self.query_one("#cm-prompt", Static)
        if not text.strip():
            prompt.update("")
            return None
        try:
            queries = parse_query_text(text)
        except PtoError as error:
            prompt.update(Text(error.render(), style="yellow"))
            return None
        what = "1 query" if len(queries) == 1 else f"sweep of {len(queries)} queries"
        prompt.update(Text(f"✓ {what}: enter runs", style="green"))
        return queries

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "cm-query":
            self._parse(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "cm-query":
            return
        event.stop()
        text = event.value.strip()
        # kept even when it does not parse: ↑ brings it back to be corrected
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
            save_history(self.history)
        self.query_one(QueryInput).position = len(self.history)
        queries = self._parse(text)
        if queries:
            self.run_queries(queries)

    # ------------------------------------------------------------ running

    async def _run(self, queries: list[Query], progress: ProgressFn) -> list[CycleResult]:
        """What `pto-tui costmodel` runs for this project: the same settings, and with
        on_target the tool runs on the target, as in the CLI."""
        from pto_tui.costmodel import CostmodelCache
        from pto_tui.costmodel.remote import run_for_project
        from pto_tui.costmodel.service import resolve_settings

        layout = self.session.layout
        config = self.session.campaign.config
        settings = resolve_settings(config.costmodel, layout.root,
                                    layout.cache_dir / "costmodel.json")
        return await run_for_project(queries, settings, config, layout.jobs_dir,
                                     CostmodelCache(settings.cache_path), progress)

    @work(exclusive=True, group="costmodel", exit_on_error=False)
    async def run_queries(self, queries: list[Query]) -> None:
        from pto_tui.costmodel import Progress

        prompt = self.query_one("#cm-prompt", Static)
        bar = self.query_one("#cm-progress", ProgressBar)
        bar.remove_class("hidden")
        bar.update(total=len(queries), progress=0)
        main_thread = threading.get_ident()

        def show(progress: Progress) -> None:
            def apply() -> None:
                bar.update(total=progress.total, progress=progress.done)
                prompt.update(Text(f"running {progress.done}/{progress.total} "
                                   f"({progress.message})", style="cyan"))

            if threading.get_ident() == main_thread:
                apply()
            else:
                self.app.call_from_thread(apply)

        try:
            results = await self._run(queries, show)
        except PtoError as error:
            prompt.update(Text(error.render(), style="bold red"))
            return
        finally:
            bar.add_class("hidden")
        self.results = results
        failed = sum(not r.ok for r in results)
        prompt.update(Text(f"{len(results) - failed}/{len(results)} answered"
                           + (f", {failed} failed" if failed else ""),
                           style="green" if not failed else "yellow"))
        self._fill()

    def _fill(self) -> None:
        table = self.query_one("#cm-results", DataTable)
        table.clear()
        shown = (sort_results(self.results, self.sort_column, self.descending)
                 if self.sort_column else self.results)
        best = best_result(self.results)
        for i, (result, cells) in enumerate(zip(shown, table_rows(shown), strict=True)):
            mark = Text("★", style="dark_orange") if result is best else ""
            style = "" if result.ok else "red"
            table.add_row(mark, *(Text(c, style=style) for c in cells), key=str(i))
        summary = Text()
        if self.results:
            stamp = self.results[0].stamp.short()
            cached = sum(r.cached for r in self.results)
            summary.append(f"costmodel {stamp}", style="bold")
            summary.append(f"  {cached} from cache", style="dim")
            if self.sort_column:
                summary.append(f"  sorted by {self.sort_column}"
                               + (" desc" if self.descending else ""), style="dim")
            if best is not None:
                summary.append(f"\nbest ★ {best.label} = {best.cycles} cycles", style="green")
            errors = [r for r in self.results if not r.ok]
            for r in errors[:3]:
                summary.append(f"\n{r.label}: {r.error}", style="red")
            summary.append("\na attaches these results to the Pre-Edit Evidence", style="dim")
        self.query_one("#cm-summary", Static).update(summary)

    def action_sort(self) -> None:
        columns = [c for c in TABLE_COLUMNS if c != "label"]
        if self.sort_column not in columns:
            self.sort_column = columns[0]
        else:
            index = columns.index(self.sort_column) + 1
            self.sort_column = columns[index] if index < len(columns) else ""
        self._fill()

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self._fill()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        column = str(event.column_key.value)
        if column in TABLE_COLUMNS:
            if self.sort_column == column:
                self.descending = not self.descending
            self.sort_column = column
            self._fill()

    def action_attach(self) -> None:
        if not self.results:
            self.app.notify("run a query first", title="costmodel")
            return
        self.post_message(AttachEvidence(format_evidence(self.results)))
