"""The official MCP client over stdio: round_rerun and diff are `pto-tui round rerun` and
`pto-tui diff`, with the same rules (only an inconclusive round is rerun) and JSON."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from tests.core.helpers import ready_project, run_round
from tests.json_check import validate
from tests.mcp.client import REPO, agent

SCHEMAS = REPO / "docs" / "json"
CPP = "workspace/kernel/fa_kernel.cpp"
BARRIER = "    pipe_barrier(PIPE_ALL);\n"



def campaign(tmp_path: Path) -> Path:
    """iter-001 noisy (inconclusive), iter-002 steady and slower (neutral)."""
    root = ready_project(tmp_path)
    assert run_round(root, "97,99,95", hypothesis="TILE_S1 512 without the barrier",
                     params=("TILE_S1=512",),
                     edit=(CPP, BARRIER, "    // barrier dropped: TSTORE waits on its flag\n"),
                     justify="UB use at 512 is 96 KiB of 192 KiB; TSTORE waits on its flag") == 0
    edit = ("workspace/kernel/fa_kernel.h", "kFaQkPreload = 4", "kFaQkPreload = 6")
    assert run_round(root, "120,121,120.5", hypothesis="deeper preload", edit=edit) == 0
    return root


async def drive(root: Path) -> None:
    async with agent(root) as a:
        changed = await a.ok("diff", number=2)
        validate("diff", changed)
        assert changed["round"] == 2 and changed["against"] == 0 and changed["against_how"] == "previous"
        frontier = await a.ok("diff", number=1, against="frontier")
        validate("diff", frontier)
        refused = await a.call("round_rerun", number=2)
        assert refused["is_error"] and refused["error"]["rule"] == "rerun-inconclusive-only"
        # the rule's own fix, phrased with the tool an agent calls instead
        assert "test a new idea in a new round" in refused["error"]["fix"]
        assert "`round_start`" in refused["error"]["fix"]
        assert "neutral" in refused["error"]["message"]
        record = await a.ok("round_rerun", number=1)
        validate("round", record)
        assert record["number"] == 3 and record["rerun_of"] == 1
        again = await a.call("round_rerun", number=1)  # iter-003 is open now
        assert again["is_error"]


def test_rerun_and_diff_over_mcp(tmp_path: Path) -> None:
    root = campaign(tmp_path)
    before = (root / "runs/iter-001/round.toml").read_bytes()
    asyncio.run(drive(root))
    data = tomllib.loads((root / "runs/iter-003/round.toml").read_text(encoding="utf-8"))
    assert data["rerun_of"] == 1
    assert (root / "runs/iter-001/round.toml").read_bytes() == before  # N is not rewritten
