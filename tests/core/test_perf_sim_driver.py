"""perf_sim drivers derived from a tile-lib operator's sources (generator-driven and a wrapper
with constant locals), compiled with g++ against a stand-in of pto-isa's perf_sim, run, and
their output read: cycles that follow the knobs, the same on every run and after a
comment-only edit; what cannot be derived is refused with the reason and the marker key."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.operators.perf_sim_driver import (
    CUBE_AND_VECTOR,
    MARKER_KEY,
    VECTOR_ONLY,
    PerfSimDriver,
    derive_driver,
    kernel_defines,
)
from pto_tui.core.reports.compiler import first_compiler_error
from pto_tui.core.reports.perf_sim import parse_perf_sim_run
from tests.core.perf_sim_build import (
    ATTN_CASE,
    NEEDS_GXX,
    OPERATORS,
    build_and_run,
    compile_driver,
    derived,
    generate_cases,
    operator_copy,
    read_sources,
    refusal,
)


def _cycles(root: Path, build: Path, workload: dict[str, int] | None = None) -> int:
    driver = derived(root, workload)
    run = build_and_run(root, build, driver)
    return parse_perf_sim_run(run.output, run.summary_csv).total_cycles


def test_a_generator_driven_driver_runs_the_case_row_as_the_host_calls_the_wrapper() -> None:
    driver = derived(OPERATORS["attn_op"], ATTN_CASE)
    assert (driver.kernel, driver.kernel_file, driver.blocks) == (
        "runAttnOp",
        "attn_op_kernel.cpp",
        "block_rows",
    )
    assert driver.wrapper == "LaunchAttnOp at attn_op_kernel.cpp:71"
    assert driver.instantiated == "the call at main.cpp:26, expanded from the rows of ATTN_OP_FOR_EACH_CASE"
    assert (driver.generated_header, driver.summary_csv) == (
        "generated_cases.h",
        "perf_sim_output/runAttnOp_pipeline_summary.csv",
    )
    assert driver.defines == CUBE_AND_VECTOR and "dav-c220" in driver.defines_reason
    text = driver.text
    assert '#include "attn_op_kernel.cpp"\n#include "generated_cases.h"' in text
    # the host's arguments: row fields by the case macro's parameters, the constants by name,
    # the intermediate check (switched at run time by main.cpp) off
    row = "S0, HEAD, S1, CUBE_S0, CUBE_S1, TILE_S1, QK_PRELOAD"
    assert (
        f"PtoTuiPerfSim<PTO_TUI_ROW_MATCHES({row}), {row}, kAttnFifoSize, false, kAttnSyncPeriod>()" in text
    )
    assert "((HEAD) == 64 && (S0) == 128 && (S1) == 512)" in text
    # the launch's constant local is copied; the wrapper's other local and warm-up are not
    assert "        constexpr uint32_t block_rows = S0 / CUBE_S0;" in text
    assert "bytes" not in text and "warmup_kernel" not in text
    assert "LAUNCH_KERNEL(runAttnOp, PTO_TUI_KERNEL_TARGS, (block_rows, nullptr, nullptr), nullptr, " in text


@NEEDS_GXX
def test_cycles_follow_a_tile_knob_and_not_a_comment(tmp_path: Path) -> None:
    root = operator_copy("attn_op", tmp_path)
    # two rows in the header: the driver runs only the case's
    build = generate_cases(root, "64,128,512,64,128", "64,64,256,32,128", qk_preload=2)
    driver = derived(root, ATTN_CASE)
    run = build_and_run(root, build, driver)
    first = parse_perf_sim_run(run.output, run.summary_csv)
    assert (first.cores, first.total_cycles) == (2, 4536)  # block_rows = 128 / 64
    assert build_and_run(root, build, driver) == run  # deterministic: the same report and CSV
    build = generate_cases(root, "64,128,512,64,256", qk_preload=2)
    wider = _cycles(root, build, ATTN_CASE)
    assert wider != first.total_cycles
    header = root / "attn_op_kernel.h"
    header.write_text(header.read_text().replace("#include <cstdint>\n", "#include <cstdint>\n// a note\n"))
    build = generate_cases(root, "64,128,512,64,128", qk_preload=2)
    assert _cycles(root, build, ATTN_CASE) == first.total_cycles


@NEEDS_GXX
def test_a_wrapper_driver_measures_its_constants_as_edited(tmp_path: Path) -> None:
    root = operator_copy("matmul_op", tmp_path)
    driver = derived(root)
    assert driver.instantiated == "template LaunchMatmulOp<uint16_t> at matmul_op_kernel.cpp:47"
    assert (driver.kernel, driver.blocks, driver.generated_header) == ("MatmulOp", "blockDim", "")
    assert "PtoTuiPerfSim<true, uint16_t>()" in driver.text
    launch = "LAUNCH_KERNEL(MatmulOp, PTO_TUI_KERNEL_TARGS, (blockDim, nullptr, nullptr)"
    assert f"{launch}, nullptr, nullptr, nullptr);" in driver.text
    build = root / "build"
    build.mkdir()
    run = build_and_run(root, build, driver)
    first = parse_perf_sim_run(run.output, run.summary_csv)
    assert first.cores == 4 and first.pipe("Vector").busy_cycles == 0 and first.pipe("Matrix").busy_cycles > 0
    kernel = root / "matmul_op_kernel.cpp"
    kernel.write_text(kernel.read_text().replace("baseK = 64;", "baseK = 32;"))
    edited = derived(root)
    assert "constexpr uint32_t baseK = 32;" in edited.text
    assert _cycles(root, build) != first.total_cycles


@NEEDS_GXX
def test_a_case_without_its_row_fails_to_compile_naming_the_row(tmp_path: Path) -> None:
    root = operator_copy("attn_op", tmp_path)
    build = generate_cases(root, "64,128,512,64,128")
    compiled = compile_driver(root, build, derived(root, {**ATTN_CASE, "s1": 1024}))
    assert compiled.returncode != 0
    error = first_compiler_error(compiled.stderr)
    assert error is not None and "perf_sim_driver.cpp:" in error
    assert "exactly one row of ATTN_OP_FOR_EACH_CASE must have HEAD = 64, S0 = 128, S1 = 1024" in error
    # without the case's workload the header must hold one row
    build = generate_cases(root, "64,128,512,64,128", "64,64,256,32,128")
    error = first_compiler_error(compile_driver(root, build, derived(root)).stderr)
    assert error is not None and "perf_sim driver: ATTN_OP_FOR_EACH_CASE must have one row" in error


@NEEDS_GXX
def test_a_kernel_that_does_not_compile_is_quoted_by_its_first_error(tmp_path: Path) -> None:
    root = operator_copy("attn_op", tmp_path)
    kernel = root / "attn_op_kernel.cpp"
    text = kernel.read_text()
    kernel.write_text(text.replace("TVEC(kVecRows * TILE_S1); // exp", "TVEC(kVecRows * TILE_S1) // exp"))
    line = text[: text.index("TVEC(kVecRows * TILE_S1); // exp")].count("\n") + 1
    build = generate_cases(root, "64,128,512,64,128")
    compiled = compile_driver(root, build, derived(root, ATTN_CASE))
    assert compiled.returncode != 0
    error = first_compiler_error(compiled.stderr)
    assert error is not None and error.startswith(f"{root / 'attn_op_kernel.cpp'}:{line}:")
    assert "error: expected" in error and "before" in error
    assert "In file included" not in error and "note:" not in error


def _sources(name: str) -> dict[str, str]:
    return read_sources(OPERATORS[name])


def _replace(sources: dict[str, str], old: str, new: str) -> dict[str, str]:
    return {rel: text.replace(old, new) for rel, text in sources.items()}


def test_no_kernel_launch_is_refused_naming_the_marker_key() -> None:
    sources = _replace(_sources("matmul_op"), "<<<blockDim, nullptr, stream> > >", "")
    reason = refusal(sources)
    assert "no host function launches a kernel with <<<...>>> (outside __CPU_SIM code)" in reason
    assert f'{MARKER_KEY} = "path"' in reason
    # a launch only the CPU simulation compiles is none
    cpu_only = {"k.cpp": "#ifdef __CPU_SIM\nvoid Launch() { Kernel<<<1, nullptr, nullptr>>>(); }\n#endif\n"}
    assert "no host function launches a kernel" in refusal(cpu_only)


def test_a_run_time_switch_that_is_not_a_bool_is_refused() -> None:
    sources = _replace(_sources("attn_op"), "bool INTERMEDIATE_CHECK", "int INTERMEDIATE_CHECK")
    sources = _replace(sources, "QK_PRELOAD, true>();", "QK_PRELOAD, 1>();")
    sources = _replace(sources, "QK_PRELOAD, false>();", "QK_PRELOAD, 0>();")
    reason = refusal(sources, ATTN_CASE)
    assert "INTERMEDIATE_CHECK of LaunchAttnOp is INTERMEDIATE_CHECK at main.cpp:26" in reason
    assert "chosen at run time: only a bool switch is set (to false)" in reason


def test_what_every_caller_passes_is_passed_as_written_there() -> None:
    sources = _replace(_sources("attn_op"), "QK_PRELOAD, false>();", "QK_PRELOAD, true>();")
    run_attn = "run_attn<T, S0, HEAD_SIZE, S1, CUBE_S0, CUBE_S1, TILE_S1, "
    sources = _replace(sources, run_attn + "QK_PRELOAD,", run_attn + "3,")
    driver = derive_driver(sources, ATTN_CASE)
    assert isinstance(driver, PerfSimDriver)
    # QK_PRELOAD: the literal 3 of both calls in run_case; the check: true in both
    assert "CUBE_S0, CUBE_S1, TILE_S1, 3, kAttnFifoSize, true, kAttnSyncPeriod>();" in driver.text


def test_a_wrapper_instantiated_twice_is_refused() -> None:
    sources = _sources("matmul_op")
    rel = "matmul_op_kernel.cpp"
    second = (
        "template void LaunchMatmulOp<float>(uint8_t *out, uint8_t *src0, uint8_t *src1, void *stream);\n"
    )
    first = (
        "template void LaunchMatmulOp<uint16_t>(uint8_t *out, uint8_t *src0, uint8_t *src1, void *stream);\n"
    )
    sources[rel] = sources[rel].replace(first, first + second)
    reason = refusal(sources)
    assert (
        "LaunchMatmulOp has 2 explicit instantiations (<uint16_t> at matmul_op_kernel.cpp:47; <float> at "
        "matmul_op_kernel.cpp:48)" in reason
    )
    assert "which one runs is not known" in reason


def test_a_launch_that_needs_run_time_values_is_refused() -> None:
    blocks = _replace(_sources("matmul_op"), "<<<blockDim, nullptr", "<<<blocks, nullptr")
    blocks = _replace(blocks, "void *stream)\n{", "void *stream, uint32_t blocks)\n{")
    assert "the launch uses blocks, an argument of the wrapper known only at run time" in refusal(blocks)
    local = _replace(_sources("matmul_op"), "constexpr uint32_t blockDim = 4;", "uint32_t blockDim = 4;")
    assert "the launch uses the local blockDim, which is not a constant" in refusal(local)
    scalar = _replace(_sources("matmul_op"), "__gm__ uint8_t *src1)", "__gm__ uint8_t *src1, uint32_t tiles)")
    scalar = _replace(scalar, "(out, src0, src1);", "(out, src0, src1, 4);")
    assert "the kernel MatmulOp takes `uint32_t tiles`, a value known only at run time" in refusal(scalar)


def test_the_defines_follow_the_architecture_the_kernel_is_built_for() -> None:
    assert kernel_defines(_sources("attn_op"))[0] == CUBE_AND_VECTOR  # dav-c220 via a variable
    assert kernel_defines(_sources("matmul_op"))[0] == CUBE_AND_VECTOR  # dav-c220-cube
    vector = _replace(_sources("matmul_op"), "dav-c220-cube", "dav-c220-vec")
    assert kernel_defines(vector) == (
        VECTOR_ONLY,
        "CMakeLists.txt builds the kernel for dav-c220-vec (vector only)",
    )
    commented = _replace(
        _sources("matmul_op"),
        "cmake_minimum_required",
        "# --cce-aicore-arch=dav-c220-vec\ncmake_minimum_required",
    )
    assert kernel_defines(commented)[0] == CUBE_AND_VECTOR
    assert kernel_defines({"k.cpp": ""}) == (
        CUBE_AND_VECTOR,
        "no --cce-aicore-arch in CMakeLists.txt: cube and vector",
    )
