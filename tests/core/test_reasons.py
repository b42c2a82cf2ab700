"""One reason checker for every reason a rule asks for: each rule that asks for one refuses
the same empty words (a character, a row of dots, "ok", two short words) with the same
message, and takes the same real reason; on the command line, as in the rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pto_tui.core.rounds.records import CLOSED, PreEdit, Round
from pto_tui.core.rules.history import HONEST_HISTORY, amendment_reason_findings
from pto_tui.core.rules.protected import (
    DISCIPLINE_PROTECTED,
    EDITABLE_SCOPE,
    TOLERANCE_PROTECTED,
    bug_fix_findings,
    discipline_findings,
    protected_findings,
    tolerance_findings,
)
from pto_tui.core.rules.reasons import reason_problem
from pto_tui.core.rules.review import (
    HONEST_VERDICT,
    REVIEW_LARGE_GAIN,
    confirm_findings,
    verdict_amendment_findings,
)
from pto_tui.core.rules.risk import HIGH_RISK, risk_findings
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.rules.sequence import (
    ENVIRONMENT_ROUND,
    THREE_ROUND_RULE,
    declared_environment_findings,
    three_round_findings,
)
from pto_tui.core.vocabulary import Verdict
from tests.core.helpers import cli, pre_edit_args, ready_project, run_round

WEAK = ("x", "......", "ok", "fits UB", "a typo")
GOOD = "the 512 tile still fits in UB with room for double buffering"


def _closed(number: int, verdict: Verdict = Verdict.NEUTRAL, **fields: object) -> Round:
    record = Round(number=number, status=CLOSED, verdict=verdict)
    for key, value in fields.items():
        setattr(record, key, value)
    return record


def _three_round_answers(reason: str) -> list[Finding]:
    history = [_closed(0), *(_closed(n) for n in (1, 2, 3))]
    return three_round_findings(PreEdit(bottleneck_recheck=reason, new_direction=reason), history)


def _held() -> Round:
    return _closed(1, Verdict.INCONCLUSIVE, held_for_review=True)


# every rule that asks for a reason: the rule, and its check given that reason
ASKING: dict[str, tuple[Rule, Callable[[str], list[Finding]]]] = {
    "bug fix": (EDITABLE_SCOPE, bug_fix_findings),
    "bug fix of a protected file": (EDITABLE_SCOPE, lambda r: protected_findings(["bench.py"], r)),
    "tolerance approval": (TOLERANCE_PROTECTED, lambda r: tolerance_findings(["atol 0.01 -> 0.1"], r)),
    "discipline approval": (DISCIPLINE_PROTECTED, lambda r: discipline_findings(["max_spread"], 1, r)),
    "high-risk justification": (HIGH_RISK, lambda r: risk_findings(["bigger tile TILE 64->128"], r)),
    "declared environment": (ENVIRONMENT_ROUND, lambda r: declared_environment_findings("cli", True, r)),
    "three-round answers": (THREE_ROUND_RULE, _three_round_answers),
    "amendment of the analysis": (
        HONEST_HISTORY, lambda r: amendment_reason_findings(_closed(1), "analysis", r)
    ),
    "amendment of a verdict": (HONEST_VERDICT, lambda r: verdict_amendment_findings(_closed(1), r)),
    "review confirmation": (REVIEW_LARGE_GAIN, lambda r: confirm_findings(_held(), r)),
}


@pytest.mark.parametrize("asking", list(ASKING))
@pytest.mark.parametrize("weak", WEAK)
def test_every_rule_refuses_a_reason_that_says_nothing_alike(asking: str, weak: str) -> None:
    rule, check = ASKING[asking]
    found = check(weak)
    assert found and {f.rule for f in found} == {rule.id}, found
    problem = reason_problem(weak)
    assert problem is not None and "says nothing" in problem
    assert all(problem in f.message for f in found), found


@pytest.mark.parametrize("asking", list(ASKING))
def test_every_rule_takes_a_real_reason(asking: str) -> None:
    _rule, check = ASKING[asking]
    assert check(GOOD) == []


def test_a_justification_that_says_nothing_does_not_clear_a_high_risk_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    p = ("--project", root)
    assert cli(*p, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    assert cli(*p, "round", "changes", "--set", "TILE_S1=512", "--justify", "fits UB") == 0
    assert "says nothing" in capsys.readouterr().err  # warned at once
    measure = ("round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "80,81,80.5")
    assert cli(*p, *measure) == 1
    err = capsys.readouterr().err
    assert f"refused by rule '{HIGH_RISK.id}'" in err and "'fits UB' says nothing" in err, err
    assert cli(*p, "round", "changes", "--justify", GOOD) == 0
    assert cli(*p, *measure) == 0


def test_an_amendment_of_the_analysis_needs_a_reason_that_says_something(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(tmp_path)
    assert run_round(root, "120,121,119", params=("TILE_S1=128",)) == 0
    amend = ("--project", root, "amend", "1", "--field", "analysis", "--value", "reworded", "--why")
    capsys.readouterr()
    assert cli(*amend, "a typo") == 1
    err = capsys.readouterr().err
    assert f"refused by rule '{HONEST_HISTORY.id}'" in err and "amending round 1's analysis" in err, err
    assert cli(*amend, "a typo in the analysis") == 0
