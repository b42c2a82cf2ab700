"""Pane 3: the round: Pre-Edit form, then edit, changes, measurement and close.

Every step is one campaign call (start_round, record_changes, record_measurement,
close_round); refusals come back as RuleViolation and are shown with their rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, ContentSwitcher, Input, Select, Static

from pto_tui.core.campaign.prefill import perf_sim_evidence_of
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.rounds.records import Measurement, PreEdit, Round
from pto_tui.core.rules.scope import is_protected
from pto_tui.core.vocabulary import ChangeKind
from pto_tui.tui.file_text import read_text
from pto_tui.tui.format import duration, error_text, iter_name, round_duration, verdict_text
from pto_tui.tui.messages import ProjectChanged, StartRequested
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.typed_app import pto_app
from pto_tui.tui.widgets.open_round import OpenRoundView, parse_samples
from pto_tui.tui.widgets.pane import ProjectPane
from pto_tui.tui.widgets.preedit_form import PreEditForm

T = TypeVar("T")
MAX_DIFF_LINES = 400  # the whole diff is in patch.diff; the pane shows its head


class RoundPane(Vertical, ProjectPane):
    BINDINGS = [
        Binding("ctrl+n", "explore", "Explore the ranking", show=False, id="round.explore"),
    ]

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.last_closed: Round | None = None
        self.writing = ""  # the campaign call being written now (off the event loop)

    def compose(self) -> ComposeResult:
        yield Static(id="round-state")
        with ContentSwitcher(initial="preedit", id="round-switch"):
            yield PreEditForm(self.session, id="preedit")
            yield OpenRoundView(id="openround")

    @property
    def campaign(self):
        return self.session.campaign

    def focus_default(self) -> None:
        # the form's first field (the form is no focus stop); esc leaves it for pane keys
        switch = self.query_one("#round-switch", ContentSwitcher)
        self.query_one("#pe-title" if switch.current == "preedit" else "#openround").focus()

    def show_loaded(self, loaded: LoadedProject) -> None:
        form = self.query_one(PreEditForm)
        form.set_context(loaded, self.campaign.config.phases)
        open_round = loaded.open_round
        switch = self.query_one("#round-switch", ContentSwitcher)
        wanted = "openround" if open_round else "preedit"
        if switch.current != wanted:
            switch.current = wanted
            focused = self.screen.focused
            if focused is not None and self in focused.ancestors:
                self.focus_default()  # focus must not stay in a hidden form
        state = self.query_one("#round-state", Static)
        if open_round is not None:
            state.update(Text.assemble(
                (f"{iter_name(open_round.number)} is open", "bold magenta"),
                "  edit → record changes → run (r in Run, 4) → Post-Run",
            ))
            self._show_open(open_round)
        else:
            text = Text("New round: answer the Pre-Edit questions", style="bold")
            if self.last_closed is not None:
                text.append("   last: ")
                text.append_text(self._verdict_line(self.last_closed))
            state.update(text)

    def _verdict_line(self, r: Round) -> Text:
        return Text.assemble(
            (iter_name(r.number), "bold"), " ", verdict_text(r), " ",
            round_duration(r), " - ", r.verdict_reason,
        )

    def _show_open(self, r: Round) -> None:
        summary = Text()
        summary.append("Hypothesis: ", style="bold")
        summary.append(r.pre_edit.hypothesis + "\n")
        summary.append("Bottleneck: ", style="bold")
        summary.append(f"{r.pre_edit.bottleneck}   based on {iter_name(r.changes.based_on)}"
                       f"   phase {r.phase}\n")
        summary.append("Scope: ", style="bold")
        summary.append(", ".join(r.pre_edit.scope) + "  (changes outside it are refused)\n")
        m = r.measurement
        if m.build:
            summary.append("Measured: ", style="bold")
            summary.append(f"build {m.build}, correctness {m.correctness or '-'}, "
                           f"{len(m.samples_us)} samples, median {round_duration(r)}\n")
        self.query_one("#or-summary", Static).update(summary)
        self._show_changes(r)

    def _show_changes(self, r: Round, refusal: str = "") -> None:
        ch = r.changes
        parts: list[object] = []
        text = Text()
        if refusal:
            text.append("Refused: " + refusal + "\n", style="bold red")
        if ch.kind or ch.files or ch.parameters:
            text.append(f"kind: {ch.kind.value if ch.kind else '-'}\n")
            text.append("files: " + (", ".join(ch.files) or "none") + "\n")
            for p in ch.parameters:
                text.append(f"  {p.name}: {p.old} → {p.new}\n", style="cyan")
            for risk in ch.high_risk:
                text.append(f"  high risk: {risk}\n", style="bold yellow")
            if ch.high_risk and not ch.risk_justification:
                text.append("  a high-risk change needs a justification (field above)\n",
                            style="yellow")
        else:
            text.append("no changes recorded yet", style="dim")
        parts.append(text)
        patch = self.session.layout.round_dir(r.number) / "patch.diff"
        if ch.files and patch.is_file():
            lines = read_text(patch).splitlines()
            shown = "\n".join(lines[:MAX_DIFF_LINES])
            if len(lines) > MAX_DIFF_LINES:
                shown += f"\n… {len(lines) - MAX_DIFF_LINES} more lines in patch.diff"
            parts.append(Syntax(shown, "diff", theme="ansi_dark", word_wrap=False))
        self.query_one("#or-changes", Static).update(Group(*parts))  # type: ignore[arg-type]

    # ------------------------------------------------------------ writing

    async def _write(self, call: Callable[[], T], title: str) -> T | None:
        """Run one campaign call off the event loop (it reads and writes the project's
        files), one at a time; a refusal or bad input becomes a visible notice."""
        if self.writing:
            self.app.notify(f"still writing ({self.writing}): try again in a moment", title=title)
            return None
        self.writing = title
        form = self.query_one(PreEditForm)
        form.set_busy(True)  # no second start while this one writes
        try:
            result = await asyncio.to_thread(call)
        except PtoError as error:
            pto_app(self).report_error(error, title=title)
            return None
        finally:
            self.writing = ""
            form.set_busy(False)
        for warning in self.campaign.warnings:
            self.app.notify(warning, title="warning", severity="warning")
        self.campaign.warnings.clear()
        self.post_message(ProjectChanged(title))
        return result

    def on_start_requested(self, event: StartRequested) -> None:
        event.stop()
        self.start_round(event)

    @work(group="round-write", exit_on_error=False)
    async def start_round(self, event: StartRequested) -> None:
        record = await self._write(
            lambda: self.campaign.start_round(event.request),
            "start round",
        )
        if record is not None:
            self.app.notify(f"{iter_name(record.number)} started: now make the change",
                            title="round")
            form = self.query_one(PreEditForm)
            form.clear()
            await form.draft.clear()  # submitted: the draft has done its job

    def on_pre_edit_form_suggest_requested(self, event: PreEditForm.SuggestRequested) -> None:
        event.stop()
        # a perf-sim project's own measurement first: the pipes' busy shares of its last run
        evidence = perf_sim_evidence_of(self.loaded.rounds) if self.loaded is not None else ""
        if evidence:
            self.query_one(PreEditForm).attach_evidence(evidence)
            if not self.campaign.config.costmodel.enabled:
                return  # no costmodel to rank the knobs with: the measured evidence is it
        self.rank_for_form(event.scope)

    @work(exclusive=True, group="suggest", exit_on_error=False)
    async def rank_for_form(self, scope: list[str]) -> None:
        """`pto-tui suggest` in a worker; its chosen knob's evidence goes into the form."""
        from pto_tui.costmodel import CostmodelCache, make_engine
        from pto_tui.costmodel.service import resolve_settings
        from pto_tui.costmodel.suggest import form_suggestion

        layout, config = self.session.layout, self.campaign.config
        settings = resolve_settings(config.costmodel, layout.root, layout.cache_dir / "costmodel.json")
        try:
            engine = make_engine(settings.engine, pto_isa=settings.pto_isa, tool=settings.tool,
                                 compiler=settings.compiler)
            knob, text = await form_suggestion(layout.workspace, config, engine,
                                               CostmodelCache(settings.cache_path), scope)
        except PtoError as error:
            pto_app(self).report_error(error, title="costmodel ranking")
            return
        self.query_one(PreEditForm).attach_suggestion(knob, text)

    def action_explore(self) -> None:
        """The costmodel's best values of the knob in scope as rounds measured at once."""
        self.explore(self.query_one(PreEditForm).pre_edit())

    @work(exclusive=True, group="explore", exit_on_error=False)
    async def explore(self, pre: PreEdit) -> None:
        from pto_tui.tui.widgets.explore_action import explore_ranking

        await explore_ranking(self, self.session, pre)

    def attach_evidence(self, text: str) -> None:
        self.query_one(PreEditForm).attach_evidence(text)
        if self.loaded is not None and self.loaded.open_round is not None:
            self.app.notify("a round is open: the evidence is kept for the next Pre-Edit form",
                            title="evidence")

    def on_open_round_view_edit_source(self, event: OpenRoundView.EditSource) -> None:
        event.stop()
        self.edit_source()

    def on_open_round_view_change_parameters(self, event: OpenRoundView.ChangeParameters) -> None:
        event.stop()
        self.change_parameters()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions: dict[str, Callable[[], object]] = {
            "or-edit": self.edit_source,
            "or-params": self.change_parameters,
            "or-record": self.record_changes,
            "or-measure": self.record_measurement,
            "or-close": self.close_round,
        }
        action = actions.get(event.button.id or "")
        if action is not None:
            event.stop()
            action()

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value.strip()

    def _select(self, widget_id: str) -> str:
        value = self.query_one(f"#{widget_id}", Select).value
        return value if isinstance(value, str) else ""

    def edit_source(self) -> None:
        from pto_tui.tui.screens.editor import FilePicker, TextEditor, open_in_editor, workspace_files

        config = self.campaign.config
        workspace = self.session.layout.workspace
        root = workspace / project_kind(config.operator.kind).workspace_subdir
        protected = frozenset(
            path.relative_to(root).as_posix() for path in workspace_files(root)
            if is_protected(path.relative_to(workspace).as_posix(), config.protected,
                            config.editable))
        open_round = self.loaded.open_round if self.loaded else None
        base = open_round.base_snapshot if open_round is not None else ""

        def revert(path: Path) -> bool:
            return self.campaign.snapshots.restore_file(base, path.relative_to(workspace).as_posix())

        def picked(path: Path | None) -> None:
            if path is None:
                return
            if not open_in_editor(self.app, path):
                self.app.push_screen(TextEditor(path))

        name = iter_name(open_round.number) if open_round is not None else ""
        self.app.push_screen(FilePicker(root, protected, revert if base else None, name), picked)

    def change_parameters(self) -> None:
        from pto_tui.tui.screens.params import ParamScreen

        def chosen(values: dict[str, Scalar] | None) -> None:
            if values:
                self._record(parameters=values)

        self.app.push_screen(ParamScreen(self.campaign.config.tunables), chosen)

    def record_changes(self) -> None:
        self._record(parameters=None)

    @work(group="round-write", exit_on_error=False)
    async def _record(self, parameters: dict[str, Scalar] | None) -> None:
        kind = self._select("or-kind")
        request = ChangesRequest(
            kind=ChangeKind(kind) if kind else None, description=self._value("or-describe"),
            parameters=parameters or {}, bug_fix=self._value("or-bugfix"),
            risk_justification=self._value("or-justify"), tolerance_approval=self._value("or-approve"),
            discipline_approval=self._value("or-discipline"))
        try:
            record = await asyncio.to_thread(self.campaign.record_changes, request)
        except PtoError as error:
            pto_app(self).report_error(error, title="changes")
            open_round = self.loaded.open_round if self.loaded else None
            if open_round is not None:
                self._show_changes(open_round, refusal=error_text(error))
            return
        self._show_changes(record)
        self.app.notify(f"changes recorded: {len(record.changes.files)} file(s), "
                        f"{len(record.changes.parameters)} parameter(s)", title="changes")
        self.post_message(ProjectChanged("changes"))

    @work(group="round-write", exit_on_error=False)
    async def record_measurement(self) -> None:
        values = {key: self._value(f"or-{key}") for key in ("tflops", "samples", "problem")}
        build, correct = self._select("or-build"), self._select("or-correct")

        def call() -> Round:
            tflops = values["tflops"]
            try:
                tflops_value = float(tflops) if tflops else None
            except ValueError:
                raise InputError(f"TFLOPS: {tflops!r} is not a number") from None
            measurement = Measurement(
                build=build, correctness=correct, samples_us=parse_samples(values["samples"]),
                tflops=tflops_value, problem=values["problem"],
            )
            if not measurement.build:
                raise InputError("choose the build outcome first")
            return self.campaign.record_measurement(measurement)

        record = await self._write(call, "measurement")
        if record is not None:
            self.app.notify(f"measurement recorded: median {duration(record.measurement.median_us)}",
                            title="measurement")

    @work(group="round-write", exit_on_error=False)
    async def close_round(self) -> None:
        analysis, next_step = self._value("or-analysis"), self._value("or-next")
        record = await self._write(
            lambda: self.campaign.close_round(CloseRequest(analysis=analysis, next_step=next_step)),
            "close round",
        )
        if record is not None:
            self.last_closed = record
            for widget_id in ("or-describe", "or-bugfix", "or-justify", "or-approve",
                              "or-discipline", "or-samples",
                              "or-tflops", "or-problem", "or-analysis", "or-next"):
                self.query_one(f"#{widget_id}", Input).value = ""
            for widget_id in ("or-kind", "or-build", "or-correct"):
                self.query_one(f"#{widget_id}", Select).clear()
            verdict = record.effective_verdict()
            self.app.notify(
                f"{iter_name(record.number)}: {verdict.value if verdict else '-'} - "
                f"{record.verdict_reason}",
                title="verdict", timeout=10,
            )
