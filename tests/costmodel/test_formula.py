"""The formula generators a query needs, run into an overlay named by their inputs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pto_tui.core.cycles.sweep import expand_sweep
from pto_tui.costmodel import BuiltinEngine, CostmodelError, run_queries
from pto_tui.costmodel.formula import (
    ensure_formula_headers,
    find_generators,
    generator_inputs,
    inputs_digest,
)

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


async def test_a_failing_generator_is_one_line_naming_it(fresh_stub: Path) -> None:
    (fresh_stub / A5 / "formula_params.csv").write_text("name,value\nkVfStartupCycles,x\n")
    with pytest.raises(CostmodelError) as info:
        await BuiltinEngine(fresh_stub, jobs=1).prepare()
    message, hint = info.value.message, info.value.hint or ""
    assert "\n" not in message  # one line, not the traceback
    assert message.startswith(f"pto-isa's formula generator {A5 / 'gen_formula_params_header.py'}"
                              " failed (exit code 1): ")
    # The traceback's last line, the error itself.
    assert message.endswith("ValueError: invalid literal for int() with base 10: 'x'")
    assert "Traceback" not in message
    # The hint says what pto-tui did, and where the whole output is.
    assert "run it by hand" not in hint
    assert f"in a copy of {A5}/ and its sub-folders" in hint
    log = Path(hint.rsplit(" ", 1)[-1])
    assert "Traceback (most recent call last)" in log.read_text()


# The layout of the real generators since pto-isa 6ea657ef: the a5 VF simulator's generator
# reads params/*.csv beside it. Here the a5 formula generator reads a sub-folder too, so a
# query depends on a sub-folder input.
VFSIM = Path("include/pto/costmodel/a5/VfSim")
SUBFOLDER_GENERATOR = """\
import csv
from pathlib import Path

HERE = Path(__file__).resolve().parent
rows = []
for path in sorted((HERE / "params").glob("*.csv")):
    with path.open(encoding="utf-8", newline="") as handle:
        rows += list(csv.DictReader(handle))
lines = ["#pragma once", "#include <cstdint>", "namespace {ns} {{",
         *(f"constexpr uint64_t {{r['name']}} = {{int(r['value'])}};" for r in rows), "}}"]
(HERE / "{out}").write_text("\\n".join(lines) + "\\n", encoding="utf-8")
"""


def _real_layout(root: Path) -> Path:
    """The stand-in with its a5 formula inputs in params/ and a VfSim-like generator."""
    (root / A5 / "formula_params.csv").unlink()
    (root / A5 / "params").mkdir()
    (root / A5 / "params" / "vf.csv").write_text("name,value\nkVfStartupCycles,9\n")
    (root / A5 / "gen_formula_params_header.py").write_text(
        SUBFOLDER_GENERATOR.format(ns="pto::formula_a5", out=GENERATED))
    (root / VFSIM / "params").mkdir(parents=True)
    (root / VFSIM / "params" / "isa_defaults.csv").write_text("name,value\nkIssueWidth,2\n")
    (root / VFSIM / "gen_vfsim_params_header.py").write_text(
        SUBFOLDER_GENERATOR.format(ns="pto::vfsim", out="VfSimParamsGenerated.h"))
    return root


def test_only_the_formula_generators_are_needed(fresh_stub: Path) -> None:
    root = _real_layout(fresh_stub)
    assert find_generators(root) == [A2A3 / "gen_formula_params_header.py",
                                     A5 / "gen_formula_params_header.py"]
    # What a generator reads includes its sub-folders; headers are never inputs.
    (root / A5 / "params" / "old_generated.hpp").write_text("// left over\n")
    assert generator_inputs(root, A5 / "gen_formula_params_header.py") == [
        A5 / "gen_formula_params_header.py", A5 / "params" / "vf.csv"]


async def test_a_subfolder_input_is_staged_and_the_vfsim_generator_does_not_run(
        fresh_stub: Path, tmp_path: Path) -> None:
    root = _real_layout(fresh_stub)
    home = tmp_path / "overlays"
    headers = await ensure_formula_headers(root, home=home)
    assert headers.generated and headers.include_dir is not None
    assert headers.generators == (str(A2A3 / "gen_formula_params_header.py"),
                                  str(A5 / "gen_formula_params_header.py"))
    overlay = headers.include_dir.parent
    a5_header = overlay / A5 / GENERATED
    # The a5 header was made from params/vf.csv, staged beside the generator.
    assert "kVfStartupCycles = 9;" in a5_header.read_text()
    assert (overlay / A5 / "params" / "vf.csv").is_file()
    # The VfSim-like generator neither ran nor was staged.
    assert not (overlay / VFSIM).exists()
    assert not (root / VFSIM / "VfSimParamsGenerated.h").exists()
    # And the query compiles and answers with these headers.
    results = await run_queries(expand_sweep(["TADD", "half", "-r", "16", "-c", "64"]),
                                BuiltinEngine(root, jobs=1))
    assert results[0].ok and results[0].cycles == 22, results[0].error


async def test_a_subfolder_input_changes_the_overlay_key(fresh_stub: Path,
                                                         tmp_path: Path) -> None:
    root = _real_layout(fresh_stub)
    home = tmp_path / "overlays"
    generators = find_generators(root)
    first = await ensure_formula_headers(root, home=home)
    key = inputs_digest(root, generators)
    # The VF simulator's inputs are not a query's: changing them keeps the overlay.
    (root / VFSIM / "params" / "isa_defaults.csv").write_text("name,value\nkIssueWidth,4\n")
    assert inputs_digest(root, generators) == key
    assert not (await ensure_formula_headers(root, home=home)).generated
    # A CSV in the generator's params/ folder is an input: a new overlay, new numbers.
    (root / A5 / "params" / "vf.csv").write_text("name,value\nkVfStartupCycles,7\n")
    assert inputs_digest(root, generators) != key
    second = await ensure_formula_headers(root, home=home)
    assert second.generated and second.include_dir != first.include_dir
    assert second.include_dir is not None
    assert "kVfStartupCycles = 7;" in (second.include_dir.parent / A5 / GENERATED).read_text()
