"""The [commands] table of project.toml as a record: the shell command templates a project
runs (filled in by `commands.py`; each kind's defaults in `kinds/`)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Commands:
    """Shell command templates. {name} placeholders are filled with quoted values."""

    build: str
    correctness: str
    benchmark: str
    reference: str = ""  # torch_npu (or CPU stand-in) reference benchmark
    # where results appear, relative to where commands run (the operator folder, or the
    # repository root): the runner's results folder (DSL: the newest report.json written
    # by this run) or the tile-lib report.csv
    results: str = ""


def command_texts(commands: Commands) -> dict[str, str]:
    """Each command key with its text."""
    return {f.name: str(getattr(commands, f.name)) for f in fields(commands)}
