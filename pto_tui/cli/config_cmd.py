"""`pto-tui config`: the reference of project.toml's keys, from the declared shape."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from pto_tui.cli.commands import HELP
from pto_tui.cli.common import add_json_flag, print_json
from pto_tui.core.operators.marker_docs import MARKER_DOCS_FILE, marker_markdown
from pto_tui.core.project.commands import PLACEHOLDERS
from pto_tui.core.project.commands_docs import commands_markdown
from pto_tui.core.project.modes import MODES
from pto_tui.core.project.schema_docs import DOCS_FILE, KeyDoc, key_docs, schema_markdown
from pto_tui.core.project.sections import SECTIONS

PLACEHOLDER_NAMES = ", ".join("{" + name + "}" for name in PLACEHOLDERS)
DESCRIPTION = f"""\
What project.toml may hold: every table and key with its type, default, allowed values
and a one-line help. The file is meant to be edited by hand (comments and key order are
kept); an invalid value is reported with file, line and key.

  pto-tui config keys          every key, table by table
  pto-tui config keys --json   the same as a JSON list, for scripts
  pto-tui config commands      the [commands] keys with their defaults per kind and
                               target mode, every {{placeholder}}, the target modes
  pto-tui config docs          the reference as Markdown (the text of {DOCS_FILE})
  pto-tui config marker-docs   the operator marker's keys (the text of {MARKER_DOCS_FILE})

Placeholders in commands: {PLACEHOLDER_NAMES},
and every [case.shape] / [case.options] key and tunable parameter by its name.
Target modes ([target] mode): {", ".join(mode.value for mode in MODES)}.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "config",
        help=HELP["config"],
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    csub = p.add_subparsers(dest="config_command", metavar="WHAT", required=True)

    k = csub.add_parser(
        "keys",
        help="print every table and key with type, default and help",
        description="Every key of project.toml, table by table in file order. <name> stands "
        "for a name you choose (a tunable parameter, a tolerance).",
    )
    add_json_flag(k)
    k.set_defaults(handler=cmd_keys)

    c = csub.add_parser(
        "commands",
        help="the [commands] keys, their defaults, every {placeholder} and the target modes",
        description="Every [commands] key with its default per operator kind and target mode, "
        "the placeholders a command may use, and what each [target] mode means.",
    )
    c.set_defaults(handler=cmd_commands)

    d = csub.add_parser(
        "docs",
        help=f"print the reference as Markdown ({DOCS_FILE})",
        description=f"Print the Markdown reference of project.toml; {DOCS_FILE} is this output.",
    )
    d.set_defaults(handler=cmd_docs)

    m = csub.add_parser(
        "marker-docs",
        help=f"print the operator marker's reference as Markdown ({MARKER_DOCS_FILE})",
        description=f"Print the Markdown reference of pto-operator.toml; {MARKER_DOCS_FILE} is this output.",
    )
    m.set_defaults(handler=cmd_marker_docs)


def cmd_keys(args: argparse.Namespace) -> int:
    docs = key_docs()
    if args.json:
        print_json({"keys": [{"path": d.path, **asdict(d)} for d in docs]}, schema="config-keys")
        return 0
    for doc in docs:
        if not doc.table:
            print(_key_line(doc))
    for section in SECTIONS:
        required = " (required)" if section.required else ""
        print(f"\n[{section.name}]{required}  {section.help}")
        for doc in docs:
            if doc.table == section.name:
                print(_key_line(doc, indent="  "))
    return 0


def _key_line(doc: KeyDoc, indent: str = "") -> str:
    if doc.default_by_kind:
        default = "default per kind: " + "; ".join(f"{k}: {v}" for k, v in doc.default_by_kind.items())
    elif doc.required:
        default = "required"
    else:
        default = f"default {doc.default}"
    allowed = f"; {doc.allowed}" if doc.allowed else ""
    return f"{indent}{doc.key}  {doc.type}, {default}{allowed}\n{indent}    {doc.help}"


def cmd_commands(args: argparse.Namespace) -> int:
    print("\n".join(commands_markdown()))
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    print(schema_markdown(), end="")
    return 0


def cmd_marker_docs(args: argparse.Namespace) -> int:
    print(marker_markdown(), end="")
    return 0
