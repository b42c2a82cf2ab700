"""Sub-commands that read a campaign: status, rounds, show."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, make_console, open_campaign, print_json, print_json_table
from pto_tui.cli.plain import PlainConsole, Printer
from pto_tui.core import payloads
from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.errors import read_utf8_inside
from pto_tui.core.project.layout import round_name
from pto_tui.core.project.modes import CYCLES
from pto_tui.core.rounds.durations import duration_in, duration_unit
from pto_tui.core.rounds.export import export_rows
from pto_tui.core.rounds.prediction import PREDICTED_COLUMN, PREDICTED_NOTE, change_pair
from pto_tui.core.rounds.records import verdict_label, verdict_rule_of
from pto_tui.core.rounds.render import SIMULATED_NOTE, timing_text
from pto_tui.core.rounds.render_cycles import CYCLES_NOTE
from pto_tui.core.rounds.reruns import reruns_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help=HELP["status"])
    add_json_flag(p)
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("rounds", help=HELP["rounds"])
    add_json_flag(p)
    p.set_defaults(handler=cmd_rounds)

    p = sub.add_parser("show", help=HELP["show"])
    p.add_argument("number", type=int, help="the round (0 is the baseline iter-000)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_show)


def _speed(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def print_status(console: Printer, st: CampaignStatus) -> None:
    target = f"{st.target} ({st.target_mode}" + (f", predicted by {st.predict})" if st.predict else ")")
    console.print(f"[bold]{st.operator}[/] ({st.kind})  case: {st.case}  target: {target}")
    if st.sample_unit == CYCLES:
        console.print(f"[bold]samples: cycles (perf_sim)[/] - {CYCLES_NOTE}")
    elif st.simulated:
        console.print(f"[bold]timings: simulated[/] - {SIMULATED_NOTE}")
    console.print(f"environment round: {'passed' if st.environment_passed else 'NOT passed (tuning locked)'}")
    if st.environment_declared_by:
        reason = st.environment_declared_reason or "no reason given"
        # the reason is the person's text: printed as is, never read as markup
        console.print(
            f"  DECLARED: probes given by hand via {st.environment_declared_by}, not run on "
            f"the target; reason: {reason}",
            markup=False,
        )
    unstable = "  [bold]UNSTABLE (noisy samples)[/]" if st.baseline_stability == "noisy" else ""
    # one unit for the status's durations (never 18.855 ms beside 5876.8 us); cycles are
    # their own, and the torch_npu reference's microseconds then keep theirs
    torch_us = st.torch.avg_us if st.torch else None
    unit = duration_unit([st.baseline_us, st.frontier_us, torch_us], st.sample_unit)
    console.print(f"baseline (iter-000): {duration_in(st.baseline_us, unit)}{unstable}")
    if st.torch:
        torch_unit = duration_unit([torch_us]) if unit == CYCLES else unit
        console.print(f"{st.torch.label}: avg {duration_in(torch_us, torch_unit)}")
    else:
        console.print("torch_npu baseline: not measured")
    best = round_name(st.frontier_round) if st.frontier_round is not None else "-"
    console.print(
        f"frontier: {best} {duration_in(st.frontier_us, unit)}"
        f"  speedup vs initial {_speed(st.speedup_vs_initial)}"
        f"  vs torch_npu {_speed(st.speedup_vs_torch)}"
    )
    for why in st.frontier_passed_over:
        console.print(f"  [bold]passed over[/]: {why}", markup=True, highlight=False)
    console.print("verdicts: " + ", ".join(f"{k} {v}" for k, v in st.counts.items()))
    if st.open_round is not None:
        console.print(f"open round: {st.open_round}")
    if st.three_round_rule:
        console.print(
            f"[bold]three-round rule[/]: {st.rounds_without_gain} rounds without a kept verdict; "
            "the next round must re-check the bottleneck and state a new direction"
        )
    for number, hypothesis, reason in st.recent_failures:
        console.print(f"  recent: {round_name(number)} {hypothesis} — {reason}")
    for missing in st.problems.missing:
        console.print(f"[bold]missing on disk[/]: runs/{round_name(missing)}")
    for problem in st.problems.unreadable:
        console.print(f"[bold]unreadable[/]: {problem}")
    print_tampered(console, st)


def print_tampered(console: Printer, st: CampaignStatus) -> None:
    """Closed rounds changed by hand (the campaign uses them as they were closed, or counts
    them apart when nothing vouches for their verdict) and notices about runs/closed.log."""
    for number, why in st.tampered.items():
        counted = ("counted as unverified, not as its verdict" if number in st.unverified
                   else "counted as it was closed")
        console.print(
            f"[bold]!tampered[/] {round_name(number)} ({counted}): " + "; ".join(why),
            markup=True,
            highlight=False,
        )
    for notice in st.problems.notices:
        console.print(f"[bold]records[/]: {notice}")


def cmd_status(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        st = campaign.status()
        commands = asdict(campaign.config.commands)
        from pto_tui.backends.sample_journal import unfinished_of  # status alone reads journals

        journals = unfinished_of(campaign)
    if args.json:
        print_json(payloads.status_of(st, commands, campaign.layout, journals), schema="status")
        return 0
    console = PlainConsole()
    print_status(console, st)
    for journal in journals:
        console.print(
            f"[bold]unfinished measurement[/]: round {journal['round']}: "
            f"{len(journal['samples_us'])} of {journal['planned_runs']} samples kept in "
            f"{journal['file']} (its run did not finish)",
            markup=True,
            highlight=False,
        )
    return 0


def cmd_rounds(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        rounds = campaign.current_rounds()  # only read here: no copies of a thousand records
        st = campaign.status(rounds)
    rows = export_rows(rounds, st.torch)
    if args.json:
        print_json_table(payloads.rounds_of(rows, st), "rounds", schema="rounds")
        return 0
    from rich.table import Table  # rich loads for the table only: `rounds --json` starts without it

    simulated = any(row.simulated for row in rows)
    cycles = any(row.unit == CYCLES for row in rows)
    pto = "PTO (cycles)" if cycles else "PTO (sim)" if simulated else "PTO"
    predicted = any(row.predicted_cycles is not None for row in rows)  # [target] predict
    columns = ["Iter", "Phase", "Hypothesis", "Verdict", pto, "vs initial", "vs torch"]
    table = Table(*columns, box=None)
    if predicted:
        table.add_column(PREDICTED_COLUMN, no_wrap=True)
    labels = {r.number: verdict_label(r) for r in rounds}
    unit = duration_unit([row.median_us for row in rows], CYCLES if cycles else "")  # one unit for the column
    for row in rows:
        verdict = row.verdict if row.verdict == "baseline" else labels.get(row.round) or row.verdict
        table.add_row(
            str(row.round),
            row.phase or "-",
            (row.title or row.hypothesis or "-")[:50],
            (verdict or row.status) + (" (unverified)" if row.unverified else "")
            + (" !tampered" if row.round in st.tampered else ""),
            timing_text(row.median_us, row.simulated, unit, CYCLES if row.unit == CYCLES else ""),
            _speed(row.speedup_vs_initial),
            _speed(row.speedup_vs_torch),
            *([change_pair(row.predicted_change, row.measured_change)] if predicted else []),
        )
    console = make_console()
    console.print(table)
    if simulated:
        console.print(CYCLES_NOTE if cycles else SIMULATED_NOTE)
    if predicted:
        console.print(PREDICTED_NOTE)
    for missing in st.problems.missing:
        console.print(f"missing on disk: runs/{round_name(missing)}")
    print_tampered(console, st)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        record = campaign.round(args.number)
        folder = campaign.layout.round_dir(args.number)
        rounds = campaign.current_rounds()  # read only: no copies
        reruns = reruns_of(rounds, args.number)
        # the campaign's marks: an ITERATIONS.md row edited or removed too
        tampered = campaign.status(rounds).tampered.get(args.number, record.tampered)
    notes = folder / "notes.md"
    if args.json:
        print_json(payloads.shown(record, folder, tampered, reruns), schema="show")
        return 0
    if record.verdict is not None:
        print(f"verdict rule: {verdict_rule_of(record)}")
    # the link both ways: the original's notes were written before its rerun existed
    if record.rerun_of is not None:
        print(f"rerun of {round_name(record.rerun_of)}")
    if reruns:
        print("rerun as " + ", ".join(round_name(n) for n in reruns))
    if record.unverified and record.is_closed:
        print(f"unverified: the history does not vouch for its verdict ({verdict_label(record)}); "
              "counted apart, never the frontier")
    if tampered:
        # the notes on disk may be what was changed: the record as closed is shown too
        print(f"!tampered {round_name(record.number)}: " + "; ".join(tampered))
        print(f"as closed: {record.effective_verdict() or record.status} — {record.verdict_reason}")
    # a notes.md linked to a file outside the project is refused, never printed
    print(read_utf8_inside(notes, campaign.layout.root) if notes.exists() else f"(no notes.md in {folder})")
    return 0
