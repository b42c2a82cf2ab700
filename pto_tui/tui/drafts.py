"""Keeping what is typed into a form as a draft in the project (core.rounds.drafts), a
moment after the typing stops: off the event loop, one write at a time, in order, so
the file always holds the newest text. Leaving the app writes what is still pending."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, TextArea
from textual.widgets.select import InvalidSelectValueError

from pto_tui.core.errors import PtoError
from pto_tui.core.rounds.drafts import Draft, FieldValue, clear_draft, read_draft, write_draft
from pto_tui.tui.session import Session
from pto_tui.tui.typed_app import pto_app

DRAFT_DELAY = 0.5  # seconds of quiet before a draft is written (typing writes nothing)


class DraftKeeper:
    """The draft of one form: `changed()` after each edit, `flush()` to write at once,
    `clear()` once the form is submitted. `fields()` reads the form; `number()` is the
    round the draft belongs to (None: the Pre-Edit form's next round)."""

    def __init__(self, owner: Widget, session: Session, form: str,
                 fields: Callable[[], dict[str, FieldValue]],
                 number: Callable[[], int | None] = lambda: None) -> None:
        self.owner = owner
        self.session = session
        self.form = form
        self.fields = fields
        self.number = number
        # False until the form has read the draft it keeps: nothing it shows before that
        # may overwrite the draft
        self.ready = True
        self._timer: Timer | None = None
        self._pending = False
        self._number: int | None = None  # the round of the pending draft (as it was typed)
        self._lock = asyncio.Lock()
        self._said_problem = False

    def start(self) -> None:
        self.session.draft_keepers.add(self)

    def stop(self) -> None:
        self.session.draft_keepers.discard(self)

    def changed(self) -> None:
        """After an edit: write a moment after the typing stops."""
        if self.session.read_only or not self.ready:
            return
        self._pending = True
        self._number = self.number()
        if self._timer is None:
            self._timer = self.owner.set_timer(DRAFT_DELAY, self._due)
        else:
            self._timer.reset()

    def _due(self) -> None:
        self._timer = None
        self.owner.run_worker(self.flush(), group=f"draft-{self.form}", exit_on_error=False)

    async def flush(self) -> None:
        """Write the pending draft now (the form as it is at this moment)."""
        if not self._pending:
            return
        self._pending = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        fields, number = self.fields(), self._number
        async with self._lock:  # one write at a time: the newest is written last
            await self._run(write_draft, number, fields)

    async def clear(self) -> None:
        """The form was submitted: its draft goes."""
        self._pending = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        async with self._lock:
            await self._run(clear_draft, self.number())

    def read(self) -> Draft | None:
        """The draft kept for this form (a small file, read on the event loop as the form
        opens); None when there is none or it cannot be read (said once)."""
        try:
            return read_draft(self.session.layout, self.form, self.number())
        except PtoError as error:
            self._problem(error)
            return None

    async def _run(self, call: Callable[..., None], *args: object) -> None:
        try:
            await asyncio.to_thread(call, self.session.layout, self.form, *args)
        except (PtoError, OSError) as error:
            self._problem(error)

    def _problem(self, error: BaseException) -> None:
        if not self._said_problem:
            self._said_problem = True
            pto_app(self.owner).report_error(error, title="draft")


def form_values(root: Widget) -> dict[str, FieldValue]:
    """Every field of a form by its id: text fields' text, a select's value ("" when
    blank), a tick's state."""
    values: dict[str, FieldValue] = {}
    for widget in root.query("Input, TextArea, Select, Checkbox"):
        if not widget.id:
            continue
        if isinstance(widget, Input):
            values[widget.id] = widget.value
        elif isinstance(widget, TextArea):
            values[widget.id] = widget.text
        elif isinstance(widget, Select):
            values[widget.id] = widget.value if isinstance(widget.value, str) else ""
        elif isinstance(widget, Checkbox):
            values[widget.id] = widget.value
    return values


def set_form_values(root: Widget, values: dict[str, FieldValue]) -> None:
    """Put a draft's values back; a field the form no longer has, or a value of the wrong
    kind or no longer offered, is left as it is."""
    for widget_id, value in values.items():
        try:
            widget = root.query_one(f"#{widget_id}")
        except (NoMatches, ValueError):  # ValueError: not an id a selector can name
            continue
        if isinstance(value, bool):
            if isinstance(widget, Checkbox):
                widget.value = value
        elif isinstance(widget, Input):
            widget.value = value
        elif isinstance(widget, TextArea):
            widget.load_text(value)
        elif isinstance(widget, Select):
            _select(widget, value)


def _select(select: Select[Any], value: str) -> None:
    with contextlib.suppress(InvalidSelectValueError):  # blank not allowed, value not offered
        if value:
            select.value = value
        else:
            select.clear()
