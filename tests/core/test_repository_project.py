"""`new` on an operator inside its repository, through the CLI: what the workspace holds,
the cases offered and refused, the commands written with their origins, the shape knobs
kept out of the tunables and refused as a tuning change, the editable scope."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.project.config import workload_fingerprint
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, cli_json, pre_edit_args

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
WS = "workspace/pto-kernels"


def repository(tmp_path: Path) -> Path:
    """The fixture repository in tmp, a git checkout with build outputs and stale files
    lying around as they would in a working copy."""
    root = tmp_path / "src" / "pto-kernels"
    if root.exists():
        return root
    shutil.copytree(REPO, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel in (
        "build/kernel.o",
        "kernel_meta/fa.o",
        "scratch/notes.txt",
        "dist/pto_kernels-0.1.whl",
        "python/pto_kernels/__pycache__/config.cpython-311.pyc",
        "extra-info/log.txt",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("stale\n")
    return root


def new(tmp_path: Path, *extra: str) -> int:
    source = repository(tmp_path) / FA
    return cli("new", source, "--projects-root", tmp_path / "projects", *extra)


def test_new_refuses_without_a_case_and_names_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert new(tmp_path) == 2
    err = capsys.readouterr().err
    assert "no case chosen" in err
    for name in ("flash_attention_score (bench spec", "b1_n1_s128_d64 (variant", "b1_n1_s256_d64"):
        assert name in err
    assert not (tmp_path / "projects" / "flash_attention_score").exists()
    assert new(tmp_path, "--case", "s999") == 2
    assert "unknown case 's999'" in capsys.readouterr().err


def test_workspace_holds_the_repository_without_git_builds_and_results(tmp_path: Path) -> None:
    assert new(tmp_path, "--case", "flash_attention_score") == 0
    ws = tmp_path / "projects" / "flash_attention_score" / WS
    assert sorted(p.name for p in ws.iterdir()) == [
        ".gitignore",
        "Makefile",
        "README.md",
        "bench",
        "pyproject.toml",
        "python",
    ]
    assert (ws / FA / "kernel.py").is_file()  # the repository's relative paths are kept
    assert (ws / "python/pto_kernels/ops/attention/common.py").is_file()
    assert (ws / "python/pto_kernels/bench/runner.py").is_file()
    assert sorted(p.name for p in (ws / "bench").iterdir()) == [
        "adapters",
        "canonical_compile_flags.yaml",
        "specs",
    ]  # no stale results, no generated copy
    assert not list(ws.rglob("__pycache__"))


def test_cases_commands_and_knobs_in_project_toml_and_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = repository(tmp_path) / FA
    out = cli_json(
        capsys, "new", source, "--projects-root", tmp_path / "projects", "--case", "b1_n1_s256_d64"
    )
    assert isinstance(out, dict)
    assert out["family"] == "attention" and out["path"] == FA
    assert len(out["cases"]) == 3
    assert out["tunables"] == [
        "PTO_ATTENTION_QK_BASE_M",
        "PTO_ATTENTION_QK_BASE_N",
        "PTO_ATTENTION_PV_BASE_M",
    ]
    assert out["workload_knobs"] == {"PTO_ATTENTION_SEQ_LEN": 256, "PTO_ATTENTION_HEAD_DIM": 64}
    root = Path(out["project"])
    text = (root / "project.toml").read_text()
    data = tomllib.loads(text)
    bench = "python3 -m pto_kernels.bench.runner bench/specs/attention/flash_attention_score.yaml"
    assert data["commands"]["benchmark"] == bench
    assert "# benchmark: from repository spec bench/specs/attention/flash_attention_score.yaml" in text
    assert "# correctness: from kind default (pto-dsl)" in text
    assert data["operator"]["pythonpath"] == "python"
    assert data["scope"]["editable"] == [f"pto-kernels/{FA}/**"]
    assert "PTO_ATTENTION_SEQ_LEN" not in data["tunables"]
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict) and status["commands"]["benchmark"] == bench


def test_shape_knobs_are_the_workload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        new(
            tmp_path,
            "--case",
            "flash_attention_score",
            "--related",
            "python/pto_kernels/ops/attention/common.py",
        )
        == 0
    )
    root = tmp_path / "projects" / "flash_attention_score"
    project = ProjectFile(root / "project.toml")
    before = workload_fingerprint(project.config)
    project.set("case.knobs.PTO_ATTENTION_SEQ_LEN", 256)
    project.save()
    assert workload_fingerprint(ProjectFile(root / "project.toml").config) != before
    project.set("case.knobs.PTO_ATTENTION_SEQ_LEN", 128)
    project.save()
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "python=ok", "--probe", "build=ok") == 0
    assert (
        cli(
            "--project", root, "baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99"
        )
        == 0
    )
    start = pre_edit_args(scope=("PTO_ATTENTION_SEQ_LEN", "PTO_ATTENTION_QK_BASE_M"))
    assert cli("--project", root, "round", "start", *start) == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "changes", "--set", "PTO_ATTENTION_SEQ_LEN=256") == 1
    err = capsys.readouterr().err
    assert "same-workload" in err and "PTO_ATTENTION_SEQ_LEN is a shape knob" in err


def test_only_the_operator_folder_and_related_files_are_editable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = "python/pto_kernels/ops/attention/common.py"
    assert new(tmp_path, "--case", "flash_attention_score", "--related", common) == 0
    root = tmp_path / "projects" / "flash_attention_score"
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "python=ok", "--probe", "build=ok") == 0
    assert (
        cli(
            "--project", root, "baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99"
        )
        == 0
    )
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    for rel in (f"{FA}/kernel.py", common):  # the operator folder and a declared related file
        path = root / WS / rel
        path.write_text(path.read_text() + "\n# tuned\n")
    assert cli("--project", root, "round", "changes") == 0
    for rel in ("python/pto_kernels/ops/common.py", f"{FA}/runtime.py"):  # shared code, the variants
        path = root / WS / rel
        original = path.read_text()
        path.write_text(original + "\n# edited\n")
        capsys.readouterr()
        assert cli("--project", root, "round", "changes") == 1
        err = capsys.readouterr().err
        assert "protected" in err and rel in err
        path.write_text(original)


def test_related_file_must_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert new(tmp_path, "--case", "flash_attention_score", "--related", "python/nope.py") == 2
    assert "related file not found" in capsys.readouterr().err


def test_a_variant_s_settings_are_options_not_dimensions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real runtime's variants carry a seed of 0, a float scale, a layout name and a
    keep probability beside the dimensions: those are the case's options."""
    source = repository(tmp_path) / FA
    out = cli_json(
        capsys, "new", source, "--projects-root", tmp_path / "projects", "--case", "b1_n1_s128_d64"
    )
    assert isinstance(out, dict)
    data = tomllib.loads((Path(out["project"]) / "project.toml").read_text())
    case = data["case"]
    assert case["shape"] == {"batch": 1, "heads": 1, "seq_len": 128, "head_dim": 64}
    options = case["options"]
    assert options["seed"] == 0 and options["input_scale"] == 0.125
    assert options["input_layout"] == "BNSD" and options["keep_prob"] == 1.0
    assert options["sparse_mode"] == 0 and options["variant"] == "b1_n1_s128_d64"
    assert case["dtype"] == "float16"
