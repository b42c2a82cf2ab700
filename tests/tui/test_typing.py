"""Typing at full speed: keys sent in one burst (as a paste or bursty SSH input arrives,
with a job streaming into the log) land in the field the user aimed at, in order; a
printable key on a form's checkbox or select never runs a pane command."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Checkbox, Input, TextArea

from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.project import ProjectScreen
from pto_tui.tui.widgets.log_view import LogView
from tests.tui.keys import current, loaded, tab_to, wait_for
from tests.tui.test_demo_loop import run_finished, start_scripted_round
from tests.tui.test_leaving import kill_left_over
from tests.tui.text import static_text

STREAM = "for i in $(seq 1 100000); do echo line $i; sleep 0.001; done"
NAMED = {" ": "space", "\t": "tab", "\r": "enter", "!": "exclamation_mark", ",": "comma"}


def burst(app: PtoApp, typed: str | list[str]) -> int:
    """Every key queued at once, nothing waited for between them (what a paste does);
    returns how many keys the gate will have handled once all of them are through."""
    for key in typed:
        name = NAMED.get(key, key)
        character = key if len(key) == 1 else None
        app.post_message(events.Key(name, character))
    return app.key_gate.handled + len(typed)


async def drained(pilot, app: PtoApp, handled: int) -> None:
    await wait_for(pilot, lambda: app.key_gate.handled >= handled and app.key_gate.idle)
    await pilot.pause()


async def stream_a_job(pilot, app: PtoApp) -> LogView:
    await pilot.press("4", "exclamation_mark", *STREAM, "enter")
    view = app.screen.query_one(LogView)
    await wait_for(pilot, lambda: len(view.store) > 200)
    return view


def value(app: PtoApp, widget_id: str) -> str:
    widget = app.screen.query_one(f"#{widget_id}")
    return widget.text if isinstance(widget, TextArea) else widget.value  # type: ignore[attr-defined]


async def test_burst_through_the_pre_edit_form_while_a_job_streams(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            view = await stream_a_job(pilot, app)
            await pilot.press("3")
            assert app.focused is not None and app.focused.id == "pe-title"  # no hidden stop
            # title, tab to the select (letters there run nothing: no chart, no pane, no
            # quit), evidence, kernel, hypothesis: every field gets exactly its own text
            sent = burst(app, "run w 4 q\tw4q2ra\tidle cube\tfa kernel\tmore overlap")
            await drained(pilot, app, sent)
            assert value(app, "pe-title") == "run w 4 q"
            assert value(app, "pe-evidence") == "idle cube"
            assert value(app, "pe-kernel") == "fa kernel"
            assert value(app, "pe-hypothesis") == "more overlap"
            assert isinstance(app.screen, ProjectScreen) and current(app) == "round"
            assert app.screen.last_chart is None  # "w" typed on the select wrote nothing
            assert not view.source_done  # the job still streams
    finally:
        kill_left_over(fresh_root)


async def test_checkbox_keys_and_states_read_without_colour(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        first = next(iter(HARDWARE_CHECKLIST))
        await tab_to(pilot, f"pe-tick-{first}")
        box = app.screen.query_one(f"#pe-tick-{first}", Checkbox)
        assert str(box.render()).startswith("[ ]")
        sent = burst(app, ["space", *"r4w"])  # space ticks; the letters run nothing
        await drained(pilot, app, sent)
        assert box.value and str(box.render()).startswith("[x]")
        assert current(app) == "round" and app.focused is box
        await pilot.press("escape", "escape", "2")  # esc leaves the form: pane keys again
        assert current(app) == "rounds"


async def test_burst_through_the_post_run_form_while_a_job_streams(demo_root: Path) -> None:
    start_scripted_round(demo_root, 2)  # a scripted demo round, opened
    app = PtoApp(demo_root)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4", "r")
            await run_finished(pilot, app)
            view = await stream_a_job(pilot, app)
            await pilot.press("4")
            sent = burst(app, ["a", *"the rescale is needed\rkeep it"])
            await drained(pilot, app, sent)
            assert value(app, "run-analysis") == "the rescale is needed"
            assert value(app, "run-next") == "keep it"
            sent = burst(app, "\r")
            await drained(pilot, app, sent)
            await wait_for(pilot, lambda: "with its Post-Run" in static_text(
                app.screen.query_one("#run-verdict")))
            assert not view.source_done
            assert app.screen.query_one("#run-analysis", Input).value == ""
    finally:
        kill_left_over(demo_root)
