"""A perf-sim round against a CPU-sim round's build, side by side on this machine.

Run: .venv/bin/python benchmarks/perf_sim_bench.py [--quick]
     .venv/bin/python benchmarks/perf_sim_bench.py --pto-isa ~/src/pto-isa \\
         --compiler clang++-16 --cxx-flags="-stdlib=libc++ -fexperimental-library"

Two projects of one operator on the local target, made by `pto-tui new`: one in mode
cpu-sim, one in mode perf-sim. Timed in turns (so a burst of other work on the machine
slows both): the cpu-sim project's build (what a CPU-sim round builds), and the perf-sim
project's whole measurement as a round runs it (its build with the perf_sim driver built
alongside, the correctness run in the CPU simulation, the driver's runs until two agree).
Without --pto-isa the operator is the test stand-in (tests/fixtures/perf_sim, attn_op at
64,128,512, g++), far smaller than pto-isa's flash attention: its ratio is only indicative.
With it, flash attention at 128,128,1024 (the issue's case). Prints both medians, the ratio
and the goal (the perf-sim round within 2x of the CPU-sim round's build) with PASS or NOT
MET; exits 1 when not met.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.loop import measure, run_plan, site_for
from pto_tui.cli.main import main as cli
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.jobs.runner import JobRunner

GOAL = 2.0  # the perf-sim round within this many times the CPU-sim round's build
STAND_IN = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "perf_sim"
OPERATORS = {  # (operator folder in the checkout, case string) of each
    "stand-in": ("kernels/manual/common/attn_op", "64,128,512"),
    "pto-isa": ("kernels/manual/common/flash_atten", "128,128,1024"),
}


def make_project(checkout: Path, which: str, mode: str, projects: Path, compiler: str, flags: str) -> Path:
    folder, case = OPERATORS[which]
    args = ["new", str(checkout / folder), "--case-spec", case, "--mode", mode, "--compiler", compiler,
            "--projects-root", str(projects / mode)]
    if flags:
        args.append(f"--cxx-flags={flags}")
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli(args)
    if code != 0:
        raise SystemExit(f"pto-tui new --mode {mode} failed (exit {code})")
    return projects / mode / Path(folder).name


async def timed(root: Path, whole_round: bool) -> float:
    """Seconds of the project's build (whole_round: build, correctness and runs)."""
    with Campaign(root) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            backend = backend_for(site_for(campaign, runner))
            parameters = {name: t.value for name, t in campaign.config.tunables.items()}
            started = time.perf_counter()
            if whole_round:
                m = await measure(backend, parameters, run_plan(campaign.config))
                if m.problem or not m.samples_us:
                    raise SystemExit(f"the perf-sim round failed: {m.problem or 'no samples'}")
            else:
                ok, problem = await backend.build(parameters)
                if not ok:
                    raise SystemExit(f"the CPU-sim build failed: {problem}")
            return time.perf_counter() - started
        finally:
            await runner.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one turn each instead of the median of 3")
    parser.add_argument("--pto-isa", type=Path, help="a pto-isa checkout: flash attention at 128,128,1024")
    parser.add_argument("--compiler", default="g++", help="the CPU simulation's compiler ([target] compiler)")
    parser.add_argument("--cxx-flags", default="", help="its flags ([target] cxx_flags)")
    args = parser.parse_args()
    if not shutil.which("cmake") or not shutil.which(args.compiler) or not shutil.which("g++"):
        print(f"needs cmake, g++ and {args.compiler}: not measured")
        return 1
    which = "pto-isa" if args.pto_isa else "stand-in"
    repeats = 1 if args.quick else 3
    cpu_sim, perf_sim = [], []
    with tempfile.TemporaryDirectory() as tmp:
        if args.pto_isa:
            checkout = args.pto_isa.expanduser().resolve()
        else:
            checkout = Path(shutil.copytree(STAND_IN, Path(tmp) / "src"))
        projects = Path(tmp) / "projects"
        roots = {mode: make_project(checkout, which, mode, projects, args.compiler, args.cxx_flags)
                 for mode in ("cpu-sim", "perf-sim")}
        for _ in range(repeats):  # in turns
            cpu_sim.append(asyncio.run(timed(roots["cpu-sim"], whole_round=False)))
            perf_sim.append(asyncio.run(timed(roots["perf-sim"], whole_round=True)))
    build, whole = statistics.median(cpu_sim), statistics.median(perf_sim)
    ratio = whole / build
    folder, case = OPERATORS[which]
    print(f"operator: {which} {folder} at {case}, median of {repeats} turn(s)")
    print(f"CPU-sim round's build: {build:.1f} s")
    print(f"perf-sim round (both builds, the correctness run, the driver's runs): {whole:.1f} s")
    met = ratio <= GOAL
    print(f"ratio {ratio:.2f}x   goal: <= {GOAL:.1f}x   {'PASS' if met else 'NOT MET'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
