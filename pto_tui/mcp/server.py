"""Assemble the MCP server and run it over stdio (`pto-tui mcp`)."""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.mcpserver import MCPServer

from pto_tui import __version__
from pto_tui.mcp import resources, tools_exec, tools_ledger, tools_project, tools_round, tools_summary
from pto_tui.mcp.client_roots import ClientRoots
from pto_tui.mcp.projects import Projects, server_roots

INSTRUCTIONS = """\
pto-tui keeps the records of a PTO operator optimisation campaign and enforces the
workflow's rules. Work through these tools instead of editing ITERATIONS.md or
runs/iter-XXX/ by hand: status first; env until the environment round passes;
torch_baseline; baseline (iter-000); then per round: gates -> round_start (Pre-Edit
answers) -> edit the workspace -> round_changes -> round_run (build, correctness,
benchmark, verdict). A refusal is a structured error naming the rule and the fix.
amend corrects a closed round beside its record; round_confirm keeps a round held for
review (only with the user's word); phase sets the phase; round_rerun measures an
inconclusive round's change again as a new round; diff shows what changed in a round;
exec runs a command on the target (only if the user started the server with
--allow-exec). chart and report at the end. The Markdown files are resources
(pto-tui://project/...). Every project, source and output path must lie inside the
server's roots (the project, the folders the user named with --root, the client's own
roots when it offers them); a path outside is refused with an error naming the roots.
"""


def build_server(
    project: str | None = None, roots: Sequence[str] = (), allow_exec: bool = False
) -> MCPServer:
    """roots: the --root folders (the project is one too; so are the client's roots, when it
    offers them); allow_exec switches exec on."""
    client = ClientRoots()
    server: MCPServer = MCPServer(name="pto-tui", version=__version__, instructions=INSTRUCTIONS,
                                  middleware=[client])
    projects = Projects(project, server_roots(project, roots), allow_exec=allow_exec, client=client)
    tools_project.register(server, projects)
    tools_round.register(server, projects)
    tools_summary.register(server, projects)
    tools_ledger.register(server, projects)
    tools_exec.register(server, projects)
    resources.register(server, projects)
    return server


def serve(project: str | None = None, roots: Sequence[str] = (), allow_exec: bool = False) -> None:
    build_server(project, roots, allow_exec).run("stdio")
