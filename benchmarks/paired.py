"""Interleaved A/B pairs, shared by the benchmarks (not a benchmark itself).

On a shared machine a load that comes and goes for seconds weighs on whatever runs
then: timing all of A, then all of B, turns that load into a false ratio. Here A and B
run in pairs, one right after the other, the order swapped from pair to pair, and each
pair gives its own ratio; the verdict is on the median of those ratios, and the range
(lowest to highest) is printed beside it so a reader sees how much the machine moved.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

MIN_PAIRS = 7  # fewer and one loaded pair moves the median


@dataclass(frozen=True)
class Pairs:
    """Seconds of ours and of the reference, pair by pair."""

    ours: list[float]
    reference: list[float]

    @property
    def ratios(self) -> list[float]:
        """ours / reference, one per pair (> 1: ours is slower)."""
        return [o / r for o, r in zip(self.ours, self.reference, strict=True) if r > 0]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def speed(self) -> list[float]:
        """reference / ours, one per pair (> 1: ours is faster)."""
        return [r / o for o, r in zip(self.ours, self.reference, strict=True) if o > 0]

    @property
    def median_ours(self) -> float:
        return statistics.median(self.ours)

    @property
    def median_reference(self) -> float:
        return statistics.median(self.reference)

    def text(self, inverse: bool = False) -> str:
        """"1.23x (1.10-1.40, 7 pairs)": the median ratio and its range."""
        values = self.speed if inverse else self.ratios
        return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f}, {len(values)} pairs)"


def clock(work: Callable[[], object]) -> Callable[[], float]:
    """`work` made into a measurement: the seconds it took."""

    def timed() -> float:
        start = time.perf_counter()
        work()
        return time.perf_counter() - start

    return timed


def aclock(work: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[float]]:
    async def timed() -> float:
        start = time.perf_counter()
        await work()
        return time.perf_counter() - start

    return timed


def paired(ours: Callable[[], float], reference: Callable[[], float], pairs: int) -> Pairs:
    """`pairs` measurements of each, in turns, the order swapped every pair."""
    got: tuple[list[float], list[float]] = ([], [])
    for index in range(pairs):
        if index % 2:
            got[0].append(ours())
            got[1].append(reference())
        else:
            got[1].append(reference())
            got[0].append(ours())
    return Pairs(*got)


async def apaired(
    ours: Callable[[], Awaitable[float]], reference: Callable[[], Awaitable[float]], pairs: int
) -> Pairs:
    got: tuple[list[float], list[float]] = ([], [])
    for index in range(pairs):
        if index % 2:
            got[0].append(await ours())
            got[1].append(await reference())
        else:
            got[1].append(await reference())
            got[0].append(await ours())
    return Pairs(*got)


def in_thread(work: Callable[[], float]) -> Callable[[], Awaitable[float]]:
    """A blocking measurement (a subprocess) run beside an event loop that must keep going."""

    async def run() -> float:
        return await asyncio.to_thread(work)

    return run


def verdict(met: bool) -> str:
    return "PASS" if met else "NOT MET"
