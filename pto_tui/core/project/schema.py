"""The vocabulary for declaring project.toml's shape: value types, keys, tables, checks.

The declaration itself is in `sections.py`; parsing (`parse.py`), the fresh file
(`writer.py`) and the key reference (`schema_docs.py`) all read it from there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pto_tui.core.vocabulary import OperatorKind

# Words for Python types in "expected ..., got ..." messages.
_ARTICLES: dict[type, str] = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "a boolean",
    list: "a list",
}


@dataclass(frozen=True)
class ValueType:
    """What a key's value may be: the TOML types it accepts and how it is stored."""

    name: str  # for the docs, e.g. "integer", "list of strings"
    accepts: tuple[type, ...]
    convert: Callable[[Any], Any] | None = None  # applied to the value read (or the default)
    table_of_scalars: bool = False  # a table whose values are numbers, strings or booleans

    @property
    def expected(self) -> str:
        return " or ".join(_ARTICLES.get(t, t.__name__) for t in self.accepts)

    def accepts_bool(self) -> bool:
        # bool is an int in Python; it is accepted only where a boolean is meant
        return bool in self.accepts


STRING = ValueType("string", (str,))
INTEGER = ValueType("integer", (int,))
NUMBER = ValueType("number", (int, float), convert=float)
BOOLEAN = ValueType("boolean", (bool,))
SCALAR = ValueType("number, string or boolean", (int, float, str, bool))
LIST = ValueType("list", (list,))
STRINGS = ValueType("list of strings", (list,))
SCALAR_TABLE = ValueType("table of numbers, strings or booleans", (dict,), dict, True)
TABLE = ValueType("table", (dict,))  # a sub-table of declared keys (Key.table)
ANY = ValueType("any TOML value", (object,))


class Written(Enum):
    """How a fresh project.toml (writer.py) writes a key."""

    ALWAYS = "always"
    IF_SET = "if it differs from the default"
    NEVER = "never"


@dataclass(frozen=True)
class Range:
    """Bounds of a number; `message` is the error when a value falls outside."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False  # True: low itself is outside
    high_open: bool = True  # True: high itself is outside
    message: str = ""

    def contains(self, value: float) -> bool:
        # written as "inside" tests so that NaN is outside every range; an infinite value
        # is no bound at all (an `inf` limit switches a rule off), so it is outside too
        if isinstance(value, float) and math.isinf(value):
            return False
        if self.low is not None and not (value > self.low if self.low_open else value >= self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def describe(self) -> str:
        """E.g. ">= 1", "> 0", "0 <= value < 1"."""
        low = "" if self.low is None else f"{self.low:g} {'<' if self.low_open else '<='} "
        if self.high is None:
            return f"{'>' if self.low_open else '>='} {self.low:g}" if self.low is not None else ""
        return f"{low}value {'<' if self.high_open else '<='} {self.high:g}"


@dataclass(frozen=True)
class Condition:
    """A condition on one value beyond its type; `message` may use {value!r}."""

    test: Callable[[Any], bool]
    message: str
    describe: str  # for the docs


@dataclass(frozen=True)
class Check:
    """A condition across the keys of one table, reported at `key`; `message` may use
    {name} placeholders for the table's values."""

    key: str
    test: Callable[[Mapping[str, Any]], bool]
    message: str


@dataclass(frozen=True)
class Key:
    """One key of a table: its type, default, allowed values and a one-line help."""

    name: str
    type: ValueType
    help: str
    default: Any = None
    default_by_kind: Callable[[OperatorKind], Any] | None = None  # overrides `default`
    required: bool = False
    choices: tuple[str, ...] = ()
    choice_error: str = ""  # the error for a value not in choices; may use {value!r}
    condition: Condition | None = None
    range: Range | None = None  # checked once the whole table is read
    error: str = ""  # one error for any bad value (type or range), when set
    validated: bool = True  # False: listed for the docs, read elsewhere as it comes
    table: tuple[Key, ...] = ()  # the keys of a sub-table value (type TABLE)
    written: Written = Written.ALWAYS

    def default_for(self, kind: OperatorKind | None) -> Any:
        if self.default_by_kind is not None and kind is not None:
            return self.default_by_kind(kind)
        return self.default


@dataclass(frozen=True)
class Entries:
    """The entries of a free-form table: names chosen by the user, one shape for all.

    Either each entry is one value (`value`), or a table of `keys`.
    """

    what: str  # what an entry's name is, for the docs
    value: Key | None = None
    keys: tuple[Key, ...] = ()
    checks: tuple[Check, ...] = ()
    known: tuple[Key, ...] = ()  # entries whose value is declared (checked when present)
    name_pattern: str = ""  # a regular expression the whole name must match
    bad_name: str = ""  # error for a name that does not match; may use {name!r}
    not_table: str = ""  # error for an entry that is not a table (keyed entries)


@dataclass(frozen=True)
class Section:
    """One [table] of project.toml: fixed keys, or free-form entries."""

    name: str
    help: str
    keys: tuple[Key, ...] = ()
    entries: Entries | None = None
    checks: tuple[Check, ...] = ()  # run after the keys are read, before ranges
    required: bool = False
    commented: bool = False  # a fresh project.toml carries `help` as a comment above the table

    def key(self, name: str) -> Key:
        for key in self.keys:
            if key.name == name:
                return key
        raise KeyError(f"[{self.name}] has no key {name!r}")
