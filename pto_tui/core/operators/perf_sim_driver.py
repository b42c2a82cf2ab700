"""A perf_sim driver for a PTO-tile-lib operator, derived from its sources.

pto-isa's kernel-level cycle model runs a kernel under `LAUNCH_KERNEL` (its
include/pto/costmodel/perf_sim/launch.hpp, built with `-D__COSTMODEL`) on null pointers: no
data, the same cycles on every run. The driver written here runs the operator's kernel
exactly as its host wrapper launches it (host_launch.py): the wrapper's template header
and the constant locals its launch needs are copied into a driver template, whose body runs
the kernel, with the wrapper's template arguments and block count, under LAUNCH_KERNEL.
So a round that edits a wrapper constant (`constexpr uint32_t baseK = 64;`) is measured as
edited. The template arguments come from where the operator's host instantiates the wrapper:

- generator-driven (pto-isa's flash attention): main.cpp expands the X-macro that
  scripts/generate_cases.py writes (`TFA_FOR_EACH_CASE(TFA_CASE_ENTRY)`) into calls of the
  wrapper. The driver expands the same X-macro with a macro of its own whose parameters are
  the case macro's, passing each argument of the host's call traced to its origin
  (tilelib_trace): a row field as the macro parameter at that row position, a constant by
  its name, a literal as written, a run-time switch as its off value (`false`; only bool
  switches). It runs the row whose workload fields are the case's; a compile-time check
  refuses a header with no such row or several. The build generates the header
  (tilelib_build.GENERATED_HEADER), so a round's case fields and generator options reach
  the driver as they reach the operator's binary.
- a wrapper with constant locals (pto-isa's gemm_performance, topk): instantiated with the
  template arguments of its explicit instantiation (`template void LaunchGEMME2E<uint16_t>`).

Build: write the driver beside the generated header (the build folder) and compile it with
`-D__COSTMODEL`, `defines`, pto-isa's include folders and `-I` the folder of `kernel_file`.
It prints the report and writes `summary_csv` (relative to the folder it runs in).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from pto_tui.core.operators import tilelib_cpp as cpp
from pto_tui.core.operators.host_launch import HostWrapper, host_wrappers
from pto_tui.core.operators.kernel_knobs import CPP_SUFFIXES
from pto_tui.core.operators.marker import PERF_SIM_DRIVER
from pto_tui.core.operators.perf_sim_text import Instantiation, driver_text
from pto_tui.core.operators.tilelib_build import GENERATED_HEADER
from pto_tui.core.operators.tilelib_generator import MacroRow, read_generator
from pto_tui.core.operators.tilelib_trace import Origin, Site, case_macros, entry_sites, trace

MARKER_KEY = PERF_SIM_DRIVER  # the operator marker's key naming a hand-written driver
OUTPUT_DIR = "perf_sim_output"  # where perf_sim writes its files (its default output_dir)
CUBE_AND_VECTOR = ("-D__DAV_C220_CUBE__", "-D__DAV_CUBE__", "-D__DAV_VEC__")
VECTOR_ONLY = ("-D__DAV_VEC__",)
_ARCH = re.compile(r"--cce-aicore-arch=([\w${}-]+)|set\s*\(\s*CCE_AICORE_ARCH\s+\"?([\w-]+)")


@dataclass(frozen=True)
class PerfSimDriver:
    text: str  # the driver's C++ source
    kernel: str  # the kernel it runs (runTFA)
    kernel_file: str  # the source it includes, relative to the operator folder
    blocks: str  # the block count, as the wrapper writes it (block_rows)
    defines: tuple[str, ...]  # what the kernel is compiled with besides -D__COSTMODEL
    defines_reason: str
    wrapper: str  # "LaunchTFA at fa_performance_kernel.cpp:975"
    instantiated: str  # where its template arguments come from
    generated_header: str = ""  # the header it includes from the build folder, if any

    @property
    def summary_csv(self) -> str:
        return f"{OUTPUT_DIR}/{self.kernel}_pipeline_summary.csv"


@dataclass(frozen=True)
class NoDriver:
    """Why no driver could be derived; the operator marker can name one instead."""

    reason: str


def derive_driver(
    sources: dict[str, str], workload: dict[str, int] | None = None
) -> PerfSimDriver | NoDriver:
    """The driver for an operator's sources (relative path -> text, the operator folder's
    C++ sources, its scripts/generate_cases.py and CMakeLists.txt). `workload`: the case's
    workload fields by the generator's case key (`{"head_size": 128, "s0": 128, "s1":
    1024}`); without it a generator-driven driver requires the header to hold one row."""
    wrappers = [w for w in host_wrappers(_code(sources)) if w.name != "main"]
    if not wrappers:
        return _refused("no host function launches a kernel with <<<...>>> (outside __CPU_SIM code)")
    row = _generated_row(sources)
    if row is not None:
        found = _generated(row, sources, wrappers, workload or {})
        if found is not None:
            return found
    return _with_wrapper_instantiation(sources, wrappers)


def _refused(what: str) -> NoDriver:
    return NoDriver(
        f"no perf_sim driver derived: {what}; name a hand-written driver in the operator marker "
        f'({MARKER_KEY} = "path")'
    )


def _code(sources: dict[str, str]) -> dict[str, str]:
    """The C++ sources."""
    return {rel: text for rel, text in sources.items() if PurePosixPath(rel).suffix in CPP_SUFFIXES}


def _blanked(sources: dict[str, str]) -> dict[str, str]:
    """The C++ sources with comments blanked, as tilelib_cpp and tilelib_trace read them."""
    return {rel: cpp.blank_comments(text) for rel, text in _code(sources).items()}


def _generated_row(sources: dict[str, str]) -> MacroRow | None:
    """The X-macro a case generator writes and a C++ source expands, if any."""
    code = _blanked(sources)
    for rel in sorted(sources):
        name = PurePosixPath(rel).name
        if name.startswith("generate_cases") and name.endswith(".py"):
            generator = read_generator(sources[rel], rel)
            if generator is None or generator.row is None:
                continue
            expands = re.compile(rf"\b{re.escape(generator.row.name)}\s*\(\s*\w+\s*\)")
            if any(expands.search(text) for text in code.values()):
                return generator.row
    return None


def _generated(
    row: MacroRow, sources: dict[str, str], wrappers: list[HostWrapper], workload: dict[str, int]
) -> PerfSimDriver | NoDriver | None:
    """The generator-driven driver; None when no wrapper is called from the X-macro rows."""
    blanked = _blanked(sources)
    consts = cpp.constants(blanked)
    for wrapper in wrappers:
        entry = cpp.EntryTemplate(wrapper.name, (), wrapper.rel, wrapper.line)
        sites = [
            s for s in entry_sites(row, blanked, entry, consts) if any(o.kind == "row" for o in s.origins)
        ]
        if not sites:
            continue
        if wrapper.problem:
            return _refused(f"{wrapper.name} at {wrapper.where}: {wrapper.problem}")
        macro = next((m for m in case_macros(row, blanked).values() if len(m.params) == len(row.keys)), None)
        if macro is None:
            return _refused(f"no macro expanded by {row.name} has the {len(row.keys)} fields of its rows")
        callers = _from_callers(sites[0], wrapper.name, row, blanked, consts)
        args = _row_arguments(wrapper, sites[0], callers, row.keys, macro.params)
        if isinstance(args, NoDriver):
            return args
        matches = []
        for key, value in workload.items():
            if key not in row.keys:
                return _refused(
                    f"the rows of {row.name} have no field {key!r} (they have {', '.join(row.keys)})"
                )
            matches.append((macro.params[row.keys.index(key)], value))
        how = Instantiation(args, row.name, macro.params, tuple(matches))
        return _driver(
            wrapper,
            sources,
            how,
            f"the call at {sites[0].where}, expanded from the rows of {row.name}",
            GENERATED_HEADER,
        )
    return None


SWITCHED = "switched at run time"


def _from_callers(
    site: Site, name: str, row: MacroRow, blanked: dict[str, str], consts: dict[str, cpp.Constant]
) -> dict[int, str]:
    """For the site's arguments that are parameters of the template around it: SWITCHED when
    its callers pass different values (`run_tfa<..., true>` and `run_tfa<..., false>`, chosen
    by a command-line flag), or the bool literal every caller passes (which tilelib_trace
    does not follow)."""
    context = next(
        (i.context for i in cpp.instantiations(blanked, name) if (i.rel, i.line) == (site.rel, site.line)),
        None,
    )
    if context is None or context.kind != "template":
        return {}
    callers = cpp.instantiations(blanked, context.name)
    found: dict[int, str] = {}
    for position, arg in enumerate(site.args):
        if arg not in context.params:
            continue
        index = context.params.index(arg)
        passed = [c for c in callers if index < len(c.args)]
        written = {c.args[index] for c in passed}
        if len({trace(c.args[index], c.context, row, blanked, consts) for c in passed}) > 1:
            found[position] = SWITCHED
        elif written in ({"true"}, {"false"}):
            found[position] = written.pop()
    return found


def _row_arguments(
    wrapper: HostWrapper, site: Site, callers: dict[int, str], keys: tuple[str, ...], params: tuple[str, ...]
) -> tuple[str, ...] | NoDriver:
    """The host's call's arguments in terms of the driver macro's parameters."""
    args = []
    for position, (written, origin) in enumerate(zip(site.args, site.origins, strict=True)):
        param = wrapper.params[position] if position < len(wrapper.params) else None
        value = callers.get(position, written)
        if value == SWITCHED:
            origin = Origin("other", f"{written} is {SWITCHED} by the callers of the template around it")
        if origin.kind == "row":
            args.append(params[keys.index(origin.detail)])
        elif origin.kind in ("constant", "literal"):
            args.append(origin.detail)
        elif value in ("true", "false"):
            args.append(value)
        elif param is not None and param.type == "bool":
            args.append("false")  # a run-time switch (INTERMEDIATE_CHECK): off
        else:
            name = param.name if param else f"argument {position + 1}"
            return _refused(
                f"{name} of {wrapper.name} is {written} at {site.where} ({origin.detail}), a value chosen at "
                "run time: only a bool switch is set (to false)"
            )
    return tuple(args)


def _with_wrapper_instantiation(
    sources: dict[str, str], wrappers: list[HostWrapper]
) -> PerfSimDriver | NoDriver:
    """A wrapper instantiated once with known arguments (or no template at all)."""
    blanked = _blanked(sources)
    found: list[tuple[HostWrapper, tuple[str, ...], str]] = []
    reasons = []
    for wrapper in wrappers:
        if not wrapper.is_template:
            found.append((wrapper, (), "no template"))
            continue
        chosen = _known_instantiation(blanked, wrapper)
        if isinstance(chosen, str):
            reasons.append(chosen)
        else:
            found.append((wrapper, *chosen))
    if len(found) != 1:
        if found:
            names = ", ".join(f"{w.name} at {w.where}" for w, *_ in found)
            return _refused(f"several host wrappers launch kernels ({names})")
        return _refused("; ".join(reasons))
    wrapper, args, where = found[0]
    if wrapper.problem:
        return _refused(f"{wrapper.name} at {wrapper.where}: {wrapper.problem}")
    return _driver(wrapper, sources, Instantiation(args), where)


def _known_instantiation(blanked: dict[str, str], wrapper: HostWrapper) -> tuple[tuple[str, ...], str] | str:
    """The template arguments of the wrapper's one explicit instantiation (else of its one
    call with arguments its caller does not parameterise), with where; or why none."""
    sites = cpp.instantiations(blanked, wrapper.name)
    explicit = {s.args: s for s in sites if s.explicit and s.context.kind != "macro"}
    calls = {
        s.args: s
        for s in sites
        if not s.explicit and s.context.kind != "macro" and not set(s.args) & set(s.context.params)
    }
    for kind, table in (("explicit instantiations", explicit), ("calls", calls)):
        if len(table) == 1:
            args, site = next(iter(table.items()))
            what = "template " if site.explicit else ""
            return args, f"{what}{wrapper.name}<{', '.join(args)}> at {site.rel}:{site.line}"
        if len(table) > 1:
            listed = "; ".join(f"<{', '.join(a)}> at {s.rel}:{s.line}" for a, s in table.items())
            return f"{wrapper.name} has {len(table)} {kind} ({listed}): which one runs is not known"
    return f"{wrapper.name} at {wrapper.where} is never instantiated with known template arguments"


def _driver(
    wrapper: HostWrapper, sources: dict[str, str], how: Instantiation, instantiated: str, header: str = ""
) -> PerfSimDriver:
    defines, reason = kernel_defines(sources)
    return PerfSimDriver(
        text=driver_text(wrapper, how, header, instantiated),
        kernel=wrapper.launch.kernel,
        kernel_file=wrapper.rel,
        blocks=wrapper.launch.blocks,
        defines=defines,
        defines_reason=reason,
        wrapper=f"{wrapper.name} at {wrapper.where}",
        instantiated=instantiated,
        generated_header=header,
    )


def kernel_defines(sources: dict[str, str]) -> tuple[tuple[str, ...], str]:
    """The core defines the kernel is compiled with, from the architecture its CMakeLists.txt
    builds it for, as pto-isa's perf_sim tests do: a vector-only kernel
    (`--cce-aicore-arch=dav-c220-vec`, topk) gets `-D__DAV_VEC__`; a cube (`dav-c220-cube`,
    gemm) or mixed (`dav-c220`, flash attention) kernel, or one whose architecture is not
    found, gets `-D__DAV_C220_CUBE__ -D__DAV_CUBE__ -D__DAV_VEC__`."""
    archs = sorted(
        {
            value
            for rel, text in sources.items()
            if PurePosixPath(rel).name == "CMakeLists.txt"
            for match in _ARCH.finditer(re.sub(r"#[^\n]*", "", text))
            if (value := match.group(1) or match.group(2)) and value.startswith("dav-c220")
        }
    )
    if archs and all(arch.endswith("-vec") for arch in archs):
        return VECTOR_ONLY, f"CMakeLists.txt builds the kernel for {', '.join(archs)} (vector only)"
    if archs:
        return CUBE_AND_VECTOR, f"CMakeLists.txt builds the kernel for {', '.join(archs)}"
    return CUBE_AND_VECTOR, "no --cce-aicore-arch in CMakeLists.txt: cube and vector"
