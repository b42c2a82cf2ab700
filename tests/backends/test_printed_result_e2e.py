"""A tile-lib operator shaped like pto-isa's fused_add_relu_mul (config-struct tiles, a driver
that prints `Average time: X ms` and a pass/fail line, no report.csv), in CPU simulation over
a real sshd with no hand edit of project.toml: `new --mode cpu-sim` → `env` → `baseline` → a
round on a config struct's tile → verdict. `exec` runs in the operator folder there."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from tests.core.helpers import cli, pre_edit_args
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "tilelib_repo"
OP = "kernels/custom/fused_like"


def _round(root: Path, number: int) -> dict[str, object]:
    return tomllib.loads((root / "runs" / f"iter-{number:03d}" / "round.toml").read_text())


@pytest.mark.sshd
@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_average_time_campaign_over_ssh_with_no_hand_edits(
    tmp_path: Path, ssh_target: SshTestTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    target = (
        "--target", f"ssh:{ssh_target.alias}", "--work-dir", str(ssh_target.work_dir),
        "--ssh-config", str(ssh_target.ssh_config),
    )
    projects = tmp_path / "projects"
    new = ("new", source / OP, "--mode", "cpu-sim", "--compiler", "g++")
    assert cli(*new, *target, "--projects-root", projects) == 0
    root = projects / "fused_like"
    assert "[result]\n" in (root / "project.toml").read_text()

    assert cli("--project", root, "env") == 0
    environment = _round(root, 0)["environment"]
    assert isinstance(environment, dict) and environment["passed"] is True

    remote = ssh_target.work_dir / "kernel" / OP
    capsys.readouterr()
    assert cli("--project", root, "exec", "--no-sync", "--", "pwd") == 0
    assert capsys.readouterr().out.strip().endswith(f"kernel/{OP}")  # the operator folder

    assert cli("--project", root, "baseline") == 0
    baseline = _round(root, 0)["measurement"]
    assert isinstance(baseline, dict) and baseline["correctness"] == "pass"
    assert len(baseline["samples_us"]) >= 5 and all(s > 0 for s in baseline["samples_us"])
    baseline_binary = (remote / "build" / "fused_like_cpu_sim").read_bytes()

    start = pre_edit_args("narrower tiles keep the vector unit fed", scope=("StandardTileConfig_TILE_W",))
    assert cli("--project", root, "round", "start", *start) == 0
    assert cli("--project", root, "round", "changes", "--set", "StandardTileConfig_TILE_W=32") == 0
    cli("--project", root, "round", "run")
    record = _round(root, 1)
    assert record["status"] == "closed" and record["verdict"] in ("kept", "neutral", "inconclusive")
    measurement = record["measurement"]
    assert isinstance(measurement, dict)
    assert (measurement["build"], measurement["correctness"]) == ("ok", "pass")
    assert 5 <= len(measurement["samples_us"]) <= 20
    # the value was written where the kernel decides it, and it built a different binary
    kernel = (remote / "fused_like_kernel.cpp").read_text()
    assert "static constexpr int TILE_W = 32;" in kernel and "static constexpr int TILE_W = 128;" in kernel
    assert (remote / "build" / "fused_like_cpu_sim").read_bytes() != baseline_binary


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_a_run_that_says_it_failed_fails_its_round(tmp_path: Path) -> None:
    """A value the functional test rejects: the driver prints `✗ Some tests FAILED` and exits 1,
    and the round is a failure, not a timing."""
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    projects = tmp_path / "projects"
    assert cli("new", source / OP, "--mode", "cpu-sim", "--compiler", "g++", "--projects-root", projects) == 0
    root = projects / "fused_like"
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    start = pre_edit_args("a wider large tile", scope=("workspace/**",))
    assert cli("--project", root, "round", "start", *start) == 0
    kernel = root / "workspace" / "kernel" / OP / "fused_like_kernel.cpp"
    # a hand edit that breaks the kernel's arithmetic: relu of (x + bias) becomes x + bias
    text = kernel.read_text()
    relu = "(tile.data[j] > 0.0f ? tile.data[j] : 0.0f) * scale"
    kernel.write_text(text.replace(relu, "tile.data[j] * scale"))
    assert cli("--project", root, "round", "changes", "--describe", "drop the relu") == 0
    cli("--project", root, "round", "run")
    record = _round(root, 1)
    measurement = record["measurement"]
    assert isinstance(measurement, dict) and measurement["correctness"] == "fail"
    assert record["verdict"] == "failure"


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
def test_a_driver_that_crashes_is_named_by_its_signal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pto-isa's fused_add_relu_mul crashes in its first functional test on the CPU simulation
    source = tmp_path / "src" / "tilelib_repo"
    shutil.copytree(REPO, source)
    main = source / OP / "main.cpp"
    text = main.read_text()
    crash = '    printf("\\n========== Testing %s ==========\\n", kernel_name);\n'
    assert crash in text
    main.write_text("#include <csignal>\n" + text.replace(crash, crash + "    fflush(stdout);\n"
                                                         "    std::raise(SIGSEGV);\n"))
    projects = tmp_path / "projects"
    new = ("new", source / OP, "--mode", "cpu-sim", "--compiler", "g++", "--projects-root", projects)
    assert cli(*new) == 0
    capsys.readouterr()
    assert cli("--project", projects / "fused_like", "env") == 1
    out = "".join(capsys.readouterr())
    assert "killed by signal SEGV" in out and "exit code None" not in out, out
