"""What every costmodel engine offers, and the records it passes back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pto_tui.core.cycles.capacity import Capacities
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import VersionStamp


@dataclass(frozen=True)
class Outcome:
    """An engine's answer for one query: cycles, or a readable error."""

    cycles: int | None
    error: str = ""


@dataclass(frozen=True)
class Progress:
    done: int  # queries answered so far (cache hits included)
    total: int
    message: str = ""


ProgressFn = Callable[[Progress], None]

# The job layer's shape: run argv (in cwd) somewhere, return (exit code, stdout, stderr).
Runner = Callable[[list[str], str | None], Awaitable[tuple[int, str, str]]]


class Engine(Protocol):
    name: str

    async def stamp(self) -> VersionStamp:
        """The version every number of this engine carries (used as part of cache keys)."""
        ...

    async def capacities(self) -> Capacities:
        """The on-chip buffer capacities queries are checked against (from the checkout)."""
        ...

    async def run(self, queries: Sequence[Query],
                  progress: Callable[[int], None] | None = None) -> dict[str, Outcome]:
        """Outcomes keyed by Query.key; `progress(n)` is called as n more queries finish."""
        ...


def unique_queries(queries: Sequence[Query]) -> list[Query]:
    return list({q.key: q for q in queries}.values())
