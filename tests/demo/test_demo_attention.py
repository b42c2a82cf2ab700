"""The PTO-DSL-style CPU demo operator, run for real in a private copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.core.reports.parsers import parse_report_json
from tests.demo.helpers import PYTHON, clean_env, copy_operator, replace_once, run

CASE = "B=1,H=2,S=512,D=64"
FAST = ["--warmup", "1", "--repeat", "3"]


@pytest.fixture
def op(tmp_path: Path) -> Path:
    return copy_operator("demo_attention", tmp_path)


def build(op: Path, **knobs: str) -> None:
    result = run([PYTHON, "attention_kernel.py", "--output-dir", "build"], op, clean_env(**knobs))
    assert result.returncode == 0, result.stderr
    assert "built demo_attention" in result.stdout


def bench(op: Path, *extra: str, case: str = CASE, **knobs: str) -> tuple[int, dict, Path | None, str]:
    result = run([PYTHON, "bench_attention.py", "--case", case, *FAST, *extra], op, clean_env(**knobs))
    lines = result.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("report: "):
        return result.returncode, {}, None, result.stdout + result.stderr
    path = op / lines[-1].removeprefix("report: ")
    return result.returncode, json.loads(path.read_text()), path, result.stdout


def test_build_then_bench_writes_a_runner_report(op: Path) -> None:
    build(op)
    plan = json.loads((op / "build" / "kernel.json").read_text())
    assert plan["knobs"] == {"DEMO_ATTN_BLOCK_Q": 16, "DEMO_ATTN_BLOCK_KV": 16}
    code, report, path, _ = bench(op)
    assert code == 0 and path is not None
    assert path.parent.parent == op / "bench" / "results" / "demo" / "demo_attention"
    assert report["status"] == "ok" and report["name"] == "demo_attention" and report["family"] == "demo"
    assert report["device"]["soc"] == "cpu-demo" and report["device"]["toolkit_version"].startswith("numpy ")
    assert report["bench"] == {"warmup": 1, "repeat": 3, "statistic": "median"}
    assert report["baseline"]["benchmark"]["status"] == "ok"
    assert report["pto"]["compile"]["status"] == "ready"
    bench_part = report["pto"]["benchmark"]
    assert bench_part["status"] == "ok" and bench_part["correctness"]["passes"] is True
    assert bench_part["correctness"]["max_abs_diff"] < 1e-4
    timings = bench_part["timings_ms"]
    assert 0 < timings["min"] <= timings["median"] <= timings["max"]
    assert bench_part["variant"] == {
        "B": 1,
        "H": 2,
        "S": 512,
        "D": 64,
        "dtype": "float32",
        "causal": False,
        "block_q": 16,
        "block_kv": 16,
    }
    # pto-tui's own parser reads it as a passing result with a baseline.
    parsed = parse_report_json(path.read_text(), str(path), flops=4.0 * 2 * 512 * 512 * 64)
    assert parsed.correct and parsed.reference_us and parsed.tflops


def test_causal_case_and_two_runs_in_one_second_do_not_collide(op: Path) -> None:
    build(op, DEMO_ATTN_BLOCK_Q="64", DEMO_ATTN_BLOCK_KV="32")
    knobs = {"DEMO_ATTN_BLOCK_Q": "64", "DEMO_ATTN_BLOCK_KV": "32"}
    first = bench(op, "--causal", **knobs)
    second = bench(op, "--causal", **knobs)
    assert first[0] == second[0] == 0
    assert first[2] != second[2]
    assert first[1]["pto"]["benchmark"]["correctness"]["passes"] is True
    assert first[1]["pto"]["benchmark"]["variant"]["causal"] is True


def test_bad_knob_fails_the_build(op: Path) -> None:
    result = run(
        [PYTHON, "attention_kernel.py", "--output-dir", "build"], op, clean_env(DEMO_ATTN_BLOCK_Q="7")
    )
    assert result.returncode != 0
    assert "DEMO_ATTN_BLOCK_Q must be one of (8, 16, 32, 64, 128, 256), got 7" in result.stderr
    assert not (op / "build" / "kernel.json").exists()


def test_syntax_error_fails_the_build(op: Path) -> None:
    replace_once(op / "attention_kernel.py", "def knob_values()", "def knob_values(")
    result = run([PYTHON, "attention_kernel.py", "--output-dir", "build"], op)
    assert result.returncode != 0 and "SyntaxError" in result.stderr


def test_bench_is_blocked_without_a_matching_build(op: Path) -> None:
    code, report, _, _ = bench(op)
    assert code == 1
    assert report["pto"]["benchmark"]["status"] == "blocked"
    assert "not built" in report["pto"]["benchmark"]["reason"]
    build(op)
    code, report, _, _ = bench(op, DEMO_ATTN_BLOCK_KV="64")
    assert code == 1 and "not built for these knobs" in report["pto"]["benchmark"]["reason"]


def test_tile_sizes_change_the_speed(op: Path) -> None:
    medians = {}
    for size in ("8", "128"):
        knobs = {"DEMO_ATTN_BLOCK_Q": size, "DEMO_ATTN_BLOCK_KV": size}
        build(op, **knobs)
        code, report, _, _ = bench(op, **knobs)
        assert code == 0 and report["pto"]["benchmark"]["correctness"]["passes"] is True
        medians[size] = report["pto"]["benchmark"]["timings_ms"]["median"]
    # Measured ~10x apart (about 65 ms vs 5 ms); 1.5x leaves room for a busy machine.
    assert medians["8"] > 1.5 * medians["128"], medians


def test_broken_kernel_fails_correctness(op: Path) -> None:
    # Drop the online-softmax rescale of the accumulator: wrong as soon as the max moves.
    replace_once(
        op / "attention_kernel.py", "acc = acc * correction + probs @ v_blk", "acc = acc + probs @ v_blk"
    )
    build(op)
    code, report, path, _ = bench(op)
    assert code == 0 and path is not None
    correctness = report["pto"]["benchmark"]["correctness"]
    assert correctness["passes"] is False and correctness["max_abs_diff"] > 1e-3
    assert parse_report_json(path.read_text(), str(path)).correct is False


@pytest.mark.parametrize(
    "case", ["128;rm -rf ~", "B=1,H=2,S=64,D=8;touch PWNED", "$(touch PWNED)", "B=1,H=2"]
)
def test_hostile_case_string_is_rejected(op: Path, case: str) -> None:
    build(op)
    code, report, path, output = bench(op, case=case)
    assert code == 2 and path is None
    assert "bad case" in output
    assert not (op / "PWNED").exists() and not (op / "bench").exists()
    result = run([PYTHON, "reference_attention.py", "--case", case], op)
    assert result.returncode == 2 and "bad case" in result.stderr


def test_reference_prints_one_labelled_json_line(op: Path) -> None:
    result = run(
        [
            PYTHON,
            "reference_attention.py",
            "--case",
            "B=1,H=2,S=256,D=64",
            "--causal",
            "--warmup",
            "1",
            "--runs",
            "3",
        ],
        op,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert set(data) == {"label", "avg_us", "min_us", "max_us", "tflops", "warmup", "runs"}
    assert data["label"] in (
        "CPU reference (torch) standing in for torch_npu",
        "CPU reference (numpy) standing in for torch_npu",
    )
    assert 0 < data["min_us"] <= data["avg_us"] <= data["max_us"]
    flops = 4 * 1 * 2 * 256 * 256 * 64 / 2
    assert data["tflops"] == pytest.approx(flops / (data["avg_us"] * 1e-6) / 1e12)
    assert (data["warmup"], data["runs"]) == (1, 3)
