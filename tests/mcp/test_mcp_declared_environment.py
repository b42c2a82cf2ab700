"""Over MCP, probes given to the env tool are declared evidence as on the command line."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from tests.core.helpers import make_project
from tests.mcp.client import agent

REASON = "the board was checked by hand with npu-smi"


def test_the_env_tool_refuses_undeclared_probes_and_records_declared_ones(tmp_path: Path) -> None:
    root = make_project(tmp_path)

    async def drive() -> None:
        async with agent(root) as a:
            refused = await a.call("env", probes={"npu reachable": True})
            assert refused["is_error"] is True
            error = refused["error"]
            assert error["type"] == "rule_violation" and error["rule"] == "environment-round", error
            assert "given by hand (mcp)" in error["message"] and "declare_environment" in error["message"]

            data = await a.ok("env", probes={"npu reachable": True}, declare_environment=REASON)
            assert data["environment_passed"] is True
            assert data["declared_by"] == "mcp" and data["declared_reason"] == REASON
            status = await a.ok("status")
            assert status["environment_declared_by"] == "mcp"
            assert status["environment_declared_reason"] == REASON

    asyncio.run(drive())
    record = tomllib.loads((root / "runs" / "iter-000" / "round.toml").read_text(encoding="utf-8"))
    assert record["environment"]["declared_by"] == "mcp"
    assert record["environment"]["declared_reason"] == REASON
