"""A launch draws the round table before the other panes are built, and a pane asked for
before they are (a digit pressed at once) is built then and shown."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest
from textual.widgets import DataTable

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.project import PANES, ProjectScreen
from pto_tui.tui.session import LoadedProject
from pto_tui.tui.widgets.rounds_pane import FIRST_ROWS, MORE_ROWS, RoundsPane
from pto_tui.tui.widgets.rounds_rows import COMPARE_MARK, PIN_MARK
from pto_tui.tui.widgets.run_pane import RunPane
from tests.tui.keys import loaded, session_of, wait_for


async def test_the_first_frame_holds_only_the_round_table(
    campaign_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attached_at_first_apply: list[dict[str, bool]] = []
    apply = ProjectScreen.apply

    def watched(screen: ProjectScreen, project: LoadedProject) -> None:
        if not attached_at_first_apply:
            attached_at_first_apply.append(
                {pid: pid in screen._panes and screen._panes[pid].is_attached
                 for pid, _title in PANES})
        apply(screen, project)

    monkeypatch.setattr(ProjectScreen, "apply", watched)
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert attached_at_first_apply == [
            {pid: pid == "rounds" for pid, _title in PANES}]
        screen = app.screen
        assert isinstance(screen, ProjectScreen)
        await wait_for(pilot, lambda: all(p.is_attached for p in screen.panes.values()))
        # mounted after the first frame, then filled from the same load
        assert screen.query_one("#context").display is False
        await pilot.press("1")
        tunables = screen.query_one("#ctx-tunables", DataTable)
        assert tunables.row_count == len(session_of(app).campaign.config.tunables) > 0


async def test_a_pane_asked_for_at_once_is_built_and_shown(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, ProjectScreen):
            await pilot.pause(0.01)
        await pilot.press("4")  # before the project is read: only the table exists
        screen = app.screen
        await wait_for(pilot, lambda: screen.current == "run")
        run = screen.query_one(RunPane)
        assert run.display is True
        assert screen.query_one("#rounds").display is False
        assert app.focused is screen.query_one("#run-loop")
        await loaded(pilot)
        assert screen.query_one("#run-hint").render()


def many_rounds(base: Path, rounds: int) -> Path:
    """A project of `rounds` closed rounds, from the benchmarks' one generator of them."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bookkeeping_bench.py"
    spec = importlib.util.spec_from_file_location("bookkeeping_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_project(base, rounds)


def shown_numbers(table: DataTable) -> list[int]:
    return [int(str(table.get_row_at(i)[2])) for i in range(table.row_count)]


async def test_a_long_table_fills_after_its_first_rows_and_g_brings_the_rest_at_once(
    tmp_path: Path,
) -> None:
    root = many_rounds(tmp_path, FIRST_ROWS + MORE_ROWS + 50)
    total = FIRST_ROWS + MORE_ROWS + 50
    sizes: list[int] = []
    add_rows = RoundsPane._add_rows

    def watched(pane: RoundsPane, *args: object, **kwargs: object) -> None:
        add_rows(pane, *args, **kwargs)  # type: ignore[arg-type]
        sizes.append(pane.table.row_count)

    app = PtoApp(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RoundsPane, "_add_rows", watched)
        async with app.run_test(size=(120, 40)) as pilot:
            while not sizes:  # the first rows are in; the rest come after refreshes
                await asyncio.sleep(0.001)
            pane = app.screen.query_one(RoundsPane)
            assert pane.filling
            at_g: list[tuple[bool, bool]] = []  # filling before G, and after it
            cursor = pane.action_cursor

            def seen(where: str) -> None:
                before = pane.filling
                cursor(where)
                at_g.append((before, pane.filling))

            pane.action_cursor = seen  # type: ignore[method-assign]
            pane.focus_default()
            await pilot.press("G")  # while it fills: every row left at once, the last one
            assert at_g == [(True, False)]
            assert pane.selected() == total - 1
            assert sizes[0] == FIRST_ROWS and sizes[-1] == total
            assert shown_numbers(pane.table) == list(range(total))
            # the cells were made in the loading thread: the fill only added them
            prepared = pane._prepared
            assert prepared is not None and prepared.loaded is pane.loaded
            assert all(pane.table.get_row_at(n)[3] is prepared.cells[n][2] for n in range(total))
            await wait_for(pilot, lambda: pane.drawn)
            sizes.clear()
            await pilot.press("S")  # reverse: a new fill, in chunks after its first rows
            await wait_for(pilot, lambda: pane.drawn)
            assert sizes == [FIRST_ROWS, FIRST_ROWS + MORE_ROWS, total]
            assert shown_numbers(pane.table) == list(range(total))[::-1]
            assert pane.selected() == total - 1  # the cursor stays on its round


async def test_marking_redraws_the_marks_alone(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        pane = app.screen.query_one(RoundsPane)
        pane.focus_default()
        fills: list[int] = []
        pane._fill = lambda: fills.append(1)  # type: ignore[method-assign]
        await pilot.press("space", "j", "space", "j", "space")  # the third mark drops the first
        assert pane.marked == [1, 2]
        marks = [str(pane.table.get_row_at(i)[0]) for i in range(pane.table.row_count)]
        assert marks[:4] == ["", COMPARE_MARK, COMPARE_MARK, ""]
        await pilot.press("P")
        assert str(pane.table.get_row_at(2)[0]) == PIN_MARK + COMPARE_MARK
        assert fills == []
