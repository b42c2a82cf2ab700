"""Filling the project's command templates. Every value that reaches a shell is checked
and quoted, so a case such as `128;rm -rf ~` or `$(reboot)` stays one inert argument."""

from __future__ import annotations

import shlex
import string
from collections.abc import Mapping

from pto_tui.core.errors import InputError
from pto_tui.core.project.config import ProjectConfig, Scalar


def check_value(name: str, value: str) -> str:
    """Values are single-line text; control characters never reach a shell."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise InputError(f"value of {{{name}}} contains a control character (newline?): {value!r}")
    return value


# Every fixed placeholder of a command template, with its meaning. The case's shape and
# options and the round's parameters are placeholders too, by their names.
PLACEHOLDERS = {
    "case": "[case] spec, the operator's case string (e.g. 128,128,1024)",
    "name": "[case] name, else the operator's name",
    "operator": "[operator] name",
    "family": "[operator] family (pto-kernels bench family)",
    "dtype": "[case] dtype",
    "causal": "1 when [case] causal is true, else 0",
    "npu": "[target] npu_id, the NPU device",
    "soc": "[case.options] soc, default Ascend910B1",
    "binary": "[case.options] binary, default fa_performance (new writes the executable its CMake builds)",
    "warmup": "[discipline] warmup",
    "mode": "[target] mode: npu, cpu-sim or demo",
    "compiler": "[target] compiler, the C++ compiler of a cpu-sim build",
    "cxx_flags": "[target] cxx_flags, compile and link flags of a cpu-sim build (one argument)",
}
def template_values(config: ProjectConfig, parameters: Mapping[str, Scalar]) -> dict[str, str]:
    """The placeholders a command template may use, with their values: the fixed ones
    (PLACEHOLDERS), then the case's shape and options, then the round's parameters (which
    win)."""
    case = config.case
    values: dict[str, str] = {
        "case": case.spec,
        "name": case.name or config.operator.name,
        "operator": config.operator.name,
        "family": config.operator.family,
        "dtype": case.dtype,
        "causal": "1" if case.causal else "0",
        "npu": str(config.target.npu_id),
        "soc": str(case.options.get("soc", "Ascend910B1")),
        "binary": str(case.options.get("binary", "fa_performance")),
        "warmup": str(config.discipline.warmup),
        "mode": config.target.mode.value,
        "compiler": config.target.compiler,
        "cxx_flags": config.target.cxx_flags,
    }
    for key, value in case.shape.items():
        values.setdefault(key, str(value))
    for key, value in case.options.items():
        values.setdefault(key, str(value))
    for key, value in parameters.items():
        values[key] = str(value)
    return values


def render_command(template: str, values: Mapping[str, str]) -> str:
    """Replace {name} with the shell-quoted value; an unknown placeholder is an error."""
    out: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise InputError(f"bad command template {template!r}: {error}") from None
    for literal, field, _spec, _conversion in parsed:
        out.append(literal)
        if field is None:
            continue
        if field not in values:
            known = ", ".join(sorted(values))
            raise InputError(f"unknown placeholder {{{field}}} in command {template!r}; known: {known}")
        out.append(shlex.quote(check_value(field, values[field])))
    return "".join(out)


def env_parameters(config: ProjectConfig, parameters: Mapping[str, Scalar]) -> dict[str, str]:
    """Environment-variable knobs of the round, as the job's environment."""
    return {
        name: check_value(name, str(value))
        for name, value in parameters.items()
        if name in config.tunables and config.tunables[name].kind == "env"
    }
