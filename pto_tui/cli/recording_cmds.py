"""Sub-commands that record the campaign's fixed points and corrections:
env, baseline, torch-baseline, phase, amend."""

from __future__ import annotations

import argparse

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, finish, key_values, open_campaign, print_json
from pto_tui.cli.measurement_args import add_measurement_args, measurement_from_args
from pto_tui.core import payloads
from pto_tui.core.campaign.requests import AmendRequest
from pto_tui.core.errors import InputError
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.records import EnvironmentNotes, TorchBaseline


def register(sub: argparse._SubParsersAction) -> None:
    _add_env(sub)
    p = sub.add_parser(
        "baseline",
        help=HELP["baseline"],
    )
    add_measurement_args(p, required=False)
    p.add_argument("--analysis", default="", help="what the baseline shows (written in its notes.md)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_baseline)

    _add_torch_baseline(sub)

    p = sub.add_parser("phase", help=HELP["phase"])
    p.add_argument("name", nargs="?", help="one of [phases] names in project.toml")
    add_json_flag(p)
    p.set_defaults(handler=cmd_phase)

    p = sub.add_parser(
        "amend",
        help=HELP["amend"],
        description="A correction of a closed round, kept beside the original record with "
        "who, when and why. A verdict amended up to kept stands only when the round's own "
        "measurement keeps it under the verdict rule; otherwise the round is held for review "
        "(its verdict unchanged) until `pto-tui round confirm N --reason ...`. A round without "
        "valid samples cannot be kept. Downgrades with a reason are allowed.",
    )
    p.add_argument("number", type=int, help="the closed round to correct")
    p.add_argument("--field", required=True, choices=("verdict", "analysis", "next"),
                   help="what to correct")
    p.add_argument("--value", required=True, help="the corrected value (a verdict: kept, "
                   "neutral, failure, inconclusive)")
    p.add_argument("--why", required=True, help="the reason, recorded with the correction "
                   "(a verdict's: at least two words)")
    p.add_argument("--who", default="", help="who corrects (default: user@host)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_amend)


def _add_env(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "env",
        help=HELP["env"],
    )
    p.add_argument("--probe", action="append", default=[], metavar="NAME=ok|failed",
                   help="a probe checked by hand and its outcome (repeat); needs "
                   "--declare-environment, since nothing is run on the target")
    p.add_argument("--version", action="append", default=[], metavar="TOOL=VERSION", dest="versions",
                   help="a tool's version seen on the target, e.g. CANN=8.0.RC3 (repeat)")
    p.add_argument("--build-outcome", default="", help="what the first build gave, in words")
    p.add_argument("--first-result", default="", help="path of the first valid result")
    p.add_argument("--problem", action="append", default=[], help="a problem met (repeat)")
    p.add_argument(
        "--declare-environment",
        default="",
        metavar="REASON",
        help="accept probes given with --probe (nothing run on the target) as the environment "
        "round, for this reason; recorded and shown as declared",
    )
    add_json_flag(p)
    p.set_defaults(handler=cmd_env)


def _add_torch_baseline(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "torch-baseline",
        help=HELP["torch-baseline"],
    )
    p.add_argument("--avg", type=float, help="average duration of the timed runs; without "
                   "--avg the baseline is measured on the target by [commands] reference")
    p.add_argument("--min", type=float, dest="minimum", help="fastest timed run")
    p.add_argument("--max", type=float, dest="maximum", help="slowest timed run")
    p.add_argument("--unit", choices=("us", "ms"), default="us", help="unit of --avg/--min/--max")
    p.add_argument("--tflops", type=float, help="throughput of the reference, if known")
    p.add_argument("--label", default="torch_npu", help="what was measured (default torch_npu)")
    p.add_argument("--warmup", type=int, default=0, help="warm-up runs before the timed ones")
    p.add_argument("--runs", type=int, default=0, help="timed runs behind --avg")
    add_json_flag(p)
    p.set_defaults(handler=cmd_torch_baseline)


def _environment_verdict(passed: bool, declared_by: str = "") -> str:
    verdict = "environment round " + ("passed" if passed else "NOT passed: tuning stays locked")
    return verdict + (f" (DECLARED by hand via {declared_by}, not probed)" if declared_by else "")


def cmd_env(args: argparse.Namespace) -> int:
    if not args.probe:
        if args.declare_environment:
            raise InputError("--declare-environment goes with the probes it declares (--probe NAME=ok)")
        return _run_environment(args)
    probes = {}
    for name, state in key_values(args.probe, "--probe").items():
        if state not in ("ok", "failed"):
            raise InputError(f"--probe {name}: expected ok or failed, got {state!r}")
        probes[name] = state == "ok"
    notes = EnvironmentNotes(
        versions=key_values(args.versions, "--version"),
        build_outcome=args.build_outcome,
        first_valid_result=args.first_result,
        problems=list(args.problem),
        probes=probes,
        passed=all(probes.values()),
        declared_by="cli",
        declared_reason=args.declare_environment,
    )
    with open_campaign(args, write=True) as campaign:
        campaign.record_environment(notes)
        warnings = campaign.warnings
    finish(
        args,
        {"environment_passed": notes.passed, **notes.__dict__},  # env.schema.json
        warnings,
        _environment_verdict(notes.passed, notes.declared_by)
        + (f"\n  declared: {notes.declared_reason}" if notes.declared_reason else ""),
        schema="env",
    )
    return 0 if notes.passed else 1


def _run_environment(args: argparse.Namespace) -> int:
    from pto_tui.backends.environment import run_environment
    from pto_tui.cli.live import run_campaign_service

    with open_campaign(args, write=True, command="pto-tui env") as campaign:
        notes = run_campaign_service(campaign, run_environment, quiet=args.json)
        warnings = campaign.warnings
    lines = [f"  {'ok    ' if ok else 'FAILED'} {name}" for name, ok in notes.probes.items()]
    lines += [f"  problem: {p}" for p in notes.problems]
    lines.append(_environment_verdict(notes.passed))
    finish(args, {"environment_passed": notes.passed, **notes.__dict__}, warnings, "\n".join(lines),
           schema="env")
    return 0 if notes.passed else 1


def cmd_baseline(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True) as campaign:
        if args.build is None and not args.report:
            from pto_tui.backends.loop import run_baseline
            from pto_tui.cli.live import run_campaign_service

            record = run_campaign_service(campaign, run_baseline, quiet=args.json)
        else:
            record = campaign.record_baseline(measurement_from_args(args, campaign), analysis=args.analysis)
        warnings = campaign.warnings
    finish(
        args,
        payloads.round_json(record),
        warnings,
        f"baseline recorded: iter-000 {format_duration(record.measurement.median_us, record.sample_unit)}"
        + "".join(f"\n  FLAG {flag}" for flag in record.flags),
    )
    return 0


def cmd_torch_baseline(args: argparse.Namespace) -> int:
    given = [args.avg, args.minimum, args.maximum]
    if all(v is None for v in given):
        return _measure_torch_baseline(args)
    if any(v is None for v in given):
        raise InputError("give all of --avg, --min and --max, or none to measure on the target")
    scale = 1000.0 if args.unit == "ms" else 1.0
    baseline = TorchBaseline(
        avg_us=args.avg * scale,
        min_us=args.minimum * scale,
        max_us=args.maximum * scale,
        tflops=args.tflops,
        label=args.label,
        warmup=args.warmup,
        runs=args.runs,
    )
    if not (0 < baseline.min_us <= baseline.avg_us <= baseline.max_us):
        raise InputError("expected 0 < min <= avg <= max")
    with open_campaign(args, write=True) as campaign:
        campaign.set_torch_baseline(baseline)
        warnings = campaign.warnings
    finish(args, baseline.__dict__, warnings, f"{baseline.label} baseline recorded", schema="torch-baseline")
    return 0


def _measure_torch_baseline(args: argparse.Namespace) -> int:
    from pto_tui.backends.reference import run_reference
    from pto_tui.cli.live import run_campaign_service

    with open_campaign(args, write=True) as campaign:
        measured = run_campaign_service(campaign, run_reference, quiet=args.json)
        warnings = campaign.warnings
    finish(
        args,
        measured.__dict__,
        warnings,
        f"{measured.label}: avg {format_duration(measured.avg_us)} "
        f"(min {format_duration(measured.min_us)}, max {format_duration(measured.max_us)})",
        schema="torch-baseline",
    )
    return 0


def cmd_phase(args: argparse.Namespace) -> int:
    with open_campaign(args, write=bool(args.name)) as campaign:
        if args.name:
            campaign.set_phase(args.name)
        data = payloads.phases(campaign)  # the MCP tool `phase` gives the same
    if args.json:
        print_json(data, schema="phase")
    else:
        for name in data["phases"]:
            print(("* " if name == data["current"] else "  ") + name)
    return 0


def cmd_amend(args: argparse.Namespace) -> int:
    from pto_tui.core.rules.review import HELD_AMENDMENT

    with open_campaign(args, write=True) as campaign:
        record = campaign.amend(AmendRequest(args.number, args.field, args.value, args.why, args.who))
        warnings = campaign.warnings
    held = record.held_for_review and not record.review_confirmation and any(
        HELD_AMENDMENT in flag for flag in record.flags)
    message = (f"round {args.number}: held for review, not amended (see the warning)" if held
               and args.field == "verdict" else f"round {args.number}: amendment recorded")
    finish(args, payloads.round_json(record), warnings, message)
    return 0
