"""`pto-tui explore`: several values of one knob as rounds measured at once
(core/campaign/explore.py, backends/explore.py)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, open_campaign, print_json
from pto_tui.cli.pre_edit_args import add_form_args, add_prefill_arg, pre_edit_from_args, prefill_number
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.explore import ExploreRequest
from pto_tui.core.campaign.prefill import prefill
from pto_tui.core.errors import InputError
from pto_tui.core.payloads import explore_payload
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import PreEdit, Round


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "explore", help=HELP["explore"],
        description="Start one round per value of KNOB, all based on the frontier (or --based-on), "
        "with the Pre-Edit answers given here (shared) and, per round, a drafted hypothesis, the "
        "costmodel ranking's evidence for its value (--top) and the knob as its scope; shown once "
        "for confirmation (--yes skips the question). Every gate of `round start` applies to each "
        "round, the group's earlier rounds counting as rounds without gain for the three-round "
        "rule. The rounds are built and measured at once on the target's free NPUs ([target] "
        "npu_ids; on a slurm target as Slurm jobs) and closed in order, each with its own verdict "
        "against the same base. Ctrl-C cancels every round's running step; rounds not measured "
        "stay open (`explore --continue` measures and closes them).")
    s.add_argument("knob", nargs="?", help="the tunable to explore")
    s.add_argument("--values", default="", help="the values, comma-separated (e.g. 32,64,128)")
    s.add_argument("--top", type=int, default=0, metavar="N",
                   help="the N values the costmodel ranks best (`pto-tui suggest`), with its evidence")
    s.add_argument("--pto-isa", metavar="PATH", help="pto-isa checkout for --top")
    add_form_args(s)
    add_prefill_arg(s)
    s.add_argument("--justify", default="", help="justification when a value is a high-risk change")
    s.add_argument("--based-on", type=int, default=None, help="base round (default: the frontier)")
    s.add_argument("--phase", default=None, help="the phase the rounds fall in (default: the current one)")
    s.add_argument("--slots", type=int, default=None,
                   help="run at most this many rounds at once (default: every NPU of [target] npu_ids)")
    s.add_argument("--continue", dest="resume", action="store_true",
                   help="measure and close the open rounds of the newest explore group (or --group)")
    s.add_argument("--group", default="", help="the explore group --continue takes (e.g. explore-004)")
    s.add_argument("--yes", action="store_true", help="start without asking to confirm the drafted answers")
    s.add_argument("--quiet", action="store_true", help="show step headers only, not the output")
    add_json_flag(s)
    s.set_defaults(handler=cmd_explore)


def cmd_explore(args: argparse.Namespace) -> int:
    if args.resume:
        with open_campaign(args, write=True, command="pto-tui explore --continue") as campaign:
            from pto_tui.backends.explore import open_group

            return _run(args, campaign, open_group(campaign, args.group))
    if not args.knob:
        raise InputError("name the knob to explore (or --continue an explore group)", key="knob")
    request = _request(args)
    with open_campaign(args, write=False) as campaign:
        if args.prefill is not None:
            request = ExploreRequest(**{**request.__dict__, "pre": prefill(
                campaign.current_rounds(), request.pre, prefill_number(args)).pre_edit})
        ready = campaign.explore_drafts(request)
    ready.check_justified(request.risk_justification)  # refused before the question
    _show_drafts(ready.group, ready.base, ready.drafts)
    if not args.yes and not _confirmed(len(ready.drafts)):
        print("not started", file=sys.stderr)
        return 1
    with open_campaign(args, write=True, command="pto-tui explore") as campaign:
        return _run(args, campaign, campaign.start_group(request))


def _request(args: argparse.Namespace) -> ExploreRequest:
    pre = pre_edit_from_args(args)
    evidence: dict[str, str] = {}
    if args.top:
        values, evidence = _ranked(args)
    else:
        values = tuple(_value(v) for v in args.values.split(",") if v.strip())
    if not values:
        raise InputError("give the values to explore (--values 32,64,128) or --top N", key="values")
    return ExploreRequest(args.knob, values, pre, based_on=args.based_on, risk_justification=args.justify,
                          evidence=evidence, phase=args.phase)


def _value(text: str) -> Scalar:
    text = text.strip()
    return int(text) if text.lstrip("-").isdigit() else text


def _ranked(args: argparse.Namespace) -> tuple[tuple[Scalar, ...], dict[str, str]]:
    from pto_tui.cli.common import load_project_file
    from pto_tui.cli.suggest_cmd import _engine  # the costmodel only here
    from pto_tui.costmodel.suggest import ranked_picks

    layout, project = load_project_file(args)
    engine, cache = _engine(args, layout, project.config)
    picks = asyncio.run(ranked_picks(layout.workspace, project.config, engine, cache, args.knob, args.top))
    return tuple(p.value for p in picks), {str(p.value): p.evidence for p in picks}


def _show_drafts(group: str, base: Round, drafts: list[tuple[str, PreEdit]]) -> None:
    print(f"{group}: {len(drafts)} rounds based on {round_name(base.number)}", file=sys.stderr)
    for index, (title, pre) in enumerate(drafts, 1):
        evidence = pre.evidence.strip().splitlines()[0] if pre.evidence.strip() else "-"
        print(f"  {index}. {title}\n     hypothesis: {pre.hypothesis}\n     evidence: {evidence}\n"
              f"     scope: {', '.join(pre.scope)}", file=sys.stderr)


def _confirmed(count: int) -> bool:
    if not sys.stdin.isatty():
        raise InputError("explore shows the drafted answers once to be confirmed: pass --yes to start "
                         "without the question (no terminal to ask on)", key="yes")
    answer = input(f"start these {count} rounds and measure them? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _run(args: argparse.Namespace, campaign: Campaign, rounds: list[Round]) -> int:
    from pto_tui.backends.explore import npu_slots, run_group
    from pto_tui.cli.live import run_campaign_service

    slots = len(npu_slots(campaign, len(rounds), args.slots))
    outcome = run_campaign_service(campaign, run_group, quiet=args.quiet or args.json, rounds=rounds,
                                   slots=args.slots)
    for warning in campaign.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    knob = rounds[0].changes.parameters[0].name if rounds[0].changes.parameters else ""
    if args.json:
        print_json(explore_payload(rounds[0].group, knob, rounds[0].changes.based_on or 0, slots,
                                   outcome.closed, outcome.interrupted), schema="explore")
    else:
        for record in outcome.closed:
            verdict = record.verdict.value if record.verdict else "-"
            print(f"{round_name(record.number)} {record.title}: {verdict} — {record.verdict_reason}")
        for number, why in sorted(outcome.interrupted.items()):
            print(f"{round_name(number)}: not measured, left open: {why}")
    return 1 if outcome.interrupted else 0
