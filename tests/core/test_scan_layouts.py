"""The scan on trees laid out like the real PTO repositories: operators and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.operators.scan import ScanResult, classify, scan
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.demo import demo_operator_dir
from tests.core.helpers import cli, cli_json
from tests.core.scan_layouts import (
    PTO_CPP,
    huawei_csl_like,
    pto_dsl_like,
    pto_kernels_like,
    write_tree,
)

KERNEL = "from ptodsl import jit\n\n\n@jit(block_dim=1)\ndef k(x):\n    pass\n"


def _listed(result: ScanResult) -> list[tuple[str, str | None]]:
    return [
        (c.path.relative_to(result.root).as_posix(), c.kind.value if c.kind else None)
        for c in result.candidates
    ]


def _reasons(result: ScanResult) -> dict[str, str]:
    return {s.path.relative_to(result.root).as_posix(): s.reason for s in result.skipped}


def test_pto_kernels_lists_the_ops_and_nothing_else(tmp_path: Path) -> None:
    result = scan(pto_kernels_like(tmp_path))
    assert _listed(result) == [
        ("python/pto_kernels/ops/attention/flash_attention_score", "pto-dsl"),
        ("python/pto_kernels/ops/mc2/matmul_reduce_scatter", "pto-dsl"),
    ]
    reasons = _reasons(result)
    assert reasons["bench/adapters"].startswith("benchmark adapters")
    assert reasons["bench/results"].startswith("benchmark results")
    assert reasons["tests"].startswith("tests")
    assert reasons["scripts"].startswith("scripts")  # its tuned_int call is no kernel
    assert reasons["kernel_meta"].startswith("build output")
    assert reasons["python/pto_kernels/utils"].startswith("shared helper modules")
    # the family's common.py holds @jit stages built by the operators beside it
    assert reasons["python/pto_kernels/ops/attention"] == (
        "no operator: its kernels are in common.py: a shared helper module"
    )
    # the seed C++ kernels are compiled by the root CMake project into the pybind module
    assert reasons["csrc/kernel"].startswith("PTO C++ compiled by CMakeLists.txt together")
    assert reasons["csrc"] == "its kernel files are those of csrc/kernel"
    # a JIT-compiled C++ example has no build pto-tui can drive
    assert reasons["examples/jit_cpp/silu_dynamic"].startswith("PTO C++ without a CMake project")


def test_pto_kernels_evidence_is_the_kernel_definition(tmp_path: Path) -> None:
    result = scan(pto_kernels_like(tmp_path))
    op = result.candidates[0]
    assert op.evidence == (
        "kernel.py:3: imports pto_kernels",
        "kernel.py:8: reads tuned_int(...) knobs",
        "kernel.py:11: defines build_jit_wrapper",
    )
    assert op.files == ("kernel.py",)


def test_scan_json_carries_the_discovered_tunables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = cli_json(capsys, "scan", pto_kernels_like(tmp_path))
    by_name = {c["name"]: c for c in data["candidates"]}
    knobs = {t["name"]: t for t in by_name["matmul_reduce_scatter"]["tunables"]}
    # read as `new` reads it: inside its repository, `where` relative to the repository root
    kernel = "python/pto_kernels/ops/mc2/matmul_reduce_scatter/kernel.py"
    assert knobs["PTO_MC2_WORLD_SIZE"] == {
        "name": "PTO_MC2_WORLD_SIZE",
        "kind": "env",
        "value": 2,
        "default": 2,
        "allowed": [2, 4, 8],
        "file": kernel,
        "where": f"{kernel}:8",
    }
    # valid_values=tuple(range(world_size)) cannot be read without running the code
    rank = knobs["PTO_MC2_RANK"]
    assert (rank["default"], rank["allowed"], rank["where"]) == (0, [], f"{kernel}:9")
    attention = by_name["flash_attention_score"]["tunables"]
    assert [t["name"] for t in attention] == ["PTO_ATTENTION_QK_BLOCK_DIM"]
    tests_reason = "tests: they check operators, they are none"
    assert {"path": str(tmp_path / "tests"), "reason": tests_reason} in data["skipped"]


def test_scan_verbose_says_why_folders_were_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = pto_kernels_like(tmp_path)
    assert cli("scan", root) == 0
    assert "folders left out as no operators (--verbose says why)" in capsys.readouterr().out
    assert cli("scan", root, "--verbose") == 0
    out = capsys.readouterr().out
    assert "bench/adapters: benchmark adapters: they call an operator, they define none" in out


def test_huawei_csl_has_no_operator_folder_pto_tui_can_build(tmp_path: Path) -> None:
    """Its kernels are C++ (csrc/kernel) compiled by the repository-wide CMake project into the
    pybind module pto_kernels_ops, and examples/jit_cpp/<op> compiled by a jit_util_*.py with
    no CMake project: neither is an operator folder with its own build, so nothing is listed;
    and nothing is PTO-DSL because the Python package beside them is named pto_kernels."""
    result = scan(huawei_csl_like(tmp_path))
    assert _listed(result) == []
    reasons = _reasons(result)
    assert set(reasons) == {
        ".skills",
        "csrc",
        "csrc/kernel",
        "examples/jit_cpp",
        "examples/jit_cpp/swiglu",
        "tests",
    }
    assert reasons["examples/jit_cpp"] == "its kernel files are those of examples/jit_cpp/swiglu"
    assert "declare it" in reasons["csrc/kernel"]
    assert "declare it" in reasons["examples/jit_cpp/swiglu"]
    example = classify(tmp_path / "examples/jit_cpp/swiglu")  # `pto-tui new` asks for --kind
    assert example is not None and (example.kind, example.status) == (None, "unclear")
    assert classify(tmp_path / "benchmarking") is None  # imports pto_kernels, defines nothing


def test_cmake_kernel_with_a_pto_kernels_binding_is_tile_lib(tmp_path: Path) -> None:
    folder = write_tree(
        tmp_path / "op",
        {
            "CMakeLists.txt": "project(op)\n",
            "kernel.cpp": PTO_CPP.format(name="op"),
            "bind.py": "import pto_kernels\nfrom pto_kernels import pto_kernels_ops\n",
        },
    )
    candidate = classify(folder)
    assert candidate is not None
    assert (candidate.kind, candidate.status) == (OperatorKind.PTO_TILE_LIB, "detected")


def test_pto_dsl_lists_the_example_kernels(tmp_path: Path) -> None:
    result = scan(pto_dsl_like(tmp_path))
    assert _listed(result) == [
        ("examples/aot/elementwise/add_dynamic_multicore", "pto-dsl"),
        ("examples/aot/topk", "pto-dsl"),
        ("examples/jit/add_static_multicore", "pto-dsl"),
    ]
    reasons = _reasons(result)
    assert reasons["ptodsl"] == "the PTO-DSL package itself: it provides the DSL, operators use it"
    assert set(reasons) == {"ptodsl", "tests", "scripts", "docs"}
    topk = result.candidates[1]
    assert "topk_builder.py:8: to_ir_module(...) applied to kernel _kernel" in topk.evidence


def test_a_dsl_package_outside_ptodsl_is_a_library(tmp_path: Path) -> None:
    folder = write_tree(
        tmp_path / "mydsl",
        {"api.py": KERNEL.replace("from ptodsl import jit", "import ptodsl\n\n\ndef jit(**kw):\n    pass")},
    )
    assert classify(folder) is None
    result = scan(tmp_path)
    assert _reasons(result) == {
        "mydsl": "no operator: its kernels are in api.py: defines the DSL's jit(): a library"
    }


def test_shared_stages_module_is_folded_into_the_operator(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "ops/attention/stages.py": KERNEL.replace("def k(", "def qk("),
            "ops/attention/fa/kernel.py": (
                "from pkg.ops.attention.stages import qk\nfrom ptodsl import pto\n\n\n"
                "def build_jit_wrapper(*, output_dir):\n    return qk\n"
            ),
        },
    )
    result = scan(tmp_path)
    assert _listed(result) == [("ops/attention/fa", "pto-dsl")]
    assert _reasons(result) == {
        "ops/attention": "a shared helper: its kernels are imported by ops/attention/fa"
    }


def test_gitignored_folders_are_left_out(tmp_path: Path) -> None:
    ignore = "# made by gen.py\ngenerated_ops/\n"
    write_tree(tmp_path, {".gitignore": ignore, "generated_ops/k.py": KERNEL, "op/k.py": KERNEL})
    result = scan(tmp_path)
    assert _listed(result) == [("op", "pto-dsl")]
    assert _reasons(result)["generated_ops"] == (
        "ignored by .gitignore (generated_ops/): generated or local files"
    )


def test_imports_alone_make_no_operator(tmp_path: Path) -> None:
    write_tree(tmp_path, {"adapter/run.py": "import ptodsl\nimport pto_kernels\n\nptodsl.jit\n"})
    assert scan(tmp_path).candidates == []


def test_demo_operators_are_still_found() -> None:
    result = scan(demo_operator_dir("demo_attention").parent)
    assert [(c.name, c.status, c.demo) for c in result.candidates] == [
        ("demo_attention", "declared", True),
        ("demo_fa", "declared", True),
    ]
