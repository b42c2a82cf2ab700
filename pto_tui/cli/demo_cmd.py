"""`pto-tui demo`: a project on a built-in CPU demo operator, opened or run end to end."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, invoked_as, print_json
from pto_tui.core.campaign.demo import DEMO_KINDS, create_demo_project
from pto_tui.core.project.layout import is_project_dir, round_name


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help=HELP["demo"],
        description="Creates projects/demo_attention (PTO-DSL-style, NumPy) or projects/demo_fa "
        "(PTO-tile-lib-style, C++ with g++) and opens it. With --run: environment round, the CPU "
        "stand-in for the torch_npu baseline, iter-000 and scripted rounds, headless; the verdicts "
        "come from real, noisy timings. The demo operators are CPU code, labelled as such.",
    )
    p.add_argument("--kind", choices=sorted(DEMO_KINDS), default="dsl", help="which demo (default dsl)")
    p.add_argument("--run", action="store_true", help="run the loop headless and print the rounds")
    p.add_argument("--rounds", type=int, default=None, help="with --run: at most this many rounds")
    p.add_argument("--fresh", action="store_true", help="recreate the demo project from scratch")
    p.add_argument("--projects-root", type=Path, default=Path("projects"), help="default: ./projects")
    p.add_argument("--quiet", action="store_true", help="with --run: step headers only")
    add_json_flag(p)
    p.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    root = args.projects_root / DEMO_KINDS[args.kind]
    if args.fresh or not is_project_dir(root):
        root = create_demo_project(args.kind, args.projects_root, overwrite=args.fresh)
        print(f"created demo project {root}", file=sys.stderr)
    args.project = str(root)
    if not args.run:
        from pto_tui.cli.main import _open_tui

        return _open_tui(args)
    from pto_tui.backends.demo_campaign import run_demo_campaign
    from pto_tui.backends.sample_journal import unfinished_of
    from pto_tui.cli.common import make_console, open_campaign
    from pto_tui.cli.live import run_campaign_service
    from pto_tui.cli.reading_cmds import print_status
    from pto_tui.core import payloads
    from pto_tui.core.rounds.export import export_rows
    from pto_tui.core.summary.chart import write_campaign_chart

    with open_campaign(args, write=True, command="pto-tui demo --run") as campaign:
        rounds = run_campaign_service(
            campaign, run_demo_campaign, quiet=args.quiet or args.json, rounds=args.rounds
        )
        status = campaign.status(rounds)
        commands = asdict(campaign.config.commands)  # as `status --json` (status.schema.json)
        status_json = payloads.status_of(status, commands, campaign.layout, unfinished_of(campaign))
        chart = write_campaign_chart(campaign) if any(r.is_baseline and r.is_closed for r in rounds) else None
    if args.json:
        print_json(
            {
                "project": str(root),
                "status": status_json,
                "rounds": [asdict(row) for row in export_rows(rounds, status.torch)],
                "chart": str(chart.png) if chart else None,
            },
            schema="demo",
        )
        return 0
    out = make_console()
    print_status(out, status)
    for r in rounds:
        verdict = "baseline" if r.is_baseline else (r.verdict.value if r.verdict else r.status)
        out.print(f"  {round_name(r.number)}  {verdict:12s} {r.short_hypothesis(40):40s} {r.verdict_reason}")
    if chart:
        out.print(f"summary chart: {chart.png}")
    me = invoked_as()
    again = f"{me} demo" + ("" if args.kind == "dsl" else f" --kind {args.kind}")
    out.print(f"next: {me} --project {root}   (or: {again} to open it)", markup=False)
    return 0
