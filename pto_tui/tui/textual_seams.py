"""The one place pto-tui reads Textual's private attributes, each where Textual's public
API has nothing for what pto-tui needs. tests/tui/test_textual_seams.py checks that each
still holds what the wrapper relies on, so a Textual upgrade that breaks one fails there
rather than in a pane. It also checks the one public method used for more than Textual
promises: RoundsTable.render_line (rounds_pane.py) tells when the rows are drawn.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode


def keyed_bindings(node: DOMNode) -> list[tuple[str, Binding]]:
    """Every binding of a node as (key, binding): its class's, its bases' and any bound
    since, with the app's keymap (keys.toml) applied as Textual applies it to the focused
    widgets.

    Private because Textual's public `active_bindings` holds only the bindings of the
    focused widget and its ancestors, while `?` and the palette list every pane's, focused
    or not. Reads the node's `_bindings` (a BindingsMap, copied so the node keeps its own)
    and the app's `_keymap` (what `set_keymap` stored, keys normalised: "?" is
    "question_mark")."""
    bindings = node._bindings.copy()
    keymap = node.app._keymap
    if keymap:
        bindings.apply_keymap(keymap)
    return list(bindings)
