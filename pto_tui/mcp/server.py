"""Assemble the MCP server and run it over stdio (`pto-tui mcp`).

The tools are listed with their titles and annotations (`catalog`), their strict input
schemas and their outputSchema (`schemas`); a call whose arguments its input schema does
not allow is answered with the {error} result (`strict`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import Tool

from pto_tui import __version__
from pto_tui.mcp import (
    prompts,
    resources,
    tools_exec,
    tools_ledger,
    tools_project,
    tools_round,
    tools_summary,
)
from pto_tui.mcp.client_roots import ClientRoots
from pto_tui.mcp.projects import Projects, server_roots
from pto_tui.mcp.schemas import output_schema, strict_input
from pto_tui.mcp.strict import StrictArguments

INSTRUCTIONS = """\
pto-tui keeps the records of a PTO operator optimisation campaign and enforces the
workflow's rules. Work through these tools instead of editing ITERATIONS.md or
runs/iter-XXX/ by hand: status first; env until the environment round passes;
torch_baseline; baseline (iter-000); then per round: gates -> round_start (Pre-Edit
answers; prefill=true drafts them from the last round) -> edit the workspace ->
round_changes -> round_run (build, correctness, benchmark, verdict). Every result is
{"schema_version", "data", "warnings"} (read the warnings: a round held for review
arrives as a success with a warning) or {"schema_version", "error"} naming the tool,
the argument or the rule, each finding and its fix. amend corrects a closed round beside
its record and round_confirm keeps a round held for review: both only with the user's
word; phase sets the phase; round_rerun measures an inconclusive round's change again
as a new round; diff shows what changed in a round; exec runs a command on the target
(only if the user started the server with --allow-exec). chart and report at the end.
import reads a hand-written (Markdown only) project. The Markdown files are resources
(pto-tui://project/...). Every project, source and output path must lie inside the
server's roots (the project, the folders the user named with --root, the client's own
roots when it offers them); a path outside is refused with an error naming the roots.
"""


class PtoServer(MCPServer):
    """The SDK's server, listing each tool with its strict input schema and outputSchema."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listed: list[Tool] | None = None

    async def list_tools(self) -> list[Tool]:
        if self._listed is None:
            self._listed = [
                tool.model_copy(update={
                    "input_schema": strict_input(tool.name, tool.input_schema),
                    "output_schema": output_schema(tool.name),
                })
                for tool in await super().list_tools()
            ]
        return list(self._listed)

    async def input_schema(self, name: str) -> dict[str, Any] | None:
        """A tool's strict input schema, None for a tool the server does not have."""
        return next((t.input_schema for t in await self.list_tools() if t.name == name), None)


def build_server(
    project: str | None = None, roots: Sequence[str] = (), allow_exec: bool = False
) -> PtoServer:
    """roots: the --root folders (the project is one too; so are the client's roots, when it
    offers them); allow_exec switches exec on."""
    client = ClientRoots()
    holder: list[PtoServer] = []

    async def schema_of(name: str) -> dict[str, Any] | None:
        return await holder[0].input_schema(name)

    server = PtoServer(name="pto-tui", version=__version__, instructions=INSTRUCTIONS,
                       middleware=[client, StrictArguments(schema_of)])
    holder.append(server)
    projects = Projects(project, server_roots(project, roots), allow_exec=allow_exec, client=client)
    for group in (tools_project, tools_round, tools_summary, tools_ledger, tools_exec, resources, prompts):
        group.register(server, projects)
    return server


def serve(project: str | None = None, roots: Sequence[str] = (), allow_exec: bool = False) -> None:
    build_server(project, roots, allow_exec).run("stdio")
