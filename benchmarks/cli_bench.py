"""CLI start-up: `pto-tui --version` and `--help` against `python -c pass` in the same run
(goal: at most 4x), median of several runs each.

    .venv/bin/python benchmarks/cli_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

GOAL = 4.0


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 runs each instead of 21")
    runs = 5 if parser.parse_args().quick else 21
    python = sys.executable
    reference = median_seconds([python, "-c", "pass"], runs)
    print(f"reference `python -c pass`: {reference * 1000:.0f} ms (median of {runs})")
    met = True
    for args in (["--version"], ["--help"]):
        seconds = median_seconds([python, "-m", "pto_tui.cli.main", *args], runs)
        ratio = seconds / reference
        met &= ratio <= GOAL
        verdict = "met" if ratio <= GOAL else "NOT met"
        print(f"pto-tui {args[0]:<10} {seconds * 1000:6.0f} ms  {ratio:4.1f}x  goal <= {GOAL}x  {verdict}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
