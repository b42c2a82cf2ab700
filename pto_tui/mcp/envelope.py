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
from pto_tui.core.rules.registry import fix_of


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
    fix = error.hint or (fix_of(rule, "mcp") if rule else "")
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
