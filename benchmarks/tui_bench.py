"""Benchmark of the terminal application against bare Textual apps run in the same script.

1. The log pane, N lines (default 1,000,000) streamed from an async source, against a
   bare Textual `Log` fed the same source in batches: time (goal <= 2x the bare Log).
2. Meanwhile, how long the event loop goes without running (a 5 ms ticker measures the
   gaps; goal p95 <= 50 ms), and how long a key sent through the driver takes to reach
   its action.
3. First paint of a project with R rounds (default 1,000) in tmux: launch until the
   table's first rows are on the screen, against a bare Textual app showing a DataTable
   of the same rows and columns (goal <= 1.5x); then `G` until the last round shows.
4. The forms (form_bench.py): a 300-key burst into the Pre-Edit form while a job
   streams (goal p95 <= 30 ms a key), and Amend opening at 300 rounds (goal <= 300 ms).

    .venv/bin/python benchmarks/tui_bench.py [--lines N] [--rounds R] [--quick]

Exits 1 when a goal is not met on this machine now.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import form_bench  # noqa: E402
from bookkeeping_bench import make_project  # noqa: E402  the one N-round project generator
from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.binding import Binding  # noqa: E402
from textual.widgets import Log  # noqa: E402

from pto_tui.tui.widgets.log_pane import LogPane  # noqa: E402
from pto_tui.tui.widgets.log_view import LogView  # noqa: E402

PANE_GOAL = 2.0  # log pane time / bare Log time
GAP_GOAL_MS = 50.0  # p95 of the event loop's gaps while streaming
PAINT_GOAL = 1.5  # first paint / the bare app's
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


BARE_TABLE_APP = '''
import sys
from textual.app import App
from textual.binding import Binding
from textual.widgets import DataTable

ROWS = int(sys.argv[1])
COLUMNS = ("", "", "iter", "verdict", "duration", "TFLOPS", "x init", "x torch",
           "hypothesis", "class", "phase")

class Bare(App):
    BINDINGS = [Binding("G", "bottom", "bottom"), Binding("q", "quit", "quit")]

    def compose(self):
        table = DataTable(cursor_type="row")
        table.add_columns(*COLUMNS)
        yield table

    def on_mount(self):
        table = self.query_one(DataTable)
        for n in range(ROWS):
            table.add_row("", "", str(n), "kept", f"{100 - n * 0.01:.2f} us", "0.0853",
                          "1.00x", "-", f"idea {n}", "bad tile shape", "fine-tune")

    def action_bottom(self):
        table = self.query_one(DataTable)
        table.move_cursor(row=table.row_count - 1, animate=False)

Bare().run()
'''


class Terminal:
    """A tmux server of its own, 120x40: launch a command, wait for text on the screen."""

    def __init__(self) -> None:
        self.socket = f"pto-tui-bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"

    def tmux(self, *argv: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *argv],
                              capture_output=True, text=True, timeout=30)
        return done.stdout

    def until(self, text: str, timeout: float = 60.0) -> bool:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if text in self.tmux("capture-pane", "-p", "-t", "bench"):
                return True
            time.sleep(0.01)
        return False

    def shown(self, argv: list[str], first: str, last: str) -> tuple[float, float]:
        """Seconds from launch until `first` shows, then until `last` shows after `G`."""
        start = time.perf_counter()
        self.tmux("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40",
                  shlex.join(["env", f"PYTHONPATH={REPO}", *argv]))
        try:
            if not self.until(first):
                raise RuntimeError(f"{first!r} never showed:\n"
                                   + self.tmux("capture-pane", "-p", "-t", "bench"))
            painted = time.perf_counter() - start
            self.tmux("send-keys", "-t", "bench", "G")
            if not self.until(last):
                raise RuntimeError(f"{last!r} never showed after G")
            return painted, time.perf_counter() - start
        finally:
            self.tmux("kill-server")


def bench_first_paint(root: Path, rounds: int, repeat: int) -> dict[str, float]:
    """Medians over `repeat` launches of each, in turns (bytecode cached by a first run)."""
    bare_script = root.parent / "bare_table_app.py"
    bare_script.write_text(BARE_TABLE_APP)
    ours = [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root)]
    bare = [sys.executable, str(bare_script), str(rounds)]
    first, last = "idea 1 ", f"idea {rounds - 1}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PTO_TUI_HOME"] = str(root.parent / "home")  # not the user's recent projects
    os.environ.clear()
    os.environ.update(env)  # the tmux server's children inherit it
    results: dict[str, list[tuple[float, float]]] = {"ours": [], "bare": []}
    for run in range(repeat + 1):
        for name, argv in (("bare", bare), ("ours", ours)):
            figures = Terminal().shown(argv, first, last)
            if run:  # the first launch of each writes the bytecode caches
                results[name].append(figures)
    return {
        f"{name}_{what}": statistics.median(f[i] for f in runs)
        for name, runs in results.items() for i, what in enumerate(("paint", "last"))
    }


def verdict(ok: bool) -> str:
    return "PASS" if ok else "NOT MET"


def report_log(lines: int, pane: dict[str, float], bare: float) -> list[bool]:
    ratio = pane["seconds"] / bare
    print(f"log pane, {lines:,} lines streamed: {pane['seconds']:.2f} s; bare Textual Log fed "
          f"the same lines in batches of {BARE_BATCH:,}: {bare:.2f} s")
    print(f"  log pane / bare Log: {ratio:.2f}x   goal: <= {PANE_GOAL}x   {verdict(ratio <= PANE_GOAL)}")
    print(f"  event-loop gaps while streaming: p95 {pane['gap_p95_ms']:.1f} ms, max "
          f"{pane['gap_max_ms']:.1f} ms   goal: p95 <= {GAP_GOAL_MS:.0f} ms   "
          f"{verdict(pane['gap_p95_ms'] <= GAP_GOAL_MS)}")
    print(f"  a key reaches its action in: median {pane['key_median_ms']:.1f} ms, p95 "
          f"{pane['key_p95_ms']:.1f} ms ({pane['keys']:.0f} keys sent, one every 50 ms)")
    return [ratio <= PANE_GOAL, pane["gap_p95_ms"] <= GAP_GOAL_MS]


def report_paint(rounds: int, paint: dict[str, float]) -> list[bool]:
    ratio = paint["ours_paint"] / paint["bare_paint"]
    print(f"first paint in tmux, {rounds:,} rounds: pto-tui {paint['ours_paint']:.2f} s, bare "
          f"Textual app with a DataTable of {rounds:,} rows {paint['bare_paint']:.2f} s")
    print(f"  first paint / bare app: {ratio:.2f}x   goal: <= {PAINT_GOAL}x   "
          f"{verdict(ratio <= PAINT_GOAL)}")
    print(f"  G shows the last round at: pto-tui {paint['ours_last']:.2f} s, bare app "
          f"{paint['bare_last']:.2f} s ({paint['ours_last'] / paint['bare_last']:.2f}x)")
    return [ratio <= PAINT_GOAL]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="launches of each app (first paint)")
    parser.add_argument("--quick", action="store_true", help="20,000 lines, 50 rounds, 1 launch")
    args = parser.parse_args()
    if args.quick:
        args.lines, args.rounds, args.repeat = 20_000, 50, 1

    pane = asyncio.run(bench_log_pane(args.lines))
    bare = asyncio.run(bench_bare_log(args.lines))
    met = report_log(args.lines, pane, bare)
    if shutil.which("tmux") is None:
        print("first paint: not measured (tmux is not installed)")
        met.append(False)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ.setdefault("PTO_TUI_HOME", str(Path(tmp) / "home"))  # anchors stay in tmp
            root = make_project(Path(tmp), args.rounds)
            met += report_paint(args.rounds, bench_first_paint(root, args.rounds, args.repeat))
    if not args.quick:  # the forms' quick run is form_bench.py --quick's own
        met += form_bench.measure(300, 300)
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
