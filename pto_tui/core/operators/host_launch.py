"""How a tile-lib operator's host wrapper launches its kernel, read from the C++ sources.

The wrapper is the host function whose body launches a kernel with `<<<`
(`runTFA<S0, ...><<<block_rows, nullptr, stream>>>(...)` in pto-isa's flash attention,
`GemmPerformance<T, blockDim, ...><<<blockDim, nullptr, stream> > >(...)` in its gemm). The
sources are read as the NPU build compiles the wrapper: comments and string literals
blanked, and the branches taken only under `__CPU_SIM` (pto-isa's CPU simulation) or
`__COSTMODEL` left out. From the wrapper come its template parameters (types, names, and
defaults from a declaration that gives them), the kernel launch (kernel, template arguments,
block count, argument count) and the constant locals the launch needs (`constexpr uint32_t
block_rows = S0 / CUBE_S0;`), in source order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pto_tui.core.operators import tilelib_cpp as cpp
from pto_tui.core.operators.host_code import (
    angle_start,
    brace_pairs,
    code_view,
    match_back,
    match_forward,
    statements,
)

_NOT_FUNCTIONS = frozenset(
    {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof"}
)
_QUALIFIERS = re.compile(r"(?:\s*\b(?:const|noexcept|override|final|mutable)\b)+\s*$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_LOCAL = re.compile(r"^(?:(?:static|inline)\s+)*(constexpr|const)\b[^=;{]*?\b([A-Za-z_]\w*)\s*(?:=|\{)", re.S)
_ANY_LOCAL = re.compile(r"^[\w:<>,\s*&]+?\b([A-Za-z_]\w*)\s*(?:=|\{|\()", re.S)


@dataclass(frozen=True)
class Param:
    """A template parameter as written: `int S0`, `bool CAUSAL_MASK = false`, `typename T`."""

    type: str
    name: str
    default: str = ""

    @property
    def text(self) -> str:
        return f"{self.type} {self.name}" + (f" = {self.default}" if self.default else "")


@dataclass(frozen=True)
class KernelLaunch:
    kernel: str  # runTFA
    template_args: tuple[str, ...]  # as written; () for a kernel that is no template
    blocks: str  # the block count expression: the first field of <<<...>>>
    arg_count: int
    line: int
    l2_ctrl: str = "nullptr"  # the second field: an L2 control address, usually nullptr


@dataclass(frozen=True)
class HostWrapper:
    name: str
    rel: str
    line: int
    is_template: bool
    params: tuple[Param, ...]  # its template parameters, defaults merged in
    arguments: tuple[str, ...]  # names of its function parameters (known only at run time)
    launch: KernelLaunch
    locals: tuple[tuple[str, str], ...]  # (name, declaration) the launch needs, in source order
    skipped: tuple[KernelLaunch, ...] = ()  # other launches of the wrapper (a warm-up)
    problem: str = ""  # why the launch cannot be run without the host, or ""

    @property
    def where(self) -> str:
        return f"{self.rel}:{self.line}"


def _function_at(text: str, brace: int) -> tuple[str, int, str] | None:
    """(name, offset of the name, parameter list) when the `{` at brace opens a function
    body, else None (a lambda, a control statement, a class)."""
    head = _QUALIFIERS.sub("", text[:brace].rstrip())
    if not head.endswith(")"):
        return None
    opening = match_back(head, len(head) - 1, "(", ")")
    if opening is None:
        return None
    name = re.search(r"([A-Za-z_][\w:]*)\s*$", head[:opening])
    if name is None or name.group(1) in _NOT_FUNCTIONS:
        return None
    return name.group(1), name.start(1), head[opening + 1 : len(head) - 1]


def _template_header(text: str, name_at: int) -> str | None:
    """The `template <...>` parameter text of the function whose name starts at name_at."""
    header = None
    for match in re.finditer(r"\btemplate\s*<", text[:name_at]):
        end = match_forward(text, match.end() - 1, "<", ">")
        if end is not None and end <= name_at and not re.search(r"[;{}]", text[end:name_at]):
            header = text[match.end() : end - 1]
    return header


def parse_params(header: str) -> tuple[Param, ...]:
    """A parameter list (`int S0, bool B = false` or `uint8_t *out, void *stream`) as written."""
    params = []
    for part in cpp.split_top_level(header):
        found = re.match(r"(?P<type>.*?)\b(?P<name>[A-Za-z_]\w*)\s*(?:=(?P<default>.*))?$", part, re.S)
        if found:
            params.append(
                Param(
                    " ".join(found.group("type").split()),
                    found.group("name"),
                    " ".join((found.group("default") or "").split()),
                )
            )
    return tuple(params)


def _launch_at(text: str, at: int) -> KernelLaunch | None:
    """The launch whose `<<<` is at `at`: `Kernel<args><<<blocks, ...>>>(args)`."""
    closing = re.compile(r">\s*>\s*>").search(text, at + 3)
    if closing is None:
        return None
    config = cpp.split_top_level(text[at + 3 : closing.start()])
    call = re.match(r"\s*\(", text[closing.end() :])
    if not config or call is None:
        return None
    opening = closing.end() + call.end() - 1
    end = match_forward(text, opening, "(", ")")
    if end is None:
        return None
    before = text[:at].rstrip()
    template_args: tuple[str, ...] = ()
    if before.endswith(">"):
        start = angle_start(before)
        if start is None:
            return None
        template_args = tuple(" ".join(a.split()) for a in cpp.split_top_level(before[start + 1 : -1]))
        before = before[:start].rstrip()
    name = re.search(r"([A-Za-z_][\w:]*)$", before)
    if name is None:
        return None
    args = cpp.split_top_level(text[opening + 1 : end - 1])
    line = cpp.line_of(text, name.start(1))
    l2_ctrl = " ".join(config[1].split()) if len(config) > 1 else "nullptr"
    return KernelLaunch(name.group(1), template_args, " ".join(config[0].split()), len(args), line, l2_ctrl)


def host_wrappers(sources: dict[str, str]) -> list[HostWrapper]:
    """Every host function of the C++ sources whose body launches a kernel with `<<<`,
    outside `#define`s and the CPU-simulation branches."""
    wrappers: list[HostWrapper] = []
    for rel, raw in sources.items():
        text = code_view(raw)
        defines = [(start, end) for start, end, *_ in cpp.macros(text)]
        pairs = brace_pairs(text)
        found: dict[int, list[KernelLaunch]] = {}
        for match in re.finditer(r"<<<", text):
            if any(a <= match.start() < b for a, b in defines):
                continue
            launch = _launch_at(text, match.start())
            body = _enclosing_function(text, pairs, match.start())
            if launch is not None and body is not None:
                found.setdefault(body, []).append(launch)
        for brace, launches in found.items():
            wrapper = _wrapper(sources, rel, text, pairs, brace, launches)
            if wrapper is not None:
                wrappers.append(wrapper)
    return wrappers


def _enclosing_function(text: str, pairs: list[tuple[int, int]], at: int) -> int | None:
    """The `{` of the innermost function body around `at`."""
    around = sorted((p for p in pairs if p[0] < at < p[1]), reverse=True)
    return next((opening for opening, _ in around if _function_at(text, opening)), None)


def _wrapper(
    sources: dict[str, str],
    rel: str,
    text: str,
    pairs: list[tuple[int, int]],
    brace: int,
    launches: list[KernelLaunch],
) -> HostWrapper | None:
    function = _function_at(text, brace)
    if function is None:
        return None
    name, name_at, parameter_list = function
    header = _template_header(text, name_at)
    params = _with_defaults(sources, name, parse_params(header or ""))
    arguments = tuple(p.name for p in parse_params(parameter_list))
    close = next(b for a, b in pairs if a == brace)
    launch, skipped, problem = _choose_launch(launches)
    needed = [launch.blocks, *launch.template_args]
    found_locals, local_problem = _needed_locals(statements(text[brace + 1 : close]), needed, arguments)
    return HostWrapper(
        name=name,
        rel=rel,
        line=cpp.line_of(text, name_at),
        is_template=header is not None,
        params=params,
        arguments=arguments,
        launch=launch,
        locals=found_locals,
        skipped=skipped,
        problem=problem or local_problem or _kernel_problem(sources, launch),
    )


def _with_defaults(sources: dict[str, str], name: str, params: tuple[Param, ...]) -> tuple[Param, ...]:
    """The parameters with the defaults a declaration of the same template gives."""
    declared = cpp.entry_templates({rel: cpp.blank_comments(t) for rel, t in sources.items()}, name).get(name)
    if declared is None or [p.name for p in declared.params] != [p.name for p in params]:
        return params
    return tuple(
        Param(p.type, p.name, p.default or d.default) for p, d in zip(params, declared.params, strict=True)
    )


def _choose_launch(launches: list[KernelLaunch]) -> tuple[KernelLaunch, tuple[KernelLaunch, ...], str]:
    """The operator's kernel launch: the only one, or the only one with template arguments
    (the others, e.g. a warm-up kernel, are skipped); several: a problem."""
    templated = [launch for launch in launches if launch.template_args]
    if len(launches) == 1:
        return launches[0], (), ""
    if len(templated) == 1:
        return templated[0], tuple(x for x in launches if x is not templated[0]), ""
    names = ", ".join(f"{x.kernel} (line {x.line})" for x in launches)
    return (
        launches[0],
        tuple(launches[1:]),
        f"it launches {len(launches)} kernels ({names}); perf_sim runs one",
    )


def _needed_locals(
    body: list[str], expressions: list[str], arguments: tuple[str, ...]
) -> tuple[tuple[tuple[str, str], ...], str]:
    """The constant locals the expressions use, with those their initializers use."""
    constants: dict[str, str] = {}
    others: set[str] = set()
    for statement in body:
        local = _LOCAL.match(statement)
        if local:
            constants.setdefault(local.group(2), " ".join(statement.split()))
        else:
            other = _ANY_LOCAL.match(statement)
            if other and not statement.startswith(("return", "static_assert")):
                others.add(other.group(1))
    needed: set[str] = set()
    pending = [name for expr in expressions for name in _IDENT.findall(expr)]
    while pending:
        name = pending.pop()
        if name in needed:
            continue
        if name in arguments:
            return (), f"the launch uses {name}, an argument of the wrapper known only at run time"
        if name in others and name not in constants:
            return (), f"the launch uses the local {name}, which is not a constant"
        if name in constants:
            needed.add(name)
            pending += _IDENT.findall(constants[name].split("=", 1)[-1])
    return tuple((name, decl) for name, decl in constants.items() if name in needed), ""


def _kernel_problem(sources: dict[str, str], launch: KernelLaunch) -> str:
    """Why the kernel cannot run on null pointers: a parameter that is no pointer."""
    short = launch.kernel.rsplit("::", 1)[-1]
    for raw in sources.values():
        text = code_view(raw)
        for match in re.finditer(rf"\b__global__\b[^;{{}}]*?\b{re.escape(short)}\s*\(", text):
            end = match_forward(text, match.end() - 1, "(", ")")
            if end is None:
                continue
            for param in cpp.split_top_level(text[match.end() : end - 1]):
                if "*" not in param and param.strip() not in ("", "void"):
                    return (
                        f"the kernel {launch.kernel} takes `{' '.join(param.split())}`, a value known "
                        "only at run time (perf_sim runs it on null pointers)"
                    )
            return ""
    return ""
