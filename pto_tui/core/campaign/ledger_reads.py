"""What one read of the ledger found (the read model's records of it): each round folder
as read, and the checked rounds with the problems, the counts and what the read model
derived from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pto_tui.core.errors import InputError
from pto_tui.core.rounds.ledger import LedgerProblems
from pto_tui.core.rounds.numbering import Stamp
from pto_tui.core.rounds.records import Round


@dataclass(frozen=True, slots=True)
class Entry:
    """One round folder as last read: its record, or why it could not be read."""

    stamp: Stamp | None  # None: the folder has no round.toml
    record: Round | None
    error: InputError | None
    sha: str = ""  # of the round.toml read ("" when there is none)


@dataclass
class Read:
    """What one read of the ledger found: the checked rounds by number, the problems."""

    rounds: dict[int, Round]
    problems: LedgerProblems
    log_lost: bool
    log_version: int = -1  # of runs/closed.log as this read saw it
    unsealed: set[int] = field(default_factory=set)  # rounds a write still looks at
    # what `derived()` computed from the closed rounds, by the function computing it
    derived: dict[Callable[[list[Round]], Any], Any] = field(default_factory=dict)
    ordered: list[Round] | None = None  # the rounds in order, once asked for
    counts: dict[str, int] | None = None  # verdict_counts of every round, kept through writes
    # a snapshot's working set, not every round: the folders on disk are `numbers`
    partial: bool = False
    numbers: list[int] = field(default_factory=list)
    written: set[int] = field(default_factory=set)  # the rounds this process wrote since
