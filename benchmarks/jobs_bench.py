"""Job layer speed against OpenSSH and rsync, on a loopback sshd started here.

Run: .venv/bin/python benchmarks/jobs_bench.py [--quick]

Prints ratios measured in the same run (numbers on loopback are lower bounds: no
network latency), each next to its goal with PASS or NOT MET; exits 1 when a goal is not
met. Every row is made of interleaved pairs of ours and the reference
(benchmarks/paired.py): the verdict is on the median of the pairs' ratios, printed with
their range.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from paired import MIN_PAIRS, Pairs, aclock, apaired  # noqa: E402

from pto_tui.core.project.config import Target  # noqa: E402
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES  # noqa: E402
from pto_tui.jobs.hostkeys import trust_host_key  # noqa: E402
from pto_tui.jobs.job import Job  # noqa: E402
from pto_tui.jobs.loopback_sshd import LoopbackSshd  # noqa: E402
from pto_tui.jobs.model import JobSpec, JobState  # noqa: E402
from pto_tui.jobs.runner import JobRunner  # noqa: E402

LINE = "x" * 72  # with "NNNNNNN " in front: ~80 bytes a line, as in docs/remote.md §4
LINES = 1_000_000


class Goals:
    """Every row's figure next to its goal, and whether each goal was met."""

    def __init__(self) -> None:
        self.missed: list[str] = []

    def report(self, name: str, got: Pairs, goal: str, *, least: float = 0.0,
               most: float = 0.0) -> None:
        """`least`: the reference's time / ours at least this (a speed); `most`: ours / the
        reference's at most this (a time)."""
        ratio = statistics.median(got.speed) if least else got.ratio
        met = ratio >= least if least else ratio <= most
        verdict = "PASS" if met else "NOT MET"
        print(f"  {name:<54} pto-tui {got.median_ours:7.3f} s   reference {got.median_reference:7.3f} s"
              f"   ratio {got.text(inverse=bool(least))}   {verdict:<7} (goal: {goal})")
        if not met:
            self.missed.append(name)


def make_tree(root: Path, files: int = 500, size: int = 10_000) -> None:
    """A workspace as in docs/remote.md §8: 500 files, ~5 MB, plus excluded build/ and .git."""
    for i in range(files):
        path = root / f"dir{i % 10}" / f"sub{i % 3}" / f"file{i:03d}.cpp"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(size // 2).hex().encode())
        if i % 50 == 0:
            path.chmod(0o755)
    for excluded in ("build", ".git"):
        (root / excluded).mkdir()
        for i in range(50):
            (root / excluded / f"junk{i}").write_bytes(b"0" * 1000)


def sync_clock(work: Callable[[], object]) -> Callable[[], Awaitable[float]]:
    """A blocking reference (a subprocess) timed as one of a pair's measurements."""

    async def timed() -> float:
        start = time.perf_counter()
        work()
        return time.perf_counter() - start

    return timed


async def bench_streaming(
    target: Target, ssh: list[str], work: Path, pairs: int, goals: Goals
) -> None:
    """Our job (one live subscriber taking every line a block at a time, as the TUI's log
    pane takes a command's output, and the log file) against OpenSSH writing the same
    output to a file, in the same mode."""
    command = f"seq -f '%07g {LINE}' 1 {LINES}"
    out = work / "ssh-out.txt"

    def reference(remote: str) -> None:
        with out.open("wb") as handle:
            subprocess.run([*ssh, remote], stdout=handle, check=True)
        assert out.stat().st_size > 70 * LINES

    async def consume(job: Job) -> int:
        """As the TUI's log pane takes a command's output: a block of lines at a time."""
        count = 0
        async for batch in job.subscribe().batches():
            if batch.stream == "stdout":
                count += len(batch.texts)
        return count

    async def ours(line_buffered: bool) -> None:
        runner = JobRunner(work / "jobs-stream")  # a cold connection, like `ssh`
        try:
            job = await runner.submit(target, JobSpec(command, line_buffered=line_buffered))
            reader = asyncio.create_task(consume(job))
            record = await job.wait()
            assert record.state is JobState.SUCCEEDED, record.error
            assert await reader == LINES, "the subscriber missed lines"
        finally:
            await runner.close()
        shutil.rmtree(work / "jobs-stream")

    rows = (  # (line-buffered, the reference's remote command, label, goal)
        (False, command, "block-buffered", (0.8, "ssh host cmd > file")),
        (True, f"stdbuf -oL {command}", "line-buffered, the default",
         (0.9, "ssh 'stdbuf -oL cmd' > file")),
    )
    for line_buffered, remote, label, (least, reference_name) in rows:
        got = await apaired(aclock(lambda lb=line_buffered: ours(lb)),
                            sync_clock(lambda r=remote: reference(r)), pairs)
        goals.report(f"1M lines, live subscriber ({label})", got, f">= {least}x of {reference_name}",
                     least=least)


async def bench_exec(project: Path, ssh: list[str], work: Path, pairs: int, goals: Goals) -> None:
    """`pto-tui exec` of the line-buffered job, its output to a file, against OpenSSH: the
    whole path a person or an agent takes (start-up, the job layer, printing)."""
    command = f"seq -f '%07g {LINE}' 1 {LINES}"
    out = work / "exec-out.txt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)

    def run(argv: list[str]) -> None:
        with out.open("wb") as handle:
            subprocess.run(argv, stdout=handle, stderr=subprocess.DEVNULL, check=True, env=env)
        assert out.stat().st_size > 70 * LINES, out.stat().st_size

    ours = [sys.executable, "-m", "pto_tui.cli.main", "--project", str(project), "exec", "--no-sync",
            "--", command]
    run(ours)  # bytecode cached
    got = await apaired(sync_clock(lambda: run(ours)),
                        sync_clock(lambda: run([*ssh, f"stdbuf -oL {command}"])), pairs)
    goals.report("1M lines, `pto-tui exec` > file (line-buffered)", got,
                 ">= 0.9x of ssh 'stdbuf -oL cmd' > file", least=0.9)


async def bench_small_commands(
    target: Target, ssh: list[str], work: Path, pairs: int, goals: Goals
) -> None:
    def reference() -> None:
        for i in range(20):
            subprocess.run([*ssh, f"echo {i}"], capture_output=True, check=True)

    async def ours() -> None:
        runner = JobRunner(work / "jobs-small")  # includes opening the one connection
        try:
            for i in range(20):
                record = await (await runner.submit(target, JobSpec(f"echo {i}"))).wait()
                assert record.state is JobState.SUCCEEDED, record.error
        finally:
            await runner.close()

    got = await apaired(aclock(ours), sync_clock(reference), pairs)
    goals.report("20 small commands: pooled vs 20 ssh", got, ">= 10x faster", least=10)


async def bench_sync(server: LoopbackSshd, work: Path, pairs: int, goals: Goals) -> None:
    tree = work / "tree"
    make_tree(tree)
    excludes = [f"--exclude={p}" for p in DEFAULT_EXCLUDES]
    rsh = f"ssh -F {server.ssh_config}"

    def rsync(dest: Path) -> None:
        subprocess.run(
            ["rsync", "-a", "--delete", *excludes, "-e", rsh, f"{tree}/", f"{server.alias}:{dest}/"],
            check=True, capture_output=True,
        )

    counter = iter(range(1000))
    runner = JobRunner(work / "jobs-sync")
    try:
        # warm the pool: in the TUI the connection to the target is already open
        await (await runner.submit(server_target(server, work / "x"), JobSpec("true"))).wait()

        async def first() -> None:
            target = server_target(server, work / f"ours-{next(counter)}")
            report_ = await runner.sync_workspace(target, tree)
            assert len(report_.uploaded) == 500, report_

        steady = server_target(server, work / "ours-steady")

        async def same() -> None:
            report_ = await runner.sync_workspace(steady, tree)
            assert report_.method in ("none", "tar"), report_

        got_first = await apaired(aclock(first), sync_clock(lambda: rsync(work / f"rsync-{next(counter)}")),
                                  pairs)
        await same()
        rsync(work / "rsync-steady")
        got_same = await apaired(aclock(same), sync_clock(lambda: rsync(work / "rsync-steady")), pairs)
    finally:
        await runner.close()
    goals.report("500-file sync, first upload", got_first, "<= 1.0x of rsync's time", most=1.0)
    goals.report("500-file sync, no change", got_same, "<= 0.1x of rsync's time", most=0.1)


def exec_project(root: Path, server: LoopbackSshd, work_dir: Path) -> Path:
    """A project whose target is the loopback sshd, for `pto-tui exec`."""
    project = root / "projects" / "op"
    project.mkdir(parents=True)
    (project / "project.toml").write_text(
        'schema = 1\n[operator]\nname = "op"\nkind = "pto-dsl"\n'
        f'[target]\nkind = "ssh"\nhost = "{server.alias}"\nwork_dir = "{work_dir}"\n'
        f'ssh_config = "{server.ssh_config}"\n'
    )
    return project


def server_target(server: LoopbackSshd, work_dir: Path) -> Target:
    return Target(kind="ssh", host=server.alias, work_dir=str(work_dir),
                  ssh_config=str(server.ssh_config))


async def main_async(args: argparse.Namespace) -> Goals:
    pairs = 1 if args.quick else max(args.pairs, MIN_PAIRS)
    with tempfile.TemporaryDirectory(prefix="pto-jobs-bench-") as tmp:
        root = Path(tmp)
        os.environ["PTO_TUI_HOME"] = str(root / "home")  # keep out of the user's known_hosts
        with LoopbackSshd(root / "sshd", alias="pto-bench") as server:
            known_as, key = server.known_hosts_line().split(" ", 1)
            trust_host_key(known_as, key)
            work = root / "work"
            work.mkdir()
            target = server_target(server, work)
            ssh = ["ssh", "-F", str(server.ssh_config), server.alias]
            print(f"loopback sshd on port {server.port}; {pairs} pair(s) a row, median (range) of "
                  "their ratios; ratio > 1 means pto-tui is faster, except for sync (pto-tui / "
                  f"rsync time); load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
            goals = Goals()
            await bench_streaming(target, ssh, work, pairs, goals)
            await bench_exec(exec_project(root, server, work), ssh, work, pairs, goals)
            await bench_small_commands(target, ssh, work, pairs, goals)
            await bench_sync(server, work, pairs, goals)
    if goals.missed:
        print(f"goals not met: {', '.join(goals.missed)}")
    else:
        print("every goal met")
    return goals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one pair a row")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS, help=f"pairs a row (at least {MIN_PAIRS})")
    goals = asyncio.run(main_async(parser.parse_args()))
    return 1 if goals.missed else 0


if __name__ == "__main__":
    sys.exit(main())
