"""`pto-tui verify`: check the project's history (runs/closed.log's chain, its anchor in the
pto-tui home, every closed round's files) and exit non-zero on any break, listing each."""

from __future__ import annotations

import argparse

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, print_json, project_layout
from pto_tui.core.campaign.verify import verify

BROKEN = 1  # the exit status of a history with a break


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help=HELP["verify"],
        description="Reads runs/closed.log line by line, compares its head with the anchor "
        "pto-tui keeps in its home, and hashes every closed round's round.toml, notes.md, "
        "patch.diff, files.txt and ITERATIONS.md row, and project.toml's torch baseline, "
        "against what was logged. Writes nothing. Exits 1 on any break.",
    )
    add_json_flag(p)
    p.set_defaults(handler=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    result = verify(project_layout(args))
    if args.json:
        print_json(result.to_json(), schema="verify")
    else:
        head = f"entry {result.head_seq}" if result.head else "no entry"
        print(f"{result.root}: {result.entries} chained entries, head {head}, "
              f"{'anchored' if result.anchored else 'not anchored'}, "
              f"{result.rounds_checked} round(s) checked")
        for line in result.breaks:
            print(f"  break: {line}")
        print("history intact" if result.clean else f"history broken: {len(result.breaks)} break(s)")
    return 0 if result.clean else BROKEN
