"""What pto-tui relies on in Textual beyond its public API, checked on the installed Textual:
an upgrade that breaks one fails here, naming it, before a pane misbehaves.

- textual_seams.keyed_bindings reads a node's `_bindings` and the app's `_keymap` (`?` and
  the palette list every pane's keys, focused or not).
- RoundsPane knows its rows are drawn when DataTable.render_line runs (the Line API): the
  panes after the first are mounted only then.
- textual_seams.append_rows adds many rows as add_row does, at once.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.widgets.data_table import DuplicateKey

import pto_tui.tui
from pto_tui.tui.textual_seams import append_rows, keyed_bindings


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


ROWS: list[tuple[str, list[object]]] = [
    ("0", ["plain", Text("styled", style="bold"), "wide 漢字"]),
    ("1", ["[b]markup[/b]", Text(""), "an emoji :smile: code"]),
    ("2", ["two\nlines", Text("tab\there"), "a much longer plain cell than the others"]),
    ("3", ["short"]),  # fewer cells than columns: the rest empty
    ("4", ["the widest of a", Text("the widest of b", style="red"), "the widest plain cell of c"]),
]


class TwoTables(App[None]):
    def compose(self) -> ComposeResult:
        for name in ("by-add-row", "appended"):
            table: DataTable[object] = DataTable(id=name, cursor_type="row")
            table.add_columns("a", "b", "c")
            yield table

    def on_mount(self) -> None:
        for key, cells in ROWS:
            self.query_one("#by-add-row", DataTable).add_row(*cells, key=key)
        append_rows(self.query_one("#appended", DataTable), ROWS)


async def test_append_rows_makes_the_table_add_row_makes() -> None:
    """textual_seams.append_rows writes DataTable's row maps and grows the column widths
    as add_row and its measure once idle do: the same rows, keys, widths, cursor and
    lines drawn (cells Rich must measure included: markup, emoji codes, tabs, lines)."""
    app = TwoTables()
    async with app.run_test(size=(120, 12)) as pilot:
        await pilot.pause()
        one, two = (app.query_one(f"#{name}", DataTable) for name in ("by-add-row", "appended"))
        assert two.row_count == one.row_count == len(ROWS)
        assert [two.get_row_at(i) for i in range(5)] == [one.get_row_at(i) for i in range(5)]
        assert [k.value for k in two.rows] == [k.value for k in one.rows]
        assert [c.content_width for c in two.ordered_columns] == [
            c.content_width for c in one.ordered_columns]
        assert two.virtual_size == one.virtual_size
        assert two.cursor_coordinate == one.cursor_coordinate
        assert [two.render_line(y).text for y in range(6)] == [
            one.render_line(y).text for y in range(6)]
        height = two.virtual_size.height
        append_rows(two, [("5", ["plain"]), ("6", ["rows"])])  # no cell for Rich: sized now
        assert two.virtual_size.height == height + 2
        with pytest.raises(DuplicateKey):
            append_rows(two, [("1", ["again"])])
        with pytest.raises(ValueError, match="More values"):
            append_rows(two, [("9", ["1", "2", "3", "4"])])


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
