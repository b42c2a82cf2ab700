"""A whole round by keys: refused by the gates, then started, parameters changed,
measured and closed with a verdict. Every check reads the records on disk."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, ContentSwitcher, Static

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.params import ParamScreen
from tests.tui.keys import loaded, tab_to, type_into, wait_for
from tests.tui.text import static_text


def rounds_on_disk(root: Path) -> list[int]:
    with Campaign(root) as campaign:
        return [r.number for r in campaign.rounds()]


async def fill_pre_edit(pilot, *, checklist: bool = True,
                        scope: str = "kFaTileS1") -> None:
    await type_into(pilot, "pe-title", "S1 128")
    await tab_to(pilot, "pe-bottleneck")
    await pilot.press("enter", *["down"] * 9, "enter")  # the 9th class: bad tile shape
    await type_into(pilot, "pe-evidence", "idle")
    await type_into(pilot, "pe-kernel", "fa")
    await type_into(pilot, "pe-hypothesis", "overlap")
    await type_into(pilot, "pe-why_ascend", "AIC")
    await type_into(pilot, "pe-expected_metric", "time")
    await type_into(pilot, "pe-main_risk", "loads")
    await type_into(pilot, "pe-correctness_plan", "same")
    await type_into(pilot, "pe-scope", scope)
    if checklist:
        for key in HARDWARE_CHECKLIST:
            await tab_to(pilot, f"pe-tick-{key}")
            await pilot.press("space")
            await type_into(pilot, f"pe-note-{key}", "ok")


async def test_round_refused_by_gates_then_kept(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await fill_pre_edit(pilot, checklist=False)
        gates = static_text(app.screen.query_one("#pe-gates", Static))
        assert "hardware-checklist" in gates
        assert app.screen.query_one("#pe-start", Button).disabled
        await pilot.press("ctrl+s")  # refused: nothing is written
        await pilot.pause()
        assert rounds_on_disk(fresh_root) == [0]

        for key in HARDWARE_CHECKLIST:
            await tab_to(pilot, f"pe-tick-{key}")
            await pilot.press("space")
            await type_into(pilot, f"pe-note-{key}", "ok")
        assert "every gate passes" in static_text(app.screen.query_one("#pe-gates", Static))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: rounds_on_disk(fresh_root) == [0, 1])
        with Campaign(fresh_root) as campaign:
            record = campaign.round(1)
        assert record.pre_edit.bottleneck == "bad tile shape"
        assert record.pre_edit.checklist["tile_shape"].note == "ok"
        assert record.title == "S1 128"

        # the parameter form: kFaTileS1 256 -> 128
        await wait_for(pilot, lambda: app.screen.query_one("#round-switch", ContentSwitcher).current
                       == "openround")
        await pilot.press("escape", "3")
        await pilot.press("p")
        assert isinstance(app.screen, ParamScreen)
        await tab_to(pilot, "param-kFaTileS1")
        await pilot.press("end", "backspace", "backspace", "backspace", *"128", "ctrl+s")
        await wait_for(pilot, lambda: bool(recorded(fresh_root).changes.parameters))
        record = recorded(fresh_root)
        assert [(p.name, p.old, p.new) for p in record.changes.parameters] == [
            ("kFaTileS1", 256, 128)
        ]
        assert (fresh_root / "runs" / "iter-001" / "patch.diff").is_file()
        shown = static_text(app.screen.query_one("#or-changes", Static))
        assert "kFaTileS1: 256 → 128" in shown

        await measure_and_close_kept(pilot, app, fresh_root)


def recorded(root: Path):
    with Campaign(root) as campaign:
        return campaign.round(1)


async def measure_and_close_kept(pilot: Pilot, app: PtoApp, fresh_root: Path) -> None:
    """Numbers, then close: faster than the baseline, repeatably -> kept."""
    await tab_to(pilot, "or-build")
    await pilot.press("enter", "down", "enter")
    await tab_to(pilot, "or-correct")
    await pilot.press("enter", "down", "enter")
    await type_into(pilot, "or-samples", "90,91,89,90")
    await tab_to(pilot, "or-measure")
    await pilot.press("enter")
    await wait_for(pilot, lambda: recorded(fresh_root).measurement.samples_us
                   == [90, 91, 89, 90])  # written off the event loop
    await type_into(pilot, "or-analysis", "ok")
    await type_into(pilot, "or-next", "FIFO")
    await tab_to(pilot, "or-close")
    await pilot.press("enter")
    await wait_for(pilot, lambda: recorded(fresh_root).is_closed)  # written off the event loop
    record = recorded(fresh_root)
    assert record.is_closed and record.verdict is not None
    assert record.verdict.value == "kept"
    assert record.analysis == "ok"
    await wait_for(pilot, lambda: app.screen.query_one("#round-switch", ContentSwitcher).current
                   == "preedit")
    assert "iter-001 ✓ kept" in static_text(app.screen.query_one("#round-state", Static))


async def test_start_refused_without_environment_round(tmp_path: Path) -> None:
    from tests.tui.projects import new_project

    root = new_project(tmp_path, environment=False, baseline=False, torch=False)
    app = PtoApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        gates = static_text(app.screen.query_one("#pe-gates", Static))
        assert "environment-round" in gates and "baseline-first" in gates
        assert "four-questions" in gates
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert rounds_on_disk(root) == []
