"""The costmodel result cache: a JSON file of cycle numbers keyed by query and version.

Key = sha256 of (query key, version stamp key): the stamp holds the engine, the
pto-isa commit (or content hash), the compiler version and the flags, so any of
those changing is a miss. Only successful results are stored; a failure may be
a broken set-up that is fixed a minute later. Writes are atomic and merge with
what another process may have written meanwhile.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import VersionStamp
from pto_tui.core.paths import app_home

CACHE_FORMAT = 1
CACHE_FILE = "costmodel.json"


def default_cache_path() -> Path:
    """The cache outside any project: <app home>/cache/costmodel.json."""
    return app_home() / "cache" / CACHE_FILE


def cache_key(query: Query, stamp: VersionStamp) -> str:
    return hashlib.sha256(f"{query.key}\n{stamp.key}".encode()).hexdigest()[:32]


class CostmodelCache:
    """Loaded once, looked up in memory, written back with save()."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.entries: dict[str, dict[str, Any]] = self._load()
        self._dirty: dict[str, dict[str, Any]] = {}

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return {}  # a damaged cache is only lost speed: start afresh
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    def get(self, query: Query, stamp: VersionStamp) -> int | None:
        entry = self.entries.get(cache_key(query, stamp))
        if not isinstance(entry, dict) or entry.get("query") != query.key:
            return None
        cycles = entry.get("cycles")
        return cycles if isinstance(cycles, int) else None

    def put(self, query: Query, stamp: VersionStamp, cycles: int) -> None:
        entry = {
            "query": query.key, "label": query.label, "cycles": cycles,
            "stamp": stamp.to_dict(), "stored": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        key = cache_key(query, stamp)
        self.entries[key] = entry
        self._dirty[key] = entry

    def save(self) -> None:
        """Merge our new entries into the file as it is now, then write atomically."""
        if not self._dirty:
            return
        merged = self._load()
        merged.update(self._dirty)
        text = json.dumps({"format": CACHE_FORMAT, "entries": merged}, indent=1, sort_keys=True)
        atomic_write_text(self.path, text + "\n")
        self.entries = merged
        self._dirty = {}

    def __len__(self) -> int:
        return len(self.entries)
