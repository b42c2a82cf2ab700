"""The workflow's rules cannot be bent from the CLI: a reason must say something, discipline
limits are finite, and `round changes` and `round run` apply one scope rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.helpers import cli, cli_json, make_project, pre_edit_args, ready_project, run_round


def test_one_character_bug_fix_reason_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("main.cpp",))) == 0
    main_cpp = root / "workspace/kernel/main.cpp"
    main_cpp.write_text(main_cpp.read_text() + "\n// tampered harness\n")
    for weak in ("x", "......", "fix"):
        capsys.readouterr()
        assert cli("--project", root, "round", "changes", "--bug-fix", weak) == 1
        err = capsys.readouterr().err
        assert "refused by rule 'editable-scope'" in err and "says nothing" in err, err
    assert (
        cli("--project", root, "round", "changes", "--bug-fix", "main.cpp printed the wrong unit")
        == 0
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_spread", "inf"), ("max_spread", "nan"), ("review_gain", "nan"), ("review_gain", "inf")],
)
def test_discipline_limits_must_be_finite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str
) -> None:
    root = make_project(tmp_path)
    text = (root / "project.toml").read_text()
    line = next(x for x in text.splitlines() if x.startswith(f"{key} = "))
    (root / "project.toml").write_text(text.replace(line, f"{key} = {value}"))
    capsys.readouterr()
    assert cli("--project", root, "status") == 2
    err = capsys.readouterr().err
    assert "project.toml:" in err and f"[discipline.{key}]" in err, err


def test_changes_and_run_share_the_scope_rule_for_a_header_constant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`round run` records the changes again; a constant already set must still explain its
    header file, as it did for `round changes`."""
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli("--project", root, "round", "changes", "--set", "kFaTileS1=128") == 0
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 0, capsys.readouterr().err
    # and a stray edit next to it is still refused
    header = root / "workspace/kernel/fa_kernel.cpp"
    header.write_text(header.read_text() + "\n// unrelated\n")
    assert cli("--project", root, "round", "changes") == 1
    assert "refused by rule 'one-hypothesis'" in capsys.readouterr().err


def test_a_stray_edit_beside_a_constant_already_set_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli("--project", root, "round", "changes", "--set", "kFaTileS1=128") == 0
    header = root / "workspace/kernel/fa_kernel.h"
    header.write_text(header.read_text() + "\n// a second idea in the same header\n")
    capsys.readouterr()
    assert cli("--project", root, "round", "changes") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'one-hypothesis'" in err and "fa_kernel.h" in err, err


def test_a_gain_above_review_gain_is_held_until_confirmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert cli(*p, "round", "start", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli(*p, "round", "changes", "--set", "kFaTileS1=128") == 0
    measured = ("--build", "ok", "--correctness", "pass", "--samples", "5,5.01,5.02")
    assert cli(*p, "round", "measure", *measured) == 0
    # claiming kept is refused: the numbers alone never keep a 20x gain
    capsys.readouterr()
    assert cli(*p, "round", "close", "--verdict", "kept") == 1
    assert "refused by rule 'honest-verdict'" in capsys.readouterr().err
    closed = cli_json(capsys, *p, "round", "close")
    assert isinstance(closed, dict)
    assert closed["verdict"] == "inconclusive" and closed["held_for_review"] is True
    assert closed["verdict_reason"].startswith("held for review")
    status = cli_json(capsys, *p, "status")
    assert isinstance(status, dict) and status["frontier_round"] == 0
    # an amendment cannot go around the review, nor can a reason that says nothing
    assert cli(*p, "amend", "1", "--field", "verdict", "--value", "kept", "--why", "looks good to me") == 1
    assert "refused by rule 'review-large-gain'" in capsys.readouterr().err
    assert cli(*p, "round", "confirm", "1", "--reason", "ok") == 1
    assert "refused by rule 'review-large-gain'" in capsys.readouterr().err
    reason = "checked the report: smaller tiles fit the cache"
    confirmed = cli_json(capsys, *p, "round", "confirm", "1", "--reason", reason)
    assert isinstance(confirmed, dict) and reason in confirmed["review_confirmation"]
    assert confirmed["amendments"][-1]["new"] == "kept"
    status = cli_json(capsys, *p, "status")
    assert isinstance(status, dict) and status["frontier_round"] == 1
    assert status["tampered_rounds"] == {}
    logged = (root / "runs/closed.log").read_text().splitlines()[-1]
    assert '"event": "amended"' in logged and reason in logged
    assert cli(*p, "round", "confirm", "1", "--reason", reason) == 1


def test_a_noisy_baseline_is_recorded_and_shown_as_unstable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path, samples="100,136,110")  # spread 36% over max_spread 10%
    baseline = cli_json(capsys, "--project", root, "show", "0")
    assert isinstance(baseline, dict) and baseline["record"]["stability"] == "noisy"
    assert "unstable baseline: spread 32.7%" in baseline["record"]["flags"][0]
    status = cli_json(capsys, "--project", root, "status")
    assert isinstance(status, dict) and status["baseline_stability"] == "noisy"
    capsys.readouterr()
    assert cli("--project", root, "status") == 0
    assert "UNSTABLE" in capsys.readouterr().out
    assert run_round(root, "80,80.5,80.2", params=("kFaTileS1=128",)) == 0
    closed = cli_json(capsys, "--project", root, "show", "1")
    assert isinstance(closed, dict) and "against an unstable baseline" in closed["record"]["verdict_reason"]


def test_a_stable_baseline_is_stable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    baseline = cli_json(capsys, "--project", root, "show", "0")
    assert isinstance(baseline, dict) and baseline["record"]["stability"] == "stable"


def test_loosening_discipline_after_a_refusal_needs_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert cli(*p, "round", "start", *pre_edit_args(scope=("kFaTileS1",))) == 0
    assert cli(*p, "round", "changes", "--set", "kFaTileS1=128") == 0
    # +2.0%, bounds +0.5% to +3.6%: undecided under the 2% floor, kept under a 0.5% one
    noisy = ("--build", "ok", "--correctness", "pass", "--samples", "98,98.5,97.5")
    assert cli(*p, "round", "measure", *noisy) == 0
    capsys.readouterr()
    assert cli(*p, "round", "close", "--verdict", "kept") == 1
    assert "refused by rule 'honest-verdict'" in capsys.readouterr().err
    toml = root / "project.toml"
    toml.write_text(toml.read_text().replace("noise_floor = 0.02", "noise_floor = 0.005"))
    assert cli(*p, "round", "close", "--verdict", "kept") == 1
    err = capsys.readouterr().err
    assert "refused by rule 'discipline-protected'" in err and "noise_floor 0.02 -> 0.005" in err, err
    assert cli(*p, "round", "changes", "--approve-discipline", "x") == 1
    assert "discipline-protected" in capsys.readouterr().err
    reason = "the CPU stand-in is noisier than the NPU target"
    assert cli(*p, "round", "changes", "--approve-discipline", reason) == 0
    closed = cli_json(capsys, *p, "round", "close", "--verdict", "kept")
    assert isinstance(closed, dict) and closed["discipline"]["noise_floor"] == 0.005
    assert closed["changes"]["discipline_approval"] == reason
    assert "Discipline change justified" in (root / "runs/iter-001/notes.md").read_text()
    # the next round closes under the justified discipline without asking again
    assert run_round(root, "60,60.2,60.1", params=("kFaQkPreload=5",)) == 0
