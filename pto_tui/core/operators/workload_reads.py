"""Where the operator's source reads its workload.

The workload fingerprint hashes the project's case; the kernel reads that case from its
source: a PTO-DSL kernel through the shape knobs' environment variables
(`tuned_int("PTO_ATTENTION_SEQ_LEN", ...)`, `os.environ[...]`), a generated-cases tile-lib
kernel through the case-string fields its entry template is instantiated with (S0, HEAD,
S1). A round that replaces such a read with a literal measures another workload inside the
kernel, so the reads found at the baseline must all still be there.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection
from pathlib import Path

from pto_tui.core.operators.workload_read import WorkloadRead
from pto_tui.core.workspace.files import iter_workspace_files

# an X-macro case row definition, its parameters and its body (continued lines included)
_CASE_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)
_ENTRY_CALL = re.compile(r"\b(Launch\w*)\s*<([^<>;]*)>")
CPP_SUFFIXES = (".h", ".hpp", ".hh", ".cpp", ".cc")


def workload_reads(
    root: Path, knobs: Collection[str], tunables: Collection[str] = (), *, cpp: bool = True
) -> list[WorkloadRead]:
    """The workload reads under an operator folder: the env reads of the shape knobs named
    in `knobs`, and (`cpp`) the case fields passed to a tile-lib entry template (a case
    field is a parameter of the case macro that is none of the `tunables`)."""
    if not root.is_dir():
        return []
    found: list[WorkloadRead] = []
    wanted = set(knobs)
    macro_reads: list[WorkloadRead] = []
    for rel in iter_workspace_files(root):
        if wanted and rel.endswith(".py"):
            found += file_reads(root / rel, rel, wanted)
        elif cpp and rel.endswith(CPP_SUFFIXES):
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
            if "#" in text and "Launch" in text:
                macro_reads += case_macro_reads(text, rel, tunables)
    if not cpp:
        return found
    # the knob resolver's trace, where it reads the operator; else the case macros seen
    return found + (tilelib_reads(root) or macro_reads)


def file_reads(path: Path, rel: str, knobs: Collection[str]) -> list[WorkloadRead]:
    """The env reads of `knobs` in one Python file (none when it is absent)."""
    if not knobs or not path.is_file():
        return []
    text = path.read_text(encoding="utf-8", errors="replace")
    if not any(name in text for name in knobs):  # parse only the files that name a knob
        return []
    return python_reads(text, rel, knobs)


def case_macro_reads(text: str, rel: str, tunables: Collection[str]) -> list[WorkloadRead]:
    """Case fields an X-macro row passes to a Launch* entry template: in
    `#define FA_CASE(HEAD, S0, S1, CUBE_S0, TILE_S1) ... LaunchTFA<S0, HEAD, S1, ...>` the
    parameters that are no tunable (HEAD, S0, S1) are the workload."""
    found = []
    lines = text.splitlines()
    for macro in _CASE_MACRO.finditer(text):
        params = [p.strip() for p in macro.group(2).split(",") if p.strip()]
        for call in _ENTRY_CALL.finditer(macro.group(3)):
            line = text.count("\n", 0, macro.start(3) + call.start()) + 1
            source = lines[line - 1].strip() if line <= len(lines) else ""
            args = [a.strip() for a in call.group(2).split(",")]
            found += [
                WorkloadRead(arg, rel, line, source)
                for arg in args
                if arg in params and arg not in tunables
            ]
    return found


def python_reads(text: str, rel: str, names: Collection[str]) -> list[WorkloadRead]:
    """Reads of the named environment variables in one Python file: through a tuned_*
    helper, os.getenv, os.environ.get or os.environ[...]."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    found = []
    for node in ast.walk(tree):
        name = _read_name(node)
        if name in names:
            line = getattr(node, "lineno", 0)
            source = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            found.append(WorkloadRead(name, rel, line, source))
    return sorted(found, key=lambda r: (r.line, r.name))


def _read_name(node: ast.AST) -> str:
    """The environment variable a node reads, or ""."""
    if isinstance(node, ast.Subscript) and _is_environ(node.value):
        return _string(node.slice)
    if not isinstance(node, ast.Call) or not node.args:
        return ""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    helper = name.startswith("tuned_") or name == "getenv"
    environ_get = name == "get" and isinstance(func, ast.Attribute) and _is_environ(func.value)
    return _string(node.args[0]) if helper or environ_get else ""


def _is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _string(node: ast.AST) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def tilelib_reads(root: Path) -> list[WorkloadRead]:
    """The case fields that name the case (the workload) where a generated-cases tile-lib
    operator instantiates its entry template with them; [] for other operators."""
    # imported here: round records import this module, the knob resolver is large
    from pto_tui.core.operators import tilelib_cpp as cpp
    from pto_tui.core.operators.tilelib_knobs import read_operator
    from pto_tui.core.operators.tilelib_trace import entry_sites

    op = read_operator(root)
    if op is None:
        return []
    consts = cpp.constants(op.sources)
    found: list[WorkloadRead] = []
    for entry in cpp.entry_templates(op.sources).values():
        sites = entry_sites(op.row, op.sources, entry, consts)
        if not sites:
            continue
        for site in sites:
            lines = (root / site.rel).read_text(encoding="utf-8", errors="replace").splitlines()
            source = lines[site.line - 1].strip() if 0 < site.line <= len(lines) else ""
            found += [
                WorkloadRead(origin.detail, site.rel, site.line, source)
                for origin in site.origins
                if origin.workload
            ]
        break  # one entry template: the operator's kernel (as the knob resolver reads it)
    return found
