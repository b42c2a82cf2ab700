"""The job layer: local and SSH execution, live logs, workspace sync, cancellation.

asyncio + asyncssh only (never Textual). Entry points: JobRunner (runner.py: submit, sync,
fetch, re-attach), trust_host (connect.py), the records in model.py; each target kind's
executor, job control and probes in TARGET_KINDS (targets.py). What sync may write or
delete in a target's work dir: work_dir.py.
"""

import warnings

# asyncssh imports the DSA key classes, which newer `cryptography` releases mark deprecated
# on import: five lines on stderr of every command that runs a job, about key types
# pto-tui never offers. Only that warning from asyncssh is silenced.
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")

from pto_tui.jobs.errors import (  # noqa: E402  after the filter: asyncssh comes through here
    AuthFailed,
    FetchError,
    HostKeyChanged,
    JobError,
    SshConnectError,
    SyncError,
    UnknownHostKey,
)
from pto_tui.jobs.model import JobRecord, JobSpec, JobState, LogLine  # noqa: E402

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
