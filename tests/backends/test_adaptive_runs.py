"""How many benchmark runs a step takes: the minimum, more while the verdict is undecided
(up to max_repeats, saying so), warm-up runs first (again on a resumed run), and TFLOPS
at the median duration.

The runs are real subprocesses of the tile-lib stand-in binary (tests/fixtures/fake_tilelib)
through the local target; it replays durations from a file, so what the verdict sees is
chosen by the test, and every run (warm-ups too) takes the next one.
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.loop import case_flops, measure, run_plan, run_round, site_for
from pto_tui.backends.site import StepEvent
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import RerunRequest
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.core.rules.verdict import RULE, decide
from pto_tui.core.vocabulary import Verdict
from tests.backends.helpers import bring_up, demo_project, open_loop, start

FAKE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_tilelib" / "fa_performance.py"
BENCH = "cd build && python3 ../fa_performance.py --npu={npu} --cases {case},{CUBE_S0},{TILE_S1}"
BASELINE = [250.0, 251.0, 249.0]
FIRST = [250.0]  # the environment round's first result (one run of the benchmark)


def replay_project(tmp_path: Path, durations: list[float], *, repeats: int = 3, max_repeats: int = 6,
                   warmup: int = 0, environment: bool = True) -> tuple[Path, Path]:
    """The demo_fa project run by the stand-in binary, replaying `durations` in order
    (after the environment round's run, when it runs)."""
    root = demo_project(tmp_path, "tile-lib", repeats=repeats, max_repeats=max_repeats, warmup=warmup)
    shutil.copy(FAKE, root / "workspace" / "kernel" / "fa_performance.py")
    replay = tmp_path / "durations.txt"
    replay.write_text("".join(f"{d}\n" for d in [*(FIRST if environment else []), *durations]))
    project = ProjectFile(root / "project.toml")
    project.set("commands.build", "mkdir -p build")
    project.set("commands.benchmark", f"{BENCH} --durations {replay}")
    project.set("discipline.noise_floor", 0.02)
    project.save()
    return root, replay


def steps(events: list[StepEvent]) -> list[str]:
    return [e.step for e in events if e.kind == "started"]


def notes(events: list[StepEvent]) -> list[str]:
    return [e.line.text for e in events
            if e.kind == "line" and e.line is not None and e.line.stream == "meta"]


async def measured_round(root: Path, events: list[StepEvent]) -> Round:
    """The baseline, then round 1 (a tile change the stand-in ignores: the replay decides
    the numbers), closed."""
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["TILE_S1"], {"TILE_S1": 128})
        return await run_round(campaign, runner, events.append)


def settled(runs: list[float], frontier: list[float]) -> bool:
    """Whether the verdict rule would stop a round's loop at these runs."""
    return decide(build_ok=True, correct=True, same_workload=True, samples=runs, frontier=frontier,
                  noise_floor=0.02, max_spread=5.0, review_gain=100.0, confidence=0.95).settled


async def test_an_undecided_round_measures_on_up_to_the_budget(tmp_path: Path) -> None:
    # no change, with runs 3% apart: the bounds cannot tell it from the 2% floor (the upper
    # one stays above 1.4 floors) before the budget of 6 runs
    same = [250.0, 258.0, 242.0, 256.0, 243.0, 257.0, 249.0, 251.0]
    root, _ = replay_project(tmp_path, [*BASELINE, *same], repeats=3, max_repeats=6)
    events: list[StepEvent] = []
    closed = await measured_round(root, events)
    assert closed.measurement.samples_us == same[:6]
    benchmarks = [s for s in steps(events) if s.startswith("benchmark")]
    assert benchmarks == ["benchmark 1/3", "benchmark 2/3", "benchmark 3/3",
                          "benchmark 4/6", "benchmark 5/6", "benchmark 6/6"]
    said = notes(events)
    assert said[0].startswith("3 runs: undecided: gain ") and said[0].endswith("; measuring up to 6")
    assert [n.split(":")[0] for n in said] == ["3 runs", "4 runs", "5 runs"]
    assert closed.verdict is Verdict.INCONCLUSIVE and "undecided" in closed.verdict_reason
    assert closed.verdict_rule == RULE


async def test_a_settled_round_takes_no_more_runs(tmp_path: Path) -> None:
    # clearly slower: neutral, settled at the minimum of runs
    root, replay = replay_project(tmp_path, [*BASELINE, 300.0, 301.0, 299.0, 1.0], max_repeats=6)
    events: list[StepEvent] = []
    closed = await measured_round(root, events)
    assert closed.measurement.samples_us == [300.0, 301.0, 299.0] and notes(events) == []
    assert closed.verdict is Verdict.NEUTRAL
    assert (replay.parent / "durations.txt.count").read_text() == "7"  # 1 + 3 + 3 runs, no more


async def test_a_kept_round_measures_on_to_the_early_stop_confidence(tmp_path: Path) -> None:
    # a clear 20% gain, kept at 95% from 3 runs, stops once 99.5% holds (or at the budget)
    runs = [200.0 + 0.1 * i for i in range(12)]
    root, _ = replay_project(tmp_path, [*BASELINE, *runs], max_repeats=12)
    events: list[StepEvent] = []
    closed = await measured_round(root, events)
    first = next(n for n in range(3, 13) if settled(runs[:n], BASELINE))
    assert 3 < first < 12, first  # the case is what the test says it is
    assert closed.measurement.samples_us == runs[:first] and closed.verdict is Verdict.KEPT
    assert "kept at 95%, not yet at 99.5%" in notes(events)[0]


async def test_more_runs_stop_as_soon_as_the_verdict_is_settled(tmp_path: Path) -> None:
    # no change but one fast run: undecided at 3 runs (the upper bound is that run's +3.7%),
    # neutral once enough runs put it in its place
    runs = [242.0, 250.0, 250.5, 249.5, 250.0, 250.2, 249.8, 250.1, 249.9, 250.3, 249.7, 250.0]
    root, _ = replay_project(tmp_path, [*BASELINE, *runs], max_repeats=12)
    closed = await measured_round(root, [])
    first = next(n for n in range(3, 13) if settled(runs[:n], BASELINE))
    assert 3 < first < 12, first
    assert closed.measurement.samples_us == runs[:first] and closed.verdict is Verdict.NEUTRAL


async def test_warm_up_runs_come_first_and_are_not_samples(tmp_path: Path) -> None:
    # two warm-ups before the baseline's runs, two before the round's: 999 and 888 are dropped
    root, _ = replay_project(
        tmp_path, [999.0, 999.0, *BASELINE, 888.0, 888.0, 200.0, 201.0, 199.0], warmup=2
    )
    events: list[StepEvent] = []
    closed = await measured_round(root, events)
    assert closed.measurement.samples_us[:3] == [200.0, 201.0, 199.0]
    assert steps(events)[1:4] == ["warm-up 1/2", "warm-up 2/2", "benchmark 1/3"]
    with Campaign(root) as campaign:
        assert campaign.round(0).measurement.samples_us == BASELINE


async def test_a_rerun_warms_up_before_its_runs_too(tmp_path: Path) -> None:
    # round 1 undecided at its budget (inconclusive), then its rerun: each measured after
    # its own warm-up, whose 888 / 777 are no samples
    same = [250.0, 258.0, 242.0]
    root, _ = replay_project(tmp_path, [999.0, *BASELINE, 888.0, *same, 777.0, 300.0, 301.0, 299.0],
                             warmup=1, max_repeats=3)
    first = await measured_round(root, [])
    assert first.verdict is Verdict.INCONCLUSIVE and first.measurement.samples_us == same
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        rerun = campaign.rerun_round(RerunRequest(first.number))
        closed = await run_round(campaign, runner, events.append)
    assert closed.number == rerun.number == 2 and closed.rerun_of == 1
    assert steps(events) == ["build", "warm-up 1/1", "benchmark 1/3", "benchmark 2/3", "benchmark 3/3"]
    assert closed.measurement.samples_us == [300.0, 301.0, 299.0]


async def test_a_resumed_run_warms_up_again_and_a_full_one_does_not(tmp_path: Path) -> None:
    root, _ = replay_project(tmp_path, [777.0, 260.0, 261.0, 262.0], warmup=1, max_repeats=3,
                             environment=False)
    (root / "workspace" / "kernel" / "build").mkdir()  # as the run that was left built it
    so_far = Measurement(build="ok", correctness="pass", samples_us=[259.0, 258.0])
    async with open_loop(root) as (campaign, runner):
        events: list[StepEvent] = []
        site = site_for(campaign, runner, events.append)
        backend = backend_for(site, case_flops(campaign.config.case, campaign.config.operator))
        parameters = {name: t.value for name, t in campaign.config.tunables.items()}
        plan = run_plan(campaign.config)
        m = await measure(backend, parameters, plan, so_far=so_far)
        assert steps(events) == ["warm-up 1/1", "benchmark 3/3"]
        assert m.samples_us == [259.0, 258.0, 260.0]  # the warm-up's 777 is not a sample
        events.clear()
        again = await measure(backend, parameters, plan, so_far=m)
        assert steps(events) == [] and again.samples_us == m.samples_us


async def test_tflops_is_the_median_run_s(tmp_path: Path) -> None:
    runs = [300.0, 200.0, 250.0]  # the last run is not the median one
    root, _ = replay_project(tmp_path, [*BASELINE, *runs], max_repeats=3)
    m = (await measured_round(root, [])).measurement
    config = ProjectFile(root / "project.toml").config
    flops = case_flops(config.case, config.operator)
    assert flops is not None and m.tflops is not None
    assert abs(m.tflops - flops / (statistics.median(runs) * 1e-6) / 1e12) < 1e-9


def test_a_benchmark_that_takes_warmup_warms_up_itself(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl", warmup=4)
    config = ProjectFile(root / "project.toml").config
    assert "--warmup {warmup}" in config.commands.benchmark
    assert run_plan(config).warmup == 0  # the runs warm up inside, 4 times each
    tile = demo_project(tmp_path / "tile", "tile-lib", warmup=4)
    assert run_plan(ProjectFile(tile / "project.toml").config).warmup == 4
