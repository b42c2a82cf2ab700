"""`pto-tui round ...`: drive a whole round headless (start, changes, measure, close)."""

from __future__ import annotations

import argparse
import sys

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, finish, open_campaign, print_json
from pto_tui.cli.measurement_args import add_measurement_args, measurement_from_args
from pto_tui.cli.pre_edit_args import (
    add_form_args,
    add_prefill_arg,
    pre_edit_from_args,
    prefill_number,
)
from pto_tui.cli.rerun_cmd import add_rerun
from pto_tui.core import payloads
from pto_tui.core.campaign.prefill import LEFT_FOR_THE_USER, Prefill, prefill
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import parse_scalar
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, HARDWARE_CHECKLIST, ChangeKind, Verdict

_NUMBER_HELP = "default: the open round"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "round",
        help=HELP["round"],
        description="A round: answer the Pre-Edit questions (start), edit the workspace, "
        "record the changes, record build/correctness/benchmark (measure), close with a verdict.",
    )
    rsub = p.add_subparsers(dest="round_command", metavar="STEP", required=True)
    _add_start(rsub)

    s = rsub.add_parser("gates", help="show what still blocks a round with these answers")
    add_form_args(s)
    add_prefill_arg(s)
    add_json_flag(s)
    s.set_defaults(handler=cmd_gates)

    _add_changes(rsub)

    s = rsub.add_parser("measure", help="record build, correctness and benchmark samples")
    s.add_argument("number", type=int, nargs="?", help=_NUMBER_HELP)
    add_measurement_args(s)
    add_json_flag(s)
    s.set_defaults(handler=cmd_measure)

    _add_close(rsub)
    _add_run(rsub)
    add_rerun(rsub)

    s = rsub.add_parser(
        "confirm",
        help="keep a round held for review, or adopt a round pto-tui did not measure",
        description="A closed round is held for review (inconclusive, not the frontier) when "
        "its speedup is above discipline.review_gain, or when its verdict was amended to kept "
        "against what its measurement gives; confirming it with a reason records the reason "
        "in the round and makes it kept. A round imported or written by hand never leads by "
        "itself; confirming it adopts it as it stands (it may then be the frontier).",
    )
    s.add_argument("number", type=int, help="the round held for review, or adopted")
    s.add_argument("--reason", required=True, help="why the result is real (a few words)")
    s.add_argument("--who", default="", help="who confirms (default: user@host)")
    add_json_flag(s)
    s.set_defaults(handler=cmd_confirm)

    s = rsub.add_parser("delete", help="(refused) rounds are append-only")
    s.add_argument("number", type=int, help="the round (never deleted: amend it instead)")
    s.set_defaults(handler=cmd_delete)

    s = rsub.add_parser("classes", help="list the bottleneck classes and checklist keys")
    add_json_flag(s)
    s.set_defaults(handler=cmd_classes)


def _add_start(rsub: argparse._SubParsersAction) -> None:
    s = rsub.add_parser(
        "start",
        help="open the next round with its Pre-Edit answers (refused until every gate passes)",
        description="Open a round. Every Pre-Edit field, the four questions and all 8 "
        "hardware checklist items (--check KEY=NOTE) are required. Checklist keys: "
        + ", ".join(HARDWARE_CHECKLIST),
    )
    add_form_args(s)
    s.add_argument(
        "--from-suggestion",
        metavar="KNOB[=VALUE]",
        help="start from a costmodel suggestion (`pto-tui suggest`): its ranking becomes the "
        "evidence, the knob is in scope; VALUE defaults to the best-ranked one",
    )
    s.add_argument("--pto-isa", metavar="PATH", help="pto-isa checkout for --from-suggestion")
    add_prefill_arg(s)
    s.add_argument("--title", default="", help="short title for tables and the chart")
    s.add_argument("--phase", default=None, help="the [phases] name this round belongs to "
                   "(default: the project's current phase, see `pto-tui phase`)")
    s.add_argument("--based-on", type=int, default=None, help="base round (default: the frontier)")
    s.add_argument("--restore", action="store_true", help="reset the workspace to the base round first")
    add_json_flag(s)
    s.set_defaults(handler=cmd_start)


def _add_changes(rsub: argparse._SubParsersAction) -> None:
    s = rsub.add_parser("changes", help="record the round's changes (files and diff detected)")
    s.add_argument("number", type=int, nargs="?", help=_NUMBER_HELP)
    s.add_argument("--kind", choices=[k.value for k in ChangeKind],
                   help="the change kind (default: detected from the files changed)")
    s.add_argument("--describe", default="", help="what was changed, briefly")
    s.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PARAM=VALUE",
        help="change a tunable parameter (repeat)",
    )
    s.add_argument("--bug-fix", default="", help="reason, when a protected file is fixed")
    s.add_argument("--justify", default="", help="justification of a high-risk change")
    s.add_argument(
        "--approve-tolerance",
        default="",
        metavar="WHO_AND_WHY",
        help="the user's explicit approval of a loosened correctness tolerance",
    )
    s.add_argument(
        "--approve-discipline",
        default="",
        metavar="REASON",
        help="why [discipline] (the verdict rules) changed since the last closed round",
    )
    add_json_flag(s)
    s.set_defaults(handler=cmd_changes)


def _add_close(rsub: argparse._SubParsersAction) -> None:
    s = rsub.add_parser("close", help="decide the verdict from the measurements and close the round")
    s.add_argument("number", type=int, nargs="?", help=_NUMBER_HELP)
    s.add_argument("--analysis", default="", help="why it worked or failed")
    s.add_argument("--next", default="", dest="next_step", help="what to try next")
    s.add_argument(
        "--verdict",
        choices=[v.value for v in Verdict],
        help="the verdict you expect; refused when the measurements do not support it",
    )
    add_json_flag(s)
    s.set_defaults(handler=cmd_close)


def _add_run(rsub: argparse._SubParsersAction) -> None:
    s = rsub.add_parser(
        "run",
        help="run the open round on the target: sync, build, correctness, benchmark repeats, verdict",
        description="Records the changes as they are now, uploads the workspace, builds, checks "
        "correctness and only then benchmarks (discipline.warmup untimed runs, then at least "
        "discipline.repeats timed ones, more while the verdict is undecided, up to "
        "discipline.max_repeats), decides the verdict and closes the round. Ctrl-C cancels the "
        "running step and leaves the round open.",
    )
    s.add_argument("--quiet", action="store_true", help="show step headers only, not the output")
    s.add_argument("--analysis", default="", help="Post-Run analysis, written as the round closes")
    s.add_argument("--next", default="", dest="next_step", help="what to try next")
    s.add_argument(
        "--no-close",
        action="store_true",
        help="record the measurements but leave the round open (close it with `round close`)",
    )
    s.add_argument(
        "--resume",
        action="store_true",
        help="go on from the round's unfinished run (its sample journal, `status` lists it): "
        "the steps it recorded are not run again, a job of it left running is adopted",
    )
    add_json_flag(s)
    s.set_defaults(handler=cmd_run)


def cmd_start(args: argparse.Namespace) -> int:
    pre = pre_edit_from_args(args)
    title = args.title
    if args.from_suggestion:
        from pto_tui.cli.suggest_cmd import apply_suggestion  # loads the costmodel only here

        suggested = apply_suggestion(args, pre)
        title = title or suggested
    with open_campaign(args, write=True, command="pto-tui round start") as campaign:
        if args.prefill is not None:
            pre = prefill(campaign.current_rounds(), pre, prefill_number(args)).pre_edit
        record = campaign.start_round(
            StartRequest(pre, phase=args.phase, based_on=args.based_on, title=title, restore=args.restore)
        )
        folder = campaign.layout.round_dir(record.number)
        warnings = campaign.warnings
    finish(
        args,
        payloads.round_json(record),
        warnings,
        f"round {record.number} started (based on {round_name(record.changes.based_on or 0)}); "
        f"edit the workspace, then `pto-tui round changes`\n  {folder}",
    )
    return 0


def cmd_gates(args: argparse.Namespace) -> int:
    pre = pre_edit_from_args(args)
    with open_campaign(args, write=False) as campaign:
        rounds = campaign.current_rounds()
        drafted = prefill(rounds, pre, prefill_number(args)) if args.prefill is not None else None
        findings = campaign.gates(drafted.pre_edit if drafted else pre, rounds)
    listed = payloads.findings(findings)
    if drafted is not None:
        _print_prefill(args, drafted, listed)
    if args.json:
        if drafted is None:
            print_json(payloads.gates(findings), schema="gates")
    elif findings:
        for f in findings:
            print(f.render())
    else:
        print("all gates pass: the round may start")
    return 1 if findings else 0


def _print_prefill(args: argparse.Namespace, drafted: Prefill, listed: list[dict[str, str]]) -> None:
    """`round gates --prefill`: the drafted answers, then what still blocks (as gates)."""
    if args.json:
        print_json({**drafted.to_json(), "findings": listed}, schema="prefill")
        return
    print(f"prefilled from {round_name(drafted.source)}: " + (", ".join(drafted.filled) or "nothing"))
    print("left for you: " + ", ".join(LEFT_FOR_THE_USER))


def cmd_changes(args: argparse.Namespace) -> int:
    params = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set expects PARAM=VALUE, got {item!r}")
        params[key.strip()] = parse_scalar(value.strip())
    with open_campaign(args, write=True, command="pto-tui round changes") as campaign:
        record = campaign.record_changes(
            ChangesRequest(
                args.number,
                kind=ChangeKind(args.kind) if args.kind else None,
                description=args.describe,
                parameters=params,
                bug_fix=args.bug_fix,
                risk_justification=args.justify,
                tolerance_approval=args.approve_tolerance,
                discipline_approval=args.approve_discipline,
            )
        )
        warnings = campaign.warnings
    files = ", ".join(record.changes.files) or "no files"
    params_text = ", ".join(f"{p.name} {p.old}->{p.new}" for p in record.changes.parameters)
    finish(
        args,
        payloads.round_json(record),
        warnings,
        f"round {record.number} changes: {files}" + (f"; parameters {params_text}" if params_text else ""),
    )
    return 0


def cmd_measure(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True, command="pto-tui round measure") as campaign:
        record = campaign.record_measurement(measurement_from_args(args, campaign), args.number)
        warnings = campaign.warnings
    finish(
        args,
        payloads.round_json(record),
        warnings,
        f"round {record.number} measured: median "
        f"{format_duration(record.measurement.median_us, record.sample_unit)}",
    )
    return 0


def cmd_close(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True, command="pto-tui round close") as campaign:
        record = campaign.close_round(
            CloseRequest(
                args.number,
                analysis=args.analysis,
                next_step=args.next_step,
                claimed=Verdict(args.verdict) if args.verdict else None,
            )
        )
        warnings = campaign.warnings
    verdict = record.verdict.value if record.verdict else "-"
    message = f"round {record.number} closed: {verdict} — {record.verdict_reason}"
    for flag in record.flags:
        message += f"\n  FLAG {flag}"
    finish(args, payloads.round_json(record), warnings, message)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from pto_tui.backends.loop import run_round
    from pto_tui.backends.resume import resume_round
    from pto_tui.cli.live import run_campaign_service

    with open_campaign(args, write=True, command="pto-tui round run") as campaign:
        record = run_campaign_service(
            campaign,
            resume_round if args.resume else run_round,
            quiet=args.quiet or args.json,
            close=not args.no_close,
            analysis=args.analysis,
            next_step=args.next_step,
        )
        if args.no_close:
            record = campaign.preview(record.number)
        warnings = campaign.warnings
    m = record.measurement
    verdict = record.verdict.value if record.verdict else "-"
    if not record.is_closed:
        verdict += " (when closed; the round is still open)"
    message = (
        f"round {record.number}: {verdict} — {record.verdict_reason}\n"
        f"  build {m.build or '-'}, correctness {m.correctness or '-'}, "
        f"median {format_duration(m.median_us, m.unit)} over {len(m.samples_us)} run(s)"
    )
    for flag in record.flags:
        message += f"\n  FLAG {flag}"
    finish(args, payloads.round_json(record), warnings, message)
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True, command="pto-tui round confirm") as campaign:
        record = campaign.confirm_review(args.number, args.reason, who=args.who)
        warnings = campaign.warnings
    how = "kept" if record.held_for_review else "adopted as it stands"
    message = f"round {record.number} confirmed: {how} — {record.review_confirmation}"
    finish(args, payloads.round_json(record), warnings, message)
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True, command="pto-tui round delete") as campaign:
        campaign.delete_round(args.number)
    return 1  # delete_round always refuses


def cmd_classes(args: argparse.Namespace) -> int:
    if args.json:
        classes = {"bottleneck_classes": BOTTLENECK_CLASSES, "checklist": HARDWARE_CHECKLIST}
        print_json(classes, schema="classes")
        return 0
    print("Bottleneck classes:")
    for name, meaning in BOTTLENECK_CLASSES.items():
        print(f"  {name:38s} {meaning}")
    print("\nHardware checklist (--check KEY=NOTE):")
    for key, text in HARDWARE_CHECKLIST.items():
        print(f"  {key:18s} {text}")
    sys.stdout.flush()
    return 0
