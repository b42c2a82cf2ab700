"""A project an agent wrote by hand (Markdown only) opens: what can be read is imported,
what cannot is listed, and the hand-written files are never modified."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.rounds.importer import parse_duration_us, parse_iterations_table
from tests.core.helpers import cli, cli_json, pre_edit_args

HANDWRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "handwritten" / "flash_attention"


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".md", ".txt", ".diff")
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "flash_attention"
    shutil.copytree(HANDWRITTEN, root)
    return root


def test_handwritten_project_opens(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = digests(project)
    report = cli_json(capsys, "import", project)
    assert report["imported"] == [0, 1, 2, 3]
    assert report["created_project_file"] is True
    problems = "\n".join(report["problems"])
    assert "ITERATIONS.md:13" in problems and "no unit" in problems  # "5.10" without a unit
    assert "iter-003: no notes.md" in problems
    assert digests(project) == before  # nothing hand-written was touched

    rounds = cli_json(capsys, "--project", project, "rounds")["rounds"]
    assert [r["verdict"] for r in rounds] == ["baseline", "kept", "neutral", "failure"]
    assert rounds[1]["median_us"] == pytest.approx(4900.0)
    assert rounds[1]["bottleneck"] == "bad tile shape"
    assert rounds[2]["median_us"] is None  # the unreadable number is not guessed
    shown = cli_json(capsys, "--project", project, "show", "1")["record"]
    assert shown["pre_edit"]["hypothesis"] == "QK base M 64 -> 32 raises cube occupancy"
    assert shown["changes"]["based_on"] == 0
    assert shown["imported"] is True
    status = cli_json(capsys, "--project", project, "status")
    assert status["frontier_round"] == 1
    assert status["speedup_vs_initial"] == pytest.approx(5800 / 4900)

    # importing again changes nothing and says so
    again = cli_json(capsys, "import", project)
    assert again["imported"] == [] and again["skipped"] == [0, 1, 2, 3]


def test_new_rounds_append_to_a_handwritten_iterations_md(project: Path) -> None:
    assert cli("import", project) == 0
    original = (project / "ITERATIONS.md").read_text()
    notes0 = (project / "runs/iter-000/notes.md").read_text()
    assert cli("--project", project, "env", "--probe", "ssh=ok") == 0
    # the baseline is already closed (imported): it cannot be recorded again
    assert (
        cli(
            "--project",
            project,
            "baseline",
            "--build",
            "ok",
            "--correctness",
            "pass",
            "--samples",
            "1",
        )
        == 1
    )
    assert cli("--project", project, "round", "start", *pre_edit_args("softmax in UB")) == 0
    assert cli("--project", project, "round", "changes", "--describe", "keep the row max in UB") == 0
    assert (
        cli(
            "--project",
            project,
            "round",
            "measure",
            "--build",
            "ok",
            "--correctness",
            "pass",
            "--samples",
            "4800,4805,4790",
        )
        == 0
    )
    assert cli("--project", project, "round", "close") == 0
    text = (project / "ITERATIONS.md").read_text()
    assert text.startswith(original)  # every hand-written line kept
    assert text[len(original) :].startswith("| 4 | softmax in UB |")
    assert (project / "runs/iter-000/notes.md").read_text() == notes0


def test_malformed_iterations_md_is_a_named_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "op"
    (root / "runs").mkdir(parents=True)
    (root / "workspace/kernel").mkdir(parents=True)
    (root / "ITERATIONS.md").write_text("# 迭代记录\n\nsome prose but no table\n")
    with pytest.raises(InputError, match="no round table"):
        parse_iterations_table(root / "ITERATIONS.md")
    capsys.readouterr()
    assert cli("import", root) == 2
    err = capsys.readouterr().err
    assert "ITERATIONS.md" in err and "no round table" in err and "Traceback" not in err
    (root / "ITERATIONS.md").write_text(
        "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |\n|---|---|---|---|---|---|---|\n"
        "| 0 | baseline | - | - | 1 ms | pass |\n| one | x | - | - | 1 ms | pass | kept |\n"
    )
    rows, problems = parse_iterations_table(root / "ITERATIONS.md")
    assert rows == []
    assert any(":3: expected 7 columns, found 6" in p for p in problems)
    assert any(":4: row does not start with a round number" in p for p in problems)


def test_parse_duration() -> None:
    assert parse_duration_us("1.5 ms") == 1500.0
    assert parse_duration_us("812.5us") == 812.5
    assert parse_duration_us("-") is None
    with pytest.raises(ValueError, match="no unit"):
        parse_duration_us("12")
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration_us("fast")
