"""The workflow's rules cannot be bent from the CLI: a reason must say something, discipline
limits are finite, and `round changes` and `round run` apply one scope rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.helpers import cli, make_project, pre_edit_args, ready_project


def test_one_character_bug_fix_reason_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("main.cpp",))) == 0
    main_cpp = root / "workspace/kernel/main.cpp"
    main_cpp.write_text(main_cpp.read_text() + "\n// tampered harness\n")
    for weak in ("x", "......", "fix"):
        capsys.readouterr()
        assert cli("--project", root, "round", "changes", "--bug-fix", weak) == 1
        err = capsys.readouterr().err
        assert "refused by rule 'editable-scope'" in err and "says nothing" in err, err
    assert (
        cli("--project", root, "round", "changes", "--bug-fix", "main.cpp printed the wrong unit")
        == 0
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_spread", "inf"), ("max_spread", "nan"), ("review_gain", "nan"), ("review_gain", "inf")],
)
def test_discipline_limits_must_be_finite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str
) -> None:
    root = make_project(tmp_path)
    text = (root / "project.toml").read_text()
    line = next(x for x in text.splitlines() if x.startswith(f"{key} = "))
    (root / "project.toml").write_text(text.replace(line, f"{key} = {value}"))
    capsys.readouterr()
    assert cli("--project", root, "status") == 2
    err = capsys.readouterr().err
    assert "project.toml:" in err and f"[discipline.{key}]" in err, err


def test_changes_and_run_share_the_scope_rule_for_a_header_constant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`round run` records the changes again; a constant already set must still explain its
    header file, as it did for `round changes`."""
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli("--project", root, "round", "changes", "--set", "kFaTileS1=128") == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 0, capsys.readouterr().err
    # and a stray edit next to it is still refused
    header = root / "workspace/kernel/fa_kernel.cpp"
    header.write_text(header.read_text() + "\n// unrelated\n")
    assert cli("--project", root, "round", "changes") == 1
    assert "refused by rule 'one-hypothesis'" in capsys.readouterr().err


def test_a_stray_edit_beside_a_constant_already_set_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli("--project", root, "round", "changes", "--set", "kFaTileS1=128") == 0
    header = root / "workspace/kernel/fa_kernel.h"
    header.write_text(header.read_text() + "\n// a second idea in the same header\n")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'one-hypothesis'" in err and "fa_kernel.h" in err, err
