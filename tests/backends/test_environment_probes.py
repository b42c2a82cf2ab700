"""The environment round's probes say what they checked and what to do next; a failing
[target] env_setup is its own probe (the target still answers), and the round can be run
again once it is fixed. Real jobs on the local target."""

from __future__ import annotations

import shutil
from pathlib import Path

from pto_tui.backends.environment import run_environment
from pto_tui.core.project.file import ProjectFile
from tests.backends.helpers import demo_project, open_loop
from tests.core.helpers import cli

TILE_LIB_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"


def set_keys(root: Path, **keys: str) -> None:
    project = ProjectFile(root / "project.toml")
    for key, value in keys.items():
        project.set(key.replace("__", "."), value)
    project.save()


async def test_a_failing_env_setup_is_its_own_probe_and_can_be_fixed(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl")
    set_keys(root, target__env_setup="source /no/such/ascend/set_env.sh")
    async with open_loop(root) as (campaign, runner):
        notes = await run_environment(campaign, runner)
    assert notes.probes["target reachable"] is True  # the target answers
    assert notes.probes["environment set-up"] is False
    assert not notes.passed
    problem = next(p for p in notes.problems if p.startswith("environment set-up:"))
    assert "checked: [target] env_setup runs and exits 0" in problem
    assert "hint: fix [target] env_setup" in problem
    assert any("other checks were not run" in p for p in notes.problems)
    assert "workspace uploaded" not in notes.probes  # nothing ran in a half-made environment

    set_keys(root, target__env_setup="true")
    async with open_loop(root) as (campaign, runner):
        again = await run_environment(campaign, runner)
    assert again.passed, again.problems
    assert again.probes["environment set-up"] is True


async def test_a_missing_compiler_says_what_was_checked_and_what_to_install(tmp_path: Path) -> None:
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(TILE_LIB_REPO, source)
    projects = tmp_path / "projects"
    assert cli("new", source / "kernels/manual/common/fa_like", "--case-spec", "64,128,512",
               "--mode", "cpu-sim", "--compiler", "no-such-clang++", "--projects-root", projects) == 0
    async with open_loop(projects / "fa_like") as (campaign, runner):
        notes = await run_environment(campaign, runner)
    name = "no-such-clang++ (cpu-sim, instead of Bisheng)"
    assert notes.probes[name] is False and not notes.passed
    problem = next(p for p in notes.problems if p.startswith(name))
    assert "checked: no-such-clang++ is on PATH and runs" in problem
    assert "hint: install the compiler ([target] compiler;" in problem and "clang-16" in problem
