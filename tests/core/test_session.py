"""A scripted session through the CLI: create projects from a PTO-DSL and a PTO-tile-lib
sample, record a baseline and three rounds, and check the files on disk match the formats."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.core.helpers import cli, cli_json, make_project, ready_project, run_round

TABLE_HEADER = "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |"


def rows(root: Path) -> list[list[str]]:
    out = []
    for line in (root / "ITERATIONS.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].isdigit():
            out.append(cells)
    return out


def test_tile_lib_session_writes_the_workflow_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    header = "src/fa_tilelib"  # noqa: F841 - the source stays untouched below
    # round 1: a template parameter through the CLI -> kept
    assert (
        run_round(
            root,
            "80,81,80.5",
            hypothesis="TILE_S1 512",
            params=("TILE_S1=512",),
            justify="UB use at 512 is 96 KiB of 192 KiB",
        )
        == 0
    )
    # round 2: a hand edit of a constant -> slower -> neutral
    assert (
        run_round(
            root,
            "90,91,90.5",
            hypothesis="deeper preload",
            edit=("workspace/kernel/fa_kernel.h", "kFaQkPreload = 4", "kFaQkPreload = 6"),
        )
        == 0
    )
    # round 3: a code change that breaks correctness -> failure, numbers not recorded
    assert (
        run_round(
            root,
            "",
            hypothesis="drop the barrier",
            edit=("workspace/kernel/fa_kernel.cpp", "    pipe_barrier(PIPE_ALL);\n", ""),
            correctness="fail",
            justify="TSTORE waits on its own flag; the barrier serialises nothing else",
        )
        == 0
    )

    text = (root / "ITERATIONS.md").read_text()
    assert text.startswith("# 迭代记录\n")
    assert TABLE_HEADER in text
    table = rows(root)
    assert [r[0] for r in table] == ["0", "1", "2", "3"]
    assert [r[6] for r in table] == ["baseline", "kept", "neutral", "failure"]
    assert table[1][2] == "TILE_S1 256→512"
    assert table[3][5] == "fail"

    for number in range(4):
        folder = root / "runs" / f"iter-{number:03d}"
        assert {p.name for p in folder.iterdir()} >= {
            "files.txt",
            "patch.diff",
            "notes.md",
            "round.toml",
        }
        notes = (folder / "notes.md").read_text()
        assert notes.startswith(f"# Iter {number}\n")
        for section in ("## Pre-Edit", "## Changes", "## Post-Run", "## Analysis", "## Next"):
            assert section in notes
        for bullet in (
            "**Kernel**",
            "**Current bottleneck**",
            "**Evidence**",
            "**Hypothesis**",
            "**Why it should help on Ascend**",
            "**Expected improved metric**",
            "**Main risk**",
            "**Correctness**",
            "**Performance**",
            "**Stability**",
            "**Result**",
        ):
            assert bullet in notes, (number, bullet)

    # parameter round: the commented block of docs/workflow.md §15, then the real diff
    patch1 = (root / "runs/iter-001/patch.diff").read_text()
    assert patch1.startswith(
        "# 本轮为调参类迭代\n# 参数变更：\n-  TILE_S1=256\n+  TILE_S1=512\n# 基于 iter-000 的配置\n"
    )
    assert "+    LaunchTFA<128, 128, 1024, 128, 128, 512, 4, 8>(q, k, v, o);" in patch1
    assert (root / "runs/iter-001/files.txt").read_text() == "workspace/kernel/fa_kernel.cpp\n"
    notes1 = (root / "runs/iter-001/notes.md").read_text()
    assert "模板参数调整" in notes1 and "TILE_S1: 256 → 512" in notes1

    # round 2 is based on the frontier (iter-001) and records the hand-edited constant
    record2 = tomllib.loads((root / "runs/iter-002/round.toml").read_text())
    assert record2["changes"]["based_on"] == 1
    assert record2["changes"]["parameters"] == [{"name": "kFaQkPreload", "old": 4, "new": 6}]
    patch2 = (root / "runs/iter-002/patch.diff").read_text()
    assert "-constexpr int kFaQkPreload = 4;" in patch2 and "+constexpr int kFaQkPreload = 6;" in patch2

    # round 3: a code round: a real unified diff, files.txt derived from it
    patch3 = (root / "runs/iter-003/patch.diff").read_text()
    assert re.search(r"^--- a/workspace/kernel/fa_kernel.cpp$", patch3, re.M)
    assert "-    pipe_barrier(PIPE_ALL);" in patch3
    files3 = (root / "runs/iter-003/files.txt").read_text().split()
    assert "workspace/kernel/fa_kernel.cpp" in files3

    status = cli_json(capsys, "--project", root, "status")
    assert status["frontier_round"] == 1
    assert status["counts"] == {"kept": 1, "neutral": 1, "failure": 1, "inconclusive": 0}
    assert status["speedup_vs_initial"] == pytest.approx(100 / 80.5)
    # the original source is never touched
    assert "kFaQkPreload = 4" in (tmp_path / "src/fa_tilelib/fa_kernel.h").read_text()


def test_dsl_session_with_env_knobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path, "attention_dsl", samples="2000,2010,1990")
    config = tomllib.loads((root / "project.toml").read_text())
    assert config["operator"]["kind"] == "pto-dsl"
    assert (root / "workspace/pto-kernels/attention_kernel.py").is_file()
    assert config["tunables"]["PTO_ATTENTION_QK_BASE_M"]["allowed"] == [16, 32, 64]

    assert (
        run_round(root, "1500,1510,1505", hypothesis="base M 32", params=("PTO_ATTENTION_QK_BASE_M=32",)) == 0
    )
    assert (
        run_round(
            root,
            "1400,1405,1402",
            hypothesis="block dim 16",
            params=("PTO_ATTENTION_QK_BLOCK_DIM=16",),
        )
        == 0
    )
    assert (
        run_round(
            root,
            "1403,1401,1404",
            hypothesis="base K 64",
            params=("PTO_ATTENTION_QK_BASE_K=64",),
            justify="K=64 tiles still fit L0A",
        )
        == 0
    )

    files1 = (root / "runs/iter-001/files.txt").read_text()
    assert "no source file changed" in files1
    patch1 = (root / "runs/iter-001/patch.diff").read_text()
    assert patch1 == (
        "# 本轮为调参类迭代\n# 参数变更：\n-  PTO_ATTENTION_QK_BASE_M=64\n+  PTO_ATTENTION_QK_BASE_M=32\n"
        "# 基于 iter-000 的配置\n"
    )
    # env knobs never touch the source, and project.toml holds the current value
    assert (
        'tuned_int("PTO_ATTENTION_QK_BASE_M", 64'
        in (root / "workspace/pto-kernels/attention_kernel.py").read_text()
    )
    assert (
        tomllib.loads((root / "project.toml").read_text())["tunables"]["PTO_ATTENTION_QK_BASE_M"]["value"]
        == 32
    )
    data = cli_json(capsys, "--project", root, "rounds")
    assert [r["verdict"] for r in data["rounds"]] == ["baseline", "kept", "kept", "neutral"]
    # round 3 is based on round 2 (the frontier) and its snapshot carries both earlier changes
    record3 = tomllib.loads((root / "runs/iter-003/round.toml").read_text())
    assert record3["changes"]["snapshot"]["PTO_ATTENTION_QK_BASE_M"] == 32
    assert record3["changes"]["snapshot"]["PTO_ATTENTION_QK_BLOCK_DIM"] == 16


def test_disallowed_parameter_value_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path, "attention_dsl")
    from tests.core.helpers import pre_edit_args

    assert cli("--project", root, "round", "start", *pre_edit_args()) == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "changes", "--set", "PTO_ATTENTION_QK_BASE_M=48") == 2
    err = capsys.readouterr().err
    assert "not allowed" in err and "16, 32, 64" in err


def test_show_and_rounds_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    run_round(root, "80,81,80.5", params=("TILE_S1=512",), justify="512 still fits in UB")
    shown = cli_json(capsys, "--project", root, "show", "1")
    assert shown["record"]["verdict"] == "kept"
    assert shown["record"]["measurement"]["samples_us"] == [80.0, 81.0, 80.5]
    capsys.readouterr()
    assert cli("--project", root, "show", "1") == 0
    assert "# Iter 1" in capsys.readouterr().out
    assert cli("--project", root, "show", "7") == 2


def test_new_refuses_bad_names_and_existing_projects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    source = tmp_path / "src" / "fa_tilelib"
    projects = tmp_path / "projects"
    for bad in ("..", "../escape", "a/b", "", "."):
        capsys.readouterr()
        assert cli("new", source, "--projects-root", projects, "--name", bad) == 2, bad
        assert "invalid operator name" in capsys.readouterr().err
    assert not (tmp_path / "escape").exists()
    assert cli("new", source, "--projects-root", projects) == 2
    assert "already exists" in capsys.readouterr().err
    (root / "context" / "mine.md").write_text("notes")
    assert cli("new", source, "--projects-root", projects, "--overwrite") == 0
    assert not (root / "context" / "mine.md").exists()
    assert not [p for p in projects.iterdir() if p.name.startswith(".")]  # no staging left behind


def test_new_refuses_to_guess_a_mixed_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.core.helpers import FIXTURES

    assert cli("new", FIXTURES / "mixed_op", "--projects-root", tmp_path) == 2
    err = capsys.readouterr().err
    assert "mixed" in err and "--kind" in err
    assert cli("new", FIXTURES / "mixed_op", "--projects-root", tmp_path, "--kind", "pto-tile-lib") == 0
    assert (tmp_path / "mixed_op/workspace/kernel/k.cpp").is_file()


def test_new_with_a_listed_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.core.helpers import FIXTURES

    capsys.readouterr()
    assert cli("new", FIXTURES / "attention_dsl", "--projects-root", tmp_path, "--case", "nope") == 2
    assert "attention_s1024, attention_s4096" in capsys.readouterr().err
    assert (
        cli(
            "new",
            FIXTURES / "attention_dsl",
            "--projects-root",
            tmp_path,
            "--case",
            "attention_s4096",
            "--shape",
            "S=4096",
            "--dtype",
            "bfloat16",
            "--causal",
        )
        == 0
    )
    config = tomllib.loads((tmp_path / "attention_dsl/project.toml").read_text())
    assert config["case"] == {
        "name": "attention_s4096",
        "dtype": "bfloat16",
        "causal": True,
        "spec": "bench/specs/attention/attention_s4096.yaml",
        "shape": {"S": 4096},
    }
    requirements = (tmp_path / "attention_dsl/TASK_REQUIREMENTS.md").read_text()
    assert "S=4096" in requirements and "PTO_ATTENTION_QK_BASE_M" in requirements


def test_phase_sets_where_new_rounds_fall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "phase", "fine-tune") == 0
    assert cli("--project", root, "phase", "nope") == 2
    run_round(root, "99,100,101", params=("TILE_S1=128",))
    record = cli_json(capsys, "--project", root, "show", "1")["record"]
    assert record["phase"] == "fine-tune"
    assert cli_json(capsys, "--project", root, "phase") == {
        "schema_version": 1,
        "phases": ["baseline", "costmodel-guided", "parameter validation", "fine-tune"],
        "current": "fine-tune",
    }
