"""Benchmark of the terminal application, headless, against references run in the same script.

1. Stream N lines (default 1,000,000) through the log pane, pressing a key every 50 ms
   meanwhile: lines/s, and how long the app takes to answer a key (median, p95, max).
   Reference: a bare Textual `Log` fed the same lines in one `write_lines` call.
2. Time to first paint of a project with R rounds (default 1,000), and until the
   iteration table holds every round.

    .venv/bin/python benchmarks/tui_bench.py [--lines N] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bookkeeping_bench import make_project  # noqa: E402  the one N-round project generator
from textual.app import App, ComposeResult  # noqa: E402
from textual.binding import Binding  # noqa: E402
from textual.widgets import DataTable, Log  # noqa: E402

from pto_tui.tui.widgets.log_pane import LogPane, LogView  # noqa: E402


@dataclass(frozen=True)
class Line:
    stream: str
    text: str


def make_text(i: int) -> str:
    return f"[{i:>8}] compiling kernel/fa_kernel.cpp: tile {i % 512} of 512 ok"


async def produce(count: int):  # noqa: ANN201 - async iterator of lines
    for i in range(count):
        yield Line("stderr" if i % 50_000 == 0 else "stdout", make_text(i))


class PaneApp(App[None]):
    BINDINGS = [Binding("z", "ping", "ping")]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.answered: list[float] = []

    def compose(self) -> ComposeResult:
        yield LogPane()

    def on_mount(self) -> None:
        self.query_one(LogPane).follow(produce(self.count), "benchmark stream")

    def action_ping(self) -> None:
        self.answered.append(time.perf_counter())


class BareLogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Log()


async def bench_log_pane(count: int) -> dict[str, float]:
    app = PaneApp(count)
    latencies: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(LogView)
        start = time.perf_counter()
        while not (view.source_done and len(view.store) == count):
            sent = time.perf_counter()
            before = len(app.answered)
            await pilot.press("z")
            while len(app.answered) == before:
                await asyncio.sleep(0.001)
            latencies.append(app.answered[-1] - sent)
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - start
    latencies.sort()
    return {
        "seconds": elapsed,
        "lines_per_s": count / elapsed,
        "key_median_ms": statistics.median(latencies) * 1000,
        "key_p95_ms": latencies[int(len(latencies) * 0.95) - 1] * 1000 if latencies else 0.0,
        "key_max_ms": latencies[-1] * 1000 if latencies else 0.0,
        "keys": len(latencies),
    }


async def bench_bare_log(count: int) -> dict[str, float]:
    texts = [make_text(i) for i in range(count)]
    app = BareLogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        log = app.query_one(Log)
        start = time.perf_counter()
        log.write_lines(texts)
        await pilot.pause()
        elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "lines_per_s": count / elapsed}


async def bench_first_paint(root: Path, rounds: int) -> dict[str, float]:
    from pto_tui.tui.app import PtoApp
    from pto_tui.tui.screens.project import ProjectScreen

    start = time.perf_counter()
    app = PtoApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, ProjectScreen):
            await asyncio.sleep(0.001)
        await pilot.pause()
        painted = time.perf_counter() - start
        table = app.screen.query_one("#rounds-table", DataTable)
        while table.row_count < rounds:
            await asyncio.sleep(0.005)
        filled = time.perf_counter() - start
    return {"first_paint_s": painted, "table_filled_s": filled}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="20,000 lines and 50 rounds")
    args = parser.parse_args()
    if args.quick:
        args.lines, args.rounds = 20_000, 50

    pane = asyncio.run(bench_log_pane(args.lines))
    bare = asyncio.run(bench_bare_log(args.lines))
    print(f"log pane, {args.lines:,} lines streamed: {pane['seconds']:.2f} s, "
          f"{pane['lines_per_s']:,.0f} lines/s")
    print(f"  key press answered in: median {pane['key_median_ms']:.1f} ms, "
          f"p95 {pane['key_p95_ms']:.1f} ms, max {pane['key_max_ms']:.1f} ms "
          f"({pane['keys']} presses while streaming)")
    print(f"bare Textual Log, one write_lines call: {bare['seconds']:.2f} s, "
          f"{bare['lines_per_s']:,.0f} lines/s (the app answers no key meanwhile)")
    print(f"  ratio log pane / bare Log time: {pane['seconds'] / bare['seconds']:.2f}")

    with tempfile.TemporaryDirectory() as tmp:
        root = make_project(Path(tmp), args.rounds)
        paint = asyncio.run(bench_first_paint(root, args.rounds))
    print(f"project with {args.rounds:,} rounds: first paint {paint['first_paint_s']:.2f} s, "
          f"table filled {paint['table_filled_s']:.2f} s")


if __name__ == "__main__":
    main()
