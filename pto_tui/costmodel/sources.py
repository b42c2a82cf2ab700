"""The source texts a costmodel plan is read from: the operator's own folder and, for a
PTO-DSL operator inside a repository, the repository modules its files import (the
real kernels keep their stages in a shared module such as `ops/attention/common.py`)."""

from __future__ import annotations

import ast
from pathlib import Path

from pto_tui.core.project.config import ProjectConfig, operator_folder

SOURCE_SUFFIXES = (".cpp", ".cc", ".h", ".hpp", ".py")
MAX_SOURCE_BYTES = 2_000_000


def _text(path: Path) -> str | None:
    try:
        if path.stat().st_size >= MAX_SOURCE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_sources(folder: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            text = _text(path)
            if text is not None:
                out[str(path.relative_to(folder))] = text
    return out


def imported_modules(text: str) -> list[str]:
    """Dotted names of the modules a Python text imports (absolute imports only)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def plan_sources(workspace: Path, config: ProjectConfig) -> dict[str, str]:
    """Sources keyed by their path in the workspace copy."""
    own = workspace / operator_folder(config)
    operator = config.operator
    inside = own / operator.path if operator.path and (own / operator.path).is_dir() else None
    if inside is None:
        root = own if own.is_dir() else workspace
        return read_sources(root)
    found = {f"{operator.path}/{rel}": text for rel, text in read_sources(inside).items()}
    python_root = own / operator.pythonpath if operator.pythonpath else own
    for text in list(found.values()):
        for module in imported_modules(text):
            path = python_root / Path(*module.split(".")).with_suffix(".py")
            rel = str(path.relative_to(own))
            if rel not in found and path.is_file():
                module_text = _text(path)
                if module_text is not None:
                    found[rel] = module_text
    return found
