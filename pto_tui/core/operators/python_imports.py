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


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> the module it is imported from (`from m import a as b`: b -> m)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = node.module
    return names


def _returned_calls(function: ast.FunctionDef) -> list[str]:
    """The names a function's `return f(...)` statements call."""
    return [
        node.value.func.id
        for node in ast.walk(function)
        if isinstance(node, ast.Return)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
    ]


def kernel_home(kernel: Path, source_root: Path, entry: str = "build_jit_wrapper") -> Path | None:
    """The module the operator's kernel is really built in: where the object its
    `build_jit_wrapper` returns comes from, when that is imported (flash_attention_score's
    returns the family's `DenseAttentionPipelineWrapper` from attention/common.py); followed
    through the file's own functions. None when it is built in the file itself."""
    try:
        tree = ast.parse(kernel.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    imported = _imported_names(tree)
    todo, seen = [entry], set()
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        if name in imported:
            return _module_file(source_root, imported[name])
        if name in functions:
            todo += _returned_calls(functions[name])
    return None
