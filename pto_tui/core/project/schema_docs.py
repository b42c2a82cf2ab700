"""The reference of project.toml's keys, generated from the declared shape.

`key_docs()` gives one row per key (for `pto-tui config keys`, as text or JSON);
`schema_markdown()` gives docs/project-toml.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, is_dataclass
from typing import Any

import tomlkit

from pto_tui.core.paths.patterns import SYNTAX
from pto_tui.core.project.commands_docs import commands_markdown
from pto_tui.core.project.schema import Key, Section
from pto_tui.core.project.sections import FILE_HEADER, SCHEMA_KEY, SECTIONS
from pto_tui.core.vocabulary import OperatorKind

DOCS_FILE = "docs/project-toml.md"
REGENERATE = f"pto-tui config docs > {DOCS_FILE}"


@dataclass(frozen=True)
class KeyDoc:
    """One key of project.toml, described for people and scripts."""

    table: str  # "" for a top-level key
    key: str  # dotted inside the table; <name> stands for a name the user chooses
    type: str
    default: str  # as TOML; "(none)" when there is none, "(per kind)" when it depends on it
    default_by_kind: Mapping[str, str]  # operator kind -> default as TOML, when it depends on it
    required: bool
    allowed: str  # choices, range or condition; "" when any value of the type will do
    help: str

    @property
    def path(self) -> str:
        return f"{self.table}.{self.key}" if self.table else self.key


def key_docs() -> list[KeyDoc]:
    """Every key of project.toml, table by table, in file order."""
    docs = [_doc("", SCHEMA_KEY.name, SCHEMA_KEY)]
    for section in SECTIONS:
        docs.extend(section_docs(section))
    return docs


def top_level_docs(keys: tuple[Key, ...]) -> list[KeyDoc]:
    """Rows for top-level keys of a file declared with this vocabulary (the operator's marker)."""
    return [_doc("", key.name, key) for key in keys]


def section_docs(section: Section) -> Iterator[KeyDoc]:
    for key in section.keys:
        yield _doc(section.name, key.name, key)
        if key.table and section.name == "target":  # [target.slurm]: keys a person writes
            for sub in key.table:
                yield _doc(section.name, f"{key.name}.{sub.name}", sub)
    entries = section.entries
    if entries is None:
        return
    if entries.value is not None:
        yield _doc(section.name, entries.value.name, entries.value)
    for key in entries.keys:
        yield _doc(section.name, f"<name>.{key.name}", key)


def _doc(table: str, name: str, key: Key) -> KeyDoc:
    return KeyDoc(
        table=table,
        key=name,
        type=key.type.name,
        default=_default_text(key),
        default_by_kind=_defaults_by_kind(key),
        required=key.required,
        allowed=_allowed_text(key),
        help=key.help,
    )


def _default_text(key: Key) -> str:
    if key.required:
        return "(none)"
    if key.default_by_kind is not None:
        return "(per kind)"
    return _toml(key.default)


def _defaults_by_kind(key: Key) -> dict[str, str]:
    if key.default_by_kind is None:
        return {}
    return {kind.value: _toml(key.default_by_kind(kind)) for kind in OperatorKind}


def _toml(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, dict) or is_dataclass(value):
        return "{}"  # a table's default: empty (a sub-table's keys have their own)
    if isinstance(value, tuple):
        value = list(value)
    return str(tomlkit.item(value).as_string())


def _allowed_text(key: Key) -> str:
    parts = []
    if key.choices:
        parts.append("one of: " + ", ".join(key.choices))
    if key.range is not None:
        parts.append(key.range.describe())
    if key.condition is not None:
        parts.append(key.condition.describe)
    return "; ".join(parts)


def schema_markdown() -> str:
    """docs/project-toml.md: every table and key of project.toml."""
    lines = [
        "# project.toml",
        "",
        f"<!-- Generated from pto_tui/core/project/sections.py; regenerate with: {REGENERATE} -->",
        "",
        *(" ".join(FILE_HEADER),),
        "",
        "Top level:",
        "",
        *key_table([d for d in key_docs() if not d.table]),
    ]
    for section in SECTIONS:
        lines += ["", f"## [{section.name}]", "", section.help]
        if section.required:
            lines += ["", "This table is required."]
        if section.entries is not None:
            lines += ["", f"Free-form: each entry is named by a {section.entries.what}."]
        lines += ["", *key_table([d for d in key_docs() if d.table == section.name])]
    lines += ["", "## Path patterns", "", *SYNTAX]
    lines += ["", *commands_markdown()]
    return "\n".join(lines) + "\n"


def key_table(docs: list[KeyDoc]) -> list[str]:
    rows = ["| key | type | default | required | allowed | help |", "| --- | --- | --- | --- | --- | --- |"]
    for d in docs:
        cells = (f"`{d.key}`", d.type, _default_cell(d), "yes" if d.required else "", d.allowed, d.help)
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return rows


def _default_cell(doc: KeyDoc) -> str:
    if doc.default_by_kind:
        return "<br>".join(f"{kind}: `{value}`" for kind, value in doc.default_by_kind.items())
    return doc.default if doc.default == "(none)" else f"`{doc.default}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
