"""A cheap stamp of the files a write changes, to notice another process's writes.

Every write of a round renders ITERATIONS.md; starting a round adds a folder to runs/
(its time changes), recording changes or measurements rewrites the open round's
round.toml (the newest folder's), closing appends to runs/closed.log, and phases,
tunables and the round counter live in project.toml. Comparing these files' times and
sizes (a few stat calls, no reads) tells a watcher when to read the ledger again.
"""

from __future__ import annotations

import os
from pathlib import Path

from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.closed_log import LOG_NAME
from pto_tui.core.rounds.ledger import ROUND_FILE, Ledger

FileStamp = tuple[str, int, int]  # (path, modification time in ns, size); -1s when absent
DiskStamp = tuple[FileStamp, ...]


def file_stamp(path: Path) -> FileStamp:
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), -1, -1)
    return (str(path), info.st_mtime_ns, info.st_size)


def disk_stamp(layout: ProjectLayout) -> DiskStamp:
    """The stamp of the project's files that change on every write."""
    paths = [layout.project_file, layout.iterations, layout.runs, layout.runs / LOG_NAME]
    numbers = Ledger(layout).round_numbers()
    if numbers:  # the open round is the newest one
        paths.append(layout.round_dir(numbers[-1]) / ROUND_FILE)
    return tuple(file_stamp(path) for path in paths)

