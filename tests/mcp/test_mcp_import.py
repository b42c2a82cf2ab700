"""An agent-written Markdown project, imported over MCP with its operator's source, goes
on over MCP: a failed environment round is an attempt like any other, the next one passes,
and a round is started, changed, run and closed; its row reads like the hand-written ones."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.vocabulary import Verdict
from tests.core.test_import_lossless import AGENT, DEMO
from tests.json_check import validate
from tests.mcp.client import agent
from tests.mcp.test_mcp_campaign import PRE_EDIT

pytestmark = pytest.mark.e2e


async def go_on(root: Path) -> dict[str, Any]:
    async with agent(root, roots=(DEMO,)) as a:
        first = await a.ok("import")  # Markdown only: no workspace yet
        failed = await a.ok("env")  # an attempt: it fails, and is not refused
        imported = await a.ok("import", source=str(DEMO))
        passed = await a.ok("env")
        status = await a.ok("status")
        await a.ok("round_start", pre_edit=PRE_EDIT, title="KV 块 64 再测一次")
        await a.ok("round_changes", parameters={"DEMO_ATTN_BLOCK_KV": 64},
                   justify="a 4 KiB tile fits the cache with room")
        ran = await a.ok("round_run", analysis="measured by pto-tui")
        rounds = await a.ok("rounds")
        return {"first": first, "failed": failed, "imported": imported, "passed": passed,
                "status": status, "ran": ran, "rounds": rounds}


def test_an_imported_agent_project_goes_on_over_mcp(tmp_path: Path) -> None:
    root = tmp_path / "attention_tuning"
    shutil.copytree(AGENT, root)
    found = asyncio.run(go_on(root))
    validate("import", found["first"])
    assert found["first"]["imported"] == [0, 1, 2, 3] and found["first"]["conflicts"] == []
    assert found["failed"]["environment_passed"] is False
    assert found["imported"]["workspace"] == str(DEMO) and found["imported"]["target"] == "local, mode demo"
    assert found["passed"]["environment_passed"] is True and found["passed"]["versions"]
    assert found["status"]["environment_passed"] is True
    ran = found["ran"]
    validate("round", ran)
    assert ran["number"] == 4 and ran["status"] == "closed" and ran["verdict"] in [v.value for v in Verdict]
    assert ran["changes"]["based_on"] == 0 and len(ran["measurement"]["samples_us"]) >= 3
    # the imported rounds were not measured here: none leads, and the verdict says why
    assert found["status"]["frontier_round"] is None
    assert ran["verdict"] == "inconclusive" and "frontier" in ran["verdict_reason"]
    assert [r["round"] for r in found["rounds"]["rounds"]] == [0, 1, 2, 3, 4]
    last = (root / "ITERATIONS.md").read_text(encoding="utf-8").splitlines()[-1]
    assert last.startswith("| iter-004 | KV 块 64 再测一次 |"), last
