"""Job layer speed against OpenSSH and rsync, on a loopback sshd started here.

Run: .venv/bin/python benchmarks/jobs_bench.py [--quick]

Prints ratios measured in the same run (numbers on loopback are lower bounds: no
network latency), each next to its goal with PASS or NOT MET; exits 1 when a goal is not
met. Each timing is the median of a few repetitions.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.core.project.config import Target
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES
from pto_tui.jobs.hostkeys import trust_host_key
from pto_tui.jobs.job import Job
from pto_tui.jobs.loopback_sshd import LoopbackSshd
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.runner import JobRunner

LINE = "x" * 72  # with "NNNNNNN " in front: ~80 bytes a line, as in docs/remote.md §4


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def amedian_time(fn: Callable[[], Awaitable[object]], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def paired_medians(
    reference: Callable[[], object], ours: Callable[[], Awaitable[object]], repeat: int
) -> tuple[float, float]:
    """Medians of the reference and of ours run in turns, so that a burst of other work
    on the machine slows both rather than one of them."""
    t_ref, t_ours = [], []
    for _ in range(repeat):
        t_ref.append(median_time(reference, 1))
        t_ours.append(await amedian_time(ours, 1))
    return statistics.median(t_ref), statistics.median(t_ours)


class Goals:
    """Every row's figure next to its goal, and whether each goal was met."""

    def __init__(self) -> None:
        self.missed: list[str] = []

    def report(self, name: str, ours: float, reference: float, ratio: float, goal: str,
               met: bool) -> None:
        verdict = "PASS" if met else "NOT MET"
        print(f"  {name:<54} pto-tui {ours:7.3f} s   reference {reference:7.3f} s   "
              f"ratio {ratio:6.2f}x   {verdict:<7} (goal: {goal})")
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


async def bench_streaming(
    target: Target, ssh: list[str], work: Path, repeat: int, goals: Goals
) -> None:
    """Our job (one live subscriber taking every line a block at a time, as the TUI's log
    pane takes a command's output, and the log file) against OpenSSH writing the same
    output to a file, in the same mode."""
    lines = 1_000_000
    command = f"seq -f '%07g {LINE}' 1 {lines}"
    out = work / "ssh-out.txt"

    def reference(remote: str) -> None:
        with out.open("wb") as handle:
            subprocess.run([*ssh, remote], stdout=handle, check=True)
        assert out.stat().st_size > 70 * lines

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
            assert await reader == lines, "the subscriber missed lines"
        finally:
            await runner.close()
        shutil.rmtree(work / "jobs-stream")

    rows = (  # (line-buffered, the reference's remote command, label, goal)
        (False, command, "block-buffered", (0.8, "ssh host cmd > file")),
        (True, f"stdbuf -oL {command}", "line-buffered, the default",
         (0.9, "ssh 'stdbuf -oL cmd' > file")),
    )
    for line_buffered, remote, label, (least, reference_name) in rows:
        t_ref, t_ours = await paired_medians(
            lambda r=remote: reference(r), lambda lb=line_buffered: ours(lb), repeat
        )
        ratio = t_ref / t_ours
        goals.report(f"1M lines, live subscriber ({label})", t_ours, t_ref, ratio,
                     f">= {least}x of {reference_name}", ratio >= least)


async def bench_small_commands(
    target: Target, ssh: list[str], work: Path, repeat: int, goals: Goals
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

    t_ref = median_time(reference, repeat)
    t_ours = await amedian_time(ours, repeat)
    goals.report("20 small commands: pooled vs 20 ssh", t_ours, t_ref, t_ref / t_ours,
                 ">= 10x faster", t_ref / t_ours >= 10)


async def bench_sync(server: LoopbackSshd, work: Path, repeat: int, goals: Goals) -> None:
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

    def rsync_first() -> None:
        rsync(work / f"rsync-{next(counter)}")

    t_rsync_first = median_time(rsync_first, repeat)
    rsync(work / "rsync-steady")
    t_rsync_same = median_time(lambda: rsync(work / "rsync-steady"), repeat)

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

        t_first = await amedian_time(first, repeat)
        await same()
        t_same = await amedian_time(same, repeat)
    finally:
        await runner.close()
    goals.report("500-file sync, first upload", t_first, t_rsync_first,
                 t_first / t_rsync_first, "<= 1.0x of rsync's time",
                 t_first / t_rsync_first <= 1.0)
    goals.report("500-file sync, no change", t_same, t_rsync_same, t_same / t_rsync_same,
                 "<= 0.1x of rsync's time", t_same / t_rsync_same <= 0.1)


def server_target(server: LoopbackSshd, work_dir: Path) -> Target:
    return Target(kind="ssh", host=server.alias, work_dir=str(work_dir),
                  ssh_config=str(server.ssh_config))


async def main_async(args: argparse.Namespace) -> Goals:
    repeat = 1 if args.quick else 3
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
            print(f"loopback sshd on port {server.port}; medians of {repeat} run(s); "
                  "ratio > 1 means pto-tui is faster, except for sync (pto-tui / rsync time)")
            goals = Goals()
            await bench_streaming(target, ssh, work, repeat, goals)
            await bench_small_commands(target, ssh, work, repeat, goals)
            await bench_sync(server, work, repeat, goals)
    if goals.missed:
        print(f"goals not met: {', '.join(goals.missed)}")
    else:
        print("every goal met")
    return goals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each, not three")
    goals = asyncio.run(main_async(parser.parse_args()))
    return 1 if goals.missed else 0


if __name__ == "__main__":
    sys.exit(main())
