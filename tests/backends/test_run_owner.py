"""One owner per running round: while `round run` measures a round, another process's
(or another MCP call's) writes to that round and a second build in the workspace are
refused, naming the owner; the run then closes with its own values. In one process two
owners exclude each other as two processes do."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.campaign.requests import ChangesRequest, CloseRequest, StartRequest
from pto_tui.core.errors import LockedError, RuleViolation
from pto_tui.core.project.config import operator_folder
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.lock import ProjectLock
from pto_tui.core.project.run_claim import RUN_NAME, read_claim, workspace_upload_lock
from pto_tui.core.rules.ownership import ONE_OWNER_PER_ROUND
from tests.backends.helpers import pre_edit
from tests.core.helpers import cli, cli_json, pre_edit_args
from tests.mcp.client import REPO, agent

KNOB = "DEMO_ATTN_BLOCK_Q"


def _project(tmp_path: Path) -> Path:
    """The demo operator whose benchmark waits while the file `slow` exists; iter-000 given,
    round 1 open with DEMO_ATTN_BLOCK_Q=128."""
    root = create_demo_project("dsl", tmp_path / "projects")
    with Campaign(root) as campaign:
        benchmark = campaign.config.commands.benchmark
        up = "../" * (len(Path(operator_folder(campaign.config)).parts) + 1)
    project = ProjectFile(root / "project.toml")
    project.set("commands.benchmark", f"echo run >> {up}bench-runs; "
                f"while [ -f {up}slow ]; do sleep 0.1; done; " + benchmark)
    project.set("discipline.repeats", 2)
    project.set("discipline.max_repeats", 2)  # a fixed number of runs
    project.set("discipline.max_spread", 5.0)
    project.set("discipline.review_gain", 1000.0)
    project.save()
    with Campaign(root, write=True) as campaign:
        from pto_tui.core.rounds.records import EnvironmentNotes, Measurement

        campaign.record_environment(EnvironmentNotes(
            versions={"python": "3"}, build_outcome="build succeeded", first_valid_result="r.json",
            probes={"target reachable": True, "full build": True, "one valid result": True},
            passed=True))
        campaign.record_baseline(Measurement(build="ok", correctness="pass",
                                             samples_us=[5000.0, 5001.0, 4999.0]))
    p = ("--project", str(root))
    assert cli(*p, "round", "start", "--restore", *pre_edit_args(scope=(KNOB,))) == 0
    assert cli(*p, "round", "changes", "--set", f"{KNOB}=128", "--justify", "fits the cache") == 0
    return root


def _wait_for(check, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _runs(root: Path) -> int:
    path = root / "bench-runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


async def _mcp_refusals(root: Path) -> tuple[dict, dict]:
    async with agent(root) as a:
        changes = await a.call("round_changes", parameters={KNOB: 32})
        close = await a.call("round_close")
        return changes, close


def test_a_running_round_has_one_owner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path)
    (root / "slow").write_text("")
    run = subprocess.Popen([sys.executable, "-m", "pto_tui.cli.main", "--project", str(root),
                            "round", "run", "--analysis", "measured", "--next", "on"],
                           cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        _wait_for(lambda: _runs(root) == 1, "the first benchmark run")
        claim = read_claim(root / ".pto-tui")
        assert claim is not None and claim.round == 1 and claim.holder.pid == run.pid
        p = ("--project", str(root))
        capsys.readouterr()
        # another process: changes, a second run, measure, close, exec's upload
        for argv in (("round", "changes", "--set", f"{KNOB}=32"), ("round", "run"),
                     ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "1,1"),
                     ("round", "close")):
            assert cli(*p, *argv) == 1, argv
            err = capsys.readouterr().err
            assert f"refused by rule '{ONE_OWNER_PER_ROUND.id}'" in err, (argv, err)
            assert f"round run of iter-001 by pid {run.pid}" in err, err
        assert cli(*p, "exec", "true") == 1
        assert "owns the workspace" in capsys.readouterr().err
        # an MCP call is another owner too
        changes, close = asyncio.run(_mcp_refusals(root))
        assert changes["is_error"] and changes["error"]["rule"] == ONE_OWNER_PER_ROUND.id
        assert close["is_error"] and close["error"]["rule"] == ONE_OWNER_PER_ROUND.id
        # a closed round that is not the running one may still be corrected
        assert cli(*p, "amend", "0", "--field", "analysis", "--value", "the base",
                   "--why", "wording of the baseline") == 0
        assert _runs(root) == 1  # nothing else was built or benchmarked
    finally:
        (root / "slow").unlink(missing_ok=True)
        out, _ = run.communicate(timeout=120)
    assert run.returncode == 0, out
    record = cli_json(capsys, "--project", str(root), "show", "1")["record"]
    assert record["status"] == "closed" and record["verdict"] != "failure", record
    assert record["changes"]["snapshot"][KNOB] == 128  # built with its own values
    assert [p["new"] for p in record["changes"]["parameters"]] == [128]
    assert not (root / ".pto-tui" / RUN_NAME).exists()  # the claim ends with the run


def test_two_owners_in_one_process(tmp_path: Path) -> None:
    root = _project(tmp_path)
    state = root / ".pto-tui"
    a = Campaign(root, write=True, command="owner A")
    b = Campaign(root, write=True, command="owner B")
    with a, b:
        with a.running(1, "round run"):
            with pytest.raises(RuleViolation) as refused:
                b.record_changes(ChangesRequest(parameters={KNOB: 32}))
            assert refused.value.rule == ONE_OWNER_PER_ROUND.id and "owner A" in refused.value.message
            with pytest.raises(RuleViolation):
                b.close_round(CloseRequest(1))
            with pytest.raises(RuleViolation):
                b.start_round(StartRequest(pre_edit([KNOB])))
            with pytest.raises(RuleViolation), b.running(1, "round run"):
                pass
            with pytest.raises(LockedError, match="owns the workspace"):
                workspace_upload_lock(state, "exec")
            # the owner's own writes go on
            a.record_changes(ChangesRequest(parameters={KNOB: 64}))
        assert read_claim(state) is None
        b.record_changes(ChangesRequest(parameters={KNOB: 128}))  # the run is over: free again
        # the project lock: nested only for its owner, released only by it
        a.lock.acquire(wait=0)
        try:
            with pytest.raises(LockedError, match="owner A"):
                b.lock.acquire(wait=0.2)
            b.lock.release()
            assert (state / "lock.json").exists()
            inner = ProjectLock(state, owner=a.owner)
            inner.acquire(wait=0)
            inner.release()
            assert (state / "lock.json").exists()
        finally:
            a.lock.release()
        assert not (state / "lock.json").exists()


def test_a_claim_whose_owner_died_is_taken_over(tmp_path: Path) -> None:
    root = _project(tmp_path)
    state = root / ".pto-tui"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True)
    import json
    import socket

    (state / RUN_NAME).write_text(json.dumps({
        "round": 1, "what": "round run", "owner": "gone", "pid": int(dead.stdout),
        "host": socket.gethostname(), "since": 0}))
    assert read_claim(state) is None
    with Campaign(root, write=True) as campaign:
        campaign.record_changes(ChangesRequest(parameters={KNOB: 64}))
        with campaign.running(1, "round run"):
            claim = read_claim(state)
            assert claim is not None and claim.holder.owner == campaign.owner
    # another host's claim is never presumed stale
    (state / RUN_NAME).write_text(json.dumps({
        "round": 1, "what": "round run", "owner": "far", "pid": int(dead.stdout),
        "host": "elsewhere", "since": 0}))
    with Campaign(root, write=True) as campaign, pytest.raises(RuleViolation, match="on elsewhere"):
        campaign.record_changes(ChangesRequest(parameters={KNOB: 32}))
