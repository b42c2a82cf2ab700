"""The skill file a new project carries tells an agent about every tool the server has."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from pto_tui.mcp.server import build_server
from tests.core.helpers import make_project


def test_a_new_project_carries_the_skill_file_naming_every_tool(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    skill = (root / "SKILL.md").read_text(encoding="utf-8")
    assert skill.startswith("---\nname: pto-tui\n")
    named = set(re.findall(r"`([a-z_]+)`", skill))
    tools = {tool.name for tool in asyncio.run(build_server(str(root)).list_tools())}
    assert tools <= named, sorted(tools - named)
