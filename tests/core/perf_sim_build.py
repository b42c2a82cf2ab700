"""Deriving, building and running perf_sim drivers of the fixture operators against the
stand-in pto-isa tree (tests/fixtures/perf_sim), with the machine's g++ and the flags a
perf_sim build of the real pto-isa uses; the stand-in's formula header generated into an
overlay as a perf-sim build generates it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pto_tui.core.operators.perf_sim_build import FLAGS, GENERATE_HEADERS, OVERLAY_DIR
from pto_tui.core.operators.perf_sim_driver import NoDriver, PerfSimDriver, derive_driver
from pto_tui.core.operators.pto_isa_tree import GENERATOR_GLOB
from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, pre_edit_args

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "perf_sim"
STANDIN = FIXTURE / "include"
# the fixture operators inside the stand-in checkout
OPERATORS = {
    "attn_op": FIXTURE / "kernels" / "manual" / "common" / "attn_op",
    "matmul_op": FIXTURE / "kernels" / "manual" / "a2a3" / "matmul_op",
}
NEEDS_GXX = pytest.mark.skipif(not shutil.which("g++"), reason="needs g++")
ATTN_CASE = {"head_size": 64, "s0": 128, "s1": 512}


@dataclass(frozen=True)
class Run:
    output: str
    summary_csv: str | None


def operator_copy(name: str, tmp_path: Path) -> Path:
    """A copy of a fixture operator that a test may edit."""
    return Path(shutil.copytree(OPERATORS[name], tmp_path / name))


def read_sources(root: Path) -> dict[str, str]:
    """The operator folder's files as the deriver reads them, the build folder left out."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and "build" not in path.relative_to(root).parts
    }


def derived(root: Path, workload: dict[str, int] | None = None) -> PerfSimDriver:
    driver = derive_driver(read_sources(root), workload)
    assert isinstance(driver, PerfSimDriver), driver
    return driver


def refusal(sources: dict[str, str], workload: dict[str, int] | None = None) -> str:
    found = derive_driver(sources, workload)
    assert isinstance(found, NoDriver), found.text
    return found.reason


def generate_cases(root: Path, *cases: str, qk_preload: int | None = None) -> Path:
    """The build folder with the case header the operator's generator writes."""
    build = root / "build"
    build.mkdir(exist_ok=True)
    command = [sys.executable, "../scripts/generate_cases.py"]
    for case in cases:
        command += ["--cases", case]
    if qk_preload is not None:
        command += ["--qk-preload", str(qk_preload)]
    subprocess.run(command, cwd=build, capture_output=True, text=True, timeout=60, check=True)
    return build


def formula_headers(build: Path) -> Path:
    """The stand-in's formula header generated into an overlay in `build` (its include dir),
    by the script a perf-sim build runs on the target."""
    overlay = build / OVERLAY_DIR
    pattern = f"pto/costmodel/{GENERATOR_GLOB}"
    done = subprocess.run(
        [sys.executable, "-c", GENERATE_HEADERS, str(STANDIN), str(overlay), pattern],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return overlay


def compile_driver(root: Path, build: Path, driver: PerfSimDriver) -> subprocess.CompletedProcess[str]:
    """The driver written into the build folder and compiled there (not checked)."""
    (build / "perf_sim_driver.cpp").write_text(driver.text, encoding="utf-8")
    include = (root / driver.kernel_file).parent
    command = [
        "g++",
        *FLAGS,
        *driver.defines,
        "-I",
        str(formula_headers(build)),
        "-I",
        str(STANDIN / "pto" / "costmodel" / "stubs"),
        "-I",
        str(STANDIN),
        "-I",
        str(include),
        "perf_sim_driver.cpp",
        "-o",
        "perf_sim_driver",
    ]
    return subprocess.run(command, cwd=build, capture_output=True, text=True, timeout=120)


def build_and_run(root: Path, build: Path, driver: PerfSimDriver) -> Run:
    compiled = compile_driver(root, build, driver)
    assert compiled.returncode == 0, compiled.stderr
    csv = build / driver.summary_csv
    csv.unlink(missing_ok=True)
    done = subprocess.run(["./perf_sim_driver"], cwd=build, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return Run(done.stdout, csv.read_text(encoding="utf-8") if csv.is_file() else None)


def predicting_project(base: Path) -> Path:
    """The stand-in's attn_op in mode cpu-sim predicting with perf_sim (`new --predict
    perf-sim`, two timed runs a round, no warm-up): the baseline and a TILE_S1 round (128 →
    64) measured for real (g++, cmake), each with its prediction; the environment round's
    probes given by hand."""
    shutil.copytree(FIXTURE, base / "pto-isa")
    source = base / "pto-isa" / "kernels/manual/common/attn_op"
    assert cli("new", source, "--projects-root", base / "projects", "--case-spec", "64,128,512",
               "--mode", "cpu-sim", "--compiler", "g++", "--predict", "perf-sim") == 0
    root = base / "projects" / "attn_op"
    project = ProjectFile(root / "project.toml")
    for key, value in (("repeats", 2), ("max_repeats", 2), ("warmup", 0)):
        project.set(f"discipline.{key}", value)
    project.save()
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
               "--probe", "g++=ok") == 0
    assert cli("--project", root, "baseline") == 0
    start = pre_edit_args("a narrower S1 tile", scope=("TILE_S1",))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", "TILE_S1=64") == 0
    assert cli("--project", root, "round", "run") == 0
    return root
