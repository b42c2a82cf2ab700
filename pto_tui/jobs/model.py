"""Job records: what a job is asked to do (JobSpec), what happened (JobRecord), its lines."""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.project.layout import round_name

Stream = Literal["stdout", "stderr", "meta"]


class JobState(StrEnum):
    QUEUED = "queued"
    SYNCING = "syncing"
    RUNNING = "running"
    FETCHING = "fetching"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    LOST = "lost"  # the outcome cannot be known: never reported as success

    @property
    def is_final(self) -> bool:
        return self in FINAL_STATES


FINAL_STATES = frozenset(
    {JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED, JobState.TIMED_OUT, JobState.LOST}
)


@dataclass(frozen=True)
class JobSpec:
    """A job to run. command is a bash string; env is applied inline (sshd drops env requests)."""

    command: str
    cwd: str | None = None  # relative to the target's work dir, or absolute
    env: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None  # seconds; the runner's own (TERM, KILL, close)
    pty: bool = False  # a PTY gives live lines from any program, but merges stderr
    line_buffered: bool = True  # stdbuf -oL -eL + PYTHONUNBUFFERED=1 when no PTY
    detached: bool = False  # survives the client: re-attach with JobRunner.reattach
    name: str = ""
    fetch: tuple[str, ...] = ()  # result files to fetch back after a run (relative to cwd)
    round_number: int | None = None  # the round the job runs a step of (None: no round's)
    # what the step noted as it submitted the job, kept in its record for whoever takes
    # the job's outcome later (a resumed run): e.g. its result file's state before the run
    notes: Mapping[str, str] = field(default_factory=dict)
    # pto-tui's own bookkeeping on the target (a clock read, a listing of result files),
    # not a step a person ran: `jobs` lists it only with --all
    internal: bool = False
    env_setup: bool = True  # False: run without [target] env_setup (the first probe)
    # what the step needs of a target with a scheduler (Slurm): NEEDS_NPU (correctness,
    # benchmark runs, the torch_npu reference, the environment round's job probe),
    # NEEDS_BUILD (a build), or nothing (probes and helpers, run where the commands are)
    needs: str = ""
    node: str = ""  # a scheduler's node the job must run on ("" any: [target.slurm] same_node)


NEEDS_NPU = "npu"
NEEDS_BUILD = "build"
# starts a line of pto-tui's own about a job's place in a scheduler's queue (submitted,
# pending and why, running where): shown live, where other such lines stay in the log
QUEUE_NOTE = "queue: "


def waited_text(seconds: float) -> str:
    """"45s", "2m 10s", "1h 05m"."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def job_name(label: str, step: str) -> str:
    """The name of a step's job: the label of what it runs for, then the step
    ("iter-003" and "benchmark 2/7": "iter-003 benchmark 2/7")."""
    return f"{label} {step}".strip()


class LogLine(NamedTuple):
    """One line of a job's output. A NamedTuple, not a frozen dataclass: it is made once per
    line of output (1M for a big log), and a frozen dataclass costs twice as much to make."""

    stream: Stream
    text: str
    time: float


@dataclass(frozen=True)
class JobRecord:
    """A job's state at one moment, immutable: the runner replaces it at every change."""

    id: str
    command: str
    target: str  # Target.label, e.g. "ssh:npu-box"
    state: JobState = JobState.QUEUED
    name: str = ""
    cwd: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    workspace_hash: str = ""
    detached: bool = False
    submitted_at: float = 0.0
    started_at: float | None = None
    ended_at: float | None = None
    exit_code: int | None = None
    signal: str | None = None  # e.g. "TERM" when the command was killed by a signal
    error: str = ""  # why the job failed or was lost, in words
    log_path: str = ""
    remote_dir: str = ""  # the job's folder on the target (pgid, rc, detached output)
    fetched: tuple[str, ...] = ()
    client_pid: int = 0  # the pto-tui process that runs (follows) the job
    client_start: str = ""  # that process's start time (tells a reused pid apart)
    orphan: bool = False  # lost, and what may survive of it on the target not yet killed
    round_number: int | None = None  # the round the job ran a step of (None: no round's)
    timeout: float | None = None  # the seconds it may run (JobSpec.timeout), None: no limit
    notes: Mapping[str, str] = field(default_factory=dict)  # JobSpec.notes
    internal: bool = False  # JobSpec.internal: bookkeeping, not a step a person ran
    # a job a scheduler runs (Slurm): its id there, its state and reason as last seen
    # ("PENDING", "Resources"), when it was queued there, and where it ran (node, NPU)
    scheduler_id: str = ""
    scheduler_state: str = ""
    scheduler_reason: str = ""
    queued_at: float | None = None
    node: str = ""
    npu: str = ""

    def __post_init__(self) -> None:
        # a frozen record must not share a dict someone else may mutate
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        object.__setattr__(self, "notes", MappingProxyType(dict(self.notes)))

    def evolve(self, **changes: Any) -> JobRecord:
        return replace(self, **changes)

    @property
    def pending(self) -> bool:
        """Waiting in a scheduler's queue: submitted, not yet started."""
        return self.scheduler_state == "PENDING" and not self.state.is_final

    def pending_text(self, now: float) -> str:
        """"pending (Resources) 2m 10s": why and how long it has waited in the queue."""
        why = f" ({self.scheduler_reason})" if self.scheduler_reason else ""
        return f"pending{why} {waited_text(now - (self.queued_at or now))}"

    @property
    def placement(self) -> str:
        """Where it ran: "pto-node1 npu 0", "" when a scheduler did not say."""
        return f"{self.node} npu {self.npu}" if self.node and self.npu else self.node

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["state"] = self.state.value
        data["env"] = dict(self.env)
        data["notes"] = dict(self.notes)
        data["fetched"] = list(self.fetched)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JobRecord:
        known = {name for name in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        values["state"] = JobState(values.get("state", JobState.LOST.value))
        values["fetched"] = tuple(values.get("fetched", ()))
        if "round_number" not in data:
            values["round_number"] = named_round(str(values.get("name", "")))
        return cls(**values)


# the job name of the torch_npu reference before its jobs were named after iter-000
UNLABELLED_REFERENCE = "torch_npu baseline"


def named_round(name: str) -> int | None:
    """The round of a job recorded before records kept `round_number`, read from its name
    as the services named a round's jobs then: "iter-003 build" ran for round 3, the
    unlabelled torch_npu reference for iter-000. The one place a name says the round."""
    if name == UNLABELLED_REFERENCE:
        return 0
    first = name.split(" ", 1)[0]
    digits = first.removeprefix("iter-")
    if first == name or not digits.isdigit() or round_name(int(digits)) != first:
        return None
    return int(digits)


def _stat_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name ([] when unknown)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    # the command name (field 2) may hold spaces: count fields after its closing ')'
    return stat.rsplit(")", 1)[-1].split()


def process_start(pid: int) -> str:
    """When process `pid` started (clock ticks since boot, from /proc), "" when unknown."""
    fields_after = _stat_fields(pid)
    return fields_after[19] if len(fields_after) > 19 else ""


def this_client() -> dict[str, Any]:
    """The client fields of a record made by this process."""
    return {"client_pid": os.getpid(), "client_start": process_start(os.getpid())}


def client_alive(record: JobRecord) -> bool:
    """Is the pto-tui that ran this job still running? A record without a client (from an
    older pto-tui) counts as alive: it is never reaped by guess."""
    if record.client_pid <= 0:
        return True
    try:
        os.kill(record.client_pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields_after = _stat_fields(record.client_pid)
    if fields_after[:1] == ["Z"]:  # ended, not yet reaped (an init that reaps late)
        return False
    started = fields_after[19] if len(fields_after) > 19 else ""
    return not (record.client_start and started and started != record.client_start)


ENDED = "ended"  # shown: a detached job ended on its target while no pto-tui followed it


def shown_state(record: JobRecord, ended_on_target: bool = False) -> str:
    """The state to show: a job whose pto-tui is gone is never "running" forever. A
    detached one can be followed again, or has ended there (`ended_on_target`, as its
    target says: its output is collected when it is re-attached); an attached one is lost
    (the next job on its target kills what is left of it)."""
    if record.state.is_final or client_alive(record):
        return record.state.value
    if not record.detached:
        return JobState.LOST.value
    return ENDED if ended_on_target else "re-attachable"


RECORD_FILE = "record.json"
LOG_FILE = "output.log"


def new_job_id() -> str:
    """Sortable and unique enough: UTC time plus 24 random bits."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def save_record(job_dir: Path, record: JobRecord) -> None:
    """Write record.json atomically. Only a final record is fsync'ed: an fsync costs a few
    ms, a job passes through several states, and a rename alone already survives a
    crash of pto-tui itself."""
    text = json.dumps(record.to_json(), indent=2) + "\n"
    path = job_dir / RECORD_FILE
    if record.state.is_final:
        atomic_write_text(path, text)
        return
    job_dir.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{RECORD_FILE}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def load_record(job_dir: Path) -> JobRecord | None:
    try:
        return JobRecord.from_json(json.loads((job_dir / RECORD_FILE).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def list_records(log_dir: Path) -> list[JobRecord]:
    """Every job recorded under log_dir, oldest first."""
    if not log_dir.is_dir():
        return []
    found = (load_record(path) for path in log_dir.iterdir() if path.is_dir())
    records = [record for record in found if record is not None]
    return sorted(records, key=lambda record: (record.submitted_at, record.id))


def job_id_for(log_dir: Path, wanted: str) -> str:
    """The pto-tui job id `wanted` names: itself, or the job a scheduler knows by that id
    (a Slurm job id); itself when no record says."""
    if (log_dir / wanted).is_dir():
        return wanted
    found = [r for r in list_records(log_dir) if r.scheduler_id and r.scheduler_id == wanted]
    return found[-1].id if found else wanted
