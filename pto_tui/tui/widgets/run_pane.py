"""Pane 4: run the round's steps as jobs on the target and follow their logs."""

from __future__ import annotations

import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Static

from pto_tui.tui.run_steps import Step, round_steps
from pto_tui.tui.session import Session, Snapshot
from pto_tui.tui.widgets.log_pane import LogPane

STATE_STYLES = {"succeeded": "green", "failed": "red", "cancelled": "yellow", "running": "cyan",
                "timed_out": "red", "lost": "red", "syncing": "cyan", "skipped": "dim"}


class RunPane(Vertical, can_focus=True):
    BINDINGS = [
        Binding("r", "run_steps", "Run round steps", id="run.steps"),
        Binding("exclamation_mark", "command", "Run a command", id="run.command"),
        Binding("l", "focus_log", "Log", show=False, id="run.log"),
    ]

    def __init__(self, session: Session, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.busy = False

    def compose(self) -> ComposeResult:
        yield Static(id="run-hint")
        table: DataTable[str | Text] = DataTable(id="run-steps", cursor_type="row")
        for column in ("step", "state", "time", "command"):
            table.add_column(column, key=column)
        yield table
        yield Input(placeholder="command to run on the target (enter runs, esc cancels)",
                    id="run-command", classes="hidden")
        yield LogPane(id="run-log")

    def on_mount(self) -> None:
        self._hint()

    def refresh_from(self, snap: Snapshot) -> None:
        self._hint()

    def focus_default(self) -> None:
        self.query_one("#run-steps").focus()

    @property
    def log(self) -> LogPane:
        return self.query_one(LogPane)

    def _hint(self) -> None:
        target = self.session.campaign.config.target
        text = Text.assemble(
            ("r", "bold"), " runs build → correctness → benchmark on ",
            (target.label, "bold"), "   ", ("!", "bold"), " runs any command   ",
            ("x", "bold"), " cancels (in the log)",
        )
        text.append("\nThe verdict needs the numbers: enter them in the Round pane (3) "
                    "until the round runner reads the reports itself.", style="dim")
        self.query_one("#run-hint", Static).update(text)

    # ------------------------------------------------------------ actions

    def action_focus_log(self) -> None:
        self.log.focus_default()

    def action_command(self) -> None:
        box = self.query_one("#run-command", Input)
        box.remove_class("hidden")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "run-command":
            return
        event.stop()
        event.input.add_class("hidden")
        command = event.value.strip()
        event.input.value = ""
        if command:
            self.run_steps([Step("command", command)])

    def action_run_steps(self) -> None:
        steps = round_steps(self.session.campaign.config)
        blocked = [s for s in steps if s.missing]
        if blocked:
            needs = {f"{s.name.split()[0]} needs {{{'}, {'.join(s.missing)}}}" for s in blocked}
            names = "; ".join(sorted(needs))
            self.app.notify(
                f"not available yet: {names}. Filling these needs the round runner "
                "(issue 6); run the commands with ! meanwhile.",
                title="run", severity="warning", timeout=10,
            )
            return
        if not steps:
            self.app.notify("no commands configured in [commands]", title="run")
            return
        self.run_steps(steps)

    @work(exclusive=True, group="run", exit_on_error=False)
    async def run_steps(self, steps: list[Step]) -> None:
        from pto_tui.jobs.model import JobSpec

        if self.busy:
            self.app.notify("a job is running: cancel it first (x in the log)", title="run")
            return
        self.busy = True
        table = self.query_one("#run-steps", DataTable)
        table.clear()
        for i, step in enumerate(steps):
            table.add_row(step.name, Text("queued", style="dim"), "", step.command, key=str(i))
        runner = self.session.runner()
        layout = self.session.layout
        target = self.session.campaign.config.target
        sync_from = layout.workspace if layout.workspace.is_dir() else None
        try:
            for i, step in enumerate(steps):
                started = time.monotonic()
                table.update_cell(str(i), "state", Text("running", style="cyan"))
                job = await runner.submit(target, JobSpec(command=step.command, name=step.name),
                                          sync_from=sync_from)
                self.log.follow(job.subscribe(), f"{step.name}: {step.command}", job.cancel)
                record = await job.wait()
                state = record.state.value
                self.log.set_state(state)
                table.update_cell(str(i), "state", Text(state, style=STATE_STYLES.get(state, "")),
                                  update_width=True)
                table.update_cell(str(i), "time", f"{time.monotonic() - started:.1f}s")
                if state != "succeeded":
                    for j in range(i + 1, len(steps)):
                        table.update_cell(str(j), "state", Text("skipped", style="dim"))
                    break
        finally:
            self.busy = False
