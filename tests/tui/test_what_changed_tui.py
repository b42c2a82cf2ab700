"""The what-changed view by keys: D on the Rounds pane or in a round's detail, f switches
the reference between the round it was based on and the frontier, the baseline says it has
no reference, the core call runs off the event loop."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Static

from pto_tui.tui.actions import screen_actions
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens import what_changed
from pto_tui.tui.screens.project import ProjectScreen
from pto_tui.tui.screens.round_detail import RoundScreen
from pto_tui.tui.screens.what_changed import WhatChangedScreen
from tests.tui.keys import loaded, wait_for
from tests.tui.text import static_text


def _title(app: PtoApp) -> str:
    return static_text(app.screen.query_one("#changed-title", Static))


def _body(app: PtoApp) -> str:
    return static_text(app.screen.query_one("#changed-text", Static))


async def test_what_changed_against_the_previous_round_then_the_frontier(
    campaign_root: Path,
) -> None:
    """iter-004 (sync period 4 -> 2, 87,89.5,86.5 us): 3% faster, which its bounds (-0.6%
    to +5.2%) cannot tell from the 2% noise floor."""
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("G", "D")
        screen = app.screen
        assert isinstance(screen, WhatChangedScreen) and screen.number == 4
        await wait_for(pilot, lambda: screen.diff is not None)
        await pilot.pause()
        assert "what changed in iter-004 against iter-001 (previous: its base)   f: frontier" \
            in _title(app)
        body = _body(app)
        assert "kFaCvFifoConsSyncPeriod  4 → 2" in body
        assert "iter-001  90.0 us  3 run(s), spread 2.2% (stable)" in body
        assert "iter-004  87.0 us  3 run(s), spread 3.4% (stable)" in body
        assert "delta -3.3% (1.03x)  undecided" in body
        assert "gain +2.9% (95% bounds -0.6% to +5.2%) against the noise floor 2.0%" in body
        assert "55.00 → 55.00  (+0.0%)" in body
        assert "the round's patch.diff, against iter-001" in body
        assert "+constexpr int kFaCvFifoConsSyncPeriod = 2;" in body
        scroller = screen.query_one("#changed-body")
        assert scroller.max_scroll_y > 0  # the patch is longer than 24 lines: it scrolls
        await pilot.press("j", "j")
        assert scroller.scroll_y > 0
        await pilot.press("f")
        await wait_for(pilot, lambda: screen.diff is not None and screen.diff.against_how == "frontier")
        await pilot.pause()
        assert "against iter-001 (the frontier)   f: previous" in _title(app)
        await pilot.press("f")
        await wait_for(pilot, lambda: screen.diff is not None and screen.diff.against_how == "previous")
        await pilot.press("escape")
        assert isinstance(app.screen, ProjectScreen)


async def test_the_baseline_has_no_reference(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("D")  # the cursor on iter-000
        screen = app.screen
        assert isinstance(screen, WhatChangedScreen) and screen.number == 0
        await wait_for(pilot, lambda: bool(screen.problem))
        await pilot.pause()
        body = _body(app)
        assert "nothing to compare" in body
        assert "iter-000 does not record the round it was based on" in body
        assert "Traceback" not in body


async def test_what_changed_from_the_round_detail(
    campaign_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real = what_changed.round_diff

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(what_changed, "round_diff", recorded)
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("j", "enter")
        assert isinstance(app.screen, RoundScreen) and app.screen.record.number == 1
        await pilot.press("D")
        screen = app.screen
        assert isinstance(screen, WhatChangedScreen) and screen.number == 1
        await wait_for(pilot, lambda: screen.diff is not None)
        await pilot.pause()
        assert "iter-001 against iter-000" in _title(app)
        assert "kFaTileS1" in _body(app) and "beyond the noise floor" in _body(app)
        assert threads and all(t is not threading.main_thread() for t in threads)
        await pilot.press("escape")
        assert isinstance(app.screen, RoundScreen)


async def test_the_new_keys_are_in_the_palette_and_help(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        actions = {i: a for a in screen_actions(app.screen) for i in a.ids}
        assert (actions["rounds.what_changed"].keys, actions["rounds.rerun"].keys) == (["D"], ["u"])
        assert actions["rounds.what_changed"].group == "Rounds"
        await pilot.press("j", "enter")  # the round detail binds the same keys
        here = {i: a.keys for a in screen_actions(app.screen) for i in a.ids}
        assert (here["round.what_changed"], here["round.rerun"]) == (["D"], ["u"])
        await pilot.press("question_mark")
        text = static_text(app.screen.query_one("#help-table", Static))
        assert "What changed" in text and "round.rerun" in text
