"""The project's Markdown files as MCP resources: ITERATIONS.md, TASK_REQUIREMENTS.md and
each round's notes.md, files.txt and patch.diff, read as they are on disk (the agent's
own edits included)."""

from __future__ import annotations

import re

from mcp.server.mcpserver import MCPServer

from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.mcp.projects import Projects

_ROUND = re.compile(r"^iter-\d{3,}$")
ROUND_FILES = ("notes.md", "files.txt", "patch.diff")


def register(server: MCPServer, projects: Projects) -> None:
    def read(path_text: str) -> str:
        layout = projects.layout()
        path = layout.root / path_text
        if not path.is_file():
            raise InputError(f"no such file in the project: {path_text}", file=path)
        projects.within(path, "resource")  # a link out of the roots is not followed
        return path.read_text(encoding="utf-8", errors="replace")

    @server.resource("pto-tui://project/ITERATIONS.md", mime_type="text/markdown")
    def iterations() -> str:
        """ITERATIONS.md: the torch_npu baseline section and one row per round."""
        return read("ITERATIONS.md")

    @server.resource("pto-tui://project/TASK_REQUIREMENTS.md", mime_type="text/markdown")
    def requirements() -> str:
        """TASK_REQUIREMENTS.md: the operator, the case, the tunables and the hints."""
        return read("TASK_REQUIREMENTS.md")

    @server.resource("pto-tui://project/runs/{round}/{name}", mime_type="text/plain")
    def round_file(round: str, name: str) -> str:
        """A round's notes.md, files.txt or patch.diff (round: iter-000, iter-001, ...)."""
        if not _ROUND.match(round) or name not in ROUND_FILES:
            raise InputError(f"expected runs/iter-XXX/({'|'.join(ROUND_FILES)}), got runs/{round}/{name}")
        return read(f"runs/{round}/{name}")

    @server.resource("pto-tui://project/rounds", mime_type="application/json")
    def round_list() -> list[str]:
        """The round folders on disk, each with the resources it holds."""
        ledger = Ledger(projects.layout())
        return [
            f"pto-tui://project/runs/{round_name(n)}/{name}"
            for n in ledger.round_numbers()
            for name in ROUND_FILES
            if (ledger.layout.round_dir(n) / name).is_file()
        ]
