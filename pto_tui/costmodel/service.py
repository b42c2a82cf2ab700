"""Run queries through an engine with the cache in front: the call the CLI and TUI make."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.cycles.capacity import check_fit
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import CycleResult
from pto_tui.core.project.config import CostmodelConfig
from pto_tui.costmodel.builtin import BuiltinEngine
from pto_tui.costmodel.cache import CostmodelCache
from pto_tui.costmodel.engine import Engine, Progress, ProgressFn, Runner, unique_queries
from pto_tui.costmodel.external import ExternalEngine
from pto_tui.costmodel.toolchain import CostmodelError


async def run_queries(
    queries: Sequence[Query],
    engine: Engine,
    cache: CostmodelCache | None = None,
    progress: ProgressFn | None = None,
) -> list[CycleResult]:
    """One CycleResult per query, in order. Cached numbers are reused (marked cached);
    new successful numbers are stored and the cache saved before returning."""
    stamp = await engine.stamp()
    caps = await engine.capacities()
    # Queries whose operands overflow an on-chip buffer are refused, never run: the
    # costmodel would answer them with a number no kernel can reach.
    refused = {q.key: o for q in unique_queries(queries) if (o := check_fit(q, caps)) is not None}
    unique = [q for q in unique_queries(queries) if q.key not in refused]
    total = len(unique)  # progress counts distinct queries
    hits: dict[str, int] = {}
    if cache is not None:
        for query in unique:
            cycles = cache.get(query, stamp)
            if cycles is not None:
                hits[query.key] = cycles
    misses = [q for q in unique if q.key not in hits]
    done = len(hits)
    if progress is not None:
        progress(Progress(done, total, f"{done} from cache" if done else "starting"))

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(Progress(min(done, total), total, f"{engine.name} engine"))

    outcomes = await engine.run(misses, advance) if misses else {}
    results: list[CycleResult] = []
    for query in queries:
        if query.key in refused:
            results.append(CycleResult(query, None, stamp, error=refused[query.key].message,
                                       oversized=True))
            continue
        if query.key in hits:
            results.append(CycleResult(query, hits[query.key], stamp, cached=True))
            continue
        outcome = outcomes.get(query.key)
        if outcome is None:
            results.append(CycleResult(query, None, stamp, error="no result from the engine"))
            continue
        results.append(CycleResult(query, outcome.cycles, stamp, error=outcome.error))
        if cache is not None and outcome.cycles is not None and not outcome.error:
            cache.put(query, stamp, outcome.cycles)
    if cache is not None:
        cache.save()
    return results


def run_queries_sync(queries: Sequence[Query], engine: Engine,
                     cache: CostmodelCache | None = None,
                     progress: ProgressFn | None = None) -> list[CycleResult]:
    """run_queries for callers without an event loop (the CLI, scripts)."""
    return asyncio.run(run_queries(queries, engine, cache, progress))


def make_engine(
    kind: str,
    *,
    pto_isa: str | Path | None = None,
    tool: str | None = None,
    compiler: str = "g++",
    jobs: int | None = None,
    runner: Runner | None = None,
    python: str = "python3",
) -> Engine:
    """An engine from settings (CLI flags or the project's [costmodel] section)."""
    if kind == "builtin":
        if not pto_isa:
            raise CostmodelError(
                "the built-in costmodel engine needs a pto-isa checkout",
                hint="pass --pto-isa PATH, or set pto_isa in the [costmodel] section "
                     "of project.toml",
            )
        return BuiltinEngine(pto_isa, compiler or "g++", jobs=jobs)
    if kind == "external":
        if not tool:
            raise CostmodelError(
                "the external costmodel engine needs the query tool",
                hint="pass --tool PATH/tools/query_pto_cycles.py, or set tool in [costmodel]",
            )
        return ExternalEngine(tool, python=python, runner=runner, jobs=jobs)
    raise CostmodelError(f"unknown costmodel engine {kind!r}; expected builtin or external")


@dataclass(frozen=True)
class Settings:
    """Which engine to run and where its files are, resolved for one project (or none)."""

    engine: str
    pto_isa: str
    tool: str
    compiler: str
    on_target: bool
    cache_path: Path


def resolve_settings(
    config: CostmodelConfig,
    base: Path,
    cache_path: Path,
    *,
    engine: str | None = None,
    pto_isa: str | None = None,
    tool: str | None = None,
    compiler: str | None = None,
) -> Settings:
    """The project's [costmodel] section with command-line overrides; configured paths are
    relative to the project root (`base`), given ones to the current directory."""

    def path(given: str | None, configured: str) -> str:
        if given:
            return str(Path(given).expanduser())
        if configured:
            return str((base / Path(configured).expanduser()).resolve())
        return ""

    isa = path(pto_isa, config.pto_isa)
    tool_path = path(tool, config.tool)
    if not tool_path and isa:
        tool_path = str(Path(isa) / "tools" / "query_pto_cycles.py")
    return Settings(
        engine=engine or config.engine or "builtin",
        pto_isa=isa,
        tool=tool_path,
        compiler=compiler or config.compiler or "g++",
        on_target=config.on_target and not engine,
        cache_path=cache_path,
    )
