"""Where things are in a pto-isa checkout (and in a workspace's copy of one): the folders
and generators the costmodel and perf_sim builds need, relative to the checkout's root."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

INCLUDE_DIR = "include"
COSTMODEL_DIR = PurePosixPath("include/pto/costmodel")
# The generators a costmodel compile needs: each writes a formula header beside itself
# (`<arch>/formula_costmodel/formula_params_generated.hpp`, included by the costmodel
# headers), under COSTMODEL_DIR. pto_tui/costmodel/formula.py says why exactly these.
GENERATOR_GLOB = "*/formula_costmodel/gen_*_header.py"
# pto-isa's kernel-level cycle model: LAUNCH_KERNEL, the recorder and the reporter
PERF_SIM_DIR = COSTMODEL_DIR / "perf_sim"
PERF_SIM_LAUNCH = PERF_SIM_DIR / "launch.hpp"
# the host-runtime stand-ins a costmodel build compiles kernels against (acl/acl.h)
COSTMODEL_STUBS = COSTMODEL_DIR / "stubs"


def missing_perf_sim(root: Path) -> str:
    """What a checkout lacks to run perf_sim ("" when nothing): its perf_sim folder, or the
    folder's launch.hpp."""
    if not (root / PERF_SIM_DIR).is_dir():
        return f"{root} has no {PERF_SIM_DIR}/ (pto-isa's perf_sim cycle model)"
    if not (root / PERF_SIM_LAUNCH).is_file():
        return f"{root / PERF_SIM_DIR} has no launch.hpp (LAUNCH_KERNEL)"
    return ""
