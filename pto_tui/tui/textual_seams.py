"""The one place pto-tui reads Textual's private attributes, each where Textual's public
API has nothing for what pto-tui needs. tests/tui/test_textual_seams.py checks that each
still holds what the wrapper relies on, so a Textual upgrade that breaks one fails there
rather than in a pane. It also checks the one public method used for more than Textual
promises: RoundsTable.render_line (rounds_table.py) tells when the rows are drawn.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import zip_longest
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import DataTable
from textual.widgets.data_table import DuplicateKey, Row, RowKey


def keyed_bindings(node: DOMNode) -> list[tuple[str, Binding]]:
    """Every binding of a node as (key, binding): its class's, its bases' and any bound
    since, with the app's keymap (keys.toml) applied as Textual applies it to the focused
    widgets.

    Private because Textual's public `active_bindings` holds only the bindings of the
    focused widget and its ancestors, while `?` and the palette list every pane's, focused
    or not. Reads the node's `_bindings` (a BindingsMap, copied so the node keeps its own)
    and the app's `_keymap` (what `set_keymap` stored, keys normalised: "?" is
    "question_mark")."""
    bindings = node._bindings.copy()
    keymap = node.app._keymap
    if keymap:
        bindings.apply_keymap(keymap)
    return list(bindings)


def append_rows(table: DataTable[Any], rows: Iterable[tuple[str, list[Any]]]) -> None:
    """Add rows (key, cells) of one line each at the table's bottom, as add_row would one
    by one, with the cursor checked once for all of them and the columns grown to fit
    the plain one-line cells (nearly all) as their text's length; DataTable measures the
    others through Rich as usual (markup, emoji codes, several lines).

    Private because DataTable.add_row sets its cursor reactive (and so runs its watcher)
    and orders the columns again for every row, then measures every new cell through Rich
    once idle: seconds for 10,000 rows, paid while a person waits on `G`. Writes
    `_row_locations`, `_data`, `rows`, `_new_rows` (the rows left for Rich to measure),
    `_require_update_dimensions`, `_update_count` and Column.content_width as add_row and
    `_update_dimensions` do; with no cell left for Rich, calls `_update_dimensions` with no
    rows (the virtual size from the widths) at once: a cursor moved to a new row then
    scrolls to it in the next frame, not the one after (DataTable waits a refresh)."""
    columns = table.ordered_columns
    keys = [column.key for column in columns]
    widths = [column.content_width for column in columns]
    locations, data, metadata = table._row_locations, table._data, table.rows
    first = index = len(metadata)
    for key, cells in rows:
        row_key = RowKey(key)
        if row_key in locations:
            raise DuplicateKey(f"The row key {row_key!r} already exists.")
        if len(cells) > len(keys):
            raise ValueError("More values provided than there are columns.")
        locations[row_key] = index
        data[row_key] = dict(zip_longest(keys, cells))
        metadata[row_key] = Row(row_key, 1, None, False)
        index += 1
        found = _plain_widths(cells)
        if found is None:
            table._new_rows.add(row_key)
        else:
            widths = [max(a, b) for a, b in zip_longest(widths, found, fillvalue=0)]
    if index == first:
        return
    for column, width in zip(columns, widths, strict=True):
        column.content_width = width
    table._update_count += 1  # before the size: the rows' offsets are cached by it
    if table._new_rows:  # cells for Rich to measure: once idle, as after add_row
        table._require_update_dimensions = True
    else:  # the size now: a cursor moved next scrolls at once
        table._update_dimensions(())
        table.refresh()
    table.cursor_coordinate = table.cursor_coordinate
    if first == 0 and keys and table.show_cursor and table.cursor_type != "none":
        table._highlight_cursor()  # a cell to highlight where there was none
    table.check_idle()


def _plain_widths(cells: list[Any]) -> list[int] | None:
    """The cells' widths, None when one of them is not one line of plain text."""
    widths = []
    for cell in cells:
        width = _plain_width(cell)
        if width is None:
            return None
        widths.append(width)
    return widths


def _plain_width(cell: object) -> int | None:
    """A cell's width as DataTable would measure it, when it is one line of plain text."""
    if isinstance(cell, str):
        if "[" in cell or ":" in cell:  # markup or an emoji code: Rich's measure
            return None
        text = cell
    elif isinstance(cell, Text):
        text = cell.plain
    else:
        return 0 if cell is None else None
    if text.isascii():
        return len(text) if text.isprintable() else None  # a line break or a tab: Rich's
    return None if "\n" in text or "\t" in text or "\r" in text else cell_len(text)
