"""Pane 2: the iteration table, for reviewing a campaign from the keyboard."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from pto_tui.core.rounds.prediction import predicts
from pto_tui.core.rounds.records import Round
from pto_tui.tui.format import ratio, verdict_word
from pto_tui.tui.messages import OpenRound, ProjectChanged, ShowPane
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.widgets.frontier_plot import FrontierPlot, PlotPoint
from pto_tui.tui.widgets.pane import ProjectPane
from pto_tui.tui.widgets.rounds_rows import (
    COLUMNS,
    COMPARE_MARK,
    PIN_MARK,
    SORTS,
    PreparedCells,
    columns_for,
    counts_text,
    legend_text,
    matches,
    prepare_cells,
    row_cells,
)
from pto_tui.tui.widgets.rounds_table import RoundsTable

FIRST_ROWS = 100  # rows in the table's first frame (more than a tall terminal shows)
MORE_ROWS = 1000  # rows added after each refresh (each chunk redraws the table once)
MARK_COLUMN = "mark"  # the key of the marks' column: a mark redraws that cell alone
NO_MARK = Text()  # the marks' cell of nearly every row: one for them all (never changed)


class RoundsPane(Vertical, ProjectPane):
    class Filled(Message):
        """Every row of a fill is in the table and drawn."""

    DEFAULT_CSS = """
    #rounds-legend { height: 1; }
    """
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="rounds.filter"),
        Binding("s", "sort", "Sort", id="rounds.sort"),
        Binding("S", "reverse", "Reverse", show=False, id="rounds.reverse"),
        Binding("space", "mark", "Mark", id="rounds.mark"),
        Binding("P", "pin", "Pin reference", show=False, id="rounds.pin"),
        Binding("c", "compare", "Compare", id="rounds.compare"),
        Binding("p", "plot", "Plot", id="rounds.plot"),
        Binding("D", "what_changed", "What changed", show=False, id="rounds.what_changed"),
        Binding("u", "rerun", "Rerun", show=False, id="rounds.rerun"),
        Binding("enter", "open", "Open", show=False, id="rounds.open"),
        Binding("j", "cursor('down')", "Down", show=False, id="rounds.down"),
        Binding("k", "cursor('up')", "Up", show=False, id="rounds.up"),
        Binding("g", "cursor('top')", "Top", show=False, id="rounds.top"),
        Binding("G", "cursor('bottom')", "Bottom", show=False, id="rounds.bottom"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="rounds.clear"),
    ]

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.sort_index = 0
        self.descending = False
        self.marked: list[int] = []
        self.pinned: int | None = None  # the reference `c` compares the cursor round with
        self.query_text = ""
        self._generation = 0  # of the table's fill; a newer one stops an older one
        self._fill_size = 0  # rows in the last fill, when every one is in
        self._after_drawn: Callable[[], object] | None = None  # the fill's next step
        self.drawn = False  # every row of the last fill is in the table and on the screen
        self.predicting = False  # the table shows the prediction's column ([target] predict)
        self._prepared: PreparedCells | None = None  # the cells of a load, made off the loop

    def prepare(self, loaded: LoadedProject) -> None:
        """Make the table's cells for a load (blocking: call from the loading thread)."""
        self._prepared = prepare_cells(loaded)

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: verdict:kept class:tile phase:fine or text  (esc clears)",
                    id="rounds-filter", classes="hidden")
        table = RoundsTable(id="rounds-table", cursor_type="row")
        table.add_column(COLUMNS[0], key=MARK_COLUMN)
        table.add_columns(*COLUMNS[1:])
        yield table
        yield Static(legend_text(), id="rounds-legend")
        yield FrontierPlot(id="rounds-plot", classes="hidden")
        yield Static(id="rounds-counts")

    def focus_default(self) -> None:
        self.query_one("#rounds-table").focus()

    @property
    def table(self) -> RoundsTable:
        return self.query_one("#rounds-table", RoundsTable)

    def show_loaded(self, loaded: LoadedProject) -> None:
        self._fill()
        self.query_one("#rounds-plot", FrontierPlot).set_points(self._points(loaded))

    def _points(self, loaded: LoadedProject) -> list[PlotPoint]:
        base = loaded.status.baseline_us
        return [
            PlotPoint(r.number, ratio(base, r.measurement.median_us), verdict_word(r))
            for r in sorted(loaded.rounds, key=lambda r: r.number)
        ]

    def visible_rounds(self) -> list[Round]:
        if self.loaded is None:
            return []
        rows = [r for r in self.loaded.rounds if matches(r, self.query_text)]
        _name, key = SORTS[self.sort_index]
        return sorted(rows, key=key, reverse=self.descending)  # type: ignore[arg-type]

    def _fill(self) -> None:
        """Rebuild the table: the first rows at once (the first frame), the rest after it."""
        loaded = self.loaded
        if loaded is None:
            return
        table = self.table
        current_key = None
        if table.row_count:
            current_key = table.coordinate_to_cell_key(
                Coordinate(table.cursor_row, 0)).row_key.value
        table.clear()
        self._columns(any(predicts(r.measurement) for r in loaded.rounds))
        self.drawn = False
        self._generation += 1
        rows = self.visible_rounds()
        self._fill_size = len(rows)
        cells = row_cells(loaded, self.predicting, self._mark_cell, self._prepared)
        self._add_rows(rows, 0, cells, current_key, self._generation)
        self._counts(len(rows))
        self.query_one("#rounds-legend", Static).update(legend_text(
            bool(loaded.status.tampered), any(r.simulated for r in loaded.rounds),
            any(r.rerun_of is not None for r in loaded.rounds)))

    def _columns(self, predicting: bool) -> None:
        """The table's columns, with the prediction's when the project predicts."""
        wanted = columns_for(predicting)
        table = self.table
        if tuple(str(column.label) for column in table.ordered_columns) == wanted:
            return
        table.clear(columns=True)
        table.add_column(wanted[0], key=MARK_COLUMN)
        table.add_columns(*wanted[1:])
        self.predicting = predicting

    def _add_rows(self, rows: list[Round], first: int, cells: Callable[[Round], list[str | Text]],
                  current_key: str | None, generation: int, rest: bool = False) -> None:
        """Rows from `first` on: a chunk now, the next once the table has drawn this one
        (every one left with `rest`); a newer fill (sort, filter, reload) stops an older one."""
        if generation != self._generation:
            return
        table = self.table
        chunk = len(rows) if rest else FIRST_ROWS if first == 0 else MORE_ROWS
        batch = rows[first:first + chunk]
        table.append_rows((str(r.number), cells(r)) for r in batch)
        if current_key is not None and any(r.number == int(current_key) for r in batch):
            table.move_cursor(row=table.get_row_index(current_key), animate=False)
        if first + chunk < len(rows):
            self._after_drawn = partial(self._add_rows, rows, first + chunk, cells, current_key,
                                        generation)
        else:
            self._after_drawn = self._filled
        table.tell_when_drawn()

    def _add_the_rest(self) -> None:
        """Every row of the fill still to come, now (G while the table fills)."""
        then = self._after_drawn
        if isinstance(then, partial) and then.func == self._add_rows:
            self._after_drawn = None
            then(rest=True)

    def _filled(self) -> None:
        # DataTable keys its cell cache without the column width: a cell drawn before the
        # widths took in the new rows would keep its cut-off rendering; drop those once
        self.table.notify_style_update()
        self.drawn = True
        self.post_message(self.Filled())

    def on_rounds_table_drawn(self, event: RoundsTable.Drawn) -> None:
        event.stop()
        then, self._after_drawn = self._after_drawn, None
        if then is not None:
            then()

    @property
    def filling(self) -> bool:
        """Rows of the last fill are still to come."""
        return self.table.row_count < self._fill_size

    def _mark_cell(self, number: int) -> Text:
        if number != self.pinned and number not in self.marked:
            return NO_MARK
        text = Text()
        if number == self.pinned:
            text.append(PIN_MARK, style="bold magenta")
        if number in self.marked:
            text.append(COMPARE_MARK, style="bold cyan")
        return text

    def _counts(self, shown: int) -> None:
        loaded = self.loaded
        if loaded is None:
            return
        sort = SORTS[self.sort_index][0] + (" desc" if self.descending else "")
        self.query_one("#rounds-counts", Static).update(counts_text(
            loaded.status.counts, shown, len(loaded.rounds), sort, self.query_text,
            self.marked, self.pinned))

    # ------------------------------------------------------------ actions

    def selected(self) -> int | None:
        table = self.table
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        return int(key) if key is not None else None

    def action_cursor(self, where: str) -> None:
        table = self.table
        if where == "down":
            table.action_cursor_down()
        elif where == "up":
            table.action_cursor_up()
        elif where == "top":
            table.move_cursor(row=0, animate=False)
        else:
            self._add_the_rest()  # the last round, not the last one added so far
            table.move_cursor(row=max(0, table.row_count - 1), animate=False)

    def action_filter(self) -> None:
        box = self.query_one("#rounds-filter", Input)
        box.remove_class("hidden")
        box.focus()

    async def action_clear_filter(self) -> None:
        box = self.query_one("#rounds-filter", Input)
        if box.has_class("hidden") and not self.query_text:
            # this binding shadows the screen's esc: with no filter to clear, pass it on
            await self.screen.run_action("back")
            return
        box.value = ""
        box.add_class("hidden")
        self.query_text = ""
        self._fill()
        self.table.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "rounds-filter":
            self.query_text = event.value.strip()
            self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "rounds-filter":
            event.stop()
            if not self.query_text:
                event.input.add_class("hidden")
            self.table.focus()

    def action_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(SORTS)
        self._fill()

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self._fill()

    def action_mark(self) -> None:
        number = self.selected()
        if number is None:
            return
        if number in self.marked:
            self.marked.remove(number)
        else:
            before = self.marked
            self.marked = [*self.marked, number][-2:]  # two rounds at most: the oldest goes
            self._redraw_marks(set(before) - set(self.marked))
        self._redraw_marks({number})

    def action_pin(self) -> None:
        """P: the cursor round becomes the reference (P on it again unpins)."""
        number = self.selected()
        if number is None:
            return
        before = self.pinned
        self.pinned = None if number == self.pinned else number
        self._redraw_marks({number} | ({before} if before is not None else set()))

    def _redraw_marks(self, numbers: set[int]) -> None:
        """The mark cells of these rounds, and the counts line (not the whole table)."""
        table = self.table
        for number in numbers:
            key = str(number)
            if key in table.rows:
                table.update_cell(key, MARK_COLUMN, self._mark_cell(number), update_width=True)
        self._counts(self._fill_size)

    def compare_pair(self) -> tuple[int, int, bool] | None:
        """(a, b, a is the pinned reference): two marked rounds, else the reference and
        the cursor round, else one marked round and the cursor round."""
        current = self.selected()
        if len(self.marked) == 2:
            a, b = sorted(self.marked)
            return a, b, False
        if self.pinned is not None and current is not None and current != self.pinned:
            return self.pinned, current, True
        if len(self.marked) == 1 and current is not None and current not in self.marked:
            a, b = sorted([self.marked[0], current])
            return a, b, False
        return None

    def action_compare(self) -> None:
        from pto_tui.tui.screens.compare import CompareScreen

        if self.loaded is None:
            return
        pair = self.compare_pair()
        if pair is None:
            self.app.notify("pin a reference with P (or mark two rounds with space), "
                            "then put the cursor on another round", title="compare")
            return
        a, b = self.loaded.round(pair[0]), self.loaded.round(pair[1])
        if a is not None and b is not None:
            self.app.push_screen(CompareScreen(a, b, pinned=pair[2]))

    def action_what_changed(self) -> None:
        from pto_tui.tui.screens.what_changed import WhatChangedScreen

        number = self.selected()
        if number is not None:
            self.app.push_screen(WhatChangedScreen(self.session, number))

    def action_rerun(self) -> None:
        """u: the cursor round measured again as a new round (asked first)."""
        from pto_tui.tui.screens.rerun import ask_rerun

        number = self.selected()
        record = self.loaded.round(number) if self.loaded and number is not None else None
        if record is None:
            return

        def started(_record: Round) -> None:
            self.post_message(ProjectChanged("rerun"))
            self.post_message(ShowPane("run"))

        ask_rerun(self, self.session, record, started)

    def action_plot(self) -> None:
        self.query_one("#rounds-plot").toggle_class("hidden")

    def action_open(self) -> None:
        number = self.selected()
        if number is not None:
            self.post_message(OpenRound(number))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(OpenRound(int(event.row_key.value)))
