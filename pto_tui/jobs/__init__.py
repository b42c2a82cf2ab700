"""The job layer: local and SSH execution, live logs, workspace sync, cancellation.

asyncio + asyncssh only (never Textual). Entry points: JobRunner (runner.py: submit, sync,
fetch, re-attach), trust_host (connect.py), the records in model.py; each target kind's
executor, job control and probes in TARGET_KINDS (targets.py). What sync may write or
delete in a target's work dir: work_dir.py.
"""

from pto_tui.jobs.errors import (
    AuthFailed,
    FetchError,
    HostKeyChanged,
    JobError,
    SshConnectError,
    SyncError,
    UnknownHostKey,
)
from pto_tui.jobs.model import JobRecord, JobSpec, JobState, LogLine

__all__ = [
    "AuthFailed",
    "FetchError",
    "HostKeyChanged",
    "JobError",
    "JobRecord",
    "JobSpec",
    "JobState",
    "LogLine",
    "SshConnectError",
    "SyncError",
    "UnknownHostKey",
]
