"""How long the running step has printed nothing, read from its StepEvents: the Run pane
and the CLI's live output say "no output for N s" of a silent step (a hung simulation
prints nothing until its limit stops it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pto_tui.core.project.limits import silence_text

if TYPE_CHECKING:  # light on purpose: the Run pane imports it while the app starts
    from pto_tui.backends.site import StepEvent


@dataclass(frozen=True)
class Silent:
    """A running step that has printed nothing for `seconds`."""

    step: str
    seconds: float
    limit: float | None  # the seconds it may run in all, None: no limit

    @property
    def text(self) -> str:
        """"no output for 45 s · limit 600 s"."""
        return silence_text(self.seconds, self.limit)


class Silence:
    """Follows the steps of a service by their events: the job running now, and when it
    last printed a line (or started). A step that is not a job (the upload) is not followed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.step = ""  # the job's step running now, "" when none is
        self.limit: float | None = None
        self.since = 0.0  # when it started or last printed

    def see(self, event: StepEvent) -> None:
        if event.kind == "started" and event.record is not None:
            self.step, self.limit, self.since = event.step, event.record.timeout, self.clock()
        elif event.kind == "line" and self.step:
            self.since = self.clock()
        elif event.kind == "finished" and event.step == self.step:
            self.step = ""

    def silent(self, after: float) -> Silent | None:
        """The running step when it has printed nothing for `after` seconds or more."""
        if not self.step:
            return None
        seconds = self.clock() - self.since
        return Silent(self.step, seconds, self.limit) if seconds >= after else None
