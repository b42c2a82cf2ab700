"""Records that cannot be bent: an amendment never mints a win, only measured rounds lead,
a round closed by hand is not a round, and the verdict rule's edges hold exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.rules.verdict import decide
from pto_tui.core.vocabulary import Verdict
from tests.core.helpers import cli, cli_json, ready_project, run_round


def status(capsys: pytest.CaptureFixture[str], root: Path) -> dict:
    data = cli_json(capsys, "--project", root, "status")
    assert isinstance(data, dict)
    return data


def test_amending_an_inconclusive_round_to_kept_holds_it_for_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    # +25%, with bounds from -1% to +68%: the numbers cannot decide, the round closes inconclusive
    assert run_round(root, "60,100,80", params=("kFaTileS1=128",)) == 0
    assert cli_json(capsys, *p, "show", "1")["record"]["verdict"] == "inconclusive"
    capsys.readouterr()
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "kept", "--why", "looks faster") == 0
    out = capsys.readouterr()
    assert "held for review, not amended" in out.out
    assert "[honest-verdict]" in out.err and "round confirm 1 --reason" in out.err
    record = cli_json(capsys, *p, "show", "1")["record"]
    assert record["held_for_review"] is True and record.get("amendments", []) == []
    assert record["verdict"] == "inconclusive"
    assert any("amended to kept against its measurement" in f and "undecided" in f for f in record["flags"])
    st = status(capsys, root)
    assert st["frontier_round"] == 0 and st["counts"]["kept"] == 0
    # a second amendment is no way around it; the user's confirmation is, and it is shown
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "kept", "--why", "really it is") == 1
    assert "refused by rule 'honest-verdict'" in capsys.readouterr().err
    assert cli(*p, "round", "confirm", "1", "--reason", "re-measured by hand on the NPU, real") == 0
    st = status(capsys, root)
    assert st["frontier_round"] == 1 and st["counts"]["kept"] == 1
    shown = cli_json(capsys, *p, "show", "1")["record"]
    assert "re-measured by hand" in shown["review_confirmation"]
    assert shown["amendments"][-1]["new"] == "kept"


def test_a_failed_run_without_samples_cannot_be_amended_to_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert run_round(root, "", params=("kFaTileS1=128",), build="failed") == 0
    capsys.readouterr()
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "kept", "--why",
               "the build log was wrong") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'honest-verdict'" in err and "no valid measurement" in err
    record = cli_json(capsys, *p, "show", "1")["record"]
    assert record["verdict"] == "failure" and not record.get("held_for_review")
    assert cli(*p, "round", "confirm", "1", "--reason", "it really passed on the NPU") == 1


def test_amending_to_kept_stands_when_the_numbers_keep_it_and_downgrades_stay_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert run_round(root, "80,81,80.5", params=("kFaTileS1=128",)) == 0  # kept, ~24%
    # a downgrade with a reason: the frontier falls back to the baseline
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "neutral", "--why",
               "the report timed the wrong kernel") == 0
    assert status(capsys, root)["frontier_round"] == 0
    # a reason that says nothing is refused for a verdict
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "kept", "--why", "ok") == 1
    assert "says nothing" in capsys.readouterr().err
    # back to kept: its own numbers keep it against the baseline, so it stands at once
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "kept", "--why",
               "the report was right after all") == 0
    record = cli_json(capsys, *p, "show", "1")["record"]
    assert record["amendments"][-1]["new"] == "kept" and not record.get("held_for_review")
    assert status(capsys, root)["frontier_round"] == 1


HAND_NOTES = """# iter-002

## Pre-Edit

- **Hypothesis**: smaller tiles
- **Bottleneck**: bad tile shape

## Post-Run

- **Correctness**: pass
- **Performance**: 1.000 us
- **Result**: kept
"""


def test_a_round_written_by_hand_never_leads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "80,81,80.5", params=("kFaTileS1=128",)) == 0  # the real frontier
    folder = root / "runs/iter-002"
    folder.mkdir()
    (folder / "notes.md").write_text(HAND_NOTES)
    with (root / "ITERATIONS.md").open("a") as handle:
        handle.write("| iter-002 | smaller tiles | - | 100 us | 1.000 us | pass | kept |\n")
    st = status(capsys, root)
    assert st["frontier_round"] == 1
    assert any(line.startswith("iter-002 (1.0 us) is not the frontier: written by hand")
               for line in st["frontier_passed_over"]), st["frontier_passed_over"]
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    assert "passed over" in capsys.readouterr().out
    # a later real round is judged against the measured frontier, not the hand-written one
    with Campaign(root, write=False) as campaign:
        frontier = campaign.frontier_of(campaign.rounds())
        assert frontier is not None and frontier.number == 1


def test_a_closed_round_toml_pto_tui_never_closed_is_not_a_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "80,81,80.5", params=("kFaTileS1=128",)) == 0
    forged = (root / "runs/iter-001/round.toml").read_text()
    forged = forged.replace("number = 1", "number = 2").replace("80.5", "1.0").replace("81.0", "1.1")
    forged = forged.replace("80.0", "1.05")
    (root / "runs/iter-002").mkdir()
    (root / "runs/iter-002/round.toml").write_text(forged)
    st = status(capsys, root)
    assert "2" in st["tampered_rounds"] and "never closed it" in st["tampered_rounds"]["2"][0]
    assert st["frontier_round"] == 1
    assert any("closed by hand" in line for line in st["frontier_passed_over"])


def test_the_phase_of_a_round_is_the_campaign_s(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "80,81,80.5", params=("kFaTileS1=128",)) == 0
    record = cli_json(capsys, "--project", root, "show", "1")["record"]
    config = Campaign(root).config
    assert not config.costmodel.enabled
    assert record["phase"] == "parameter validation"  # not the costmodel's own phase


def test_the_tunables_hold_the_values_the_next_round_starts_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An env knob lives only in project.toml and the rounds' snapshots: after a round
    that is not kept, the next one starts from the frontier's value, and so does
    [tunables] (what `suggest` and the context call current)."""
    root = ready_project(tmp_path, "attention_dsl")
    knob = "PTO_ATTENTION_QK_BASE_M"

    def value() -> object:
        with Campaign(root) as campaign:
            return campaign.config.tunables[knob].value

    assert value() == 64
    assert run_round(root, "120,121,120.5", params=(f"{knob}=32",)) == 0  # slower: neutral
    assert cli_json(capsys, "--project", root, "show", "1")["record"]["verdict"] == "neutral"
    assert value() == 64  # the frontier is still iter-000
    assert run_round(root, "80,81,80.5", params=(f"{knob}=16",)) == 0  # kept
    assert value() == 16
    from tests.core.helpers import pre_edit_args

    assert cli("--project", root, "round", "start", "--based-on", "0",
               *pre_edit_args(scope=(knob,))) == 0
    assert value() == 64  # based on iter-000: its value
    record = cli_json(capsys, "--project", root, "show", "3")["record"]
    assert record["changes"]["snapshot"][knob] == 64


def test_the_kind_an_agent_gave_survives_round_changes_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    from tests.core.helpers import pre_edit_args

    p = ("--project", root)
    assert cli(*p, "round", "start", "--restore", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli(*p, "round", "changes", "--set", "kFaTileS1=128", "--kind", "code") == 0
    assert cli(*p, "round", "changes") == 0  # as `round run` records them again
    record = cli_json(capsys, *p, "show", "1")["record"]
    assert record["changes"]["kind"] == "code"  # not re-inferred as a template parameter


def test_a_closed_round_s_journal_is_no_unfinished_measurement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    journal = root / ".pto-tui/measuring/iter-001.json"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text(json.dumps({"round": 1, "planned_runs": 5, "written_at": 0,
                                   "measurement": {"samples_us": [80.0]}}))
    shown = cli_json(capsys, "--project", root, "status")
    assert isinstance(shown, dict) and [j["round"] for j in shown["unfinished_measurements"]] == [1]
    assert run_round(root, "80,81,80.5", params=("kFaTileS1=128",)) == 0
    shown = cli_json(capsys, "--project", root, "status")
    assert isinstance(shown, dict) and shown["unfinished_measurements"] == []
    assert journal.exists()  # set aside by nobody: the file is kept, only not listed


# ---------------------------------------------------------------- the verdict rule's edges


RULE: dict[str, Any] = {"build_ok": True, "correct": True, "same_workload": True, "max_spread": 0.10,
                        "review_gain": 10.0, "confidence": 0.95}


def test_a_gain_exactly_at_the_noise_floor_is_neutral() -> None:
    # 125 / 100 - 1 is 0.25 exactly in binary floating point: the floor itself
    frontier = [125.0, 125.0, 125.0]
    result = decide(samples=[100.0, 100.0, 100.0], frontier=frontier, noise_floor=0.25, **RULE)
    assert result.verdict is Verdict.NEUTRAL, result
    above = decide(samples=[99.9, 99.9, 99.9], frontier=frontier, noise_floor=0.25, **RULE)
    assert above.verdict is Verdict.KEPT, above


def test_the_three_round_rule_needs_both_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.core.helpers import pre_edit_args

    root = ready_project(tmp_path)
    for value in ("128", "64", "32"):  # three rounds in a row, none kept (slower each time)
        assert run_round(root, "120,121,120.5", params=(f"kFaTileS1={value}",)) == 0
    assert status(capsys, root)["three_round_rule"] is True
    p = ("--project", root)
    partial = ({"--recheck": "still a bad tile shape"}, {"--new-direction": "try the preload depth"})
    for answers in partial:
        capsys.readouterr()
        assert cli(*p, "round", "start", *pre_edit_args(scope=("kFaQkPreload",), overrides=answers)) == 1
        assert "refused by rule 'three-round-rule'" in capsys.readouterr().err, answers
    both = {**partial[0], **partial[1]}
    assert cli(*p, "round", "start", *pre_edit_args(scope=("kFaQkPreload",), overrides=both)) == 0


def test_a_rerun_takes_the_three_round_rule_s_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert run_round(root, "60,100,80", params=("kFaTileS1=128",)) == 0  # inconclusive
    for value in ("64", "32"):
        assert run_round(root, "120,121,120.5", params=(f"kFaTileS1={value}",)) == 0
    capsys.readouterr()
    assert cli(*p, "round", "rerun", "1") == 1
    assert "refused by rule 'three-round-rule'" in capsys.readouterr().err
    assert cli(*p, "round", "rerun", "1", "--recheck", "the tile shape still binds",
               "--new-direction", "measure the 128 tile again, longer") == 0
    record = cli_json(capsys, *p, "show", "4")["record"]
    assert record["rerun_of"] == 1
    assert record["pre_edit"]["bottleneck_recheck"] == "the tile shape still binds"


def test_the_chart_s_frontier_passes_over_a_round_written_by_hand(tmp_path: Path) -> None:
    from pto_tui.core.summary.chart_model import chart_rounds

    root = ready_project(tmp_path)
    assert run_round(root, "80,81,80.5", params=("kFaTileS1=128",)) == 0
    folder = root / "runs/iter-002"
    folder.mkdir()
    (folder / "notes.md").write_text(HAND_NOTES)
    with (root / "ITERATIONS.md").open("a") as handle:
        handle.write("| iter-002 | smaller tiles | - | 100 us | 1.000 us | pass | kept |\n")
    with Campaign(root) as campaign:
        charted = chart_rounds(campaign.rounds())
    assert [r.number for r in charted] == [0, 1, 2]
    assert charted[2].frontier_us == pytest.approx(80.5)  # iter-001's, not the hand-written 1 us
