"""One navigation rule, by real keys: the panes are reached from every pane, a text field
included (digits where no field has the focus, F1-F5 and alt+digit anywhere, the footer
saying which); esc goes back one level and never to another pane; q goes back in every
sub-screen and quits only at the top. The walk covers every screen of the app."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, OptionList, TextArea

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.compare import CompareScreen
from pto_tui.tui.screens.document import DocumentScreen
from pto_tui.tui.screens.editor import FilePicker, TextEditor
from pto_tui.tui.screens.export import ExportScreen
from pto_tui.tui.screens.help import HelpScreen
from pto_tui.tui.screens.job_log import JobLogScreen
from pto_tui.tui.screens.launcher import LauncherScreen
from pto_tui.tui.screens.leave import LeaveScreen
from pto_tui.tui.screens.params import ParamScreen
from pto_tui.tui.screens.project import PANES, ProjectScreen
from pto_tui.tui.screens.rerun import RerunScreen
from pto_tui.tui.screens.round_detail import AmendScreen, RoundScreen
from pto_tui.tui.screens.what_changed import WhatChangedScreen
from pto_tui.tui.screens.wizard import WizardScreen
from tests.tui.keys import current, loaded, rounds_drawn, tab_to, wait_for
from tests.tui.projects import pre_edit_flags, run
from tests.tui.text import screen_text


def footer(app: PtoApp) -> str:
    return screen_text(app)[-1]


async def test_panes_from_every_pane_even_from_a_text_field(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await app.screen.mount_panes()  # type: ignore[attr-defined]
        assert "1-5 Panes" in footer(app)  # the table has the focus: digits switch
        await pilot.press("3")
        assert current(app) == "round" and app.focused is not None
        assert app.focused.id == "pe-title"  # a text field: digits are text there
        await pilot.pause()
        assert "F1-5 Panes" in footer(app) and "esc Leave field" in footer(app)
        await pilot.press("3", "4", "5")
        assert current(app) == "round"
        assert app.screen.query_one("#pe-title", Input).value == "345"
        await pilot.press("f4")
        assert current(app) == "run"
        await pilot.press("alt+5")  # the Costmodel pane's prompt has the focus now
        assert current(app) == "costmodel" and isinstance(app.focused, Input)
        await pilot.press("3", "q")
        assert current(app) == "costmodel" and app.is_running
        assert app.focused.value == "3q"
        await pilot.press("f3")
        assert current(app) == "round"
        # an xterm sends alt+5 as esc 5, which Textual reads as "∞": a pane key all the same
        app.post_message(events.Key("infinity", "∞"))
        await wait_for(pilot, lambda: current(app) == "costmodel")
        assert "∞" not in app.screen.query_one("#pe-title", Input).value
        await pilot.press("f3")
        # from each pane to each other one, by the key the footer names there
        for start, (pid, _title) in enumerate(PANES, 1):
            await pilot.press(f"f{start}")
            assert current(app) == pid
            await pilot.pause()
            in_field = isinstance(app.focused, Input | TextArea)
            assert ("F1-5 Panes" if in_field else "1-5 Panes") in footer(app), (pid, footer(app))
            for target, (other, _t) in enumerate(PANES, 1):
                await pilot.press(f"f{start}")
                await pilot.press(f"f{target}" if in_field else str(target))
                assert current(app) == other, (pid, other)


async def test_the_footer_fits_80_columns_on_every_pane(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        for key in ("1", "2", "3", "f4", "f5", "escape"):
            await pilot.press(key)
            await pilot.pause()
            shown = screen_text(app)
            assert shown[-1].endswith("^p palette"), shown[-1]  # nothing cut at its end
            assert "Panes" in shown[-1] and len(shown[-1]) <= 80
            assert shown[0].startswith(" fa_tilelib · pto-tile-lib · local · ")  # one row


async def back(pilot: Pilot, app: PtoApp, opened: type[Screen], key: str,
               to: type[Screen]) -> None:
    """The screen `opened` is shown; `key` takes it back to a screen of type `to`."""
    await wait_for(pilot, lambda: isinstance(app.screen, opened))
    await pilot.press(key)
    await wait_for(pilot, lambda: type(app.screen) is to)


async def both_keys_go_back(pilot: Pilot, app: PtoApp, keys: tuple[str, ...],
                            opened: type[Screen], to: type[Screen]) -> None:
    for key in ("escape", "q"):
        await pilot.press(*keys)
        await back(pilot, app, opened, key, to)


async def esc_back_q_typed(pilot: Pilot, app: PtoApp, keys: tuple[str, ...],
                           opened: type[Screen], to: type[Screen]) -> None:
    """A form: q is a letter typed into its field (the form stays); esc goes back."""
    await pilot.press(*keys)
    await wait_for(pilot, lambda: isinstance(app.screen, opened))
    field = app.focused
    await pilot.press("q")
    assert isinstance(app.screen, opened)
    if isinstance(field, Input):
        assert field.value.endswith("q")
    elif isinstance(field, TextArea):
        assert "q" in field.text
    await back(pilot, app, opened, "escape", to)


async def test_esc_and_q_in_every_screen(campaign_root: Path) -> None:
    run("--project", str(campaign_root), "round", "start", *pre_edit_flags("walk every screen"),
        "--recheck", "the tile shape still bounds the cube", "--new-direction", "a new tiling")
    app = PtoApp(campaign_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await rounds_drawn(pilot)
        # the top: esc stays on the pane, whatever the pane, and in a field leaves it
        for pid_key, (pid, _title) in zip("12345", PANES, strict=True):
            await pilot.press(f"f{pid_key}")
            await pilot.press("escape", "escape")
            assert current(app) == pid and not isinstance(app.focused, Input | TextArea)
        await pilot.press("2", "g")
        await both_keys_go_back(pilot, app, ("enter",), RoundScreen, ProjectScreen)
        await both_keys_go_back(pilot, app, ("space", "j", "space", "c"), CompareScreen,
                                ProjectScreen)
        await both_keys_go_back(pilot, app, ("D",), WhatChangedScreen, ProjectScreen)
        await both_keys_go_back(pilot, app, ("question_mark",), HelpScreen, ProjectScreen)
        await both_keys_go_back(pilot, app, ("X",), ExportScreen, ProjectScreen)
        await pilot.press("G", "k")  # iter-004, inconclusive (iter-005 is the open round)
        await both_keys_go_back(pilot, app, ("u",), RerunScreen, ProjectScreen)
        await pilot.press("g", "j", "enter")  # iter-001, closed: its detail, then Amend
        await esc_back_q_typed(pilot, app, ("a",), AmendScreen, RoundScreen)
        await back(pilot, app, RoundScreen, "q", ProjectScreen)
        await pilot.press("1")
        await tab_to(pilot, "ctx-docs")
        await both_keys_go_back(pilot, app, ("enter",), DocumentScreen, ProjectScreen)
        await pilot.press("3")  # the open round's view
        await esc_back_q_typed(pilot, app, ("p",), ParamScreen, ProjectScreen)
        await both_keys_go_back(pilot, app, ("e",), FilePicker, ProjectScreen)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, FilePicker))
        listing = app.screen.query_one(OptionList)
        header = next(i for i in range(listing.option_count)
                      if str(listing.get_option_at_index(i).prompt) == "fa_kernel.h")
        await pilot.press(*["j"] * header, "enter")  # not protected: opened at once
        await esc_back_q_typed(pilot, app, (), TextEditor, TextEditor)  # "q" unsaved: asks
        await back(pilot, app, TextEditor, "escape", ProjectScreen)  # again: dropped
        # q at the top quits, asking first: the "q" typed into Amend is kept as its draft
        await pilot.press("escape", "q")
        await wait_for(pilot, lambda: isinstance(app.screen, LeaveScreen))
        assert "the Amend draft of iter-001" in "\n".join(screen_text(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running)


async def test_q_goes_back_from_a_job_log(demo_root: Path) -> None:
    """The job log one level under a round's detail: q and esc go back there."""
    app = PtoApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await rounds_drawn(pilot)
        await pilot.press("g", "enter", "l")  # iter-000: its jobs are the loop's first steps
        await wait_for(pilot, lambda: isinstance(app.screen, RoundScreen))
        listing = app.screen.query_one("#round-logs", OptionList)
        await wait_for(pilot, lambda: listing.option_count > 0)
        job = next(i for i in range(listing.option_count)
                   if str(listing.get_option_at_index(i).id).startswith("job:"))
        for key in ("q", "escape"):
            await pilot.press("l")
            listing.focus()
            listing.highlighted = job
            await pilot.press("enter")
            await back(pilot, app, JobLogScreen, key, RoundScreen)
        await back(pilot, app, RoundScreen, "q", ProjectScreen)
        assert app.is_running


async def test_the_leave_question_and_the_launcher(tmp_path: Path, campaign_root: Path) -> None:
    """At the top: with a draft typed q asks, esc and q stay; the launcher's esc does
    nothing, its q quits; the wizard (a form) goes back by esc."""
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3", *"half a title", "escape")
        await wait_for(pilot, lambda: (campaign_root / ".pto-tui/drafts/pre-edit.json").exists())
        for key in ("escape", "q"):
            await pilot.press("q")
            await back(pilot, app, LeaveScreen, key, ProjectScreen)
        assert app.is_running and current(app) == "round"
    launcher = PtoApp(None, start_dir=campaign_root.parent.parent)
    async with launcher.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(launcher.screen, LauncherScreen))
        await pilot.press("escape")
        assert isinstance(launcher.screen, LauncherScreen) and launcher.is_running
        await esc_back_q_typed(pilot, launcher, ("n",), WizardScreen, LauncherScreen)
        await pilot.press("q")
        await wait_for(pilot, lambda: not launcher.is_running)
