"""The live log pane: a header (what runs, its state, lines, follow/search), the view of
the lines (log_view.LogView) and a search box."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from pto_tui.tui.format import STATE_STYLES
from pto_tui.tui.widgets.log_view import STORE_EVERY, BlockLike, CancelFn, LineLike, LogView


class LogPane(Vertical):
    """A header (what runs, its state, lines, follow/search), the view, a search box."""

    ALLOW_MAXIMIZE = True

    BINDINGS = [Binding("escape", "close_search", "Close search", show=False,
                        id="log.close_search"),
                Binding("m", "maximize", "Maximise", id="log.maximize")]

    def __init__(self, memory_lines: int = 5000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory_lines = memory_lines
        self.title = "no job yet"
        self.state = ""

    def compose(self) -> ComposeResult:
        yield Static(id="log-header")
        yield LogView(self.memory_lines, id="log-view")
        yield Input(placeholder="search the whole log (enter), esc closes", id="log-search",
                    classes="hidden")

    @property
    def view(self) -> LogView:
        return self.query_one(LogView)

    def on_mount(self) -> None:
        self._header()

    def follow(self, source: AsyncIterator[LineLike], title: str,
               cancel: CancelFn | None = None) -> None:
        """Show a new source from its first line (the earlier log is dropped from view)."""
        self._show(self.view.consume(source), title, cancel)

    def follow_blocks(self, source: AsyncIterator[BlockLike], title: str,
                      cancel: CancelFn | None = None) -> None:
        """As follow(), from a source of blocks of lines (a job's subscription batches)."""
        self._show(self.view.consume_blocks(source), title, cancel)

    def _show(self, consuming: Coroutine[Any, Any, None], title: str,
              cancel: CancelFn | None) -> None:
        view = self.view
        view.reset()
        view.cancel_fn = cancel
        self.title = title
        self.state = "running"
        self._header()
        self.run_worker(consuming, group="log-consume", exclusive=True, exit_on_error=False)

    def set_state(self, state: str) -> None:
        self.state = state
        self._header()

    # a service pushing lines through callbacks (StepEvent) instead of an async iterator

    def begin(self, title: str, cancel: CancelFn | None = None) -> None:
        """Start showing a new run (the earlier log is dropped from view)."""
        view = self.view
        view.reset()
        view.cancel_fn = cancel
        view.source_done = cancel is None
        self.title = title
        self.state = "running"
        self._header()

    def write(self, stream: str, text: str) -> None:
        """Queue one line; it appears at the next batched flush."""
        view = self.view
        view.pending.append((stream, text))
        if len(view.pending) >= STORE_EVERY:
            view.store_pending()

    def end(self, state: str) -> None:
        view = self.view
        view.source_done = True
        view.flush()
        self.set_state(state)

    def set_title(self, title: str) -> None:
        self.title = title
        self._header()

    def on_log_view_changed(self, event: LogView.Changed) -> None:
        event.stop()
        self._header()

    def _header(self) -> None:
        """State and counts first: the title is cut on a narrow terminal, never these."""
        view = self.view
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.state:
            text.append(f"{self.state} ", style=STATE_STYLES.get(self.state, ""))
        text.append(f"{len(view.store):,} lines", style="dim")
        text.append(" follow" if view.following else " PAUSED (f resumes)",
                    style="dim" if view.following else "bold yellow")
        if view.needle:
            text.append(f" /{view.needle}: {len(view.matches)}", style="cyan")
        errors = len(view.store.errors)
        if errors:
            text.append(f" {errors} err (e)", style="red")
        text.append(f" │ {self.title}", style="bold")
        # one row whatever it says (app.tcss): no layout of the screen for a new count
        self.query_one("#log-header", Static).update(text, layout=False)

    def on_log_view_search_asked(self, event: LogView.SearchAsked) -> None:
        event.stop()
        self.open_search()

    def open_search(self) -> None:
        box = self.query_one("#log-search", Input)
        box.remove_class("hidden")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "log-search":
            event.stop()
            event.input.add_class("hidden")
            self.view.focus()
            self.view.search(event.value.strip())

    async def action_close_search(self) -> None:
        box = self.query_one("#log-search", Input)
        if not box.has_class("hidden"):
            box.add_class("hidden")
            self.view.focus()
        else:
            await self.screen.run_action("back")

    def focus_default(self) -> None:
        self.view.focus()

    def action_maximize(self) -> None:
        """The log alone on the screen (m again or esc gives the pane back)."""
        screen = self.screen
        if screen.maximized is self:
            screen.minimize()
            return
        self.view.focus()
        screen.maximize(self, container=False)
