"""The result cache: hits, invalidation by version stamp, failures not stored, the file."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from pto_tui.core.cycles.capacity import DEFAULT_CAPACITIES, Capacities
from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import VersionStamp
from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, CostmodelCache, Outcome, run_queries
from pto_tui.costmodel.cache import cache_key, default_cache_path


def sweep(text: str) -> list:
    """A command line written as one string (readable in tests)."""
    return expand_sweep(text.split())



class CountingEngine:
    """A stand-in engine for the cache logic alone: cycles = rows + cols (or m+k+n)."""

    name = "counting"

    def __init__(self, costmodel: str = "git:1", fail: str = "") -> None:
        self._stamp = VersionStamp("counting", costmodel, "cc 1", "-O2")
        self.asked: list[str] = []
        self.fail = fail

    async def stamp(self) -> VersionStamp:
        return self._stamp

    async def capacities(self) -> Capacities:
        return DEFAULT_CAPACITIES

    async def run(self, queries: Sequence[Query],
                  progress: Callable[[int], None] | None = None) -> dict[str, Outcome]:
        self.asked += [q.label for q in queries]
        out = {}
        for q in queries:
            if q.label == self.fail:
                out[q.key] = Outcome(None, "compile error: boom")
            else:
                out[q.key] = Outcome(q.rows + q.cols + q.m + q.k + q.n)
        return out


QUERIES = sweep("TADD half -r 16,32 -c 64,128")


async def test_second_run_is_served_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "costmodel.json"
    engine = CountingEngine()
    first = await run_queries(QUERIES, engine, CostmodelCache(path))
    assert len(engine.asked) == 4 and not any(r.cached for r in first)
    assert path.is_file()
    again = await run_queries(QUERIES, engine, CostmodelCache(path))
    assert len(engine.asked) == 4  # not asked again
    assert all(r.cached for r in again)
    assert [r.cycles for r in again] == [r.cycles for r in first]
    assert again[0].stamp == first[0].stamp  # the cached number keeps its version


async def test_a_new_version_stamp_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "costmodel.json"
    await run_queries(QUERIES, CountingEngine("git:1"), CostmodelCache(path))
    newer = CountingEngine("git:2")
    results = await run_queries(QUERIES, newer, CostmodelCache(path))
    assert len(newer.asked) == 4 and not any(r.cached for r in results)
    assert len(json.loads(path.read_text())["entries"]) == 8  # both versions kept


async def test_failures_are_not_cached(tmp_path: Path) -> None:
    path = tmp_path / "costmodel.json"
    engine = CountingEngine(fail="TADD.half_16x64")
    results = await run_queries(QUERIES, engine, CostmodelCache(path))
    assert [r.ok for r in results] == [False, True, True, True]
    engine.fail = ""
    again = await run_queries(QUERIES, engine, CostmodelCache(path))
    assert [r.cached for r in again] == [False, True, True, True]
    assert again[0].ok


async def test_duplicates_in_a_sweep_are_asked_once(tmp_path: Path) -> None:
    engine = CountingEngine()
    results = await run_queries([*QUERIES, *QUERIES], engine, CostmodelCache(tmp_path / "c.json"))
    assert len(results) == 8
    assert len(engine.asked) == 4
    assert [r.cycles for r in results[:4]] == [r.cycles for r in results[4:]]


def test_damaged_cache_is_ignored_and_saves_merge(tmp_path: Path) -> None:
    path = tmp_path / "costmodel.json"
    path.write_text("{not json")
    cache = CostmodelCache(path)
    assert len(cache) == 0
    stamp = VersionStamp("builtin", "git:1", "g++", "-O2")
    a, b = QUERIES[0], QUERIES[1]
    one, two = CostmodelCache(path), CostmodelCache(path)
    one.put(a, stamp, 10)
    two.put(b, stamp, 20)
    one.save()
    two.save()  # merges with what `one` wrote meanwhile
    fresh = CostmodelCache(path)
    assert fresh.get(a, stamp) == 10 and fresh.get(b, stamp) == 20
    entry = json.loads(path.read_text())["entries"][cache_key(a, stamp)]
    assert entry["label"] == "TADD.half_16x64" and entry["stamp"]["costmodel"] == "git:1"


def test_default_cache_path_is_in_the_app_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PTO_TUI_HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / "cache" / "costmodel.json"


async def test_real_engine_warm_run_compiles_nothing(fresh_stub: Path, tmp_path: Path) -> None:
    path = tmp_path / "costmodel.json"
    queries = sweep("TMATMUL half half float --m 16,64 --k 32 --n 16,64")
    cold = BuiltinEngine(fresh_stub, jobs=2)
    first = await run_queries(queries, cold, CostmodelCache(path))
    assert cold.compiles == 2
    warm = BuiltinEngine(fresh_stub, jobs=2)
    again = await run_queries(queries, warm, CostmodelCache(path))
    assert warm.compiles == 0 and all(r.cached for r in again)
    assert [r.cycles for r in again] == [r.cycles for r in first]
    # Editing the include tree changes the content hash: a miss, compiled again.
    header = fresh_stub / "include" / "pto" / "common" / "constants.hpp"
    header.write_text(header.read_text() + "// edited\n")
    edited = BuiltinEngine(fresh_stub, jobs=2)
    third = await run_queries(queries, edited, CostmodelCache(path))
    assert edited.compiles == 2 and not any(r.cached for r in third)
    assert third[0].stamp.costmodel != first[0].stamp.costmodel
