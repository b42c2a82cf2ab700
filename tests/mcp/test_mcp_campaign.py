"""The official MCP client drives a demo campaign over stdio: the environment round, the
torch_npu stand-in, the baseline, a kept round, a refused forbidden change and the chart;
the records it leaves are shaped exactly like the ones the CLI makes."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import CHECKLIST_KEYS, cli
from tests.mcp.client import agent

pytestmark = pytest.mark.e2e

PRE_EDIT: dict[str, Any] = {
    "kernel": "demo_attention B=1,H=2,S=512,D=64, CPU demo",
    "bottleneck": "small-transfer inefficiency",
    "evidence": "iter-000: 16x16 tiles mean 1024 tile steps per head",
    "hypothesis": "64-wide KV tiles cut the per-tile overhead four-fold",
    "why_ascend": "fewer, larger tile transfers amortise the fixed cost per tile",
    "expected_metric": "median duration",
    "main_risk": "a larger working set per tile",
    "correctness_plan": "the benchmark compares against the reference every run",
    "checklist": {key: "considered for this round" for key in CHECKLIST_KEYS},
    "scope": ["DEMO_ATTN_BLOCK_KV"],
}
HARNESS = "workspace/pto-kernels/bench_attention.py"


def demo_project(tmp_path: Path, name: str) -> Path:
    """A demo project whose spread limit allows for the colleagues' tests sharing the CPU
    (the round's 2-4x gain stays far above the noise)."""
    root = create_demo_project("dsl", tmp_path / name)
    project = ProjectFile(root / "project.toml")
    project.set("discipline.max_spread", 0.9)
    project.save()
    return root


def shape(value: Any) -> Any:
    """The structure of a record: keys and value types, never the values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):  # how many items is a value; what an item holds is shape
        return ["list", *sorted({repr(shape(item)) for item in value if isinstance(item, dict)})]
    return type(value).__name__


def record_shape(root: Path, number: int) -> tuple[Any, list[str], list[str]]:
    folder = root / "runs" / f"iter-{number:03d}"
    record = tomllib.loads((folder / "round.toml").read_text())
    headings = [line for line in (folder / "notes.md").read_text().splitlines() if line.startswith("#")]
    return shape(record), sorted(p.name for p in folder.iterdir()), headings[1:]


async def drive(root: Path) -> None:
    async with agent(root) as a:
        env = await a.ok("env")
        assert env["passed"] is True
        assert any("probe" in p and "succeeded" in p for p in a.progress)
        torch = await a.ok("torch_baseline")
        assert torch["avg_us"] > 0
        baseline = await a.ok("baseline")
        assert baseline["number"] == 0 and baseline["status"] == "closed"
        gates = await a.ok("gates", pre_edit=PRE_EDIT)
        assert gates == {"schema_version": 2, "findings": [], "may_start": True}

        started = await a.ok("round_start", pre_edit=PRE_EDIT, title="wider KV tiles", restore=True)
        assert started["number"] == 1
        await a.ok("round_changes", parameters={"DEMO_ATTN_BLOCK_KV": 64}, justify="a 4 KiB tile")
        a.progress.clear()
        kept = await a.ok("round_run", analysis="fewer tile steps", next_step="taller Q tiles")
        assert (kept["status"], kept["verdict"]) == ("closed", "kept"), kept
        assert any(p.startswith("round_run: benchmark") for p in a.progress), a.progress

        # a forbidden change: the benchmark harness is protected
        second = {**PRE_EDIT, "hypothesis": "fewer warm-up runs", "scope": ["DEMO_ATTN_BLOCK_Q"]}
        await a.ok("round_start", pre_edit=second, title="harness edit", restore=True)
        harness = root / HARNESS
        harness.write_text(harness.read_text().replace("default=3", "default=0"))
        refused = await a.call("round_changes", description="fewer warm-ups")
        assert refused["is_error"] is True
        error = refused["error"]
        assert error["type"] == "rule_violation" and error["rule"] == "editable-scope", error
        assert "bench_attention.py" in error["message"] and error["fix"]
        # the file it names is the error's `file`, and each finding lists its files and fix
        assert error["file"].endswith("bench_attention.py") and "bug_fix" in error["fix"]
        finding = error["findings"][0]
        assert finding["rule"] == "editable-scope" and finding["fix"]
        assert "--bug-fix" not in finding["message"]
        assert any(f.endswith("pto-kernels/bench_attention.py") for f in finding["files"])

        chart = await a.ok("chart")
        assert Path(chart["png"]).is_file() and chart["best_round"] == 1
        rounds = await a.ok("rounds")
        assert [r["verdict"] for r in rounds["rounds"]][:2] == ["baseline", "kept"]


def test_an_agent_drives_a_demo_campaign(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "agent")
    asyncio.run(drive(root))
    # the same campaign through the CLI: the records have the same shape
    other = demo_project(tmp_path, "person")
    p = ["--project", other]
    assert cli(*p, "env") == 0 and cli(*p, "torch-baseline") == 0 and cli(*p, "baseline") == 0
    form = tmp_path / "form.toml"
    lines = [f'{k} = "{v}"' for k, v in PRE_EDIT.items() if isinstance(v, str)]
    lines += ['scope = ["DEMO_ATTN_BLOCK_KV"]', "[checklist]"]
    lines += [f'{k} = "considered for this round"' for k in CHECKLIST_KEYS]
    form.write_text("\n".join(lines) + "\n")
    assert cli(*p, "round", "start", "--form", form, "--title", "wider KV tiles", "--restore") == 0
    assert cli(*p, "round", "changes", "--set", "DEMO_ATTN_BLOCK_KV=64", "--justify", "a 4 KiB tile") == 0
    assert (
        cli(*p, "round", "run", "--quiet", "--analysis", "fewer tile steps", "--next", "taller Q tiles") == 0
    )
    for number in (0, 1):
        agent_shape, person_shape = record_shape(root, number), record_shape(other, number)
        assert agent_shape == person_shape, (number, agent_shape, person_shape)
    agent_rows = [line.count("|") for line in (root / "ITERATIONS.md").read_text().splitlines()]
    person_rows = [line.count("|") for line in (other / "ITERATIONS.md").read_text().splitlines()]
    assert agent_rows == person_rows
