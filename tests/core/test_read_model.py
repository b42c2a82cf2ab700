"""The campaign's read model of the ledger, against real project files: a campaign kept
open parses a round.toml only when it wrote it or the file changed on disk, and still
sees what a person or an agent changed in runs/ by hand."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import pto_tui.core.rounds.ledger as ledger_module
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.record_toml import round_from_dict
from pto_tui.core.rounds.records import CLOSED, ChecklistItem, Measurement, PreEdit, Round
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST, Verdict
from tests.core.helpers import cli_json, read_every_round, ready_project, run_round


class ParseSpy:
    """Counts the round records parsed (by round number) and the round.toml files read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsed: Counter[int] = Counter()
        self.files_read = 0
        real_parse = round_from_dict  # what the ledger calls, counted below
        real_load = Ledger.load

        def counting_parse(data: dict[str, Any]) -> Round:
            self.parsed[int(data["number"])] += 1
            return real_parse(data)

        def counting_load(ledger: Ledger, number: int) -> Round:
            self.files_read += 1
            return real_load(ledger, number)

        monkeypatch.setattr(ledger_module, "round_from_dict", counting_parse)
        monkeypatch.setattr(Ledger, "load", counting_load)

    def reset(self) -> None:
        self.parsed.clear()
        self.files_read = 0


def project_with_rounds(tmp_path: Path, count: int) -> Path:
    """A ready project with `count` closed rounds after the baseline, each one kept and
    a little faster than the last, written as real round.toml files."""
    root = ready_project(tmp_path)
    ledger = Ledger(ProjectLayout(root))
    baseline = ledger.load(0)
    for n in range(1, count + 1):
        speed = 100.0 - n * 0.5
        ledger.save(
            Round(
                number=n,
                status=CLOSED,
                phase="fine-tune",
                title=f"idea {n}",
                pre_edit=PreEdit(hypothesis=f"idea {n}", bottleneck="bad tile shape"),
                measurement=Measurement(
                    build="ok",
                    correctness="pass",
                    samples_us=[speed, speed + 0.1, speed - 0.1],
                    fingerprint=baseline.measurement.fingerprint,
                ),
                verdict=Verdict.KEPT,
                verdict_reason="synthetic",
                snapshot=baseline.snapshot,
                base_snapshot=baseline.snapshot,
            )
        )
    project = ProjectFile(root / "project.toml")
    project.set("state.last_round", count)
    project.save()
    return root


def pre_edit() -> PreEdit:
    return PreEdit(
        kernel="fa S1=1024",
        bottleneck="bad tile shape",
        evidence="costmodel: TMATMUL 128x64x128 costs fewer cycles per FLOP",
        hypothesis="bigger tiles cut reloads",
        why_ascend="fewer GM->UB reloads per output tile on Ascend",
        expected_metric="duration_us",
        main_risk="UB overflow",
        correctness_plan="binary prints test success against the golden data",
        checklist={key: ChecklistItem(True, "checked for this round") for key in HARDWARE_CHECKLIST},
        scope=["workspace/**"],
    )


def one_round(campaign: Campaign) -> Round:
    """Start, change, measure and close one round through the campaign's own calls."""
    campaign.start_round(StartRequest(pre_edit(), title="bigger tiles"))
    campaign.record_changes(ChangesRequest(description="nothing changed yet"))
    campaign.record_measurement(
        Measurement(build="ok", correctness="pass", samples_us=[50.0, 50.1, 49.9])
    )
    return campaign.close_round(CloseRequest(analysis="see numbers", next_step="continue"))


def bookkeeping_parses(
    tmp_path: Path, count: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[int, Counter[int]], Round]:
    root = project_with_rounds(tmp_path / f"rounds-{count}", count)
    spy = ParseSpy(monkeypatch)
    with Campaign(root, write=True) as campaign:
        assert len(campaign.rounds()) == count + 1
        # the first read parses every round written behind the index once; iter-000 was
        # indexed by the `baseline` command that wrote it
        assert spy.files_read == count
        spy.reset()
        campaign.status()
        assert spy.files_read == 0 and not spy.parsed
        record = one_round(campaign)
        campaign.status()
        counted = (spy.files_read, Counter(spy.parsed))
        # the model after these writes is what a fresh read of the files gives
        fresh, problems = read_every_round(campaign.layout)
        assert campaign.rounds() == fresh
        assert campaign.problems == problems
    monkeypatch.undo()
    return counted, record


def test_status_and_a_round_parse_only_the_round_they_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (few_files, few_parsed), few_record = bookkeeping_parses(tmp_path, 3, monkeypatch)
    (many_files, many_parsed), many_record = bookkeeping_parses(tmp_path, 30, monkeypatch)
    assert few_record.verdict is Verdict.KEPT and many_record.verdict is Verdict.KEPT
    # no round.toml is read back from disk: each of the four writes (start, changes,
    # measure, close) keeps the record it wrote, parsed from the text it wrote
    assert few_files == many_files == 0
    assert set(few_parsed) == {few_record.number}
    assert set(many_parsed) == {many_record.number}
    assert few_parsed[few_record.number] == many_parsed[many_record.number] <= 4


def test_a_round_edited_by_hand_is_seen_by_the_next_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project_with_rounds(tmp_path, 3)
    spy = ParseSpy(monkeypatch)
    path = root / "runs/iter-002/round.toml"
    with Campaign(root, write=True) as campaign:
        assert campaign.round(2).title == "idea 2"
        campaign.rounds()
        spy.reset()
        path.write_text(path.read_text().replace('"idea 2"', '"tried by hand"', 1))
        # the edit is seen, and since round 2 is closed it is marked tampered: the round
        # is used as it was closed (runs/closed.log)
        edited = campaign.rounds()[2]
        assert edited.title == "idea 2" and "title" in edited.tampered[0]
        assert "tried by hand" in edited.tampered[0]
        assert campaign.round(2).tampered == edited.tampered
        assert spy.files_read == 1  # only the edited file is parsed again
        # a hand edit that breaks the record is reported as a fresh read reports it
        path.write_text(path.read_text() + "\nnot toml at all\n")
        rounds = campaign.rounds()
        fresh_rounds, fresh_problems = read_every_round(campaign.layout)
        assert [r.number for r in fresh_rounds] == [0, 1, 3]
        assert [r.number for r in rounds] == [0, 1, 2, 3] and rounds[2].tampered
        assert campaign.problems == fresh_problems and len(fresh_problems.unreadable) == 1
        assert campaign.status().problems.unreadable == fresh_problems.unreadable


def test_records_handed_out_are_the_callers_to_change(tmp_path: Path) -> None:
    root = project_with_rounds(tmp_path, 2)
    with Campaign(root) as campaign:
        campaign.rounds()[1].title = "changed in memory"
        campaign.round(2).verdict = Verdict.FAILURE
        assert campaign.round(1).title == "idea 1"
        assert campaign.status().counts["kept"] == 2


def test_a_deleted_round_folder_is_reported_and_kept_as_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    header = "workspace/kernel/fa_kernel.h"
    for preload, samples in ((5, "90,91,89"), (6, "80,81,79"), (7, "70,71,69")):
        edit = (header, f"kFaQkPreload = {preload - 1}", f"kFaQkPreload = {preload}")
        assert run_round(root, samples, hypothesis=f"preload {preload}", edit=edit) == 0
    with Campaign(root, write=True) as campaign:
        assert [r.number for r in campaign.rounds()] == [0, 1, 2, 3]
        assert campaign.status().problems.missing == []
        # a gap in the numbering and the newest folder both removed by hand
        shutil.rmtree(root / "runs/iter-001")
        shutil.rmtree(root / "runs/iter-003")
        status = campaign.status(campaign.rounds())
        # the closed rounds stay in the campaign as they were closed, marked tampered
        assert [r.number for r in campaign.rounds()] == [0, 1, 2, 3]
        assert status.problems.missing == [1, 3]
        assert sorted(status.tampered) == [1, 3] and "is gone" in status.tampered[3][0]
        assert campaign.status().frontier_round == 3
        assert campaign.round(3).tampered
        with pytest.raises(InputError, match="no round 4"):
            campaign.round(4)
    # a fresh campaign (the CLI) reports the same
    status_json = cli_json(capsys, "--project", str(root), "status")
    assert isinstance(status_json, dict) and status_json["missing_rounds"] == [1, 3]
    assert sorted(status_json["tampered_rounds"]) == ["1", "3"]
