"""A declared operator inside a larger build, as huawei-csl/pto-kernels lays it out: the abs
kernel of csrc/kernel, built by the repository's root CMakeLists.txt, checked by its pytest
test and timed by its benchmark's printed lines, all through its marker (pto-operator.toml:
[repository], [commands], [result], sources). Over the test sshd, with stand-ins for the
NPU parts (g++ for Bisheng, an npu-smi and CANN of shell scripts), the loop runs to a
verdict on the kernel's own tile knob."""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, cli_json, pre_edit_args
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "csl_repo"
KERNEL = "csrc/kernel"
STAND_INS = {
    "bin/bisheng": "#!/bin/sh\necho 'bisheng 0.0-stub (g++ builds here)'\n",
    "bin/npu-smi": "#!/bin/sh\necho '| npu-smi 0.0-stub  Version: 0.0-stub |'\n",
    "cann/version.info": "Version=0.0-stub\n",
}


def npu_host(tmp_path: Path) -> str:
    """The env_setup line of an 'NPU host' made of stand-ins, this interpreter first."""
    folder = tmp_path / "npu-host"
    for rel, text in STAND_INS.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
        if rel.startswith("bin/"):
            (folder / rel).chmod(0o755)
    return f"export PATH={folder}/bin:{Path(sys.executable).parent}:$PATH ASCEND_HOME_PATH={folder}/cann"


def _round(root: Path, number: int) -> dict[str, object]:
    return tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())


def test_the_marker_declares_the_operator_its_knobs_and_its_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "pto-kernels"
    shutil.copytree(REPO, source)
    scanned = cli_json(capsys, "scan", source)
    (abs_op,) = scanned["candidates"]
    assert (abs_op["name"], abs_op["status"], abs_op["kind"]) == ("abs", "declared", "pto-tile-lib")
    # its own files only: swiglu's tile, in the same folder, is no knob of abs
    assert [t["name"] for t in abs_op["tunables"]] == ["vabs_fp16_TILE_LEN", "vabs_fp32_TILE_LEN"]
    data = cli_json(capsys, "new", source / KERNEL, "--projects-root", tmp_path / "projects")
    root = Path(str(data["project"]))
    copy = root / "workspace" / "kernel"
    for needed in ("CMakeLists.txt", "scripts/build.sh", "include/pto/pto-inst.hpp", "python/pto_kernels",
                   "tests/test_abs.py", "benchmarking/bench_abs.py", "csrc/kernel/kernel_swiglu.cpp"):
        assert (copy / needed).exists(), needed
    assert not (copy / "README.md").exists()  # what the build does not need stays behind
    config = ProjectFile(root / "project.toml").config
    assert config.operator.path == KERNEL and config.result.format == "pattern"
    # its own file only: the folder's other kernels and their shared header stay protected
    assert config.editable == ("kernel/csrc/kernel/kernel_abs.cpp",)


@pytest.mark.sshd
@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_a_declared_kernel_runs_the_loop_to_a_verdict_over_ssh(
    tmp_path: Path, ssh_target: SshTestTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "pto-kernels"
    shutil.copytree(REPO, source)
    target = (
        "--target", f"ssh:{ssh_target.alias}", "--work-dir", str(ssh_target.work_dir),
        "--ssh-config", str(ssh_target.ssh_config), "--env-setup", npu_host(tmp_path),
    )
    assert cli("new", source / KERNEL, *target, "--projects-root", tmp_path / "projects") == 0
    root = tmp_path / "projects" / "abs"
    assert cli("--project", root, "env") == 0
    environment = _round(root, 0)["environment"]
    assert isinstance(environment, dict) and environment["passed"] is True
    assert environment["probes"]["bisheng"] and environment["probes"]["ACL runtime / NPU"]

    assert cli("--project", root, "baseline") == 0
    baseline = _round(root, 0)["measurement"]
    assert isinstance(baseline, dict) and baseline["correctness"] == "pass"
    assert len(baseline["samples_us"]) >= 5
    remote = ssh_target.work_dir / "kernel"
    library = (remote / "build/lib/libno_workspace_kernel.so").read_bytes()

    start = pre_edit_args("a shorter abs tile stays in the L1 cache", scope=("vabs_fp32_TILE_LEN",))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", "vabs_fp32_TILE_LEN=64") == 0
    cli("--project", root, "round", "run")
    record = _round(root, 1)
    assert record["status"] == "closed" and record["verdict"] in ("kept", "neutral", "inconclusive")
    measurement = record["measurement"]
    assert isinstance(measurement, dict)
    assert (measurement["build"], measurement["correctness"]) == ("ok", "pass")
    kernel = (remote / KERNEL / "kernel_abs.cpp").read_text()
    assert kernel.count("constexpr uint32_t TILE_LEN = 64;") == 1  # vabs_fp32's, not vabs_fp16's
    assert (remote / "build/lib/libno_workspace_kernel.so").read_bytes() != library

    # another kernel of the folder is not this operator's: a round may not edit it
    start = pre_edit_args("swiglu's tile too", scope=("workspace/**",))
    assert cli("--project", root, "round", "start", *start) == 0
    swiglu = root / "workspace" / "kernel" / KERNEL / "kernel_swiglu.cpp"
    swiglu.write_text(swiglu.read_text().replace("TILE_LEN = 256", "TILE_LEN = 128"))
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "editable-scope" in err and "kernel/csrc/kernel/kernel_swiglu.cpp" in err
