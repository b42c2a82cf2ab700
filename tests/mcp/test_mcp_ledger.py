"""The official MCP client over stdio: amend, round_confirm, phase and exec go through the
same core calls and rules as `pto-tui amend`, `round confirm`, `phase` and `exec`, refuse
with structured errors, and wait for (then name) another writer's project lock."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.rules.review import REVIEW_LARGE_GAIN
from tests.core.helpers import cli, ready_project, run_round
from tests.json_check import validate
from tests.mcp.client import REPO, agent

SCHEMAS = REPO / "docs" / "json"
HOLD = """
import sys, time
from pathlib import Path
from pto_tui.core.project.lock import ProjectLock
lock = ProjectLock(Path(sys.argv[1]), command="a long write")
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""



def error_of(result: dict[str, Any]) -> dict[str, Any]:
    assert result["is_error"], result
    validate("mcp-result", {k: v for k, v in result.items() if k != "is_error"})
    return result["error"]


async def corrections(root: Path) -> None:
    async with agent(root) as a:
        amended = await a.ok("amend", number=1, field="analysis", value="reworded", why="fixed a typo")
        validate("round", amended)
        assert amended["amendments"][-1]["new"] == "reworded"
        # the amendable fields are the argument's enum: refused before the tool runs, naming it
        unknown = error_of(await a.call("amend", number=1, field="title", value="x", why="y"))
        assert (unknown["type"], unknown["tool"], unknown["key"]) == ("input_error", "amend", "field")
        assert all(name in unknown["message"] for name in ("verdict", "analysis", "next"))
        held = error_of(await a.call("amend", number=2, field="verdict", value="kept", why="real"))
        assert held["rule"] == REVIEW_LARGE_GAIN.id and "`round_confirm`" in held["message"]
        not_held = error_of(await a.call("round_confirm", number=1, reason="it is real"))
        assert not_held["rule"] == REVIEW_LARGE_GAIN.id and not_held["fix"]
        confirmed = await a.ok("round_confirm", number=2, reason="re-measured by hand: real")
        validate("round", confirmed)
        assert confirmed["review_confirmation"].endswith("re-measured by hand: real")
        phases = await a.ok("phase")
        validate("phase", phases)
        assert (await a.ok("phase", name=phases["phases"][-1]))["current"] == phases["phases"][-1]
        bogus = error_of(await a.call("phase", name="no-such-phase"))
        assert bogus["type"] == "input_error" and "unknown phase" in bogus["message"]


def test_amend_confirm_and_phase_follow_the_cli_s_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "80,81,80.5", params=("QK_PRELOAD=3",)) == 0
    run_round(root, "5,5.1,5", params=("QK_PRELOAD=2",))  # 16x: held for review
    asyncio.run(corrections(root))
    capsys.readouterr()  # the CLI reads what the agent wrote
    assert cli("--project", root, "show", "2", "--json") == 0
    assert "re-measured by hand: real" in capsys.readouterr().out


async def refused_while_locked(root: Path) -> dict[str, Any]:
    async with agent(root) as a:
        amend = {"number": 1, "field": "analysis", "value": "x", "why": "a clearer wording"}
        return error_of(await a.call("amend", **amend))


def test_a_write_waits_for_another_writer_then_names_it(tmp_path: Path) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "80,81,80.5", params=("QK_PRELOAD=3",)) == 0
    record = (root / "runs" / "iter-001" / "round.toml").read_bytes()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(root / ".pto-tui")],
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        error = asyncio.run(refused_while_locked(root))
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert error["type"] == "locked"
    assert f"pid {holder.pid}" in error["message"] and "a long write" in error["message"]
    assert "waited 5 s" in error["message"]
    assert (root / "runs" / "iter-001" / "round.toml").read_bytes() == record  # untouched


async def commands_on_the_target(root: Path) -> list[dict[str, Any]]:
    async with agent(root, allow_exec=True) as a:
        return [
            await a.ok("exec", command="ls | head -3; echo to-stderr >&2"),  # in the operator folder
            await a.call("exec", command="exit 3", sync=False),
            await a.call("exec", command="echo no", project=str(root / "nowhere")),
        ]


def test_exec_runs_on_the_target_after_the_upload(tmp_path: Path) -> None:
    root = create_demo_project("dsl", tmp_path / "projects")
    listed, exited, nowhere = asyncio.run(commands_on_the_target(root))
    # a non-zero exit is an error result, its exit code the first field an agent reads
    assert exited["is_error"] is True and exited["warnings"] == ["the command exited with code 3 (failed)"]
    failed = exited["data"]
    for data in (listed, failed):
        validate("exec", data)
    assert listed["synced"] is True and listed["job"]["state"] == "succeeded" and listed["exit_code"] == 0
    assert listed["stdout"].strip() and listed["stderr"] == "to-stderr"
    assert failed["synced"] is False and (failed["exit_code"], failed["state"]) == (3, "failed")
    assert (failed["job"]["state"], failed["job"]["exit_code"]) == ("failed", 3)
    assert error_of(nowhere)["type"] in ("input_error", "config_error", "error")
    assert not (root / ".pto-tui" / "lock.json").exists()  # the upload's lock was released


async def held_over_mcp(root: Path) -> None:
    async with agent(root) as a:
        result = await a.call("amend", number=1, field="verdict", value="kept", why="looks faster")
        assert not result["is_error"], result
        assert result["data"]["held_for_review"] is True and result["data"]["verdict"] == "inconclusive"
        assert any("held for review" in w and "honest-verdict" in w for w in result["warnings"])
        again = error_of(await a.call("amend", number=1, field="verdict", value="kept",
                                      why="it really is faster"))
        assert again["rule"] == "honest-verdict"
        assert "the `round_confirm` tool (number, reason)" in again["message"]
        status = await a.ok("status")
        assert status["frontier_round"] == 0
        confirmed = await a.ok("round_confirm", number=1, reason="re-measured by hand, the gain holds")
        assert confirmed["amendments"][-1]["new"] == "kept"
        assert (await a.ok("status"))["frontier_round"] == 1


def test_an_amendment_to_kept_over_mcp_is_held_until_confirmed(tmp_path: Path) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "60,100,80", params=("kFaTileS1=128",)) == 0  # spread 50%
    asyncio.run(held_over_mcp(root))
