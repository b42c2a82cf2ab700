"""Bookkeeping that does not grow with the campaign, at 10 / 100 / 300 / 1,000 rounds:

1. one round's bookkeeping in-process (round start, changes, measure, close through the
   core calls the CLI makes, on the demo operator with recorded samples, no real build);
   goal: at most 50 ms, and at 1,000 rounds at most 1.2x its time at 10;
2. the read commands `status`, `rounds --json`, `show 5`, `export` (csv, md and json) as
   subprocesses against `python -c pass` run in the same script; goal: at most 8x at
   1,000 rounds.

Each goal is printed with its figure and PASS or NOT MET; the exit status is 1 when one
is not met.

The subprocesses run without PYTHONDONTWRITEBYTECODE, so start-up is timed with cached
bytecode, as an installed pto-tui has it.

    .venv/bin/python benchmarks/bookkeeping_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pto_tui.core.campaign.campaign import Campaign  # noqa: E402
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest  # noqa: E402
from pto_tui.core.rounds.records import (  # noqa: E402
    CLOSED,
    ChecklistItem,
    Measurement,
    PreEdit,
    Round,
)
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, Verdict  # noqa: E402

ROUND_GOAL_MS = 50.0
ROUND_GROWTH_GOAL = 1.2
READ_GOAL = 8.0
READ_COMMANDS = (
    ["status"], ["rounds", "--json"], ["show", "5"],
    ["export", "--format", "csv"], ["export", "--format", "md"], ["export", "--format", "json"],
)


def make_project(base: Path, rounds: int) -> Path:
    """A demo-operator project with the baseline and `rounds - 1` closed tuning rounds after
    it (verdicts cycling kept / neutral / failure / inconclusive), written through the core
    ledger as real round.toml files and closed.log lines. The one generator of N-round
    projects for the benchmarks."""
    from pto_tui.cli.main import main as cli
    from pto_tui.core.campaign.demo import create_demo_project
    from pto_tui.core.project.file import ProjectFile
    from pto_tui.core.project.layout import ProjectLayout
    from pto_tui.core.rounds.ledger import Ledger

    root = create_demo_project("dsl", base / "projects")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli(["--project", str(root), "env", "--declare-environment", "probes given by hand in this test",
            "--probe", "ssh=ok", "--probe", "build=ok"])
        cli(["--project", str(root), "baseline", "--build", "ok", "--correctness", "pass",
             "--samples", "100,101,99"])
    ledger = Ledger(ProjectLayout(root))
    baseline = ledger.load(0)
    verdicts = [Verdict.KEPT, Verdict.NEUTRAL, Verdict.FAILURE, Verdict.INCONCLUSIVE]
    for n in range(1, rounds):
        speed = 100.0 - n * 0.01
        ledger.save(Round(
            number=n, status=CLOSED, phase="fine-tune", title=f"idea {n}",
            pre_edit=PreEdit(hypothesis=f"idea {n}", bottleneck="bad tile shape"),
            measurement=Measurement(build="ok", correctness="pass",
                                    samples_us=[speed, speed + 0.1, speed - 0.1],
                                    fingerprint=baseline.measurement.fingerprint),
            verdict=verdicts[n % 4], verdict_reason="synthetic",
            snapshot=baseline.snapshot, base_snapshot=baseline.snapshot,
        ))
    project = ProjectFile(root / "project.toml")
    project.set("state.last_round", max(rounds - 1, 0))
    project.save()
    return root


def pre_edit() -> PreEdit:
    return PreEdit(
        kernel="demo attention", bottleneck="bad tile shape",
        evidence="costmodel: bigger tiles cost fewer cycles per FLOP",
        hypothesis="bigger tiles cut reloads", why_ascend="fewer GM->UB reloads per tile",
        expected_metric="duration_us", main_risk="UB overflow",
        correctness_plan="the golden comparison passes",
        # the bench's rounds rarely keep: the three-round rule is answered up front
        bottleneck_recheck="still the tile shape", new_direction="larger K tiles",
        checklist={key: ChecklistItem(True, "checked for this round") for key in HARDWARE_CHECKLIST},
        scope=["workspace/**"],
    )


def one_round(campaign: Campaign) -> tuple[float, float]:
    """Seconds of one round's bookkeeping through the calls the CLI and the TUI make: wall
    clock (the goal) and this process's CPU time (what a busy shared machine leaves alone)."""
    start, cpu = time.perf_counter(), time.process_time()
    campaign.start_round(StartRequest(pre_edit(), title="bigger tiles"))
    campaign.record_changes(ChangesRequest(description="nothing changed yet"))
    campaign.record_measurement(Measurement(build="ok", correctness="pass",
                                            samples_us=[99.0, 99.1, 98.9]))
    campaign.close_round(CloseRequest(analysis="see numbers", next_step="continue"))
    return time.perf_counter() - start, time.process_time() - cpu


def bookkeeping(roots: dict[int, Path], repeats: int) -> dict[int, tuple[float, float]]:
    """One round's bookkeeping at each size, in campaigns kept open, as the terminal
    application keeps one (every call still compares the ledger with the disk). The sizes
    take turns, round by round (the machine is shared: a load that comes and goes weighs
    on every size alike). Each campaign's first round is a warm-up: it pays the one read
    of the index and the imports. Medians of wall and CPU by size."""
    times: dict[int, list[tuple[float, float]]] = {size: [] for size in roots}
    with contextlib.ExitStack() as stack:
        campaigns = {
            size: stack.enter_context(Campaign(root, write=True, command="bench"))
            for size, root in roots.items()
        }
        for campaign in campaigns.values():
            one_round(campaign)
        for _ in range(repeats):
            for size, campaign in campaigns.items():
                times[size].append(one_round(campaign))
    return {
        size: (statistics.median(t[0] for t in got), statistics.median(t[1] for t in got))
        for size, got in times.items()
    }


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    return env


def _seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=_env(), check=False)
    return time.perf_counter() - start


def paired(argv: list[str], runs: int) -> tuple[float, float]:
    """Median seconds of `argv` and of `python -c pass`, run in turns (the machine is
    shared: a load that comes and goes weighs on both alike)."""
    _seconds(argv)  # bytecode and the rounds index cached
    times, reference = [], []
    for _ in range(runs):
        reference.append(_seconds([sys.executable, "-c", "pass"]))
        times.append(_seconds(argv))
    return statistics.median(times), statistics.median(reference)


def read_commands(root: Path, runs: int) -> dict[str, tuple[float, float]]:
    cli = [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root)]
    return {" ".join(args): paired([*cli, *args], runs) for args in READ_COMMANDS}


def verdict(met: bool) -> str:
    return "PASS" if met else "NOT MET"


Rows = dict[int, tuple[tuple[float, float], dict[str, tuple[float, float]]]]


def report(sizes: tuple[int, ...], rows: Rows) -> bool:
    names = [" ".join(a) for a in READ_COMMANDS]
    print("one round: wall ms (CPU ms); read commands: ms, and x `python -c pass` run in turns")
    print(f"{'rounds':>7}  {'one round':>15}  " + "  ".join(f"{n:>17}" for n in names))
    for size in sizes:
        (wall, cpu), reads = rows[size]
        cells = "  ".join(f"{reads[n][0] * 1000:8.0f} ms {reads[n][0] / reads[n][1]:4.1f}x" for n in names)
        print(f"{size:>7}  {wall * 1000:6.1f} ({cpu * 1000:5.1f})  {cells}")
    largest, smallest = sizes[-1], sizes[0]
    worst = max(rows[s][0][0] for s in sizes) * 1000
    growth = rows[largest][0][0] / rows[smallest][0][0]
    met = [worst <= ROUND_GOAL_MS, growth <= ROUND_GROWTH_GOAL]
    print(f"one round's bookkeeping: worst {worst:.1f} ms  goal: <= {ROUND_GOAL_MS:.0f} ms  "
          f"{verdict(met[0])}")
    print(f"one round at {largest} vs {smallest} rounds: {growth:.2f}x  "
          f"goal: <= {ROUND_GROWTH_GOAL}x  {verdict(met[1])}")
    for name in names:
        seconds, reference = rows[largest][1][name]
        met.append(seconds / reference <= READ_GOAL)
        print(f"`{name}` at {largest} rounds: {seconds / reference:.1f}x python -c pass "
              f"({reference * 1000:.0f} ms)  goal: <= {READ_GOAL:.0f}x  {verdict(met[-1])}")
    return all(met)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 and 100 rounds, one repeat")
    args = parser.parse_args()
    sizes = (10, 100) if args.quick else (10, 100, 300, 1000)
    repeats = 1 if args.quick else 9
    runs = 1 if args.quick else 7
    with tempfile.TemporaryDirectory() as tmp:
        # the projects' history anchors go with them, not into the user's pto-tui home
        os.environ.setdefault("PTO_TUI_HOME", str(Path(tmp) / "home"))
        roots = {size: make_project(Path(tmp) / str(size), size) for size in sizes}
        reads = {size: read_commands(root, runs) for size, root in roots.items()}  # exactly `size` rounds
        rounds = bookkeeping(roots, repeats)
    rows: Rows = {size: (rounds[size], reads[size]) for size in sizes}
    print(f"bookkeeping, median of {repeats} (the sizes in turns); read commands, median of {runs}")
    return 0 if report(sizes, rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
