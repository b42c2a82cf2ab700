"""From the keyboard, as from the CLI: a verdict amended to kept against the round's own
numbers is held for review (the notice says how to confirm it), and the Context pane
says which faster round the frontier passes over and why."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.vocabulary import Verdict
from pto_tui.jobs.model import list_records
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.round_detail import RoundScreen
from tests.tui.keys import loaded
from tests.tui.text import static_text


def _inconclusive(root: Path) -> int:
    with Campaign(root) as campaign:
        return next(r.number for r in campaign.rounds() if r.verdict is Verdict.INCONCLUSIVE)


async def test_amending_to_kept_from_the_detail_is_held(campaign_root: Path) -> None:
    number = _inconclusive(campaign_root)
    app = PtoApp(campaign_root)
    notes: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        app.notify = lambda message, **kw: notes.append(f"{kw.get('title', '')}: {message}")  # type: ignore[method-assign]
        await pilot.press("2")
        table = app.screen.query_one("#rounds-table", DataTable)
        table.move_cursor(row=number)
        await pilot.press("enter", "a")
        await pilot.press("shift+tab", "enter", "up", "enter")  # the field: verdict
        await pilot.press("tab", *"kept", "enter", *"looks faster to me", "enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, RoundScreen)
        assert any(n.startswith("amend held for review") and f"round confirm {number}" in n
                   for n in notes), notes
    with Campaign(campaign_root) as campaign:
        record = campaign.round(number)
    assert record.held_for_review and record.amendments == []
    assert record.effective_verdict() is Verdict.INCONCLUSIVE


async def test_the_context_pane_says_what_the_frontier_passes_over(campaign_root: Path) -> None:
    with Campaign(campaign_root) as campaign:
        number = max(r.number for r in campaign.rounds()) + 1
    name = f"iter-{number:03d}"
    folder = campaign_root / "runs" / name
    folder.mkdir()
    (folder / "notes.md").write_text(
        f"# {name}\n\n## Post-Run\n\n- **Correctness**: pass\n- **Performance**: 1.000 us\n"
        "- **Result**: kept\n")
    with (campaign_root / "ITERATIONS.md").open("a") as handle:
        handle.write(f"| {name} | smaller tiles | - | 100 us | 1.000 us | pass | kept |\n")
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        await pilot.pause(0.3)
        text = static_text(app.screen.query_one("#ctx-summary"))
        assert "passed over" in text and name in text and "written by hand" in text
        await pilot.press("2")
        await pilot.pause(0.3)
        table = app.screen.query_one("#rounds-table", DataTable)
        row = [str(cell) for cell in table.get_row_at(table.row_count - 1)]
        assert row[2] == str(number) and row[1] == ""  # no frontier mark: it never led


async def test_a_command_is_not_uploaded_under_another_owner_s_run(fresh_root: Path) -> None:
    from pto_tui.core.project.run_claim import take_claim

    state = fresh_root / ".pto-tui"
    assert take_claim(state, owner="another pto-tui", command="pto-tui round run", what="round run",
                      number=1)
    app = PtoApp(fresh_root)
    notes: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        app.notify = lambda message, **kw: notes.append(f"{kw.get('title', '')}: {message}")  # type: ignore[method-assign]
        await pilot.press("4", "exclamation_mark", *"touch ran-here", "enter")
        await pilot.pause(0.5)
    assert any("one-owner-per-round" in n and "round run of iter-001" in n for n in notes), notes
    with Campaign(fresh_root) as campaign:
        assert list_records(campaign.layout.jobs_dir) == []  # no job was started
