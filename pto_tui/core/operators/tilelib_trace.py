"""Where each argument of an entry-template instantiation comes from.

`LaunchTFA<S0, HEAD_SIZE, S1, CUBE_S0, CUBE_S1, TILE_S1, QK_PRELOAD, kFaCvFifoSize, ...>` in
main.cpp sits in `run_tfa<..., TILE_S1, ...>`, called from `run_case<...>`, called from the
`TFA_CASE_ENTRY(S0, HEAD, S1, CUBE_S0, CUBE_S1, TILE_S1, QK_PRELOAD, CAUSAL_MASK)` macro that
`TFA_FOR_EACH_CASE(TFA_CASE_ENTRY)` expands once per generated row. Following the argument's
position through each caller ends at a row field (a case key of the generator), a constant,
a literal, or something else (a runtime switch such as INTERMEDIATE_CHECK).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pto_tui.core.operators import tilelib_cpp as cpp
from pto_tui.core.operators.tilelib_generator import MacroRow

_MAX_DEPTH = 6  # callers followed: run_tfa <- run_case <- TFA_CASE_ENTRY is three


@dataclass(frozen=True)
class Origin:
    kind: str  # row | constant | literal | other
    detail: str  # the case key, constant name, literal, or what the argument is
    workload: bool = False  # a row field the case name is made of (#HEAD "_S0_" #S0 ...)


@dataclass(frozen=True)
class Site:
    rel: str
    line: int
    args: tuple[str, ...]
    origins: tuple[Origin, ...]
    explicit: bool

    @property
    def where(self) -> str:
        return f"{self.rel}:{self.line}"


@dataclass(frozen=True)
class _CaseMacro:
    """A macro the generated X-macro expands: its parameters are the row's fields."""

    params: tuple[str, ...]
    stringized: frozenset[str]  # parameters written #NAME in its body: the case's name


def case_macros(row: MacroRow, sources: dict[str, str]) -> dict[str, _CaseMacro]:
    """Macros passed to the X-macro (`TFA_FOR_EACH_CASE(TFA_CASE_ENTRY)`), by name."""
    names = {
        m.group(1)
        for text in sources.values()
        for m in re.finditer(rf"\b{re.escape(row.name)}\s*\(\s*(\w+)\s*\)", text)
    }
    found: dict[str, _CaseMacro] = {}
    for text in sources.values():
        for _start, _end, name, params, body in cpp.macros(text):
            if name in names and name not in found:
                stringized = frozenset(p for p in params if re.search(rf"(?<!#)#\s*{re.escape(p)}\b", body))
                found[name] = _CaseMacro(params, stringized)
    return found


def workload_keys(row: MacroRow, sources: dict[str, str]) -> set[str]:
    """Row fields some case macro stringizes into the case's name: the workload."""
    return {
        row.keys[index]
        for macro in case_macros(row, sources).values()
        for index, param in enumerate(macro.params)
        if param in macro.stringized and index < len(row.keys)
    }


def trace(
    arg: str,
    context: cpp.Context,
    row: MacroRow,
    sources: dict[str, str],
    consts: dict[str, cpp.Constant],
    depth: int = 0,
) -> Origin:
    """The origin of one template argument written in `context`."""
    if cpp.is_int_literal(arg):
        return Origin("literal", arg)
    if arg in consts:
        return Origin("constant", arg)
    if context.kind == "macro" and arg in context.params:
        macro = case_macros(row, sources).get(context.name)
        index = context.params.index(arg)
        if macro is not None and index < len(row.keys):
            return Origin("row", row.keys[index])
        return Origin("other", f"parameter {arg} of macro {context.name}")
    if context.kind == "template" and arg in context.params and depth < _MAX_DEPTH:
        index = context.params.index(arg)
        for caller in cpp.instantiations(sources, context.name):
            if index < len(caller.args):
                found = trace(caller.args[index], caller.context, row, sources, consts, depth + 1)
                if found.kind != "other":
                    return found
        return Origin("other", f"parameter {arg} of {context.name}")
    return Origin("other", arg)


def entry_sites(
    row: MacroRow, sources: dict[str, str], entry: cpp.EntryTemplate, consts: dict[str, cpp.Constant]
) -> list[Site]:
    """The entry template's instantiation sites, calls first, each argument traced. A call
    inside the entry template itself (an overload forwarding to another) is no site."""
    workload = workload_keys(row, sources)
    sites = []
    for inst in cpp.instantiations(sources, entry.name):
        if inst.context.kind == "template" and inst.context.name == entry.name:
            continue
        origins = []
        for arg in inst.args:
            origin = trace(arg, inst.context, row, sources, consts)
            if origin.kind == "row" and origin.detail in workload:
                origin = Origin("row", origin.detail, workload=True)
            origins.append(origin)
        sites.append(Site(inst.rel, inst.line, inst.args, tuple(origins), inst.explicit))
    return sorted(sites, key=lambda s: (s.explicit, s.rel, s.line))
