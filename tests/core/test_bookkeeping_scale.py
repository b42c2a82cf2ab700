"""One round's bookkeeping does not grow with the campaign: against real project files,
the round.toml files parsed, the round.toml files looked at and the ITERATIONS.md writes
of a round (start, changes, measure, close) are the same at 10 rounds and at 200; and the
records stay the source of truth: a round.toml edited behind the index's back is still
marked tampered."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import pto_tui.core.rounds.ledger_markdown as markdown_module
from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.rounds.records import Measurement
from pto_tui.core.rounds.render import render_iterations
from tests.core.helpers import cli, cli_json
from tests.core.test_read_model import ParseSpy, pre_edit, project_with_rounds


class DiskSpy:
    """Counts the round.toml files stat-ed and the rewrites of ITERATIONS.md."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.stats: Counter[str] = Counter()
        self.iterations_writes = 0
        real_stat = os.stat
        real_write = atomic_write_text  # what ledger_markdown writes ITERATIONS.md with

        def counting_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            if str(path).endswith("round.toml"):
                self.stats[str(path)] += 1
            return real_stat(path, *args, **kwargs)

        def counting_write(path: Path, text: str, scratch: Path | None = None) -> None:
            self.iterations_writes += path.name == "ITERATIONS.md"
            real_write(path, text, scratch)

        monkeypatch.setattr(os, "stat", counting_stat)
        monkeypatch.setattr(markdown_module, "atomic_write_text", counting_write)

    def reset(self) -> None:
        self.stats.clear()
        self.iterations_writes = 0


def one_round(campaign: Campaign) -> None:
    pre = pre_edit()
    pre.bottleneck_recheck, pre.new_direction = "still the tile shape", "larger K tiles"
    campaign.start_round(StartRequest(pre, title="bigger tiles"))
    campaign.record_changes(ChangesRequest(description="nothing changed yet"))
    campaign.record_measurement(Measurement(build="ok", correctness="pass", samples_us=[50.0, 50.1, 49.9]))
    campaign.close_round(CloseRequest(analysis="see numbers", next_step="continue"))


def counts_of_one_round(tmp_path: Path, count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """(round.toml parses, round.toml files looked at, ITERATIONS.md writes) of the second
    round of a campaign kept open (the first pays the command's one read of the index)."""
    root = project_with_rounds(tmp_path / f"rounds-{count}", count)
    with Campaign(root, write=True) as campaign:
        one_round(campaign)
        parses, disk = ParseSpy(monkeypatch), DiskSpy(monkeypatch)
        one_round(campaign)
        # (the new round's folder, written whole under a hidden name before it is shown,
        # is part of writing it, not a look at the ledger)
        looked_at = [p for p in disk.stats if "/runs/iter-" in p]
        counted = (sum(parses.parsed.values()), len(looked_at), disk.iterations_writes)
        monkeypatch.undo()
        # the rounds and ITERATIONS.md are what reading every file again gives
        assert [r.number for r in campaign.rounds()] == list(range(count + 3))
        assert campaign.status().problems.notices == []
    return counted


def test_one_rounds_bookkeeping_does_not_grow_with_the_campaign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    few = counts_of_one_round(tmp_path, 10, monkeypatch)
    many = counts_of_one_round(tmp_path, 200, monkeypatch)
    assert few == many
    parses, looked_at, iterations_writes = many
    assert parses <= 4  # each write keeps the record it wrote, parsed from its own text
    assert looked_at <= 3  # the open round and iter-000, never the closed rounds
    assert iterations_writes == 0  # the closed round's row is appended, the file never rewritten


def test_iterations_md_gets_only_the_changed_row(tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 5)
    with Campaign(root, write=True) as campaign:
        campaign.ledger.write_iterations(campaign.rounds(), None)
        before = (root / "ITERATIONS.md").read_text()
        one_round(campaign)
        after = (root / "ITERATIONS.md").read_text()
        assert after.startswith(before) and after.count("\n") == before.count("\n") + 1
        assert after.splitlines()[-1].startswith("| 6 | bigger tiles |")
        # the appended file is exactly what rendering every round gives
        rendered = render_iterations(campaign.rounds(), None)
    assert after == rendered


def test_a_record_edited_behind_the_index_is_still_tampered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 12)
    assert cli("--project", root, "status") == 0  # the index now holds every round
    with Campaign(root, write=True) as campaign:
        one_round(campaign)  # a write campaign that sealed the closed rounds
        path = root / "runs/iter-005/round.toml"
        path.write_text(path.read_text().replace('title = "idea 5"', 'title = "better idea"'))
        one_round(campaign)  # writes do not look at sealed rounds: the rules use them as closed
        assert campaign.round(5).tampered  # a read looks, and marks it
    capsys.readouterr()
    for command in (["status", "--json"], ["rounds", "--json"], ["show", "5", "--json"]):
        data: Any = cli_json(capsys, "--project", root, *command)
        text = str(data)
        assert "better idea" in text and "idea 5" in text, command
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    assert "!tampered iter-005" in capsys.readouterr().out
    assert cli("--project", root, "show", "5") == 0
    assert "!tampered iter-005" in capsys.readouterr().out


@pytest.mark.parametrize("table", ["[1, 2]", '{"ITERATIONS.md": 3}', '"x"'])
def test_a_rendered_files_table_that_is_not_one_owns_nothing(tmp_path: Path, table: str) -> None:
    """.pto-tui/rendered.json holds the hashes of the files pto-tui last wrote; anything
    else there (a hand edit, a half-written file from another tool) claims no file: the
    next write treats ITERATIONS.md as edited by hand, keeps every line and adds the row."""
    root = project_with_rounds(tmp_path, 2)
    iterations = root / "ITERATIONS.md"
    iterations.write_text(iterations.read_text() + "a note kept by hand\n")
    (root / ".pto-tui" / "rendered.json").write_text(table)
    with Campaign(root, write=True) as campaign:
        one_round(campaign)
    text = iterations.read_text()
    assert "a note kept by hand" in text
    assert text.splitlines()[-1].startswith("| 3 | bigger tiles |")
