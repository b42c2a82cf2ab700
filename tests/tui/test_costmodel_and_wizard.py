"""The costmodel console on the stand-in query tool, and a project made by the wizard."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static, TextArea

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.launcher import LauncherScreen
from pto_tui.tui.screens.project import ProjectScreen
from pto_tui.tui.screens.wizard import WizardScreen
from pto_tui.tui.widgets.costmodel_pane import CostmodelPane, complete
from tests.tui.keys import current, loaded, tab_to, type_into, wait_for
from tests.tui.projects import OPERATOR
from tests.tui.text import static_text

TILELIB_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"


def test_completion_of_instructions_dtypes_and_flags() -> None:
    assert complete("TMATM") == "TMATMUL"
    assert complete("tad") == "TADD"
    assert complete("TADD ha") == "TADD half"
    assert complete("TADD half --") == "TADD half --k"
    assert complete("TADD ") is None


async def test_query_sweep_validation_and_attach_to_evidence(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("5", *"TAD", "tab", *"ha", "tab")
        assert app.screen.query_one("#cm-query", Input).value == "TADD half "
        prompt = app.screen.query_one("#cm-prompt", Static)
        assert "-r ROWS -c COLS" in static_text(prompt)  # the guide's prompt, inline
        await pilot.press(*"-r 16 -c 64", "enter")
        table = app.screen.query_one("#cm-results", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1)
        summary = static_text(app.screen.query_one("#cm-summary", Static))
        assert "costmodel external" in summary and "TADD.half_16x64" in summary

        await pilot.press("ctrl+u", *"TEXP half -r 16,32 -c 64", "enter")
        await wait_for(pilot, lambda: table.row_count == 2)
        await pilot.press("escape", "s")  # out of the prompt; sort by cycles
        assert app.screen.query_one("#costmodel", CostmodelPane).sort_column == "cycles"
        await pilot.press("a")
        assert current(app) == "round"
        evidence = app.screen.query_one("#pe-evidence", TextArea).text
        assert "Costmodel" in evidence and "TEXP.half_32x64" in evidence


async def test_wizard_creates_a_project_and_opens_it(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(OPERATOR, tmp_path / "fa")
    app = PtoApp(None, start_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, LauncherScreen)
        await pilot.press("n")
        assert isinstance(app.screen, WizardScreen)
        await pilot.press("f", "a", "enter")  # classify ./fa
        evidence = static_text(app.screen.query_one("#wz-evidence", Static))
        assert "pto-tile-lib" in evidence and "TMATMUL" in evidence
        await type_into(pilot, "wz-spec", "128,128,1024")
        await pilot.press("ctrl+s")
        root = tmp_path / "projects" / "fa"
        assert (root / "project.toml").is_file()
        assert "128,128,1024" in (root / "project.toml").read_text()
        await tab_to(pilot, "wz-open")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectScreen))
        await loaded(pilot)
        assert app.session is not None and app.session.root == root


async def test_wizard_makes_a_cpu_sim_project_from_the_keyboard(tmp_path: Path) -> None:
    import shutil
    import tomllib

    shutil.copytree(TILELIB_REPO, tmp_path / "repo")
    app = PtoApp(None, start_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, WizardScreen)
        await pilot.press(*"repo/kernels/manual/common/fa_like", "enter")
        await type_into(pilot, "wz-spec", "64,128,512")
        await tab_to(pilot, "wz-mode")
        await pilot.press("enter", "down", "enter")  # open the list, the second mode, choose it
        await type_into(pilot, "wz-compiler", "g++")
        await pilot.press("ctrl+s")
        project = tmp_path / "projects" / "fa_like" / "project.toml"
        await wait_for(pilot, project.is_file)
        data = tomllib.loads(project.read_text())
        assert (data["target"]["mode"], data["target"]["compiler"]) == ("cpu-sim", "g++")
        assert "-DPTO_CPU_SIM_STANDALONE=ON" in data["commands"]["build"]
        assert "./fa_like_cpu_sim" in data["commands"]["benchmark"]


async def test_wizard_refuses_a_project_without_a_case_when_cases_are_listed(
        tmp_path: Path) -> None:
    import shutil

    from pto_tui.tui.screens.wizard import WizardScreen as Wizard

    demo_fa = Path(__file__).resolve().parents[2] / "pto_tui" / "demo" / "operators" / "demo_fa"
    shutil.copytree(demo_fa, tmp_path / "fa")
    app = PtoApp(None, start_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, Wizard)
        await pilot.press("f", "a", "enter")  # classify ./fa: it lists two cases
        await pilot.press("ctrl+s")
        result = static_text(app.screen.query_one("#wz-result", Static))
        assert "no case chosen; the operator lists:" in result
        assert "case_float_H_64_S0_256_S1_1024 (64,256,1024)" in result
        assert "case_float_H_128_S0_128_S1_1024" in result
        assert not (tmp_path / "projects").exists()
        await tab_to(pilot, "wz-case")
        await pilot.press("enter", "down", "enter")  # the first listed case
        await pilot.press("ctrl+s")
        text = (tmp_path / "projects" / "demo_fa" / "project.toml").read_text()
        assert "case_float_H_64_S0_256_S1_1024" in text


async def test_wizard_makes_an_ssh_project_with_its_own_ssh_config(tmp_path: Path) -> None:
    import shutil
    import tomllib

    shutil.copytree(OPERATOR, tmp_path / "fa")
    ssh_config = tmp_path / "lab_ssh_config"
    app = PtoApp(None, start_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, WizardScreen)
        await pilot.press("f", "a", "enter")
        await type_into(pilot, "wz-spec", "128,128,1024")
        await tab_to(pilot, "wz-target")
        await pilot.press("ctrl+u", *"ssh:npu-lab")  # over the "local" it starts with
        await type_into(pilot, "wz-workdir", "/home/me/fa")
        await type_into(pilot, "wz-sshconfig", str(ssh_config))
        await pilot.press("ctrl+s")
        project = tmp_path / "projects" / "fa" / "project.toml"
        await wait_for(pilot, project.is_file)
        target = tomllib.loads(project.read_text())["target"]
        assert (target["kind"], target["host"], target["work_dir"]) == ("ssh", "npu-lab", "/home/me/fa")
        assert target["ssh_config"] == str(ssh_config)
