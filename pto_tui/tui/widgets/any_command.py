"""`!` in the Run pane: any command, as one job on the target (nothing is recorded)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input

from pto_tui.core.errors import PtoError
from pto_tui.core.project.config import exec_folder
from pto_tui.jobs.model import JobSpec
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import pto_app
from pto_tui.tui.widgets.log_pane import LogPane


async def run_any_command(session: Session, command: str, log_pane: LogPane,
                          running: Callable[[bool], object]) -> None:
    """Run it on the project's target with its log live in the pane; `running(True)` while
    it runs (the pane gives the log most of its height)."""
    layout = session.layout
    target = session.campaign.config.target
    sync_from = layout.workspace if layout.workspace.is_dir() else None
    if sync_from is not None:  # never an upload under another owner's build
        try:
            session.campaign.check_owner(None, workspace=True, doing="a command that uploads the workspace")
        except PtoError as error:
            pto_app(log_pane).report_error(error, title="command")
            return
    folder = exec_folder(session.campaign.config, layout.workspace)  # where the project's commands run
    job = await session.runner().submit(target, JobSpec(command=command, cwd=folder, name="command"),
                                        sync_from=sync_from)
    log_pane.follow_blocks(job.subscribe().batches(), f"command: {command}", job.cancel)
    running(True)
    try:
        record = await job.wait()
    finally:
        running(False)
    log_pane.set_state(record.state.value)


class CommandBox(Input):
    """Where `!` takes the command: enter runs it (CommandBox.Run), esc cancels; hidden
    until asked for, and again after either."""

    BINDINGS = [Binding("escape", "close", "Close the command box", id="command.close")]

    @dataclass
    class Run(Message):
        command: str

    def open(self) -> None:
        self.remove_class("hidden")
        self.focus()

    def action_close(self) -> None:
        self._close()

    def _close(self) -> None:
        self.value = ""
        self.add_class("hidden")
        if self.parent is not None and isinstance(self.parent, Widget) and self.parent.can_focus:
            self.parent.focus()  # back to the pane, whose keys work again

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        command = event.value.strip()
        self._close()
        if command:
            self.post_message(self.Run(command))
