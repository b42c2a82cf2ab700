"""A costmodel plan: the queries one step of an operator runs, as templates, each maybe
repeated over a sub-tile. Pure: texts and values in, queries out.

A template is a query line whose numbers may be `{EXPR}` placeholders; an expression is
names (case shape fields, tunables, constants read from the source) and whole numbers
joined by `*` and `/`, evaluated exactly left to right:

    TMATMUL half half float --m {CUBE_S0} --k {HEAD_SIZE} --n {CUBE_S1}   repeat {TILE_S1}/{CUBE_S1}

A step that repeats runs its query `repeat` times per step of work: a kernel that runs
a TILE_S1-wide step as TILE_S1/CUBE_S1 matmuls of CUBE_S1 columns is costed as that,
not as one matmul on a tile that would not fit on chip.

The matmuls run on the cube core and the other instructions on the vector cores, which
work in parallel; a plan that overlaps them (the default, what a pipelined kernel does)
costs a step as the longer of the two sums.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from pto_tui.core.cycles.query import Query, QueryError
from pto_tui.core.cycles.sweep import parse_query_text

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_TOKEN = re.compile(r"\s*([*/])?\s*([A-Za-z_]\w*|[0-9]+)\s*")


@dataclass(frozen=True)
class Step:
    """One query template and how many times a step of work runs it."""

    template: str
    repeat: str = "1"

    def describe(self) -> str:
        return f"`{self.template}`" + (f" x {self.repeat}" if self.repeat != "1" else "")


@dataclass(frozen=True)
class Plan:
    """The queries one step of the operator runs, and where they came from."""

    steps: tuple[Step, ...]
    work: str  # an expression: the units of work one step does
    source: str  # "declared in <file>" or "derived from <file>: ..."
    knobs: tuple[str, ...]  # the tunables the templates use
    constants: Mapping[str, int] = field(default_factory=dict)  # read from the source
    # The cube (matmuls) and the vector cores (the rest) run in parallel on A2/A3: a kernel
    # that pipelines them takes the longer of the two per step, not their sum.
    overlap: bool = True

    @property
    def templates(self) -> tuple[str, ...]:
        return tuple(s.template for s in self.steps)


def evaluate(expr: str, values: Mapping[str, int]) -> int:
    """The whole number `expr` names; QueryError when a name is missing, the text is not
    of `a*b/c` form, or the division leaves a fraction (the kernel would not compile)."""
    text = expr.strip().replace("{", "").replace("}", "")
    pos, total = 0, Fraction(1)
    first = True
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos or (first == bool(match[1])):
            raise QueryError(f"costmodel expression {expr!r}: expected names and numbers "
                             "joined by * and /")
        name = match[2]
        if name.isdigit():
            value = int(name)
        elif name in values:
            value = values[name]
        else:
            raise QueryError(f"costmodel expression {expr!r}: no value for {name}")
        if match[1] == "/":
            if value == 0:
                raise QueryError(f"costmodel expression {expr!r}: {name} is 0")
            total /= value
        else:
            total *= value
        pos, first = match.end(), False
    if first:
        raise QueryError(f"costmodel expression {expr!r} is empty")
    if total.denominator != 1 or total <= 0:
        shown = ", ".join(f"{n}={v}" for n, v in sorted(values.items()) if re.search(rf"\b{n}\b", text))
        raise QueryError(f"{expr.strip()} is {total} with {shown}: not a whole number of "
                         "elements or repeats (the kernel needs it to divide evenly)")
    return int(total)


def fill(template: str, values: Mapping[str, int]) -> list[Query]:
    """The queries of one template with its placeholders' values."""
    return parse_query_text(_PLACEHOLDER.sub(lambda m: str(evaluate(m[1], values)), template))


def step_queries(plan: Plan, values: Mapping[str, int]) -> list[tuple[Query, int]]:
    """(query, times per step) for every step of the plan at these values."""
    merged = {**plan.constants, **values}
    out: list[tuple[Query, int]] = []
    for step in plan.steps:
        times = evaluate(step.repeat, merged)
        out.extend((q, times) for q in fill(step.template, merged))
    return out


def work_units(expr: str, values: Mapping[str, int]) -> int:
    return evaluate(expr, values)
