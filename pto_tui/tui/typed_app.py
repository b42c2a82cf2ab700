"""The app as widgets and screens reach it: `pto_app(self).report_error(...)`.

Textual types `node.app` as any App. `WorkbenchApp` declares what widgets and screens call
on the app, and `pto_app` checks once, here, that the app is one, instead of a
`type: ignore` at every call. It lives apart from app.py (`PtoApp`, its one
implementation), which imports the screens that call it: no import cycle.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.dom import DOMNode

from pto_tui.core.errors import PtoError
from pto_tui.tui.format import error_text


class WorkbenchApp(App[int]):
    """What the panes and screens ask of the application."""

    def report_error(self, error: BaseException, title: str = "") -> None:
        """The one place errors become a visible notice (workers and panes call it)."""
        if isinstance(error, PtoError):
            text = error_text(error)
            title = title or ("refused" if error.__class__.__name__ == "RuleViolation" else "")
        else:
            text = f"{error.__class__.__name__}: {error}"
        self.notify(text, title=title or "error", severity="error", timeout=10)

    def open_project(self, root: Path) -> None:
        raise NotImplementedError

    async def close_project(self) -> None:
        raise NotImplementedError


def pto_app(node: DOMNode) -> WorkbenchApp:
    """The application this node runs in (a TypeError in any other app: a bug, not an input)."""
    app = node.app
    if not isinstance(app, WorkbenchApp):
        raise TypeError(f"{type(node).__name__} runs in {type(app).__name__}, not in pto-tui's app")
    return app
