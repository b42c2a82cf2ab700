"""End-of-campaign sub-commands: chart, export, report (docs/workflow.md §19)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, open_campaign, path_arg, print_json
from pto_tui.core import payloads
from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.rows_cache import export_rows_of, row_text
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.rounds.export import FORMATS, export_rows, json_text, render_export


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "chart",
        help=HELP["chart"],
        description="Draw the two-panel summary chart: speedup per round and best frontier, "
        "durations per round with the torch_npu reference. With more than 10 rounds only the "
        "key rounds get their own x position; runs of other rounds are folded.",
    )
    p.add_argument("--output", type=path_arg, help="PNG path (default: projects/<op>/summary_chart.png)")
    p.add_argument("--svg", action="store_true", help="also write an SVG beside the PNG")
    add_json_flag(p)
    p.set_defaults(handler=cmd_chart)

    p = sub.add_parser(
        "export",
        help=HELP["export"],
    )
    p.add_argument("--format", choices=FORMATS, required=True, dest="fmt",
                   help="csv (one row a round), md (ITERATIONS.md's table) or json")
    p.add_argument("--output", type=path_arg, help="file to write (default: standard output)")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser(
        "report",
        help=HELP["report"],
        description="Write the campaign report: chart (drawn when missing or out of date), "
        "round table, kept rounds with hypotheses and evidence, failures and what was learned, "
        "the comparison with torch_npu, the reproducibility record.",
    )
    p.add_argument("--output", type=path_arg, help="Markdown path (default: projects/<op>/REPORT.md)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_report)


def cmd_chart(args: argparse.Namespace) -> int:
    from pto_tui.core.summary.chart import write_campaign_chart  # matplotlib loads only here

    with open_campaign(args, write=False) as campaign:
        result = write_campaign_chart(campaign, args.output, svg=args.svg)
    if args.json:
        print_json(payloads.chart(result), schema="chart")
        return 0
    print(f"chart written: {result.png}")
    if result.svg:
        print(f"svg written: {result.svg}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        text = _export_text(campaign, args.fmt)
    output: Path | None = args.output
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        atomic_write_text(output, text)
        print(f"{args.fmt} export written: {output}", file=sys.stderr)
    return 0


def _export_text(campaign: Campaign, fmt: str) -> str:
    """CSV and JSON from the rows kept beside the snapshot when it stands (the JSON rows'
    texts as they are kept), else from the records (the Markdown export's details need
    them). The kept rows are asked for first, before anything reads the log."""
    streamed = campaign.table_lines() if fmt != "md" else None
    torch = campaign.torch_baseline()
    config = campaign.config
    operator, case = config.operator.name, case_text(config.case, config.operator)
    if streamed is None:
        rounds = campaign.current_rounds()  # only read here: no copies of a thousand records
        return render_export(fmt, export_rows(rounds, torch), operator=operator, case=case,
                             torch=torch, records=rounds)
    lines, status = streamed
    if fmt == "json":
        texts = [row_text(line, status.baseline_us, status.torch, None) for line in lines]
        return json_text(texts, operator, case, torch)
    return render_export(fmt, export_rows_of(lines, status.baseline_us, status.torch))


def cmd_report(args: argparse.Namespace) -> int:
    from pto_tui.core.summary.campaign_report import write_campaign_report  # matplotlib loads only here

    with open_campaign(args, write=False) as campaign:
        result = write_campaign_report(campaign, args.output)
    if args.json:
        print_json(payloads.report(result), schema="report")
        return 0
    print(f"report written: {result.path}")
    if result.chart_drawn:
        print(f"chart drawn: {result.chart}")
    return 0
