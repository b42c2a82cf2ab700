"""The rounds index beside the records: a later command reads the ledger without parsing
the round.toml files again, a file changed by hand is parsed anew, and a broken index is
rebuilt, never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.round_index import INDEX_FILE
from tests.core.helpers import read_every_round
from tests.core.test_read_model import ParseSpy, project_with_rounds


def _rounds_and_files_read(root: Path, spy: ParseSpy) -> tuple[list[object], int]:
    spy.reset()
    with Campaign(root) as campaign:  # a new command: a new read model
        rounds = campaign.rounds()
    return list(rounds), spy.files_read


def test_a_second_command_reads_the_index_not_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project_with_rounds(tmp_path, 20)
    spy = ParseSpy(monkeypatch)
    first, read = _rounds_and_files_read(root, spy)
    # the 20 rounds written behind the index; iter-000 was indexed by `baseline`, which wrote it
    assert read == 20 and (root / ".pto-tui" / INDEX_FILE).is_file()
    second, read = _rounds_and_files_read(root, spy)
    assert read == 0 and second == first
    fresh, _problems = read_every_round(Campaign(root).layout)
    assert second == fresh  # the same records the files give


def test_a_file_changed_by_hand_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_with_rounds(tmp_path, 5)
    spy = ParseSpy(monkeypatch)
    _rounds_and_files_read(root, spy)
    notes = root / "runs" / "iter-003" / "round.toml"
    notes.write_text(notes.read_text().replace('title = "', 'title = "edited '))
    rounds, read = _rounds_and_files_read(root, spy)
    assert read == 1
    # read anew: the closed round's edit is seen (and shown as tampered, kept as closed)
    tampered = rounds[3].tampered  # type: ignore[attr-defined]
    assert tampered == ["title: 'idea 3' as closed, now 'edited idea 3'"]


BROKEN = ["{not json", '{"version": 99, "rounds": {}}', '{"version": 1, "rounds": 3}']


@pytest.mark.parametrize("broken", BROKEN)
def test_a_broken_index_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    root = project_with_rounds(tmp_path, 4)
    spy = ParseSpy(monkeypatch)
    expected, _read = _rounds_and_files_read(root, spy)
    (root / ".pto-tui" / INDEX_FILE).write_text(broken)
    rounds, read = _rounds_and_files_read(root, spy)
    assert read == 5 and rounds == expected
    _again, read = _rounds_and_files_read(root, spy)
    assert read == 0
