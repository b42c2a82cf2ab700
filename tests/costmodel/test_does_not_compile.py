"""A pto-isa commit whose own costmodel headers do not compile: one line saying so, quoting
the compiler's first error and naming the newest commit pto-tui has seen compile.

The checkout is the pto-isa stand-in made a real git repository: its first commit
compiles; a later one adds two headers declaring one function with two return types (as
pto-isa's runtime_util.hpp and cpu_stub.hpp do with get_coreid at 3186c381), compiled with
the real g++.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, CostmodelError, ExternalEngine, run_queries
from pto_tui.costmodel.compiled import RECORDS_FILE

from .conftest import copy_stub

TADD = "TADD half -r 16 -c 64"
CONFLICT = "error: ambiguating new declaration of"
# The stand-in's pto-inst.hpp gains this include in the broken commit.
TRACE_INCLUDE = "#include <pto/costmodel/trace.hpp>\n"

# A query tool as a user would write one: generate the formula headers in the checkout
# (ignored by git there), compile the headers with g++, print the stand-in's number.
TOOL = """\
import math, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for gen in sorted((ROOT / "include/pto/costmodel").glob("*/formula_costmodel/gen_*.py")):
    subprocess.run([sys.executable, str(gen)], check=True, capture_output=True)
rows, cols = int(sys.argv[sys.argv.index("-r") + 1]), int(sys.argv[sys.argv.index("-c") + 1])
with tempfile.TemporaryDirectory() as tmp:
    src = Path(tmp) / "query.cpp"
    src.write_text("#include <pto/pto-inst.hpp>\\nint main() { return 0; }\\n")
    run = subprocess.run(["g++", "-std=c++20", "-fsyntax-only", "-D__COSTMODEL",
                          "-D__NPU_ARCH__=2201", f"-I{ROOT / 'include'}", str(src)],
                         capture_output=True, text=True)
if run.returncode:
    sys.stderr.write(run.stderr + "make: *** [query] Error 1\\n")
    sys.exit(2)
print(f"[CYCLE] TADD.half_{rows}x{cols} actual={14 + math.ceil(rows * cols * 2 / 256)}")
"""


def sweep(text: str) -> list:
    """A command line written as one string (readable in tests)."""
    return expand_sweep(text.split())


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t",
                           *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def break_headers(root: Path) -> None:
    """Two headers declaring get_coreid with two return types, reached from pto-inst.hpp."""
    (root / "include/pto/common/cpu_stub.hpp").write_text(
        "#pragma once\n#include <cstdint>\nuint32_t get_coreid();\n")
    util = root / "include/pto/costmodel/common/runtime_util.hpp"
    util.parent.mkdir(parents=True)
    util.write_text("#pragma once\n#include <pto/common/cpu_stub.hpp>\nint get_coreid();\n")
    inst = root / "include/pto/pto-inst.hpp"
    text = inst.read_text()
    assert TRACE_INCLUDE in text
    inst.write_text(text.replace(
        TRACE_INCLUDE, TRACE_INCLUDE + "#include <pto/costmodel/common/runtime_util.hpp>\n"))


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    """(checkout at its broken second commit, the good commit, the broken commit)."""
    root = copy_stub(tmp_path / "pto-isa")
    (root / "tools").mkdir()
    (root / "tools" / "query_pto_cycles.py").write_text(TOOL)
    git(root, "init", "-q")
    good = commit(root, "the costmodel compiles")
    break_headers(root)
    broken = commit(root, "get_coreid declared twice")
    return root, good, broken


async def query(root: Path, text: str = TADD) -> list:
    return await run_queries(sweep(text), BuiltinEngine(root, jobs=1))


async def test_a_commit_that_does_not_compile_names_the_newest_seen_working(
        history: tuple[Path, str, str]) -> None:
    root, good, broken = history
    git(root, "checkout", "-q", good)
    assert (await query(root))[0].ok  # seen compiling: recorded in pto-tui's home
    git(root, "checkout", "-q", broken)
    with pytest.raises(CostmodelError) as info:
        await query(root)
    message = info.value.message
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"the costmodel of pto-isa at {broken[:8]} does not compile "
                              f"with g++ (newest commit seen compiling here: {good[:8]}): ")
    # The compiler's first error line, the checkout's path shortened; not make's tail.
    quoted = message.split("): ", 1)[1]
    assert quoted.startswith("<pto-isa>/include/pto/costmodel/common/runtime_util.hpp:3:")
    assert CONFLICT in quoted and "get_coreid()" in quoted
    assert f"worktree add <dir> {good[:8]}" in (info.value.hint or "")


async def test_without_a_record_none_is_known_and_a_batch_says_the_same(
        history: tuple[Path, str, str]) -> None:
    root, _, broken = history
    engine = BuiltinEngine(root, jobs=1)
    with pytest.raises(CostmodelError) as info:
        await run_queries(sweep("TADD half -r 8,16,32 -c 64"), engine)
    message = info.value.message
    assert "\n" not in message
    assert f"at {broken[:8]} does not compile with g++ (no earlier commit of this checkout " \
           "seen compiling): <pto-isa>/include/pto/costmodel/common/runtime_util.hpp:3:" in message
    assert engine.compiles == 2  # the batch, then the first query alone to confirm
    assert not (Path(os.environ["PTO_TUI_HOME"]) / RECORDS_FILE).exists()


async def test_only_an_ancestor_of_head_is_named(history: tuple[Path, str, str]) -> None:
    root, good, broken = history
    # A later commit on another branch compiles too, and is seen first-hand...
    git(root, "checkout", "-q", "-b", "side", good)
    (root / "include/pto/common/constants.hpp").write_text(
        (root / "include/pto/common/constants.hpp").read_text() + "// side branch\n")
    side = commit(root, "side branch")
    assert (await query(root))[0].ok
    git(root, "checkout", "-q", good)
    assert (await query(root))[0].ok
    records = json.loads((Path(os.environ["PTO_TUI_HOME"]) / RECORDS_FILE).read_text())
    (seen,) = records["checkouts"].values()
    assert set(seen) == {good, side}
    # ...but the broken commit does not descend from it: the good commit is named.
    git(root, "checkout", "-q", broken)
    with pytest.raises(CostmodelError, match=f"newest commit seen compiling here: {good[:8]}"):
        await query(root)


async def test_a_local_edit_is_not_recorded_as_the_commit(history: tuple[Path, str, str]) -> None:
    root, good, _ = history
    git(root, "checkout", "-q", good)
    constants = root / "include/pto/common/constants.hpp"
    constants.write_text(constants.read_text() + "// edited\n")
    assert (await query(root))[0].ok
    assert not (Path(os.environ["PTO_TUI_HOME"]) / RECORDS_FILE).exists()


async def test_a_commit_seen_compiling_blames_the_set_up(history: tuple[Path, str, str]) -> None:
    root, good, _ = history
    git(root, "checkout", "-q", good)
    assert (await query(root))[0].ok
    # The same commit without __COSTMODEL: the stand-in stops with #error.
    engine = BuiltinEngine(root, jobs=1, extra_flags=("-U__COSTMODEL",))
    with pytest.raises(CostmodelError) as info:
        await run_queries(sweep(TADD), engine)
    assert f"at {good[:8]} does not compile with g++ (yet pto-tui has seen this commit " \
           "compile: the compiler, flags or local edits differ): " in info.value.message
    assert "compile with -D__COSTMODEL" in info.value.message
    assert "worktree add" not in (info.value.hint or "")


async def test_the_external_tool_says_the_same(history: tuple[Path, str, str]) -> None:
    root, good, broken = history
    tool = str(root / "tools" / "query_pto_cycles.py")
    git(root, "checkout", "-q", good)
    ok = await run_queries(sweep(TADD), ExternalEngine(tool, python=sys.executable))
    assert ok[0].ok and ok[0].cycles == 22, ok[0].error
    git(root, "checkout", "-q", broken)
    with pytest.raises(CostmodelError) as info:
        await run_queries(sweep("TADD half -r 8,16 -c 64"),
                          ExternalEngine(tool, python=sys.executable))
    message = info.value.message
    assert "\n" not in message and "make:" not in message
    assert message.startswith(
        f"the costmodel of pto-isa at {broken[:8]} does not compile with the tool "
        f"query_pto_cycles.py (newest commit seen compiling here: {good[:8]}): "
        "<pto-isa>/include/pto/costmodel/common/runtime_util.hpp:3:")
    assert CONFLICT in message


def test_the_cli_prints_the_line_and_its_hint(history: tuple[Path, str, str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    root, _, broken = history
    code = main(["costmodel", *TADD.split(), "--pto-isa", str(root), "--no-cache"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    first, hint = err.rstrip("\n").split("\n")
    assert first.startswith(f"pto-tui: error: the costmodel of pto-isa at {broken[:8]} does "
                            "not compile with g++")
    assert CONFLICT in first
    assert hint.startswith("  hint: ")
