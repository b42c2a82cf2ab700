"""Writing a fresh project.toml: commented so a person can edit it by hand.

Which tables and keys are written, in what order and with what comments, comes from
the declared shape in `sections.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

import tomlkit
from tomlkit.items import InlineTable, Table

from pto_tui.core.project.config import (
    SCHEMA_VERSION,
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    ResultConfig,
    Target,
    Tunable,
)
from pto_tui.core.project.schema import Key, Section, Written
from pto_tui.core.project.sections import (
    CASE,
    COMMANDS,
    COSTMODEL,
    DECLARED_COMMANDS,
    EFFECTIVE_COMMANDS,
    FILE_HEADER,
    OPERATOR,
    SCHEMA_KEY,
    TUNABLE_KEYS,
    TUNABLES,
)
from pto_tui.core.project.sections_campaign import DISCIPLINE, LIMITS, PHASES, SCOPE, TOLERANCES
from pto_tui.core.project.sections_result import RESULT
from pto_tui.core.project.sections_target import TARGET


def new_project_document(
    operator: OperatorConfig,
    case: CaseConfig,
    tunables: list[Tunable],
    target: Target,
    costmodel: CostmodelConfig,
    commands: Mapping[str, str] | None = None,
    *,
    origins: Mapping[str, str] | None = None,
    scope: Mapping[str, list[str]] | None = None,
    tolerances: Mapping[str, float] | None = None,
    tolerances_from: str = "",
    result: ResultConfig | None = None,
) -> str:
    """The text of a fresh project.toml, commented so a person can edit it by hand.

    `origins` says where each command came from (a comment above it); `scope` is written
    as the [scope] table when given; `tolerances` (read from `tolerances_from`, the bench
    spec) as [tolerances]."""
    doc = tomlkit.document()
    for line in FILE_HEADER:
        doc.add(tomlkit.comment(line))
    doc.add(SCHEMA_KEY.name, SCHEMA_VERSION)
    doc.add(OPERATOR.name, _table(OPERATOR, _record(operator)))
    doc.add(CASE.name, _table(CASE, _record(case)))
    doc.add(TUNABLES.name, _tunables(tunables))
    if commands:
        doc.add(COMMANDS.name, _commands(commands, origins or {}))
    if result is not None and result.format:
        doc.add(RESULT.name, _table(RESULT, _record(result)))
    doc.add(TARGET.name, _table(TARGET, _record(target)))
    doc.add(COSTMODEL.name, _table(COSTMODEL, _record(costmodel)))
    doc.add(DISCIPLINE.name, _table(DISCIPLINE, _defaults(DISCIPLINE)))
    doc.add(LIMITS.name, _table(LIMITS, _defaults(LIMITS)))
    doc.add(PHASES.name, _table(PHASES, _defaults(PHASES)))
    if scope:
        table = tomlkit.table()
        table.add(tomlkit.comment(SCOPE.help))
        for key, patterns in scope.items():
            table.add(key, list(patterns))
        doc.add(SCOPE.name, table)
    if tolerances:
        doc.add(TOLERANCES.name, _tolerances(tolerances, tolerances_from))
    return tomlkit.dumps(doc)


def _tolerances(tolerances: Mapping[str, float], origin: str) -> Table:
    table = tomlkit.table()
    table.add(tomlkit.comment(TOLERANCES.help))
    if origin:
        table.add(tomlkit.comment(f"from {origin}, by which the benchmark judges correctness"))
    for key, value in tolerances.items():
        table.add(key, value)
    return table


def _commands(commands: Mapping[str, str], origins: Mapping[str, str]) -> Table:
    """[commands], each command under a comment naming where it came from."""
    table = tomlkit.table()
    table.add(tomlkit.comment(EFFECTIVE_COMMANDS if origins else DECLARED_COMMANDS))
    for key, value in commands.items():
        if key in origins:
            table.add(tomlkit.comment(f"{key}: from {origins[key]}"))
        table.add(key, value)
    return table


def _record(record: Any) -> dict[str, Any]:
    return {f.name: getattr(record, f.name) for f in fields(record)}


def _defaults(section: Section) -> dict[str, Any]:
    return {key.name: key.default for key in section.keys}


def _written(key: Key, value: Any) -> bool:
    if key.written is Written.IF_SET:
        return bool(value != key.default)
    return key.written is Written.ALWAYS


def _table(section: Section, values: Mapping[str, Any]) -> Table:
    table = tomlkit.table()
    if section.commented:
        table.add(tomlkit.comment(section.help))
    keys = [key for key in section.keys if _written(key, values[key.name])]
    # TOML needs a table's plain keys before its sub-tables (sorted() keeps the order)
    for key in sorted(keys, key=lambda k: k.type.table_of_scalars or bool(k.table)):
        table.add(key.name, _toml_value(values[key.name]))
    return table


def _tunables(tunables: list[Tunable]) -> Table:
    table = tomlkit.table()
    table.add(tomlkit.comment(TUNABLES.help))
    for tunable in tunables:
        entry: InlineTable = tomlkit.inline_table()
        for key in TUNABLE_KEYS:
            value = getattr(tunable, key.name)
            if _written(key, value):
                entry.add(key.name, _toml_value(value))
        table.add(tunable.name, entry)
    return table


def _toml_value(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):  # a sub-table record: its set keys
        defaults = type(value)()
        value = {f.name: getattr(value, f.name) for f in fields(value)
                 if getattr(value, f.name) != getattr(defaults, f.name)}
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        table = tomlkit.table()
        for key, item in value.items():
            table.add(key, _toml_value(item))
        return table
    return value
