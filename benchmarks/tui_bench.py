"""Benchmark of the terminal application against bare Textual apps run in the same script.

1. The log pane, N lines (default 1,000,000) streamed from an async source, against a
   bare Textual `Log` fed the same source in batches, in interleaved pairs
   (benchmarks/paired.py): time (goal <= 2x the bare Log, on the median of the pairs).
2. Meanwhile, how long the event loop goes without running (a 5 ms ticker measures the
   gaps; goal p95 <= 50 ms), and how long a key sent through the driver takes to reach
   its action.
3. The round table (paint_bench.py) at R rounds (default 1,000; --large adds 5,000 and
   10,000): first paint in tmux against a bare Textual app with a DataTable of the same
   rows (goal <= 1.5x), `G` right after it (goal <= 0.3 s), peak memory (goal <= 2x).
4. The forms (form_bench.py): a 300-key burst into the Pre-Edit form while a job
   streams (goal p95 <= 30 ms a key), and Amend opening at 300 rounds (goal <= 300 ms).

    .venv/bin/python benchmarks/tui_bench.py [--lines N] [--rounds R] [--large] [--pairs N] [--quick]

Exits 1 when a goal is not met on this machine now.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import form_bench  # noqa: E402
import paint_bench  # noqa: E402
from paired import MIN_PAIRS, Pairs, verdict  # noqa: E402
from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.binding import Binding  # noqa: E402
from textual.widgets import Log  # noqa: E402

from pto_tui.tui.widgets.log_pane import LogPane  # noqa: E402
from pto_tui.tui.widgets.log_view import LogView  # noqa: E402

PANE_GOAL = 2.0  # log pane time / bare Log time
GAP_GOAL_MS = 50.0  # p95 of the event loop's gaps while streaming
TICK = 0.005
BARE_BATCH = 10_000


@dataclass(frozen=True)
class Line:
    stream: str
    text: str


def make_text(i: int) -> str:
    return f"[{i:>8}] compiling kernel/fa_kernel.cpp: tile {i % 512} of 512 ok"


async def produce(count: int):
    for i in range(count):
        yield Line("stderr" if i % 50_000 == 0 else "stdout", make_text(i))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)] if ordered else 0.0


class Probe:
    """What a person would feel: the loop's gaps (a ticker) and keys sent every 50 ms."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self.keys: list[float] = []
        self.sent: float | None = None
        self.running = True

    async def tick(self) -> None:
        while self.running:
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            self.gaps.append(time.perf_counter() - before - TICK)

    async def press(self, app: App[None]) -> None:
        while self.running:
            if self.sent is None and app._driver is not None:
                self.sent = time.perf_counter()
                app._driver.send_message(events.Key("z", "z"))
            await asyncio.sleep(0.05)

    def answered(self) -> None:
        if self.sent is not None:
            self.keys.append(time.perf_counter() - self.sent)
            self.sent = None


class PaneApp(App[None]):
    BINDINGS = [Binding("z", "ping", "ping")]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.probe = Probe()

    def compose(self) -> ComposeResult:
        yield LogPane()

    def action_ping(self) -> None:
        self.probe.answered()


class BareLogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Log()


async def bench_log_pane(count: int) -> dict[str, float]:
    app = PaneApp(count)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(LogView)
        probe = app.probe
        ticker = asyncio.create_task(probe.tick())
        presser = asyncio.create_task(probe.press(app))
        start = time.perf_counter()
        app.query_one(LogPane).follow(produce(count), "benchmark stream")
        await asyncio.sleep(0)
        while not (view.source_done and not view.pending and len(view.store) == count):
            await asyncio.sleep(0.01)
        await pilot.pause()
        elapsed = time.perf_counter() - start
        probe.running = False
        await asyncio.gather(ticker, presser)
    return {
        "seconds": elapsed,
        "gap_p95_ms": p95(probe.gaps) * 1000,
        "gap_max_ms": max(probe.gaps, default=0.0) * 1000,
        "key_median_ms": statistics.median(probe.keys) * 1000 if probe.keys else 0.0,
        "key_p95_ms": p95(probe.keys) * 1000,
        "keys": len(probe.keys),
    }


async def bench_bare_log(count: int) -> float:
    """The same source into a bare Log, in batches, letting the app draw between them."""
    app = BareLogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.query_one(Log)
        start = time.perf_counter()
        batch: list[str] = []
        async for line in produce(count):
            batch.append(line.text)
            if len(batch) == BARE_BATCH:
                log.write_lines(batch)
                batch = []
                await asyncio.sleep(0)
        log.write_lines(batch)
        await pilot.pause()
        return time.perf_counter() - start


def log_pairs(lines: int, pairs: int) -> tuple[Pairs, list[dict[str, float]]]:
    """The log pane and the bare Log in turns, the order swapped every pair."""
    ours: list[dict[str, float]] = []
    bare: list[float] = []
    for index in range(pairs):
        if index % 2:
            ours.append(asyncio.run(bench_log_pane(lines)))
            bare.append(asyncio.run(bench_bare_log(lines)))
        else:
            bare.append(asyncio.run(bench_bare_log(lines)))
            ours.append(asyncio.run(bench_log_pane(lines)))
    return Pairs([o["seconds"] for o in ours], bare), ours


def report_log(lines: int, got: Pairs, panes: list[dict[str, float]]) -> list[bool]:
    gap = statistics.median(p["gap_p95_ms"] for p in panes)
    print(f"log pane, {lines:,} lines streamed: {got.median_ours:.2f} s; bare Textual Log fed "
          f"the same lines in batches of {BARE_BATCH:,}: {got.median_reference:.2f} s")
    print(f"  log pane / bare Log: {got.text()}   goal: <= {PANE_GOAL}x   {verdict(got.ratio <= PANE_GOAL)}")
    print(f"  event-loop gaps while streaming: p95 {gap:.1f} ms (median of the runs), max "
          f"{max(p['gap_max_ms'] for p in panes):.1f} ms   goal: p95 <= {GAP_GOAL_MS:.0f} ms   "
          f"{verdict(gap <= GAP_GOAL_MS)}")
    keys = statistics.median(p["key_median_ms"] for p in panes)
    print(f"  a key reaches its action in: median {keys:.1f} ms, p95 "
          f"{statistics.median(p['key_p95_ms'] for p in panes):.1f} ms (one sent every 50 ms)")
    return [got.ratio <= PANE_GOAL, gap <= GAP_GOAL_MS]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--large", action="store_true", help="the round table at 5,000 and 10,000 "
                        "rounds too (generating them through the ledger takes minutes)")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS, help=f"at least {MIN_PAIRS}")
    parser.add_argument("--quick", action="store_true", help="20,000 lines, 50 rounds, one pair")
    args = parser.parse_args()
    pairs = max(args.pairs, MIN_PAIRS)
    sizes = (args.rounds, *(paint_bench.LARGE if args.large else ()))
    if args.quick:
        args.lines, sizes, pairs = 20_000, (50,), 1

    met = report_log(args.lines, *log_pairs(args.lines, pairs))
    met += paint_bench.measure(sizes, pairs)
    if not args.quick:  # the forms' quick run is form_bench.py --quick's own
        met += form_bench.measure(300, 300)
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
