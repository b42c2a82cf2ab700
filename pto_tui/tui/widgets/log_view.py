"""The view of the live log pane: follows any async stream of lines, stays responsive at 1M lines.

What docs/architecture.md §7 measured, applied: lines arriving are stored in batches of
thousands, each a few milliseconds of work, into a file with an offset index
(log_store.LineStore), and the screen is redrawn a few times a second; only the visible
lines are rendered, read back on demand. The reader pulls from its source only as fast
as it stores, so a job's bounded subscription holds a faster producer back.
The pane works against a small protocol: an async iterator of lines with `.stream`
and `.text` (the job layer's LogLine), and an optional cancel callable.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from itertools import repeat
from typing import Any, Protocol

from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pto_tui.tui.widgets.log_store import META, STDERR, LineStore, next_index

FLUSH_INTERVAL = 0.2  # seconds: at most five redraws a second
STORE_EVERY = 10_000  # lines read before they go to the store (a few ms of work at once)
YIELD_EVERY = 500  # lines read before the reader lets the UI run (a key waits no longer)

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


class BlockLike(Protocol):
    """Lines of one stream that came together (jobs' subscription Batch, for one)."""

    @property
    def stream(self) -> str: ...

    @property
    def texts(self) -> Sequence[str]: ...


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

    class SearchAsked(Message):
        """`/` was pressed: the LogPane around the view opens its search box."""

    def __init__(self, memory_lines: int = 5000, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = LineStore(memory_lines)
        self.pending: list[tuple[str, str]] = []
        self.following = True
        self.needle = ""
        self.matches: list[int] = []
        self.current: int | None = None  # the line a search or error jump landed on
        self.cancel_fn: CancelFn | None = None
        self.source_done = True
        self._stored = False  # lines stored since the last redraw

    def on_mount(self) -> None:
        self.set_interval(FLUSH_INTERVAL, self.flush, name="log-flush")

    def hidden(self) -> bool:
        """Whether the view or a container of it is not displayed (a pane not shown)."""
        return any(not node.display for node in self.ancestors_with_self)

    def on_show(self) -> None:
        self.flush()  # what arrived while hidden

    def on_resize(self) -> None:
        if self.following:  # the pane grew or shrank (a run began): still the newest lines
            self._to_end()

    def _to_end(self) -> None:
        """The newest lines, once laid out. Forced: Textual refuses a scroll while the
        scrollbar is not shown yet, which it may not be right after new lines."""
        self.scroll_end(animate=False, x_axis=False, force=True)

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        if not shown:
            return
        if self.following:  # the lines outgrew the pane: a scroll made just before is redone
            self.scroll_to(y=self.max_scroll_y, animate=False, force=True, immediate=True)
        # Textual moves the thumb only while the bar shows: set it to where the view is
        self.vertical_scrollbar.position = self.scroll_y

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
                if count % YIELD_EVERY == 0:
                    await self._took()
        finally:
            self.source_done = True
            self.flush()

    async def consume_blocks(self, source: AsyncIterator[BlockLike]) -> None:
        """As consume(), from a source of blocks of lines (a job's subscription batches)."""
        self.source_done = False
        try:
            async for block in source:
                self.pending.extend(zip(repeat(block.stream), block.texts))
                await self._took()
        finally:
            self.source_done = True
            self.flush()

    async def _took(self) -> None:
        """After lines were read: into the store when many wait, then let the UI run."""
        if len(self.pending) >= STORE_EVERY:
            self.store_pending()
        await asyncio.sleep(0)

    def store_pending(self) -> bool:
        """Move pending lines into the store in one batch (no redraw); False when none."""
        if not self.pending:
            return False
        batch, self.pending = self.pending, []
        start = len(self.store)
        self.store.append(batch)
        if self.needle:
            needle = self.needle.lower()
            self.matches.extend(
                start + i for i, (_s, text) in enumerate(batch) if needle in text.lower()
            )
        self._stored = True
        return True

    def flush(self) -> None:
        """Store what is pending and redraw once (when anything arrived since the last).
        Not while the view is hidden (its pane not shown): a new size lays the whole
        screen out again, five times a second, under the keys typed in another pane; it is
        redrawn when shown."""
        self.store_pending()
        if not self._stored or self.hidden():
            return
        self._stored = False
        self.virtual_size = Size(self.store.width, len(self.store))
        if self.following:
            self._to_end()
        self.refresh()
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
        self._to_end()
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
        self.post_message(self.SearchAsked())

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
