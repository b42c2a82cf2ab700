"""The round rows of an ITERATIONS.md, hand-written or pto-tui's: which rounds have one,
which a person edited, and the style its hand-written rows name rounds in (`3`, as pto-tui
writes them, or `iter-003`, as people often do), so rows appended to a hand-written table
read like the rows above them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pto_tui.core.rounds.hashes import folded_row
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import iterations_row

# the Iter cell of a round row: "3" as pto-tui writes it, "iter-003" as people often do
_ITER_CELL = re.compile(r"^(?:iter[-_ ]?)?(\d+)$", re.IGNORECASE)
_NAMED = re.compile(r"^iter-\d{3,}$")


def _iter_cells(text: str) -> list[tuple[int, str, str]]:
    """(round, its Iter cell, the row) of every table row naming a round."""
    found = []
    for line in text.splitlines():
        if not line.strip().startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = _ITER_CELL.match(cells[0]) if cells else None
        if match:
            found.append((int(match.group(1)), cells[0], line))
    return found


def table_rows(text: str) -> dict[int, str]:
    """Round number -> its row (whitespace folded), of every table row naming a round."""
    return {number: " ".join(line.split()) for number, _cell, line in _iter_cells(text)}


def names_rounds(text: str) -> bool:
    """The table's rows name their rounds `iter-003` (most of them do)."""
    cells = [cell for _number, cell, _line in _iter_cells(text)]
    return bool(cells) and sum(1 for c in cells if _NAMED.match(c)) * 2 > len(cells)


def rows_missing(existing_text: str, rounds: Iterable[Round]) -> list[Round]:
    """Closed rounds that have no row yet in a (hand-edited) ITERATIONS.md."""
    present = set(table_rows(existing_text))
    return [r for r in rounds if r.is_closed and r.number not in present]


def rows_differing(existing_text: str, rounds: Iterable[Round]) -> list[int]:
    """Closed rounds (pto-tui's own, not imported) whose row in ITERATIONS.md is not the row
    their record renders: a row edited by hand, which the records overrule. The Iter cell's
    style (`3` or `iter-003`) is no difference."""
    rows = table_rows(existing_text)
    return [
        r.number
        for r in rounds
        if r.is_closed
        and not r.imported
        and r.number in rows
        and folded_row(rows[r.number]) != folded_row(iterations_row(r))
    ]
