"""The workbench of one project: a tab bar of panes, a side summary that folds when narrow."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal
from textual.keys import key_to_character
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Footer, Input, Static, TextArea

from pto_tui.core.errors import PtoError
from pto_tui.tui.compact import make_compact
from pto_tui.tui.disk_watch import DiskChanged, reload_changed
from pto_tui.tui.forms import goes_nowhere, in_form
from pto_tui.tui.gc_pauses import keep_loaded, settle_after_load
from pto_tui.tui.keys import PANE_COUNT
from pto_tui.tui.messages import AttachEvidence, OpenRound, ProjectChanged, RunLoopStep, ShowPane
from pto_tui.tui.screens.project_summary import side_text, topbar_text
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.typed_app import pto_app
from pto_tui.tui.widgets.pane import ProjectPane
from pto_tui.tui.widgets.rounds_pane import RoundsPane

if TYPE_CHECKING:
    from pto_tui.tui.widgets.run_pane import RunPane

# (id, tab title): the digit of a pane is its position
PANES: tuple[tuple[str, str], ...] = (
    ("context", "Context"), ("rounds", "Rounds"), ("round", "Round"), ("run", "Run"),
    ("costmodel", "Costmodel"),
)


# the panes but the first are imported when first built: after the first frame
def _context_pane(session: Session) -> ProjectPane:
    from pto_tui.tui.widgets.context_pane import ContextPane

    return ContextPane(session, id="context")


def _rounds_pane(session: Session) -> ProjectPane:
    return RoundsPane(session, id="rounds")


def _round_pane(session: Session) -> ProjectPane:
    from pto_tui.tui.widgets.round_pane import RoundPane

    return RoundPane(session, id="round")


def _run_pane(session: Session) -> ProjectPane:
    from pto_tui.tui.widgets.run_pane import RunPane

    return RunPane(session, id="run")


def _costmodel_pane(session: Session) -> ProjectPane:
    from pto_tui.tui.widgets.costmodel_pane import CostmodelPane

    return CostmodelPane(session, id="costmodel")


MAKE_PANE: dict[str, Callable[[Session], ProjectPane]] = {
    "context": _context_pane, "rounds": _rounds_pane, "round": _round_pane,
    "run": _run_pane, "costmodel": _costmodel_pane,
}
FIRST_PANE = "rounds"
assert len(PANES) == PANE_COUNT
SIDE_MIN_WIDTH = 110  # below this the side summary folds away


class ProjectScreen(Screen[None]):
    # nothing focused (esc left a field): it stays so when a dialog closes, rather than
    # Textual focusing the first field, where the next keys would be typed
    AUTO_FOCUS = ""  # None would fall back to the app's "*"
    BINDINGS = [
        # digits while no text field has the focus, function keys and alt+digit anywhere;
        # the footer shows the first pane's binding only, as the range (keys.pane_keys_display)
        *(
            Binding(f"{i},f{i},alt+{i}", f"show_pane('{pid}')",
                    "Panes" if i == 1 else f"Go to {title}", show=i == 1, id=f"pane.{pid}")
            for i, (pid, title) in enumerate(PANES, 1)
        ),
        Binding("escape", "back", "Leave field", id="project.back"),  # shown in a field only
        Binding("q", "app.quit", "Quit", id="project.quit"),
        Binding("ctrl+w", "close_project", "Close project", show=False, id="project.close"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="project.reload"),
        Binding("w", "write_chart", "Chart", show=False, id="project.chart"),
        Binding("X", "export", "Export rounds", show=False, id="project.export"),
        Binding("R", "write_report", "Campaign report", show=False, id="project.report"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.current = FIRST_PANE
        self.last_chart: Path | None = None
        # only the first pane is built and mounted before the first paint (importing
        # and styling the forms of the others is most of a launch), the rest after it
        self._panes: dict[str, ProjectPane] = {FIRST_PANE: MAKE_PANE[FIRST_PANE](session)}
        self._rest: asyncio.Task[None] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="topbar", classes="topbar")
        yield Static(id="tabs")
        with Horizontal(id="body"):
            yield Static(id="side")
            with ContentSwitcher(initial=FIRST_PANE, id="main"):
                yield self._panes[FIRST_PANE]
        yield Footer(compact=True)  # a pane's keys, the pane keys, q and ? in 80 columns

    def pane(self, pid: str) -> ProjectPane:
        """The pane, built when first asked for (mounted by mount_panes)."""
        if pid not in self._panes:
            self._panes[pid] = MAKE_PANE[pid](self.session)
        return self._panes[pid]

    def run_pane(self) -> RunPane:
        from pto_tui.tui.widgets.run_pane import RunPane

        pane = self.pane("run")
        assert isinstance(pane, RunPane)
        return pane

    @property
    def panes(self) -> dict[str, ProjectPane]:
        """Every pane by id, in tab order."""
        return {pid: self.pane(pid) for pid, _title in PANES}

    @property
    def panes_mounted(self) -> bool:
        """Every pane is mounted (the ones after the first come once its rows are drawn)."""
        return self._rest is not None and self._rest.done()

    async def mount_panes(self) -> None:
        """Mount the panes not mounted yet (once; later callers wait for that one mount)."""
        if self._rest is None:
            self._rest = asyncio.create_task(self._mount_rest())
        await asyncio.shield(self._rest)

    async def _mount_rest(self) -> None:
        rest = [pane for pane in self.panes.values() if not pane.is_attached]
        switcher = self.query_one("#main", ContentSwitcher)
        for pane in rest:  # the switcher hides only the children it had when mounted
            pane.display = pane.id == switcher.current
        await switcher.mount_all(rest)
        for pane in rest:
            make_compact(pane)
            if self.session.loaded is not None:
                pane.loaded = self.session.loaded
        settle_after_load()  # the project is loaded and every pane built

    def on_mount(self) -> None:
        make_compact(self)
        self._draw_topbar()
        self._draw_tabs()
        self.reload()
        self.query_one(RoundsPane).focus_default()
        self.run_worker(partial(self.session.watch.run, self), thread=True, group="disk-watch",
                        exclusive=True, exit_on_error=False)

    def on_resize(self) -> None:
        self.query_one("#side").display = self.size.width >= SIDE_MIN_WIDTH

    # ------------------------------------------------------------ loading

    @work(exclusive=True, group="load", exit_on_error=False)
    async def reload(self) -> None:
        loaded = await asyncio.to_thread(self._load, self.query_one(RoundsPane))
        keep_loaded()
        self.apply(loaded)

    def _load(self, rounds: RoundsPane) -> LoadedProject:
        """The project read, and the round table's cells made (blocking: a thread's)."""
        loaded = self.session.load()
        rounds.prepare(loaded)
        return loaded

    async def on_rounds_pane_filled(self, event: RoundsPane.Filled) -> None:
        """The round table is drawn with every row: now the other panes."""
        event.stop()
        if self._rest is None:
            await self.mount_panes()

    def apply(self, loaded: LoadedProject) -> None:
        """Show what was loaded: in the session (what actions read), every mounted pane
        and the side summary."""
        self.session.loaded = loaded
        for pane in self._panes.values():
            if pane.is_attached:  # one not mounted yet gets it once mounted
                pane.loaded = loaded
        self._draw_side(loaded)
        self._draw_topbar()

    def on_project_changed(self, event: ProjectChanged) -> None:
        event.stop()
        self.reload()

    def on_disk_changed(self, event: DiskChanged) -> None:  # another process wrote
        self.run_worker(reload_changed(self, self.session, event.writer), group="load",
                        exclusive=True, exit_on_error=False)

    def _draw_topbar(self) -> None:
        text = topbar_text(self.session.campaign.config, read_only=self.session.read_only)
        self.query_one("#topbar", Static).update(text)

    def _draw_tabs(self) -> None:
        text = Text()
        for i, (pid, title) in enumerate(PANES, 1):
            style = "bold reverse" if pid == self.current else "dim"
            text.append(f" {i} {title} ", style=style)
            text.append(" ")
        self.query_one("#tabs", Static).update(text)

    def _draw_side(self, loaded: LoadedProject) -> None:
        self.query_one("#side", Static).update(side_text(loaded.status))

    # ------------------------------------------------------------ panes

    async def action_show_pane(self, pane: str) -> None:
        if not self.pane(pane).is_attached:
            await self.mount_panes()
        self.current = pane
        self.query_one("#main", ContentSwitcher).current = pane
        self._draw_tabs()
        self.pane(pane).focus_default()

    def pane_widgets(self) -> list[tuple[str, str, ProjectPane]]:
        """(id, title, widget) of each pane, in tab order (the palette and `?` read them)."""
        return [(pid, title, self.pane(pid)) for pid, title in PANES]

    async def on_show_pane(self, event: ShowPane) -> None:
        event.stop()
        await self.action_show_pane(event.pane)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """What the footer shows: not a printable key while the focus is on a form's tick
        or select, where such keys go nowhere (forms.py): there F1-5 switch panes."""
        bindings = super().active_bindings
        focused = self.focused
        return {key: active for key, active in bindings.items()
                if not goes_nowhere(focused, key, key_to_character(key))}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """esc is in the footer while a field has the focus (it leaves the field)."""
        if action == "back":
            return self._in_field()
        return True

    def _in_field(self) -> bool:
        focused = self.focused
        return focused is not None and (isinstance(focused, Input | TextArea) or in_form(focused))

    def action_back(self) -> None:
        """esc: back one level, never to another pane: out of a field (a text field, or
        any widget of a form) to its pane, so the pane's keys work again. At the pane's
        own level it does nothing (q quits from there)."""
        focused = self.focused
        if focused is None or not self._in_field():
            return
        pane = self.pane(self.current)
        target = next((a for a in focused.ancestors
                       if isinstance(a, Widget) and a.can_focus and not in_form(a)), None)
        if target is None or target is self:
            target = pane if pane.can_focus else None
        self.set_focus(target)  # None: no widget, the pane's and the screen's keys work

    async def action_close_project(self) -> None:
        await pto_app(self).close_project()

    def action_reload(self) -> None:
        self.reload()

    def on_open_round(self, event: OpenRound) -> None:
        from pto_tui.tui.screens.round_detail import RoundScreen

        event.stop()
        loaded = self.session.loaded
        record = loaded.round(event.number) if loaded else None
        if record is None:
            return

        screen = RoundScreen(record, self.session)

        def closed(changed: bool | None) -> None:
            if changed:
                self.reload()
            if screen.rerun_as is not None:  # rerun from there: `r` in Run runs it
                self.call_later(self.action_show_pane, "run")

        self.app.push_screen(screen, closed)

    async def on_run_loop_step(self, event: RunLoopStep) -> None:
        event.stop()
        await self.action_show_pane("run")
        self.run_pane().action_loop(event.step)

    @work(exclusive=True, group="chart", exit_on_error=False)
    async def action_write_chart(self) -> None:
        """The summary chart (PNG and SVG) written by core, its path shown."""
        from pto_tui.core.summary.chart import write_campaign_chart

        loaded = self.session.loaded
        baseline = loaded.round(0) if loaded is not None else None
        if baseline is None or not baseline.is_closed:
            self.app.notify("the chart needs the iter-000 baseline first (B in Run)",
                            title="chart", severity="warning")
            return
        self.app.notify("writing the summary chart…", title="chart")
        try:
            chart = await asyncio.to_thread(write_campaign_chart, self.session.campaign)
        except PtoError as error:
            pto_app(self).report_error(error, title="chart")
            return
        self.last_chart = chart.png
        paths = "\n".join(str(path) for path in (chart.png, chart.svg) if path)
        self.app.notify(paths, title="summary chart written", timeout=15)

    async def on_attach_evidence(self, event: AttachEvidence) -> None:
        event.stop()
        await self.mount_panes()
        from pto_tui.tui.widgets.round_pane import RoundPane

        form = self.pane("round")
        assert isinstance(form, RoundPane)
        form.attach_evidence(event.text)
        await self.action_show_pane("round")

    # ------------------------------------------------------------ export and report

    def action_export(self) -> None:
        """X: the round table as csv / md / json (asked), into the project."""
        from pto_tui.tui.screens.export import ExportScreen

        def chosen(fmt: str | None) -> None:
            if fmt:
                self.write_export(fmt)

        self.app.push_screen(ExportScreen(self.session.layout.root), chosen)

    @work(exclusive=True, group="export", exit_on_error=False)
    async def write_export(self, fmt: str) -> None:
        from pto_tui.tui.screens.export import write_export

        try:
            path = await asyncio.to_thread(write_export, self.session.campaign, fmt)
        except PtoError as error:
            pto_app(self).report_error(error, title="export")
            return
        self.app.notify(str(path), title=f"{fmt} export written", timeout=15)

    @work(exclusive=True, group="report", exit_on_error=False)
    async def action_write_report(self) -> None:
        """R: REPORT.md (the chart drawn first when missing or out of date), as `pto-tui report`."""
        from pto_tui.core.summary.campaign_report import write_campaign_report

        self.app.notify("writing the campaign report…", title="report")
        try:
            result = await asyncio.to_thread(write_campaign_report, self.session.campaign)
        except PtoError as error:
            pto_app(self).report_error(error, title="report")
            return
        drawn = f"\nchart drawn: {result.chart}" if result.chart_drawn else ""
        self.app.notify(f"{result.path}{drawn}", title="campaign report written", timeout=15)
