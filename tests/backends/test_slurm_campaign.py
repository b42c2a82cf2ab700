"""The demo operator's campaign through the real one-node Slurm cluster, from the CLI: the
environment round probes Slurm, every NPU step is a batch job whose node and NPU are kept
with the round, a pto-tui killed in the middle of a benchmark leaves the Slurm job running
and `round run --resume` adopts it by its Slurm id, and a job Slurm refuses or a node that
fails leaves the round open with Slurm's reason and nothing measured."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from pto_tui.jobs.local_slurm import LocalSlurm
from pto_tui.jobs.model import list_records
from tests.backends.helpers import demo_project
from tests.core.helpers import cli, cli_json, pre_edit_args

pytestmark = pytest.mark.slurm

REPO = Path(__file__).resolve().parents[2]
JUSTIFY = ("--justify", "the demo's tile fits the CPU cache easily")


def slurm_demo(tmp_path: Path, slurm: LocalSlurm, **slurm_keys: object) -> Path:
    """The demo (PTO-DSL) project on a slurm target whose login node is this machine. Its
    benchmark first sleeps while the file `slow` is in the test's folder (fault injection:
    a run long enough to kill pto-tui or a node in; the command, part of the workload, is
    the same throughout)."""
    root = demo_project(tmp_path, "dsl", repeats=3)
    project = ProjectFile(root / "project.toml")
    slow = tmp_path / "slow"
    project.set("commands.benchmark", f"([ -e {slow} ] && sleep $(cat {slow}); true) && "
                f"{project.config.commands.benchmark}")
    project.set("target.kind", "slurm")
    # the job's shell finds this interpreter (with numpy) first, and this cluster
    project.set("target.env_setup", f"export PATH={Path(sys.executable).parent}:$PATH; {slurm.env_setup}")
    project.set("target.slurm.partition", "ascend")
    project.set("target.slurm.gres", "npu:1")
    for key, value in slurm_keys.items():
        project.set(f"target.slurm.{key}", value)
    project.save()
    return root


def start_round(root: Path, value: int) -> None:
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("DEMO_ATTN_BLOCK_KV",))) == 0
    assert cli("--project", root, "round", "changes", "--set", f"DEMO_ATTN_BLOCK_KV={value}", *JUSTIFY) == 0


def test_the_demo_campaign_runs_to_a_verdict_through_slurm(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    env = cli_json(capsys, "--project", root, "env")
    assert env["passed"] is True
    for probe in ("slurm: sinfo answers", "slurm: partition ascend is up",
                  "slurm: the partition offers npu:1", "slurm: one job with npu:1 runs"):
        assert env["probes"][probe] is True
    assert env["versions"]["slurm"].startswith("slurm")
    baseline = cli_json(capsys, "--project", root, "baseline")
    placements = baseline["measurement"]["placements"]
    assert len(placements) == 3 and all(p in ("pto-node1 npu 0", "pto-node1 npu 1") for p in placements)
    start_round(root, 64)
    closed = cli_json(capsys, "--project", root, "round", "run")
    assert closed["status"] == "closed" and closed["verdict"] in ("kept", "neutral", "inconclusive")
    assert len(closed["measurement"]["placements"]) == len(closed["measurement"]["samples_us"]) == 3
    assert "different nodes" not in closed["verdict_reason"]  # one node: nothing to say
    notes = (root / "runs/iter-001/notes.md").read_text()
    assert "- **Ran on**: pto-node1 npu" in notes
    records = list_records(root / ".pto-tui/jobs")
    mine = [r for r in records if r.round_number == 1]
    batch = {r.name.removeprefix("iter-001 ") for r in mine if r.scheduler_id}
    on_login = {r.name.removeprefix("iter-001 ") for r in mine if not r.scheduler_id}
    assert batch == {"benchmark 1/3", "benchmark 2/3", "benchmark 3/3"}  # each its own Slurm job
    assert "build" in on_login and "benchmark 1/3: clock" in on_login  # helpers stay on the login node


def test_an_unknown_partition_or_gres_fails_the_environment_round_saying_so(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm, partition="gone", gres="gpu:1")
    capsys.readouterr()
    assert cli("--project", root, "env", "--json") == 1
    env = json.loads(capsys.readouterr().out)
    assert env["passed"] is False and env["probes"]["slurm: sinfo answers"] is True
    assert [name for name, ok in env["probes"].items() if not ok] == [
        "slurm: partition gone is up", "slurm: the partition offers gpu:1", "slurm: one job with gpu:1 runs"]
    partition, gres, job = env["problems"][:3]
    assert partition.startswith("slurm: partition gone is up: unknown partition gone (known: ascend* urgent)")
    assert gres.startswith("slurm: the partition offers gpu:1: the partition offers no gres, not gpu:1")
    assert "slurm refused the job: Invalid generic resource (gres) specification" in job
    for problem in (partition, gres, job):  # what was checked in words, and what to set
        assert "(checked: `" not in problem and "[target.slurm]" in problem.split("\n  hint: ")[1]


def test_same_node_pins_every_npu_step_to_the_baselines_node(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm, same_node=True)
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    start_round(root, 32)
    closed = cli_json(capsys, "--project", root, "round", "run")
    assert closed["status"] == "closed"
    logs = [Path(r.log_path).read_text() for r in list_records(root / ".pto-tui/jobs")
            if r.round_number == 1 and r.scheduler_id]
    assert logs and all("--nodelist=pto-node1" in log for log in logs)


def wait_for(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not (callable(check) and check()):
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)


def test_pto_tui_killed_mid_benchmark_leaves_the_job_and_resume_adopts_it_by_slurm_id(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    (tmp_path / "slow").write_text("3")  # each run long enough to be killed in
    start_round(root, 64)
    run = subprocess.Popen([sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), "round", "run"],
                           cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
    jobs = root / ".pto-tui/jobs"

    def running_benchmark() -> list[str]:
        return [r.scheduler_id for r in list_records(jobs)
                if r.name == "iter-001 benchmark 2/3" and r.scheduler_state == "RUNNING"]

    wait_for(lambda: bool(running_benchmark()))
    run.send_signal(signal.SIGKILL)  # pto-tui dies; Slurm keeps the job
    run.wait(timeout=10)
    slurm_id = running_benchmark()[0]
    assert slurm_id in slurm.jobs()
    jobs_listing = subprocess.run([sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), "jobs"],
                                  cwd=REPO, capture_output=True, text=True, env=os.environ, check=True)
    assert "re-attachable" in jobs_listing.stdout and f"slurm job {slurm_id}" in jobs_listing.stdout
    closed = cli_json(capsys, "--project", root, "round", "run", "--resume")
    assert closed["status"] == "closed" and len(closed["measurement"]["samples_us"]) == 3
    second = [r for r in list_records(jobs) if r.name == "iter-001 benchmark 2/3"]
    assert [r.scheduler_id for r in second] == [slurm_id]  # adopted, never submitted again
    assert second[0].state.value == "succeeded"


def test_attach_takes_a_slurm_job_id(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from pto_tui.core.project.file import ProjectFile\n"
        "from pto_tui.jobs.model import JobSpec, NEEDS_NPU\n"
        "from pto_tui.jobs.runner import JobRunner\n"
        "async def main():\n"
        "    root = Path(sys.argv[1])\n"
        "    runner = JobRunner(root / '.pto-tui/jobs')\n"
        "    target = ProjectFile(root / 'project.toml').config.target\n"
        "    job = await runner.submit(target, JobSpec('sleep 2; echo attached-end', needs=NEEDS_NPU,"
        " cwd='/'))\n"
        "    await job.wait_started()\n"
        "    print(job.id, flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    client = subprocess.Popen([sys.executable, "-c", script, str(root)], cwd=REPO, stdout=subprocess.PIPE,
                              text=True, env=os.environ)
    assert client.stdout is not None
    job_id = client.stdout.readline().strip()
    client.send_signal(signal.SIGKILL)
    client.wait(timeout=10)
    slurm_id = next(r.scheduler_id for r in list_records(root / ".pto-tui/jobs") if r.id == job_id)
    capsys.readouterr()
    assert cli("--project", root, "attach", slurm_id) == 0
    assert "attached-end" in capsys.readouterr().out


def test_a_job_slurm_refuses_leaves_the_round_open_with_its_reason(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    project = ProjectFile(root / "project.toml")
    project.set("target.slurm.partition", "gone")
    project.save()
    start_round(root, 64)
    capsys.readouterr()
    assert cli("--project", root, "round", "run") == 1
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last == ("pto-tui: error: step 'benchmark 1/3' lost: slurm refused the job: Batch job "
                    "submission failed: Invalid partition name specified")
    shown = cli_json(capsys, "--project", root, "show", "1")["record"]
    assert shown["status"] == "open" and not shown.get("measurement", {}).get("samples_us")


def test_a_node_failing_mid_benchmark_leaves_the_round_open_with_slurms_reason(
    slurm: LocalSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = slurm_demo(tmp_path, slurm)
    assert cli("--project", root, "env") == 0
    assert cli("--project", root, "baseline") == 0
    (tmp_path / "slow").write_text("20")
    start_round(root, 64)
    run = subprocess.Popen([sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), "round", "run"],
                           cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=os.environ)
    jobs = root / ".pto-tui/jobs"
    wait_for(lambda: any(r.scheduler_state == "RUNNING" and r.round_number == 1 for r in list_records(jobs)))
    slurm.set_node("DOWN", "fan failure")
    try:
        _out, err = run.communicate(timeout=60)
    finally:
        slurm.set_node("RESUME")
    assert run.returncode == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("pto-tui: error: step 'benchmark 1/3' lost: slurm job ")
    assert last.endswith(" NODE_FAIL on pto-node1, reason NodeDown (its node failed)")
    shown = cli_json(capsys, "--project", root, "show", "1")["record"]
    assert shown["status"] == "open" and not shown.get("measurement", {}).get("samples_us")
