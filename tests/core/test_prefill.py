"""Pre-Edit answers drafted from an earlier round: the kernel, class, evidence, correctness
plan and checklist notes carried over, the hypothesis left to the person; every gate
still checked (`round start --prefill [N]`, `round gates --prefill [N]`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pto_tui.core.campaign.prefill import LEFT_FOR_THE_USER, fill_missing, prefill
from pto_tui.core.rounds.records import ChecklistItem, PreEdit, Round
from tests.core.helpers import CHECKLIST_KEYS, cli, cli_json, pre_edit_args, ready_project, run_round
from tests.json_check import validate

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "json" / "prefill.schema.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = ready_project(tmp_path)
    justify = "UB use at 512 is 96 KiB of 192 KiB"
    assert run_round(root, "80,81,80.5", params=("TILE_S1=512",), justify=justify) == 0
    return root


def test_gates_prefill_shows_the_draft_and_what_still_blocks(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert cli("--project", project, "round", "gates", "--prefill", "--json") == 1
    data = json.loads(capsys.readouterr().out)
    validate("prefill", data)
    previous = cli_json(capsys, "--project", project, "show", "1")["record"]["pre_edit"]
    pre = data["pre_edit"]
    assert data["prefilled_from"] == 1
    for key in ("kernel", "bottleneck", "evidence", "correctness_plan"):
        assert pre[key] == previous[key] and key in data["filled"]
    assert set(pre["checklist"]) == set(CHECKLIST_KEYS)
    assert pre["checklist"]["tile_shape"] == {"ticked": True, "note": "checked for this round"}
    # the hypothesis and what follows from it are the person's: still blocking
    assert pre["hypothesis"] == pre["why_ascend"] == pre["main_risk"] == "" and pre["scope"] == []
    assert "hypothesis" in data["left_for_the_user"]
    assert {f["rule"] for f in data["findings"]} >= {"pre-edit-complete"}
    assert "hardware-checklist" not in {f["rule"] for f in data["findings"]}

    capsys.readouterr()
    assert cli("--project", project, "round", "gates", "--prefill", "1") == 1
    out = capsys.readouterr().out
    assert "prefilled from iter-001: kernel, bottleneck, evidence, correctness_plan" in out
    assert "left for you: hypothesis" in out and "[pre-edit-complete]" in out


def test_start_prefill_fills_only_what_is_not_given(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = ["--project", project]
    own = [
        "--hypothesis", "deeper preload hides the GM latency",
        "--why", "MTE2 overlaps the cube",
        "--metric", "duration_us",
        "--risk", "UB pressure",
        "--evidence", "profiling: MTE2 idle 30%",
        "--check", "tile_shape=unchanged at 128x512",
        "--scope", "workspace/kernel/fa_kernel.h",
    ]  # fmt: skip
    record = cli_json(capsys, *p, "round", "start", "--prefill", *own)
    pre = record["pre_edit"]
    previous = cli_json(capsys, *p, "show", "1")["record"]["pre_edit"]
    assert pre["evidence"] == "profiling: MTE2 idle 30%"  # given: it stands
    assert pre["hypothesis"] == "deeper preload hides the GM latency"
    assert pre["bottleneck"] == previous["bottleneck"] and pre["kernel"] == previous["kernel"]
    assert pre["checklist"]["tile_shape"]["note"] == "unchanged at 128x512"
    assert pre["checklist"]["ub_pressure"]["note"] == "checked for this round"
    assert record["number"] == 2 and record["status"] == "open"


def test_start_prefill_still_checks_every_gate(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = ["--project", project]
    capsys.readouterr()
    assert cli(*p, "round", "start", "--prefill") == 1  # no hypothesis given
    assert "pre-edit-complete" in capsys.readouterr().err
    assert not (project / "runs/iter-002").exists()
    assert cli(*p, "round", "start", "--prefill", "0", *pre_edit_args("x")) == 2
    assert "baseline" in capsys.readouterr().err
    assert cli(*p, "round", "gates", "--prefill", "7") == 2
    assert "no round 7" in capsys.readouterr().err
    assert cli(*p, "round", "gates", "--prefill", "latest") == 2
    assert "--prefill expects a round number" in capsys.readouterr().err


def test_prefill_is_pure_and_defaults_to_the_last_closed_round() -> None:
    old = Round(number=1, status="closed", pre_edit=PreEdit(bottleneck="bad tile shape", evidence="a"))
    new = Round(
        number=2,
        status="closed",
        pre_edit=PreEdit(
            kernel="k",
            bottleneck="memory bound",
            evidence="b",
            hypothesis="h",
            main_risk="r",
            scope=["x"],
            checklist={"tile_shape": ChecklistItem(True, "n"), "ub_pressure": ChecklistItem(True, " ")},
        ),
    )
    drafted = prefill([Round(number=0, status="closed"), old, new])
    assert drafted.source == 2
    assert (drafted.pre_edit.bottleneck, drafted.pre_edit.evidence) == ("memory bound", "b")
    assert drafted.pre_edit.hypothesis == drafted.pre_edit.main_risk == "" and drafted.pre_edit.scope == []
    assert set(drafted.pre_edit.checklist) == {"tile_shape"}  # an empty note is no answer
    assert prefill([old, new], number=1).pre_edit.bottleneck == "bad tile shape"
    given = PreEdit(bottleneck="compute bound", checklist={"tile_shape": ChecklistItem(False, "")})
    merged, filled = fill_missing(given, drafted.pre_edit)
    assert merged.bottleneck == "compute bound" and "bottleneck" not in filled
    assert merged.checklist["tile_shape"].ticked and "checklist.tile_shape" in filled
    assert given.checklist["tile_shape"].ticked is False  # the input is not changed
    assert "hypothesis" in LEFT_FOR_THE_USER
