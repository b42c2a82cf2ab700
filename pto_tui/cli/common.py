"""Helpers shared by the CLI sub-command modules."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pto_tui.core.project.config import parse_scalar  # noqa: F401 (re-exported)
from pto_tui.core.project.file import ProjectFile  # noqa: F401 (re-exported)
from pto_tui.core.project.layout import ProjectLayout, find_project_root


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def project_layout(args: argparse.Namespace) -> ProjectLayout:
    return ProjectLayout(find_project_root(getattr(args, "project", None)))


def load_project_file(args: argparse.Namespace) -> tuple[ProjectLayout, ProjectFile]:
    """The project chosen by --project (or found from the cwd) and its parsed project.toml."""
    layout = project_layout(args)
    return layout, ProjectFile(layout.project_file)


def path_arg(text: str) -> Path:
    return Path(text).expanduser()

