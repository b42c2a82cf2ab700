"""How decisive the verdict rule is, beside the rule it replaced, on generated pairs of
sample sets.

Each pair is a frontier's samples (median 100 us) and a candidate's truly `gain` faster
(frontier / candidate = 1 + gain; 0: no change), both with lognormal run-to-run noise
(sigma 3% by default). Every pair goes through the same `decide()` a round's close uses,
with the default discipline (the new rule), and through the range rule rounds closed
under before it (the old rule, reproduced below as it was). Both rules see the same
pairs. Printed: the share of pairs each verdict takes, per number of repeats on each
side, then the targets the new rule was written to meet, each PASS or MISS. Last, the
new rule as a round applies it, measuring on while unsettled (a quarter of the pairs).

The new rule's "inconclusive" here is "undecided after this many runs": a round would
measure on, up to the discipline's max_repeats, before closing inconclusive.

    .venv/bin/python benchmarks/verdict_bench.py                # 2000 pairs per cell
    .venv/bin/python benchmarks/verdict_bench.py --quick        # 100 pairs per cell (the test suite)
    .venv/bin/python benchmarks/verdict_bench.py --sigma 0.05   # noisier runs

The pairs are seeded: the same figures every run. No goal is asserted by the exit code
(always 0): the table is the evidence.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.core.project.config import Discipline
from pto_tui.core.rounds.records import RANGE_RULE
from pto_tui.core.rules.verdict import RULE, decide
from pto_tui.core.vocabulary import Verdict

REPEATS = (5, 10, 20, 40)
GAINS = (0.06, 0.01, 0.0)
ROWS = (
    ("true 6% gain: kept", 0.06, Verdict.KEPT),
    ("true 1% gain: kept", 0.01, Verdict.KEPT),
    ("no change: kept", 0.0, Verdict.KEPT),
    ("no change: neutral", 0.0, Verdict.NEUTRAL),
    ("no change: inconclusive", 0.0, Verdict.INCONCLUSIVE),
)
LABEL = 26
CELL = 7

Rule = Callable[[Sequence[float], Sequence[float], Discipline], Verdict]
# shares per rule name, per (true gain, repeats per side), per verdict
Shares = dict[str, dict[tuple[float, int], dict[Verdict, float]]]


def new_rule(samples: Sequence[float], frontier: Sequence[float], d: Discipline) -> Verdict:
    """The verdict a round's close gives (pto_tui/core/campaign/closing.py)."""
    return decide(build_ok=True, correct=True, same_workload=True, samples=samples,
                  frontier=frontier, noise_floor=d.noise_floor, max_spread=d.max_spread,
                  review_gain=d.review_gain, confidence=d.confidence).verdict


def _range_rule(samples: Sequence[float], frontier: Sequence[float], d: Discipline) -> Verdict:
    """The rule before the bounds (RANGE_RULE), as it was, for valid samples: the
    candidate's spread (max-min)/median above max_spread is inconclusive; a median gain at
    or below the noise floor is neutral; a gain within either side's noise (half its
    spread, unknown from one run) or from one run is inconclusive; a kept speedup above
    review_gain is held for review (inconclusive); the rest is kept. Kept here, not
    imported: the rule is gone from the package, and this is what the new one replaced."""
    def spread(values: Sequence[float]) -> float:
        return (max(values) - min(values)) / statistics.median(values)

    if spread(samples) > d.max_spread:
        return Verdict.INCONCLUSIVE
    gain = statistics.median(frontier) / statistics.median(samples) - 1
    if gain <= d.noise_floor:
        return Verdict.NEUTRAL
    noise = max((spread(s) / 2 for s in (samples, frontier) if len(s) >= 2), default=0.0)
    if gain <= noise or min(len(samples), len(frontier)) < 2:
        return Verdict.INCONCLUSIVE
    return Verdict.INCONCLUSIVE if 1 + gain > d.review_gain else Verdict.KEPT


RULES: dict[str, Rule] = {"new": new_rule, "old": _range_rule}


def samples(rng: random.Random, n: int, median_us: float, sigma: float) -> list[float]:
    return [median_us * math.exp(rng.gauss(0.0, sigma)) for _ in range(n)]


def measure(pairs: int, sigma: float) -> Shares:
    """Each rule's verdict shares on the same seeded pairs, per true gain and repeats."""
    rules = Discipline()
    shares: Shares = {name: {} for name in RULES}
    for gain in GAINS:
        for n in REPEATS:
            rng = random.Random(n * 1000 + round(gain * 1000))  # one seed per cell
            counts: dict[str, Counter[Verdict]] = {name: Counter() for name in RULES}
            for _ in range(pairs):
                frontier = samples(rng, n, 100.0, sigma)
                candidate = samples(rng, n, 100.0 / (1.0 + gain), sigma)
                for name, rule in RULES.items():
                    counts[name][rule(candidate, frontier, rules)] += 1
            for name in RULES:
                shares[name][(gain, n)] = {v: counts[name][v] / pairs for v in Verdict}
    return shares


def _percent(share: float) -> str:
    return f"{share:.0%}"


def table(shares: Shares) -> list[str]:
    width = CELL * len(REPEATS)
    head = " " * LABEL + f"{'new rule':^{width}}   {'old rule':^{width}}"
    counts = "".join(f"{n:>{CELL}}" for n in REPEATS)
    repeats = f"{'repeats per side':<{LABEL}}{counts}   {counts}"
    lines = [head, repeats, "-" * len(repeats)]
    for label, gain, verdict in ROWS:
        cells = [
            "".join(f"{_percent(shares[name][(gain, n)][verdict]):>{CELL}}" for n in REPEATS)
            for name in RULES
        ]
        lines.append(f"{label:<{LABEL}}{cells[0]}   {cells[1]}")
    return lines


def targets(cells: dict[tuple[float, int], dict[Verdict, float]]) -> list[tuple[str, bool]]:
    """The targets, each met or not. Shares are compared as the table prints them (whole
    percents): a difference it cannot show is the pairs' sampling noise, not a fall."""
    def kept(gain: float, n: int) -> int:
        return round(100 * cells[(gain, n)][Verdict.KEPT])

    rising = [kept(0.06, n) for n in REPEATS]
    return [
        ("6% kept >= 90% at 10 repeats", kept(0.06, 10) >= 90),
        ("6% kept does not fall from 5 to 40", all(a <= b for a, b in zip(rising, rising[1:], strict=False))),
        ("no change kept <= 5% at every repeat count", all(kept(0.0, n) <= 5 for n in REPEATS)),
        ("1% gain kept <= 5% at every repeat count", all(kept(0.01, n) <= 5 for n in REPEATS)),
    ]


FRONTIER_RUNS = (5, 10, 20)


def as_a_round(pairs: int, sigma: float) -> dict[tuple[float, int], tuple[float, float]]:
    """The new rule as a round's loop applies it: the candidate measured from `repeats` on,
    one run at a time, until the verdict is settled or `max_repeats` is reached (the
    decision then is the round's close). Per (true gain, frontier runs): the kept share
    and the mean number of candidate runs."""
    d = Discipline()
    out: dict[tuple[float, int], tuple[float, float]] = {}
    for gain in GAINS:
        for front in FRONTIER_RUNS:
            rng = random.Random(7000 + front * 10 + round(gain * 1000))
            kept = runs = 0
            for _ in range(pairs):
                frontier = samples(rng, front, 100.0, sigma)
                candidate = samples(rng, d.max_repeats, 100.0 / (1.0 + gain), sigma)
                for n in range(d.repeats, d.max_repeats + 1):
                    result = decide(build_ok=True, correct=True, same_workload=True,
                                    samples=candidate[:n], frontier=frontier,
                                    noise_floor=d.noise_floor, max_spread=d.max_spread,
                                    review_gain=d.review_gain, confidence=d.confidence)
                    if result.settled or n == d.max_repeats:
                        kept += result.verdict is Verdict.KEPT
                        runs += n
                        break
            out[(gain, front)] = (kept / pairs, runs / pairs)
    return out


def round_table(cells: dict[tuple[float, int], tuple[float, float]]) -> list[str]:
    d = Discipline()
    head = f"{'frontier runs':<{LABEL}}" + "".join(f"{f:>16}" for f in FRONTIER_RUNS)
    lines = [f"as a round measures ({d.repeats} to {d.max_repeats} runs, stopping once settled): "
             "kept share, mean runs", head, "-" * len(head)]
    for label, gain in (("true 6% gain", 0.06), ("true 1% gain", 0.01), ("no change", 0.0)):
        row = "".join(f"{f'{cells[(gain, f)][0]:.0%}, {cells[(gain, f)][1]:.1f}':>16}" for f in FRONTIER_RUNS)
        lines.append(f"{label:<{LABEL}}{row}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 pairs per cell instead of 2000")
    parser.add_argument("--pairs", type=int, default=2000, help="pairs per cell (default 2000)")
    parser.add_argument("--sigma", type=float, default=0.03, help="lognormal run-to-run noise (default 0.03)")
    args = parser.parse_args()
    pairs = 100 if args.quick else args.pairs
    if pairs < 1 or not args.sigma >= 0:
        parser.error("--pairs must be at least 1 and --sigma at least 0")
    d = Discipline()
    print(f"verdict rules on generated pairs: {pairs} pairs per cell, {args.sigma:.1%} lognormal "
          f"noise, default discipline (noise_floor {d.noise_floor:g}, max_spread {d.max_spread:g}, "
          f"confidence {d.confidence:g})")
    print(f"new rule: {RULE}; old rule: {RANGE_RULE} (spread against max_spread)")
    shares = measure(pairs, args.sigma)
    for line in table(shares):
        print(line.rstrip())
    old = dict(targets(shares["old"]))
    print("\ntargets (for the new rule; the old rule in parentheses):")
    for label, met in targets(shares["new"]):
        print(f"  {label:<44} {'PASS' if met else 'MISS'}  (old: {'PASS' if old[label] else 'MISS'})")
    print()
    for line in round_table(as_a_round(max(pairs // 4, 1), args.sigma)):
        print(line.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
