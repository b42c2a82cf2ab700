"""Pane 2: the iteration table, for reviewing a campaign from the keyboard."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Input, Static

from pto_tui.core.rounds.durations import duration_unit
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import format_tflops, timing_text
from pto_tui.tui.format import (
    iter_name,
    marked_verdict,
    ratio,
    speed,
    verdict_text,
    verdict_word,
)
from pto_tui.tui.messages import OpenRound, ProjectChanged, ShowPane
from pto_tui.tui.session import Session, Snapshot
from pto_tui.tui.widgets.frontier_plot import FrontierPlot, PlotPoint

COLUMNS = ("", "", "iter", "verdict", "duration", "TFLOPS", "x init", "x torch", "hypothesis",
           "class", "phase")
COMPARE_MARK = "▶"
PIN_MARK = "◆"
FRONTIER_NOW = "★"
FRONTIER_STEP = "↑"
RERUN_MARK = "↻"
# one line under the table: every mark it shows (marks, not colours: NO_COLOR keeps them);
# the tampered and simulated marks only when a round has them (80 columns hold the rest)
LEGEND = (
    (FRONTIER_STEP, "frontier step"), (FRONTIER_NOW, "frontier"), ("*", "amended"),
    (COMPARE_MARK, "marked"), (PIN_MARK, "reference"),
)
TAMPERED_LEGEND = ("!", "tampered")
SIMULATED_LEGEND = ("(sim)", "simulated")
RERUN_LEGEND = (RERUN_MARK, "rerun")


def legend_text(tampered: bool = False, simulated: bool = False, rerun: bool = False) -> Text:
    items = [*LEGEND, *([TAMPERED_LEGEND] if tampered else []),
             *([SIMULATED_LEGEND] if simulated else []), *([RERUN_LEGEND] if rerun else [])]
    text = Text(no_wrap=True, overflow="ellipsis")
    for mark, meaning in items:
        text.append(mark, style="bold")
        text.append(f" {meaning}  ", style="dim")
    text.rstrip()
    return text


SORTS: tuple[tuple[str, Callable[[Round], object]], ...] = (
    ("iter", lambda r: r.number),
    ("duration", lambda r: (r.measurement.median_us is None, r.measurement.median_us or 0.0)),
    ("verdict", verdict_word),
    ("class", lambda r: r.pre_edit.bottleneck),
    ("phase", lambda r: r.phase),
)


def hypothesis_cell(record: Round, limit: int = 40) -> str:
    """The short hypothesis; a rerun names the round it measures again first (its title
    already does: "rerun of iter-002: …"; the mark says it without reading)."""
    if record.rerun_of is None:
        return record.short_hypothesis(limit)
    return f"{RERUN_MARK} {record.short_hypothesis(limit - 2)}"


def matches(record: Round, query: str) -> bool:
    """Filter terms, all must hold: `verdict:kept`, `class:tile`, `phase:fine`, or free text."""
    for term in query.lower().split():
        field, sep, value = term.partition(":")
        if sep and field in ("verdict", "v"):
            if not verdict_word(record).startswith(value):
                return False
        elif sep and field in ("class", "c"):
            if value not in record.pre_edit.bottleneck.lower():
                return False
        elif sep and field in ("phase", "p"):
            if value not in record.phase.lower():
                return False
        else:
            haystack = " ".join(
                (record.title, record.pre_edit.hypothesis, record.pre_edit.bottleneck,
                 verdict_word(record), record.phase, record.verdict_reason, str(record.number))
            ).lower()
            if term not in haystack:
                return False
    return True


class RoundsPane(Vertical):
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

    def __init__(self, session: Session, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.snapshot: Snapshot | None = None
        self.sort_index = 0
        self.descending = False
        self.marked: list[int] = []
        self.pinned: int | None = None  # the reference `c` compares the cursor round with
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: verdict:kept class:tile phase:fine or text  (esc clears)",
                    id="rounds-filter", classes="hidden")
        table: DataTable[str | Text] = DataTable(id="rounds-table", cursor_type="row")
        table.add_columns(*COLUMNS)
        yield table
        yield Static(legend_text(), id="rounds-legend")
        yield FrontierPlot(id="rounds-plot", classes="hidden")
        yield Static(id="rounds-counts")

    def focus_default(self) -> None:
        self.query_one("#rounds-table").focus()

    @property
    def table(self) -> DataTable[str | Text]:
        return self.query_one("#rounds-table", DataTable)

    def refresh_from(self, snap: Snapshot) -> None:
        self.snapshot = snap
        self._fill()
        self.query_one("#rounds-plot", FrontierPlot).set_points(self._points(snap))

    def _points(self, snap: Snapshot) -> list[PlotPoint]:
        base = snap.status.baseline_us
        return [
            PlotPoint(r.number, ratio(base, r.measurement.median_us), verdict_word(r))
            for r in sorted(snap.rounds, key=lambda r: r.number)
        ]

    def visible_rounds(self) -> list[Round]:
        if self.snapshot is None:
            return []
        rows = [r for r in self.snapshot.rounds if matches(r, self.query_text)]
        _name, key = SORTS[self.sort_index]
        return sorted(rows, key=key, reverse=self.descending)  # type: ignore[arg-type]

    def _fill(self) -> None:
        snap = self.snapshot
        if snap is None:
            return
        table = self.table
        keep = table.cursor_row
        current_key = None
        if table.row_count:
            current_key = table.coordinate_to_cell_key(Coordinate(keep, 0)).row_key.value
        table.clear()
        st = snap.status
        torch_us = st.torch.avg_us if st.torch else None
        steps = {r.number for r in snap.rounds
                 if r.is_closed and (r.is_baseline or verdict_word(r) == "kept")}
        rows = self.visible_rounds()
        # one unit for the column, from all rounds (a filter does not change it)
        unit = duration_unit([r.measurement.median_us for r in snap.rounds])
        for r in rows:
            median = r.measurement.median_us
            front = FRONTIER_NOW if r.number == st.frontier_round else (
                FRONTIER_STEP if r.number in steps else "")
            table.add_row(
                self._mark_cell(r.number),
                Text(front, style="dark_orange"),
                str(r.number),
                _verdict_cell(r),
                timing_text(median, r.simulated, unit),
                format_tflops(r.measurement.tflops),
                speed(ratio(st.baseline_us, median)),
                speed(ratio(torch_us, median)),
                hypothesis_cell(r),
                r.pre_edit.bottleneck or "-",
                r.phase or "-",
                key=str(r.number),
            )
        if current_key is not None and current_key in {str(r.number) for r in rows}:
            table.move_cursor(row=table.get_row_index(current_key), animate=False)
        self._counts(len(rows))
        self.query_one("#rounds-legend", Static).update(legend_text(
            any(r.tampered for r in snap.rounds), any(r.simulated for r in snap.rounds),
            any(r.rerun_of is not None for r in snap.rounds)))

    def _mark_cell(self, number: int) -> Text:
        text = Text()
        if number == self.pinned:
            text.append(PIN_MARK, style="bold magenta")
        if number in self.marked:
            text.append(COMPARE_MARK, style="bold cyan")
        return text

    def _counts(self, shown: int) -> None:
        snap = self.snapshot
        if snap is None:
            return
        st = snap.status
        text = Text()
        for verdict, count in st.counts.items():
            text.append(f"{marked_verdict(verdict)} {count}", style=verdict_text_style(verdict))
            text.append("  ")
        text.append(f"│ {shown}/{len(snap.rounds)} shown, sort {SORTS[self.sort_index][0]}"
                    + (" desc" if self.descending else ""), style="dim")
        if self.query_text:
            text.append(f", filter '{self.query_text}'", style="dim")
        if self.marked:
            text.append("  marked " + " ".join(iter_name(n) for n in self.marked), style="cyan")
        if self.pinned is not None:
            text.append(f"  reference {iter_name(self.pinned)}", style="magenta")
        self.query_one("#rounds-counts", Static).update(text)

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
            table.move_cursor(row=max(0, table.row_count - 1), animate=False)

    def action_filter(self) -> None:
        box = self.query_one("#rounds-filter", Input)
        box.remove_class("hidden")
        box.focus()

    async def action_clear_filter(self) -> None:
        box = self.query_one("#rounds-filter", Input)
        if box.has_class("hidden") and not self.query_text:
            # this binding shadows the screen's esc: with no filter to clear, pass it on
            await self.screen.run_action("home")
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
            self.marked = [*self.marked, number][-2:]  # two rounds at most: the oldest goes
        self._fill()

    def action_pin(self) -> None:
        """P: the cursor round becomes the reference (P on it again unpins)."""
        number = self.selected()
        if number is None:
            return
        self.pinned = None if number == self.pinned else number
        self._fill()

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

        if self.snapshot is None:
            return
        pair = self.compare_pair()
        if pair is None:
            self.app.notify("pin a reference with P (or mark two rounds with space), "
                            "then put the cursor on another round", title="compare")
            return
        a, b = self.snapshot.round(pair[0]), self.snapshot.round(pair[1])
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
        record = self.snapshot.round(number) if self.snapshot and number is not None else None
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


def _verdict_cell(record: Round) -> Text:
    """The verdict, with a visible mark when the closed record was changed by hand (the
    round is shown and counted as it was closed)."""
    text = verdict_text(record)
    if record.tampered:
        text.append(" !tampered", style="bold red")
    return text


def verdict_text_style(verdict: str) -> str:
    from pto_tui.tui.format import VERDICT_STYLES

    return VERDICT_STYLES.get(verdict, "")
