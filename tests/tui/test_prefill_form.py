"""The Pre-Edit form is drafted from the last closed round (kernel, class, evidence,
correctness plan, checklist notes) for the person to confirm: the checklist boxes stay
unticked until ticked, the hypothesis is theirs to write; ctrl+o drafts those fields again."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Checkbox, Input, Select, TextArea

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.preedit_form import PreEditForm
from tests.tui.keys import loaded, type_into
from tests.tui.text import static_text


def _last_closed(root: Path):
    with Campaign(root) as campaign:
        rounds = campaign.rounds()
    return max((r for r in rounds if r.is_closed and not r.is_baseline), key=lambda r: r.number)


async def test_the_form_is_drafted_from_the_last_closed_round(campaign_root: Path) -> None:
    last = _last_closed(campaign_root)
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await pilot.pause()
        form = app.screen.query_one(PreEditForm)
        assert form.prefilled_from == last.number
        note = static_text(app.screen.query_one("#pe-prefilled"))
        assert f"Pre-filled from iter-{last.number:03d}" in note and "class" in note
        pre = form.pre_edit()
        assert pre.kernel == last.pre_edit.kernel and pre.bottleneck == last.pre_edit.bottleneck
        assert pre.evidence == last.pre_edit.evidence.strip()
        assert pre.hypothesis == "" and pre.scope == []  # a new round's own answers
        for key in HARDWARE_CHECKLIST:
            assert pre.checklist[key].note == last.pre_edit.checklist[key].note.strip()
            assert app.screen.query_one(f"#pe-tick-{key}", Checkbox).value is False

        # ctrl+o puts back every field it pre-fills, whatever was typed over it; the
        # person's own answers (the hypothesis) stay
        kernel = app.screen.query_one("#pe-kernel", Input)
        await type_into(pilot, "pe-kernel", " v2")  # tab leaves the text: typed after it
        assert kernel.value == last.pre_edit.kernel + " v2"
        first = next(iter(HARDWARE_CHECKLIST))
        await type_into(pilot, f"pe-note-{first}", " (edited)")
        await type_into(pilot, "pe-hypothesis", "mine")
        app.screen.query_one("#pe-evidence", TextArea).load_text("")
        await pilot.press("ctrl+o")
        await pilot.pause()
        restored = form.pre_edit()
        assert kernel.value == last.pre_edit.kernel
        assert restored.checklist[first].note == last.pre_edit.checklist[first].note.strip()
        assert restored.evidence == last.pre_edit.evidence.strip()
        assert restored.hypothesis == "mine"


async def test_no_draft_without_a_closed_round(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await pilot.pause()
        form = app.screen.query_one(PreEditForm)
        assert form.prefilled_from is None
        assert app.screen.query_one("#pe-prefilled").has_class("hidden")
        assert not isinstance(app.screen.query_one("#pe-bottleneck", Select).value, str)
        await pilot.press("ctrl+o")  # says why, changes nothing
        await pilot.pause()
        assert form.prefilled_from is None
