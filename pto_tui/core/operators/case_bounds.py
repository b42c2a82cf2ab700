"""The values a tile-lib case field may take for the case under tuning, as the operator's
case generator accepts them (offered as the knob's allowed values, so a round is refused a
tile the build would reject or silently replace).

pto-isa's flash attention generator (scripts/generate_cases.py) requires S1 divisible by
TILE_S1 and TILE_S1 by CUBE_S1, which it fixes (`"cube_s1": 128`, read from it); a CUBE_S0
that does not divide S0 it replaces by S0 without a word, so the round would measure a tile
it did not record. CUBE_S0 is also the cube unit's row count: powers of two from its 16-row
fractal up to S0.
A marker's own allowed values win (the demo declares its generator's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path

from pto_tui.core.operators.case_strings import (
    FLASH_ATTENTION_TILE_LIB,
    CaseStringError,
    case_under_tuning,
    format_for,
    parsed_cases,
)
from pto_tui.core.project.config import CaseConfig, OperatorConfig, Tunable

GENERATOR = Path("scripts/generate_cases.py")
_CUBE_S1 = re.compile(r"""["']cube_s1["']\s*:\s*(\d+)""")
FRACTAL_ROWS = 16  # a cube tile's rows come in 16-row fractals


def generator_cube_s1(operator_folder: Path) -> int | None:
    """The CUBE_S1 the operator's case generator fixes, or None (no generator, none fixed)."""
    path = operator_folder / GENERATOR
    found = _CUBE_S1.search(path.read_text(encoding="utf-8", errors="replace")) if path.is_file() else None
    return int(found.group(1)) if found and int(found.group(1)) > 0 else None


def _tile_s1(cube_s1: int, case: Mapping[str, int]) -> tuple[int, ...]:
    s1 = case["S1"]
    return tuple(t for t in range(cube_s1, s1 + 1, cube_s1) if s1 % t == 0)


def _cube_s0(case: Mapping[str, int]) -> tuple[int, ...]:
    s0 = case["S0"]
    rows = [FRACTAL_ROWS << p for p in range(max(s0.bit_length(), 1))]
    return tuple(r for r in rows if r <= s0 and s0 % r == 0)


Rules = dict[str, Callable[[Mapping[str, int]], tuple[int, ...]]]


def _rules(format_name: str, operator_folder: Path) -> Rules:
    if format_name != FLASH_ATTENTION_TILE_LIB.name:
        return {}
    rules: Rules = {"CUBE_S0": _cube_s0}
    cube_s1 = generator_cube_s1(operator_folder)
    if cube_s1 is not None:
        rules["TILE_S1"] = partial(_tile_s1, cube_s1)
    return rules


def case_bounded(
    tunables: list[Tunable], case: CaseConfig, operator: OperatorConfig, operator_folder: Path
) -> list[Tunable]:
    """The tunables, each case field the generator bounds given its allowed values for this
    case (unless it has some, or its current value is not among them: nothing is imposed
    on a project that already holds another value)."""
    fmt = format_for(operator)
    rules = _rules(fmt.name, operator_folder) if fmt is not None else {}
    if not rules:
        return tunables
    try:
        cases = parsed_cases(case, operator)
        values = case_under_tuning(cases, case.name).values if cases else None
    except CaseStringError:
        return tunables
    if values is None:
        return tunables
    bounded = []
    for tunable in tunables:
        rule = rules.get(tunable.name)
        if rule is not None and tunable.kind == "case" and not tunable.allowed:
            allowed = rule(values)
            if tunable.value in allowed:
                tunable = replace(tunable, allowed=allowed)
        bounded.append(tunable)
    return bounded
