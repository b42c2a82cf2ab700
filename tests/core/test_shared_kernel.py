"""Kernel code in a shared file: flash_attention_score's `build_jit_wrapper` builds the
family's pipeline of attention/common.py (as in PTO-ISA/pto-kernels). `new` says so and
offers `--related`; a round that edits it without is refused by editable-scope naming
`--related`, not `--bug-fix`; with it, the edit is the round's own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.helpers import HAND_ENV, cli, cli_json, pre_edit_args

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
COMMON = "python/pto_kernels/ops/attention/common.py"


def _project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[Path, dict[str, object]]:
    source = tmp_path / "pto-kernels"
    if not source.exists():
        shutil.copytree(REPO, source)
    args = ("new", source / FA, "--case", "flash_attention_score", "--projects-root", tmp_path / "projects")
    data = cli_json(capsys, *args, "--overwrite", *extra)
    root = Path(str(data["project"]))
    assert cli("--project", root, "env", *HAND_ENV, "--probe", "python=ok", "--probe", "build=ok") == 0
    baseline = ("baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99")
    assert cli("--project", root, *baseline) == 0
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    path = root / "workspace" / "pto-kernels" / COMMON
    path.write_text(path.read_text() + "\n# a wider QK tile in the shared pipeline\n")
    capsys.readouterr()
    return root, data


def test_new_says_where_the_kernel_is_built_and_offers_related(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO, tmp_path / "pto-kernels")
    source = tmp_path / "pto-kernels" / FA
    args = ("new", source, "--case", "flash_attention_score", "--projects-root", tmp_path / "projects")
    assert cli(*args) == 0
    out = capsys.readouterr().out
    assert f"  kernel code in a shared file: {COMMON} (its build_jit_wrapper builds the kernel there)" in out
    assert f"make the project with --related {COMMON}" in out
    data = cli_json(capsys, *args, "--overwrite", "--related", COMMON)
    assert (data["shared_kernel"], data["related"]) == ("", [COMMON])


def test_editing_the_shared_kernel_without_related_names_related_not_bug_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, data = _project(tmp_path, capsys)
    assert data["shared_kernel"] == COMMON
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'editable-scope'" in err
    assert f"kernel code outside the operator folder changed: pto-kernels/{COMMON}" in err
    assert f"pto-tui new SOURCE --related {COMMON}" in err
    assert "--bug-fix" not in err


def test_with_related_the_shared_kernel_is_the_rounds_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _data = _project(tmp_path, capsys, "--related", COMMON)
    assert cli("--project", root, "round", "changes") == 0
    # a harness file is still refused as before, naming the bug fix
    runtime = root / "workspace" / "pto-kernels" / FA / "runtime.py"
    runtime.write_text(runtime.read_text() + "\n# edited\n")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "protected file(s) changed" in err and "--bug-fix" in err
