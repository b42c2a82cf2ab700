"""What pto-tui relies on in Textual beyond its public API, checked on the installed Textual:
an upgrade that breaks one fails here, naming it, before a pane misbehaves.

- textual_seams.keyed_bindings reads a node's `_bindings` and the app's `_keymap` (`?` and
  the palette list every pane's keys, focused or not).
- RoundsPane knows its rows are drawn when DataTable.render_line runs (the Line API): the
  panes after the first are mounted only then.
"""

from __future__ import annotations

import re
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable, Static

import pto_tui.tui
from pto_tui.tui.textual_seams import keyed_bindings


class Base(Widget):
    BINDINGS = [Binding("a", "first", "First", id="seam.first")]


class Derived(Base):
    BINDINGS = [Binding("b", "second", "Second", id="seam.second")]


class SeamApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("focus stays here", id="other")
        yield Derived(id="derived")


def keys_by_id(node: Widget) -> dict[str | None, str]:
    return {binding.id: key for key, binding in keyed_bindings(node)}


async def test_keyed_bindings_hold_inherited_bindings_with_the_keymap_applied() -> None:
    app = SeamApp()
    app.set_keymap({"seam.first": "?"})
    async with app.run_test() as pilot:
        derived = app.query_one(Derived)
        assert app.focused is not derived  # an unfocused widget's keys are listed too
        keys = keys_by_id(derived)
        # the base class's binding, remapped (Textual normalises "?"), and the subclass's
        assert keys["seam.first"] == "question_mark"
        assert keys["seam.second"] == "b"
        # the keymap went into a copy: the widget's own bindings keep their keys
        app.set_keymap({})
        await pilot.pause()
        assert keys_by_id(derived)["seam.first"] == "a"


class DrawnTable(DataTable[str]):
    """Counts the lines drawn once it has rows, as RoundsTable watches for them."""

    def __init__(self) -> None:
        super().__init__()
        self.lines_with_rows = 0

    def render_line(self, y: int) -> Strip:
        if self.row_count and self.virtual_size.height > 1:
            self.lines_with_rows += 1
        return super().render_line(y)


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DrawnTable()


async def test_a_data_table_draws_its_rows_through_render_line() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(DrawnTable)
        table.add_column("n")
        for number in range(5):
            table.add_row(str(number))
        await pilot.pause()
        await pilot.pause()
        assert table.lines_with_rows > 0


# os._exit is the standard library's documented exit without clean-up, not a private name
PRIVATE = re.compile(r"(?<!self)(?<!cls)(?<!\bos)\._[a-z]|getattr\([^)]*[\"']_[a-z]")


def test_private_textual_attributes_are_read_in_textual_seams_only() -> None:
    """pto-tui's own private names are its objects' `self._x`; any other `x._y` in the
    front end would be Textual's (or another library's) and belongs in textual_seams."""
    tui = Path(pto_tui.tui.__file__).parent
    found = [
        f"{path.relative_to(tui)}:{number}: {line.strip()}"
        for path in sorted(tui.rglob("*.py")) if path.name != "textual_seams.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line.split("#")[0])
    ]
    assert found == []
