"""Tuning guided by the costmodel: which PTO queries a tile knob controls, and its values
ranked by predicted cycles per unit of work. Pure: texts and records in, records out.

A knob's queries come from a template, a costmodel query line whose numbers may be
`{NAME}` placeholders of the case's shape fields and tunables:

    TMATMUL half half float --m {CUBE_S0} --k {HEAD_SIZE} --n {TILE_S1}

Templates are declared in the operator's marker (`pto-operator.toml`, `[costmodel]
queries = [...]`, with `work = "{CUBE_S0}*{TILE_S1}"`), or derived from the source: an
attention kernel whose source calls TMATMUL and a row softmax (TROWMAX/TEXP/TROWSUM)
has one tile of `rows` queries by `cols` keys per step, and those knobs are found by
their names (ATTENTION_ROLES).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pto_tui.core.cycles.plan import Plan, Step, step_queries, work_units
from pto_tui.core.cycles.query import Query, QueryError
from pto_tui.core.cycles.results import CycleResult
from pto_tui.core.cycles.subtile import sub_tiling

__all__ = ["ATTENTION_ROLES", "Candidate", "Plan", "Step", "attention_plan", "candidate_values",
           "choose", "evidence_text", "rank", "suggestion_text"]

ATTENTION_ROLES: dict[str, tuple[str, ...]] = {
    "rows": ("CUBE_S0", "BLOCK_M", "TILE_M", "BR", "TILE_Q", "BLOCK_Q", "Q_TILE", "TILE_S0"),
    "cols": ("TILE_S1", "BLOCK_N", "TILE_N", "BC", "TILE_KV", "BLOCK_KV", "KV_TILE"),
    "head": ("HEAD_SIZE", "HEAD_DIM", "D", "HEAD"),
}
DTYPES = {"float32": "float", "fp32": "float", "float": "float", "float16": "half",
          "fp16": "half", "half": "half", "bfloat16": "bf16", "bf16": "bf16"}
_CALL = re.compile(r"\b(TMATMUL|TROWMAX|TROWSUM|TEXP)\s*[(<]")


def attention_plan(sources: Mapping[str, str], names: Sequence[str], dtype: str) -> Plan | None:
    """The attention pattern, if a source file calls its instructions and the knobs are there."""
    found = {role: next((n for n in candidates if n in names), None)
             for role, candidates in ATTENTION_ROLES.items()}
    rows, cols, head = found["rows"], found["cols"], found["head"]
    if not (rows and cols and head):
        return None
    calls: set[str] = set()
    files: list[str] = []
    for rel, text in sorted(sources.items()):
        found_here = set(_CALL.findall(text))
        if found_here:
            calls |= found_here
            files.append(rel)
    if "TMATMUL" not in calls or not calls & {"TROWMAX", "TEXP", "TROWSUM"}:
        return None
    dt = DTYPES.get(dtype.lower(), "half")
    where = (f"derived from {', '.join(files[:3])}: attention step ({' '.join(sorted(calls))}); "
             f"tile {rows} x {cols}, head {head}")
    sub = sub_tiling(sources, rows, cols, head, dt, names)
    if sub is not None:
        steps, constants, note = sub
        return Plan(steps, f"{{{rows}}}*{{{cols}}}", f"{where}; {note}", (rows, cols), constants)
    r, c, d = f"{{{rows}}}", f"{{{cols}}}", f"{{{head}}}"
    templates = (
        f"TMATMUL {dt} {dt} float --m {r} --k {d} --n {c}",  # S = Q K^T
        f"TROWMAX float -r {r} -c {c}",
        f"TEXP float -r {r} -c {c}",
        f"TROWSUM float -r {r} -c {c}",
        f"TMATMUL {dt} {dt} float --m {r} --k {c} --n {d}",  # O += P V
    )
    return Plan(tuple(Step(t) for t in templates), f"{r}*{c}", where, (rows, cols))


def candidate_values(plan: Plan, knob: str, allowed: Sequence[int], base: Mapping[str, int]
                     ) -> list[tuple[int, list[tuple[Query, int]], int, str]]:
    """(value, its queries with their repeats, its work units, why it cannot be costed)
    for each allowed value, the other knobs at base."""
    out = []
    for value in allowed:
        values = {**plan.constants, **base, knob: value}
        try:
            out.append((value, step_queries(plan, values), work_units(plan.work, values), ""))
        except QueryError as error:
            out.append((value, [], 0, str(error)))
    return out


@dataclass(frozen=True)
class Candidate:
    """One allowed value of a knob with the costmodel's prediction."""

    knob: str
    value: int
    queries: tuple[CycleResult, ...]
    work: int
    repeats: tuple[int, ...] = ()  # times per step of each query (1 when empty)
    problem: str = ""  # the plan cannot be costed at this value (an uneven sub-tile)
    overlap: bool = True  # the cube and vector sums overlap (see plan.Plan.overlap)

    def times(self, i: int) -> int:
        return self.repeats[i] if i < len(self.repeats) else 1

    @property
    def refused(self) -> str:
        bad = [r for r in self.queries if not r.ok]
        return self.problem or "; ".join(f"{r.label}: {r.error.splitlines()[0]}" for r in bad)

    def unit_cycles(self, cube: bool) -> int:
        """The cycles per step on the cube core (matmuls) or on the vector cores (the rest)."""
        return sum((r.cycles or 0) * self.times(i) for i, r in enumerate(self.queries)
                   if r.query.is_matmul == cube)

    @property
    def cycles(self) -> int | None:
        if self.refused:
            return None
        cube, vector = self.unit_cycles(True), self.unit_cycles(False)
        return max(cube, vector) if self.overlap else cube + vector

    @property
    def per_unit(self) -> float | None:
        cycles = self.cycles
        return cycles / self.work if cycles is not None and self.work else None

    def to_dict(self) -> dict[str, object]:
        return {
            "value": self.value, "cycles": self.cycles, "work": self.work,
            "cycles_per_unit": self.per_unit, "refused": self.refused or None,
            "cube_cycles": None if self.refused else self.unit_cycles(True),
            "vector_cycles": None if self.refused else self.unit_cycles(False),
            "overlap": self.overlap,
            "queries": [{"query": r.query.key, "label": r.label, "cycles": r.cycles,
                         "repeat": self.times(i), "error": r.error or None,
                         "oversized": r.oversized}
                        for i, r in enumerate(self.queries)],
        }


def rank(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Cheapest per unit of work first; refused values (oversized, failed) last."""
    fits = sorted((c for c in candidates if c.per_unit is not None),
                  key=lambda c: (c.per_unit, c.value))
    return fits + [c for c in candidates if c.per_unit is None]


def evidence_text(knob: str, ranked: Sequence[Candidate], plan: Plan, stamp: str,
                  current: int | None) -> str:
    """The Markdown evidence of one knob's ranking (Pre-Edit form, round notes)."""
    lines = [f"Costmodel ranking of {knob} ({stamp}; {plan.source}):", ""]
    for i, c in enumerate(ranked, 1):
        mark = " (current)" if c.value == current else ""
        if c.per_unit is None:
            lines.append(f"- {knob}={c.value}{mark}: refused: {c.refused}")
        else:
            lines.append(f"{i}. {knob}={c.value}{mark}: {c.cycles} cycles per step "
                         f"({_split(c)}), {c.per_unit:.4g} cycles per unit of work "
                         f"({c.work} units)")
    lines.append("")
    lines.append("Queries per step: " + "; ".join(s.describe() for s in plan.steps))
    lines.append("A step costs " + ("the longer of the cube and vector sums (they run in "
                                    "parallel)" if plan.overlap else
                                    "the cube and vector sums added (not overlapped)"))
    return "\n".join(lines) + "\n"


def _split(c: Candidate) -> str:
    return f"cube {c.unit_cycles(True)}, vector {c.unit_cycles(False)}"


def choose(knob: str, ranked: Sequence[Candidate], value: int | None,
           current: int | None) -> Candidate:
    """The candidate a round starts from: `value`, or the best when None. Refused values,
    values the ranking does not hold and the current value are errors that say why."""
    fits = [c for c in ranked if c.per_unit is not None]
    if value is None:
        better = [c for c in fits if c.value != current]
        if not fits or fits[0].value == current:
            raise QueryError(f"the costmodel ranks the current {knob}={current} best: "
                             "no suggestion to start a round from"
                             + (f" (next: {better[0].value})" if better else ""))
        return fits[0]
    chosen = next((c for c in ranked if c.value == value), None)
    if chosen is None:
        raise QueryError(f"{knob}={value} is not in the costmodel's ranking; ranked: "
                         + ", ".join(str(c.value) for c in ranked))
    if chosen.per_unit is None:
        raise QueryError(f"{knob}={value} is refused by the costmodel: {chosen.refused}")
    if value == current:
        raise QueryError(f"{knob} is already {value}: a round changes it")
    return chosen


def suggestion_text(knob: str, chosen: Candidate, ranked: Sequence[Candidate],
                    current: int | None, evidence: str, stamp: str) -> str:
    """The Pre-Edit evidence of a round started from a suggestion: the choice and its
    predicted ratio first (notes.md shows it), then the whole ranking."""
    now = next((c for c in ranked if c.value == current and c.per_unit is not None), None)
    ratio = (f"; predicted {chosen.per_unit / now.per_unit:.3g}x the cycles per unit of work "
             f"of {knob}={current}" if now and now.per_unit and chosen.per_unit else "")
    place = [c.value for c in ranked].index(chosen.value) + 1
    return (f"Suggestion: {knob} {current} -> {chosen.value} (costmodel rank {place} of "
            f"{len(ranked)}, {stamp}{ratio}).\n\n{evidence}")
