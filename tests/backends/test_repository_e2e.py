"""A PTO-DSL operator inside its repository, end to end through the CLI: `new` on the
operator folder, the environment round, iter-000 and one round on a tuning knob, run by
the repository's own runner (the fixture's stand-in) from the workspace's repository
root, on the local target and over a real sshd."""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from tests.core.helpers import cli, cli_json, pre_edit_args
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).resolve().parents[1] / "fixtures" / "pto_kernels_repo"
FA = "python/pto_kernels/ops/attention/flash_attention_score"
KNOB = "PTO_ATTENTION_QK_BASE_M"
JUSTIFY = "64-row QK tiles of a 128x64 case stay well inside the UB"

# No NPU here: the environment round's PTO-DSL probes (CANN, npu-smi, the pto dialect,
# torch_npu with a device, ptoas) find these stand-ins for an NPU host, written per test,
# ahead of the interpreter that has numpy.
STUBS = {
    "py/mlir/__init__.py": "",
    "py/mlir/ir.py": "",
    "py/mlir/dialects/__init__.py": "",
    "py/mlir/dialects/pto.py": "",
    "py/torch/__init__.py": "__version__ = '0.0-stub'\n\n\nclass npu:\n    @staticmethod\n"
    "    def is_available():\n        return {available}\n",
    "py/torch_npu/__init__.py": "",
    "bin/ptoas": "#!/bin/sh\necho 'ptoas 0.0-stub'\n",
    "bin/npu-smi": "#!/bin/sh\necho '| npu-smi 0.0-stub  Version: 0.0-stub |'\n",
    "cann/version.info": "Version=0.0-stub\n",
}


def npu_stand_ins(tmp_path: Path, *, device: bool = True) -> str:
    """The env_setup line that puts the stand-ins and this interpreter first; `device`: what
    the torch stand-in says of an NPU."""
    folder = tmp_path / "npu-stand-ins"
    for rel, text in STUBS.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text.replace("{available}", str(device)))
    for tool in ("bin/ptoas", "bin/npu-smi"):
        (folder / tool).chmod(0o755)
    python_bin = Path(sys.executable).parent
    return (
        f"export PATH={folder}/bin:{python_bin}:$PATH; export PYTHONPATH={folder}/py; "
        f"export ASCEND_HOME_PATH={folder}/cann"
    )


def make_repository_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *target: str, case: str = "flash_attention_score",
    device: bool = True,
) -> Path:
    source = tmp_path / "src" / "pto-kernels"
    shutil.copytree(REPO, source)
    out = cli_json(
        capsys,
        "new",
        source / FA,
        "--projects-root",
        tmp_path / "projects",
        "--case",
        case,
        "--env-setup",
        npu_stand_ins(tmp_path, device=device),
        *target,
    )
    assert isinstance(out, dict)
    root = Path(out["project"])
    project = ProjectFile(root / "project.toml")
    project.set("discipline.repeats", 3)
    project.set("discipline.max_repeats", 3)  # a fixed number of runs
    project.set("discipline.warmup", 1)
    project.set("discipline.max_spread", 5.0)  # a busy machine; the gain is several-fold
    project.save()
    return root


def campaign_round(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    """env, iter-000, then one round on a tuning knob; returns the round's record."""
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    start = pre_edit_args("bigger QK tiles cut per-tile overhead", scope=(KNOB, "PTO_ATTENTION_SEQ_LEN"))
    assert cli("--project", root, "round", "start", *start) == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "changes", "--set", "PTO_ATTENTION_SEQ_LEN=256") == 1
    assert "same-workload" in capsys.readouterr().err
    assert cli("--project", root, "round", "changes", "--set", f"{KNOB}=64", "--justify", JUSTIFY) == 0
    assert cli("--project", root, "round", "run", "--quiet", "--analysis", "fewer tiles", "--next", "n") == 0
    shown = cli_json(capsys, "--project", root, "show", "1")
    assert isinstance(shown, dict)
    record = shown["record"]
    assert isinstance(record, dict)
    return record


def reports_of_this_campaign(workspace_repo: Path) -> list[dict[str, object]]:
    found = sorted((workspace_repo / "bench/results/attention/flash_attention_score").glob("*/report.json"))
    return [json.loads(p.read_text()) for p in found]


def test_an_npu_host_without_a_device_fails_the_environment_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """torch_npu imports, CANN and npu-smi answer, but no NPU is available: the round fails
    on the torch_npu probe rather than passing on the import alone."""
    root = make_repository_project(tmp_path, capsys, device=False)
    assert cli("--project", root, "env") == 1
    record = tomllib.loads((root / "runs" / "iter-000" / "round.toml").read_text())
    probes = record["environment"]["probes"]
    assert probes["torch_npu (a device available)"] is False
    assert probes["CANN"] is True and probes["ACL runtime / NPU"] is True and probes["pto dialect"] is True


def test_repository_operator_on_the_local_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repository_project(tmp_path, capsys)
    shown = campaign_round(root, capsys)
    assert shown["verdict"] == "kept", shown
    ws = root / "workspace" / "pto-kernels"
    reports = reports_of_this_campaign(ws)
    assert reports and all(r["status"] == "planned" and not r["dry_run"] for r in reports)
    assert all("stale" not in r for r in reports)  # the source's old results stayed behind
    # the runner ran from the workspace's repository root and imported its package
    assert all(str(r["report_path"]).startswith(str(ws)) for r in reports)
    assert (ws / "bench/generated/attention/flash_attention_score/report.json").is_file()
    # the build ran outside the runner too, with the case's shape knobs
    assert (ws / "build/flash_attention_score/kernel.pto").read_text().count("seq_len=128") == 1


def test_a_variant_case_is_timed_by_its_own_variant_in_each_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The runner times every variant and writes their aggregate (the slowest variant's
    median) beside one entry per variant: the baseline of the case b1_n1_s128_d64 records
    its own entry of each run's report, and the baseline side's entry of that variant."""
    root = make_repository_project(tmp_path, capsys, case="b1_n1_s128_d64")
    assert cli("--project", root, "env") == 0
    record = cli_json(capsys, "--project", root, "baseline")
    assert isinstance(record, dict)
    measurement = record["measurement"]
    ws = root / "workspace" / "pto-kernels"
    paths = measurement["reports"]
    assert len(paths) == len(measurement["samples_us"]) == len(measurement["reference_us"]) == 3
    # the runner names a run's folder by the second: a later run in the same second
    # overwrites it, so only the last run naming a path still finds its own numbers there
    last = [i for i, rel in enumerate(paths) if rel not in paths[i + 1 :]]
    reports = {i: json.loads((ws / paths[i]).read_text()) for i in last}

    def own(side: dict[str, object]) -> float:
        entries = side["variant_reports"]
        assert isinstance(entries, list)
        entry = next(e for e in entries if e["variant"]["seq_len"] == 128)
        return float(entry["timings_ms"]["median"]) * 1000

    pto = {i: r["pto"]["benchmark"] for i, r in reports.items()}
    assert [measurement["samples_us"][i] for i in last] == pytest.approx([own(pto[i]) for i in last])
    references = [own(reports[i]["baseline"]["benchmark"]) for i in last]
    assert [measurement["reference_us"][i] for i in last] == pytest.approx(references)


@pytest.mark.sshd
def test_repository_operator_over_ssh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ssh_target: SshTestTarget
) -> None:
    work_dir = ssh_target.work_dir
    root = make_repository_project(
        tmp_path, capsys, "--target", f"ssh:{ssh_target.alias}", "--work-dir", str(work_dir)
    )
    project = ProjectFile(root / "project.toml")
    project.set("target.ssh_config", str(ssh_target.ssh_config))
    project.save()
    shown = campaign_round(root, capsys)
    assert shown["verdict"] == "kept", shown
    remote = work_dir / "pto-kernels"
    assert (remote / FA / "kernel.py").is_file() and (remote / "bench/specs").is_dir()
    reports = reports_of_this_campaign(remote)
    assert reports and all(str(r["report_path"]).startswith(str(remote)) for r in reports)
    # the results stay on the target; the local workspace holds no run output
    assert not (root / "workspace/pto-kernels/bench/results").exists()
