"""The Run pane's table of steps: each step's state and time, as the service reports them,
and how long the running step has printed nothing."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from pto_tui.backends.silence import Silence, Silent
from pto_tui.tui.format import STATE_STYLES

# seconds a running step prints nothing before its row says so ("no output for 30 s")
SILENCE_AFTER = 30.0


def state_text(state: str) -> Text:
    return Text(state, style=STATE_STYLES.get(state, ""))


class StepTable(DataTable[str | Text]):
    silent_step = ""  # the step whose row says it prints nothing
    silence_after = SILENCE_AFTER

    def on_mount(self) -> None:
        for column in ("step", "state", "time"):
            self.add_column(column, key=column)
        self.silence = Silence()  # the running step's silence, shown after silence_after s
        self._started: dict[str, float] = {}
        self._queued: dict[str, Any] = {}  # steps waiting in a scheduler's queue: their JobRecord
        self.set_interval(1.0, self.tick)

    def begin(self) -> None:
        """A new run: no step, and none left running by a cancelled run."""
        self.clear()
        self._started.clear()
        self._queued.clear()
        self.silence = Silence()

    def see(self, event: Any) -> str:  # StepEvent (backends are imported lazily)
        """The service's event on its step's row; the line to put in the log for it
        ("── build", "── build: succeeded in 3.1s"), "" for none."""
        self.silence.see(event)
        if event.kind == "line" and event.record is not None:
            self.queue(event.step, event.record)  # where its job is in a scheduler's queue
        elif event.kind == "line" and self.silent_step:
            self.tick()  # it printed: the note goes at once
        now = time.monotonic()
        if event.kind == "started":
            self._started[event.step] = now
            self.started(event.step)
            return f"── {event.step}"
        if event.kind == "finished":
            self._queued.pop(event.step, None)
            state = event.record.state.value if event.record is not None else "done"
            took = now - self._started.get(event.step, now)
            self.finished(event.step, state, took)
            return f"── {event.step}: {state} in {took:.1f}s"
        return ""

    def tick(self) -> None:
        for step, record in self._queued.items():
            self._show_pending(step, record)
        quiet = self.silence.silent(self.silence_after)
        self.show_silence(None if quiet is not None and quiet.step in self._queued else quiet)

    def queue(self, step: str, record: Any) -> None:
        """A step whose job waits in a scheduler's queue reads "pending (Resources) 2m 10s"
        (updated each second); once it runs, "running" again."""
        if record.pending:
            self._queued[step] = record
            self._show_pending(step, record)
        elif self._queued.pop(step, None) is not None and step in self.rows:
            self.update_cell(step, "state", state_text("running"), update_width=True)

    def _show_pending(self, step: str, record: Any) -> None:
        if step in self.rows:
            text = Text(record.pending_text(time.time()), style="yellow")
            self.update_cell(step, "state", text, update_width=True)

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
        return str(self.get_cell(key, "state")).startswith(("running", "pending"))

    def mark_running(self, state: str) -> None:
        """Steps still shown running (or pending) end in state (the run was cancelled or failed)."""
        self._queued.clear()
        for key in list(self.rows):
            if self._shown_running(key):
                self.update_cell(key, "state", state_text(state))
