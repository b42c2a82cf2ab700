"""What is left running when the app goes, as a person meets it in a real terminal: the
real `pto-tui` in a tmux server of its own at 80x24, keys sent with send-keys, the screen
read with capture-pane, the records read on disk and through `pto-tui jobs --json`.

- A round's benchmark run kept running at q, which then ends while the app is closed
  (nobody follows it): `jobs` says it ended, never that it runs; the app opened again
  takes its result into the round (the samples before it from the journal, its own from
  its output, the rest run then), nothing run twice. For the DSL demo (report.json per
  run) and the tile-lib demo (one report.csv the runs append to, which the warm-ups of the
  resumed run must not overwrite first).
- The terminal killed while a job runs (tmux's server gone: SIGHUP, the pty hung up): the
  app exits, the job runs on and is re-attachable, `jobs` says so and then that it ended;
  the app opened again collects it.
- Esc and q going back one level in the sub-screens a round's review opens.

Each project is made with the CLI on a built-in demo operator (environment declared,
torch_npu and iter-000 given), its benchmark command counting its runs (warm-ups too) in
bench-runs and, while the file hold-N exists, holding its Nth run, so the run is where the
test wants it when q is pressed, deterministically."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.config import operator_folder
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from tests.tui.projects import run
from tests.tui.test_leaving import kill_left_over
from tests.tui.test_tmux_session import bench_runs, headless_jobs, kept_job_alive, round_toml
from tests.tui.tmux import Tmux, Typed

REPEATS = 3
RUN_TIMEOUT = 180.0  # a tile-lib build and its runs on a loaded 2-core machine
CHANGE = {"dsl": "DEMO_ATTN_BLOCK_KV=128", "tile-lib": "CUBE_S0=64"}
KEPT = f"iter-001 benchmark 2/{REPEATS}"


def _pre_edit(scope: str) -> list[str]:
    flags = ["--kernel", "the demo kernel", "--bottleneck", "bad tile shape",
             "--evidence", "profile shows reloads", "--hypothesis", f"a bigger {scope}",
             "--why", "fewer reloads", "--metric", "duration_us down", "--risk", "cache",
             "--correctness-plan", "same reference, same tolerances", "--title",
             f"bigger {scope}", "--scope", scope]
    for key in HARDWARE_CHECKLIST:
        flags += ["--check", f"{key}=checked {key}"]
    return flags


def left_jobs_project(base: Path, kind: str) -> Path:
    """The demo of `kind` up to iter-000 (given), and iter-001 open with its change."""
    root = create_demo_project(kind, base / "projects")
    with Campaign(root) as campaign:
        benchmark = campaign.config.commands.benchmark
        up = "../" * (len(Path(operator_folder(campaign.config)).parts) + 1)
    project = ProjectFile(root / "project.toml")
    project.set("commands.benchmark", f"echo run >> {up}bench-runs; n=$(wc -l < {up}bench-runs); "
                f"while [ -f {up}hold-$n ]; do sleep 0.1; done; " + benchmark)
    project.set("discipline.repeats", REPEATS)
    project.set("discipline.max_repeats", REPEATS)  # a fixed number of runs
    project.set("discipline.review_gain", 100.0)
    project.save()
    p = ["--project", str(root)]
    run(*p, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok")
    run(*p, "torch-baseline", "--avg", "9000", "--min", "8900", "--max", "9100")
    run(*p, "baseline", "--build", "ok", "--correctness", "pass", "--samples", "9000,9100,8900")
    knob = CHANGE[kind].split("=")[0]
    run(*p, "round", "start", *_pre_edit(knob), "--restore")
    run(*p, "round", "changes", "--set", CHANGE[kind], "--justify", "the tile still fits")
    return root


def warm_ups(root: Path) -> int:
    from pto_tui.backends.loop import run_plan

    with Campaign(root) as campaign:
        return run_plan(campaign.config).warmup


def timed_runs(root: Path) -> list[str]:
    """The names of the round's timed benchmark runs' jobs (not their helper jobs)."""
    return sorted(job["name"] for job in headless_jobs(root)
                  if job["name"].startswith("iter-001 benchmark ") and ":" not in job["name"])


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    terminal = Tmux(80, 24)
    try:
        yield terminal
    finally:
        terminal.kill()


def job_named(root: Path, name: str) -> dict:
    [job] = [job for job in headless_jobs(root) if job["name"] == name]
    return job


def wait_ended_unfollowed(root: Path, name: str, timeout: float = 60.0) -> dict:
    """Poll `pto-tui jobs` until the job, which nobody follows, has ended on its target:
    it is shown re-attachable while it runs and ended after, never running."""
    deadline = time.monotonic() + timeout
    while True:
        job = job_named(root, name)
        assert job["shown_state"] in ("re-attachable", "ended"), job
        if job["shown_state"] == "ended":
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.3)


def logged(root: Path, job: dict) -> str:
    return (root / ".pto-tui" / "jobs" / job["id"] / "output.log").read_text()


@pytest.mark.parametrize("kind", ["dsl", "tile-lib"])
def test_a_run_kept_at_q_that_ends_while_closed_is_recorded(
        kind: str, tmp_path: Path, tmux: Tmux) -> None:
    root = left_jobs_project(tmp_path, kind)
    held = warm_ups(root) + 2  # the second timed run, after the warm-ups
    try:
        (root / f"hold-{held}").touch()
        tmux.launch(root)
        tmux.wait_screen("iter  verdict")
        tmux.keys("4", "r")
        tmux.wait(lambda s: f"benchmark 2/{REPEATS}" in s and bench_runs(root) == held,
                  "benchmark 2 running", RUN_TIMEOUT)
        tmux.keys("q")
        tmux.wait_screen("k keep running")
        tmux.keys("k")
        tmux.wait_ended()
        kept_job_alive(root, KEPT)
        (root / f"hold-{held}").unlink()  # it runs to its end now, with the app closed
        ended = wait_ended_unfollowed(root, KEPT)
        assert ended["exit_code_on_target"] == 0 and ended["state"] == "running"
        assert "samples_us" not in round_toml(root, 1).get("measurement", {})

        tmux.launch(root)
        tmux.wait_screen("iter  verdict")
        tmux.keys("4")
        tmux.wait_screen("Post-Run: a writes Analysis", RUN_TIMEOUT)
        measured = round_toml(root, 1)["measurement"]
        assert len(measured["samples_us"]) == REPEATS, measured
        # the ended run taken, none run twice (the resumed run warms up again: cold)
        assert timed_runs(root) == [f"iter-001 benchmark {i}/{REPEATS}" for i in (1, 2, 3)]
        assert bench_runs(root) == 2 * warm_ups(root) + REPEATS
        kept = job_named(root, KEPT)
        assert (kept["state"], kept["shown_state"], kept["exit_code"]) == ("succeeded",) * 2 + (0,)
        output = logged(root, kept)
        if kind == "dsl":  # its own report.json is the second run's
            assert f"report: {measured['reports'][1]}" in output, (measured, output)
        else:  # its own row of report.csv, not the file's last one before it ran
            assert f"duration {measured['samples_us'][1]:.3f} us" in output, (measured, output)
        esc_and_q_go_back_one_level(tmux)
        tmux.keys("q")
        tmux.wait_ended()
    finally:
        kill_left_over(root)


DETAIL = " Notes  Patch  Logs"  # a round's detail
TABLE = "iter  verdict"  # the Rounds pane


def esc_and_q_go_back_one_level(tmux: Tmux) -> None:
    """On a pane esc stays; in a round's detail, a log opened from it and `?`, esc and q
    each go back one level: the log to the detail, the detail to the Rounds pane."""
    tmux.keys("2")
    tmux.wait_screen(TABLE)
    tmux.keys("Escape")
    time.sleep(0.5)
    assert tmux.alive() and TABLE in tmux.screen()
    for back in ("q", "Escape"):
        tmux.keys("G", "Enter")  # the last round, iter-001: its jobs are its logs
        tmux.wait_screen(DETAIL)
        tmux.keys("l", "Enter")  # the first log of the round: a file or a job's output
        tmux.wait(lambda shown: DETAIL not in shown and "Back" in shown, "a log opened")
        tmux.keys(back)
        tmux.wait_screen(DETAIL)
        tmux.keys(back)
        tmux.wait(lambda shown: TABLE in shown and DETAIL not in shown, f"{back} back to Rounds")
        tmux.keys("?")
        tmux.wait_screen("Keys, by pane")
        tmux.keys(back)
        tmux.wait(lambda shown: "Keys, by pane" not in shown and TABLE in shown, f"{back} out of ?")


def app_pid(root: Path) -> int:
    """The pto-tui process of the project (its command line names it)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            argv = cmdline.read_bytes().split(b"\0")
            if b"pto_tui.cli.main" in argv and str(root).encode() in argv:
                return int(cmdline.parent.name)
    raise AssertionError(f"no pto-tui process on {root}")


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def test_a_dropped_terminal_ends_the_app_and_keeps_the_job(tmp_path: Path, tmux: Tmux) -> None:
    root = left_jobs_project(tmp_path, "dsl")
    try:
        tmux.launch(root)
        tmux.wait_screen("iter  verdict")
        tmux.keys("4", "!")
        # its output says what the typed command line does not: it runs
        tmux.burst([Typed("echo started-$((40+2)); sleep 4; echo finished-$((40+2))"), "Enter"])
        tmux.wait_screen("started-42")
        pid = app_pid(root)
        tmux.kill()  # the terminal is gone: SIGHUP, the pty hung up
        deadline = time.monotonic() + 15
        while not gone(pid):
            assert time.monotonic() < deadline, "pto-tui kept running after its terminal went"
            time.sleep(0.1)
        [job] = [j for j in headless_jobs(root) if j["command"].startswith("echo started")]
        assert job["detached"] and job["shown_state"] in ("re-attachable", "ended"), job
        ended = wait_ended_unfollowed(root, job["name"])
        assert ended["exit_code_on_target"] == 0

        tmux.launch(root)  # a new terminal: the job is collected, its log whole
        tmux.wait_screen("iter  verdict")
        tmux.keys("4")
        tmux.wait_screen("finished-42")
        tmux.wait(lambda _s: job_named(root, job["name"])["state"] == "succeeded",
                  "the job collected as succeeded")
        tmux.keys("q")
        tmux.wait_ended()
    finally:
        kill_left_over(root)
