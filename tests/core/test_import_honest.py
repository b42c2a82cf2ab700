"""Import never invents a verdict: a round whose numbers cannot be read is recorded by hand,
unmeasured; a kept round its own numbers contradict is not taken as kept; notes.md files
that hold no round, repeated rows and disagreements are listed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.helpers import cli_json

HANDWRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "handwritten" / "flash_attention"
KEPT_ROW = "| iter-001 | QK base M 64 -> 32 | PTO_ATTENTION_QK_BASE_M=32 | 3.21 ms | 4.90 ms | pass | kept |"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "flash_attention"
    shutil.copytree(HANDWRITTEN, root)
    return root


def _with_row(root: Path, row: str) -> None:
    path = root / "ITERATIONS.md"
    path.write_text(path.read_text().replace(KEPT_ROW, row))


@pytest.mark.parametrize("pto", ["1e999 us", "0 us", "1e-400 ms", "9" * 400 + " us", "-", "fast"])
def test_a_kept_round_without_a_readable_time_is_unmeasured(
    project: Path, capsys: pytest.CaptureFixture[str], pto: str
) -> None:
    _with_row(project, KEPT_ROW.replace("4.90 ms", pto))
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    assert any("result 'kept' without a readable PTO time" in p for p in report["problems"]), (
        report["problems"])
    row = cli_json(capsys, "--project", project, "rounds")["rounds"][1]
    assert row["verdict"] is None and row["reason"] == "recorded by hand, unmeasured"
    status = cli_json(capsys, "--project", project, "status")
    assert status["counts"]["kept"] == 0


def test_a_kept_round_slower_than_the_baseline_is_not_kept(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_row(project, KEPT_ROW.replace("4.90 ms", "5 s"))  # against a 5.80 ms iter-000
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    assert any("iter-001 says kept, but its PTO time 5e+06 us is not faster" in c
               for c in report["conflicts"]), report["conflicts"]
    row = cli_json(capsys, "--project", project, "rounds")["rounds"][1]
    assert row["verdict"] is None


@pytest.mark.parametrize(
    ("content", "said"),
    [(b"", "empty"), (b"\x00\x01binary\x00", "not text"), (b"just some words\n", "no '## Pre-Edit'")],
)
def test_notes_that_hold_no_round_are_listed(
    project: Path, capsys: pytest.CaptureFixture[str], content: bytes, said: str
) -> None:
    (project / "runs/iter-003/notes.md").write_bytes(content)
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    assert any("iter-003/notes.md" in p and said in p for p in report["problems"]), report["problems"]


def test_a_repeated_row_and_a_huge_iter_cell_are_listed_not_used(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project / "ITERATIONS.md"
    first = path.read_text().splitlines().index(KEPT_ROW) + 1
    header = "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |"
    path.write_text(path.read_text() + f"\n{header}\n"
                    "|---|---|---|---|---|---|---|\n"
                    + KEPT_ROW.replace("4.90 ms", "1.00 ms") + "\n"
                    + "| iter-" + "1" * 20 + " | x | - | 1 ms | 1 ms | pass | kept |\n")
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    problems = "\n".join(report["problems"])
    assert f"iter-001 has a row already (line {first}); this one is not used" in problems
    assert "row does not start with a round number" in problems
    row = cli_json(capsys, "--project", project, "rounds")["rounds"][1]
    assert row["median_us"] == pytest.approx(4900.0)  # the first row's
    assert report["imported"] == [0, 1, 2, 3]


def test_the_performance_line_agrees_when_it_names_the_table_s_time(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = project / "runs/iter-001/notes.md"
    text = notes.read_text()
    perf = next(line for line in text.splitlines() if "**Performance**" in line)
    notes.write_text(text.replace(perf, "- **Performance**: 4.90 ms (torch_npu 3.21 ms)"))
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    assert not any("PTO time differs" in c for c in report["conflicts"]), report["conflicts"]


def test_a_performance_line_that_disagrees_is_a_conflict(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = project / "runs/iter-001/notes.md"
    text = notes.read_text()
    perf = next(line for line in text.splitlines() if "**Performance**" in line)
    notes.write_text(text.replace(perf, "- **Performance**: 5.80 ms → 4.10 ms"))
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    assert any("PTO time differs" in c for c in report["conflicts"]), report["conflicts"]


@pytest.mark.parametrize("dimension", ["9" * 5000, "9" * 20, "0"], ids=["5000 digits", "20 digits", "zero"])
def test_a_case_dimension_that_is_no_dimension_is_listed_not_taken(
    project: Path, capsys: pytest.CaptureFixture[str], dimension: str
) -> None:
    requirements = project / "TASK_REQUIREMENTS.md"
    text = requirements.read_text()
    assert "BNSD=1,16,8192,128" in text
    requirements.write_text(text.replace("BNSD=1,16,8192,128", f"BNSD=1,{dimension},8192,128"))
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "BNSD=" in x)
    assert any(f"TASK_REQUIREMENTS.md:{line}: BNSD = " in p and "is not a dimension" in p
               for p in report["problems"]), report["problems"]
    assert report["imported"] == [0, 1, 2, 3]  # the rounds are read all the same
    status = cli_json(capsys, "--project", project, "status")
    assert isinstance(status, dict) and "8192" not in str(status.get("case", ""))


def test_an_import_syncs_its_files_once_not_one_by_one(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fsync costs more than its write: an import of thousands of rounds flushes them
    together at its end (one sync), its writes atomic as ever; other writes still fsync."""
    import os

    calls = {"fsync": 0, "sync": 0}
    real_fsync, real_sync = os.fsync, os.sync

    def fsync(fd: int) -> None:
        calls["fsync"] += 1
        real_fsync(fd)

    def sync() -> None:
        calls["sync"] += 1
        real_sync()

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "sync", sync)
    report = cli_json(capsys, "import", project)
    assert isinstance(report, dict) and report["imported"] == [0, 1, 2, 3]
    assert calls == {"fsync": 0, "sync": 1}
    assert cli_json(capsys, "--project", project, "phase", "fine-tune") is not None or True
    capsys.readouterr()
    from tests.core.helpers import cli

    assert cli("--project", project, "verify") == 0  # the history the import wrote holds
    before = calls["fsync"]
    assert cli("--project", project, "torch-baseline", "--avg", "3210", "--min", "3150", "--max", "3400") == 0
    assert calls["fsync"] > before and calls["sync"] == 1  # an ordinary write flushes itself
