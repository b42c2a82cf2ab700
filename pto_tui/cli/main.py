"""Entry point of `pto-tui`.

Each sub-command group lives in its own module exposing `register(subparsers)`;
handlers take the parsed arguments and return an exit code:
0 ok, 2 usage or bad input, 1 any other failure.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pto_tui import __version__
from pto_tui.core.errors import PtoError

# Sub-command modules, in the order they appear in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "pto_tui.cli.project_cmds",
    "pto_tui.cli.round_cmds",
    "pto_tui.cli.exec_cmd",
    "pto_tui.cli.costmodel_cmd",
    "pto_tui.cli.suggest_cmd",
    "pto_tui.cli.report_cmds",
    "pto_tui.cli.demo_cmd",
    "pto_tui.cli.config_cmd",
    "pto_tui.cli.mcp_cmd",
)

DESCRIPTION = """\
pto-tui: a workbench for optimising PTO operators on Ascend NPUs.

Run without a sub-command to open the terminal application. The sub-commands
below do the same work headless, for scripts and coding agents; most accept
--json. A project is found from --project, else $PTO_TUI_PROJECT, else by
walking up from the current directory to the folder holding project.toml.

The loop: scan -> new -> (environment round, baseline) -> round start ->
edit -> round changes -> round measure -> round close -> status / rounds.
"""


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and a short message (the CLI contract)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pto-tui",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pto-tui {__version__}")
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="project folder (holding project.toml); default: found from the current directory",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    try:
        if handler is None:
            return _open_tui(args)
        return int(handler(args) or 0)
    except PtoError as error:
        print(f"pto-tui: error: {error.render()}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("pto-tui: interrupted", file=sys.stderr)
        return 130


def _open_tui(args: argparse.Namespace) -> int:
    from pto_tui.tui.app import run  # Textual loads only when the application is wanted

    return int(run(args) or 0)

if __name__ == "__main__":
    sys.exit(main())
