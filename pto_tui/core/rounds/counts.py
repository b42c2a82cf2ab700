"""How many rounds after the baseline ended in each verdict: the one count that `status`
(text and --json), the Context pane, the round table's counts line, the side summary, the
summary chart and the campaign report show.

A round whose verdict no line of runs/closed.log the chain vouches for backs (`unverified`:
a round.toml that says closed though pto-tui never closed it, a round whose only log line
was rewritten, the log gone, the chain recomputed) is counted apart, as `unverified`,
never as the verdict its files claim: a hand edit cannot move a count.
"""

from __future__ import annotations

from collections.abc import Iterable

from pto_tui.core.rounds.records import Round
from pto_tui.core.vocabulary import Verdict

UNVERIFIED = "unverified"


def counted_as(record: Round) -> str | None:
    """What a round counts as: its verdict (after amendments), UNVERIFIED, or None (the
    baseline, an open round, a closed round without a verdict)."""
    if record.is_baseline or not record.is_closed:
        return None
    verdict = record.effective_verdict()
    if verdict is None:
        return None
    return UNVERIFIED if record.unverified else verdict.value


def verdict_counts(rounds: Iterable[Round]) -> dict[str, int]:
    """Every verdict's count (zeros included), then `unverified` when any round is."""
    counts = {v.value: 0 for v in Verdict}
    unverified = 0
    for record in rounds:
        word = counted_as(record)
        if word == UNVERIFIED:
            unverified += 1
        elif word is not None:
            counts[word] += 1
    if unverified:
        counts[UNVERIFIED] = unverified
    return counts
