"""A coding agent and a person on one project: the agent writes with the real CLI (its own
processes) while the terminal application is open, and the app shows each write live.
Every write takes the project lock for itself alone, so writers never interleave."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Static

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rules.sequence import ONE_ROUND_AT_A_TIME
from pto_tui.tui.app import PtoApp
from pto_tui.tui.disk_watch import DiskWatch, describe_change
from tests.tui.keys import loaded, session_of, wait_for
from tests.tui.projects import pre_edit_flags
from tests.tui.text import static_text

REPO = Path(__file__).resolve().parents[2]


def agent(root: Path, *args: str) -> subprocess.Popen[str]:
    """`pto-tui --project root ...` as a separate process, as an agent would run it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def agent_run(root: Path, *args: str) -> None:
    process = agent(root, *args)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, f"pto-tui {' '.join(args)} failed:\n{out}{err}"


def record_notes(app: PtoApp) -> list[str]:
    """Every notification the app shows, from here on."""
    notes: list[str] = []
    shown = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        notes.append(message)
        shown(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return notes


async def test_the_app_shows_an_agents_round_as_it_goes(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        notes = record_notes(app)
        table = app.screen.query_one("#rounds-table", DataTable)
        rows = table.row_count

        await asyncio.to_thread(
            agent_run, fresh_root, "round", "start", *pre_edit_flags("agent: smaller tiles")
        )
        await wait_for(pilot, lambda: table.row_count == rows + 1, timeout=10)
        assert any("iter-001 changed on disk (pto-tui round start)" in n for n in notes)
        state = app.screen.query_one("#round-state", Static)
        await wait_for(pilot, lambda: "iter-001 is open" in static_text(state), timeout=5)

        for step in (("round", "changes", "--set", "kFaTileS1=128"),
                     ("round", "measure", "--build", "ok", "--correctness", "pass",
                      "--samples", "80,81,79")):
            await asyncio.to_thread(agent_run, fresh_root, *step)

            def noticed(s: tuple[str, ...] = step) -> bool:
                return any(f"(pto-tui {s[0]} {s[1]})" in n for n in notes)

            await wait_for(pilot, noticed, timeout=10)
        loaded_now = session_of(app).loaded
        assert loaded_now is not None
        open_round = loaded_now.open_round
        assert open_round is not None and open_round.measurement.median_us == 80

        await asyncio.to_thread(agent_run, fresh_root, "round", "close", "--analysis", "faster",
                                "--next", "keep going")
        await wait_for(pilot, lambda: (loaded := session_of(app).loaded) is not None
                       and loaded.open_round is None, timeout=10)
        await wait_for(pilot, lambda: "iter-001 is open" not in static_text(state), timeout=5)

        # the app's own write is not news: no "changed on disk" for it
        before = len(notes)
        with Campaign(fresh_root) as campaign:
            phase = campaign.config.phases[-1]
        await asyncio.to_thread(session_of(app).campaign.set_phase, phase)
        await pilot.pause(2.5)
        assert [n for n in notes[before:] if "changed on disk" in n] == []
        # ... and the agent could write while the app stayed open the whole time
        assert not (fresh_root / ".pto-tui" / "lock.json").exists()


def test_two_agents_starting_a_round_at_once_never_interleave(fresh_root: Path) -> None:
    first = agent(fresh_root, "round", "start", *pre_edit_flags("first agent"))
    second = agent(fresh_root, "round", "start", *pre_edit_flags("second agent"))
    results = [p.communicate(timeout=60) + (p.returncode,) for p in (first, second)]
    codes = sorted(code for _out, _err, code in results)
    assert codes[0] == 0 and codes[1] != 0, results
    refused = next(err for _out, err, code in results if code != 0)
    assert ONE_ROUND_AT_A_TIME.id in refused and "round 1 is still open" in refused
    with Campaign(fresh_root) as campaign:
        rounds = campaign.rounds()
        status = campaign.status(rounds)
    assert [r.number for r in rounds] == [0, 1]
    assert rounds[1].title in ("first agent"[:30], "second agent"[:30])
    assert not status.problems.unreadable and not status.problems.missing
    assert sorted(p.name for p in (fresh_root / "runs").glob("iter-*")) == ["iter-000", "iter-001"]
    assert (fresh_root / "runs" / "iter-001" / "notes.md").is_file()
    assert campaign.project.get_state("last_round") == 1
    # headless, the last writer is what the app names in its notification
    reader = agent(fresh_root, "status", "--json")
    text, _err = reader.communicate(timeout=60)
    last = json.loads(text)["last_write"]
    assert last["command"] == "pto-tui round start" and last["pid"] in (first.pid, second.pid)


def test_a_reader_during_an_agents_writes_sees_before_or_after_never_half(fresh_root: Path) -> None:
    writes = [("round", "start", *pre_edit_flags("agent: smaller tiles")),
              ("round", "changes", "--set", "kFaTileS1=128"),
              ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "80,81,79"),
              ("round", "close", "--analysis", "faster", "--next", "more")]
    seen: set[tuple[int, str]] = set()
    for args in writes:
        writer = agent(fresh_root, *args)
        while writer.poll() is None:  # read without a lock, as often as we can
            with Campaign(fresh_root) as campaign:
                rounds = campaign.rounds()
                status = campaign.status(rounds)
            problems = status.problems
            assert not problems.missing and not problems.unreadable, problems
            assert all(not r.imported for r in rounds), "a round read as written by hand"
            seen |= {(r.number, r.status) for r in rounds}
        assert writer.returncode == 0, writer.communicate()
    assert (1, "closed") in {(r.number, r.status) for r in Campaign(fresh_root).rounds()}


def test_the_watch_names_every_writer_of_a_batch_and_no_refused_one(fresh_root: Path) -> None:
    watch = DiskWatch(ProjectLayout(fresh_root))
    agent_run(fresh_root, "round", "start", *pre_edit_flags("agent: smaller tiles"))
    refused = agent(fresh_root, "round", "start", *pre_edit_flags("a second round at once"))
    refused.communicate(timeout=60)
    assert refused.returncode == 1  # one round at a time: it wrote nothing, and names no one
    agent_run(fresh_root, "round", "changes", "--set", "kFaTileS1=128")
    assert watch.look() == "pto-tui round start; pto-tui round changes"
    assert watch.look() is None


def test_the_watch_names_the_writer_a_hand_edit_and_sees_past_a_stale_lock(fresh_root: Path) -> None:
    watch = DiskWatch(ProjectLayout(fresh_root))
    assert watch.look() is None  # nothing changed
    agent_run(fresh_root, "round", "start", *pre_edit_flags("agent: smaller tiles"))
    assert watch.look() == "pto-tui round start"
    assert watch.look() is None  # one write, one change
    with (fresh_root / "ITERATIONS.md").open("a", encoding="utf-8") as handle:
        handle.write("\na note by hand\n")
    assert watch.look() == ""
    assert describe_change([], [], "") == "the project changed on disk (edited by hand)"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (fresh_root / ".pto-tui" / "lock.json").write_text(
        json.dumps({"pid": int(dead.stdout), "host": socket.gethostname(), "since": 0}))
    with (fresh_root / "ITERATIONS.md").open("a", encoding="utf-8") as handle:
        handle.write("another\n")
    assert watch.look() == ""  # a dead process's lock does not hide changes
