"""A scripted campaign on a built-in demo project: the whole loop, headless.

Environment round, the CPU stand-in for the torch_npu baseline, iter-000, then a few
rounds whose hypotheses are written out like a person's. The verdicts are not scripted:
they come from real builds and real, noisy timings, so they may differ run to run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.backends.environment import run_environment
from pto_tui.backends.loop import run_baseline, run_round
from pto_tui.backends.reference import run_reference
from pto_tui.backends.site import EventSink
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import ChangesRequest, StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.project.config import Scalar, operator_folder
from pto_tui.core.rounds.records import ChecklistItem, PreEdit, Round
from pto_tui.core.vocabulary import HARDWARE_CHECKLIST
from pto_tui.jobs.runner import JobRunner


@dataclass(frozen=True)
class ScriptedRound:
    title: str
    bottleneck: str
    evidence: str
    hypothesis: str
    why: str
    risk: str
    parameters: dict[str, Scalar] = field(default_factory=dict)
    edit: tuple[str, str, str] | None = None  # (file under the operator folder, old, new)
    justification: str = ""
    phase: str = "parameter validation"


DSL_ROUNDS = (
    ScriptedRound(
        title="wider KV tiles",
        bottleneck="small-transfer inefficiency",
        evidence="iter-000: 16x16 tiles mean 1024 tile steps per head for S=512",
        hypothesis="64-wide KV tiles cut the per-tile overhead four-fold",
        why="fewer, larger tile transfers amortise the fixed cost per tile",
        risk="a larger working set per tile",
        parameters={"DEMO_ATTN_BLOCK_KV": 64},
        justification="a 16x64 float32 tile is 4 KiB: far below any buffer limit",
    ),
    ScriptedRound(
        title="taller Q tiles",
        bottleneck="bad tile shape",
        evidence="after iter-001 the Q loop still runs 32 blocks per head",
        hypothesis="64-row Q tiles reuse each KV tile for four times more rows",
        why="K/V are re-read once per Q block: fewer Q blocks, less K/V traffic",
        risk="accumulator growth per block",
        parameters={"DEMO_ATTN_BLOCK_Q": 64},
        justification="a 64x64 float32 accumulator is 16 KiB",
    ),
    ScriptedRound(
        title="skip the accumulator rescale",
        bottleneck="dependency chain too long",
        evidence="the rescale multiplies the whole accumulator on every KV tile",
        hypothesis="the running max rarely moves, so the rescale can be dropped",
        why="removes one full pass over the accumulator per tile",
        risk="wrong results whenever the running max changes",
        edit=(
            "attention_kernel.py",
            "acc = acc * correction + probs @ v_blk",
            "acc = acc + probs @ v_blk",
        ),
        justification="an experiment: correctness decides",
    ),
    ScriptedRound(
        title="narrow KV tiles",
        bottleneck="UB / tile buffer pressure",
        evidence="a smaller KV tile would fit a smaller buffer",
        hypothesis="8-wide KV tiles lower buffer pressure",
        why="smaller tiles leave room for double buffering",
        risk="many more tile steps",
        parameters={"DEMO_ATTN_BLOCK_KV": 8},
        justification="8-wide tiles are tiny; the risk is speed, not capacity",
    ),
)

TILELIB_ROUNDS = (
    ScriptedRound(
        title="taller query blocks (CUBE_S0 64)",
        bottleneck="bad tile shape",
        evidence="iter-000: 2 query rows per block re-read all of K and V 128 times",
        hypothesis="64-row query blocks re-read K/V 8x less",
        why="K/V traffic per output row drops with the block height",
        risk="a larger accumulator per block",
        parameters={"CUBE_S0": 64},
        justification="64x64 float32 accumulator: 16 KiB",
    ),
    ScriptedRound(
        title="head unroll 8",
        bottleneck="compute under-utilization",
        evidence="the inner dot product over the head dim runs in chunks of 4",
        hypothesis="chunks of 8 give the compiler wider independent accumulations",
        why="more independent multiply-adds per iteration",
        risk="register pressure",
        edit=("fa_kernel.h", "constexpr int kFaHeadUnroll = 4;", "constexpr int kFaHeadUnroll = 8;"),
        # the kernel steps through the head dimension by it: a bigger tile to the rule
        justification="8 head-dim columns per pass are 8 accumulators in registers, no buffer",
    ),
    ScriptedRound(
        title="drop the accumulator rescale",
        bottleneck="barrier / wait / sync overhead",
        evidence="the rescale is a full pass over the accumulator per key tile",
        hypothesis="skipping it saves a pass per tile",
        why="one fewer pass over CUBE_S0 x HEAD floats per tile",
        risk="wrong results whenever the running max changes",
        edit=(
            "fa_kernel.cpp",
            "RescaleAccumulator<CUBE_S0, HEAD>(acc.data(), correction.data());",
            "/* rescale dropped */",
        ),
        justification="an experiment: correctness decides",
    ),
    ScriptedRound(
        title="mid-size query blocks (CUBE_S0 16)",
        bottleneck="UB / tile buffer pressure",
        evidence="smaller query blocks need a smaller accumulator",
        hypothesis="16-row blocks lower buffer pressure",
        why="smaller blocks leave room for double buffering",
        risk="more K/V re-reads",
        parameters={"CUBE_S0": 16},
        justification="a 16x64 float32 accumulator is 4 KiB",
    ),
)


# each demo operator's script, by its folder (the demo's source)
SCRIPTS = {"demo_attention": DSL_ROUNDS, "demo_fa": TILELIB_ROUNDS}


def scripted_rounds(campaign: Campaign) -> tuple[ScriptedRound, ...]:
    demo = Path(campaign.config.operator.source).name
    if demo not in SCRIPTS:
        raise InputError(f"no scripted campaign for {demo!r}; the demos are: {', '.join(SCRIPTS)}")
    return SCRIPTS[demo]


def pre_edit_for(campaign: Campaign, script: ScriptedRound) -> PreEdit:
    config = campaign.config
    scope = list(script.parameters) or ([script.edit[0]] if script.edit else [])
    return PreEdit(
        kernel=f"{config.operator.name} ({case_text(config.case, config.operator)}), CPU demo",
        bottleneck=script.bottleneck,
        evidence=script.evidence,
        hypothesis=script.hypothesis,
        why_ascend=script.why + " (on the CPU demo, standing in for the NPU reason)",
        expected_metric="median duration",
        main_risk=script.risk,
        correctness_plan="the benchmark compares against the reference output every run",
        checklist={key: ChecklistItem(True, "considered for this demo round") for key in HARDWARE_CHECKLIST},
        scope=scope,
        bottleneck_recheck="demo script: re-checked the class after the last rounds",
        new_direction="demo script: a different tile dimension",
    )


async def run_demo_campaign(
    campaign: Campaign,
    runner: JobRunner,
    on_event: EventSink | None = None,
    rounds: int | None = None,
) -> list[Round]:
    """Bring the demo project up to date and run the scripted rounds it has not run yet."""
    history = campaign.rounds()
    baseline = next((r for r in history if r.is_baseline), None)
    if baseline is None or baseline.environment is None or not baseline.environment.passed:
        notes = await run_environment(campaign, runner, on_event)
        if not notes.passed:
            return campaign.rounds()
    if campaign.torch_baseline() is None:
        await run_reference(campaign, runner, on_event)
    if not any(r.is_baseline and r.is_closed for r in campaign.rounds()):
        await run_baseline(campaign, runner, on_event)
    all_steps = scripted_rounds(campaign)
    tuning = [r for r in campaign.rounds() if not r.is_baseline]
    if tuning and not tuning[-1].is_closed and len(tuning) <= len(all_steps):
        # an earlier run stopped inside this round (cancelled, or refused): finish it
        step = all_steps[len(tuning) - 1]
        campaign.record_changes(ChangesRequest(risk_justification=step.justification or "demo script"))
        await run_round(campaign, runner, on_event)
    done = len(tuning)
    script = all_steps[done : None if rounds is None else done + rounds]
    for step in script:
        campaign.start_round(
            StartRequest(pre_edit_for(campaign, step), title=step.title, restore=True, phase=step.phase)
        )
        if step.edit:
            rel, old, new = step.edit
            path = campaign.layout.workspace / operator_folder(campaign.config) / rel
            path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        campaign.record_changes(
            ChangesRequest(
                parameters=dict(step.parameters),
                description=step.title,
                risk_justification=step.justification,
            )
        )
        await run_round(campaign, runner, on_event)
    return campaign.rounds()
