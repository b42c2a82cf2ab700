"""The live log pane: follows any async stream of lines, stays responsive at 1M lines.

What ARCHITECTURE.md measured, applied: lines arriving are buffered and flushed a few
times a second in one batch; every line goes to a file with an offset index
(log_store.LineStore); only the visible lines are rendered, read back on demand; a
producer far ahead of the screen is held back (back-pressure through the source).
The pane works against a small protocol: an async iterator of lines with `.stream`
and `.text` (the job layer's LogLine), and an optional cancel callable.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input, Static

from pto_tui.tui.format import STATE_STYLES
from pto_tui.tui.widgets.log_store import META, STDERR, LineStore, next_index

FLUSH_INTERVAL = 0.2  # seconds: five batched flushes (and at most five redraws) a second
MAX_PENDING = 50_000  # lines waiting for a flush before the source is held back
YIELD_EVERY = 2_000  # lines read before the reader lets the UI run

STDERR_STYLE = Style(color="red")
META_STYLE = Style(dim=True, italic=True)
ERROR_STYLE = Style(color="red", bold=True)
MATCH_STYLE = Style(reverse=True)
CURRENT_STYLE = Style(reverse=True, bold=True)


class LineLike(Protocol):
    """A line the pane shows (jobs' LogLine, for one); read-only, so frozen records fit."""

    @property
    def stream(self) -> str: ...

    @property
    def text(self) -> str: ...


CancelFn = Callable[[], Awaitable[Any] | Any]


class LogView(ScrollView, can_focus=True):
    """Renders lines of a LineStore on demand (the Line API)."""

    BINDINGS = [
        Binding("f", "toggle_follow", "Follow", id="log.follow"),
        Binding("slash", "search", "Search", id="log.search"),
        Binding("n", "match(True)", "Next match", show=False, id="log.next"),
        Binding("N", "match(False)", "Prev match", show=False, id="log.prev"),
        Binding("e", "error(True)", "Next error", id="log.next_error"),
        Binding("E", "error(False)", "Prev error", show=False, id="log.prev_error"),
        Binding("x", "cancel", "Cancel job", id="log.cancel"),
        Binding("j,down", "line(1)", "Down", show=False, id="log.down"),
        Binding("k,up", "line(-1)", "Up", show=False, id="log.up"),
        Binding("g,home", "top", "Top", show=False, id="log.top"),
        Binding("G,end", "bottom", "Bottom", show=False, id="log.bottom"),
        Binding("pagedown,space", "page(1)", "Page down", show=False, id="log.page_down"),
        Binding("pageup,b", "page(-1)", "Page up", show=False, id="log.page_up"),
    ]

    class Changed(Message):
        """Line count, follow state or search state changed (the header redraws)."""

    def __init__(self, memory_lines: int = 5000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = LineStore(memory_lines)
        self.pending: list[tuple[str, str]] = []
        self.following = True
        self.needle = ""
        self.matches: list[int] = []
        self.current: int | None = None  # the line a search or error jump landed on
        self._drained = asyncio.Event()
        self._drained.set()
        self.cancel_fn: CancelFn | None = None
        self.source_done = True

    def on_mount(self) -> None:
        self.set_interval(FLUSH_INTERVAL, self.flush, name="log-flush")

    def on_unmount(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ feeding

    def reset(self) -> None:
        self.store.close()
        self.store = LineStore(self.store.tail.maxlen or 5000)
        self.pending = []
        self.matches = []
        self.current = None
        self.following = True
        self.virtual_size = Size(0, 0)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def write_lines(self, batch: list[tuple[str, str]]) -> None:
        """Queue (stream, text) lines; they appear at the next flush."""
        self.pending.extend(batch)

    async def consume(self, source: AsyncIterator[LineLike]) -> None:
        """Read a source to its end, holding it back while the screen is far behind."""
        self.source_done = False
        count = 0
        try:
            async for line in source:
                self.pending.append((line.stream, line.text))
                count += 1
                if len(self.pending) >= MAX_PENDING:
                    self._drained.clear()
                    await self._drained.wait()
                elif count % YIELD_EVERY == 0:
                    await asyncio.sleep(0)
        finally:
            self.source_done = True
            self.flush()

    def flush(self) -> None:
        """Move pending lines into the store in one batch and redraw once."""
        if not self.pending:
            self._drained.set()
            return
        batch, self.pending = self.pending, []
        start = len(self.store)
        self.store.append(batch)
        if self.needle:
            needle = self.needle.lower()
            self.matches.extend(
                start + i for i, (_s, text) in enumerate(batch) if needle in text.lower()
            )
        self.virtual_size = Size(self.store.width, len(self.store))
        if self.following:
            self.scroll_to(y=max(0, len(self.store) - self.size.height), animate=False)
        self.refresh()
        self._drained.set()
        self.post_message(self.Changed())

    # ------------------------------------------------------------ rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        if index >= len(self.store):
            return Strip.blank(width, self.rich_style)
        text = self.store.line(index)
        stream = self.store.stream(index)
        base = self.rich_style
        if stream == STDERR:
            style = base + STDERR_STYLE
        elif stream == META:
            style = base + META_STYLE
        else:
            style = base
        if index == self.current:
            style = style + CURRENT_STYLE
        segments = [Segment(text, style)]
        if self.needle and index != self.current:
            segments = self._highlight(text, style)
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.extend_cell_length(width, base)

    def _highlight(self, text: str, style: Style) -> list[Segment]:
        lowered, needle = text.lower(), self.needle.lower()
        segments: list[Segment] = []
        start = 0
        while True:
            found = lowered.find(needle, start)
            if found < 0:
                break
            segments.append(Segment(text[start:found], style))
            segments.append(Segment(text[found : found + len(needle)], style + MATCH_STYLE))
            start = found + len(needle)
        segments.append(Segment(text[start:], style))
        return segments

    # ------------------------------------------------------------ moving

    def _jump(self, index: int) -> None:
        self.current = index
        self.following = False
        self.scroll_to(y=max(0, index - self.size.height // 2), animate=False)
        self.refresh()
        self.post_message(self.Changed())

    def action_line(self, delta: int) -> None:
        self.current = None
        self.following = False
        self.scroll_relative(y=delta, animate=False)
        self.post_message(self.Changed())

    def action_page(self, direction: int) -> None:
        self.current = None
        self.following = False
        self.scroll_relative(y=direction * max(1, self.size.height - 1), animate=False)
        self.post_message(self.Changed())

    def action_top(self) -> None:
        self.current = None
        self.following = False
        self.scroll_to(y=0, animate=False)
        self.post_message(self.Changed())

    def action_bottom(self) -> None:
        self.current = None
        self.following = True
        self.scroll_to(y=max(0, len(self.store) - self.size.height), animate=False)
        self.post_message(self.Changed())

    def action_toggle_follow(self) -> None:
        if self.following:
            self.following = False
            self.post_message(self.Changed())
        else:
            self.action_bottom()

    def _from(self, forward: bool) -> int:
        """Where a jump starts: the last jump's line, else the edge of what is visible."""
        if self.current is not None:
            return self.current
        top = int(self.scroll_offset.y)
        return top - 1 if forward else top + self.size.height

    def action_match(self, forward: bool) -> None:
        index = next_index(self.matches, self._from(forward), forward)
        if index is None:
            self.app.notify(f"no line matches {self.needle!r}" if self.needle
                            else "search first with /", title="log")
            return
        self._jump(index)

    def action_error(self, forward: bool) -> None:
        index = next_index(self.store.errors, self._from(forward), forward)
        if index is None:
            self.app.notify("no stderr or error line", title="log")
            return
        self._jump(index)

    def action_search(self) -> None:
        self.query_ancestor(LogPane).open_search()

    @work(exclusive=True, group="log-search", exit_on_error=False)
    async def search(self, needle: str) -> None:
        self.needle = needle
        self.flush()  # the scan sees every line so far; later ones are matched at flush
        found = await asyncio.to_thread(self.store.find_all, needle)
        self.matches = found
        self.current = None
        self.refresh()
        self.post_message(self.Changed())
        if found:
            self.action_match(True)

    async def action_cancel(self) -> None:
        if self.cancel_fn is None or self.source_done:
            self.app.notify("no running job to cancel", title="log")
            return
        self.app.notify("cancelling the job…", title="log")
        result = self.cancel_fn()
        if inspect.isawaitable(result):
            await result


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
        view = self.view
        view.reset()
        view.cancel_fn = cancel
        self.title = title
        self.state = "running"
        self._header()
        self.run_worker(view.consume(source), group="log-consume", exclusive=True,
                        exit_on_error=False)

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
        self.view.pending.append((stream, text))

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
        self.query_one("#log-header", Static).update(text)

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
            await self.screen.run_action("home")

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
