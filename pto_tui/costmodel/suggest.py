"""`suggest`: rank a project's tile knobs by the costmodel (the I/O around core's guidance).

Reads the operator's sources and marker from the project's workspace, builds each
knob's queries for every allowed value, runs them with the cache in front, and ranks.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.cycles.guidance import (
    Candidate,
    Plan,
    Step,
    attention_plan,
    candidate_values,
    choose,
    evidence_text,
    rank,
    suggestion_text,
)
from pto_tui.core.cycles.query import QueryError
from pto_tui.core.cycles.stages import matmul_stage_plans
from pto_tui.core.errors import InputError
from pto_tui.core.operators.case_strings import workload_shape
from pto_tui.core.project.config import ProjectConfig
from pto_tui.costmodel.cache import CostmodelCache
from pto_tui.costmodel.engine import Engine
from pto_tui.costmodel.service import run_queries
from pto_tui.costmodel.sources import plan_sources

MARKER = "pto-operator.toml"


@dataclass(frozen=True)
class KnobSuggestion:
    knob: str
    current: int | None
    ranked: tuple[Candidate, ...]
    plan: Plan
    stamp: str

    @property
    def evidence(self) -> str:
        return evidence_text(self.knob, self.ranked, self.plan, self.stamp, self.current)

    def to_dict(self) -> dict[str, object]:
        best = next((c for c in self.ranked if c.per_unit is not None), None)
        return {"knob": self.knob, "current": self.current,
                "suggested": best.value if best else None, "plan": self.plan.source,
                "templates": list(self.plan.templates), "costmodel": self.stamp,
                "ranking": [c.to_dict() for c in self.ranked], "evidence": self.evidence}


def around(value: int | None) -> list[int]:
    """Without declared allowed values: the powers of two from a quarter of the current
    tile to four times it (tiles are powers of two on the cube), at least 16."""
    if not value or value & (value - 1):
        return []
    return [v for v in (value // 4, value // 2, value, value * 2, value * 4) if v >= 16]


def _step(entry: object, marker: Path) -> Step:
    if isinstance(entry, str):
        return Step(entry)
    if isinstance(entry, dict) and isinstance(entry.get("query"), str):
        return Step(entry["query"], str(entry.get("repeat", "1")))
    raise InputError(f"{marker}: [costmodel] queries: each entry is a query line or "
                     "{query = \"...\", repeat = \"{TILE_S1}/{CUBE_S1}\"}")


def declared_plan(folder: Path, knobs: Sequence[str]) -> Plan | None:
    """`[costmodel] queries = [...]`, `work = "..."`, optional `constants = {NAME = n}` and
    `overlap = false` (a kernel that does not pipeline its cube and vector work) in the
    operator's marker; a query may be a table with the times it repeats per step."""
    marker = next(iter(sorted(folder.rglob(MARKER), key=lambda p: len(p.parts))), None)
    if marker is None:
        return None
    try:
        data = tomllib.loads(marker.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{marker}: {error}") from None
    section = data.get("costmodel")
    if not isinstance(section, dict) or "queries" not in section:
        return None
    queries, work = section.get("queries"), section.get("work", "1")
    if not isinstance(queries, list):
        raise InputError(f"{marker}: [costmodel] queries must be a list of query lines")
    steps = tuple(_step(q, marker) for q in queries)
    constants = section.get("constants", {})
    if not isinstance(constants, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in constants.values()):
        raise InputError(f"{marker}: [costmodel] constants must map names to whole numbers")
    overlap = section.get("overlap", True)
    if not isinstance(overlap, bool):
        raise InputError(f"{marker}: [costmodel] overlap must be true or false (whether the "
                         "kernel runs its matmuls and vector instructions in parallel)")
    texts = " ".join(f"{s.template} {s.repeat}" for s in steps)
    used = tuple(k for k in knobs if re.search(rf"\b{re.escape(k)}\b", texts))
    return Plan(steps, str(work), f"declared in {MARKER}", used, dict(constants), overlap)


def plans_for(folder: Path, config: ProjectConfig) -> list[Plan]:
    """The declared plan, else the attention step read from the source, else the matmul
    stages named by base-tile knobs."""
    declared = declared_plan(folder, list(config.tunables))
    if declared is not None:
        return [declared]
    names = [*config.tunables, *workload_shape(config.case, config.operator)]
    sources = plan_sources(folder, config)
    attention = attention_plan(sources, names, config.case.dtype)
    if attention is not None:
        return [attention]
    return matmul_stage_plans(sources, list(config.tunables), config.case.dtype)


def base_values(config: ProjectConfig) -> dict[str, int]:
    """The case's shape and the tunables' current values, as numbers."""
    shape = workload_shape(config.case, config.operator)
    base = {k: int(v) for k, v in shape.items() if isinstance(v, int) and not isinstance(v, bool)}
    base.update({k: int(t.value) for k, t in config.tunables.items()
                 if isinstance(t.value, int) and not isinstance(t.value, bool)})
    return base


async def costed(plan: Plan, knob: str, values: Sequence[int], base: dict[str, int],
                 engine: Engine, cache: CostmodelCache | None) -> list[Candidate]:
    """Each value of the knob with the costmodel's cycles (the others at base), unranked."""
    options = candidate_values(plan, knob, values, base)
    results = await run_queries([q for _, qs, _, _ in options for q, _ in qs], engine, cache)
    by_key = {r.query.key: r for r in results}
    return [Candidate(knob, value, tuple(by_key[q.key] for q, _ in qs), work,
                      tuple(n for _, n in qs), problem, plan.overlap)
            for value, qs, work, problem in options]


def require_plans(folder: Path, config: ProjectConfig) -> list[Plan]:
    plans = plans_for(folder, config)
    if not plans:
        raise InputError(
            f"no costmodel plan for the operator in {folder}: its source shows no "
            "attention step with tile knobs and no matmul stage with *_BASE_M/N/K knobs",
            hint=f"declare one in {MARKER}: [costmodel] queries = [\"TMATMUL half half float "
                 "--m {ROWS} --k {HEAD} --n {COLS}\", ...], work = \"{ROWS}*{COLS}\"")
    return plans


def plan_of(plans: Sequence[Plan], knob: str) -> Plan | None:
    """The plan that ranks a knob (a knob belongs to one stage)."""
    return next((p for p in plans if knob in p.knobs), None)


async def suggest(folder: Path, config: ProjectConfig, engine: Engine,
                  cache: CostmodelCache | None, only: str = "") -> list[KnobSuggestion]:
    plans = require_plans(folder, config)
    base = base_values(config)
    stamp = (await engine.stamp()).short()
    out = []
    for plan, knob in ((p, k) for p in plans for k in p.knobs):
        if only and knob != only:
            continue
        tunable = config.tunables.get(knob)
        allowed = [int(v) for v in (tunable.allowed if tunable else ()) if isinstance(v, int)]
        if not allowed:
            allowed = around(base.get(knob))
        if not allowed:
            continue
        candidates = await costed(plan, knob, allowed, base, engine, cache)
        out.append(KnobSuggestion(knob, base.get(knob), tuple(rank(candidates)), plan, stamp))
    return out


@dataclass(frozen=True)
class Pick:
    """A suggestion a round starts from: the knob, the value and the evidence text."""

    knob: str
    current: int | None
    value: int
    evidence: str


def parse_pick(text: str) -> tuple[str, int | None]:
    knob, sep, value = text.partition("=")
    knob = knob.strip()
    if not knob or (sep and not value.strip().isdigit()):
        raise InputError(f"--from-suggestion expects KNOB or KNOB=VALUE (a whole number), "
                         f"got {text!r}")
    return knob, int(value) if sep else None


async def pick_suggestion(folder: Path, config: ProjectConfig, engine: Engine,
                          cache: CostmodelCache | None, text: str) -> Pick:
    """Rank the knob (the cache answers what was queried before) and choose the value."""
    knob, value = parse_pick(text)
    found = await suggest(folder, config, engine, cache, knob)
    if not found:
        raise InputError(f"{knob} is not a tile knob the costmodel plan ranks",
                         hint="`pto-tui suggest` lists the knobs it ranks")
    s = found[0]
    try:
        chosen = choose(knob, s.ranked, value, s.current)
    except QueryError as error:
        raise InputError(str(error)) from None
    text = suggestion_text(knob, chosen, s.ranked, s.current, s.evidence, s.stamp)
    return Pick(knob, s.current, chosen.value, text)


async def form_suggestion(folder: Path, config: ProjectConfig, engine: Engine,
                          cache: CostmodelCache | None, scope: Sequence[str]) -> tuple[str, str]:
    """(knob, evidence) for the Pre-Edit form: the first ranked knob the scope names, else
    the first whose best value is not the current one, else the first ranked; led by the
    suggestion when the costmodel ranks another value first."""
    found = await suggest(folder, config, engine, cache)
    if not found:
        raise InputError("no tile knob with allowed values is used by the costmodel plan")
    named = [s for s in found if s.knob in scope]
    better = [s for s in found if s.to_dict()["suggested"] not in (None, s.current)]
    s = (named or better or found)[0]
    try:
        chosen = choose(s.knob, s.ranked, None, s.current)
    except QueryError:
        return s.knob, s.evidence
    return s.knob, suggestion_text(s.knob, chosen, s.ranked, s.current, s.evidence, s.stamp)


async def ranked_picks(folder: Path, config: ProjectConfig, engine: Engine,
                       cache: CostmodelCache | None, knob: str, top: int) -> list[Pick]:
    """The `top` best-ranked values of `knob` that fit on chip and are not its current
    value, each with the ranking's evidence for it (what `explore --top N` drafts from)."""
    found = await suggest(folder, config, engine, cache, knob)
    if not found:
        raise InputError(f"{knob} is not a tile knob the costmodel plan ranks",
                         hint="`pto-tui suggest` lists the knobs it ranks")
    s = found[0]
    fitting = [c for c in s.ranked if c.per_unit is not None and c.value != s.current][:top]
    if not fitting:
        raise InputError(f"the costmodel ranks no value of {knob} besides its current {s.current}")
    return [Pick(knob, s.current, c.value, suggestion_text(knob, c, s.ranked, s.current, s.evidence, s.stamp))
            for c in fitting]
