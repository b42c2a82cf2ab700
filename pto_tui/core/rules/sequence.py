"""The order of the loop: the environment round passes first (probes given by hand only
with a reason), the baseline is recorded before any tuning round, one round is open at a
time, and after three rounds in a row without a kept verdict the next one re-checks the
bottleneck and states a new direction. `start_findings` is every gate of `round start`."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from pto_tui.core.rounds.records import CLOSED, PreEdit, Round
from pto_tui.core.rules.pre_edit import pre_edit_findings
from pto_tui.core.rules.reasons import reason_findings
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.vocabulary import Verdict

ENVIRONMENT_ROUND = Rule(
    "environment-round",
    refuses="a baseline or a tuning round before the environment round has passed, and "
    "an environment round passed on probes given by hand without a reason",
    fix="run the environment round on the target until it passes, or declare the "
    "environment with a reason",
    steps=("env", "baseline", "start"),
    cli="`pto-tui env`, or `pto-tui env --declare-environment REASON`",
    mcp="the `env` tool, or its declare_environment",
)
BASELINE_FIRST = Rule(
    "baseline-first",
    refuses="a tuning round before the baseline (iter-000) is recorded",
    fix="record the baseline first",
    steps=("start",),
    cli="`pto-tui baseline`",
    mcp="the `baseline` tool",
)
ONE_ROUND_AT_A_TIME = Rule(
    "one-round-at-a-time",
    refuses="a round started while another round is open",
    fix="finish the open round first",
    steps=("start",),
    cli="`round run` or `round close`",
    mcp="`round_run` or `round_close`",
)
THREE_ROUND_RULE = Rule(
    "three-round-rule",
    refuses="after three rounds in a row without a kept verdict, a round that does not "
    "re-check the bottleneck class and state a new direction",
    fix="re-check the bottleneck class and state a new (preferably structural) direction, "
    "each in words that say something",
    steps=("start", "rerun"),
    cli="`round start --recheck TEXT --new-direction TEXT` (`round rerun` takes both too)",
    mcp="pre_edit.bottleneck_recheck and pre_edit.new_direction (`round_rerun` takes both too)",
)


def environment_findings(baseline: Round | None) -> list[Finding]:
    """The environment round comes first: no baseline before it has passed."""
    env = baseline.environment if baseline is not None else None
    if env is None:
        return [ENVIRONMENT_ROUND.finding("run the environment round first: `pto-tui env`")]
    if env.passed:
        return []
    failed = ", ".join(name for name, ok in env.probes.items() if not ok) or "see its problems"
    return [
        ENVIRONMENT_ROUND.finding(
            f"the environment round has not passed (failed: {failed}); fix the target and run "
            "`pto-tui env` again until it passes"
        )
    ]


def declared_environment_findings(declared_by: str, passed: bool, reason: str) -> list[Finding]:
    """Probes given by hand are no evidence: nothing was built or run on the target. Such an
    environment round passes only when declared so with a reason that says something."""
    if not declared_by or not passed:
        return []
    if not reason.strip():
        return [
            ENVIRONMENT_ROUND.finding(
                f"the probes were given by hand ({declared_by}), not run: nothing was built or "
                "measured on the target; run `pto-tui env` to probe it, or declare the "
                "environment with a reason (--declare-environment REASON; over MCP "
                "declare_environment)"
            )
        ]
    return reason_findings(ENVIRONMENT_ROUND, "declared environment", reason)


def rounds_without_gain(rounds: Sequence[Round]) -> int:
    """Consecutive closed tuning rounds, newest first, without a kept verdict (a kept the
    history does not vouch for, `unverified`, is none)."""
    count = 0
    for record in sorted(rounds, key=attrgetter("number"), reverse=True):
        if record.number == 0 or record.status != CLOSED:
            continue
        if record.effective_verdict() is Verdict.KEPT and not record.unverified:
            break
        count += 1
    return count


def three_round_rule_applies(rounds: Sequence[Round]) -> bool:
    return rounds_without_gain(rounds) >= 3


def three_round_findings(pre: PreEdit, rounds: Sequence[Round], ahead: int = 0) -> list[Finding]:
    """When the rule applies, both answers are given, each a reason that says something.
    `ahead`: rounds of the same explore group started before this one and not closed yet,
    counted as rounds without gain (their verdicts are not known when it starts)."""
    count = rounds_without_gain(rounds) + ahead
    if count < 3:
        return []
    still = f", {ahead} of them of this explore group, still open" if ahead else ""
    streak = f"{count} rounds in a row without a kept verdict{still}"
    if not (pre.bottleneck_recheck.strip() and pre.new_direction.strip()):
        return [
            THREE_ROUND_RULE.finding(f"{streak}: re-check the bottleneck class and state a new direction")
        ]
    return reason_findings(
        THREE_ROUND_RULE, f"{streak}; the bottleneck re-check", pre.bottleneck_recheck
    ) + reason_findings(THREE_ROUND_RULE, f"{streak}; the new direction", pre.new_direction)


def start_findings(pre: PreEdit, rounds: Sequence[Round], group: str = "") -> list[Finding]:
    """Everything that must hold before a tuning round may start (and its edit begin). A
    round of an explore group (`group`) starts while the group's earlier rounds are open;
    they count against the three-round rule as rounds without gain."""
    findings = pre_edit_findings(pre)
    baseline = next((r for r in rounds if r.is_baseline), None)
    env = baseline.environment if baseline else None
    if env is None or not env.passed:
        findings.append(
            ENVIRONMENT_ROUND.finding("the environment round has not passed: tuning is locked")
        )
    if baseline is None or not baseline.is_closed:
        findings.append(BASELINE_FIRST.finding("record the baseline (iter-000) before round 1"))
    still_open = [r for r in rounds if r.status != CLOSED and r.number != 0]
    others = [r.number for r in still_open if not group or r.group != group]
    if others:
        findings.append(
            ONE_ROUND_AT_A_TIME.finding(f"round {others[0]} is still open: close it first")
        )
    return findings + three_round_findings(pre, rounds, len(still_open) - len(others))
