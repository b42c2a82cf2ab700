"""The Python modules an operator's scripts need on the target: the scripts the commands
run (`python3 ../scripts/gen_data.py`), their module-level imports (read with ast, never
imported), less the standard library and the scripts' own folder.

So the environment round can say "gen_data.py imports numpy; python3 on the target has
none" before a benchmark fails on it.
"""

from __future__ import annotations

import ast
import posixpath
import re
import sys
from pathlib import Path

_SCRIPT = re.compile(r"\bpython3?\s+((?:[\w.-]+/)*[\w.-]+\.py)\b")


def command_scripts(command: str, operator: Path) -> list[Path]:
    """The .py files a command runs with python, resolved against the operator folder
    (a `cd build` before them is followed), those that exist."""
    found: list[Path] = []
    cwd = ""
    for part in re.split(r"&&|;|\|\|", command):
        cd = re.match(r"\s*cd\s+(\S+)\s*$", part)
        if cd:
            cwd = posixpath.normpath(posixpath.join(cwd, cd.group(1)))
            continue
        for match in _SCRIPT.finditer(part):
            path = (operator / posixpath.normpath(posixpath.join(cwd, match.group(1)))).resolve()
            if path.is_file() and path not in found:
                found.append(path)
    return found


def provided(module: str, script: Path, root: Path) -> bool:
    """Whether the repository the script sits in provides the module itself (huawei-csl's
    benchmarks import `pto_kernels` from its `python/` folder): a package or module of that
    name in a folder between the script and `root`, or in such a folder's `python/`."""
    for folder in (script.parent, *script.parent.parents):
        for base in (folder, folder / "python"):
            if (base / module / "__init__.py").is_file() or (base / f"{module}.py").is_file():
                return True
        if folder == root or not folder.is_relative_to(root):
            return False
    return False


def third_party_imports(scripts: list[Path], root: Path | None = None) -> dict[str, str]:
    """Top-level modules imported by the scripts that are neither standard library, a
    sibling script, nor provided by the repository under `root`: module -> "script.py:line"
    of its first import."""
    out: dict[str, str] = {}
    for script in scripts:
        try:
            tree = ast.parse(script.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        siblings = {p.stem for p in script.parent.glob("*.py")}
        for node in tree.body:  # an import inside a function may be optional
            names = _imported(node)
            for name in names:
                top = name.split(".")[0]
                if not top or top in sys.stdlib_module_names or top in siblings or top == "__future__":
                    continue
                if root is None or not provided(top, script, root):
                    out.setdefault(top, f"{script.name}:{node.lineno}")
    return out


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []
