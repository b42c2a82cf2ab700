"""A checkbox that reads without colour: [x] ticked, [ ] not, reversed while focused."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class Tick(Checkbox):
    DEFAULT_CSS = """
    Tick:focus {
        text-style: bold reverse;
    }
    """

    @property
    def _button(self) -> Content:
        style = self.get_visual_style("toggle--button")
        return Content.assemble("[", ("x" if self.value else " ", style), "]")
