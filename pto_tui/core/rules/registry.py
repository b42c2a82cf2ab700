"""Every rule of the workflow, by id: the one list docs/rules.md is generated from
(scripts/rules_doc.py) and the front ends look a refusal's fix up in."""

from __future__ import annotations

import re

from pto_tui.core.errors import RuleViolation
from pto_tui.core.rules import (
    history,
    measurement,
    open_round,
    ownership,
    pre_edit,
    protected,
    review,
    risk,
    sequence,
    workload,
)
from pto_tui.core.rules.rule import Rule

# the modules that declare rules, in the order docs/rules.md lists them (the loop's order)
RULE_MODULES = (
    sequence, pre_edit, protected, risk, workload, measurement, open_round, review, history, ownership,
)


def _declared() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for module in RULE_MODULES:
        for value in vars(module).values():
            if isinstance(value, Rule) and found.setdefault(value.id, value) is not value:
                raise ValueError(f"two rules have the id {value.id!r}")
    return found


RULES: dict[str, Rule] = _declared()


def fix_of(rule_id: str, front: str) -> str:
    """The fix of rule `rule_id` for front end `front` ("cli", "mcp"); "" for no such rule."""
    rule = RULES.get(rule_id)
    return rule.fix_for(front) if rule is not None else ""


def fixes_of(error: RuleViolation, front: str) -> list[str]:
    """How to answer each rule a refusal names (its first rule, then those its "also"
    lines add), as front end `front` says it: "four-questions: answer ... (`round start
    --bottleneck ...`)". Empty when the refusal's own hint says it already."""
    if error.hint:
        return []
    ids = dict.fromkeys([error.rule, *re.findall(r"\n  also \[([\w-]+)\]", error.message)])
    return [f"{rule}: {fix}" for rule in ids if (fix := fix_of(rule, front))]


def for_front(text: str, front: str) -> str:
    """A refusal's text as front end `front` shows it: each rule's command-line piece in
    parentheses (`Rule.finding_with_fix`) replaced by that front end's own piece."""
    for rule in RULES.values():
        piece = rule.piece(front)
        if rule.cli and piece and f"({rule.cli})" in text:
            text = text.replace(f"({rule.cli})", f"({piece})")
    return text
