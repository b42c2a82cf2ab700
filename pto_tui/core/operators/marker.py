"""An operator's own declaration: the pto-operator.toml marker file and what it lists
(kind, name, cases, commands, tunables). Errors name the file and the key or line."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pto_tui.core.errors import InputError
from pto_tui.core.operators.marker_schema import check_marker
from pto_tui.core.project.config import ResultConfig, Tunable

RESULT_FIELDS = ("format", "time", "unit", "passed", "failed", "label")

MARKER_FILE = "pto-operator.toml"
# a hand-written perf_sim driver, for an operator whose driver pto-tui cannot derive
PERF_SIM_DRIVER = "perf_sim_driver"


@dataclass(frozen=True)
class CaseChoice:
    """A case the operator offers (docs/workflow.md §2)."""

    name: str
    spec: str = ""
    shape: dict[str, int | float | str | bool] = field(default_factory=dict)
    dtype: str = ""
    causal: bool = False



def read_marker(folder: Path) -> dict[str, object] | None:
    """The operator's own declaration, or None. Errors name the file and line."""
    marker = folder / MARKER_FILE
    if not marker.is_file():
        return None
    text = marker.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        raise InputError(
            f"invalid TOML: {error}", file=marker, line=int(line.group(1)) if line else None
        ) from None
    check_marker(marker, text, data)
    return data


def marker_result(data: dict[str, object]) -> ResultConfig | None:
    """How the marker says a run's result is read ([result]), or None when it says nothing."""
    raw = data.get("result")
    if not isinstance(raw, dict):
        return None
    defaults = ResultConfig()
    return ResultConfig(**{key: str(raw.get(key, getattr(defaults, key))) for key in RESULT_FIELDS})


@dataclass(frozen=True)
class DeclaredRepository:
    """[repository]: the repository root above the operator folder and what its build needs."""

    root: str  # relative to the operator folder, e.g. "../.."
    needs: tuple[str, ...]


def marker_repository(data: dict[str, object]) -> DeclaredRepository | None:
    raw = data.get("repository")
    if not isinstance(raw, dict):
        return None
    needs = raw.get("needs", [])
    listed = tuple(str(n) for n in needs) if isinstance(needs, list) else ()
    return DeclaredRepository(str(raw["root"]), listed)


def marker_sources(data: dict[str, object], key: str = "sources") -> tuple[str, ...]:
    """The marker's list of patterns under `key` (`sources`, `generated`)."""
    raw = data.get(key, [])
    return tuple(str(p) for p in raw) if isinstance(raw, list) else ()


def marker_cases(data: dict[str, object], marker: Path) -> tuple[CaseChoice, ...]:
    raw = data.get("cases", [])
    if not isinstance(raw, list):
        raise InputError("'cases' must be an array of tables", file=marker, key="cases")
    cases = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or "name" not in item:
            raise InputError("each case needs a 'name'", file=marker, key=f"cases[{index}]")
        shape = item.get("shape", {})
        cases.append(
            CaseChoice(
                name=str(item["name"]),
                spec=str(item.get("spec", "")),
                shape=dict(shape) if isinstance(shape, dict) else {},
                dtype=str(item.get("dtype", "")),
                causal=bool(item.get("causal", False)),
            )
        )
    return tuple(cases)


_COMMAND_KEYS = ("build", "correctness", "benchmark", "reference", "results")
_TUNABLE_KINDS = ("env", "constexpr", "template", "case")


def marker_commands(data: dict[str, object], marker: Path) -> dict[str, str]:
    raw = data.get("commands", {})
    if not isinstance(raw, dict):
        raise InputError("'commands' must be a table", file=marker, key="commands")
    for key, value in raw.items():
        if key not in _COMMAND_KEYS or not isinstance(value, str):
            raise InputError(
                f"commands.{key}: expected one of {', '.join(_COMMAND_KEYS)} with a string",
                file=marker,
                key=f"commands.{key}",
            )
    return dict(raw)


def marker_tunables(data: dict[str, object], marker: Path) -> tuple[Tunable, ...]:
    raw = data.get("tunables", {})
    if not isinstance(raw, dict):
        raise InputError("'tunables' must be a table", file=marker, key="tunables")
    found = []
    for name, entry in raw.items():
        key = f"tunables.{name}"
        if not isinstance(entry, dict) or "value" not in entry:
            raise InputError("a tunable needs at least 'value'", file=marker, key=key)
        kind = str(entry.get("kind", "env"))
        if kind not in _TUNABLE_KINDS:
            raise InputError(f"unknown kind {kind!r}", file=marker, key=f"{key}.kind")
        allowed = entry.get("allowed", [])
        if not isinstance(allowed, list) or (allowed and entry["value"] not in allowed):
            raise InputError("'value' must be one of 'allowed'", file=marker, key=f"{key}.value")
        found.append(
            Tunable(
                name=name,
                value=entry["value"],
                kind=kind,
                default=entry.get("default", entry["value"]),
                allowed=tuple(allowed),
                where=str(entry.get("where", MARKER_FILE)),
            )
        )
    return tuple(found)


def marker_perf_sim_driver(data: dict[str, object], marker: Path) -> str:
    """The hand-written perf_sim driver the marker names (a C++ file relative to the
    operator folder, inside it), or "" when it names none."""
    raw = data.get(PERF_SIM_DRIVER)
    if raw is None:
        return ""
    if not isinstance(raw, str) or not raw.strip():
        raise InputError("expected the path of a C++ file, relative to the operator folder",
                         file=marker, key=PERF_SIM_DRIVER)
    path = PurePosixPath(raw)
    if path.is_absolute() or ".." in path.parts:
        raise InputError(f"{raw!r} must lie inside the operator folder (a relative path, no '..')",
                         file=marker, key=PERF_SIM_DRIVER)
    if not (marker.parent / path).is_file():
        raise InputError(f"{raw!r}: no such file in {marker.parent}", file=marker, key=PERF_SIM_DRIVER)
    return raw
