"""`pto-tui import`: a hand-written (Markdown only) project made a pto-tui project.

The operator's source (copied into workspace/) and the target are taken from flags; in a
terminal, the import asks for those not given when the project has no project.toml and
no workspace yet (empty answers: none, and a local target). Without a terminal nothing
is asked: the report says what the project still needs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, print_json, project_layout
from pto_tui.core.campaign.importing import ImportOptions, import_project
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.modes import chosen_modes
from pto_tui.core.vocabulary import OperatorKind


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help=HELP["import"], description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, nargs="?", help="the project folder (default: --project or cwd)")
    p.add_argument("--kind", choices=[k.value for k in OperatorKind],
                   help="the operator kind, when the project does not say")
    p.add_argument("--source", type=Path, default=None,
                   help="the operator's folder: copied into workspace/ (as `new` copies it), which "
                   "gives the commands and the tunables")
    p.add_argument("--case", default="", help="one of the cases the source lists (default: the one "
                   "TASK_REQUIREMENTS.md states)")
    p.add_argument("--target", default="", help='"local" (default) or "ssh:ALIAS" (an SSH config alias)')
    p.add_argument("--work-dir", default="", help="remote work directory (ssh targets)")
    p.add_argument("--ssh-config", default="", metavar="FILE",
                   help="an SSH config file instead of ~/.ssh/config")
    p.add_argument("--env-setup", default="", help="shell line run before every command")
    p.add_argument("--npu", type=int, default=0, help="NPU device id (default 0)")
    p.add_argument("--mode", choices=[m.value for m in chosen_modes()], default="",
                   help="the target's mode (default npu; a demo operator runs in demo)")
    p.add_argument("--no-input", action="store_true", help="never ask, even in a terminal")
    add_json_flag(p)
    p.set_defaults(handler=cmd_import)


def _ask(question: str) -> str:
    try:
        return input(question).strip()
    except EOFError:
        return ""


def _asked(args: argparse.Namespace, layout: ProjectLayout) -> None:
    """Ask for the source and the target when a person is there to answer and the project
    needs them (no project.toml and an empty workspace)."""
    interactive = sys.stdin.isatty() and not args.no_input and not args.json
    if not interactive or layout.project_file.exists():
        return
    workspace = layout.workspace
    if args.source is None and not (workspace.is_dir() and any(workspace.iterdir())):
        answer = _ask("operator source to copy into workspace/ (empty: none yet): ")
        args.source = Path(answer).expanduser() if answer else None
    if not args.target:
        args.target = _ask("target: local or ssh:ALIAS [local]: ") or "local"
        if args.target.startswith("ssh:") and not args.work_dir:
            args.work_dir = _ask("work dir on the target: ")


def cmd_import(args: argparse.Namespace) -> int:
    root = args.dir.resolve() if args.dir else project_layout(args).root
    _asked(args, ProjectLayout(root))
    options = ImportOptions(
        kind=OperatorKind(args.kind) if args.kind else None,
        source=args.source,
        case=args.case,
        target=args.target,
        work_dir=args.work_dir,
        env_setup=args.env_setup,
        npu=args.npu,
        mode=args.mode,
        ssh_config=args.ssh_config,
    )
    report = import_project(root, options)
    if args.json:
        print_json(report.to_json(), schema="import")
        return 0
    print(f"imported rounds: {', '.join(map(str, report.imported)) or 'none'}")
    if report.skipped:
        print(f"already recorded: {', '.join(map(str, report.skipped))}")
    print(f"operator: {report.operator} ({report.kind}); target: {report.target}")
    if report.workspace:
        print(f"workspace: copied from {report.workspace}")
    for title, items in (("could not read", report.problems), ("conflict", report.conflicts),
                         ("flagged", report.flagged), ("next", report.next_steps)):
        for item in items:
            print(f"{title}: {item}")
    if report.skill_written:
        print("wrote SKILL.md (how an agent works on this project through pto-tui)")
    return 0
