"""The pto-tui terminal application: screens, global bindings, palette commands.

Thin on purpose: panes live in widgets/, screens in screens/, every action a pane
offers is a core call. `run(args)` is what `pto-tui` (no sub-command) calls.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.layout import find_project_root
from pto_tui.tui import gc_pauses, hangup
from pto_tui.tui.actions import EVERYWHERE, run_action, screen_actions
from pto_tui.tui.forms import TypingGuard
from pto_tui.tui.keygate import KeyGate
from pto_tui.tui.keys import as_alt_digit, load_keymap, pane_keys_display, unknown_ids_problem
from pto_tui.tui.screens.help import HelpScreen
from pto_tui.tui.screens.leave import KEEP, STOP, LeaveScreen, describe_job
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import WorkbenchApp

if TYPE_CHECKING:  # imported when first used: after the first frame
    from pto_tui.tui.widgets.run_pane import RunPane

# Textual's palette entries that ours already are: ctrl+q quits (asking first while work
# runs), `?` lists the keys, m maximises the log
TEXTUAL_DUPLICATES = frozenset({"Quit", "Keys", "Maximize"})


class PtoApp(WorkbenchApp):
    CSS_PATH = "app.tcss"
    TITLE = "pto-tui"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        # the footer shows q (or esc) where it applies: ctrl+q is the same, from anywhere
        Binding("ctrl+q", "quit", "Quit", show=False, id="app.quit", priority=True),
        Binding("question_mark", "help", "Keys", id="app.help"),
    ]

    def __init__(
        self,
        project: Path | None = None,
        *,
        start_dir: Path | None = None,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        # No animations: they cost redraws over SSH and nobody needs them here.
        self.animation_level = "none"
        self.project = project
        self.start_dir = start_dir or Path.cwd()
        self.session: Session | None = None
        from_file, self.keymap_problems = load_keymap()
        self.keys_from_file = from_file
        self.set_keymap({**from_file, **(keymap or {})})
        self.key_gate = KeyGate(self, super().on_event, TypingGuard(self))

    async def on_event(self, event: events.Event) -> None:
        # keys and pastes go through the gate, one at a time (see keygate.py)
        if isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            self.key_gate.put(as_alt_digit(event) if isinstance(event, events.Key) else event)
            return
        await super().on_event(event)

    def on_mount(self) -> None:
        # outside the main thread (tests) the handler cannot be set: the default applies
        hangup.install(self._keep_jobs, self._hangup)
        for problem in self.keymap_problems:
            self.notify(problem, title="keys.toml", severity="warning")
        if self.keys_from_file:  # in a thread: it imports every screen's module
            self.run_worker(self._check_keymap_ids, thread=True, group="keymap",
                            exit_on_error=False)
        if self.project is not None:
            self.open_project(self.project)
        else:
            from pto_tui.tui.screens.launcher import LauncherScreen

            self.push_screen(LauncherScreen(self.start_dir))

    def _check_keymap_ids(self) -> None:
        problem = unknown_ids_problem(self.keys_from_file)
        if problem:
            self.call_from_thread(self.notify, problem, title="keys.toml", severity="warning",
                                  timeout=15)

    def on_unmount(self) -> None:
        hangup.uninstall()
        gc_pauses.release()

    # ------------------------------------------------------------ projects

    def open_project(self, root: Path) -> None:
        from pto_tui.tui.screens.project import ProjectScreen

        try:
            session = Session(root)
        except PtoError as error:
            self.report_error(error)
            return
        self.session = session
        if session.lock_problem:
            self.notify(
                session.lock_problem + "\nopened read-only", title="project read-only",
                severity="warning", timeout=8,
            )
        from pto_tui.tui.screens.launcher import LauncherScreen

        if isinstance(self.screen, LauncherScreen):
            self.switch_screen(ProjectScreen(session))
        else:
            self.push_screen(ProjectScreen(session))

    async def close_project(self) -> None:
        """Back to the launcher, releasing the project lock (asks first while work runs)."""
        await self.leave("close the project", self._to_launcher)

    async def action_quit(self) -> None:
        await self.leave("quit pto-tui", self._exit_now)

    # ------------------------------------------------------------ leaving safely

    def running_work(self) -> list[str]:
        """What runs now (a loop step, each live job), named for the question asked."""
        if self.session is None:
            return []
        pane = self._run_pane()
        running = pane.running_work() if pane is not None else []
        for job in self.session.live_jobs():
            line = f"job {describe_job(job.record)}"
            if line not in running:
                running.append(line)
        return running

    async def leave(self, verb: str, then: Callable[[], Awaitable[object]]) -> None:
        """Quit or close: at once when nothing runs and no form holds a draft, else only
        after the user chose (the question names the work and the drafts)."""
        if isinstance(self.screen, LeaveScreen):
            return
        running = self.running_work()
        drafts = [d.describe() for d in await self.session.flush_drafts()] if self.session else []
        if not running and not drafts:
            await self.finish_leaving(KEEP, then)
            return

        def chosen(choice: str | None) -> None:
            if choice in (KEEP, STOP):
                self.run_worker(self.finish_leaving(choice, then), group="leave",
                                exclusive=True, exit_on_error=False)

        self.push_screen(LeaveScreen(verb, running, drafts), chosen)

    async def finish_leaving(self, choice: str, then: Callable[[], Awaitable[object]]) -> None:
        session = self.session
        if session is not None:
            await session.flush_drafts()  # typed since the question: kept too
            session.keep_jobs(choice == KEEP)
            pane = self._run_pane()
            if pane is not None:
                await pane.stop_work()
            if choice == STOP:
                for job in session.live_jobs():
                    await job.cancel()
            await session.aclose()
            self.session = None
        await then()

    async def _exit_now(self) -> None:
        self.exit(0)

    async def _to_launcher(self) -> None:
        from pto_tui.tui.screens.launcher import LauncherScreen

        await self.switch_screen(LauncherScreen(self.start_dir))

    def _run_pane(self) -> RunPane | None:
        from pto_tui.tui.screens.project import ProjectScreen

        for screen in self.screen_stack:
            if isinstance(screen, ProjectScreen):
                return screen.run_pane()
        return None

    def _keep_jobs(self) -> None:
        if self.session is not None:
            self.session.keep_jobs(True)

    def _hangup(self) -> None:
        """The terminal went away (a dropped SSH session): jobs keep running, drafts are
        kept, then the app exits (tui/hangup.py)."""
        self.run_worker(self.finish_leaving(KEEP, self._exit_now), group="leave",
                        exclusive=True, exit_on_error=False)

    # ------------------------------------------------------------ what is shown

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notice as plain text: messages name project.toml sections and rule ids in
        square brackets ("[discipline]"), which markup would swallow. Widgets' notify()
        passes markup=True by default: ignored, on purpose."""
        del markup
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def get_key_display(self, binding: Binding) -> str:
        return pane_keys_display(binding) or super().get_key_display(binding)

    # ------------------------------------------------------------ errors

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.report_error(event.worker.error)

    # ------------------------------------------------------------ help and palette

    def action_help(self) -> None:
        """?: this app's keys, by pane (the focused one first), and those that work everywhere."""
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(screen_actions(self.screen, by_pane=True)))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every action of this screen once (all panes), then Textual's own that are not ours."""
        for action in screen_actions(screen):
            if action.navigation:
                continue
            where = "" if action.group == EVERYWHERE else f" ({action.group} pane)"
            title = action.title if action.group == EVERYWHERE else f"{action.group}: {action.title}"
            yield SystemCommand(title, f"key: {action.key_text}{where}",
                                partial(run_action, screen, action))
        for command in super().get_system_commands(screen):
            if command.title not in TEXTUAL_DUPLICATES:
                yield command


def run(args: argparse.Namespace) -> int:
    """Entry point from the CLI: a project if one is found, else the launcher."""
    project: Path | None
    try:
        project = find_project_root(getattr(args, "project", None))
    except InputError as error:
        if getattr(args, "project", None):
            raise
        project = None
        del error  # no project here: the launcher lists what there is
    app = PtoApp(project)
    result = app.run()
    # a crash inside the app (Textual prints its traceback) exits non-zero, never 0
    return app.return_code or int(result or 0)
