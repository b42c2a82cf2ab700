"""Review features by keys: one palette for every pane, `?` by pane, the table's legend,
export and report from the TUI, a pinned reference for compare, one unit per column."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from textual.widgets import DataTable, Static

from pto_tui.core.rounds.export import read_csv
from pto_tui.tui.actions import screen_actions
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.compare import CompareScreen
from pto_tui.tui.screens.export import ExportScreen
from pto_tui.tui.screens.help import HelpScreen
from pto_tui.tui.widgets.rounds_pane import RoundsPane
from tests.tui.keys import current, loaded, wait_for
from tests.tui.projects import add_round, new_project
from tests.tui.test_simulated_labels import _cpu_sim_project as cpu_sim_project
from tests.tui.text import static_text


def _binding_ids(app: PtoApp) -> set[str]:
    """Every binding id of the project screen's panes, the screen and the app."""
    screen = app.screen
    ids: set[str] = set()
    for node in [app, screen, *screen.walk_children()]:
        for _key, binding in node._bindings:
            if binding.id is not None:
                ids.add(binding.id)
    return ids


def _palette_ids(app: PtoApp) -> Counter[str]:
    return Counter(i for a in screen_actions(app.screen) for i in a.ids)


async def test_palette_lists_every_action_once_from_any_pane(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        all_ids = _binding_ids(app)
        assert {"rounds.filter", "run.round", "log.follow", "round.edit", "costmodel.sort",
                "project.export", "project.report", "rounds.pin", "app.quit"} <= all_ids
        titles_by_pane = []
        for pane in ("2", "4"):  # from the Rounds pane, then from the Run pane
            await pilot.press(pane)
            counts = _palette_ids(app)
            assert set(counts) == all_ids
            assert [i for i, n in counts.items() if n != 1] == []
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert len(titles) == len(set(titles)), Counter(titles).most_common(3)
            assert titles.count("Quit") == 1  # ours (asks first while work runs), not Textual's
            assert "Keys" in titles and "Theme" in titles
            titles_by_pane.append(sorted(titles))
        assert titles_by_pane[0] == titles_by_pane[1]  # the same list whatever the pane


async def test_palette_runs_an_action_on_its_pane(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("4")  # the Run pane
        rounds = app.screen.query_one(RoundsPane)
        assert rounds.sort_index == 0
        await pilot.press("ctrl+p")
        await pilot.press(*"Rounds: Sort")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: rounds.sort_index == 1)
        assert current(app) == "rounds"


async def test_help_lists_this_apps_keys_by_pane(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        groups = list(dict.fromkeys(a.group for a in app.screen.actions))
        assert groups == ["Run", "Context", "Rounds", "Round", "Costmodel", "Everywhere"]
        text = static_text(app.screen.query_one("#help-table", Static))
        assert "rounds.filter" in text and "run.round" in text and "log.follow" in text
        assert "project.export" in text and "app.help" in text
        for internal in ("ctrl+c", "Copy", "Focus Next", "focus_next", "palette", "cursor_down"):
            assert internal not in text  # Textual's own keys are not listed
        body = app.screen.query_one("#help-body")
        assert body.max_scroll_y > 0  # longer than 24 lines: it scrolls
        await pilot.press("j", "j")
        assert body.scroll_y > 0
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_legend_of_the_marks_under_the_table(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        legend = app.screen.query_one("#rounds-legend", Static)
        assert legend.region.height == 1 and legend.region.width > 0
        text = static_text(legend)
        for mark in ("↑ frontier step", "★ frontier", "* amended", "▶ marked", "◆ reference"):
            assert mark in text
        assert "tampered" not in text and "simulated" not in text  # no round has them
        assert len(text.rstrip()) <= 80
        table = app.screen.query_one("#rounds-table", DataTable)
        assert table.region.height >= table.row_count + 1  # every row and the header shown


async def test_legend_names_tampered_and_simulated_marks_when_shown(tmp_path: Path) -> None:
    """A cpu-sim project's timings are simulated; a closed record edited by hand is tampered."""
    root = cpu_sim_project(tmp_path)
    path = root / "runs/iter-000/round.toml"
    text = path.read_text(encoding="utf-8")
    assert 'title = "baseline"' in text
    path.write_text(text.replace('title = "baseline"', 'title = "baseline (edited)"'),
                    encoding="utf-8")
    app = PtoApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert any(r.tampered for r in app.session.loaded.rounds)  # type: ignore[union-attr]
        text = static_text(app.screen.query_one("#rounds-legend", Static))
        assert "! tampered" in text and "(sim) simulated" in text


async def test_export_csv_and_report_from_the_tui(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "X")  # from the Run pane: X is a screen key (x cancels there)
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("c")
        path = campaign_root / "rounds.csv"
        await wait_for(pilot, path.is_file)
        assert [row.round for row in read_csv(path.read_text(encoding="utf-8"))] == [0, 1, 2, 3, 4]
        await pilot.press("X", "j")
        json_path = campaign_root / "rounds.json"
        await wait_for(pilot, json_path.is_file)
        assert len(json.loads(json_path.read_text(encoding="utf-8"))["rounds"]) == 5
        await pilot.press("X", "escape")  # nothing chosen: nothing written
        assert not (campaign_root / "rounds.md").exists()
        await pilot.press("R")
        report = campaign_root / "REPORT.md"
        await wait_for(pilot, report.is_file, timeout=60)
        assert "iter-001" in report.read_text(encoding="utf-8")


async def test_pinned_reference_compared_with_the_cursor_round(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("j", "P")  # iter-001 pinned
        table = app.screen.query_one("#rounds-table", DataTable)
        assert str(table.get_row_at(1)[0]) == "◆"
        counts = static_text(app.screen.query_one("#rounds-counts", Static))
        assert "reference iter-001" in counts
        await pilot.press("j", "c")  # iter-002 against the reference
        assert isinstance(app.screen, CompareScreen)
        assert (app.screen.a.number, app.screen.b.number, app.screen.pinned) == (1, 2, True)
        title = static_text(app.screen.query_one("#compare-title", Static))
        assert "iter-001 (reference) ↔ iter-002: only what differs" in title
        body = static_text(app.screen.query_one("#compare-table", Static))
        assert "kFaCvFifoSize" in body and "kFaTileS1" not in body  # diff only
        await pilot.press("d")  # full: every fact, the differing rows marked
        full = static_text(app.screen.query_one("#compare-table", Static))
        assert "kFaTileS1" in full and "Kernel" in full
        assert any(line.lstrip().startswith("≠") and "kFaCvFifoSize" in line
                   for line in full.splitlines())
        assert not any(line.lstrip().startswith("≠") and "Kernel" in line
                       for line in full.splitlines())
        await pilot.press("d")
        assert "Kernel" not in static_text(app.screen.query_one("#compare-table", Static))
        await pilot.press("escape", "k", "c")  # the cursor on the reference: nothing
        assert not isinstance(app.screen, CompareScreen)
        await pilot.press("P")  # P again unpins
        assert app.screen.query_one(RoundsPane).pinned is None


async def test_duration_column_in_one_unit(tmp_path: Path) -> None:
    """23987 us beside 9060 us: both in us (the column's median is below 10 ms)."""
    root = new_project(tmp_path)
    add_round(root, "a much slower tile", "23987,23988,23986")
    add_round(root, "a slower tile", "9060,9061,9059", value="64")
    app = PtoApp(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        table = app.screen.query_one("#rounds-table", DataTable)
        cells = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
        assert cells == ["100.0 us", "23987.0 us", "9060.0 us"]
