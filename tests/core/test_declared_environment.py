"""Probes given by hand are declared evidence: an environment round of them alone passes only
with --declare-environment REASON, and is recorded and shown as declared everywhere."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.core.helpers import cli, make_project

HAND_PROBE = "npu reachable (checked by hand)=ok"
REASON = "no NPU in this lab; checked npu-smi on the board by hand"


def _baseline_round(root: Path) -> dict[str, object]:
    return tomllib.loads((root / "runs" / "iter-000" / "round.toml").read_text(encoding="utf-8"))


def test_hand_probes_without_a_declaration_are_refused_naming_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    capsys.readouterr()
    assert cli("--project", root, "env", "--probe", HAND_PROBE) == 1
    err = capsys.readouterr().err
    assert "refused by rule 'environment-round'" in err and "given by hand (cli)" in err
    assert "--declare-environment REASON" in err
    assert not (root / "runs" / "iter-000" / "round.toml").exists()  # nothing recorded
    # and the baseline stays locked behind the environment round
    assert cli("--project", root, "baseline", "--build", "ok", "--correctness", "pass",
               "--samples", "100,101,99") == 1
    assert "run the environment round first" in capsys.readouterr().err


def test_a_declaration_needs_a_reason_that_says_something(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    capsys.readouterr()
    assert cli("--project", root, "env", "--probe", HAND_PROBE, "--declare-environment", "ok") == 1
    err = capsys.readouterr().err
    assert "'environment-round': declared environment: the reason 'ok' says nothing" in err


def test_a_declaration_goes_with_probes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path)
    capsys.readouterr()
    assert cli("--project", root, "env", "--declare-environment", REASON) == 2
    assert "--declare-environment goes with the probes" in capsys.readouterr().err


def test_a_declared_environment_is_recorded_and_shown_as_declared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    capsys.readouterr()
    assert cli("--project", root, "env", "--probe", HAND_PROBE, "--declare-environment", REASON) == 0
    out = capsys.readouterr().out
    assert "passed (DECLARED by hand via cli, not probed)" in out and REASON in out

    env = _baseline_round(root)["environment"]
    assert isinstance(env, dict)
    assert env["declared_by"] == "cli" and env["declared_reason"] == REASON and env["passed"] is True

    notes = (root / "runs" / "iter-000" / "notes.md").read_text(encoding="utf-8")
    assert (
        "- **Declared**: the probes were given by hand via cli, not run on the target: " + REASON
    ) in notes

    assert cli("--project", root, "status") == 0
    status = capsys.readouterr().out
    assert "environment round: passed" in status
    assert f"DECLARED: probes given by hand via cli, not run on the target; reason: {REASON}" in status
    assert cli("--project", root, "status", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["environment_passed"] is True
    assert data["environment_declared_by"] == "cli"
    assert data["environment_declared_reason"] == REASON


def test_failed_hand_probes_are_recorded_without_a_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failure given by hand unlocks nothing, so it needs no reason: it is kept as an attempt."""
    root = make_project(tmp_path)
    assert cli("--project", root, "env", "--probe", "npu reachable=failed") == 1
    env = _baseline_round(root)["environment"]
    assert isinstance(env, dict)
    assert env["passed"] is False and env["declared_by"] == "cli" and "declared_reason" not in env
    # the next, declared attempt passes; the failed one is listed as declared in notes.md
    assert cli("--project", root, "env", "--probe", HAND_PROBE, "--declare-environment", REASON) == 0
    notes = (root / "runs" / "iter-000" / "notes.md").read_text(encoding="utf-8")
    assert "- attempt 1 at " in notes and ", declared via cli: NOT passed (failed: npu reachable)" in notes


def test_a_run_environment_round_is_not_marked_declared(tmp_path: Path) -> None:
    """Notes without a surface (the probes were run) need no declaration and show none."""
    from pto_tui.core.campaign.campaign import Campaign
    from pto_tui.core.rounds.records import EnvironmentNotes

    root = make_project(tmp_path)
    with Campaign(root, write=True) as campaign:
        campaign.record_environment(EnvironmentNotes(probes={"target reachable": True}, passed=True))
        status = campaign.status()
    assert status.environment_passed and status.environment_declared_by == ""
    notes = (root / "runs" / "iter-000" / "notes.md").read_text(encoding="utf-8")
    assert "**Declared**" not in notes
    assert "declared_by" not in (root / "runs" / "iter-000" / "round.toml").read_text(encoding="utf-8")
