"""`pto-tui explore`: three values of a knob as three rounds built and measured at once, on
the test cluster's two NPU slots (Slurm jobs) and on a local target with two NPUs, each
closed in order with its own verdict against the same base; the gates apply to each; a
cancelled group leaves its rounds open and `explore --continue` finishes them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pto_tui.backends.explore import open_group, run_group
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.explore import ExploreRequest
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.rounds.records import ChecklistItem, PreEdit
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.jobs.local_slurm import LocalSlurm
from pto_tui.jobs.model import JobRecord, list_records
from pto_tui.jobs.runner import JobRunner
from tests.backends.helpers import demo_project
from tests.backends.test_slurm_campaign import slurm_demo
from tests.core.helpers import cli, cli_json, pre_edit_args
from tests.core.test_schemas_cli import validate

KNOB = "DEMO_ATTN_BLOCK_Q"
SHARED = [a for a in pre_edit_args(scope=()) if a not in ("--hypothesis", "bigger tiles cut reloads")]
JUSTIFY = ["--justify", "the demo's tile fits the CPU cache easily"]


def most_at_once(records: list[JobRecord]) -> int:
    """How many of these jobs ran at the same time, at most."""
    edges = sorted([(r.started_at or 0, 1) for r in records] + [(r.ended_at or 0, -1) for r in records])
    running = best = 0
    for _time, step in edges:
        running += step
        best = max(best, running)
    return best


def on_the_node(records: list[JobRecord]) -> list[JobRecord]:
    """Slurm jobs with the times they really ran on the node: the batch script's own start
    (J/placement) and end (J/rc written); the records' own times are those pto-tui saw."""
    real = []
    for r in records:
        folder = Path(r.remote_dir)
        start = float((folder / "placement").read_text().split()[2])
        real.append(r.evolve(started_at=start, ended_at=(folder / "rc").stat().st_mtime))
    return real


def measured_jobs(root: Path, rounds: list[int]) -> list[JobRecord]:
    return [r for r in list_records(root / ".pto-tui/jobs")
            if r.round_number in rounds and " benchmark " in f" {r.name.split(' ', 1)[1]}"
            and ":" not in r.name and r.started_at and r.ended_at]


@pytest.mark.slurm
def test_three_values_on_two_slurm_slots_close_in_order_against_the_same_base(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    p = ["--project", root]
    assert cli(*p, "env") == 0 and cli(*p, "baseline") == 0
    out = cli_json(capsys, *p, "explore", KNOB, "--values", "32,64,128", *SHARED, *JUSTIFY, "--yes")
    assert out["group"] == "explore-001" and out["based_on"] == 0 and out["interrupted"] == []
    rounds = out["rounds"]
    assert [r["number"] for r in rounds] == [1, 2, 3]
    assert [r["changes"]["snapshot"][KNOB] for r in rounds] == [32, 64, 128]
    for record in rounds:
        assert record["status"] == "closed" and record["verdict"] in ("kept", "neutral", "inconclusive")
        assert record["group"] == "explore-001" and record["changes"]["based_on"] == 0
        assert len(record["measurement"]["placements"]) == len(record["measurement"]["samples_us"])
    # each judged against iter-000, though an earlier one of the group may be kept by then
    assert all("3 against 3 runs" in r["verdict_reason"] for r in rounds if r["verdict"] == "kept")
    jobs = measured_jobs(root, [1, 2, 3])
    assert {j.round_number for j in jobs} == {1, 2, 3}
    assert most_at_once(on_the_node(jobs)) == 2  # two NPU slots: never a third at once
    notes = (root / "runs/iter-002/notes.md").read_text()
    assert "Explore group: explore-001 (rounds started together, one value each; judged against " \
        "iter-000, its base)" in notes


def local_two_npus(tmp_path: Path) -> Path:
    root = demo_project(tmp_path, "dsl", repeats=3)
    project = ProjectFile(root / "project.toml")
    project.set("target.npu_ids", [0, 1])
    benchmark = project.config.commands.benchmark
    project.set("commands.benchmark", f"echo on-npu-$PTO_NPU_ID-{{npu}} && {benchmark}")
    project.save()
    return root


def test_on_a_local_target_each_round_holds_one_of_its_npus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = local_two_npus(tmp_path)
    p = ["--project", root]
    assert cli(*p, "env") == 0 and cli(*p, "baseline") == 0
    out = cli_json(capsys, *p, "explore", KNOB, "--values", "32,64,128", *SHARED, *JUSTIFY, "--yes")
    validate("explore", out)
    assert [r["status"] for r in out["rounds"]] == ["closed"] * 3 and out["slots"] == 2
    jobs = measured_jobs(root, [1, 2, 3])
    npu_of = {}
    for job in jobs:
        said = [line for line in Path(job.log_path).read_text().splitlines() if " stdout on-npu-" in line]
        npu, placeholder = said[0].rsplit("on-npu-", 1)[1].split("-")
        assert npu == placeholder  # PTO_NPU_ID and {npu} agree: the round's own NPU
        npu_of[job.id] = npu
    assert set(npu_of.values()) == {"0", "1"} and most_at_once(jobs) == 2
    spans = {j.id: (j.started_at or 0.0, j.ended_at or 0.0) for j in jobs}
    for a, (a_start, a_end) in spans.items():  # two runs at once never share an NPU
        for b, (b_start, b_end) in spans.items():
            overlap = a < b and a_start < b_end and b_start < a_end
            assert not overlap or npu_of[a] != npu_of[b]


def test_every_gate_applies_to_each_round_and_a_refusal_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = local_two_npus(tmp_path)
    p = ["--project", root]
    assert cli(*p, "env") == 0 and cli(*p, "baseline") == 0
    for value in ("8", "16"):  # two rounds without a kept verdict (the demo's 8 is slower)
        assert cli(*p, "round", "start", *pre_edit_args(scope=(KNOB,))) == 0
        assert cli(*p, "round", "changes", "--set", f"{KNOB}={value}", *JUSTIFY) == 0
        assert cli(*p, "round", "measure", "--build", "ok", "--correctness", "pass",
                   "--samples", "900000,900001,900002") == 0
        assert cli(*p, "round", "close") == 0
    capsys.readouterr()
    assert cli(*p, "explore", KNOB, "--values", "32,64", *SHARED, *JUSTIFY, "--yes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'three-round-rule': candidate 2: 3 rounds in a row without a kept " \
        "verdict, 1 of them of this explore group, still open" in err
    assert "candidate 1:" not in err  # two closed without gain: the first may start
    assert not (root / "runs/iter-003").exists()  # refused whole: nothing written
    again = ["--recheck", "the tile shape is still what the profile shows",
             "--new-direction", "sweep the query block size instead of the kv block"]
    out = cli_json(capsys, *p, "explore", KNOB, "--values", "32,64", *SHARED, *JUSTIFY, *again, "--yes")
    assert [r["number"] for r in out["rounds"]] == [3, 4]


async def test_cancelling_the_group_leaves_its_rounds_open_and_continue_finishes_them(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    p = ["--project", root]
    for step in ("env", "baseline"):  # the CLI runs its own event loop: off this one
        assert await asyncio.to_thread(cli, *p, step) == 0
    (tmp_path / "slow").write_text("30")  # every benchmark run waits long enough to be cancelled
    with Campaign(root, write=True) as campaign:
        pre = cli_pre_edit()
        rounds = campaign.start_group(ExploreRequest(KNOB, (32, 64, 128), pre,
                                                     risk_justification=JUSTIFY[1]))
        runner = JobRunner(root / ".pto-tui/jobs")
        group = asyncio.ensure_future(run_group(campaign, runner, rounds=rounds))
        try:
            await until(lambda: len([r for r in list_records(root / ".pto-tui/jobs")
                                     if r.scheduler_id and not r.state.is_final]) == 3)
            group.cancel()
            with pytest.raises(asyncio.CancelledError):
                await group
        finally:
            await runner.close()
        assert all(not r.is_closed for r in open_group(campaign))
    records = [r for r in list_records(root / ".pto-tui/jobs") if r.scheduler_id]
    assert records and all(r.state.value == "cancelled" for r in records if r.round_number)
    await until(lambda: not slurm.jobs(), 15)  # every Slurm job of the group cancelled (after COMPLETING)
    (tmp_path / "slow").unlink()
    out = await asyncio.to_thread(cli_json, capsys, *p, "explore", "--continue", "--yes")
    assert [r["number"] for r in out["rounds"]] == [1, 2, 3]
    assert all(r["status"] == "closed" for r in out["rounds"])


def cli_pre_edit() -> PreEdit:
    pre = PreEdit(kernel="demo attention", bottleneck="bad tile shape", evidence="the tiles are small",
                  why_ascend="fewer passes over the tiles", expected_metric="duration_us",
                  main_risk="the tile may not fit", correctness_plan="the report's own check")
    pre.checklist = {key: ChecklistItem(True, f"checked {key}") for key in HARDWARE_CHECKLIST}
    return pre


async def until(check: object, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not (callable(check) and check()):
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.1)

