"""Jobs left running belong to a round by their records' round_number, also records written
before that field was kept (read from their names as then); what the Run pane says of them.
Real job records and a real sample journal in a real project."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pto_tui.backends.sample_journal import SampleJournal
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.records import Measurement
from pto_tui.jobs.model import RECORD_FILE, JobRecord, JobState, save_record
from pto_tui.tui.screens.round_detail import round_jobs
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.widgets.left_running import (
    ended_note,
    kept_step_of_round,
    left_over_text,
    unfinished_of_open_round,
)
from tests.tui.projects import pre_edit_flags, run


def job(root: Path, job_id: str, name: str, round_number: int | None, *,
        state: JobState = JobState.RUNNING, legacy: bool = False, at: float = 0.0) -> JobRecord:
    """A job record on disk; legacy: written as before records kept round_number."""
    record = JobRecord(id=job_id, command="true", target="local", state=state, name=name,
                       detached=True, submitted_at=at or time.time(), round_number=round_number)
    folder = root / ".pto-tui" / "jobs" / job_id
    save_record(folder, record)
    if legacy:
        data = json.loads((folder / RECORD_FILE).read_text())
        del data["round_number"]
        (folder / RECORD_FILE).write_text(json.dumps(data))
    return record


def load(root: Path) -> LoadedProject:
    session = Session(root)
    try:
        return session.load()
    finally:
        session.campaign.close()


def test_jobs_of_the_open_round_by_their_records(fresh_root: Path) -> None:
    run("--project", str(fresh_root), "round", "start", *pre_edit_flags("bigger tile"))
    now = time.time()
    kept = job(fresh_root, "a", "iter-001 build", 1, at=now)
    old = job(fresh_root, "b", "iter-001 benchmark 1/3", None, state=JobState.LOST, legacy=True,
              at=now + 1)
    other = job(fresh_root, "c", "iter-000 build", 0, at=now + 2)
    named_like_one = job(fresh_root, "d", "iter-001 by hand", None, at=now + 3)
    loaded = load(fresh_root)
    assert loaded.open_round is not None and loaded.open_round.number == 1
    by_id = {record.id: record for record in loaded.jobs}

    assert kept_step_of_round(by_id[kept.id], loaded)
    assert kept_step_of_round(by_id[old.id], loaded)  # its name says so, as it did then
    assert not kept_step_of_round(by_id[other.id], loaded)
    assert not kept_step_of_round(by_id[named_like_one.id], loaded)  # its record says: none
    assert [r.id for r in round_jobs(loaded.jobs, 1)] == [kept.id, old.id]

    assert "r runs the round again" in ended_note(by_id[kept.id])
    assert ended_note(by_id[named_like_one.id]) == "iter-001 by hand ended: running"


def test_an_unfinished_round_run_names_its_lost_job(fresh_root: Path) -> None:
    run("--project", str(fresh_root), "round", "start", *pre_edit_flags("bigger tile"))
    journal = SampleJournal.begin(ProjectLayout(fresh_root), 1, 3)
    journal.write(Measurement(build="ok", correctness="pass", samples_us=[90.0]))
    now = time.time()
    job(fresh_root, "a", "iter-001 build", 1, state=JobState.SUCCEEDED, at=now)
    job(fresh_root, "b", "iter-001 benchmark 2/3", None, state=JobState.LOST, legacy=True, at=now + 1)
    job(fresh_root, "c", "command", None, state=JobState.SUCCEEDED, at=now + 2)
    loaded = load(fresh_root)
    assert unfinished_of_open_round(loaded) is not None
    text = left_over_text(loaded, [], running=False)
    assert text is not None
    assert ("iter-001 lost: job iter-001 benchmark 2/3 (b) is gone; 1 of 3 samples recorded"
            in text.plain)
    assert left_over_text(loaded, [], running=True) is None  # a run going on says the rest


def test_a_load_shares_the_closed_records_and_copies_the_open_round(fresh_root: Path) -> None:
    """The app holds every closed round once (the read model's record, which nothing
    changes), and its own copy of an open round, which forms fill in."""
    run("--project", str(fresh_root), "round", "start", *pre_edit_flags("bigger tile"))
    session = Session(fresh_root)
    try:
        project = session.load()
        held = {r.number: r for r in session.campaign.current_rounds()}
        open_round = project.open_round
        assert open_round is not None and not open_round.is_closed
        assert open_round is not held[open_round.number]
        open_round.pre_edit.hypothesis = "changed in a form"
        assert held[open_round.number].pre_edit.hypothesis == "bigger tile"
        closed = [r for r in project.rounds if r.is_closed]
        assert closed and all(r is held[r.number] for r in closed)
    finally:
        session.campaign.close()
