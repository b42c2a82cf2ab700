"""Knobs where the kernel decides them, on fixtures shaped like pto-isa's operators without
generated cases: gemm_performance (launch-site constexpr locals passed as template
arguments), fused_add_relu_mul (config structs passed as template arguments, a derived tile
size) and topk (namespace constants; the shape at the launch site is the workload). A value
set by a round is written where the kernel decides it, and the operator still builds and
passes with the machine's g++ and cmake."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pto_tui.core.operators.tunables import apply_parameter, discover, discover_report
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
GEMM = REPO / "kernels" / "manual" / "a2a3" / "gemm_perf_like"
FUSED = REPO / "kernels" / "custom" / "fused_like"
TOPK = REPO / "kernels" / "manual" / "a2a3" / "topk_like"
LAUNCH = "gemm_perf_like_kernel.cpp"


def test_launch_site_locals_passed_as_template_arguments_are_the_knobs() -> None:
    report = discover_report(GEMM)
    found = {t.name: (t.value, t.kind, t.where) for t in report.tunables}
    assert found == {
        "BUFFER_NUM": (2, "constexpr", f"{LAUNCH}:6"),
        "L0_PINGPONG_BYTES": (32768, "constexpr", f"{LAUNCH}:7"),
        "blockDim": (4, "constexpr", f"{LAUNCH}:53 (in LaunchGemmPerfLike)"),
        "singleCoreM": (32, "constexpr", f"{LAUNCH}:57 (in LaunchGemmPerfLike)"),
        "singleCoreN": (32, "constexpr", f"{LAUNCH}:58 (in LaunchGemmPerfLike)"),
        "singleCoreK": (64, "constexpr", f"{LAUNCH}:59 (in LaunchGemmPerfLike)"),
        "baseM": (16, "constexpr", f"{LAUNCH}:60 (in LaunchGemmPerfLike)"),
        "baseN": (16, "constexpr", f"{LAUNCH}:61 (in LaunchGemmPerfLike)"),
        "baseK": (16, "constexpr", f"{LAUNCH}:62 (in LaunchGemmPerfLike)"),
        "stepM": (1, "constexpr", f"{LAUNCH}:63 (in LaunchGemmPerfLike)"),
        "stepKa": (2, "constexpr", f"{LAUNCH}:64 (in LaunchGemmPerfLike)"),
        "stepKb": (2, "constexpr", f"{LAUNCH}:65 (in LaunchGemmPerfLike)"),
        "stepN": (1, "constexpr", f"{LAUNCH}:66 (in LaunchGemmPerfLike)"),
    }
    # the host driver defines the same names in main(): its own, not knobs
    left_out = {item.name: item.reason for item in report.left_out}
    assert left_out == {
        "m": "workload: the host driver sizes its data with it (main.cpp:26)",
        "n": "workload: the host driver sizes its data with it (main.cpp:27)",
        "k": "workload: the host driver sizes its data with it (main.cpp:26)",
    }
    assert report.derived == ()


def test_config_struct_members_are_knobs_and_their_product_is_derived() -> None:
    report = discover_report(FUSED)
    kernel = "fused_like_kernel.cpp"
    assert [(t.name, t.value, t.where) for t in report.tunables] == [
        ("StandardTileConfig_TILE_H", 4, f"{kernel}:10 (StandardTileConfig::TILE_H)"),
        ("StandardTileConfig_TILE_W", 64, f"{kernel}:11 (StandardTileConfig::TILE_W)"),
        ("LargeTileConfig_TILE_H", 8, f"{kernel}:17 (LargeTileConfig::TILE_H)"),
        ("LargeTileConfig_TILE_W", 128, f"{kernel}:18 (LargeTileConfig::TILE_W)"),
    ]
    assert [d.describe() for d in report.derived] == [
        "StandardTileConfig_TILE_SIZE = TILE_H * TILE_W",
        "LargeTileConfig_TILE_SIZE = TILE_H * TILE_W",
    ]
    assert report.short().startswith("StandardTileConfig_TILE_H=4, StandardTileConfig_TILE_W=64")
    assert "; derived: StandardTileConfig_TILE_SIZE = TILE_H * TILE_W" in report.short()


def test_namespace_constants_are_knobs_and_the_launch_shape_is_the_workload() -> None:
    report = discover_report(TOPK)
    found = {t.name: t.value for t in report.tunables}
    assert found == {"BUFFER_NUM": 2, "SINGLE_LOOP_ROW": 2, "blockDim": 4}
    left_out = {item.name: item.reason for item in report.left_out}
    assert left_out == {
        "gShape3": "workload: the host driver sizes its data with it (main.cpp:16)",
        # the host driver only passes it on; the data generator takes it (as g_shape4)
        "gShape4": "workload: the data generator takes it (scripts/gen_data.py:13)",
        "gWholeShape3": "workload: the host driver sizes its data with it (main.cpp:14)",
        "gWholeShape4": "workload: the host driver sizes its data with it (main.cpp:15)",
        "topk": "workload: the host driver sizes its data with it (main.cpp:17)",
    }


def test_a_round_writes_the_value_where_the_kernel_decides_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    gemm = repo / GEMM.relative_to(REPO)
    fused = repo / FUSED.relative_to(REPO)
    knobs = {t.name: t for t in discover(gemm) + discover(fused)}
    main_before = (gemm / "main.cpp").read_text()
    assert apply_parameter(gemm, knobs["baseM"], 8) == LAUNCH
    assert "    constexpr uint32_t baseM = 8;" in (gemm / LAUNCH).read_text()
    assert (gemm / "main.cpp").read_text() == main_before  # the host's own copy stays
    assert apply_parameter(fused, knobs["StandardTileConfig_TILE_W"], 32) == "fused_like_kernel.cpp"
    text = (fused / "fused_like_kernel.cpp").read_text()
    assert "static constexpr int TILE_W = 32;" in text and "static constexpr int TILE_W = 128;" in text
    assert {t.name: t.value for t in discover(gemm)}["baseM"] == 8
    assert {t.name: t.value for t in discover(fused)}["StandardTileConfig_TILE_W"] == 32
    assert {t.name: t.value for t in discover(fused)}["LargeTileConfig_TILE_W"] == 128


def _build_and_run(operator: Path, binary: str, data: bool) -> str:
    if data:
        subprocess.run(["python3", "scripts/gen_data.py"], cwd=operator, check=True, timeout=120)
    build = (
        "rm -rf build && mkdir build && cd build && cmake -DPTO_CPU_SIM_STANDALONE=ON .. > /dev/null"
        " && make > /dev/null"
    )
    done = subprocess.run(build, shell=True, cwd=operator, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    run = subprocess.run([f"./{binary}"], cwd=operator / "build", capture_output=True, text=True, timeout=120)
    return run.stdout


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_the_written_values_build_and_pass(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    gemm = repo / GEMM.relative_to(REPO)
    fused = repo / FUSED.relative_to(REPO)
    gemm_knobs = {t.name: t for t in discover(gemm)}
    apply_parameter(gemm, gemm_knobs["baseN"], 8)
    apply_parameter(gemm, gemm_knobs["stepKa"], 1)
    assert "test success" in _build_and_run(gemm, "gemm_perf_like_cpu_sim", data=True)
    apply_parameter(fused, {t.name: t for t in discover(fused)}["LargeTileConfig_TILE_H"], 2)
    out = _build_and_run(fused, "fused_like_cpu_sim", data=False)
    assert "✓ All tests PASSED" in out and out.count("Average time:") == 2
    # a value the kernel cannot take fails its build: the knob is where the kernel decides
    apply_parameter(gemm, gemm_knobs["baseM"], 24)  # 32 rows per core are not split in 24s
    broken = subprocess.run(
        "cd build && make", shell=True, cwd=gemm, capture_output=True, text=True, timeout=300
    )
    assert broken.returncode != 0 and "tiles divide" in broken.stderr


def test_scan_lists_each_operators_tunables_and_verbose_says_why_the_rest_are_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli("scan", REPO / "kernels") == 0
    out = capsys.readouterr().out
    assert "    tunables: BUFFER_NUM=2, SINGLE_LOOP_ROW=2, blockDim=4\n" in out
    fused = "StandardTileConfig_TILE_H=4, StandardTileConfig_TILE_W=64, LargeTileConfig_TILE_H=8, "
    assert f"    tunables: {fused}" in out
    assert "derived: kFaLikeSyncPeriod = kFaLikeFifoSize / 2" in out
    assert "    5 candidate knob(s) left out (--verbose says why)" in out
    assert cli("scan", REPO / "kernels", "--verbose") == 0
    out = capsys.readouterr().out
    host = "host-only: only the host driver uses it (main.cpp:71)"
    assert f"    not a knob: kFaLikeCommSlotBytes: {host}" in out
    assert "    not a knob: gShape4: workload: the data generator takes it (scripts/gen_data.py:13)" in out


def test_new_shows_the_derived_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(REPO, tmp_path / "repo")
    source = tmp_path / "repo" / FUSED.relative_to(REPO)
    assert cli("new", source, "--mode", "cpu-sim", "--projects-root", tmp_path / "projects") == 0
    out = capsys.readouterr().out
    derived = "StandardTileConfig_TILE_SIZE = TILE_H * TILE_W"
    assert f"  derived (follow the tunables, not tunable): {derived}" in out
    tunables = ProjectFile(tmp_path / "projects" / "fused_like" / "project.toml").config.tunables
    assert "StandardTileConfig_TILE_SIZE" not in tunables
    assert tunables["LargeTileConfig_TILE_W"].where == (
        "kernels/custom/fused_like/fused_like_kernel.cpp:18 (LargeTileConfig::TILE_W)"
    )
