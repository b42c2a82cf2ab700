"""Reruns: a round that measures an inconclusive round's change again, linked to it.

The link is kept in the rerun's record (`rerun_of`) and said in its title, so the
ITERATIONS.md row reads "rerun of iter-002: bigger tiles" and an import of the
Markdown finds the link again. The original round is never rewritten: the rounds that
rerun it are found from the records (`reruns_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Round

# "rerun of iter-002: bigger tiles" (the words pto-tui writes; case and the dash are
# read loosely, as people copy them)
_RERUN_TITLE = re.compile(r"^\s*rerun of iter[-_ ]?(\d+)\s*[:：]?\s*(.*)$", re.IGNORECASE | re.DOTALL)


def rerun_title(original: Round) -> str:
    """The title of a rerun of `original`: the link first, then what is measured again
    (a rerun of a rerun names the round it reruns once, not the whole chain)."""
    _earlier, what = parse_rerun_title(original.short_hypothesis())
    return f"rerun of {round_name(original.number)}: {what}"


def parse_rerun_title(text: str) -> tuple[int | None, str]:
    """(the rerun round's number, the rest of the title) of a rerun title; (None, text)
    for any other title."""
    match = _RERUN_TITLE.match(text)
    if match is None:
        return None, text
    return int(match.group(1)), match.group(2).strip()


def reruns_of(rounds: Iterable[Round], number: int) -> list[int]:
    """The rounds that rerun round `number`, in order."""
    return sorted(r.number for r in rounds if r.rerun_of == number)
