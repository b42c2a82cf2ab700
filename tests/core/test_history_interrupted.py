"""A close cut short between its writes (a crash, a full disk) leaves no false break in
the history: the anchor is told of a log line before it is written, so a line written but
not anchored is settled at the next read, and a round.toml written closed whose line never
reached the log gets its line, as pto-tui prepared it. The faults are injected where the
writes happen; everything else is the real CLI on a real project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.errors import DiskFullError
from pto_tui.core.rounds import closed_log, history
from pto_tui.core.rounds.history import anchor_path
from tests.core.helpers import cli, pre_edit_args, ready_project

MEASURE = ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "80,81,79")
CLOSE = ("round", "close", "--analysis", "faster", "--next", "go on")


def measured(tmp_path: Path) -> Path:
    """iter-001 measured (a clear gain), ready to close."""
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert cli(*p, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    justify = "a 128-wide tile halves the unified buffer each stage holds"
    assert cli(*p, "round", "changes", "--set", "TILE_S1=128", "--justify", justify) == 0
    assert cli(*p, *MEASURE) == 0
    return root


def status(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, Any]:
    capsys.readouterr()
    assert cli("--project", root, "status", "--json") == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def verify(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = cli("--project", root, "verify", "--json")
    return code, list(json.loads(capsys.readouterr().out)["breaks"])


def disk_full(*_args: object, **_kwargs: object) -> None:
    raise DiskFullError("no space left on the disk holding this file: nothing was written")


def test_the_anchor_not_moved_after_the_line_is_no_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills between the log line and the anchor's move: the close stands."""
    root = measured(tmp_path)
    real = history.write_anchor

    def pending_only(where: Path, anchor: history.Anchor) -> None:
        if anchor.pending is None:  # the move after the line: the disk is full now
            disk_full()
        real(where, anchor)

    with pytest.MonkeyPatch.context() as fault:
        fault.setattr(history, "write_anchor", pending_only)
        assert cli("--project", root, *CLOSE) == 0
    assert json.loads(anchor_path(root).read_text())["pending"]["round"] == 1  # not moved
    assert verify(capsys, root) == (0, [])  # the pending line is the log's head: settled
    st = status(capsys, root)
    assert st["tampered_rounds"] == {} and st["counts"]["kept"] == 1 and st["frontier_round"] == 1
    assert "pending" not in json.loads(anchor_path(root).read_text())  # moved by the read


def test_a_round_closed_whose_line_never_reached_the_log_gets_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """round.toml written closed, then the log line fails (a full disk, a crash): the next
    read appends the line the anchor kept, and nothing is named tampered or unverified."""
    root = measured(tmp_path)
    log = root / "runs" / "closed.log"
    lines_before = log.read_text().count("\n")
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as fault:
        fault.setattr(closed_log.ClosedLog, "write", disk_full)
        assert cli("--project", root, *CLOSE) == 1
    assert "no space left" in capsys.readouterr().err
    assert 'status = "closed"' in (root / "runs" / "iter-001" / "round.toml").read_text()
    assert log.read_text().count("\n") == lines_before  # the line is missing
    code, breaks = verify(capsys, root)
    assert code == 1 and any("iter-001 was cut short" in b and "a status here completes it" in b
                             for b in breaks), breaks
    st = status(capsys, root)
    assert st["tampered_rounds"] == {} and st["unverified_rounds"] == [], st
    assert st["counts"]["kept"] == 1 and st["frontier_round"] == 1
    assert log.read_text().count("\n") == lines_before + 1
    assert verify(capsys, root) == (0, [])


def test_a_close_cut_short_before_its_round_toml_leaves_the_round_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The anchor was told of the line, then round.toml could not be written: nothing
    closed, the round still open, no break; closing again works."""
    root = measured(tmp_path)
    from pto_tui.core.rounds import ledger

    real = ledger.Ledger._write

    def no_round_toml(self: ledger.Ledger, path: Path, text: str) -> None:
        if path.name == "round.toml" and 'status = "closed"' in text:
            disk_full()
        real(self, path, text)

    with pytest.MonkeyPatch.context() as fault:
        fault.setattr(ledger.Ledger, "_write", no_round_toml)
        assert cli("--project", root, *CLOSE) == 1
    assert json.loads(anchor_path(root).read_text())["pending"]["round"] == 1
    assert verify(capsys, root) == (0, [])
    st = status(capsys, root)
    assert st["tampered_rounds"] == {} and st["open_round"] == 1, st
    assert "pending" not in json.loads(anchor_path(root).read_text())  # dropped: never happened
    assert cli("--project", root, *CLOSE) == 0
    assert verify(capsys, root) == (0, [])
    assert status(capsys, root)["counts"]["kept"] == 1


def test_a_line_the_disk_cannot_hold_is_cut_back_off(tmp_path: Path) -> None:
    """Half a line would break the chain for ever: the file is as it was."""
    path = tmp_path / "closed.log"
    path.write_text('{"seq": 0}\n')
    log = closed_log.ClosedLog(path)

    class Full:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def tell(self) -> int:
            return int(self.handle.tell())

        def write(self, text: str) -> int:
            self.handle.write(text[: len(text) // 2])  # half of it went, then the disk filled
            self.handle.flush()
            raise OSError(28, "No space left on device")

        def flush(self) -> None: ...

    real_open = Path.open
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "open", lambda self, *a, **k: Full(real_open(self, *a, **k)))
        with pytest.raises(DiskFullError):
            log.append_line('{"seq": 1, "a long line": "' + "x" * 500 + '"}')
    assert path.read_text() == '{"seq": 0}\n'
