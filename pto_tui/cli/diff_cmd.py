"""`pto-tui diff N`: what changed in a round against its base, the frontier or round M."""

from __future__ import annotations

import argparse

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, open_campaign, print_json
from pto_tui.core.campaign.what_changed import PREVIOUS, DurationDelta, RoundDiff, Side, round_diff
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.durations import format_durations
from pto_tui.core.rounds.prediction import change_line
from pto_tui.core.rounds.render import format_tflops

_HOW = {
    "previous": "the round it was based on",
    "frontier": "the frontier: the best of the other rounds",
    "round": "chosen with --against",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diff",
        help=HELP["diff"],
        description="The parameters that differ, the median duration before and after with "
        "each side's spread, the gain and bounds the verdict rule judges, TFLOPS, and the "
        "round's patch.",
    )
    p.add_argument("number", type=int, help="the round whose changes to show")
    p.add_argument(
        "--against",
        default=PREVIOUS,
        metavar="previous|frontier|M",
        help="the reference round (default: previous, the round it was based on)",
    )
    add_json_flag(p)
    p.set_defaults(handler=cmd_diff)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _side_line(side: Side) -> str:
    if side.median_us is None:
        return f"  {round_name(side.round)}: no valid samples"
    return (
        f"  {round_name(side.round)}: {side.runs} run(s), spread {_percent(side.spread)}"
        f" ({side.stability})"
    )


def _duration_lines(d: DurationDelta) -> list[str]:
    before, after = format_durations([d.before.median_us, d.after.median_us], d.unit)
    line = f"duration (median): {before} -> {after}"
    if d.delta is not None and d.speedup is not None:
        line += f" ({d.delta:+.1%}, {d.speedup:.2f}x)"
    lines = [line, _side_line(d.before), _side_line(d.after)]
    if d.judged:
        lines.append(f"  {d.bounds_text()}: {d.judged}")
    return lines


def render(diff: RoundDiff) -> str:
    lines = [f"{round_name(diff.round)} against {round_name(diff.against)} ({_HOW[diff.against_how]})"]
    if diff.verdict:
        lines.append(f"verdict: {diff.verdict} — {diff.verdict_reason}")
    lines.append("parameters:" if diff.parameters else "parameters: none differ")
    lines += [f"  {p.name}: {p.before} -> {p.after}" for p in diff.parameters]
    if diff.duration is not None:
        lines += _duration_lines(diff.duration)
    if diff.prediction is not None:
        lines.append(change_line(diff.prediction))
    if diff.tflops_before is not None or diff.tflops_after is not None:
        shown = [format_tflops(t) for t in (diff.tflops_before, diff.tflops_after)]
        delta = f" ({diff.tflops_delta:+.1%})" if diff.tflops_delta is not None else ""
        lines.append(f"TFLOPS: {shown[0]} -> {shown[1]}{delta}")
    base = round_name(diff.patch_against) if diff.patch_against is not None else "its base"
    if diff.patch.strip():
        lines += [f"patch (the round's patch.diff, against {base}):", diff.patch.rstrip("\n")]
    else:
        lines.append(f"patch: none (no file changed against {base})")
    return "\n".join(lines)


def cmd_diff(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        diff = round_diff(campaign, args.number, args.against)
    if args.json:
        print_json(diff.to_json(), schema="diff")
    else:
        print(render(diff))
    return 0
