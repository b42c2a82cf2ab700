"""Source trees laid out like the public PTO repositories, written for the scan tests.

The paths, module names and the shape of the code follow the real checkouts
(PTO-ISA/pto-kernels, huawei-csl/pto-kernels, PTO-ISA/pto-dsl); the code itself is
written here and never run.
"""

from __future__ import annotations

from pathlib import Path

PTO_CPP = (
    "#include <pto/pto-inst.hpp>\n"
    "using namespace pto;\n"
    "void {name}() {{ Tile<TileType::Vec, float, 16, 16> t; TLOAD(t, t); TADD(t, t, t); }}\n"
)

# examples/jit_cpp/<op>/jit_util_<op>.py: compiles the .cpp with bisheng at run time
JIT_UTIL = "import subprocess\n\n\ndef jit_compile(src):\n    subprocess.run(['bisheng', src])\n"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _pto_kernels_op(family: str, op: str, knobs: str) -> dict[str, str]:
    """ops/<family>/<op>/{kernel.py,meta.py,runtime.py} as pto-kernels writes them."""
    base = f"python/pto_kernels/ops/{family}/{op}"
    return {
        f"{base}/kernel.py": (
            '"""PTO-DSL kernel."""\n\n'
            f"from pto_kernels.ops.{family}.common import build_stages\n"
            "from pto_kernels.utils.tuning import tuned_int\n\n\n"
            f"def _config():\n{knobs}\n\n\n"
            "def build_jit_wrapper(*, output_dir):\n"
            "    return build_stages(config=_config(), output_dir=output_dir)\n"
        ),
        f"{base}/meta.py": "from pto_kernels.ops.common import planned_meta\n\nMETA = planned_meta()\n",
        f"{base}/runtime.py": "import torch\nimport torch_npu  # noqa: F401\n\n\ndef run(x):\n    return x\n",
        f"python/pto_kernels/ops/{family}/common.py": (
            "from ptodsl import jit, pto\n\n\n"
            "def build_stages(*, config, output_dir):\n"
            "    @jit(meta_data=None, output_dir=output_dir, block_dim=8)\n"
            "    def stage(x):\n        pto.tload(x)\n\n    return stage\n"
        ),
        f"bench/adapters/ptodsl/{family}/{op}.py": (
            f"from pto_kernels.ops.{family}.{op}.kernel import build_jit_wrapper\n\n\n"
            "def build(output_dir):\n    return build_jit_wrapper(output_dir=output_dir)\n"
        ),
        f"bench/specs/{family}/{op}.yaml": f"name: {op}\nfamily: {family}\n",
        f"bench/results/{family}/{op}/20260311T151340Z/report.json": '{"correctness": {"passes": true}}\n',
    }


def pto_kernels_like(root: Path) -> Path:
    """PTO-ISA/pto-kernels: the operators are python/pto_kernels/ops/<family>/<op>/."""
    files: dict[str, str] = {
        ".gitignore": "pto_kernels_*.so\n__pycache__/\ndist/\nbuild\n*.egg-info/\nkernel_meta/\n",
        "python/pto_kernels/__init__.py": "",
        "python/pto_kernels/ops/__init__.py": "",
        "python/pto_kernels/ops/common.py": "def planned_meta(**fields):\n    return fields\n",
        "python/pto_kernels/utils/__init__.py": "",
        "python/pto_kernels/utils/tuning.py": (
            "import os\n\n\ndef tuned_int(name, default, *, valid_values=None, minimum=None):\n"
            "    return int(os.environ.get(name, default))\n"
        ),
        "python/pto_kernels/bench/runner.py": "from pto_kernels.bench.specs import load_spec\n",
        "tests/test_registry_inventory.py": "import pto_kernels\n\nassert pto_kernels\n",
        "scripts/tune_seed_kernels.py": (
            "from pto_kernels.utils.tuning import tuned_int\n\nBLOCK = tuned_int('PTO_SEED_BLOCK', 8)\n"
        ),
        "kernel_meta/stage/kernel.py": "from ptodsl import jit\n\n\n@jit(block_dim=1)\ndef k(x):\n    pass\n",
        "CMakeLists.txt": (
            "project(pto-kernels)\nascendc_library(kernels SHARED\n  csrc/kernel/kernel_abs.cpp)\n"
            "pybind11_add_module(pto_kernels_ops csrc/host/pybind11.cpp)\n"
        ),
        "csrc/kernel/kernel_abs.cpp": PTO_CPP.format(name="kernel_abs"),
        "csrc/host/pybind11.cpp": "PYBIND11_MODULE(pto_kernels_ops, m) {}\n",
        "examples/jit_cpp/silu_dynamic/silu_dynamic.cpp": PTO_CPP.format(name="silu"),
        "examples/jit_cpp/silu_dynamic/jit_util_silu.py": JIT_UTIL,
        "examples/jit_cpp/silu_dynamic/run_silu.py": "import torch\nfrom jit_util_silu import jit_compile\n",
    }
    files |= _pto_kernels_op(
        "attention",
        "flash_attention_score",
        '    return dict(qk_block_dim=tuned_int("PTO_ATTENTION_QK_BLOCK_DIM", 8, '
        "valid_values=(1, 2, 4, 8, 16, 20)))",
    )
    files |= _pto_kernels_op(
        "mc2",
        "matmul_reduce_scatter",
        '    world_size = tuned_int("PTO_MC2_WORLD_SIZE", 2, valid_values=(2, 4, 8))\n'
        '    rank_id = tuned_int("PTO_MC2_RANK", 0, minimum=0, valid_values=tuple(range(world_size)))\n'
        "    return dict(world_size=world_size, rank_id=rank_id)",
    )
    return write_tree(root, files)


def huawei_csl_like(root: Path) -> Path:
    """huawei-csl/pto-kernels: C++ kernels in csrc/kernel built by the root CMake project into
    the pybind module pto_kernels_ops of package pto_kernels; standalone examples/jit_cpp/<op>
    kernels compiled by their jit_util_*.py helpers."""
    return write_tree(
        root,
        {
            "CMakeLists.txt": (
                "project(pto-kernels)\nascendc_library(kernels SHARED\n"
                "  csrc/kernel/kernel_swiglu.cpp\n  csrc/kernel/kernel_abs.cpp)\n"
                "pybind11_add_module(pto_kernels_ops csrc/host/pybind11.cpp)\n"
            ),
            "csrc/kernel/kernel_swiglu.cpp": PTO_CPP.format(name="swiglu"),
            "csrc/kernel/kernel_abs.cpp": PTO_CPP.format(name="abs"),
            "csrc/host/pybind11.cpp": "PYBIND11_MODULE(pto_kernels_ops, m) {}\n",
            "python/pto_kernels/__init__.py": "import torch\n\nfrom .pto_kernels_ops import *\n",
            "tests/test_swiglu.py": "import pto_kernels\n\n\ndef test_swiglu():\n    assert pto_kernels\n",
            "benchmarking/bench_tri_inv_col_sweep.py": "import pto_kernels\n\nprint(pto_kernels)\n",
            "examples/jit_cpp/swiglu/swiglu.cpp": PTO_CPP.format(name="swiglu"),
            "examples/jit_cpp/swiglu/jit_util_swiglu.py": JIT_UTIL,
            "examples/jit_cpp/swiglu/bench_swiglu_pybind.py": "import torch\nimport pto_kernels\n",
            "examples/jit_cpp/swiglu/test_swiglu.py": "from jit_util_swiglu import jit_compile\n",
            ".skills/testing-pto-kernels/reference/static_single_core/a5/add.cpp": PTO_CPP.format(name="add"),
        },
    )


def pto_dsl_like(root: Path) -> Path:
    """PTO-ISA/pto-dsl: the `ptodsl` package itself, example kernels (AOT builders with
    @to_ir_module, JIT scripts with @jit), and tests that define kernels of their own."""
    aot_kernel = (
        "from ptodsl import pto, tile, to_ir_module\n\n\n"
        "def meta_data():\n    return {}\n\n\n"
        "@to_ir_module(meta_data=meta_data)\ndef vec_add(arg0: 'ptr_type') -> None:\n    pass\n"
    )
    return write_tree(
        root,
        {
            "ptodsl/__init__.py": "from .compiler.ir import to_ir_module\nfrom .compiler.jit import jit\n",
            "ptodsl/compiler/__init__.py": "",
            "ptodsl/compiler/jit.py": "def jit(*, meta_data, block_dim=1):\n    return lambda f: f\n",
            "ptodsl/compiler/ir.py": "def to_ir_module(*, meta_data):\n    return lambda f: f\n",
            "ptodsl/lib/a5/kernels.py": aot_kernel,
            "examples/aot/elementwise/add_dynamic_multicore/add_builder.py": aot_kernel,
            "examples/aot/elementwise/add_dynamic_multicore/caller.cpp": '#include KERNEL_CPP\n',
            "examples/aot/elementwise/add_dynamic_multicore/run_add.py": "import torch\nimport ptodsl\n",
            "examples/aot/topk/topk_builder.py": (
                "from ptodsl import pto, tile, to_ir_module\n\n\n"
                "def build(_meta_data):\n    def _kernel(x):\n        pass\n\n"
                "    return to_ir_module(meta_data=_meta_data)(_kernel)\n"
            ),
            "examples/jit/add_static_multicore/run_add_1d.py": (
                "from ptodsl import jit, pto, tile\nimport torch\n\n\n"
                "@jit(meta_data=None, block_dim=20)\ndef add_1d(x, y, z):\n    pass\n"
            ),
            "tests/npu/gather_dynamic_multicore/builder.py": aot_kernel,
            "tests/frontend/test_add_ir.py": aot_kernel,
            "scripts/gen_tile_ops.py": "from ptodsl import pto\n",
            "docs/latest_api.md": "# API\n",
        },
    )
