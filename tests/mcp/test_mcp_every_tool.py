"""Every tool, called by the official SDK client on real projects: each answer validates
against its schema (docs/json/, the tool's outputSchema) with its schema_version and no
undocumented field, and each refusal is the {error} envelope with its findings, phrased
for the tools (no command-line flag, no `pto-tui <command>`)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from pto_tui.mcp.catalog import TOOLS
from tests.core.helpers import CHECKLIST_KEYS
from tests.core.test_import_lossless import AGENT
from tests.core.test_schemas_cli import CASE as DEMO_FA_CASE
from tests.core.test_schemas_cli import DEMO_FA
from tests.costmodel.conftest import copy_stub
from tests.json_check import validate
from tests.mcp.client import agent
from tests.mcp.test_mcp_conventions import CLI_WORDING
from tests.mcp.test_mcp_rerun_diff import campaign

PRE_EDIT: dict[str, Any] = {
    "kernel": "fa_tilelib 128,128,1024", "bottleneck": "bad tile shape",
    "evidence": "costmodel: TILE_S1 128 cheaper per unit of work",
    "hypothesis": "TILE_S1 128 keeps both cube pipes busy", "why_ascend": "smaller tiles overlap better",
    "expected_metric": "median duration", "main_risk": "more loop overhead",
    "correctness_plan": "the binary checks against the golden output",
    "checklist": {key: "checked for this round" for key in CHECKLIST_KEYS}, "scope": ["TILE_S1"],
}
MEASURED = {"build": "ok", "correctness": "pass", "samples_us": [96.0, 97.0, 96.5]}


class Calls:
    """Every call made, by tool: the answers, and the refusals."""

    def __init__(self, session: Any) -> None:
        self.agent = session
        self.answers: dict[str, list[dict[str, Any]]] = {}
        self.refusals: list[dict[str, Any]] = []

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        data: dict[str, Any] = await self.agent.ok(tool, **arguments)
        self.answers.setdefault(tool, []).append(data)
        return data

    async def refused(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self.agent.call(tool, **arguments)
        assert result["is_error"], (tool, result)
        self.refusals.append(result)
        return result["error"]


async def call_every_tool(tmp_path: Path, root: Path, stub: Path, agent_copy: Path) -> Calls:
    async with agent(root, allow_exec=True, roots=(tmp_path,)) as session:
        c = Calls(session)
        for tool in ("status", "verify", "rounds", "classes", "phase"):
            await c.ok(tool)
        await c.ok("show", number=1)
        await c.ok("gates", pre_edit=PRE_EDIT)
        await c.ok("diff", number=2)
        await c.ok("torch_baseline", avg_us=120.0, min_us=118.0, max_us=125.0, warmup=5, runs=10)
        await c.ok("round_rerun", number=1)
        await c.ok("round_changes")
        await c.ok("round_measure", measurement=MEASURED)
        closed = await c.ok("round_close", analysis="measured again")
        await c.ok("amend", number=closed["number"], field="analysis", value="measured again, steady",
                   why="the first wording left out the spread")
        await c.refused("round_confirm", number=closed["number"], reason="it looks right to me")
        await c.refused("round_run")  # no open round
        await c.ok("round_start", pre_edit={"hypothesis": PRE_EDIT["hypothesis"],
                   "why_ascend": PRE_EDIT["why_ascend"], "expected_metric": "median duration",
                   "main_risk": "more loop overhead", "scope": ["TILE_S1"]}, prefill=True)
        await c.ok("round_changes", parameters={"TILE_S1": 128})
        await c.refused("round_close")  # nothing measured yet
        await c.refused("round_changes", kind="rewrite")
        for tool in ("chart", "report"):
            await c.ok(tool)
        engine = {"engine": "builtin", "pto_isa": str(stub)}
        await c.ok("costmodel_query", query="TMATMUL half half float --m 128 --k 64 --n 128", **engine)
        await c.ok("costmodel_sweep", query="TMATMUL half half float --m 64,128 --k 64 --n 128", **engine)
        await c.ok("exec", command="true", sync=False)
        await c.ok("scan", dir=str(tmp_path / "src"))
        made = await c.ok("new", source=str(tmp_path / "src" / "demo_fa"), case=DEMO_FA_CASE,
                          projects_root=str(tmp_path / "more"))
        await c.ok("suggest", project=made["project"], pto_isa=str(stub))
        await c.ok("suggest_review", project=made["project"], pto_isa=str(stub))
        await c.ok("env", project=made["project"], probes={"ssh": True},
                   declare_environment="probes given by hand in this test")
        await c.ok("baseline", project=made["project"], measurement=MEASURED)
        await c.ok("import", project=str(agent_copy))
        await c.ok("round_confirm", project=str(agent_copy), number=1,
                   reason="measured on the NPU by the agent, its logs checked")
        await c.refused("import", project=str(agent_copy), source=str(tmp_path / "src" / "fa_tilelib"),
                        target="ssh:")
        return c


def test_every_tool_answers_and_refuses_by_its_schema(tmp_path: Path) -> None:
    root = campaign(tmp_path)
    stub = copy_stub(tmp_path / "pto-isa")
    shutil.copytree(DEMO_FA, tmp_path / "src" / "demo_fa")
    agent_copy = tmp_path / "attention_tuning"
    shutil.copytree(AGENT, agent_copy)
    calls = asyncio.run(call_every_tool(tmp_path, root, stub, agent_copy))
    # every tool, at least once (round_run's answers: test_mcp_conventions, test_mcp_import)
    assert set(calls.answers) == set(TOOLS) - {"round_run"}
    for tool, answers in calls.answers.items():
        for data in answers:
            validate(TOOLS[tool].schema, data)
    assert len(calls.refusals) == 5
    for result in calls.refusals:
        validate("mcp-result", {k: v for k, v in result.items() if k != "is_error"})
        error = result["error"]
        assert error["tool"] in TOOLS and error["fix"], error
        for text in (error["message"], error["fix"], error["rendered"]):
            assert not CLI_WORDING.search(text), text
        if error["type"] == "rule_violation":
            assert error["findings"] and error["findings"][0]["rule"] == error["rule"]
            assert all(f["fix"] for f in error["findings"])
