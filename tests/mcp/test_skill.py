"""The skill file a new project carries tells an agent about every tool the server has,
says what an agent must know (where the workspace is, how scope entries match, that
warnings must be read, held-for-review arriving as a success, inconclusive rounds, the
user's word), and its loop is enough: a round walked with only the tools it names."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from pto_tui.mcp.server import build_server
from tests.core.helpers import make_project
from tests.mcp.client import agent
from tests.mcp.test_mcp_campaign import PRE_EDIT, demo_project


def skill_of(root: Path) -> str:
    return (root / "SKILL.md").read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_a_new_project_carries_the_skill_file_naming_every_tool(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    skill = skill_of(root)
    assert skill.startswith("---\nname: pto-tui\n")
    named = set(re.findall(r"`([a-z_]+)`", skill))
    server = build_server(str(root))
    tools = {tool.name for tool in asyncio.run(server.list_tools())}
    prompts = {prompt.name for prompt in asyncio.run(server.list_prompts())}
    assert tools <= named, sorted(tools - named)
    assert prompts <= named, sorted(prompts - named)
    for said in (
        "workspace/pto-kernels/", "workspace/kernel/",  # where the workspace is
        "A scope entry is a parameter name", "relative to the project, to `workspace/`",  # scope
        "Read `warnings` every time", "`held_for_review: true`",  # warnings, held as a success
        "## When a round is inconclusive", "`round_rerun`", "with `resume`", "On a noisy target",
        "## What needs the user's word", "`amend`", "`round_confirm`",
        "`findings`", "`exit_code`", "`import`",
    ):
        assert said in skill, said


async def walk(root: Path, loop: set[str]) -> dict[str, object]:
    called: list[str] = []
    async with agent(root) as a:

        async def use(tool: str, **arguments: object) -> dict[str, object]:
            assert tool in loop, f"{tool} is not named in SKILL.md's loop"
            called.append(tool)
            data: dict[str, object] = await a.ok(tool, **arguments)
            return data

        await use("status")
        assert (await use("env"))["environment_passed"] is True
        await use("torch_baseline")
        await use("baseline")
        await use("classes")
        assert (await use("gates", pre_edit=PRE_EDIT))["may_start"] is True
        await use("round_start", pre_edit=PRE_EDIT, title="wider KV tiles", restore=True)
        await use("round_changes", parameters={"DEMO_ATTN_BLOCK_KV": 64},
                  justify="a 4 KiB tile fits the cache with room")
        ran = await use("round_run", analysis="fewer tile steps")
        await use("chart")
        await use("report")
        return {"ran": ran, "called": called}


@pytest.mark.e2e
def test_a_round_walked_with_only_the_tools_the_skill_names(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "skilled")
    loop = set(re.findall(r"`([a-z_]+)`", section(skill_of(root), "The loop")))
    found = asyncio.run(walk(root, loop))
    ran = found["ran"]
    assert isinstance(ran, dict) and ran["status"] == "closed" and ran["verdict"] == "kept", ran
    assert (root / "REPORT.md").is_file() and (root / "summary_chart.png").is_file()
