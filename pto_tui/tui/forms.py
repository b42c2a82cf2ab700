"""Forms and prompts: while one is being filled, a printable key never runs an action.

A widget inside a container of class "form" that is not a text field (a checkbox, a
select, a button) gets its own keys (space ticks, enter presses, a select's type-to-
search); any other printable key there is dropped instead of reaching a single-key
binding of the pane or the screen, so a sentence typed into the wrong place does
nothing. Ctrl keys, esc, tab and enter keep working.
"""

from __future__ import annotations

import time
from typing import Any

from textual import events
from textual.app import App
from textual.widget import Widget
from textual.widgets import Input, TextArea

FORM = "form"  # the class marking a form's container
NOTICE_EVERY = 5.0  # seconds between two "type into a field" notices


def in_form(widget: Widget) -> bool:
    return any(isinstance(node, Widget) and node.has_class(FORM)
               for node in widget.ancestors_with_self)


def goes_nowhere(focused: Widget | None, key: str, character: str | None) -> bool:
    """Whether a key typed now must not reach any binding: printable, in a form, not for
    the focused widget itself (the footer leaves such keys out too)."""
    if focused is None or character is None or not character.isprintable() or key == "space":
        return False
    if isinstance(focused, Input | TextArea) or not in_form(focused):
        return False
    return not focused.check_consume_key(key, character)


def dropped(focused: Widget | None, event: events.Event) -> bool:
    """Whether a key event must not reach any binding (goes_nowhere)."""
    if not isinstance(event, events.Key) or not event.is_printable:
        return False
    return goes_nowhere(focused, event.key, event.character)


class TypingGuard:
    """The app's check before a key is handled (keygate.py calls it)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._last_notice = -NOTICE_EVERY

    def __call__(self, event: events.Event) -> bool:
        focused = self.app.focused
        if not dropped(focused, event):
            return False
        now = time.monotonic()
        if now - self._last_notice >= NOTICE_EVERY:
            self._last_notice = now
            self.app.notify("typed text goes into a text field: tab to one (keys here do "
                            "nothing while the form is open; esc leaves it)", title="form")
        return True
