"""Jobs whose pto-tui is gone: an attached job's process outlives a killed client or a
dropped connection (a silent command never notices), so the next runner to reach the
target kills what its recorded process group left and records the job as LOST.

A detached job is meant to outlive its client: it is left running, to re-attach.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Container
from pathlib import Path

from pto_tui.core.errors import PtoError
from pto_tui.core.project.config import Target
from pto_tui.jobs import shell
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.limits import HELPER_TIMEOUT
from pto_tui.jobs.model import JobRecord, JobState, client_alive, list_records, save_record

KILLED = "; its process group on the target was killed"
NOT_KILLED = "; not yet killed on the target (it may still run): the next connection tries again"


def orphans(log_dir: Path, target: Target, own: Container[str]) -> list[JobRecord]:
    """Attached jobs on `target` that no live pto-tui follows and that may still run there:
    unfinished with their client gone, or lost with their clean-up not yet done."""
    found = []
    for record in list_records(log_dir):
        if record.target != target.label or record.id in own or record.detached:
            continue
        if record.orphan or (not record.state.is_final and not client_alive(record)):
            found.append(record)
    return found


def reap_script(remote_dir: str, remove: bool) -> str:
    """Kill the job's process group, remove its folder (not a local job's: that is its log
    folder), and say 'reaped'."""
    remove_dir = f"rm -rf {shell.quote_path(remote_dir)}; " if remove else ""
    return f"{shell.kill_script(remote_dir, 'KILL')}; {remove_dir}echo reaped"


async def reap(executor: Executor, log_dir: Path, record: JobRecord) -> JobRecord:
    """Kill what is left of one orphaned job on its target; record it as LOST."""
    try:
        script = reap_script(record.remote_dir, not executor.on_this_machine)
        result = await asyncio.wait_for(executor.run(script), HELPER_TIMEOUT)
        killed = result.ok and b"reaped" in result.stdout
    except (PtoError, TimeoutError, OSError):
        killed = False
    why = record.error.split(NOT_KILLED)[0]
    if not record.state.is_final:
        why = f"the pto-tui that followed it (pid {record.client_pid}) ended before the job did"
    updated = record.evolve(
        state=JobState.LOST,
        ended_at=record.ended_at or time.time(),
        error=why + (KILLED if killed else NOT_KILLED),
        orphan=not killed,
    )
    save_record(log_dir / record.id, updated)
    return updated
