"""Job layer speed against OpenSSH and rsync, on a loopback sshd started here.

Run: .venv/bin/python benchmarks/jobs_bench.py [--quick]

Prints ratios measured in the same run (numbers on loopback are lower bounds: no
network latency). Each timing is the median of a few repetitions.
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

from pto_tui.core.project.config import Target  # noqa: E402
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES  # noqa: E402
from pto_tui.jobs.hostkeys import trust_host_key  # noqa: E402
from pto_tui.jobs.loopback_sshd import LoopbackSshd  # noqa: E402
from pto_tui.jobs.model import JobSpec, JobState  # noqa: E402
from pto_tui.jobs.runner import JobRunner  # noqa: E402

LINE = "x" * 72  # with "NNNNNNN " in front: ~80 bytes a line, like REMOTE.md's test


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


def report(name: str, ours: float, reference: float, ratio: float, goal: str) -> None:
    print(f"  {name:<44} pto-tui {ours:7.3f} s   reference {reference:7.3f} s   "
          f"ratio {ratio:6.2f}x   (goal: {goal})")


def make_tree(root: Path, files: int = 500, size: int = 10_000) -> None:
    """A workspace like REMOTE.md's: 500 files, ~5 MB, plus excluded build/ and .git."""
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


async def bench_streaming(target: Target, ssh: list[str], work: Path, repeat: int) -> None:
    lines = 1_000_000
    command = f"seq -f '%07g {LINE}' 1 {lines}"
    out = work / "ssh-out.txt"

    def reference() -> None:
        with out.open("wb") as handle:
            subprocess.run([*ssh, command], stdout=handle, check=True)

    async def ours(line_buffered: bool) -> None:
        runner = JobRunner(work / "jobs-stream")  # a cold connection, like `ssh`
        try:
            job = await runner.submit(target, JobSpec(command, line_buffered=line_buffered))
            record = await job.wait()
            assert record.state is JobState.SUCCEEDED, record.error
        finally:
            await runner.close()
        shutil.rmtree(work / "jobs-stream")

    t_ref = median_time(reference, repeat)
    assert out.stat().st_size > 70 * lines
    for line_buffered, label in ((False, "block-buffered"), (True, "line-buffered, the default")):
        t_ours = await amedian_time(lambda lb=line_buffered: ours(lb), repeat)
        report(f"1M lines to the log file ({label})", t_ours, t_ref, t_ref / t_ours,
               "throughput >= 0.8x of ssh > file")


async def bench_small_commands(target: Target, ssh: list[str], work: Path, repeat: int) -> None:
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
    report("20 small commands: pooled vs 20 ssh", t_ours, t_ref, t_ref / t_ours,
           ">= 10x faster")


async def bench_sync(server: LoopbackSshd, work: Path, repeat: int) -> None:
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
    report("500-file sync, first upload", t_first, t_rsync_first, t_first / t_rsync_first,
           "<= 1.0x of rsync's time")
    report("500-file sync, no change", t_same, t_rsync_same, t_same / t_rsync_same,
           "<= 0.1x of rsync's time")


def server_target(server: LoopbackSshd, work_dir: Path) -> Target:
    return Target(kind="ssh", host=server.alias, work_dir=str(work_dir),
                  ssh_config=str(server.ssh_config))


async def main_async(args: argparse.Namespace) -> None:
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
            await bench_streaming(target, ssh, work, repeat)
            await bench_small_commands(target, ssh, work, repeat)
            await bench_sync(server, work, repeat)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each, not three")
    asyncio.run(main_async(parser.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
