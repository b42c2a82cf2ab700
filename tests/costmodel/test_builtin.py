"""The built-in engine, compiled for real with g++ against the pto-isa stand-in."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from pto_tui.core.cycles.query import DTYPE_SIZES, INSTRUCTIONS, Family, Query
from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.core.errors import InputError
from pto_tui.costmodel import BuiltinEngine, CostmodelError, Progress, run_queries
from pto_tui.costmodel.builtin import attribute_errors, split_batches

COST = {"TEXP": 4, "TDIV": 3, "TDIVS": 3, "TSQRT": 3, "TRSQRT": 3, "TRECIP": 3, "TSEL": 2,
        "TSELS": 2, "TCVT": 2, "TROWSUM": 2, "TROWMAX": 2, "TROWMIN": 2, "TCOLSUM": 2,
        "TCOLMAX": 2, "TCOLMIN": 2}


def sweep(text: str) -> list:
    """A command line written as one string (readable in tests)."""
    return expand_sweep(text.split())



def stub_cycles(q: Query) -> int:
    """The stand-in's numbers (tests/fixtures/pto_isa_stub/README.md), computed here."""
    if q.is_matmul:
        size = DTYPE_SIZES[q.dtypes[0]]
        blocks = math.ceil(q.m / 16) * math.ceil(q.k / (32 // size)) * math.ceil(q.n / 16)
        return blocks * (2 if size == 4 else 1) + 6
    size = max(DTYPE_SIZES[d] for d in q.dtypes)
    return 14 + COST.get(q.instr, 1) * math.ceil(q.rows * q.cols * size / 256)


def one_of_each() -> list[Query]:
    queries: list[Query] = []
    for instr, family in INSTRUCTIONS.items():
        if family is Family.MATMUL:
            queries += sweep(f"{instr} half,int8,float half float --m 40 --k 50 --n 60")
        elif family is Family.CVT:
            queries += sweep(f"{instr} half float -r 16 -c 64")
        else:
            queries += sweep(f"{instr} half,float -r 16 -c 64")
    return queries


async def test_every_family_compiles_and_runs(stub_root: Path) -> None:
    engine = BuiltinEngine(stub_root, jobs=2)
    queries = one_of_each()
    results = await run_queries(queries, engine)
    assert [r.error for r in results if not r.ok] == []
    assert {r.label: r.cycles for r in results} == {q.label: stub_cycles(q) for q in queries}
    assert engine.compiles == 2  # one program per core for the whole set
    assert results[0].stamp.engine == "builtin"
    # The ST test numbers of pto-isa that the stand-in reproduces for matmul.
    by_label = {r.label: r.cycles for r in results}
    assert by_label["TMATMUL.float<half,half>_40x50x60"] == 54


GRID = "sweep TMATMUL half half float --m 16,32,64 --k 32,64 --n 16,48,64"


async def test_batched_sweep_equals_one_program_per_query(stub_root: Path) -> None:
    queries = expand_sweep(GRID.split()) + sweep("TADD half,float -r 8,16 -c 64")
    batched = BuiltinEngine(stub_root, jobs=2)
    single = BuiltinEngine(stub_root, jobs=2, max_batch=1)
    got = await run_queries(queries, batched)
    reference = await run_queries(queries, single)
    assert [r.cycles for r in got] == [r.cycles for r in reference]
    assert all(r.ok for r in got)
    assert batched.compiles == 2
    assert single.compiles == len(queries)
    assert [r.cycles for r in got] == [stub_cycles(q) for q in queries]


async def test_a_failing_instantiation_is_isolated(stub_root: Path) -> None:
    # The stand-in static_asserts on M = 13 and on 13-row vector tiles.
    queries = sweep("TMATMUL half half float --m 16,13,64 --k 32 --n 16,64")
    queries += sweep("TADD half -r 8,13 -c 64")
    engine = BuiltinEngine(stub_root, jobs=1)
    results = await run_queries(queries, engine)
    bad = {r.label: r.error for r in results if not r.ok}
    assert set(bad) == {"TMATMUL.float<half,half>_13x32x16", "TMATMUL.float<half,half>_13x32x64",
                        "TADD.half_13x64"}
    for error in bad.values():
        assert error.startswith("compile error:")
        assert "static assertion failed" in error
        assert "/tmp" not in error  # temporary paths are shortened
    assert "M = 13" in bad["TMATMUL.float<half,half>_13x32x16"]
    assert "13-row" in bad["TADD.half_13x64"]
    good = [r for r in results if r.ok]
    assert len(good) == len(queries) - 3
    assert all(r.cycles == stub_cycles(r.query) for r in good)
    # One batch, then the batch without the blamed queries: far fewer than one per query.
    assert engine.compiles < len(queries)


async def test_a_crash_at_run_time_fails_only_its_query(stub_root: Path) -> None:
    # The stand-in's TEXP aborts on 11 rows; the program resumes after it.
    queries = sweep("TEXP half -r 8,11,16,32 -c 64")
    engine = BuiltinEngine(stub_root, jobs=1)
    results = await run_queries(queries, engine)
    assert [r.cycles for r in results] == [stub_cycles(queries[0]), None,
                                           stub_cycles(queries[2]), stub_cycles(queries[3])]
    assert "signal 6" in results[1].error
    assert engine.compiles == 1


async def test_tsels_gets_real_buffers(stub_root: Path) -> None:
    # The stand-in's TSELS reads its tiles' memory: a fake address would crash.
    results = await run_queries(sweep("TSELS half,float -r 8,64 -c 64"),
                                BuiltinEngine(stub_root, jobs=1))
    assert all(r.ok for r in results), [r.error for r in results]


async def test_a_broken_set_up_is_one_clear_error(stub_root: Path) -> None:
    # Without __COSTMODEL the stand-in's pto-inst.hpp stops with #error: no query can compile.
    engine = BuiltinEngine(stub_root, jobs=1, extra_flags=("-U__COSTMODEL",))
    with pytest.raises(CostmodelError) as info:
        await run_queries(sweep("TADD half -r 8,16,32 -c 64"), engine)
    assert "does not compile" in info.value.message
    assert "compile with -D__COSTMODEL" in info.value.message
    assert engine.compiles == 2  # the batch, then the first query alone to confirm


async def test_not_a_checkout(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a pto-isa checkout"):
        await BuiltinEngine(tmp_path).prepare()


async def test_missing_compiler(stub_root: Path) -> None:
    with pytest.raises(CostmodelError, match="program not found"):
        await BuiltinEngine(stub_root, compiler="no-such-c++").prepare()


async def test_version_stamp_content_hash_and_git(fresh_stub: Path) -> None:
    engine = BuiltinEngine(fresh_stub)
    stamp = await engine.stamp()
    assert stamp.costmodel.startswith("sha256:")
    assert stamp.compiler.startswith("g++")
    assert "-O2" in stamp.flags and "-D__NPU_ARCH__=2201" in stamp.flags
    assert "-include stdint.h -include stddef.h" in stamp.flags
    assert "-Wno-macro-redefined" not in stamp.flags  # clang-only, dropped for g++
    assert str(fresh_stub) not in stamp.flags  # the checkout's path is not part of the stamp


async def test_version_stamp_git_commit(fresh_stub: Path) -> None:
    assert shutil.which("git"), "these tests need git"
    git = ["git", "-C", str(fresh_stub), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "stub"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    clean = await BuiltinEngine(fresh_stub).stamp()
    assert clean.costmodel == f"git:{head}"
    (fresh_stub / "include" / "pto" / "common" / "constants.hpp").write_text("// edited\n")
    dirty = await BuiltinEngine(fresh_stub).stamp()
    assert dirty.costmodel.startswith(f"git:{head}+sha256:")


async def test_progress_is_reported(stub_root: Path) -> None:
    seen: list[Progress] = []
    queries = expand_sweep(GRID.split())
    await run_queries(queries, BuiltinEngine(stub_root, jobs=2), progress=seen.append)
    assert seen[0].done == 0 and seen[-1].done == seen[-1].total == len(queries)
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert len(seen) >= 3  # start, and one report per program


def test_split_batches() -> None:
    queries = sweep("TADD half -r 1:10 -c 64")
    assert [len(c) for c in split_batches(queries, 2, 48)] == [5, 5]
    assert [len(c) for c in split_batches(queries, 4, 48)] == [3, 3, 2, 2]
    assert [len(c) for c in split_batches(queries, 2, 3)] == [3, 3, 2, 2]
    assert [len(c) for c in split_batches(queries[:1], 8, 48)] == [1]
    assert sum(split_batches(queries, 3, 4), []) == queries


def test_attribute_errors_to_query_functions() -> None:
    errors = (
        "In file included from /tmp/x/batch1.cpp:2:\n"
        "/p/include/pto/pto-inst.hpp: In instantiation of 'struct pto::TileLeft<...>':\n"
        "/tmp/x/batch1.cpp:19:14:   required from here\n"
        "/p/include/pto/pto-inst.hpp:71:26: error: static assertion failed: M\n"
        "/tmp/x/batch1.cpp: In function 'void {anonymous}::q2()':\n"
        "/tmp/x/batch1.cpp:40:9: error: no matching function for call to 'TSEL'\n"
        "/p/include/pto/pto-inst.hpp:99:1: note: candidate: ...\n"
    )
    blamed = attribute_errors(errors, "batch1.cpp", [(13, 30), (31, 35), (36, 50)])
    assert set(blamed) == {0, 2}
    assert any("static assertion" in line for line in blamed[0])
    assert any("no matching function" in line for line in blamed[2])
    assert attribute_errors("fatal error: pto/pto-inst.hpp: No such file", "batch1.cpp",
                            [(13, 30)]) == {}
