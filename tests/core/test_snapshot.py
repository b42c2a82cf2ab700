"""What a whole read found, kept for the next command (.pto-tui/rounds-snapshot.json):
`status` and one round's bookkeeping through the CLI take it instead of reading every
round, give what a whole read gives, and a hand edit made since is still seen."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import pto_tui.core.campaign.round_index as index_module
import pto_tui.core.campaign.snapshot_reads as snapshot_reads_module
import pto_tui.core.rounds.ledger as ledger_module
from pto_tui.core.campaign.rows_cache import ROWS_FILE
from pto_tui.core.campaign.snapshot import SNAPSHOT_FILE
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.records import Round
from tests.core.helpers import cli, cli_json, pre_edit_args
from tests.core.test_read_model import project_with_rounds


class Reads:
    """Counts what a command reads of the rounds: whole listings of runs/ with every
    round.toml's stamp, round.toml files parsed, and records decoded (from any cache)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.listings = 0
        self.files = 0
        self.decoded: Counter[int] = Counter()
        real_stamps, real_load = Ledger.stamps, Ledger.load

        def stamps(ledger: Ledger) -> Any:
            self.listings += 1
            return real_stamps(ledger)

        def load(ledger: Ledger, number: int) -> Round:
            self.files += 1
            return real_load(ledger, number)

        monkeypatch.setattr(Ledger, "stamps", stamps)
        monkeypatch.setattr(Ledger, "load", load)
        for module in (index_module, snapshot_reads_module, ledger_module):
            real = module.round_from_dict

            def decode(data: dict[str, Any], real: Any = real) -> Round:
                self.decoded[int(data["number"])] += 1
                return real(data)

            monkeypatch.setattr(module, "round_from_dict", decode)

    def reset(self) -> None:
        self.listings = self.files = 0
        self.decoded.clear()


HEADER = "workspace/kernel/fa_kernel.h"


def a_round(root: Path, samples: str, correctness: str = "pass") -> int:
    """One round through the CLI (start, changes, measure, close), its edit the next
    preload value from the workspace as it is; a failed correctness has no samples."""
    args = ("--project", root, "round")
    assert cli(*args, "start", *pre_edit_args("a preload", scope=(HEADER,))) == 0
    path = root / HEADER
    now = int(path.read_text().split("kFaQkPreload = ")[1].split(";")[0])
    path.write_text(path.read_text().replace(f"kFaQkPreload = {now}", f"kFaQkPreload = {now + 1}"))
    assert cli(*args, "changes") == 0
    measured = ["--samples", samples] if correctness == "pass" else []
    assert cli(*args, "measure", "--build", "ok", "--correctness", correctness, *measured) == 0
    return cli(*args, "close", "--analysis", "see numbers", "--next", "continue")


def status(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, Any]:
    data: dict[str, Any] = cli_json(capsys, "--project", root, "status")
    data.pop("last_write")  # who wrote last: the commands of this test, in turn
    return data


def whole(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, Any]:
    """`status` from a whole read (the snapshot forgotten first)."""
    (root / ".pto-tui" / SNAPSHOT_FILE).unlink(missing_ok=True)
    return status(capsys, root)


def test_status_takes_the_snapshot_and_says_what_a_whole_read_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 12)
    first = status(capsys, root)  # a whole read: it makes the snapshot
    assert (root / ".pto-tui" / SNAPSHOT_FILE).is_file()
    with pytest.MonkeyPatch.context() as patch:
        reads = Reads(patch)
        assert status(capsys, root) == first
    # no listing of every round.toml, no file parsed, only the working set decoded
    assert reads.listings == 0 and reads.files == 0
    assert 0 < len(reads.decoded) < 6 and set(reads.decoded) >= {0, 12}
    for samples, correctness in (("50,50.1,49.9", "pass"), ("99,99.1,98.9", "pass"),
                                 ("40,40.1,39.9", "fail"), ("49,49.1,48.9", "pass")):
        assert a_round(root, samples, correctness) == 0
        kept = status(capsys, root)  # the snapshot the writes kept up to date
        assert kept == whole(capsys, root)
    assert kept["counts"]["failure"] == 1 and kept["frontier_round"] == 16


def test_one_round_through_the_cli_reads_the_same_at_any_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = []
    for count in (8, 60):
        root = project_with_rounds(tmp_path / str(count), count)
        status(capsys, root)
        with pytest.MonkeyPatch.context() as patch:
            reads = Reads(patch)
            assert a_round(root, "50,50.1,49.9") == 0
        seen.append((reads.listings, reads.files, sum(reads.decoded.values())))
        assert status(capsys, root) == whole(capsys, root)
    assert seen[0] == seen[1] and seen[0][:2] == (0, 0)


def test_a_hand_edit_since_the_snapshot_is_seen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project_with_rounds(tmp_path, 6)
    assert a_round(root, "50,50.1,49.9") == 0
    status(capsys, root)
    notes = root / "runs" / "iter-007" / "notes.md"
    notes.write_text(notes.read_text() + "\nrewritten by hand\n")
    found = status(capsys, root)
    assert any("notes.md changed" in why for why in found["tampered_rounds"]["7"])
    record = root / "runs" / "iter-003" / "round.toml"
    record.write_text(record.read_text().replace('verdict = "kept"', 'verdict = "failure"'))
    found = status(capsys, root)
    assert "verdict: 'kept' as closed, now 'failure'" in found["tampered_rounds"]["3"]
    assert found == whole(capsys, root)


def test_a_round_outside_the_working_set_is_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 10)
    status(capsys, root)
    shown = cli_json(capsys, "--project", root, "round", "start", "--based-on", "3",
                     *pre_edit_args(scope=(HEADER,)))
    assert shown["changes"]["based_on"] == 3
    assert status(capsys, root) == whole(capsys, root)


def test_a_campaign_with_a_problem_keeps_no_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 5)
    status(capsys, root)
    (root / "runs" / "iter-002" / "round.toml").write_text("not toml at all\n")
    for _again in range(2):  # named at every command, as a whole read names it
        found = status(capsys, root)
        assert len(found["unreadable_rounds"]) == 1
        assert not (root / ".pto-tui" / SNAPSHOT_FILE).exists()
    assert cli("--project", root, "status") == 0


def test_show_and_the_newest_rounds_take_the_snapshot_and_match_the_whole_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 9)
    assert a_round(root, "50,50.1,49.9") == 0
    record = root / "runs" / "iter-008" / "round.toml"
    record.write_text(record.read_text().replace('title = "', 'title = "edited '))
    table = cli_json(capsys, "--project", root, "rounds")  # a whole read: the snapshot made
    assert [r["round"] for r in table["rounds"] if r["tampered"]] == [8]
    with pytest.MonkeyPatch.context() as patch:
        reads = Reads(patch)
        newest = cli_json(capsys, "--project", root, "rounds", "--limit", "3")
        since = cli_json(capsys, "--project", root, "rounds", "--since", "7", "--limit", "2")
        shown = [cli_json(capsys, "--project", root, "show", str(n)) for n in (8, 10, 2)]
    assert reads.listings == 0 and reads.files == 0
    assert newest["rounds"] == table["rounds"][-3:] and since["rounds"] == table["rounds"][7:9]
    assert {k: v for k, v in newest.items() if k != "rounds"} == {
        k: v for k, v in table.items() if k != "rounds"}
    (root / ".pto-tui" / SNAPSHOT_FILE).unlink()
    assert shown == [cli_json(capsys, "--project", root, "show", str(n)) for n in (8, 10, 2)]
    assert shown[0]["tampered"] and shown[0]["record"]["title"] == "idea 8"


def test_rounds_limit_and_since_are_checked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 2)
    for bad in (("--limit", "0"), ("--limit", "x"), ("--since", "-1")):
        with pytest.raises(SystemExit) as done:
            cli("--project", root, "rounds", *bad)
        assert done.value.code == 2 and "expected" in capsys.readouterr().err


def rounds_text(capsys: pytest.CaptureFixture[str], root: Path) -> str:
    capsys.readouterr()
    assert cli("--project", root, "rounds", "--json") == 0
    return capsys.readouterr().out


def test_the_whole_table_is_written_from_the_kept_rows_as_a_whole_read_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 6)
    assert a_round(root, "50,50.1,49.9") == 0
    record = root / "runs" / "iter-004" / "round.toml"
    record.write_text(record.read_text().replace('title = "', 'title = "edited '))
    whole_text = rounds_text(capsys, root)  # no snapshot yet: every round read
    assert '"tampered": ["title:' in whole_text
    built = rounds_text(capsys, root)  # the rows kept, made now
    assert (root / ".pto-tui" / ROWS_FILE).is_file() and built == whole_text
    with pytest.MonkeyPatch.context() as patch:
        reads = Reads(patch)
        assert rounds_text(capsys, root) == whole_text
    assert reads.listings == reads.files == 0 and len(reads.decoded) < 6
    for samples in ("60,60.1,59.9", "45,45.1,44.9"):  # the rows of each write appended
        assert a_round(root, samples) == 0
        kept = rounds_text(capsys, root)
        (root / ".pto-tui" / SNAPSHOT_FILE).unlink()
        assert kept == rounds_text(capsys, root)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_csv_or_json_export_is_written_from_the_kept_rows_as_from_the_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    root = project_with_rounds(tmp_path, 6)
    assert a_round(root, "50,50.1,49.9") == 0

    def export() -> str:
        capsys.readouterr()
        assert cli("--project", root, "export", "--format", fmt) == 0
        return capsys.readouterr().out

    (root / ".pto-tui" / SNAPSHOT_FILE).unlink()
    from_records = export()  # no snapshot: every round read
    assert "idea" in from_records or "round" in from_records
    assert export() == from_records  # the rows kept, made now
    with pytest.MonkeyPatch.context() as patch:
        reads = Reads(patch)
        assert export() == from_records
    assert reads.listings == reads.files == 0 and len(reads.decoded) < 6


def test_a_predicting_campaign_names_each_rounds_change_against_the_round_it_was_based_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with_rounds(tmp_path, 4)
    ledger = Ledger(ProjectLayout(root))
    for n in range(5):  # perf_sim's cycles recorded beside each measurement, each round on the last
        record = ledger.load(n)
        record.measurement.predicted_cycles = 1000 - 10 * n
        record.changes.based_on = n - 1 if n else None
        ledger.save(record)
    whole_text = rounds_text(capsys, root)
    table = json.loads(whole_text)
    assert [r["predicted_change"] for r in table["rounds"]][:2] == [None, pytest.approx(990 / 1000 - 1)]
    assert table["rounds"][4]["measured_change"] == pytest.approx(98.0 / 98.5 - 1)
    assert rounds_text(capsys, root) == whole_text == rounds_text(capsys, root)  # snapshot kept
    newest = cli_json(capsys, "--project", root, "rounds", "--limit", "2")
    assert newest["rounds"] == table["rounds"][-2:]
