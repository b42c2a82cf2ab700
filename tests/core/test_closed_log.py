"""Closed rounds are logged in runs/closed.log; a record rewritten or removed by hand after
it was closed is marked tampered everywhere it is shown, and the counts and rules use the
round as it was closed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pto_tui.core.rounds.history import anchor_path
from tests.core.helpers import cli, cli_json, ready_project, run_round


def three_neutral_rounds(tmp_path: Path) -> Path:
    root = ready_project(tmp_path)
    header = "workspace/kernel/fa_kernel.h"
    for preload in (5, 6, 7):
        edit = (header, f"kFaQkPreload = {preload - 1}", f"kFaQkPreload = {preload}")
        assert run_round(root, "120,121,119", hypothesis=f"preload {preload}", edit=edit) == 0
    return root


def log_lines(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / "runs/closed.log").read_text().splitlines()]


def test_every_close_is_logged_with_the_hash_of_its_record(tmp_path: Path) -> None:
    root = three_neutral_rounds(tmp_path)
    lines = log_lines(root)
    assert [(x["round"], x["event"], x["verdict"]) for x in lines] == [
        (0, "closed", "baseline"),
        (1, "closed", "neutral"),
        (2, "closed", "neutral"),
        (3, "closed", "neutral"),
    ]
    assert all(len(str(x["sha256"])) == 64 and x["median_us"] for x in lines)


def test_a_verdict_rewritten_by_hand_is_tampered_and_counted_as_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = three_neutral_rounds(tmp_path)
    path = root / "runs/iter-002/round.toml"
    path.write_text(path.read_text().replace('verdict = "neutral"', 'verdict = "kept"'))
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict)
    assert status["counts"]["kept"] == 0 and status["counts"]["neutral"] == 3
    assert status["three_round_rule"] is True and status["frontier_round"] == 0
    assert "verdict: 'neutral' as closed, now 'kept'" in status["tampered_rounds"]["2"]
    rounds = cli_json(capsys, "--project", root, "rounds")
    assert isinstance(rounds, dict)
    marks = {r["round"]: r["tampered"] for r in rounds["rounds"]}
    assert marks[2] and not marks[1] and rounds["rounds"][2]["verdict"] == "neutral"
    shown = cli_json(capsys, "--project", root, "show", "2")
    assert isinstance(shown, dict) and shown["tampered"] and shown["record"]["verdict"] == "neutral"
    # the text views carry a visible mark
    for command in (("status",), ("rounds",), ("show", "2")):
        capsys.readouterr()
        assert cli("--project", root, *command) == 0
        assert "!tampered" in capsys.readouterr().out, command


def test_a_removed_round_folder_still_counts_as_it_was_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = three_neutral_rounds(tmp_path)
    shutil.rmtree(root / "runs/iter-003")
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict)
    assert status["counts"]["neutral"] == 3 and status["three_round_rule"] is True
    assert "runs/iter-003/round.toml is gone" in status["tampered_rounds"]["3"][0]
    shown = cli_json(capsys, "--project", root, "show", "3")
    assert isinstance(shown, dict) and shown["record"]["verdict"] == "neutral"


def test_an_iterations_row_edited_by_hand_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = three_neutral_rounds(tmp_path)
    table = root / "ITERATIONS.md"
    table.write_text(table.read_text().replace("| neutral", "| kept", 1))
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict) and status["counts"]["kept"] == 0
    assert any("ITERATIONS.md row of iter-001" in n for n in status["notices"])


def test_an_amendment_appends_and_is_not_tampering(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = three_neutral_rounds(tmp_path)
    args = ("--project", root, "amend", "1", "--field", "analysis", "--value", "re-read the log")
    assert cli(*args, "--why", "the analysis named the wrong tile") == 0
    assert log_lines(root)[-1]["event"] == "amended"
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict) and status["tampered_rounds"] == {}


def test_a_project_from_before_the_log_starts_it_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = three_neutral_rounds(tmp_path)
    (root / "runs/closed.log").unlink()
    (root / ".pto-tui/closed-log-started").unlink()
    anchor_path(root).unlink()  # a project from before the log was never anchored either
    first = cli_json(capsys, "--project", root, "status")
    assert isinstance(first, dict) and first["tampered_rounds"] == {}
    assert any("begun from the 4 closed round(s)" in n for n in first["notices"])
    # the rounds as found, and the torch baseline as found (none here)
    assert [x["event"] for x in log_lines(root)] == ["started"] * 4 + ["torch"]
    second = cli_json(capsys, "--project", root, "status")
    assert isinstance(second, dict) and second["notices"] == []


def test_a_deleted_log_is_not_silently_begun_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = three_neutral_rounds(tmp_path)
    (root / "runs/closed.log").unlink()
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict)
    assert sorted(status["tampered_rounds"]) == ["0", "1", "2", "3"]
    assert any("closed.log is gone" in n for n in status["notices"])


def test_the_tui_rounds_table_marks_a_tampered_round(tmp_path: Path) -> None:
    from pto_tui.core.campaign.campaign import Campaign
    from pto_tui.tui.widgets.rounds_rows import verdict_cell as _verdict_cell

    root = three_neutral_rounds(tmp_path)
    path = root / "runs/iter-001/round.toml"
    path.write_text(path.read_text().replace('verdict = "neutral"', 'verdict = "kept"'))
    with Campaign(root) as campaign:
        cells = [_verdict_cell(r).plain for r in campaign.rounds()]
    assert cells[1] == "= neutral !tampered" and "!tampered" not in cells[2]
