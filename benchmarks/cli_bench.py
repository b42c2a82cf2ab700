"""CLI start-up: `pto-tui --version` and `--help` against `python -c pass` (goal: at most
4x), each in interleaved pairs with the reference (benchmarks/paired.py): the verdict on
the median of the pairs' ratios, printed with their range.

    .venv/bin/python benchmarks/cli_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from paired import MIN_PAIRS, clock, paired, verdict

GOAL = 4.0


def run(argv: list[str]) -> None:
    subprocess.run(argv, capture_output=True, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{MIN_PAIRS} pairs each instead of 21")
    pairs = MIN_PAIRS if parser.parse_args().quick else 21
    python = sys.executable
    reference = clock(lambda: run([python, "-c", "pass"]))
    met = True
    print(f"pairs with `python -c pass`: {pairs} each; load average now {os.getloadavg()[0]:.1f}")
    for args in (["--version"], ["--help"]):
        ours = clock(lambda a=args: run([python, "-m", "pto_tui.cli.main", *a]))
        ours()  # bytecode cached
        got = paired(ours, reference, pairs)
        met &= got.ratio <= GOAL
        print(f"pto-tui {args[0]:<10} {got.median_ours * 1000:6.0f} ms vs "
              f"{got.median_reference * 1000:.0f} ms  {got.text()}  goal <= {GOAL}x  "
              f"{verdict(got.ratio <= GOAL)}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
