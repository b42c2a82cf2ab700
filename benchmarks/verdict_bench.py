"""How decisive the verdict rule is, measured on generated pairs of sample sets.

Each pair is a frontier's samples and a candidate's, both with lognormal run-to-run noise
(sigma 3% by default), the candidate truly `gain` faster (0: no change). Every pair goes
through the same `decide()` a round's close uses, with the default discipline. Printed:
the share of pairs kept (for a true gain) and inconclusive (for no change), per number of
repeats on each side. A rule that decides better with more repeats shows the kept share
rising with the repeats, and the inconclusive share of no-change pairs falling.

    .venv/bin/python benchmarks/verdict_bench.py            # 400 pairs per cell
    .venv/bin/python benchmarks/verdict_bench.py --quick    # 40 pairs per cell (the test suite)

The pairs are seeded: the same figures every run. No goal is asserted here: the table is
the evidence (exit 0).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.core.project.config import Discipline  # noqa: E402
from pto_tui.core.rules.verdict import decide  # noqa: E402
from pto_tui.core.vocabulary import Verdict  # noqa: E402

REPEATS = (5, 10, 20, 40)


def samples(rng: random.Random, n: int, median_us: float, sigma: float) -> list[float]:
    return [median_us * math.exp(rng.gauss(0.0, sigma)) for _ in range(n)]


def share(verdict: Verdict, *, gain: float, repeats: int, pairs: int, sigma: float, seed: int) -> float:
    """The share of `pairs` generated pairs that `decide()` gives `verdict`."""
    rng = random.Random(seed)
    rules = Discipline()
    hits = 0
    for _ in range(pairs):
        frontier = samples(rng, repeats, 100.0, sigma)
        candidate = samples(rng, repeats, 100.0 / (1.0 + gain), sigma)
        result = decide(build_ok=True, correct=True, same_workload=True, samples=candidate,
                        frontier=frontier, noise_floor=rules.noise_floor,
                        max_spread=rules.max_spread, review_gain=rules.review_gain)
        hits += result.verdict is verdict
    return hits / pairs


def table(pairs: int, sigma: float) -> list[str]:
    rows = [
        ("true 6% gain: kept", Verdict.KEPT, 0.06),
        ("true 1% gain: kept", Verdict.KEPT, 0.01),
        ("no change: kept", Verdict.KEPT, 0.0),
        ("no change: inconclusive", Verdict.INCONCLUSIVE, 0.0),
    ]
    head = f"{'repeats per side':<26}" + "".join(f"{n:>8}" for n in REPEATS)
    lines = [head, "-" * len(head)]
    for label, verdict, gain in rows:
        cells = [share(verdict, gain=gain, repeats=n, pairs=pairs, sigma=sigma, seed=n) for n in REPEATS]
        lines.append(f"{label:<26}" + "".join(f"{c:>8.0%}" for c in cells))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="40 pairs per cell instead of 400")
    parser.add_argument("--pairs", type=int, default=400, help="pairs per cell")
    parser.add_argument("--sigma", type=float, default=0.03, help="lognormal run-to-run noise")
    args = parser.parse_args()
    pairs = 40 if args.quick else args.pairs
    print(f"verdict rule on generated pairs: {pairs} pairs per cell, {args.sigma:.0%} lognormal noise, "
          "default discipline")
    for line in table(pairs, args.sigma):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
