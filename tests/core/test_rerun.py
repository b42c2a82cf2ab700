"""`pto-tui round rerun N`: an inconclusive round's change measured again, as a new round
linked to it, through round start's gates, with the original left as it was."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.markdown_read import parse_iterations_table
from pto_tui.core.rounds.markdown_round import round_from_markdown
from tests.core.helpers import cli, cli_json, pre_edit_args, ready_project, run_round
from tests.json_check import validate

HANDWRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "handwritten" / "flash_attention"
CPP = "workspace/kernel/fa_kernel.cpp"
BARRIER = "    pipe_barrier(PIPE_ALL);\n"
NOISY = "97,99,95"  # +3.1%, bounds 0% to +6.3%: cannot be told from the 2% floor
SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "json"


def _validate(name: str, data: Any) -> None:
    validate(name, data)


def _campaign_with_inconclusive_round(tmp_path: Path) -> Path:
    """iter-001: TILE_S1=512 plus a code edit, noisy -> inconclusive; iter-002: another
    edit from the baseline, slower -> neutral (the workspace now holds iter-002's state)."""
    root = ready_project(tmp_path)
    code = run_round(
        root,
        NOISY,
        hypothesis="TILE_S1 512 without the barrier",
        params=("TILE_S1=512",),
        edit=(CPP, BARRIER, "    // barrier dropped: TSTORE waits on its own flag\n"),
        justify="UB use at 512 is 96 KiB of 192 KiB; TSTORE waits on its own flag",
    )
    assert code == 0
    edit = ("workspace/kernel/fa_kernel.h", "kFaQkPreload = 4", "kFaQkPreload = 6")
    assert run_round(root, "120,121,120.5", hypothesis="deeper preload", edit=edit) == 0
    return root


def test_rerun_opens_a_linked_round_with_the_same_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _campaign_with_inconclusive_round(tmp_path)
    p = ["--project", root]
    original_toml = (root / "runs/iter-001/round.toml").read_bytes()
    original = cli_json(capsys, *p, "show", "1")["record"]
    assert original["verdict"] == "inconclusive"

    record = cli_json(capsys, *p, "round", "rerun", "1")
    _validate("round", record)
    assert (record["number"], record["status"], record["rerun_of"]) == (3, "open", 1)
    assert record["title"] == "rerun of iter-001: TILE_S1 512 without the barrier"
    assert record["pre_edit"] == original["pre_edit"]
    assert record["changes"]["based_on"] == original["changes"]["based_on"] == 0
    assert record["changes"]["parameters"] == [{"name": "TILE_S1", "old": 256, "new": 512}]
    assert record["changes"]["files"] == original["changes"]["files"]
    # the workspace is iter-001's measured state, not iter-002's
    assert "barrier dropped" in (root / CPP).read_text()
    assert "kFaQkPreload = 4" in (root / "workspace/kernel/fa_kernel.h").read_text()
    toml = tomllib.loads((root / "project.toml").read_text())
    assert toml["tunables"]["TILE_S1"]["value"] == 512
    assert (root / "runs/iter-003/patch.diff").read_text().count("barrier dropped") == 1
    assert "Rerun of: iter-001" in (root / "runs/iter-003/notes.md").read_text()
    assert tomllib.loads((root / "runs/iter-003/round.toml").read_text())["rerun_of"] == 1

    # the user measures it as any round; the original is untouched and lists its rerun
    measure = ["--build", "ok", "--correctness", "pass", "--samples", "80,81,80.5"]
    assert cli(*p, "round", "measure", *measure) == 0
    assert cli(*p, "round", "close") == 0
    assert (root / "runs/iter-001/round.toml").read_bytes() == original_toml
    shown = cli_json(capsys, *p, "show", "1")
    _validate("show", shown)
    _validate("show", cli_json(capsys, *p, "show", "3"))
    _validate("rounds", cli_json(capsys, *p, "rounds"))
    assert shown["reruns"] == [3] and shown["record"]["verdict"] == "inconclusive"
    assert cli_json(capsys, *p, "show", "3")["rerun_of"] == 1
    capsys.readouterr()
    assert cli(*p, "show", "1") == 0
    assert "rerun as iter-003" in capsys.readouterr().out
    rows = {r["round"]: r for r in cli_json(capsys, *p, "rounds")["rounds"]}
    assert (rows[3]["rerun_of"], rows[3]["verdict"], rows[1]["rerun_of"]) == (1, "kept", None)
    table = (root / "ITERATIONS.md").read_text()
    assert "| 3 | rerun of iter-001: TILE_S1 512 without the barrier |" in table
    status = cli_json(capsys, *p, "status")
    assert status["tampered_rounds"] == {} and status["frontier_round"] == 3


def test_rerun_refuses_a_decided_round_and_an_open_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _campaign_with_inconclusive_round(tmp_path)
    p = ["--project", root]
    capsys.readouterr()
    assert cli(*p, "round", "rerun", "2") == 1
    err = capsys.readouterr().err
    assert "rerun-inconclusive-only" in err and "iter-002 is neutral, not inconclusive" in err
    assert cli(*p, "round", "rerun", "0") == 1
    assert "baseline" in capsys.readouterr().err

    assert cli(*p, "round", "start", *pre_edit_args("another idea")) == 0
    before = (root / CPP).read_text()
    capsys.readouterr()
    assert cli(*p, "round", "rerun", "1") == 1
    err = capsys.readouterr().err
    assert "one-round-at-a-time" in err and "round 3 is still open" in err
    assert (root / CPP).read_text() == before  # refused before anything was written
    assert not (root / "runs/iter-004").exists()


def test_rerun_keeps_every_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The three-round rule applies to a rerun as to any round start."""
    root = _campaign_with_inconclusive_round(tmp_path)
    edit = ("workspace/kernel/fa_kernel.h", "kFaCvFifoConsSyncPeriod = 4", "kFaCvFifoConsSyncPeriod = 2")
    justify = "the consumer syncs on its own flag"
    assert run_round(root, "130,131,130.5", hypothesis="sync less often", edit=edit, justify=justify) == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "rerun", "1") == 1
    assert "three-round-rule" in capsys.readouterr().err


def test_import_reads_a_rerun_row_back(tmp_path: Path) -> None:
    """An ITERATIONS.md row titled 'rerun of iter-002: ...' is read as a rerun of 2, and
    its hypothesis is not a conflict with the notes'."""
    root = tmp_path / "flash_attention"
    shutil.copytree(HANDWRITTEN, root)
    hypothesis = (root / "runs/iter-002/notes.md").read_text().split("**Hypothesis**:")[1].split("\n")[0]
    (root / "runs/iter-004").mkdir()
    notes = (root / "runs/iter-002/notes.md").read_text().replace("# Iter 2", "# Iter 4")
    (root / "runs/iter-004/notes.md").write_text(notes)
    with (root / "ITERATIONS.md").open("a") as handle:
        handle.write(
            f"| iter-004 | rerun of iter-002: {hypothesis.strip()} | PTO_ATTENTION_QK_BLOCK_DIM=20 "
            "| 3.21 ms | 5.00 ms | pass | inconclusive |\n"
        )
    layout = ProjectLayout(root)
    rows, _ = parse_iterations_table(layout.iterations)
    problems: list[str] = []
    record = round_from_markdown(layout, 4, next(r for r in rows if r.number == 4), problems)
    assert record.rerun_of == 2
    assert not [p for p in problems if "hypothesis" in p], problems
    assert record.pre_edit.hypothesis == hypothesis.strip()
    assert cli("import", root) == 0
    assert tomllib.loads((root / "runs/iter-004/round.toml").read_text())["rerun_of"] == 2


def test_a_rerun_of_a_rerun_names_the_round_it_reruns_once() -> None:
    from pto_tui.core.rounds.records import Round
    from pto_tui.core.rounds.reruns import rerun_title

    again = Round(number=5, title="rerun of iter-002: block kv 32")
    assert rerun_title(again) == "rerun of iter-005: block kv 32"
    assert rerun_title(Round(number=2, title="block kv 32")) == "rerun of iter-002: block kv 32"
