"""The Post-Run of the round the Run pane just measured: its Analysis and Next, written
before the round closes (docs/workflow.md §15). Shown only while a round awaits it."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import CloseRequest
from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.drafts import FieldValue
from pto_tui.core.rounds.records import Round
from pto_tui.tui.drafts import DraftKeeper, form_values, set_form_values
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import pto_app
from pto_tui.tui.widgets.run_outcome import with_last_line


class VerdictBox(Static):
    """What the last run recorded (a round's verdict preview), or why it recorded nothing,
    above the Post-Run form; hidden while there is nothing to say."""

    def show(self, text: Text | None) -> None:
        self.set_class(text is None, "hidden")
        self.update(text or "")

    def closed(self, record: Round) -> None:
        """The round was closed with its Post-Run: said in place of the Post-Run hint."""
        shown = self.content if isinstance(self.content, Text) else Text(str(self.content))
        verdict = record.verdict.value if record.verdict else "-"
        self.update(with_last_line(shown, Text(f"closed: {verdict}, with its Post-Run",
                                               style="dim")))


class PostRunForm(Vertical):
    """enter in Analysis goes to Next; enter in Next (or ctrl+s) is the pane's: it closes.
    What is typed is kept as the round's Post-Run draft until it closes."""

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # the round measured here, open until its Post-Run is written (its verdict shown
        # until then is a preview)
        self.awaiting: Round | None = None
        self.draft = DraftKeeper(self, session, "post-run", self.draft_fields,
                                 lambda: self.awaiting.number if self.awaiting else None)

    def compose(self) -> ComposeResult:
        yield Input(id="run-analysis", placeholder="Analysis: why it worked or failed")
        yield Input(id="run-next", placeholder="Next: what to try next (enter or ctrl+s closes)")

    def on_mount(self) -> None:
        self.draft.start()

    def on_unmount(self) -> None:
        self.draft.stop()

    def ask_for(self, record: Round | None) -> None:
        """Ask for the Post-Run of `record` (its draft, if one is kept, back in the
        fields); None: of no round (the form hides)."""
        asked_before = self.awaiting is not None and record is not None \
            and self.awaiting.number == record.number
        self.awaiting = record
        self.set_class(record is None, "hidden")
        if record is not None and not asked_before:
            kept = self.draft.read()
            if kept is not None:
                set_form_values(self, kept.fields)

    async def preview(self, campaign: Campaign, number: int) -> Round | None:
        """The verdict preview of open round `number` measured before (another session, the
        CLI), read off the event loop; None when it has none or is closed."""
        try:
            record = await asyncio.to_thread(campaign.preview, number)
        except PtoError:
            return None  # nothing to preview yet: r runs the round
        return None if record.is_closed else record

    def draft_fields(self) -> dict[str, FieldValue]:
        return form_values(self)

    def on_input_changed(self, _event: Input.Changed) -> None:
        if self.awaiting is not None:
            self.draft.changed()

    async def close_round(self, campaign: Campaign) -> Round | None:
        """Close the awaiting round with the Analysis and Next typed (written off the event
        loop); the form then clears and hides. None: nothing closed (said why)."""
        record = self.awaiting
        if record is None:
            return None
        analysis = self.query_one("#run-analysis", Input).value.strip()
        next_step = self.query_one("#run-next", Input).value.strip()
        if not analysis or not next_step:
            self.app.notify("write both the Analysis and the Next step first", title="post-run")
            return None
        try:
            closed = await asyncio.to_thread(
                campaign.close_round, CloseRequest(record.number, analysis=analysis, next_step=next_step))
        except PtoError as error:
            pto_app(self).report_error(error, title="post-run")
            return None
        await self.draft.clear()  # submitted: the draft has done its job
        self.ask_for(None)
        for field in self.query(Input):
            field.value = ""
        return closed

    def focus_analysis(self) -> None:
        self.query_one("#run-analysis", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "run-analysis":
            event.stop()
            self.query_one("#run-next", Input).focus()
