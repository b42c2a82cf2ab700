"""A tile-lib operator shaped like pto-isa's flash attention, in CPU simulation over a real
sshd, with no hand edit of project.toml: `new --mode cpu-sim` → `env` → `baseline` → a round
on the live knob TILE_S1 → verdict → `chart`. The round's binary really differs, and every
record says its timings are simulated."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.render import SIMULATED_NOTE
from pto_tui.core.summary.chart import draw
from pto_tui.core.summary.chart_model import build_model
from tests.core.helpers import cli, pre_edit_args, read_every_round
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
OP = "kernels/manual/common/fa_like"


def _round(root: Path, number: int) -> dict[str, object]:
    return tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())


def _tile_s1_column(build: Path) -> list[str]:
    return [row.split(",")[6] for row in (build / "report.csv").read_text().splitlines()[1:]]


@pytest.mark.sshd
@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_cpu_sim_campaign_over_ssh_with_no_hand_edits(
    tmp_path: Path, ssh_target: SshTestTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    target = (
        "--target", f"ssh:{ssh_target.alias}", "--work-dir", str(ssh_target.work_dir),
        "--ssh-config", str(ssh_target.ssh_config),
    )
    projects = tmp_path / "projects"
    new = ("new", source / OP, "--case-spec", "64,128,512", "--mode", "cpu-sim", "--compiler", "g++")
    assert cli(*new, *target, "--projects-root", projects) == 0
    root = projects / "fa_like"

    assert cli("--project", root, "env") == 0
    environment = _round(root, 0)["environment"]
    assert isinstance(environment, dict) and environment["passed"] is True
    probes = environment["probes"]
    assert probes["g++ (cpu-sim, instead of Bisheng)"] is True
    assert probes["C++20 compile, link, run (g++)"] is True
    assert "bisheng" not in probes and "ACL runtime / NPU" not in probes

    assert cli("--project", root, "baseline") == 0
    remote = ssh_target.work_dir / "kernel" / OP / "build"
    baseline_binary = (remote / "fa_like_cpu_sim").read_bytes()
    assert "MACRO(128, 64, 512, 64, 64, 128, 2)" in (remote / "generated_cases.h").read_text()
    # one report.csv row per benchmark run: the 5 warm-up runs, then the 5 timed ones
    assert _tile_s1_column(remote) == ["128"] * 10

    start = pre_edit_args("a narrower S1 tile overlaps QK and softmax better", scope=("TILE_S1",))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=64") == 0
    cli("--project", root, "round", "run")
    record = _round(root, 1)
    assert record["status"] == "closed" and record["verdict"] in ("kept", "neutral", "inconclusive")
    measurement = record["measurement"]
    assert isinstance(measurement, dict)
    assert measurement["build"] == "ok" and measurement["correctness"] == "pass"
    # 5 timed runs at least, more while the verdict was undecided (the default discipline)
    runs = len(measurement["samples_us"])
    assert measurement["target_mode"] == "cpu-sim" and 5 <= runs <= 20
    # the knob reached the kernel: the generated case list and the binary changed
    assert "MACRO(128, 64, 512, 64, 64, 64, 2)" in (remote / "generated_cases.h").read_text()
    assert (remote / "fa_like_cpu_sim").read_bytes() != baseline_binary
    # the round's build starts a fresh build folder: its 5 warm-ups, then its timed runs
    assert _tile_s1_column(remote) == ["64"] * (5 + runs)

    iterations = (root / "ITERATIONS.md").read_text()
    assert SIMULATED_NOTE in iterations
    table = [line for line in iterations.splitlines() if line.startswith(("| 0 |", "| 1 |"))]
    assert len(table) == 2 and all(" (sim) |" in line for line in table)
    capsys.readouterr()
    assert cli("--project", root, "status", "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["target_mode"], status["simulated"]) == ("cpu-sim", True)

    assert cli("--project", root, "chart") == 0
    assert (root / "summary_chart.png").stat().st_size > 10_000
    rounds, _problems = read_every_round(ProjectLayout(root))
    figure = draw(build_model(rounds, None, (), "fa_like"))
    assert "simulated timings" in figure.get_suptitle()
