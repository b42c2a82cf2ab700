"""One run at a time in the workspace: a claim file naming the owner of the run under way.

The project lock is held for one write; a round's run (sync, build, correctness, the
benchmark repeats) takes minutes or hours between its writes. For that long the run owns
the workspace and its round: `.pto-tui/run.json` names the round, what runs and its owner
(the owner token of the campaign running it, its pid and host). Another owner's writes to
that round, and anything that would build or upload the workspace meanwhile (another run,
`round changes`, a new round, `exec`), are refused naming the owner.

A claim left by a dead process on this host is stale: nobody owns the run any more, and
the next run takes it over (a resume adopts the job that process left running). A claim
from another host cannot be checked and is never presumed stale.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import LockedError, bounded_json, read_text
from pto_tui.core.project.layout import round_name
from pto_tui.core.project.lock import (
    LockHolder,
    ProjectLock,
    create_whole,
    host_name,
    is_stale,
    read_holder,
    take_over,
)

RUN_NAME = "run.json"


@dataclass(frozen=True)
class RunClaim:
    round: int | None  # the round being run; None for a run of no round (torch baseline)
    what: str  # "round run", "environment round", ...
    holder: LockHolder

    def describe(self) -> str:
        on = f" of {round_name(self.round)}" if self.round is not None else ""
        return f"{self.what}{on} by {self.holder.describe()}"


def _path(state_dir: Path) -> Path:
    return state_dir / RUN_NAME


def read_claim(state_dir: Path) -> RunClaim | None:
    """The run under way, None when there is none or its owner died on this host."""
    path = _path(state_dir)
    holder = read_holder(path)
    if holder is None or is_stale(holder):
        return None
    try:
        data = bounded_json(read_text(path))
        number = data.get("round")
        return RunClaim(int(number) if number is not None else None, str(data.get("what", "run")), holder)
    except (OSError, ValueError, TypeError, AttributeError):
        return RunClaim(None, "run", holder)  # half-written: held by someone unknown


def take_claim(state_dir: Path, *, owner: str, command: str, what: str, number: int | None) -> bool:
    """Claim the workspace for a run; True when taken now, False when `owner` holds it
    already (a nested run). Another owner's live claim is returned by `blocking_claim`:
    the caller refuses with it."""
    path = _path(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"round": number, "what": what, "owner": owner, "pid": os.getpid(),
            "host": host_name(), "since": time.time(), "command": command}
    for _attempt in range(3):
        if create_whole(path, data):
            return True
        holder = read_holder(path)
        if holder is not None and holder.owner == owner:
            return False
        if holder is None:
            continue  # ended meanwhile
        if not is_stale(holder):
            return False  # blocking_claim names it
        take_over(path, holder)  # its owner died: the run is nobody's
    return False


def blocking_claim(state_dir: Path, owner: str) -> RunClaim | None:
    """The live claim of another owner, None when the workspace is free or ours."""
    claim = read_claim(state_dir)
    return claim if claim is not None and claim.holder.owner != owner else None


def drop_claim(state_dir: Path, owner: str) -> None:
    """End `owner`'s claim (another owner's is left alone)."""
    path = _path(state_dir)
    holder = read_holder(path)
    if holder is not None and holder.owner == owner:
        path.unlink(missing_ok=True)


def workspace_upload_lock(state_dir: Path, command: str = "exec") -> ProjectLock:
    """The lock held while a command uploads the workspace and runs on it (`exec`, from
    the CLI and the MCP server alike): another writer's round must not see its files
    change under it. Taken (bounded wait) or refused with the way around named; refused
    at once while a run owns the workspace (its build would see the upload)."""
    lock = ProjectLock(state_dir, command)
    try:
        lock.acquire()
    except LockedError as error:
        raise LockedError(
            f"{error.message}; exec uploads the workspace, so it waits for the project lock",
            file=error.file,
            hint="run it when the other pto-tui is done, or run it without the upload "
            "(--no-sync; sync=false over MCP) on the target's copy as it is",
        ) from None
    claim = blocking_claim(state_dir, lock.owner)
    if claim is not None:
        lock.release()
        raise LockedError(
            f"{claim.describe()} owns the workspace: exec would upload files under its build",
            file=_path(state_dir),
            hint="wait for the run to end, or run exec without the upload "
            "(--no-sync; sync=false over MCP) on the target's copy as it is",
        )
    return lock
