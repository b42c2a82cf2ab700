"""The summary chart at 10 / 100 / 300 / 1,000 rounds: time to write the PNG, its width and
the number of x slots, beside the goal. Every kept round has a slot of its own (the
workflow's rule; the other rounds fold), so the axis grows with the kept rounds (a kept
round every third here: far more than a real campaign has). Goal: at most 2 s while the
axis holds 40 slots or fewer; a wider one at most as many seconds a slot as the reference,
the 10-round chart drawn in the same run (no worse than linear in its slots), with every
kept round on its axis.

    .venv/bin/python benchmarks/chart_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.core.rounds.records import CLOSED, Measurement, PreEdit, Round
from pto_tui.core.summary.chart import write_chart
from pto_tui.core.summary.chart_style import WIDE_AXIS
from pto_tui.core.vocabulary import Verdict

GOAL_SECONDS = 2.0


def campaign(count: int) -> list[Round]:
    """Baseline + `count` rounds: a kept round (a little faster) every third, failures
    every eleventh, neutral rounds between."""
    rounds = [_round(0, None, 1000.0)]
    best = 1000.0
    for n in range(1, count + 1):
        if n % 3 == 0:
            best *= 0.999
            rounds.append(_round(n, Verdict.KEPT, best))
        elif n % 11 == 0:
            rounds.append(_round(n, Verdict.FAILURE, None))
        else:
            rounds.append(_round(n, Verdict.NEUTRAL, best * 1.01))
    return rounds


def _round(number: int, verdict: Verdict | None, median: float | None) -> Round:
    samples = [median * f for f in (0.99, 1.0, 1.01)] if median else []
    measured = Measurement(build="ok" if median else "failed", correctness="pass" if median else "",
                           samples_us=samples)
    return Round(number=number, status=CLOSED, phase="baseline" if number == 0 else "costmodel-guided",
                 title=f"round {number}", pre_edit=PreEdit(hypothesis=f"hypothesis {number}"),
                 measurement=measured, verdict=verdict)


def png_width(path: Path) -> int:
    return int(struct.unpack(">I", path.read_bytes()[16:20])[0])


def measure(count: int, repeats: int, folder: Path) -> tuple[float, int, int, bool]:
    """Median seconds, PNG width, slots, and whether every kept round has its own slot."""
    rounds = campaign(count)
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = write_chart(rounds, None, (), "bench", folder / f"chart-{count}.png")
        times.append(time.perf_counter() - start)
    assert result is not None
    kept = {r.number for r in rounds if r.verdict is Verdict.KEPT}
    own = {s.shown for s in result.model.slots if s.covers == (s.shown,)}
    return statistics.median(times), png_width(result.png), len(result.model.slots), kept <= own


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, 10 and 1,000 rounds only")
    args = parser.parse_args()
    sizes = (10, 1000) if args.quick else (10, 100, 300, 1000)
    repeats = 1 if args.quick else 3
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        measure(10, 1, Path(tmp))  # warm-up: fonts and matplotlib's caches
        rows = [(n, *measure(n, repeats, Path(tmp))) for n in sizes]
    reference, ref_slots = rows[0][1], rows[0][3]
    per_slot = reference / ref_slots
    print(f"summary chart, median of {repeats}; reference: the 10-round chart ({reference:.2f} s, "
          f"{per_slot * 1000:.0f} ms a slot)")
    header = f"{'rounds':>7} {'seconds':>8} {'x ref':>6} {'PNG px':>7} {'slots':>5} {'ms/slot':>7}"
    print(f"{header}   goal: <= {GOAL_SECONDS} s up to {WIDE_AXIS} slots, else <= the reference's "
          "ms a slot; every kept round on the axis")
    for count, seconds, width, slots, every_kept in rows:
        fast = seconds <= GOAL_SECONDS if slots <= WIDE_AXIS else seconds / slots <= per_slot
        ok = fast and every_kept
        met &= ok
        verdict = "met" if ok else "NOT met" + ("" if every_kept else " (a kept round folded)")
        print(f"{count:>7} {seconds:>8.2f} {seconds / reference:>6.2f} {width:>7} {slots:>5} "
              f"{seconds / slots * 1000:>7.1f}   {verdict}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
