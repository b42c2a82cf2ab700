"""The executables a tile-lib operator's CMakeLists.txt builds, and which one a target mode
runs: pto-isa builds `<name>_cpu_sim` when configured with `-DPTO_CPU_SIM_STANDALONE=ON`
(a literal `add_executable`) and the NPU binary through a helper function
(`pto_example_mixed(fa_performance)`, whose body has `add_executable(${NAME} ...)`).

Pure: this reads the CMake text, never runs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.operators.tilelib_repository import CMAKE_LISTS, strip_cmake_comments
from pto_tui.core.project.modes import mode_spec
from pto_tui.core.vocabulary import TargetMode

CPU_SIM_OPTION = "PTO_CPU_SIM_STANDALONE"
_ADD_EXECUTABLE = re.compile(r"\badd_executable\s*\(\s*([^\s)]+)", re.I)
_FUNCTION = re.compile(r"\bfunction\s*\(\s*(\w+)\s+(\w+)[^)]*\)(.*?)\bendfunction\s*\(", re.I | re.S)


@dataclass(frozen=True)
class Executable:
    name: str
    where: str  # CMakeLists.txt:line


def cmake_executables(operator: Path) -> list[Executable]:
    """Every executable with a literal name, in the order written: `add_executable(name`
    and calls of a function whose body adds `${ARG}` as an executable."""
    lists = operator / CMAKE_LISTS
    if not lists.is_file():
        return []
    text = strip_cmake_comments(lists.read_text(encoding="utf-8", errors="replace"))
    found: list[tuple[int, Executable]] = []

    def add(name: str, offset: int) -> None:
        line = text.count("\n", 0, offset) + 1
        found.append((offset, Executable(name, f"{CMAKE_LISTS}:{line}")))

    for match in _ADD_EXECUTABLE.finditer(text):
        if "$" not in match.group(1):
            add(match.group(1), match.start())
    for function in _FUNCTION.finditer(text):
        name, argument, body = function.groups()
        if not re.search(r"\badd_executable\s*\(\s*\$\{" + argument + r"\}", body, re.I):
            continue
        for call in re.finditer(r"(?<![\w$])" + name + r"\s*\(\s*([\w.-]+)", text[function.end() :], re.I):
            add(call.group(1), function.end() + call.start())
    return [e for _, e in sorted(found, key=lambda pair: pair[0])]


def offers_cpu_sim(operator: Path) -> bool:
    """Whether the operator's CMake has pto-isa's CPU-simulation switch."""
    lists = operator / CMAKE_LISTS
    return lists.is_file() and CPU_SIM_OPTION in lists.read_text(encoding="utf-8", errors="replace")


def executable_for(operator: Path, mode: TargetMode) -> Executable | None:
    """The executable a mode runs: a cpu-sim target the one named for the CPU simulation
    (`..._cpu_sim`), an NPU target the first other one; None when there is none."""
    simulated = mode_spec(mode).cpu_simulation
    for executable in cmake_executables(operator):
        if ("cpu_sim" in executable.name.lower()) == simulated:
            return executable
    return None


# the NPU runtime's header: a source that includes it outside any `__CPU_SIM` condition
# builds for the NPU only (pto-isa's flash attention after 9ee2560 dropped its guards)
_NPU_RUNTIME_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]acl/acl\.h[>"]')
_CONDITION = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
_SOURCE_SUFFIXES = (".cpp", ".cc", ".h", ".hpp")


def npu_only_include(operator: Path) -> str:
    """Where the operator's own sources include the NPU runtime (acl/acl.h) outside every
    `__CPU_SIM` condition ("file:line"), or "" when each include is guarded (or none)."""
    for path in sorted(p for p in operator.iterdir() if p.suffix in _SOURCE_SUFFIXES and p.is_file()):
        conditions: list[str] = []
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            match = _CONDITION.match(line)
            if match:
                word, rest = match.groups()
                if word.startswith("if"):
                    conditions.append(rest)
                elif word == "endif" and conditions:
                    conditions.pop()
                elif word == "elif" and conditions:
                    conditions[-1] += rest  # an #elif branch is still under the #if's test
            elif _NPU_RUNTIME_INCLUDE.match(line) and not any("__CPU_SIM" in c for c in conditions):
                return f"{path.name}:{number}"
    return ""
