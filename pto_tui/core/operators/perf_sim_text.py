"""The C++ text of a perf_sim driver (see perf_sim_driver.py for what it runs and why)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from pto_tui.core.operators.host_launch import HostWrapper

FUNCTION = "PtoTuiPerfSim"
_CHOSEN = "PTO_TUI_CHOSEN"
_NULLS = ("nullptr", "NULL", "0")


@dataclass(frozen=True)
class Instantiation:
    """How the driver template is instantiated: with `args` (the wrapper's template
    arguments), or, when `xmacro` is set, once per row of that X-macro, `args` written in
    terms of `macro_params`, running the rows whose `matches` (parameter, value) all hold."""

    args: tuple[str, ...]
    xmacro: str = ""
    macro_params: tuple[str, ...] = ()
    matches: tuple[tuple[str, int], ...] = ()


def driver_text(wrapper: HostWrapper, how: Instantiation, header: str, instantiated: str) -> str:
    launch = wrapper.launch
    lines = [
        f"// perf_sim driver written by pto-tui: runs {launch.kernel} as {wrapper.name} ({wrapper.where})",
        f"// launches it, on null pointers; template arguments: {instantiated}.",
        "// Compiled with -D__COSTMODEL; rewritten from the operator's sources, never edited.",
        "#include <pto/pto-inst.hpp>",
        "#include <pto/common/constants.hpp>",
        "#include <pto/costmodel/perf_sim/launch.hpp>",
        "",
        f'#include "{PurePosixPath(wrapper.rel).name}"',
    ]
    if header:
        lines.append(f'#include "{header}"')
    lines += ["", *_driver_template(wrapper), ""]
    lines += _main_for_rows(how) if how.xmacro else _main(how)
    return "\n".join(lines) + "\n"


def _driver_template(wrapper: HostWrapper) -> list[str]:
    launch = wrapper.launch
    params = ", ".join([f"bool {_CHOSEN}", *(p.text for p in wrapper.params)])
    targs = f"<{', '.join(launch.template_args)}>" if launch.template_args else ""
    l2 = "nullptr" if launch.l2_ctrl in _NULLS else "reinterpret_cast<void *>(1)"  # only its presence counts
    nulls = ", ".join(["nullptr"] * launch.arg_count)
    call = f"LAUNCH_KERNEL({launch.kernel}, PTO_TUI_KERNEL_TARGS, ({launch.blocks}, {l2}, nullptr)"
    call += f", {nulls});" if nulls else ");"
    return [
        # LAUNCH_KERNEL splits its arguments on commas: the template arguments go in a macro
        f"#define PTO_TUI_KERNEL_TARGS {targs}",
        f"template <{params}>",
        f"int {FUNCTION}()",
        "{",
        f"    if constexpr ({_CHOSEN}) {{",
        *(f"        {declaration}" for _, declaration in wrapper.locals),
        f"        {call}",
        "        return 1;",
        "    }",
        "    return 0;",
        "}",
        "#undef PTO_TUI_KERNEL_TARGS",
    ]


def _main(how: Instantiation) -> list[str]:
    args = ", ".join(["true", *how.args])
    return ["int main()", "{", f"    return {FUNCTION}<{args}>() == 1 ? 0 : 1;", "}"]


def _main_for_rows(how: Instantiation) -> list[str]:
    params = ", ".join(how.macro_params)
    condition = " && ".join(f"({name}) == {value}" for name, value in how.matches) or "true"
    wanted = ", ".join(f"{name} = {value}" for name, value in how.matches)
    rule = (
        f"exactly one row of {how.xmacro} must have {wanted}" if wanted else f"{how.xmacro} must have one row"
    )
    args = ", ".join(["PTO_TUI_ROW_MATCHES(" + params + ")", *how.args])
    return [
        f"#define PTO_TUI_ROW_MATCHES({params}) ({condition})",
        f"#define PTO_TUI_COUNT_ROW({params}) +(PTO_TUI_ROW_MATCHES({params}) ? 1 : 0)",
        f"#define PTO_TUI_RUN_ROW({params}) pto_tui_runs += {FUNCTION}<{args}>();",
        "",
        f"constexpr int kPtoTuiMatchingRows = 0 {how.xmacro}(PTO_TUI_COUNT_ROW);",
        "static_assert(kPtoTuiMatchingRows == 1,",
        f'              "perf_sim driver: {rule}");',
        "",
        "int main()",
        "{",
        "    int pto_tui_runs = 0;",
        f"    {how.xmacro}(PTO_TUI_RUN_ROW)",
        "    return pto_tui_runs == 1 ? 0 : 1;",
        "}",
    ]
