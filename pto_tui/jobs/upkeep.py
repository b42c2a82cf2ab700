"""Background work shared by a runner's jobs: best-effort helpers (an orphan's kill) and
the batched removal of finished attached jobs' folders on their targets."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from functools import partial

from pto_tui.core.project.config import Target
from pto_tui.jobs import shell
from pto_tui.jobs.limits import CLEAN_UP_BATCH, CLOSE_GRACE, HELPER_TIMEOUT
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.targets import executor_for


class Upkeep:
    """The tasks of a runner (job flows and helpers) and the remote folders left to remove."""

    def __init__(self, pool: SshPool) -> None:
        self.pool = pool
        self.tasks: set[asyncio.Task[None]] = set()
        self._finished_dirs: dict[Target, list[str]] = {}

    def track(self, task: asyncio.Task[None]) -> None:
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def background(self, make: Callable[[], Awaitable[object]]) -> None:
        """Run a best-effort helper (clean-up, orphan kill) without holding up the job."""

        async def bounded() -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(make(), HELPER_TIMEOUT)

        self.track(asyncio.get_running_loop().create_task(bounded()))

    def remove_later(self, target: Target, remote_dir: str) -> None:
        """An attached job's folder on the target (its pgid file) is removed later, in one
        command for many jobs."""
        dirs = self._finished_dirs.setdefault(target, [])
        dirs.append(remote_dir)
        if len(dirs) >= CLEAN_UP_BATCH:
            self.clean_up()

    def clean_up(self) -> None:
        """Remove the remote folders of finished attached jobs (in the background)."""
        for target, dirs in self._finished_dirs.items():
            if not dirs:
                continue
            script = "rm -rf " + " ".join(shell.quote_path(d) for d in dirs)
            executor = executor_for(target, self.pool)
            self.background(partial(executor.run, script, timeout=HELPER_TIMEOUT))
        self._finished_dirs.clear()

    async def close(self) -> None:
        """Tasks still running get a short while, then are cancelled."""
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=CLOSE_GRACE)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
