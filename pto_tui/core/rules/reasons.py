"""The one check of every reason a rule asks for: a bug fix's, a high-risk change's
justification, an approval of a loosened tolerance or a changed discipline, an
amendment's why, a review confirmation, a declared environment, the three-round rule's
answers. A single character or a row of dots unlocked protected files before: a reason
must say something."""

from __future__ import annotations

from pto_tui.core.rules.rule import Finding, Rule

REASON_MIN_CHARS = 12
REASON_MIN_WORDS = 2


def reason_problem(reason: str) -> str | None:
    """Why `reason` is no reason (too short, fewer than two words, no letters), or None."""
    text = " ".join(reason.split())
    words = [w for w in text.split(" ") if any(c.isalnum() for c in w)]
    if not text:
        return "no reason given"
    if len(text) < REASON_MIN_CHARS or len(words) < REASON_MIN_WORDS:
        return (
            f"the reason {text!r} says nothing: write at least {REASON_MIN_WORDS} words and "
            f"{REASON_MIN_CHARS} characters"
        )
    return None


def reason_findings(rule: Rule, what: str, reason: str) -> list[Finding]:
    """`rule`'s finding when `reason` (given for `what`) says nothing, else none."""
    problem = reason_problem(reason)
    return [rule.finding(f"{what}: {problem}")] if problem else []
