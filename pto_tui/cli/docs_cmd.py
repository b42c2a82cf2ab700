"""`pto-tui docs`: the documents shipped with pto-tui (the repository's docs/ folder, in
the wheel as pto_tui/docs), listed with where they are, or one printed."""

from __future__ import annotations

import argparse
from pathlib import Path

from pto_tui.cli.commands import HELP

DOCS = Path(__file__).resolve().parent.parent / "docs"

# name -> what it is for, in the order a newcomer reads them
TOPICS = {
    "workflow": "the optimisation loop and its rules, section by section (cited as §N)",
    "operators": "operators in their repositories, commands, target modes, perf_sim",
    "tui": "the terminal application: panes, keys, drafts, leaving and re-attaching",
    "cli": "every sub-command, reruns, diffs, faults and step limits",
    "verdicts": "the rules in practice, how verdicts are decided, runs, interleaving",
    "rules": "every rule pto-tui enforces: what it refuses, where, and the fix",
    "history": "the tamper-evident history: runs/closed.log and its anchor",
    "agents": "a coding agent through MCP: tools, roots, import, sharing a project",
    "project-toml": "every key of project.toml: type, default, meaning",
    "pto-operator-toml": "every key of an operator's marker, pto-operator.toml",
    "formats": "the files pto-tui reads and writes, field by field",
    "remote": "targets, remote jobs, sync, step limits",
    "architecture": "how the code is laid out, for contributors",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("docs", help=HELP["docs"],
                       description="Without NAME: the documents and where they are on this "
                       "machine. With NAME: the document's text (pipe it to a pager).")
    p.add_argument("name", nargs="?", choices=sorted(TOPICS), metavar="NAME",
                   help="one of: " + ", ".join(TOPICS))
    p.set_defaults(handler=cmd_docs)


def cmd_docs(args: argparse.Namespace) -> int:
    if args.name:
        print(doc_path(args.name).read_text(encoding="utf-8"), end="")
        return 0
    width = max(map(len, TOPICS))
    for name, what in TOPICS.items():
        print(f"{name:<{width}}  {what}")
        print(f"{'':<{width}}  {doc_path(name)}")
    return 0


def doc_path(name: str) -> Path:
    return DOCS / f"{name}.md"
