"""Project sub-commands: scan, new, import, status, rounds, show, env, baseline, torch-baseline, amend."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from pto_tui.cli.common import add_json_flag, parse_scalar, print_json, project_layout
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.scaffold import ProjectAnswers, create_project, parse_target, plan_project
from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.errors import InputError
from pto_tui.core.operators.scan import Candidate, scan
from pto_tui.core.rounds.export import export_rows
from pto_tui.core.rounds.importer import import_project
from pto_tui.core.rounds.records import EnvironmentNotes, Measurement, round_to_dict
from pto_tui.core.rounds.render import TorchBaseline, format_duration
from pto_tui.core.vocabulary import OperatorKind


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scan", help="list candidate operators under DIR, with the evidence for each")
    p.add_argument("dir", type=Path)
    add_json_flag(p)
    p.set_defaults(handler=cmd_scan)

    p = sub.add_parser(
        "new",
        help="create projects/<op>/ from an operator source (WORKFLOW.md steps 1-4)",
        description="Create a project: classify the operator, copy it into the workspace, "
        "discover its tunables, write project.toml and TASK_REQUIREMENTS.md.\n\n"
        "example: pto-tui new ~/pto-isa/kernels/fa --case-spec 128,128,1024,128 "
        "--shape HEAD_SIZE=128 --shape S=1024 --dtype float16 --target ssh:npu-a "
        "--work-dir /home/me/work/fa",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("source", type=Path, help="the operator's folder (or file)")
    p.add_argument("--name", help="operator name (default: the folder name)")
    p.add_argument("--kind", choices=[k.value for k in OperatorKind], help="override the classification")
    p.add_argument("--case", dest="case_name", help="one of the cases the operator lists")
    p.add_argument("--shape", action="append", default=[], metavar="K=V", help="a shape field (repeat)")
    p.add_argument("--dtype", default=None, help="data type (default float16)")
    p.add_argument("--causal", action="store_true", help="causal mask on")
    p.add_argument("--case-spec", default=None, help='the operator\'s case string, e.g. "128,128,1024,128"')
    p.add_argument("--option", action="append", default=[], metavar="K=V", help="other case option (repeat)")
    p.add_argument("--target", default="local", help='"local" (default) or "ssh:ALIAS" (an SSH config alias)')
    p.add_argument("--work-dir", default="", help="remote work directory (ssh targets)")
    p.add_argument(
        "--env-setup",
        default="",
        help='shell line run before every command, e.g. "source set_env.sh"',
    )
    p.add_argument("--npu", type=int, default=0, help="NPU device id (default 0)")
    p.add_argument("--pto-isa", default="", help="pto-isa checkout for the built-in costmodel engine")
    p.add_argument("--costmodel-tool", default="", help="path of query_pto_cycles.py (external engine)")
    p.add_argument("--requirements", default="", help="extra requirements for TASK_REQUIREMENTS.md")
    p.add_argument("--projects-root", type=Path, default=Path("projects"), help="default: ./projects")
    p.add_argument("--overwrite", action="store_true", help="replace an existing project of that name")
    add_json_flag(p)
    p.set_defaults(handler=cmd_new)

    p = sub.add_parser("import", help="read a hand-written (Markdown only) project into records")
    p.add_argument("dir", type=Path, nargs="?", help="the project folder (default: --project or cwd)")
    p.add_argument("--kind", choices=[k.value for k in OperatorKind])
    add_json_flag(p)
    p.set_defaults(handler=cmd_import)

    p = sub.add_parser("status", help="best so far, baseline, recent failures, gates")
    add_json_flag(p)
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("rounds", help="the round table")
    add_json_flag(p)
    p.set_defaults(handler=cmd_rounds)

    p = sub.add_parser("show", help="one round: record and notes")
    p.add_argument("number", type=int)
    add_json_flag(p)
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser(
        "env",
        help="the environment round (WORKFLOW.md step 6): run the probes on the target, "
        "or record results given with --probe",
    )
    p.add_argument("--probe", action="append", default=[], metavar="NAME=ok|failed")
    p.add_argument("--version", action="append", default=[], metavar="TOOL=VERSION", dest="versions")
    p.add_argument("--build-outcome", default="")
    p.add_argument("--first-result", default="", help="path of the first valid result")
    p.add_argument("--problem", action="append", default=[], help="a problem met (repeat)")
    add_json_flag(p)
    p.set_defaults(handler=cmd_env)

    p = sub.add_parser(
        "baseline",
        help="iter-000, the initial PTO measurement: measured on the target, or given with --build",
    )
    _measurement_args(p, required=False)
    p.add_argument("--analysis", default="")
    add_json_flag(p)
    p.set_defaults(handler=cmd_baseline)

    p = sub.add_parser(
        "torch-baseline",
        help="the torch_npu reference: measured on the target, or given with --avg/--min/--max",
    )
    p.add_argument("--avg", type=float)
    p.add_argument("--min", type=float, dest="minimum")
    p.add_argument("--max", type=float, dest="maximum")
    p.add_argument("--unit", choices=("us", "ms"), default="us")
    p.add_argument("--tflops", type=float)
    p.add_argument("--label", default="torch_npu")
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--runs", type=int, default=0)
    add_json_flag(p)
    p.set_defaults(handler=cmd_torch_baseline)

    p = sub.add_parser("phase", help="show the phases, or set the one new rounds fall in")
    p.add_argument("name", nargs="?", help="one of [phases] names in project.toml")
    add_json_flag(p)
    p.set_defaults(handler=cmd_phase)

    p = sub.add_parser("amend", help="add a correction beside a closed round (the original stays)")
    p.add_argument("number", type=int)
    p.add_argument("--field", required=True, choices=("verdict", "analysis", "next"))
    p.add_argument("--value", required=True)
    p.add_argument("--why", required=True)
    p.add_argument("--who", default="")
    add_json_flag(p)
    p.set_defaults(handler=cmd_amend)


def _measurement_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--build", choices=("ok", "failed"), required=required)
    p.add_argument(
        "--correctness",
        choices=("pass", "fail", "skip"),
        default="skip",
        help="skip = not run (no numbers may then be recorded)",
    )
    p.add_argument("--samples", default="", help="benchmark durations, comma separated, one per repeat")
    p.add_argument("--reference", default="", help="the report's baseline (reference) durations")
    p.add_argument("--unit", choices=("us", "ms"), default="us", help="unit of the durations")
    p.add_argument("--tflops", type=float)
    p.add_argument("--report", action="append", default=[], help="result file the numbers came from")
    p.add_argument("--problem", default="", help="what went wrong, when something did")


def _floats(text: str, unit: str, what: str) -> list[float]:
    if not text.strip():
        return []
    scale = 1000.0 if unit == "ms" else 1.0
    values = []
    for part in text.split(","):
        try:
            values.append(float(part) * scale)
        except ValueError:
            raise InputError(f"{what}: {part.strip()!r} is not a number") from None
    return values


def measurement_from_args(args: argparse.Namespace) -> Measurement:
    return Measurement(
        build=args.build,
        correctness="" if args.correctness == "skip" else args.correctness,
        samples_us=_floats(args.samples, args.unit, "--samples"),
        reference_us=_floats(args.reference, args.unit, "--reference"),
        tflops=args.tflops,
        reports=list(args.report),
        problem=args.problem,
    )


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{what} expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def open_campaign(args: argparse.Namespace, write: bool, command: str = "") -> Campaign:
    return Campaign(project_layout(args).root, write=write, command=command or f"pto-tui {args.command}")


# ---------------------------------------------------------------- scan / new / import


def _print_candidate(console: Console, c: Candidate) -> None:
    kind = c.kind.value if c.kind else "?"
    console.print(f"[bold]{c.name}[/]  {kind}  ({c.status}{', demo' if c.demo else ''})  {c.path}")
    for line in c.evidence:
        console.print(f"    {line}")
    for case in c.cases:
        console.print(f"    case: {case.name}" + (f"  {case.spec}" if case.spec else ""))


def cmd_scan(args: argparse.Namespace) -> int:
    result = scan(args.dir)
    if args.json:
        print_json(
            {
                "root": str(result.root),
                "candidates": [c.to_json() for c in result.candidates],
                "warnings": result.warnings,
            }
        )
        return 0
    console = _console()
    if not result.candidates:
        console.print(f"no PTO operators found under {result.root}")
    for c in result.candidates:
        _print_candidate(console, c)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    spec, candidate = plan_project(
        ProjectAnswers(
            source=args.source,
            kind=OperatorKind(args.kind) if args.kind else None,
            name=args.name,
            case_name=args.case_name or "",
            shape={k: parse_scalar(v) for k, v in _pairs(args.shape, "--shape").items()},
            dtype=args.dtype or "",
            causal=args.causal,
            case_spec=args.case_spec or "",
            options={k: parse_scalar(v) for k, v in _pairs(args.option, "--option").items()},
            target=parse_target(args.target, args.work_dir, args.env_setup, args.npu),
            pto_isa=args.pto_isa,
            costmodel_tool=args.costmodel_tool,
            requirements=args.requirements,
        )
    )
    name, kind = spec.operator.name, spec.operator.kind
    root = create_project(spec, args.projects_root, overwrite=args.overwrite)
    if args.json:
        print_json(
            {
                "project": str(root),
                "operator": name,
                "kind": kind.value,
                "classification": candidate.to_json() if candidate else None,
                "tunables": [t.name for t in spec.tunables],
            }
        )
        return 0
    console = _console()
    if candidate:
        _print_candidate(console, candidate)
        if args.kind and candidate.kind and candidate.kind.value != args.kind:
            console.print(f"  classification overridden: {candidate.kind.value} -> {args.kind}")
    console.print(f"created {root}")
    console.print(f"  tunables: {', '.join(t.name for t in spec.tunables) or 'none found'}")
    console.print(f"  next: edit {root / 'TASK_REQUIREMENTS.md'} and add material to {root / 'context'}/")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    root = args.dir.resolve() if args.dir else project_layout(args).root
    report = import_project(root, OperatorKind(args.kind) if args.kind else None)
    if args.json:
        print_json(report.__dict__)
    else:
        print(f"imported rounds: {', '.join(map(str, report.imported)) or 'none'}")
        if report.skipped:
            print(f"already recorded: {', '.join(map(str, report.skipped))}")
        for problem in report.problems:
            print(f"could not read: {problem}")
    return 0


# ---------------------------------------------------------------- reading


def _speed(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def print_status(console: Console, st: CampaignStatus) -> None:
    console.print(f"[bold]{st.operator}[/] ({st.kind})  case: {st.case}  target: {st.target}")
    console.print(f"environment round: {'passed' if st.environment_passed else 'NOT passed (tuning locked)'}")
    console.print(f"baseline (iter-000): {format_duration(st.baseline_us)}")
    if st.torch:
        console.print(f"{st.torch.label}: avg {format_duration(st.torch.avg_us)}")
    else:
        console.print("torch_npu baseline: not measured")
    best = f"iter-{st.frontier_round:03d}" if st.frontier_round is not None else "-"
    console.print(
        f"frontier: {best} {format_duration(st.frontier_us)}"
        f"  speedup vs initial {_speed(st.speedup_vs_initial)}"
        f"  vs torch_npu {_speed(st.speedup_vs_torch)}"
    )
    console.print("verdicts: " + ", ".join(f"{k} {v}" for k, v in st.counts.items()))
    if st.open_round is not None:
        console.print(f"open round: {st.open_round}")
    if st.three_round_rule:
        console.print(
            f"[bold]three-round rule[/]: {st.rounds_without_gain} rounds without a kept verdict; "
            "the next round must re-check the bottleneck and state a new direction"
        )
    for number, hypothesis, reason in st.recent_failures:
        console.print(f"  recent: iter-{number:03d} {hypothesis} — {reason}")
    for missing in st.problems.missing:
        console.print(f"[bold]missing on disk[/]: runs/iter-{missing:03d}")
    for problem in st.problems.unreadable:
        console.print(f"[bold]unreadable[/]: {problem}")


def cmd_status(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        st = campaign.status()
    if args.json:
        print_json(st.to_json())
    else:
        print_status(_console(), st)
    return 0


def cmd_rounds(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        rounds = campaign.rounds()
        st = campaign.status(rounds)
    rows = export_rows(rounds, st.torch)
    if args.json:
        print_json(
            {
                "rounds": [asdict(row) for row in rows],
                "missing": st.problems.missing,
                "unreadable": st.problems.unreadable,
            }
        )
        return 0
    table = Table("Iter", "Phase", "Hypothesis", "Verdict", "PTO", "vs initial", "vs torch", box=None)
    for row in rows:
        table.add_row(
            str(row.round),
            row.phase or "-",
            (row.title or row.hypothesis or "-")[:50],
            row.verdict or row.status,
            format_duration(row.median_us),
            _speed(row.speedup_vs_initial),
            _speed(row.speedup_vs_torch),
        )
    console = _console()
    console.print(table)
    for missing in st.problems.missing:
        console.print(f"missing on disk: runs/iter-{missing:03d}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with open_campaign(args, write=False) as campaign:
        record = campaign.round(args.number)
        folder = campaign.layout.round_dir(args.number)
    notes = folder / "notes.md"
    if args.json:
        print_json({"record": round_to_dict(record), "folder": str(folder)})
        return 0
    print(notes.read_text(encoding="utf-8") if notes.exists() else f"(no notes.md in {folder})")
    return 0


# ---------------------------------------------------------------- writing


def cmd_env(args: argparse.Namespace) -> int:
    if not args.probe:
        return _run_environment(args)
    probes = {}
    for name, state in _pairs(args.probe, "--probe").items():
        if state not in ("ok", "failed"):
            raise InputError(f"--probe {name}: expected ok or failed, got {state!r}")
        probes[name] = state == "ok"
    notes = EnvironmentNotes(
        versions=_pairs(args.versions, "--version"),
        build_outcome=args.build_outcome,
        first_valid_result=args.first_result,
        problems=list(args.problem),
        probes=probes,
        passed=all(probes.values()),
    )
    with open_campaign(args, write=True) as campaign:
        campaign.record_environment(notes)
        warnings = campaign.warnings
    _finish(
        args,
        {"environment_passed": notes.passed, "probes": probes},
        warnings,
        "environment round " + ("passed" if notes.passed else "NOT passed: tuning stays locked"),
    )
    return 0 if notes.passed else 1


def cmd_baseline(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True) as campaign:
        if args.build is None:
            from pto_tui.backends.loop import run_baseline
            from pto_tui.cli.live import run_campaign_service

            record = run_campaign_service(campaign, run_baseline, quiet=args.json)
        else:
            record = campaign.record_baseline(measurement_from_args(args), analysis=args.analysis)
        warnings = campaign.warnings
    _finish(
        args,
        round_to_dict(record),
        warnings,
        f"baseline recorded: iter-000 {format_duration(record.measurement.median_us)}",
    )
    return 0


def cmd_torch_baseline(args: argparse.Namespace) -> int:
    given = [args.avg, args.minimum, args.maximum]
    if all(v is None for v in given):
        from pto_tui.backends.reference import run_reference
        from pto_tui.cli.live import run_campaign_service

        with open_campaign(args, write=True) as campaign:
            measured = run_campaign_service(campaign, run_reference, quiet=args.json)
            warnings = campaign.warnings
        _finish(
            args,
            measured.__dict__,
            warnings,
            f"{measured.label}: avg {format_duration(measured.avg_us)} "
            f"(min {format_duration(measured.min_us)}, max {format_duration(measured.max_us)})",
        )
        return 0
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
    _finish(args, baseline.__dict__, warnings, f"{baseline.label} baseline recorded")
    return 0


def cmd_phase(args: argparse.Namespace) -> int:
    with open_campaign(args, write=bool(args.name)) as campaign:
        if args.name:
            campaign.set_phase(args.name)
        phases = list(campaign.config.phases)
        current = str(campaign.project.document.get("phases", {}).get("current") or phases[0])
    if args.json:
        print_json({"phases": phases, "current": current})
    else:
        for name in phases:
            print(("* " if name == current else "  ") + name)
    return 0


def cmd_amend(args: argparse.Namespace) -> int:
    with open_campaign(args, write=True) as campaign:
        record = campaign.amend(args.number, args.field, args.value, args.why, args.who)
        warnings = campaign.warnings
    _finish(args, round_to_dict(record), warnings, f"round {args.number}: amendment recorded")
    return 0


def _run_environment(args: argparse.Namespace) -> int:
    from pto_tui.backends.environment import run_environment
    from pto_tui.cli.live import run_campaign_service

    with open_campaign(args, write=True, command="pto-tui env") as campaign:
        notes = run_campaign_service(campaign, run_environment, quiet=args.json)
        warnings = campaign.warnings
    lines = [f"  {'ok    ' if ok else 'FAILED'} {name}" for name, ok in notes.probes.items()]
    lines += [f"  problem: {p}" for p in notes.problems]
    lines.append("environment round " + ("passed" if notes.passed else "NOT passed: tuning stays locked"))
    _finish(args, notes.__dict__, warnings, "\n".join(lines))
    return 0 if notes.passed else 1


def _finish(args: argparse.Namespace, data: object, warnings: list[str], message: str) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if getattr(args, "json", False):
        print_json(data)
    else:
        print(message)
