"""The app as its own type, for widgets and screens: `pto_app(self).report_error(...)`.

Textual types `node.app` as any App; this checks once, here, that it is the PtoApp,
instead of a `type: ignore` at every call of the app's own methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.dom import DOMNode

if TYPE_CHECKING:
    from pto_tui.tui.app import PtoApp


def pto_app(node: DOMNode) -> PtoApp:
    """The PtoApp this node runs in (a TypeError in any other app: a bug, not an input)."""
    from pto_tui.tui.app import PtoApp  # app.py imports the screens that call this

    app = node.app
    if not isinstance(app, PtoApp):
        raise TypeError(f"{type(node).__name__} runs in {type(app).__name__}, not in PtoApp")
    return app
