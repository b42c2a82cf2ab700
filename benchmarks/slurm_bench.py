"""Slurm targets and explore, side by side with their references, on a one-node test cluster.

Run (as root, with slurm-wlm and munge installed): .venv/bin/python benchmarks/slurm_bench.py [--quick]

Starts its own cluster (`pto_tui/jobs/local_slurm.py`: two `npu` slots) and measures two
things, each against a reference run in the same script:

1. A Slurm step's overhead: the same NPU step (the demo operator's benchmark run, as a
   round runs it: a job with its output followed, its report read back) on a slurm target
   whose login node is this machine and on a local target, in turns; the difference of the
   medians. Goal: at most 1.5 s more on Slurm.
2. Explore: three values of the demo's query block as an explore group on the cluster's two
   slots, against the same three rounds run one after another (`round run` each, on the same
   cluster), in fresh copies of one project. Each benchmark run holds its NPU for a while
   (`sleep`, standing for the device's time: this machine's two cores, shared, are not what
   is measured). Goal: the group takes at most 0.7x the time of the rounds in a row.

Prints each figure next to its goal with PASS or NOT MET; exits 1 when one is not met.
`--quick`: one turn of each instead of the median of three, fewer repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.loop import site_for
from pto_tui.cli.main import main as cli
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.jobs.local_slurm import LocalSlurm, SlurmStartError
from pto_tui.jobs.runner import JobRunner

STEP_GOAL = 1.5  # seconds a Slurm step may cost more than the same step on a local target
EXPLORE_GOAL = 0.7  # the explore group's time over the same rounds one after another
KNOB = "DEMO_ATTN_BLOCK_Q"
VALUES = ("32", "64", "128")


def quiet_cli(*args: object) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli([str(a) for a in args])
    if code != 0:
        raise SystemExit(f"pto-tui {' '.join(map(str, args))} failed ({code}):\n{out.getvalue()[-2000:]}")


def demo(base: Path, cluster: LocalSlurm | None, hold: float, repeats: int) -> Path:
    """The demo project (environment round and baseline done) on the cluster or here; each
    benchmark run first holds its NPU for `hold` seconds."""
    root = create_demo_project("dsl", base / "projects")
    project = ProjectFile(root / "project.toml")
    for key, value in (("repeats", repeats), ("max_repeats", repeats), ("max_spread", 5.0),
                       ("review_gain", 100.0)):
        project.set(f"discipline.{key}", value)
    project.set("commands.benchmark", f"sleep {hold} && {project.config.commands.benchmark}")
    project.set("target.env_setup", f"export PATH={Path(sys.executable).parent}:$PATH"
                + (f"; {cluster.env_setup}" if cluster else ""))
    if cluster is not None:
        project.set("target.kind", "slurm")
        project.set("target.slurm.partition", "ascend")
        project.set("target.slurm.gres", "npu:1")
    project.save()
    quiet_cli("--project", root, "env")
    quiet_cli("--project", root, "baseline")
    return root


async def one_step(root: Path) -> float:
    """Seconds of one benchmark run as a round runs it (the job, its report read back)."""
    with Campaign(root) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            site = site_for(campaign, runner)
            site.for_round(0, "bench")
            backend = backend_for(site)
            parameters = {name: t.value for name, t in campaign.config.tunables.items()}
            started = time.perf_counter()
            outcome = await backend.benchmark("benchmark 1/1", parameters)
            took = time.perf_counter() - started
            if not outcome.valid:
                raise SystemExit(f"the step failed: {outcome.problem}")
            return took
        finally:
            await runner.close()


JUSTIFY = ("--justify", "the demo's tile fits the CPU cache easily")


def pre_edit() -> list[str]:
    args = ["--kernel", "demo attention", "--bottleneck", "bad tile shape", "--evidence",
            "the query tiles are small", "--why", "fewer passes over the keys", "--metric",
            "duration_us", "--risk", "the tile may not fit", "--correctness-plan",
            "the report's own check"]
    for key in HARDWARE_CHECKLIST:
        args += ["--check", f"{key}=checked {key}"]
    return args


def rounds_in_a_row(root: Path) -> float:
    started = time.perf_counter()
    for value in VALUES:
        quiet_cli("--project", root, "round", "start", *pre_edit(), "--hypothesis",
                  f"a query block of {value} makes fewer passes", "--scope", KNOB, "--restore")
        quiet_cli("--project", root, "round", "changes", "--set", f"{KNOB}={value}", *JUSTIFY)
        quiet_cli("--project", root, "round", "run", "--quiet")
    return time.perf_counter() - started


def explored(root: Path) -> float:
    started = time.perf_counter()
    quiet_cli("--project", root, "explore", KNOB, "--values", ",".join(VALUES), *pre_edit(), *JUSTIFY,
              "--yes", "--quiet")
    return time.perf_counter() - started


def verdict(figure: float, goal: float) -> str:
    return "PASS" if figure <= goal else "NOT MET"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one turn of each, fewer repeats")
    args = parser.parse_args()
    turns, repeats, hold = (1, 2, 1.0) if args.quick else (3, 3, 2.0)
    with tempfile.TemporaryDirectory(prefix="pto-slurm-bench-") as tmp:
        base = Path(tmp)
        os.environ["PTO_TUI_HOME"] = str(base / "home")
        cluster = LocalSlurm(base / "cluster")
        try:
            cluster.start()
        except SlurmStartError as error:
            print(f"slurm step overhead: cannot run here: {error}")
            return 1
        os.environ.update(cluster.env)
        try:
            return run(base, cluster, turns, repeats, hold)
        finally:
            cluster.stop()


def run(base: Path, cluster: LocalSlurm, turns: int, repeats: int, hold: float) -> int:
    on_slurm = demo(base / "slurm", cluster, 0.0, repeats)
    here = demo(base / "local", None, 0.0, repeats)
    slurm_steps, local_steps = [], []
    for _ in range(turns * 2):
        slurm_steps.append(asyncio.run(one_step(on_slurm)))
        local_steps.append(asyncio.run(one_step(here)))
    extra = statistics.median(slurm_steps) - statistics.median(local_steps)
    print(f"slurm step overhead: {extra:.2f} s more than a local target (median of {len(slurm_steps)}: "
          f"{statistics.median(slurm_steps):.2f} s against {statistics.median(local_steps):.2f} s); "
          f"goal: <= {STEP_GOAL} s: {verdict(extra, STEP_GOAL)}")
    template = demo(base / "explore", cluster, hold, repeats)
    ratios = []
    for turn in range(turns):
        copies = []
        for name in ("row", "group"):
            dest = base / f"turn{turn}-{name}" / template.name
            shutil.copytree(template, dest, symlinks=True)
            copies.append(dest)
        in_a_row = rounds_in_a_row(copies[0])
        together = explored(copies[1])
        ratios.append(together / in_a_row)
        print(f"  turn {turn + 1}: 3 rounds in a row {in_a_row:.1f} s, explore of 3 on 2 slots "
              f"{together:.1f} s")
    ratio = statistics.median(ratios)
    print(f"explore of 3 candidates on 2 slots: {ratio:.2f}x the rounds in a row (each run holds its NPU "
          f"{hold:g} s); goal: <= {EXPLORE_GOAL}x: {verdict(ratio, EXPLORE_GOAL)}")
    return 0 if extra <= STEP_GOAL and ratio <= EXPLORE_GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
