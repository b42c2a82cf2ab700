"""Bookkeeping that does not grow with the campaign, at 10 / 100 / 300 / 1,000 rounds (and
5,000 / 10,000 with --large):

1. one round's bookkeeping in-process (round start, changes, measure, close through the
   core calls the CLI makes, on the demo operator with recorded samples, no real build);
   goal: at most 50 ms, and at the largest size at most 1.2x its time at 10;
2. the same round through the CLI, four `pto-tui round ...` processes, at each size against
   10 rounds in pairs; goal: at the largest size at most 1.2x its time at 10;
3. the read commands `status`, `rounds --json`, `show 5`, `export` (csv, md and json) as
   subprocesses in pairs with `python -c pass`; goal: `status` and `show` at most 8x at
   any size, the whole table (`rounds --json`, `export`) at most 8x up to 1,000 rounds
   and 12x past it; and each one's peak memory.

Every comparison is made of interleaved pairs (benchmarks/paired.py): the verdict is on
the median of the pairs' ratios, printed with their range. Each goal is printed with its
figure and PASS or NOT MET; the exit status is 1 when one is not met.

The subprocesses run without PYTHONDONTWRITEBYTECODE, so start-up is timed with cached
bytecode, as an installed pto-tui has it.

    .venv/bin/python benchmarks/bookkeeping_bench.py [--quick] [--large] [--pairs N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from paired import MIN_PAIRS, Pairs, paired, verdict  # noqa: E402

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
TABLE_GOAL = 12.0  # the whole table past 1,000 rounds: it grows with the rounds it prints
SIZES = (10, 100, 300, 1000)
LARGE = (5000, 10000)
READ_COMMANDS = (
    ["status"], ["rounds", "--json"], ["show", "5"],
    ["export", "--format", "csv"], ["export", "--format", "md"], ["export", "--format", "json"],
)
WHOLE_TABLE = ("rounds", "export")
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else ""  # GNU time: peak memory


def make_project(base: Path, rounds: int) -> Path:
    """A demo-operator project with the baseline and `rounds - 1` closed tuning rounds after
    it (verdicts cycling kept / neutral / failure / inconclusive), written through the core
    ledger as real round.toml files and closed.log lines. The one generator of N-round
    projects for the benchmarks. The durations fall slowly and stay positive at any size."""
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
    torch = ledger.torch_state()
    ledger.torch_source = lambda: torch  # as a campaign sets it: project.toml read once
    verdicts = [Verdict.KEPT, Verdict.NEUTRAL, Verdict.FAILURE, Verdict.INCONCLUSIVE]
    for n in range(1, rounds):
        speed = 100.0 / (1.0 + n / 10_000)  # 50 us at 10,000 rounds, never below zero
        ledger.save(Round(
            number=n, status=CLOSED, phase="fine-tune", title=f"idea {n}",
            pre_edit=PreEdit(hypothesis=f"idea {n}", bottleneck="bad tile shape"),
            measurement=Measurement(build="ok", correctness="pass",
                                    samples_us=[speed, speed * 1.001, speed * 0.999],
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


def one_round(campaign: Campaign) -> float:
    """Seconds of one round's bookkeeping through the calls the CLI and the TUI make."""
    start = time.perf_counter()
    campaign.start_round(StartRequest(pre_edit(), title="bigger tiles"))
    campaign.record_changes(ChangesRequest(description="nothing changed yet"))
    campaign.record_measurement(Measurement(build="ok", correctness="pass",
                                            samples_us=[99.0, 99.1, 98.9]))
    campaign.close_round(CloseRequest(analysis="see numbers", next_step="continue"))
    return time.perf_counter() - start


def bookkeeping(roots: dict[int, Path], repeats: int) -> dict[int, list[float]]:
    """One round's bookkeeping at each size, in campaigns kept open, as the terminal
    application keeps one (every call still compares the ledger with the disk). The sizes
    take turns, round by round, so turn i of every size makes one pair with the smallest.
    Each campaign's first round is a warm-up: it pays the one read of the index and the
    imports. Seconds by size, turn by turn."""
    times: dict[int, list[float]] = {size: [] for size in roots}
    with contextlib.ExitStack() as stack:
        campaigns = {
            size: stack.enter_context(Campaign(root, write=True, command="bench"))
            for size, root in roots.items()
        }
        for campaign in campaigns.values():
            one_round(campaign)
        for turn in range(repeats):
            order = list(campaigns.items())
            for size, campaign in order if turn % 2 == 0 else order[::-1]:
                times[size].append(one_round(campaign))
    return times


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    return env


def run_measured(argv: list[str]) -> tuple[float, int]:
    """Seconds and peak resident memory (KiB, 0 when unknown) of one process; fails loudly
    when it fails. The peak is GNU time's: a child forked from this process would count
    this process's memory as its own."""
    with tempfile.NamedTemporaryFile("r") as peak:
        timed = ([TIME, "-f", "%M", "-o", peak.name] if TIME else []) + argv
        start = time.perf_counter()
        done = subprocess.run(timed, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=_env(), check=False)
        seconds = time.perf_counter() - start
        if done.returncode:
            raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
        text = peak.read().strip().splitlines()
    return seconds, int(text[-1]) if text and text[-1].isdigit() else 0


def _python_pass() -> float:
    return run_measured([sys.executable, "-c", "pass"])[0]


def read_commands(root: Path, pairs: int) -> dict[str, tuple[Pairs, int]]:
    """Each read command in pairs with `python -c pass`, and its highest peak memory (KiB)."""
    cli = [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root)]
    out: dict[str, tuple[Pairs, int]] = {}
    for args in READ_COMMANDS:
        out[" ".join(args)] = _read_pairs([*cli, *args], pairs)
    return out


def _read_pairs(argv: list[str], pairs: int) -> tuple[Pairs, int]:
    peaks: list[int] = []

    def ours() -> float:
        seconds, peak = run_measured(argv)
        peaks.append(peak)
        return seconds

    ours()  # bytecode and the rounds index cached
    peaks.clear()
    return paired(ours, _python_pass, pairs), max(peaks)


def cli_round(root: Path, form: Path) -> float:
    """Seconds of one round through the CLI: start, changes, measure, close."""
    cli = [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), "round"]
    steps = (
        ["start", "--form", str(form), "--title", "bigger tiles"],
        ["changes", "--describe", "nothing changed yet"],
        ["measure", "--build", "ok", "--correctness", "pass", "--samples", "99,99.1,98.9"],
        ["close", "--analysis", "see numbers", "--next", "continue"],
    )
    return sum(run_measured([*cli, *step])[0] for step in steps)


def cli_rounds(roots: dict[int, Path], pairs: int, form: Path) -> dict[int, Pairs]:
    """One round through the CLI at each size, in pairs with the smallest size."""
    smallest = min(roots)
    for root in roots.values():
        cli_round(root, form)  # warm-up: bytecode, the index
    return {size: paired(lambda r=root: cli_round(r, form), lambda: cli_round(roots[smallest], form), pairs)
            for size, root in roots.items() if size != smallest}


def write_form(path: Path) -> Path:
    pre = pre_edit()
    data = {k: getattr(pre, k) for k in ("kernel", "bottleneck", "evidence", "hypothesis", "why_ascend",
                                          "expected_metric", "main_risk", "correctness_plan",
                                          "bottleneck_recheck", "new_direction", "scope")}
    data["checklist"] = {k: item.note for k, item in pre.checklist.items()}
    path.write_text(json.dumps(data))
    return path


def read_goal(name: str, size: int) -> float:
    return TABLE_GOAL if size > 1000 and name.split()[0] in WHOLE_TABLE else READ_GOAL


def report_in_process(sizes: tuple[int, ...], times: dict[int, list[float]]) -> list[bool]:
    smallest, largest = sizes[0], sizes[-1]
    print("one round's bookkeeping in-process: median ms (range), the sizes in turns")
    for size in sizes:
        got = times[size]
        print(f"{size:>7} rounds  {statistics.median(got) * 1000:7.1f} ms "
              f"({min(got) * 1000:.1f}-{max(got) * 1000:.1f})")
    worst = max(statistics.median(times[s]) for s in sizes) * 1000
    growth = Pairs(times[largest], times[smallest])
    met = [worst <= ROUND_GOAL_MS, growth.ratio <= ROUND_GROWTH_GOAL]
    print(f"one round's bookkeeping: worst {worst:.1f} ms  goal: <= {ROUND_GOAL_MS:.0f} ms  "
          f"{verdict(met[0])}")
    print(f"one round at {largest} vs {smallest} rounds: {growth.text()}  "
          f"goal: <= {ROUND_GROWTH_GOAL}x  {verdict(met[1])}")
    return met


def report_cli(sizes: tuple[int, ...], got: dict[int, Pairs]) -> list[bool]:
    smallest, largest = sizes[0], sizes[-1]
    print(f"one round through the CLI (4 processes) vs at {smallest} rounds, in pairs")
    for size in sizes[1:]:
        pairs = got[size]
        print(f"{size:>7} rounds  {pairs.median_ours * 1000:7.0f} ms vs "
              f"{pairs.median_reference * 1000:.0f} ms  {pairs.text()}")
    ratio = got[largest].ratio
    print(f"one round via the CLI at {largest} vs {smallest} rounds: {got[largest].text()}  "
          f"goal: <= {ROUND_GROWTH_GOAL}x  {verdict(ratio <= ROUND_GROWTH_GOAL)}")
    return [ratio <= ROUND_GROWTH_GOAL]


def report_reads(sizes: tuple[int, ...], reads: dict[int, dict[str, tuple[Pairs, int]]]) -> list[bool]:
    names = [" ".join(a) for a in READ_COMMANDS]
    print("read commands: ms, x `python -c pass` in pairs (median, range), peak MiB")
    for size in sizes:
        print(f"{size:>7} rounds")
        for name in names:
            pairs, peak = reads[size][name]
            print(f"    {name:<22} {pairs.median_ours * 1000:7.0f} ms  {pairs.text():<28} "
                  f"{peak / 1024:6.1f} MiB")
    largest = sizes[-1]
    met = []
    for name in names:
        pairs, peak = reads[largest][name]
        goal = read_goal(name, largest)
        met.append(pairs.ratio <= goal)
        print(f"`{name}` at {largest} rounds: {pairs.text()} python -c pass "
              f"({pairs.median_reference * 1000:.0f} ms), peak {peak / 1024:.0f} MiB "
              f"(at {sizes[0]}: {reads[sizes[0]][name][1] / 1024:.0f} MiB)  goal: <= {goal:.0f}x  "
              f"{verdict(met[-1])}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 and 100 rounds, one pair")
    parser.add_argument("--large", action="store_true", help="also 5,000 and 10,000 rounds "
                        "(generating them through the ledger takes minutes)")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS, help=f"pairs (at least {MIN_PAIRS})")
    args = parser.parse_args()
    sizes = (10, 100) if args.quick else SIZES + (LARGE if args.large else ())
    pairs = 1 if args.quick else max(args.pairs, MIN_PAIRS)
    with tempfile.TemporaryDirectory() as tmp:
        # the projects' history anchors go with them, not into the user's pto-tui home
        os.environ.setdefault("PTO_TUI_HOME", str(Path(tmp) / "home"))
        roots = {}
        for size in sizes:
            start = time.perf_counter()
            roots[size] = make_project(Path(tmp) / str(size), size)
            print(f"{size} rounds generated through the ledger in {time.perf_counter() - start:.0f} s",
                  flush=True)
        reads = {size: read_commands(root, pairs) for size, root in roots.items()}  # exactly `size` rounds
        in_process = bookkeeping(roots, pairs)
        through_cli = cli_rounds(roots, pairs, write_form(Path(tmp) / "form.json"))
    print(f"pairs: {pairs}; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    met = report_in_process(sizes, in_process)
    met += report_cli(sizes, through_cli)
    met += report_reads(sizes, reads)
    return 0 if all(met) else 1


if __name__ == "__main__":
    raise SystemExit(main())
