"""Corrections to closed rounds, kept beside the original record (which is never
rewritten), and the refusal to delete a round: the ledger is append-only.

An amendment never mints a win: a verdict amended up to kept stands only when the
round's own measurement keeps it under the verdict rule (against the frontier it was
judged against). Otherwise the round is *held for review*: its verdict stays, and only
`round confirm N --reason` (recorded and shown) keeps it. A round with no valid samples
has nothing to keep. Downgrades, with a reason, stay allowed.
"""

from __future__ import annotations

import getpass
import socket

from pto_tui.core.campaign.context import CampaignContext, now_text
from pto_tui.core.campaign.requests import AmendRequest
from pto_tui.core.errors import InputError
from pto_tui.core.rounds.records import Amendment, Round
from pto_tui.core.rules.history import amendment_reason_findings, delete_findings, tampered_findings
from pto_tui.core.rules.review import (
    HELD_AMENDMENT,
    confirm_findings,
    held_amendment_finding,
    keepable_findings,
    verdict_amendment_findings,
)
from pto_tui.core.rules.rule import refuse
from pto_tui.core.vocabulary import Verdict

AMENDABLE = ("verdict", "analysis", "next")


def amend(campaign: CampaignContext, request: AmendRequest) -> Round:
    """A correction kept beside the original: the original record is never rewritten."""
    number, field_name, new_value, why = (
        request.number, request.field_name, request.value, request.why
    )
    campaign.require_write()
    campaign.check_owner(number)
    record = campaign.reads.round(number)
    if not record.is_closed:
        raise InputError(
            f"round {number} is open: change it directly, amendments are for closed rounds"
        )
    if not why.strip():
        raise InputError("an amendment needs a reason (--why)")
    refuse(tampered_findings(record))
    old = _current_value(record, field_name, new_value)
    who = request.who or _who()
    if field_name != "verdict":
        refuse(amendment_reason_findings(record, field_name, why))
    else:
        refuse(verdict_amendment_findings(record, why))
        if new_value == Verdict.KEPT.value and old != Verdict.KEPT.value:
            verdict, reason = _by_numbers(campaign, record)
            if verdict is not Verdict.KEPT:
                return _hold(campaign, record, who, why, f"{verdict.value} ({reason})")
    record.amendments.append(
        Amendment(who=who, when=now_text(), why=why, field=field_name, old=old, new=new_value)
    )
    campaign.publish(record)
    return record


def _by_numbers(campaign: CampaignContext, record: Round) -> tuple[Verdict, str]:
    """The verdict the round's own measurement gets under the verdict rule, against the
    frontier of the rounds before it (held for review counts as inconclusive); refused
    outright when it has nothing measured to keep."""
    from pto_tui.core.campaign.closing import RoundClosing
    from pto_tui.core.campaign.status import frontier_of

    refuse(keepable_findings(record))
    earlier = [r for r in campaign.current_rounds() if r.number < record.number]
    result = RoundClosing(campaign).judge(record, frontier_of(earlier))
    return (Verdict.INCONCLUSIVE if result.held else result.verdict), result.reason


def _hold(campaign: CampaignContext, record: Round, who: str, why: str, gives: str) -> Round:
    """The amendment to kept the numbers do not support: held for a person's confirmation."""
    record.held_for_review = True
    record.flags.append(f"{HELD_AMENDMENT} by {who} ({why.strip()}): the numbers give {gives}")
    campaign.publish(record)
    campaign.warnings.append(held_amendment_finding(record, gives).render())
    return record


def confirm_review(campaign: CampaignContext, number: int, reason: str, who: str = "") -> Round:
    """Keep a round held for review (a speedup above discipline.review_gain): the user's
    reason is recorded in the round, and the verdict becomes kept as an amendment beside
    the original (so the log and notes.md show both)."""
    campaign.require_write()
    campaign.check_owner(number)
    record = campaign.reads.round(number)
    refuse(tampered_findings(record))
    refuse(confirm_findings(record, reason))
    who, when = who or _who(), now_text()
    record.review_confirmation = f"{who} at {when}: {reason.strip()}"
    if not record.held_for_review:  # a round measured elsewhere, adopted as it stands
        campaign.publish(record)
        return record
    record.amendments.append(
        Amendment(
            who=who,
            when=when,
            why=f"review confirmed: {reason.strip()}",
            field="verdict",
            old=str(record.effective_verdict() or ""),
            new=Verdict.KEPT.value,
        )
    )
    campaign.publish(record)
    return record


def _who() -> str:
    return f"{getpass.getuser()}@{socket.gethostname()}"


def _current_value(record: Round, field_name: str, new_value: str) -> str:
    """The value an amendment of `field_name` replaces; refuses what cannot be amended."""
    if field_name == "verdict":
        try:
            Verdict(new_value)
        except ValueError:
            raise InputError(f"unknown verdict {new_value!r}") from None
        return str(record.effective_verdict() or "")
    if field_name in ("analysis", "next"):
        return str(getattr(record, field_name))
    raise InputError(f"cannot amend {field_name!r}; amendable: {', '.join(AMENDABLE)}")


def delete_round(campaign: CampaignContext, number: int) -> None:
    """Rounds are append-only: deleting a closed round is refused."""
    refuse(delete_findings(campaign.reads.round(number)))
