"""The repository modules an operator's Python files import, followed transitively: the
kernel of another operator an mc2 operator builds on (`from pto_kernels.ops.mc2.
matmul_all_reduce.kernel import build_jit_wrapper`), the family's shared `common.py`. Only
modules inside the package's `ops` folder count (the runner, the utilities and the DSL are
no operator code). Read with ast, never imported."""

from __future__ import annotations

import ast
from pathlib import Path

_MAX_MODULES = 64  # a chain of imports longer than this is no operator's


def _module_file(source_root: Path, dotted: str) -> Path | None:
    base = source_root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _imports_of(path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]  # a module imported by name
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def imported_modules(operator: Path, source_root: Path, ops: Path) -> tuple[Path, ...]:
    """The files under `ops` (outside the operator folder) that the operator's own Python
    files import, directly or through one another, in the order first met."""
    operator, ops = operator.resolve(), ops.resolve()
    todo = sorted(operator.glob("*.py"))
    seen: list[Path] = []
    while todo and len(seen) < _MAX_MODULES:
        for dotted in _imports_of(todo.pop(0)):
            found = _module_file(source_root, dotted)
            if found is None or not found.is_relative_to(ops) or found.is_relative_to(operator):
                continue
            if found not in seen and found.name != "__init__.py":
                seen.append(found)
                todo.append(found)
    return tuple(seen)
