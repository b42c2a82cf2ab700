"""The Post-Run of the round the Run pane just measured: its Analysis and Next, written
before the round closes (docs/workflow.md §15). Shown only while a round awaits it."""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import CloseRequest
from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.records import Round
from pto_tui.tui.typed_app import pto_app


class PostRunForm(Vertical):
    """enter in Analysis goes to Next; enter in Next (or ctrl+s) is the pane's: it closes."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        # the round measured here, open until its Post-Run is written (its verdict shown
        # until then is a preview)
        self.awaiting: Round | None = None

    def compose(self) -> ComposeResult:
        yield Input(id="run-analysis", placeholder="Analysis: why it worked or failed")
        yield Input(id="run-next", placeholder="Next: what to try next (enter or ctrl+s closes)")

    def ask_for(self, record: Round | None) -> None:
        """Ask for the Post-Run of `record`; None: of no round (the form hides)."""
        self.awaiting = record
        self.set_class(record is None, "hidden")

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
        for field in self.query(Input):
            field.value = ""
        self.ask_for(None)
        return closed

    def focus_analysis(self) -> None:
        self.query_one("#run-analysis", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "run-analysis":
            event.stop()
            self.query_one("#run-next", Input).focus()
