"""What a closed round's log line vouches for, as hashes: its files, its ITERATIONS.md row
and the campaign's torch baseline."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

SIDE_FILES = ("notes.md", "patch.diff", "files.txt")  # covered by a closed round's log line


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes, "" when there is none."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return ""


_NAMED_CELL = re.compile(r"^\|\s*iter[-_ ]?0*(\d+)\s*\|", re.IGNORECASE)


def folded_row(row: str) -> str:
    """An ITERATIONS.md row, spacing aside and its Iter cell as a number (`| iter-003 |` is
    `| 3 |`): what a row is compared and hashed as."""
    folded = " ".join(row.split())
    return _NAMED_CELL.sub(lambda m: f"| {m.group(1)} |", folded, count=1)


def row_hash(row: str) -> str:
    """An ITERATIONS.md row, spacing and the Iter cell's style aside (as rows_differing
    compares them)."""
    return sha256_text(folded_row(row))


def torch_hash(torch: dict[str, Any] | None) -> str:
    """The torch baseline's values, in a canonical form ("" when there is none)."""
    if not torch:
        return ""
    return sha256_text(json.dumps({k: torch[k] for k in sorted(torch)}, sort_keys=True, default=str))
