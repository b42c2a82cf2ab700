"""Round folder numbers: what a read stamps, which numbers are strays (never rounds), and
the gaps in the numbering, bounded by the folders, never by the largest number."""

from __future__ import annotations

from pto_tui.core.project.layout import MAX_ROUND, MAX_ROUND_GAP

# what a round.toml looked like when it was read: (mtime_ns, size, inode); an atomic
# rewrite always changes the inode, a hand edit the time or the size
Stamp = tuple[int, int, int]


def stray_numbers(numbers: list[int]) -> list[int]:
    """Folder numbers (sorted, ascending) that cannot be rounds: above MAX_ROUND, or more
    than MAX_ROUND_GAP past the round before them (iter-99999999 beside iter-012)."""
    strays: list[int] = []
    previous = -1
    for number in numbers:
        if number > MAX_ROUND or number - previous > MAX_ROUND_GAP:
            strays.append(number)
        else:
            previous = number
    return strays


def folder_number(digits: str) -> int:
    """A round folder's number; past MAX_ROUND's digits, one past MAX_ROUND (a stray,
    without converting thousands of digits)."""
    return int(digits) if len(digits) <= len(str(MAX_ROUND)) else MAX_ROUND + 1


def numbering_gaps(numbers: list[int]) -> list[int]:
    """Numbers missing below the highest one (numbers sorted, ascending). Stray folder
    numbers are no rounds and leave no gaps: the work is bounded by the folders, never
    by the largest number."""
    strays = set(stray_numbers(numbers))
    gaps: list[int] = []
    previous = -1
    for number in numbers:
        if number in strays:
            continue
        gaps.extend(range(previous + 1, number))
        previous = number
    return gaps


def chosen_rounds(numbers: list[int], limit: int | None, since: int | None) -> list[int]:
    """Of the round numbers (ascending): the newest `limit`, or those from `since` on (with
    `limit`, the first `limit` of them: a page of the table from `since`)."""
    if since is not None:
        chosen = [n for n in numbers if n >= since]
        return chosen[:limit] if limit is not None else chosen
    return numbers[-limit:] if limit is not None else list(numbers)
