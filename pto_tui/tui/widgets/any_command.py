"""`!` in the Run pane: any command, as one job on the target (nothing is recorded)."""

from __future__ import annotations

from collections.abc import Callable

from pto_tui.core.errors import PtoError
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
    job = await session.runner().submit(target, JobSpec(command=command, name="command"),
                                        sync_from=sync_from)
    log_pane.follow_blocks(job.subscribe().batches(), f"command: {command}", job.cancel)
    running(True)
    try:
        record = await job.wait()
    finally:
        running(False)
    log_pane.set_state(record.state.value)
