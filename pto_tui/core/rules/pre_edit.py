"""The rules of the Pre-Edit form: the four questions answered, every field filled, a
known bottleneck class, the hardware checklist ticked, and one hypothesis with a declared
scope that the round's changes stay inside."""

from __future__ import annotations

from collections.abc import Sequence

from pto_tui.core.rounds.records import PreEdit, checklist_complete
from pto_tui.core.rules.rule import Finding, Rule
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, PRE_EDIT_FIELDS

# start, and again on the open round's record at every later step (`open_round`)
_FORM_STEPS = ("start", "changes", "measure", "run", "close")

FOUR_QUESTIONS = Rule(
    "four-questions",
    refuses="a round whose Pre-Edit leaves one of the four questions unanswered: the "
    "bottleneck, why the change helps on Ascend, the metric that should improve, how "
    "correctness is assured",
    fix="answer the four questions in the Pre-Edit form (bottleneck, why_ascend, "
    "expected_metric, correctness_plan)",
    steps=_FORM_STEPS,
    cli="`round start --bottleneck --why --metric --correctness-plan`; `round gates` checks first",
    mcp="`round_start` pre_edit; check it first with the `gates` tool",
)
PRE_EDIT_COMPLETE = Rule(
    "pre-edit-complete",
    refuses="a round whose Pre-Edit form has an empty field",
    fix="fill every Pre-Edit field",
    steps=_FORM_STEPS,
    cli="the `round start` options, or `--form FILE`; `round gates` lists what is missing",
    mcp="`round_start` pre_edit; `gates` lists what is missing",
)
BOTTLENECK_CLASS = Rule(
    "bottleneck-class",
    refuses="a bottleneck that is not one of the workflow's bottleneck classes",
    fix="set the Pre-Edit bottleneck to one of the bottleneck classes",
    steps=_FORM_STEPS,
    cli="`round start --bottleneck`; `round classes` lists them",
    mcp="pre_edit.bottleneck; the `classes` tool lists them",
)
HARDWARE_CHECKLIST = Rule(
    "hardware-checklist",
    refuses="a round whose hardware checklist has an item not ticked with a note",
    fix="tick all 8 hardware checklist items, each with a note",
    steps=_FORM_STEPS,
    cli="`round start --check KEY=NOTE`, once per item",
    mcp="pre_edit.checklist; keys from the `classes` tool",
)
ONE_HYPOTHESIS = Rule(
    "one-hypothesis",
    refuses="a round with no declared scope or a scope covering the whole project, and "
    "changes outside the declared scope",
    fix="declare the files or parameters the hypothesis changes (the Pre-Edit scope) and "
    "keep the changes inside it; the others belong in a round of their own",
    steps=_FORM_STEPS,
    cli="`round start --scope FILE_OR_PARAM`, repeated",
    mcp="pre_edit.scope",
)

# The four questions (docs/workflow.md §10.1) and the Pre-Edit fields that answer them.
FOUR_QUESTION_FIELDS: tuple[tuple[str, str], ...] = (
    ("bottleneck", "what is the bottleneck"),
    ("why_ascend", "why this change helps on Ascend"),
    ("expected_metric", "which metric should improve"),
    ("correctness_plan", "how correctness is assured"),
)


def pre_edit_findings(pre: PreEdit) -> list[Finding]:
    """Gates on the Pre-Edit form alone: the four questions, every field, class, checklist."""
    findings: list[Finding] = []
    for key, question in FOUR_QUESTION_FIELDS:
        if not getattr(pre, key).strip():
            findings.append(FOUR_QUESTIONS.finding(f"not answered: {question}"))
    for key, label in PRE_EDIT_FIELDS:
        if key in ("bottleneck", "why_ascend", "expected_metric"):
            continue  # reported under the four questions
        if not pre.field_value(key).strip():
            findings.append(PRE_EDIT_COMPLETE.finding(f"Pre-Edit field '{label}' is empty"))
    if pre.bottleneck.strip() and pre.bottleneck not in BOTTLENECK_CLASSES:
        findings.append(
            BOTTLENECK_CLASS.finding(
                f"'{pre.bottleneck}' is not a bottleneck class; choose one of: "
                + "; ".join(BOTTLENECK_CLASSES)
            )
        )
    findings += declared_scope_findings(pre.scope)
    missing = checklist_complete(pre)
    if missing:
        findings.append(
            HARDWARE_CHECKLIST.finding(
                "hardware checklist items not ticked with a note: " + ", ".join(missing)
            )
        )
    return findings


def declared_scope_findings(scope: Sequence[str]) -> list[Finding]:
    """One hypothesis: the round names what it will change, and not the whole project."""
    findings: list[Finding] = []
    if not [item for item in scope if item.strip()]:
        findings.append(
            ONE_HYPOTHESIS.finding(
                "declare the files or parameters this hypothesis will change (scope); "
                "changes outside it are refused"
            )
        )
    catch_all = [item for item in scope if is_catch_all(item)]
    if catch_all:
        findings.append(
            ONE_HYPOTHESIS.finding(
                f"scope {', '.join(repr(i) for i in catch_all)} covers the whole project: "
                "declare the files or parameters this hypothesis changes"
            )
        )
    return findings


def is_catch_all(pattern: str) -> bool:
    """A scope item that matches every file of the project ("**", "*", "./**/*", "/")."""
    text = pattern.strip()
    return bool(text) and set(text) <= set("*/.") and ".." not in text.replace("*", "")


def scope_findings(stray: Sequence[str], scope: Sequence[str]) -> list[Finding]:
    """One hypothesis per round: every change must fall inside the declared scope."""
    if not stray:
        return []
    return [
        ONE_HYPOTHESIS.finding(
            f"changes outside the declared scope ({', '.join(scope) or 'none'}): "
            + ", ".join(stray)
            + "; revert them, or test them in a round of their own"
        )
    ]
