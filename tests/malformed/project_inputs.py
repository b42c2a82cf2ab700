"""Malformed project.toml files, derived from the declared schema and a real project.

Every input here must be refused: a value of the wrong type, outside its range or not
one of its choices, a file cut short before a table the campaign needs, a file nested
too deeply, a number of thousands of digits, bytes that are not UTF-8.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import tomlkit

from pto_tui.core.project.layout import MAX_ROUND
from pto_tui.core.project.schema import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    SCALAR_TABLE,
    STRING,
    STRINGS,
    Key,
)
from pto_tui.core.project.sections import SECTIONS

# TOML literals that are not a value of each type.
WRONG_FOR: dict[str, tuple[str, ...]] = {
    STRING.name: ("1", "1.5", "true", "[1]", "{ a = 1 }", "2024-01-01"),
    INTEGER.name: ('"x"', "1.5", "true", "[1]", "{ a = 1 }", "nan", "inf"),
    NUMBER.name: ('"x"', "true", "[1]", "{ a = 1 }", "2024-01-01"),
    BOOLEAN.name: ('"x"', "1", "1.5", "[true]"),
    STRINGS.name: ('"x"', "1", "[1]", '[true, "a"]', "{ a = 1 }"),
    SCALAR_TABLE.name: ('"x"', "1", "[1]", "{ a = [1] }", "{ a = { b = 1 } }"),
}


@dataclass(frozen=True)
class Mutation:
    """One key set to one bad value; the error must name `key`."""

    key: str  # dotted
    literal: str

    def apply(self, text: str) -> str:
        document = tomlkit.parse(text)
        table = document
        *tables, name = self.key.split(".")
        for part in tables:
            if part not in table:
                table[part] = tomlkit.table()
            table = table[part]
        table[name] = tomlkit.parse(f"v = {self.literal}")["v"]
        return tomlkit.dumps(document)


def _out_of_range(key: Key) -> list[str]:
    if key.range is None:
        return []
    out = []
    if key.range.low is not None:
        out.append(repr(key.range.low - 1 if key.type is INTEGER else key.range.low - 0.5))
    if key.range.high is not None:
        out.append(repr(int(key.range.high) + 1 if key.type is INTEGER else key.range.high * 2))
    return out


def _bad_values(key: Key) -> list[str]:
    values = list(WRONG_FOR.get(key.type.name, ()))
    if key.choices:
        values.append('"no-such-choice"')
    if key.condition is not None and key.type is STRING:
        if key.condition.describe == "a regular expression":
            values += ['"(unclosed"', '"[a-"']  # "../x" is a valid pattern
        else:
            values += ['""', '"   "'] if key.name in ("build", "benchmark") else ['"../x"']
    if key.condition is not None and key.condition.describe == "path patterns":
        values += ['["ok.h", "!"]', '["kernel\\\\"]']  # not path patterns: a lone '!', a trailing '\\'
    if key.name == "shape":
        values += ['{ S1 = "x" }', "{ S1 = -1 }", "{ S1 = 0 }", "{ S1 = nan }", "{ S1 = inf }"]
        values += ["{ S1 = true }", "{ S1 = 2.5 }", "{ S1 = 4294967296 }"]
    return values + _out_of_range(key)


def schema_mutations() -> Iterator[Mutation]:
    """Every validated key of every fixed table, with each value it must refuse."""
    for section in SECTIONS:
        for key in section.keys:
            if key.validated:
                for literal in _bad_values(key):
                    yield Mutation(f"{section.name}.{key.name}", literal)


def tunable_mutations(tunable: str) -> Iterator[Mutation]:
    prefix = f"tunables.{tunable}"
    for literal in ("[1]", "{ a = 1 }"):
        yield Mutation(f"{prefix}.value", literal)
    for literal in ('"no-such-kind"', "1", "true"):
        yield Mutation(f"{prefix}.kind", literal)
    for literal in ('"x"', "1"):
        yield Mutation(f"{prefix}.allowed", literal)
    yield Mutation(f"{prefix}.where", "1")
    yield Mutation(f"{prefix}.unknown_key", "1")
    yield Mutation("tunables.bad-name", "{ value = 1 }")
    yield Mutation("tunables.no_value", '{ kind = "env" }')
    yield Mutation("tunables.not_a_table", "1")


def state_mutations() -> Iterator[Mutation]:
    # one past the highest round number (a campaign may pass 9,999 rounds)
    for literal in (*WRONG_FOR[INTEGER.name], "-1", str(MAX_ROUND + 1), "9223372036854775807"):
        yield Mutation("state.last_round", literal)
    for literal in ('"x"', "1", "[1]"):
        yield Mutation("state.torch_baseline", literal)
    for name in ("avg_us", "min_us", "max_us"):
        for literal in ('"x"', "true", "[1]", "-1.0", "1e13", "nan", "inf"):
            yield Mutation(f"state.torch_baseline.{name}", literal)
    for name, literal in (("tflops", '"x"'), ("tflops", "-1"), ("label", "1"), ("runs", "1.5")):
        yield Mutation(f"state.torch_baseline.{name}", literal)
    yield Mutation("state.torch_baseline.unknown_key", "1")
    for literal in ("1", '"x"', "[1]"):
        yield Mutation("discipline", literal)


def deeply_nested(depth: int) -> list[str]:
    return [
        "a = " + "[" * depth + "]" * depth,
        "a = " + "{ b = " * depth + "1" + " }" * depth,
        "[operator]\nname = " + "[" * depth + "]" * depth,
    ]


def huge_numbers() -> list[str]:
    digits = "9" * 5000
    return [f"schema = {digits}", f"[discipline]\nrepeats = {digits}", f"[state]\nlast_round = {digits}"]
