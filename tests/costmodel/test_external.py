"""The external-tool engine against the stand-in query_pto_cycles.py (real subprocesses)."""

from __future__ import annotations

import sys
from pathlib import Path

from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, ExternalEngine, local_runner, run_queries


def sweep(text: str) -> list:
    """A command line written as one string (readable in tests)."""
    return expand_sweep(text.split())



async def test_tool_numbers_match_the_builtin_engine(tool_path: Path, stub_root: Path) -> None:
    queries = sweep("TMATMUL half,int8 half float --m 16,40 --k 50 --n 60")
    queries += sweep("TCVT half float -r 16 -c 64")
    queries += sweep("TROWSUM fp32 -r 64 -c 64")
    external = await run_queries(queries, ExternalEngine(str(tool_path), python=sys.executable))
    builtin = await run_queries(queries, BuiltinEngine(stub_root, jobs=2))
    assert [r.error for r in external if not r.ok] == []
    assert [r.cycles for r in external] == [r.cycles for r in builtin]
    assert external[0].stamp.engine == "external"
    assert "tool:" in external[0].stamp.costmodel


async def test_tool_failure_is_reported_per_query(tool_path: Path) -> None:
    queries = sweep("TADD half -r 8,13 -c 64")
    results = await run_queries(queries, ExternalEngine(str(tool_path), python=sys.executable))
    assert results[0].ok
    assert not results[1].ok
    assert "exit code 1" in results[1].error and "13-row" in results[1].error


async def test_commands_go_through_the_injected_runner(tool_path: Path) -> None:
    calls: list[tuple[list[str], str | None]] = []

    async def runner(argv: list[str], cwd: str | None) -> tuple[int, str, str]:
        calls.append((argv, cwd))
        return await local_runner(argv, cwd)

    engine = ExternalEngine(str(tool_path), python=sys.executable, runner=runner,
                            cwd="/tmp", jobs=1)
    results = await run_queries(sweep("TCVT half float -r 16 -c 64"), engine)
    assert results[0].ok and results[0].label == "TCVT.half<-float_16x64"
    tool_calls = [argv for argv, _ in calls if argv[0] == sys.executable]
    assert tool_calls == [[sys.executable, str(tool_path), "TCVT", "half", "float",
                           "-r", "16", "-c", "64"]]
    assert ("/tmp" in {cwd for argv, cwd in calls if argv[0] == sys.executable})
    assert any(argv[0] == "sha256sum" for argv, _ in calls)  # the stamp, through the runner too


async def test_a_tool_that_prints_no_cycle_line(tmp_path: Path) -> None:
    tool = tmp_path / "query_pto_cycles.py"
    tool.write_text("print('nothing here')\n")
    results = await run_queries(sweep("TADD half -r 16 -c 64"),
                                ExternalEngine(str(tool), python=sys.executable))
    assert not results[0].ok and "no [CYCLE] line" in results[0].error


async def test_a_missing_tool_is_a_clear_error(tmp_path: Path) -> None:
    from pto_tui.costmodel import CostmodelError

    engine = ExternalEngine(str(tmp_path / "nope.py"), python=sys.executable)
    try:
        await engine.stamp()
    except CostmodelError as error:
        assert "cannot read the costmodel tool" in error.message
    else:
        raise AssertionError("expected CostmodelError")
