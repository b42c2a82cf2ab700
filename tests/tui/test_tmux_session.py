"""The terminal application as a person uses it over SSH: the real `pto-tui` process in a
real tmux server of its own at 80x24, keys sent with send-keys (each form typed in one
burst: full speed, no pause between fields), the screen read with capture-pane.

One session, in order: open the demo project (once with NO_COLOR=1), review and compare
rounds, pin a reference, export, type half a Pre-Edit form and quit (its draft is named,
kept and back on reopening), fill the rest of the form, set the round's change, run it
and press q during the benchmark keeping the job, reopen (the job is re-attached and
recorded into its round), type its Post-Run at 60x20 (on the screen as typed), close the
round, rerun the inconclusive round, quit. Every step is checked on the screen and in the records on disk.

The project is made with the CLI: the demo operator, env/baseline/rounds with given
samples (iter-002 inconclusive by a 90% spread), and a benchmark command that counts its
runs in bench-runs and waits while the file `slow` exists, so the benchmark is running
when q is pressed, deterministically."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.config import operator_folder
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from tests.tui.projects import run
from tests.tui.test_leaving import kill_left_over
from tests.tui.tmux import REPO, Tmux, Typed, chromatic_colours

REPEATS = 3
RUN_TIMEOUT = 120.0  # a demo round is seconds; a loaded 2-core machine is slower
TYPED = {  # the answers typed into the Pre-Edit form, as they must be recorded
    "title": "bigger q block",
    "hypothesis": "block q 128 fills the vector lanes",
    "why_ascend": "wider loads per tile, fewer loop trips",
    "expected_metric": "duration_us down 20%",
    "main_risk": "cache spills at 128",
    "scope": "DEMO_ATTN_BLOCK_Q",
}
ANALYSIS = "block q 128 measured after a kept job resumed"
NEXT = "try block kv next"
JUSTIFY = "a 128 row block still fits the cache"


def _pre_edit(hypothesis: str, scope: str) -> list[str]:
    flags = ["--kernel", "demo_attention S=512", "--bottleneck", "bad tile shape",
             "--evidence", "profile shows reloads", "--hypothesis", hypothesis,
             "--why", "fewer reloads", "--metric", "duration_us down", "--risk", "cache",
             "--correctness-plan", "same reference, same tolerances", "--title", hypothesis,
             "--scope", scope]
    for key in HARDWARE_CHECKLIST:
        flags += ["--check", f"{key}=checked {key}"]
    return flags


def _round(root: Path, hypothesis: str, change: str, *measure: str) -> None:
    project = ["--project", str(root)]
    run(*project, "round", "start", *_pre_edit(hypothesis, change.split("=")[0]), "--restore")
    run(*project, "round", "changes", "--set", change, "--describe", hypothesis,
        "--justify", "fits the cache")
    run(*project, "round", "measure", *measure)
    run(*project, "round", "close", "--analysis", f"analysis of {hypothesis}", "--next", "on")


def _session_project(base: Path) -> Path:
    """iter-001 failure, iter-002 inconclusive, iter-003 kept (the frontier, pre-fill)."""
    root = create_demo_project("dsl", base / "projects")
    with Campaign(root) as campaign:
        benchmark = campaign.config.commands.benchmark
        up = "../" * (len(Path(operator_folder(campaign.config)).parts) + 1)
    project = ProjectFile(root / "project.toml")
    project.set("commands.benchmark", f"echo run >> {up}bench-runs; "
                f"while [ -f {up}slow ]; do sleep 0.1; done; " + benchmark)
    project.set("discipline.repeats", REPEATS)
    project.set("discipline.max_repeats", REPEATS)  # a fixed number of runs
    project.set("discipline.review_gain", 100.0)  # real demo timings: no review hold here
    project.save()
    p = ["--project", str(root)]
    run(*p, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok")
    run(*p, "torch-baseline", "--avg", "120", "--min", "118", "--max", "123")
    run(*p, "baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99")
    _round(root, "block q 8", "DEMO_ATTN_BLOCK_Q=8", "--build", "failed", "--problem", "error")
    _round(root, "block kv 32", "DEMO_ATTN_BLOCK_KV=32", "--build", "ok", "--correctness",
           "pass", "--samples", "60,100,150")
    _round(root, "block q 64", "DEMO_ATTN_BLOCK_Q=64", "--build", "ok", "--correctness",
           "pass", "--samples", "90,91,89")
    return root


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[Tmux, Path]]:
    root = _session_project(tmp_path)
    tmux = Tmux(80, 24)
    try:
        yield tmux, root
    finally:
        tmux.kill()
        kill_left_over(root)


def bench_runs(root: Path) -> int:
    path = root / "bench-runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


def round_toml(root: Path, number: int) -> dict[str, Any]:
    return tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())


def headless_jobs(root: Path) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "pto_tui.cli.main", "--project", str(root),
                           "jobs", "--json"], capture_output=True, text=True, check=True,
                          cwd=REPO, timeout=60)
    jobs: list[dict] = json.loads(done.stdout)["jobs"]
    return jobs


def kept_job_alive(root: Path, name: str) -> None:
    """`pto-tui jobs` lists the job running, re-attachable once the app is gone; its
    process group is alive."""
    deadline = time.monotonic() + 15
    while True:
        jobs = [job for job in headless_jobs(root) if job["name"] == name]
        shown = [(job["state"], job["shown_state"], job["detached"]) for job in jobs]
        if shown == [("running", "re-attachable", True)]:
            break
        assert time.monotonic() < deadline and shown in ([], [("running", "running", True)]), jobs
        time.sleep(0.2)
    os.killpg(int((Path(jobs[0]["remote_dir"]) / "pgid").read_text().strip()), 0)


def row_of(screen: str, iteration: int) -> str:
    """The Rounds table line of a round (its iter column, under the header)."""
    lines = screen.splitlines()
    header = next((i for i, line in enumerate(lines) if "iter  verdict" in line), len(lines))
    for line in lines[header + 1:]:
        cells = line.replace("▶", " ").replace("◆", " ").replace("★", " ").replace("↑", " ")
        if cells.split()[:1] == [str(iteration)]:
            return line
    raise AssertionError(f"no row for round {iteration}:\n{screen}")


def open_and_review(tmux: Tmux) -> None:
    """NO_COLOR: the verdicts read as words and marks; a round opened; two compared."""
    screen = tmux.wait_screen("? inconclusive")
    assert "✗ failure" in row_of(screen, 1) and "✓ kept" in row_of(screen, 3), screen
    assert not chromatic_colours(tmux.escaped()), tmux.escaped()
    tmux.keys("2", "j", "Enter")
    tmux.wait_screen("iter-001  ✗ failure")
    tmux.keys("Escape")
    tmux.wait_screen("? inconclusive")
    tmux.keys("Space", "j", "Space", "c")
    tmux.wait_screen("compare iter-001 ↔ iter-002: only what differs")
    tmux.keys("d")
    screen = tmux.wait_screen("compare iter-001 ↔ iter-002: every fact")
    assert "≠" in screen
    tmux.keys("Escape")
    screen = tmux.wait_screen("marked iter-001 iter-002")
    assert "▶" in row_of(screen, 1) and "▶" in row_of(screen, 2)


def pin_and_compare(tmux: Tmux) -> None:
    """Unmark both, pin iter-003, then c on iter-001 compares it with the reference."""
    tmux.keys("Space", "k", "Space", "j", "j", "P")  # cursor 2 -> 1 -> 3
    screen = tmux.wait_screen("reference iter-003")
    assert "◆" in row_of(screen, 3) and "▶" not in row_of(screen, 1), screen
    tmux.keys("k", "k", "c")
    screen = tmux.wait_screen("compare iter-")
    title = screen.splitlines()[0]
    assert "iter-001" in title and "iter-003" in title, screen
    tmux.keys("Escape")
    tmux.wait_screen("reference iter-003")


def export_csv(tmux: Tmux, root: Path) -> None:
    tmux.keys("X")
    tmux.wait_screen("Export the round table")
    tmux.keys("c")
    tmux.wait_screen("csv export written")
    with (root / "rounds.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["round"] for row in rows] == ["0", "1", "2", "3"], rows
    assert [row["verdict"] for row in rows] == ["baseline", "failure", "inconclusive", "kept"]


def half_typed_pre_edit_survives(tmux: Tmux, root: Path) -> None:
    """The title typed, then q (asked: the draft is named), quit, reopen: it is back."""
    tmux.keys("3")
    tmux.wait_screen("Pre-filled from iter-003")
    # esc, then q once esc has left the field: the focus bar has gone from the title (a
    # terminal sends esc and a key right after it as one alt+key: a person's pause)
    title = TYPED["title"]
    tmux.keys("-l", title)
    tmux.wait_screen(f"▌{title}")
    tmux.keys("Escape")
    tmux.wait(lambda shown: f"▌{title}" not in shown and f" {title}" in shown, "esc left")
    tmux.keys("q")
    tmux.wait_screen("the Pre-Edit draft of the next round (typed, not submitted)")
    tmux.keys("y")
    tmux.wait_ended()
    assert (root / ".pto-tui" / "drafts" / "pre-edit.json").is_file()
    tmux.launch(root, no_color=True)
    tmux.wait_screen("? inconclusive")
    tmux.keys("3")
    screen = tmux.wait_screen("Draft restored")
    assert TYPED["title"] in screen, screen


def fill_pre_edit(tmux: Tmux, root: Path) -> None:
    """The form as its draft left it (the title typed, the rest drafted from iter-003);
    the person's answers typed in one burst: tab skips the pre-filled class, evidence,
    kernel and correctness plan and every checklist note, space ticks each checklist
    item. Starting the round clears the draft."""
    keys: list[Typed | str] = ["Tab", "Tab", "Tab", "Tab"]
    for key in ("hypothesis", "why_ascend", "expected_metric", "main_risk"):
        keys += [Typed(TYPED[key]), "Tab"]
    keys += ["Tab", Typed(TYPED["scope"])]
    for _key in HARDWARE_CHECKLIST:
        keys += ["Tab", "Space", "Tab"]
    tmux.burst([*keys, "C-s"])
    screen = tmux.wait_screen("iter-004 is open")
    assert f"Hypothesis: {TYPED['hypothesis']}" in screen, screen
    record = round_toml(root, 4)
    assert record["status"] == "open" and record["title"] == TYPED["title"]
    pre = record["pre_edit"]
    for key in ("hypothesis", "why_ascend", "expected_metric", "main_risk"):
        assert pre[key] == TYPED[key], (key, pre[key])
    assert pre["scope"] == [TYPED["scope"]]
    assert pre["kernel"] == "demo_attention S=512"  # the pre-fill, confirmed by leaving it
    assert not (root / ".pto-tui" / "drafts" / "pre-edit.json").exists()  # submitted
    assert pre["evidence"] == "profile shows reloads"
    for key in HARDWARE_CHECKLIST:
        assert pre["checklist"][key] == {"ticked": True, "note": f"checked {key}"}, key


def change_and_leave_running(tmux: Tmux, root: Path) -> None:
    """p: DEMO_ATTN_BLOCK_Q 64 -> 128, a bigger tile (the kernel steps its query loop by
    it): justified in its field; r in the Run pane; q during benchmark 1, keep it."""
    tmux.keys("p")
    tmux.wait_screen("Change parameters")
    tmux.keys("Enter", "Down", "Enter", "C-s")
    tmux.wait_screen("high risk: bigger tile DEMO_ATTN_BLOCK_Q")
    changes = round_toml(root, 4)["changes"]
    assert changes["parameters"] == [{"name": "DEMO_ATTN_BLOCK_Q", "old": 64, "new": 128}]
    # from the open round's view: the edit and parameter buttons, the kind, the
    # description, the bug-fix reason, then the justification; Record changes 3 further
    tmux.burst([*["Tab"] * 6, Typed(JUSTIFY), "Tab", "Tab", "Tab", "Enter"])
    tmux.wait(lambda _s: round_toml(root, 4)["changes"].get("risk_justification") == JUSTIFY,
              "the justification recorded")
    (root / "slow").touch()
    tmux.keys("4", "r")
    tmux.wait(lambda s: f"benchmark 1/{REPEATS}" in s and bench_runs(root) == 1,
              "benchmark 1 running", RUN_TIMEOUT)
    tmux.keys("q")
    tmux.wait_screen("k keep running")
    tmux.keys("k")
    tmux.wait_ended()
    kept_job_alive(root, f"iter-004 benchmark 1/{REPEATS}")
    assert "samples_us" not in round_toml(root, 4).get("measurement", {})



def reattach_and_close(tmux: Tmux, root: Path) -> None:
    """Reopened (colours back): the kept job is re-attached into iter-004's run; once it
    ends the rest runs and the verdict shows; the Post-Run's Analysis typed, q (its draft
    named and kept), reopened in a 60x20 terminal: the Analysis back and the Next typed
    there both on the screen; ctrl+s closes the round with them."""
    tmux.launch(root)
    tmux.wait_screen("? inconclusive")
    assert chromatic_colours(tmux.escaped())  # the NO_COLOR launch really was without
    tmux.keys("4")
    kept = f"job iter-004 benchmark 1/{REPEATS} "
    step = f"benchmark 1/{REPEATS}  running"  # the step's row may come a frame later
    tmux.wait(lambda shown: kept in shown and "re-attached" in shown and step in shown,
              f"{kept}re-attached, its step row running")
    (root / "slow").unlink()
    tmux.wait_screen("Post-Run: a writes Analysis", RUN_TIMEOUT)
    measured = round_toml(root, 4)["measurement"]
    assert len(measured["samples_us"]) == REPEATS, measured
    assert bench_runs(root) == REPEATS  # the kept run adopted: no sample taken twice
    tmux.burst(["a", Typed(ANALYSIS)])
    tmux.wait_screen(f"▌{ANALYSIS}")
    tmux.keys("Escape")
    tmux.wait(lambda shown: f"▌{ANALYSIS}" not in shown, "esc left the field")
    tmux.keys("q")
    tmux.wait_screen("the Post-Run draft of iter-004")
    tmux.keys("y")
    tmux.wait_ended()
    tmux.width, tmux.height = 60, 20  # the smallest terminal
    tmux.launch(root)
    tmux.wait_screen("? inconclusive")
    tmux.keys("4")
    tmux.wait_screen(ANALYSIS)  # the draft, back in its field, on the screen
    tmux.burst(["a", "Tab", Typed(NEXT)])
    tmux.wait_screen(f"▌{NEXT}")
    tmux.keys("C-s")
    tmux.wait(lambda _s: round_toml(root, 4)["status"] == "closed", "iter-004 closed")
    record = round_toml(root, 4)
    assert (record["analysis"], record["next"]) == (ANALYSIS, NEXT)
    drafts = root / ".pto-tui" / "drafts"
    tmux.wait(lambda _s: not any(drafts.iterdir()), "the drafts gone once closed", 10)
    tmux.keys("q")
    tmux.wait_ended()
    tmux.width, tmux.height = 80, 24
    tmux.launch(root)
    tmux.wait_screen("? inconclusive")


def rerun_inconclusive_and_quit(tmux: Tmux, root: Path) -> None:
    """u on iter-002 asks, y opens iter-005 as its rerun; q (nothing running) quits."""
    tmux.keys("2")
    screen = tmux.wait_screen("iter  verdict")
    row_of(screen, 4)  # the closed round is listed
    tmux.keys("g", "j", "j", "u")  # top (iter-000), down to iter-002
    tmux.wait_screen("iter-002 (inconclusive) measured again as iter-005")
    tmux.keys("y")
    tmux.wait_screen("r Run the open round iter-005 rerun of iter-002: block kv 32", 60)
    record = round_toml(root, 5)
    assert (record["status"], record["rerun_of"]) == ("open", 2), record
    assert record["title"] == "rerun of iter-002: block kv 32"
    tmux.keys("q")
    tmux.wait_ended()
    assert not (root / ".pto-tui" / "lock.json").exists()


def test_a_day_at_the_terminal(session: tuple[Tmux, Path]) -> None:
    tmux, root = session
    tmux.launch(root, no_color=True)
    open_and_review(tmux)
    pin_and_compare(tmux)
    export_csv(tmux, root)
    half_typed_pre_edit_survives(tmux, root)
    fill_pre_edit(tmux, root)
    change_and_leave_running(tmux, root)
    reattach_and_close(tmux, root)
    rerun_inconclusive_and_quit(tmux, root)
