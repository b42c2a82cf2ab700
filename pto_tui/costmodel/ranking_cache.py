"""The rankings `suggest` printed, kept per what they were computed from
(.pto-tui/cache/suggest.json): the sources the costmodel plan is read from, the operator's
marker, the case and the tunables, and the costmodel's version stamp (engine, pto-isa,
compiler, flags). A second `suggest` with all of those unchanged prints the kept ranking
without deriving the plan or ranking again; an edit of a source, a new case or another
engine is a new key. Rankings with a failed query are not kept (a broken set-up may be
fixed a minute later), like the query cache. Only speed depends on it: a damaged file is
started afresh, a write that fails is skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.cycles.results import VersionStamp
from pto_tui.core.errors import DiskFullError
from pto_tui.core.project.config import ProjectConfig
from pto_tui.costmodel.sources import plan_sources

RANKING_FILE = "suggest.json"
FORMAT = 1
KEPT = 16  # rankings kept (one per --knob asked, per source state): the newest


def ranking_key(folder: Path, config: ProjectConfig, stamp: VersionStamp, only: str) -> str:
    """The hash of everything a ranking is computed from."""
    digest = hashlib.sha256()
    for part in (str(FORMAT), stamp.key, only, repr(config.case), repr(config.operator),
                 repr(sorted(config.tunables.items()))):
        digest.update(part.encode() + b"\0")
    for rel, text in sorted(plan_sources(folder, config).items()):
        digest.update(f"{rel}\0{text}\0".encode())
    for marker in sorted(folder.rglob("pto-operator.toml")):
        digest.update(f"{marker.relative_to(folder)}\0".encode() + marker.read_bytes() + b"\0")
    return digest.hexdigest()


def _entries(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    entries = data.get("entries") if isinstance(data, dict) and data.get("format") == FORMAT else None
    return entries if isinstance(entries, dict) else {}


def kept_ranking(path: Path, key: str) -> list[dict[str, Any]] | None:
    found = _entries(path).get(key)
    return found if isinstance(found, list) and all(isinstance(s, dict) for s in found) else None


def keep_ranking(path: Path, key: str, suggestions: list[dict[str, Any]]) -> None:
    entries = _entries(path)
    entries.pop(key, None)
    entries[key] = suggestions  # newest last: the oldest go first
    kept = dict(list(entries.items())[-KEPT:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"format": FORMAT, "entries": kept}) + "\n")
    except (OSError, DiskFullError):
        pass


async def ranked(path: Path | None, key_of: Callable[[], Awaitable[str]],
                 compute: Callable[[], Awaitable[tuple[list[dict[str, Any]], bool]]],
                 ) -> tuple[list[dict[str, Any]], bool]:
    """The suggestions (as printed) and whether they were kept ones: the kept ranking under
    the key, else `compute()` (the suggestions and whether every query succeeded), kept
    when it did. `path` None: nothing kept, nothing read (--no-cache)."""
    if path is None:
        return (await compute())[0], False
    key = await key_of()
    found = kept_ranking(path, key)
    if found is not None:
        return found, True
    computed, complete = await compute()
    if complete:
        keep_ranking(path, key, computed)
    return computed, False
