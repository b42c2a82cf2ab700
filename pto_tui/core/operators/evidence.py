"""What one source file shows about PTO code: evidence lines ("file:line: what").

PTO-DSL: a file *defines a kernel* when it decorates a function with the DSL's kernel
decorators (`@jit(...)`, `@pto.jit`, `@to_ir_module(...)`), defines `build_jit_wrapper`
(the pto-kernels entry point) or reads `tuned_int(...)` knobs, all read with `ast`. An
import of ptodsl / pto_kernels alone is no kernel: bench adapters, tests, scripts and a
pybind extension's callers import them too. A file that *defines* `jit`, `to_ir_module`
or `tuned_int` provides the DSL and is a library, not a kernel.
PTO C++: `#include <pto/pto-inst.hpp>`, tile types and PTO instructions (text patterns).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

_READ_LIMIT = 512 * 1024  # evidence is near the top of a source file

KERNEL_DECORATORS = ("jit", "to_ir_module")  # ptodsl's JIT and AOT kernel decorators
DSL_API = ("jit", "to_ir_module", "tuned_int")  # defined by the DSL library, used by kernels

_DSL_IMPORTS = (
    (re.compile(r"^[ \t]*(from|import)\s+ptodsl\b", re.M), "imports ptodsl"),
    (re.compile(r"^[ \t]*(from|import)\s+pto_kernels\b", re.M), "imports pto_kernels"),
    (
        re.compile(r"^[ \t]*from\s+mlir\.dialects\s+import\s+[^\n]*\bpto\b", re.M),
        "imports mlir.dialects.pto",
    ),
    (re.compile(r"^[ \t]*(from|import)\s+mlir\.dialects\.pto\b", re.M), "imports mlir.dialects.pto"),
)
# Only when a file cannot be parsed (a syntax error, or cut at the read limit).
_TEXT_KERNEL_HINTS = (
    (re.compile(r"^[ \t]*@(?:\w+\.)?(?:jit|to_ir_module)\b", re.M), "a @jit kernel (text)"),
    (re.compile(r"^[ \t]*def\s+build_jit_wrapper\s*\(", re.M), "defines build_jit_wrapper (text)"),
    (re.compile(r"\btuned_int\s*\("), "reads tuned_int(...) knobs (text)"),
)
_CPP_INCLUDE = re.compile(r"#\s*include\s*[<\"]pto/pto-inst\.hpp[>\"]")
_CPP_TILES = re.compile(r"\b(Tile<\s*TileType::\w+|TileLeft<|TileRight<|TileAcc<)")
_CPP_INSTRUCTIONS = re.compile(
    r"\b(TLOAD|TSTORE|TMATMUL|TEXP|TROWMAX|TROWSUM|TADD|TMUL|TASSIGN|TCVT)\s*\("
)


@dataclass
class PythonFacts:
    """A Python file as the scan sees it."""

    imports: list[str] = field(default_factory=list)  # "file:line: imports ptodsl"
    kernels: list[str] = field(default_factory=list)  # "file:line: defines build_jit_wrapper"
    provides: str = ""  # the DSL API this file defines ("" when none)
    modules: tuple[str, ...] = ()  # dotted modules it imports from (to fold shared helpers)

    @property
    def defines_kernel(self) -> bool:
        return bool(self.imports and self.kernels and not self.provides)


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _callee_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else ""


def _arg_name(call: ast.Call) -> str:
    first = call.args[0] if call.args else None
    return first.id if isinstance(first, ast.Name) else "(applied)"


def _kernel_definitions(tree: ast.Module, rel: str) -> tuple[list[str], str, tuple[str, ...]]:
    """(kernel evidence, the DSL API defined at module level, imported modules)."""
    kernels: list[str] = []
    knob_line = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name == "build_jit_wrapper":
                kernels.append(f"{rel}:{node.lineno}: defines build_jit_wrapper")
            for decorator in node.decorator_list:
                name = _callee_name(decorator)
                if name in KERNEL_DECORATORS:
                    kernels.append(f"{rel}:{decorator.lineno}: @{name} kernel {node.name}")
        elif isinstance(node, ast.Call):
            name = _callee_name(node)
            if name == "tuned_int" and not knob_line:
                knob_line = node.lineno
            applied = _callee_name(node.func) if isinstance(node.func, ast.Call) else ""
            if applied in KERNEL_DECORATORS:  # to_ir_module(meta_data=...)(_kernel)
                kernels.append(f"{rel}:{node.lineno}: {applied}(...) applied to kernel {_arg_name(node)}")
    if knob_line:
        kernels.append(f"{rel}:{knob_line}: reads tuned_int(...) knobs")
    provides = next(
        (n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in DSL_API), ""
    )
    modules = tuple(
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
    )
    return sorted(kernels, key=_evidence_line), provides, modules


def _evidence_line(line: str) -> int:
    return int(line.split(":", 2)[1])


def python_facts(rel: str, text: str) -> PythonFacts:
    """The PTO imports and kernel definitions of one Python file."""
    facts = PythonFacts()
    for pattern, what in _DSL_IMPORTS:
        match = pattern.search(text)
        if match:
            facts.imports.append(f"{rel}:{line_of(text, match.start())}: {what}")
    if not facts.imports:
        return facts
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        for pattern, what in _TEXT_KERNEL_HINTS:
            match = pattern.search(text)
            if match:
                facts.kernels.append(f"{rel}:{line_of(text, match.start())}: {what}")
        return facts
    facts.kernels, facts.provides, facts.modules = _kernel_definitions(tree, rel)
    return facts


def cpp_evidence(rel: str, text: str) -> list[str]:
    found = []
    match = _CPP_INCLUDE.search(text)
    if match:
        found.append(f"{rel}:{line_of(text, match.start())}: includes pto/pto-inst.hpp")
    match = _CPP_TILES.search(text)
    if match:
        found.append(
            f"{rel}:{line_of(text, match.start())}: uses tile type {match.group(1).rstrip('<')}"
        )
    names = sorted(set(_CPP_INSTRUCTIONS.findall(text)))
    if names and found:
        found.append(f"{rel}: PTO instructions {', '.join(names[:6])}")
    return found


def read_head(path: Path) -> str | None:
    """The start of a source file as text; None for a binary or unreadable one."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_READ_LIMIT)
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")
