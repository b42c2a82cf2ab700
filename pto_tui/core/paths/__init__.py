"""Where pto-tui keeps its own files (outside any project)."""

from __future__ import annotations

import os
from pathlib import Path


def app_home() -> Path:
    """pto-tui's own directory: known_hosts, key bindings, caches.

    PTO_TUI_HOME overrides it (tests use this to stay out of the user's home).
    """
    override = os.environ.get("PTO_TUI_HOME")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pto-tui"
