"""Corrections to closed rounds, kept beside the original record (which is never
rewritten), and the refusal to delete a round: the ledger is append-only."""

from __future__ import annotations

import getpass
import socket

from pto_tui.core.campaign.context import CampaignContext, now_text
from pto_tui.core.errors import InputError, RuleViolation
from pto_tui.core.rounds.records import Amendment, Round
from pto_tui.core.rules.gates import HONEST_HISTORY, REVIEW_LARGE_GAIN, reason_problem
from pto_tui.core.vocabulary import Verdict

AMENDABLE = ("verdict", "analysis", "next")


def amend(
    campaign: CampaignContext, number: int, field_name: str, new_value: str, why: str, who: str = ""
) -> Round:
    """A correction kept beside the original: the original record is never rewritten."""
    campaign.require_write()
    record = campaign.reads.round(number)
    if not record.is_closed:
        raise InputError(
            f"round {number} is open: change it directly, amendments are for closed rounds"
        )
    if not why.strip():
        raise InputError("an amendment needs a reason (--why)")
    if record.tampered:
        raise RuleViolation(HONEST_HISTORY, _tampered_message(record))
    old = _current_value(record, field_name, new_value)
    if field_name == "verdict" and record.held_for_review and not record.review_confirmation:
        raise RuleViolation(
            REVIEW_LARGE_GAIN,
            f"round {number} is held for review: confirm it with "
            f"`pto-tui round confirm {number} --reason ...`, not an amendment",
        )
    who = who or _who()
    record.amendments.append(
        Amendment(who=who, when=now_text(), why=why, field=field_name, old=old, new=new_value)
    )
    campaign.publish(record)
    return record


def confirm_review(campaign: CampaignContext, number: int, reason: str, who: str = "") -> Round:
    """Keep a round held for review (a speedup above discipline.review_gain): the user's
    reason is recorded in the round, and the verdict becomes kept as an amendment beside
    the original (so the log and notes.md show both)."""
    campaign.require_write()
    record = campaign.reads.round(number)
    if record.tampered:
        raise RuleViolation(HONEST_HISTORY, _tampered_message(record))
    if not record.is_closed or not record.held_for_review:
        raise RuleViolation(REVIEW_LARGE_GAIN, f"round {number} is not a closed round held for review")
    if record.review_confirmation:
        raise RuleViolation(
            REVIEW_LARGE_GAIN, f"round {number} was confirmed already: {record.review_confirmation}"
        )
    problem = reason_problem(reason)
    if problem:
        raise RuleViolation(REVIEW_LARGE_GAIN, f"confirming round {number}: {problem}")
    who, when = who or _who(), now_text()
    record.review_confirmation = f"{who} at {when}: {reason.strip()}"
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


def _tampered_message(record: Round) -> str:
    return (
        f"round {record.number} was changed by hand after it was closed ("
        + "; ".join(record.tampered)
        + "): restore its round.toml before correcting it"
    )


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
    record = campaign.reads.round(number)
    if record.is_closed:
        raise RuleViolation(
            HONEST_HISTORY,
            f"round {number} is closed; rounds are never deleted (add an amendment instead)",
        )
    raise RuleViolation(
        HONEST_HISTORY, "rounds are never deleted; close the open round with its result"
    )
