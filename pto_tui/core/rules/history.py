"""An honest history: the ledger is append-only. A closed round is never rewritten nor
deleted (a correction is an amendment beside it, with a reason), iter-000's baseline and
environment notes are not recorded twice, a round changed by hand after it closed is
restored before it is corrected, and a decided round is not measured again as the same
change: only an inconclusive one is rerun."""

from __future__ import annotations

from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Round
from pto_tui.core.rules.reasons import reason_findings
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.vocabulary import Verdict

HONEST_HISTORY = Rule(
    "honest-history",
    refuses="rewriting or deleting a closed round, recording iter-000's baseline or "
    "closed environment notes again, correcting a round changed by hand after it closed, "
    "and an amendment whose reason says nothing",
    fix="correct a closed round with an amendment (its reason recorded beside the "
    "original), restore a round.toml edited by hand, or start a new round",
    steps=("env", "baseline", "changes", "measure", "run", "close", "amend", "confirm", "delete"),
    cli="`pto-tui amend N --field F --value V --why REASON`",
    mcp="the `amend` tool",
)
RERUN_INCONCLUSIVE = Rule(
    "rerun-inconclusive-only",
    refuses="rerunning a round that is not a closed, inconclusive tuning round: a decided "
    "round stays decided",
    fix="rerun only an inconclusive round; test a new idea in a new round",
    steps=("rerun",),
    cli="`round start` for a new idea",
    mcp="`round_start` for a new idea",
)


def closed_round_findings(record: Round) -> list[Finding]:
    """A closed round is not changed: only amended."""
    if not record.is_closed:
        return []
    return [
        HONEST_HISTORY.finding(
            f"round {record.number} is closed; a closed round cannot be changed (use `pto-tui amend`)"
        )
    ]


def tampered_findings(record: Round) -> list[Finding]:
    """A round changed by hand after it closed is restored before it is corrected."""
    if not record.tampered:
        return []
    return [
        HONEST_HISTORY.finding(
            f"round {record.number} was changed by hand after it was closed ("
            + "; ".join(record.tampered)
            + "): restore its round.toml before correcting it"
        )
    ]


def environment_rewrite_findings(baseline: Round | None) -> list[Finding]:
    """iter-000's environment notes may be recorded again until the baseline closes it; an
    iter-000 closed without a passed environment round (imported from Markdown, whose
    notes are no probe) takes attempts until one passes, each kept."""
    if baseline is None or not baseline.is_closed or baseline.environment is None:
        return []
    if not baseline.environment.passed:
        return []
    return [
        HONEST_HISTORY.finding(
            "iter-000 is closed with its environment notes; they are not rewritten "
            "(check a changed environment with `pto-tui exec`)"
        )
    ]


def baseline_rewrite_findings(baseline: Round | None) -> list[Finding]:
    """The baseline is recorded once."""
    if baseline is None or not baseline.is_closed:
        return []
    return [HONEST_HISTORY.finding("the baseline is already recorded; it cannot be rewritten")]


def delete_findings(record: Round) -> list[Finding]:
    """Rounds are append-only: deleting one is always refused."""
    if record.is_closed:
        return [
            HONEST_HISTORY.finding(
                f"round {record.number} is closed; rounds are never deleted (add an amendment instead)"
            )
        ]
    return [HONEST_HISTORY.finding("rounds are never deleted; close the open round with its result")]


def amendment_reason_findings(record: Round, field_name: str, why: str) -> list[Finding]:
    """An amendment of a round's analysis or next step says why (a verdict's, see
    `review.verdict_amendment_findings`)."""
    return reason_findings(HONEST_HISTORY, f"amending round {record.number}'s {field_name}", why)


def rerun_findings(original: Round) -> list[Finding]:
    """Why `original` cannot be rerun (empty: it can)."""
    name = round_name(original.number)
    if original.is_baseline:
        return [RERUN_INCONCLUSIVE.finding(f"{name} is the baseline: it has no change to rerun")]
    if not original.is_closed:
        return [RERUN_INCONCLUSIVE.finding(f"{name} is still open: close it before rerunning it")]
    verdict = original.effective_verdict()
    if verdict is not Verdict.INCONCLUSIVE:
        shown = verdict.value if verdict else "no verdict"
        return [
            RERUN_INCONCLUSIVE.finding(
                f"{name} is {shown}, not inconclusive: only an inconclusive round is rerun "
                "(start a new round to test a new idea)"
            )
        ]
    return []
