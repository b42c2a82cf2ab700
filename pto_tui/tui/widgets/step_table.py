"""The Run pane's table of steps: each step's state and time, as the service reports them."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from pto_tui.backends.silence import Silent
from pto_tui.tui.format import STATE_STYLES


def state_text(state: str) -> Text:
    return Text(state, style=STATE_STYLES.get(state, ""))


class StepTable(DataTable[str | Text]):
    silent_step = ""  # the step whose row says it prints nothing

    def on_mount(self) -> None:
        for column in ("step", "state", "time"):
            self.add_column(column, key=column)

    def started(self, step: str) -> None:
        if step in self.rows:
            self.update_cell(step, "state", state_text("running"))
        else:
            self.add_row(step, state_text("running"), "", key=step)
        self.move_cursor(row=self.get_row_index(step))

    def finished(self, step: str, state: str, took: float) -> None:
        if step not in self.rows:
            self.add_row(step, "", "", key=step)
        self.update_cell(step, "state", state_text(state), update_width=True)
        self.update_cell(step, "time", f"{took:.1f}s", update_width=True)

    def note(self, step: str, note: str) -> None:
        """A running step's state with a note after it ("running · no output for 45 s");
        "" takes the note away."""
        if step not in self.rows or not self._shown_running(step):
            return
        text = state_text("running")
        if note:
            text.append(f" · {note}", style="yellow")
        self.update_cell(step, "state", text, update_width=True)

    def show_silence(self, quiet: Silent | None) -> None:
        """The running step's row says how long it has printed nothing (`quiet`); the note
        goes when there is no silent step, or another one."""
        if self.silent_step and (quiet is None or quiet.step != self.silent_step):
            self.note(self.silent_step, "")
            self.silent_step = ""
        if quiet is not None:
            self.note(quiet.step, quiet.text)
            self.silent_step = quiet.step

    def _shown_running(self, key: RowKey | str) -> bool:
        return str(self.get_cell(key, "state")).startswith("running")

    def mark_running(self, state: str) -> None:
        """Steps still shown running end in state (the run was cancelled or failed)."""
        for key in list(self.rows):
            if self._shown_running(key):
                self.update_cell(key, "state", state_text(state))
