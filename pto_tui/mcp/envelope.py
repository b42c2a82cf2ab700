"""What every tool returns: {"data": ..., "warnings": [...]} or a structured error.

An error names its type, the rule (for a refusal), where the problem is (file, line,
key) and a fix: the hint the core gave, else the standing advice for that rule, so an
agent can act on a refusal without parsing prose.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from pto_tui.core.errors import ConfigError, InputError, LockedError, PtoError, RuleViolation
from pto_tui.core.rules import gates

# The standing fix for each rule, phrased with the tools an agent calls.
RULE_FIXES: dict[str, str] = {
    gates.FOUR_QUESTIONS: "answer the four questions in pre_edit (bottleneck, why_ascend, "
    "expected_metric, correctness_plan); check them first with the `gates` tool",
    gates.PRE_EDIT_COMPLETE: "fill every Pre-Edit field; `gates` lists what is missing",
    gates.BOTTLENECK_CLASS: "set pre_edit.bottleneck to one of the classes the `classes` tool lists",
    gates.HARDWARE_CHECKLIST: "tick all 8 hardware checklist items with a note "
    "(pre_edit.checklist; keys from the `classes` tool)",
    gates.ENVIRONMENT_ROUND: "run the environment round (`env`) until it passes",
    gates.BASELINE_FIRST: "record the baseline (`baseline`) before any round",
    gates.ONE_ROUND_AT_A_TIME: "finish the open round first (`round_run` or `round_close`)",
    gates.THREE_ROUND_RULE: "three rounds without gain: give pre_edit.bottleneck_recheck and "
    "pre_edit.new_direction (a different, preferably structural, direction)",
    gates.CORRECTNESS_FIRST: "record build and correctness before any timing (`round_run` does it in order)",
    gates.SAME_WORKLOAD: "restore the case, shapes and benchmark settings of the baseline; "
    "a different workload is a new project",
    gates.HONEST_HISTORY: "closed rounds are never rewritten or deleted; start a new round",
    gates.VALID_BASELINE: "fix the build or correctness of iter-000 and record the baseline again",
    gates.EDITABLE_SCOPE: "undo the edit outside the round's scope, or declare it in pre_edit.scope; "
    "a protected file (benchmark, harness, test) needs bug_fix with a reason",
    gates.HIGH_RISK: "give a justification of the high-risk change (`round_changes` justify)",
    gates.ONE_HYPOTHESIS: "keep only the changes that serve this round's hypothesis; "
    "the others belong in a round of their own",
    gates.TOLERANCE_PROTECTED: "restore the correctness tolerance, or pass approve_tolerance "
    "with the user's explicit approval (who and why)",
    gates.HONEST_VERDICT: "leave the verdict to the measurements (omit verdict), "
    "or repeat the benchmark in a new round",
    gates.REVIEW_LARGE_GAIN: "a large gain is held for review: the user confirms it "
    "(`pto-tui round confirm N --reason ...`)",
    gates.DISCIPLINE_PROTECTED: "restore [discipline] in project.toml, "
    "or pass approve_discipline with a reason",
}


class AgentBoundary(PtoError):
    """A call beyond what the server lets the agent do: kind "outside_roots" (a path
    outside the declared roots) or "exec_disabled" (exec without --allow-exec). details
    (e.g. path, roots) go into the structured error as they are."""

    exit_code = 2

    def __init__(self, kind: str, message: str, *, hint: str, key: str | None = None,
                 details: dict[str, Any] | None = None) -> None:
        self.kind = kind
        self.details = dict(details or {})
        super().__init__(message, key=key, hint=hint)


def ok(data: Any, warnings: list[str] | None = None, **extra: Any) -> CallToolResult:
    payload = {"data": data, "warnings": list(warnings or []), **extra}
    try:  # strict JSON: a non-finite number is refused where it enters, one here is a bug
        text = json.dumps(payload, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError as error:
        raise PtoError(f"cannot answer in JSON: {error} (a non-finite number in the result)") from None
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=json.loads(text),
    )


def error_of(error: PtoError) -> dict[str, Any]:
    """The structured form of a pto-tui error."""
    kind = "error"
    rule = None
    if isinstance(error, AgentBoundary):
        kind = error.kind
    elif isinstance(error, RuleViolation):
        kind, rule = "rule_violation", error.rule
    elif isinstance(error, LockedError):
        kind = "locked"
    elif isinstance(error, ConfigError):
        kind = "config_error"
    elif isinstance(error, InputError):
        kind = "input_error"
    fix = error.hint or (RULE_FIXES.get(rule, "") if rule else "")
    if kind == "locked" and not fix:
        fix = "another pto-tui (the terminal application or a CLI command) is writing; retry when it is done"
    return {
        "type": kind,
        "rule": rule,
        "message": error.message,
        "file": error.file,
        "line": error.line,
        "key": error.key,
        "fix": fix,
        "rendered": error.render(),
        **(error.details if isinstance(error, AgentBoundary) else {}),
    }


def failure(error: PtoError) -> CallToolResult:
    payload = {"error": error_of(error)}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=True,
    )
