"""One-line inputs, selects and buttons: a form must fit an 80x24 terminal."""

from __future__ import annotations

from typing import Any

from textual.dom import DOMNode
from textual.widgets import Button, Checkbox, Input, Select, TextArea


def compact_input(**options: Any) -> Input:
    """An Input made as make_compact leaves one: made so, a form opens without each field
    being styled twice (compact toggles a class once mounted)."""
    field = Input(compact=True, select_on_focus=False, **options)
    field.cursor_blink = False
    return field


def make_compact(root: DOMNode) -> None:
    """Also: no blinking cursors (useless redraws over SSH, flaky screenshots), and tab
    into a field leaves its text as it is (selected, the next key would replace it)."""
    for widget in root.query("Input, Select, Button, TextArea, Checkbox"):
        if isinstance(widget, Input | Select | Button | Checkbox):
            widget.compact = True
        if isinstance(widget, Input | TextArea):
            widget.cursor_blink = False
        if isinstance(widget, Input):
            widget.select_on_focus = False
