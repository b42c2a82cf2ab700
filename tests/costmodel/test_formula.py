"""Every formula generator a checkout ships, run into an overlay named by their inputs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pto_tui.core.costmodel.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, CostmodelError, run_queries
from pto_tui.costmodel.formula import ensure_formula_headers, find_generators

A2A3 = Path("include/pto/costmodel/a2a3/formula_costmodel")
A5 = Path("include/pto/costmodel/a5/formula_costmodel")
GENERATED = "formula_params_generated.hpp"


def _csv(root: Path, folder: Path, startup: int) -> None:
    (root / folder / "formula_params.csv").write_text(
        f"name,value\nkVecStartupCycles,{startup}\nkVecRepeatBytes,256\nkCubeStartupCycles,6\n",
        encoding="utf-8")


def test_both_generators_are_found(fresh_stub: Path) -> None:
    assert find_generators(fresh_stub) == [A2A3 / "gen_formula_params_header.py",
                                           A5 / "gen_formula_params_header.py"]


async def test_a_fresh_checkout_answers_and_stays_untouched(fresh_stub: Path) -> None:
    engine = BuiltinEngine(fresh_stub, jobs=1)
    results = await run_queries(expand_sweep(["TADD", "half", "-r", "16", "-c", "64"]), engine)
    assert results[0].ok, results[0].error
    assert results[0].cycles == 14 + 1 * 8
    assert engine.generated_formula_header
    assert len(engine.formula_generators) == 2
    # Nothing is written into the checkout: the headers live in the overlay.
    assert not (fresh_stub / A2A3 / GENERATED).exists()
    assert not (fresh_stub / A5 / GENERATED).exists()
    again = BuiltinEngine(fresh_stub, jobs=1)
    await again.prepare()
    assert not again.generated_formula_header  # the same inputs reuse the overlay


async def test_without_the_a5_header_the_stub_does_not_compile(fresh_stub: Path,
                                                                tmp_path: Path) -> None:
    # The stand-in is faithful: only running both generators makes it compile.
    headers = await ensure_formula_headers(fresh_stub, home=tmp_path / "overlay")
    assert headers.include_dir is not None
    (headers.include_dir / A5.relative_to("include") / GENERATED).unlink()
    probe = tmp_path / "probe.cpp"
    probe.write_text("#include <pto/pto-inst.hpp>\nint main() { return 0; }\n")
    run = subprocess.run(
        ["g++", "-std=c++20", "-D__COSTMODEL", "-D__NPU_ARCH__=2201",
         f"-I{headers.include_dir}", f"-I{fresh_stub / 'include'}", str(probe), "-o",
         str(tmp_path / "probe")], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "a5/formula_costmodel/formula_params_generated.hpp" in run.stderr


async def test_a_changed_csv_regenerates(fresh_stub: Path) -> None:
    query = expand_sweep(["TADD", "half", "-r", "16", "-c", "64"])
    first = await run_queries(query, BuiltinEngine(fresh_stub, jobs=1))
    _csv(fresh_stub, A2A3, 100)
    second = await run_queries(query, BuiltinEngine(fresh_stub, jobs=1))
    assert first[0].cycles == 22 and second[0].cycles == 108
    assert first[0].stamp.key != second[0].stamp.key  # no cached number crosses the change


async def test_a_stale_header_in_the_checkout_is_not_used(fresh_stub: Path) -> None:
    # A header generated earlier from another commit's CSV, left in the checkout.
    (fresh_stub / A2A3 / GENERATED).write_text(
        "#pragma once\n#include <cstdint>\nnamespace pto::formula {\n"
        "constexpr uint64_t kVecStartupCycles = 999;\nconstexpr uint64_t kVecRepeatBytes = 256;\n"
        "constexpr uint64_t kCubeStartupCycles = 6;\n}\n")
    results = await run_queries(expand_sweep(["TADD", "half", "-r", "16", "-c", "64"]),
                                BuiltinEngine(fresh_stub, jobs=1))
    assert results[0].cycles == 22


async def test_a_failing_generator_is_named(fresh_stub: Path) -> None:
    (fresh_stub / A5 / "formula_params.csv").write_text("name,value\nkVfStartupCycles,x\n")
    with pytest.raises(CostmodelError) as info:
        await BuiltinEngine(fresh_stub, jobs=1).prepare()
    assert "a5/formula_costmodel/gen_formula_params_header.py failed" in info.value.message
    assert "ValueError" in info.value.message
