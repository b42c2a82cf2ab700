"""Every benchmark runs, in its quick mode, from the test command, so none can rot. The
figures are not asserted (speed goals live in the benchmarks, printed next to their goal);
a benchmark that crashes, or stops printing its figures, fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

QUICK = {
    "bookkeeping_bench.py": (["--quick"], "goal: <= 50 ms"),
    "chart_bench.py": (["--quick"], "goal: <= 2.0 s"),
    "cli_bench.py": (["--quick"], "goal <= 4.0x"),
    "tui_bench.py": (["--quick"], "first paint"),
    "form_bench.py": (["--quick"], "Amend opens at 30 rounds"),
    "jobs_bench.py": (["--quick"], "goal:"),
    "costmodel_grid.py": (["--skip-reference"], "cold"),
    "verdict_bench.py": (["--quick"], "true 6% gain: kept"),
    "perf_sim_bench.py": (["--quick"], "goal: <= 2.0x"),
    "paint_bench.py": (["--quick"], "G right after the first paint"),
    "slurm_bench.py": (["--quick"], "goal: <= 0.7x"),
}
# imported by the benchmarks, not run: the interleaved pairs they share
HELPERS = ("paired.py",)


def test_every_benchmark_has_a_quick_run() -> None:
    assert sorted([*QUICK, *HELPERS]) == sorted(p.name for p in BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("script", sorted(QUICK))
def test_the_benchmark_runs_and_prints_its_figures(script: str) -> None:
    args, expected = QUICK[script]
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr  # 1: a goal not met on this machine right now
    assert expected in done.stdout, done.stdout
