"""What a target kind brings to the job layer: the executor that runs scripts and moves
files there, the job control that starts, follows, stops and re-attaches its jobs, and the
probes the environment round asks of it first (each kind's in its executor module,
`targets.py` lists them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.follow import Follower
from pto_tui.jobs.probes import REACHABLE, Probe
from pto_tui.jobs.ssh_pool import SshPool


@dataclass(frozen=True)
class TargetKindSpec:
    kind: TargetKind
    executor: Callable[[Target, SshPool], Executor]  # given the runner's SSH pool
    # job control: a job's process group, recorded in its folder on the target, started
    # attached or detached, followed, stopped (TERM, KILL) and re-attached by its id
    follower: type[Follower] = Follower
    # run from "/" before the workspace is uploaded; the round goes on only when all pass
    probes: tuple[Probe, ...] = (REACHABLE,)
    # reached over SSH: the host presents a key a person trusts once (`pto-tui trust-host`)
    host_key: bool = False
    # then those that depend on the target's own settings (a Slurm partition and gres)
    target_probes: Callable[[Target], tuple[Probe, ...]] = lambda _target: ()
