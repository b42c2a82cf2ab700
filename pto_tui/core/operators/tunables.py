"""Discover tunable parameters in operator source.

- PTO-DSL: `tuned_int("NAME", default, valid_values=(...))` environment knobs (read with ast).
- PTO-tile-lib: the knobs the kernel decides (kernel_knobs.py: namespace constants, a
  launch site's constexpr locals, config structs' members), the template parameters of the
  entry template (`LaunchXxx<...>`) with the values it is instantiated with, and per-case
  fields of generate_cases.py (`--qk-preload` defaults); generated cases: tilelib_knobs.py.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import InputError
from pto_tui.core.operators.cpp_scopes import blank_code
from pto_tui.core.operators.kernel_knobs import CPP_SUFFIXES, data_generator_names, kernel_knobs, set_value
from pto_tui.core.operators.knob_report import KnobReport, LeftOut, unique
from pto_tui.core.operators.marker import marker_sources, read_marker
from pto_tui.core.operators.operator_sources import literal_scalar
from pto_tui.core.operators.tilelib_build import tilelib_report
from pto_tui.core.operators.tilelib_cpp import replace_constant
from pto_tui.core.project.config import Scalar, Tunable
from pto_tui.core.workspace.files import iter_workspace_files

_CONSTEXPR = re.compile(
    r"^[ \t]*(?:(?:static|inline|const)\s+)*constexpr\s+(?:(?:static|inline|const)\s+)*"
    r"[\w:<>]+(?:\s+[\w:<>]+)*?\s+(k[A-Z]\w*)\s*=\s*(-?\d+)[uUlL]*\s*;",
    re.M,
)
_TEMPLATE_DECL = re.compile(
    r"template\s*<(?P<params>[^<>]*(?:<[^<>]*>[^<>]*)*)>\s*"
    r"(?:[\w:]+\s+){0,4}?(?P<name>Launch\w*)\s*\(",
    re.S,
)
_TEMPLATE_PARAM = re.compile(
    r"(?:int|unsigned|size_t|uint32_t|int32_t|uint64_t|int64_t|bool|auto)\s+(\w+)(?:\s*=\s*(-?\w+))?"
)
_ARGPARSE_INT = re.compile(
    r"add_argument\(\s*[\"']--([\w-]+)[\"'][^)]*?type\s*=\s*int[^)]*?default\s*=\s*(-?\d+)"
    r"|add_argument\(\s*[\"']--([\w-]+)[\"'][^)]*?default\s*=\s*(-?\d+)[^)]*?type\s*=\s*int",
    re.S,
)


def dsl_knobs(path: Path, rel: str) -> list[Tunable]:
    """tuned_int(...) calls of one Python file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        fname = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if fname != "tuned_int" or not node.args:
            continue
        name = literal_scalar(node.args[0])
        if not isinstance(name, str):
            continue
        default = literal_scalar(node.args[1]) if len(node.args) > 1 else None
        allowed: tuple[Scalar, ...] = ()
        for keyword in node.keywords:
            if keyword.arg == "default" and default is None:
                default = literal_scalar(keyword.value)
            if keyword.arg == "valid_values" and isinstance(keyword.value, ast.Tuple | ast.List):
                values = [literal_scalar(e) for e in keyword.value.elts]
                allowed = tuple(v for v in values if v is not None)
        value = default if default is not None else (allowed[0] if allowed else 0)
        found.append(
            Tunable(
                name=name,
                value=value,
                kind="env",
                default=default,
                allowed=allowed,
                where=f"{rel}:{node.lineno}",
            )
        )
    return found


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def entry_template_params(sources: dict[str, str]) -> list[Tunable]:
    """Template parameters of Launch* entry templates, valued from their instantiation."""
    found: list[Tunable] = []
    for rel, text in sources.items():
        for decl in _TEMPLATE_DECL.finditer(text):
            name = decl.group("name")
            params = _TEMPLATE_PARAM.findall(decl.group("params"))
            if not params:
                continue
            call_args = _instantiation(sources, name)
            for index, (param, default) in enumerate(params):
                value: Scalar | None = None
                if (
                    call_args
                    and index < len(call_args)
                    and re.fullmatch(r"-?\d+", call_args[index])
                ):
                    value = int(call_args[index])
                default_value: Scalar | None = (
                    int(default) if default and re.fullmatch(r"-?\d+", default) else None
                )
                if value is None:
                    value = default_value
                if value is None:
                    continue  # neither instantiated with a literal nor defaulted: not tunable here
                found.append(
                    Tunable(
                        name=param,
                        value=value,
                        kind="template",
                        default=default_value,
                        where=f"{rel}:{_line_of(text, decl.start())} ({name})",
                    )
                )
    return found


def _instantiation(sources: dict[str, str], name: str) -> list[str] | None:
    pattern = re.compile(rf"\b{re.escape(name)}\s*<([^<>;]*)>\s*\(")
    for text in sources.values():
        for match in pattern.finditer(text):
            args = [a.strip() for a in match.group(1).split(",")]
            if any(re.fullmatch(r"-?\d+", a) for a in args):
                return args
    return None


def case_fields(text: str, rel: str) -> list[Tunable]:
    """Integer options of a case generator script (e.g. --qk-preload 4)."""
    found = []
    for match in _ARGPARSE_INT.finditer(text):
        flag = match.group(1) or match.group(3)
        value = int(match.group(2) or match.group(4))
        found.append(
            Tunable(
                name=flag.replace("-", "_").upper(),
                value=value,
                kind="case",
                default=value,
                where=f"{rel}:{_line_of(text, match.start())}",
            )
        )
    return found


def discover_report(root: Path) -> KnobReport:
    """Every knob under an operator folder: the tunables (unique by name, first finding
    wins), the values derived from them and the candidates left out, with the reason."""
    generated = tilelib_report(root)  # tile-lib cases generated into an X-macro: live knobs only
    if generated is not None:
        return generated
    found: list[tuple[int, Tunable]] = []  # (the file's place, tunable): listed in file order
    cpp_sources: dict[str, str] = {}
    data_names: dict[str, str] = {}
    order: dict[str, int] = {}
    for rel in own_files(root):
        order[rel] = len(order)
        path = root / rel
        if path.suffix == ".py":
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [(order[rel], t) for t in dsl_knobs(path, rel)]
            if "generate_cases" in path.name:
                found += [(order[rel], t) for t in case_fields(text, rel)]
            if path.name.startswith("gen_data"):
                data_names.update(data_generator_names(text, rel))
        elif path.suffix in CPP_SUFFIXES:
            cpp_sources[rel] = path.read_text(encoding="utf-8", errors="replace")
    kernel = kernel_knobs({rel: blank_code(text) for rel, text in cpp_sources.items()}, data_names)
    found += [(order[t.where.split(":", 1)[0]], t) for t in kernel.tunables]
    tunables = [t for _, t in sorted(found, key=lambda pair: pair[0])]
    decided = {t.name for t in tunables} | {d.name for d in kernel.derived}
    decided |= {o.name for o in kernel.left_out}
    tunables += [t for t in entry_template_params(cpp_sources) if t.name not in decided]
    return KnobReport(tuple(unique(tunables)), kernel.derived, _first_each(kernel.left_out))


def own_files(root: Path) -> list[str]:
    """The operator folder's files (relative), or only those its marker names its own
    (`sources`: a folder of many kernels, as huawei-csl's csrc/kernel)."""
    marker = read_marker(root)
    patterns = marker_sources(marker) if marker is not None else ()
    files = list(iter_workspace_files(root))
    if not patterns:
        return files
    return [rel for rel in files if any(fnmatch.fnmatchcase(rel, pattern) for pattern in patterns)]


def _first_each(left_out: tuple[LeftOut, ...]) -> tuple[LeftOut, ...]:
    seen: dict[str, LeftOut] = {}
    for item in left_out:
        seen.setdefault(item.name, item)
    return tuple(seen.values())


def discover(root: Path) -> list[Tunable]:
    """The tunables under an operator folder (discover_report's)."""
    return list(discover_report(root).tunables)


def apply_parameter(root: Path, tunable: Tunable, value: Scalar) -> str | None:
    """Write a constexpr or template-argument value into the source under root.

    Returns the changed file (relative to root), or None for kinds that live outside
    the source (env knobs, case fields: they reach the build/benchmark as arguments).
    """
    if tunable.kind not in ("constexpr", "template"):
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{tunable.name}: a {tunable.kind} value must be an integer, got {value!r}")
    if tunable.kind == "constexpr" and (changed := set_value(root, tunable.name, value)) is not None:
        return changed  # a launch-site local, a config struct's member, a namespace constant
    for rel in iter_workspace_files(root):
        if Path(rel).suffix not in CPP_SUFFIXES:
            continue
        path = root / rel
        text = path.read_text(encoding="utf-8", errors="replace")
        new_text = _replace_constexpr(text, tunable.name, value) if tunable.kind == "constexpr" else (
            _replace_template_arg(text, tunable.name, value, _template_params(root))
        )
        if new_text is not None and new_text != text:
            atomic_write_text(path, new_text)
            return rel
        if new_text is not None:
            return rel  # already at that value
    raise InputError(
        f"cannot find where to set {tunable.name} in the workspace source",
        hint=f"it was found at {tunable.where}" if tunable.where else None,
    )


def _replace_constexpr(text: str, name: str, value: int) -> str | None:
    for match in _CONSTEXPR.finditer(text):
        if match.group(1) == name:
            start, end = match.span(2)
            return text[:start] + str(value) + text[end:]
    return replace_constant(text, name, value)  # a constant defined by an expression


def _template_params(root: Path) -> dict[str, tuple[str, int]]:
    """Template parameter name -> (entry template name, position)."""
    params: dict[str, tuple[str, int]] = {}
    for rel in iter_workspace_files(root):
        if Path(rel).suffix not in (".h", ".hpp", ".cpp", ".cc", ".hh"):
            continue
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        for decl in _TEMPLATE_DECL.finditer(text):
            for index, (param, _default) in enumerate(_TEMPLATE_PARAM.findall(decl.group("params"))):
                params.setdefault(param, (decl.group("name"), index))
    return params


def _replace_template_arg(
    text: str, name: str, value: int, params: dict[str, tuple[str, int]]
) -> str | None:
    if name not in params:
        return None
    entry, index = params[name]
    pattern = re.compile(rf"\b{re.escape(entry)}\s*<([^<>;]*)>\s*\(")
    for match in pattern.finditer(text):
        args = match.group(1).split(",")
        if index >= len(args) or not re.fullmatch(r"\s*-?\d+\s*", args[index]):
            continue
        old = args[index]
        args[index] = old.replace(old.strip(), str(value))
        start, end = match.span(1)
        return text[:start] + ",".join(args) + text[end:]
    return None
