"""The launcher: open the project here or one under projects/, or create one."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from pto_tui.core.project.layout import is_project_dir
from pto_tui.tui.typed_app import pto_app


def find_projects(start: Path) -> list[Path]:
    found = [start] if is_project_dir(start) else []
    projects = start / "projects"
    if projects.is_dir():
        found += sorted(p for p in projects.iterdir() if p.is_dir() and is_project_dir(p))
    return found


class LauncherScreen(Screen[None]):
    BINDINGS = [
        Binding("n", "new_project", "New project", id="launcher.new"),
        Binding("d", "demo('dsl')", "New demo", id="launcher.demo"),
        Binding("D", "demo('tile-lib')", "Demo (tile-lib)", show=False, id="launcher.demo_tilelib"),
        Binding("r", "rescan", "Refresh", id="launcher.refresh"),
        Binding("q", "app.quit", "Quit", id="launcher.quit"),
        Binding("j", "cursor(1)", "Down", show=False, id="launcher.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="launcher.up"),
    ]

    def __init__(self, start: Path) -> None:
        super().__init__()
        self.start = start

    def compose(self) -> ComposeResult:
        yield Static(Text("pto-tui: optimise PTO operators on Ascend", style="bold"),
                     classes="topbar")
        yield Static(id="launcher-where")
        yield OptionList(id="launcher-list")
        yield Static(Text("enter opens · n creates a project (operator → case → target → "
                          "scaffold) · d a CPU demo project (D: tile-lib demo) · q quits",
                          style="dim"))
        yield Footer()

    def on_mount(self) -> None:
        self.action_rescan()

    def action_rescan(self) -> None:
        projects = find_projects(self.start)
        listing = self.query_one("#launcher-list", OptionList)
        listing.clear_options()
        for path in projects:
            label = "." if path == self.start else str(path.relative_to(self.start))
            listing.add_option(Option(Text(label), id=str(path)))
        if projects:
            listing.highlighted = 0  # enter opens the first at once
        else:
            listing.add_option(Option("no project here yet: press n to create one",
                                      disabled=True))
        self.query_one("#launcher-where", Static).update(
            Text("Projects here and under ./projects", style="dim"))
        listing.focus()

    def action_cursor(self, step: int) -> None:
        listing = self.query_one("#launcher-list", OptionList)
        listing.action_cursor_down() if step > 0 else listing.action_cursor_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            pto_app(self).open_project(Path(event.option.id))

    def action_demo(self, which: str) -> None:
        """A project on a built-in CPU demo operator under ./projects (opened if it exists)."""
        from pto_tui.core.campaign.demo import DEMO_KINDS, create_demo_project
        from pto_tui.core.errors import PtoError

        root = self.start / "projects" / DEMO_KINDS[which]
        if not is_project_dir(root):
            try:
                root = create_demo_project(which, self.start / "projects")
            except PtoError as error:
                pto_app(self).report_error(error, title="demo")
                return
            self.app.notify(f"created {root}", title="demo project")
        pto_app(self).open_project(root)

    def action_new_project(self) -> None:
        from pto_tui.tui.screens.wizard import WizardScreen

        def created(root: Path | None) -> None:
            self.action_rescan()
            if root is not None:
                pto_app(self).open_project(root)

        self.app.push_screen(WizardScreen(self.start / "projects", self.start), created)
