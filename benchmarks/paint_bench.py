"""The round table of the terminal application at 1,000 rounds (and 5,000 / 10,000 with
--large), each launched in tmux at 120x40 in pairs with a bare Textual app showing a
DataTable of the same rows and columns (tui_bench.py prints these too):

1. first paint: launch until the table's first rows are on the screen (goal <= 1.5x the
   bare app's);
2. `G` right after the first paint: the key sent until the last round is on the screen
   (goal <= 0.3 s);
3. peak memory (the process's VmHWM once the screen settled after `G`; goal <= 2x the
   bare app's).

The pairs are interleaved (benchmarks/paired.py): verdicts on the medians of the pairs'
ratios, printed with their range.

    .venv/bin/python benchmarks/paint_bench.py [--rounds R] [--large] [--pairs N] [--quick]

Exits 1 when a goal is not met on this machine now.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(REPO / "benchmarks"))

from bookkeeping_bench import make_project  # noqa: E402  the one N-round project generator
from paired import MIN_PAIRS, Pairs, verdict  # noqa: E402

PAINT_GOAL = 1.5  # first paint / the bare app's
BOTTOM_GOAL = 0.3  # seconds from G to the last round on the screen
MEMORY_GOAL = 2.0  # peak memory / the bare app's
LARGE = (5000, 10000)

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
            table.add_row("", "", str(n), "kept", f"{100 / (1 + n / 10000):.2f} us", "0.0853",
                          "1.00x", "-", f"idea {n}", "bad tile shape", "fine-tune")

    def action_bottom(self):
        table = self.query_one(DataTable)
        table.move_cursor(row=table.row_count - 1, animate=False)

Bare().run()
'''


@dataclass(frozen=True)
class Launch:
    paint: float  # seconds from launch to the first rows
    bottom: float  # seconds from G to the last round
    peak_kib: int  # the process's peak resident memory


class Terminal:
    """A tmux server of its own, 120x40: launch a command, wait for text on the screen."""

    def __init__(self) -> None:
        self.socket = f"pto-tui-bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"

    def tmux(self, *argv: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *argv],
                              capture_output=True, text=True, timeout=30)
        return done.stdout

    def until(self, text: str, timeout: float = 120.0) -> bool:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if text in self.tmux("capture-pane", "-p", "-t", "bench"):
                return True
            time.sleep(0.01)
        return False

    def peak_kib(self) -> int:
        """The pane's process's peak memory once its resident memory stopped moving."""
        pid = self.tmux("list-panes", "-t", "bench", "-F", "#{pane_pid}").strip()
        status = Path(f"/proc/{pid}/status")
        last, deadline = -1, time.perf_counter() + 30
        while time.perf_counter() < deadline:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            now = int(fields["VmRSS"].split()[0])
            if now == last:
                return int(fields["VmHWM"].split()[0])
            last = now
            time.sleep(0.5)
        return int(fields["VmHWM"].split()[0])

    def launch(self, argv: list[str], first: str, last: str) -> Launch:
        start = time.perf_counter()
        self.tmux("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40",
                  shlex.join(["env", f"PYTHONPATH={REPO}", *argv]))
        try:
            if not self.until(first):
                raise RuntimeError(f"{first!r} never showed:\n"
                                   + self.tmux("capture-pane", "-p", "-t", "bench"))
            painted = time.perf_counter()
            self.tmux("send-keys", "-t", "bench", "G")
            if not self.until(last):
                raise RuntimeError(f"{last!r} never showed after G")
            bottom = time.perf_counter() - painted
            return Launch(painted - start, bottom, self.peak_kib())
        finally:
            self.tmux("kill-server")


def launches(root: Path, rounds: int, pairs: int) -> dict[str, list[Launch]]:
    """`pairs` launches of each app, in turns, the order swapped every pair (bytecode
    cached by a first launch of each)."""
    bare_script = root.parent / "bare_table_app.py"
    bare_script.write_text(BARE_TABLE_APP)
    apps = {"ours": [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root)],
            "bare": [sys.executable, str(bare_script), str(rounds)]}
    first, last = "idea 1 ", f"idea {rounds - 1} "
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    os.environ.clear()
    os.environ.update(env)  # the tmux server's children inherit it
    got: dict[str, list[Launch]] = {"ours": [], "bare": []}
    for argv in apps.values():
        Terminal().launch(argv, first, last)
    for index in range(pairs):
        order = ("bare", "ours") if index % 2 == 0 else ("ours", "bare")
        for name in order:
            got[name].append(Terminal().launch(apps[name], first, last))
    return got


def report(rounds: int, got: dict[str, list[Launch]]) -> list[bool]:
    ours, bare = got["ours"], got["bare"]
    paint = Pairs([g.paint for g in ours], [g.paint for g in bare])
    memory = Pairs([float(g.peak_kib) for g in ours], [float(g.peak_kib) for g in bare])
    bottoms = [g.bottom for g in ours]
    bottom = statistics.median(bottoms)
    print(f"{rounds:,} rounds in tmux, 120x40")
    print(f"  first paint: pto-tui {paint.median_ours:.2f} s, bare Textual app with a DataTable of "
          f"{rounds:,} rows {paint.median_reference:.2f} s: {paint.text()}   goal: <= {PAINT_GOAL}x   "
          f"{verdict(paint.ratio <= PAINT_GOAL)}")
    print(f"  G right after the first paint shows the last round in: pto-tui {bottom:.2f} s "
          f"({min(bottoms):.2f}-{max(bottoms):.2f}), bare app "
          f"{statistics.median(g.bottom for g in bare):.2f} s   goal: <= {BOTTOM_GOAL} s   "
          f"{verdict(bottom <= BOTTOM_GOAL)}")
    print(f"  peak memory: pto-tui {memory.median_ours / 1024:.0f} MiB, bare app "
          f"{memory.median_reference / 1024:.0f} MiB: {memory.text()}   goal: <= {MEMORY_GOAL}x   "
          f"{verdict(memory.ratio <= MEMORY_GOAL)}")
    return [paint.ratio <= PAINT_GOAL, bottom <= BOTTOM_GOAL, memory.ratio <= MEMORY_GOAL]


def measure(sizes: tuple[int, ...], pairs: int) -> list[bool]:
    if shutil.which("tmux") is None:
        print("first paint: not measured (tmux is not installed)")
        return [False]
    met: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PTO_TUI_HOME"] = str(Path(tmp) / "home")  # anchors and recent projects stay here
        print(f"the round table, {pairs} pair(s) of launches; load average now "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for rounds in sizes:
            root = make_project(Path(tmp) / str(rounds), rounds)
            met += report(rounds, launches(root, rounds, pairs))
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--large", action="store_true", help="also 5,000 and 10,000 rounds "
                        "(generating them through the ledger takes minutes)")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS, help=f"at least {MIN_PAIRS}")
    parser.add_argument("--quick", action="store_true", help="50 rounds, one pair")
    args = parser.parse_args()
    if args.quick:
        return 0 if all(measure((50,), 1)) else 1
    sizes = (args.rounds, *(LARGE if args.large else ()))
    return 0 if all(measure(sizes, max(args.pairs, MIN_PAIRS))) else 1


if __name__ == "__main__":
    sys.exit(main())
