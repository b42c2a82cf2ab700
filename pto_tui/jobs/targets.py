"""Choosing the executor of a target."""

from __future__ import annotations

from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Target
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.local import LocalExecutor
from pto_tui.jobs.ssh import SshExecutor, SshPool


def executor_for(target: Target, pool: SshPool) -> Executor:
    if target.is_local:
        return LocalExecutor(target)
    if target.kind == "ssh":
        return SshExecutor(target, pool)
    raise InputError(
        f"unknown target kind {target.kind!r}; expected local or ssh", key="target.kind"
    )
