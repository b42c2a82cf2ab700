"""project.toml text into a ProjectConfig, driven by the declared shape in `sections.py`.

Every error names file, line and key. Within a table each key is type-checked in
order, with its choices and condition at once (later keys may depend on it, as on a kind);
checks across keys and then ranges run once the whole table is read.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pto_tui.core.errors import ConfigError
from pto_tui.core.project.command_table import Commands, command_texts
from pto_tui.core.project.config import (
    SCHEMA_VERSION,
    CaseConfig,
    CostmodelConfig,
    Discipline,
    OperatorConfig,
    ProjectConfig,
    ResultConfig,
    StepLimits,
    Target,
    Tunable,
)
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.project.modes import DEFAULT_MODE, DEMO_MODE, MODES, PREDICTOR, mode_spec
from pto_tui.core.project.schema import SCALAR, Check, Entries, Key, Section
from pto_tui.core.project.sections import OPERATOR, SECTIONS, TOP_LEVEL_KEYS
from pto_tui.core.vocabulary import OperatorKind, TargetMode

_UNKNOWN_IN_SECTION = "unknown key '{key}' in [{table}]; known keys: {known}"
_UNKNOWN_IN_ENTRY = "unknown key '{key}'; known: {known}"


def locate_key(text: str, dotted: str) -> int | None:
    """Best-effort line number (1-based) of a dotted key in TOML text.

    Tracks [table] headers and matches `key =` lines; good enough to point a person
    at the right line of a hand-edited file.
    """
    parts = dotted.split(".")
    table: list[str] = []
    header_re = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    key_re = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")
    best: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = header_re.match(line)
        if header:
            table = [p.strip().strip("\"'") for p in header.group(1).split(".")]
            if table == parts:
                best = number
            continue
        key = key_re.match(line)
        if key:
            full = table + [p.strip().strip("\"'") for p in key.group(1).split(".")]
            if full == parts:
                return number
            if best is None and full[: len(parts)] == parts:
                best = number
    return best


def parse_config(path: Path, text: str) -> ProjectConfig:
    """Validate project.toml text into a ProjectConfig, or raise ConfigError."""
    data = _load_toml(path, text)
    reader = _Reader(path, text)
    reader.top_level(data)
    tables: dict[str, dict[str, Any]] = {}
    kind: OperatorKind | None = None
    for section in SECTIONS:
        tables[section.name] = reader.section(data, section, kind)
        if section is OPERATOR:  # the operator's kind sets defaults of the tables after it
            kind = OperatorKind(tables[section.name]["kind"])
    reader.target_mode(data, tables)
    reader.discipline(tables["discipline"])
    return _assemble(tables)


def _load_toml(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"line (\d+)", str(error))
        line = int(match.group(1)) if match else None
        raise ConfigError(f"invalid TOML: {error}", file=path, line=line) from None
    except RecursionError:
        raise ConfigError("invalid TOML: tables or arrays nested too deeply", file=path) from None
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise ConfigError(f"invalid TOML: {error}", file=path) from None


def _assemble(tables: Mapping[str, dict[str, Any]]) -> ProjectConfig:
    operator = tables["operator"]
    tunables = {
        name: Tunable(name=name, **{**entry, "allowed": tuple(entry["allowed"])})
        for name, entry in tables["tunables"].items()
    }
    return ProjectConfig(
        operator=OperatorConfig(
            **{**operator, "kind": OperatorKind(operator["kind"]), "related": tuple(operator["related"])}
        ),
        case=CaseConfig(**tables["case"]),
        tunables=tunables,
        commands=Commands(**tables["commands"]),
        target=Target(**tables["target"]),
        costmodel=CostmodelConfig(**tables["costmodel"]),
        discipline=Discipline(**tables["discipline"]),
        phases=tuple(tables["phases"]["names"]),
        protected=tuple(tables["scope"]["protected"]),
        tolerances=tables["tolerances"],
        editable=tuple(tables["scope"]["editable"]),
        generated=tuple(tables["scope"]["generated"]),
        limits=StepLimits(**tables["limits"]),
        result=ResultConfig(**tables["result"]),
    )


def checked_table(path: Path, text: str, data: Mapping[str, Any], section: Section) -> dict[str, Any]:
    """A table of another TOML file declared with the same vocabulary (the operator's marker),
    checked as project.toml's tables are: errors name the file, line and key."""
    return _Reader(path, text).section(data, section, None)


def checked_top_level(
    path: Path, text: str, data: Mapping[str, Any], keys: tuple[Key, ...], tables: tuple[str, ...]
) -> dict[str, Any]:
    """The top-level keys of another TOML file, checked: an unknown one is refused naming
    the keys known."""
    reader = _Reader(path, text)
    known = sorted({key.name for key in keys} | set(tables))
    for name in data:
        if name not in known:
            raise reader.fail(name, f"unknown key '{name}'; known: {', '.join(known)}")
    return {key.name: reader.value(data, "", key, None) for key in keys}


class _Reader:
    """Checks parsed TOML against the declared shape; errors name file, line and key."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(message, file=self.path, line=locate_key(self.text, key), key=key)

    def top_level(self, data: Mapping[str, Any]) -> None:
        for key in data:
            if key not in TOP_LEVEL_KEYS:
                known = ", ".join(sorted(TOP_LEVEL_KEYS))
                raise self.fail(key, f"unknown top-level key '{key}'; known: {known}")
        version = data.get("schema", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise self.fail(
                "schema",
                f"unsupported schema {version!r}; this pto-tui reads schema {SCHEMA_VERSION}",
            )

    def discipline(self, discipline: Mapping[str, Any]) -> None:
        """The repeat budget is never below the minimum."""
        if discipline["max_repeats"] < discipline["repeats"]:
            raise self.fail(
                "discipline.max_repeats",
                f"max_repeats {discipline['max_repeats']} is below repeats {discipline['repeats']}: "
                "the budget of runs must be at least the minimum",
            )

    def target_mode(self, data: Mapping[str, Any], tables: dict[str, dict[str, Any]]) -> None:
        """[target] mode: its default follows the operator (a demo operator runs in the demo
        mode), it must suit the operator and its kind, and the target's absent commands are
        the kind's defaults for the mode."""
        operator, target = tables["operator"], tables["target"]
        written = data.get("target", {})
        if "mode" not in written:
            target["mode"] = DEMO_MODE if operator["demo"] else DEFAULT_MODE
        mode, kind = TargetMode(target["mode"]), OperatorKind(operator["kind"])
        if (mode is DEMO_MODE) != bool(operator["demo"]):
            message = (
                f"mode {mode.value!r} is for the built-in demo operators ([operator] demo = true)"
                if mode is DEMO_MODE
                else f"a demo operator runs in mode {DEMO_MODE.value!r}, not {mode.value!r}"
            )
            raise self.fail("target.mode", message)
        spec = project_kind(kind)
        if mode not in spec.modes:
            raise self.fail(
                "target.mode",
                f"mode {mode.value!r} ({mode_spec(mode).summary}) is not supported yet for {kind.value} "
                f"operators; use {DEFAULT_MODE.value!r}",
            )
        self.predictor(target, mode, kind)
        written_commands = data.get("commands", {})
        for key, text in command_texts(spec.commands_for(mode)).items():
            if key not in written_commands:
                tables["commands"][key] = text

    def predictor(self, target: Mapping[str, Any], mode: TargetMode, kind: OperatorKind) -> None:
        """[target] predict suits a mode whose samples are not perf_sim's own and a kind whose
        cycles perf_sim can count."""
        if not target.get("predict"):
            return
        if not mode_spec(mode).predictable:
            predictable = " and ".join(m.value for m, spec in MODES.items() if spec.predictable)
            raise self.fail(
                "target.predict",
                f"predict = {PREDICTOR!r} is for the {predictable} modes, not {mode.value!r}"
                + (" (its samples are perf_sim cycles already)" if mode_spec(mode).perf_sim else ""),
            )
        if TargetMode(PREDICTOR) not in project_kind(kind).modes:
            raise self.fail(
                "target.predict",
                f"predict = {PREDICTOR!r} is not supported yet for {kind.value} operators "
                "(pto-isa's perf_sim counts PTO-tile-lib kernels)",
            )

    def section(self, data: Mapping[str, Any], section: Section, kind: OperatorKind | None) -> dict[str, Any]:
        name = section.name
        table = data.get(name)
        if table is None:
            if section.required:
                raise ConfigError(f"missing section [{name}]", file=self.path, key=name, line=None)
            table = {}
        if not isinstance(table, dict):
            raise self.fail(name, f"'{name}' must be a table, got {type(table).__name__}")
        if section.entries is not None:
            return self.entries(table, name, section.entries)
        self.reject_unknown(table, name, section.keys, _UNKNOWN_IN_SECTION)
        return self.keys(table, name, section.keys, section.checks, kind)

    def entries(self, table: Mapping[str, Any], prefix: str, entries: Entries) -> dict[str, Any]:
        """A free-form table: each entry one value, or a table of the declared keys."""
        out: dict[str, Any] = {}
        for name, entry in table.items():
            full = f"{prefix}.{name}"
            if entries.name_pattern and not re.match(f"^{entries.name_pattern}$", name):
                raise self.fail(full, entries.bad_name.format(name=name))
            known = next((key for key in entries.known if key.name == name), None)
            key = known if known is not None else entries.value
            if key is not None:
                out[name] = self.checked(full, key, entry)
                self.in_range(full, key, out[name])
                continue
            if not isinstance(entry, dict):
                raise self.fail(full, entries.not_table)
            self.reject_unknown(entry, full, entries.keys, _UNKNOWN_IN_ENTRY)
            out[name] = self.keys(entry, full, entries.keys, entries.checks, None)
        return out

    def reject_unknown(
        self, table: Mapping[str, Any], prefix: str, keys: tuple[Key, ...], template: str
    ) -> None:
        names = {key.name for key in keys}
        for key in table:
            if key not in names:
                known = ", ".join(sorted(names))
                message = template.format(key=key, table=prefix, known=known)
                raise self.fail(f"{prefix}.{key}", message)

    def keys(
        self,
        table: Mapping[str, Any],
        prefix: str,
        keys: tuple[Key, ...],
        checks: tuple[Check, ...],
        kind: OperatorKind | None,
    ) -> dict[str, Any]:
        values = {key.name: self.value(table, prefix, key, kind) for key in keys}
        for check in checks:
            if not check.test(values):
                raise self.fail(f"{prefix}.{check.key}", check.message.format(**values))
        for key in keys:
            self.in_range(f"{prefix}.{key.name}", key, values[key.name])
        return values

    def value(self, table: Mapping[str, Any], prefix: str, key: Key, kind: OperatorKind | None) -> Any:
        """The key's value, checked, or its default when absent."""
        full = f"{prefix}.{key.name}" if prefix else key.name
        if key.name in table:
            return self.checked(full, key, table[key.name])
        if key.required:
            raise ConfigError(
                f"missing required key '{key.name}'",
                file=self.path,
                line=locate_key(self.text, prefix),
                key=full,
            )
        default = key.default_for(kind)
        if default is not None and key.type.convert is not None:
            return key.type.convert(default)
        return default

    def checked(self, full: str, key: Key, value: Any) -> Any:
        """The value after its type, choices and condition are checked (ranges come later)."""
        if not key.validated:
            return value
        if key.type.table_of_scalars:
            table = self.scalar_table(full, value)
            if key.condition is not None and not key.condition.test(table):
                raise self.fail(full, key.condition.message.format(value=table))
            return table
        if key.table:
            return self.sub_table(full, key, value)
        if isinstance(value, bool) and not key.type.accepts_bool():
            raise self.fail(full, key.error or f"expected {key.type.expected}, got a boolean")
        if not isinstance(value, key.type.accepts):
            got = type(value).__name__
            raise self.fail(full, key.error or f"expected {key.type.expected}, got {got}")
        if key.choices and value not in key.choices:
            raise self.fail(full, key.choice_error.format(value=value))
        if key.condition is not None and not key.condition.test(value):
            raise self.fail(full, key.condition.message.format(value=value))
        return key.type.convert(value) if key.type.convert is not None else value

    def sub_table(self, full: str, key: Key, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(full, f"'{full}' must be a table, got {type(value).__name__}")
        self.reject_unknown(value, full, key.table, _UNKNOWN_IN_ENTRY)
        return self.keys(value, full, key.table, (), None)

    def in_range(self, full: str, key: Key, value: Any) -> None:
        if value is None:  # an optional key left out
            return
        if key.validated and key.range is not None and not key.range.contains(value):
            raise self.fail(full, key.error or key.range.message)

    def scalar_table(self, full: str, table: Any) -> dict[str, Any]:
        if not isinstance(table, dict):
            raise self.fail(full, f"'{full}' must be a table")
        for key, value in table.items():
            if not isinstance(value, SCALAR.accepts):
                got = type(value).__name__
                raise self.fail(f"{full}.{key}", f"expected a {SCALAR.name}, got {got}")
        return dict(table)
