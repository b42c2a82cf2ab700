"""`pto-tui mcp`: serve the project to a coding agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse

from pto_tui.cli.commands import HELP


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help=HELP["mcp"],
        description="An MCP server on standard input and output: tools for scan, new, status, "
        "rounds, show, the Pre-Edit gates, the environment round, the baselines, round "
        "start/changes/measure/run/close, costmodel query and sweep, suggest, chart and report; "
        "resources for the project's Markdown files. Every rule the CLI enforces refuses the "
        "agent too, as a structured error naming the rule and the fix. Configure the agent with "
        "the command `pto-tui --project projects/<op> mcp`. The tools work inside the "
        "project and the --root folders (with neither: the working directory); exec is off "
        "unless --allow-exec. See docs/agents.md §3 (`pto-tui docs agents`).",
    )
    p.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the tools may reach besides the project (an operator repository to "
        "scan and copy, the projects folder for new); repeatable",
    )
    p.add_argument(
        "--allow-exec",
        action="store_true",
        help="switch the exec tool on: the agent may run any shell command on the target "
        "(a local target: this machine) with your rights",
    )
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from pto_tui.mcp.server import serve  # the SDK loads only for the server

    serve(getattr(args, "project", None), args.root, allow_exec=args.allow_exec)
    return 0
