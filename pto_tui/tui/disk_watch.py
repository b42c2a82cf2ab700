"""Noticing another process's writes (a coding agent's CLI or MCP calls) while the app is open.

A worker thread compares the project's disk stamp (`core.campaign.stamps`: a few stat
calls) every `INTERVAL` seconds with the last one known. The app's own writes update the
known stamp while they still hold the project lock (`note_own`), so they never look like
someone else's; a write in progress (the lock file is there) is waited out, so one write
is one change. A change posts `DiskChanged`; the screen reloads and says what changed.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

from textual.message import Message
from textual.worker import get_current_worker

from pto_tui.core.campaign.stamps import DiskStamp, disk_stamp
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.project.lock import LOCK_NAME, is_stale, read_holder, writers_since
from pto_tui.core.rounds.records import Round

INTERVAL = 1.0  # seconds between two looks at the disk


@dataclass
class DiskChanged(Message):
    """Another process wrote the project (writer: who, as its lock named it)."""

    writer: str


class DiskWatch:
    """The last disk stamp the app knows of, and the look that compares it (thread-safe)."""

    def __init__(self, layout: ProjectLayout) -> None:
        self.layout = layout
        self._guard = threading.Lock()
        self._known = disk_stamp(layout)
        self._offset = writers_since(layout.state_dir, 0)[1]  # writes.log read up to here

    def note_own(self) -> None:
        """The app has just written (called holding the project lock): not news."""
        stamp = disk_stamp(self.layout)
        with self._guard:
            self._known = stamp

    def look(self) -> str | None:
        """Who changed the project since the last look: every other writer the writes log
        names since then, in order ("" when none did: changed by hand), None when nothing
        changed or a write is still going on."""
        holder = read_holder(self.layout.state_dir / LOCK_NAME)
        if holder is not None and not is_stale(holder):
            return None  # look again once the write is done
        stamp: DiskStamp = disk_stamp(self.layout)
        with self._guard:
            if stamp == self._known:
                return None
            writers, self._offset = writers_since(self.layout.state_dir, self._offset)
            self._known = stamp
        # our own writes are never news
        named = [w.command or f"pid {w.pid}" for w in writers if w.pid != os.getpid()]
        return "; ".join(dict.fromkeys(named))

    def run(self, screen: _Poster) -> None:
        """The worker's loop: look every INTERVAL seconds until the worker is cancelled."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            time.sleep(INTERVAL)
            writer = self.look()
            if writer is not None and not worker.is_cancelled:
                screen.post_message(DiskChanged(writer))


class _Poster(Protocol):
    def post_message(self, message: Message) -> bool: ...


class _Reloading(Protocol):  # the project screen
    def apply(self, loaded: Any) -> None: ...

    def notify(self, message: str, *, title: str = "", timeout: float | None = None) -> None: ...


class _Loading(Protocol):  # the session (which imports this module)
    @property
    def loaded(self) -> Any: ...

    def load(self) -> Any: ...


def describe_change(before: list[Round], after: list[Round], writer: str) -> str:
    """What a reload after another process's write shows, e.g. "iter-004 changed on disk
    (pto-tui round start)"."""
    old = {r.number: r for r in before}
    changed = [r.number for r in after if old.get(r.number) != r]
    changed += [n for n in old if n not in {r.number for r in after}]
    what = ", ".join(round_name(n) for n in sorted(set(changed))) or "the project"
    return f"{what} changed on disk ({writer or 'edited by hand'})"


async def reload_changed(screen: _Reloading, session: _Loading, writer: str) -> None:
    """Reload the project off the event loop, redraw, and say what changed."""
    before = session.loaded.rounds if session.loaded is not None else []
    loaded = await asyncio.to_thread(session.load)
    screen.apply(loaded)
    screen.notify(describe_change(before, loaded.rounds, writer), title="changed on disk")
