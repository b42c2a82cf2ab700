"""The shape of an operator's marker, pto-operator.toml, declared with project.toml's
vocabulary (core/project/schema.py) and checked by the same reader: a key the marker does
not know, or a value of the wrong type, is refused naming the file, the line and the key.
docs/pto-operator-toml.md is generated from it (marker_docs.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from pto_tui.core.errors import ConfigError
from pto_tui.core.project.config import valid_operator_name
from pto_tui.core.project.parse import checked_table, checked_top_level
from pto_tui.core.project.schema import (
    ANY,
    BOOLEAN,
    LIST,
    SCALAR,
    SCALAR_TABLE,
    STRING,
    STRINGS,
    Condition,
    Entries,
    Key,
    Section,
)
from pto_tui.core.project.sections import TUNABLE_KINDS
from pto_tui.core.project.sections_result import RESULT
from pto_tui.core.vocabulary import OperatorKind

COMMAND_KEYS = ("build", "correctness", "benchmark", "reference", "results")
OPERATOR_KINDS = tuple(kind.value for kind in OperatorKind)


def _relative_paths(value: list[Any]) -> bool:
    """Paths relative to a folder, never absolute (a `..` is allowed: a repository above)."""
    return all(isinstance(p, str) and p.strip() and not PurePosixPath(p).is_absolute() for p in value)


def _inside(value: str) -> bool:
    path = PurePosixPath(value)
    return bool(value.strip()) and not path.is_absolute() and ".." not in path.parts


def _above(value: str) -> bool:
    """`..`, `../..`: the repository root is a folder holding the operator's."""
    return bool(re.fullmatch(r"\.\.(/\.\.)*/?", value.strip()))


TOP_KEYS = (
    Key("kind", STRING, "the operator's kind; without it the folder is listed as unclear", None,
        choices=OPERATOR_KINDS,
        choice_error="unknown kind {value!r}; expected " + " or ".join(OPERATOR_KINDS)),
    Key("name", STRING, "the operator's name (default: the folder's)", None,
        condition=Condition(valid_operator_name, "invalid operator name {value!r}", "one folder name")),
    Key("description", STRING, "a line about the operator", ""),
    Key("demo", BOOLEAN, "a built-in CPU demo operator (runs in mode demo)", False),
    Key("perf_sim_driver", STRING, "a hand-written perf_sim driver, a C++ file inside the operator "
        "folder, for an operator whose driver pto-tui cannot derive (perf-sim targets); it runs the "
        "kernel under LAUNCH_KERNEL once", "",
        condition=Condition(lambda v: not v or _inside(v),
                  "{value!r} must lie inside the operator folder (a relative path, no '..')",
                  "a path inside the folder")),
    Key("sources", STRINGS, "the operator's own files in its folder (glob patterns): knobs are "
        "looked for only there, and a round may edit only them (a folder holding many kernels, "
        "as huawei-csl's csrc/kernel); empty: every file", (),
        condition=Condition(lambda v: all(isinstance(p, str) and _inside(p) for p in v),
                  "sources must be patterns inside the operator folder", "patterns inside the folder")),
    Key("generated", STRINGS, "the files its own build writes into its folder (glob patterns), e.g. "
        "a compile.sh writing its IR and generated C++ beside the sources: never part of a round's "
        "changes ([scope] generated)", (),
        condition=Condition(lambda v: all(isinstance(p, str) and _inside(p) for p in v),
                  "generated must be patterns inside the operator folder", "patterns inside the folder")),
)

CASE_KEYS = (
    Key("name", STRING, "the case's name", required=True),
    Key("spec", STRING, "the operator's case string", ""),
    Key("shape", SCALAR_TABLE, "the shape fields, e.g. {B = 1, S = 512}", {}),
    Key("dtype", STRING, "the data type", ""),
    Key("causal", BOOLEAN, "causal mask on", False),
)
CASES = Section("cases", "The cases the operator offers (an array of tables, `[[cases]]`); "
                "`new --case NAME` chooses one.", keys=CASE_KEYS)

COMMANDS = Section(
    "commands",
    "Its own commands, run from the operator folder; {placeholders} as in project.toml "
    "(`pto-tui config commands`). They win over the kind's defaults.",
    keys=tuple(Key(name, STRING, f"the {name} command", None) for name in COMMAND_KEYS),
)

TUNABLES = Section(
    "tunables",
    "Declared tunables, `[tunables.NAME]`; they win over the ones found in the source.",
    entries=Entries(
        "parameter name (letters, digits, _)",
        keys=(
            Key("value", SCALAR, "its value now", required=True),
            Key("kind", STRING, "how it reaches the build", "env", choices=TUNABLE_KINDS,
                choice_error="unknown kind {value!r}; expected one of " + ", ".join(TUNABLE_KINDS)),
            Key("default", SCALAR, "the value in the source", None),
            Key("allowed", LIST, "the values it may take; empty: any", ()),
            Key("where", STRING, "where it is set, for people", ""),
        ),
        name_pattern=r"[A-Za-z_][A-Za-z0-9_]*",
        bad_name="invalid parameter name {name!r}",
        not_table="a tunable must be a table with at least 'value'",
    ),
)

COSTMODEL = Section(
    "costmodel",
    "What one step of the kernel runs, for `suggest` (README, \"Telling `suggest` what a step "
    "runs\"); read when `suggest` runs.",
    keys=(
        Key("queries", LIST, "costmodel query lines (or tables {query, repeat}), each a PTO "
            "instruction", None, validated=False),
        Key("work", STRING, "units of work one step does, e.g. \"{ROWS}*{COLS}\"", "1", validated=False),
        Key("constants", SCALAR_TABLE, "names the templates use that are not knobs or case fields", {},
            validated=False),
        Key("overlap", ANY, "whether cube and vector run in parallel (true)", True, validated=False),
    ),
)

REPOSITORY = Section(
    "repository",
    "An operator built by its repository's own build (huawei-csl's csrc/kernel, built by the "
    "root CMakeLists.txt into a Python extension): the repository root and what the build "
    "needs of it, copied into the workspace at their paths as pto-isa's reached folders are; "
    "commands still run from the operator folder (`cd ../.. && ...`).",
    keys=(
        Key("root", STRING, "the repository root, relative to the operator folder (\"..\", \"../..\")",
            required=True, condition=Condition(_above, "{value!r} must be a folder above the operator's "
                                     "(\"..\", \"../..\")", "\"..\", \"../..\", ...")),
        Key("needs", STRINGS, "the files and folders the build needs, relative to the root "
            "(e.g. \"CMakeLists.txt\", \"csrc/host\", \"python\", \"tests\")", (),
            condition=Condition(_relative_paths, "needs must list paths relative to the root",
                                "relative paths")),
    ),
)

TABLES = (CASES, COMMANDS, TUNABLES, COSTMODEL, RESULT, REPOSITORY)


def check_marker(path: Path, text: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The marker's values, every key checked: top-level keys and each table (each case of
    `[[cases]]`). Raises ConfigError naming the file, line and key."""
    checked = checked_top_level(path, text, data, TOP_KEYS, tuple(t.name for t in TABLES))
    for section in TABLES:
        if section is CASES:
            raw = data.get("cases", [])
            if not isinstance(raw, list):
                raise ConfigError("'cases' must be an array of tables ([[cases]])", file=path, key="cases")
            checked["cases"] = [checked_table(path, text, {"cases": item}, CASES) for item in raw]
        elif section.name in data:
            checked[section.name] = checked_table(path, text, data, section)
    return checked
