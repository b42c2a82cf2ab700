"""Pane 4: the loop. Environment round, torch_npu baseline, iter-000 and the open round,
each run by the backends' services (the same calls the CLI makes) with live logs.

The pane never builds commands or reads reports: it calls `run_environment`,
`run_reference`, `run_baseline` or `run_round` and shows their StepEvents. Cancelling
cancels the worker running the service; the site then cancels the current job
(TERM, then KILL) and the open round stays open with nothing half-written.

Beside it: loop_steps (the steps, when each may run, the service each starts),
run_outcome (what a run recorded, in words), post_run (Analysis and Next of the round
just measured), left_running (what pto-tui left running when it last closed, followed
again) and any_command (`!`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.records import EnvironmentNotes, Round, TorchBaseline
from pto_tui.jobs.model import JobRecord
from pto_tui.tui.format import error_text, iter_name
from pto_tui.tui.messages import ProjectChanged
from pto_tui.tui.screens.measure_again import MeasureAgainScreen
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.typed_app import pto_app
from pto_tui.tui.widgets.any_command import CommandBox, run_any_command
from pto_tui.tui.widgets.left_running import (
    LeftRunningNotice,
    discard_unfinished,
    follow_again,
    kept_step_of_round,
)
from pto_tui.tui.widgets.log_pane import LogPane
from pto_tui.tui.widgets.loop_steps import (
    LOOP_STEPS,
    loop_service,
    measured_already,
    run_hint,
    step_blocker,
    step_line,
    step_title,
)
from pto_tui.tui.widgets.pane import ProjectPane
from pto_tui.tui.widgets.post_run import PostRunForm, VerdictBox
from pto_tui.tui.widgets.run_outcome import (
    failure_text,
    group_text,
    interrupted_text,
    recorded_text,
    round_verdict_text,
)
from pto_tui.tui.widgets.step_table import StepTable


class RunPane(Vertical, ProjectPane, can_focus=True):
    BINDINGS = [
        Binding("r", "loop('round')", "Run round", id="run.round"),
        Binding("x", "cancel", "Cancel", id="run.cancel"),
        Binding("E", "loop('environment')", "Environment round", show=False, id="run.environment"),
        Binding("T", "loop('reference')", "torch_npu baseline", show=False, id="run.reference"),
        Binding("B", "loop('baseline')", "Baseline iter-000", show=False, id="run.baseline"),
        Binding("G", "loop('explore')", "Explore group", show=False, id="run.explore"),
        Binding("a", "analysis", "Analysis", show=False, id="run.analysis"),
        Binding("ctrl+s", "save_post_run", "Close the round", show=False, id="run.save"),
        Binding("exclamation_mark", "command", "Run a command", show=False, id="run.command"),
        Binding("l", "focus_log", "Log", show=False, id="run.log"),
        Binding("m", "maximize_log", "Maximise log", id="run.maximize"),
        Binding("d", "discard_journal", "Discard unfinished samples", show=False,
                id="run.discard"),
    ]

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.worker: Worker[None] | None = None
        self.running = ""  # the loop step running now

    def compose(self) -> ComposeResult:
        yield Static(id="run-hint")
        yield LeftRunningNotice(id="run-left", classes="hidden")
        yield OptionList(id="run-loop")
        yield StepTable(id="run-steps", cursor_type="row")
        yield VerdictBox(id="run-verdict", classes="hidden")
        yield PostRunForm(self.session, id="run-post", classes="hidden")
        yield CommandBox(placeholder="command to run on the target (enter runs, esc cancels)",
                         id="run-command", classes="hidden")
        yield LogPane(id="run-log")

    def on_mount(self) -> None:
        self._draw()

    def show_loaded(self, loaded: LoadedProject) -> None:
        self._draw()
        # jobs kept running when pto-tui last closed (or a step of the open round's run
        # that ended while it was closed)
        for record in self.left_notice.not_seen(self.session.left_running()):
            if kept_step_of_round(record, loaded) and not self.running:
                # a step of the open round's run: the run goes on from it, and is recorded
                self.worker = self.run_worker(self._run("round", kept=record), group="loop",
                                              exit_on_error=False)
            elif not record.state.is_final:
                self.follow_left_running(record)
        measured = measured_already("round", loaded)
        if measured is not None and not self.running and self.post_run.awaiting is None:
            self.await_post_run(measured.number)  # measured before: its Post-Run is next

    @work(exclusive=True, group="post-run-ask", exit_on_error=False)
    async def await_post_run(self, number: int) -> None:
        """The verdict preview of a round measured before (another session, the CLI) and
        its Post-Run form, with its draft."""
        record = await self.post_run.preview(self.session.campaign, number)
        if record is not None and not self.running:
            self._show_verdict(round_verdict_text(record, None))
            self.post_run.ask_for(record)

    def focus_default(self) -> None:
        self.query_one("#run-loop").focus()

    def on_descendant_focus(self, _event: events.DescendantFocus) -> None:
        self._writing()

    def on_descendant_blur(self, _event: events.DescendantBlur) -> None:
        self.call_after_refresh(self._writing)

    def _writing(self) -> None:
        """While a text field of the pane has the focus (Post-Run, a command, a log search)
        the steps fold away, so the field is on the screen however small it is."""
        focused = self.app.focused
        self.set_class(isinstance(focused, Input) and self in focused.ancestors, "-writing")

    @property
    def log_pane(self) -> LogPane:
        return self.query_one(LogPane)

    @property
    def post_run(self) -> PostRunForm:
        return self.query_one(PostRunForm)

    @property
    def left_notice(self) -> LeftRunningNotice:
        return self.query_one(LeftRunningNotice)

    # ------------------------------------------------------------ what may run

    def availability(self, step: str) -> str:
        """Why the step cannot run now ("" when it can)."""
        return step_blocker(step, self.loaded, self.session.read_only)

    def _draw(self) -> None:
        loaded = self.loaded
        listing = self.query_one("#run-loop", OptionList)
        highlighted = listing.highlighted
        listing.clear_options()
        width = max(40, listing.size.width - 2) if listing.size.width else 78
        for step in LOOP_STEPS:
            reason = self.availability(step)
            text = step_line(step, loaded, reason, self.running == step, width)
            listing.add_option(Option(text, id=step, disabled=bool(reason)))
        listing.highlighted = min(highlighted or 0, listing.option_count - 1)
        self.query_one("#run-hint", Static).update(
            run_hint(self.session.campaign.config.target.label))
        self.left_notice.draw(loaded, bool(self.running))

    # ------------------------------------------------------------ running a step

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "run-loop" and event.option.id:
            event.stop()
            self.action_loop(event.option.id)

    def action_loop(self, step: str) -> None:
        if self.worker is not None and self.worker.is_running:
            self.app.notify(f"{self.running} is running: x cancels it", title="run")
            return
        reason = self.availability(step)
        if reason:
            self.app.notify(f"{LOOP_STEPS[step][1]}: {reason}", title="not now", severity="warning")
            return
        measured = measured_already(step, self.loaded)
        if measured is not None:  # measuring again replaces what it recorded: asked first
            self.app.push_screen(MeasureAgainScreen(measured), self._measure_again)
            return
        self.worker = self.run_worker(self._run(step), group="loop", exit_on_error=False)

    def _measure_again(self, yes: bool | None) -> None:
        if yes and not (self.worker is not None and self.worker.is_running):
            self.worker = self.run_worker(self._run("round"), group="loop", exit_on_error=False)

    def _title(self, step: str) -> str:
        return step_title(step, self.loaded)

    def _begin(self, step: str, title: str) -> None:
        """Clear what the last run showed and open the log for this one."""
        self.running = step
        self.post_run.ask_for(None)
        self.query_one(StepTable).begin()
        self._show_verdict(None)
        self.log_pane.begin(title, cancel=self.action_cancel)
        self.add_class("-running")  # the log gets most of the pane while a job runs
        self._draw()

    async def _run(self, step: str, kept: JobRecord | None = None) -> None:
        from pto_tui.backends.site import StepInterrupted
        from pto_tui.core.errors import RuleViolation

        loaded = self.loaded
        before = loaded.status if loaded is not None else None
        service, resumed = loop_service(step, loaded, kept)
        title = self._title(step) + (" (resumed)" if resumed else "")
        self._begin(step, title)
        try:
            result = await service(self.session.campaign, self.session.runner(), self._on_event)
        except asyncio.CancelledError:
            self._mark_running("cancelled")
            self.log_pane.end("cancelled")
            text = interrupted_text(step, self._title(step), "cancelled")
            self._show_verdict(text)
            self.app.notify(text.plain, title="cancelled", severity="warning", timeout=10)
            raise
        except PtoError as error:
            state = "interrupted" if isinstance(error, StepInterrupted) else (
                "refused" if isinstance(error, RuleViolation) else "failed")
            self._mark_running("cancelled" if state == "interrupted" else "failed")
            self.log_pane.end(state)
            self._show_verdict(failure_text(step, title, state, error_text(error)))
            pto_app(self).report_error(error, title=f"{title} {state}")
        except Exception:
            self._mark_running("failed")
            self.log_pane.end("error")
            raise  # shown by on_worker_state_changed
        else:
            self.log_pane.end("done")
            await self._show_result(result, before)
        finally:
            self.running = ""
            self.remove_class("-running")
            self._warnings()
            self.post_message(ProjectChanged(step))
            self._draw()

    def _warnings(self) -> None:
        for warning in (campaign := self.session.campaign).warnings:
            self.app.notify(warning, title="warning", severity="warning")
        campaign.warnings.clear()

    def _on_event(self, event: Any) -> None:  # StepEvent (backends are imported lazily)
        if event.kind == "line" and event.line is not None:
            self.log_pane.write(event.line.stream, event.line.text)
        if event.kind == "finished" and event.record is not None \
                and self.left_notice.ended(event.record.id):
            self._draw()  # the job kept running has ended: its run goes on
        meta = self.query_one(StepTable).see(event)
        if meta:
            self.log_pane.write("meta", meta)
        if event.kind == "started":
            self.log_pane.set_title(f"{self._title(self.running)}: {event.step}")

    def _mark_running(self, state: str) -> None:
        self.query_one(StepTable).mark_running(state)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Worker messages do not bubble: an unexpected error is shown from here."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            pto_app(self).report_error(event.worker.error)

    # ------------------------------------------------------------ results

    def _show_verdict(self, text: Text | None) -> None:
        self.query_one(VerdictBox).show(text)

    async def _show_result(self, result: object, before: CampaignStatus | None) -> None:
        from pto_tui.backends.explore import GroupOutcome  # backends are imported when first used

        if isinstance(result, GroupOutcome):
            self._show_verdict(group_text(result.closed, result.interrupted))
        elif isinstance(result, Round) and not result.is_baseline:
            await self._show_round_result(result, before)
        elif isinstance(result, EnvironmentNotes | TorchBaseline | Round):
            self._show_verdict(recorded_text(result))

    async def _show_round_result(self, measured: Round, before: CampaignStatus | None) -> None:
        """A measured round: its verdict as a preview (read off the loop), Post-Run to close it."""
        record = await asyncio.to_thread(self.session.campaign.preview, measured.number)
        self._show_verdict(round_verdict_text(record, before))
        self.post_run.ask_for(record)
        if self.display:  # shown here already: a notice would cover the Post-Run form
            return
        verdict = record.effective_verdict()
        self.app.notify(f"{iter_name(record.number)}: {verdict.value if verdict else '-'} - "
                        f"{record.verdict_reason}", title="verdict", timeout=10)

    # ------------------------------------------------------------ post-run

    def action_analysis(self) -> None:
        if self.post_run.awaiting is None:
            self.app.notify("no round was just run here", title="analysis")
            return
        self.post_run.focus_analysis()

    @work(exclusive=True, group="post-run", exit_on_error=False)
    async def action_save_post_run(self) -> None:
        """Close the measured round with its Analysis and Next (docs/workflow.md §15: Post-Run is
        written before the round closes), then say so under its verdict."""
        closed = await self.post_run.close_round(self.session.campaign)
        if closed is None:
            return
        self.query_one(VerdictBox).closed(closed)
        verdict = closed.verdict.value if closed.verdict else "-"
        self._warnings()
        self.query_one("#run-loop").focus()
        self.app.notify(f"{iter_name(closed.number)} closed: {verdict}", title="post-run")
        self.post_message(ProjectChanged("post-run"))

    # ------------------------------------------------------------ leaving and coming back

    def running_work(self) -> list[str]:
        """The loop step running now, named for the question asked before leaving."""
        if self.worker is not None and self.worker.is_running and self.running:
            return [f"the {self._title(self.running)}"]
        return []

    async def stop_work(self) -> None:
        """Cancel this pane's workers; their jobs are kept or stopped as the runner says."""
        workers = [w for w in self.app.workers if w.node is self and w.is_running]
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(worker.wait(), 60)

    @work(group="reattach", exit_on_error=False)
    async def follow_left_running(self, record: JobRecord) -> None:
        """A job kept running when pto-tui last closed: its log again, live, x cancels."""
        try:
            final = await follow_again(self.session, record, self.log_pane, self.app.notify)
        finally:
            self.left_notice.ended(record.id)
            self._draw()
        if final.state.is_final:
            self.post_message(ProjectChanged("re-attached job ended"))

    @work(exclusive=True, group="discard", exit_on_error=False)
    async def action_discard_journal(self) -> None:
        """d: the open round's unfinished samples set aside, so r starts the run over."""
        loaded = None if self.running else self.loaded  # never the journal of a run going on
        if await discard_unfinished(self.session, loaded, self.app.notify):
            self.post_message(ProjectChanged("discarded journal"))

    # ------------------------------------------------------------ cancel, log, any command

    async def action_cancel(self) -> None:
        if self.worker is not None and self.worker.is_running:
            self.app.notify(f"cancelling {self.running}…", title="run")
            self.worker.cancel()
            return
        view = self.log_pane.view
        if view.cancel_fn is not None and view.cancel_fn != self.action_cancel \
                and not view.source_done:
            await view.action_cancel()
            return
        self.app.notify("nothing is running", title="run")

    def action_focus_log(self) -> None:
        self.log_pane.focus_default()

    def action_maximize_log(self) -> None:
        self.log_pane.action_maximize()

    def action_command(self) -> None:
        self.query_one(CommandBox).open()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "run-next":  # enter in Analysis is the form's own
            event.stop()
            self.action_save_post_run()

    def on_command_box_run(self, event: CommandBox.Run) -> None:
        event.stop()
        self.run_command(event.command)

    @work(exclusive=True, group="command", exit_on_error=False)
    async def run_command(self, command: str) -> None:
        """Any command, as one job on the target (nothing is recorded in the round)."""
        await run_any_command(self.session, command, self.log_pane,
                              lambda on: self.set_class(on, "-running"))
