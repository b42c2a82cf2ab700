"""An honest verdict: the measurements decide it. A verdict claimed at close must be the
one the numbers give; a verdict amended to kept against its round's own numbers is held
for review (never kept by the amendment alone), and a round with no valid measurement
has nothing to keep. A speedup above discipline.review_gain, or a round pto-tui did not
measure, is kept only when a person confirms it with a reason."""

from __future__ import annotations

from pto_tui.core.rounds.records import Round
from pto_tui.core.rules.reasons import reason_findings
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.rules.verdict import VerdictResult, invalid_sample_reason
from pto_tui.core.vocabulary import Verdict

HONEST_VERDICT = Rule(
    "honest-verdict",
    refuses="a verdict the measurements do not give: a claimed verdict that differs from "
    "theirs, an amendment of a verdict whose reason says nothing or that goes around a "
    "review, a round kept without a valid measurement",
    fix="leave the verdict to the measurements, or repeat the benchmark in a new round; a "
    "round held for review is kept only by a person's confirmation",
    steps=("close", "amend"),
    cli="`round close` without --verdict; `round confirm N --reason REASON` for a held round",
    mcp="`round_close` without verdict; `round_confirm` for a held round",
)
REVIEW_LARGE_GAIN = Rule(
    "review-large-gain",
    refuses="keeping a round held for review (a speedup above discipline.review_gain) by an "
    "amendment, and a confirmation of a round not held (nor imported), given twice, or "
    "whose reason says nothing",
    fix="a person confirms the held round with a reason that says why the gain is real",
    steps=("amend", "confirm"),
    cli="`pto-tui round confirm N --reason REASON`",
    mcp="the `round_confirm` tool",
)

# the flag a held amendment leaves on its round (the confirmation then keeps it)
HELD_AMENDMENT = "review: amended to kept against its measurement"


def claimed_verdict_findings(claimed: Verdict | None, result: VerdictResult) -> list[Finding]:
    """A verdict claimed at close stands only when the measurements give it."""
    if claimed is None or claimed is result.verdict:
        return []
    return [
        HONEST_VERDICT.finding(
            f"the measurements give '{result.verdict.value}' ({result.reason}), not '{claimed.value}'"
        )
    ]


def verdict_amendment_findings(record: Round, why: str) -> list[Finding]:
    """A round held for review is confirmed, not amended; an amended verdict says why."""
    if record.held_for_review and not record.review_confirmation:
        rule = HONEST_VERDICT if HELD_AMENDMENT in " ".join(record.flags) else REVIEW_LARGE_GAIN
        return [
            rule.finding(
                f"round {record.number} is held for review: confirm it with "
                f"`pto-tui round confirm {record.number} --reason ...`, not an amendment"
            )
        ]
    return reason_findings(HONEST_VERDICT, f"amending round {record.number}'s verdict", why)


def keepable_findings(record: Round) -> list[Finding]:
    """A round kept by an amendment needs a valid measurement to be judged by."""
    problem = invalid_sample_reason(record.measurement.samples_us)
    if not problem and record.measurement.correctness == "pass":
        return []
    why = problem or f"correctness {record.measurement.correctness or 'not recorded'}"
    return [
        HONEST_VERDICT.finding(
            f"round {record.number} cannot be kept: it has no valid measurement ({why}); "
            "measure the change again in a new round"
        )
    ]


def held_amendment_finding(record: Round, gives: str) -> Finding:
    """What a verdict amended to kept against its numbers becomes: held, said as a warning."""
    return HONEST_VERDICT.finding(
        f"round {record.number} is held for review, not kept: its measurement gives {gives}; "
        f"keep it only with `pto-tui round confirm {record.number} --reason ...`"
    )


def confirm_findings(record: Round, reason: str) -> list[Finding]:
    """A confirmation keeps a closed round held for review (or one pto-tui did not
    measure), once, with a reason that says something."""
    number = record.number
    if not record.is_closed or not (record.held_for_review or record.imported):
        return [
            REVIEW_LARGE_GAIN.finding(
                f"round {number} is not a closed round held for review (nor one pto-tui did not measure)"
            )
        ]
    if record.review_confirmation:
        return [
            REVIEW_LARGE_GAIN.finding(f"round {number} was confirmed already: {record.review_confirmation}")
        ]
    return reason_findings(REVIEW_LARGE_GAIN, f"confirming round {number}", reason)
