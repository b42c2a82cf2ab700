"""Key bindings with ids, remappable from `<app_home>/keys.toml`.

The file maps binding ids to keys (a comma list binds several keys):

    [keys]
    "pane.rounds" = "2,f2"
    "log.cancel" = "ctrl+k"

Unknown ids are reported, not ignored silently, so a typo is visible.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pto_tui.core.paths import app_home

KEYS_FILE = "keys.toml"


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
