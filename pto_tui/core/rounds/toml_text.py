"""TOML text of a plain dict, the same bytes `tomlkit.dumps` writes for it, some twenty
times faster (tomlkit builds a whole document model first, a few milliseconds per
round.toml, four times per round).

Only for files pto-tui owns wholly (round.toml is rendered from the record, never edited
in place): project.toml keeps its hand edits through tomlkit. The shapes round records
have are written here (scalars, lists of scalars, tables, arrays of tables); anything else
(a list mixing tables and values, a nested list, another type) goes to tomlkit itself, so
the text is always what tomlkit would write. tests/core/test_toml_text.py compares the two.

tomlkit's layout, as reproduced: in each table its plain values come first (in insertion
order), then its tables and arrays of tables (in insertion order), each after a blank
line unless it is the first thing in its table; a table holding only tables has no header
of its own; every element of an array of tables after the first starts after a blank line.
"""

from __future__ import annotations

import re
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_COMPACT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_ESCAPES = {chr(c): _COMPACT.get(chr(c), f"\\u{c:04x}") for c in (*range(0x20), 0x7F)}
_ESCAPES.update(_COMPACT)
_NEEDS_ESCAPE = re.compile('[\x00-\x1f\x7f"\\\\]')


class _Unsupported(Exception):
    """A value this writer does not render: tomlkit writes the whole text instead."""


def dumps(data: dict[str, Any]) -> str:
    try:
        lines: list[str] = []
        _table(data, [], lines)
        return "".join(lines)
    except _Unsupported:
        import tomlkit  # only for shapes round records do not have

        return tomlkit.dumps(data)


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES[m.group()], text) + '"'


def _key(key: str) -> str:
    if type(key) is not str:
        raise _Unsupported
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _value(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:
        return str(value)
    if kind is list or kind is tuple:
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    raise _Unsupported


def _scalar(value: Any) -> str:
    if type(value) in (list, tuple, dict):
        raise _Unsupported  # nested arrays and inline tables: tomlkit's own layout
    return _value(value)


def _is_tables(value: Any) -> bool:
    """An array of tables: a non-empty list of dicts only (a list mixing them: tomlkit)."""
    if type(value) not in (list, tuple) or not value:
        return False
    dicts = [type(v) is dict for v in value]
    if all(dicts):
        return True
    if any(dicts):
        raise _Unsupported
    return False


def _table(data: dict[str, Any], path: list[str], lines: list[str]) -> None:
    """The body of a table: its plain values, then its sub-tables and arrays of tables."""
    nested: list[tuple[int, str, Any]] = []
    last_value = -1  # insertion index of the last plain value
    for index, (key, value) in enumerate(data.items()):
        if type(value) is dict or _is_tables(value):
            nested.append((index, key, value))
        else:
            last_value = index
            lines.append(f"{_key(key)} = {_value(value)}\n")
    for order, (index, key, value) in enumerate(nested):
        inner = [*path, _key(key)]
        if type(value) is dict:
            # tomlkit: a blank line unless first in its table, also when values come later
            if index > 0 or (order == 0 and last_value > index):
                lines.append("\n")
            if not value or not all(type(v) is dict or _is_tables(v) for v in value.values()):
                lines.append(f"[{'.'.join(inner)}]\n")
            _table(value, inner, lines)
        else:
            _tables(value, inner, blank=index > 0, lines=lines)


def _tables(elements: list[dict[str, Any]], path: list[str], *, blank: bool, lines: list[str]) -> None:
    """An array of tables: the first element after a blank line when something was in
    its table before it (in insertion order), each later one when the one before it is
    not empty (tomlkit's rules; its tables come after its other keys)."""
    for index, element in enumerate(elements):
        if (blank if index == 0 else bool(elements[index - 1])):
            lines.append("\n")
        lines.append(f"[[{'.'.join(path)}]]\n")
        # tomlkit moves an element's tables after its other keys (arrays of tables too)
        moved = {k: v for k, v in element.items() if type(v) is not dict}
        moved.update((k, v) for k, v in element.items() if type(v) is dict)
        _table(moved, path, lines)
