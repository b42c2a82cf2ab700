"""Tile-lib knobs where the kernel decides them, for an operator whose cases are not generated
(tilelib_knobs.py handles those):

- a launch site's `constexpr` locals passed as template arguments (pto-isa's
  gemm_performance: `constexpr uint32_t baseM = 128;` ... `GemmPerformance<T, ..., baseM, ...>`);
- the members of a config struct passed as a template argument (fused_add_relu_mul:
  `StandardTileConfig::TILE_H`, offered as `StandardTileConfig_TILE_H`);
- namespace constants the kernel uses (topk's `BUFFER_NUM`, `SINGLE_LOOP_ROW`).

Left out, with the reason: a value the host driver sizes its data with (the workload), a
constant only the host driver uses (a host buffer size), one that only lays out the
profiling buffer, one nothing uses. A value computed from other knobs
(`TILE_SIZE = TILE_H * TILE_W`) is derived: shown, never offered on its own.

The host driver is the files the kernel is not compiled from (kernel_side). Pure: this reads
texts, never runs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.operators.cpp_scopes import Blocks, Scope, blank_code, template_arguments, template_spans
from pto_tui.core.operators.knob_report import Derived, KnobReport, LeftOut
from pto_tui.core.operators.tilelib_cpp import evaluate, line_of
from pto_tui.core.project.config import Tunable
from pto_tui.core.workspace.files import iter_workspace_files

CPP_SUFFIXES = (".h", ".hpp", ".hh", ".cpp", ".cc")

_DEFINITION = re.compile(
    r"\bconstexpr\s+(?:(?:static|inline|const)\s+)*[\w:]+(?:\s+[\w:]+)*?\s+(\w+)\s*=\s*([^;{}]+);"
)
_MAIN = re.compile(r"\bint\s+main\s*\(")
_KERNEL = re.compile(r"\b(?:__global__|__aicore__|AICORE)\b")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
PROFILING = re.compile(r"profil|trace", re.I)
_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


@dataclass(frozen=True)
class Definition:
    """A `constexpr` integer a knob's value is written in."""

    name: str  # the tunable's name: as written, or qualified (Struct_MEMBER, function_NAME)
    written: str  # as the source names it, e.g. StandardTileConfig::TILE_H
    expr: str
    value: int | None
    rel: str
    line: int
    span: tuple[int, int]  # the expression's offsets in the file
    scope: Scope

    @property
    def where(self) -> str:
        return f"{self.rel}:{self.line}"


def kernel_side(texts: dict[str, str]) -> set[str]:
    """The files the kernel is compiled from: those defining a kernel (`__global__`,
    `AICORE`, `__aicore__`) and what they include, transitively. Without such a file (a
    stand-in operator) every file but the host driver's (the one defining main())."""
    roots = [rel for rel, text in texts.items() if _KERNEL.search(text) and not _MAIN.search(text)]
    if not roots:
        return {rel for rel, text in texts.items() if not _MAIN.search(text)}
    by_name: dict[str, list[str]] = {}
    for rel in texts:
        by_name.setdefault(Path(rel).name, []).append(rel)
    seen, todo = set(roots), list(roots)
    while todo:
        for included in _INCLUDE.findall(texts[todo.pop()]):
            for rel in by_name.get(Path(included).name, []):
                if rel not in seen:
                    seen.add(rel)
                    todo.append(rel)
    return seen


def definitions(texts: dict[str, str]) -> list[Definition]:
    """Every `constexpr` definition of the (blanked) texts, valued where it is an integer
    expression of literals and constants defined before it (in its scope or outside)."""
    found: list[Definition] = []
    for rel, text in texts.items():
        blocks = Blocks(text)
        known: dict[tuple[str, str], dict[str, int]] = {}
        for match in _DEFINITION.finditer(text):
            scope = blocks.scope(match.start())
            names = {**known.get(("namespace", ""), {}), **known.get((scope.kind, scope.name), {})}
            expr = " ".join(match.group(2).split())
            value = evaluate(expr, names)
            if value is not None:
                known.setdefault((scope.kind, scope.name), {})[match.group(1)] = value
            member = match.group(1)
            written = f"{scope.name}::{member}" if scope.kind == "struct" else member
            name = f"{scope.name}_{member}" if scope.kind == "struct" else member
            found.append(
                Definition(
                    name, written, expr, value, rel, line_of(text, match.start()), match.span(2), scope
                )
            )
    return found


def _qualified(report: list[tuple[Definition, str]]) -> list[tuple[Definition, str]]:
    """A launch-site local that is a candidate in several functions is named by its function
    (vabs_fp16_TILE_LEN, vabs_fp32_TILE_LEN)."""
    functions: dict[str, set[str]] = {}
    for d, _ in report:
        if d.scope.kind == "function":
            functions.setdefault(d.name, set()).add(d.scope.name)
    return [
        (replace(d, name=f"{d.scope.name}_{d.name}"), verdict)
        if d.scope.kind == "function" and len(functions[d.name]) > 1
        else (d, verdict)
        for d, verdict in report
    ]


@dataclass
class _Reading:
    texts: dict[str, str]
    kernel: set[str]  # the files the kernel is compiled from (kernel_side)
    data_names: dict[str, str]  # the data generator's names (normalised) -> file:line


def normalised(name: str) -> str:
    """gShape4 and g_shape4 alike: the data generator writes the driver's names in its style."""
    return name.replace("_", "").lower()


def data_generator_names(text: str, rel: str) -> dict[str, str]:
    """The names a data generator script uses (normalised), each with its first line."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for name in _IDENTIFIER.findall(line.split("#", 1)[0]):
            found.setdefault(normalised(name), f"{rel}:{number}")
    return found


def candidates(
    texts: dict[str, str], data_names: dict[str, str] | None = None
) -> list[tuple[Definition, str]]:
    """Each candidate knob with its verdict: "" when live, else why it is left out."""
    reading = _Reading(texts, kernel_side(texts), data_names or {})
    found = []
    for definition in definitions(texts):
        verdict = _verdict(reading, definition) if definition.value is not None else None
        if verdict is not None:
            found.append((definition, verdict))
    return _qualified(found)


def kernel_knobs(texts: dict[str, str], data_names: dict[str, str] | None = None) -> KnobReport:
    """The knobs of an operator's (blanked) C++ texts: live, derived and left out. A launch
    site's value the host driver sizes its data with, or the data generator takes
    (`data_names`), is the workload."""
    return _report(candidates(texts, data_names))


def _verdict(reading: _Reading, d: Definition) -> str | None:
    """"" when live, a reason when left out, None when it is no candidate at all."""
    if d.scope.kind != "namespace" and d.rel not in reading.kernel:
        return None  # the host driver's own
    if d.scope.kind == "function":
        body = reading.texts[d.rel][d.scope.start : d.scope.end]
        if d.written not in template_arguments(body):
            return None  # an ordinary local
        host_use = _host_use(reading, d.written)
        if host_use:
            return f"workload: the host driver sizes its data with it ({host_use})"
        data = reading.data_names.get(normalised(d.written))
        return f"workload: the data generator takes it ({data})" if data else ""
    if d.scope.kind == "struct":
        passed = any(d.scope.name in template_arguments(reading.texts[rel]) for rel in sorted(reading.kernel))
        return "" if passed else f"{d.scope.name} is passed to no template"
    return _constant_verdict(reading, d)


def _constant_verdict(reading: _Reading, d: Definition) -> str:
    uses = _uses(reading.texts, d)
    kernel_uses = [(rel, line) for rel, line in uses if rel in reading.kernel]
    if not uses:
        return "not used by the build"
    if not kernel_uses:
        rel, line = uses[0]
        return f"host-only: only the host driver uses it ({rel}:{line}), never the kernel"
    lines = [reading.texts[rel].splitlines()[line - 1] for rel, line in kernel_uses]
    if PROFILING.search(d.name) or all(PROFILING.search(text) for text in lines):
        rel, line = kernel_uses[0]
        return f"profiling: it only lays out the profiling buffer ({rel}:{line})"
    return ""


def _uses(texts: dict[str, str], d: Definition) -> list[tuple[str, int]]:
    """(file, line) of each use of a namespace constant other than its definition."""
    found = []
    for rel, text in texts.items():
        for match in re.finditer(rf"\b{re.escape(d.written)}\b", text):
            line = line_of(text, match.start())
            if not (rel == d.rel and line == d.line):
                found.append((rel, line))
    return found


def _host_use(reading: _Reading, name: str) -> str:
    """Where the host driver uses `name` in an expression (not only declares or passes it)."""
    for rel in sorted(set(reading.texts) - reading.kernel):
        text = reading.texts[rel]
        spans = template_spans(text)
        for match in re.finditer(rf"\b{re.escape(name)}\b", text):
            if any(a < match.start() < b for a, b in spans):
                continue
            if re.search(r"constexpr\s+[\w:\s]+$", text[max(0, match.start() - 60) : match.start()]):
                continue  # its own definition
            return f"{rel}:{line_of(text, match.start())}"
    return ""


def _report(report: list[tuple[Definition, str]]) -> KnobReport:
    live = {d.name: d for d, verdict in report if verdict == ""}
    tunables: list[Tunable] = []
    derived: list[Derived] = []
    left_out: list[LeftOut] = []
    for d, verdict in report:
        if verdict:
            left_out.append(LeftOut(d.name, verdict, d.where))
        elif _knobs_in(d, live):
            derived.append(Derived(d.name, d.expr, d.where))
        else:
            # how the source writes it, when the tunable's name is qualified: rounds find its line
            local = f"{d.written} in {d.scope.name}" if d.name != d.written else f"in {d.scope.name}"
            detail = {"struct": d.written, "function": local}.get(d.scope.kind)
            where = f"{d.where} ({detail})" if detail else d.where
            tunables.append(Tunable(d.name, d.value or 0, "constexpr", d.value, (), where))
    return KnobReport(tuple(tunables), tuple(derived), tuple(left_out))


def _knobs_in(d: Definition, live: dict[str, Definition]) -> list[str]:
    """The live knobs d's expression is computed from (in its own scope, or namespace)."""
    names = set(_IDENTIFIER.findall(d.expr))
    return [
        other.written
        for other in live.values()
        if other is not d
        and other.written.rsplit("::", 1)[-1] in names
        and (other.scope.kind == "namespace" or other.scope == d.scope)
    ]


def read_texts(root: Path, suffixes: tuple[str, ...] = CPP_SUFFIXES) -> dict[str, str]:
    """The operator's C++ files (relative path -> blanked text), in a stable order."""
    return {
        rel: blank_code((root / rel).read_text(encoding="utf-8", errors="replace"))
        for rel in iter_workspace_files(root)
        if Path(rel).suffix in suffixes
    }


def set_value(root: Path, name: str, value: int, suffixes: tuple[str, ...] = CPP_SUFFIXES) -> str | None:
    """Write `value` into every definition of the knob `name` (one per #ifdef branch);
    the changed file relative to root, or None when no definition has that name."""
    texts = read_texts(root, suffixes)
    wanted = [d for d, _verdict in candidates(texts) if d.name == name]
    if not wanted:
        return None
    rel = wanted[0].rel
    path = root / rel
    text = path.read_text(encoding="utf-8", errors="replace")
    for d in sorted((d for d in wanted if d.rel == rel), key=lambda d: -d.span[0]):
        text = text[: d.span[0]] + str(value) + text[d.span[1] :]
    atomic_write_text(path, text)
    return rel
