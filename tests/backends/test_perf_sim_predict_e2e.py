"""Predictions beside measurements ([target] predict = "perf-sim") on the stand-in pto-isa
checkout (tests/fixtures/perf_sim), locally and over a real sshd: a cpu-sim project made with
`new --predict perf-sim` builds the perf_sim driver alongside each build and runs it once
after the benchmark runs; each round records the cycles of its configuration beside its
timings (microseconds, never replaced by cycles); `diff`, `suggest --review` and the round
table show predicted against measured change. A kernel that does not compile under the cost
model leaves its round measured and decided, without a prediction, quoting the compiler."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, pre_edit_args
from tests.json_check import validate
from tests.plugins.sshd import SshTestTarget

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "perf_sim"
OP = "kernels/manual/common/attn_op"
KERNEL = f"workspace/kernel/{OP}/attn_op_kernel.cpp"
NEEDS_TOOLS = pytest.mark.skipif(
    not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake"
)
# the stand-in's count for 64,128,512 at its defaults (TILE_S1 128), as its perf-sim
# campaign measures it (test_perf_sim_e2e.py)
BASELINE_CYCLES = 4536


def _round(root: Path, number: int) -> dict[str, Any]:
    return tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())


def _out(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    capsys.readouterr()
    assert cli(*args) == 0
    return capsys.readouterr().out


def _new(tmp_path: Path, *target: object) -> Path:
    source = tmp_path / "src" / "pto-isa"
    shutil.copytree(FIXTURE, source)
    projects = tmp_path / "projects"
    new = ("new", source / OP, "--case-spec", "64,128,512", "--mode", "cpu-sim", "--compiler", "g++",
           "--predict", "perf-sim")
    assert cli(*new, *target, "--projects-root", projects) == 0
    root = projects / "attn_op"
    assert tomllib.loads((root / "project.toml").read_text())["target"]["predict"] == "perf-sim"
    # a fixed number of timed runs: the host's timings are noise here, the prediction is the point
    project = ProjectFile(root / "project.toml")
    for key, value in (("repeats", 3), ("max_repeats", 3), ("warmup", 0), ("max_spread", 5.0)):
        project.set(f"discipline.{key}", value)
    project.save()
    return root


def _campaign(root: Path) -> None:
    """env → baseline → a TILE_S1 round, each measured in microseconds with its prediction."""
    assert cli("--project", root, "env") == 0
    env = _round(root, 0)["environment"]
    assert env["probes"]["g++ (perf_sim driver)"] and env["probes"]["perf_sim prediction"]
    assert env["versions"]["perf_sim prediction"] == f"{BASELINE_CYCLES} cycles"

    assert cli("--project", root, "baseline") == 0
    base = _round(root, 0)["measurement"]
    assert base["target_mode"] == "cpu-sim" and "unit" not in base  # microseconds
    assert len(base["samples_us"]) == 3 and base["predicted_cycles"] == BASELINE_CYCLES
    assert {p["name"] for p in base["pipes"]} >= {"Matrix", "Vector"}  # the prediction's pipes

    start = pre_edit_args("a narrower S1 tile overlaps QK and softmax better", scope=("TILE_S1",))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=64") == 0
    assert cli("--project", root, "round", "run") == 0
    tile = _round(root, 1)["measurement"]
    assert len(tile["samples_us"]) == 3 and "unit" not in tile
    assert tile["predicted_cycles"] not in (None, BASELINE_CYCLES) and "prediction_problem" not in tile
    notes = (root / "runs" / "iter-001" / "notes.md").read_text()
    assert f"- **perf_sim prediction**: {tile['predicted_cycles']} cycles by pto-isa's perf_sim" in notes
    assert "- **Performance**: baseline " in notes and " us (median of 3 runs" in notes


def _shows_predicted_against_measured(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """diff, the round table, status and suggest --review set the prediction beside the timing."""
    base, tile = _round(root, 0)["measurement"], _round(root, 1)["measurement"]
    predicted = tile["predicted_cycles"] / BASELINE_CYCLES - 1
    measured = sorted(tile["samples_us"])[1] / sorted(base["samples_us"])[1] - 1
    text = _out(capsys, "--project", root, "diff", "1")
    line = (f"perf_sim prediction: {BASELINE_CYCLES} -> {tile['predicted_cycles']} cycles "
            f"({predicted:+.1%}); measured {measured:+.1%}: ")
    assert line in text, text
    whole = json.loads(_out(capsys, "--project", root, "diff", "1", "--json"))
    validate("diff", whole)
    diff = whole["prediction"]
    assert diff["cycles_before"] == BASELINE_CYCLES and diff["predicted_change"] == pytest.approx(predicted)
    assert diff["measured_change"] == pytest.approx(measured)
    assert diff["agrees"] == ((predicted < 0) == (measured < 0))

    table = _out(capsys, "--project", root, "rounds")
    assert "perf_sim/meas" in table and f"{predicted:+.1%} / {measured:+.1%}" in table
    table_json = json.loads(_out(capsys, "--project", root, "rounds", "--json"))
    validate("rounds", table_json)
    rows = table_json["rounds"]
    assert [r["predicted_cycles"] for r in rows] == [BASELINE_CYCLES, tile["predicted_cycles"]]
    assert rows[0]["predicted_change"] is None and rows[1]["predicted_change"] == pytest.approx(predicted)
    assert rows[1]["unit"] == "us"
    assert "(cpu-sim, predicted by perf-sim)" in _out(capsys, "--project", root, "status")
    status = json.loads(_out(capsys, "--project", root, "status", "--json"))
    validate("status", status)
    assert status["predict"] == "perf-sim"
    shown = json.loads(_out(capsys, "--project", root, "show", "1", "--json"))
    validate("show", shown)
    assert shown["record"]["measurement"]["predicted_cycles"] == tile["predicted_cycles"]

    review = _out(capsys, "--project", root, "suggest", "--review")
    assert "perf_sim prediction ([target] predict): the measured change went the predicted way in " in review
    assert f"  iter-001 against iter-000: {BASELINE_CYCLES} -> {tile['predicted_cycles']} cycles" in review
    reviewed = json.loads(_out(capsys, "--project", root, "suggest", "--review", "--json"))
    validate("suggest-review", reviewed)
    data = reviewed["perf_sim"]
    assert data["judged"] == 1 and data["rounds"][0]["round"] == 1


def _no_prediction_under_a_broken_cost_model(root: Path) -> None:
    """A kernel that compiles in the CPU simulation but not under the cost model: the round is
    measured and decided as any other, its prediction_problem quoting the compiler."""
    kernel = root / KERNEL
    text = kernel.read_text()
    marker = "    constexpr uint32_t kTiles = S1 / TILE_S1;\n"
    broken = "#ifdef __COSTMODEL\n    static_assert(TILE_S1 < 0, \"not under the cost model\");\n#endif\n"
    start = pre_edit_args("a cost-model-only check", scope=(f"{OP}/attn_op_kernel.cpp",))
    assert cli("--project", root, "round", "start", *start, "--restore") == 0
    kernel.write_text(text.replace(marker, marker + broken))
    assert cli("--project", root, "round", "changes") == 0
    assert cli("--project", root, "round", "run") == 0
    record = _round(root, 2)
    m = record["measurement"]
    assert record["verdict"] != "failure" and m["build"] == "ok" and len(m["samples_us"]) == 3
    assert "predicted_cycles" not in m
    line = text[: text.index(marker)].count("\n") + 3
    assert m["prediction_problem"].startswith(f"perf_sim build failed: ../attn_op_kernel.cpp:{line}:")
    assert "error: static assertion failed: not under the cost model" in m["prediction_problem"]


@NEEDS_TOOLS
def test_predictions_beside_cpu_sim_timings_on_this_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path)
    _campaign(root)
    _shows_predicted_against_measured(root, capsys)
    _no_prediction_under_a_broken_cost_model(root)
    text = _out(capsys, "--project", root, "diff", "2")
    assert "perf_sim prediction: none (iter-002: perf_sim build failed: " in text


@pytest.mark.sshd
@NEEDS_TOOLS
def test_predictions_over_ssh(tmp_path: Path, ssh_target: SshTestTarget) -> None:
    target = (
        "--target", f"ssh:{ssh_target.alias}", "--work-dir", str(ssh_target.work_dir),
        "--ssh-config", str(ssh_target.ssh_config),
    )
    root = _new(tmp_path, *target)
    _campaign(root)
    # the driver was built and run on the target, beside its build folder
    remote = ssh_target.work_dir / "kernel" / OP / "build-perf_sim"
    assert (remote / "perf_sim_driver").is_file() and (remote / "perf_sim_output").is_dir()
    assert not (root / "workspace" / "kernel" / OP / "build-perf_sim").exists()
