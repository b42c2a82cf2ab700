"""Reviewing a campaign by keys: the table, its filter, compare, a round opened, help."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static, TabbedContent

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.compare import CompareScreen
from pto_tui.tui.screens.help import HelpScreen
from pto_tui.tui.screens.round_detail import RoundScreen
from pto_tui.tui.widgets.rounds_pane import RoundsPane
from tests.tui.keys import current, loaded
from tests.tui.text import static_text


def table_rows(app: PtoApp) -> list[str]:
    table = app.screen.query_one("#rounds-table", DataTable)
    return [str(table.get_row_at(i)[2]) for i in range(table.row_count)]


async def test_table_lists_rounds_with_frontier_and_counts(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert table_rows(app) == ["0", "1", "2", "3", "4"]
        table = app.screen.query_one("#rounds-table", DataTable)
        assert str(table.get_row_at(1)[1]) == "★"  # iter-001 is the frontier
        assert str(table.get_row_at(1)[3]) == "✓ kept"
        counts = static_text(app.screen.query_one("#rounds-counts", Static))
        assert "kept 1" in counts and "failure 1" in counts and "inconclusive 1" in counts


async def test_filter_by_verdict_class_and_text(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *"verdict:kept", "enter")
        assert table_rows(app) == ["1"]
        await pilot.press("slash", "ctrl+u", *"class:fifo", "enter")
        assert table_rows(app) == ["2"]
        await pilot.press("slash", "ctrl+u", *"preload", "enter")
        assert table_rows(app) == ["3"]
        await pilot.press("escape")  # clears the filter
        assert table_rows(app) == ["0", "1", "2", "3", "4"]
        await pilot.press("s")  # sort by duration: fastest first, no number last
        assert table_rows(app) == ["4", "1", "2", "0", "3"]


async def test_escape_with_no_filter_left_stays_on_the_rounds_pane(campaign_root: Path) -> None:
    """The first esc clears the filter; the next, with nothing to clear, goes back one
    level, which on a pane's own level is nowhere: never to another pane."""
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        table = app.screen.query_one("#rounds-table", DataTable)
        await pilot.press("slash", *"verdict:kept", "enter")
        assert table_rows(app) == ["1"]
        await pilot.press("escape")  # clears the filter
        assert table_rows(app) == ["0", "1", "2", "3", "4"]
        assert app.focused is table
        await pilot.press("escape", "escape")
        assert current(app) == "rounds"
        assert app.focused is table
        assert table_rows(app) == ["0", "1", "2", "3", "4"]
        row = table.cursor_row
        await pilot.press("k")  # the pane's keys still work
        assert table.cursor_row == row - 1


async def test_mark_two_rounds_and_compare_only_differences(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("j", "space", "j", "space", "c")  # iter-001 and iter-002
        assert isinstance(app.screen, CompareScreen)
        text = static_text(app.screen.query_one("#compare-body Static", Static))
        assert "kFaCvFifoSize" in text and "kFaTileS1" not in text  # same in both: hidden
        assert "kept" in text and "neutral" in text
        assert "Kernel" not in text  # the same Pre-Edit kernel is not repeated
        await pilot.press("escape")
        assert not isinstance(app.screen, CompareScreen)


async def test_enter_opens_round_with_notes_patch_and_logs(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("j", "enter")
        assert isinstance(app.screen, RoundScreen)
        assert app.screen.record.number == 1
        await pilot.press("d")
        assert app.screen.query_one(TabbedContent).active == "patch"
        await pilot.press("escape")
        assert not isinstance(app.screen, RoundScreen)


async def test_help_lists_keys_of_the_focused_pane(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(static_text(w) for w in app.screen.query(Static))
        assert "by pane (Rounds first)" in text and "Filter" in text and "rounds.filter" in text
        await pilot.press("escape")
        assert isinstance(app.screen.query_one(RoundsPane), RoundsPane)


async def test_digits_switch_panes_but_type_inside_inputs(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        assert current(app) == "context"
        await pilot.press("5")  # the costmodel prompt takes the focus
        assert current(app) == "costmodel"
        await pilot.press("3")  # typed into the prompt, not a pane switch
        assert current(app) == "costmodel"
        assert app.screen.query_one("#cm-query", Input).value == "3"
        await pilot.press("escape", "2")  # esc leaves the field, then digits work again
        assert current(app) == "rounds"


async def test_keys_remap_from_keys_toml(campaign_root: Path) -> None:
    from pto_tui.tui.keys import keys_path

    keys_path().parent.mkdir(parents=True, exist_ok=True)
    keys_path().write_text('[keys]\n"pane.context" = "f2"\n', encoding="utf-8")
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("f2")
        assert current(app) == "context"


async def test_amend_a_closed_round_from_its_detail(campaign_root: Path) -> None:
    from pto_tui.core.campaign.campaign import Campaign

    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("j", "enter", "a")  # iter-001; the field defaults to analysis
        await pilot.press(*"tile fits", "enter")
        await pilot.press("enter")  # no reason yet: refused, nothing written
        with Campaign(campaign_root) as campaign:
            assert campaign.round(1).amendments == []
        await pilot.press(*"re-read the log", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RoundScreen)
        with Campaign(campaign_root) as campaign:
            amendments = campaign.round(1).amendments
        assert [(a.field, a.new, a.why) for a in amendments] == [("analysis", "tile fits", "re-read the log")]
        await pilot.press("escape")  # back, and the table shows the amended mark
        await pilot.pause(0.3)
        assert str(app.screen.query_one("#rounds-table", DataTable).get_row_at(1)[3]) == "✓ kept*"
