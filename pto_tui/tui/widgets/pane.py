"""What every pane of the project screen is: a widget showing the project as last loaded.

The screen sets a pane's `loaded` after each load and once the pane is mounted; the pane
draws it in `show_loaded`. A pane is also a container (Vertical, VerticalScroll): it lists
ProjectPane after the container in its bases, so its styles stay the container's.
"""

from __future__ import annotations

from textual.reactive import var
from textual.widget import Widget

from pto_tui.tui.session import LoadedProject, Session


class ProjectPane(Widget):
    """A pane: `loaded` in, `show_loaded` draws it, `focus_default` on going to it."""

    session: Session
    # the project as the screen last handed it over (None until the first load); set again
    # with the same object, it is drawn again (files beside the records may have changed)
    loaded: var[LoadedProject | None] = var(None, always_update=True, init=False)

    def watch_loaded(self, loaded: LoadedProject | None) -> None:
        if loaded is not None and self.is_mounted:  # not mounted: its widgets are not there
            self.show_loaded(loaded)

    def show_loaded(self, loaded: LoadedProject) -> None:
        """Draw what was loaded."""
        raise NotImplementedError

    def focus_default(self) -> None:
        """Focus where the pane's keys start (on going to the pane)."""
        self.focus()
