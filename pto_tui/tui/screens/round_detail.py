"""One round opened from the table: its notes rendered, its patch highlighted, its logs,
and amendments (a closed round is never edited: a correction is kept beside it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import (
    Footer,
    Input,
    Label,
    OptionList,
    Select,
    Static,
    TabbedContent,
    TabPane,
    Tabs,
)
from textual.widgets.option_list import Option

from pto_tui.core.campaign.requests import AmendRequest
from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.drafts import clear_draft
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.reruns import reruns_of
from pto_tui.core.vocabulary import Verdict
from pto_tui.jobs.model import JobRecord, list_records
from pto_tui.tui.compact import compact_input
from pto_tui.tui.drafts import DraftKeeper, form_values, set_form_values
from pto_tui.tui.format import iter_name, round_duration, verdict_text
from pto_tui.tui.forms import FORM
from pto_tui.tui.screens.document import DocumentScreen, file_view
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import pto_app

# files of a round folder that are records, not logs
RECORD_FILES = {"notes.md", "patch.diff", "files.txt", "round.toml"}
AMENDABLE = ("analysis", "next", "verdict")


def round_jobs(jobs: list[JobRecord], number: int) -> list[JobRecord]:
    """The jobs the services ran for a round (iter-000's: also the environment round's and
    the torch_npu reference's), without pto-tui's bookkeeping jobs."""
    return [job for job in jobs if job.round_number == number and not job.internal]


class AmendScreen(ModalScreen[tuple[str, str, str] | None]):
    """Field, new value and the reason of an amendment (core validates and keeps it).
    What is typed is kept as the round's Amend draft until the amendment is recorded."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Amend", id="amend.save"),
        Binding("escape", "cancel", "Cancel", id="amend.cancel"),
    ]

    def __init__(self, record: Round, session: Session) -> None:
        super().__init__()
        self.record = record
        self.draft = DraftKeeper(self, session, "amend", lambda: form_values(self),
                                 lambda: record.number)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="amend-body", classes=FORM, can_focus=False):
            yield Static(Text(f"Amend {iter_name(self.record.number)} (kept beside the original; "
                              "ctrl+s saves, esc cancels)", style="bold"))
            yield Label("Field", classes="field")
            yield Select([(name, name) for name in AMENDABLE], value="analysis", id="amend-field",
                         allow_blank=False, compact=True)
            yield Label("New value (verdict: " + ", ".join(v.value for v in Verdict) + ")",
                        classes="field")
            yield compact_input(id="amend-value", placeholder="the corrected text or verdict")
            yield Label("Why (required)", classes="field")
            yield compact_input(id="amend-why", placeholder="the reason for the amendment")

    def on_mount(self) -> None:
        kept = self.draft.read()
        if kept is not None:
            set_form_values(self, kept.fields)
        self.draft.start()
        self.query_one("#amend-value", Input).focus()

    def on_unmount(self) -> None:
        self.draft.stop()

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.draft.changed()

    def on_select_changed(self, _event: Select.Changed) -> None:
        self.draft.changed()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "amend-value":
            self.query_one("#amend-why", Input).focus()
        else:
            self.run_worker(self.action_save())

    async def action_save(self) -> None:
        field = self.query_one("#amend-field", Select).value
        value = self.query_one("#amend-value", Input).value.strip()
        why = self.query_one("#amend-why", Input).value.strip()
        if not value or not why:
            self.app.notify("write the new value and why", title="amend", severity="warning")
            return
        await self.draft.flush()  # kept until the amendment is recorded (it may be refused)
        self.dismiss((str(field), value, why))

    async def action_cancel(self) -> None:
        await self.draft.flush()  # esc leaves the form, not what was typed into it
        self.dismiss(None)


class RoundScreen(Screen[bool]):
    """Dismissed with True when the round was amended (the project reloads)."""

    BINDINGS = [
        Binding("escape,q", "back", "Back", id="round.back"),
        Binding("n", "tab('notes')", "Notes", id="round.notes"),
        Binding("d", "tab('patch')", "Diff", id="round.diff"),
        Binding("l", "tab('logs')", "Logs", id="round.logs"),
        Binding("a", "amend", "Amend", id="round.amend"),
        Binding("D", "what_changed", "What changed", show=False, id="round.what_changed"),
        Binding("u", "rerun", "Rerun", show=False, id="round.rerun"),
        Binding("j", "scroll('down')", "Down", show=False, id="round.down"),
        Binding("k", "scroll('up')", "Up", show=False, id="round.up"),
    ]

    def __init__(self, record: Round, session: Session) -> None:
        super().__init__()
        self.record = record
        self.session = session
        self.folder = session.layout.round_dir(record.number)
        self.jobs = round_jobs(list_records(session.layout.jobs_dir), record.number)
        self.amended = False
        self.rerun_as: int | None = None  # the round opened here as its rerun

    def compose(self) -> ComposeResult:
        r = self.record
        head = Text.assemble(
            (iter_name(r.number), "bold"), "  ", verdict_text(r), "  ",
            round_duration(r), "  ", r.short_hypothesis(60),
        )
        yield Static(head, classes="topbar")
        links = self._rerun_links()
        if links:
            yield Static(links, id="round-reruns")
        with TabbedContent(initial="notes"):
            with TabPane("Notes", id="notes"), VerticalScroll(classes="round-body"):
                yield file_view(self.folder / "notes.md")
            with TabPane("Patch", id="patch"), VerticalScroll(classes="round-body"):
                yield file_view(self.folder / "patch.diff")
            with TabPane("Logs", id="logs"):
                yield OptionList(*self._log_options(), id="round-logs")
        yield Footer()

    def _rerun_links(self) -> Text:
        """'rerun of iter-002' and/or 'rerun as iter-005, iter-007' (empty: neither)."""
        r, text = self.record, Text()
        if r.rerun_of is not None:
            text.append(f"↻ rerun of {iter_name(r.rerun_of)}", style="bold")
        loaded = self.session.loaded
        later = reruns_of(loaded.rounds, r.number) if loaded else []
        if later:
            text.append("   " if text else "")
            text.append("↻ rerun as " + ", ".join(iter_name(n) for n in later), style="bold")
        return text

    def _log_options(self) -> list[Option]:
        options = []
        if self.folder.is_dir():
            for path in sorted(self.folder.rglob("*")):
                if path.is_file() and path.name not in RECORD_FILES:
                    options.append(Option(Text(str(path.relative_to(self.folder))), id=str(path)))
        for index, job in enumerate(self.jobs):
            label = Text.assemble(f"job {job.name}  ", (job.state.value, "dim"))
            options.append(Option(label, id=f"job:{index}"))
        if not options:
            options.append(Option("no logs recorded for this round", disabled=True))
        return options

    def action_tab(self, name: str) -> None:
        self.query_one(TabbedContent).active = name
        if name == "logs":  # j/k move its cursor and enter opens what it is on
            self.query_one("#round-logs", OptionList).focus()

    def action_scroll(self, where: str) -> None:
        """j/k: the notes and the patch scroll; in the logs the cursor moves."""
        pane = self.query_one(TabbedContent).active_pane
        if pane is None:
            return
        for listing in pane.query(OptionList):
            listing.action_cursor_down() if where == "down" else listing.action_cursor_up()
        for body in pane.query(VerticalScroll):
            body.scroll_down() if where == "down" else body.scroll_up()

    def action_back(self) -> None:
        self.dismiss(self.amended)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        from pto_tui.tui.screens.job_log import JobLogScreen

        option_id = event.option.id or ""
        if option_id.startswith("job:"):
            self.app.push_screen(JobLogScreen(self.jobs[int(option_id[4:])]))
        elif option_id:
            self.app.push_screen(DocumentScreen(Path(option_id)))

    def action_amend(self) -> None:
        if not self.record.is_closed:
            self.app.notify("the round is open: change it in the Round pane (3); amendments "
                            "are for closed rounds", title="amend", severity="warning")
            return
        self.app.push_screen(AmendScreen(self.record, self.session), self._amend)

    async def _amend(self, answer: tuple[str, str, str] | None) -> None:
        if answer is None:
            return
        field, value, why = answer
        campaign, number = self.session.campaign, self.record.number
        said = len(campaign.warnings)
        try:
            self.record = campaign.amend(AmendRequest(self.record.number, field, value, why))
        except PtoError as error:
            pto_app(self).report_error(error, title="amend")
            return
        self.amended = True
        await asyncio.to_thread(clear_draft, self.session.layout, "amend", number)
        warnings = campaign.warnings[said:]
        if warnings:  # held for review: the numbers do not keep it
            self.app.notify(warnings[-1], title="amend held for review", severity="warning", timeout=15)
        else:
            self.app.notify(f"{iter_name(self.record.number)}: {field} amended", title="amend")
        await self.recompose()
        self.query_one(Tabs).focus()  # the focused widget was replaced: keys need a new one

    def action_what_changed(self) -> None:
        from pto_tui.tui.screens.what_changed import WhatChangedScreen

        self.app.push_screen(WhatChangedScreen(self.session, self.record.number))

    def action_rerun(self) -> None:
        """u: this round measured again as a new round (asked first); back to the project,
        on the Run pane, once it is open."""
        from pto_tui.tui.screens.rerun import ask_rerun

        def started(record: Round) -> None:
            self.rerun_as = record.number
            self.dismiss(True)

        ask_rerun(self, self.session, self.record, started)
