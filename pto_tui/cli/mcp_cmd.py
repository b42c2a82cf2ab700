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
        "the command `pto-tui --project projects/<op> mcp`.",
    )
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from pto_tui.mcp.server import serve  # the SDK loads only for the server

    serve(getattr(args, "project", None))
    return 0
