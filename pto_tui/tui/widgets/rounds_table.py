"""The iteration table's widget: a DataTable that says when a fill of it is drawn and takes
many rows at once (a campaign of thousands of rounds fills it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.strip import Strip
from textual.widgets import DataTable

from pto_tui.tui.textual_seams import append_rows


class RoundsTable(DataTable[str | Text]):
    """The iteration table; says once when a fill of it is first drawn."""

    class Drawn(Message):
        """The table's rows are on the screen (posted after the frame that drew them)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._tell = False

    def tell_when_drawn(self) -> None:
        self._tell = True

    def render_line(self, y: int) -> Strip:
        # drawn once the rows are laid out (until then only the header is)
        if self._tell and (self.row_count == 0 or self.virtual_size.height > 1):
            self._tell = False
            self.call_after_refresh(self.post_message, self.Drawn())
        return super().render_line(y)

    def append_rows(self, rows: Iterable[tuple[str, list[str | Text]]]) -> None:
        """Rows (key, cells) at the bottom, as add_row would add them, at once: 10,000
        rows in a fraction of a second."""
        append_rows(self, rows)
