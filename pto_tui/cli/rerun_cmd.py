"""`pto-tui round rerun N`: measure an inconclusive round's change again, as a new round."""

from __future__ import annotations

import argparse

from pto_tui.cli.common import add_json_flag, finish, open_campaign
from pto_tui.core import payloads
from pto_tui.core.campaign.requests import RerunRequest
from pto_tui.core.project.layout import round_name


def add_rerun(rsub: argparse._SubParsersAction) -> None:
    s = rsub.add_parser(
        "rerun",
        help="open the next round as a rerun of an inconclusive round (same change, linked)",
        description="Open the next round with round N's Pre-Edit answers, based on the round N "
        "was based on, with N's parameter values and files put back in the workspace; then run "
        "it with `pto-tui round run`. N must be closed and inconclusive, and no round may be "
        "open; every gate of `round start` applies. N itself is not changed.",
    )
    s.add_argument("number", type=int, help="the inconclusive round to rerun")
    s.add_argument("--recheck", default="", metavar="TEXT",
                   help="three-round rule: the bottleneck class re-checked (when three rounds "
                   "in a row were not kept)")
    s.add_argument("--new-direction", default="", metavar="TEXT",
                   help="three-round rule: the new direction this rerun takes")
    add_json_flag(s)
    s.set_defaults(handler=cmd_rerun)


def cmd_rerun(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True, command="pto-tui round rerun") as campaign:
        record = campaign.rerun_round(
            RerunRequest(args.number, bottleneck_recheck=args.recheck, new_direction=args.new_direction)
        )
        folder = campaign.layout.round_dir(record.number)
        warnings = campaign.warnings
    files = ", ".join(record.changes.files) or "no files"
    params = ", ".join(f"{p.name} {p.old}->{p.new}" for p in record.changes.parameters)
    finish(
        args,
        payloads.round_json(record),
        warnings,
        f"round {record.number} started as a rerun of {round_name(args.number)} (based on "
        f"{round_name(record.changes.based_on or 0)}); changes: {files}"
        + (f"; parameters {params}" if params else "")
        + f"\n  run it with `pto-tui round run`\n  {folder}",
    )
    return 0
