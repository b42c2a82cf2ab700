"""Editing the workspace: `$EDITOR` through app.suspend(), a built-in TextArea otherwise."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded

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


def open_in_editor(app: App[object], path: Path) -> bool:
    """Run $EDITOR on path with the app suspended; False when suspending is impossible."""
    try:
        with app.suspend():
            subprocess.call([*editor_command(), str(path)])
    except SuspendNotSupported:
        return False
    return True


class FilePicker(ModalScreen[Path | None]):
    """Choose a workspace file to edit."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel")]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Edit which file of workspace/{self.root.name}?", style="bold"))
        options = [Option(str(p.relative_to(self.root)), id=str(p))
                   for p in workspace_files(self.root)]
        if not options:
            options = [Option("the workspace source folder is empty", disabled=True)]
        yield OptionList(*options, id="picker-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(Path(event.option.id) if event.option.id else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextEditor(Screen[bool]):
    """The built-in editor (tests, or terminals where the app cannot be suspended)."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="editor.save"),
        Binding("escape", "cancel", "Close", id="editor.close"),
    ]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{self.path.name}  (ctrl+s saves, esc closes)", style="bold"),
                     classes="topbar")
        text = self.path.read_text(encoding="utf-8", errors="replace")
        yield TextArea(text, id="editor-area", show_line_numbers=True, tab_behavior="indent",
                       soft_wrap=False)  # code: one line a row, so a line number is a row
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
        self.dismiss(False)
