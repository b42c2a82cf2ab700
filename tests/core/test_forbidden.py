"""The forbidden behaviours of docs/workflow.md §18, driven through the CLI on a sample project.

Each is refused (or flagged) with the rule named, and each has its allowed path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.helpers import cli, cli_json, pre_edit_args, ready_project

BENCH = "workspace/pto-kernels/bench_attention.py"
KERNEL = "workspace/pto-kernels/attention_kernel.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return ready_project(
        tmp_path,
        "attention_dsl",
        samples="1000,1005,995",
        extra_toml="\n[tolerances]\natol = 0.001\nrtol = 0.001\n",
    )


def refused(capsys: pytest.CaptureFixture[str], rule: str, *args: object) -> str:
    capsys.readouterr()
    assert cli(*[str(a) for a in args]) == 1
    err = capsys.readouterr().err
    assert f"refused by rule '{rule}'" in err, err
    return err


def start(root: Path, *scope: str) -> None:
    assert (
        cli(
            "--project",
            root,
            "round",
            "start",
            "--restore",
            *pre_edit_args(scope=scope or (KERNEL,)),
        )
        == 0
    )


def measure(root: Path, samples: str = "900,901,899", correctness: str = "pass") -> int:
    return cli(
        "--project",
        root,
        "round",
        "measure",
        "--build",
        "ok",
        "--correctness",
        correctness,
        "--samples",
        samples,
    )


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    path.write_text(path.read_text().replace(old, new))


def test_editing_the_benchmark_script(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start(project, KERNEL, BENCH)
    edit(project, BENCH, '"duration_ms": 1.0', '"duration_ms": 0.1')
    err = refused(capsys, "editable-scope", "--project", project, "round", "changes")
    assert "bench_attention.py" in err
    # caught by content hash whenever it happens, even after the changes step
    edit(project, BENCH, '"duration_ms": 0.1', '"duration_ms": 1.0')
    assert cli("--project", project, "round", "changes") == 0
    edit(project, BENCH, '"duration_ms": 1.0', '"duration_ms": 0.2')
    refused(
        capsys,
        "editable-scope",
        "--project",
        project,
        "round",
        "measure",
        "--build",
        "ok",
        "--correctness",
        "pass",
        "--samples",
        "1",
    )
    # allowed path: a declared bug fix with a reason; it becomes the new reference
    assert (
        cli(
            "--project",
            project,
            "round",
            "changes",
            "--bug-fix",
            "the script printed the wrong unit",
        )
        == 0
    )
    assert measure(project) == 0
    assert cli("--project", project, "round", "close") == 0
    notes = (project / "runs/iter-001/notes.md").read_text()
    assert "Bug fix of a protected file" in notes and "wrong unit" in notes
    start(project)
    assert cli("--project", project, "round", "changes") == 0  # the fixed script is accepted now


def test_loosening_a_tolerance(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start(project)
    edit(project, "project.toml", "atol = 0.001", "atol = 0.01")
    err = refused(capsys, "tolerance-protected", "--project", project, "round", "changes")
    assert "atol 0.001 -> 0.01" in err
    # tightening is always fine
    edit(project, "project.toml", "atol = 0.01", "atol = 0.0005")
    assert cli("--project", project, "round", "changes") == 0
    # allowed path: the user's explicit approval, recorded with its reason
    edit(project, "project.toml", "atol = 0.0005", "atol = 0.01")
    assert (
        cli(
            "--project",
            project,
            "round",
            "changes",
            "--approve-tolerance",
            "lead (me): bf16 accumulation order differs, agreed 2026-11-29",
        )
        == 0
    )
    assert measure(project) == 0
    notes = (project / "runs/iter-001/notes.md").read_text()
    assert "Tolerance change approved" in notes and "bf16 accumulation" in notes


def test_changing_the_workload_shape(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    edit(project, "project.toml", 'dtype = "float16"', 'dtype = "bfloat16"')
    err = refused(
        capsys,
        "same-workload",
        "--project",
        project,
        "round",
        "measure",
        "--build",
        "ok",
        "--correctness",
        "pass",
        "--samples",
        "900,901",
    )
    assert "differs from the baseline" in err
    # allowed path: the same workload as the baseline
    edit(project, "project.toml", 'dtype = "bfloat16"', 'dtype = "float16"')
    assert measure(project) == 0


def test_claiming_kept_from_a_single_noisy_measurement(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    assert measure(project, samples="700") == 0
    err = refused(capsys, "honest-verdict", "--project", project, "round", "close", "--verdict", "kept")
    assert "inconclusive" in err and "single measurement" in err
    # allowed path: repeat the benchmark; a repeatable gain is kept
    assert measure(project, samples="700,702,701") == 0
    assert cli("--project", project, "round", "close", "--verdict", "kept") == 0


def test_performance_without_a_passing_correctness_step(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    refused(
        capsys,
        "correctness-before-performance",
        "--project",
        project,
        "round",
        "measure",
        "--build",
        "ok",
        "--correctness",
        "skip",
        "--samples",
        "900,901",
    )
    refused(
        capsys,
        "correctness-before-performance",
        "--project",
        project,
        "round",
        "measure",
        "--build",
        "ok",
        "--correctness",
        "fail",
        "--samples",
        "900,901",
    )
    # a failed correctness is recorded without numbers, and the round is a failure
    assert cli("--project", project, "round", "measure", "--build", "ok", "--correctness", "fail") == 0
    data = cli_json(capsys, "--project", project, "round", "close")
    assert data["verdict"] == "failure"
    # allowed path: correctness passes, then numbers
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    assert measure(project) == 0


def test_two_unrelated_changes_in_one_round(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli(
            "--project",
            project,
            "round",
            "start",
            *pre_edit_args(scope=("PTO_ATTENTION_QK_BASE_M",)),
        )
        == 0
    )
    edit(project, KERNEL, "out):\n    pto.tload(q)", "out):\n    pto.tload(q)\n    pto.tload(k)")
    err = refused(
        capsys,
        "one-hypothesis",
        "--project",
        project,
        "round",
        "changes",
        "--set",
        "PTO_ATTENTION_QK_BASE_M=32",
    )
    assert "attention_kernel.py" in err
    refused(
        capsys,
        "one-hypothesis",
        "--project",
        project,
        "round",
        "changes",
        "--set",
        "PTO_ATTENTION_QK_BLOCK_DIM=16",
    )
    # allowed path: revert the stray edit; the declared parameter alone is fine
    edit(project, KERNEL, "\n    pto.tload(k)", "")
    assert cli("--project", project, "round", "changes", "--set", "PTO_ATTENTION_QK_BASE_M=32") == 0


def test_deleting_or_rewriting_a_closed_failed_round(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    assert (
        cli(
            "--project",
            project,
            "round",
            "measure",
            "--build",
            "failed",
            "--problem",
            "ptoas crashed",
        )
        == 0
    )
    assert cli("--project", project, "round", "close") == 0
    refused(capsys, "honest-history", "--project", project, "round", "delete", "1")
    refused(
        capsys,
        "honest-history",
        "--project",
        project,
        "round",
        "measure",
        "1",
        "--build",
        "ok",
        "--correctness",
        "pass",
        "--samples",
        "500,501",
    )
    refused(capsys, "honest-history", "--project", project, "round", "close", "1")
    # allowed path: an amendment kept beside the original
    assert (
        cli(
            "--project",
            project,
            "amend",
            "1",
            "--field",
            "analysis",
            "--value",
            "ptoas 0.3 crashes on nested loops",
            "--why",
            "found the cause later",
        )
        == 0
    )
    record = cli_json(capsys, "--project", project, "show", "1")["record"]
    assert record["verdict"] == "failure"
    assert record["amendments"][0]["why"] == "found the cause later"
    # a round removed from disk is reported, and its number is never reused
    shutil.rmtree(project / "runs/iter-001")
    status = cli_json(capsys, "--project", project, "status")
    assert status["missing_rounds"] == [1]
    start(project)
    assert (project / "runs/iter-002").is_dir() and not (project / "runs/iter-001").exists()


def test_gain_above_10x_is_flagged_for_review(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    assert measure(project, samples="80,80.5,81") == 0
    capsys.readouterr()
    assert cli("--project", project, "round", "close") == 0
    out = capsys.readouterr().out
    assert "FLAG review" in out and "held for review" in out
    assert "(flagged)" in (project / "ITERATIONS.md").read_text()
    # held rounds are not the frontier until confirmed with a reason
    reason = "the report shows the same shape and a real speedup"
    assert cli("--project", project, "round", "confirm", "1", "--reason", reason) == 0
    # allowed path: an ordinary gain carries no flag
    start(project)
    assert cli("--project", project, "round", "changes") == 0
    assert measure(project, samples="70,70.2,70.1") == 0
    data = cli_json(capsys, "--project", project, "round", "close")
    assert data.get("flags", []) == []


def test_gates_before_any_edit(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(
        capsys,
        "four-questions",
        "--project",
        project,
        "round",
        "start",
        *pre_edit_args(overrides={"--why": ""}),
    )
    assert "why this change helps on Ascend" in err
    refused(
        capsys,
        "bottleneck-class",
        "--project",
        project,
        "round",
        "start",
        *pre_edit_args(overrides={"--bottleneck": "slow"}),
    )
    args = pre_edit_args()
    checks = [i for i, a in enumerate(args) if a == "--check"]
    short = args[: checks[-1]] + args[checks[-1] + 2 :]
    err = refused(capsys, "hardware-checklist", "--project", project, "round", "start", *short)
    assert "bottleneck_shift" in err
    refused(capsys, "one-hypothesis", "--project", project, "round", "start", *pre_edit_args(scope=()))
    capsys.readouterr()
    assert cli("--project", project, "round", "gates", *pre_edit_args()) == 0
    assert "all gates pass" in capsys.readouterr().out
