"""Key bindings with ids, remappable from `<app_home>/keys.toml`.

The file maps binding ids to keys (a comma list binds several keys):

    [keys]
    "pane.rounds" = "2,f2"
    "log.cancel" = "ctrl+k"

An id no binding of the app has is reported once (naming the file and the id), not
ignored silently, so a typo is visible. `?` lists every id.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import tomllib
from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.dom import DOMNode

from pto_tui.core.paths import app_home

KEYS_FILE = "keys.toml"
PANE_COUNT = 5  # the project screen's panes, reached by 1-5, F1-F5 and alt+1-5


def keys_path() -> Path:
    return app_home() / KEYS_FILE


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, problems). A missing file is an empty keymap."""
    path = path or keys_path()
    if not path.is_file():
        return {}, []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        return {}, [f"{path}: {error}"]
    table = data.get("keys", data)
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in table.items():
        if isinstance(keys, list):
            keys = ",".join(str(k) for k in keys)
        if not isinstance(keys, str) or not keys.strip():
            problems.append(f"{path}: {binding_id}: expected a key string")
            continue
        keymap[str(binding_id)] = keys.replace(" ", "")
    return keymap, problems


def pane_keys_display(binding: Binding) -> str:
    """How the footer shows the pane keys: "1-5" while no text field has the focus (a
    field takes the digits), "F1-5" in one; "" for any other binding."""
    if not binding.action.startswith("show_pane("):
        return ""
    key = binding.key
    if key.isdigit():
        return f"1-{PANE_COUNT}"
    if key.startswith("f") and key[1:].isdigit():
        return f"F1-{PANE_COUNT}"
    if key.startswith("alt+") and key[4:].isdigit():
        return f"alt+1-{PANE_COUNT}"
    return ""


def known_binding_ids() -> set[str]:
    """Every binding id of this app: of each screen and widget class in pto_tui.tui
    (their modules imported; the app imports them anyway once its panes are built)."""
    import pto_tui.tui as package

    ids: set[str] = set()
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, DOMNode):
                ids.update(b.id for b in value.BINDINGS if isinstance(b, Binding) and b.id)
    return ids


def unknown_ids_problem(keymap: dict[str, str], path: Path | None = None) -> str:
    """One line naming the file and the ids of keymap no binding has ("" when none)."""
    unknown = sorted(set(keymap) - known_binding_ids())
    if not unknown:
        return ""
    ids = ", ".join(repr(i) for i in unknown)
    return (f"{path or keys_path()}: no key binding has the id {ids}: ignored "
            "(? lists every id)")


# Textual reads alt+1 .. alt+5 from an xterm-like terminal (ESC then the digit) as the
# characters macOS's Option key types there; pto-tui takes them back as alt+digit, so
# the pane keys work in a text field (no answer of a form needs these characters)
ALT_DIGITS = {"¡": "alt+1", "™": "alt+2", "£": "alt+3", "¢": "alt+4", "∞": "alt+5"}


def as_alt_digit(event: events.Key) -> events.Key:
    """The key as pressed: alt+digit for the characters Textual reads it as."""
    key = ALT_DIGITS.get(event.character or "")
    return event if key is None else events.Key(key, None)
