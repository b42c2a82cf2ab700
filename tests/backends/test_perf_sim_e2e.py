"""The perf-sim mode end to end on the stand-in pto-isa checkout (tests/fixtures/perf_sim),
locally and over a real sshd, with no hand edit of project files: `new --mode perf-sim` →
`env` → `baseline` (identical repeats, stopped after the confirmation run) → a round on the
tile knob TILE_S1 (decided at another cycle count, never inconclusive) → a round whose only
change is a comment in a kernel header (neutral at exactly the cycles of the configuration
it ran); `status`, ITERATIONS.md, notes.md, the export and the chart say cycles (perf_sim).
Locally, a round whose kernel does not compile under the cost model fails quoting the
compiler's first error."""

from __future__ import annotations

import csv
import io
import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.render_cycles import CYCLES_NOTE
from pto_tui.core.summary.chart import draw
from pto_tui.core.summary.chart_model import build_model
from tests.core.helpers import cli, pre_edit_args, read_every_round
from tests.plugins.sshd import SshTestTarget

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "perf_sim"
OP = "kernels/manual/common/attn_op"
HEADER = f"workspace/kernel/{OP}/attn_op_kernel.h"
NEEDS_TOOLS = pytest.mark.skipif(
    not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake"
)


def _round(root: Path, number: int) -> dict[str, Any]:
    return tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())


def _json(capsys: pytest.CaptureFixture[str], *args: object) -> Any:
    capsys.readouterr()
    assert cli(*args, "--json") == 0
    return json.loads(capsys.readouterr().out)


def _new(tmp_path: Path, *target: object) -> Path:
    source = tmp_path / "src" / "pto-isa"
    shutil.copytree(FIXTURE, source)
    projects = tmp_path / "projects"
    new = ("new", source / OP, "--case-spec", "64,128,512", "--mode", "perf-sim", "--compiler", "g++")
    assert cli(*new, *target, "--projects-root", projects) == 0
    return projects / "attn_op"


def _campaign(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """env → baseline → a TILE_S1 round → a comment-only round, checked as they close."""
    assert cli("--project", root, "env") == 0
    probes = _round(root, 0)["environment"]["probes"]
    assert probes["g++ (perf_sim driver)"] and probes["C++23 compile, link, run (g++, perf_sim)"]

    assert cli("--project", root, "baseline") == 0
    base = _round(root, 0)["measurement"]
    # identical repeats stop after the confirmation run, whatever [discipline] repeats (5) says
    assert base["samples_us"] == [4536.0, 4536.0] and base["unit"] == "cycles"
    assert base["target_mode"] == "perf-sim" and base["correctness"] == "pass"
    assert {p["name"] for p in base["pipes"]} >= {"Matrix", "Vector", "MTE2"}

    start = pre_edit_args("a narrower S1 tile overlaps QK and softmax better", scope=("TILE_S1",))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=64") == 0
    assert cli("--project", root, "round", "run") == 0
    tile = _round(root, 1)
    runs = tile["measurement"]["samples_us"]
    assert len(runs) == 2 and runs[0] == runs[1] and runs[0] != 4536.0
    assert tile["verdict"] in ("kept", "neutral") and "each set identical: no noise" in tile["verdict_reason"]
    assert tile["verdict_rule"] == "hodges-lehmann/mann-whitney 2"

    start = pre_edit_args("a comment in the kernel header changes nothing", scope=(f"{OP}/attn_op_kernel.h",))
    assert cli("--project", root, "round", "start", *start) == 0
    header = root / HEADER
    header.write_text(header.read_text().replace("#include <cstdint>\n", "#include <cstdint>\n// a note\n"))
    assert cli("--project", root, "round", "changes") == 0
    assert cli("--project", root, "round", "run") == 0
    comment = _round(root, 2)
    ran = comment["changes"]["snapshot"]
    same = next(_round(root, n) for n in (1, 0) if _round(root, n)["changes"]["snapshot"] == ran)
    assert comment["verdict"] == "neutral"
    assert comment["measurement"]["samples_us"] == same["measurement"]["samples_us"]
    _says_cycles(root, capsys)


def _says_cycles(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every record and view of the campaign says cycles (perf_sim), none us or ms."""
    status = _json(capsys, "--project", root, "status")
    assert (status["unit"], status["target_mode"], status["baseline_us"]) == ("cycles", "perf-sim", 4536.0)
    assert status["speedup_vs_torch"] is None
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    text = capsys.readouterr().out
    assert "samples: cycles (perf_sim)" in text and "baseline (iter-000): 4536 cycles" in text
    iterations = (root / "ITERATIONS.md").read_text()
    rows = [line for line in iterations.splitlines() if line.startswith(("| 0 |", "| 1 |", "| 2 |"))]
    assert CYCLES_NOTE in iterations and len(rows) == 3
    assert all(" cycles |" in row and " us |" not in row and " ms |" not in row for row in rows)
    notes = (root / "runs" / "iter-001" / "notes.md").read_text()
    assert "- **Performance**: perf_sim " in notes and " cycles (median of 2 runs, identical)" in notes
    assert "| pipe | busy cycles | share |" in notes and "- **perf_sim evidence**: perf_sim " in notes
    assert _json(capsys, "--project", root, "show", "1")["record"]["measurement"]["unit"] == "cycles"
    for fmt in ("csv", "json", "md"):
        assert cli("--project", root, "export", "--format", fmt, "--output", root / f"rounds.{fmt}") == 0
    table = csv.DictReader(io.StringIO((root / "rounds.csv").read_text()))
    assert {row["unit"] for row in table} == {"cycles"}
    exported = json.loads((root / "rounds.json").read_text())["rounds"]
    assert {row["unit"] for row in exported} == {"cycles"} and all(row["tflops"] is None for row in exported)
    assert "| 4536 cycles |" in (root / "rounds.md").read_text()
    assert cli("--project", root, "chart") == 0
    rounds, _problems = read_every_round(ProjectLayout(root))
    figure = draw(build_model(rounds, None, (), "attn_op"))
    assert "perf_sim cycles" in figure.get_suptitle()
    assert figure.axes[1].get_ylabel() == "cycles (perf_sim)"


def _broken_under_the_cost_model(root: Path) -> None:
    """A kernel that compiles in the CPU simulation but not under the cost model: a failure
    quoting the compiler's first error, not make's tail."""
    kernel = root / f"workspace/kernel/{OP}/attn_op_kernel.cpp"
    text = kernel.read_text()
    marker = "    constexpr uint32_t kTiles = S1 / TILE_S1;\n"
    broken = "#ifdef __COSTMODEL\n    static_assert(TILE_S1 < 0, \"not under the cost model\");\n#endif\n"
    start = pre_edit_args("a cost-model-only check", scope=(f"{OP}/attn_op_kernel.cpp",))
    assert cli("--project", root, "round", "start", *start, "--restore") == 0  # from the frontier's files
    kernel.write_text(text.replace(marker, marker + broken))
    assert cli("--project", root, "round", "changes") == 0
    cli("--project", root, "round", "run")
    record = _round(root, 3)
    line = text[: text.index(marker)].count("\n") + 3
    assert record["verdict"] == "failure" and record["measurement"]["build"] == "failed"
    problem = record["measurement"]["problem"]
    assert problem.startswith(f"perf_sim build failed: ../attn_op_kernel.cpp:{line}:"), problem
    assert "error: static assertion failed: not under the cost model" in problem
    assert "make" not in problem and "\n" not in problem


@NEEDS_TOOLS
def test_a_perf_sim_campaign_on_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _new(tmp_path)
    _campaign(root, capsys)
    _broken_under_the_cost_model(root)


@pytest.mark.sshd
@NEEDS_TOOLS
def test_a_perf_sim_campaign_over_ssh(
    tmp_path: Path, ssh_target: SshTestTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    target = (
        "--target", f"ssh:{ssh_target.alias}", "--work-dir", str(ssh_target.work_dir),
        "--ssh-config", str(ssh_target.ssh_config),
    )
    root = _new(tmp_path, *target)
    _campaign(root, capsys)
    # the driver was built and run on the target, beside its build folder
    remote = ssh_target.work_dir / "kernel" / OP / "build-perf_sim"
    assert (remote / "perf_sim_driver").is_file() and (remote / "perf_sim_include").is_dir()
    assert not (root / "workspace" / "kernel" / OP / "build-perf_sim").exists()


@NEEDS_TOOLS
def test_a_gemm_shaped_operator_measured_locally(tmp_path: Path) -> None:
    """pto-isa's gemm_performance's shape: no case generator, its data written into the
    operator folder by a generator without arguments, its shape and tiling constants of the
    host wrapper. A round that edits the K tile is measured as edited: decided at another
    count; the data the correctness step writes is not a change of the round."""
    source = tmp_path / "src" / "pto-isa"
    shutil.copytree(FIXTURE, source)
    matmul = "kernels/manual/a2a3/matmul_op"
    assert cli("new", source / matmul, "--mode", "perf-sim", "--compiler", "g++",
               "--projects-root", tmp_path / "p") == 0
    root = tmp_path / "p" / "matmul_op"
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    base = _round(root, 0)["measurement"]
    assert base["correctness"] == "pass" and base["samples_us"][0] == base["samples_us"][1]
    folder = root / "workspace/kernel" / matmul
    assert (folder / "input/x1_gm.bin").is_file() and (folder / "output/golden.bin").is_file()
    kernel = folder / "matmul_op_kernel.cpp"
    start = pre_edit_args("a deeper K tile halves the K steps", scope=(f"{matmul}/matmul_op_kernel.cpp",))
    assert cli("--project", root, "round", "start", *start) == 0
    text = kernel.read_text()
    kernel.write_text(text.replace("constexpr uint32_t baseK = 64;", "constexpr uint32_t baseK = 128;"))
    assert cli("--project", root, "round", "changes") == 0
    assert cli("--project", root, "round", "run") == 0
    record = _round(root, 1)
    assert record["changes"]["files"] == [f"workspace/kernel/{matmul}/matmul_op_kernel.cpp"]
    runs = record["measurement"]["samples_us"]
    assert record["verdict"] in ("kept", "neutral") and len(runs) == 2 and runs[0] != base["samples_us"][0]
