"""Tile-lib knobs resolved from where their value is really decided.

In pto-isa's manual kernels (flash_atten) main.cpp instantiates the entry template once per
row of an X-macro header that scripts/generate_cases.py writes at build time, from the case
string (HEAD_SIZE,S0,S1,CUBE_S0[,TILE_S1]) and options (`--qk-preload`). The header's
constexpr constants that only serve as the entry template's parameter defaults
(`TILE_S1 = kFaTileS1`) are overridden there: editing them builds the same binary. This
module follows each entry-template argument back to its origin:

- a case-string field (CUBE_S0, TILE_S1) - live, a `case` tunable;
- a generator option (QK_PRELOAD from --qk-preload) - live, a `case` tunable too: both reach
  the build as {placeholders} of the build command (see `generator_arguments`);
- a constant passed at the instantiation site or used in code (kFaCvFifoSize) - live,
  `constexpr`;
- an integer literal at the instantiation site - live, `template`;
- a constant that is only a default overridden at every site, a field the generator fixes
  (cube_s1 = 128), a workload field (it names the case) - recorded as dead, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.operators import tilelib_cpp as cpp
from pto_tui.core.operators.kernel_knobs import CPP_SUFFIXES, kernel_side
from pto_tui.core.operators.kernel_knobs import PROFILING as _PROFILING
from pto_tui.core.operators.tilelib_generator import Generator, MacroRow, read_generator
from pto_tui.core.operators.tilelib_trace import Origin, Site, entry_sites
from pto_tui.core.workspace.files import iter_workspace_files

CASE_FIELD = "case field"
GENERATOR_OPTION = "generator option"
CONSTANT = "constant"
TEMPLATE_ARGUMENT = "template argument"


@dataclass(frozen=True)
class Knob:
    """One candidate knob: where its value is decided, its value there, live or dead and why."""

    name: str
    decided_by: str  # case field | generator option | constant | template argument
    value: int | None
    file: str
    line: int
    live: bool
    reason: str
    key: str = ""  # the generator's case key (tile_s1), for case fields and options
    row_position: int | None = None  # its field in a generated MACRO(...) row
    flag: str = ""  # the generator option, e.g. --qk-preload
    position: int | None = None  # its index in the case string, for case fields
    expr: str = ""  # a constant's expression as written
    derived: bool = False  # computed from another live knob: it follows it, never offered alone

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Operator:
    """What the resolver reads: the generator and the C++ sources (comments blanked)."""

    generator: Generator
    row: MacroRow  # the X-macro the generator writes and a source expands
    sources: dict[str, str]


def read_operator(root: Path) -> Operator | None:
    """The operator's generator and C++ sources, or None when its cases are not generated
    into an X-macro that a source expands (then the constants and template arguments of the
    source decide, and the generic discovery applies)."""
    generator: Generator | None = None
    sources: dict[str, str] = {}
    for rel in iter_workspace_files(root):
        path = root / rel
        if path.suffix == ".py" and path.name.startswith("generate_cases") and generator is None:
            generator = read_generator(path.read_text(encoding="utf-8", errors="replace"), rel)
        elif path.suffix in CPP_SUFFIXES:
            sources[rel] = cpp.blank_comments(path.read_text(encoding="utf-8", errors="replace"))
    if generator is None or generator.row is None:
        return None
    expands = re.compile(rf"\b{re.escape(generator.row.name)}\s*\(\s*\w+\s*\)")
    if not any(expands.search(text) for text in sources.values()):
        return None
    return Operator(generator, generator.row, sources)


# The last operator resolved and its knobs: `new` asks for the knobs (the tunables) and
# again for the build commands, and tracing every entry-template argument is the costly
# part (about a second on pto-isa's flash_atten). The key is the sources read, not their
# folder, so an edit is traced again.
_last: list[tuple[Operator, tuple[Knob, ...]]] = []


def resolve_knobs(root: Path) -> list[Knob]:
    """Every candidate knob of a generated-cases tile-lib operator, live and dead; [] when
    the operator's cases are not generated."""
    op = read_operator(root)
    if op is None:
        return []
    if _last and _last[0][0] == op:
        return list(_last[0][1])
    knobs = _traced_knobs(op)
    _last[:] = [(op, tuple(knobs))]
    return knobs


def _traced_knobs(op: Operator) -> list[Knob]:
    """Each argument of the entry template traced to where its value is decided."""
    consts = cpp.constants(op.sources)
    knobs: list[Knob] = []
    for entry in cpp.entry_templates(op.sources).values():
        sites = entry_sites(op.row, op.sources, entry, consts)
        if not sites:
            continue
        knobs += _generated_knobs(op, entry, sites)
        knobs += _literal_knobs(entry, sites)
        knobs += _constant_knobs(op, entry, sites, consts)
        break  # one entry template: the operator's kernel
    return knobs


def _first_origin(sites: list[Site], position: int) -> tuple[Site, Origin] | None:
    for site in sites:
        if position < len(site.origins):
            return site, site.origins[position]
    return None


def _generated_knobs(op: Operator, entry: cpp.EntryTemplate, sites: list[Site]) -> list[Knob]:
    """Knobs decided by the generator: case-string fields and options, by entry parameter."""
    knobs: list[Knob] = []
    for position, param in enumerate(entry.params):
        found = _first_origin(sites, position)
        if found is not None and found[1].kind == "row":
            knob = _generated_knob(op.generator, param.name, found[0], found[1])
            if knob is not None:
                knobs.append(knob)
    return knobs


def _generated_knob(gen: Generator, param: str, site: Site, origin: Origin) -> Knob | None:
    case_field = gen.fields.get(origin.detail)
    if case_field is None or gen.row is None:
        return None
    row = gen.row.keys.index(origin.detail)
    path = f"MACRO row field {row} -> {param} at {site.where}"
    value, live, decided_by, flag = gen.first_case.get(origin.detail), False, CASE_FIELD, ""
    line = case_field.line
    if origin.workload:
        reason = f"workload: names the case (case-string field {case_field.position}); {path}"
    elif case_field.position is not None:
        live = True
        if case_field.default is not None:
            value = case_field.default
            default = f", default {case_field.default_name or case_field.default}"
        else:
            default = ""
        reason = f"case-string field {case_field.position}{default} -> {path}"
    elif case_field.option in gen.options:
        option = gen.options[case_field.option]
        named = f"{option.default_name} = " if option.default_name else ""
        value, live, decided_by, flag, line = option.default, True, GENERATOR_OPTION, option.flag, option.line
        reason = f"{option.flag} (default {named}{option.default}), the same for every case -> {path}"
    elif case_field.fixed is not None:
        value = case_field.fixed
        reason = f"fixed at {value} by the generator, not in the case string (a generator edit); {path}"
    else:
        return None
    return Knob(
        param, decided_by, value, gen.rel, line, live, reason, origin.detail, row, flag, case_field.position
    )


def _literal_knobs(entry: cpp.EntryTemplate, sites: list[Site]) -> list[Knob]:
    """Integer literals passed to the entry template at a call site."""
    knobs = []
    for position, param in enumerate(entry.params):
        found = _first_origin(sites, position)
        if found and found[1].kind == "literal":
            site, origin = found
            knobs.append(
                Knob(param.name, TEMPLATE_ARGUMENT, int(origin.detail.rstrip("uUlL")), site.rel, site.line,
                     True, f"literal {origin.detail} passed as {param.name} at {site.where}")
            )
    return knobs


def _constant_knobs(
    op: Operator, entry: cpp.EntryTemplate, sites: list[Site], consts: dict[str, cpp.Constant]
) -> list[Knob]:
    """Each constant: passed at an instantiation site, used in the kernel's code, or only a
    default; one only the host driver or the profiling buffer uses is left out; one computed
    from another live constant is derived."""
    live: dict[str, str] = {}
    dead: dict[str, str] = {}
    defaults = {p.default: (i, p.name) for i, p in enumerate(entry.params) if p.default in consts}
    kernel = kernel_side(op.sources)
    for name in consts:
        is_live, reason = _constant_use(op, entry, sites, consts[name], kernel)
        (live if is_live else dead)[name] = reason
    changed = True
    while changed:  # a constant used in the definition of a live one is live too
        changed = False
        for name in [n for n in consts if n not in live and not dead.get(n)]:
            users = [u for u in consts.values() if u.name in live and re.search(rf"\b{name}\b", u.expr)]
            if users:
                live[name] = f"used in the definition of {users[0].name} ({live[users[0].name]})"
                changed = True
    knobs = []
    for name, const in consts.items():
        usable = const.value is not None
        derived = False
        if name in live:
            reason, is_live = live[name] + ("" if usable else "; not an integer expression"), usable
            sources = [n for n in live if n != name and re.search(rf"\b{n}\b", const.expr)]
            if sources and is_live:
                derived, reason = True, f"derived: {name} = {const.expr} follows {', '.join(sources)}"
        elif dead.get(name):
            reason, is_live = dead[name], False
        elif name in defaults:
            reason, is_live = _overridden(op.generator, defaults[name][1], defaults[name][0], sites), False
        else:
            reason, is_live = "not used by the build", False
        knobs.append(Knob(name, CONSTANT, const.value, const.rel, const.line, is_live, reason,
                          expr=const.expr, derived=derived))
    return knobs


def _constant_use(
    op: Operator, entry: cpp.EntryTemplate, sites: list[Site], const: cpp.Constant, kernel: set[str]
) -> tuple[bool, str]:
    """(True, why) when a constant reaches the build by itself; (False, why) when only the
    host driver or the profiling buffer uses it; (False, "") otherwise (then it is live only
    when a live constant's definition uses it)."""
    for site in sites:
        for position, arg in enumerate(site.args):
            if arg == const.name and position < len(entry.params):
                return True, f"passed at {site.where} as {entry.params[position].name}"
    for position, param in enumerate(entry.params):
        short = [s for s in sites if len(s.args) <= position]
        if param.default == const.name and short:
            return True, f"default of template parameter {param.name}, used at {short[0].where}"
    definitions = {(c.rel, c.line) for c in cpp.constants(op.sources).values()}
    defaults = {rel: cpp.parameter_lists(text) for rel, text in op.sources.items()}
    used = [
        (rel, line)
        for rel, line, offset in cpp.uses(op.sources, const.name)
        if (rel, line) not in definitions and not any(a <= offset < b for a, b in defaults[rel])
    ]
    in_kernel = [(rel, line) for rel, line in used if rel in kernel]
    if not used:
        return False, ""
    if not in_kernel:
        return False, f"host-only: only the host driver uses it ({used[0][0]}:{used[0][1]}), never the kernel"
    rel, line = in_kernel[0]
    texts = [op.sources[r].splitlines()[n - 1] for r, n in in_kernel]
    if _PROFILING.search(const.name) or all(_PROFILING.search(text) for text in texts):
        return False, f"profiling: it only lays out the profiling buffer ({rel}:{line})"
    return True, f"used at {rel}:{line}"


def _overridden(gen: Generator, param: str, position: int, sites: list[Site]) -> str:
    site = sites[0]
    origin = site.origins[position]
    by = origin.detail or "its caller"
    if origin.kind == "row":
        field = gen.fields.get(origin.detail)
        option = gen.options.get(field.option) if field and field.option else None
        if field and field.position is not None:
            by = f"the case string ({origin.detail}, field {field.position})"
        elif option is not None:
            by = f"{Path(gen.rel).name} {option.flag}"
        elif field and field.fixed is not None:
            by = f"the generator's fixed {origin.detail} = {field.fixed}"
    elif origin.kind in ("constant", "literal"):
        by = f"the {origin.kind} {origin.detail}"
    more = f" (and {len(sites) - 1} more sites)" if len(sites) > 1 else ""
    return f"default of template parameter {param}, overridden at {site.where}{more} by {by}"
