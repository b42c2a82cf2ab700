"""Nothing typed is lost: the Pre-Edit, Post-Run and Amend forms keep what is typed as a
draft in the project as it is typed, quitting says so (q and ctrl+q alike), the next run
of the app puts it back, and submitting the form clears it."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.leave import LeaveScreen
from pto_tui.tui.screens.round_detail import AmendScreen, RoundScreen
from tests.tui.keys import loaded, rounds_drawn, type_into, wait_for
from tests.tui.projects import run
from tests.tui.test_demo_loop import start_scripted_round
from tests.tui.text import screen_text, static_text


def drafts(root: Path) -> list[str]:
    folder = root / ".pto-tui" / "drafts"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def field(app: PtoApp, widget_id: str) -> str:
    return app.screen.query_one(f"#{widget_id}", Input).value


async def test_a_half_typed_pre_edit_survives_quitting_and_reopening(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3", *"bigger [q] tile")  # square brackets are text, not markup
        await type_into(pilot, "pe-hypothesis", "more rows per load")
        await pilot.press("ctrl+q")  # from inside the field: asks, as q does
        await wait_for(pilot, lambda: isinstance(app.screen, LeaveScreen))
        question = "\n".join(screen_text(app))
        assert "the Pre-Edit draft of the next round (typed, not submitted)" in question
        assert "kept in .pto-tui/drafts/" in question
        assert drafts(fresh_root) == ["pre-edit.json"]  # written before the question
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running)
    kept = json.loads((fresh_root / ".pto-tui/drafts/pre-edit.json").read_text())
    assert kept["fields"]["pe-title"] == "bigger [q] tile"

    again = PtoApp(fresh_root)
    async with again.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await pilot.pause()
        assert field(again, "pe-title") == "bigger [q] tile"
        assert field(again, "pe-hypothesis") == "more rows per load"
        assert "Draft restored" in static_text(again.screen.query_one("#pe-prefilled"))
        # emptied again by hand (ctrl+u deletes to the line's start): no draft is left
        for widget_id in ("pe-title", "pe-hypothesis"):
            await type_into(pilot, widget_id, "")
            await pilot.press("end", "ctrl+u")
        await wait_for(pilot, lambda: drafts(fresh_root) == [])
        await pilot.press("escape", "q")
        await wait_for(pilot, lambda: not again.is_running)  # nothing to ask about


async def test_the_post_run_draft_comes_back_and_goes_once_closed(demo_root: Path) -> None:
    """A round measured (by the CLI) and left without its Post-Run: the Run pane asks for
    it; what is typed survives a restart; closing the round clears the draft."""
    start_scripted_round(demo_root, 0)
    run("--project", str(demo_root), "round", "measure", "--build", "ok", "--correctness",
        "pass", "--samples", "9000,9100,8900")
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        await wait_for(pilot, lambda: not app.screen.query_one("#run-post").has_class("hidden"))
        await pilot.press("a", *"the wider tile halves the loop trips")
        await wait_for(pilot, lambda: drafts(demo_root) == ["post-run-iter-001.json"])
        await pilot.press("escape", "q", "y")
        await wait_for(pilot, lambda: not app.is_running)

    again = PtoApp(demo_root)
    async with again.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        await wait_for(pilot, lambda: field(again, "run-analysis")
                       == "the wider tile halves the loop trips")
        await pilot.press("a", "tab", *"keep it", "enter")
        await wait_for(pilot, lambda: "with its Post-Run" in static_text(
            again.screen.query_one("#run-verdict")))
        assert drafts(demo_root) == []


async def test_the_amend_draft_is_kept_until_the_amendment_is_recorded(
        campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await rounds_drawn(pilot)
        await pilot.press("3")  # the Pre-Edit form as pre-filled: nothing typed, no draft
        await pilot.pause(1.0)
        assert drafts(campaign_root) == []
        await pilot.press("escape", "2", "j", "enter", "a", *"a clearer analysis", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RoundScreen))
        assert drafts(campaign_root) == ["amend-iter-001.json"]  # esc leaves, keeps the text
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AmendScreen))
        assert field(app, "amend-value") == "a clearer analysis"
        await pilot.press("enter", *"the first one named the wrong unit", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RoundScreen) and app.screen.amended)
        assert drafts(campaign_root) == []
