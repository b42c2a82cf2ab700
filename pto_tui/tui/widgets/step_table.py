"""The Run pane's table of steps: each step's state and time, as the service reports them."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from pto_tui.tui.format import STATE_STYLES


def state_text(state: str) -> Text:
    return Text(state, style=STATE_STYLES.get(state, ""))


class StepTable(DataTable[str | Text]):
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

    def mark_running(self, state: str) -> None:
        """Steps still shown running end in state (the run was cancelled or failed)."""
        for key in list(self.rows):
            if str(self.get_cell(key, "state")) == "running":
                self.update_cell(key, "state", state_text(state))
