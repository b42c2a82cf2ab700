"""Everything that defines the workload or the check is protected like the benchmark, and
the shape a report says it ran is checked against the case (the demo attention operator,
built and run for real)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, cli_json, pre_edit_args

CASE_FILE = "workspace/pto-kernels/attention_case.py"
SHRINK = ("return Case(b, h, s, d, causal)", "return Case(b, h, s // 4, d, causal)")


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = create_demo_project("dsl", tmp_path / "projects")
    project = ProjectFile(root / "project.toml")
    project.set("discipline.repeats", 2)
    project.set("discipline.max_repeats", 2)  # a fixed number of runs
    project.save()
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    return root


def shrink_the_case(root: Path) -> None:
    path = root / CASE_FILE
    text = path.read_text()
    assert text.count(SHRINK[0]) == 1
    path.write_text(text.replace(*SHRINK))


@pytest.mark.parametrize(
    "name", ["attention_case.py", "reference_attention.py", "pto-operator.toml"]
)
def test_harness_files_are_protected(
    demo: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert cli("--project", demo, "round", "start", *pre_edit_args(scope=(name,))) == 0
    path = demo / "workspace/pto-kernels" / name
    path.write_text(path.read_text() + "\n# edited\n")
    capsys.readouterr()
    assert cli("--project", demo, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'editable-scope'" in err and name in err, err


def test_a_report_that_ran_another_shape_fails_naming_both(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = ("--project", demo)
    assert cli(*p, "round", "start", *pre_edit_args(scope=("attention_case.py",))) == 0
    shrink_the_case(demo)
    reason = "the case parser mishandled the sequence length"
    assert cli(*p, "round", "changes", "--bug-fix", reason) == 0
    capsys.readouterr()
    assert cli(*p, "round", "run", "--quiet", "--json") == 0
    record = json.loads(capsys.readouterr().out)
    assert record["verdict"] == "failure", record
    reason_text = record["verdict_reason"]
    assert "S=128" in reason_text and "S=512" in reason_text, reason_text
    status = cli_json(capsys, *p, "status")
    assert isinstance(status, dict) and status["frontier_round"] == 0
