"""The index keeps what the last read of runs/closed.log found (each round's newest line
without its record, and the log's stamp): the next command takes it instead of decoding
the whole log while the log is unchanged, and gives the same rounds and tampered marks a
fresh read of the log gives; a log changed since, or a broken summary, is read again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.round_index import INDEX_FILE, LOG_FILE, SHARDS_DIR
from pto_tui.core.rounds import log_lines
from pto_tui.core.rounds.records import Round
from tests.core.test_read_model import project_with_rounds


class LogReads:
    """Counts the whole reads of runs/closed.log, and the reads of one entry's record."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self.records = 0
        real, real_record = log_lines.read_lines, log_lines.line_record

        def counting(path: Path, distrusted: frozenset[int] = frozenset(),
                     **options: bool) -> log_lines.LogRead:
            self.count += 1
            return real(path, distrusted, **options)

        def counting_record(path: Path, entry: log_lines.LogEntry) -> log_lines.LogEntry | None:
            self.records += 1
            return real_record(path, entry)

        monkeypatch.setattr(log_lines, "read_lines", counting)
        monkeypatch.setattr(log_lines, "line_record", counting_record)


def _read(root: Path) -> tuple[list[Round], dict[int, list[str]]]:
    with Campaign(root) as campaign:  # a new command: a new read model
        rounds = campaign.rounds()
        return rounds, campaign.status(rounds).tampered


def _index(root: Path) -> dict[str, object]:
    """The log's summary as the index keeps it, beside its shards."""
    data: dict[str, object] = json.loads((root / ".pto-tui" / SHARDS_DIR / LOG_FILE).read_text())
    return data


def test_an_unchanged_log_is_taken_from_the_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_with_rounds(tmp_path, 4)
    first = _read(root)
    summary = _index(root)["log"]
    assert isinstance(summary, dict) and sorted(summary["latest"]) == ["0", "1", "2", "3", "4"]
    reads = LogReads(monkeypatch)
    assert _read(root) == first and reads.count == 0


def test_a_tampered_round_reads_its_record_as_closed_from_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project_with_rounds(tmp_path, 4)
    _read(root)
    path = root / "runs" / "iter-002" / "round.toml"
    path.write_text(path.read_text().replace('verdict = "kept"', 'verdict = "neutral"'))
    reads = LogReads(monkeypatch)
    rounds, tampered = _read(root)
    # the record as closed is only in the log: its line is read, not the whole log
    assert (reads.count, reads.records) == (0, 1)
    assert tampered[2] == ["verdict: 'kept' as closed, now 'neutral'"]
    assert rounds[2].verdict is not None and rounds[2].verdict.value == "kept"
    monkeypatch.undo()
    (root / ".pto-tui" / INDEX_FILE).unlink()
    assert _read(root) == (rounds, tampered)  # what a read without any index gives


def test_a_log_changed_since_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_with_rounds(tmp_path, 3)
    _read(root)
    log = root / "runs" / "closed.log"
    lines = log.read_text().splitlines()
    forged = json.loads(lines[2])
    forged["sha256"] = "0" * 64  # round 2 logged again, as another text
    log.write_text("\n".join([*lines, json.dumps(forged, sort_keys=True)]) + "\n")
    reads = LogReads(monkeypatch)
    _rounds, tampered = _read(root)
    assert reads.count == 1 and list(tampered) == [2]


BROKEN: list[object] = [None, 3, {"stamp": [1, 2]}, {"stamp": "x", "latest": {}}, {"latest": []}]


@pytest.mark.parametrize("broken", BROKEN)
def test_a_broken_summary_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: object
) -> None:
    root = project_with_rounds(tmp_path, 3)
    expected = _read(root)
    index = _index(root)
    index["log"] = broken
    (root / ".pto-tui" / SHARDS_DIR / LOG_FILE).write_text(json.dumps(index))
    reads = LogReads(monkeypatch)
    assert _read(root) == expected and reads.count == 1
    summary = _index(root)["log"]
    assert isinstance(summary, dict) and len(summary["latest"]) == 4  # rebuilt from the log
