"""The costmodel tool's output: `[CYCLE] <label> actual=<n>` lines and their labels. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pto_tui.core.cycles.query import Query, QueryError, canonical_dtype, canonical_instruction

_CYCLE_RE = re.compile(r"\[CYCLE\]\s+(?P<label>\S+)\s+actual=(?P<cycles>[0-9]+)")
_LABEL_RES = (
    re.compile(
        r"^(?P<instr>TMATMUL)\.(?P<out>\w+)<(?P<a>\w+),(?P<b>\w+)>_(?P<m>[0-9]+)x(?P<k>[0-9]+)x(?P<n>[0-9]+)$"
    ),
    re.compile(r"^(?P<instr>TCVT)\.(?P<dst>\w+)<-(?P<src>\w+)_(?P<rows>[0-9]+)x(?P<cols>[0-9]+)$"),
    re.compile(r"^(?P<instr>T[A-Z]+)\.(?P<dt>\w+)_(?P<rows>[0-9]+)x(?P<cols>[0-9]+)$"),
)


@dataclass(frozen=True)
class CycleLine:
    label: str
    cycles: int


def parse_cycle_lines(text: str) -> list[CycleLine]:
    """Every `[CYCLE] <label> actual=<n>` line of a tool's or program's output."""
    return [CycleLine(m["label"], int(m["cycles"])) for m in _CYCLE_RE.finditer(text)]


def query_from_label(label: str) -> Query:
    """The query a label names, in any of the three label forms."""
    for regex in _LABEL_RES:
        match = regex.match(label)
        if not match:
            continue
        parts = match.groupdict()
        instr = canonical_instruction(parts["instr"])
        if "out" in parts:
            dtypes = tuple(canonical_dtype(parts[x]) for x in ("a", "b", "out"))
            return Query(instr, dtypes, m=int(parts["m"]), k=int(parts["k"]), n=int(parts["n"]))
        if "dst" in parts:
            dtypes = (canonical_dtype(parts["dst"]), canonical_dtype(parts["src"]))
        else:
            dtypes = (canonical_dtype(parts["dt"]),)
        return Query(instr, dtypes, rows=int(parts["rows"]), cols=int(parts["cols"]))
    raise QueryError(f"not a costmodel label: {label!r}")
