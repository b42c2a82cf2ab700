"""A tile-lib operator inside its pto-isa shaped repository: the folders its CMakeLists.txt
reaches, what `new` copies (the operator and exactly those folders, at their paths), the
build from the workspace's operator folder, the shared folders protected."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.operators.tilelib_repository import find_tilelib_repository
from tests.core.helpers import cli, pre_edit_args

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
OP = "kernels/manual/common/fa_like"
DEMO_FA = Path(__file__).resolve().parents[2] / "pto_tui" / "demo" / "operators" / "demo_fa"
WS = "workspace/kernel"
HAS_TOOLS = bool(shutil.which("g++") and shutil.which("cmake"))


def repository(tmp_path: Path) -> Path:
    """The fixture in tmp, a git checkout with build outputs lying around."""
    root = tmp_path / "src" / "tilelib_repo"
    if root.exists():
        return root
    shutil.copytree(REPO, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel in (f"{OP}/build/fa_like_cpu_sim", "include/pto/build/stale.o", "kernels/other/main.cpp"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("stale\n")
    return root


def new(tmp_path: Path, *extra: str) -> int:
    return cli("new", repository(tmp_path) / OP, "--projects-root", tmp_path / "projects", *extra)


def test_the_folders_the_cmakelists_reaches_and_the_repository_root(tmp_path: Path) -> None:
    root = repository(tmp_path)
    found = find_tilelib_repository(root / OP)
    assert found is not None
    assert (found.root, found.path, found.reached, found.where) == (
        root,
        OP,
        ("include",),
        ("CMakeLists.txt:33",),
    )
    assert found.copied == (OP, "include")
    # without .git the root is the common ancestor of the operator and what it reaches
    shutil.rmtree(root / ".git")
    assert find_tilelib_repository(root / OP) == found


def write_operator(root: Path, cmake: str) -> Path:
    operator = root / "kernels" / "op"
    operator.mkdir(parents=True)
    (operator / "CMakeLists.txt").write_text(cmake)
    for folder in ("shared/inner", "lib/util", "kernels/common"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    return operator


def test_the_cmake_forms_understood(tmp_path: Path) -> None:
    operator = write_operator(
        tmp_path / "repo",
        "project(op CXX)\n"
        "# include_directories(${PROJECT_SOURCE_DIR}/../../commented)\n"
        'include_directories(${CMAKE_CURRENT_SOURCE_DIR}/../../shared/ "${ASCEND_HOME_PATH}/include")\n'
        "target_include_directories(op PRIVATE\n"
        "    ${PROJECT_SOURCE_DIR}/../../shared/inner\n"
        "    ${PROJECT_SOURCE_DIR}/local\n"
        "    ${CMAKE_BINARY_DIR}\n"
        "    ${PROJECT_SOURCE_DIR}/../../missing\n"
        ")\n"
        "add_subdirectory(../../lib/util util)\n"
        "add_subdirectory(${CMAKE_SOURCE_DIR}/../common common)\n",
    )
    found = find_tilelib_repository(operator)
    assert found is not None
    assert found.root == tmp_path / "repo" and found.path == "kernels/op"
    # shared/inner lies inside shared; a folder that does not exist cannot be copied
    assert found.reached == ("shared", "lib/util", "kernels/common")
    assert found.where == ("CMakeLists.txt:3", "CMakeLists.txt:10", "CMakeLists.txt:11")


def test_a_folder_outside_the_repository_is_an_error_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "outside").mkdir()
    operator = write_operator(
        tmp_path / "repo",
        "project(op CXX)\ninclude_directories(\n  ${PROJECT_SOURCE_DIR}/../../../outside\n)\n",
    )
    with pytest.raises(InputError) as raised:
        find_tilelib_repository(operator)
    assert f"{operator / 'CMakeLists.txt'}:3" in str(raised.value)
    assert "outside the repository" in str(raised.value)
    assert cli("new", operator, "--kind", "pto-tile-lib", "--projects-root", tmp_path / "projects") == 2
    err = capsys.readouterr().err
    assert "CMakeLists.txt:3" in err and "Traceback" not in err


def test_an_operator_reaching_nothing_outside_is_copied_alone(tmp_path: Path) -> None:
    assert find_tilelib_repository(DEMO_FA) is None
    alone = tmp_path / "fa_like"  # copied out of its repository: include/ is not there
    shutil.copytree(REPO / OP, alone)
    assert find_tilelib_repository(alone) is None
    assert cli("new", alone, "--case-spec", "64,128,512", "--projects-root", tmp_path / "projects") == 0
    project = tmp_path / "projects" / "fa_like"
    data = tomllib.loads((project / "project.toml").read_text())
    assert "repository" not in data["operator"] and "path" not in data["operator"]
    assert (project / WS / "main.cpp").is_file()


BUILD = (
    "rm -rf build && mkdir build && cd build && {python} ../scripts/generate_cases.py "
    "--cases {case},{CUBE_S0},{TILE_S1} --qk-preload {QK_PRELOAD} --output-header generated_cases.h "
    "--output-json generated_cases.json && "
    "cmake -DPTO_CPU_SIM_STANDALONE=ON -DPython3_EXECUTABLE={python} .. && make"
)
BENCHMARK = "cd build && {python} ../scripts/gen_data.py --cases {case} && ./fa_like_cpu_sim"


def test_new_copies_the_operator_and_what_it_reaches_and_records_where(tmp_path: Path) -> None:
    assert new(tmp_path, "--case-spec", "64,128,512") == 0
    project = tmp_path / "projects" / "fa_like"
    workspace = project / WS
    files = sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*") if p.is_file())
    assert files == [
        "include/pto/pto-inst.hpp",
        f"{OP}/CMakeLists.txt",
        f"{OP}/fa_like_kernel.h",
        f"{OP}/main.cpp",
        f"{OP}/scripts/gen_data.py",
        f"{OP}/scripts/generate_cases.py",
    ]  # not README.md, kernels/other, nor the build outputs
    data = tomllib.loads((project / "project.toml").read_text())
    assert data["operator"]["repository"] == str(repository(tmp_path))
    assert data["operator"]["path"] == OP
    assert data["scope"]["editable"] == [f"kernel/{OP}/**"]
    assert data["tunables"]["kFaLikeFifoSize"]["where"].startswith(f"{OP}/fa_like_kernel.h:10")


@pytest.mark.skipif(not HAS_TOOLS, reason="needs g++ and cmake")
def test_the_copy_builds_and_runs_from_its_operator_folder(tmp_path: Path) -> None:
    build = BUILD.replace("{python}", sys.executable)
    benchmark = BENCHMARK.replace("{python}", sys.executable)
    commands = ("--command", f"build={build}", "--command", f"benchmark={benchmark}")
    assert new(tmp_path, "--case-spec", "64,128,512", *commands) == 0
    project = tmp_path / "projects" / "fa_like"
    assert cli("--project", project, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "cmake=ok") == 0  # no NPU here: passed by hand
    assert cli("--project", project, "baseline") == 0  # measured: build, benchmark, results
    built = project / WS / OP / "build"
    assert (built / "fa_like_cpu_sim").is_file() and (built / "report.csv").is_file()
    assert not (project / WS / "build").exists()  # not from the repository copy's root


def test_the_shared_folders_are_protected_and_the_operator_is_editable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert new(tmp_path, "--case-spec", "64,128,512") == 0
    root = tmp_path / "projects" / "fa_like"
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "cmake=ok", "--probe", "build=ok") == 0
    baseline = ["baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99"]
    assert cli("--project", root, *baseline) == 0
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("workspace/**",))) == 0
    kernel = root / WS / OP / "fa_like_kernel.h"
    kernel.write_text(kernel.read_text() + "\n// tuned\n")
    assert cli("--project", root, "round", "changes") == 0
    shared = root / WS / "include" / "pto" / "pto-inst.hpp"
    original = shared.read_text()
    shared.write_text(original + "\n// edited\n")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "protected" in err and "include/pto/pto-inst.hpp" in err


def test_a_constant_of_the_operator_is_found_at_its_place_in_the_copy(tmp_path: Path) -> None:
    """`where` is relative to the repository copy: a hand-edited constant in the operator's
    header is explained by its name in the round's scope."""
    assert new(tmp_path, "--case-spec", "64,128,512") == 0
    root = tmp_path / "projects" / "fa_like"
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "cmake=ok", "--probe", "build=ok") == 0
    baseline = ["baseline", "--build", "ok", "--correctness", "pass", "--samples", "100,101,99"]
    assert cli("--project", root, *baseline) == 0
    scope = ("kFaLikeFifoSize", "kFaLikeSyncPeriod")  # the period is derived from the size
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=scope)) == 0
    header = root / WS / OP / "fa_like_kernel.h"
    header.write_text(header.read_text().replace("kFaLikeFifoSize = 4;", "kFaLikeFifoSize = 8;"))
    assert cli("--project", root, "round", "changes") == 0


def test_a_knob_that_does_not_reach_the_generated_cases_fails_the_build(tmp_path: Path) -> None:
    """A build command that leaves the generator option out compiles the old value: the
    round's build is a failure naming the knob, not a measurement of the old binary."""
    stale = BUILD.replace(" --qk-preload {QK_PRELOAD}", "").replace("{python}", sys.executable)
    benchmark = BENCHMARK.replace("{python}", sys.executable)
    commands = ("--command", f"build={stale}", "--command", f"benchmark={benchmark}")
    assert new(tmp_path, "--case-spec", "64,128,512", *commands) == 0
    project = tmp_path / "projects" / "fa_like"
    assert cli("--project", project, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok") == 0
    assert cli("--project", project, "baseline") == 0  # the default value reaches the build
    start = pre_edit_args("a deeper preload hides the QK latency", scope=("QK_PRELOAD",))
    assert cli("--project", project, "round", "start", *start) == 0
    assert cli("--project", project, "round", "changes", "--set", "QK_PRELOAD=3") == 0
    cli("--project", project, "round", "run")
    record = (project / "runs" / "iter-001" / "round.toml").read_text()
    assert "QK_PRELOAD=3 did not reach build/generated_cases.h" in record
    assert 'build = "failed"' in record
