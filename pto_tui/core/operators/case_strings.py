"""An operator's own case string, parsed into named fields by a small declared format.

A project's `[case] spec` is the string the operator's tools take on their command line,
e.g. pto-isa's manual flash attention `./fa_performance --cases "128,128,1024,128"`. Its
fields are the workload's shape, so they give the FLOP count, the torch_npu reference's
shape and the case names the binary writes into report.csv — wherever the project has
no explicit `[case.shape]`. The string is parsed where it is used, never rewritten.

The flash-attention tile-lib format is the first one declared (docs/formats.md §3): as
pto-isa's scripts/generate_cases.py `_parse_case_entry` reads it, HEAD_SIZE,S0,S1,
CUBE_S0[,TILE_S1] (TILE_S1 256 when omitted); several cases separated by ';' (run.sh
splits on it; main.cpp too). The workload part alone (HEAD_SIZE,S0,S1) is accepted as
well: main.cpp's case filter takes it, and a project may append its tile tunables to it
in the command (`{case},{CUBE_S0},{TILE_S1}`, as demo_fa does). main.cpp also accepts the
canonical case name (`case_float_H_128_S0_128_S1_1024`) as an entry. B and N are 1: the
kernel computes one head of one batch. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pto_tui.core.errors import InputError
from pto_tui.core.project.config import CaseConfig, OperatorConfig, Scalar
from pto_tui.core.vocabulary import OperatorKind


class CaseStringError(InputError):
    """A case string that does not fit its operator's declared format."""


@dataclass(frozen=True)
class CaseField:
    name: str
    required: bool = True
    default: int | None = None  # the value the operator's tools use when the field is omitted


@dataclass(frozen=True)
class CaseFormat:
    """How one family of operators spells its cases."""

    name: str
    kind: OperatorKind
    fields: tuple[CaseField, ...]
    # which operators speak it: matched against the operator's name, family and source folder
    operators: str
    case_name: str  # how the binary names a case (report.csv `case`), from the fields
    name_pattern: str = ""  # the canonical name as an entry, with a group per field it holds
    fixed: Mapping[str, int] = field(default_factory=dict)  # shape dims the string never varies
    separator: str = ";"

    @property
    def usage(self) -> str:
        required = [f.name for f in self.fields if f.required]
        optional = [f.name for f in self.fields if not f.required]
        return ",".join(required) + "".join(f"[,{name}" for name in optional) + "]" * len(optional)

    def field_count(self) -> tuple[int, int]:
        return sum(1 for f in self.fields if f.required), len(self.fields)


FLASH_ATTENTION_TILE_LIB = CaseFormat(
    name="flash attention (PTO-tile-lib)",
    kind=OperatorKind.PTO_TILE_LIB,
    fields=(
        CaseField("HEAD_SIZE"),
        CaseField("S0"),
        CaseField("S1"),
        CaseField("CUBE_S0", required=False),
        CaseField("TILE_S1", required=False, default=256),
    ),
    operators=r"flash_?att|attention|(^|[_\-])fa([_\-]|$)",
    case_name="case_float_H_{HEAD_SIZE}_S0_{S0}_S1_{S1}",
    name_pattern=r"case_float_H_(?P<HEAD_SIZE>\d+)_S0_(?P<S0>\d+)_S1_(?P<S1>\d+)",
    fixed={"B": 1, "N": 1},
)

CASE_FORMATS: tuple[CaseFormat, ...] = (FLASH_ATTENTION_TILE_LIB,)


@dataclass(frozen=True)
class ParsedCase:
    """One entry of a case string: the fields it gave, by name."""

    text: str
    values: Mapping[str, int]
    format: CaseFormat

    @property
    def name(self) -> str:
        """The case's name as the operator's binary writes it."""
        return self.format.case_name.format(**self.values)

    @property
    def shape(self) -> dict[str, Scalar]:
        return {**self.format.fixed, **self.values}


def format_for(operator: OperatorConfig) -> CaseFormat | None:
    """The declared case format of this operator, None when none is declared for it."""
    folder = re.split(r"[\\/]", operator.source.rstrip("/\\"))[-1] if operator.source else ""
    names = [text.lower() for text in (operator.name, operator.family, folder) if text]
    for fmt in CASE_FORMATS:
        if fmt.kind is operator.kind and any(re.search(fmt.operators, text) for text in names):
            return fmt
    return None


def parse_case_string(text: str, fmt: CaseFormat) -> tuple[ParsedCase, ...]:
    """Every case of a (possibly several-case) string, in order. Empty entries between
    separators are skipped, as the operator's tools skip them; none at all is an error."""
    entries = [entry.strip() for entry in text.split(fmt.separator)]
    cases = tuple(parse_case(entry, fmt) for entry in entries if entry)
    if not cases:
        raise CaseStringError(
            f"case {text!r}: no case given; expected {fmt.usage}, several separated by '{fmt.separator}'"
        )
    return cases


def parse_case(text: str, fmt: CaseFormat) -> ParsedCase:
    """One entry: the fields in their declared order, or the binary's canonical case name."""
    entry = text.strip()
    # ASCII digits only: int() reads '١٢' as 12, the operator's binary does not
    if fmt.name_pattern and (match := re.fullmatch(fmt.name_pattern, entry, re.ASCII)):
        values = {name: _positive(entry, name, value) for name, value in match.groupdict().items()}
        return ParsedCase(entry, values, fmt)
    parts = entry.split(",")
    fewest, most = fmt.field_count()
    if not fewest <= len(parts) <= most:
        many = "many" if len(parts) > most else "few"
        raise CaseStringError(
            f"case {entry!r}: too {many} fields ({len(parts)}); expected {fewest} to {most}: {fmt.usage}"
        )
    values = {f.name: _positive(entry, f.name, part) for f, part in zip(fmt.fields, parts, strict=False)}
    return ParsedCase(entry, values, fmt)


def _positive(entry: str, name: str, text: str) -> int:
    value = text.strip()
    if not value:
        raise CaseStringError(f"case {entry!r}: field {name} is empty")
    if not re.fullmatch(r"\+?[0-9]+", value) or int(value) < 1:
        raise CaseStringError(f"case {entry!r}: field {name} must be a positive integer, got {value!r}")
    return int(value)


def case_under_tuning(cases: tuple[ParsedCase, ...], name: str) -> ParsedCase:
    """The case a campaign measures: the only one, or the one `[case] name` names."""
    if len(cases) == 1:
        return cases[0]
    named = [case for case in cases if case.name == name]
    if len(named) == 1:
        return named[0]
    listed = ", ".join(case.name for case in cases)
    if named:
        why = f"{len(named)} of them are named {name!r} (the same workload with other tiles)"
    else:
        why = f"[case] name {name!r} is none of them" if name else "[case] name is not set"
    raise CaseStringError(
        f"the case string has {len(cases)} cases ({listed}) and {why}: set [case] name to the "
        "one case under tuning, whose report.csv row is the round's sample",
        key="case.name",
    )


def parsed_cases(case: CaseConfig, operator: OperatorConfig) -> tuple[ParsedCase, ...] | None:
    """The spec's cases by the operator's format; None without a spec or a declared format."""
    fmt = format_for(operator)
    if fmt is None or not case.spec.strip():
        return None
    try:
        return parse_case_string(case.spec, fmt)
    except CaseStringError as error:
        raise CaseStringError(error.message, key="case.spec") from None


def workload_shape(case: CaseConfig, operator: OperatorConfig | None = None) -> Mapping[str, Scalar]:
    """The shape the campaign measures: `[case.shape]` when given, else the fields of the case
    under tuning in the spec string (raising when the spec does not fit its format)."""
    if case.shape or operator is None:
        return case.shape
    cases = parsed_cases(case, operator)
    if cases is None:
        return case.shape
    return case_under_tuning(cases, case.name).shape


# The names an attention case's dimensions go by: the tile-lib case string's (S0, S1,
# HEAD_SIZE), pto-kernels' variant fields (batch, heads, seq_len, head_dim), and short ones.
ATTENTION_DIMS: dict[str, tuple[str, ...]] = {
    "b": ("B", "BATCH"),
    "n": ("N", "H", "HEADS", "NUM_HEADS"),
    "sq": ("S0", "S", "SQ", "S_Q", "SEQ", "SEQ_LEN"),
    "skv": ("S1", "S", "SKV", "S_KV", "SEQ", "SEQ_LEN", "KV_SEQ_LEN"),
    "d": ("D", "HEAD_SIZE", "HEAD", "HEAD_DIM"),
}


def attention_dims(case: CaseConfig, operator: OperatorConfig | None = None) -> dict[str, int]:
    """The attention dimensions the case's shape gives (b, n, sq, skv, d), by any of their
    names; a dimension it does not give is absent."""
    shape = {str(k).upper(): v for k, v in workload_shape(case, operator).items()}
    found: dict[str, int] = {}
    for dim, names in ATTENTION_DIMS.items():
        for name in names:
            value = shape.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                found[dim] = value
                break
    return found


def case_text(case: CaseConfig, operator: OperatorConfig) -> str:
    """The case as people read it: its fields once (from the case string when [case.shape]
    is empty), its dtype; a spec that does not fit its format is shown as given."""
    try:
        shape = workload_shape(case, operator)
    except CaseStringError:
        shape = case.shape
    return case.describe(shape)
