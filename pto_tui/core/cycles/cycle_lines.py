"""The costmodel tool's output: its `[CYCLE] <label> actual=<n>` lines. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

_CYCLE_RE = re.compile(r"\[CYCLE\]\s+(?P<label>\S+)\s+actual=(?P<cycles>[0-9]+)")


@dataclass(frozen=True)
class CycleLine:
    label: str
    cycles: int


def parse_cycle_lines(text: str) -> list[CycleLine]:
    """Every `[CYCLE] <label> actual=<n>` line of a tool's or program's output."""
    return [CycleLine(m["label"], int(m["cycles"])) for m in _CYCLE_RE.finditer(text)]
