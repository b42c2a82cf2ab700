"""The loop end to end on the built-in demo operators, on the local target: environment
round, torch_npu stand-in, baseline, and rounds with each verdict. Real builds, real runs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pto_tui.backends.environment import run_environment
from pto_tui.backends.loop import run_baseline, run_round
from pto_tui.backends.reference import run_reference
from pto_tui.backends.site import StepEvent, StepInterrupted
from pto_tui.core.errors import RuleViolation
from pto_tui.core.vocabulary import Verdict
from tests.backends.helpers import DSL_KERNEL, FA_KERNEL, bring_up, demo_project, open_loop, start


async def test_dsl_demo_campaign(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl")
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        notes = await run_environment(campaign, runner, events.append)
        assert notes.passed, notes.problems
        assert notes.probes["one valid result"] and notes.probes["full build"]
        assert notes.versions["numpy"] and "report.json" in notes.first_valid_result
        torch = await run_reference(campaign, runner)
        assert "standing in for torch_npu" in torch.label and torch.runs == 10
        baseline = await run_baseline(campaign, runner)
        assert baseline.is_closed and len(baseline.measurement.samples_us) == 3
        assert baseline.measurement.reference_us  # the report's own baseline column

        # kept: 128x128 tiles are several times faster than the default 16x16
        start(
            campaign,
            ["DEMO_ATTN_BLOCK_KV", "DEMO_ATTN_BLOCK_Q"],
            {"DEMO_ATTN_BLOCK_KV": 128, "DEMO_ATTN_BLOCK_Q": 128},
        )
        kept = await run_round(campaign, runner, events.append)
        assert kept.verdict is Verdict.KEPT, kept.verdict_reason

        # neutral: back to tiny KV tiles, clearly slower than the frontier
        start(campaign, ["DEMO_ATTN_BLOCK_KV"], {"DEMO_ATTN_BLOCK_KV": 8})
        slower = await run_round(campaign, runner)
        assert slower.verdict is Verdict.NEUTRAL and "slower" in slower.verdict_reason
        assert slower.changes.based_on == kept.number

        # failure: a kernel that skips the online-softmax rescale computes wrong results
        start(
            campaign,
            ["attention_kernel.py"],
            edit=(DSL_KERNEL, "acc = acc * correction + probs @ v_blk", "acc = acc + probs @ v_blk"),
        )
        wrong = await run_round(campaign, runner)
        assert wrong.verdict is Verdict.FAILURE and wrong.measurement.correctness == "fail"
        assert wrong.measurement.samples_us == []  # invalid numbers are not kept

        # failure: a build failure (a syntax error in the kernel)
        start(
            campaign,
            ["attention_kernel.py"],
            edit=(DSL_KERNEL, "def tiled_attention(", "def tiled_attention(("),
        )
        broken = await run_round(campaign, runner)
        assert broken.verdict is Verdict.FAILURE and broken.measurement.build == "failed"
        assert "build failed" in broken.verdict_reason
    # the records on disk, and the job logs kept per step
    text = (root / "ITERATIONS.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    assert "| kept" in rows["1"] and "| neutral |" in rows["2"] and "| failure |" in rows["3"]
    assert "standing in for torch_npu" in text
    logs = list((root / ".pto-tui/jobs").glob("*/output.log"))
    assert logs and any("report:" in p.read_text(errors="replace") for p in logs)
    assert any(e.kind == "line" and e.step.startswith("benchmark") for e in events)


async def test_a_noisy_round_is_marked_noisy_and_judged_by_its_bounds(tmp_path: Path) -> None:
    # a spread limit no real CPU timing meets, set before the baseline (a later change would
    # need a reason): the measurements are marked noisy, and the verdict still comes from
    # the gain's bounds (the spread grows with the runs: it cannot be what decides)
    root = demo_project(tmp_path, "dsl", max_spread=0.0001)
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        assert campaign.baseline_record().stability == "noisy"  # type: ignore[union-attr]
        start(campaign, ["DEMO_ATTN_BLOCK_KV"], {"DEMO_ATTN_BLOCK_KV": 64})
        record = await run_round(campaign, runner)
        assert record.stability == "noisy" and record.verdict is not Verdict.FAILURE
        reason = record.verdict_reason
        assert "95% bounds" in reason and "against an unstable baseline" in reason


async def test_protected_file_edit_is_refused_before_running(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl")
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["attention_kernel.py"])
        bench = root / "workspace/pto-kernels/bench_attention.py"
        bench.write_text(bench.read_text().replace("args.repeat", "1"))
        jobs_before = len(list((root / ".pto-tui/jobs").iterdir()))
        with pytest.raises(RuleViolation) as info:
            await run_round(campaign, runner)
        assert info.value.rule == "editable-scope"
        assert len(list((root / ".pto-tui/jobs").iterdir())) == jobs_before  # nothing ran
        assert not campaign.open_round().is_closed


async def test_cancelled_benchmark_leaves_the_round_open(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl", repeats=7)
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        start(campaign, ["DEMO_ATTN_BLOCK_KV"], {"DEMO_ATTN_BLOCK_KV": 8})
        benchmark_started = asyncio.Event()

        def watch(event: StepEvent) -> None:
            if event.kind == "started" and event.step.startswith("benchmark 2/"):
                benchmark_started.set()

        task = asyncio.create_task(run_round(campaign, runner, watch))
        await asyncio.wait_for(benchmark_started.wait(), 60)
        task.cancel()
        with pytest.raises((asyncio.CancelledError, StepInterrupted)):
            await task
        record = campaign.open_round()
        assert not record.is_closed and record.measurement.samples_us == []
        assert record.verdict is None
        records = [p for p in (root / ".pto-tui/jobs").iterdir() if p.is_dir()]
        assert any('"state": "cancelled"' in (p / "record.json").read_text() for p in records)
        # no benchmark process survives the cancellation
        await asyncio.sleep(0.5)
        alive = [pid for pid in os.listdir("/proc") if pid.isdigit() and _is_bench(pid, root)]
        assert alive == []


def _is_bench(pid: str, root: Path) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    return "bench_attention.py" in cmdline and cwd.startswith(str(root))


async def test_tile_lib_demo_campaign(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "tile-lib")
    async with open_loop(root) as (campaign, runner):
        notes = await run_environment(campaign, runner)
        assert notes.passed, notes.problems
        assert "g++" in notes.versions and "report.csv" in notes.first_valid_result
        await run_reference(campaign, runner)
        await run_baseline(campaign, runner)
        start(campaign, ["CUBE_S0"], {"CUBE_S0": 64})
        kept = await run_round(campaign, runner)
        assert kept.verdict is Verdict.KEPT, kept.verdict_reason
        assert kept.measurement.tflops is not None
        # the binary's exit code is 0 on a failed test: correctness comes from its output
        start(
            campaign,
            ["fa_kernel.cpp"],
            edit=(FA_KERNEL, "RescaleAccumulator<CUBE_S0, HEAD>(acc.data(), correction.data());", ""),
        )
        wrong = await run_round(campaign, runner)
        assert wrong.verdict is Verdict.FAILURE and wrong.measurement.correctness == "fail"
        assert "test failed" in wrong.verdict_reason or "test failed" in wrong.measurement.problem
        start(campaign, ["fa_kernel.cpp"], edit=(FA_KERNEL, "#include", "#inclde"))
        broken = await run_round(campaign, runner)
        assert broken.measurement.build == "failed" and broken.verdict is Verdict.FAILURE
        # the compiler's first error is quoted, not make's last line
        why = broken.measurement.problem + " " + broken.verdict_reason
        assert "error: invalid preprocessing directive #inclde" in why, why
        assert "make[" not in why
    patch = (root / "runs/iter-001/patch.diff").read_text()
    assert patch.startswith("# 本轮为调参类迭代\n# 参数变更：\n-  CUBE_S0=2\n+  CUBE_S0=64\n")
