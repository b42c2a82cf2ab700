"""Strict tool arguments: a call is checked against the tool's listed input schema (no
unknown argument, the right types, the enums) before the tool runs, and a call that does
not fit it is answered with the {error} result naming the tool and the argument, never
with the SDK's own text and never by ignoring an argument (`projcet` is refused, not
dropped for the default project)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from pto_tui.core.errors import InputError
from pto_tui.mcp.envelope import failure

CALL = "tools/call"


def _argument(error: ValidationError) -> str:
    """Where the error is, as an argument path: `show.number`, `pre_edit.checklist`."""
    return ".".join(str(part) for part in error.absolute_path)


def problem_of(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> InputError | None:
    """Why `arguments` do not fit the tool's input schema, naming the argument; None when they do."""
    known = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        return InputError(
            f"{tool}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"{tool} takes {', '.join(known) or 'no arguments'}",
            key=unknown[0],
            hint=f"call {tool} with the arguments its input schema lists",
        )
    errors = sorted(Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    error = errors[0]
    where = _argument(error)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        extra = sorted(set(error.instance) - set(allowed))
        where = ".".join(filter(None, (where, extra[0] if extra else "")))
        message = f"unknown key {where!r}; it takes {', '.join(allowed)}"
    elif error.validator == "required":
        message = error.message
    else:
        message = f"argument {where!r}: {error.message}"
    return InputError(f"{tool}: {message}", key=where or None,
                      hint=f"give {where or 'the arguments'} as {tool}'s input schema says")


class StrictArguments:
    """Server middleware: refuses a tool call whose arguments its input schema does not allow.
    `schema_of` gives a tool's strict input schema (None for a tool the server lacks)."""

    def __init__(self, schema_of: Callable[[str], Awaitable[dict[str, Any] | None]]) -> None:
        self.schema_of = schema_of

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == CALL and isinstance(ctx.params, Mapping):
            tool = str(ctx.params.get("name", ""))
            arguments = ctx.params.get("arguments") or {}
            schema = await self.schema_of(tool)
            if schema is not None and isinstance(arguments, dict):
                problem = problem_of(tool, arguments, schema)
                if problem is not None:
                    return failure(problem, tool)
        return await call_next(ctx)
