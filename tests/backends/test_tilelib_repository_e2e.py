"""A tile-lib operator inside its pto-isa shaped repository, over a real sshd: `new` copies
the operator and the shared headers its CMakeLists.txt reaches, the workspace is uploaded,
and iter-000 is built with cmake + g++ and measured from the operator folder on the target."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
OP = "kernels/manual/common/fa_like"
BUILD = (
    "rm -rf build && mkdir build && cd build && {python} ../scripts/generate_cases.py "
    "--cases {case},{CUBE_S0},{TILE_S1} --qk-preload {QK_PRELOAD} --output-header generated_cases.h "
    "--output-json generated_cases.json && "
    "cmake -DPTO_CPU_SIM_STANDALONE=ON -DPython3_EXECUTABLE={python} .. && make"
)
BENCHMARK = "cd build && {python} ../scripts/gen_data.py --cases {case} && ./fa_like_cpu_sim"


@pytest.mark.sshd
@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_the_repository_copy_builds_and_runs_on_the_target(
    tmp_path: Path, ssh_target: SshTestTarget
) -> None:
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    work_dir = ssh_target.work_dir
    commands = (
        "--command", f"build={BUILD.replace('{python}', sys.executable)}",
        "--command", f"benchmark={BENCHMARK.replace('{python}', sys.executable)}",
    )
    target = ("--target", f"ssh:{ssh_target.alias}", "--work-dir", str(work_dir))
    projects = tmp_path / "projects"
    case = ("--case-spec", "64,128,512")
    assert cli("new", source / OP, *case, "--projects-root", projects, *commands, *target) == 0
    root = projects / "fa_like"
    project = ProjectFile(root / "project.toml")
    project.set("target.ssh_config", str(ssh_target.ssh_config))
    project.set("discipline.repeats", 3)
    project.set("discipline.max_repeats", 3)  # a fixed number of runs
    project.save()
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "cmake=ok") == 0  # npu mode, no NPU: passed by hand
    assert cli("--project", root, "baseline") == 0
    remote = work_dir / "kernel"
    assert (remote / "include/pto/pto-inst.hpp").is_file()
    assert (remote / OP / "build/fa_like_cpu_sim").is_file() and (remote / OP / "build/report.csv").is_file()
    assert not (remote / "build").exists()
    # the build ran on the target: the local workspace holds no build output
    assert not (root / "workspace/kernel" / OP / "build").exists()
