"""Every tool's title, what it does to the project (the MCP annotations: read-only,
destructive, idempotent, reaching the target) and the schema of its data (the `--json`
output of the same command, docs/json/), and the one way a tool is added to the server:
its answer wrapped in the envelope, its pto-tui errors turned into the {error} result.

Annotations are hints for the client (which may ask the user before a destructive or
open-world call): a tool that writes the project's records is not read-only; one that
may replace something (the torch_npu reference, workspace files put back, a command on
the target) is destructive; one that reaches the target (SSH or the local machine) is
open-world.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations

from pto_tui.core.errors import PtoError
from pto_tui.mcp.envelope import failure, ok


@dataclass
class Answer:
    """What a tool answers: its data (as `--json` prints it), the warnings to read, the
    steps a long tool ran; is_error: the call did what it was asked and that failed."""

    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] | None = None
    is_error: bool = False


@dataclass(frozen=True)
class ToolInfo:
    title: str
    schema: str  # docs/json/<schema>.schema.json: its data
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    target: bool = False  # reaches the target (open world)

    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=self.destructive and not self.read_only,
            idempotent_hint=self.idempotent or self.read_only,
            open_world_hint=self.target,
        )


def _reads(title: str, schema: str) -> ToolInfo:
    return ToolInfo(title, schema, read_only=True, idempotent=True)


TOOLS: dict[str, ToolInfo] = {
    "scan": _reads("Find the PTO operators under a folder", "scan"),
    "new": ToolInfo("Create a project from an operator's source", "new"),
    "import": ToolInfo("Import a hand-written (Markdown only) project", "import", idempotent=True),
    "status": _reads("The campaign at a glance", "status"),
    "verify": _reads("Check the history from the files", "verify"),
    "rounds": _reads("The round table", "rounds"),
    "show": _reads("One round's record", "show"),
    "gates": _reads("What still blocks a round with these Pre-Edit answers", "gates"),
    "classes": _reads("The bottleneck classes and the hardware checklist", "classes"),
    "env": ToolInfo("Run (or declare) the environment round", "env", target=True),
    "torch_baseline": ToolInfo("Measure (or record) the torch_npu reference", "torch-baseline",
                               destructive=True, target=True),
    "baseline": ToolInfo("Measure (or record) iter-000, the baseline", "round", target=True),
    "round_start": ToolInfo("Open the next round with its Pre-Edit answers", "round", destructive=True),
    "round_changes": ToolInfo("Record the open round's changes", "round", idempotent=True),
    "round_measure": ToolInfo("Record measurements taken elsewhere", "round"),
    "round_run": ToolInfo("Build, check and benchmark the open round on the target", "round", target=True),
    "round_close": ToolInfo("Close the open round with its verdict", "round"),
    "round_confirm": ToolInfo("Keep a round held for review (the user's word)", "round"),
    "round_rerun": ToolInfo("Measure an inconclusive round's change again", "round", destructive=True),
    "amend": ToolInfo("Correct a closed round beside its record", "round"),
    "phase": ToolInfo("The phases, or set the one new rounds fall in", "phase", idempotent=True),
    "diff": _reads("What changed in a round", "diff"),
    "costmodel_query": _reads("Cycles of one PTO instruction (costmodel)", "costmodel"),
    "costmodel_sweep": _reads("Cycles over a grid of tile shapes (costmodel)", "costmodel"),
    "suggest": _reads("Tile knobs ranked by the costmodel", "suggest"),
    "suggest_review": _reads("Predicted against measured: perf_sim's cycles and the costmodel's",
                             "suggest-review"),
    "chart": ToolInfo("Draw the summary chart", "chart", idempotent=True),
    "report": ToolInfo("Write the campaign report", "report", idempotent=True),
    "exec": ToolInfo("Run a command on the target (needs --allow-exec)", "exec", destructive=True,
                     target=True),
}


def _answered(answer: Answer, tool: str) -> CallToolResult:
    extra = {"steps": answer.steps} if answer.steps is not None else {}
    return ok(answer.data, answer.warnings, schema=TOOLS[tool].schema, is_error=answer.is_error, **extra)


def wrapped(fn: Callable[..., Any], tool: str) -> Callable[..., Any]:
    """The tool function as the server calls it: its Answer in the envelope, a PtoError (a
    refusal, bad input, a held lock) as the structured {error} result."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> CallToolResult:
            try:
                answer: Answer = await fn(*args, **kwargs)
            except PtoError as error:
                return failure(error, tool)
            return _answered(answer, tool)

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            answer: Answer = fn(*args, **kwargs)
        except PtoError as error:
            return failure(error, tool)
        return _answered(answer, tool)

    return run


ToolFunction = Callable[..., Answer] | Callable[..., Awaitable[Answer]]


def add(server: MCPServer, fn: ToolFunction, name: str = "") -> None:
    """Add a tool under its catalogue entry (`name`, else the function's name)."""
    tool = name or fn.__name__
    info = TOOLS[tool]
    server.add_tool(wrapped(fn, tool), name=tool, title=info.title, annotations=info.annotations(),
                    structured_output=False)
