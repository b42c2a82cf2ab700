"""The smaller things a working day tripped over, each by real keys on a real project:
compare at 80 columns, j/k in lists, keys.toml typos named, square brackets kept in
notices, this app's wording for a rule's fix, the launcher's first row, the costmodel
history, an empty filter explained, a protected file warned of and reverted, a bigger
tile caught by what the kernel does with it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from pto_tui.core.project.file import ProjectFile
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.compare import CompareScreen
from pto_tui.tui.screens.document import DocumentScreen
from pto_tui.tui.screens.editor import FilePicker, TextEditor
from pto_tui.tui.screens.job_log import JobLogScreen
from pto_tui.tui.screens.project import ProjectScreen
from pto_tui.tui.screens.round_detail import RoundScreen
from pto_tui.tui.widgets.costmodel_pane import QueryInput
from tests.tui.keys import loaded, rounds_drawn, tab_to, wait_for
from tests.tui.projects import pre_edit_flags, run
from tests.tui.test_demo_loop import start_scripted_round
from tests.tui.text import screen_text, static_text


def demo_round(root: Path, hypothesis: str, knob: str, value: str, samples: str) -> None:
    p = ["--project", str(root)]
    run(*p, "round", "start", *pre_edit_flags(hypothesis, scope=knob), "--restore")
    run(*p, "round", "changes", "--set", f"{knob}={value}",
        "--justify", "the tile still fits the cache")
    run(*p, "round", "measure", "--build", "ok", "--correctness", "pass", "--samples", samples,
        "--tflops", "0.0125")
    run(*p, "round", "close", "--analysis", "measured", "--next", "on")


async def test_compare_keeps_the_parameter_name_and_tflops_digits_at_80_columns(
        demo_root: Path) -> None:
    demo_round(demo_root, "taller q tiles", "DEMO_ATTN_BLOCK_Q", "128", "9000,9100,8900")
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 60)) as pilot:  # 80 columns, every row on the screen
        await loaded(pilot)
        await rounds_drawn(pilot)
        await pilot.press("space", "j", "space", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        shown = "\n".join(screen_text(app))
        assert "DEMO_ATTN_BLOCK_Q" in shown and "DEMO_ATTN_BLOCK_…" not in shown
        assert "0.0125" in shown  # three significant digits, not 0.01


async def test_j_and_k_move_in_the_logs_tab_and_the_file_picker(demo_root: Path) -> None:
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await rounds_drawn(pilot)
        await pilot.press("enter", "l")
        await wait_for(pilot, lambda: isinstance(app.screen, RoundScreen))
        logs = app.screen.query_one("#round-logs", OptionList)
        await pilot.press("j", "j")
        first = logs.highlighted
        assert first is not None and first >= 1
        await pilot.press("k")
        assert logs.highlighted == first - 1
        # enter opens what the cursor is on (the list has the keys once its tab is shown)
        chosen = str(logs.get_option_at_index(logs.highlighted).id)
        await pilot.press("enter")
        opened = JobLogScreen if chosen.startswith("job:") else DocumentScreen
        await wait_for(pilot, lambda: isinstance(app.screen, opened))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RoundScreen))
        await pilot.press("escape")
    start_scripted_round(demo_root, 2)  # an open round: e edits
    app = PtoApp(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3", "e")
        await wait_for(pilot, lambda: isinstance(app.screen, FilePicker))
        listing = app.screen.query_one(OptionList)
        assert listing.highlighted == 0
        await pilot.press("j", "j", "k")
        assert listing.highlighted == 1


async def test_an_unknown_id_in_keys_toml_is_named_once(campaign_root: Path) -> None:
    import os

    keys = Path(os.environ["PTO_TUI_HOME"]) / "keys.toml"
    keys.write_text('[keys]\n"rounds.sort" = "o"\n"pane.roundz" = "f9"\n', encoding="utf-8")
    try:
        app = PtoApp(campaign_root)
        async with app.run_test(size=(100, 30)) as pilot:
            await loaded(pilot)
            await wait_for(pilot, lambda: any("pane.roundz" in n.message
                                              for n in app._notifications))
            [notice] = [n for n in app._notifications if "pane.roundz" in n.message]
            assert str(keys) in notice.message and "rounds.sort" not in notice.message
            await pilot.press("o")  # the known id is remapped
            assert app.screen.query_one("#rounds").sort_index == 1  # type: ignore[attr-defined]
    finally:
        keys.unlink()


async def test_a_refusal_keeps_its_brackets_and_names_this_apps_field(
        campaign_root: Path) -> None:
    """[discipline] changed mid-campaign: the refusal, as a notice and under Changes, says
    "[discipline]" (not swallowed as markup) and the field that answers it here."""
    run("--project", str(campaign_root), "round", "start", *pre_edit_flags("a sync period"),
        "--recheck", "the tile shape still bounds the cube", "--new-direction", "a new tiling direction")
    project = ProjectFile(campaign_root / "project.toml")
    project.set("discipline.noise_floor", 0.05)
    project.save()
    app = PtoApp(campaign_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await tab_to(pilot, "or-record")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("discipline" in n.message for n in app._notifications))
        [notice] = [n for n in app._notifications if "discipline" in n.message]
        assert notice.markup is False and "[discipline] changed since" in notice.message
        assert "the Round pane's [discipline] reason field" in notice.message
        assert "--approve-discipline" not in notice.message
        changes = static_text(app.screen.query_one("#or-changes", Static))
        assert "[discipline] changed since" in changes and "--approve" not in changes


async def test_the_launcher_opens_the_first_project_on_enter(campaign_root: Path) -> None:
    app = PtoApp(None, start_dir=campaign_root.parent.parent)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await loaded(pilot)
        assert isinstance(app.screen, ProjectScreen)


async def test_the_costmodel_history_keeps_a_bad_query_and_starts_from_the_newest(
        campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("f5", *"TEXP float -r 16 -c 64", "enter")
        prompt = app.screen.query_one(QueryInput)
        await pilot.press("ctrl+u", *"TMATMUL half hlf", "enter")  # does not parse: kept
        assert prompt.history[-2:] == ["TEXP float -r 16 -c 64", "TMATMUL half hlf"]
        await pilot.press("up", "up")
        assert prompt.value == "TEXP float -r 16 -c 64"
        await pilot.press("ctrl+u", "up")  # cleared: up is the newest again, not older
        assert prompt.value == "TMATMUL half hlf"


async def test_a_filter_no_round_can_match_says_why(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *"verdict:foo")
        await pilot.pause()
        counts = static_text(app.screen.query_one("#rounds-counts", Static))
        assert "0/5 shown" in counts and "no verdict starts with 'foo'" in counts
        await pilot.press("escape")
        assert "no verdict" not in static_text(app.screen.query_one("#rounds-counts", Static))


async def test_a_protected_file_is_warned_of_and_an_edit_reverted(demo_root: Path) -> None:
    start_scripted_round(demo_root, 2)  # its scope: the kernel file
    kernel = demo_root / "workspace" / "pto-kernels" / "attention_kernel.py"
    original = kernel.read_text(encoding="utf-8")
    kernel.write_text(original + "# an edit to undo\n", encoding="utf-8")
    app = PtoApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("3", "e")
        await wait_for(pilot, lambda: isinstance(app.screen, FilePicker))
        listing = app.screen.query_one(OptionList)
        prompts = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        bench = next(i for i, text in enumerate(prompts) if text.startswith("bench_attention.py"))
        assert prompts[bench].endswith("(protected)")
        await pilot.press(*["j"] * bench, "enter")
        assert isinstance(app.screen, FilePicker)  # warned, not opened
        assert "bench_attention.py is protected" in static_text(
            app.screen.query_one("#picker-status", Static))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TextEditor))  # asked twice: opened
        await pilot.press("escape", "e")
        await wait_for(pilot, lambda: isinstance(app.screen, FilePicker))
        at = next(i for i, text in enumerate(prompts) if text == "attention_kernel.py")
        await pilot.press(*["j"] * at, "r")
        assert kernel.read_text(encoding="utf-8") != original  # r once only asks
        await pilot.press("r")
        assert kernel.read_text(encoding="utf-8") == original
        assert "reverted to iter-001's start" in static_text(
            app.screen.query_one("#picker-status", Static))


def test_a_bigger_q_tile_is_high_risk_by_its_use(demo_root: Path) -> None:
    p = ["--project", str(demo_root)]
    run(*p, "round", "start", *pre_edit_flags("taller q", scope="DEMO_ATTN_BLOCK_Q"), "--restore")
    run(*p, "round", "changes", "--set", "DEMO_ATTN_BLOCK_Q=128")
    record = tomllib.loads((demo_root / "runs/iter-001/round.toml").read_text(encoding="utf-8"))
    assert any("bigger tile DEMO_ATTN_BLOCK_Q" in risk for risk in record["changes"]["high_risk"])
    with pytest.raises(AssertionError, match="high-risk-justification"):
        run(*p, "round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "1,2,3")
