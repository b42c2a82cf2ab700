"""The PTO-tile-lib-style CPU demo operator: generate_cases -> cmake -> make -> gen_data -> run.

The C++ is built once per module (module-scoped fixture) in a private copy of the operator.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest

from pto_tui.core.reports.parsers import TILELIB_CSV_HEADER, parse_report_csv, parse_tilelib_output
from tests.demo.helpers import PYTHON, copy_operator, replace_once, run

CASE = "64,256,1024,64,256"
NAME = "case_float_H_64_S0_256_S1_1024"

pytestmark = pytest.mark.skipif(
    not (shutil.which("cmake") and shutil.which("make") and shutil.which("g++")),
    reason="needs cmake, make, g++",
)


def build(op: Path, cases: str = CASE) -> Path:
    """The operator's documented command sequence; returns the build directory."""
    build_dir = op / "build"
    build_dir.mkdir()
    steps = [
        [PYTHON, "../scripts/generate_cases.py", "--cases", cases, "--qk-preload", "4"],
        ["cmake", "-DRUN_MODE=npu", "-DSOC_VERSION=Ascend910B1", ".."],
        ["make", "-j2"],
        [PYTHON, "../scripts/gen_data.py", "--cases", cases],
    ]
    for step in steps:
        result = run(step, build_dir)
        assert result.returncode == 0, f"{step}: {result.stdout}\n{result.stderr}"
    return build_dir


def fa(build_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(["./fa_performance", *args], build_dir)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(copy_operator("demo_fa", tmp_path_factory.mktemp("fa")))


@pytest.fixture
def run_dir(built: Path, tmp_path: Path) -> Path:
    """A fresh run directory per test (the binary, its data, no report.csv yet)."""
    target = tmp_path / "run"
    target.mkdir()
    shutil.copy2(built / "fa_performance", target)
    shutil.copytree(built / "data", target / "data")
    return target


def test_generate_cases_prints_the_case_lines(tmp_path: Path) -> None:
    op = copy_operator("demo_fa", tmp_path)
    result = run([PYTHON, op / "scripts" / "generate_cases.py", "--cases", "128,128,1024,128"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert (
        "  - case_float_H_128_S0_128_S1_1024 (H=128, S0=128, S1=1024, CUBE_S0=128, CUBE_S1=128, "
        "TILE_S1=256, QK_PRELOAD=4, CAUSAL_MASK=0)"
    ) in result.stdout
    assert "FA_CASE(128, 128, 1024, 128, 256)" in (tmp_path / "generated_cases.inc").read_text()


def test_run_succeeds_and_writes_report_csv(run_dir: Path) -> None:
    result = fa(run_dir, "--npu=0", "--cases", CASE, "--repeat", "3")
    assert result.returncode == 0, result.stdout
    out = result.stdout
    assert "CPU demo: --npu ignored" in out
    assert out.index("max diff:") < out.index("test success") < out.index("[SUMMARY] o_out status: OK")
    assert parse_tilelib_output(out).correct is True
    lines = (run_dir / "report.csv").read_text().splitlines()
    assert lines[0] == TILELIB_CSV_HEADER
    assert len(lines) == 2
    row = next(csv.DictReader(lines))
    assert row["case"] == NAME and row["result"] == "OK"
    assert (row["HEAD"], row["S0"], row["S1"], row["CUBE_S0"], row["CUBE_S1"], row["TILE_S1"]) == (
        "64", "256", "1024", "64", "128", "256",
    )  # fmt: skip
    assert float(row["duration_us"]) > 0 and float(row["TFLOPS"]) > 0
    assert int(row["end_time"]) > int(row["start_time"])
    parsed = parse_report_csv("\n".join(lines), "report.csv")
    assert len(parsed) == 1 and parsed[0].ok


def test_second_run_appends(run_dir: Path) -> None:
    for _ in range(2):
        assert fa(run_dir, "--npu=0", "--cases", CASE, "--repeat", "2").returncode == 0
    lines = (run_dir / "report.csv").read_text().splitlines()
    assert len(lines) == 3 and lines.count(TILELIB_CSV_HEADER) == 1
    assert len(parse_report_csv("\n".join(lines), "report.csv", skip_rows=1)) == 1


def test_unknown_case_exits_1_with_warning(run_dir: Path) -> None:
    result = fa(run_dir, "--npu=0", "--cases", "64,256,1024,32,512")
    assert result.returncode == 1
    assert "[WARN] No cases matched filters; check --case/--cases values." in result.stdout
    assert not (run_dir / "report.csv").exists()


def test_hostile_case_string_is_inert(run_dir: Path) -> None:
    result = fa(run_dir, "--npu=0", "--cases", "128;touch PWNED;$(touch PWNED2)")
    assert result.returncode == 1 and "No cases matched" in result.stdout
    assert not (run_dir / "PWNED").exists() and not (run_dir / "PWNED2").exists()


def test_missing_data_is_a_failed_test(run_dir: Path) -> None:
    shutil.rmtree(run_dir / "data")
    result = fa(run_dir, "--npu=0", "--cases", CASE)
    assert result.returncode == 0
    assert "[ERROR] cannot read data/" in result.stdout
    assert parse_tilelib_output(result.stdout).correct is False


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ("64,256,1000,64", "S1 must be divisible by CUBE_S1 (128)"),
        ("64,256", "Expected 4 or 5 comma-separated values"),
        ("64,256,1024,64,256,1", "Expected 4 or 5 comma-separated values"),
        ("64,256,1024,48", "S0 must be divisible by CUBE_S0 (48)"),
        ("64,256,1024,64,300", "TILE_S1 must be one of (128, 256, 512)"),
        ("64,256,1024,64;rm -rf ~", "Expected 4 or 5 comma-separated values"),
        ("64,256,$(reboot),64", "S1 must be an integer"),
    ],
)
def test_bad_case_strings_raise_value_error(tmp_path: Path, cases: str, message: str) -> None:
    op = copy_operator("demo_fa", tmp_path)
    result = run([PYTHON, op / "scripts" / "generate_cases.py", "--cases", cases], tmp_path)
    assert result.returncode != 0
    assert f"ValueError: {message}" in result.stderr
    assert not (tmp_path / "generated_cases.inc").exists()


def test_broken_kernel_reports_test_failed_with_exit_0(tmp_path: Path) -> None:
    op = copy_operator("demo_fa", tmp_path)
    # Drop the online-softmax rescale of the accumulator: wrong once a later tile raises the max.
    replace_once(
        op / "fa_kernel.cpp", "RescaleAccumulator<CUBE_S0, HEAD>(acc.data(), correction.data());", ""
    )
    build_dir = build(op)
    result = fa(build_dir, "--npu=0", "--cases", CASE, "--repeat", "1")
    assert result.returncode == 0
    assert "test failed" in result.stdout and "[SUMMARY] o_out status: FAIL" in result.stdout
    assert parse_tilelib_output(result.stdout).correct is False
    row = next(csv.DictReader((build_dir / "report.csv").read_text().splitlines()))
    assert row["result"] == "NOK"


def test_causal_mask_build_is_correct(tmp_path: Path) -> None:
    op = copy_operator("demo_fa", tmp_path)
    build_dir = op / "build"
    build_dir.mkdir()
    cases = "64,256,1024,64,128"
    for step in (
        [PYTHON, "../scripts/generate_cases.py", "--cases", cases, "--causal-mask", "1"],
        ["cmake", ".."],
        ["make"],
        [PYTHON, "../scripts/gen_data.py", "--cases", cases],  # takes the mask from the case list
    ):
        result = run(step, build_dir)
        assert result.returncode == 0, result.stdout + result.stderr
    result = fa(build_dir, "--npu=0", "--cases", cases, "--repeat", "1")
    assert result.returncode == 0 and "test success" in result.stdout, result.stdout
