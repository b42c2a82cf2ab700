"""The whole loop by keys on the demo target (the built-in CPU operators, real jobs):
environment round, torch_npu stand-in, baseline, a round refused by a gate then kept,
a failure round edited in the built-in editor, review, the chart, and cancelling.

Every check reads the records on disk. The demo's timings are real and noisy: the kept
round changes two tile sizes 16 -> 128 (about 5x faster) and the demo project's
max_spread is raised to 5.0 (see tests/tui/projects.py), so noise cannot make it
inconclusive.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import ContentSwitcher, DataTable, OptionList, Static

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.campaign.requests import ChangesRequest, StartRequest
from pto_tui.core.vocabulary import Verdict
from pto_tui.jobs.model import JobState, list_records
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.editor import FilePicker, TextEditor, workspace_files
from pto_tui.tui.screens.job_log import JobLogScreen
from pto_tui.tui.screens.params import ParamScreen
from pto_tui.tui.screens.project import ProjectScreen
from pto_tui.tui.screens.round_detail import RoundScreen
from pto_tui.tui.widgets.log_view import LogView
from pto_tui.tui.widgets.run_pane import RunPane
from tests.tui.keys import current, loaded, session_of, tab_to, type_into, wait_for
from tests.tui.test_review import table_rows
from tests.tui.test_round_flow import fill_pre_edit
from tests.tui.text import static_text

RUN_TIMEOUT = 120.0  # a demo round is 5-10 s; a loaded 2-core CI machine is slower


def read(root: Path, number: int):
    with Campaign(root) as campaign:
        return campaign.round(number)


def run_pane(app: PtoApp) -> RunPane:
    return app.screen.query_one(RunPane)


async def run_finished(pilot, app: PtoApp) -> None:
    pane = run_pane(app)
    await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished,
                   timeout=RUN_TIMEOUT)
    await pilot.pause()


def verdict_box(app: PtoApp) -> str:
    return static_text(app.screen.query_one("#run-verdict", Static))


async def choose(pilot, widget_id: str, current: object, wanted: object,
                 allowed: tuple[object, ...]) -> None:
    """A Select by keys: open it (on the current value), move to the wanted one, enter."""
    await tab_to(pilot, widget_id)
    steps = allowed.index(wanted) - allowed.index(current)
    await pilot.press("enter", *(["down"] * steps), "enter")


async def test_environment_torch_and_baseline_by_keys(tmp_path: Path) -> None:
    root = create_demo_project("dsl", tmp_path / "projects")
    app = PtoApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        loop = app.screen.query_one("#run-loop", OptionList)
        baseline = loop.get_option("baseline")
        assert baseline.disabled and "needs a passed environment round" in str(baseline.prompt)
        await pilot.press("B")  # refused, with the reason: nothing runs, nothing is written
        await pilot.pause()
        assert run_pane(app).worker is None
        assert not (root / "runs" / "iter-000" / "round.toml").exists()

        await pilot.press("E")
        await run_finished(pilot, app)
        notes = read(root, 0).environment
        assert notes is not None and notes.passed, notes
        assert "environment round passed" in verdict_box(app)
        steps = app.screen.query_one("#run-steps", DataTable)
        assert "probe: python" in [str(key.value) for key in steps.rows]

        # each probe with its evidence; enter shows the probe's own job log
        await pilot.press("1")
        probes = app.screen.query_one("#ctx-probes", DataTable)
        assert app.focused is probes
        names = [str(probes.get_row_at(i)[0]) for i in range(probes.row_count)]
        assert names[0] == "target reachable" and "python" in names
        assert all(str(probes.get_row_at(i)[1]) == "ok" for i in range(probes.row_count))
        await pilot.press(*["down"] * names.index("python"), "enter")
        assert isinstance(app.screen, JobLogScreen)
        assert app.screen.record.name == "iter-000 environment probe: python"
        view = app.screen.query_one(LogView)
        await wait_for(pilot, lambda: view.source_done and len(view.store) > 0)
        assert any("Python 3" in view.store.line(i) for i in range(len(view.store)))
        await pilot.press("escape")
        assert isinstance(app.screen, ProjectScreen)

        await pilot.press("T")  # from the Context pane: runs in the Run pane
        await wait_for(pilot, lambda: current(app) == "run")
        await run_finished(pilot, app)
        with Campaign(root) as campaign:
            torch = campaign.torch_baseline()
        assert torch is not None and "CPU" in torch.label

        await pilot.press("B")
        await run_finished(pilot, app)
        record = read(root, 0)
        assert record.is_closed and len(record.measurement.samples_us) == 7
        assert "iter-000 baseline recorded" in verdict_box(app)
        assert "recorded: never measured again" in str(
            app.screen.query_one("#run-loop", OptionList).get_option("baseline").prompt)


async def test_round_refused_by_a_gate_then_kept_and_reviewed(demo_root: Path) -> None:
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "r")  # no open round yet: refused with the reason
        await pilot.pause()
        assert run_pane(app).worker is None

        await pilot.press("3")
        await fill_pre_edit(pilot, scope="DEMO_ATTN_BLOCK_KV, DEMO_ATTN_BLOCK_Q")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.query_one("#round-switch", ContentSwitcher).current
                       == "openround")
        await pilot.press("escape", "3", "p")
        assert isinstance(app.screen, ParamScreen)
        tunables = session_of(app).campaign.config.tunables
        for name in ("DEMO_ATTN_BLOCK_KV", "DEMO_ATTN_BLOCK_Q"):
            await choose(pilot, f"param-{name}", 16, 128, tunables[name].allowed)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert sorted((p.name, p.old, p.new) for p in read(demo_root, 1).changes.parameters) == [
            ("DEMO_ATTN_BLOCK_KV", 16, 128), ("DEMO_ATTN_BLOCK_Q", 16, 128)]

        # bigger tiles are a high-risk change: the run is refused until it is justified
        await pilot.press("escape", "4", "r")
        await run_finished(pilot, app)
        assert "high-risk-justification" in verdict_box(app)
        assert "stays open" in verdict_box(app)
        assert not read(demo_root, 1).is_closed
        await pilot.press("3")
        await type_into(pilot, "or-justify", "64 KiB tiles")
        await tab_to(pilot, "or-record")
        await pilot.press("enter")
        await pilot.pause()
        assert read(demo_root, 1).changes.risk_justification

        await pilot.press("escape", "4", "r")
        await run_finished(pilot, app)
        # measured: the verdict is shown with its numbers, the round waits for its Post-Run
        record = read(demo_root, 1)
        assert not record.is_closed and len(record.measurement.samples_us) == 7
        shown = verdict_box(app)
        assert "iter-001 ✓ kept" in shown and "7 samples" in shown
        assert "vs frontier iter-000" in shown

        # Post-Run: Analysis and Next are written, then the round closes with them
        await pilot.press("a", *"amortised", "enter", *"KV 256", "enter")
        await wait_for(pilot, lambda: read(demo_root, 1).is_closed)  # written off the loop
        await pilot.pause()
        record = read(demo_root, 1)
        assert record.is_closed and record.verdict is Verdict.KEPT, record.verdict_reason
        assert (record.analysis, record.next, record.amendments) == ("amortised", "KV 256", [])
        assert "closed: kept, with its Post-Run" in verdict_box(app)

        await review_kept_round_and_write_chart(pilot, app)


async def review_kept_round_and_write_chart(pilot: Pilot, app: PtoApp) -> None:
    """After iter-001 is kept: the table filtered by verdict, the round opened with its
    job logs, and the summary chart written."""
    await pilot.press("2", "slash", *"verdict:kept", "enter")
    assert table_rows(app) == ["1"]
    await pilot.press("enter")
    assert isinstance(app.screen, RoundScreen) and app.screen.record.number == 1
    names = [job.name for job in app.screen.jobs]
    assert "iter-001 build" in names and "iter-001 benchmark 7/7" in names
    assert all(name.startswith("iter-001 ") for name in names)
    await pilot.press("escape", "escape")

    # the summary chart, written by core; its path is shown
    await pilot.press("w")
    screen = app.screen
    assert isinstance(screen, ProjectScreen)
    await wait_for(pilot, lambda: screen.last_chart is not None, timeout=60)
    assert screen.last_chart is not None and screen.last_chart.is_file()


def start_scripted_round(root: Path, index: int) -> None:
    """Set-up (the Pre-Edit form by keys is tested above): a scripted demo round, opened."""
    from pto_tui.backends.demo_campaign import DSL_ROUNDS, pre_edit_for

    with Campaign(root, write=True) as campaign:
        step = DSL_ROUNDS[index]
        campaign.start_round(StartRequest(pre_edit_for(campaign, step), title=step.title, restore=True))
        if step.parameters:
            campaign.record_changes(ChangesRequest(parameters=dict(step.parameters),
                                    risk_justification=step.justification))


async def test_failure_round_edited_in_the_builtin_editor(demo_root: Path) -> None:
    kernel = "attention_kernel.py"
    start_scripted_round(demo_root, 2)  # "skip the accumulator rescale", scope: the kernel
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3", "e")
        assert isinstance(app.screen, FilePicker)
        files = [p.name for p in workspace_files(app.screen.root)]
        await pilot.press(*["down"] * files.index(kernel), "enter")
        assert isinstance(app.screen, TextEditor)  # no $EDITOR when headless: built-in
        source = app.screen.path.read_text(encoding="utf-8").splitlines()
        old = "acc = acc * correction + probs @ v_blk"
        line = next(i for i, text in enumerate(source) if old in text)
        column = source[line].index(old) + len("acc = acc ")
        await pilot.press(*["down"] * line, *["right"] * column,
                          *["delete"] * len("* correction "), "ctrl+s")
        assert isinstance(app.screen, ProjectScreen)
        edited = (demo_root / "workspace" / "pto-kernels" / kernel).read_text(encoding="utf-8")
        assert "acc = acc + probs @ v_blk" in edited and old not in edited

        await pilot.press("4", "r")
        await run_finished(pilot, app)
        record = read(demo_root, 1)
        assert record.changes.files == [f"workspace/pto-kernels/{kernel}"]
        assert record.measurement.correctness == "fail" and not record.measurement.samples_us
        assert "iter-001 ✗ failure" in verdict_box(app)
        assert "correctness" in verdict_box(app)
        await pilot.press("a", *"the rescale is needed", "enter", *"keep it", "enter")
        await wait_for(pilot, lambda: read(demo_root, 1).is_closed)  # written off the loop
        record = read(demo_root, 1)
        assert record.is_closed and record.verdict is Verdict.FAILURE


async def test_cancel_a_running_round(demo_root: Path) -> None:
    start_scripted_round(demo_root, 0)  # "wider KV tiles": 64-wide, justified
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "r")
        steps = app.screen.query_one("#run-steps", DataTable)
        await wait_for(pilot, lambda: "benchmark 1/7" in [str(k.value) for k in steps.rows],
                       timeout=RUN_TIMEOUT)
        await pilot.press("x")
        await run_finished(pilot, app)
        worker = run_pane(app).worker
        assert worker is not None and worker.is_cancelled
        # the cancel says what is kept: samples measured so far stay in the journal
        assert "the round stays open; every sample already measured is kept" in verdict_box(app)
        record = read(demo_root, 1)
        assert not record.is_closed and not record.measurement.samples_us
        jobs = [j for j in list_records(demo_root / ".pto-tui" / "jobs")
                if j.name.startswith("iter-001 ")]
        assert jobs[-1].state is JobState.CANCELLED
        assert all(j.state is not JobState.RUNNING for j in jobs)


async def test_launcher_creates_and_opens_a_demo_project(tmp_path: Path) -> None:
    app = PtoApp(None, start_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("d")
        await loaded(pilot)
        assert isinstance(app.screen, ProjectScreen)
        assert session_of(app).root == tmp_path / "projects" / "demo_attention"
        assert session_of(app).campaign.config.operator.demo
