"""No disk work on the event loop: the core calls that read and write the project run in
a worker thread, so the app keeps answering while they take long. Fault injection: the
core calls are made slow (1.5 s each); each must run off the event loop's thread, and a
20 ms timer on the app must never wait as long as one of them. (The bound is not 0.1 s:
redrawing the panes after a write took up to 0.36 s on a loaded 2-core machine.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import ContentSwitcher

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.round_pane import RoundPane
from tests.tui.keys import loaded, tab_to, type_into, wait_for
from tests.tui.test_round_flow import fill_pre_edit, recorded

SLOW = 1.5
# well above a redraw on a loaded 2-core machine (0.36 s was seen), well below one slow
# call made on the loop: the bound tells the two apart without timing the machine
STALL = 0.8
TICK = 0.02


class LoopWatch:
    """The longest wait between a 20 ms timer's callbacks while watching."""

    def __init__(self, app: PtoApp) -> None:
        self.last = 0.0
        self.worst = 0.0
        self.watching = False
        app.set_interval(TICK, self._tick)

    def _tick(self) -> None:
        now = time.monotonic()
        if self.watching and self.last:
            self.worst = max(self.worst, now - self.last)
        self.last = now

    def start(self) -> None:
        self.last, self.worst, self.watching = 0.0, 0.0, True

    def stop(self) -> float:
        self.watching = False
        return self.worst


def slow_down(monkeypatch: pytest.MonkeyPatch, name: str, calls: list[str]) -> None:
    original: Callable[..., Any] = getattr(Campaign, name)

    def slow(self: Campaign, *args: object, **kwargs: object) -> Any:
        on_loop = threading.current_thread() is threading.main_thread()
        calls.append(name + (" ON THE EVENT LOOP" if on_loop else ""))
        time.sleep(SLOW)  # a slow disk (a network home, a busy NFS server)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Campaign, name, slow)


async def test_start_measure_and_close_keep_the_loop_answering(
        fresh_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    for name in ("start_round", "record_measurement", "close_round"):
        slow_down(monkeypatch, name, calls)
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        watch = LoopWatch(app)
        await pilot.press("3")
        await fill_pre_edit(pilot)
        watch.start()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: (fresh_root / "runs" / "iter-001" / "round.toml").exists())
        await wait_for(pilot, lambda: app.screen.query_one("#round-switch", ContentSwitcher).current
                       == "openround")
        assert calls == ["start_round"]
        assert watch.stop() < STALL, f"the event loop stalled {watch.worst:.2f}s"

        await pilot.press("escape", "3")
        pane = app.screen.query_one(RoundPane)
        await fill_measurement(pilot)
        for button, name in (("or-measure", "record_measurement"), ("or-close", "close_round")):
            await tab_to(pilot, button)
            watch.start()
            await pilot.press("enter")

            def written(name: str = name) -> bool:
                return name in calls and not pane.writing

            await wait_for(pilot, written)
            assert watch.stop() < STALL, f"{name}: the event loop stalled {watch.worst:.2f}s"
        assert calls == ["start_round", "record_measurement", "close_round"]
    assert recorded(fresh_root).is_closed


async def fill_measurement(pilot: Pilot) -> None:
    await tab_to(pilot, "or-build")
    await pilot.press("enter", "down", "enter")
    await tab_to(pilot, "or-correct")
    await pilot.press("enter", "down", "enter")
    await type_into(pilot, "or-samples", "90,91,89,90")
    await type_into(pilot, "or-analysis", "ok")
    await type_into(pilot, "or-next", "FIFO")
