"""Helpers shared by the CLI sub-command modules."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout, find_project_root

if TYPE_CHECKING:
    from rich.console import Console

    from pto_tui.core.campaign.campaign import Campaign


def invoked_as() -> str:
    """pto-tui as the user ran it, for the hints that say what to type next: `pto-tui`
    when that name on PATH is this program, else the path typed (`.venv/bin/pto-tui`)."""
    typed = sys.argv[0] if sys.argv else ""
    if Path(typed).name != "pto-tui":
        return "pto-tui"  # python -m, or called from a test
    import shlex
    import shutil

    found = shutil.which("pto-tui")
    if found and Path(found).resolve() == Path(typed).resolve():
        return "pto-tui"
    return shlex.quote(typed)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def print_json(data: dict[str, Any], *, schema: str) -> None:
    """A `--json` output, stamped with the version of its schema (docs/json/<schema>.schema.json)."""
    from pto_tui.core.schemas import stamped

    data = stamped(schema, data)
    text = _strict(lambda: json.dumps(data, indent=2, ensure_ascii=False, default=str, allow_nan=False))
    sys.stdout.write(text)
    sys.stdout.write("\n")


def _strict(encode: Callable[[], str]) -> str:
    """Strict JSON (no NaN or Infinity, which JSON has not): a non-finite number is refused
    where it enters, so one here is a bug, said in one line before anything is printed."""
    try:
        return encode()
    except ValueError as error:
        raise PtoError(f"cannot print JSON: {error} (a non-finite number in the output)") from None


def print_json_table(data: dict[str, Any], table: str, *, schema: str) -> None:
    """As print_json, with the rows of `data[table]` one to a line: the same JSON, written
    by the C encoder (an indented 1,000-round table takes several times as long)."""
    from pto_tui.core.schemas import stamped

    data = stamped(schema, data)

    dumps = json.JSONEncoder(ensure_ascii=False, default=str, allow_nan=False).encode  # one for every row

    def encode() -> str:
        rows = ",\n    ".join(dumps(row) for row in data[table])
        parts = [f'  "{table}": [\n    {rows}\n  ]' if rows else f'  "{table}": []']
        parts += [f"  {dumps(key)}: {dumps(value)}" for key, value in data.items() if key != table]
        return "{\n" + ",\n".join(parts) + "\n}\n"

    sys.stdout.write(_strict(encode))


def write_json_table(rows: Iterable[str], rest: dict[str, Any], table: str, *, schema: str) -> None:
    """As print_json_table, the rows given as their JSON text and written as they come:
    a table of ten thousand rounds is never held whole."""
    from pto_tui.core.schemas import stamped

    dumps = json.JSONEncoder(ensure_ascii=False, default=str, allow_nan=False).encode
    out = sys.stdout
    written = False
    block: list[str] = []  # rows written a block at a time: a write per row is a third of the time
    for text in rows:
        block.append(text)
        if len(block) == 256:
            out.write((",\n    " if written else f'{{\n  "{table}": [\n    ') + ",\n    ".join(block))
            written, block = True, []
    if block:
        out.write((",\n    " if written else f'{{\n  "{table}": [\n    ') + ",\n    ".join(block))
        written = True
    out.write("\n  ]" if written else f'{{\n  "{table}": []')
    for key, value in stamped(schema, rest).items():
        text = _strict(functools.partial(dumps, value))
        out.write(f",\n  {dumps(key)}: {text}")
    out.write("\n}\n")


def make_console() -> Console:
    from rich.console import Console  # imported here: the read commands print without rich

    return Console(highlight=False, soft_wrap=True)


def project_layout(args: argparse.Namespace) -> ProjectLayout:
    return ProjectLayout(find_project_root(getattr(args, "project", None)))


def load_project_file(args: argparse.Namespace) -> tuple[ProjectLayout, ProjectFile]:
    """The project chosen by --project (or found from the cwd) and its parsed project.toml."""
    layout = project_layout(args)
    return layout, ProjectFile(layout.project_file)


def open_campaign(args: argparse.Namespace, write: bool, command: str = "") -> Campaign:
    # imported here: `exec`, `jobs` and `attach` run without the campaign's modules
    from pto_tui.core.campaign.campaign import Campaign

    return Campaign(project_layout(args).root, write=write, command=command or f"pto-tui {args.command}")


def finish(
    args: argparse.Namespace,
    data: dict[str, Any],
    warnings: list[str],
    message: str,
    *,
    schema: str = "round",
) -> None:
    """End a writing command: warnings on stderr, then JSON (--json) or the message."""
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if getattr(args, "json", False):
        print_json(data, schema=schema)
    else:
        print(message)


def key_values(items: list[str], what: str) -> dict[str, str]:
    """Repeated KEY=VALUE options as a dict (what: the option, for the error)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{what} expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def path_arg(text: str) -> Path:
    return Path(text).expanduser()
