"""[discipline] interleave: a round's runs alternate with runs of the frontier's own build
on the same target, and the verdict compares with those.

The exact cases run the tile-lib stand-in binary (tests/fixtures/fake_tilelib), which
replays durations from a file in the order the runs come, frontier's and round's alike:
the test chooses what each run measures, as a host that drifted would. The demo cases run
the real demo operators, locally and over a loopback sshd."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from pto_tui.backends.interleave import FrontierUnavailable
from pto_tui.backends.loop import run_round
from pto_tui.backends.resume import resume_round
from pto_tui.backends.sample_journal import SampleJournal
from pto_tui.backends.site import StepEvent
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import ChangesRequest, StartRequest
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.core.rules.verdict import decide
from pto_tui.core.vocabulary import Verdict
from tests.backends.helpers import FA_KERNEL, bring_up, demo_project, open_loop, pre_edit, start
from tests.backends.test_adaptive_runs import BASELINE, notes, replay_project, steps
from tests.core.helpers import cli_json
from tests.core.test_schemas_cli import out, validate
from tests.plugins.sshd import SshTestTarget

DRIFTED = [300.0, 301.0, 299.0]  # the baseline's build again, on a host 20% slower now
FASTER = [280.0, 281.0, 279.0]  # the round: slower than the stored baseline, faster than now


def interleaved(root: Path, *, build: str = "") -> None:
    project = ProjectFile(root / "project.toml")
    project.set("discipline.interleave", True)  # before the baseline: no discipline change later
    if build:
        project.set("commands.build", build)
    project.save()


def pairs(frontier: list[float], mine: list[float]) -> list[float]:
    """The replayed durations of interleaved runs: frontier run, round run, ..."""
    return [d for pair in zip(frontier, mine, strict=True) for d in pair]


def judged(m: Measurement, frontier: list[float]) -> Verdict:
    """The verdict rule on the round's runs against `frontier` (the replay project's discipline)."""
    return decide(build_ok=True, correct=True, same_workload=True, samples=m.samples_us, frontier=frontier,
                  noise_floor=0.02, max_spread=5.0, review_gain=100.0, confidence=0.95).verdict


async def test_a_round_alternates_with_the_frontier_and_is_judged_against_its_fresh_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one warm-up each; the round is 7% faster than the frontier now, 12% slower than stored
    replay = [999.0, *BASELINE, 999.0, 888.0, *pairs(DRIFTED, FASTER)]
    root, _ = replay_project(tmp_path, replay, repeats=3, max_repeats=3, warmup=1)
    interleaved(root)
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        stored = (root / "runs" / "iter-000" / "round.toml").read_bytes()
        start(campaign, ["TILE_S1"], {"TILE_S1": 128})
        closed = await run_round(campaign, runner, events.append)
    assert steps(events) == [
        "build", "frontier build", "frontier warm-up 1/1", "warm-up 1/1",
        "frontier benchmark 1/3", "benchmark 1/3", "frontier benchmark 2/3", "benchmark 2/3",
        "frontier benchmark 3/3", "benchmark 3/3",
    ]
    said = notes(events)
    assert said[0].startswith("building the frontier iter-000 for interleaved runs, in local:")
    assert ".pto-tui/frontier/iter-000-" in said[0]
    m = closed.measurement
    assert m.samples_us == FASTER and m.frontier_samples_us == DRIFTED and m.frontier_round == 0
    # the verdict is the rule's against the fresh runs; against the stored ones it would differ
    assert judged(m, DRIFTED) is Verdict.KEPT and judged(m, BASELINE) is Verdict.NEUTRAL
    assert closed.verdict is Verdict.KEPT
    assert closed.verdict_reason.endswith(
        "; interleaved: against 3 runs of iter-000 taken alternately with this round's on the same target")
    # the frontier's record is untouched; this round's carries the runs everywhere
    assert (root / "runs" / "iter-000" / "round.toml").read_bytes() == stored
    with Campaign(root) as campaign:
        assert campaign.round(0).measurement.samples_us == BASELINE
        assert campaign.round(1).measurement.frontier_samples_us == DRIFTED
    written = tomllib.loads((root / "runs" / "iter-001" / "round.toml").read_text())["measurement"]
    assert written["frontier_samples_us"] == DRIFTED and written["frontier_round"] == 0
    notes_md = (root / "runs" / "iter-001" / "notes.md").read_text()
    assert ("- **Interleaved frontier**: iter-000 re-measured alternately with this round on the same "
            "target: median 300.0 us over 3 runs (299.0 us to 301.0 us)") in notes_md
    shown = cli_json(capsys, "--project", str(root), "show", "1")
    validate("show", shown)
    assert shown["record"]["measurement"]["frontier_samples_us"] == DRIFTED
    assert shown["record"]["measurement"]["frontier_round"] == 0
    changed = out(capsys, "--project", root, "diff", "1", "--json")  # what the verdict compared
    validate("diff", changed)
    assert changed["duration"]["interleaved"] is True and changed["duration"]["before"]["median_us"] == 300.0
    exported = out(capsys, "--project", root, "export", "--format", "json")
    validate("export", exported)
    assert [r["frontier_samples_us"] for r in exported["rounds"]] == [[], DRIFTED]


async def test_a_later_round_reuses_the_frontier_build_and_a_new_frontier_is_built(tmp_path: Path) -> None:
    slower = [320.0, 321.0, 319.0]
    again = [250.0, 251.0, 249.0]  # the baseline's build in round 2, back to its stored speed
    kept = [200.0, 201.0, 199.0]
    drifted = [210.0, 211.0, 209.0]  # iter-002's build in round 3, faster than stored
    third = [205.0, 206.0, 204.0]
    replay = [*BASELINE, *pairs(BASELINE, slower), *pairs(again, kept), *pairs(drifted, third)]
    root, _ = replay_project(tmp_path, replay, repeats=3, max_repeats=3)
    interleaved(root)
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["TILE_S1"], {"TILE_S1": 128})
        neutral = await run_round(campaign, runner)
        assert neutral.verdict is Verdict.NEUTRAL and neutral.measurement.frontier_samples_us == BASELINE
        events: list[StepEvent] = []
        start(campaign, ["TILE_S1"], {"TILE_S1": 512})
        second = await run_round(campaign, runner, events.append)
        # the frontier is still iter-000: its build is reused, not made again
        assert "frontier build" not in steps(events)
        assert notes(events)[0].startswith("the frontier iter-000 is built for interleaved runs in local:")
        assert second.verdict is Verdict.KEPT and second.measurement.frontier_samples_us == again
        events.clear()
        start(campaign, ["TILE_S1"], {"TILE_S1": 128})
        third_round = await run_round(campaign, runner, events.append)
    # iter-002 leads now: its own files and parameters are built beside the baseline's
    assert steps(events)[:2] == ["build", "frontier build"]
    assert notes(events)[0].startswith("building the frontier iter-002 for interleaved runs")
    m = third_round.measurement
    assert m.frontier_round == 2 and m.frontier_samples_us == drifted and m.samples_us == third
    assert third_round.verdict is judged(m, drifted) and "runs of iter-002" in third_round.verdict_reason
    copies = sorted(p.name for p in (root / ".pto-tui" / "frontier").iterdir() if p.is_dir())
    assert [c.rsplit("-", 1)[0] for c in copies] == ["iter-000", "iter-002"]


async def test_a_frontier_whose_build_fails_stops_the_round_unmeasured(tmp_path: Path) -> None:
    # builds only where the project's runs/ folder is two levels up: the workspace, not the
    # frontier's copy under .pto-tui/frontier/<key>/
    root, _ = replay_project(tmp_path, [*BASELINE, 250.0], repeats=3, max_repeats=3)
    interleaved(root, build="mkdir -p build && test -d ../../runs")
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["TILE_S1"], {"TILE_S1": 128})
        with pytest.raises(FrontierUnavailable) as raised:
            await run_round(campaign, runner, events.append)
        assert raised.value.message.startswith(
            "the frontier iter-000 cannot be re-measured for interleaved runs: build failed: exit code 1")
        assert not any(s.startswith(("benchmark", "frontier benchmark")) for s in steps(events))
        record = campaign.open_round()
        assert record.number == 1 and record.measurement == Measurement()  # nothing measured


async def test_a_frontier_whose_snapshot_is_gone_stops_the_round_before_any_run(tmp_path: Path) -> None:
    root, _ = replay_project(tmp_path, [*BASELINE, *pairs(BASELINE, [320.0, 321.0, 319.0])],
                             repeats=3, max_repeats=3)
    interleaved(root)
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        # round 1 edits a file (its snapshot is not the baseline's) and is not kept
        start(campaign, ["fa_kernel.cpp"], edit=(FA_KERNEL, "Not PTO code.", "Not PTO code. Edited."))
        assert (await run_round(campaign, runner)).verdict is Verdict.NEUTRAL
        # round 2 starts from round 1; the frontier is still iter-000, whose snapshot is gone
        campaign.start_round(StartRequest(pre_edit(["TILE_S1"]), based_on=1, restore=True))
        campaign.record_changes(
            ChangesRequest(parameters={"TILE_S1": 128}, risk_justification="a test round")
        )
        snapshot = campaign.round(0).snapshot
        (root / ".pto-tui" / "snapshots" / f"{snapshot.removeprefix('own:')}.json").unlink()
        shutil.rmtree(root / ".pto-tui" / "frontier")  # round 1's copy of it would serve otherwise
        with pytest.raises(FrontierUnavailable, match=(
                f"the frontier iter-000 cannot be re-measured for interleaved runs: snapshot {snapshot} "
                "is missing from the store")):
            await run_round(campaign, runner, events.append)
        assert steps(events) == [] and campaign.open_round().measurement == Measurement()


async def test_a_resumed_round_goes_on_with_its_pairs(tmp_path: Path) -> None:
    # cut after the frontier's second run: the round's second run is next
    root, _ = replay_project(tmp_path, [*BASELINE, 282.0, 302.0, 283.0], repeats=3, max_repeats=3)
    interleaved(root)
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["TILE_S1"], {"TILE_S1": 128})
        (root / "workspace" / "kernel" / "build").mkdir(exist_ok=True)  # as the run that was left built it
        SampleJournal.begin(campaign.layout, 1, 3).write(Measurement(
            build="ok", correctness="pass", samples_us=[281.0], frontier_samples_us=[300.0, 301.0],
            frontier_round=0))
        closed: Round = await resume_round(campaign, runner, events.append)
    assert steps(events) == ["frontier build", "benchmark 2/3", "frontier benchmark 3/3", "benchmark 3/3"]
    m = closed.measurement
    assert m.samples_us == [281.0, 282.0, 283.0] and m.frontier_samples_us == [300.0, 301.0, 302.0]
    assert closed.verdict is judged(m, m.frontier_samples_us) and "interleaved" in closed.verdict_reason


async def demo_round(root: Path) -> tuple[Round, list[StepEvent]]:
    """The DSL demo's baseline, then its 128x128-tile round, with interleave on."""
    interleaved(root)
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["DEMO_ATTN_BLOCK_KV", "DEMO_ATTN_BLOCK_Q"],
              {"DEMO_ATTN_BLOCK_KV": 128, "DEMO_ATTN_BLOCK_Q": 128})
        return await run_round(campaign, runner, events.append), events


def check_demo_round(closed: Round, events: list[StepEvent]) -> None:
    runs = [s for s in steps(events) if "benchmark" in s]
    assert runs == ["frontier benchmark 1/3", "benchmark 1/3", "frontier benchmark 2/3", "benchmark 2/3",
                    "frontier benchmark 3/3", "benchmark 3/3"]
    m = closed.measurement
    assert m.frontier_round == 0 and len(m.frontier_samples_us) == 3 and len(m.samples_us) == 3
    assert closed.verdict is judged(m, m.frontier_samples_us) is Verdict.KEPT, closed.verdict_reason
    assert "interleaved: against 3 runs of iter-000" in closed.verdict_reason


async def test_the_dsl_demo_round_interleaved(tmp_path: Path) -> None:
    closed, events = await demo_round(demo_project(tmp_path, "dsl", repeats=3))
    check_demo_round(closed, events)


@pytest.mark.sshd
async def test_the_dsl_demo_round_interleaved_over_ssh(tmp_path: Path, ssh_target: SshTestTarget) -> None:
    closed, events = await demo_round(demo_project(tmp_path, "dsl", repeats=3, target=ssh_target.target))
    check_demo_round(closed, events)
    assert "frontier sync" in steps(events)
    # the frontier's own work dir beside the round's, with the baseline's kernel in it
    copies = list((tmp_path / "remote-work-frontier").iterdir())
    assert [c.name.rsplit("-", 1)[0] for c in copies] == ["iter-000"]
    assert (copies[0] / "pto-kernels" / "attention_kernel.py").is_file()
