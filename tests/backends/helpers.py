"""Demo projects in tmp dirs, configured for tests, and the round steps as core calls."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from pto_tui.backends.environment import run_environment
from pto_tui.backends.loop import run_baseline
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.campaign.requests import ChangesRequest, StartRequest
from pto_tui.core.project.config import Scalar, Target
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.rounds.records import ChecklistItem, PreEdit
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.jobs.runner import JobRunner

DSL_KERNEL = "workspace/pto-kernels/attention_kernel.py"
FA_KERNEL = "workspace/kernel/fa_kernel.cpp"


def demo_project(
    tmp_path: Path,
    which: str,
    *,
    repeats: int = 3,
    max_spread: float = 5.0,
    review_gain: float = 100.0,
    target: Target | None = None,
    max_repeats: int | None = None,
    warmup: int | None = None,
) -> Path:
    """A demo project whose discipline suits a test: few repeats, and a spread limit so wide
    that a busy machine (even CPU time swings by 150% on an overloaded VM) cannot turn a
    several-fold gain into 'inconclusive'; the gain must still exceed the measured noise.
    Tests of the noisy path set the limit tight on purpose. The review threshold is raised:
    the demo's block-size round reaches 11x on a loaded CPU, and the review hold for large
    gains has tests of its own. The number of runs is fixed (max_repeats = repeats) unless
    a test asks for adaptive runs; the warm-ups are the demo's unless a test sets them."""
    root = create_demo_project(which, tmp_path / "projects")
    project = ProjectFile(root / "project.toml")
    project.set("discipline.repeats", repeats)
    project.set("discipline.max_repeats", repeats if max_repeats is None else max_repeats)
    if warmup is not None:
        project.set("discipline.warmup", warmup)
    project.set("discipline.max_spread", max_spread)
    project.set("discipline.review_gain", review_gain)
    if target is not None:
        project.set("target.kind", target.kind)
        project.set("target.host", target.host)
        project.set("target.work_dir", target.work_dir)
        project.set("target.ssh_config", target.ssh_config)
        # the remote shell finds this interpreter (with numpy) first, as an env_setup line would
        project.set("target.env_setup", f"export PATH={Path(sys.executable).parent}:$PATH")
    project.save()
    return root


def pre_edit(scope: list[str], hypothesis: str = "bigger tiles cut per-tile overhead") -> PreEdit:
    return PreEdit(
        kernel="demo operator, default case",
        bottleneck="bad tile shape",
        evidence="iter-000 timings",
        hypothesis=hypothesis,
        why_ascend="fewer tile steps",
        expected_metric="median duration",
        main_risk="bigger working set",
        correctness_plan="the benchmark checks against the reference every run",
        checklist={key: ChecklistItem(True, "checked") for key in HARDWARE_CHECKLIST},
        scope=scope,
        bottleneck_recheck="re-checked the class",
        new_direction="another dimension",
    )


def start(
    campaign: Campaign,
    scope: list[str],
    parameters: dict[str, Scalar] | None = None,
    edit: tuple[str, str, str] | None = None,
) -> None:
    """Open a round from the frontier, make its change and record it."""
    campaign.start_round(StartRequest(pre_edit(scope), restore=True))
    if edit:
        rel, old, new = edit
        path = campaign.layout.root / rel
        text = path.read_text()
        assert old in text, f"{old!r} not in {rel}"
        path.write_text(text.replace(old, new))
    campaign.record_changes(ChangesRequest(parameters=parameters or {}, risk_justification="a test round"))


@contextlib.asynccontextmanager
async def open_loop(root: Path) -> AsyncIterator[tuple[Campaign, JobRunner]]:
    """The project opened for writing, with a job runner whose logs go into it."""
    with Campaign(root, write=True) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            yield campaign, runner
        finally:
            await runner.close()


async def bring_up(campaign: Campaign, runner: JobRunner) -> None:
    """Environment round (which must pass) and iter-000."""
    notes = await run_environment(campaign, runner)
    assert notes.passed, notes.problems
    await run_baseline(campaign, runner)
