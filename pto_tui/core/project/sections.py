"""The shape of project.toml, declared once: every table and key, with type, default and help.

Tables are listed in the order they are read and written. Defaults come from the
dataclasses in `config.py`, so a record and its key cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pto_tui.core.project.config import (
    SCHEMA_VERSION,
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    default_commands,
    valid_operator_name,
)
from pto_tui.core.project.schema import (
    BOOLEAN,
    INTEGER,
    LIST,
    SCALAR,
    SCALAR_TABLE,
    STRING,
    STRINGS,
    Check,
    Condition,
    Entries,
    Key,
    Section,
    Written,
)
from pto_tui.core.project.sections_campaign import DISCIPLINE, LIMITS, PHASES, SCOPE, STATE, TOLERANCES
from pto_tui.core.project.sections_result import RESULT
from pto_tui.core.project.sections_target import TARGET
from pto_tui.core.vocabulary import OperatorKind

# The comment lines at the top of a fresh project.toml; the reference opens with them too.
FILE_HEADER = (
    "pto-tui project file. Edit freely: comments and key order are kept.",
    "Commands default per operator kind; set [commands] keys to override.",
)
# The comment above [commands] in a fresh file, when the operator declared its commands.
DECLARED_COMMANDS = "Declared by the operator; {placeholders} are filled in shell-quoted."
# The comment above [commands] in a fresh file that lists every effective command.
EFFECTIVE_COMMANDS = (
    "The commands this project runs; each comment says where it came from (kind default, "
    "repository, operator marker, user). {placeholders} are filled in shell-quoted."
)

SCHEMA_KEY = Key(
    "schema", INTEGER, f"the file format version; this pto-tui reads {SCHEMA_VERSION}", SCHEMA_VERSION
)

OPERATOR_KINDS = tuple(kind.value for kind in OperatorKind)
TUNABLE_KINDS = ("env", "constexpr", "template", "case")


def _command_default(name: str) -> Callable[[OperatorKind], str]:
    def default(kind: OperatorKind) -> str:
        return str(getattr(default_commands(kind), name))

    return default


def _value_is_allowed(entry: Mapping[str, Any]) -> bool:
    return not entry["allowed"] or entry["value"] in entry["allowed"]


# A dimension beyond this is no shape a kernel runs (and FLOPs from it overflow nothing useful).
MAX_DIMENSION = 2**31


def _positive_dimensions(shape: Mapping[str, Any]) -> bool:
    return all(
        isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_DIMENSION for v in shape.values()
    )


# Commands a round cannot do without: an empty one would "pass" by doing nothing.
REQUIRED_COMMANDS = ("build", "benchmark")


def _not_blank(command: str) -> bool:
    return bool(command.strip())


def _command_key(name: str, text: str) -> Key:
    condition = None
    if name in REQUIRED_COMMANDS:
        condition = Condition(_not_blank, f"the {name} command is empty; a round needs one", "not empty")
    return Key(name, STRING, text, default_by_kind=_command_default(name), condition=condition)


OPERATOR = Section(
    "operator",
    "The operator under optimisation.",
    keys=(
        Key(
            "name",
            STRING,
            "the operator's name: one folder name inside projects/",
            required=True,
            condition=Condition(
                valid_operator_name,
                "invalid operator name {value!r} (letters, digits, _ . - only)",
                "letters, digits, _ . - (one path component)",
            ),
        ),
        Key(
            "kind",
            STRING,
            "which PTO flavour the operator is written in",
            required=True,
            choices=OPERATOR_KINDS,
            choice_error="unknown kind {value!r}; expected one of: " + ", ".join(OPERATOR_KINDS),
        ),
        Key("source", STRING, "where the operator was copied from", OperatorConfig.source),
        Key(
            "entry",
            STRING,
            "entry point: kernel spec path (DSL) or entry template (tile-lib)",
            OperatorConfig.entry,
            written=Written.IF_SET,
        ),
        Key(
            "family",
            STRING,
            "pto-kernels bench family (DSL runner specs)",
            OperatorConfig.family,
            written=Written.IF_SET,
        ),
        Key(
            "demo",
            BOOLEAN,
            "a CPU demo operator, not PTO code",
            OperatorConfig.demo,
            written=Written.IF_SET,
        ),
        Key(
            "repository",
            STRING,
            "the repository the operator lives in (its root); the workspace holds a copy: the "
            "whole repository (PTO-DSL, commands run from its root) or the folders its CMake "
            "reaches (PTO-tile-lib, commands run from the operator folder)",
            OperatorConfig.repository,
            written=Written.IF_SET,
        ),
        Key(
            "path",
            STRING,
            "the operator folder inside the repository, e.g. python/pto_kernels/ops/<family>/<op>",
            OperatorConfig.path,
            written=Written.IF_SET,
        ),
        Key(
            "pythonpath",
            STRING,
            "folder of the repository put on PYTHONPATH for every command, e.g. python",
            OperatorConfig.pythonpath,
            written=Written.IF_SET,
        ),
        Key(
            "related",
            STRINGS,
            "further files a round may edit besides the operator folder (e.g. shared common.py), "
            "relative to the repository root",
            OperatorConfig.related,
            condition=Condition(
                lambda v: all(isinstance(p, str) and p for p in v), "related must list paths", "paths"
            ),
            written=Written.IF_SET,
        ),
    ),
    required=True,
)

CASE = Section(
    "case",
    "The workload. Fixed for the campaign: changing it invalidates comparisons.",
    keys=(
        Key("name", STRING, "a label for the case", CaseConfig.name, written=Written.IF_SET),
        Key(
            "shape",
            SCALAR_TABLE,
            "the problem's dimensions, e.g. S1 = 1024",
            {},
            condition=Condition(
                _positive_dimensions,
                f"every dimension must be a whole number 1 to {MAX_DIMENSION}, got {{value}}",
                f"whole numbers 1 to {MAX_DIMENSION}",
            ),
        ),
        Key("dtype", STRING, "element type", CaseConfig.dtype),
        Key("causal", BOOLEAN, "causal masking", CaseConfig.causal),
        Key(
            "spec",
            STRING,
            'the operator\'s own case string, e.g. "128,128,1024,128"',
            CaseConfig.spec,
            written=Written.IF_SET,
        ),
        Key("options", SCALAR_TABLE, "further case fields", {}, written=Written.IF_SET),
        Key(
            "knobs",
            SCALAR_TABLE,
            "shape knobs: env knobs that set the workload (the adapter derives them from the "
            "variant); part of the workload fingerprint, never tunables",
            {},
            written=Written.IF_SET,
        ),
    ),
    commented=True,
)

TUNABLE_KEYS = (
    Key("value", SCALAR, "the value rounds build and run with", required=True),
    Key(
        "kind",
        STRING,
        "env knob, constexpr, template argument or case field",
        "env",
        choices=TUNABLE_KINDS,
        choice_error="unknown kind {value!r}; expected one of " + str(sorted(TUNABLE_KINDS)),
    ),
    Key("default", SCALAR, "the value found in the source", None, written=Written.IF_SET),
    Key("allowed", LIST, "the values it may take; empty: any", (), written=Written.IF_SET),
    Key("where", STRING, "file:line it was found at", "", written=Written.IF_SET),
)

TUNABLES = Section(
    "tunables",
    "Tunable parameters found in the source: current value, allowed values.",
    entries=Entries(
        "parameter name (letters, digits, _)",
        keys=TUNABLE_KEYS,
        checks=(Check("value", _value_is_allowed, "{value!r} is not one of the allowed values {allowed}"),),
        name_pattern=r"[A-Za-z_][A-Za-z0-9_]*",
        bad_name="invalid parameter name {name!r}",
        not_table="a tunable must be a table with at least 'value'",
    ),
    commented=True,
)

_COMMAND_HELP = {
    "build": "builds the operator",
    "correctness": "checks results; empty: read from the benchmark's own output",
    "benchmark": "runs the benchmark",
    "reference": "torch_npu (or CPU stand-in) reference benchmark",
    "results": "where results appear, relative to where commands run (the operator folder, or "
    "the repository root): the runner's results folder (DSL: the newest report.json written by "
    "this run) or the tile-lib report.csv",
}

COMMANDS = Section(
    "commands",
    "Shell command templates; {placeholders} are filled in shell-quoted.",
    keys=tuple(_command_key(name, text) for name, text in _COMMAND_HELP.items()),
)

COSTMODEL = Section(
    "costmodel",
    "The cost model: predicted cycles of PTO instructions.",
    keys=(
        Key("enabled", BOOLEAN, "use the cost model", CostmodelConfig.enabled),
        Key(
            "engine",
            STRING,
            "the built-in model, or an external tool",
            CostmodelConfig.engine,
            choices=("builtin", "external"),
            choice_error="unknown engine {value!r}; expected builtin or external",
        ),
        Key("pto_isa", STRING, "path to a pto-isa checkout (builtin engine)", CostmodelConfig.pto_isa),
        Key("tool", STRING, "path to query_pto_cycles.py (external engine)", CostmodelConfig.tool),
        Key("compiler", STRING, "the C++ compiler the model builds with", CostmodelConfig.compiler),
        Key(
            "on_target",
            BOOLEAN,
            "run the external tool on the target instead of locally",
            CostmodelConfig.on_target,
            written=Written.NEVER,
        ),
    ),
)

SECTIONS: tuple[Section, ...] = (
    OPERATOR, CASE, TUNABLES, COMMANDS, RESULT, TARGET, COSTMODEL, DISCIPLINE, LIMITS, PHASES, SCOPE,
    TOLERANCES, STATE,
)
TOP_LEVEL_KEYS = frozenset({SCHEMA_KEY.name, *(s.name for s in SECTIONS)})
