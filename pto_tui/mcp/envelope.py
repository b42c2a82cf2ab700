"""What every tool returns: {"schema_version", "data", "warnings"} or {"schema_version",
"error"} (docs/json/mcp-result.schema.json).

`data` is the `--json` output of the same command, stamped with its schema's version. An
error names its type, the tool, the rule (for a refusal), where the problem is (file,
line, the argument as `key`), every finding of a refusal with its own fix, and a fix: the
hint the core gave, else the standing advice for that rule, phrased for the tools
(`wording`), so an agent can act on a refusal without parsing prose.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from pto_tui.core.errors import ConfigError, InputError, LockedError, PtoError, RuleViolation
from pto_tui.core.rules.registry import fix_of
from pto_tui.core.schemas import stamped, version
from pto_tui.mcp.wording import for_agent

RESULT = "mcp-result"  # the envelope's own schema
LOCKED_FIX = "another pto-tui (the terminal application or a CLI command) is writing; retry when it is done"


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


def _result(payload: dict[str, Any], is_error: bool) -> CallToolResult:
    try:  # strict JSON: a non-finite number is refused where it enters, one here is a bug
        text = json.dumps(payload, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError as error:
        raise PtoError(f"cannot answer in JSON: {error} (a non-finite number in the result)") from None
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=json.loads(text), is_error=is_error
    )


def ok(data: dict[str, Any], warnings: list[str] | None = None, *, schema: str, is_error: bool = False,
       **extra: Any) -> CallToolResult:
    """A tool's result: `data` as docs/json/<schema>.schema.json describes it. is_error: the
    call did what it was asked and failed at it (exec's command exited non-zero)."""
    payload = {
        "schema_version": version(RESULT),
        "data": stamped(schema, data),
        "warnings": [for_agent(w) for w in warnings or []],
        **extra,
    }
    return _result(payload, is_error)


def _kind(error: PtoError) -> str:
    if isinstance(error, AgentBoundary):
        return error.kind
    for cls, kind in ((RuleViolation, "rule_violation"), (LockedError, "locked"),
                      (ConfigError, "config_error"), (InputError, "input_error")):
        if isinstance(error, cls):
            return kind
    return "error"


def _findings(error: PtoError) -> list[dict[str, Any]]:
    """Every finding of a refusal (its first is the error's rule), each with its fix."""
    if not isinstance(error, RuleViolation):
        return []
    return [
        {"rule": rule, "message": for_agent(message), "files": list(files),
         "fix": for_agent(hint) or fix_of(rule, "mcp")}
        for rule, message, hint, files in error.findings
    ]


def error_of(error: PtoError, tool: str = "") -> dict[str, Any]:
    """The structured form of a pto-tui error raised by `tool`."""
    kind = _kind(error)
    rule = error.rule if isinstance(error, RuleViolation) else None
    fix = for_agent(error.hint or "") or (fix_of(rule, "mcp") if rule else "")
    if kind == "locked" and not fix:
        fix = LOCKED_FIX
    if not fix:  # every error says what to do, if only where to look
        where = f"`{error.key}`" if error.key else (error.file or "the arguments")
        fix = f"correct {where} as the message says, then call {tool or 'the tool'} again"
    return {
        "type": kind,
        "tool": tool,
        "rule": rule,
        "message": for_agent(error.message),
        "file": error.file,
        "line": error.line,
        "key": error.key,
        "fix": fix,
        "findings": _findings(error),
        "rendered": for_agent(error.render()),
        **(error.details if isinstance(error, AgentBoundary) else {}),
    }


def failure(error: PtoError, tool: str = "") -> CallToolResult:
    return _result({"schema_version": version(RESULT), "error": error_of(error, tool)}, is_error=True)
