"""A dropped terminal (SIGHUP: an SSH session gone, a tmux pane killed) ends the app, its
jobs kept running and re-attachable.

The kernel hangs the terminal up before it signals: from then on every write to it fails
(EIO), and with SIGHUP it sends SIGCONT, on which Textual's driver starts its terminal
threads again. A writer thread dies on its first failed write while its queue fills, and
shutting down then waits on that queue for ever: the app stayed, its parent gone, on a
deleted pty. So at once, in the signal handler itself (Python runs it in the main thread,
before SIGCONT's, even while that thread waits on a lock): the jobs are kept, the
standard streams become /dev/null, SIGCONT no longer restarts the driver; then the app
leaves as a quit keeping the jobs does. Should shutting down hang all the same, a
watchdog ends the process: the jobs are detached and their records say so whatever
happens to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType

GRACE = 30.0  # seconds the app has to leave after a hangup before the watchdog ends it
EXIT_STATUS = 128 + signal.SIGHUP

def detach_streams() -> None:
    """Point fds 0, 1 and 2 at /dev/null, away from the terminal that is gone: writes
    succeed, a read sees an end of file (Textual's input thread then waits for its exit
    event; a read that blocked instead would keep shutting down waiting on that thread)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def start_watchdog(grace: float = GRACE) -> threading.Timer:
    timer = threading.Timer(grace, os._exit, args=(EXIT_STATUS,))
    timer.daemon = True
    timer.start()
    return timer


def install(keep_jobs: Callable[[], None], leave: Callable[[], None]) -> bool:
    """Handle SIGHUP: `keep_jobs` and the streams at once, then `leave` on the event loop
    (call from the main thread, where the loop runs). False where no handler can be set
    (not the main thread: tests)."""
    loop = asyncio.get_running_loop()

    def hung_up(_signum: int, _frame: FrameType | None) -> None:
        keep_jobs()
        with contextlib.suppress(OSError):
            detach_streams()
        signal.signal(signal.SIGCONT, signal.SIG_DFL)  # no restart of the driver
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # once is enough
        start_watchdog()
        loop.call_soon_threadsafe(leave)

    try:
        signal.signal(signal.SIGHUP, hung_up)
    except ValueError:
        return False
    return True


def uninstall() -> None:
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
