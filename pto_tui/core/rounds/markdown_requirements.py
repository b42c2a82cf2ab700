"""What a hand-written TASK_REQUIREMENTS.md (and ITERATIONS.md's preamble) says of the
project (docs/formats.md §13): the operator's name, the case, and the tunable parameters,
as a table (name | default | values) or as bullets ("- NAME: default 16, one of 8, 16,
32"), in English or Chinese. Each value keeps its line, for the import's report."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import read_regular_bytes
from pto_tui.core.project.config import CaseConfig, Scalar, Tunable, parse_scalar, valid_operator_name
from pto_tui.core.project.sections import MAX_DIMENSION
from pto_tui.core.rounds.markdown_labels import normal
from pto_tui.core.rounds.markdown_read import cells

_SHAPE = re.compile(r"([A-Za-z_]+)\s*=\s*([0-9]+(?:\s*,\s*[0-9]+)*)")
_DTYPE = re.compile(r"\b(bfloat16|float16|float32|fp16|bf16|fp32)\b", re.IGNORECASE)
_CAUSAL = re.compile(r"causal(?:[_ ]mask)?\s*[=:]\s*(true|false|1|0|yes|no)", re.IGNORECASE)
_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}
_MAX_DIGITS = len(str(MAX_DIMENSION))
_WORD = r"(?:operator(?:\s+name)?|算子(?:名称|名)?)"
# "Operator: X", "算子 / Operator: X", "算子名：X", or "算子 X" (Chinese prose needs no colon)
_OPERATOR = re.compile(
    rf"(?:{_WORD}(?:\s*/\s*{_WORD})?\s*[:：]|算子(?:名称|名)?\s+)\s*`?([A-Za-z_][\w.-]*)`?", re.IGNORECASE
)
_KNOB = re.compile(r"`?\b([A-Z][A-Z0-9_]{2,})\b`?")
_DEFAULT = re.compile(r"(?:default|默认(?:值)?|当前(?:值)?)\s*[:：=]?\s*`?(-?[\w.]+)`?", re.IGNORECASE)
_ALLOWED = re.compile(
    r"(?:one of|values?|allowed|可选(?:值)?|取值(?:范围)?|∈|in)\s*[:：=]?\s*[{(\[]?\s*"
    r"([-\w.]+(?:\s*[,，/|]\s*[-\w.]+)+)",
    re.IGNORECASE,
)
_NAME_COLUMN = ("参数", "parameter", "name", "knob", "tunable", "变量", "可调参数")
_DEFAULT_COLUMN = ("默认", "default", "当前")
_ALLOWED_COLUMN = ("可选", "取值", "allowed", "values", "range", "范围")


@dataclass
class Requirements:
    operator: str = ""
    operator_line: int | None = None
    case: CaseConfig = field(default_factory=CaseConfig)
    case_line: int | None = None
    case_problem: str = ""  # why a case line could not be taken ("line N: ...")
    tunables: list[Tunable] = field(default_factory=list)
    tunable_lines: dict[str, int] = field(default_factory=dict)


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return read_regular_bytes(path).decode("utf-8", errors="replace").splitlines()


def operator_name(lines: list[str]) -> tuple[str, int | None]:
    """The operator a line names ('- 算子 / Operator: flash_attention_score'), and its line."""
    for number, line in enumerate(lines, 1):
        match = _OPERATOR.search(line)
        if match and valid_operator_name(match.group(1)):
            return match.group(1), number
    return "", None


def case_of(lines: list[str]) -> tuple[CaseConfig, int | None, str]:
    """The case a line states ('Case: BNSD=1,16,8192,128, float16'), its line, and why a
    case line could not be taken ("" when it could, or none was found)."""
    for number, line in enumerate(lines, 1):
        if not re.search(r"case|算例|shape|形状", line, re.IGNORECASE):
            continue
        shape: dict[str, Scalar] = {}
        for key, values in _SHAPE.findall(line):
            texts = re.split(r"\s*,\s*", values)
            bad = next((t for t in texts if len(t) > _MAX_DIGITS or not 1 <= int(t) <= MAX_DIMENSION), None)
            if bad is not None:  # int() of thousands of digits is refused, and no dimension
                shown = bad if len(bad) <= 20 else f"{bad[:12]}... ({len(bad)} digits)"
                return CaseConfig(), None, (
                    f"line {number}: {key} = {shown} is not a dimension (a whole number 1 to "
                    f"{MAX_DIMENSION}); the case is not read, fill in [case]"
                )
            numbers = [int(t) for t in texts]
            if len(numbers) > 1 and len(key) == len(numbers):
                shape.update({letter.upper(): n for letter, n in zip(key, numbers, strict=True)})
            elif len(numbers) == 1:
                shape[key.upper()] = numbers[0]
        if not shape:
            continue
        dtype = _DTYPE.search(line)
        causal = _CAUSAL.search(line)
        dtype_text = dtype.group(1).lower() if dtype else "float16"
        return (
            CaseConfig(
                shape=shape,
                dtype=_DTYPES.get(dtype_text, dtype_text),
                causal=causal is not None and causal.group(1).lower() in ("true", "1", "yes"),
            ),
            number,
            "",
        )
    return CaseConfig(), None, ""


def _tunable(name: str, default: str, allowed: str) -> Tunable:
    values = tuple(parse_scalar(v.strip()) for v in re.split(r"[,，/|]", allowed) if v.strip())
    value = parse_scalar(default) if default else (values[0] if values else "")
    return Tunable(name=name, value=value, default=value, allowed=values)


def _column(header: list[str], words: tuple[str, ...]) -> int | None:
    return next((i for i, cell in enumerate(header) if any(w in normal(cell) for w in words)), None)


def tunables_of(lines: list[str]) -> tuple[list[Tunable], dict[str, int]]:
    """The tunables a table or the bullets of the file name, each with its line."""
    found: dict[str, Tunable] = {}
    where: dict[str, int] = {}
    header: list[str] | None = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("|"):
            row = cells(stripped)
            if set(stripped) <= set("|-: "):
                continue
            if header is None:
                header = row if _column(row, _NAME_COLUMN) is not None else None
                continue
            at = _column(header, _NAME_COLUMN)
            name = _KNOB.fullmatch(row[at].strip()) if at is not None and at < len(row) else None
            if name is None:
                continue
            picks = [_column(header, words) for words in (_DEFAULT_COLUMN, _ALLOWED_COLUMN)]
            default, allowed = (row[i] if i is not None and i < len(row) else "" for i in picks)
            found[name.group(1)] = _tunable(name.group(1), default.strip("` "), allowed.strip("` {}()[]"))
            where[name.group(1)] = number
            continue
        header = None
        bullet = re.match(r"^\s*[-*+]\s+`?([A-Z][A-Z0-9_]{2,})`?\s*[:：(（]?(.*)$", line)
        said = _DEFAULT.search(bullet.group(2)) if bullet else None
        values = _ALLOWED.search(bullet.group(2)) if bullet else None
        if bullet and (said or values):
            found[bullet.group(1)] = _tunable(
                bullet.group(1), said.group(1) if said else "", values.group(1) if values else ""
            )
            where[bullet.group(1)] = number
    return list(found.values()), where


def read_requirements(requirements: Path, iterations: Path) -> Requirements:
    lines = _lines(requirements)
    found = Requirements()
    found.operator, found.operator_line = operator_name(lines)
    if not found.operator:  # ITERATIONS.md's preamble may name it ("算子 flash_attention_score, ...")
        name, _line = operator_name(_lines(iterations)[:12])
        found.operator = name
    found.case, found.case_line, found.case_problem = case_of(lines)
    found.tunables, found.tunable_lines = tunables_of(lines)
    return found
