"""`new` on an operator that lists cases refuses to guess: a case is chosen, or given."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.helpers import FIXTURES, cli


def test_new_without_a_case_lists_the_operators_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    projects = tmp_path / "projects"
    assert cli("new", FIXTURES / "attention_dsl", "--projects-root", projects) == 2
    err = capsys.readouterr().err
    assert "no case chosen; the operator lists:" in err
    assert "attention_s1024" in err and "attention_s4096" in err and "new --case NAME" in err
    assert not (projects / "attention_dsl").exists()
    chosen = ("--case", "attention_s4096")
    assert cli("new", FIXTURES / "attention_dsl", "--projects-root", projects, *chosen) == 0
    assert 'name = "attention_s4096"' in (projects / "attention_dsl" / "project.toml").read_text()
