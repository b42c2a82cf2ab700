"""Sub-commands that make a project: scan, new (import: `import_cmd`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import (
    add_json_flag,
    key_values,
    make_console,
    print_json,
)
from pto_tui.core import payloads
from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.campaign.planning import plan_project
from pto_tui.core.campaign.project_arguments import COMMAND_KEYS, ProjectArguments, project_answers
from pto_tui.core.campaign.scaffold import create_project
from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.operators.knob_report import KnobReport
from pto_tui.core.operators.operator_knobs import operator_knobs
from pto_tui.core.operators.scan import ScanResult, scan
from pto_tui.core.project.config import parse_scalar
from pto_tui.core.project.modes import DEFAULT_MODE, DEMO_MODE, PREDICTOR, chosen_modes, mode_spec
from pto_tui.core.vocabulary import OperatorKind

NEW_DESCRIPTION = (
    "Create a project: classify the operator, copy it into the workspace, "
    "discover its tunables, write project.toml and TASK_REQUIREMENTS.md.\n\n"
    "example: pto-tui new ~/pto-isa/kernels/fa --case-spec 128,128,1024,128 "
    "--shape HEAD_SIZE=128 --shape S=1024 --dtype float16 --target ssh:npu-a "
    "--work-dir /home/me/work/fa"
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scan", help=HELP["scan"])
    p.add_argument("dir", type=Path, help="folder to search for operators (a repository checkout)")
    p.add_argument("--verbose", action="store_true", help="also list the folders left out, and why")
    add_json_flag(p)
    p.set_defaults(handler=cmd_scan)

    p = sub.add_parser(
        "new",
        help=HELP["new"],
        description=NEW_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_new_args(p)
    add_json_flag(p)
    p.set_defaults(handler=cmd_new)


def _add_new_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", type=Path, help="the operator's folder (or file)")
    p.add_argument("--name", help="operator name (default: the folder name)")
    p.add_argument("--kind", choices=[k.value for k in OperatorKind], help="override the classification")
    p.add_argument("--case", dest="case_name", help="one of the cases the operator lists")
    p.add_argument("--shape", action="append", default=[], metavar="K=V", help="a shape field (repeat)")
    p.add_argument("--dtype", default=None, help="data type (default float16)")
    p.add_argument("--causal", action="store_true", help="causal mask on")
    p.add_argument("--case-spec", default=None, help='the operator\'s case string, e.g. "128,128,1024,128"')
    p.add_argument("--option", action="append", default=[], metavar="K=V", help="other case option (repeat)")
    p.add_argument(
        "--command",
        action="append",
        default=[],
        metavar="KEY=CMD",
        help="your own command (build, correctness, benchmark, reference, results; repeat)",
    )
    p.add_argument(
        "--related",
        action="append",
        default=[],
        metavar="PATH",
        help="a further file a round may edit, relative to the repository root (repeat)",
    )
    add_target_args(p)
    p.add_argument("--pto-isa", default="", help="pto-isa checkout for the built-in costmodel engine")
    p.add_argument("--costmodel-tool", default="", help="path of query_pto_cycles.py (external engine)")
    p.add_argument("--requirements", default="", help="extra requirements for TASK_REQUIREMENTS.md")
    p.add_argument("--projects-root", type=Path, default=Path("projects"), help="default: ./projects")
    p.add_argument("--overwrite", action="store_true", help="replace an existing project of that name")


def add_target_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target", default="local",
                   help='"local" (default), "ssh:ALIAS" (an SSH config alias), "slurm" (a Slurm cluster '
                   'whose login node is this machine) or "slurm:ALIAS"; its job options: [target.slurm]')
    p.add_argument("--work-dir", default="", help="remote work directory (ssh targets)")
    p.add_argument(
        "--ssh-config", default="", metavar="FILE", help="an SSH config file to use instead of ~/.ssh/config"
    )
    p.add_argument(
        "--env-setup",
        default="",
        help='shell line run before every command, e.g. "source set_env.sh"',
    )
    p.add_argument("--npu", type=int, default=0, help="NPU device id (default 0)")
    p.add_argument(
        "--mode",
        choices=[mode.value for mode in chosen_modes()],
        default=DEFAULT_MODE.value,
        help="; ".join(
            f"{mode.value}{' (default)' if mode is DEFAULT_MODE else ''}: {mode_spec(mode).choice}"
            for mode in chosen_modes()
        ) + f". Demo operators run in mode {DEMO_MODE.value}",
    )
    p.add_argument(
        "--compiler",
        default="c++",
        help="C++ compiler of a cpu-sim build (default c++), e.g. clang++-16",
    )
    p.add_argument(
        "--cxx-flags",
        default="",
        help="compile and link flags of a cpu-sim build (write it with =), "
        'e.g. --cxx-flags="-stdlib=libc++ -fexperimental-library"',
    )
    p.add_argument(
        "--predict",
        choices=[PREDICTOR],
        default="",
        help=f"{PREDICTOR}: an npu or cpu-sim project also records, for each round, the cycles "
        "pto-isa's perf_sim cycle model counts for its configuration beside its measurement "
        "([target] predict)",
    )


def _print_candidate(console: Console, c: Candidate) -> None:
    kind = c.kind.value if c.kind else "?"
    console.print(f"[bold]{c.name}[/]  {kind}  ({c.status}{', demo' if c.demo else ''})  {c.path}")
    for line in c.evidence:
        console.print(f"    {line}")
    for case in c.cases:
        console.print(f"    case: {case.name}" + (f"  {case.spec}" if case.spec else ""))


def _print_knobs(console: Console, knobs: KnobReport, verbose: bool) -> None:
    """The operator's tunables in short (name=value), the derived values; with --verbose each
    candidate left out and why."""
    console.print(f"    tunables: {knobs.short()}", markup=False)
    if knobs.workload:
        console.print(f"    workload knobs (set by the case): {', '.join(t.name for t in knobs.workload)}",
                      markup=False)
    if verbose:
        for item in knobs.left_out:
            console.print(f"    not a knob: {item.name}: {item.reason}", markup=False)
    elif knobs.left_out:
        count = len(knobs.left_out)
        console.print(f"    {count} candidate knob(s) left out (--verbose says why)", markup=False)


def _print_skipped(console: Console, result: ScanResult, verbose: bool) -> None:
    if verbose:
        console.print(f"left out ({len(result.skipped)}):")
        for skipped in result.skipped:
            console.print(f"    {skipped.path.relative_to(result.root)}: {skipped.reason}", markup=False)
    elif result.skipped:
        console.print(f"{len(result.skipped)} folders left out as no operators (--verbose says why)")


def cmd_scan(args: argparse.Namespace) -> int:
    result = scan(args.dir)
    if args.json:
        print_json(payloads.scan(result), schema="scan")
        return 0
    console = make_console()
    if not result.candidates:
        console.print(f"no PTO operators found under {result.root}")
    for c in result.candidates:
        _print_candidate(console, c)
        _print_knobs(console, operator_knobs(c), args.verbose)
    _print_skipped(console, result, args.verbose)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _arguments(args: argparse.Namespace) -> ProjectArguments:
    for flag, value in (("--case", args.case_name), ("--case-spec", args.case_spec)):
        if value is not None and not value.strip():
            raise InputError(f"{flag} is empty; leave it out or give a value")
    return ProjectArguments(
        source=args.source,
        kind=OperatorKind(args.kind) if args.kind else None,
        name=args.name,
        case=args.case_name or "",
        case_spec=args.case_spec or "",
        shape={k: parse_scalar(v) for k, v in key_values(args.shape, "--shape").items()},
        dtype=args.dtype or "",
        causal=args.causal,
        options={k: parse_scalar(v) for k, v in key_values(args.option, "--option").items()},
        target=args.target,
        work_dir=args.work_dir,
        ssh_config=args.ssh_config,
        env_setup=args.env_setup,
        npu=args.npu,
        mode=args.mode,
        compiler=args.compiler,
        cxx_flags=args.cxx_flags,
        predict=args.predict,
        pto_isa=args.pto_isa,
        costmodel_tool=args.costmodel_tool,
        requirements=args.requirements,
        commands=_commands_from_args(args.command),
        related=tuple(args.related),
    )


def _commands_from_args(items: list[str]) -> dict[str, str]:
    commands: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in COMMAND_KEYS:
            keys = ", ".join(COMMAND_KEYS)
            raise InputError(f"--command expects KEY=CMD with KEY one of {keys}, got {item!r}")
        commands[key] = value
    return commands


def cmd_new(args: argparse.Namespace) -> int:
    spec, candidate = plan_project(project_answers(_arguments(args)))
    root = create_project(spec, args.projects_root, overwrite=args.overwrite)
    if args.json:
        print_json(payloads.new(root, spec, candidate), schema="new")
        return 0
    console = make_console()
    if candidate:
        _print_candidate(console, candidate)
        if args.kind and candidate.kind and candidate.kind.value != args.kind:
            console.print(f"  classification overridden: {candidate.kind.value} -> {args.kind}")
    console.print(f"created {root}")
    _print_plan(console, spec)
    console.print(f"  next: edit {root / 'TASK_REQUIREMENTS.md'} and add material to {root / 'context'}/")
    return 0


def _print_plan(console: Console, spec: NewProject) -> None:
    op = spec.operator
    if op.in_repository:
        family = f", family {op.family}" if op.family else ""
        console.print(f"  repository: {op.repository} (operator {op.path}{family})")
    for case in spec.cases:
        console.print(f"  case offered: {case}", markup=False)
    name = f"{spec.case.name}: " if spec.case.name else ""
    console.print(f"  case: {name}{case_text(spec.case, spec.operator)}", markup=False)
    console.print(f"  tunables: {', '.join(t.name for t in spec.tunables) or 'none found'}")
    if spec.derived:
        derived = ", ".join(d.describe() for d in spec.derived)
        console.print(f"  derived (follow the tunables, not tunable): {derived}", markup=False)
    if spec.shared_kernel:
        console.print(
            f"  kernel code in a shared file: {spec.shared_kernel} (its build_jit_wrapper builds the kernel "
            f"there); to tune it in rounds, make the project with --related {spec.shared_kernel}",
            markup=False,
        )
    if spec.target.predict:
        console.print(f"  predict: {spec.target.predict} (each round also records perf_sim's cycles of its "
                      "configuration beside its timings)", markup=False)
    if spec.case.knobs:
        knobs = ", ".join(f"{k}={v}" for k, v in spec.case.knobs.items())
        console.print(f"  workload (shape) knobs, not tunable: {knobs}")
    for key, command in spec.commands.items():
        console.print(f"  {key}: {command or '-'}  ({spec.origins.get(key, '')})", markup=False)
    if spec.result.format:
        console.print(f"  result: {spec.result.format}  ({spec.result_origin})", markup=False)
