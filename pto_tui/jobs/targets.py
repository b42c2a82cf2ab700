"""Every target kind ([target] kind), by kind: the executor, job control and probes a
target of that kind gets are looked up here."""

from __future__ import annotations

from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.local import LOCAL_TARGET
from pto_tui.jobs.slurm import SLURM_TARGET
from pto_tui.jobs.ssh import SSH_TARGET
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.target_spec import TargetKindSpec

TARGET_KINDS: dict[TargetKind, TargetKindSpec] = {
    TargetKind.LOCAL: LOCAL_TARGET,
    TargetKind.SSH: SSH_TARGET,
    TargetKind.SLURM: SLURM_TARGET,
}


def target_kind(kind: TargetKind) -> TargetKindSpec:
    spec = TARGET_KINDS.get(kind)
    if spec is None:
        known = " or ".join(k.value for k in TARGET_KINDS)
        raise InputError(f"unknown target kind {str(kind)!r}; expected {known}", key="target.kind")
    return spec


def executor_for(target: Target, pool: SshPool) -> Executor:
    return target_kind(target.kind).executor(target, pool)
