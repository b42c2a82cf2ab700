"""A refusal names what answers it: the CLI prints, for every rule a refusal names, the
rule's fix with the command and options that give it; the terminal application says it
with its own fields. Real refusals, through the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.errors import RuleViolation
from pto_tui.core.rules.registry import RULES, fixes_of
from pto_tui.tui.format import error_text
from tests.core.helpers import cli, make_project, pre_edit_args, ready_project


def refusal(capsys: pytest.CaptureFixture[str], *argv: object) -> list[str]:
    capsys.readouterr()
    assert cli(*map(str, argv)) == 1
    err = capsys.readouterr().err
    assert "refused by rule" in err, err
    return [line.removeprefix("  fix: ") for line in err.splitlines() if line.startswith("  fix: ")]


def test_every_rule_says_how_to_answer_it() -> None:
    for rule in RULES.values():
        assert rule.fix.strip(), rule.id
        # the ones a person meets at the command line name the command or option too
        if rule.id != "valid-record":  # a hand-edited field: the fix names the field itself
            assert rule.cli.strip(), rule.id


def test_the_four_questions_name_their_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    fixes = refusal(capsys, "--project", root, "round", "start", "--hypothesis", "bigger tiles")
    rules = [fix.split(":", 1)[0] for fix in fixes]
    assert rules[:2] == ["four-questions", "pre-edit-complete"]
    four = fixes[0]
    assert all(option in four for option in ("--bottleneck", "--why", "--metric", "--correctness-plan"))
    assert any(f.startswith("hardware-checklist:") and "--check KEY=NOTE" in f for f in fixes)


def test_the_environment_round_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path)
    fixes = refusal(capsys, "--project", root, "baseline", "--build", "ok", "--correctness", "pass",
                    "--samples", "100,101,99")
    assert fixes == [RULES["environment-round"].fix_for("cli").join(["environment-round: ", ""])]
    assert "`pto-tui env`" in fixes[0]


def test_one_round_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ready_project(tmp_path)
    assert cli("--project", root, "round", "start", *pre_edit_args()) == 0
    fixes = refusal(capsys, "--project", root, "round", "start", *pre_edit_args())
    assert fixes[0].startswith("one-round-at-a-time:") and "`round run` or `round close`" in fixes[0]


def test_the_app_says_the_fix_with_its_own_fields() -> None:
    error = RuleViolation("editable-scope", "a protected file changed: harness.py")
    text = error_text(error)
    assert "fix: editable-scope:" in text and "bug-fix reason field" in text
    assert "--bug-fix" not in text
    # a refusal whose own hint says what to do gets no second fix
    hinted = RuleViolation("editable-scope", "changed", hint="undo it")
    assert fixes_of(hinted, "cli") == []
