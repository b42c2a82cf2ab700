"""High-risk change detection from a round's diff and parameter changes (docs/workflow.md §11.4).

Each finding is a short sentence; a round with findings needs a written justification
before its numbers are recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pto_tui.core.project.config import Scalar

_TILE_NAME = re.compile(r"(TILE|BASE_[MNK]|CUBE_S|BLOCK_[MNK]|_M\d?$|_N\d?$|_K\d?$)", re.I)
_FIFO_NAME = re.compile(r"FIFO", re.I)
_SYNC = re.compile(
    r"\b(pipe_barrier|PipeBarrier|set_flag|wait_flag|SetFlag|WaitFlag|sync_all|"
    r"SyncAll|TSYNC|barrier)\b"
)
_INSTRUCTION = re.compile(r"\b(T[A-Z][A-Z0-9]+)\s*\(")
_FIFO_CODE = re.compile(r"\b\w*[Ff]ifo\w*\s*=\s*\d+")


def _number(value: Scalar | None) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(value)
    except ValueError:
        return None


def parameter_risks(changes: Iterable[tuple[str, Scalar | None, Scalar]]) -> list[str]:
    found = []
    for name, old, new in changes:
        if _FIFO_NAME.search(name):
            found.append(f"FIFO size change {name} {old}->{new} may change the kernel's semantics")
            continue
        before, after = _number(old), _number(new)
        if _TILE_NAME.search(name) and before is not None and after is not None and after > before:
            found.append(f"bigger tile {name} {old}->{new} risks UB overflow or a compile failure")
    return found


def diff_risks(diff_text: str) -> list[str]:
    """Removed barriers/sync, FIFO constants edited, instructions reordered."""
    removed: list[str] = []
    added: list[str] = []
    for line in diff_text.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append(line[1:].strip())
        elif line.startswith("+"):
            added.append(line[1:].strip())
    found = []
    removed_sync = [r for r in removed if _SYNC.search(r)]
    kept_sync = {a for a in added if _SYNC.search(a)}
    dropped = [r for r in removed_sync if r not in kept_sync]
    if dropped:
        found.append(f"barrier/sync removed without a dependency proof: {dropped[0]}")
    if any(_FIFO_CODE.search(a) for a in added) and any(_FIFO_CODE.search(r) for r in removed):
        found.append("FIFO size constant changed: may change the kernel's semantics")
    moved = [r for r in removed if _INSTRUCTION.search(r) and r in added]
    if moved:
        found.append(f"instructions reordered (numerics may change): {moved[0]}")
    return found
