"""Editing the workspace: `$EDITOR` through app.suspend(), a built-in TextArea otherwise."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from pto_tui.core.errors import PtoError
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded
from pto_tui.tui.typed_app import pto_app

MAX_FILES = 2000


def editor_command() -> list[str]:
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


def workspace_files(root: Path) -> list[Path]:
    """Files a person may want to edit, excluding build output and caches."""
    files = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not is_excluded(rel, DEFAULT_EXCLUDES):
            files.append(path)
            if len(files) >= MAX_FILES:
                break
    return files


def open_in_editor(app: App[Any], path: Path) -> bool:
    """Run $EDITOR on path with the app suspended; False when suspending is impossible."""
    try:
        with app.suspend():
            subprocess.call([*editor_command(), str(path)])
    except SuspendNotSupported:
        return False
    return True


class FilePicker(ModalScreen[Path | None]):
    """Choose a workspace file to edit. A protected file is marked, and opened only on a
    second enter after a warning; `r` puts the highlighted file back as the round began
    (asked first), when a revert is offered."""

    BINDINGS = [
        Binding("escape,q", "cancel", "Cancel", id="picker.cancel"),
        Binding("j", "cursor(1)", "Down", show=False, id="picker.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="picker.up"),
        Binding("r", "revert", "Revert to the round's start", id="picker.revert"),
    ]

    def __init__(self, root: Path, protected: frozenset[str] = frozenset(),
                 revert: Callable[[Path], bool] | None = None, base: str = "") -> None:
        """protected: paths relative to root; revert(path): put it back as the round
        began (False: it already was), its base named by `base` (e.g. iter-003)."""
        super().__init__()
        self.root = root
        self.protected = protected
        self.revert = revert
        self.base = base
        self.asked: tuple[str, Path] | None = None  # (what, file) a second key confirms

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Edit which file of workspace/{self.root.name}?", style="bold"))
        options = []
        for path in workspace_files(self.root):
            rel = path.relative_to(self.root).as_posix()
            label = Text(rel)
            if rel in self.protected:
                label.append("  (protected)", style="bold yellow")
            options.append(Option(label, id=str(path)))
        if not options:
            options = [Option("the workspace source folder is empty", disabled=True)]
        yield OptionList(*options, id="picker-list")
        hint = "enter opens · j/k move · esc closes"
        if self.revert is not None:
            hint += f" · r reverts the file to {self.base}'s start"
        yield Static(Text(hint, style="dim"), id="picker-status")

    def on_mount(self) -> None:
        listing = self.query_one("#picker-list", OptionList)
        listing.highlighted = 0 if listing.option_count else None
        listing.focus()

    def _say(self, text: Text) -> None:
        self.query_one("#picker-status", Static).update(text)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if not event.option.id:
            return
        path = Path(event.option.id)
        rel = path.relative_to(self.root).as_posix()
        if rel in self.protected and self.asked != ("open", path):
            self.asked = ("open", path)
            self._say(Text.assemble(
                (f"{rel} is protected", "bold yellow"), " (benchmark, harness, test logic, "
                "thresholds or workload): a round that changes it is refused unless it is "
                "declared a bug fix with a reason. enter again opens it"
                + (", r reverts it." if self.revert else ".")))
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_cursor(self, step: int) -> None:
        listing = self.query_one("#picker-list", OptionList)
        listing.action_cursor_down() if step > 0 else listing.action_cursor_up()

    def action_revert(self) -> None:
        listing = self.query_one("#picker-list", OptionList)
        if self.revert is None or listing.highlighted is None:
            return
        option_id = listing.get_option_at_index(listing.highlighted).id
        if not option_id:
            return
        path = Path(option_id)
        rel = path.relative_to(self.root).as_posix()
        if self.asked != ("revert", path):
            self.asked = ("revert", path)
            self._say(Text.assemble(("r again", "bold"), f" puts {rel} back as it was when "
                                    f"{self.base} began (your edits of it are dropped)"))
            return
        self.asked = None
        try:
            changed = self.revert(path)
        except PtoError as error:
            pto_app(self).report_error(error, title="revert")
            return
        self._say(Text(f"{rel} reverted to {self.base}'s start" if changed
                       else f"{rel} is as {self.base} began: nothing to revert", style="bold"))


class TextEditor(Screen[bool]):
    """The built-in editor (tests, or terminals where the app cannot be suspended). esc
    closes it (the text area would take esc to move the focus on: the screen's key comes
    first); with unsaved edits, only when pressed again."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="editor.save"),
        Binding("escape", "cancel", "Close", id="editor.close", priority=True),
    ]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.original = ""
        self.warned = False

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.path.name}  (ctrl+s saves, esc closes)", style="bold"),
                     classes="topbar")
        self.original = self.path.read_text(encoding="utf-8", errors="replace")
        yield TextArea(self.original, id="editor-area", show_line_numbers=True,
                       tab_behavior="indent", soft_wrap=False)  # one line a row
        yield Footer()

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.cursor_blink = False
        area.focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        self.path.write_text(text, encoding="utf-8")  # the person's edit of the workspace
        self.dismiss(True)

    def action_cancel(self) -> None:
        if self.query_one(TextArea).text != self.original and not self.warned:
            self.warned = True
            self.app.notify("unsaved edits: ctrl+s saves them, esc again drops them",
                            title="editor", severity="warning")
            return
        self.dismiss(False)
